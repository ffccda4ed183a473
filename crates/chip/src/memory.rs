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

impl CoresDram<'_> {
    /// The image of the address space `addr` lies in.
    fn image(&mut self, addr: u64) -> DramOf<'_> {
        let owner = (addr >> KEY_SHIFT) as usize;
        DramOf { ram: &mut self.cores[owner].mem.ram, owner }
    }
}

impl Dram for CoresDram<'_> {
    fn read(&mut self, addr: u64, buf: &mut [u8]) {
        self.image(addr).read(addr, buf)
    }

    fn write(&mut self, addr: u64, data: &[u8]) {
        self.image(addr).write(addr, data)
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
    /// Latency of the messages that crossed the network.
    latency: noc::Histogram,
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
    /// Per core: the first core of its process (whose image is the address space), and what its thread does.
    first: Vec<usize>,
    threads: Vec<Thread>,
    /// Per core: the core waiting to join its thread, and that core's call.
    joiner: Vec<Option<(usize, Decoded)>>,
    /// Bytes of the stack reservation each thread of a process gets (thread `i` the `i`-th slice from the top).
    stack_slice: u64,
    /// Cores that were idle or waiting (blocked in the chip) and now go on, or have stopped.
    woken: Vec<usize>,
    /// The thread-local template's initial bytes (.tdata, then zeros for .tbss).
    tls_image: Vec<u8>,
}

/// What a core's thread does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Thread {
    /// Idle: never started, or joined.
    Idle,
    Running,
    /// Ended with this value, not joined yet.
    Ended(u64),
    /// Its core has stopped (exit, a fault, or its process ended): it cannot be started again.
    Gone,
}

/// How the address spaces of a run are laid out.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Cores per process (1: every core its own address space).
    pub cores_per_process: usize,
    pub heap_end: u64,
    pub stack_top: u64,
    /// The program's sections, for the hashing mode.
    pub sections: Vec<(u64, u64, crate::shmem::homing::Section)>,
    /// The program's thread-local template (address, .tdata bytes, whole size), copied into each started thread's
    /// block.
    pub tls: Option<(u64, Vec<u8>, u64)>,
    pub hash_mode: HashMode,
    pub homing: Base,
}

/// Thread starts cost this many cycles before the started core's first instruction (an inter-processor interrupt
/// and a register load; our choice).
pub const THREAD_START_CYCLES: u64 = 50;

impl CachedMemory {
    /// The cores that start idle (every process's cores but its first), to keep off the run queue.
    pub fn idle_cores(&self) -> Vec<usize> {
        (0..self.threads.len()).filter(|&i| self.threads[i] == Thread::Idle).collect()
    }

    /// The memory system for `cores` on `nodes`, over the chip's `[caches]`: every `layout.cores_per_process`
    /// consecutive cores share an address space (the first one's image; the others idle until started as threads).
    pub fn new(config: &ChipConfig, cores: &mut [Core], nodes: &[NodeId], layout: &Layout) -> Result<CachedMemory, String> {
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
        let k = layout.cores_per_process.max(1);
        if cores.len() % k != 0 {
            return Err(format!("{} cores do not make processes of {k} cores each", cores.len()));
        }
        if let Base::Remote(t) = layout.homing {
            if t >= cores.len() {
                return Err(format!("--homing remote:{t}: the run has cores 0 to {}", cores.len() - 1));
            }
        }
        let homing = Homing::new(layout.sections.clone(), layout.hash_mode, layout.homing, (0..cores.len()).collect(), c.page_kib * 1024, c.line_bytes);
        for (i, core) in cores.iter_mut().enumerate() {
            core.memory_key = ((i - i % k) as u64) << KEY_SHIFT;
        }
        let slice = ((layout.stack_top - layout.heap_end) / k as u64) & !15;
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
            latency: noc::Histogram::default(),
            core_node: nodes.to_vec(),
            controller_node,
            // Alone: no other core shares its address space nor homes any of its lines.
            alone: vec![k == 1 && layout.hash_mode == HashMode::None && layout.homing == Base::Local; n],
            first: (0..n).map(|i| i - i % k).collect(),
            threads: (0..n).map(|i| if i % k == 0 { Thread::Running } else { Thread::Idle }).collect(),
            joiner: vec![None; n],
            stack_slice: slice,
            woken: Vec::new(),
            tls_image: layout.tls.as_ref().map_or(Vec::new(), |(_, data, size)| {
                let mut image = data.clone();
                image.resize(*size as usize, 0);
                image
            }),
            blocked: vec![None; n],
            handed: vec![false; n],
            done: Vec::new(),
            lo: MEMORY_BASE,
            hi: layout.stack_top,
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

    /// What the memory system's messages did, for `stats.json`.
    pub fn stats(&self, network: crate::stats::NetworkStats) -> crate::stats::MemoryStats {
        let links = self.net.link_stats();
        let link_flits = (0..self.net.mesh().routers()).map(|r| [0, 1, 2, 3].map(|p| links.flits(r, p))).collect();
        crate::stats::MemoryStats {
            controllers: self.ms.controller_counters().to_vec(),
            network,
            messages: crate::background::LatencySummary::of(&self.latency),
            link_flits,
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

    /// The cycle up to which core `rank`, at global cycle `now`, may run on its own: the first at which something
    /// could reach its tile (the horizon for a core alone in its address space with nothing on its way to it).
    pub fn limit(&self, rank: usize, now: u64, horizon: u64) -> u64 {
        if self.inbound[rank] > 0 {
            return horizon.min(now + 1);
        }
        if self.alone[rank] {
            return horizon;
        }
        if self.ms.quiet(rank) {
            // What reaches it must still leave, after `quiet_cycles`, and cross the network, in a cycle at least.
            return horizon.min(now + self.ms.quiet_cycles() + 1);
        }
        horizon.min(now + 1)
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
                self.latency.record(d.ejected.0 - d.created.0);
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
                    if self.semihost(cores, d.tile, op, env) == NiOutcome::Blocked {
                        // A join of a thread still running: the core waits on.
                        continue;
                    }
                }
                _ => cores[d.tile].replay(op, d.value, 0, env),
            }
            ready.push(d.tile);
        }
        ready.append(&mut self.woken);
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
                let size = if op.name().ends_with(".w") { 4 } else { 8 };
                if addr % size != 0 || addr < self.lo || addr + size > self.hi {
                    // Let the executor report it, as without caches.
                    let outcome = self.private_fault(core, d, env);
                    if outcome == NiOutcome::Stopped {
                        self.core_stopped(cores, rank, env);
                    }
                    return outcome;
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
        if outcome == NiOutcome::Stopped {
            self.core_stopped(cores, rank, env);
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
        use crate::semihost::{NOCMSG_SYS_THREAD_EXIT, NOCMSG_SYS_THREAD_INFO, NOCMSG_SYS_THREAD_JOIN, NOCMSG_SYS_THREAD_START};
        let op = cores[rank].hart.x[10];
        let outcome = if matches!(op, NOCMSG_SYS_THREAD_INFO | NOCMSG_SYS_THREAD_START | NOCMSG_SYS_THREAD_EXIT | NOCMSG_SYS_THREAD_JOIN) {
            self.thread_call(cores, rank, d, env)
        } else {
            self.semihost_call(cores, rank, d, env)
        };
        if outcome == NiOutcome::Stopped {
            self.core_stopped(cores, rank, env);
        }
        outcome
    }

    /// Core `rank` has stopped (exit, abort, a fault). If it ran a process's first thread, the process ends: its idle
    /// threads stop with it. If it ran another thread, a core waiting to join it goes on, with its exit status (or
    /// -1) as the thread's value.
    pub fn core_stopped(&mut self, cores: &mut [Core], rank: usize, env: &CoreEnv) {
        if self.threads[rank] == Thread::Gone {
            return;
        }
        self.threads[rank] = Thread::Gone;
        if self.first[rank] == rank {
            self.end_process(cores, rank);
            return;
        }
        if let Some((j, call)) = self.joiner[rank].take() {
            let value = match cores[rank].status {
                crate::core::CoreStatus::Exited { code } => code as u64,
                _ => u64::MAX,
            };
            let at = cores[rank].end_cycle.unwrap_or(cores[rank].hart.cycle);
            cores[j].idle_until(at);
            self.joined(cores, j, value, call, env);
            self.woken.push(j);
        }
    }

    /// The process of core `main` ended: its idle and ended threads stop at the same cycle (running ones stop when
    /// they end).
    fn end_process(&mut self, cores: &mut [Core], main: usize) {
        let end = cores[main].end_cycle.unwrap_or(cores[main].hart.cycle);
        for q in (main + 1..self.first.len()).take_while(|&q| self.first[q] == main) {
            if matches!(self.threads[q], Thread::Idle | Thread::Ended(_)) {
                cores[q].idle_until(end);
                cores[q].exit(0);
                self.threads[q] = Thread::Gone;
                self.woken.push(q);
            }
        }
    }

    /// Reads 8-byte field `i` of the parameter block at `block` in core `rank`'s address space.
    fn block_field(&mut self, cores: &mut [Core], rank: usize, block: u64, i: u64) -> Option<u64> {
        let (key, owner) = (cores[rank].memory_key, self.first[rank]);
        let mut buf = [0u8; 8];
        let addr = block.checked_add(8 * i)?;
        if addr < self.lo || addr + 8 > self.hi {
            return None;
        }
        self.ms.peek(key | addr, &mut buf, &mut DramOf { ram: &mut cores[owner].mem.ram, owner });
        Some(u64::from_le_bytes(buf))
    }

    /// The thread calls (`crate::semihost::NOCMSG_SYS_THREAD_*`), which start, end and join the cores of a process.
    fn thread_call(&mut self, cores: &mut [Core], rank: usize, d: Decoded, env: &CoreEnv) -> NiOutcome {
        use crate::semihost::{NOCMSG_SYS_THREAD_EXIT, NOCMSG_SYS_THREAD_INFO, NOCMSG_SYS_THREAD_JOIN, NOCMSG_SYS_THREAD_START};
        let (op, block) = (cores[rank].hart.x[10], cores[rank].hart.x[11]);
        let first = self.first[rank];
        let count = (first..self.first.len()).take_while(|&q| self.first[q] == first).count();
        let now = cores[rank].hart.cycle;
        let bad = |core: &mut Core, what: &str| {
            core.fault(FaultKind::System, format!("semihosting: {what}: parameter block at {block:#x} is not readable memory"));
            NiOutcome::Stopped
        };
        let result = match op {
            NOCMSG_SYS_THREAD_INFO => {
                let owner = first;
                let key = cores[rank].memory_key;
                if block < self.lo || block + 16 > self.hi {
                    return bad(&mut cores[rank], "NOCMSG_SYS_THREAD_INFO");
                }
                let mut data = ((rank - first) as u64).to_le_bytes().to_vec();
                data.extend_from_slice(&(count as u64).to_le_bytes());
                self.ms.dma_write(key | block, &data, &mut DramOf { ram: &mut cores[owner].mem.ram, owner });
                0
            }
            NOCMSG_SYS_THREAD_START => {
                let fields: Option<Vec<u64>> = (0..5).map(|i| self.block_field(cores, rank, block, i)).collect();
                let Some(f) = fields else { return bad(&mut cores[rank], "NOCMSG_SYS_THREAD_START") };
                let thread = f[0];
                if thread == 0 || thread >= count as u64 || first + thread as usize == rank || self.threads[first + thread as usize] != Thread::Idle {
                    u64::MAX
                } else {
                    let q = first + thread as usize;
                    // The thread's block gets the template as the program was loaded (main's own block, which
                    // crt0 puts over the template, may have changed since).
                    let tp = f[4];
                    if tp != 0 && !self.tls_image.is_empty() {
                        if tp < self.lo || tp.checked_add(self.tls_image.len() as u64).map_or(true, |end| end > self.hi) {
                            return bad(&mut cores[rank], "NOCMSG_SYS_THREAD_START (thread-local block)");
                        }
                        let (key, owner) = (cores[rank].memory_key, first);
                        let image = std::mem::take(&mut self.tls_image);
                        self.ms.dma_write(key | tp, &image, &mut DramOf { ram: &mut cores[owner].mem.ram, owner });
                        self.tls_image = image;
                    }
                    let gp = cores[rank].hart.x[3];
                    let top = self.hi - thread * self.stack_slice;
                    let t = &mut cores[q];
                    t.hart.pc = f[1];
                    t.hart.x = [0; 32];
                    t.hart.x[10] = f[2];
                    t.hart.x[11] = f[3];
                    t.hart.x[4] = f[4];
                    t.hart.x[3] = gp;
                    t.hart.x[2] = top;
                    t.idle_until(now + THREAD_START_CYCLES);
                    self.threads[q] = Thread::Running;
                    self.woken.push(q);
                    0
                }
            }
            NOCMSG_SYS_THREAD_EXIT => {
                let Some(value) = self.block_field(cores, rank, block, 0) else { return bad(&mut cores[rank], "NOCMSG_SYS_THREAD_EXIT") };
                cores[rank].finish_semihosting(d, Ok(crate::semihost::Outcome::Continue), env);
                if rank == first {
                    // The first thread ending ends the process, as returning from main does.
                    cores[rank].exit(value as i64);
                    self.core_stopped(cores, rank, env);
                    return NiOutcome::Stopped;
                }
                if cores[first].running() {
                    self.threads[rank] = Thread::Ended(value);
                    if let Some((j, call)) = self.joiner[rank].take() {
                        self.threads[rank] = Thread::Idle;
                        let at = cores[rank].hart.cycle;
                        cores[j].idle_until(at);
                        self.joined(cores, j, value, call, env);
                        self.woken.push(j);
                    }
                    return NiOutcome::Blocked;
                }
                // Its process has ended: the core stops.
                cores[rank].exit(0);
                self.threads[rank] = Thread::Gone;
                return NiOutcome::Stopped;
            }
            NOCMSG_SYS_THREAD_JOIN => {
                let Some(thread) = self.block_field(cores, rank, block, 0) else { return bad(&mut cores[rank], "NOCMSG_SYS_THREAD_JOIN") };
                if thread >= count as u64 || first + thread as usize == rank || self.joiner[first + thread as usize].is_some() {
                    u64::MAX
                } else {
                    let q = first + thread as usize;
                    match self.threads[q] {
                        Thread::Idle | Thread::Gone => u64::MAX,
                        Thread::Ended(v) => {
                            self.threads[q] = Thread::Idle;
                            self.joined(cores, rank, v, d, env);
                            return NiOutcome::Continue;
                        }
                        Thread::Running => {
                            self.joiner[q] = Some((rank, d));
                            return NiOutcome::Blocked;
                        }
                    }
                }
            }
            _ => unreachable!("a thread call"),
        };
        cores[rank].hart.x[10] = result;
        cores[rank].finish_semihosting(d, Ok(crate::semihost::Outcome::Continue), env);
        NiOutcome::Continue
    }

    /// Core `j`'s join call ends: the joined thread's `value` goes to its block's second field, 0 to a0.
    fn joined(&mut self, cores: &mut [Core], j: usize, value: u64, d: Decoded, env: &CoreEnv) {
        let (key, owner, block) = (cores[j].memory_key, self.first[j], cores[j].hart.x[11]);
        self.ms.dma_write(key | (block + 8), &value.to_le_bytes(), &mut DramOf { ram: &mut cores[owner].mem.ram, owner });
        cores[j].hart.x[10] = 0;
        cores[j].finish_semihosting(d, Ok(crate::semihost::Outcome::Continue), env);
    }

    /// Any other semihosting call of core `rank`, against the coherent view of its address space.
    fn semihost_call(&mut self, cores: &mut [Core], rank: usize, d: Decoded, env: &CoreEnv) -> NiOutcome {
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
        if addr < self.lo || addr.checked_add(data.len() as u64).map_or(true, |end| end > self.hi) {
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
