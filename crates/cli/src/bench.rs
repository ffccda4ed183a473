//! `nocmsg bench`: simulator speed, measured in one run so the numbers can be compared as ratios.
//!
//! Each configuration runs in a fresh child process (`nocmsg bench point ...`), one at a time, so it has one core
//! to itself and its peak memory (VmHWM) is its own.

use crate::args::{parse_rate, MeshSize};
use crate::traffic::TrafficArgs;
use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchCommand,
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Network simulation speed in simulated node-cycles per second (uniform traffic, 1-flit packets, 8-flit
    /// buffers, 1 VC, 4stage, XY) on 8x8 and 16x16 at loads 0.05, 0.1, 0.2 and 32x32 at 0.05, plus the 8x8/0.1
    /// point with debug clocking for the speed-up of visiting only busy routers.
    Noc {
        /// CSV to write.
        #[arg(long, default_value = "results/bench/noc_speed.csv")]
        csv: PathBuf,
        /// Measurement window per point, in cycles.
        #[arg(long, default_value_t = 20_000)]
        measure: u64,
        /// Runs per point (each its own process); the fastest is reported, the one least disturbed by whatever
        /// else the machine is doing. Every run simulates exactly the same cycles.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
        runs: u32,
    },
    /// Core simulation speed in simulated million instructions per second (MIPS), aggregated over all cores, for
    /// a compute kernel on one core and on every core of a chip, plus debug clocking for comparison.
    Cores {
        /// The compute kernel, built with bin/nocmsg-cc (make bench builds bench/kernels/compute.c).
        #[arg(long)]
        program: PathBuf,
        #[arg(long, default_value = "chips/pimp-8x8.toml")]
        chip: PathBuf,
        /// Arguments for the kernel (its repetition count).
        #[arg(long, default_value = "8")]
        rounds: String,
        #[arg(long, default_value = "results/bench/core_speed.csv")]
        csv: PathBuf,
        /// Run the kernel as one process whose cores are its threads (`nocmsg run --threads`: cached, coherent
        /// shared memory), with this hashing mode.
        #[arg(long, value_name = "MODE", value_parser = chip::shmem::homing::HashMode::parse)]
        threads: Option<chip::shmem::homing::HashMode>,
    },
    /// (internal) Run one point and print its result as JSON.
    #[command(hide = true)]
    Point {
        #[arg(long)]
        mesh: MeshSize,
        #[arg(long, value_parser = parse_rate)]
        rate: f64,
        #[arg(long)]
        measure: u64,
        #[arg(long)]
        visit_all: bool,
    },
}

/// Parses traffic options the same way `nocmsg traffic` does.
#[derive(Parser)]
struct TrafficOnly {
    #[command(flatten)]
    args: TrafficArgs,
}

#[derive(Serialize, Deserialize, Debug)]
struct PointResult {
    mesh: String,
    rate: f64,
    clocking: String,
    nodes: u64,
    simulated_cycles: u64,
    wall_seconds: f64,
    node_cycles_per_second: f64,
    peak_rss_mib: f64,
    accepted_rate: f64,
    avg_packet_latency: Option<f64>,
    saturated: bool,
}

/// Peak resident memory of this process, from /proc (Linux).
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kib| kib / 1024.0)
        .unwrap_or(f64::NAN)
}

fn point(mesh: MeshSize, rate: f64, measure: u64, visit_all: bool) -> Result<()> {
    let mut args = TrafficOnly::parse_from([
        "traffic".to_string(),
        format!("--mesh={}x{}", mesh.width, mesh.height),
        format!("--rate={rate}"),
        format!("--measure={measure}"),
        "--pattern=uniform".into(),
        "--packet-flits=1".into(),
        "--buffer-flits=8".into(),
        "--vcs=1".into(),
        "--router=4stage".into(),
        "--routing=xy".into(),
    ])
    .args;
    args.visit_all = visit_all;
    let spec = args.spec()?;
    let p = noc::run_rate(&spec, rate, &mut |_| {}).map_err(crate::classify)?;
    let nodes = (mesh.width * mesh.height) as u64;
    let result = PointResult {
        mesh: format!("{}x{}", mesh.width, mesh.height),
        rate,
        clocking: if visit_all { "visit-all".into() } else { "busy-only".into() },
        nodes,
        simulated_cycles: p.simulated_cycles,
        wall_seconds: p.wall_seconds,
        node_cycles_per_second: (nodes * p.simulated_cycles) as f64 / p.wall_seconds,
        peak_rss_mib: peak_rss_mib(),
        accepted_rate: p.accepted_rate,
        avg_packet_latency: p.avg_packet_latency,
        saturated: p.saturated,
    };
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}

pub fn run(args: BenchArgs) -> Result<()> {
    match args.what {
        BenchCommand::Point { mesh, rate, measure, visit_all } => point(mesh, rate, measure, visit_all),
        BenchCommand::Noc { csv, measure, runs } => noc_speed(&csv, measure, runs),
        BenchCommand::Cores { program, chip, rounds, csv, threads } => core_speed(&program, &chip, &rounds, &csv, threads),
    }
}

#[derive(Serialize, Debug)]
struct CoreSpeed {
    chip: String,
    cores: usize,
    clocking: &'static str,
    instructions: u64,
    total_cycles: u64,
    host_seconds: f64,
    mips: f64,
}

fn core_speed(
    program: &std::path::Path,
    chip_path: &std::path::Path,
    rounds: &str,
    csv_path: &std::path::Path,
    threads: Option<chip::shmem::homing::HashMode>,
) -> Result<()> {
    use chip::chip::{Chip, RunEnd, RunOptions};
    let config = chip::ChipConfig::load(chip_path).map_err(|e| crate::Exit::Usage(e.to_string()))?;
    let prog = chip::Program::load(program).map_err(|e| crate::Exit::Usage(e.to_string()))?;
    let all = config.tiles();
    let mut results = Vec::new();
    println!("{:>10} {:>6} {:>8} {:>14} {:>12} {:>8} {:>8}", "chip", "cores", "clocking", "instructions", "cycles", "seconds", "MIPS");
    for (cores, debug) in [(1, false), (all, false), (all, true)] {
        let options = RunOptions {
            tiles: (0..cores).collect(),
            args: vec![rounds.to_string()],
            debug_clocking: debug,
            max_cycles: 0,
            work_dir: std::env::current_dir()?,
            profile: false,
            background: vec![],
            env: vec![],
            comm_profile: false,
            memory: match threads {
                Some(hash_mode) => chip::chip::MemoryOptions { cached: true, cores_per_process: cores, hash_mode, ..Default::default() },
                None => Default::default(),
            },
            perturb: None,
        };
        let mut chip = Chip::new(config.clone(), &prog, options).map_err(|e| crate::Exit::Usage(e.to_string()))?;
        let (end, stats) = chip.run(&mut |_| {});
        if end != RunEnd::Success {
            bail!("the kernel did not exit cleanly on {cores} cores: {end:?}");
        }
        let r = CoreSpeed {
            chip: config.name.clone(),
            cores,
            clocking: if debug { "debug" } else { "fast" },
            instructions: stats.instructions,
            total_cycles: stats.total_cycles,
            host_seconds: stats.host.seconds,
            mips: stats.host.mips,
        };
        println!("{:>10} {:>6} {:>8} {:>14} {:>12} {:>8.3} {:>8.1}", r.chip, r.cores, r.clocking, r.instructions, r.total_cycles, r.host_seconds, r.mips);
        results.push(r);
    }
    println!("fast / debug clocking speed ratio on {all} cores: {:.2}", results[1].mips / results[2].mips);
    write_csv(csv_path, &results)
}

fn noc_speed(csv_path: &std::path::Path, measure: u64, runs: u32) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find the nocmsg executable")?;
    let mut configs: Vec<(&str, f64, bool)> = Vec::new();
    for mesh in ["8x8", "16x16"] {
        for rate in [0.05, 0.1, 0.2] {
            configs.push((mesh, rate, false));
        }
    }
    configs.push(("32x32", 0.05, false));
    configs.push(("8x8", 0.1, true));
    let mut results = Vec::new();
    println!("{:>6} {:>5} {:>9} {:>12} {:>8} {:>16} {:>9} {:>8}", "mesh", "rate", "clocking", "cycles", "seconds", "node-cycles/s", "peak MiB", "accepted");
    for (mesh, rate, visit_all) in configs {
        let mut best: Option<PointResult> = None;
        for _ in 0..runs {
            let mut cmd = std::process::Command::new(&exe);
            cmd.args(["bench", "point", "--mesh", mesh, "--rate", &rate.to_string(), "--measure", &measure.to_string()]);
            if visit_all {
                cmd.arg("--visit-all");
            }
            let out = cmd.output().context("cannot run a benchmark point")?;
            if !out.status.success() {
                bail!("benchmark point {mesh} @ {rate} failed: {}", String::from_utf8_lossy(&out.stderr).trim());
            }
            let r: PointResult = serde_json::from_slice(&out.stdout).context("benchmark point printed no result")?;
            if best.as_ref().map_or(true, |b| r.node_cycles_per_second > b.node_cycles_per_second) {
                best = Some(r);
            }
        }
        let r = best.expect("at least one run");
        println!(
            "{:>6} {:>5} {:>9} {:>12} {:>8.3} {:>16.0} {:>9.1} {:>8.4}",
            r.mesh, r.rate, r.clocking, r.simulated_cycles, r.wall_seconds, r.node_cycles_per_second, r.peak_rss_mib, r.accepted_rate
        );
        results.push(r);
    }
    let fast = results.iter().find(|r| r.mesh == "8x8" && r.rate == 0.1 && r.clocking == "busy-only");
    let slow = results.iter().find(|r| r.mesh == "8x8" && r.rate == 0.1 && r.clocking == "visit-all");
    if let (Some(f), Some(s)) = (fast, slow) {
        println!("busy-only / visit-all speed ratio on 8x8 @ 0.1: {:.2}", f.node_cycles_per_second / s.node_cycles_per_second);
    }
    std::io::stdout().flush()?;
    write_csv(csv_path, &results)
}

/// Writes benchmark rows as CSV, creating the directory, and says where.
fn write_csv<T: Serialize>(csv_path: &std::path::Path, rows: &[T]) -> Result<()> {
    if let Some(dir) = csv_path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut w = csv::Writer::from_path(csv_path).with_context(|| format!("cannot create {}", csv_path.display()))?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    println!("wrote {}", csv_path.display());
    Ok(())
}
