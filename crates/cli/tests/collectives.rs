//! libnocmsg's collectives suite (`tests/coll`, see its README) on both ports: built once with `bin/nocmsg-cc` for
//! the simulated PIMP chips and once with `bin/nocmsg-cc-native`, then run natively on 1 to 9 ranks (powers of two
//! and not) and on every core of pimp-2x2, pimp-3x3 and pimp-4x4, and built for the MPB port (`--chip mpb-2x2`) on
//! the 4 cores of mpb-2x2 and for the UDN port (`--chip udn-2x2`) on the 4 cores of udn-2x2. The suite checks every algorithm of every
//! collective operation against a naive reference computed on each rank, so a run passes only if all of them agree
//! with MPI's semantics; these tests assert that it passed and that rank 0 said so, and nothing else was printed.
//!
//! Nothing is skipped: a missing cross compiler or native wrapper fails the build step with its message.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

const NATIVE_RANKS: &[usize] = &[1, 2, 3, 4, 5, 6, 7, 8, 9];
const SUMMARY_PREFIX: &str = "libnocmsg collectives: ";

struct Builds {
    sim: PathBuf,
    /// For the MPB chips (lib/ports/mpb.c).
    sim_mpb: PathBuf,
    /// For the UDN chips (lib/ports/udn.c).
    sim_udn: PathBuf,
    native: PathBuf,
}

/// Builds the suite once per test run, for the simulator and natively.
fn builds() -> &'static Builds {
    static BUILDS: OnceLock<Builds> = OnceLock::new();
    BUILDS.get_or_init(|| {
        let dir = scratch("collectives");
        let builds = Builds {
            sim: dir.join("coll.elf"),
            sim_mpb: dir.join("coll-mpb.elf"),
            sim_udn: dir.join("coll-udn.elf"),
            native: dir.join("coll"),
        };
        for (wrapper, flags, out) in [
            ("nocmsg-cc", &[][..], &builds.sim),
            ("nocmsg-cc", &["--chip", "mpb-2x2"][..], &builds.sim_mpb),
            ("nocmsg-cc", &["--chip", "udn-2x2"][..], &builds.sim_udn),
            ("nocmsg-cc-native", &[][..], &builds.native),
        ] {
            let cc = root().join("bin").join(wrapper);
            assert!(cc.exists(), "{} does not exist: the collectives suite needs it", cc.display());
            run_checked(
                Command::new(&cc).args(["-O2", "-Wall"]).args(flags).args(c_sources("tests/coll")).arg("-o").arg(out),
                &format!("{wrapper} {} tests/coll/*.c", flags.join(" ")),
            );
        }
        builds
    })
}

fn nocmsg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(root()).output().expect("nocmsg runs")
}

/// rank 0's two lines: the pass line, and the summary of algorithms and calls.
fn check_lines(what: &str, lines: &[&str], ranks: usize, out: &Output) {
    assert_eq!(lines.len(), 2, "{what}: expected rank 0's two lines and nothing else\n{}", show(out));
    assert_eq!(lines[0], format!("{SUMMARY_PREFIX}{ranks} ranks, all checks passed"), "{what}\n{}", show(out));
    assert!(
        lines[1].starts_with(SUMMARY_PREFIX) && lines[1].contains(" algorithms of 10 operations, "),
        "{what}: second line {:?}\n{}",
        lines[1],
        show(out)
    );
}

/// `nocmsg native -n N`: success, no failure reports, and exactly rank 0's two lines.
fn native_passes(ranks: usize) {
    let suite = builds().native.display().to_string();
    let out = nocmsg(&["native", "-n", &ranks.to_string(), "--timeout", "120", &suite]);
    let what = format!("native, {ranks} ranks");
    assert!(out.status.success(), "{what}: the suite failed\n{}", show(&out));
    assert!(!text(&out.stderr).lines().any(|l| l.contains("FAIL")), "{what}: failure reports\n{}", show(&out));
    let stdout = text(&out.stdout);
    check_lines(&what, &stdout.lines().collect::<Vec<_>>(), ranks, &out);
}

/// `nocmsg run` on every core of a chip: success, and exactly rank 0's two lines on the console. `max_cycles` is
/// about four times what a passing run takes (0.34G, 0.60G and 0.88G cycles on pimp-2x2, 3x3 and 4x4, 0.40G on
/// mpb-2x2), so a hang ends as a failure instead of a stuck test. MPB chips run the MPB build.
fn simulated_passes(chip_name: &str, cores: usize, max_cycles: u64) {
    let build = match chip_name {
        c if c.starts_with("mpb-") => &builds().sim_mpb,
        c if c.starts_with("udn-") => &builds().sim_udn,
        _ => &builds().sim,
    };
    let suite = build.display().to_string();
    let out = nocmsg(&["run", "--chip", &chip(chip_name), "--max-cycles", &max_cycles.to_string(), &suite]);
    let what = format!("{chip_name}, {cores} cores");
    assert!(out.status.success(), "{what}: the suite failed\n{}", show(&out));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().map(|l| l.strip_prefix("[core 0] ").unwrap_or(l)).collect();
    assert!(stdout.lines().all(|l| l.starts_with("[core 0] ")), "{what}: lines from other cores\n{}", show(&out));
    check_lines(&what, &lines, cores, &out);
}

#[test]
fn collectives_pass_natively_on_1_to_9_ranks() {
    for &ranks in NATIVE_RANKS {
        native_passes(ranks);
    }
}

#[test]
fn collectives_pass_on_the_4_cores_of_pimp_2x2() {
    simulated_passes("pimp-2x2", 4, 1_500_000_000);
}

#[test]
fn collectives_pass_on_the_4_cores_of_mpb_2x2() {
    simulated_passes("mpb-2x2", 4, 1_600_000_000);
}

/// 0.35G cycles.
#[test]
fn collectives_pass_on_the_4_cores_of_udn_2x2() {
    simulated_passes("udn-2x2", 4, 1_500_000_000);
}

#[test]
fn collectives_pass_on_the_9_cores_of_pimp_3x3() {
    simulated_passes("pimp-3x3", 9, 2_500_000_000);
}

#[test]
fn collectives_pass_on_the_16_cores_of_pimp_4x4() {
    simulated_passes("pimp-4x4", 16, 3_500_000_000);
}

/// The exchanges of allreduce on pimp-8x8 (bench/micro/coll.c, simulated cycles from a common start, one run per
/// algorithm): pairwise exchanges whose packets the way between the partners does not hold (on pimp-8x8 28 + 4 x hops
/// words, so from about 232 bytes, and less where paths are shared) used to hand the rest of both sends to the
/// progress engine, which cost each exchange about 2,000 cycles: recursive doubling of 256 B on 64 cores took 21,000
/// to 27,000 cycles (now about 10,000) and Rabenseifner of 512 B 25,000 (now about 7,600); held to 14,000 and 12,000.
/// And the selector's pick ("auto") within 1.2x of the fastest algorithm on both sides of each of its allreduce rules,
/// on 64 and 16 cores (its rules used to pick recursive doubling at 128 B on 64 cores: 2.0x the best then, and
/// Rabenseifner at 64 B and the ring at 1 KiB on 16 cores: 1.26x and 1.48x).
#[test]
fn allreduce_exchanges_stay_lean_and_the_selector_picks_within_1_2x_of_the_best() {
    let dir = scratch("allreduce-exchanges");
    let elf = dir.join("coll.elf");
    run_checked(
        Command::new(root().join("bin/nocmsg-cc")).args(["-O2"]).arg(root().join("bench/micro/coll.c")).arg("-o").arg(&elf),
        "nocmsg-cc bench/micro/coll.c",
    );
    let list = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", "--no-prefix", &elf.display().to_string(), "--list", "allreduce"]);
    assert!(list.status.success(), "coll --list allreduce\n{}", show(&list));
    let algorithms: Vec<String> = text(&list.stdout).split_whitespace().map(String::from).chain(["auto".to_string()]).collect();
    for (cores, sizes) in [("64", "128,256,512,2048,4096"), ("16", "64,128,1024,2048")] {
        // One run per algorithm, with the experiments' counts (experiments/collbench.py, sim_job): each starts from a
        // fresh chip, and a point is the mean of up to 5 calls.
        let mut csv = String::new();
        for algorithm in &algorithms {
            let args = ["run", "--chip", &chip("pimp-8x8"), "-n", cores, "--no-prefix", &elf.display().to_string(), "--op",
                        "allreduce", "--alg", algorithm, "--sizes", sizes, "--iters", "5", "--budget", "400000",
                        "--warmup", "1"];
            let out = nocmsg(&args);
            assert!(out.status.success(), "bench/micro/coll.c ({algorithm}) on {cores} cores of pimp-8x8\n{}", show(&out));
            csv.extend(text(&out.stdout).lines().skip(1).map(|l| format!("{l}\n")));
        }
        // op,algorithm,chosen,ranks,bytes,root,iterations,sync,time,unit,xfer,status
        let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
        assert!(rows.iter().all(|r| r.len() == 12 && r[11] == "ok"), "{cores} cores: runs that did not check out\n{csv}");
        let time = |algorithm: &str, bytes: &str| -> f64 {
            let row = rows.iter().find(|r| r[1] == algorithm && r[4] == bytes);
            let row = row.unwrap_or_else(|| panic!("no {algorithm} row for {bytes} B in\n{csv}"));
            row[8].parse().unwrap_or_else(|_| panic!("bad time in {row:?}"))
        };
        if cores == "64" {
            let rd = time("recursive_doubling", "256");
            assert!(rd <= 14000.0, "recursive_doubling of 256 B on 64 cores: {rd} cycles, at most 14,000 (was 21,000 to 27,000)\n{csv}");
            let rab = time("rabenseifner", "512");
            assert!(rab <= 12000.0, "rabenseifner of 512 B on 64 cores: {rab} cycles, at most 12,000 (was 25,000)\n{csv}");
        }
        // The pick is judged by its own run among the others: Rabenseifner's runs from 1 KiB depend on what ran
        // before by up to 2x (docs/collectives.md), so "auto"'s separate run of it may differ.
        for bytes in sizes.split(',') {
            let named = rows.iter().filter(|r| r[1] != "auto" && r[4] == bytes);
            let best = named.min_by(|a, b| a[8].parse::<f64>().unwrap().total_cmp(&b[8].parse::<f64>().unwrap())).unwrap();
            let pick = rows.iter().find(|r| r[1] == "auto" && r[4] == bytes).unwrap()[2];
            let ratio = time(pick, bytes) / time(best[1], bytes);
            assert!(ratio <= 1.2, "{cores} cores, {bytes} B: auto picks {pick}, {ratio:.2}x {} (the fastest)\n{csv}", best[1]);
        }
    }
}
