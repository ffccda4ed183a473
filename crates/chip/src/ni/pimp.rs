//! PIMP: register-level message passing. A core sends one 64-bit word per instruction to another core and receives
//! words from a FIFO, testing the FIFOs with four branch instructions (encoding in `docs/cores.md` and
//! `../shared/ARCHITECTURE.md`):
//!
//! | instruction        | effect                                                                 |
//! |--------------------|------------------------------------------------------------------------|
//! | `send rs1, rs2`    | queue word `rs2` for core `rs1` (a rank of the program)                 |
//! | `recv rd`          | take the oldest received word into `rd`                                 |
//! | `src rd`           | the rank that sent the oldest received word (not taken)                 |
//! | `brs/bns off`      | branch if the send FIFO has room / is full                              |
//! | `bar/bnr off`      | branch if a word has arrived / nothing has                              |
//!
//! Model: the send FIFO is the node's source queue in the network (a word leaves it when its single-flit packet
//! enters the router), bounded at `send_fifo_entries`; the receive FIFO *is* the node's ejection queue, sized
//! `recv_fifo_entries`, so a core that stops receiving back-pressures the network exactly as the hardware would.
//! One virtual channel and dimension-order routing deliver the words between a pair in order. The paper leaves
//! `recv`/`src` on an empty FIFO and `send` on a full one undefined; here they stop the core with a report.

use super::{NetworkInterface, NiCounters, NiOutcome, NiStats, Placement};
use crate::config::NiConfig;
use crate::core::{Core, CoreEnv, FaultKind};
use noc::{Network, NodeId, NodeOwner};
use riscv::{Decoded, Op};

pub struct Pimp {
    send_fifo_entries: u64,
    placement: Placement,
    counters: Vec<NiCounters>,
    /// Per rank: the cycle its current wait loop began.
    wait_since: Vec<Option<u64>>,
}

impl Pimp {
    pub fn new(config: &NiConfig, placement: Placement) -> Pimp {
        let ranks = placement.rank_node.len();
        Pimp {
            send_fifo_entries: u64::from(config.send_fifo_entries),
            placement,
            counters: vec![NiCounters::default(); ranks],
            wait_since: vec![None; ranks],
        }
    }

    fn node(&self, rank: usize) -> NodeId {
        self.placement.rank_node[rank]
    }

    fn send_fifo_full(&self, rank: usize, net: &Network) -> bool {
        net.source_queue_flits(self.node(rank)) >= self.send_fifo_entries
    }

    fn nothing_received(&self, rank: usize, net: &Network) -> bool {
        net.eject_peek(self.node(rank)).is_none()
    }

    /// The rank that sent a word from `node`.
    fn rank_of(&self, node: NodeId) -> u64 {
        u64::from(self.placement.node_rank[node.0 as usize])
    }

    fn write_rd(core: &mut Core, d: &Decoded, value: u64) {
        if d.rd != 0 {
            core.hart.x[d.rd as usize] = value;
        }
    }

    fn send(&mut self, core: &mut Core, d: &Decoded, net: &mut Network) -> Result<(), String> {
        let (dest, payload) = (core.hart.x[d.rs1 as usize], core.hart.x[d.rs2 as usize]);
        let Some(to) = self.placement.global(core.rank, dest) else {
            return Err(format!("send to core {dest}: the program runs on cores 0..{}", self.placement.job_ranks(core.rank) - 1));
        };
        let node = self.node(core.rank);
        let queued = net.source_queue_flits(node);
        if queued >= self.send_fifo_entries {
            return Err(format!(
                "send on a full send FIFO ({} entries); test it with brs/bns before sending",
                self.send_fifo_entries
            ));
        }
        net.enqueue(node, self.node(to), 1, payload, 0);
        let c = &mut self.counters[core.rank];
        c.sends += 1;
        c.send_fifo_peak = c.send_fifo_peak.max(queued + 1);
        Ok(())
    }

    fn recv(&mut self, core: &mut Core, d: &Decoded, net: &mut Network) -> Result<(), String> {
        let node = self.node(core.rank);
        // The FIFO only grows between two receives, so its peak is always seen just before one.
        let occupancy = net.eject_arrived(node) as u64;
        let flit = net.eject_pop(node).ok_or("recv on an empty receive FIFO; test it with bar/bnr before receiving")?;
        let delivery = flit.delivery.expect("PIMP packets are single flits, so every flit is a tail");
        Self::write_rd(core, d, delivery.payload);
        let c = &mut self.counters[core.rank];
        c.receives += 1;
        c.recv_fifo_peak = c.recv_fifo_peak.max(occupancy);
        c.recv_fifo_entry_cycles += delivery.drained.0 - delivery.ejected.0;
        let sender = self.rank_of(delivery.src) as usize;
        self.counters[sender].send_fifo_entry_cycles += delivery.injected.0 - delivery.created.0;
        Ok(())
    }
}

impl NetworkInterface for Pimp {
    fn kind(&self) -> &'static str {
        "pimp"
    }

    fn execute(&mut self, core: &mut Core, d: Decoded, net: &mut Network, env: &CoreEnv) -> NiOutcome {
        debug_assert_eq!(core.hart.cycle, net.now().0, "the network must have caught up with the core");
        let rank = core.rank;
        let taken = match d.op {
            Op::PimpSend | Op::PimpRecv | Op::PimpSrc => {
                let done = match d.op {
                    Op::PimpSend => self.send(core, &d, net),
                    Op::PimpRecv => self.recv(core, &d, net),
                    _ => match net.eject_peek(self.node(rank)) {
                        Some(front) => {
                            // Its rank in the job (chip-wide and job rank are the same with one job).
                            let sender = self.placement.local(self.rank_of(front.src) as usize);
                            Self::write_rd(core, &d, sender);
                            Ok(())
                        }
                        None => Err("src on an empty receive FIFO; test it with bar/bnr first".to_string()),
                    },
                };
                if let Err(reason) = done {
                    core.fault(FaultKind::IllegalInstruction, reason);
                    return NiOutcome::Stopped;
                }
                false
            }
            Op::PimpBrs => !self.send_fifo_full(rank, net),
            Op::PimpBns => self.send_fifo_full(rank, net),
            Op::PimpBar => !self.nothing_received(rank, net),
            Op::PimpBnr => self.nothing_received(rank, net),
            other => unreachable!("{other:?} is not a PIMP instruction"),
        };
        let pc = core.hart.pc;
        // PIMP instructions are 32-bit (never compressed); targets need IALIGN: 2 bytes with C, 4 without.
        let next = if taken { pc.wrapping_add(d.imm as i64 as u64) } else { pc.wrapping_add(4) };
        let align: u64 = if core.hart.isa.compressed() { 2 } else { 4 };
        if next & (align - 1) != 0 {
            core.fault(FaultKind::Misaligned, format!("instruction address misaligned: branch target {next:#x}"));
            return NiOutcome::Stopped;
        }
        core.hart.pc = next;
        let start = core.hart.cycle;
        core.retire(&d, taken, env);
        let period = core.hart.cycle - start;
        core.charge(pc, period);
        let spinning = taken && d.imm == 0 && matches!(d.op, Op::PimpBns | Op::PimpBnr);
        if !spinning {
            self.wait_since[rank] = None;
            return NiOutcome::Continue;
        }
        self.wait_since[rank].get_or_insert(start);
        let c = &mut self.counters[rank];
        if d.op == Op::PimpBns {
            c.send_wait_cycles += period;
        } else {
            c.recv_wait_cycles += period;
        }
        NiOutcome::Waiting { period }
    }

    fn still_waiting(&self, core: &Core, d: &Decoded, net: &Network) -> bool {
        match d.op {
            Op::PimpBns => self.send_fifo_full(core.rank, net),
            Op::PimpBnr => self.nothing_received(core.rank, net),
            _ => true,
        }
    }

    fn skip_waits(&mut self, core: &mut Core, d: &Decoded, iterations: u64, period: u64) {
        core.charge(core.hart.pc, iterations * period);
        core.hart.cycle += iterations * period;
        core.hart.instret += iterations;
        core.op_counts[d.op as usize] += iterations;
        core.pipeline.taken_branches += iterations;
        let c = &mut self.counters[core.rank];
        if d.op == Op::PimpBns {
            c.send_wait_cycles += iterations * period;
        } else {
            c.recv_wait_cycles += iterations * period;
        }
    }

    fn waiting_since(&self, rank: usize) -> Option<u64> {
        self.wait_since[rank]
    }

    fn describe_wait(&self, d: &Decoded) -> String {
        match d.op {
            Op::PimpBns => format!("waits for room in its send FIFO ({} entries full)", self.send_fifo_entries),
            _ => "waits for a message (receive FIFO empty)".to_string(),
        }
    }

    fn node_owners(&self, cores: &[Core], waiting: &[(usize, Decoded)], nodes: usize) -> Vec<Option<NodeOwner>> {
        let mut owners = vec![None; nodes];
        for core in cores {
            let name = format!("core {} (tile {})", core.rank, core.tile);
            // A core spinning on a full send FIFO runs no recv until its words leave: its receive FIFO, which
            // is the node's ejection queue, waits for its send FIFO, which is the node's injection queue.
            let blocked_sending = waiting.iter().any(|(rank, d)| *rank == core.rank && d.op == Op::PimpBns);
            owners[self.node(core.rank).0 as usize] = Some(NodeOwner {
                injection: format!("{name} send FIFO"),
                ejection: format!("{name} receive FIFO"),
                drains_after_send: blocked_sending
                    .then(|| format!("core {} to receive, which it does only once its send FIFO has room", core.rank)),
            });
        }
        owners
    }

    fn counters(&self, rank: usize) -> NiStats {
        NiStats::Pimp(self.counters[rank].clone())
    }

    fn finish(&mut self, net: &Network, end: u64) {
        // Words not received by the end: the sender's FIFO held each until it entered the network (or to the end),
        // the receiver's from its arrival to the end. Without them the occupancy sums would leave out exactly the
        // words of runs whose FIFOs filled up.
        for word in net.undrained() {
            let (sender, receiver) = (self.rank_of(word.src) as usize, self.rank_of(word.dst) as usize);
            let left_send_fifo = word.injected.map_or(end, |c| c.0.min(end));
            self.counters[sender].send_fifo_entry_cycles += left_send_fifo.saturating_sub(word.created.0);
            if let Some(arrived) = word.ejected.filter(|c| c.0 <= end) {
                let c = &mut self.counters[receiver];
                c.recv_fifo_entry_cycles += end - arrived.0;
                c.recv_fifo_left += 1;
            }
        }
        for c in &mut self.counters {
            c.recv_fifo_peak = c.recv_fifo_peak.max(c.recv_fifo_left);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noc::{Cycle, DrainPolicy, NetworkConfig};

    /// Two nodes of a 2x1 mesh with the pimp chips' router, node 1 receiving manually.
    fn network(recv_fifo: u32) -> Network {
        let cfg = NetworkConfig {
            width: 2,
            height: 1,
            buffer_depth_flits: 4,
            eject_queue_flits: recv_fifo,
            pipeline: noc::RouterPipeline::OneStage,
            watchdog_cycles: 0,
            ..NetworkConfig::default()
        };
        let mut net = Network::new(cfg).unwrap();
        net.set_default_drain(DrainPolicy::Manual);
        net
    }

    /// Words sent from rank 0 to rank 1 at the given cycles; nothing receives them before `end`.
    fn run(sends: &[u64], end: u64, recv_fifo: u32) -> Network {
        let mut net = network(recv_fifo);
        for &at in sends {
            net.run_until(Cycle(at)).unwrap();
            net.enqueue(NodeId(0), NodeId(1), 1, at, 0);
        }
        net.run_until(Cycle(end + 1)).unwrap();
        net
    }

    /// Words still queued at the end of a run count in both occupancy sums, exactly: the expected sums come from a
    /// twin network whose receiver drains everything after `end` and reports each word's timestamps.
    #[test]
    fn words_never_received_count_in_the_occupancy_sums() {
        let config =
            NiConfig { kind: crate::config::NiKind::Pimp, send_fifo_entries: 64, recv_fifo_entries: 4, mpb: None, udn: None };
        // 20 words in bursts; the receive FIFO (4) and the router buffers fill, the rest waits in the send FIFO.
        let all: Vec<u64> = (0..20).map(|i| 10 + i / 5 * 7).collect();
        for end in [12, 40, 500] {
            let sends: Vec<u64> = all.iter().copied().filter(|&at| at <= end).collect();
            let mut pimp = Pimp::new(&config, Placement::new(&[0, 1], 2));
            let net = run(&sends, end, 4);
            pimp.finish(&net, end);

            let mut twin = run(&sends, end, 4);
            let (mut send_sum, mut recv_sum, mut left) = (0, 0, 0);
            let mut drained = 0;
            while drained < sends.len() {
                while let Some(flit) = twin.eject_pop(NodeId(1)) {
                    let d = flit.delivery.unwrap();
                    send_sum += d.injected.0.min(end) - d.created.0;
                    if d.ejected.0 <= end {
                        recv_sum += end - d.ejected.0;
                        left += 1;
                    }
                    drained += 1;
                }
                twin.step().unwrap();
            }
            let (sender, receiver) = (&pimp.counters[0], &pimp.counters[1]);
            assert_eq!(receiver.recv_fifo_left, left, "end {end}");
            assert_eq!(receiver.recv_fifo_entry_cycles, recv_sum, "end {end}");
            assert_eq!(sender.send_fifo_entry_cycles, send_sum, "end {end}");
            assert_eq!(receiver.recv_fifo_peak, left);
            if end == 500 {
                assert_eq!(left, 4, "the receive FIFO is full");
                let never_sent = net.source_queue_flits(NodeId(0));
                assert!(never_sent > 0 && send_sum > never_sent * (end - 38), "{never_sent} words never left the send FIFO: {send_sum}");
            }
        }
    }
}
