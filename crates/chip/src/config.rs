//! Chip descriptions: a TOML file names the mesh, the core (memory, clock, pipeline latencies), the network and
//! the kind of network interface on every tile. Presets live in `chips/`. Unknown keys are errors, so a typo never
//! silently falls back to a default.

use noc::config::{NetworkConfig, RouterPipeline, SwAllocator, VcAllocator};
use noc::routing::Routing;
use noc::topology::Topology;
use riscv::isa::Isa;
use riscv::Timing;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Base address of every tile's private memory.
pub const MEMORY_BASE: u64 = 0x8000_0000;
/// Largest private memory per tile (the runtime's linker script window).
pub const MAX_MEMORY_KIB: u64 = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum ChipConfigError {
    #[error("cannot read chip file {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("chip file {path}: {message}")]
    Parse { path: String, message: String },
    #[error("chip {name}: {message}")]
    Invalid { name: String, message: String },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshConfig {
    pub width: u32,
    pub height: u32,
    #[serde(default = "one")]
    pub concentration: u32,
}

fn one() -> u32 {
    1
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreConfig {
    /// The ISA string: "rv64im" (default, the PIMP cores), "rv64imac" (software floating point with atomics and
    /// compressed instructions, as on the TilePro), "rv64gc" (hardware floating point), or any "rv64i" plus m, a,
    /// f, d, c in that order (see `riscv::isa::Isa::parse`).
    #[serde(default = "default_isa")]
    pub isa: String,
    /// What a misaligned load or store does: "fault" (default: the core stops with a report, as a classic 5-stage
    /// core without a trap handler) or "split" (performed as aligned accesses, costing
    /// `timing.misaligned_penalty_cycles` more). Atomics must be aligned either way.
    #[serde(default = "default_misaligned")]
    pub misaligned_access: String,
    pub frequency_mhz: u64,
    /// Private memory per tile.
    pub memory_kib: u64,
    /// Stack reserved at the top of memory (the heap stops below it).
    #[serde(default = "default_stack_kib")]
    pub stack_kib: u64,
    #[serde(default)]
    pub timing: Timing,
}

fn default_isa() -> String {
    "rv64im".into()
}

fn default_misaligned() -> String {
    "fault".into()
}

fn default_stack_kib() -> u64 {
    64
}

/// The on-chip network as written in a chip file (names instead of enums, so errors can quote them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    /// The network's clock (routers, links, memory controllers), if not the cores' (`core.frequency_mhz`); all
    /// `network.*_cycles` and `memory.*_cycles` count its cycles. Only the mpb interface supports a clock of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_mhz: Option<u64>,
    #[serde(default = "default_router")]
    pub router: String,
    /// The topology: "mesh", "torus" or "ring" (see `noc::topology::Topology`); the shape comes from `[mesh]`.
    #[serde(default = "default_topology")]
    pub topology: String,
    #[serde(default = "default_routing")]
    pub routing: String,
    #[serde(default = "one")]
    pub vcs: u32,
    #[serde(default = "default_buffer")]
    pub buffer_depth_flits: u32,
    /// The VC allocator: "lowest", "round-robin", "islip", "output-first" or "wavefront" (see `noc::VcAllocator`).
    #[serde(default = "default_vc_allocator")]
    pub vc_allocator: String,
    /// The switch allocator: "input-first", "islip", "output-first" or "wavefront" (see `noc::SwAllocator`).
    #[serde(default = "default_sw_allocator")]
    pub sw_allocator: String,
    /// Iterations of the islip allocators (see `noc::NetworkConfig`).
    #[serde(default = "one")]
    pub allocator_iterations: u32,
    /// 4stage: heads bid for the switch in the cycle of their VC allocation (see `noc::NetworkConfig`).
    #[serde(default)]
    pub speculative_switch_allocation: bool,
    /// Output VCs are handed out again only once the last tail's credit is back (see `noc::NetworkConfig`).
    #[serde(default)]
    pub wait_for_tail_credit: bool,
    #[serde(default = "one")]
    pub credit_delay_cycles: u32,
    /// 4stage: route computation cycles before VC allocation, 0 to 16 (see `noc::NetworkConfig`).
    #[serde(default = "one")]
    pub routing_delay_cycles: u32,
    /// 4stage: cycles of one VC allocation (see `noc::NetworkConfig`).
    #[serde(default = "one")]
    pub vc_alloc_delay_cycles: u32,
    /// 4stage: cycles of one switch allocation (see `noc::NetworkConfig`).
    #[serde(default = "one")]
    pub sw_alloc_delay_cycles: u32,
    /// 4stage: switch traversal cycles (see `noc::NetworkConfig`).
    #[serde(default = "one")]
    pub crossbar_delay_cycles: u32,
    /// Cycles of an output stage between the crossbar and the channel (see `noc::NetworkConfig`; 0 by default).
    #[serde(default)]
    pub output_delay_cycles: u32,
    /// Crossbar inputs per input port (see `noc::NetworkConfig`).
    #[serde(default = "one")]
    pub input_speedup: u32,
    /// Crossbar outputs per output port, with an output queue (see `noc::NetworkConfig`).
    #[serde(default = "one")]
    pub output_speedup: u32,
    #[serde(default = "one")]
    pub link_latency_cycles: u32,
    /// Cycles from injection to the router's input buffer (see `noc::NetworkConfig`): 1 by default, unlike
    /// `nocmsg traffic`'s BookSim2 value 2, because a chip's network interface writes straight into the router's
    /// local input buffer.
    #[serde(default = "one")]
    pub injection_channel_cycles: u32,
    /// 4stage: body flits bid for the switch in the cycle they are written (see `noc::NetworkConfig`; true as in
    /// BookSim2).
    #[serde(default = "yes")]
    pub body_bids_on_arrival: bool,
    #[serde(default = "default_eject")]
    pub eject_queue_flits: u32,
    /// Independent physical networks.
    #[serde(default = "one")]
    pub networks: u32,
    #[serde(default = "default_watchdog")]
    pub watchdog_cycles: u64,
}

fn default_router() -> String {
    "1stage".into()
}
fn default_vc_allocator() -> String {
    "islip".into()
}
fn default_sw_allocator() -> String {
    "islip".into()
}
fn yes() -> bool {
    true
}
fn default_topology() -> String {
    "mesh".into()
}
fn default_routing() -> String {
    "xy".into()
}
fn default_buffer() -> u32 {
    4
}
fn default_eject() -> u32 {
    16
}
fn default_watchdog() -> u64 {
    100_000
}

impl Default for NetworkSection {
    fn default() -> Self {
        toml::from_str("").expect("every field has a default")
    }
}

/// Which network interface sits between each core and its router.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NiKind {
    /// No network interface: custom instructions stop the core.
    None,
    /// PIMP register-level send/receive FIFOs.
    Pimp,
    /// SCC-style message-passing buffers mapped into every core's address space (`ni::mpb`), with test-and-set
    /// registers and off-chip shared memory behind memory controllers (`[memory]`).
    Mpb,
    /// Tilera-style user dynamic network (`ni::udn`): CSR-mapped output queue with visible credits, multi-flit
    /// packets, demultiplexing receive queues, arrival interrupt (`[ni.udn]`).
    Udn,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NiConfig {
    pub kind: NiKind,
    #[serde(default = "default_send_fifo")]
    pub send_fifo_entries: u32,
    #[serde(default = "default_recv_fifo")]
    pub recv_fifo_entries: u32,
    /// The message-passing buffers of `kind = "mpb"` (`[ni.mpb]`; defaults: the SCC's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpb: Option<MpbConfig>,
    /// The queues of `kind = "udn"` (`[ni.udn]`; defaults: TilePro-like, see [`UdnConfig`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udn: Option<UdnConfig>,
}

/// `[ni.udn]`: the Tilera-style user dynamic network interface. Words are 64-bit (the TilePro's are 32-bit: our
/// cores are RV64). Defaults: TilePro-like, the sources and our choices named per field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdnConfig {
    /// Words the output queue to the local switch holds: the credits a program reads in `udn.credits`. A write to
    /// a full queue stalls the core. (Our choice: the TilePro's processor-to-switch buffer is a few words deep.)
    #[serde(default = "default_udn_out")]
    pub out_queue_words: u32,
    /// The hardware input queue between the switch and the demultiplexer: the node's ejection queue.
    #[serde(default = "default_udn_in")]
    pub input_queue_words: u32,
    /// Words each receive queue holds: the four tagged demultiplexing queues and the catch-all. A packet whose
    /// queue is full waits in the input queue and back-pressures the network (head of line), as on the TilePro.
    #[serde(default = "default_udn_demux")]
    pub demux_queue_words: u32,
    /// Largest payload of one packet, in words, after its header word (TilePro: 127).
    #[serde(default = "default_udn_packet")]
    pub max_packet_words: u32,
    /// Core cycles from a word becoming readable in a queue whose arrival interrupt is enabled to the interrupt
    /// being taken (at the next instruction boundary at or after it).
    #[serde(default = "default_udn_irq")]
    pub interrupt_latency_cycles: u32,
}

fn default_udn_out() -> u32 {
    4
}
fn default_udn_in() -> u32 {
    4
}
fn default_udn_demux() -> u32 {
    32
}
fn default_udn_packet() -> u32 {
    127
}
fn default_udn_irq() -> u32 {
    5
}

impl Default for UdnConfig {
    fn default() -> Self {
        toml::from_str("").expect("every field has a default")
    }
}

/// `[ni.mpb]`: the SCC-style message-passing buffers. Defaults are the SCC's (Intel, "SCC External Architecture
/// Specification" 1.1 and the "SCC Programmer's Guide" 1.0: 16 KiB of MPB per tile, 32-byte lines, 128-bit flits,
/// a local MPB read in 15 core cycles, a remote one in 45 core cycles plus the mesh round trip; MPB lines, tagged
/// MPBT, are cached in the core's 16 KiB L1 data cache, whose associativity here, 2 ways, is our choice).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MpbConfig {
    /// MPB per router, shared by its cores: each owns `mpb_kib / concentration` KiB of it (the SCC's 8 KiB per
    /// core by convention).
    #[serde(default = "default_mpb_kib")]
    pub mpb_kib: u32,
    /// Bytes of a line: the unit of remote transfers, of the line cache and of the write-combining buffer.
    #[serde(default = "default_line_bytes")]
    pub line_bytes: u32,
    /// Payload bytes per flit: a line travels as `line_bytes / flit_bytes` flits, a request or an acknowledgement
    /// as one.
    #[serde(default = "default_flit_bytes")]
    pub flit_bytes: u32,
    /// Core cycles of an access to the MPB of the core's own router (no network). The MPB and the requester's mesh
    /// interface are in the tile, on the core clock; the network and the memory controllers run on the network's.
    #[serde(default = "default_local_latency")]
    pub local_latency_cycles: u32,
    /// Core cycles the MPB at a remote router takes to serve a request once it has arrived.
    #[serde(default = "default_local_latency")]
    pub service_cycles: u32,
    /// Core cycles the requesting core's mesh interface adds to every remote access or shared-memory access, on top
    /// of the network's round trip and the service.
    #[serde(default = "default_remote_overhead")]
    pub remote_overhead_cycles: u32,
    /// The per-core cache of MPB and shared-memory lines (read-allocate, write-through, no coherence: a line
    /// stays until invalidated): KiB and ways.
    #[serde(default = "default_line_cache_kib")]
    pub line_cache_kib: u32,
    #[serde(default = "default_line_cache_ways")]
    pub line_cache_ways: u32,
}

fn default_mpb_kib() -> u32 {
    16
}
fn default_line_bytes() -> u32 {
    32
}
fn default_flit_bytes() -> u32 {
    16
}
fn default_local_latency() -> u32 {
    15
}
fn default_remote_overhead() -> u32 {
    30
}
fn default_line_cache_kib() -> u32 {
    16
}
fn default_line_cache_ways() -> u32 {
    2
}

impl Default for MpbConfig {
    fn default() -> Self {
        toml::from_str("").expect("every field has a default")
    }
}

/// `[memory]`: off-chip memory shared by all cores, behind memory controllers attached to routers (mpb chips). Each
/// core's private memory stays private; it costs `core.timing.memory_cycles` an access, unless `[memory.private]`
/// puts it behind the core's own caches and the controllers too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryConfig {
    /// Size of the shared region (mapped at `ni::mpb::SHARED_BASE` in every core).
    #[serde(default = "default_shared_mib")]
    pub shared_mib: u64,
    /// The routers the controllers attach to, as `[x, y]`; the shared region is interleaved over them in
    /// `interleave_kib` blocks.
    pub controllers: Vec<[u32; 2]>,
    #[serde(default = "default_interleave_kib")]
    pub interleave_kib: u64,
    /// Network cycles from a request reaching an idle controller to its response leaving (the DRAM access).
    #[serde(default = "default_dram_latency")]
    pub latency_cycles: u32,
    /// Network cycles a controller is busy per line: its bandwidth. Requests arriving meanwhile queue.
    #[serde(default = "default_dram_cycles_per_line")]
    pub cycles_per_line: u32,
    /// Private memory behind per-core caches and the nearest controller (absent: private memory at core speed).
    #[serde(default)]
    pub private: Option<PrivateMemoryConfig>,
}

/// `[memory.private]`: each core's private memory lives in off-chip DRAM behind the controller nearest its router
/// (the SCC's lookup tables map a core's private memory to its quadrant's controller), cached in the core's own L1
/// and L2 (`crate::private_cache`). Lines are the MPB's (`ni.mpb.line_bytes`); misses and write-backs travel the
/// mesh and queue at the controller with the shared region's traffic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrivateMemoryConfig {
    #[serde(default = "default_private_l1_kib")]
    pub l1_kib: u32,
    #[serde(default = "default_private_l1_ways")]
    pub l1_ways: u32,
    #[serde(default = "default_private_l2_kib")]
    pub l2_kib: u32,
    #[serde(default = "default_private_l2_ways")]
    pub l2_ways: u32,
    /// Core cycles of an L2 hit (an L1 hit costs `core.timing.memory_cycles`).
    #[serde(default = "default_private_l2_latency")]
    pub l2_latency_cycles: u32,
}

fn default_private_l1_kib() -> u32 {
    16
}
fn default_private_l1_ways() -> u32 {
    2
}
fn default_private_l2_kib() -> u32 {
    256
}
fn default_private_l2_ways() -> u32 {
    4
}
fn default_private_l2_latency() -> u32 {
    18
}

fn default_shared_mib() -> u64 {
    64
}
fn default_interleave_kib() -> u64 {
    16 * 1024
}
fn default_dram_latency() -> u32 {
    46
}
fn default_dram_cycles_per_line() -> u32 {
    4
}

fn default_send_fifo() -> u32 {
    8
}
fn default_recv_fifo() -> u32 {
    16
}

impl Default for NiConfig {
    fn default() -> Self {
        NiConfig { kind: NiKind::None, send_fifo_entries: 8, recv_fifo_entries: 16, mpb: None, udn: None }
    }
}

/// A whole chip.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChipConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub mesh: MeshConfig,
    pub core: CoreConfig,
    #[serde(default)]
    pub network: NetworkSection,
    #[serde(default)]
    pub ni: NiConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caches: Option<CachesConfig>,
}

/// `[caches]`: the tiles' cache hierarchy and the memory behind it (`crate::shmem`), used by runs that ask for it
/// (`nocmsg run --memory cached`, and threads sharing an address space); other runs keep the one-cycle private
/// memory of `core.timing.memory_cycles`, so message-passing results do not change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CachesConfig {
    pub line_bytes: u64,
    pub l1d_kib: u64,
    pub l1d_ways: u32,
    /// Core cycles of an L1 hit: the load latency `core.timing.memory_cycles` already charges (a hit costs nothing
    /// more); an L2 hit costs `l2_latency_cycles - l1d_latency_cycles` more.
    pub l1d_latency_cycles: u32,
    pub l2_kib: u64,
    pub l2_ways: u32,
    pub l2_latency_cycles: u32,
    /// Cycles a home takes to serve a request before its answer leaves.
    pub home_cycles: u32,
    /// Stores a core may have on their way to their homes before it stalls.
    pub write_buffer: u32,
    /// The physical network the memory system's messages travel on (below `network.networks`; not the one the
    /// network interface uses, 0).
    pub network: u32,
    /// Bytes per flit on that network.
    pub flit_bytes: u64,
    /// Routers with a memory controller, as `[x, y]`; lines are spread over them in `interleave_bytes` blocks.
    pub controllers: Vec<[u32; 2]>,
    pub interleave_bytes: u64,
    /// Cycles from a request reaching an idle controller to its answer leaving, and cycles it is busy per line.
    pub dram_latency_cycles: u32,
    pub dram_cycles_per_line: u32,
    /// Page size for local (first-touch) homing.
    pub page_kib: u64,
}

impl ChipConfig {
    /// Reads and validates a chip file.
    pub fn load(path: &Path) -> Result<ChipConfig, ChipConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ChipConfigError::Read { path: path.display().to_string(), source })?;
        ChipConfig::parse(&text, &path.display().to_string())
    }

    /// Parses and validates chip TOML; `origin` names the source in errors.
    pub fn parse(text: &str, origin: &str) -> Result<ChipConfig, ChipConfigError> {
        let cfg: ChipConfig = toml::from_str(text).map_err(|e| ChipConfigError::Parse {
            path: origin.to_string(),
            // toml's message spans several lines (a source excerpt); keep the first for a one-line error.
            message: one_line(&e),
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    fn invalid(&self, message: String) -> ChipConfigError {
        ChipConfigError::Invalid { name: self.name.clone(), message }
    }

    pub fn validate(&self) -> Result<(), ChipConfigError> {
        Isa::parse(&self.core.isa).map_err(|e| self.invalid(format!("core.isa = {e}")))?;
        if !matches!(self.core.misaligned_access.as_str(), "fault" | "split") {
            return Err(self.invalid(format!("core.misaligned_access = {:?}: must be \"fault\" or \"split\"", self.core.misaligned_access)));
        }
        if self.core.frequency_mhz == 0 || self.core.frequency_mhz > 100_000 {
            return Err(self.invalid(format!("core.frequency_mhz = {}: must be between 1 and 100000", self.core.frequency_mhz)));
        }
        if self.core.memory_kib < 16 || self.core.memory_kib > MAX_MEMORY_KIB {
            return Err(self.invalid(format!("core.memory_kib = {}: must be between 16 and {MAX_MEMORY_KIB}", self.core.memory_kib)));
        }
        if self.core.stack_kib == 0 || self.core.stack_kib >= self.core.memory_kib {
            return Err(self.invalid(format!(
                "core.stack_kib = {}: must be at least 1 and less than core.memory_kib ({})",
                self.core.stack_kib, self.core.memory_kib
            )));
        }
        self.core.timing.validate().map_err(|e| self.invalid(format!("core.{e}")))?;
        self.network_config().map_err(|m| self.invalid(m))?;
        if self.network.networks == 0 || self.network.networks > 16 {
            return Err(self.invalid(format!("network.networks = {}: must be between 1 and 16", self.network.networks)));
        }
        for (field, v) in [("ni.send_fifo_entries", self.ni.send_fifo_entries), ("ni.recv_fifo_entries", self.ni.recv_fifo_entries)] {
            if v == 0 || v > 4096 {
                return Err(self.invalid(format!("{field} = {v}: must be between 1 and 4096")));
            }
        }
        if let Some(f) = self.network.frequency_mhz {
            if f == 0 || f > 100_000 {
                return Err(self.invalid(format!("network.frequency_mhz = {f}: must be between 1 and 100000")));
            }
            if f != self.core.frequency_mhz && self.ni.kind != NiKind::Mpb {
                return Err(self.invalid(format!(
                    "network.frequency_mhz = {f} differs from core.frequency_mhz = {}: only the mpb interface supports separate clocks so far",
                    self.core.frequency_mhz
                )));
            }
        }
        self.validate_mpb()?;
        self.validate_udn()?;
        self.validate_caches()?;
        if self.ni.kind == NiKind::Udn {
            // Words between a pair must arrive in order, as on the UDN's dimension-ordered single channel.
            if self.network.vcs != 1 || Routing::from_name(&self.network.routing).is_some_and(|r| r.requirements().adaptive) {
                return Err(self.invalid(format!(
                    "network.vcs = {}, network.routing = {}: the udn interface needs 1 VC and deterministic routing (packets between a pair arrive in order)",
                    self.network.vcs, self.network.routing
                )));
            }
        }
        if self.ni.kind == NiKind::Pimp {
            // Words between a pair must arrive in order: with several VCs a later word can overtake.
            if self.network.vcs != 1 {
                return Err(self.invalid(format!("network.vcs = {}: the pimp interface needs 1 (more can reorder words between a pair)", self.network.vcs)));
            }
            if self.network.networks != 1 {
                return Err(self.invalid(format!("network.networks = {}: the pimp interface uses exactly 1", self.network.networks)));
            }
            // Adaptive routing can send a later word along another path, where it may overtake.
            if Routing::from_name(&self.network.routing).is_some_and(|r| r.requirements().adaptive) {
                return Err(self.invalid(format!(
                    "network.routing = {}: the pimp interface needs deterministic routing (adaptive routing can reorder words between a pair)",
                    self.network.routing
                )));
            }
        }
        Ok(())
    }

    /// `[ni.udn]`: only with `ni.kind = "udn"`, every size usable.
    fn validate_udn(&self) -> Result<(), ChipConfigError> {
        if self.ni.kind != NiKind::Udn {
            if self.ni.udn.is_some() {
                return Err(self.invalid(format!("[ni.udn] is set but ni.kind = {:?}: it describes the \"udn\" interface", self.ni.kind)));
            }
            return Ok(());
        }
        let u = self.udn();
        for (field, v, max) in [
            ("out_queue_words", u.out_queue_words, 4096),
            ("input_queue_words", u.input_queue_words, 4096),
            ("demux_queue_words", u.demux_queue_words, 1 << 20),
            ("max_packet_words", u.max_packet_words, 4096),
            ("interrupt_latency_cycles", u.interrupt_latency_cycles, 100_000),
        ] {
            if v == 0 || v > max {
                return Err(self.invalid(format!("ni.udn.{field} = {v}: must be between 1 and {max}")));
            }
        }
        Ok(())
    }

    /// `[caches]`: sizes that make a cache, a memory network that exists and is not the interface's, controllers on
    /// the mesh.
    fn validate_caches(&self) -> Result<(), ChipConfigError> {
        let Some(c) = &self.caches else { return Ok(()) };
        if !c.line_bytes.is_power_of_two() || !(8..=512).contains(&c.line_bytes) {
            return Err(self.invalid(format!("caches.line_bytes = {}: must be a power of two from 8 to 512", c.line_bytes)));
        }
        for (name, kib, ways) in [("l1d", c.l1d_kib, c.l1d_ways), ("l2", c.l2_kib, c.l2_ways)] {
            let lines = kib * 1024 / c.line_bytes;
            if kib == 0 || kib > 1 << 20 || ways == 0 || lines % u64::from(ways) != 0 || lines < u64::from(ways) {
                return Err(self.invalid(format!(
                    "caches.{name}_kib = {kib}, caches.{name}_ways = {ways}: the cache (1 KiB to 1 GiB) must hold a whole number of sets of that many {}-byte lines",
                    c.line_bytes
                )));
            }
        }
        if c.l1d_latency_cycles == 0 || c.l2_latency_cycles < c.l1d_latency_cycles || c.l2_latency_cycles > 10_000 {
            return Err(self.invalid(format!(
                "caches.l1d_latency_cycles = {}, caches.l2_latency_cycles = {}: need 1 <= l1d <= l2 <= 10000",
                c.l1d_latency_cycles, c.l2_latency_cycles
            )));
        }
        for (field, v) in [("home_cycles", c.home_cycles), ("write_buffer", c.write_buffer), ("dram_latency_cycles", c.dram_latency_cycles), ("dram_cycles_per_line", c.dram_cycles_per_line)] {
            if v == 0 || v > 100_000 {
                return Err(self.invalid(format!("caches.{field} = {v}: must be between 1 and 100000")));
            }
        }
        if c.network == 0 || c.network >= self.network.networks {
            return Err(self.invalid(format!(
                "caches.network = {}: must name one of the chip's other physical networks, 1 to {} (network.networks = {}; 0 is the network interface's)",
                c.network,
                self.network.networks.saturating_sub(1),
                self.network.networks
            )));
        }
        if !c.flit_bytes.is_power_of_two() || c.flit_bytes > c.line_bytes {
            return Err(self.invalid(format!("caches.flit_bytes = {}: must be a power of two no larger than a line ({} bytes)", c.flit_bytes, c.line_bytes)));
        }
        if Routing::from_name(&self.network.routing).is_some_and(|r| r.requirements().adaptive) {
            return Err(self.invalid(format!(
                "network.routing = {}: [caches] needs deterministic routing (the coherence protocol relies on messages between a pair arriving in order)",
                self.network.routing
            )));
        }
        if c.controllers.is_empty() {
            return Err(self.invalid("caches.controllers is empty: memory needs at least one controller".into()));
        }
        for &[x, y] in &c.controllers {
            if x >= self.mesh.width || y >= self.mesh.height {
                return Err(self.invalid(format!("caches.controllers: [{x}, {y}] is not a router of the {}x{} mesh", self.mesh.width, self.mesh.height)));
            }
        }
        if c.interleave_bytes < c.line_bytes || c.interleave_bytes % c.line_bytes != 0 {
            return Err(self.invalid(format!("caches.interleave_bytes = {}: must be a multiple of the line ({} bytes)", c.interleave_bytes, c.line_bytes)));
        }
        if c.page_kib == 0 || !c.page_kib.is_power_of_two() || c.page_kib * 1024 < c.line_bytes {
            return Err(self.invalid(format!("caches.page_kib = {}: must be a power of two holding at least a line", c.page_kib)));
        }
        if self.network.frequency_mhz.is_some_and(|f| f != self.core.frequency_mhz) {
            return Err(self.invalid("[caches] needs the network on the cores' clock (network.frequency_mhz unset or equal to core.frequency_mhz)".into()));
        }
        Ok(())
    }

    /// The UDN interface's settings (defaults where `[ni.udn]` is absent).
    pub fn udn(&self) -> UdnConfig {
        self.ni.udn.clone().unwrap_or_default()
    }

    /// `[ni.mpb]` and `[memory]`: only with `ni.kind = "mpb"`, and consistent with the mesh.
    fn validate_mpb(&self) -> Result<(), ChipConfigError> {
        if self.ni.kind != NiKind::Mpb {
            if self.ni.mpb.is_some() {
                return Err(self.invalid(format!("[ni.mpb] is set but ni.kind = {:?}: it describes the \"mpb\" interface", self.ni.kind)));
            }
            if self.memory.is_some() {
                return Err(self.invalid(format!("[memory] is set but ni.kind = {:?}: shared memory is served by the \"mpb\" interface", self.ni.kind)));
            }
            return Ok(());
        }
        let m = self.mpb();
        let pow2 = |v: u32| v.is_power_of_two();
        if !pow2(m.line_bytes) || !(8..=256).contains(&m.line_bytes) {
            return Err(self.invalid(format!("ni.mpb.line_bytes = {}: must be a power of two from 8 to 256", m.line_bytes)));
        }
        if !pow2(m.flit_bytes) || m.flit_bytes > m.line_bytes {
            return Err(self.invalid(format!("ni.mpb.flit_bytes = {}: must be a power of two no larger than a line ({} bytes)", m.flit_bytes, m.line_bytes)));
        }
        let share = u64::from(m.mpb_kib) * 1024 / u64::from(self.mesh.concentration);
        if m.mpb_kib == 0 || m.mpb_kib > 1024 || share % u64::from(m.line_bytes) != 0 {
            return Err(self.invalid(format!(
                "ni.mpb.mpb_kib = {}: must be 1 to 1024, and each of the router's {} cores' share a whole number of lines",
                m.mpb_kib, self.mesh.concentration
            )));
        }
        for (field, v) in [("local_latency_cycles", m.local_latency_cycles), ("service_cycles", m.service_cycles)] {
            if v == 0 || v > 100_000 {
                return Err(self.invalid(format!("ni.mpb.{field} = {v}: must be between 1 and 100000")));
            }
        }
        if m.remote_overhead_cycles > 100_000 {
            return Err(self.invalid(format!("ni.mpb.remote_overhead_cycles = {}: must be at most 100000", m.remote_overhead_cycles)));
        }
        let lines = u64::from(m.line_cache_kib) * 1024 / u64::from(m.line_bytes);
        if m.line_cache_ways == 0 || lines == 0 || lines % u64::from(m.line_cache_ways) != 0 || !(lines / u64::from(m.line_cache_ways)).is_power_of_two() || m.line_cache_kib > 1024 {
            return Err(self.invalid(format!(
                "ni.mpb.line_cache_kib = {}, line_cache_ways = {}: the cache (at most 1024 KiB) must hold a power-of-two number of sets of that many lines",
                m.line_cache_kib, m.line_cache_ways
            )));
        }
        if let Some(mem) = &self.memory {
            if mem.shared_mib == 0 || mem.shared_mib > 4096 {
                return Err(self.invalid(format!("memory.shared_mib = {}: must be between 1 and 4096", mem.shared_mib)));
            }
            if mem.controllers.is_empty() {
                return Err(self.invalid("memory.controllers is empty: shared memory needs at least one controller".into()));
            }
            for (i, &[x, y]) in mem.controllers.iter().enumerate() {
                if x >= self.mesh.width || y >= self.mesh.height {
                    return Err(self.invalid(format!(
                        "memory.controllers[{i}] = [{x}, {y}]: no such router (the mesh is {}x{})",
                        self.mesh.width, self.mesh.height
                    )));
                }
            }
            if mem.interleave_kib == 0 || (mem.interleave_kib * 1024) % u64::from(m.line_bytes) != 0 {
                return Err(self.invalid(format!("memory.interleave_kib = {}: must be a positive number of whole lines", mem.interleave_kib)));
            }
            for (field, v) in [("latency_cycles", mem.latency_cycles), ("cycles_per_line", mem.cycles_per_line)] {
                if v == 0 || v > 100_000 {
                    return Err(self.invalid(format!("memory.{field} = {v}: must be between 1 and 100000")));
                }
            }
            if let Some(p) = &mem.private {
                for (level, kib, ways) in [("l1", p.l1_kib, p.l1_ways), ("l2", p.l2_kib, p.l2_ways)] {
                    let lines = u64::from(kib) * 1024 / u64::from(m.line_bytes);
                    if kib == 0 || kib > 65_536 || ways == 0 || lines < u64::from(ways) || lines % u64::from(ways) != 0 {
                        return Err(self.invalid(format!(
                            "memory.private.{level}_kib = {kib}, {level}_ways = {ways}: need 1 to 65536 KiB, a whole number of sets of {ways} lines of {} bytes",
                            m.line_bytes
                        )));
                    }
                }
                if p.l1_kib > p.l2_kib {
                    return Err(self.invalid(format!("memory.private.l1_kib = {} is larger than l2_kib = {}: the L2 holds every L1 line", p.l1_kib, p.l2_kib)));
                }
                if p.l2_latency_cycles < self.core.timing.memory_cycles || p.l2_latency_cycles > 10_000 {
                    return Err(self.invalid(format!(
                        "memory.private.l2_latency_cycles = {}: must be between an L1 hit's core.timing.memory_cycles ({}) and 10000",
                        p.l2_latency_cycles, self.core.timing.memory_cycles
                    )));
                }
            }
        }
        Ok(())
    }

    /// The MPB parameters (`[ni.mpb]`, or the defaults).
    pub fn mpb(&self) -> MpbConfig {
        self.ni.mpb.clone().unwrap_or_default()
    }

    /// The network of this chip (one physical network; there are `network.networks` of them).
    pub fn network_config(&self) -> Result<NetworkConfig, String> {
        let pipeline: RouterPipeline = self.network.router.parse().map_err(|e| format!("network.router: {e}"))?;
        let vc_allocator: VcAllocator = self.network.vc_allocator.parse().map_err(|e| format!("network.vc_allocator: {e}"))?;
        let sw_allocator: SwAllocator = self.network.sw_allocator.parse().map_err(|e| format!("network.sw_allocator: {e}"))?;
        let routing = Routing::from_name(&self.network.routing).ok_or_else(|| {
            let known: Vec<_> = noc::routing::ROUTING_FUNCTIONS.iter().map(|(n, _, _)| *n).collect();
            format!("network.routing = {:?}: unknown routing function (known: {})", self.network.routing, known.join(", "))
        })?;
        let topology: Topology = self.network.topology.parse().map_err(|e| format!("network.topology: {e}"))?;
        let cfg = NetworkConfig {
            topology,
            width: self.mesh.width,
            height: self.mesh.height,
            concentration: self.mesh.concentration,
            vcs: self.network.vcs,
            buffer_depth_flits: self.network.buffer_depth_flits,
            credit_delay_cycles: self.network.credit_delay_cycles,
            routing_delay_cycles: self.network.routing_delay_cycles,
            crossbar_delay_cycles: self.network.crossbar_delay_cycles,
            output_delay_cycles: self.network.output_delay_cycles,
            vc_alloc_delay_cycles: self.network.vc_alloc_delay_cycles,
            sw_alloc_delay_cycles: self.network.sw_alloc_delay_cycles,
            input_speedup: self.network.input_speedup,
            output_speedup: self.network.output_speedup,
            link_latency_cycles: self.network.link_latency_cycles,
            injection_channel_cycles: self.network.injection_channel_cycles,
            body_bids_on_arrival: self.network.body_bids_on_arrival,
            pipeline,
            routing,
            vc_allocator,
            sw_allocator,
            allocator_iterations: self.network.allocator_iterations,
            speculative_switch_allocation: self.network.speculative_switch_allocation,
            wait_for_tail_credit: self.network.wait_for_tail_credit,
            // PIMP's receive FIFO is the ejection queue.
            eject_queue_flits: match self.ni.kind {
                NiKind::Pimp => self.ni.recv_fifo_entries,
                NiKind::Udn => self.udn().input_queue_words,
                _ => self.network.eject_queue_flits,
            },
            watchdog_cycles: self.network.watchdog_cycles,
        };
        cfg.validate().map_err(|e| format!("{} = {}: {}", self.key_of(e.field), e.value, e.reason))?;
        Ok(cfg)
    }

    /// The chip-file key (section and name) that sets field `field` of the network configuration, so errors name
    /// what the user wrote: the mesh shape comes from `[mesh]`, PIMP's ejection queue from `ni.recv_fifo_entries`.
    fn key_of(&self, field: &str) -> String {
        match field {
            "width" | "height" | "concentration" => format!("mesh.{field}"),
            "eject_queue_flits" if self.ni.kind == NiKind::Pimp => "ni.recv_fifo_entries".into(),
            "eject_queue_flits" if self.ni.kind == NiKind::Udn => "ni.udn.input_queue_words".into(),
            f if f.starts_with("nodes") => "mesh: tiles (width x height x concentration)".into(),
            f => format!("network.{f}"),
        }
    }

    /// Tiles (cores) on the chip.
    pub fn tiles(&self) -> usize {
        (self.mesh.width * self.mesh.height * self.mesh.concentration) as usize
    }

    pub fn memory_bytes(&self) -> u64 {
        self.core.memory_kib * 1024
    }

    /// The cores' extensions (`core.isa`, checked by `validate`).
    pub fn isa(&self) -> Isa {
        Isa::parse(&self.core.isa).unwrap_or(Isa::RV64IM)
    }

    /// Whether misaligned loads and stores are performed (`core.misaligned_access = "split"`).
    pub fn misaligned_split(&self) -> bool {
        self.core.misaligned_access == "split"
    }

    pub fn frequency_hz(&self) -> u64 {
        self.core.frequency_mhz * 1_000_000
    }

    /// The network's clock (the cores' unless `network.frequency_mhz` says otherwise).
    pub fn network_frequency_mhz(&self) -> u64 {
        self.network.frequency_mhz.unwrap_or(self.core.frequency_mhz)
    }
}

fn one_line(e: &toml::de::Error) -> String {
    let msg = e.message().trim().lines().map(str::trim).collect::<Vec<_>>().join("; ");
    match e.span() {
        Some(span) => format!("{msg} (at byte {})", span.start),
        None => msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
        name = "t"
        mesh = { width = 2, height = 2 }
        core = { frequency_mhz = 500, memory_kib = 256 }
    "#;

    #[test]
    fn minimal_chip_gets_defaults() {
        let c = ChipConfig::parse(MINIMAL, "t.toml").unwrap();
        assert_eq!(c.tiles(), 4);
        assert_eq!(c.core.timing, Timing::default());
        assert_eq!(c.ni.kind, NiKind::None);
        assert_eq!(c.network_config().unwrap().pipeline, RouterPipeline::OneStage);
        assert_eq!((c.isa(), c.misaligned_split()), (Isa::RV64IM, false));
        let gc = ChipConfig::parse(&MINIMAL.replace("memory_kib = 256", "memory_kib = 256, isa = \"RV64GC\", misaligned_access = \"split\""), "t.toml").unwrap();
        assert_eq!((gc.isa(), gc.misaligned_split()), (Isa::RV64GC, true));
    }

    #[test]
    fn topologies_and_routing_functions_are_chip_keys() {
        let torus = format!("{MINIMAL}\n[network]\ntopology = \"torus\"\nvcs = 2\nrouting = \"yx\"");
        let cfg = ChipConfig::parse(&torus, "t.toml").unwrap().network_config().unwrap();
        assert_eq!((cfg.topology, cfg.routing, cfg.vcs), (Topology::Torus, Routing::Yx, 2));
        let adaptive = format!("{MINIMAL}\n[network]\nrouting = \"odd-even\"");
        assert_eq!(ChipConfig::parse(&adaptive, "t.toml").unwrap().network_config().unwrap().routing, Routing::OddEven);
        assert_eq!(ChipConfig::parse(MINIMAL, "t.toml").unwrap().network_config().unwrap().topology, Topology::Mesh);
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (MINIMAL.replace("memory_kib = 256", "memory_kib = 8"), "core.memory_kib = 8"),
            (MINIMAL.replace("width = 2", "width = 0"), "mesh.width = 0: must be between 1 and 1024"),
            (MINIMAL.replace("height = 2", "height = 2000"), "mesh.height = 2000"),
            (MINIMAL.replace("height = 2", "height = 2, concentration = 9"), "mesh.concentration = 9"),
            (format!("{MINIMAL}\n[network]\nbuffer_depth_flits = 0"), "network.buffer_depth_flits = 0"),
            (format!("{MINIMAL}\n[network]\neject_queue_flits = 0"), "network.eject_queue_flits = 0"),
            (format!("{MINIMAL}\n[ni]\nkind = \"pimp\"\nrecv_fifo_entries = 5000"), "ni.recv_fifo_entries = 5000"),
            (format!("{MINIMAL}\n[network]\nrouter = \"2stage\""), "unknown router pipeline '2stage'"),
            (format!("{MINIMAL}\n[network]\ntopology = \"cube\""), "network.topology: unknown topology 'cube'"),
            (format!("{MINIMAL}\n[network]\ntopology = \"torus\""), "network.routing = xy: xy on a torus needs at least 2 VCs"),
            (format!("{MINIMAL}\n[network]\ntopology = \"ring\"\nvcs = 2"), "mesh.height = 2: a ring has height 1"),
            (format!("{MINIMAL}\n[network]\nrouting = \"min-adaptive\""), "network.routing = min-adaptive"),
            (format!("{MINIMAL}\n[ni]\nkind = \"pimp\"\n[network]\nrouting = \"west-first\""), "network.routing = west-first: the pimp interface needs deterministic routing"),
            (MINIMAL.replace("frequency_mhz = 500", "frequency_mhz = 500, colour = 1"), "unknown field `colour`"),
            (MINIMAL.replace("name = \"t\"", ""), "missing field `name`"),
            (format!("{MINIMAL}\n[ni]\nkind = \"udp\""), "unknown variant `udp`"),
            (MINIMAL.replace("memory_kib = 256 }", "memory_kib = 256, timing = { mul_cycles = 0 } }"), "core.timing: mul_cycles = 0"),
            (format!("{MINIMAL}\n[core.timing]\nmul_cycles = 0"), "dotted key `core` attempted to extend non-table type (inline table)"),
            (MINIMAL.replace("memory_kib = 256", "memory_kib = 256, isa = \"rv64imv\""), "core.isa = \"rv64imv\": extension 'v' is not supported"),
            (MINIMAL.replace("memory_kib = 256", "memory_kib = 256, isa = \"rv32gc\""), "core.isa = \"rv32gc\": an ISA string starts with rv64"),
            (MINIMAL.replace("memory_kib = 256", "memory_kib = 256, isa = \"rv64imd\""), "D needs F"),
            (MINIMAL.replace("memory_kib = 256", "memory_kib = 256, misaligned_access = \"emulate\""), "core.misaligned_access = \"emulate\": must be"),
            (MINIMAL.replace("memory_kib = 256", "memory_kib = 256, timing = { fp_div64_cycles = 0 }"), "core.timing: fp_div64_cycles = 0"),
            (format!("{MINIMAL}\n[ni]\nkind = \"pimp\"\n[ni.mpb]\nmpb_kib = 8"), "[ni.mpb] is set but ni.kind = Pimp"),
            (format!("{MINIMAL}\n[ni]\nkind = \"pimp\"\n[network]\nfrequency_mhz = 800"), "network.frequency_mhz = 800 differs from core.frequency_mhz = 500: only the mpb"),
            (format!("{MINIMAL}\n[ni]\nkind = \"mpb\"\n[ni.mpb]\nline_bytes = 24"), "ni.mpb.line_bytes = 24: must be a power of two"),
            (format!("{MINIMAL}\n[ni]\nkind = \"mpb\"\n[ni.mpb]\nline_cache_ways = 3"), "line_cache_ways = 3: the cache"),
            (format!("{MINIMAL}\n[ni]\nkind = \"mpb\"\n[ni.mpb]\nlocal_latency_cycles = 0"), "ni.mpb.local_latency_cycles = 0"),
            (format!("{MINIMAL}\n[ni]\nkind = \"mpb\"\n[memory]\ncontrollers = [[0, 2]]"), "memory.controllers[0] = [0, 2]: no such router (the mesh is 2x2)"),
            (format!("{MINIMAL}\n[ni]\nkind = \"mpb\"\n[memory]\ncontrollers = []"), "memory.controllers is empty"),
            (format!("{MINIMAL}\n[memory]\ncontrollers = [[0, 0]]"), "[memory] is set but ni.kind = None"),
            (format!("{MINIMAL}\n[ni]\nkind = \"mpb\"\n[memory]\ncontrollers = [[0, 0]]\n[memory.private]\nl2_ways = 3"), "memory.private.l2_kib = 256, l2_ways = 3: need 1 to 65536 KiB"),
            (format!("{MINIMAL}\n[ni]\nkind = \"mpb\"\n[memory]\ncontrollers = [[0, 0]]\n[memory.private]\nl1_kib = 0"), "memory.private.l1_kib = 0"),
            (format!("{MINIMAL}\n[ni]\nkind = \"mpb\"\n[memory]\ncontrollers = [[0, 0]]\n[memory.private]\nl1_kib = 512"), "l1_kib = 512 is larger than l2_kib = 256"),
            (format!("{MINIMAL}\n[ni]\nkind = \"mpb\"\n[memory]\ncontrollers = [[0, 0]]\n[memory.private]\nl2_latency_cycles = 0"), "memory.private.l2_latency_cycles = 0: must be between"),
            (format!("{MINIMAL}\n[ni]\nkind = \"mpb\"\n[memory]\ncontrollers = [[0, 0]]\n[memory.private]\nl3_kib = 1"), "unknown field `l3_kib`"),
        ];
        for (text, want) in cases {
            let err = ChipConfig::parse(&text, "t.toml").unwrap_err().to_string();
            assert!(err.contains(want), "expected {want:?} in {err:?}");
            assert!(!err.contains('\n'), "one line: {err:?}");
        }
    }
}
