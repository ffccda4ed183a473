//! libnocmsg's C test suite (`tests/lib`, see its README) on both ports: built with `bin/nocmsg-cc` for the
//! simulated PIMP chips and with `bin/nocmsg-cc-native` for Linux processes, run on 1, 2, 3, 4 and 8 native ranks,
//! on the 4 cores of pimp-2x2 and the 16 cores of pimp-4x4. Every run must pass, and the random-pattern checksum
//! (which depends only on the number of ranks) must be the same natively and simulated: a differential test of the
//! two ports.
//!
//! Nothing is skipped: a missing cross compiler or native wrapper fails the build step with its message.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Native rank counts that must pass; 16 is also run, for the comparison with pimp-4x4.
const NATIVE_RANKS: &[usize] = &[1, 2, 3, 4, 8];
const SEEDS_PREFIX: &str = "libnocmsg random patterns: 100 seeds, ";







/// The suite's sources: every `.c` file in tests/lib, in a fixed order.
fn sources() -> Vec<PathBuf> {
    let dir = root().join("tests/lib");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "c"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no C sources in {}", dir.display());
    files
}

struct Builds {
    sim: PathBuf,
    native: PathBuf,
}

/// Builds the suite once per test run, for the simulator and natively.
fn builds() -> &'static Builds {
    static BUILDS: OnceLock<Builds> = OnceLock::new();
    BUILDS.get_or_init(|| {
        let dir = scratch("libnocmsg");
        let builds = Builds { sim: dir.join("suite.elf"), native: dir.join("suite") };
        for (wrapper, out) in [("nocmsg-cc", &builds.sim), ("nocmsg-cc-native", &builds.native)] {
            let cc = root().join("bin").join(wrapper);
            assert!(cc.exists(), "{} does not exist: the library suite needs it", cc.display());
            run_checked(
                Command::new(&cc).args(["-O2", "-Wall"]).args(sources()).arg("-o").arg(out),
                &format!("{wrapper} tests/lib/*.c"),
            );
        }
        builds
    })
}

fn nocmsg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(root()).output().expect("nocmsg runs")
}

/// `nocmsg native -n N`, run once per test run and rank count.
fn native(ranks: usize) -> &'static Output {
    static RUNS: [OnceLock<Output>; 17] = [const { OnceLock::new() }; 17];
    RUNS[ranks].get_or_init(|| {
        let suite = builds().native.display().to_string();
        nocmsg(&["native", "-n", &ranks.to_string(), "--timeout", "120", &suite])
    })
}

/// `nocmsg run` on every core of a chip, once per test run and chip.
fn simulated(chip_name: &str) -> &'static Output {
    static RUNS: [OnceLock<Output>; 2] = [const { OnceLock::new() }; 2];
    let (slot, extra): (usize, &[&str]) = match chip_name {
        "pimp-2x2" => (0, &[]),
        "pimp-4x4" => (1, &["--max-cycles", "2000000000"]),
        other => panic!("no run set up for chip {other}"),
    };
    RUNS[slot].get_or_init(|| {
        let c = chip(chip_name);
        let suite = builds().sim.display().to_string();
        let mut args = vec!["run", "--chip", c.as_str()];
        args.extend_from_slice(extra);
        args.push(&suite);
        nocmsg(&args)
    })
}

/// A console line without its `[core N] ` or `[rank N] ` prefix, if it has one.
fn unprefixed(line: &str) -> &str {
    if let Some(rest) = line.strip_prefix('[') {
        if let Some((label, text)) = rest.split_once("] ") {
            let mut words = label.split(' ');
            if matches!(words.next(), Some("core" | "rank")) && words.next().is_some_and(|n| n.parse::<usize>().is_ok()) {
                return text;
            }
        }
    }
    line
}

/// Checks a native run: success, no failure reports, the summary line once, and returns the checksum line.
fn native_passed(ranks: usize) -> String {
    let out = native(ranks);
    let what = format!("native, {ranks} ranks");
    assert!(out.status.success(), "{what}: the suite failed\n{}", show(out));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().map(unprefixed).collect();
    assert!(!lines.iter().any(|l| l.starts_with("FAIL")), "{what}: failure reports\n{}", show(out));
    assert!(!text(&out.stderr).lines().any(|l| unprefixed(l).starts_with("FAIL")), "{what}: failure reports\n{}", show(out));
    let summary = format!("libnocmsg suite: {ranks} ranks, all checks passed");
    assert_eq!(lines.iter().filter(|l| **l == summary).count(), 1, "{what}: expected {summary:?} once\n{}", show(out));
    let checksums: Vec<&&str> = lines.iter().filter(|l| l.starts_with(SEEDS_PREFIX)).collect();
    assert_eq!(checksums.len(), 1, "{what}: expected one checksum line\n{}", show(out));
    checksums[0].to_string()
}

/// Checks a simulated run: success, and exactly the two lines of rank 0 on the console. Returns the checksum line.
fn simulated_passed(chip_name: &str, ranks: usize) -> String {
    let out = simulated(chip_name);
    let what = format!("{chip_name}, {ranks} cores");
    assert!(out.status.success(), "{what}: the suite failed\n{}", show(out));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{what}: expected rank 0's two lines and nothing else\n{}", show(out));
    assert_eq!(lines[0], format!("[core 0] libnocmsg suite: {ranks} ranks, all checks passed"), "{what}\n{}", show(out));
    let checksum = lines[1].strip_prefix("[core 0] ").unwrap_or_else(|| panic!("{what}: second line {:?}", lines[1]));
    assert!(checksum.starts_with(SEEDS_PREFIX), "{what}: second line {checksum:?}");
    checksum.to_string()
}

#[test]
fn suite_passes_natively_on_1_2_3_4_and_8_ranks() {
    for &ranks in NATIVE_RANKS {
        native_passed(ranks);
    }
}

#[test]
fn suite_passes_on_the_4_cores_of_pimp_2x2() {
    simulated_passed("pimp-2x2", 4);
}

#[test]
fn suite_passes_on_the_16_cores_of_pimp_4x4() {
    simulated_passed("pimp-4x4", 16);
}

#[test]
fn random_pattern_checksums_agree_between_native_and_simulated() {
    // Same rank count, same messages, same bytes: the ports must deliver identical contents.
    assert_eq!(native_passed(4), simulated_passed("pimp-2x2", 4), "4 ranks: native vs pimp-2x2");
    assert_eq!(native_passed(16), simulated_passed("pimp-4x4", 16), "16 ranks: native vs pimp-4x4");
}
