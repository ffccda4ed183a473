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
