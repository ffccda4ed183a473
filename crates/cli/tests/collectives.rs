//! libnocmsg's collectives suite (`tests/coll`, see its README) on both ports: built once with `bin/nocmsg-cc` for
//! the simulated PIMP chips and once with `bin/nocmsg-cc-native`, then run natively on 1 to 9 ranks (powers of two
//! and not) and on every core of pimp-2x2, pimp-3x3 and pimp-4x4. The suite checks every algorithm of every
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
    native: PathBuf,
}

/// Builds the suite once per test run, for the simulator and natively.
fn builds() -> &'static Builds {
    static BUILDS: OnceLock<Builds> = OnceLock::new();
    BUILDS.get_or_init(|| {
        let dir = scratch("collectives");
        let builds = Builds { sim: dir.join("coll.elf"), native: dir.join("coll") };
        for (wrapper, out) in [("nocmsg-cc", &builds.sim), ("nocmsg-cc-native", &builds.native)] {
            let cc = root().join("bin").join(wrapper);
            assert!(cc.exists(), "{} does not exist: the collectives suite needs it", cc.display());
            run_checked(
                Command::new(&cc).args(["-O2", "-Wall"]).args(c_sources("tests/coll")).arg("-o").arg(out),
                &format!("{wrapper} tests/coll/*.c"),
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
/// about four times what a passing run takes (0.34G, 0.60G and 0.88G cycles on pimp-2x2, 3x3 and 4x4), so a hang
/// ends as a failure instead of a stuck test.
fn simulated_passes(chip_name: &str, cores: usize, max_cycles: u64) {
    let suite = builds().sim.display().to_string();
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
fn collectives_pass_on_the_9_cores_of_pimp_3x3() {
    simulated_passes("pimp-3x3", 9, 2_500_000_000);
}

#[test]
fn collectives_pass_on_the_16_cores_of_pimp_4x4() {
    simulated_passes("pimp-4x4", 16, 3_500_000_000);
}
