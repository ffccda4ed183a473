//! Cached memory in a run: the shared-memory engine ([`crate::shmem`]) on a physical network of its own, with the
//! cores' address spaces as main memory (`nocmsg run --memory cached`, `[caches]` in the chip file).
//!
//! Each address space is one core's memory image (`Core::mem.ram`, the DRAM behind the controllers); its addresses
//! carry the owner's index above bit 40 in the engine ([`Core::memory_key`]). A core's loads and stores that hit in
//! its caches run in its own loop, ahead of global time; everything else ([`crate::core::RunStop::Memory`]) runs
//! here, in global time order: misses, stores that travel, fences with stores in flight, atomics and semihosting
//! calls (which read and write the coherent view, after the core's stores have landed).
//!
//! Exactness: a core's caches change only when a message arrives at its tile. While none is on its way to it (and
//! no other core shares its address space, so none can be sent to it unasked), a core may run on to the horizon;
//! otherwise it runs only up to the next cycle, where the memory network is stepped and arrivals are handled before
//! any instruction of that cycle. Both clockings make the same calls in the same order.

use crate::config::{ChipConfig, MEMORY_BASE};
use crate::core::{Core, CoreEnv, FaultKind};
use crate::ni::NiOutcome;
use crate::semihost::GuestMemory;
use crate::shmem::homing::{Base, HashMode, Homing};
use crate::shmem::{Atomic, AtomicKind, CacheSpec, Done, Dram, Endpoint, MemSystem, Outcome, Packet, Params};
use noc::{Cycle, Network, NodeId};
use riscv::{Decoded, MemFault, Memory, Op};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Bits of an address within its address space; the owner's index sits above.
pub const KEY_SHIFT: u32 = 40;
const TAG_MEMORY: u64 = 0x6d65_6d00_0000_0001;

/// Main memory: the owners' images.
struct CoresDram<'a> {
    cores: &'a mut [Core],
}

impl Dram for CoresDram<'_> {
    fn read(&mut self, addr: u64, buf: &mut [u8]) {
        let (owner, a) = ((addr >> KEY_SHIFT) as usize, addr & ((1 << KEY_SHIFT) - 1));
        match self.cores[owner].mem.ram.slice(a, buf.len()) {
            Some(s) => buf.copy_from_slice(s),
            None => buf.fill(0),
        }
    }

    fn write(&mut self, addr: u64, data: &[u8]) {
        let (owner, a) = ((addr >> KEY_SHIFT) as usize, addr & ((1 << KEY_SHIFT) - 1));
        if let Some(s) = self.cores[owner].mem.ram.slice_mut(a, data.len()) {
            s.copy_from_slice(data);
        }
    }
}

/// The view of memory an instruction handed to the memory system runs against, at global cycle `now`.
struct Slow<'a> {
    ms: &'a mut MemSystem,
    tile: usize,
    key: u64,
    now: u64,
    l1: u32,
    extra: u32,
    wait: bool,
}

impl Memory for Slow<'_> {
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, MemFault> {
        match self.ms.load(self.tile, self.key | addr, size, self.now) {
            Outcome::Done { value, cycles } => {
                self.extra += cycles.saturating_sub(self.l1);
                Ok(value)
            }
            Outcome::Wait => {
                self.wait = true;
                Err(MemFault::OutOfRange { addr, size, kind: riscv::memory::AccessKind::Load })
            }
        }
    }

    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        match self.ms.store(self.tile, self.key | addr, size, value, self.now) {
            Outcome::Done { cycles, .. } => {
                self.extra += cycles.saturating_sub(self.l1);
                Ok(())
            }
            Outcome::Wait => {
                // Waiting for a write-buffer entry: the memory system makes the store then; the instruction runs again.
                self.wait = true;
                Err(MemFault::OutOfRange { addr, size, kind: riscv::memory::AccessKind::Store })
            }
        }
    }
}

/// The memory system of a run and the network it travels on.
pub struct CachedMemory {
    pub ms: MemSystem,
    pub net: Network,
    /// Packets waiting for their cycle to leave, by (cycle, sequence number).
    departures: BinaryHeap<Reverse<(u64, u64)>>,
    /// Packets between endpoints on the same node: they arrive one cycle after they leave.
    local: BinaryHeap<Reverse<(u64, u64)>>,
    packets: HashMap<u64, Packet>,
    seq: u64,
    /// Per core: packets waiting to leave or travelling to its tile.
    inbound: Vec<u32>,
    core_node: Vec<NodeId>,
    controller_node: Vec<NodeId>,
    /// Per core: no other core shares its address space.
    alone: Vec<bool>,
    /// Per core: the instruction it waits on.
    blocked: Vec<Option<Decoded>>,
    /// Per core: the instruction the chip handed to the memory system (not the interface).
    pub handed: Vec<bool>,
    done: Vec<Done>,
    lo: u64,
    hi: u64,
}

impl CachedMemory {
    /// The memory system for `cores` (each its own address space) on `nodes`, over the chip's `[caches]`.
    pub fn new(config: &ChipConfig, cores: &mut [Core], nodes: &[NodeId], stack_top: u64) -> Result<CachedMemory, String> {
        let c = config.caches.as_ref().ok_or_else(|| format!("chip {} has no [caches] section: cached memory needs one", config.name))?;
        let mut net_cfg = config.network_config()?;
        net_cfg.vcs = 1;
        net_cfg.watchdog_cycles = 0;
        net_cfg.eject_queue_flits = net_cfg.eject_queue_flits.max(64);
        let mut net = Network::new(net_cfg).map_err(|e| format!("caches.network: {e}"))?;
        net.set_default_drain(noc::DrainPolicy::Auto);
        let params = Params {
            tiles: cores.len(),
            line_bytes: c.line_bytes,
            flit_bytes: c.flit_bytes,
            l1d: CacheSpec { bytes: c.l1d_kib * 1024, ways: c.l1d_ways as usize, latency_cycles: c.l1d_latency_cycles },
            l2: CacheSpec { bytes: c.l2_kib * 1024, ways: c.l2_ways as usize, latency_cycles: c.l2_latency_cycles },
            home_cycles: c.home_cycles,
            write_buffer: c.write_buffer,
            controllers: c.controllers.len(),
            interleave_bytes: c.interleave_bytes,
            dram_latency_cycles: c.dram_latency_cycles,
            dram_cycles_per_line: c.dram_cycles_per_line,
        };
        // One address space per core, homed at its core (its lines are its own): hash modes matter once threads share one.
        let homing = Homing::new(Vec::new(), HashMode::None, Base::Local, (0..cores.len()).collect(), c.page_kib * 1024, c.line_bytes);
        for (i, core) in cores.iter_mut().enumerate() {
            core.memory_key = (i as u64) << KEY_SHIFT;
        }
        let width = config.mesh.width;
        let controller_node = c.controllers.iter().map(|&[x, y]| NodeId((y * width + x) * config.mesh.concentration)).collect();
        let n = cores.len();
        Ok(CachedMemory {
            ms: MemSystem::new(params, homing),
            net,
            departures: BinaryHeap::new(),
            local: BinaryHeap::new(),
            packets: HashMap::new(),
            seq: 0,
            inbound: vec![0; n],
            core_node: nodes.to_vec(),
            controller_node,
            alone: vec![true; n],
            blocked: vec![None; n],
            handed: vec![false; n],
            done: Vec::new(),
            lo: MEMORY_BASE,
            hi: stack_top,
        })
    }

    fn node(&self, e: Endpoint) -> NodeId {
        match e {
            Endpoint::Tile(t) => self.core_node[t],
            Endpoint::Controller(c) => self.controller_node[c],
        }
    }

    /// Takes the engine's new packets into the departure queue.
    fn collect(&mut self) {
        let packets: Vec<Packet> = self.ms.take_packets().collect();
        for p in packets {
            if let Endpoint::Tile(t) = p.dst {
                self.inbound[t] += 1;
            }
            self.seq += 1;
            self.departures.push(Reverse((p.at, self.seq)));
            self.packets.insert(self.seq, p);
        }
    }

    /// The first cycle at or after the network's at which the memory system has something to do, or `u64::MAX`.
    pub fn next_event(&self) -> u64 {
        let now = self.net.now().0;
        let mut t = u64::MAX;
        if !self.net.is_idle() {
            t = now + 1;
        }
        if let Some(&Reverse((at, _))) = self.departures.peek() {
            t = t.min(at.max(now));
        }
        if let Some(&Reverse((at, _))) = self.local.peek() {
            t = t.min(at.max(now));
        }
        t
    }

    /// The cycle up to which core `rank`, at global cycle `now`, may run on its own: the horizon while nothing can
    /// reach its caches before, else the next cycle.
    pub fn limit(&self, rank: usize, now: u64, horizon: u64) -> u64 {
        if self.inbound[rank] == 0 && self.alone[rank] {
            horizon
        } else {
            horizon.min(now + 1)
        }
    }

    /// Whether anything is on its way to core `rank`'s tile.
    pub fn expecting(&self, rank: usize) -> bool {
        self.inbound[rank] > 0
    }

    /// Handles everything due at the network's current cycle: arrivals, then departures (and what they set off).
    fn settle_cycle(&mut self, cores: &mut [Core]) {
        let now = self.net.now().0;
        loop {
            let mut arrived: Vec<Packet> = Vec::new();
            for d in self.net.take_delivered() {
                arrived.push(self.packets.remove(&d.payload).expect("a memory packet in flight"));
            }
            while let Some(&Reverse((at, id))) = self.local.peek() {
                if at > now {
                    break;
                }
                self.local.pop();
                arrived.push(self.packets.remove(&id).expect("a local packet"));
            }
            let mut departed = false;
            while let Some(&Reverse((at, id))) = self.departures.peek() {
                if at > now {
                    break;
                }
                self.departures.pop();
                departed = true;
                let p = &self.packets[&id];
                let (src, dst) = (self.node(p.src), self.node(p.dst));
                if src == dst {
                    self.local.push(Reverse((now + 1, id)));
                } else {
                    self.net.enqueue(src, dst, p.flits as u16, id, TAG_MEMORY);
                }
            }
            if arrived.is_empty() {
                if !departed {
                    return;
                }
                continue;
            }
            for p in arrived {
                if let Endpoint::Tile(t) = p.dst {
                    self.inbound[t] -= 1;
                }
                self.ms.deliver(p, now, &mut CoresDram { cores });
                self.collect();
            }
            self.done.extend(self.ms.take_done());
        }
    }

    /// Brings the memory system to cycle `t`: every arrival and departure up to and including `t` handled, in order.
    /// Stops early at a cycle where a blocked core's access finished (returned: the cycle reached).
    pub fn advance_to(&mut self, t: u64, cores: &mut [Core]) -> u64 {
        loop {
            self.settle_cycle(cores);
            let now = self.net.now().0;
            if now >= t || !self.done.is_empty() {
                return now;
            }
            let stop = t.min(self.next_event().max(now + 1));
            if !self.net.skip_idle_to(Cycle(stop)) {
                self.net.step().expect("the memory network does not deadlock: its endpoints take every packet");
            }
        }
    }

    /// Cores whose waits ended (their instruction has run and retired): `(rank, cycle)` each.
    pub fn resume(&mut self, cores: &mut [Core], env: &CoreEnv) -> Vec<usize> {
        let mut ready = Vec::new();
        for d in std::mem::take(&mut self.done) {
            let Some(op) = self.blocked[d.tile].take() else { continue };
            let core = &mut cores[d.tile];
            core.cache_cycles += d.at.saturating_sub(core.hart.cycle);
            core.hart.cycle = core.hart.cycle.max(d.at);
            match op.op {
                // The fence before a semihosting call: now the call.
                Op::Ebreak => {
                    self.semihost(cores, d.tile, op, env);
                }
                _ => cores[d.tile].replay(op, d.value, 0, env),
            }
            ready.push(d.tile);
        }
        ready
    }

    /// Runs instruction `d` of core `rank` at its cycle (the network's): what became of it.
    pub fn execute(&mut self, cores: &mut [Core], rank: usize, d: Decoded, env: &CoreEnv) -> NiOutcome {
        let now = cores[rank].hart.cycle;
        let key = cores[rank].memory_key;
        let l1 = self.ms.params().l1d.latency_cycles;
        let outcome = match d.op {
            Op::Ebreak => return self.semihost_after_fence(cores, rank, d, env, now),
            Op::Fence => match self.ms.fence(rank, now) {
                Outcome::Done { .. } => {
                    cores[rank].replay(d, 0, 0, env);
                    NiOutcome::Continue
                }
                Outcome::Wait => NiOutcome::Blocked,
            },
            op if matches!(riscv::timing::LatencyClass::of(op), riscv::timing::LatencyClass::Amo | riscv::timing::LatencyClass::LrSc) => {
                let core = &mut cores[rank];
                let addr = core.hart.x[usize::from(d.rs1)];
                let size = if matches!(op, Op::LrW | Op::ScW) || op.name().ends_with(".w") { 4 } else { 8 };
                if addr % size != 0 || addr < self.lo || addr + size > self.hi {
                    // Let the executor report it, as without caches.
                    return self.private_fault(core, d, env);
                }
                let kind = atomic_kind(op);
                let operand = core.hart.x[usize::from(d.rs2)];
                self.ms.atomic(rank, key | addr, Atomic { kind, size: size as u32, operand }, now);
                NiOutcome::Blocked
            }
            _ => {
                let core = &mut cores[rank];
                let mut view = Slow { ms: &mut self.ms, tile: rank, key, now, l1, extra: 0, wait: false };
                let result = riscv::execute(&mut core.hart, &mut view, d);
                let (extra, wait) = (view.extra, view.wait);
                match result {
                    Ok(_) if !wait => {
                        // Executed: charge it as the fast loop would.
                        let stall = core.pipeline.stall(&d);
                        core.hart.cycle += core.pipeline.charge(&env.costs, d.op, d.rd, stall, false) + u64::from(extra);
                        core.cache_cycles += u64::from(extra);
                        core.hart.instret += 1;
                        core.op_counts[d.op as usize] += 1;
                        NiOutcome::Continue
                    }
                    Ok(_) => unreachable!("an access that waits fails, changing nothing"),
                    Err(_) if wait => NiOutcome::Blocked,
                    Err(_) => self.private_fault(core, d, env),
                }
            }
        };
        if outcome == NiOutcome::Blocked {
            self.blocked[rank] = Some(d);
        }
        self.collect();
        self.done.extend(self.ms.take_done());
        outcome
    }

    /// Runs `d` against the core's private memory, which reports the fault it makes (misaligned, out of range).
    fn private_fault(&mut self, core: &mut Core, d: Decoded, env: &CoreEnv) -> NiOutcome {
        match riscv::execute(&mut core.hart, &mut core.mem, d) {
            Err(fault) => {
                if core.take_fault(&fault, env) {
                    NiOutcome::Continue
                } else {
                    NiOutcome::Stopped
                }
            }
            Ok(_) => {
                core.fault(FaultKind::BadAddress, format!("`{}`: access outside the cached address space", riscv::disasm::disassemble(&d, core.hart.pc)));
                NiOutcome::Stopped
            }
        }
    }

    fn semihost_after_fence(&mut self, cores: &mut [Core], rank: usize, d: Decoded, env: &CoreEnv, now: u64) -> NiOutcome {
        if let Outcome::Wait = self.ms.fence(rank, now) {
            self.blocked[rank] = Some(d);
            return NiOutcome::Blocked;
        }
        self.semihost(cores, rank, d, env)
    }

    /// A semihosting call of core `rank` against the coherent view of its address space.
    fn semihost(&mut self, cores: &mut [Core], rank: usize, d: Decoded, env: &CoreEnv) -> NiOutcome {
        let key = cores[rank].memory_key;
        let owner = (key >> KEY_SHIFT) as usize;
        // The owner's image is main memory; lend it to the view for the call.
        let mut image = std::mem::replace(&mut cores[owner].mem.ram, riscv::Ram::new(0, 0));
        let result = {
            let mut dram = DramOf { ram: &mut image, owner };
            let mut view = Coherent { ms: &mut self.ms, dram: &mut dram, key, lo: self.lo, hi: self.hi };
            crate::semihost::call(&mut cores[rank], env, Some(&mut view))
        };
        cores[owner].mem.ram = image;
        let going_on = cores[rank].finish_semihosting(d, result, env);
        self.collect();
        if going_on {
            NiOutcome::Continue
        } else {
            NiOutcome::Stopped
        }
    }
}

/// One owner's image as main memory (for a semihosting call, while it is lent out of its core).
struct DramOf<'a> {
    ram: &'a mut riscv::Ram,
    owner: usize,
}

impl Dram for DramOf<'_> {
    fn read(&mut self, addr: u64, buf: &mut [u8]) {
        debug_assert_eq!((addr >> KEY_SHIFT) as usize, self.owner);
        match self.ram.slice(addr & ((1 << KEY_SHIFT) - 1), buf.len()) {
            Some(s) => buf.copy_from_slice(s),
            None => buf.fill(0),
        }
    }

    fn write(&mut self, addr: u64, data: &[u8]) {
        if let Some(s) = self.ram.slice_mut(addr & ((1 << KEY_SHIFT) - 1), data.len()) {
            s.copy_from_slice(data);
        }
    }
}

/// The coherent view of one address space (its image lent out of its core), for semihosting calls.
struct Coherent<'a, 'b> {
    ms: &'a mut MemSystem,
    dram: &'a mut DramOf<'b>,
    key: u64,
    lo: u64,
    hi: u64,
}

impl GuestMemory for Coherent<'_, '_> {
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, MemFault> {
        let bytes = self.read(addr, size as usize).ok_or(MemFault::OutOfRange { addr, size, kind: riscv::memory::AccessKind::Load })?;
        let mut v = [0u8; 8];
        v[..bytes.len()].copy_from_slice(&bytes);
        Ok(u64::from_le_bytes(v))
    }

    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        if self.write(addr, &value.to_le_bytes()[..size as usize]) {
            Ok(())
        } else {
            Err(MemFault::OutOfRange { addr, size, kind: riscv::memory::AccessKind::Store })
        }
    }

    fn read(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        if addr < self.lo || addr.checked_add(len as u64)? > self.hi {
            return None;
        }
        let mut buf = vec![0; len];
        self.ms.peek(self.key | addr, &mut buf, &mut *self.dram);
        Some(buf)
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> bool {
        if addr < self.lo || addr.checked_add(data.len() as u64).is_none_or(|end| end > self.hi) {
            return false;
        }
        self.ms.dma_write(self.key | addr, data, &mut *self.dram);
        true
    }
}

fn atomic_kind(op: Op) -> AtomicKind {
    use Op::*;
    match op {
        LrW | LrD => AtomicKind::Lr,
        ScW | ScD => AtomicKind::Sc,
        AmoswapW | AmoswapD => AtomicKind::Swap,
        AmoaddW | AmoaddD => AtomicKind::Add,
        AmoxorW | AmoxorD => AtomicKind::Xor,
        AmoandW | AmoandD => AtomicKind::And,
        AmoorW | AmoorD => AtomicKind::Or,
        AmominW | AmominD => AtomicKind::Min,
        AmomaxW | AmomaxD => AtomicKind::Max,
        AmominuW | AmominuD => AtomicKind::MinU,
        AmomaxuW | AmomaxuD => AtomicKind::MaxU,
        other => unreachable!("{} is not an atomic", other.name()),
    }
}
