//! The RCCE-compatible library (`lib/rcce`, docs/rcce.md) on the MPB chips: every program of `tests/rcce`, built
//! with `bin/nocmsg-cc --rcce`, checks its own results (a failed check prints `FAIL ue U ...` and exits non-zero)
//! and rank 0 prints what passed, which must match `tests/rcce/NAME.CHIP.expected` exactly: all of them on the 4
//! cores of mpb-2x2, the cheap ones on the 64 cores of mpb-8x8, and all but the long collectives suite on an SCC-like
//! variant of mpb-2x2 (two cores per router, so 8 KiB of MPB per UE as on the SCC and scc-48, and UEs that
//! share a router's MPB); the ring and the locks on the 48 cores of scc-48 itself. Also: fast and debug clocking
//! give identical stats for an RCCE program, and RCCE_send / RCCE_recv round trips on mpb-8x8 stay near what they
//! cost when the library was written.
//!
//! Nothing is skipped: a missing cross compiler fails the build step with its message.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The test programs, `tests/rcce/NAME.c`.
const PROGRAMS: &[&str] = &["pingpong", "ring", "barrier", "coll", "putget", "locks", "split"];

/// Builds every program once per test run.
fn builds() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("rcce");
        let sources = c_sources("tests/rcce");
        for p in PROGRAMS {
            let c = sources.iter().find(|s| s.file_stem().is_some_and(|stem| stem == *p)).unwrap_or_else(|| panic!("tests/rcce/{p}.c"));
            run_checked(
                Command::new(root().join("bin/nocmsg-cc")).args(["--rcce", "-O2", "-Wall", "-Wextra", "-Werror"]).arg(c).arg("-o").arg(dir.join(format!("{p}.elf"))),
                &format!("nocmsg-cc --rcce {p}.c"),
            );
        }
        dir
    })
}

fn elf(name: &str) -> String {
    builds().join(format!("{name}.elf")).display().to_string()
}

fn nocmsg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(root()).output().expect("nocmsg runs")
}

/// Runs `program args` on every core of `chip` (a path) with a cycle limit, so that a hang fails instead of stalling
/// the suite; returns rank 0's lines without their prefix after checking the run passed and no other core printed.
fn run_rcce(chip: &str, max_cycles: u64, program: &str, args: &[&str]) -> String {
    // A test program's name, or the path of an ELF built elsewhere.
    let path = if program.ends_with(".elf") { program.to_string() } else { elf(program) };
    let limit = max_cycles.to_string();
    let mut cmd = vec!["run", "--chip", chip, "--max-cycles", &limit, &path];
    cmd.extend_from_slice(args);
    let out = nocmsg(&cmd);
    let what = format!("{program} {} on {chip}", args.join(" "));
    assert!(out.status.success(), "{what} failed\n{}", show(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.lines().all(|l| l.starts_with("[core 0] ")), "{what}: lines from other cores\n{}", show(&out));
    stdout.lines().map(|l| format!("{}\n", &l["[core 0] ".len()..])).collect()
}

fn expected(program: &str, chip_name: &str) -> String {
    let path = root().join(format!("tests/rcce/{program}.{chip_name}.expected"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_rcce_program_passes_on_the_4_cores_of_mpb_2x2() {
    // The longest, coll, runs 42M cycles; pingpong 11M.
    for p in PROGRAMS {
        let got = run_rcce(&chip("mpb-2x2"), 200_000_000, p, &[]);
        assert_eq!(got, expected(p, "mpb-2x2"), "{p} on mpb-2x2");
    }
}

/// The cheap programs on 64 cores: every UE that waits polls its flags, which makes long 64-core runs slow to
/// simulate (pingpong's 11M cycles take 7 s there), so the long ones stay on 4 cores.
#[test]
fn ring_locks_and_barrier_pass_on_the_64_cores_of_mpb_8x8() {
    for (p, args) in [("ring", &[][..]), ("locks", &[][..]), ("barrier", &["30"][..])] {
        // 0.25M, 1.3M and 0.93M cycles.
        let got = run_rcce(&chip("mpb-8x8"), 20_000_000, p, args);
        assert_eq!(got, expected(p, "mpb-8x8"), "{p} on mpb-8x8");
    }
}

/// The SCC itself (chips/scc-48.toml: rv64gc cores at 533 MHz, mesh at 800 MHz, two UEs per router, 8 KiB shares):
/// the ring and the locks on all 48 UEs, built for its ISA.
#[test]
fn ring_and_locks_pass_on_the_48_cores_of_scc_48() {
    let dir = scratch("rcce-scc-48");
    let scc = chip("scc-48");
    let runs = [
        ("ring", "ring: the token went round 3 times, sum 3384 ok\nring: 4 shifts of 1000 bytes on 48 UEs ok\n"),
        ("locks", "locks: 48 UEs x 50 rounds on two locks, counters 2400 and 4800 ok\n"),
    ];
    for (p, want) in runs {
        let out = dir.join(format!("{p}.elf"));
        run_checked(
            Command::new(root().join("bin/nocmsg-cc"))
                .args(["--chip", &scc, "--rcce", "-O2", "-Wall", "-Werror"])
                .arg(root().join(format!("tests/rcce/{p}.c")))
                .arg("-o")
                .arg(&out),
            &format!("nocmsg-cc --chip scc-48 --rcce {p}.c"),
        );
        assert_eq!(run_rcce(&scc, 200_000_000, out.to_str().unwrap(), &[]), want, "{p} on scc-48");
    }
}

/// mpb-2x2 with two cores per router: 8 UEs, each owning 8 KiB of its router's 16 KiB MPB, as on the SCC.
fn scc_like_chip(dir: &Path) -> String {
    let text = std::fs::read_to_string(chip("mpb-2x2")).unwrap();
    let text = text.replacen("height = 2\n", "height = 2\nconcentration = 2\n", 1).replacen("name = \"mpb-2x2\"", "name = \"mpb-2x2-c2\"", 1);
    assert!(text.contains("concentration = 2") && text.contains("mpb-2x2-c2"), "mpb-2x2.toml has a [mesh] height and a name");
    let path = dir.join("mpb-2x2-c2.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn rcce_programs_pass_with_8_kib_shares_and_two_ues_per_router() {
    let chip = scc_like_chip(&scratch("rcce-scc-like"));
    let runs: &[(&str, &[&str])] = &[("pingpong", &["1"]), ("pingpong", &["7"]), ("ring", &[]), ("barrier", &[]), ("putget", &[]), ("locks", &[]), ("split", &[])];
    for (p, args) in runs {
        let got = run_rcce(&chip, 100_000_000, p, args);
        // The same checks as on mpb-2x2, with 8 UEs and another peer.
        let want = expected(p, "mpb-2x2").replace("on 4 UEs", "on 8 UEs").replace("4 UEs x", "8 UEs x");
        let want = match *p {
            "pingpong" => want.replace("0<->1:", &format!("0<->{}:", args[0])),
            "ring" => want.replace("sum 18", "sum 84"),
            "locks" => want.replace("counters 200 and 400", "counters 400 and 800"),
            _ => want,
        };
        assert_eq!(got, want, "{p} {args:?} on the SCC-like chip");
    }
}

/// Fast and debug clocking must agree byte for byte (apart from the host and clocking sections) on RCCE programs
/// that use every kind of MPB access: flags, put/get across shares, test-and-set registers, shared memory, and
/// (on the SCC-like chip) shares of one router's MPB.
#[test]
fn fast_and_debug_clocking_agree_on_rcce_programs() {
    let dir = scratch("rcce-clocking");
    let scc_like = scc_like_chip(&dir);
    for (c, p) in [(chip("mpb-2x2"), "putget"), (chip("mpb-2x2"), "locks"), (scc_like, "split")] {
        let mut runs = Vec::new();
        for debug in [false, true] {
            let stats = dir.join(format!("{p}-{debug}.json"));
            let stats_s = stats.display().to_string();
            let path = elf(p);
            let mut args = vec!["run", "--chip", &c, "--stats", &stats_s];
            if debug {
                args.push("--debug-clocking");
            }
            args.push(&path);
            let out = nocmsg(&args);
            assert!(out.status.success(), "{p} (debug clocking: {debug})\n{}", show(&out));
            let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
            let obj = json.as_object_mut().unwrap();
            obj.remove("host");
            obj.remove("clocking");
            runs.push((text(&out.stdout), json));
        }
        assert_eq!(runs[0].0, runs[1].0, "{p}: console output differs between clockings");
        assert_eq!(runs[0].1, runs[1].1, "{p}: stats differ between clockings");
        let ni = &runs[0].1["cores"][1]["ni"];
        assert!(ni["lines_in"].as_u64().unwrap() > 0 && ni["flushes"].as_u64().unwrap() > 0, "{p} used the MPBs: {ni}");
    }
}

/// The round trip of RCCE_send/RCCE_recv between neighbours of mpb-8x8 (pingpong.c --cycles, mean of 10): 773
/// cycles for 8 bytes and 68,186 for 8 KiB (two chunks of the 8064-byte comm buffer) when the library was written;
/// held within 25%, so that a change of protocol cost (an extra flush or invalidation per line, a lost line of
/// write-combining) shows.
#[test]
fn rcce_round_trips_between_neighbours_of_mpb_8x8_stay_near_their_cost() {
    for (bytes, cycles) in [(8u64, 773u64), (8192, 68_186)] {
        let got = run_rcce(&chip("mpb-8x8"), 20_000_000, "pingpong", &["--cycles", "1", &bytes.to_string(), "10"]);
        let prefix = format!("round trip 0<->1, {bytes} bytes: ");
        let measured: u64 = got
            .strip_prefix(&prefix)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("pingpong --cycles printed {got:?}"));
        assert!(measured * 4 <= cycles * 5 && measured * 4 >= cycles * 3, "{bytes} bytes: {measured} cycles, expected {cycles} within 25%");
    }
}

#[test]
fn nocmsg_cc_rcce_adds_the_header_path_and_the_library() {
    let out = Command::new(root().join("bin/nocmsg-cc")).args(["--rcce", "-show", "prog.c"]).output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let line = text(&out.stdout);
    assert!(line.contains("lib/rcce/include") && line.contains("lib/rcce/build/sim-rv64im-lp64/librcce.a"), "{line}");
    let lrcce = Command::new(root().join("bin/nocmsg-cc")).args(["-show", "prog.c", "-lrcce"]).output().unwrap();
    assert_eq!(text(&lrcce.stdout), line, "-lrcce does what --rcce does\n{}", show(&lrcce));
    let plain = Command::new(root().join("bin/nocmsg-cc")).args(["-show", "prog.c"]).output().unwrap();
    assert!(!text(&plain.stdout).contains("lib/rcce"), "without --rcce: {}", text(&plain.stdout));
}
