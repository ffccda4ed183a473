//! UDN: a Tilera-style user dynamic network (TilePro64's UDN, as NoCMsg and the hybrid MPI/OpenMP study use it).
//! A core writes a packet word by word into its output queue to the local switch and reads arriving words from
//! demultiplexing receive queues, all through CSRs (the TilePro maps them to registers; RISC-V's nearest is a
//! CSR, which any compiler's inline assembly reaches: `csrw 0x800, a0`, `csrr a0, 0x801`):
//!
//! | CSR              | number          | access | effect                                                         |
//! |------------------|-----------------|--------|----------------------------------------------------------------|
//! | `udn.send`       | 0x800           | write  | queue a word: a header when no packet is open, else payload     |
//! | `udn.recv0..3`   | 0x801..=0x804   | read   | take the oldest word of tagged queue 0..3                       |
//! | `udn.recvc`      | 0x805           | read   | take the oldest word of the catch-all queue                     |
//! | `udn.irqen`      | 0x806           | r/w    | bit q: a word in queue q raises the arrival interrupt           |
//! | `udn.credits`    | 0xcc0           | read   | free words in the output queue                                  |
//! | `udn.avail`      | 0xcc1           | read   | bit q set while queue q (4: catch-all) holds a word             |
//! | `udn.count0..c`  | 0xcc2..=0xcc6   | read   | words in queue 0..3, catch-all                                  |
//! | `udn.maxlen`     | 0xcc7           | read   | the longest payload a header may announce (`max_packet_words`)  |
//!
//! A header is `destination rank | length << 16 | tag << 32`: `length` payload words (1 to
//! `ni.udn.max_packet_words`) follow it. Tags 0 to 3 name the tagged queue the payload goes to (the header is
//! stripped there); any other tag goes to the catch-all queue, which receives a descriptor `source rank | length
//! << 16 | tag << 32` before the payload. (The TilePro matches a tag word after the header against programmable
//! demultiplexing tags; fixing them to 0..3 keeps the mechanism and drops the registers.)
//!
//! Timing, as on the chip: writing into a full output queue and reading an empty receive queue stall the core
//! until a word leaves or arrives (the stall is charged to `credit_stall_cycles` / `recv_stall_cycles`). A
//! packet's head enters the network as soon as it is written and its body follows word by word, so a packet
//! holds its wormhole path until its last word is written and has left. Arriving words wait in the hardware input
//! queue (`ni.udn.input_queue_words`, the node's ejection queue) and move to their receive queue, one per cycle,
//! while it has room (`ni.udn.demux_queue_words`); a full queue stops the input queue (head of line) and
//! back-pressures the network. So two cores that write long packets to each other before reading deadlock, which
//! the chip's watchdog reports with the cycle of channels (NoCMsg's Figure 1).
//!
//! Misuse stops the core with a report: a header naming no rank of the program or an out-of-range length,
//! writing a read-only register, reading `udn.send`, a PIMP instruction.

use super::{NetworkInterface, NiOutcome, NiStats, Placement};
use crate::config::{ChipConfig, UdnConfig};
use crate::core::{Core, CoreEnv, FaultKind};
use noc::{DrainPolicy, Network, NodeId, NodeOwner, HEAD_NEEDS_NO_ROOM};
use riscv::{Decoded, Op};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};

/// `udn.send`: write a header or payload word.
pub const CSR_SEND: u16 = 0x800;
/// `udn.recv0`: the first of the five receive queues (0..3 tagged, 4 the catch-all).
pub const CSR_RECV: u16 = 0x801;
/// `udn.irqen`: arrival-interrupt enable, one bit per queue.
pub const CSR_IRQ_ENABLE: u16 = 0x806;
/// `udn.credits`: free words in the output queue.
pub const CSR_CREDITS: u16 = 0xcc0;
/// `udn.avail`: one bit per non-empty queue.
pub const CSR_AVAIL: u16 = 0xcc1;
/// `udn.count0`: the first of five occupancy counts.
pub const CSR_COUNT: u16 = 0xcc2;
/// `udn.maxlen`: the longest payload a packet may have.
pub const CSR_MAX_PACKET: u16 = 0xcc7;
/// Receive queues: four tagged ones and the catch-all.
pub const QUEUES: usize = 5;
pub const CATCH_ALL: usize = 4;

/// The CSR ranges the interface owns (inclusive).
pub const CSR_RANGES: [(u16, u16); 2] = [(CSR_SEND, CSR_IRQ_ENABLE), (CSR_CREDITS, CSR_MAX_PACKET)];

/// Per-core counters of the UDN interface (`ni` in `stats.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UdnCounters {
    /// Packets and words (headers included) written into the output queue.
    pub packets_sent: u64,
    pub words_sent: u64,
    /// Packets whose header reached this core's demultiplexer, and words the program read from its queues.
    pub packets_received: u64,
    pub words_received: u64,
    /// Cycles stalled writing into a full output queue (waiting for a credit) and reading an empty queue.
    pub credit_stall_cycles: u64,
    pub recv_stall_cycles: u64,
    /// Highest occupancy of the output queue, and of each receive queue (0..3, catch-all), in words.
    pub out_queue_peak: u64,
    pub queue_peak: [u64; QUEUES],
    /// Sum over words of the cycles each spent in a receive queue (words still there at the end counted to the
    /// end): divided by the run's cycles, the average occupancy.
    pub queue_entry_cycles: u64,
    /// Words left in the receive queues at the end (sent, never read).
    pub words_left: u64,
    /// Arrival interrupts taken.
    pub interrupts: u64,
    /// Cycles asleep in `wfi`, waiting for the arrival interrupt to become pending.
    pub wfi_cycles: u64,
}

/// A packet on its way: the words its sender has written and the receiver has not yet drained.
struct InFlight {
    words: VecDeque<u64>,
    /// The catch-all descriptor (source rank, length, tag).
    descriptor: u64,
}

/// A packet being written by a core.
#[derive(Clone, Copy)]
struct Open {
    id: u64,
    left: u32,
}

#[derive(Default)]
struct Side {
    /// Receive queues: each word with the cycle it became readable.
    queues: [VecDeque<(u64, u64)>; QUEUES],
    open: Option<Open>,
    irq_enable: u64,
    wait_since: Option<u64>,
    counters: UdnCounters,
}

pub struct Udn {
    cfg: UdnConfig,
    placement: Placement,
    sides: Vec<Side>,
    in_flight: HashMap<u64, InFlight>,
    next_id: u64,
}

/// Fields of a header or descriptor word.
fn fields(word: u64) -> (u64, u64, u64) {
    (word & 0xffff, (word >> 16) & 0xffff, word >> 32)
}

/// The receive queue of a packet with `tag`.
fn queue_of(tag: u64) -> usize {
    if tag < CATCH_ALL as u64 {
        tag as usize
    } else {
        CATCH_ALL
    }
}

/// What a CSR instruction writes: the operand itself (`csrrw`), bits to set (`csrrs`) or bits to clear (`csrrc`).
#[derive(Clone, Copy)]
enum CsrWrite {
    Replace(u64),
    Set(u64),
    Clear(u64),
}

impl CsrWrite {
    /// The register's new value, from its old one.
    fn apply(self, old: u64) -> u64 {
        match self {
            CsrWrite::Replace(v) => v,
            CsrWrite::Set(v) => old | v,
            CsrWrite::Clear(v) => old & !v,
        }
    }
}

/// What a CSR instruction does: whether it reads (with the read's side effects) and what it writes, if anything.
fn csr_access(core: &Core, d: &Decoded) -> (bool, Option<CsrWrite>) {
    let src = match d.op {
        Op::Csrrwi | Op::Csrrsi | Op::Csrrci => u64::from(d.rs1),
        _ => core.hart.x[d.rs1 as usize],
    };
    match d.op {
        // `csrrw` with rd = x0 does not read (RISC-V Zicsr).
        Op::Csrrw | Op::Csrrwi => (d.rd != 0, Some(CsrWrite::Replace(src))),
        // `csrrs`/`csrrc` always read; with rs1 = x0 (or a zero immediate) they do not write.
        Op::Csrrs | Op::Csrrsi => (true, (d.rs1 != 0).then_some(CsrWrite::Set(src))),
        Op::Csrrc | Op::Csrrci => (true, (d.rs1 != 0).then_some(CsrWrite::Clear(src))),
        _ => (false, None),
    }
}

/// The CSR number of a CSR instruction.
fn csr_of(d: &Decoded) -> u16 {
    (d.imm as u32 & 0xfff) as u16
}

impl Udn {
    pub fn new(config: &ChipConfig, placement: Placement) -> Udn {
        let ranks = placement.rank_node.len();
        Udn {
            cfg: config.udn(),
            placement,
            sides: (0..ranks).map(|_| Side::default()).collect(),
            in_flight: HashMap::new(),
            next_id: 0,
        }
    }

    fn node(&self, rank: usize) -> NodeId {
        self.placement.rank_node[rank]
    }

    /// Moves the words `rank`'s node has drained into its receive queues.
    fn absorb(&mut self, rank: usize, net: &mut Network) {
        let node = self.node(rank);
        let flits: Vec<noc::DrainedFlit> = net.take_drained_flits(node).collect();
        for f in flits {
            let q = (f.tag & !HEAD_NEEDS_NO_ROOM) as usize;
            let entry = self.in_flight.get_mut(&f.payload).expect("a drained packet is in flight");
            let word = if f.seq == 0 {
                self.sides[rank].counters.packets_received += 1;
                (q == CATCH_ALL).then_some(entry.descriptor)
            } else {
                Some(entry.words.pop_front().expect("a drained word was written"))
            };
            if f.delivery.is_some() {
                self.in_flight.remove(&f.payload);
            }
            if let Some(w) = word {
                let side = &mut self.sides[rank];
                side.queues[q].push_back((w, f.cycle.0 + 1));
                let len = side.queues[q].len() as u64;
                side.counters.queue_peak[q] = side.counters.queue_peak[q].max(len);
            }
        }
    }

    /// Whether queue `q` of `rank` has a word readable now (counting words drained and not yet absorbed).
    fn has_word(&self, rank: usize, q: usize, net: &Network) -> bool {
        !self.sides[rank].queues[q].is_empty()
            || net
                .drained_flits(self.node(rank))
                .iter()
                .any(|f| (f.tag & !HEAD_NEEDS_NO_ROOM) as usize == q && !(f.seq == 0 && q != CATCH_ALL))
    }

    fn credits(&self, rank: usize, net: &Network) -> u64 {
        u64::from(self.cfg.out_queue_words).saturating_sub(net.source_queue_flits(self.node(rank)))
    }

    /// Writes `word` into `rank`'s output queue (there is room).
    fn send_word(&mut self, rank: usize, word: u64, net: &mut Network) -> Result<(), String> {
        let node = self.node(rank);
        let side = &mut self.sides[rank];
        match side.open {
            None => {
                let (dest, len, tag) = fields(word);
                let Some(to) = self.placement.global(rank, dest) else {
                    return Err(format!(
                        "UDN header {word:#x} names destination {dest}: the program runs on cores 0..{}",
                        self.placement.job_ranks(rank) - 1
                    ));
                };
                if len == 0 || len > u64::from(self.cfg.max_packet_words) {
                    return Err(format!(
                        "UDN header {word:#x} has length {len}: a packet carries 1 to {} words (ni.udn.max_packet_words)",
                        self.cfg.max_packet_words
                    ));
                }
                let q = queue_of(tag);
                let id = self.next_id;
                self.next_id += 1;
                let descriptor = self.placement.local(rank) | len << 16 | tag << 32;
                self.in_flight.insert(id, InFlight { words: VecDeque::with_capacity(len as usize), descriptor });
                let class_tag = if q == CATCH_ALL { q as u64 } else { q as u64 | HEAD_NEEDS_NO_ROOM };
                net.enqueue_open(node, self.placement.rank_node[to], 1 + len as u16, id, class_tag);
                net.release_flits(node, 1);
                side.open = Some(Open { id, left: len as u32 });
                side.counters.packets_sent += 1;
            }
            Some(open) => {
                self.in_flight.get_mut(&open.id).expect("the open packet is in flight").words.push_back(word);
                net.release_flits(node, 1);
                side.open = (open.left > 1).then_some(Open { left: open.left - 1, ..open });
            }
        }
        side.counters.words_sent += 1;
        side.counters.out_queue_peak = side.counters.out_queue_peak.max(net.source_queue_flits(node));
        Ok(())
    }

    /// The interrupt line: a word is readable in a queue whose arrival interrupt is enabled, counting
    /// the words drained and not yet moved into the queues (for a sleeping core, whose queues are not brought up to
    /// date). `mip.MEIP` and the interrupt follow the latency after the line rises ([`Udn::irq_pending`]).
    fn irq_line(&self, rank: usize, net: &Network) -> bool {
        let side = &self.sides[rank];
        (0..QUEUES).any(|q| side.irq_enable & 1 << q != 0 && !side.queues[q].is_empty())
            || net.drained_flits(self.node(rank)).iter().any(|f| {
                let q = (f.tag & !HEAD_NEEDS_NO_ROOM) as usize;
                side.irq_enable & 1 << q != 0 && !(f.seq == 0 && q != CATCH_ALL)
            })
    }

    /// Whether a word in a queue whose arrival interrupt is enabled has been readable for the interrupt latency at
    /// `cycle` (the queues are up to date).
    fn irq_pending(&self, rank: usize, cycle: u64) -> bool {
        let side = &self.sides[rank];
        let latency = u64::from(self.cfg.interrupt_latency_cycles);
        (0..QUEUES).any(|q| {
            side.irq_enable & 1 << q != 0 && side.queues[q].front().is_some_and(|&(_, since)| since + latency <= cycle)
        })
    }

    /// The first cycle at or after `now` at which the arrival interrupt of `rank` could be due (the queues are up to
    /// date): when a word already there has waited the latency, else a word drained from `now` on, readable from the
    /// next cycle; `u64::MAX` when no queue may raise it.
    fn irq_window(&self, rank: usize, now: u64) -> u64 {
        let side = &self.sides[rank];
        if side.irq_enable == 0 {
            return u64::MAX;
        }
        let latency = u64::from(self.cfg.interrupt_latency_cycles);
        let queued = (0..QUEUES)
            .filter(|&q| side.irq_enable & 1 << q != 0)
            .filter_map(|q| side.queues[q].front().map(|&(_, since)| since + latency))
            .min();
        queued.unwrap_or(now + 1 + latency)
    }

    /// `wfi` on an armed core: retires at once if the interrupt line is up or cannot rise (`mie.MEIE` clear: nothing
    /// would end the wait), else the core sleeps until it rises (`wfi_cycles`). If `mstatus.MIE` lets it, the
    /// interrupt is then taken when due, the latency after the line rose.
    fn wfi(&mut self, core: &mut Core, d: &Decoded, net: &mut Network, env: &CoreEnv) -> NiOutcome {
        let (rank, now) = (core.rank, net.now().0);
        self.absorb(rank, net);
        let line = self.irq_line(rank, net);
        core.hart.meip = self.irq_pending(rank, now);
        if !line && core.hart.mie & riscv::hart::mip::MEIP != 0 && self.sides[rank].irq_enable != 0 {
            let side = &mut self.sides[rank];
            side.wait_since.get_or_insert(now);
            side.counters.wfi_cycles += 1;
            core.charge(core.hart.pc, 1);
            core.hart.cycle += 1;
            return NiOutcome::Waiting { period: 1 };
        }
        self.sides[rank].wait_since = None;
        let (pc, start) = (core.hart.pc, core.hart.cycle);
        core.hart.pc = pc.wrapping_add(u64::from(d.len));
        core.retire(d, false, env);
        core.charge(pc, core.hart.cycle - start);
        core.irq_until = self.irq_window(rank, now);
        NiOutcome::Continue
    }

    /// Stalls the core one cycle on `d` (which does not retire), counting it to `cause`.
    fn stall(&mut self, core: &mut Core, credit: bool) -> NiOutcome {
        let side = &mut self.sides[core.rank];
        side.wait_since.get_or_insert(core.hart.cycle);
        if credit {
            side.counters.credit_stall_cycles += 1;
        } else {
            side.counters.recv_stall_cycles += 1;
        }
        core.charge(core.hart.pc, 1);
        core.hart.cycle += 1;
        NiOutcome::Waiting { period: 1 }
    }

    fn access(&mut self, core: &mut Core, d: &Decoded, net: &mut Network) -> Result<Option<u64>, String> {
        let rank = core.rank;
        let csr = csr_of(d);
        let (reads, write) = csr_access(core, d);
        let read_only = |what: &str| format!("{what} (CSR {csr:#x}) is read-only");
        match csr {
            CSR_SEND => {
                // csrrs and csrrc always read their CSR, so they end here too: only csrw (csrrw/csrrwi) sends.
                if reads {
                    return Err("udn.send (CSR 0x800) cannot be read: write it with csrw (csrr, csrs and csrc all read it)"
                        .into());
                }
                // Defensive: the read check above already refuses every other form.
                let Some(CsrWrite::Replace(word)) = write else {
                    return Err("udn.send (CSR 0x800) takes csrw (csrrw): csrs and csrc do not send".into());
                };
                if self.credits(rank, net) == 0 {
                    return Ok(None);
                }
                self.send_word(rank, word, net)?;
                Ok(Some(0))
            }
            c if (CSR_RECV..CSR_RECV + QUEUES as u16).contains(&c) => {
                let q = usize::from(c - CSR_RECV);
                if write.is_some() {
                    return Err(read_only(&format!("receive queue {q}")));
                }
                self.absorb(rank, net);
                let Some((word, since)) = self.sides[rank].queues[q].pop_front() else {
                    return Ok(None);
                };
                net.add_drain_room(self.node(rank), q, 1);
                let c = &mut self.sides[rank].counters;
                c.words_received += 1;
                c.queue_entry_cycles += core.hart.cycle - since;
                Ok(Some(word))
            }
            CSR_IRQ_ENABLE => {
                let old = self.sides[rank].irq_enable;
                if let Some(w) = write {
                    self.sides[rank].irq_enable = w.apply(old) & ((1 << QUEUES) - 1);
                    self.absorb(rank, net);
                    // From the next instruction on the core runs in interrupt windows (or no longer does).
                    core.irq_armed = self.sides[rank].irq_enable != 0;
                    core.irq_until = self.irq_window(rank, net.now().0);
                    core.hart.meip = self.irq_pending(rank, net.now().0);
                }
                Ok(Some(old))
            }
            CSR_CREDITS | CSR_AVAIL => {
                if write.is_some() {
                    return Err(read_only(if csr == CSR_CREDITS { "udn.credits" } else { "udn.avail" }));
                }
                if csr == CSR_CREDITS {
                    return Ok(Some(self.credits(rank, net)));
                }
                self.absorb(rank, net);
                let side = &self.sides[rank];
                Ok(Some((0..QUEUES).filter(|&q| !side.queues[q].is_empty()).fold(0, |m, q| m | 1 << q)))
            }
            c if (CSR_COUNT..CSR_COUNT + QUEUES as u16).contains(&c) => {
                if write.is_some() {
                    return Err(read_only("a udn.count register"));
                }
                self.absorb(rank, net);
                Ok(Some(self.sides[rank].queues[usize::from(c - CSR_COUNT)].len() as u64))
            }
            CSR_MAX_PACKET => {
                if write.is_some() {
                    return Err(read_only("udn.maxlen"));
                }
                Ok(Some(u64::from(self.cfg.max_packet_words)))
            }
            _ => Err(format!("CSR {csr:#x} is not a UDN register")),
        }
    }
}

impl NetworkInterface for Udn {
    fn kind(&self) -> &'static str {
        "udn"
    }

    fn csrs(&self) -> Vec<(u16, u16)> {
        CSR_RANGES.to_vec()
    }

    fn interrupt_check(&mut self, core: &mut Core, net: &mut Network, env: &CoreEnv) {
        let (rank, now) = (core.rank, net.now().0);
        self.absorb(rank, net);
        let pending = self.irq_pending(rank, now);
        core.hart.meip = pending;
        if riscv::trap::external_interrupt_due(&core.hart) {
            core.take_external_interrupt(env);
            self.sides[rank].counters.interrupts += 1;
        }
        // A pending interrupt that is masked waits for the instruction that unmasks it, which stops the core anyway.
        core.irq_until = if pending { u64::MAX } else { self.irq_window(rank, now) };
    }

    fn attach(&mut self, net: &mut Network) {
        for rank in 0..self.sides.len() {
            for q in 0..QUEUES {
                net.add_drain_room(self.node(rank), q, self.cfg.demux_queue_words);
            }
        }
    }

    fn execute(&mut self, core: &mut Core, d: Decoded, net: &mut Network, env: &CoreEnv) -> NiOutcome {
        debug_assert_eq!(core.hart.cycle, net.now().0, "the network must have caught up with the core");
        if d.op == Op::Wfi {
            return self.wfi(core, &d, net, env);
        }
        if !matches!(d.op, Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci) {
            core.fault(
                FaultKind::IllegalInstruction,
                format!(
                    "{} is a PIMP instruction; this chip's interface is the UDN (CSRs 0x800..0x806, 0xcc0..0xcc6)",
                    d.op.name()
                ),
            );
            return NiOutcome::Stopped;
        }
        match self.access(core, &d, net) {
            Err(reason) => {
                core.fault(FaultKind::IllegalInstruction, reason);
                NiOutcome::Stopped
            }
            Ok(None) => self.stall(core, csr_of(&d) == CSR_SEND),
            Ok(Some(value)) => {
                if d.rd != 0 {
                    core.hart.x[d.rd as usize] = value;
                }
                let (pc, start) = (core.hart.pc, core.hart.cycle);
                core.hart.pc = pc.wrapping_add(u64::from(d.len));
                self.sides[core.rank].wait_since = None;
                core.retire(&d, false, env);
                core.charge(pc, core.hart.cycle - start);
                NiOutcome::Continue
            }
        }
    }

    fn still_waiting(&self, core: &Core, d: &Decoded, net: &Network) -> bool {
        // A stalled access ends at the core's interrupt window too: the chip checks the interrupt there before the
        // access is tried again, as debug clocking, which retries it every cycle, does.
        if core.irq_armed && net.now().0 >= core.irq_until && d.op != Op::Wfi {
            return false;
        }
        if d.op == Op::Wfi {
            return !self.irq_line(core.rank, net);
        }
        match csr_of(d) {
            CSR_SEND => self.credits(core.rank, net) == 0,
            c => !self.has_word(core.rank, usize::from(c - CSR_RECV), net),
        }
    }

    fn skip_waits(&mut self, core: &mut Core, d: &Decoded, iterations: u64, period: u64) {
        let cycles = iterations * period;
        core.charge(core.hart.pc, cycles);
        core.hart.cycle += cycles;
        let c = &mut self.sides[core.rank].counters;
        if d.op == Op::Wfi {
            c.wfi_cycles += cycles;
        } else if csr_of(d) == CSR_SEND {
            c.credit_stall_cycles += cycles;
        } else {
            c.recv_stall_cycles += cycles;
        }
    }

    fn waiting_since(&self, rank: usize) -> Option<u64> {
        self.sides[rank].wait_since
    }

    fn describe_wait(&self, d: &Decoded) -> String {
        if d.op == Op::Wfi {
            return "waits in wfi for the UDN arrival interrupt (no word in the queues udn.irqen enables)".into();
        }
        match csr_of(d) {
            CSR_SEND => {
                format!("stalls writing udn.send: its output queue ({} words) is full", self.cfg.out_queue_words)
            }
            c if c == CSR_RECV + CATCH_ALL as u16 => "stalls reading udn.recvc: the catch-all queue is empty".into(),
            c => format!("stalls reading udn.recv{}: receive queue {} is empty", c - CSR_RECV, c - CSR_RECV),
        }
    }

    fn node_owners(&self, cores: &[Core], waiting: &[(usize, Decoded)], nodes: usize) -> Vec<Option<NodeOwner>> {
        let mut owners = vec![None; nodes];
        for core in cores {
            let name = format!("core {} (tile {})", core.rank, core.tile);
            // A core stalled writing its output queue reads none of its receive queues until the write completes:
            // its demultiplexer, once the queues are full, waits for its send.
            let blocked_sending = waiting.iter().any(|(rank, d)| *rank == core.rank && csr_of(d) == CSR_SEND);
            owners[self.node(core.rank).0 as usize] = Some(NodeOwner {
                injection: format!("{name} UDN output queue"),
                ejection: format!("{name} UDN input queue"),
                drains_after_send: blocked_sending.then(|| {
                    format!(
                        "core {} to read its receive queues, which it does only once its output queue has room",
                        core.rank
                    )
                }),
            });
        }
        owners
    }

    fn counters(&self, rank: usize) -> NiStats {
        NiStats::Udn(self.sides[rank].counters.clone())
    }

    fn drain_policy(&self) -> DrainPolicy {
        DrainPolicy::Budgeted
    }

    fn finish(&mut self, net: &Network, end: u64) {
        for rank in 0..self.sides.len() {
            let node = self.node(rank);
            // Words drained by the end and not yet moved into a queue are in it as far as the program could tell.
            let unabsorbed: Vec<u64> = net
                .drained_flits(node)
                .iter()
                .filter(|f| f.cycle.0 < end && !(f.seq == 0 && (f.tag & !HEAD_NEEDS_NO_ROOM) as usize != CATCH_ALL))
                .map(|f| f.cycle.0 + 1)
                .collect();
            let side = &mut self.sides[rank];
            for since in side.queues.iter().flatten().map(|&(_, since)| since).chain(unabsorbed) {
                side.counters.words_left += 1;
                side.counters.queue_entry_cycles += end.saturating_sub(since);
            }
        }
    }
}
