//! A chip running a program: every selected tile gets a copy of the ELF in its private memory and a boot block,
//! then the cores advance on one global clock.
//!
//! Fast clocking lets each core run ahead in quanta of global time (cores in this version share nothing but the
//! host, so running ahead is exact); debug clocking advances every core one cycle at a time. Console lines are
//! handed out at fixed boundaries of global time, sorted by (cycle, core), so both clockings print exactly the
//! same thing in the same order.

use crate::config::{ChipConfig, NiKind, MEMORY_BASE};
use crate::console::ConsoleLine;
use crate::core::{Core, CoreEnv, CoreFault, CoreStatus, DecodedText, NiPresence};
use crate::elf::Program;
use crate::stats::{CoreStats, RunStats};
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
    /// The cycle limit was reached with cores still running.
    CycleLimit { cycle: u64, running: Vec<usize> },
}

pub struct Chip {
    pub config: ChipConfig,
    pub cores: Vec<Core>,
    env: CoreEnv,
    options: RunOptions,
    program_path: String,
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
        let tiles = config.tiles();
        if options.tiles.is_empty() {
            return Err(LoadError::Setting("no cores selected to run the program".into()));
        }
        let mut seen = vec![false; tiles];
        for &t in &options.tiles {
            if t >= tiles {
                return Err(LoadError::Setting(format!("tile {t} does not exist: chip {} has tiles 0..{}", config.name, tiles - 1)));
            }
            if std::mem::replace(&mut seen[t], true) {
                return Err(LoadError::Setting(format!("tile {t} is selected twice")));
            }
        }
        let mem_bytes = config.memory_bytes();
        let mem_end = MEMORY_BASE + mem_bytes;
        let heap_end = mem_end - config.core.stack_kib * 1024;
        let does_not_fit = |message: String| LoadError::DoesNotFit { path: program.path.clone(), chip: config.name.clone(), message };
        for s in &program.segments {
            if s.address < MEMORY_BASE || s.address + s.mem_size > heap_end {
                return Err(does_not_fit(format!(
                    "segment {:#x}..{:#x} is outside the {} KiB of private memory at {MEMORY_BASE:#x} less the {} KiB stack",
                    s.address,
                    s.address + s.mem_size,
                    config.core.memory_kib,
                    config.core.stack_kib
                )));
            }
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
        let text = Arc::new(DecodedText::new(text_lo, image.slice(text_lo, ((text_hi - text_lo) & !3) as usize).expect("inside")));
        let image_end = program.image_end.max(MEMORY_BASE);
        let heap_start = (image_end + 15) & !15;
        let name = std::path::Path::new(&program.path).file_name().map_or(program.path.clone(), |n| n.to_string_lossy().into_owned());
        let env = CoreEnv {
            costs: config.core.timing.cost_table(),
            frequency_hz: config.frequency_hz(),
            command_line: command_line(&name, &options.args),
            heap_start,
            heap_end,
            stack_top: mem_end,
            work_dir: options.work_dir.clone(),
            ni: match config.ni.kind {
                NiKind::None => NiPresence::None,
                NiKind::Pimp => NiPresence::Unimplemented("pimp"),
            },
        };
        let mesh = &config.mesh;
        let mut cores = Vec::with_capacity(options.tiles.len());
        for (rank, &tile) in options.tiles.iter().enumerate() {
            // Copy only the segments' file bytes: the rest of the fresh memory (bss included) is already zero,
            // and pages nobody touches cost nothing, which is what lets 1024 cores fit.
            let mut ram = Ram::new(MEMORY_BASE, mem_bytes as usize);
            for s in &program.segments {
                ram.write_bytes(s.address, &s.data).expect("checked to fit");
            }
            if let Some(b) = program.boot_block {
                let fields = [
                    BOOT_MAGIC,
                    BOOT_VERSION,
                    rank as u64,
                    options.tiles.len() as u64,
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
            let mut hart = Hart::new(tile as u64, program.entry);
            hart.x[2] = mem_end; // sp, for programs without the nocmsg runtime
            cores.push(Core::new(rank, tile, hart, ram, Arc::clone(&text)));
        }
        Ok(Chip { config, cores, env, options, program_path: program.path.clone() })
    }

    /// Runs until every core has stopped (or the cycle limit). `events` receives console lines in simulated-time
    /// order and progress reports.
    pub fn run(&mut self, events: &mut dyn FnMut(Event)) -> (RunEnd, RunStats) {
        let started = Instant::now();
        let quantum = if self.options.debug_clocking { 1 } else { FLUSH_PERIOD_CYCLES };
        let mut now = 0u64;
        let mut lines: Vec<ConsoleLine> = Vec::new();
        let mut limited = false;
        while self.cores.iter().any(Core::running) {
            if self.options.max_cycles > 0 && now >= self.options.max_cycles {
                limited = true;
                break;
            }
            let mut until = now + quantum;
            if self.options.max_cycles > 0 {
                until = until.min(self.options.max_cycles);
            }
            for core in self.cores.iter_mut().filter(|c| c.running()) {
                core.run(until, &self.env);
                if !core.running() {
                    let end = core.end_cycle.unwrap_or(core.hart.cycle);
                    core.console.flush_partial(core.rank, end);
                }
            }
            now = until;
            if now % FLUSH_PERIOD_CYCLES == 0 || !self.cores.iter().any(Core::running) {
                self.flush_console(&mut lines, events);
                let instructions = self.cores.iter().map(|c| c.hart.instret).sum();
                events(Event::Progress { cycle: now, instructions });
            }
        }
        for core in &mut self.cores {
            let c = core.hart.cycle;
            core.console.flush_partial(core.rank, c);
        }
        self.flush_console(&mut lines, events);
        let host_seconds = started.elapsed().as_secs_f64();
        let end = self.outcome(limited, now);
        (end, self.stats(host_seconds))
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

    fn outcome(&self, limited: bool, now: u64) -> RunEnd {
        if limited {
            let running = self.cores.iter().filter(|c| c.running()).map(|c| c.rank).collect();
            return RunEnd::CycleLimit { cycle: now, running };
        }
        let first = self
            .cores
            .iter()
            .filter(|c| !matches!(c.status, CoreStatus::Exited { code: 0 }))
            .min_by_key(|c| (c.end_cycle.unwrap_or(u64::MAX), c.rank));
        match first.map(|c| &c.status) {
            None => RunEnd::Success,
            Some(CoreStatus::Exited { code }) => RunEnd::Failed { core: first.unwrap().rank, code: *code },
            Some(CoreStatus::Faulted { fault }) => RunEnd::Fault(fault.clone()),
            Some(CoreStatus::Running) => unreachable!("the run loop ends only when no core runs"),
        }
    }

    fn stats(&self, host_seconds: f64) -> RunStats {
        let cores: Vec<CoreStats> = self.cores.iter().map(|c| CoreStats::of(c, &self.config.core.timing)).collect();
        RunStats::new(&self.config.name, &self.program_path, self.config.frequency_hz(), self.options.debug_clocking, cores, host_seconds)
    }
}
