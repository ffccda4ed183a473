//! `nocmsg run`: a program on every core (or a chosen subset) of a simulated chip.
//!
//! Exit status ([`RunEnd::exit_status`], recorded with the reason in the stats file's `end`): 0 when every core exits
//! 0; otherwise the exit status of the first core (by cycle, then rank) that exits non-zero; when a core stops on an
//! error (its report is on stderr), 128 + the signal a process would get for it natively (139 for a bad address,
//! 135 misaligned, 132 an illegal instruction); 124 at the cycle limit; 200 for a deadlock.

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
    /// Program (RV64IM ELF built with bin/nocmsg-cc), then its arguments: everything after the program goes to it
    /// untouched, options like `-n` included.
    #[arg(value_name = "PROGRAM", required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true)]
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

#[derive(Clone, Debug)]
pub struct TileList(pub Vec<usize>);

/// "0,2,4-7" -> [0, 2, 4, 5, 6, 7].
fn parse_tiles(s: &str) -> Result<TileList, String> {
    let mut tiles = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let num = |v: &str| v.trim().parse::<usize>().map_err(|_| format!("tile list '{s}': '{v}' is not a tile number"));
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(format!("tile list '{s}': range {a}-{b} is empty"));
                }
                tiles.extend(a..=b);
            }
            None => tiles.push(num(part)?),
        }
    }
    Ok(TileList(tiles))
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let config = ChipConfig::load(&args.chip).map_err(|e| Exit::Usage(e.to_string()))?;
    let program = Program::load(&args.program()).map_err(|e| Exit::Usage(e.to_string()))?;
    let tiles = match (&args.tiles, args.cores) {
        (Some(list), _) => list.0.clone(),
        (None, Some(n)) => {
            if n == 0 || n > config.tiles() {
                return Err(Exit::Usage(format!("--cores {n}: chip {} has {} cores", config.name, config.tiles())).into());
            }
            (0..n).collect()
        }
        (None, None) => (0..config.tiles()).collect(),
    };
    let work_dir = match &args.work_dir {
        Some(d) => d.clone(),
        None => std::env::current_dir().context("cannot determine the current directory")?,
    };
    if !work_dir.is_dir() {
        return Err(Exit::Usage(format!("--work-dir {}: not a directory", work_dir.display())).into());
    }
    let options = RunOptions { tiles, args: args.program_args().to_vec(), debug_clocking: args.debug_clocking, max_cycles: args.max_cycles, work_dir, profile: args.profile.is_some() };
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
    if let Some(path) = &args.stats {
        let json = serde_json::to_string_pretty(&stats)?;
        std::fs::write(path, json + "\n").with_context(|| format!("cannot write {}", path.display()))?;
    }
    let status = end.exit_status();
    match end {
        RunEnd::Success => Ok(()),
        RunEnd::Failed { core, code } => Err(Exit::Status(status, format!("nocmsg: core {core} exited with status {code}")).into()),
        RunEnd::Fault(fault) => Err(Exit::Status(status, format!("nocmsg: {fault}")).into()),
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

    #[test]
    fn tile_lists() {
        assert_eq!(parse_tiles("0,2,4-6").unwrap().0, vec![0, 2, 4, 5, 6]);
        assert_eq!(parse_tiles("3").unwrap().0, vec![3]);
        assert!(parse_tiles("1,x").unwrap_err().contains("'x' is not a tile number"));
        assert!(parse_tiles("5-2").unwrap_err().contains("empty"));
    }
}
