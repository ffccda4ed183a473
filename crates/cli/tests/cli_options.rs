//! Command-line hardening (issue 14 items 6-8), with the real binary: options whose values only matter once a run
//! uses them, tile lists far beyond the chip, and configurations too large for the machine.
//! (`src/option_samples.rs` checks that every option of every subcommand parses.)

mod common;
use common::*;
use std::process::{Command, Output};

fn nocmsg(args: &[&str], dir: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(dir).output().expect("nocmsg runs")
}

/// Issue 14 item 6: every use of `--hotspot-nodes` panicked (a clap type mismatch).
#[test]
fn traffic_with_hotspot_nodes_runs() {
    let dir = scratch("hotspot-nodes");
    let out = nocmsg(
        &["traffic", "--pattern", "hotspot", "--hotspot-nodes", "1,2", "--rate", "0.05", "--warmup", "10", "--measure", "100", "--json", "out.json"],
        &dir,
    );
    assert!(out.status.success(), "{}", show(&out));
    assert!(!text(&out.stderr).contains("panicked"), "{}", show(&out));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap();
    assert_eq!(json[0]["pattern"], "hotspot", "{json}");
    // A node the mesh does not have is a usage error, not a panic.
    let bad = nocmsg(&["traffic", "--pattern", "hotspot", "--hotspot-nodes", "1,64", "--rate", "0.05"], &dir);
    assert_eq!(bad.status.code(), Some(2), "{}", show(&bad));
    assert!(text(&bad.stderr).contains("hotspot node 64 does not exist"), "{}", show(&bad));
}

/// Each traffic and deadlock-demo option at once, run for real (the options test only parses them).
#[test]
fn every_traffic_and_deadlock_demo_option_runs() {
    let dir = scratch("all-options");
    let out = nocmsg(
        &[
            "traffic", "--mesh", "4x4", "--concentration", "2", "--networks", "2", "--pattern", "hotspot", "--hotspot-nodes",
            "1,2", "--hotspot-fraction", "0.3", "--rates", "0.02:0.04:0.02", "--packet-flits", "4", "--buffer-flits", "16",
            "--vcs", "2", "--router", "1stage", "--routing", "yx", "--credit-delay", "2", "--link-latency", "2",
            "--eject-queue-flits", "8", "--seed", "7", "--warmup", "10", "--measure", "200", "--drain-limit", "1000",
            "--max-queue-flits", "100", "--watchdog", "500", "--jobs", "2", "--visit-all", "--json", "out.json", "--csv",
            "out.csv", "--quiet",
        ],
        &dir,
    );
    assert!(out.status.success(), "{}", show(&out));
    assert!(out.stdout.is_empty(), "--quiet\n{}", show(&out));
    let csv = std::fs::read_to_string(dir.join("out.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.lines().nth(1).unwrap().starts_with("4x4,2,2,hotspot,1stage,yx,2,16,4,7,"), "{csv}");
    let out = nocmsg(
        &[
            "deadlock-demo", "--mesh", "3x1", "--a", "0", "--b", "2", "--packet-flits", "16", "--buffer-flits", "2",
            "--eject-queue-flits", "2", "--watchdog", "100", "--json", "report.json",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(dir.join("report.json").exists());
    let out = nocmsg(&["deadlock-demo", "--always-drain"], &dir);
    assert!(out.status.success(), "{}", show(&out));
    let out = nocmsg(&["bench", "point", "--mesh", "4x4", "--rate", "0.1", "--measure", "100", "--visit-all"], &dir);
    assert!(out.status.success(), "{}", show(&out));
    assert!(text(&out.stdout).contains("\"clocking\":\"visit-all\""), "{}", show(&out));
}
