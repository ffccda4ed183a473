//! MPB: SCC-style message-passing buffers, memory-mapped. Every core can load and store anywhere in the on-chip
//! message-passing buffers (MPBs) of all tiles, in its test-and-set registers and in off-chip shared memory; the
//! interface turns those accesses into request and response packets on the mesh.
//!
//! Address map (the same in every core; `runtime/include/nocmsg_mpb.h` gives it to C programs):
//!
//! | range                                   | what                                                              |
//! |-----------------------------------------|-------------------------------------------------------------------|
//! | [`CONTROL_BASE`] + 0x00 (store)         | invalidate every cached MPB and shared line (the SCC's `CL1INVMB`) |
//! | [`CONTROL_BASE`] + 0x08 (store)         | flush the write-combining buffer (returns once acknowledged)       |
//! | [`CONTROL_BASE`] + 0x40.. (8-byte loads) | read-only facts: see [`Info`]                                     |
//! | [`TAS_BASE`] + 8 r                      | test-and-set register of rank `r`: a load returns it and sets it to 1, a store clears it |
//! | [`MPB_BASE`] + r x share ..             | the `share` bytes of MPB rank `r` owns (`ni.mpb.mpb_kib / mesh.concentration`) |
//! | [`SHARED_BASE`] ..                      | off-chip shared memory (`[memory] shared_mib`)                      |
//!
//! Timing model (defaults from the SCC, see `config::MpbConfig`):
//! - MPB and shared lines are cached per core in a line cache (read-allocate, no coherence): a load that hits
//!   costs what a private load costs; a stale line stays until the program invalidates the cache.
//! - Stores go through a write-combining buffer (WCB) of one line, updating the cached copy if there is one
//!   (write-through). The WCB is written out, and the core waits for the acknowledgement, when a store fills it, when
//!   a store goes to another line, before a load that misses, and on an explicit flush.
//! - A transfer to or from the MPB of the core's own router takes `local_latency_cycles`; to another router it is a
//!   request packet (one flit, or a line of data), `service_cycles` at the MPB, and a response packet (a line, or
//!   one flit), plus `remote_overhead_cycles` at the requester. Shared memory goes the same way to the controller
//!   that holds the line, which serves one line every `cycles_per_line` in arrival order after `latency_cycles`.
//! - The core stalls until its transfer completes (one outstanding transfer per core, as the SCC's P54C cores).
//!
//! A core polling a line of its own router's MPB whose content does not change sleeps until a write to that line is
//! scheduled, charged exactly as if it had polled ([`PollMark`], [`Polling`]; not with debug clocking, which checks
//! it); cores all asleep that way are a deadlock the chip reports.
//!
//! Accesses reach the interface in global time order: a core's load or store in these ranges stops its fast loop
//! ([`crate::core::Core::run`]) and runs here once the network has caught up; everything else stays private and
//! runs ahead. Atomic instructions (LR/SC, AMOs) and misaligned accesses in these ranges stop the core with a
//! report: the SCC has neither; RCCE's locks use the test-and-set registers.

use super::{LocalAccess, NetworkInterface, NiOutcome, NiStats, Placement};
use crate::config::{ChipConfig, MemoryConfig, MpbConfig};
use crate::core::{Clocks, Core, CoreEnv, FaultKind, TileMemory};
use riscv::Hart;
use noc::{DrainPolicy, Network, NodeId, NodeOwner};
use riscv::exec::Flow;
use riscv::memory::AccessKind;
use riscv::timing::LatencyClass;
use riscv::isa::{Op, OP_COUNT};
use riscv::{Decoded, MemFault, Memory, Pipeline};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// The per-core control page.
pub const CONTROL_BASE: u64 = 0x3000_0000;
pub const CONTROL_BYTES: u64 = 0x1000;
/// Store: invalidate every cached MPB and shared-memory line.
pub const CONTROL_INVALIDATE: u64 = 0x00;
/// Store: write out the write-combining buffer.
pub const CONTROL_FLUSH: u64 = 0x08;
/// Test-and-set registers, 8 bytes apart, one per rank.
pub const TAS_BASE: u64 = 0x3001_0000;
/// The MPBs, rank by rank.
pub const MPB_BASE: u64 = 0x4000_0000;
/// Off-chip shared memory.
pub const SHARED_BASE: u64 = 0x1_0000_0000;
/// Ends of the windows the interface claims ([`CONTROL_BASE`] up to the end of the MPB window, and shared memory up
/// to its largest size).
const MPB_WINDOW_END: u64 = 0x8000_0000;
const SHARED_WINDOW_END: u64 = SHARED_BASE + (4096 << 20);

/// Read-only registers of the control page (8-byte loads at [`CONTROL_BASE`] + offset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Info {
    /// Bytes of MPB each rank owns.
    MpbBytes = 0x40,
    /// Bytes of a line.
    LineBytes = 0x48,
    /// Base and size of the shared memory (size 0: none).
    SharedBase = 0x50,
    SharedBytes = 0x58,
    /// Number of memory controllers.
    Controllers = 0x60,
    /// `local_latency_cycles`, for programs that model their own costs.
    LocalLatency = 0x68,
}

const INFO: [Info; 6] = [Info::MpbBytes, Info::LineBytes, Info::SharedBase, Info::SharedBytes, Info::Controllers, Info::LocalLatency];

/// Packet tags: requests travel to the MPB or controller, responses back to the core.
const TAG_REQUEST: u64 = 0x6d70_6200_0000_0001;
const TAG_RESPONSE: u64 = 0x6d70_6200_0000_0002;

/// Per-core counters of the MPB interface (`ni.mpb` in `stats.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MpbCounters {
    /// Loads served by the line cache, and loads that had to fetch their line.
    pub line_hits: u64,
    pub line_misses: u64,
    /// Line reads and line writes (write-combining buffer flushes) to the core's own router's MPB and to others'.
    pub reads_local: u64,
    pub reads_remote: u64,
    pub writes_local: u64,
    pub writes_remote: u64,
    /// Line reads and writes of shared memory.
    pub shared_reads: u64,
    pub shared_writes: u64,
    /// Test-and-set register accesses (loads: test-and-set; stores: clear).
    pub test_and_sets: u64,
    pub tas_clears: u64,
    /// Lines that came into this core's line cache, and lines it sent out.
    pub lines_in: u64,
    pub lines_out: u64,
    /// Cache invalidations and explicit flushes the program asked for.
    pub invalidations: u64,
    pub flushes: u64,
    /// Cycles the core waited for its transfers.
    pub stall_cycles: u64,
}

impl MpbCounters {
    fn fields(&mut self) -> [&mut u64; 15] {
        [
            &mut self.line_hits,
            &mut self.line_misses,
            &mut self.reads_local,
            &mut self.reads_remote,
            &mut self.writes_local,
            &mut self.writes_remote,
            &mut self.shared_reads,
            &mut self.shared_writes,
            &mut self.test_and_sets,
            &mut self.tas_clears,
            &mut self.lines_in,
            &mut self.lines_out,
            &mut self.invalidations,
            &mut self.flushes,
            &mut self.stall_cycles,
        ]
    }

    /// `self - earlier`, field by field.
    fn minus(&self, earlier: &MpbCounters) -> MpbCounters {
        let (mut a, mut b) = (self.clone(), earlier.clone());
        for (x, y) in a.fields().into_iter().zip(b.fields()) {
            *x -= *y;
        }
        a
    }

    /// Adds `k` times `delta`.
    fn add_times(&mut self, delta: &MpbCounters, k: u64) {
        let mut d = delta.clone();
        for (x, y) in self.fields().into_iter().zip(d.fields()) {
            *x += *y * k;
        }
    }
}

/// Counters of one memory controller (`memory_controllers` in `stats.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ControllerStats {
    /// Router the controller is attached to.
    pub x: u32,
    pub y: u32,
    pub reads: u64,
    pub writes: u64,
    /// Sum and maximum over requests of the cycles each waited for the controller (queueing).
    pub queue_cycles: u64,
    pub max_queue_cycles: u64,
    /// Cycles the controller was busy.
    pub busy_cycles: u64,
}

/// What an address in the interface's ranges is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Control(u64),
    Tas(usize),
    /// A line of rank `rank`'s MPB share, at `offset` in it.
    Mpb { rank: usize, offset: usize },
    /// A line of shared memory, at `offset` in it.
    Shared { offset: usize },
    /// A line of rank `rank`'s private memory, behind its caches (`[memory.private]`).
    Private { rank: usize },
}

/// Static facts about the address map and costs.
struct Geometry {
    ranks: usize,
    share: u64,
    line: u64,
    line_flits: u16,
    shared_bytes: u64,
    interleave: u64,
    local_latency: u64,
    service: u64,
    overhead: u64,
    dram_latency: u64,
    dram_per_line: u64,
    controllers: u64,
}

impl Geometry {
    fn place(&self, addr: u64) -> Option<Place> {
        if addr.wrapping_sub(CONTROL_BASE) < CONTROL_BYTES {
            return Some(Place::Control(addr - CONTROL_BASE));
        }
        if addr.wrapping_sub(TAS_BASE) < 8 * self.ranks as u64 {
            return Some(Place::Tas(((addr - TAS_BASE) / 8) as usize));
        }
        if addr.wrapping_sub(MPB_BASE) < self.share * self.ranks as u64 {
            let off = addr - MPB_BASE;
            return Some(Place::Mpb { rank: (off / self.share) as usize, offset: (off % self.share) as usize });
        }
        if addr.wrapping_sub(SHARED_BASE) < self.shared_bytes {
            return Some(Place::Shared { offset: (addr - SHARED_BASE) as usize });
        }
        None
    }

    /// The ranges the interface serves: whole windows, so that an access past the end of the mapped part is
    /// reported with the map ([`Self::describe_miss`]) rather than as an access outside private memory.
    fn ranges(&self) -> Vec<(u64, u64)> {
        // The control page, the test-and-set registers and the MPBs lie in one window.
        vec![(CONTROL_BASE, MPB_WINDOW_END), (SHARED_BASE, SHARED_WINDOW_END)]
    }

    /// Why an address in the interface's windows is not mapped (for the fault report).
    fn describe_miss(&self, addr: u64) -> String {
        let mpb_end = MPB_BASE + self.share * self.ranks as u64;
        let shared = if self.shared_bytes == 0 {
            "and this chip has no shared memory ([memory])".to_string()
        } else {
            format!("shared memory at {SHARED_BASE:#x}..{:#x}", SHARED_BASE + self.shared_bytes)
        };
        format!(
            "{addr:#x} is not mapped: the MPBs of ranks 0..{} are at {MPB_BASE:#x}..{mpb_end:#x} ({} bytes each), the test-and-set registers at \
             {TAS_BASE:#x}..{:#x}, the control page at {CONTROL_BASE:#x}..{:#x}, {shared}",
            self.ranks - 1,
            self.share,
            TAS_BASE + 8 * self.ranks as u64,
            CONTROL_BASE + CONTROL_BYTES,
        )
    }
}

/// A set-associative cache of lines with LRU replacement.
struct LineCache {
    sets: usize,
    ways: usize,
    line: usize,
    /// Per slot (set x ways + way): the line's address, or `u64::MAX` when empty.
    tags: Vec<u64>,
    stamps: Vec<u64>,
    data: Vec<u8>,
    clock: u64,
    /// Slots holding a line.
    valid: usize,
}

impl LineCache {
    fn new(bytes: usize, ways: usize, line: usize) -> LineCache {
        let slots = bytes / line;
        LineCache { sets: slots / ways, ways, line, tags: vec![u64::MAX; slots], stamps: vec![0; slots], data: Vec::new(), clock: 0, valid: 0 }
    }

    fn set_of(&self, line_addr: u64) -> usize {
        ((line_addr / self.line as u64) as usize) & (self.sets - 1)
    }

    fn slot(&mut self, line_addr: u64) -> Option<usize> {
        let set = self.set_of(line_addr);
        let slot = (set * self.ways..(set + 1) * self.ways).find(|&s| self.tags[s] == line_addr)?;
        self.clock += 1;
        self.stamps[slot] = self.clock;
        Some(slot)
    }

    fn bytes(&mut self, slot: usize) -> &mut [u8] {
        if self.data.is_empty() {
            self.data = vec![0; self.tags.len() * self.line];
        }
        &mut self.data[slot * self.line..(slot + 1) * self.line]
    }

    fn fill(&mut self, line_addr: u64, bytes: &[u8]) {
        let slot = match self.slot(line_addr) {
            Some(s) => s,
            None => {
                let set = self.set_of(line_addr);
                let s = (set * self.ways..(set + 1) * self.ways).min_by_key(|&s| (self.tags[s] != u64::MAX, self.stamps[s])).expect("ways > 0");
                if self.tags[s] == u64::MAX {
                    self.valid += 1;
                }
                self.tags[s] = line_addr;
                self.clock += 1;
                self.stamps[s] = self.clock;
                s
            }
        };
        self.bytes(slot).copy_from_slice(bytes);
    }

    fn invalidate_all(&mut self) {
        if self.valid > 0 {
            self.tags.fill(u64::MAX);
            self.valid = 0;
        }
    }
}

/// The write-combining buffer: one line, and which of its bytes were written.
struct Wcb {
    line: Option<u64>,
    data: Vec<u8>,
    written: Vec<bool>,
    count: usize,
}

impl Wcb {
    fn new(line: usize) -> Wcb {
        Wcb { line: None, data: vec![0; line], written: vec![false; line], count: 0 }
    }

    fn full(&self) -> bool {
        self.count == self.data.len()
    }

    /// Whether writing `len` bytes at `offset` would fill the buffer.
    fn would_fill(&self, offset: usize, len: usize) -> bool {
        let new = self.written[offset..offset + len].iter().filter(|&&w| !w).count();
        self.count + new == self.data.len()
    }

    fn write(&mut self, line_addr: u64, offset: usize, bytes: &[u8]) {
        self.line = Some(line_addr);
        for (i, &b) in bytes.iter().enumerate() {
            self.data[offset + i] = b;
            if !std::mem::replace(&mut self.written[offset + i], true) {
                self.count += 1;
            }
        }
    }

    /// Empties the buffer, giving its line, data and mask.
    fn take(&mut self) -> (u64, Vec<u8>, Vec<bool>) {
        let line = self.line.take().expect("a non-empty buffer");
        self.count = 0;
        let n = self.data.len();
        (line, std::mem::replace(&mut self.data, vec![0; n]), std::mem::replace(&mut self.written, vec![false; n]))
    }
}

/// What a transfer does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    ReadLine,
    WriteLine,
    TestAndSet,
    Clear,
}

/// A transfer between a core and an MPB, a test-and-set register or a memory controller.
struct Transfer {
    rank: usize,
    kind: Kind,
    place: Place,
    /// The line's address (the register's for test-and-set).
    addr: u64,
    /// Line data: what a write carries, what a read brought back.
    data: Vec<u8>,
    mask: Vec<bool>,
    /// Test-and-set: the register's old value.
    value: u64,
    /// The core cycle at which the core has the result.
    resume: u64,
    /// No core waits for it (a write-back of a private line).
    posted: bool,
}

/// Something the interface does at a given cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// Perform transfer `id` at its target and send the response (or, local, complete it).
    Serve(u32),
    /// Transfer `id` is back at its core.
    Complete(u32),
}

/// What the last completed transfer left for the instruction that asked for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Left {
    TasValue { addr: u64, value: u64 },
    TasCleared { addr: u64 },
}

/// An access the instruction needs before it can complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    Flush,
    Read { line: u64, place: Place },
    TestAndSet { addr: u64, rank: usize },
    Clear { addr: u64, rank: usize },
}

/// A core's state at the start of a local line read that may be one iteration of a polling loop: everything the
/// next iteration depends on, and the counters it adds to.
struct PollMark {
    transfer: u32,
    line: u64,
    /// Core cycle of the read.
    issue: u64,
    /// What the read returned (once served).
    data: Option<Vec<u8>>,
    hart: Hart,
    stores: u64,
    op_counts: Box<[u64; OP_COUNT]>,
    pipeline: Pipeline,
    counters: MpbCounters,
    console_bytes: u64,
    sleep_cycles: u64,
    misaligned: u64,
    /// Cycles and count of private L2 hits so far: an iteration that has some is not one the core can sleep
    /// through (its counters would not be charged; hits may cost no more than an L1 hit).
    cache_cycles: u64,
    l2_hits: u64,
}

impl PollMark {
    fn of(core: &Core, side: &Side, transfer: u32, line: u64) -> PollMark {
        PollMark {
            transfer,
            line,
            issue: core.hart.cycle,
            data: None,
            hart: core.hart.clone(),
            stores: core.mem.stores,
            op_counts: core.op_counts.clone(),
            pipeline: core.pipeline.clone(),
            counters: side.counters.clone(),
            console_bytes: core.console.bytes_written,
            sleep_cycles: core.sleep_cycles,
            misaligned: core.misaligned_accesses,
            cache_cycles: core.cache_cycles,
            l2_hits: core.private.as_ref().map_or(0, |p| p.counters.l2_hits),
        }
    }

    /// Whether the iteration from `self` to `next` repeats exactly as long as the line reads the same: the same
    /// line and data, the same architectural state (registers, pc, CSRs), no store to private memory (so memory is
    /// the same), no environment call (console, files, traps, sleeping) and the same pipeline hazard state.
    fn repeats_as(&self, next: &PollMark) -> bool {
        let (a, b) = (&self.hart, &next.hart);
        let same_hart = a.x == b.x
            && a.f == b.f
            && a.pc == b.pc
            && a.mscratch == b.mscratch
            && a.fflags == b.fflags
            && a.frm == b.frm
            && a.reservation == b.reservation
            && a.privilege == b.privilege
            && a.mstatus == b.mstatus
            && a.mtvec == b.mtvec
            && a.mepc == b.mepc
            && a.mcause == b.mcause
            && a.mtval == b.mtval
            && a.mcounteren == b.mcounteren;
        let quiet = [Op::Ebreak, Op::Ecall, Op::FenceI, Op::Mret, Op::Wfi]
            .iter()
            .all(|&op| self.op_counts[op as usize] == next.op_counts[op as usize]);
        same_hart
            && quiet
            && self.line == next.line
            && self.data.is_some()
            && self.data == next.data
            && next.issue > self.issue
            && self.stores == next.stores
            && self.console_bytes == next.console_bytes
            && self.sleep_cycles == next.sleep_cycles
            && self.misaligned == next.misaligned
            && self.cache_cycles == next.cache_cycles
            && self.l2_hits == next.l2_hits
            && self.pipeline.pending_load_rd == next.pipeline.pending_load_rd
            && self.pipeline.pending_load_use == next.pipeline.pending_load_use
    }
}

/// A core asleep in a polling loop: it stays blocked on `transfer` (the read of `issue`), and every `period`
/// cycles it would have read the same line again and got the same data, adding `delta` to its counters.
struct Polling {
    transfer: u32,
    line: u64,
    issue: u64,
    period: u64,
    instret: u64,
    op_counts: Box<[u64; OP_COUNT]>,
    pipeline: Pipeline,
    counters: MpbCounters,
}

impl Polling {
    /// Puts the core `k` iterations past the read it fell asleep on: at the issue of the k-th next read, with
    /// everything those iterations add to its counters.
    fn charge(&self, core: &mut Core, side: &mut Side, k: u64) {
        core.hart.cycle = self.issue + k * self.period;
        core.hart.instret += k * self.instret;
        for (count, delta) in core.op_counts.iter_mut().zip(self.op_counts.iter()) {
            *count += k * delta;
        }
        let (pl, d) = (&mut core.pipeline, &self.pipeline);
        pl.load_use_stalls += k * d.load_use_stalls;
        pl.load_use_stall_cycles += k * d.load_use_stall_cycles;
        pl.taken_branches += k * d.taken_branches;
        pl.jumps += k * d.jumps;
        side.counters.add_times(&self.counters, k);
    }
}

/// A core's side of the interface: what it can do without a transfer (see [`LocalAccess`]).
pub struct Side {
    geo: Arc<Geometry>,
    cache: LineCache,
    wcb: Wcb,
    /// The instruction waiting for the interface (`None`: a retired store waiting for its flush) and the cycle the
    /// wait began.
    blocked: Option<(Option<Decoded>, u64)>,
    left: Option<Left>,
    counters: MpbCounters,
    /// The last two local line reads that may be iterations of a polling loop (the one in flight last).
    mark: Option<PollMark>,
    current: Option<PollMark>,
    polling: Option<Polling>,
}

struct Controller {
    node: NodeId,
    free_at: u64,
    stats: ControllerStats,
}

/// The controller nearest router `(x, y)` (fewest hops; the first listed of equals): the one serving the private
/// memory of the cores there.
fn nearest_controller(controllers: &[[u32; 2]], x: u32, y: u32) -> usize {
    (0..controllers.len()).min_by_key(|&k| controllers[k][0].abs_diff(x) + controllers[k][1].abs_diff(y)).unwrap_or(0)
}

pub struct Mpb {
    geo: Arc<Geometry>,
    placement: Placement,
    concentration: u32,
    /// Every rank's MPB share, rank after rank.
    mpb: Vec<u8>,
    tas: Vec<bool>,
    shared: Vec<u8>,
    controllers: Vec<Controller>,
    /// Per rank, the controller serving its private memory (with `[memory.private]`).
    private_controller: Vec<usize>,
    sides: Vec<Side>,
    transfers: Vec<Option<Transfer>>,
    free: Vec<u32>,
    events: BinaryHeap<Reverse<(u64, u64, Event)>>,
    seq: u64,
    clocks: Clocks,
    /// Latency of the requests and responses, network cycles.
    latency: noc::Histogram,
    /// Cores may sleep in polling loops (not with debug clocking, which runs every iteration and so checks that
    /// sleeping is exact).
    poll_sleep: bool,
    /// Sleeping pollers by the line they poll.
    watchers: std::collections::HashMap<u64, Vec<usize>>,
    /// Woken pollers whose counters are still to be charged: rank, iterations skipped, whether the last one's read
    /// is done (then it completes at once).
    wakes: Vec<(usize, u64, bool, Polling)>,
    /// Inside [`NetworkInterface::tick`].
    in_tick: bool,
    /// Writes scheduled at an MPB line and not yet performed, by line: a core does not fall asleep polling a line
    /// with one on its way (it would miss the wake).
    pending_writes: std::collections::HashMap<u64, u32>,
}

impl Mpb {
    pub fn new(config: &ChipConfig, placement: Placement) -> Mpb {
        let m: MpbConfig = config.mpb();
        let ranks = placement.rank_node.len();
        let line = u64::from(m.line_bytes);
        let share = u64::from(m.mpb_kib) * 1024 / u64::from(config.mesh.concentration);
        let mem: Option<&MemoryConfig> = config.memory.as_ref();
        let width = config.mesh.width;
        let geo = Geometry {
            ranks,
            share,
            line,
            line_flits: (m.line_bytes / m.flit_bytes) as u16,
            shared_bytes: mem.map_or(0, |c| c.shared_mib << 20),
            interleave: mem.map_or(1, |c| c.interleave_kib * 1024),
            local_latency: u64::from(m.local_latency_cycles),
            service: u64::from(m.service_cycles),
            overhead: u64::from(m.remote_overhead_cycles),
            dram_latency: mem.map_or(1, |c| u64::from(c.latency_cycles)),
            dram_per_line: mem.map_or(1, |c| u64::from(c.cycles_per_line)),
            controllers: mem.map_or(0, |c| c.controllers.len() as u64),
        };
        let controllers = mem
            .map(|c| {
                c.controllers
                    .iter()
                    .map(|&[x, y]| Controller {
                        node: NodeId((y * width + x) * config.mesh.concentration),
                        free_at: 0,
                        stats: ControllerStats { x, y, ..ControllerStats::default() },
                    })
                    .collect()
            })
            .unwrap_or_default();
        let private_controller = (0..ranks)
            .map(|r| {
                let router = placement.rank_node[r].0 / config.mesh.concentration;
                mem.map_or(0, |c| nearest_controller(&c.controllers, router % width, router / width))
            })
            .collect();
        let geo = Arc::new(geo);
        let sides = (0..ranks)
            .map(|_| Side {
                geo: Arc::clone(&geo),
                cache: LineCache::new(m.line_cache_kib as usize * 1024, m.line_cache_ways as usize, line as usize),
                wcb: Wcb::new(line as usize),
                blocked: None,
                left: None,
                counters: MpbCounters::default(),
                mark: None,
                current: None,
                polling: None,
            })
            .collect();
        Mpb {
            mpb: vec![0; (share * ranks as u64) as usize],
            tas: vec![false; ranks],
            shared: vec![0; geo.shared_bytes as usize],
            geo,
            placement,
            concentration: config.mesh.concentration,
            controllers,
            private_controller,
            sides,
            transfers: Vec::new(),
            free: Vec::new(),
            events: BinaryHeap::new(),
            seq: 0,
            clocks: Clocks::new(config.core.frequency_mhz, config.network_frequency_mhz()),
            latency: noc::Histogram::default(),
            poll_sleep: true,
            watchers: std::collections::HashMap::new(),
            wakes: Vec::new(),
            in_tick: false,
            pending_writes: std::collections::HashMap::new(),
        }
    }

    fn node(&self, rank: usize) -> NodeId {
        self.placement.rank_node[rank]
    }

    fn router(&self, rank: usize) -> u32 {
        self.node(rank).0 / self.concentration
    }

    fn at(&mut self, cycle: u64, event: Event) {
        self.seq += 1;
        self.events.push(Reverse((cycle, self.seq, event)));
    }

    /// The controller holding shared byte `offset`, and the node it sits at.
    fn controller_of(&self, offset: usize) -> usize {
        (offset as u64 / self.geo.interleave) as usize % self.controllers.len()
    }

    /// The node that serves `place`, or `None` if it is the requester's own router (no network).
    fn target(&self, rank: usize, place: Place) -> Option<NodeId> {
        match place {
            Place::Mpb { rank: owner, .. } | Place::Tas(owner) => (self.router(owner) != self.router(rank)).then(|| self.node(owner)),
            Place::Shared { offset } => Some(self.controllers[self.controller_of(offset)].node),
            Place::Private { rank } => Some(self.controllers[self.private_controller[rank]].node),
            Place::Control(_) => None,
        }
    }

    /// Starts a transfer for `rank`, whose core is at core cycle `cycle` (the network at the first cycle after).
    #[allow(clippy::too_many_arguments)]
    fn start(&mut self, rank: usize, cycle: u64, kind: Kind, place: Place, addr: u64, data: Vec<u8>, mask: Vec<bool>, net: &mut Network) -> u32 {
        let target = self.target(rank, place);
        let local = target.is_none();
        let c = &mut self.sides[rank].counters;
        match (kind, place) {
            // Counted by the core's private caches.
            (_, Place::Private { .. }) => {}
            (Kind::ReadLine, Place::Shared { .. }) => c.shared_reads += 1,
            (Kind::WriteLine, Place::Shared { .. }) => c.shared_writes += 1,
            (Kind::ReadLine, _) if local => c.reads_local += 1,
            (Kind::ReadLine, _) => c.reads_remote += 1,
            (Kind::WriteLine, _) if local => c.writes_local += 1,
            (Kind::WriteLine, _) => c.writes_remote += 1,
            (Kind::TestAndSet, _) => c.test_and_sets += 1,
            (Kind::Clear, _) => c.tas_clears += 1,
        }
        if kind == Kind::WriteLine && !matches!(place, Place::Private { .. }) {
            c.lines_out += 1;
        }
        let posted = matches!((kind, place), (Kind::WriteLine, Place::Private { .. }));
        let t = Transfer { rank, kind, place, addr, data, mask, value: 0, resume: cycle + self.geo.local_latency, posted };
        let id = match self.free.pop() {
            Some(id) => {
                self.transfers[id as usize] = Some(t);
                id
            }
            None => {
                self.transfers.push(Some(t));
                (self.transfers.len() - 1) as u32
            }
        };
        match target {
            None => {
                if kind == Kind::WriteLine && matches!(place, Place::Mpb { .. }) {
                    // From an NI instruction the write is scheduled after every instruction due before it in this
                    // cycle; from the tick (a store run again after its transfer), before all of them.
                    let by = (!self.in_tick).then_some((cycle, rank));
                    self.wake_pollers(addr, by, net.now().0);
                }
                self.at(self.clocks.to_net(cycle + self.geo.local_latency), Event::Serve(id))
            }
            Some(dst) => {
                let flits = if kind == Kind::WriteLine { self.geo.line_flits } else { 1 };
                net.enqueue(self.node(rank), dst, flits, u64::from(id), TAG_REQUEST);
            }
        }
        id
    }

    /// A write to MPB line `line` is about to be scheduled at network cycle `now`, in the chip's tick (`by` =
    /// `None`) or by the NI instruction of core cycle and rank `by`: every core asleep polling that line wakes at
    /// the iteration it would be in then. Its iterations up to the last read issued before this moment are charged
    /// (in [`Self::apply_wakes`]); if that read is still to be served, it is scheduled now, ahead of the write, as it
    /// was issued before it.
    fn wake_pollers(&mut self, line: u64, by: Option<(u64, usize)>, now: u64) {
        *self.pending_writes.entry(line).or_default() += 1;
        let Some(ranks) = self.watchers.remove(&line) else { return };
        for p in ranks {
            let polling = self.sides[p].polling.take().expect("a watcher polls");
            let (c_n, period, latency) = (polling.issue, polling.period, self.geo.local_latency);
            let issued = |k: u64| {
                let c = c_n + k * period;
                let at = self.clocks.to_net(c);
                at < now || (at == now && by.is_some_and(|w| (c, p) < w))
            };
            let mut k = self.clocks.to_core(now).saturating_sub(c_n) / period + 1;
            while k > 0 && !issued(k) {
                k -= 1;
            }
            let c_m = c_n + k * period;
            let serve = self.clocks.to_net(c_m + latency);
            let served = serve < now || (serve == now && by.is_some());
            self.transfers[polling.transfer as usize].as_mut().expect("a sleeping poller's read").resume = c_m + latency;
            if !served {
                self.at(serve, Event::Serve(polling.transfer));
            }
            self.wakes.push((p, k, served, polling));
        }
    }

    /// Local read `id` has just been served: if its core's last two reads show a polling loop that repeats exactly
    /// (see [`PollMark::repeats_as`]), the core sleeps, blocked on this read, until a write to the line is scheduled.
    fn falls_asleep(&mut self, id: u32) -> bool {
        let t = self.transfers[id as usize].as_ref().expect("a live transfer");
        let (rank, line) = (t.rank, t.addr);
        let side = &mut self.sides[rank];
        let Some(current) = side.current.as_mut().filter(|c| c.transfer == id) else { return false };
        current.data = Some(t.data.clone());
        let current = side.current.take().expect("just seen");
        let write_coming = self.pending_writes.contains_key(&line);
        let asleep = match side.mark.take() {
            Some(prev) if !write_coming && prev.repeats_as(&current) => {
                let delta = |a: u64, b: u64| a - b;
                let (p, c) = (&prev.pipeline, &current.pipeline);
                side.polling = Some(Polling {
                    transfer: id,
                    line,
                    issue: current.issue,
                    period: current.issue - prev.issue,
                    instret: current.hart.instret - prev.hart.instret,
                    op_counts: Box::new(std::array::from_fn(|i| current.op_counts[i] - prev.op_counts[i])),
                    pipeline: Pipeline {
                        load_use_stalls: delta(c.load_use_stalls, p.load_use_stalls),
                        load_use_stall_cycles: delta(c.load_use_stall_cycles, p.load_use_stall_cycles),
                        taken_branches: delta(c.taken_branches, p.taken_branches),
                        jumps: delta(c.jumps, p.jumps),
                        ..Pipeline::default()
                    },
                    counters: current.counters.minus(&prev.counters),
                });
                true
            }
            _ => false,
        };
        if asleep {
            self.watchers.entry(line).or_default().push(rank);
        } else {
            side.mark = Some(current);
        }
        asleep
    }

    /// Charges woken pollers the iterations they slept through; those whose last read was done complete it.
    fn apply_wakes(&mut self, cores: &mut [Core], env: &CoreEnv, net: &mut Network, done: &mut Vec<usize>) {
        for (p, k, served, polling) in std::mem::take(&mut self.wakes) {
            let core = &mut cores[p];
            let side = &mut self.sides[p];
            polling.charge(core, side, k);
            if let Some((_, since)) = side.blocked.as_mut() {
                *since = core.hart.cycle;
            }
            if served {
                self.complete(polling.transfer, cores, env, net, done);
            }
        }
    }

    /// Performs transfer `id` at its target in cycle `now`: reads or writes the data there.
    fn perform(&mut self, id: u32) {
        let t = self.transfers[id as usize].as_mut().expect("a live transfer");
        let line = self.geo.line as usize;
        let (store, base): (&mut Vec<u8>, usize) = match t.place {
            Place::Mpb { rank, offset } => (&mut self.mpb, rank * self.geo.share as usize + (offset & !(line - 1))),
            Place::Shared { offset } => (&mut self.shared, offset & !(line - 1)),
            Place::Tas(owner) => {
                match t.kind {
                    Kind::TestAndSet => t.value = u64::from(std::mem::replace(&mut self.tas[owner], true)),
                    _ => self.tas[owner] = false,
                }
                return;
            }
            // The bytes stay in the core's memory image (only it reads and writes them): timing only.
            Place::Private { .. } => return,
            Place::Control(_) => unreachable!("control registers need no transfer"),
        };
        match t.kind {
            Kind::ReadLine => t.data = store[base..base + line].to_vec(),
            Kind::WriteLine => {
                for (i, _) in t.mask.iter().enumerate().filter(|(_, &w)| w) {
                    store[base + i] = t.data[i];
                }
                if matches!(t.place, Place::Mpb { .. }) {
                    if let std::collections::hash_map::Entry::Occupied(mut e) = self.pending_writes.entry(t.addr) {
                        *e.get_mut() -= 1;
                        if *e.get() == 0 {
                            e.remove();
                        }
                    }
                }
            }
            _ => unreachable!("test-and-set goes to a register"),
        }
    }

    /// Transfer `id` is back: what it brought goes to its core, which retries its instruction.
    fn complete(&mut self, id: u32, cores: &mut [Core], env: &CoreEnv, net: &mut Network, done: &mut Vec<usize>) {
        let t = self.transfers[id as usize].take().expect("a live transfer");
        self.free.push(id);
        if t.posted {
            return;
        }
        let core = &mut cores[t.rank];
        let (instruction, since) = self.sides[t.rank].blocked.take().expect("a transfer's core waits for it");
        let waited = t.resume.saturating_sub(core.hart.cycle);
        core.hart.cycle = core.hart.cycle.max(t.resume);
        if let Place::Private { rank } = t.place {
            // A private miss: the line goes into the core's caches, and a dirty line it evicts is written back.
            core.cache_cycles += waited;
            let caches = core.private.as_deref_mut().expect("a private miss comes from private caches");
            caches.counters.stall_cycles += waited;
            if let Some(victim) = caches.fill(t.addr) {
                let cycle = core.hart.cycle;
                self.start(rank, cycle, Kind::WriteLine, Place::Private { rank }, victim, Vec::new(), Vec::new(), net);
            }
        } else {
            let side = &mut self.sides[t.rank];
            match t.kind {
                Kind::ReadLine => {
                    side.cache.fill(t.addr, &t.data);
                    side.counters.lines_in += 1;
                }
                Kind::WriteLine => {}
                Kind::TestAndSet => side.left = Some(Left::TasValue { addr: t.addr, value: t.value }),
                Kind::Clear => side.left = Some(Left::TasCleared { addr: t.addr }),
            }
            side.counters.stall_cycles += waited;
        }
        match instruction {
            None => done.push(t.rank),
            Some(d) => match self.attempt(core, d, net, env, since, true) {
                NiOutcome::Blocked => {}
                _ => done.push(t.rank),
            },
        }
    }

    /// With private caches: runs `d` through them if it accesses private memory. `None`: it does not (the interface
    /// serves it as usual); otherwise it retired (a hit) or its miss went out and the core waits.
    fn attempt_private(&mut self, core: &mut Core, d: Decoded, net: &mut Network, env: &CoreEnv, since: u64) -> Option<NiOutcome> {
        use LatencyClass::*;
        if !matches!(LatencyClass::of(d.op), Load | Store | FpLoad | FpStore | Amo | LrSc) {
            return None;
        }
        let caches = core.private.as_deref_mut()?;
        let pc = core.hart.pc;
        let mut view = crate::private_cache::PrivateView { mem: &mut core.mem, caches, extra: 0, miss: None };
        let result = riscv::execute(&mut core.hart, &mut view, d);
        let (extra, miss) = (view.extra, view.miss);
        match result {
            Ok(Flow::Next) => {
                // As the core's loop does: a load into sp below the stack's floor stops the core there.
                if d.rd == 2 && core.hart.x[2] < env.stack_floor {
                    core.stack_overflow(pc, env);
                    return Some(NiOutcome::Stopped);
                }
                core.retire(&d, false, env);
                core.hart.cycle += u64::from(extra);
                core.cache_cycles += u64::from(extra);
                core.charge(pc, core.hart.cycle - since);
                Some(NiOutcome::Continue)
            }
            Err(_) if miss.is_some() => {
                let rank = core.rank;
                self.sides[rank].blocked = Some((Some(d), since));
                self.sides[rank].forget_polls();
                let line = miss.expect("checked");
                self.start(rank, core.hart.cycle, Kind::ReadLine, Place::Private { rank }, line, Vec::new(), Vec::new(), net);
                Some(NiOutcome::Blocked)
            }
            _ => None,
        }
    }

    /// Runs `d` (a load or store in the interface's ranges) for `core` in cycle `net.now()`: completes it, or
    /// starts the transfer it needs and blocks the core (then it runs again when the transfer is back). `since` is
    /// the cycle the core first tried it.
    fn attempt(&mut self, core: &mut Core, d: Decoded, net: &mut Network, env: &CoreEnv, since: u64, retry: bool) -> NiOutcome {
        if let Some(outcome) = self.attempt_private(core, d, net, env, since) {
            return outcome;
        }
        let rank = core.rank;
        let class = LatencyClass::of(d.op);
        if !matches!(class, LatencyClass::Load | LatencyClass::Store | LatencyClass::FpLoad | LatencyClass::FpStore) {
            let what = if matches!(class, LatencyClass::Amo | LatencyClass::LrSc) {
                "atomic instructions cannot access the MPB, test-and-set registers or shared memory (the SCC has none there; use the test-and-set registers for locks)".to_string()
            } else {
                format!("{} is not an instruction of the mpb interface (this chip has no PIMP FIFOs)", d.op.name())
            };
            core.fault(FaultKind::IllegalInstruction, what);
            return NiOutcome::Stopped;
        }
        let pc = core.hart.pc;
        let side = &mut self.sides[rank];
        let mut view = View { ram: &mut core.mem, side, need: None, fault: None, local_only: false, retry };
        let result = riscv::execute(&mut core.hart, &mut view, d);
        let (need, fault) = (view.need, view.fault);
        match result {
            Ok(Flow::Next) => {}
            Ok(other) => unreachable!("a load or store flows on, not {other:?}"),
            Err(e) => {
                if let Some(reason) = fault {
                    let kind = if reason.contains("misaligned") { FaultKind::Misaligned } else { FaultKind::BadAddress };
                    core.fault(kind, reason);
                    return NiOutcome::Stopped;
                }
                let Some(need) = need else {
                    // A private access of the same instruction failed (or an unmapped address): the usual report.
                    core.fault(FaultKind::BadAddress, e.to_string());
                    return NiOutcome::Stopped;
                };
                self.sides[rank].blocked = Some((Some(d), since));
                let cycle = core.hart.cycle;
                match need {
                    Need::Flush => self.flush(rank, cycle, net),
                    Need::Read { line, place } => {
                        self.sides[rank].counters.line_misses += 1;
                        let id = self.start(rank, cycle, Kind::ReadLine, place, line, Vec::new(), Vec::new(), net);
                        // A read of the core's own router's MPB with nothing else cached or buffered may be one
                        // iteration of a polling loop: its state is kept to compare with the next one.
                        let side = &self.sides[rank];
                        let candidate = self.poll_sleep
                            && core.profile.is_none()
                            && matches!(place, Place::Mpb { .. })
                            && self.target(rank, place).is_none()
                            && side.cache.valid == 0
                            && side.wcb.line.is_none()
                            && side.left.is_none();
                        let side = &mut self.sides[rank];
                        if candidate {
                            side.current = Some(PollMark::of(core, side, id, line));
                        } else {
                            side.forget_polls();
                        }
                        return NiOutcome::Blocked;
                    }
                    Need::TestAndSet { addr, rank: owner } => {
                        self.start(rank, cycle, Kind::TestAndSet, Place::Tas(owner), addr, Vec::new(), Vec::new(), net);
                    }
                    Need::Clear { addr, rank: owner } => {
                        self.start(rank, cycle, Kind::Clear, Place::Tas(owner), addr, Vec::new(), Vec::new(), net);
                    }
                }
                self.sides[rank].forget_polls();
                return NiOutcome::Blocked;
            }
        }
        core.retire(&d, false, env);
        core.charge(pc, core.hart.cycle - since);
        // A store that filled the write-combining buffer writes it out at once; the core waits for the
        // acknowledgement (from the end of the store).
        if self.sides[rank].wcb.full() {
            self.sides[rank].blocked = Some((None, core.hart.cycle));
            self.flush(rank, core.hart.cycle, net);
            self.sides[rank].forget_polls();
            return NiOutcome::Blocked;
        }
        NiOutcome::Continue
    }

    /// Writes out `rank`'s write-combining buffer.
    fn flush(&mut self, rank: usize, cycle: u64, net: &mut Network) {
        let (line, data, mask) = self.sides[rank].wcb.take();
        let place = self.geo.place(line).expect("the buffer holds a mapped line");
        self.start(rank, cycle, Kind::WriteLine, place, line, data, mask, net);
        self.sides[rank].forget_polls();
    }
}

impl Side {
    /// Something other than a poll of one line happened: the reads before it say nothing about the reads after.
    fn forget_polls(&mut self) {
        self.mark = None;
        self.current = None;
    }
}

impl LocalAccess for Side {
    /// Runs a load or store that needs no transfer (a line-cache hit, a store into the write-combining buffer that
    /// does not fill it, a control-page access) for the core, ahead of global time: exact, because the cache, the
    /// buffer and the control page change only by this core's own instructions and by transfers it waits for.
    fn try_local(&mut self, mem: &mut TileMemory, hart: &mut Hart, d: Decoded) -> bool {
        if self.blocked.is_some() || !matches!(LatencyClass::of(d.op), LatencyClass::Load | LatencyClass::Store | LatencyClass::FpLoad | LatencyClass::FpStore) {
            return false;
        }
        let mut view = View { ram: mem, side: self, need: None, fault: None, local_only: true, retry: false };
        matches!(riscv::execute(hart, &mut view, d), Ok(Flow::Next))
    }
}

/// A core's memory as an instruction run by the interface sees it: its private memory, plus the interface's
/// ranges through the line cache, the write-combining buffer and the control page. An access that needs a transfer
/// fails with [`View::need`] set (execution changes nothing on a failure, so the instruction runs again later).
struct View<'a> {
    ram: &'a mut TileMemory,
    side: &'a mut Side,
    need: Option<Need>,
    /// Why the access is an error (the core stops with it).
    fault: Option<String>,
    /// Run by the core ahead of global time ([`LocalAccess`]): a store that would fill the write-combining buffer
    /// fails (its write-out is a transfer, which starts in global time order), leaving everything unchanged.
    local_only: bool,
    /// The instruction runs again after the transfer it waited for: its load was a miss, not a hit.
    retry: bool,
}

impl View<'_> {
    fn stop(&mut self, addr: u64, size: u32, kind: AccessKind, reason: String) -> MemFault {
        self.fault = Some(reason);
        MemFault::OutOfRange { addr, size, kind }
    }

    fn wait(&mut self, addr: u64, size: u32, kind: AccessKind, need: Need) -> MemFault {
        self.need = Some(need);
        MemFault::OutOfRange { addr, size, kind }
    }

    /// The place of a mapped access, or the fault for an unmapped or misaligned one.
    fn locate(&mut self, addr: u64, size: u32, kind: AccessKind) -> Result<Place, MemFault> {
        let Some(place) = self.side.geo.place(addr) else {
            let reason = format!("{kind} of {size} bytes at {addr:#x}: {}", self.side.geo.describe_miss(addr));
            return Err(self.stop(addr, size, kind, reason));
        };
        if addr & u64::from(size - 1) != 0 {
            let reason = format!("misaligned {kind} of {size} bytes at {addr:#x} in the MPB address range (accesses there must be naturally aligned)");
            return Err(self.stop(addr, size, kind, reason));
        }
        Ok(place)
    }
}

fn read_le(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0, |v, &b| v << 8 | u64::from(b))
}

impl Memory for View<'_> {
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, MemFault> {
        match self.ram.load(addr, size) {
            Err(MemFault::OutOfRange { .. }) => {}
            other => return other,
        }
        let kind = AccessKind::Load;
        let place = self.locate(addr, size, kind)?;
        match place {
            Place::Control(offset) => match INFO.iter().find(|&&i| i as u64 == offset) {
                Some(_) if size != 8 => Err(self.stop(addr, size, kind, format!("the MPB information registers are read with 8-byte loads, not {size}-byte ones"))),
                Some(&info) => Ok(match info {
                    Info::MpbBytes => self.side.geo.share,
                    Info::LineBytes => self.side.geo.line,
                    Info::SharedBase => SHARED_BASE,
                    Info::SharedBytes => self.side.geo.shared_bytes,
                    Info::Controllers => self.side.geo.controllers,
                    Info::LocalLatency => self.side.geo.local_latency,
                }),
                None => Err(self.stop(addr, size, kind, format!("MPB control register {offset:#x} cannot be read (0x40..0x70 can)"))),
            },
            Place::Tas(owner) => match self.side.left {
                Some(Left::TasValue { addr: a, value }) if a == addr => {
                    self.side.left = None;
                    Ok(value)
                }
                _ => Err(self.wait(addr, size, kind, Need::TestAndSet { addr, rank: owner })),
            },
            Place::Private { .. } => unreachable!("private memory lies outside the interface's windows"),
            Place::Mpb { .. } | Place::Shared { .. } => {
                let line = addr & !(self.side.geo.line - 1);
                match self.side.cache.slot(line) {
                    Some(slot) => {
                        let off = (addr - line) as usize;
                        let v = read_le(&self.side.cache.bytes(slot)[off..off + size as usize]);
                        if !self.retry {
                            self.side.counters.line_hits += 1;
                        }
                        Ok(v)
                    }
                    // Stores still in the buffer go out before the line comes in, so a core reads its own writes.
                    None if self.side.wcb.line.is_some() => Err(self.wait(addr, size, kind, Need::Flush)),
                    None => Err(self.wait(addr, size, kind, Need::Read { line, place })),
                }
            }
        }
    }

    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        match self.ram.store(addr, size, value) {
            Err(MemFault::OutOfRange { .. }) => {}
            other => return other,
        }
        let kind = AccessKind::Store;
        let place = self.locate(addr, size, kind)?;
        match place {
            Place::Control(CONTROL_INVALIDATE) => {
                self.side.cache.invalidate_all();
                self.side.counters.invalidations += 1;
                Ok(())
            }
            Place::Control(CONTROL_FLUSH) => {
                if self.side.wcb.line.is_none() {
                    self.side.counters.flushes += 1;
                    Ok(())
                } else {
                    Err(self.wait(addr, size, kind, Need::Flush))
                }
            }
            Place::Control(offset) => Err(self.stop(addr, size, kind, format!("MPB control register {offset:#x} cannot be written (0x0: invalidate, 0x8: flush)"))),
            Place::Tas(owner) => match self.side.left {
                Some(Left::TasCleared { addr: a }) if a == addr => {
                    self.side.left = None;
                    Ok(())
                }
                _ => Err(self.wait(addr, size, kind, Need::Clear { addr, rank: owner })),
            },
            Place::Private { .. } => unreachable!("private memory lies outside the interface's windows"),
            Place::Mpb { .. } | Place::Shared { .. } => {
                let line = addr & !(self.side.geo.line - 1);
                if self.side.wcb.line.is_some_and(|l| l != line) {
                    return Err(self.wait(addr, size, kind, Need::Flush));
                }
                let off = (addr - line) as usize;
                let bytes = &value.to_le_bytes()[..size as usize];
                if self.local_only && self.side.wcb.would_fill(off, bytes.len()) {
                    return Err(self.wait(addr, size, kind, Need::Flush));
                }
                self.side.wcb.write(line, off, bytes);
                if let Some(slot) = self.side.cache.slot(line) {
                    self.side.cache.bytes(slot)[off..off + size as usize].copy_from_slice(bytes);
                }
                Ok(())
            }
        }
    }
}

impl NetworkInterface for Mpb {
    fn kind(&self) -> &'static str {
        "mpb"
    }

    fn execute(&mut self, core: &mut Core, d: Decoded, net: &mut Network, env: &CoreEnv) -> NiOutcome {
        debug_assert_eq!(env.clocks.to_net(core.hart.cycle), net.now().0, "the network must have caught up with the core");
        let since = core.hart.cycle;
        self.attempt(core, d, net, env, since, false)
    }

    fn mapped(&self) -> Vec<(u64, u64)> {
        self.geo.ranges()
    }

    fn set_debug_clocking(&mut self, on: bool) {
        self.poll_sleep = !on;
    }

    fn polling(&self, rank: usize) -> Option<String> {
        let p = self.sides[rank].polling.as_ref()?;
        let where_ = match self.geo.place(p.line) {
            Some(Place::Mpb { rank: owner, offset }) => format!("byte {offset} of rank {owner}'s MPB"),
            _ => "an MPB line".to_string(),
        };
        Some(format!("polls the line at {:#x} ({where_}), which no core will write", p.line))
    }

    fn settle(&mut self, cores: &mut [Core], end: u64) {
        // Woken as if a write came at `end`: the iterations issued before it are charged; the pollers stay blocked
        // (a read in flight is left unserved, as the run has stopped).
        let lines: Vec<u64> = self.watchers.keys().copied().collect();
        for line in lines {
            self.wake_pollers(line, None, end);
        }
        for (p, k, _, polling) in std::mem::take(&mut self.wakes) {
            let core = &mut cores[p];
            polling.charge(core, &mut self.sides[p], k);
        }
    }

    fn local(&mut self, rank: usize) -> Option<&mut dyn LocalAccess> {
        Some(&mut self.sides[rank])
    }

    fn drain_policy(&self) -> DrainPolicy {
        DrainPolicy::Auto
    }

    fn next_event(&self) -> u64 {
        self.events.peek().map_or(u64::MAX, |Reverse((c, _, _))| *c)
    }

    fn tick(&mut self, cores: &mut [Core], net: &mut Network, env: &CoreEnv, delivered: &[noc::Delivery], done: &mut Vec<usize>) {
        let now = net.now().0;
        self.in_tick = true;
        self.apply_wakes(cores, env, net, done);
        for p in delivered {
            let id = p.payload as u32;
            if matches!(p.tag, TAG_REQUEST | TAG_RESPONSE) {
                self.latency.record(p.packet_latency());
            }
            match p.tag {
                TAG_REQUEST => {
                    let t = self.transfers[id as usize].as_ref().expect("a live transfer");
                    match t.place {
                        Place::Shared { .. } | Place::Private { .. } => {
                            let k = match t.place {
                                Place::Shared { offset } => self.controller_of(offset),
                                _ => self.private_controller[t.rank],
                            };
                            let (per_line, latency) = (self.geo.dram_per_line, self.geo.dram_latency);
                            let write = t.kind == Kind::WriteLine;
                            let c = &mut self.controllers[k];
                            let begin = c.free_at.max(p.drained.0);
                            c.free_at = begin + per_line;
                            let s = &mut c.stats;
                            if write {
                                s.writes += 1;
                            } else {
                                s.reads += 1;
                            }
                            s.queue_cycles += begin - p.drained.0;
                            s.max_queue_cycles = s.max_queue_cycles.max(begin - p.drained.0);
                            s.busy_cycles += per_line;
                            self.at(begin + latency, Event::Serve(id));
                        }
                        _ => {
                            if t.kind == Kind::WriteLine {
                                let line = t.addr;
                                self.wake_pollers(line, None, now);
                            }
                            self.at(p.drained.0 + self.clocks.net_cycles(self.geo.service), Event::Serve(id))
                        }
                    }
                }
                TAG_RESPONSE => {
                    // The core has the response at the first core cycle after it arrived, plus its interface's
                    // overhead (core cycles).
                    let resume = self.clocks.to_core(p.drained.0 + 1) + self.geo.overhead;
                    self.transfers[id as usize].as_mut().expect("a live transfer").resume = resume;
                    self.at(now.max(self.clocks.to_net(resume)), Event::Complete(id));
                }
                _ => {}
            }
        }
        self.apply_wakes(cores, env, net, done);
        while let Some(&Reverse((cycle, _, event))) = self.events.peek() {
            if cycle > now {
                break;
            }
            debug_assert_eq!(cycle, now, "an interface event was left behind the network");
            self.events.pop();
            match event {
                Event::Serve(id) => {
                    self.perform(id);
                    let t = self.transfers[id as usize].as_ref().expect("a live transfer");
                    let (rank, place, kind) = (t.rank, t.place, t.kind);
                    match self.target(rank, place) {
                        None if self.falls_asleep(id) => {}
                        None => self.complete(id, cores, env, net, done),
                        Some(at) => {
                            let flits = if kind == Kind::ReadLine { self.geo.line_flits } else { 1 };
                            let dst = self.node(rank);
                            net.enqueue(at, dst, flits, u64::from(id), TAG_RESPONSE);
                        }
                    }
                }
                Event::Complete(id) => self.complete(id, cores, env, net, done),
            }
        }
        self.apply_wakes(cores, env, net, done);
        self.in_tick = false;
    }

    fn still_waiting(&self, _core: &Core, _d: &Decoded, _net: &Network) -> bool {
        true
    }

    fn skip_waits(&mut self, _core: &mut Core, _d: &Decoded, _iterations: u64, _period: u64) {}

    fn waiting_since(&self, _rank: usize) -> Option<u64> {
        None
    }

    fn describe_wait(&self, _d: &Decoded) -> String {
        "waits for an MPB transfer".to_string()
    }

    fn node_owners(&self, cores: &[Core], _waiting: &[(usize, Decoded)], nodes: usize) -> Vec<Option<NodeOwner>> {
        let mut owners = vec![None; nodes];
        for core in cores {
            let name = format!("core {} (tile {})", core.rank, core.tile);
            owners[self.node(core.rank).0 as usize] =
                Some(NodeOwner { injection: format!("{name} MPB requests"), ejection: format!("{name} MPB"), drains_after_send: None });
        }
        owners
    }

    fn counters(&self, rank: usize) -> NiStats {
        NiStats::Mpb(self.sides[rank].counters.clone())
    }

    fn packet_latency(&self) -> Option<crate::background::LatencySummary> {
        Some(crate::background::LatencySummary::of(&self.latency))
    }

    fn controller_stats(&self) -> Vec<ControllerStats> {
        self.controllers.iter().map(|c| c.stats.clone()).collect()
    }

    fn finish(&mut self, _net: &Network, _end: u64) {}
}
