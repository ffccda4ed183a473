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
use std::time::{Duration, Instant};

/// The MPI and libnocmsg programs of tests/diag, built for the simulator and natively.
const PROGRAMS: &[&str] = &["ssend_pair", "recv_cycle", "nocmsg_mismatch", "unfinalized", "slow_sender"];
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

fn native_program(name: &str) -> String {
    builds().join(name).display().to_string()
}

/// `nocmsg native -n ranks` of a tests/diag program, with a time limit far beyond what any case needs: the output
/// and how long it took.
fn native(ranks: usize, program: &str, args: &[&str]) -> (Output, Duration) {
    let ranks = ranks.to_string();
    let program = native_program(program);
    let mut cmd = vec!["native", "-n", ranks.as_str(), "--timeout", "30", program.as_str()];
    cmd.extend_from_slice(args);
    let started = Instant::now();
    let out = nocmsg(&cmd);
    (out, started.elapsed())
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

/// The report's line for `rank`, which must exist.
fn rank_line<'a>(report: &'a str, rank: usize) -> &'a str {
    let prefix = format!("  rank {rank} ");
    report.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("no line for rank {rank} in\n{report}"))
}

/// Checks a simulated deadlock's report: each rank's call, caller and waits-for, and the cycle line.
fn check_sim_report(err: &str, ranks: &[(usize, &str, &str)], cycle: &str) {
    assert!(err.starts_with("nocmsg: deadlock at cycle "), "{err}");
    assert!(err.lines().next().unwrap().ends_with("every running rank is blocked and the network is empty"), "{err}");
    for &(rank, call, waits_for) in ranks {
        let line = rank_line(err, rank);
        let want = format!("  rank {rank} (tile {rank}) in {call} called from main+0x");
        assert!(line.starts_with(&want), "want {want:?}...\n{err}");
        assert!(line.contains(&format!(", {waits_for} [pc 0x")), "want {waits_for:?} in {line:?}\n{err}");
    }
    assert!(err.lines().any(|l| l == format!("  {cycle}")), "want {cycle:?} in\n{err}");
}

/// Issue 14 item 10: an MPI program deadlocked in MPI_Ssend used to be reported as cores at a pc waiting for a
/// message; now each rank is named with its call, caller and the rank it waits for, and the cycle; the stats
/// file has the same, and both clockings agree.
#[test]
fn an_mpi_ssend_deadlock_names_ranks_calls_callers_and_the_cycle() {
    let (out, stats) = run("pimp-2x2", &["-n", "2", &elf("ssend_pair")]);
    assert_eq!(out.status.code(), Some(200), "{}", show(&out));
    let err = text(&out.stderr);
    check_sim_report(&err, &[(0, "MPI_Ssend", "waits for rank 1"), (1, "MPI_Ssend", "waits for rank 0")], "wait-for cycle: rank 0 -> rank 1 -> rank 0");
    let deadlock = &stats["end"]["deadlock"];
    assert_eq!(deadlock["wait_cycle"], serde_json::json!([0, 1]), "{stats:#}");
    assert_eq!(deadlock["waiting"][0]["call"], "MPI_Ssend", "{stats:#}");
    assert_eq!(deadlock["waiting"][0]["waits_for"], serde_json::json!({"rank": 1}), "{stats:#}");
    assert!(deadlock["waiting"][1]["caller"].as_str().unwrap().starts_with("main+0x"), "{stats:#}");

    let (debug, debug_stats) = run("pimp-2x2", &["--debug-clocking", "-n", "2", &elf("ssend_pair")]);
    assert_eq!(text(&debug.stderr), err, "fast and debug clocking disagree");
    assert_eq!(debug_stats["cores"], stats["cores"]);
}

/// A cycle of three blocking receives, taken by the inline fast path (which waits in main itself, so the call's
/// name comes from the wait-site table).
#[test]
fn a_cycle_of_inline_receives_is_named_after_mpi_recv() {
    let (out, _) = run("pimp-2x2", &["-n", "3", &elf("recv_cycle")]);
    assert_eq!(out.status.code(), Some(200), "{}", show(&out));
    check_sim_report(
        &text(&out.stderr),
        &[(0, "MPI_Recv", "waits for rank 1"), (1, "MPI_Recv", "waits for rank 2"), (2, "MPI_Recv", "waits for rank 0")],
        "wait-for cycle: rank 0 -> rank 1 -> rank 2 -> rank 0",
    );
}

/// libnocmsg's own calls, one of them reached by a tail call (nocmsg_ssend leaves the stack when it calls the
/// blocking loop, so the wait record names it).
#[test]
fn a_libnocmsg_deadlock_names_its_calls() {
    let (out, _) = run("pimp-2x2", &["-n", "2", &elf("nocmsg_mismatch")]);
    assert_eq!(out.status.code(), Some(200), "{}", show(&out));
    check_sim_report(
        &text(&out.stderr),
        &[(0, "nocmsg_ssend", "waits for rank 1"), (1, "nocmsg_recv", "waits for rank 0")],
        "wait-for cycle: rank 0 -> rank 1 -> rank 0",
    );
}

/// A rank that returns without finalizing while another waits for it: on the simulator a deadlock whose report
/// says so (and starts once the last other rank has stopped, in both clockings).
#[test]
fn a_rank_waiting_for_one_that_exited_without_finalizing_is_told_so() {
    let (out, stats) = run("pimp-2x2", &["-n", "3", &elf("unfinalized")]);
    assert_eq!(out.status.code(), Some(200), "{}", show(&out));
    let err = text(&out.stderr);
    assert!(rank_line(&err, 0).contains(", waits for rank 1 [pc"), "{err}");
    let why = err.lines().find(|l| l.starts_with("  rank 0 waits for rank 1, which exited with status 0 at cycle ")).unwrap_or_else(|| panic!("{err}"));
    assert!(why.ends_with(" without calling MPI_Finalize (or nocmsg_finalize)"), "{err}");
    let last_exit = stats["cores"].as_array().unwrap().iter().filter(|c| c["state"] == "exited").map(|c| c["cycles"].as_u64().unwrap()).max();
    assert_eq!(stats["end"]["cycle"].as_u64(), last_exit, "the deadlock begins when the last rank has stopped\n{err}");
    let (debug, debug_stats) = run("pimp-2x2", &["--debug-clocking", "-n", "3", &elf("unfinalized")]);
    assert_eq!(text(&debug.stderr), err, "fast and debug clocking disagree");
    assert_eq!(debug_stats["cores"], stats["cores"], "fast and debug clocking disagree");
    // Regression (merge of issue 14's branches): when the deadlock began at the cycle rank 0 tests its wait loop,
    // fast clocking counted that test and debug clocking did not. Moving rank 2's exit by a few cycles at a time
    // puts the deadlock on each phase of rank 0's loop.
    let mut phases = std::collections::BTreeSet::new();
    for spin in 1..=6 {
        let spin = spin.to_string();
        let (fast, fast_stats) = run("pimp-2x2", &["-n", "3", &elf("unfinalized"), &spin]);
        let (debug, debug_stats) = run("pimp-2x2", &["--debug-clocking", "-n", "3", &elf("unfinalized"), &spin]);
        assert_eq!(fast.status.code(), Some(200), "{}", show(&fast));
        assert_eq!(text(&debug.stderr), text(&fast.stderr), "fast and debug clocking disagree with rank 2 counting to {spin}");
        assert_eq!(debug_stats["cores"], fast_stats["cores"], "fast and debug clocking disagree with rank 2 counting to {spin}");
        let began = fast_stats["end"]["cycle"].as_u64().unwrap();
        phases.insert(fast_stats["cores"][0]["cycles"].as_u64().unwrap() - began);
    }
    assert!(phases.len() > 1, "every run put the deadlock at the same phase of rank 0's loop: {phases:?}");

    let (ok, _) = run("pimp-2x2", &["-n", "3", &elf("unfinalized"), "finalize"]);
    assert!(ok.status.success(), "{}", show(&ok));
}

/// A rank waiting while another computes is not a deadlock.
#[test]
fn a_rank_waiting_for_a_computing_one_is_not_a_deadlock_on_the_simulator() {
    let (out, stats) = run("pimp-2x2", &["-n", "2", &elf("slow_sender"), "2"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(text(&out.stdout), "[core 0] rank 0 got 42\n");
    assert_eq!(stats["end"]["reason"], "exit");
}

/// Checks a native deadlock's report: each rank's call, caller and waits-for, and the cycle line.
fn check_native_report(err: &str, ranks: &[(usize, &str, &str)], cycle: &str) {
    assert!(err.starts_with("nocmsg native: deadlock: every running rank is blocked and nothing has moved for 1 s\n"), "{err}");
    for &(rank, call, waits_for) in ranks {
        let line = rank_line(err, rank);
        let want = format!("  rank {rank} in {call} called from main+0x");
        assert!(line.starts_with(&want) && line.ends_with(&format!(", {waits_for}")), "want {want:?}..., {waits_for:?}\n{err}");
    }
    assert!(err.lines().any(|l| l == format!("  {cycle}")), "want {cycle:?} in\n{err}");
}

/// Issue 14 items 5 and 10, natively: the ranks of a deadlocked job used to wait until --timeout (status 124); now
/// the launcher sees every running rank blocked with nothing moving, reports each rank's call, caller and the rank
/// it waits for, and the cycle, within seconds, and exits 200.
#[test]
fn native_deadlocks_are_reported_with_calls_callers_and_the_cycle() {
    let (out, took) = native(2, "ssend_pair", &[]);
    assert_eq!(out.status.code(), Some(200), "{}", show(&out));
    check_native_report(&text(&out.stderr), &[(0, "MPI_Ssend", "waits for rank 1"), (1, "MPI_Ssend", "waits for rank 0")], "wait-for cycle: rank 0 -> rank 1 -> rank 0");
    assert!(took < Duration::from_secs(10), "took {took:?}");

    let (out, _) = native(3, "recv_cycle", &[]);
    assert_eq!(out.status.code(), Some(200), "{}", show(&out));
    check_native_report(
        &text(&out.stderr),
        &[(0, "MPI_Recv", "waits for rank 1"), (1, "MPI_Recv", "waits for rank 2"), (2, "MPI_Recv", "waits for rank 0")],
        "wait-for cycle: rank 0 -> rank 1 -> rank 2 -> rank 0",
    );

    let (out, _) = native(2, "nocmsg_mismatch", &[]);
    assert_eq!(out.status.code(), Some(200), "{}", show(&out));
    check_native_report(&text(&out.stderr), &[(0, "nocmsg_ssend", "waits for rank 1"), (1, "nocmsg_recv", "waits for rank 0")], "wait-for cycle: rank 0 -> rank 1 -> rank 0");
}

/// Issue 14 item 5: a rank that returned from main without finalizing, while rank 0 waited for it, left the job
/// hanging until --timeout; now the launcher reports it and stops the job at once with status 201.
#[test]
fn native_a_rank_that_exits_without_finalizing_stops_the_job() {
    let (out, took) = native(3, "unfinalized", &[]);
    assert_eq!(out.status.code(), Some(201), "{}", show(&out));
    assert_eq!(text(&out.stderr), "nocmsg native: rank 1 exited without calling MPI_Finalize (or nocmsg_finalize); all ranks stopped\n");
    assert!(took < Duration::from_secs(5), "took {took:?}");
    let (ok, _) = native(3, "unfinalized", &["finalize"]);
    assert!(ok.status.success(), "{}", show(&ok));
}

/// No false alarm: rank 0 blocks in MPI_Recv for 3 s (three times the launcher's deadlock interval) while rank 1
/// computes.
#[test]
fn native_a_rank_waiting_for_a_computing_one_is_not_a_deadlock() {
    let (out, took) = native(2, "slow_sender", &["3"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(text(&out.stdout), "rank 0 got 42\n");
    assert!(took >= Duration::from_secs(3), "took {took:?}");
}
