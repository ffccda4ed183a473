//! `nocmsg run`: a program on every core (or a chosen subset) of a simulated chip.
//!
//! Exit status ([`RunEnd::exit_status`], recorded with the reason in the stats file's `end`): 0 when every core exits
//! 0; otherwise the exit status of the first core (by cycle, then rank) that exits non-zero; when a core stops on an
//! error (its report is on stderr), 128 + the signal a process would get for it natively (139 for a bad address,
//! 135 misaligned, 132 an illegal instruction); 124 at the cycle limit; 200 for a deadlock.
//! A core that aborts (MPI_Abort, nocmsg_abort, abort()) ends the whole run with its code (1 for 0).

use crate::Exit;
use anyhow::Context;
use chip::chip::{Event, RunEnd, RunOptions};
use chip::console::Stream;
use chip::{Chip, ChipConfig, Program};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

#[derive(Args)]
pub struct RunArgs {
    /// Chip description (TOML), e.g. chips/pimp-4x4.toml.
    #[arg(long)]
    pub chip: PathBuf,
    /// Run on the first N cores only (the others stay idle).
    #[arg(short = 'n', long = "cores", value_name = "N", conflicts_with = "tiles")]
    pub cores: Option<usize>,
    /// Run on these tiles (comma-separated, ranges allowed: 0,2,4-7); ranks follow the list order.
    #[arg(long, value_parser = parse_tiles)]
    pub tiles: Option<TileList>,
    /// Write run statistics (cycles, instructions, stalls per core, host speed) as JSON.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    /// Write each core's console output to DIR/core-N.out (and core-N.err) instead of the terminal.
    #[arg(long, value_name = "DIR")]
    pub console_dir: Option<PathBuf>,
    /// Print console lines without the "[core N] " prefix.
    #[arg(long)]
    pub no_prefix: bool,
    /// Visit every core every cycle (slow; must give the same results as the default clocking).
    #[arg(long)]
    pub debug_clocking: bool,
    /// Stop with exit status 124 if cores are still running at this cycle (0: no limit).
    #[arg(long, default_value_t = 0, value_name = "CYCLES")]
    pub max_cycles: u64,
    /// Directory that semihosting file names are relative to (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Write the cycles spent in each function (all cores) to this JSON file.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Synthetic traffic sharing the network with the program (mpb chips; repeatable): injectors on network nodes,
    /// e.g. `pattern=uniform,rate=0.05,flits=2,nodes=0-7,seed=1` or `interval=200` instead of `rate` (flits per
    /// node per cycle). Its latency is reported apart from the program's in --stats (network.background).
    #[arg(long, value_name = "SPEC", value_parser = chip::background::BackgroundSpec::parse)]
    pub background: Vec<chip::background::BackgroundSpec>,
    /// An environment variable every core's program sees (getenv; repeatable), e.g. `--env NOCMSG_BARRIER=linear`.
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// The cores' memory: `private` (default: one-cycle private memory, as the message-passing studies assume) or
    /// `cached` (through the chip's caches and memory controllers, `[caches]` in the chip file; docs/shmem.md).
    #[arg(long, value_name = "MODEL", default_value = "private", value_parser = ["private", "cached"])]
    pub memory: String,
    /// Run the program as one process whose cores are its threads: they share its address space through the caches
    /// (implies --memory cached). The first core runs main; the others idle until the program starts them
    /// (nocmsg_thread.h).
    #[arg(long)]
    pub threads: bool,
    /// With cached memory, which program sections are hashed for home (the hybrid MPI/OpenMP study's modes): none,
    /// ro (text, read-only data), static (also data, bss), allbutstack (also the heap), all. The rest is homed at the
    /// tile that touches each page first.
    #[arg(long, value_name = "MODE", default_value = "none", value_parser = chip::shmem::homing::HashMode::parse)]
    pub hash_mode: chip::shmem::homing::HashMode,
    /// With cached memory, where the sections the hashing mode leaves are homed: `local` (at the tile that touches
    /// each page first) or `remote:T` (every page at core T's tile).
    #[arg(long, value_name = "POLICY", default_value = "local", value_parser = chip::shmem::homing::Base::parse)]
    pub homing: chip::shmem::homing::Base,
    /// Seeded perturbation, to study run-to-run variation (each seed deterministic): `seed=S,skew=C,period=P,noise=N`
    /// starts every core up to C cycles late and takes N cycles from it about every P cycles (stalls.noise).
    #[arg(long, value_name = "SPEC", value_parser = chip::perturb::PerturbSpec::parse)]
    pub perturb: Option<chip::perturb::PerturbSpec>,
    /// Write the program's communication profile (UDN chips): every point-to-point transfer per region between
    /// collectives, with its site and the links of its path; `nocmsg fc-plan` makes a flow-control plan of it.
    #[arg(long, value_name = "FILE")]
    pub comm_profile: Option<PathBuf>,
    /// Partitioned jobs (repeatable, instead of PROGRAM): `TILES:PROGRAM ARGS...`, e.g. `--job "0-15:is.elf S"`. The
    /// jobs run at once on disjoint tile sets, each with its own ranks 0.. (its tiles in order) and output (lines
    /// `[job J rank R]`); the run reports which jobs' routes share links, and runs each job once more alone to report
    /// how much the others perturbed it (also in --stats: `jobs`).
    #[arg(long = "job", value_name = "TILES:PROGRAM [ARGS]", conflicts_with_all = ["cores", "tiles", "comm_profile", "profile", "command", "threads"])]
    pub jobs: Vec<String>,
    /// Program (RV64 ELF built with bin/nocmsg-cc for the chip's core.isa), then its arguments: everything after the program goes to it
    /// untouched, options like `-n` included.
    #[arg(value_name = "PROGRAM", required_unless_present = "jobs", num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

impl RunArgs {
    /// The program to run.
    pub fn program(&self) -> PathBuf {
        PathBuf::from(&self.command[0])
    }

    /// Its arguments.
    pub fn program_args(&self) -> &[String] {
        &self.command[1..]
    }
}

/// `--tiles` as written: inclusive ranges in list order, not expanded. A range can name more tiles than memory
/// holds (`0-99999999999`), so the bounds are checked against the chip ([`TileList::select`]) before expansion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileList {
    pub text: String,
    pub ranges: Vec<(u64, u64)>,
}

/// "0,2,4-7" -> ranges (0,0), (2,2), (4,7).
pub(crate) fn parse_tiles(s: &str) -> Result<TileList, String> {
    let mut ranges = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let num = |v: &str| v.trim().parse::<u64>().map_err(|_| format!("tile list '{s}': '{v}' is not a tile number"));
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(format!("tile list '{s}': range {a}-{b} is empty"));
                }
                ranges.push((a, b));
            }
            None => {
                let t = num(part)?;
                ranges.push((t, t));
            }
        }
    }
    Ok(TileList { text: s.to_string(), ranges })
}

impl TileList {
    /// The tiles in list order (ranks follow it), once every tile is known to exist on a chip `chip` of `tiles`
    /// tiles and none is named twice; the expansion is then at most `tiles` long.
    pub fn select(&self, chip: &str, tiles: usize) -> Result<Vec<usize>, String> {
        let last = tiles as u64 - 1;
        let context = |what: String| format!("--tiles {}: {what}: chip {chip} has tiles 0..{last}", self.text);
        for &(a, b) in &self.ranges {
            if a > last {
                return Err(context(format!("tile {a} does not exist")));
            }
            if b > last {
                return Err(context(format!("range {a}-{b} goes past the last tile")));
            }
        }
        // Overlaps, by start: a range starting at or before the furthest end so far repeats its first tile.
        let mut by_start = self.ranges.clone();
        by_start.sort_unstable();
        let mut furthest: Option<u64> = None;
        for &(a, b) in &by_start {
            if furthest.is_some_and(|end| a <= end) {
                return Err(format!("--tiles {}: tile {a} is selected twice", self.text));
            }
            furthest = Some(furthest.map_or(b, |end| end.max(b)));
        }
        Ok(self.ranges.iter().flat_map(|&(a, b)| a as usize..=b as usize).collect())
    }
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    if !args.jobs.is_empty() {
        return crate::jobs::run(args);
    }
    let config = ChipConfig::load(&args.chip).map_err(|e| Exit::Usage(e.to_string()))?;
    let tiles = match (&args.tiles, args.cores) {
        (Some(list), _) => list.select(&config.name, config.tiles()).map_err(Exit::Usage)?,
        (None, Some(n)) => {
            if n == 0 || n > config.tiles() {
                return Err(Exit::Usage(format!("--cores {n}: chip {} has {} cores", config.name, config.tiles())).into());
            }
            (0..n).collect()
        }
        (None, None) => (0..config.tiles()).collect(),
    };
    let program = Program::load(&args.program()).map_err(|e| Exit::Usage(e.to_string()))?;
    let memory = chip::footprint::estimate(&config, &program, tiles.len(), args.profile.is_some());
    crate::footprint::check(
        crate::footprint::PROCESS_BASE_BYTES.saturating_add(memory.total_bytes()),
        &format!("chip {} on {} cores", config.name, tiles.len()),
        &format!(
            "{} per core for its state and the program image, {} for the network",
            crate::footprint::human(memory.per_core_bytes),
            crate::footprint::human(memory.network_bytes)
        ),
    )?;
    let work_dir = match &args.work_dir {
        Some(d) => d.clone(),
        None => std::env::current_dir().context("cannot determine the current directory")?,
    };
    if !work_dir.is_dir() {
        return Err(Exit::Usage(format!("--work-dir {}: not a directory", work_dir.display())).into());
    }
    let tiles_count = tiles.len();
    let options = RunOptions {
        tiles,
        args: args.program_args().to_vec(),
        debug_clocking: args.debug_clocking,
        max_cycles: args.max_cycles,
        work_dir,
        profile: args.profile.is_some(),
        background: args.background.clone(),
        env: {
            let mut env = args.env.clone();
            if args.comm_profile.is_some() {
                env.push(("NOCMSG_COMM_PROFILE".into(), "1".into()));
            }
            env
        },
        comm_profile: args.comm_profile.is_some(),
        memory: chip::chip::MemoryOptions {
            cached: args.memory == "cached" || args.threads,
            cores_per_process: if args.threads { tiles_count } else { 1 },
            hash_mode: args.hash_mode,
            homing: args.homing,
        },
        perturb: args.perturb,
    };
    let mut chip = Chip::new(config, &program, options).map_err(|e| Exit::Usage(e.to_string()))?;

    if let Some(dir) = &args.console_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create console directory {}", dir.display()))?;
    }
    let mut files: BTreeMap<(usize, Stream), std::io::BufWriter<std::fs::File>> = BTreeMap::new();
    let mut io_error: Option<anyhow::Error> = None;
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}").expect("valid template"));
        bar
    });
    let started = std::time::Instant::now();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (end, stats) = chip.run(&mut |event| match event {
        Event::Console(line) => {
            let result = match &args.console_dir {
                Some(dir) => {
                    let key = (line.core, line.stream);
                    let file = match files.entry(key) {
                        std::collections::btree_map::Entry::Occupied(e) => Ok(e.into_mut()),
                        std::collections::btree_map::Entry::Vacant(e) => {
                            let ext = if line.stream == Stream::Stdout { "out" } else { "err" };
                            let path = dir.join(format!("core-{}.{ext}", line.core));
                            std::fs::File::create(&path)
                                .with_context(|| format!("cannot create {}", path.display()))
                                .map(|f| e.insert(std::io::BufWriter::new(f)))
                        }
                    };
                    file.and_then(|f| {
                        f.write_all(&line.text)?;
                        if line.newline {
                            f.write_all(b"\n")?;
                        }
                        Ok(())
                    })
                }
                None => {
                    let print = |w: &mut dyn Write| -> std::io::Result<()> {
                        if !args.no_prefix {
                            write!(w, "[core {}] ", line.core)?;
                        }
                        w.write_all(&line.text)?;
                        w.write_all(b"\n")
                    };
                    let r = match line.stream {
                        Stream::Stdout => print(&mut out),
                        Stream::Stderr => {
                            let _ = out.flush();
                            print(&mut std::io::stderr().lock())
                        }
                    };
                    r.map_err(anyhow::Error::from)
                }
            };
            if let (Err(e), None) = (result, &io_error) {
                io_error = Some(e);
            }
        }
        Event::Progress { cycle, instructions } => {
            if let Some(bar) = &bar {
                let secs = started.elapsed().as_secs_f64().max(1e-9);
                bar.set_message(format!("cycle {cycle}, {instructions} instructions, {:.1} MIPS", instructions as f64 / secs / 1e6));
                bar.tick();
            }
            let _ = out.flush();
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    out.flush()?;
    for (_, mut f) in files {
        f.flush()?;
    }
    if let Some(e) = io_error {
        return Err(e);
    }
    if let Some(path) = &args.profile {
        let json = serde_json::to_string_pretty(&chip.profile())?;
        std::fs::write(path, json + "\n").with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.comm_profile {
        // A profile of a run that failed is still written (what ran is in it), the failure reported below.
        let profile = chip.comm_profile().map_err(|e| Exit::Usage(format!("--comm-profile: {e}")))?;
        let json = serde_json::to_string_pretty(&profile)?;
        std::fs::write(path, json + "\n").with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.stats {
        let json = serde_json::to_string_pretty(&stats)?;
        std::fs::write(path, json + "\n").with_context(|| format!("cannot write {}", path.display()))?;
    }
    let status = end.exit_status();
    match end {
        RunEnd::Success => Ok(()),
        RunEnd::Failed { core, code } => Err(Exit::Status(status, format!("nocmsg: core {core} exited with status {code}")).into()),
        RunEnd::Fault(fault) => Err(Exit::Status(status, format!("nocmsg: {fault}")).into()),
        RunEnd::Aborted { core, code, cycle, stopped } => {
            let others = if stopped == 1 { "core" } else { "cores" };
            Err(Exit::Status(status, format!("nocmsg: rank {core} called abort (code {code}) at cycle {cycle}; stopped {stopped} other running {others}")).into())
        }
        RunEnd::Deadlock(deadlock) => Err(Exit::Report(status, format!("nocmsg: {deadlock}")).into()),
        RunEnd::CycleLimit { cycle, running } => {
            let shown: Vec<String> = running.iter().take(8).map(usize::to_string).collect();
            let more = if running.len() > 8 { format!(" and {} more", running.len() - 8) } else { String::new() };
            Err(Exit::Status(status, format!("nocmsg: cycle limit {cycle} reached with cores {}{more} still running", shown.join(", "))).into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select(s: &str, tiles: usize) -> Result<Vec<usize>, String> {
        parse_tiles(s)?.select("c", tiles)
    }

    #[test]
    fn tile_lists() {
        assert_eq!(select("0,2,4-6", 16).unwrap(), vec![0, 2, 4, 5, 6]);
        assert_eq!(select("3", 16).unwrap(), vec![3]);
        assert_eq!(select("9-11,0,5-6", 16).unwrap(), vec![9, 10, 11, 0, 5, 6], "ranks follow the list order");
        assert_eq!(select("0-15", 16).unwrap().len(), 16);
        assert!(parse_tiles("1,x").unwrap_err().contains("'x' is not a tile number"));
        assert!(parse_tiles("5-2").unwrap_err().contains("empty"));
        assert!(parse_tiles("0-99999999999999999999999").unwrap_err().contains("not a tile number"));
    }

    /// Issue 14 item 7: `--tiles 0-99999999999` expanded 10^11 tiles (800 GB) before any check.
    #[test]
    fn huge_ranges_are_checked_against_the_chip_before_expansion() {
        let list = parse_tiles("0-99999999999").unwrap();
        assert_eq!(list.ranges, vec![(0, 99_999_999_999)]);
        assert_eq!(list.select("pimp-4x4", 16).unwrap_err(), "--tiles 0-99999999999: range 0-99999999999 goes past the last tile: chip pimp-4x4 has tiles 0..15");
        assert!(select("3,16", 16).unwrap_err().contains("tile 16 does not exist: chip c has tiles 0..15"));
        assert!(select("0-3,18446744073709551615", 16).unwrap_err().contains("tile 18446744073709551615 does not exist"));
    }

    #[test]
    fn overlaps_and_duplicates_name_the_tile() {
        assert!(select("1,1", 16).unwrap_err().contains("tile 1 is selected twice"));
        assert!(select("0-7,4", 16).unwrap_err().contains("tile 4 is selected twice"));
        assert!(select("8-15,0-8", 16).unwrap_err().contains("tile 8 is selected twice"));
        assert!(select("8-15,3,0-8", 16).unwrap_err().contains("tile 3 is selected twice"));
        assert!(select("0-3,10-12,4-9,13-15", 16).is_ok());
        // Many ranges cost a sort, not a scan per pair or per tile.
        let many: Vec<String> = (0..100_000u64).rev().map(|t| t.to_string()).collect();
        assert_eq!(select(&many.join(","), 100_000).unwrap().len(), 100_000);
        let mut dup = many.clone();
        dup.push("77".into());
        assert!(select(&dup.join(","), 100_000).unwrap_err().contains("tile 77 is selected twice"));
    }
}

/// `NAME=VALUE` of `--env`: a name of letters, digits and underscores not starting with a digit.
fn parse_env(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once('=').ok_or_else(|| format!("{text:?} is not NAME=VALUE"))?;
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("{name:?} is not a variable name (letters, digits and _, not starting with a digit)"));
    }
    if value.contains('\0') {
        return Err(format!("the value of {name} contains a NUL byte"));
    }
    Ok((name.to_string(), value.to_string()))
}
