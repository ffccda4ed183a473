//! Network interfaces: how a core's instructions (PIMP) or loads and stores (mpb, memory-mapped) become flits and
//! flits become values in its registers.
//!
//! Every kind implements [`NetworkInterface`]. The chip calls it only when the network's clock has caught up with
//! the core (`core.hart.cycle == net.now()`), so an interface sees its FIFOs exactly as they are in that cycle and
//! never needs to know that cores run ahead. A core that spins on a self-referential wait branch (`bnr` to itself:
//! "loop while nothing arrived") is put to sleep by the chip and woken when [`NetworkInterface::still_waiting`]
//! turns false; the skipped iterations are charged exactly as if they had run ([`NetworkInterface::skip_waits`]),
//! so the debug clocking, which runs every iteration, gives the same numbers.
//!
//! A memory-mapped kind names its address ranges ([`NetworkInterface::mapped`]); a core's load or store there is
//! handed to it like an NI instruction, and it may block the core ([`NiOutcome::Blocked`]) until a transfer is back,
//! reporting that from [`NetworkInterface::tick`], which the chip calls in every network cycle the interface has
//! something to do (its packets are drained by the network, `DrainPolicy::Auto`).
//!
//! Adding a kind: one file here implementing the trait, one entry in [`build`], one `lib/ports/<kind>` in the
//! library; the library's test suite then runs on it.

pub mod mpb;
pub mod pimp;
pub mod udn;

use crate::config::{ChipConfig, NiKind};
use crate::core::{Core, CoreEnv};
use noc::{DrainPolicy, Network, NodeId, NodeOwner};
use riscv::Decoded;
use serde::Serialize;

/// Per-core counters of a network interface, reported in `stats.json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NiCounters {
    /// Messages (64-bit words) sent and received.
    pub sends: u64,
    pub receives: u64,
    /// Cycles spent in self-referential `bns` loops (send FIFO full) and `bnr` loops (receive FIFO empty).
    pub send_wait_cycles: u64,
    pub recv_wait_cycles: u64,
    /// Highest occupancy of each FIFO, in entries.
    pub send_fifo_peak: u64,
    pub recv_fifo_peak: u64,
    /// Sum over messages of the cycles each spent in this core's send FIFO and in its receive FIFO, words still
    /// there when the run ended counted up to its last cycle. Divided by the run's cycles: the average occupancy
    /// (Little's law).
    pub send_fifo_entry_cycles: u64,
    pub recv_fifo_entry_cycles: u64,
    /// Messages still in the receive FIFO when the run ended (sent but never received).
    pub recv_fifo_left: u64,
}

/// A network interface's counters for one core, as `stats.json` shows them (`cores[i].ni`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum NiStats {
    Pimp(NiCounters),
    Mpb(mpb::MpbCounters),
    Udn(udn::UdnCounters),
}

impl NiStats {
    /// Cycles the core stalled waiting for the interface to complete an access (not spinning in a wait loop,
    /// which runs instructions).
    pub fn stall_cycles(&self) -> u64 {
        match self {
            NiStats::Pimp(_) => 0,
            NiStats::Mpb(c) => c.stall_cycles,
            NiStats::Udn(c) => c.credit_stall_cycles + c.recv_stall_cycles,
        }
    }
}

/// What executing an NI instruction did to the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NiOutcome {
    /// Retired; the core goes on.
    Continue,
    /// Retired as one iteration of a self-referential wait loop of `period` cycles: the core may sleep until
    /// `still_waiting` turns false.
    Waiting { period: u64 },
    /// The core faulted (misuse of the interface).
    Stopped,
    /// The instruction waits for the interface (an MPB transfer): the core is neither run nor visited until
    /// [`NetworkInterface::tick`] reports it done.
    Blocked,
}

/// Where the running cores sit on the network: core `r` (chip-wide) runs on node `rank_node[r]`. With partitioned
/// jobs the cores are numbered job after job, and a program names its peers by their rank in its own job:
/// [`Placement::global`] and [`Placement::local`] translate.
#[derive(Clone, Debug)]
pub struct Placement {
    pub rank_node: Vec<NodeId>,
    /// Per node, the core running there (`u32::MAX` for idle tiles).
    pub node_rank: Vec<u32>,
    /// Per core: the chip-wide index of its job's rank 0, and its job's size.
    pub job_first: Vec<u32>,
    pub job_size: Vec<u32>,
}

impl Placement {
    /// One job on `tiles`.
    pub fn new(tiles: &[usize], nodes: usize) -> Placement {
        Placement::with_jobs(tiles, nodes, &[tiles.len()])
    }

    /// Jobs of `sizes` cores each on `tiles` (job after job).
    pub fn with_jobs(tiles: &[usize], nodes: usize, sizes: &[usize]) -> Placement {
        let mut node_rank = vec![u32::MAX; nodes];
        for (rank, &t) in tiles.iter().enumerate() {
            node_rank[t] = rank as u32;
        }
        let (mut job_first, mut job_size) = (Vec::with_capacity(tiles.len()), Vec::with_capacity(tiles.len()));
        let mut first = 0;
        for &n in sizes {
            job_first.extend(std::iter::repeat(first as u32).take(n));
            job_size.extend(std::iter::repeat(n as u32).take(n));
            first += n;
        }
        Placement { rank_node: tiles.iter().map(|&t| NodeId(t as u32)).collect(), node_rank, job_first, job_size }
    }

    /// The chip-wide core of rank `peer` of core `core`'s job, if its job has that rank.
    pub fn global(&self, core: usize, peer: u64) -> Option<usize> {
        (peer < u64::from(self.job_size[core])).then(|| self.job_first[core] as usize + peer as usize)
    }

    /// Core `core`'s rank in its job.
    pub fn local(&self, core: usize) -> u64 {
        (core as u32 - self.job_first[core]) as u64
    }

    /// The number of ranks of core `core`'s job.
    pub fn job_ranks(&self, core: usize) -> u64 {
        u64::from(self.job_size[core])
    }
}

/// The part of an interface a core uses on its own, ahead of global time: accesses to state only that core changes.
pub trait LocalAccess {
    /// Executes `d` (a load or store in the interface's ranges, at the pc) if it needs nothing outside the core,
    /// and returns whether it did (then the pc has moved on; the caller retires it). Otherwise changes nothing.
    fn try_local(&mut self, mem: &mut crate::core::TileMemory, hart: &mut riscv::Hart, d: Decoded) -> bool;
}

/// One kind of network interface, for all tiles of a chip.
pub trait NetworkInterface {
    /// The kind's name as written in chip files.
    fn kind(&self) -> &'static str;

    /// Executes NI instruction `d` (at the core's pc) in cycle `core.hart.cycle`, which equals `net.now()`.
    /// On success the pc has moved on and the instruction is retired.
    fn execute(&mut self, core: &mut Core, d: Decoded, net: &mut Network, env: &CoreEnv) -> NiOutcome;

    /// For a core sleeping in a wait loop on `d`: whether the loop would still be taken at `net.now()`.
    fn still_waiting(&self, core: &Core, d: &Decoded, net: &Network) -> bool;

    /// Charges `iterations` taken iterations of the wait loop on `d`, each `period` cycles, that a sleeping core
    /// skipped.
    fn skip_waits(&mut self, core: &mut Core, d: &Decoded, iterations: u64, period: u64);

    /// CSR number ranges `(first, last)` the interface serves: a core's CSR instruction there is handed to
    /// [`NetworkInterface::execute`] in global time order, like an NI instruction.
    fn csrs(&self) -> Vec<(u16, u16)> {
        Vec::new()
    }

    /// Called once the chip's network exists, before anything runs (to set up what the interface keeps there).
    fn attach(&mut self, _net: &mut Network) {}

    /// For a core the interface has armed ([`Core::irq_armed`]), at the instruction boundary at `core.hart.cycle`,
    /// which equals `net.now()`: sets `mip.MEIP`, takes the interrupt if it is due, and sets `core.irq_until` to the
    /// first cycle at which one could next become due.
    fn interrupt_check(&mut self, _core: &mut Core, _net: &mut Network, _env: &CoreEnv) {}

    /// The cycle the core's current wait loop began, if its last instruction was such a loop iteration.
    fn waiting_since(&self, rank: usize) -> Option<u64>;

    /// Human-readable description of what the core at `rank`, spinning on `d`, waits for.
    fn describe_wait(&self, d: &Decoded) -> String;

    /// For the network's deadlock diagnosis, indexed by node: what each rank's node is called, and for the ranks
    /// in `waiting` (rank, and the wait-loop branch it spins on) whether their receive side waits for their send.
    fn node_owners(&self, cores: &[Core], waiting: &[(usize, Decoded)], nodes: usize) -> Vec<Option<NodeOwner>>;

    /// Counters of `rank`, final once the run is over (`finish` has been called).
    fn counters(&self, rank: usize) -> NiStats;

    /// Per memory controller counters (none for kinds without controllers).
    fn controller_stats(&self) -> Vec<mpb::ControllerStats> {
        Vec::new()
    }

    /// Address ranges `[lo, hi)` whose loads and stores the interface serves: a core's access there is handed to
    /// [`NetworkInterface::execute`] in global time order, like an NI instruction.
    fn mapped(&self) -> Vec<(u64, u64)> {
        Vec::new()
    }

    /// The run stopped at network cycle `end` with cores still running (cycle limit, abort): cores the interface
    /// let sleep are charged what they would have run by then.
    fn settle(&mut self, _cores: &mut [Core], _end: u64) {}

    /// If core `rank` sleeps polling (memory-mapped kinds), what it waits for, for the deadlock report.
    fn polling(&self, _rank: usize) -> Option<String> {
        None
    }

    /// Debug clocking: the interface must not skip anything (it checks that skipping is exact).
    fn set_debug_clocking(&mut self, _on: bool) {}

    /// What rank `rank`'s core may do with the interface without waiting for global time (memory-mapped kinds).
    fn local(&mut self, _rank: usize) -> Option<&mut dyn LocalAccess> {
        None
    }

    /// What the nodes do with arrived flits: the interface pops them itself (`Manual`, PIMP's receive FIFOs), or
    /// the network drains them and the interface takes the packets in [`NetworkInterface::tick`] (`Auto`).
    fn drain_policy(&self) -> DrainPolicy {
        DrainPolicy::Manual
    }

    /// The next cycle at which the interface acts on its own (serves a request, completes a transfer), or
    /// `u64::MAX`. The chip stops the network there and calls [`NetworkInterface::tick`].
    fn next_event(&self) -> u64 {
        u64::MAX
    }

    /// With the network at `net.now()` (after every step, and before the NI instructions due in that cycle run):
    /// handles the packets `delivered` since the last call (the chip took them from the network; background
    /// traffic is among them, with its own tag) and runs the events due. Appends to `done` the ranks whose blocked
    /// instruction has finished (they run on from their `hart.cycle`, or have stopped).
    fn tick(&mut self, _cores: &mut [Core], _net: &mut Network, _env: &CoreEnv, _delivered: &[noc::Delivery], _done: &mut Vec<usize>) {}

    /// Latency of the interface's own packets, for kinds whose packets the network drains (`Auto`).
    fn packet_latency(&self) -> Option<crate::background::LatencySummary> {
        None
    }

    /// End of the run, at cycle `end` (the network has been simulated at least that far): counts what was left
    /// in the FIFOs then, ignoring whatever the network did after `end`.
    fn finish(&mut self, net: &Network, end: u64);
}

/// The interface for a chip, or `None` for `ni.kind = "none"`.
pub fn build(config: &ChipConfig, placement: Placement) -> Option<Box<dyn NetworkInterface>> {
    match config.ni.kind {
        NiKind::None => None,
        NiKind::Pimp => Some(Box::new(pimp::Pimp::new(&config.ni, placement))),
        NiKind::Mpb => Some(Box::new(mpb::Mpb::new(config, placement))),
        NiKind::Udn => Some(Box::new(udn::Udn::new(config, placement))),
    }
}
