//! `nocmsg run --job TILES:PROGRAM ARGS...` (repeatable): partitioned jobs, several programs at once on disjoint tile
//! sets of one chip (for example the four 16-core quadrants of tilepro-64), sharing its network.
//!
//! Each job has its own ranks 0.. (its tiles in the order given) and its own output (`[job J rank R]` lines, or
//! `job-J-rank-R.out` files with --console-dir). Two reports come with it, on stderr and in --stats (`jobs`):
//!
//! - which jobs' routes share directional links: the links the paths between any two tiles of a job take under the
//!   chip's dimension-order routing, job against job. Jobs that share none cannot delay each other in the network,
//!   and a flow-control plan made for one of them alone still holds; jobs that share links void that.
//! - how much each job was perturbed by the others: the job runs once more alone on the same tiles (the simulation
//!   is deterministic), and its cycles together are set against its cycles alone.

use crate::run::RunArgs;
use crate::Exit;
use anyhow::{Context, Result};
use chip::chip::{Chip, Event, Job, RunOptions};
use chip::config::ChipConfig;
use chip::elf::Program;
use serde::Serialize;
use std::collections::BTreeSet;
use std::io::Write;

/// One `--job` as written.
struct Spec {
    tiles: Vec<usize>,
    command: Vec<String>,
}

fn parse(text: &str, config: &ChipConfig) -> Result<Spec, String> {
    let (tiles, command) =
        text.split_once(':').ok_or_else(|| format!("--job {text:?}: expected TILES:PROGRAM [ARGS...]"))?;
    let tiles = crate::run::parse_tiles(tiles)
        .and_then(|t| t.select(&config.name, config.tiles()))
        .map_err(|e| format!("--job {text:?}: {}", e.trim_start_matches("--tiles ")))?;
    let command: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    if command.is_empty() {
        return Err(format!("--job {text:?}: no program after the tiles"));
    }
    Ok(Spec { tiles, command })
}

/// A job's report in --stats.
#[derive(Serialize)]
struct JobReport {
    job: usize,
    program: String,
    tiles: Vec<usize>,
    /// The last of its cores to stop, with the other jobs running, and alone.
    cycles: u64,
    cycles_alone: u64,
    /// cycles / cycles_alone - 1.
    perturbation: f64,
    /// Directional mesh links its routes share with each other job that shares any.
    shares_links_with: Vec<SharedLinks>,
}

#[derive(Serialize)]
struct SharedLinks {
    job: usize,
    links: Vec<String>,
}

/// The directional mesh links the routes between any two tiles of `tiles` take.
fn links_of(config: &ChipConfig, tiles: &[usize]) -> Result<BTreeSet<String>, String> {
    let mut links = BTreeSet::new();
    for &a in tiles {
        for &b in tiles {
            if a != b {
                links.extend(
                    chip::profile::route_links(config, a, b)?
                        .into_iter()
                        .filter(|l| !l.starts_with("inject") && !l.starts_with("eject")),
                );
            }
        }
    }
    Ok(links)
}

fn options(args: &RunArgs, work_dir: &std::path::Path) -> RunOptions {
    RunOptions {
        tiles: Vec::new(),
        args: Vec::new(),
        debug_clocking: args.debug_clocking,
        max_cycles: args.max_cycles,
        work_dir: work_dir.to_path_buf(),
        profile: false,
        background: args.background.clone(),
        env: args.env.clone(),
        comm_profile: false,
        memory: chip::chip::MemoryOptions { cached: args.memory == "cached", ..Default::default() },
        perturb: args.perturb,
    }
}

/// The cycle the last core of each job stopped.
fn job_cycles(chip: &Chip) -> Vec<u64> {
    chip.jobs()
        .iter()
        .map(|j| {
            chip.cores[j.first..j.first + j.tiles.len()]
                .iter()
                .map(|c| c.end_cycle.unwrap_or(c.hart.cycle))
                .max()
                .unwrap_or(0)
        })
        .collect()
}

pub fn run(args: RunArgs) -> Result<()> {
    let config = ChipConfig::load(&args.chip).map_err(|e| Exit::Usage(e.to_string()))?;
    let specs: Vec<Spec> =
        args.jobs.iter().map(|j| parse(j, &config)).collect::<Result<_, _>>().map_err(Exit::Usage)?;
    let programs: Vec<Program> = specs
        .iter()
        .map(|s| Program::load(std::path::Path::new(&s.command[0])))
        .collect::<Result<_, _>>()
        .map_err(|e| Exit::Usage(e.to_string()))?;
    let work_dir = match &args.work_dir {
        Some(d) => d.clone(),
        None => std::env::current_dir().context("cannot determine the current directory")?,
    };
    if !work_dir.is_dir() {
        return Err(Exit::Usage(format!("--work-dir {}: not a directory", work_dir.display())).into());
    }
    let jobs = |which: &[usize]| -> Vec<Job> {
        which
            .iter()
            .map(|&j| Job {
                program: &programs[j],
                tiles: specs[j].tiles.clone(),
                args: specs[j].command[1..].to_vec(),
            })
            .collect()
    };
    let all: Vec<usize> = (0..specs.len()).collect();
    let mut chip = Chip::new_jobs(config.clone(), jobs(&all), options(&args, &work_dir))
        .map_err(|e| Exit::Usage(e.to_string()))?;
    // `[job J rank R] ` per chip-wide core.
    let labels: Vec<(usize, usize)> =
        chip.jobs().iter().enumerate().flat_map(|(j, info)| (0..info.tiles.len()).map(move |r| (j, r))).collect();
    if let Some(dir) = &args.console_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create console directory {}", dir.display()))?;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut io_error: Option<std::io::Error> = None;
    let (end, stats) = chip.run(&mut |event| {
        if let Event::Console(line) = event {
            let (j, r) = labels[line.core];
            let result = match &args.console_dir {
                Some(dir) => {
                    let ext = if line.stream == chip::console::Stream::Stdout { "out" } else { "err" };
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(dir.join(format!("job-{j}-rank-{r}.{ext}")))
                        .and_then(|mut f| {
                            f.write_all(&line.text)?;
                            if line.newline {
                                f.write_all(b"\n")?;
                            }
                            Ok(())
                        })
                }
                None => {
                    let mut w: Box<dyn Write> = if line.stream == chip::console::Stream::Stdout {
                        Box::new(&mut out)
                    } else {
                        Box::new(std::io::stderr())
                    };
                    (|| {
                        if !args.no_prefix {
                            write!(w, "[job {j} rank {r}] ")?;
                        }
                        w.write_all(&line.text)?;
                        w.write_all(b"\n")
                    })()
                }
            };
            if let (Err(e), None) = (result, &io_error) {
                io_error = Some(e);
            }
        }
    });
    out.flush()?;
    if let Some(e) = io_error {
        return Err(e.into());
    }
    let together = job_cycles(&chip);
    // Shared links, job against job.
    let link_sets: Vec<BTreeSet<String>> =
        specs.iter().map(|s| links_of(&config, &s.tiles)).collect::<Result<_, _>>().map_err(Exit::Usage)?;
    let mut reports = Vec::new();
    for (j, spec) in specs.iter().enumerate() {
        // Alone: the same job on the same tiles, nothing else on the chip.
        let mut alone = Chip::new_jobs(config.clone(), jobs(&[j]), options(&args, &work_dir))
            .map_err(|e| Exit::Usage(e.to_string()))?;
        let (alone_end, _) = alone.run(&mut |_| {});
        if alone_end.exit_status() != 0 {
            eprintln!(
                "nocmsg: job {j} alone did not end as it did with the others (exit status {})",
                alone_end.exit_status()
            );
        }
        let cycles_alone = job_cycles(&alone)[0];
        let shares_links_with: Vec<SharedLinks> = (0..specs.len())
            .filter(|&k| k != j)
            .filter_map(|k| {
                let links: Vec<String> = link_sets[j].intersection(&link_sets[k]).cloned().collect();
                (!links.is_empty()).then_some(SharedLinks { job: k, links })
            })
            .collect();
        reports.push(JobReport {
            job: j,
            program: spec.command[0].clone(),
            tiles: spec.tiles.clone(),
            cycles: together[j],
            cycles_alone,
            perturbation: together[j] as f64 / cycles_alone.max(1) as f64 - 1.0,
            shares_links_with,
        });
    }
    for r in &reports {
        let shares: Vec<String> = r
            .shares_links_with
            .iter()
            .map(|s| format!("job {} ({} links, e.g. {})", s.job, s.links.len(), s.links[0]))
            .collect();
        eprintln!(
            "nocmsg: job {} ({}): {} cycles with the others, {} alone ({:+.2}%); its routes share links with {}",
            r.job,
            r.program,
            r.cycles,
            r.cycles_alone,
            100.0 * r.perturbation,
            if shares.is_empty() { "no other job".to_string() } else { shares.join(", ") }
        );
    }
    if let Some(path) = &args.stats {
        let mut value = serde_json::to_value(&stats)?;
        value["jobs"] = serde_json::to_value(&reports)?;
        std::fs::write(path, serde_json::to_string_pretty(&value)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    match end.exit_status() {
        0 => Ok(()),
        status => {
            Err(Exit::Status(status, format!("nocmsg: the jobs did not all succeed: {}", end.record().reason)).into())
        }
    }
}
