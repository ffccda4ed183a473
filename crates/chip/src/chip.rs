//! A chip running a program: every selected tile gets a copy of the ELF in its private memory and a boot block,
//! then the cores advance on one global clock.
//!
//! Fast clocking lets each core run ahead in quanta of global time (a core shares nothing with the others but what
//! goes through its network interface, whose instructions and memory-mapped accesses run in global time order, so
//! running ahead is exact); debug clocking advances every core one cycle at a time. A memory-mapped interface (mpb)
//! also acts on its own (serving requests, completing transfers): it runs in every network cycle that has something
//! for it, and cores waiting for a transfer are blocked until it is back. Cores and network may have different
//! clocks ([`crate::core::Clocks`]); background traffic ([`crate::background`]) may share the network. Console lines are
//! handed out at fixed boundaries of global time, sorted by (cycle, core), so both clockings print exactly the
//! same thing in the same order.

use crate::background::{Background, BackgroundSpec};
use crate::config::{ChipConfig, MEMORY_BASE};
use crate::memory::CachedMemory;
use crate::console::ConsoleLine;
use crate::core::{Clocks, Core, CoreEnv, CoreFault, CoreStatus, DecodedText, RunStop};
use crate::ni::{self, NetworkInterface, NiOutcome, Placement};
use noc::{Cycle, Network};
use riscv::Decoded;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use crate::diagnose::{BlockedRank, FinishedRank, ProgramDiagnostics};
use crate::elf::{Function, Program};
use crate::stats::{CoreStats, NetworkStats, RunStats};
use riscv::{Hart, Ram};
use std::sync::Arc;
use std::time::Instant;

/// Global cycles between console flushes (and progress reports).
pub const FLUSH_PERIOD_CYCLES: u64 = 1 << 20;
/// Version of the boot block layout written for the runtime.
const BOOT_VERSION: u64 = 1;
const BOOT_MAGIC: u64 = 0x6e6f_636d_7367_2121;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("program {path} does not fit chip {chip}: {message}")]
    DoesNotFit { path: String, chip: String, message: String },
    #[error("{0}")]
    Setting(String),
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Tiles that run the program (ranks in this order); the others stay idle.
    pub tiles: Vec<usize>,
    /// Program arguments after the program name.
    pub args: Vec<String>,
    /// Debug clocking: every core visited every cycle.
    pub debug_clocking: bool,
    /// Stop (with an error) when global time reaches this many cycles; 0 = no limit.
    pub max_cycles: u64,
    pub work_dir: std::path::PathBuf,
    /// Count the cycles spent in each function ([`Chip::profile`]).
    pub profile: bool,
    /// Synthetic traffic sharing the network with the program (`--background`).
    pub background: Vec<BackgroundSpec>,
    /// The environment every core's program sees (`--env`; semihosting `NOCMSG_SYS_ENVIRON`).
    pub env: Vec<(String, String)>,
    /// Keep the library's communication profile ([`Chip::comm_profile`]; `--comm-profile`).
    pub comm_profile: bool,
    /// The cores' memory ([`crate::memory`]).
    pub memory: MemoryOptions,
    /// Seeded start skew and noise on the cores (`--perturb`; [`crate::perturb`]).
    pub perturb: Option<crate::perturb::PerturbSpec>,
}

/// How the cores see memory.
#[derive(Clone, Debug, Default)]
pub struct MemoryOptions {
    /// Through the chip's caches and memory controllers (`[caches]`; `--memory cached`) instead of the private
    /// one-cycle memory.
    pub cached: bool,
    /// Cores per process (0 or 1: each core its own): a process's cores share its address space as threads
    /// (`--threads`); implies `cached`.
    pub cores_per_process: usize,
    /// Which sections are hashed for home (the others are homed at the tile touching them first).
    pub hash_mode: crate::shmem::homing::HashMode,
    /// Where the sections the mode does not hash are homed (`--homing`).
    pub homing: crate::shmem::homing::Base,
}

/// Something the run reports while it goes.
pub enum Event<'a> {
    Console(&'a ConsoleLine),
    /// Global cycle reached and instructions retired so far.
    Progress { cycle: u64, instructions: u64 },
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every core exited with status 0.
    Success,
    /// A core exited non-zero (the first, by cycle then core).
    Failed { core: usize, code: i64 },
    /// A core stopped on an error (the first, by cycle then core).
    Fault(Box<CoreFault>),
    /// A core ended the whole run (MPI_Abort, abort()) at `cycle` with `code`; `stopped` other cores were still
    /// running and were stopped there.
    Aborted { core: usize, code: i64, cycle: u64, stopped: usize },
    /// The cycle limit was reached with cores still running.
    CycleLimit { cycle: u64, running: Vec<usize> },
    /// Every running core waits on the network and nothing can end the wait.
    Deadlock(Box<Deadlock>),
}

/// Exit status of `nocmsg run` at the cycle limit (as `timeout(1)` and `nocmsg native --timeout`).
pub const STATUS_CYCLE_LIMIT: u8 = 124;
/// Exit status of `nocmsg run` and `nocmsg native` for a deadlock: outside the 0..=127 programs use and above the
/// 128 + signal of a crash, so a script can tell it from anything a program returns.
pub const STATUS_DEADLOCK: u8 = 200;

impl RunEnd {
    /// What `nocmsg run` exits with: the program's own status (the first failing core's, 1 if it is a multiple
    /// of 256), 128 + the signal a process would get natively for a fault, [`STATUS_CYCLE_LIMIT`] or
    /// [`STATUS_DEADLOCK`].
    pub fn exit_status(&self) -> u8 {
        match self {
            RunEnd::Success => 0,
            RunEnd::Failed { code, .. } => match code.rem_euclid(256) {
                0 => 1,
                s => s as u8,
            },
            RunEnd::Fault(fault) => 128 + fault.kind.signal().1,
            // As natively: the caller's code, 1 for 0 (an abort is a failure).
            RunEnd::Aborted { code, .. } => match code.rem_euclid(256) {
                0 => 1,
                s => s as u8,
            },
            RunEnd::CycleLimit { .. } => STATUS_CYCLE_LIMIT,
            RunEnd::Deadlock(_) => STATUS_DEADLOCK,
        }
    }

    /// The `end` record of `stats.json`: why the run ended and the status it exits with.
    pub fn record(&self) -> EndRecord {
        let mut r = EndRecord { reason: "exit", status: self.exit_status(), ..EndRecord::default() };
        match self {
            RunEnd::Success => {}
            RunEnd::Failed { core, code } => (r.core, r.code) = (Some(*core), Some(*code)),
            RunEnd::Fault(fault) => {
                r.reason = "fault";
                r.core = Some(fault.core);
                r.signal = Some(fault.kind.signal().0);
                r.fault = Some(fault.clone());
            }
            RunEnd::Aborted { core, code, cycle, .. } => {
                r.reason = "abort";
                (r.core, r.code, r.cycle) = (Some(*core), Some(*code), Some(*cycle));
            }
            RunEnd::CycleLimit { cycle, running } => {
                r.reason = "cycle_limit";
                r.cycle = Some(*cycle);
                r.running = Some(running.clone());
            }
            RunEnd::Deadlock(d) => {
                r.reason = "deadlock";
                r.cycle = Some(d.cycle);
                r.deadlock = Some(d.clone());
            }
        }
        r
    }
}

/// Why a run ended, as recorded in `stats.json` (`end`); `reason` is `exit` (every core exited: `status` is the
/// program's), `fault`, `abort` (a core ended the run: `status` is its code), `cycle_limit` or `deadlock`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EndRecord {
    pub reason: &'static str,
    /// The exit status of `nocmsg run`.
    pub status: u8,
    /// The core whose exit status or fault ended the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<Box<CoreFault>>,
    /// The cycle limit, or the cycle from which the chip was deadlocked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<u64>,
    /// Cores still running at the cycle limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<Vec<usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadlock: Option<Box<Deadlock>>,
}

/// Where the cycles of a run went, by function (all cores together).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Profile {
    pub cycles: u64,
    pub functions: Vec<ProfileEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileEntry {
    pub name: String,
    pub address: u64,
    pub cycles: u64,
    /// Fraction of all profiled cycles.
    pub share: f64,
}

/// Every core still running spins in a network-interface wait loop (`bnr`/`bns` to itself) and nothing in the
/// network can end the wait: it is empty, or nothing in it has moved for `network.watchdog_cycles`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Deadlock {
    /// The cycle from which the chip was deadlocked.
    pub cycle: u64,
    /// Each waiting rank: the call it is blocked in, its caller, the rank it waits for ([`crate::diagnose`]).
    pub waiting: Vec<BlockedRank>,
    /// The cycle the waits form (ranks, each waiting for the next); empty if the known waits form none.
    pub wait_cycle: Vec<usize>,
    /// The ranks no longer running.
    pub finished: Vec<FinishedRank>,
    /// The network's wait-for analysis, when flits are stuck in it.
    pub network: Option<Box<noc::DeadlockReport>>,
}

impl std::fmt::Display for Deadlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "deadlock at cycle {}: every running rank is blocked and ", self.cycle)?;
        match &self.network {
            None => writeln!(f, "the network is empty")?,
            Some(_) => writeln!(f, "nothing in the network has moved since")?,
        }
        crate::diagnose::write_waits(f, "  ", &self.waiting, &self.wait_cycle, &self.finished)?;
        if let Some(report) = &self.network {
            write!(f, "{report}")?;
        }
        Ok(())
    }
}

pub struct Chip {
    pub config: ChipConfig,
    pub cores: Vec<Core>,
    /// The on-chip network and the interfaces joining cores to it (absent on chips with `ni.kind = "none"`).
    network: Option<Network>,
    ni: Option<Box<dyn NetworkInterface>>,
    /// Per job: what its cores see of their environment (program, command line, memory layout).
    envs: Vec<CoreEnv>,
    options: RunOptions,
    /// Per job: its program, and its ranks' tiles.
    jobs: Vec<JobInfo>,
    functions: Vec<Function>,
    /// Per job: for naming what deadlocked cores are blocked in.
    diagnostics: Vec<Arc<ProgramDiagnostics>>,
    background: Option<Background>,
    /// The cache hierarchy and memory system, with cached memory.
    memory: Option<CachedMemory>,
    perturbation: Option<crate::perturb::Perturbation>,
}

/// One program of a run and the tiles it runs on: its ranks 0.. in the order of `tiles` ([`Chip::new_jobs`]).
pub struct Job<'a> {
    pub program: &'a Program,
    pub tiles: Vec<usize>,
    pub args: Vec<String>,
}

/// What the chip keeps of a job.
#[derive(Clone, Debug)]
pub struct JobInfo {
    pub program: String,
    pub tiles: Vec<usize>,
    /// The chip-wide index of its rank 0 (its cores are `first..first + tiles.len()` of [`Chip::cores`]).
    pub first: usize,
}

/// Joins the program name and arguments the way the runtime's parser splits them.
pub fn command_line(program: &str, args: &[String]) -> String {
    std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .map(|a| {
            if !a.is_empty() && !a.contains([' ', '"', '\\']) {
                a.to_string()
            } else {
                format!("\"{}\"", a.replace('\\', "\\\\").replace('"', "\\\""))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Chip {
    pub fn new(config: ChipConfig, program: &Program, options: RunOptions) -> Result<Chip, LoadError> {
        let job = Job { program, tiles: options.tiles.clone(), args: options.args.clone() };
        Chip::new_jobs(config, vec![job], options)
    }

    /// Several programs at once on disjoint tile sets (partitioned jobs), each with its own ranks 0.. (its
    /// `tiles` in order) and command line; they share the network. `options.tiles` and `options.args` are ignored.
    /// Their ranks address only their own job: the interface maps a job's rank to its tile.
    pub fn new_jobs(config: ChipConfig, jobs: Vec<Job>, mut options: RunOptions) -> Result<Chip, LoadError> {
        let tiles = config.tiles();
        if jobs.is_empty() || jobs.iter().any(|j| j.tiles.is_empty()) {
            return Err(LoadError::Setting("no cores selected to run the program".into()));
        }
        if jobs.len() > 1 && !matches!(config.ni.kind, crate::config::NiKind::Pimp | crate::config::NiKind::Udn) {
            return Err(LoadError::Setting(format!(
                "partitioned jobs need a chip with ni.kind = \"pimp\" or \"udn\" (whose interfaces address ranks); {} has ni.kind = {:?}",
                config.name, config.ni.kind
            )));
        }
        options.tiles = jobs.iter().flat_map(|j| j.tiles.iter().copied()).collect();
        let mut seen = vec![false; tiles];
        for &t in &options.tiles {
            if t >= tiles {
                return Err(LoadError::Setting(format!("tile {t} does not exist: chip {} has tiles 0..{}", config.name, tiles - 1)));
            }
            if std::mem::replace(&mut seen[t], true) {
                return Err(LoadError::Setting(if jobs.len() > 1 {
                    format!("tile {t} is given to two jobs (partitions must be disjoint)")
                } else {
                    format!("tile {t} is selected twice")
                }));
            }
        }
        let mut cores = Vec::with_capacity(options.tiles.len());
        let mut envs = Vec::with_capacity(jobs.len());
        let mut infos = Vec::with_capacity(jobs.len());
        let mut diagnostics = Vec::with_capacity(jobs.len());
        for (job_index, job) in jobs.iter().enumerate() {
            let (env, job_cores) = Chip::load_job(&config, job, job_index, cores.len(), &options)?;
            infos.push(JobInfo { program: job.program.path.clone(), tiles: job.tiles.clone(), first: cores.len() });
            cores.extend(job_cores);
            envs.push(env);
            diagnostics.push(Arc::new(ProgramDiagnostics::new(job.program)));
        }
        let first = jobs[0].program;
        let image = FirstImage { functions: first.functions.clone(), sections: program_sections(first, &envs[0]), tls: first.tls.clone() };
        Chip::assemble(config, cores, envs, infos, image, diagnostics, options)
    }

    /// The cores of one job (chip-wide indices from `first`) and their environment.
    fn load_job(config: &ChipConfig, job: &Job, job_index: usize, first: usize, options: &RunOptions) -> Result<(CoreEnv, Vec<Core>), LoadError> {
        let program = job.program;
        let mem_bytes = config.memory_bytes();
        let mem_end = MEMORY_BASE + mem_bytes;
        let heap_end = mem_end - config.core.stack_kib * 1024;
        let does_not_fit = |message: String| LoadError::DoesNotFit { path: program.path.clone(), chip: config.name.clone(), message };
        let isa = config.isa();
        let (needs, source) = &program.isa;
        if !isa.includes(*needs) {
            let letters: Vec<String> = isa.missing(*needs).chars().map(|c| c.to_ascii_uppercase().to_string()).collect();
            return Err(does_not_fit(format!(
                "it was built for {needs} ({source}) and needs extension{} {}, which the cores (core.isa = {:?}) do not have; \
                 build it for this chip (bin/nocmsg-cc --chip {}) or run it on a chip that has them",
                if letters.len() > 1 { "s" } else { "" },
                letters.join(", "),
                config.core.isa,
                config.name
            )));
        }
        for s in &program.segments {
            if s.address < MEMORY_BASE {
                return Err(does_not_fit(format!(
                    "segment {:#x}..{:#x} lies below the private memory at {MEMORY_BASE:#x} (bin/nocmsg-cc's linker script puts programs there)",
                    s.address,
                    s.address + s.mem_size
                )));
            }
        }
        let image_end = program.segments.iter().map(|s| s.address + s.mem_size).max().unwrap_or(MEMORY_BASE);
        if image_end > heap_end {
            // Say how much is needed and which setting gives it, not only which segment is out of bounds.
            let image_kib = (image_end - MEMORY_BASE).div_ceil(1024);
            let (memory_kib, stack_kib) = (config.core.memory_kib, config.core.stack_kib);
            return Err(does_not_fit(format!(
                "its image needs {image_kib} KiB ({MEMORY_BASE:#x}..{image_end:#x}) below the {stack_kib} KiB stack, but core.memory_kib = \
                 {memory_kib} leaves {} KiB there; raise core.memory_kib to at least {} (or lower core.stack_kib)",
                memory_kib - stack_kib,
                image_kib + stack_kib
            )));
        }
        if program.boot_block.is_some_and(|b| b < MEMORY_BASE || b + 88 > heap_end) {
            return Err(does_not_fit("the boot block (nocmsg_boot) is outside memory".into()));
        }
        // The span of the executable segments, decoded once for all cores from the loaded image (which also holds
        // whatever lies between two executable segments).
        let mut image = Ram::new(MEMORY_BASE, mem_bytes as usize);
        let mut text_range: Option<(u64, u64)> = None;
        for s in &program.segments {
            image.write_bytes(s.address, &s.data).expect("checked to fit");
            if s.executable {
                let (lo, hi) = (s.address, s.address + s.data.len() as u64);
                text_range = Some(text_range.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
            }
        }
        let (text_lo, text_hi) = text_range.unwrap_or((MEMORY_BASE, MEMORY_BASE));
        let text_lo = text_lo & !3;
        let text = Arc::new(DecodedText::new(text_lo, image.slice(text_lo, ((text_hi - text_lo) & !1) as usize).expect("inside"), isa));
        let image_end = program.image_end.max(MEMORY_BASE);
        let heap_start = (image_end + 15) & !15;
        let name = std::path::Path::new(&program.path).file_name().map_or(program.path.clone(), |n| n.to_string_lossy().into_owned());
        let env = CoreEnv {
            costs: config.core.timing.cost_table(),
            frequency_hz: config.frequency_hz(),
            command_line: command_line(&name, &job.args),
            environment: options.env.iter().map(|(k, v)| format!("{k}={v}\0")).collect(),
            comm_profile: options.comm_profile,
            heap_start,
            heap_end,
            stack_floor: if program.boot_block.is_some() { heap_end } else { 0 },
            stack_top: mem_end,
            work_dir: options.work_dir.clone(),
            ni: config.ni.kind,
            misaligned_split: config.misaligned_split(),
            ni_mapped: Vec::new(),
            ni_csrs: Vec::new(),
            clocks: Clocks::new(config.core.frequency_mhz, config.network_frequency_mhz()),
        };
        let mesh = &config.mesh;
        let mut cores = Vec::with_capacity(job.tiles.len());
        for (rank, &tile) in job.tiles.iter().enumerate() {
            // Copy only the segments' file bytes: the rest of the fresh memory (bss included) is already zero,
            // and pages nobody touches cost nothing, which is what lets 1024 cores fit.
            let mut ram = Ram::new(MEMORY_BASE, mem_bytes as usize);
            for s in &program.segments {
                ram.write_bytes(s.address, &s.data).expect("checked to fit");
            }
            if let Some(b) = program.boot_block {
                // With threads, a process of several cores is one rank (its image is its first core's).
                let k = options.memory.cores_per_process.max(1);
                let fields = [
                    BOOT_MAGIC,
                    BOOT_VERSION,
                    (rank / k) as u64,
                    (job.tiles.len() / k) as u64,
                    u64::from(mesh.width),
                    u64::from(mesh.height),
                    u64::from(mesh.concentration),
                    config.frequency_hz(),
                    mem_end,
                    heap_end,
                    tile as u64,
                ];
                for (i, v) in fields.iter().enumerate() {
                    ram.write_bytes(b + 8 * i as u64, &v.to_le_bytes()).expect("checked to fit");
                }
            }
            let mut hart = Hart::with_isa(tile as u64, program.entry, isa);
            hart.x[2] = mem_end; // sp, for programs without the nocmsg runtime
            let mut core = Core::new(first + rank, tile, hart, ram, Arc::clone(&text));
            core.job = job_index;
            if let Some(private) = config.memory.as_ref().and_then(|m| m.private.as_ref()) {
                let (line, l1) = (u64::from(config.mpb().line_bytes), config.core.timing.memory_cycles);
                core.private = Some(Box::new(crate::private_cache::PrivateCaches::new(private, line, l1, MEMORY_BASE, mem_end)));
            }
            cores.push(core);
        }
        Ok((env, cores))
    }

    /// The chip around its loaded cores: the interface, the network, background traffic.
    fn assemble(
        config: ChipConfig,
        mut cores: Vec<Core>,
        mut envs: Vec<CoreEnv>,
        jobs: Vec<JobInfo>,
        image: FirstImage,
        diagnostics: Vec<Arc<ProgramDiagnostics>>,
        options: RunOptions,
    ) -> Result<Chip, LoadError> {
        let tiles = config.tiles();
        let sizes: Vec<usize> = jobs.iter().map(|j| j.tiles.len()).collect();
        let mut ni = ni::build(&config, Placement::with_jobs(&options.tiles, tiles, &sizes));
        if let Some(ni) = ni.as_mut() {
            // Perturbed cores must poll as they would run: the noise between two polls decides when they notice.
            ni.set_debug_clocking(options.debug_clocking || options.perturb.is_some());
        }
        for env in &mut envs {
            env.ni_mapped = ni.as_ref().map(|ni| ni.mapped()).unwrap_or_default();
            env.ni_csrs = ni.as_ref().map(|ni| ni.csrs()).unwrap_or_default();
        }
        let network = match &mut ni {
            None => None,
            Some(ni) => {
                let mut net_cfg = config.network_config().map_err(LoadError::Setting)?;
                // The chip tells a deadlock from a core that is merely busy (its FIFO full while it computes),
                // so the network's own watchdog, which cannot, stays off.
                net_cfg.watchdog_cycles = 0;
                let mut net = Network::new(net_cfg).map_err(|e| LoadError::Setting(e.to_string()))?;
                net.set_default_drain(ni.drain_policy());
                net.set_visit_all(options.debug_clocking);
                ni.attach(&mut net);
                Some(net)
            }
        };
        if options.profile {
            cores.iter_mut().for_each(Core::enable_profile);
        }
        let background = match (&options.background[..], &network, &ni) {
            ([], _, _) => None,
            (specs, Some(net), Some(ni)) if ni.drain_policy() == noc::DrainPolicy::Auto => {
                Some(Background::new(specs, net.mesh()).map_err(LoadError::Setting)?)
            }
            _ => {
                return Err(LoadError::Setting(format!(
                    "--background needs a chip whose network drains its own packets (ni.kind = \"mpb\"); {} has ni.kind = {:?} (PIMP's receive FIFOs are the ejection queues)",
                    config.name, config.ni.kind
                )))
            }
        };
        let memory = if options.memory.cached || options.memory.cores_per_process > 1 {
            if network.is_none() {
                return Err(LoadError::Setting(format!("cached memory needs a chip with a network interface; {} has ni.kind = \"none\"", config.name)));
            }
            if config.misaligned_split() {
                return Err(LoadError::Setting(format!("cached memory does not split misaligned accesses yet; {} has core.misaligned_access = \"split\"", config.name)));
            }
            if jobs.len() > 1 {
                return Err(LoadError::Setting("cached memory runs one job".into()));
            }
            // The memory system's caches replace the private ones.
            for core in &mut cores {
                core.private = None;
            }
            let placement = Placement::with_jobs(&options.tiles, tiles, &sizes);
            let env = &envs[0];
            let layout = crate::memory::Layout {
                cores_per_process: options.memory.cores_per_process.max(1),
                heap_end: env.heap_end,
                stack_top: env.stack_top,
                sections: image.sections,
                tls: image.tls,
                hash_mode: options.memory.hash_mode,
                homing: options.memory.homing,
            };
            Some(CachedMemory::new(&config, &mut cores, &placement.rank_node, &layout).map_err(LoadError::Setting)?)
        } else {
            None
        };
        let perturbation = options.perturb.map(|spec| {
            let (p, skews) = crate::perturb::Perturbation::new(spec, cores.len());
            for (core, skew) in cores.iter_mut().zip(skews) {
                core.lose_to_noise(skew);
            }
            p
        });
        let functions = image.functions;
        Ok(Chip { config, cores, network, ni, envs, options, jobs, functions, diagnostics, background, memory, perturbation })
    }

    /// The jobs of the run (one for [`Chip::new`]).
    pub fn jobs(&self) -> &[JobInfo] {
        &self.jobs
    }

    /// Runs until every core has stopped (or the cycle limit, or a deadlock). `events` receives console lines in
    /// simulated-time order and progress reports.
    ///
    /// Cores run ahead of the global clock until their next NI instruction; the network is stepped to the earliest
    /// such instruction (or to the next horizon, or until a sleeping core wakes), and then the instructions due in
    /// that cycle run. Debug clocking uses a horizon of one cycle, visits every router, and lets waiting cores
    /// spin instead of sleeping.
    ///
    /// A core that aborts (semihosting `NOCMSG_SYS_ABORT`) ends the run at the cycle its call retires: from then
    /// on the horizon is that cycle, so the other cores run, and their NI instructions execute, only up to it
    /// (an earlier abort found meanwhile takes over). See [`Chip::stop_after_abort`] for what that leaves.
    pub fn run(&mut self, events: &mut dyn FnMut(Event)) -> (RunEnd, RunStats) {
        let started = Instant::now();
        let debug = self.options.debug_clocking;
        let quantum = if debug { 1 } else { FLUSH_PERIOD_CYCLES };
        let limit = if self.options.max_cycles > 0 { self.options.max_cycles } else { u64::MAX };
        let mut lines: Vec<ConsoleLine> = Vec::new();
        let mut sched = Scheduler::new(self.cores.len());
        if let Some(m) = self.memory.as_ref() {
            // Threads not started yet wait in the memory system.
            for rank in m.idle_cores() {
                sched.ready.retain(|&r| r != rank);
                sched.block(rank);
            }
        }
        let ticking = self.ni.as_ref().is_some_and(|ni| ni.drain_policy() == noc::DrainPolicy::Auto);
        // Only the UDN interface interrupts its cores (the others never arm them): the loops over armed sleepers
        // below are skipped elsewhere, to keep the other chips' speed.
        let interrupting = self.ni.as_ref().is_some_and(|ni| ni.kind() == "udn");
        let clocks = self.envs[0].clocks;
        let mut finished = Vec::new();
        let mut delivered = Vec::new();
        let mut horizon = quantum.min(limit);
        let mut limited = false;
        let mut deadlock = None;
        // The first abort so far: (cycle, rank).
        let mut abort: Option<(u64, usize)> = None;
        loop {
            // Every core runs ahead on its own until the horizon or its next NI instruction.
            let now = self.network.as_ref().map_or(0, |n| clocks.to_core(n.now().0));
            for rank in std::mem::take(&mut sched.ready) {
                let core = &mut self.cores[rank];
                let local = if ticking { self.ni.as_mut().and_then(|ni| ni.local(rank)) } else { None };
                let (mut until, memory) = match self.memory.as_mut() {
                    Some(m) => (m.limit(rank, now, horizon), Some(&mut m.ms)),
                    None => (horizon, None),
                };
                if let Some(p) = self.perturbation.as_mut() {
                    // Noise falls at the first instruction boundary at or after its cycle that the chip sees: where
                    // the core stopped (below), or where it comes back from a wait (here).
                    core.lose_to_noise(p.due(rank, core.hart.cycle));
                    until = until.min(p.next(rank));
                }
                let stop = core.run(until, &self.envs[core.job], local, memory);
                if let Some(p) = self.perturbation.as_mut().filter(|_| core.running()) {
                    core.lose_to_noise(p.due(rank, core.hart.cycle));
                }
                match stop {
                    RunStop::Horizon => sched.ready.push(rank),
                    RunStop::Memory(d) => {
                        self.memory.as_mut().expect("cached memory").handed[rank] = true;
                        sched.at_ni(rank, core.hart.cycle, d);
                    }
                    RunStop::Stopped => {
                        core_stopped(core, &mut abort, &mut horizon);
                        if let Some(m) = self.memory.as_mut() {
                            // A thread that stopped: its process may end, a joiner go on.
                            m.core_stopped(&mut self.cores, rank, &self.envs[0]);
                            let woken = m.resume(&mut self.cores, &self.envs[0]);
                            sched.resume(&mut self.cores, woken.into_iter());
                        }
                    }
                    RunStop::Ni(d) => sched.at_ni(rank, core.hart.cycle, d),
                    RunStop::InterruptCheck => sched.at_ni(rank, core.hart.cycle, INTERRUPT_CHECK),
                }
            }
            if sched.is_idle() {
                // Every core has stopped: the network has nothing more to do for them (see the end of the run).
                break;
            }
            // The next instant anything outside a core happens: an NI instruction, a waking core, the horizon.
            let mut t = sched.next_ni_cycle().min(horizon);
            // Cores that stopped before the horizon (their memory system's limit, a perturbation) go on from their
            // cycle, the network no further.
            if self.memory.is_some() || self.perturbation.is_some() {
                for &rank in &sched.ready {
                    t = t.min(self.cores[rank].hart.cycle);
                }
            }
            // A sleeping core whose interface may interrupt it wakes at its interrupt window, where the interrupt is
            // checked before its stalled access is tried again (as with debug clocking, which retries every cycle).
            // (A core in `wfi` waits for the line itself; a window already reached wakes the core at the next step.)
            if let (true, Some(net)) = (interrupting, self.network.as_ref()) {
                for &rank in &sched.asleep {
                    let core = &self.cores[rank];
                    let in_wfi = sched.sleep[rank].as_ref().is_some_and(|s| s.op.op == riscv::Op::Wfi);
                    if core.irq_armed && !in_wfi && clocks.to_net(core.irq_until) > net.now().0 {
                        t = t.min(core.irq_until);
                    }
                }
            }
            let mut skipped = false;
            if let (Some(net), Some(ni)) = (self.network.as_mut(), self.ni.as_mut()) {
                loop {
                    // A memory-mapped interface acts on its own (serves requests, completes transfers): it runs in
                    // every cycle the network reaches, and the network stops at its next event.
                    if ticking {
                        delivered.clear();
                        delivered.extend(net.take_delivered());
                        if let Some(bg) = self.background.as_mut() {
                            delivered.retain(|d| !bg.record(d));
                            if bg.next_at() == net.now().0 {
                                bg.inject(net);
                            }
                        }
                        ni.tick(&mut self.cores, net, &self.envs[0], &delivered, &mut finished);
                        t = t.min(sched.resume(&mut self.cores, finished.drain(..)));
                    }
                    if let Some(mem) = self.memory.as_mut() {
                        mem.advance_to(net.now().0, &mut self.cores);
                        let done = mem.resume(&mut self.cores, &self.envs[0]);
                        t = t.min(sched.resume(&mut self.cores, done.into_iter()));
                    }
                    // Core cycle `t` is at the first network cycle at or after it (the clocks may differ).
                    let target = clocks.to_net(t);
                    if net.now().0 >= target {
                        // Time skipped without a step wakes nobody by what the network did, only armed sleepers
                        // whose interrupt window came.
                        if skipped && interrupting && !debug && !sched.asleep.is_empty() {
                            // Armed cores go back to the ready list (the next round runs them from their cycle).
                            sched.wake(&mut self.cores, ni.as_mut(), net);
                        }
                        break;
                    }
                    // Skipping idle cycles stops at the interface's next event and the next background packet.
                    let mut stop = if ticking {
                        target.min(ni.next_event()).min(self.background.as_ref().map_or(u64::MAX, Background::next_at))
                    } else {
                        target
                    };
                    if let Some(mem) = self.memory.as_ref() {
                        stop = stop.min(mem.next_event());
                    }
                    if !debug && net.skip_idle_to(Cycle(stop)) {
                        skipped = true;
                        continue;
                    }
                    net.step().expect("the chip watches for deadlocks itself");
                    if !debug && !sched.asleep.is_empty() {
                        t = t.min(sched.wake(&mut self.cores, ni.as_mut(), net));
                        if abort.is_none()
                            && sched.everyone_asleep()
                            && net.now().0 - net.last_progress().0 > self.config.network.watchdog_cycles
                        {
                            t = clocks.to_core(net.now().0);
                        }
                    }
                }
                // Instructions due at the abort's cycle or later never run.
                while abort.map_or(true, |(at, _)| t < at) {
                    let Some((rank, d)) = sched.pop_at(t) else { break };
                    let core = &mut self.cores[rank];
                    if d == INTERRUPT_CHECK {
                        ni.interrupt_check(core, net, &self.envs[core.job]);
                        sched.ready.push(rank);
                        continue;
                    }
                    if let Some(mem) = self.memory.as_mut().filter(|m| m.handed[rank]) {
                        mem.handed[rank] = false;
                        let env = &self.envs[self.cores[rank].job];
                        match mem.execute(&mut self.cores, rank, d, env) {
                            NiOutcome::Continue => sched.ready.push(rank),
                            NiOutcome::Blocked => sched.block(rank),
                            // A semihosting abort ends the run here, as from the fast loop.
                            _ => core_stopped(&mut self.cores[rank], &mut abort, &mut horizon),
                        }
                        let done = mem.resume(&mut self.cores, &self.envs[0]);
                        sched.resume(&mut self.cores, done.into_iter());
                        continue;
                    }
                    match ni.execute(core, d, net, &self.envs[core.job]) {
                        NiOutcome::Continue => sched.ready.push(rank),
                        NiOutcome::Blocked => sched.block(rank),
                        NiOutcome::Waiting { period } if !debug && self.perturbation.is_none() => sched.sleep(rank, d, core.hart.cycle, period),
                        NiOutcome::Waiting { .. } => {
                            sched.wait_op[rank] = Some(d);
                            sched.ready.push(rank);
                        }
                        NiOutcome::Stopped => core.console.flush_partial(rank, core.end_cycle.unwrap_or(core.hart.cycle)),
                    }
                }
                // Cores waiting when another has aborted are not deadlocked: the abort ends their wait.
                if abort.is_none() && (debug || sched.everyone_asleep()) && !sched.is_idle() {
                    let diagnostics = &self.diagnostics[..];
                    // Every instruction starting before this cycle has run (cores run below the horizon, and the
                    // NI instructions due at `t` have just run); with fast clocking every running core sleeps.
                    let ran_before = if !debug { u64::MAX } else if t < horizon { t + 1 } else { t };
                    let watchdog = self.config.network.watchdog_cycles;
                    deadlock = find_deadlock(&mut self.cores, &mut sched, ni.as_mut(), net, watchdog, diagnostics, ran_before);
                    if deadlock.is_some() {
                        break;
                    }
                }
                // Every running core sleeps polling a line that nothing will write (memory-mapped interfaces; debug
                // clocking, which never lets them sleep, runs until --max-cycles).
                if ticking
                    && !debug
                    && abort.is_none()
                    && sched.ready.is_empty()
                    && sched.due.is_empty()
                    && sched.asleep.is_empty()
                    && sched.blocked > 0
                    && net.is_idle()
                    && ni.next_event() == u64::MAX
                    && self.background.is_none()
                    && self.cores.iter().filter(|c| c.running()).all(|c| ni.polling(c.rank).is_some())
                {
                    deadlock = Some(polling_deadlock(&mut self.cores, ni.as_mut(), &self.diagnostics[..], clocks));
                    break;
                }
            }
            if sched.is_idle() {
                break;
            }
            if t == horizon {
                if abort.is_some() {
                    break;
                }
                if horizon % FLUSH_PERIOD_CYCLES == 0 {
                    self.flush_console(&mut lines, events);
                    let instructions = self.cores.iter().map(|c| c.hart.instret).sum();
                    events(Event::Progress { cycle: horizon, instructions });
                }
                if horizon >= limit {
                    limited = true;
                    break;
                }
                horizon = (horizon + quantum).min(limit);
                // After a long sleep every core may be quanta ahead with nothing due and nothing in the network:
                // skip the quanta in which nothing can happen (flush boundaries stay multiples of the period).
                let quiet = sched.due.is_empty()
                    && sched.asleep.is_empty()
                    && sched.blocked == 0
                    && self.network.as_ref().map_or(true, Network::is_idle)
                    && self.ni.as_ref().map_or(true, |ni| ni.next_event() == u64::MAX)
                    && self.background.is_none();
                if !debug && quiet {
                    let earliest = sched.ready.iter().map(|&r| self.cores[r].hart.cycle).min().unwrap_or(0);
                    if earliest >= horizon {
                        horizon = (earliest - earliest % quantum + quantum).min(limit);
                    }
                }
            }
        }
        if let Some((cycle, rank)) = abort {
            self.stop_after_abort(cycle, rank);
            horizon = cycle;
        }
        // Sleeping cores owe the iterations they skipped up to where the run stopped.
        if let (Some(net), Some(ni)) = (self.network.as_mut(), self.ni.as_mut()) {
            let end = if limited || abort.is_some() { horizon } else { net.now().0 };
            sched.settle_sleepers(&mut self.cores, ni.as_mut(), end);
            ni.settle(&mut self.cores, clocks.to_net(end));
            // What is left in the FIFOs is counted at the cycle the last core stopped (the run's total cycles), the
            // same with either clocking: the network catches up to it, and anything it did later is ignored.
            let last = clocks.to_net(self.cores.iter().map(|c| c.end_cycle.unwrap_or(c.hart.cycle)).max().unwrap_or(0));
            // Background traffic goes on until then too (the debug clocking, which steps the network cycle by
            // cycle, has run it that far), and so does a memory-mapped interface, for transfers no core waits for
            // (write-backs of private lines) that are still under way.
            loop {
                delivered.clear();
                delivered.extend(net.take_delivered());
                if let Some(bg) = self.background.as_mut() {
                    delivered.retain(|d| !bg.record(d));
                    if bg.next_at() == net.now().0 && net.now().0 < last {
                        bg.inject(net);
                    }
                }
                if ticking && net.now().0 <= last {
                    ni.tick(&mut self.cores, net, &self.envs[0], &delivered, &mut finished);
                    finished.clear();
                }
                if net.now().0 >= last {
                    break;
                }
                let mut stop = last.min(self.background.as_ref().map_or(u64::MAX, Background::next_at));
                if ticking {
                    stop = stop.min(ni.next_event().max(net.now().0 + 1));
                }
                if !net.skip_idle_to(Cycle(stop)) {
                    net.step().expect("the chip watches for deadlocks itself");
                }
            }
            ni.finish(net, last);
        }
        for core in &mut self.cores {
            let c = core.end_cycle.unwrap_or(core.hart.cycle);
            core.console.flush_partial(core.rank, c);
        }
        self.flush_console(&mut lines, events);
        let host_seconds = started.elapsed().as_secs_f64();
        let end = self.outcome(limited, horizon, deadlock);
        let mut stats = self.stats(host_seconds);
        stats.end = Some(end.record());
        (end, stats)
    }

    /// The communication profile the program's library reported (run with [`RunOptions::comm_profile`]).
    pub fn comm_profile(&self) -> Result<crate::profile::CommProfile, String> {
        let records: Vec<Vec<crate::profile::Record>> = self.cores.iter().map(|c| c.comm_records.clone()).collect();
        if records.iter().all(Vec::is_empty) {
            return Err(format!(
                "the program reported no communication: profiles come from libnocmsg built for a UDN chip (ni.kind = \"udn\"), and {} has ni.kind = {:?}",
                self.config.name, self.config.ni.kind
            ));
        }
        if self.jobs.len() > 1 {
            return Err("a communication profile covers one program: run the jobs one at a time".into());
        }
        crate::profile::CommProfile::build(&self.config, &self.jobs[0].program, &self.options.tiles, &records, &self.diagnostics[0].symbols)
    }

    fn flush_console(&mut self, lines: &mut Vec<ConsoleLine>, events: &mut dyn FnMut(Event)) {
        for core in &mut self.cores {
            lines.append(&mut core.console.finished);
        }
        lines.sort_by_key(|l| (l.cycle, l.core));
        for l in lines.iter() {
            events(Event::Console(l));
        }
        lines.clear();
    }

    /// After core `rank` aborted the run at `cycle`: every core that was still running then is stopped there.
    /// Whatever a core did after `cycle` (cores run ahead of the global clock) did not happen as far as the run's
    /// outcome and output go: an exit, fault or abort after it becomes `Stopped`, console lines completed after it
    /// are dropped, and so are unfinished lines of the stopped cores (as a killed process loses its buffers). The
    /// stopped cores' `cycles` are `cycle`; their instruction and stall counts are what they had run when the
    /// simulator stopped them, which with fast clocking may go past `cycle` (by at most one quantum).
    fn stop_after_abort(&mut self, cycle: u64, rank: usize) {
        for core in self.cores.iter_mut().filter(|c| c.rank != rank) {
            if core.end_cycle.map_or(true, |end| end > cycle) {
                core.status = CoreStatus::Stopped { by: rank };
                core.end_cycle = Some(cycle);
                core.console.discard_after(cycle);
            }
        }
    }

    /// The first core (by stop cycle, then rank) that failed, if any.
    fn first_failure(&self) -> Option<RunEnd> {
        let first = self
            .cores
            .iter()
            .filter(|c| !matches!(c.status, CoreStatus::Exited { code: 0 } | CoreStatus::Running | CoreStatus::Stopped { .. }))
            .min_by_key(|c| (c.end_cycle.unwrap_or(u64::MAX), c.rank))?;
        match &first.status {
            CoreStatus::Exited { code } => Some(RunEnd::Failed { core: first.rank, code: *code }),
            CoreStatus::Faulted { fault } => Some(RunEnd::Fault(fault.clone())),
            CoreStatus::Aborted { code } => {
                let stopped = self.cores.iter().filter(|c| matches!(c.status, CoreStatus::Stopped { .. })).count();
                Some(RunEnd::Aborted { core: first.rank, code: *code, cycle: first.end_cycle.unwrap_or(0), stopped })
            }
            CoreStatus::Running | CoreStatus::Stopped { .. } => None,
        }
    }

    /// A failing core explains more than the cores left waiting for it, so it is reported first.
    fn outcome(&self, limited: bool, now: u64, deadlock: Option<Deadlock>) -> RunEnd {
        if let Some(failure) = self.first_failure() {
            return failure;
        }
        if let Some(d) = deadlock {
            return RunEnd::Deadlock(Box::new(d));
        }
        if limited {
            let running = self.cores.iter().filter(|c| c.running()).map(|c| c.rank).collect();
            return RunEnd::CycleLimit { cycle: now, running };
        }
        RunEnd::Success
    }

    /// Cycles per function over all cores, most expensive first (with profiling on; otherwise empty). Cycles
    /// outside any function symbol are reported as `?`.
    pub fn profile(&self) -> Profile {
        let mut by_function: std::collections::BTreeMap<String, (u64, u64)> = std::collections::BTreeMap::new();
        let mut total = 0;
        for core in &self.cores {
            let Some(p) = &core.profile else { continue };
            for (i, &cycles) in p.iter().enumerate().filter(|(_, &c)| c > 0) {
                let addr = core.text_address(i);
                let f = self.functions.partition_point(|f| f.address <= addr).checked_sub(1).map(|k| &self.functions[k]);
                let (name, start) = match f {
                    Some(f) if addr < f.address + f.size => (f.name.clone(), f.address),
                    _ => ("?".to_string(), 0),
                };
                by_function.entry(name).or_insert((start, 0)).1 += cycles;
                total += cycles;
            }
        }
        let mut functions: Vec<ProfileEntry> = by_function
            .into_iter()
            .map(|(name, (address, cycles))| ProfileEntry { name, address, cycles, share: cycles as f64 / total.max(1) as f64 })
            .collect();
        functions.sort_by(|a, b| b.cycles.cmp(&a.cycles).then_with(|| a.name.cmp(&b.name)));
        Profile { cycles: total, functions }
    }

    fn stats(&self, host_seconds: f64) -> RunStats {
        let cores: Vec<CoreStats> = self
            .cores
            .iter()
            .map(|c| {
                let mut stats = CoreStats::of(c, &self.config.core.timing);
                stats.ni = self.ni.as_ref().map(|ni| ni.counters(c.rank));
                stats.stalls.ni = stats.ni.as_ref().map_or(0, |n| n.stall_cycles());
                stats.stalls.cache = c.cache_cycles;
                stats.memory = self.memory.as_ref().map(|m| m.ms.counters(c.rank).clone());
                stats
            })
            .collect();
        let mut stats =
            RunStats::new(&self.config.name, &self.jobs[0].program, self.config.frequency_hz(), self.options.debug_clocking, cores, host_seconds);
        stats.network = self.network.as_ref().map(|net| {
            let mut n = network_stats(net);
            n.frequency_hz = self.config.network_frequency_mhz() * 1_000_000;
            n.program_packets = self.ni.as_ref().and_then(|ni| ni.packet_latency());
            n.background = self.background.as_ref().map(Background::stats);
            n
        });
        stats.memory_controllers = self.ni.as_ref().map(|ni| ni.controller_stats()).unwrap_or_default();
        stats.memory = self.memory.as_ref().map(|m| {
            let mut network = network_stats(&m.net);
            network.frequency_hz = self.config.network_frequency_mhz() * 1_000_000;
            m.stats(network)
        });
        stats
    }
}

fn network_stats(net: &Network) -> NetworkStats {
    let links = net.link_stats();
    let routers = net.mesh().routers();
    let mut per_port = vec![0u64; links.ports()];
    let (mut link_flits, mut busiest) = (0, 0);
    for r in 0..routers {
        for (p, total) in per_port.iter_mut().enumerate() {
            let f = links.flits(r, p);
            *total += f;
            if p < noc::topology::MESH_PORTS {
                link_flits += f;
                busiest = busiest.max(f);
            }
        }
    }
    NetworkStats {
        frequency_hz: 0,
        program_packets: None,
        background: None,
        flits_injected: net.flits_drained() + net.flits_in_network(),
        flits_received: net.flits_drained(),
        flits_per_port: per_port,
        link_flits,
        busiest_link_flits: busiest,
    }
}

/// What the chip keeps of the first job's program: its functions (for profiles), its sections (for the hashing
/// modes) and its thread-local template (for threads).
struct FirstImage {
    functions: Vec<Function>,
    sections: Vec<(u64, u64, crate::shmem::homing::Section)>,
    tls: Option<(u64, Vec<u8>, u64)>,
}

/// Core `core` has stopped: its console's last partial line goes out, and if it aborted before any abort so far
/// (by cycle, then rank), the run ends at its cycle (`abort`, `horizon`).
fn core_stopped(core: &mut Core, abort: &mut Option<(u64, usize)>, horizon: &mut u64) {
    let (end, rank) = (core.end_cycle.unwrap_or(core.hart.cycle), core.rank);
    core.console.flush_partial(rank, end);
    if matches!(core.status, CoreStatus::Aborted { .. }) && abort.map_or(true, |first| (end, rank) < first) {
        *abort = Some((end, rank));
        *horizon = (*horizon).min(end);
    }
}

/// The sections of `program`'s address space, as the hashing modes name them: its executable segment (text and
/// read-only data), its data segment's file bytes (data) and the rest (bss), the heap and the stack reservation.
fn program_sections(program: &Program, env: &CoreEnv) -> Vec<(u64, u64, crate::shmem::homing::Section)> {
    use crate::shmem::homing::Section;
    let mut sections = Vec::new();
    for s in &program.segments {
        if s.executable {
            sections.push((s.address, s.address + s.mem_size, Section::Text));
        } else {
            let file_end = s.address + s.data.len() as u64;
            sections.push((s.address, file_end, Section::Data));
            sections.push((file_end, s.address + s.mem_size, Section::Bss));
        }
    }
    sections.push((env.heap_start, env.heap_end, Section::Heap));
    sections.push((env.heap_end, env.stack_top, Section::Stack));
    sections.retain(|&(lo, hi, _)| lo < hi);
    sections
}

/// A core sleeping in a wait loop: the loop's branch, the cycle of its next test, and the cycles per iteration.
#[derive(Clone, Copy, Debug)]
struct Sleep {
    op: Decoded,
    next_check: u64,
    period: u64,
}

/// Stands for "ask the interface whether to take the interrupt" among the NI instructions due ([`RunStop::InterruptCheck`]):
/// no real instruction is 0 bytes long.
const INTERRUPT_CHECK: Decoded = Decoded { op: riscv::Op::Wfi, rd: 0, rs1: 0, rs2: 0, rs3: 0, len: 0, imm: 0 };

/// Which cores can run on, which wait at an NI instruction (by cycle), and which sleep in wait loops.
struct Scheduler {
    ready: Vec<usize>,
    due: BinaryHeap<Reverse<(u64, usize)>>,
    ni_op: Vec<Option<Decoded>>,
    asleep: Vec<usize>,
    sleep: Vec<Option<Sleep>>,
    /// Per rank: the wait-loop branch it last executed taken (cleared by any other NI instruction).
    wait_op: Vec<Option<Decoded>>,
    /// Cores whose instruction waits for the interface (memory-mapped transfers), and how many.
    is_blocked: Vec<bool>,
    blocked: usize,
}

impl Scheduler {
    fn new(cores: usize) -> Scheduler {
        Scheduler {
            ready: (0..cores).collect(),
            due: BinaryHeap::new(),
            ni_op: vec![None; cores],
            asleep: Vec::new(),
            sleep: vec![None; cores],
            wait_op: vec![None; cores],
            is_blocked: vec![false; cores],
            blocked: 0,
        }
    }

    fn block(&mut self, rank: usize) {
        debug_assert!(!self.is_blocked[rank]);
        self.is_blocked[rank] = true;
        self.blocked += 1;
    }

    fn unblock(&mut self, rank: usize) {
        debug_assert!(self.is_blocked[rank], "rank {rank} was not blocked");
        self.is_blocked[rank] = false;
        self.blocked -= 1;
    }

    /// Cores whose blocked instruction finished: the running ones go back to the run queue; returns the earliest
    /// cycle among them (`u64::MAX` if none). The stopped ones flush their console.
    fn resume(&mut self, cores: &mut [Core], ranks: impl Iterator<Item = usize>) -> u64 {
        let mut earliest = u64::MAX;
        for rank in ranks {
            self.unblock(rank);
            let core = &mut cores[rank];
            if core.running() {
                earliest = earliest.min(core.hart.cycle);
                self.ready.push(rank);
            } else {
                core.console.flush_partial(rank, core.end_cycle.unwrap_or(core.hart.cycle));
            }
        }
        earliest
    }

    fn at_ni(&mut self, rank: usize, cycle: u64, d: Decoded) {
        self.ni_op[rank] = Some(d);
        self.due.push(Reverse((cycle, rank)));
    }

    fn next_ni_cycle(&self) -> u64 {
        self.due.peek().map_or(u64::MAX, |Reverse((c, _))| *c)
    }

    /// The next core whose NI instruction is due in cycle `t`.
    fn pop_at(&mut self, t: u64) -> Option<(usize, Decoded)> {
        let &Reverse((c, rank)) = self.due.peek()?;
        debug_assert!(c >= t, "an NI instruction was left behind the network");
        if c != t {
            return None;
        }
        self.due.pop();
        let d = self.ni_op[rank].take().expect("a due core has its instruction");
        self.wait_op[rank] = None;
        Some((rank, d))
    }

    fn sleep(&mut self, rank: usize, op: Decoded, next_check: u64, period: u64) {
        self.sleep[rank] = Some(Sleep { op, next_check, period });
        self.asleep.push(rank);
    }

    /// After a network step: wakes every sleeper whose wait has ended, charging the iterations it skipped, and
    /// returns the earliest cycle at which a woken core tests its branch again.
    fn wake(&mut self, cores: &mut [Core], ni: &mut dyn NetworkInterface, net: &Network) -> u64 {
        let now = net.now().0;
        let mut earliest = u64::MAX;
        let mut i = 0;
        while i < self.asleep.len() {
            let rank = self.asleep[i];
            let s = self.sleep[rank].expect("an asleep core has its wait");
            if ni.still_waiting(&cores[rank], &s.op, net) {
                i += 1;
                continue;
            }
            self.asleep.swap_remove(i);
            self.sleep[rank] = None;
            // The first test at or after `now` sees the change; the tests before it were taken.
            let skipped = now.saturating_sub(s.next_check).div_ceil(s.period);
            ni.skip_waits(&mut cores[rank], &s.op, skipped, s.period);
            let at = cores[rank].hart.cycle;
            if cores[rank].irq_armed {
                // Through the run loop, which checks the interrupt before the instruction runs again.
                self.ready.push(rank);
            } else {
                self.at_ni(rank, at, s.op);
            }
            self.wait_op[rank] = Some(s.op);
            earliest = earliest.min(at);
        }
        earliest
    }

    /// Charges every sleeper the iterations it would have run before cycle `end`.
    fn settle_sleepers(&mut self, cores: &mut [Core], ni: &mut dyn NetworkInterface, end: u64) {
        for rank in std::mem::take(&mut self.asleep) {
            let s = self.sleep[rank].take().expect("an asleep core has its wait");
            let skipped = end.saturating_sub(s.next_check).div_ceil(s.period);
            ni.skip_waits(&mut cores[rank], &s.op, skipped, s.period);
        }
    }

    /// No core runs or has an NI instruction due; some sleep.
    fn everyone_asleep(&self) -> bool {
        self.ready.is_empty() && self.due.is_empty() && self.blocked == 0 && !self.asleep.is_empty()
    }

    /// Every core has stopped.
    fn is_idle(&self) -> bool {
        self.ready.is_empty() && self.due.is_empty() && self.asleep.is_empty() && self.blocked == 0
    }
}

/// Every running core sleeps polling a line that no core will write: the deadlock began when the last of them fell
/// asleep (or the last other core stopped); the pollers are charged their iterations up to then.
fn polling_deadlock(cores: &mut [Core], ni: &mut dyn NetworkInterface, diagnostics: &[Arc<ProgramDiagnostics>], clocks: crate::core::Clocks) -> Deadlock {
    let running: Vec<usize> = cores.iter().filter(|c| c.running()).map(|c| c.rank).collect();
    let began = running
        .iter()
        .map(|&r| cores[r].hart.cycle)
        .chain(cores.iter().filter_map(|c| c.end_cycle))
        .max()
        .unwrap_or(0);
    let descriptions: Vec<String> = running.iter().map(|&r| ni.polling(r).expect("every running core polls")).collect();
    ni.settle(cores, clocks.to_net(began));
    let ranks = cores.len();
    let waiting: Vec<_> = running.iter().zip(descriptions).map(|(&r, d)| diagnostics[cores[r].job].blocked_rank(&cores[r], ranks, d)).collect();
    let wait_cycle = crate::diagnose::wait_for_cycle(&waiting);
    let finished = cores.iter().filter_map(|c| diagnostics[c.job].finished_rank(c)).collect();
    Deadlock { cycle: began, waiting, wait_cycle, finished, network: None }
}

/// Whether the chip is deadlocked (see [`Deadlock`]); if so, settles the waiting cores at their first loop test
/// after the deadlock began, which is where the debug clocking (which checks every cycle) finds them.
fn find_deadlock(
    cores: &mut [Core],
    sched: &mut Scheduler,
    ni: &mut dyn NetworkInterface,
    net: &Network,
    watchdog_cycles: u64,
    diagnostics: &[Arc<ProgramDiagnostics>],
    ran_before: u64,
) -> Option<Deadlock> {
    let mut began = 0;
    let mut waiting = Vec::new();
    for core in cores.iter().filter(|c| c.running()) {
        let rank = core.rank;
        let op = sched.sleep[rank].map(|s| s.op).or(sched.wait_op[rank])?;
        if !ni.still_waiting(core, &op, net) {
            return None;
        }
        began = began.max(ni.waiting_since(rank)?);
        waiting.push((rank, op));
    }
    if waiting.is_empty() {
        return None;
    }
    // Nor can it have begun while a core that has stopped since was still running.
    began = began.max(cores.iter().filter_map(|c| c.end_cycle).max().unwrap_or(0));
    // The waiting cores have run their loop tests up to and including the cycle it began: fast clocking charges
    // the sleepers' tests below; debug clocking must wait until every instruction of that cycle has run (a
    // core's exit is seen in the cycle its last call starts, before the cycle it ends in).
    if began >= ran_before {
        return None;
    }
    let network = if net.is_idle() {
        None
    } else {
        let stalled = net.last_progress().0 + watchdog_cycles + 1;
        if net.now().0 < stalled {
            return None;
        }
        began = began.max(stalled);
        let owners = ni.node_owners(cores, &waiting, net.mesh().nodes());
        Some(Box::new(net.diagnose_with(&owners)))
    };
    let mut report = Vec::new();
    for (rank, op) in waiting {
        if let Some(s) = sched.sleep[rank].take() {
            let skipped = if s.next_check <= began { (began - s.next_check) / s.period + 1 } else { 0 };
            ni.skip_waits(&mut cores[rank], &s.op, skipped, s.period);
        }
        report.push(diagnostics[cores[rank].job].blocked_rank(&cores[rank], cores.len(), ni.describe_wait(&op)));
    }
    sched.asleep.clear();
    let wait_cycle = crate::diagnose::wait_for_cycle(&report);
    let finished = cores.iter().filter_map(|c| diagnostics[c.job].finished_rank(c)).collect();
    Some(Deadlock { cycle: began, waiting: report, wait_cycle, finished, network })
}
