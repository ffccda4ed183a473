//! Hangs and their diagnostics, simulated and native (issue 14 items 5, 10 and 11): deadlocked programs
//! (`tests/diag`) must be reported by rank, the call each rank is blocked in and its caller, the rank it waits for
//! and the wait-for cycle; a raw network deadlock by the whole cycle through both cores and the routers; natively,
//! a rank that exits without finalizing must stop the job; and run-level failures must have exit statuses of their
//! own, recorded with the reason in `stats.json`.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The MPI and libnocmsg programs of tests/diag, built for the simulator and natively.
const PROGRAMS: &[&str] = &["ssend_pair"];
/// Programs of tests/diag for the simulated PIMP chips only.
const SIM_PROGRAMS: &[&str] = &["pimp_send_deadlock"];

fn builds() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("diag");
        let src = root().join("tests/diag");
        for p in PROGRAMS {
            let c = src.join(format!("{p}.c"));
            run_checked(
                Command::new(root().join("bin/nocmsg-cc")).args(["-O2", "-Wall", "-Werror"]).arg(&c).arg("-o").arg(dir.join(format!("{p}.elf"))),
                &format!("nocmsg-cc {p}.c"),
            );
            run_checked(
                Command::new(root().join("bin/nocmsg-cc-native")).args(["-O2", "-Wall", "-Werror"]).arg(&c).arg("-o").arg(dir.join(p)),
                &format!("nocmsg-cc-native {p}.c"),
            );
        }
        for p in SIM_PROGRAMS {
            run_checked(
                Command::new(root().join("bin/nocmsg-cc")).args(["-O2", "-Wall", "-Werror"]).arg(src.join(format!("{p}.c"))).arg("-o").arg(dir.join(format!("{p}.elf"))),
                &format!("nocmsg-cc {p}.c"),
            );
        }
        let exitcode = root().join("tests/programs/exitcode.c");
        run_checked(
            Command::new(root().join("bin/nocmsg-cc")).args(["-O2"]).arg(&exitcode).arg("-o").arg(dir.join("exitcode.elf")),
            "nocmsg-cc exitcode.c",
        );
        dir
    })
}

fn elf(name: &str) -> String {
    builds().join(format!("{name}.elf")).display().to_string()
}

fn nocmsg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(root()).output().expect("nocmsg runs")
}

/// `nocmsg run` on `chip_name` with a stats file: the output and the stats.
fn run(chip_name: &str, args: &[&str]) -> (Output, serde_json::Value) {
    let dir = scratch(&format!("diag-run-{}", args.join("-").replace('/', "_")));
    let stats = dir.join("stats.json").display().to_string();
    let chip_path = chip(chip_name);
    let mut cmd = vec!["run", "--chip", chip_path.as_str(), "--stats", stats.as_str()];
    cmd.extend_from_slice(args);
    let out = nocmsg(&cmd);
    let json = std::fs::read_to_string(&stats).unwrap_or_else(|e| panic!("no stats file: {e}\n{}", show(&out)));
    (out, serde_json::from_str(&json).unwrap())
}

/// Issue 14 item 11: a program's own exit status 3 was also the status of a deadlock. Now a deadlock exits 200,
/// and the stats file says why every run ended.
#[test]
fn a_programs_own_status_is_told_apart_from_a_deadlock() {
    let (own, stats) = run("pimp-2x2", &["-n", "1", &elf("exitcode")]);
    assert_eq!(own.status.code(), Some(3), "{}", show(&own));
    assert_eq!(stats["end"]["reason"], "exit", "{stats:#}");
    assert_eq!(stats["end"]["status"], 3, "{stats:#}");

    let (dead, stats) = run("pimp-2x2", &["-n", "2", &elf("ssend_pair")]);
    assert_eq!(dead.status.code(), Some(200), "{}", show(&dead));
    assert_eq!(stats["end"]["reason"], "deadlock", "{stats:#}");
    assert_eq!(stats["end"]["status"], 200, "{stats:#}");
    assert!(stats["end"]["deadlock"]["waiting"].as_array().is_some_and(|w| w.len() == 2), "{stats:#}");
}

/// Issue 14 item 10: two cores that only send to each other fill both directions of the network. The report used to
/// end at the first receive FIFO ("which it never does"), showing one direction; now it is the whole cycle through
/// both cores' send and receive FIFOs and the routers between them, and both clockings agree on it.
#[test]
fn a_raw_network_deadlock_is_reported_as_the_whole_cycle_through_both_cores() {
    let (out, stats) = run("pimp-2x2", &["-n", "2", &elf("pimp_send_deadlock")]);
    assert_eq!(out.status.code(), Some(200), "{}", show(&out));
    let err = text(&out.stderr);
    assert!(err.contains("cycle of blocked channels"), "{err}");
    let cycle: Vec<&str> = err.lines().skip_while(|l| !l.starts_with("cycle of blocked channels")).skip(1).collect();
    let expect = [
        "core 0 (tile 0) send FIFO [8 flits left to send",
        "router 0 (0,0) input local0 vc 0 [4/4 flits; 4 packets 0->1",
        "router 1 (1,0) input west vc 0 [4/4 flits; 4 packets 0->1",
        "core 1 (tile 1) receive FIFO [16/16 flits; 16 packets 0->1",
        "core 1 (tile 1) send FIFO [8 flits left to send",
        "router 1 (1,0) input local0 vc 0 [4/4 flits; 4 packets 1->0",
        "router 0 (0,0) input east vc 0 [4/4 flits; 4 packets 1->0",
        "core 0 (tile 0) receive FIFO [16/16 flits; 16 packets 1->0",
    ];
    assert_eq!(cycle.len(), expect.len(), "{err}");
    // The cycle may start anywhere; rotate it to start at core 0's send FIFO.
    let start = cycle.iter().position(|l| l.contains(expect[0])).unwrap_or_else(|| panic!("{err}"));
    for (k, want) in expect.iter().enumerate() {
        let line = cycle[(start + k) % cycle.len()];
        assert!(line.contains(want), "step {k}: want {want:?} in {line:?}\n{err}");
    }
    assert!(err.contains("waits for core 1 to receive, which it does only once its send FIFO has room"), "{err}");
    let network = &stats["end"]["deadlock"]["network"];
    assert_eq!(network["wait_cycle"].as_array().map(Vec::len), Some(8), "{stats:#}");

    let (debug, debug_stats) = run("pimp-2x2", &["--debug-clocking", "-n", "2", &elf("pimp_send_deadlock")]);
    assert_eq!(text(&debug.stderr), err, "fast and debug clocking disagree");
    assert_eq!(debug_stats["end"], stats["end"]);
}
