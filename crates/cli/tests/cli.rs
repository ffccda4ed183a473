//! Runs the real `nocmsg` binary in a temporary directory.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};

fn nocmsg(args: &[&str], dir: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(dir).output().expect("nocmsg runs")
}




#[test]
fn the_issue_command_line_writes_json_and_csv() {
    let dir = scratch("contract");
    let out = nocmsg(
        &[
            "traffic", "--mesh", "8x8", "--pattern", "uniform", "--rates", "0.05:0.25:0.1", "--packet-flits", "1",
            "--buffer-flits", "8", "--vcs", "1", "--router", "4stage", "--routing", "xy", "--seed", "1", "--measure",
            "3000", "--json", "out.json", "--csv", "out.csv",
        ],
        &dir,
    );
    assert!(out.status.success(), "{}", show(&out));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap();
    let points = json.as_array().expect("one object per rate");
    assert_eq!(points.len(), 3);
    for key in [
        "offered_rate",
        "accepted_rate",
        "avg_packet_latency",
        "avg_network_latency",
        "p99_packet_latency",
        "max_packet_latency",
        "saturated",
        "simulated_cycles",
        "wall_seconds",
    ] {
        assert!(points.iter().all(|p| p.get(key).is_some()), "key {key} missing");
    }
    assert_eq!(points[0]["saturated"], false);
    assert_eq!(points[2]["saturated"], true, "0.25 is past saturation for 1-VC 4stage routers");
    let csv = std::fs::read_to_string(dir.join("out.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(csv.starts_with("mesh,concentration,"), "{csv}");
    assert!(!csv.contains("wall_seconds"));
    assert!(text(&out.stdout).contains("zero-load latency 33.25"), "{}", show(&out));
}

#[test]
fn same_seed_gives_a_byte_identical_csv_also_with_debug_clocking_and_parallel_jobs() {
    let dir = scratch("determinism");
    let args = ["traffic", "--mesh", "4x4", "--rates", "0.1:0.4:0.1", "--measure", "2000", "--pattern", "transpose", "-q"];
    let run = |extra: &[&str], csv: &str| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend_from_slice(extra);
        all.extend_from_slice(&["--csv", csv]);
        let out = nocmsg(&all, &dir);
        assert!(out.status.success(), "{}", show(&out));
        std::fs::read(dir.join(csv)).unwrap()
    };
    let a = run(&[], "a.csv");
    assert_eq!(a, run(&[], "b.csv"));
    assert_eq!(a, run(&["--visit-all"], "c.csv"));
    assert_eq!(a, run(&["--jobs", "2"], "d.csv"));
    assert_ne!(a, run(&["--seed", "7"], "e.csv"));
}

#[test]
fn bad_arguments_get_one_error_line_and_exit_code_2() {
    let dir = scratch("errors");
    let cases: &[(&[&str], &str)] = &[
        (&["traffic", "--rate", "0.1", "--pattern", "zigzag"], "zigzag"),
        (&["traffic", "--rate", "0.1", "--mesh", "0x8"], "at least 1"),
        (&["traffic", "--rate", "1.5"], "outside [0, 1]"),
        (&["traffic", "--rate", "-0.5"], "outside [0, 1]"),
        (&["traffic", "--rates", "0.1:0.5"], "START:STOP:STEP"),
        (&["traffic", "--rates", "0.5:0.1:0.1"], "below start"),
        (&["traffic", "--rates", "0.1:0.5:0"], "positive"),
        (&["traffic", "--rate", "0.1", "--router", "3stage"], "3stage"),
        (&["traffic", "--rate", "0.1", "--routing", "north-last"], "north-last"),
        (&["traffic", "--rate", "0.1", "--topology", "hypercube"], "hypercube"),
        (&["traffic", "--rate", "0.1", "--topology", "torus"], "needs at least 2 VCs"),
        (&["traffic", "--rate", "0.1", "--routing", "min-adaptive"], "needs at least 2 VCs"),
        (&["traffic", "--rate", "0.1", "--vcs", "0"], "vcs"),
        (&["traffic", "--rate", "0.1", "--mesh", "6x4", "--pattern", "transpose"], "square"),
        (&["traffic", "--rate", "0.1", "--mesh", "3x3", "--pattern", "shuffle"], "power-of-two"),
        (&["traffic"], "--rate"),
        (&["traffic", "--rate", "0.1", "--rates", "0.1:0.2:0.1"], "cannot be used"),
        (&["deadlock-demo", "--b", "9"], "--b 9"),
    ];
    for (args, needle) in cases {
        let out = nocmsg(args, &dir);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: want one line\n{}", show(&out));
        assert!(err.contains(needle), "{args:?}: want '{needle}'\n{}", show(&out));
        assert!(out.stdout.is_empty(), "{args:?}\n{}", show(&out));
    }
}

#[test]
fn deadlock_demo_reports_the_cycle_and_exits_3() {
    let dir = scratch("deadlock");
    let out = nocmsg(&["deadlock-demo", "--json", "report.json"], &dir);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let err = text(&out.stderr);
    assert!(err.contains("cycle of blocked channels"), "{}", show(&out));
    assert!(err.contains("router 0 (0,0) input east vc 0"), "{}", show(&out));
    assert!(err.contains("packet 1 1->0"), "{}", show(&out));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["wait_cycle"].as_array().unwrap().len(), 8);
    let ok = nocmsg(&["deadlock-demo", "--always-drain"], &dir);
    assert!(ok.status.success(), "{}", show(&ok));
}

#[test]
fn help_lists_the_commands() {
    let out = nocmsg(&["--help"], &std::env::temp_dir());
    assert!(out.status.success());
    for cmd in ["traffic", "deadlock-demo", "bench"] {
        assert!(text(&out.stdout).contains(cmd), "{}", show(&out));
    }
}

/// Golden results: the simulator's numbers for fixed configurations, byte for byte. They change only on purpose
/// (a model change), never through a refactoring or optimisation. To update deliberately, run the tests with
/// NOCMSG_UPDATE_GOLDEN=1 and say why in the commit.
#[test]
fn traffic_results_match_the_golden_files() {
    let dir = scratch("golden");
    let golden_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let cases: &[(&str, &[&str])] = &[
        (
            "traffic_8x8_uniform_4stage_1vc.csv",
            &["--mesh", "8x8", "--pattern", "uniform", "--rates", "0.02:0.26:0.04", "--router", "4stage", "--vcs", "1"],
        ),
        (
            "traffic_4x4_transpose_1stage_2vc_4flit.csv",
            &["--mesh", "4x4", "--pattern", "transpose", "--rates", "0.05:0.45:0.1", "--router", "1stage", "--vcs", "2", "--packet-flits", "4"],
        ),
        (
            "traffic_4x2x2_hotspot_4stage_yx.csv",
            &["--mesh", "4x2", "--concentration", "2", "--pattern", "hotspot", "--rates", "0.02:0.1:0.04", "--routing", "yx", "--buffer-flits", "4"],
        ),
    ];
    for (file, args) in cases {
        let mut all = vec!["traffic", "--measure", "3000", "--warmup", "1000", "--seed", "3", "-q", "--csv", "out.csv"];
        all.extend_from_slice(args);
        let out = nocmsg(&all, &dir);
        assert!(out.status.success(), "{file}\n{}", show(&out));
        let actual = std::fs::read_to_string(dir.join("out.csv")).unwrap();
        let golden_path = golden_dir.join(file);
        if std::env::var_os("NOCMSG_UPDATE_GOLDEN").is_some() {
            std::fs::write(&golden_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&golden_path).unwrap_or_else(|e| panic!("{}: {e}", golden_path.display()));
        assert!(expected == actual, "{file} differs from the golden file\n--- expected ---\n{expected}--- actual ---\n{actual}");
    }
}
