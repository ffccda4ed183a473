//! The `stats.json` of a run: per core cycles, instructions and stall cycles by cause, and the host's speed.
//! Everything but the `host` section is deterministic.

use crate::core::{Core, CoreStatus};
use crate::ni::NiStats;
use riscv::isa::Op;
use riscv::timing::LatencyClass;
use riscv::Timing;
use serde::Serialize;

/// Cycles beyond one per instruction, by cause.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stalls {
    /// An instruction waited for the load just before it.
    pub load_use: u64,
    /// Squashed fetches behind taken branches.
    pub branch: u64,
    /// Squashed fetches behind jumps.
    pub jump: u64,
    /// Multi-cycle multiplies.
    pub mul: u64,
    /// Multi-cycle divisions and remainders.
    pub div: u64,
    /// Memory accesses slower than one cycle.
    pub memory: u64,
    /// ALU operations slower than one cycle (a chip with `alu_cycles` > 1).
    pub alu: u64,
    /// Floating-point operations slower than one cycle.
    pub fp: u64,
    /// Atomic memory operations, LR and SC beyond one cycle.
    pub atomic: u64,
    /// Misaligned loads and stores performed as split accesses (`core.misaligned_access = "split"`).
    pub misaligned: u64,
    /// Asleep in sleep, usleep or nanosleep.
    pub sleep: u64,
    /// Waiting for the network interface to complete an access (MPB and shared-memory transfers).
    pub ni: u64,
    /// With cached memory: cycles beyond an L1 hit (L2 hits, misses, stores waiting for the write buffer, fences,
    /// atomics at their homes). Absent without cached memory.
    #[serde(skip_serializing_if = "is_zero")]
    pub cache: u64,
    /// With threads: cycles the core was idle (before its thread started, after it ended) or waited to join one.
    #[serde(skip_serializing_if = "is_zero")]
    pub idle: u64,
    /// With `--perturb`: the start skew and the noise events.
    #[serde(skip_serializing_if = "is_zero")]
    pub noise: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl Stalls {
    pub fn total(&self) -> u64 {
        self.load_use + self.branch + self.jump + self.mul + self.div + self.memory + self.alu + self.fp + self.atomic + self.misaligned + self.sleep + self.ni + self.cache + self.idle + self.noise
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CoreStats {
    pub core: usize,
    pub tile: usize,
    #[serde(flatten)]
    pub status: CoreStatus,
    /// Cycle at which the core stopped.
    pub cycles: u64,
    pub instructions: u64,
    pub stalls: Stalls,
    pub console_bytes: u64,
    /// The network interface's counters (absent on chips without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ni: Option<NiStats>,
    /// The core's caches and its tile's part as a home (runs with cached memory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<crate::shmem::TileCounters>,
    /// The core's private caches (`[memory.private]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_memory: Option<crate::private_cache::PrivateCounters>,
}

impl CoreStats {
    pub fn of(core: &Core, timing: &Timing) -> CoreStats {
        let count = |pred: &dyn Fn(LatencyClass) -> bool| -> u64 {
            Op::all().filter(|&op| pred(LatencyClass::of(op))).map(|op| core.op_counts[op as usize]).sum()
        };
        let extra = |cycles: u32| u64::from(cycles.saturating_sub(1));
        let alu_like = count(&|c| matches!(c, LatencyClass::Alu | LatencyClass::Branch | LatencyClass::Jump | LatencyClass::System));
        // Cycles beyond one of every op whose class satisfies `pred`.
        let beyond = |pred: &dyn Fn(LatencyClass) -> bool| -> u64 {
            Op::all()
                .filter(|&op| pred(LatencyClass::of(op)))
                .map(|op| core.op_counts[op as usize] * extra(timing.latency(LatencyClass::of(op))))
                .sum()
        };
        let p = &core.pipeline;
        let stalls = Stalls {
            load_use: p.load_use_stall_cycles,
            branch: p.taken_branches * u64::from(timing.taken_branch_penalty_cycles),
            jump: p.jumps * u64::from(timing.jump_penalty_cycles),
            mul: count(&|c| c == LatencyClass::Mul) * extra(timing.mul_cycles),
            div: count(&|c| c == LatencyClass::Div32) * extra(timing.div32_cycles)
                + count(&|c| c == LatencyClass::Div64) * extra(timing.div64_cycles),
            memory: count(&|c| matches!(c, LatencyClass::Load | LatencyClass::Store | LatencyClass::FpLoad | LatencyClass::FpStore))
                * extra(timing.memory_cycles),
            alu: alu_like * extra(timing.alu_cycles),
            fp: beyond(&|c| {
                use LatencyClass::*;
                matches!(c, FpAdd | FpMul | FpFma | FpDiv32 | FpDiv64 | FpSqrt32 | FpSqrt64 | FpConvert | FpMisc)
            }),
            atomic: beyond(&|c| matches!(c, LatencyClass::Amo | LatencyClass::LrSc)),
            misaligned: core.misaligned_accesses * u64::from(timing.misaligned_penalty_cycles),
            sleep: core.sleep_cycles,
            ni: 0,
            cache: 0,
            idle: core.idle_cycles,
            noise: core.noise_cycles,
        };
        CoreStats {
            core: core.rank,
            tile: core.tile,
            status: core.status.clone(),
            cycles: core.end_cycle.unwrap_or(core.hart.cycle),
            instructions: core.hart.instret,
            stalls,
            console_bytes: core.console.bytes_written,
            ni: None,
            memory: None,
            private_memory: core.private.as_ref().map(|p| p.counters.clone()),
        }
    }
}

/// Host-side measurements: the only part of the stats that varies between identical runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostStats {
    pub seconds: f64,
    /// Simulated instructions (all cores) per host second.
    pub instructions_per_second: f64,
    pub mips: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunStats {
    pub chip: String,
    pub program: String,
    pub frequency_hz: u64,
    pub clocking: &'static str,
    /// Cycle at which the last core stopped.
    pub total_cycles: u64,
    /// `total_cycles` at the chip's clock frequency.
    pub simulated_seconds: f64,
    pub instructions: u64,
    pub cores: Vec<CoreStats>,
    /// The on-chip network (absent on chips without a network interface).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkStats>,
    /// The memory controllers (chips with `[memory]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memory_controllers: Vec<crate::ni::mpb::ControllerStats>,
    /// The memory system of runs with cached memory: its controllers and its network.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryStats>,
    /// Why the run ended and the exit status of `nocmsg run` (set once the run is over).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<crate::chip::EndRecord>,
    pub host: HostStats,
}

/// What the memory system did (runs with cached memory).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemoryStats {
    pub controllers: Vec<crate::shmem::ControllerCounters>,
    /// The memory network (`caches.network`).
    pub network: NetworkStats,
    /// Latency of the memory system's messages (requests, lines, invalidations, acknowledgements), network cycles.
    pub messages: crate::background::LatencySummary,
    /// Flits each router sent on each of its mesh links, `[north, east, south, west]`, by router: the coherence and
    /// memory traffic per link.
    pub link_flits: Vec<[u64; 4]>,
}

/// What the on-chip network carried.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetworkStats {
    /// The network's clock (the cores' unless the chip gives it one of its own).
    pub frequency_hz: u64,
    /// Latency of the interface's own packets, network cycles (interfaces whose packets the network drains: mpb).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program_packets: Option<crate::background::LatencySummary>,
    /// Background traffic (`--background`), reported apart from the program's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<crate::background::BackgroundStats>,
    /// Flits that entered the network, and flits taken out by the receiving interfaces.
    pub flits_injected: u64,
    pub flits_received: u64,
    /// Flits carried by each router output, summed over routers: `[north, east, south, west, local...]`.
    pub flits_per_port: Vec<u64>,
    /// Flits over mesh links (router to router) and the busiest link's count.
    pub link_flits: u64,
    pub busiest_link_flits: u64,
}

impl RunStats {
    pub fn new(chip: &str, program: &str, frequency_hz: u64, debug: bool, cores: Vec<CoreStats>, host_seconds: f64) -> RunStats {
        let total_cycles = cores.iter().map(|c| c.cycles).max().unwrap_or(0);
        let instructions: u64 = cores.iter().map(|c| c.instructions).sum();
        let ips = if host_seconds > 0.0 { instructions as f64 / host_seconds } else { 0.0 };
        RunStats {
            chip: chip.to_string(),
            program: program.to_string(),
            frequency_hz,
            clocking: if debug { "debug" } else { "fast" },
            total_cycles,
            simulated_seconds: total_cycles as f64 / frequency_hz as f64,
            instructions,
            cores,
            network: None,
            memory_controllers: Vec::new(),
            memory: None,
            end: None,
            host: HostStats { seconds: host_seconds, instructions_per_second: ips, mips: ips / 1e6 },
        }
    }
}
