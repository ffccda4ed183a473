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
            "--vcs", "2", "--router", "1stage", "--routing", "yx", "--vc-allocator", "round-robin", "--sw-allocator", "islip", "--credit-delay", "2", "--link-latency", "2", "--injection-channel-cycles", "2", "--body-bids-on-arrival",
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

/// `tests/programs/hello.c` built for the simulated cores, once per test run.
/// `--topology` and the routing functions beyond dimension order, run for real: a torus, a ring and adaptive
/// routing on a mesh, with the CSV naming the topology; a combination that is not defined is a usage error naming
/// `routing` or `height`.
#[test]
fn traffic_on_tori_rings_and_with_adaptive_routing_runs() {
    let dir = scratch("topologies");
    let common = ["--rate", "0.2", "--warmup", "10", "--measure", "300", "--quiet", "--csv", "out.csv"];
    for (extra, mesh, routing) in [
        (&["--mesh", "4x4", "--topology", "torus", "--vcs", "2"][..], "4x4 torus", "xy"),
        (&["--mesh", "8x1", "--topology", "ring", "--vcs", "2", "--routing", "yx"][..], "8x1 ring", "yx"),
        (&["--mesh", "4x4", "--routing", "west-first"][..], "4x4", "west-first"),
        (&["--mesh", "4x4", "--routing", "odd-even"][..], "4x4", "odd-even"),
        (&["--mesh", "4x4", "--routing", "min-adaptive", "--vcs", "2"][..], "4x4", "min-adaptive"),
    ] {
        let args: Vec<&str> = ["traffic"].iter().chain(extra).chain(&common).copied().collect();
        let out = nocmsg(&args, &dir);
        assert!(out.status.success(), "{args:?}\n{}", show(&out));
        let csv = std::fs::read_to_string(dir.join("out.csv")).unwrap();
        let row = csv.lines().nth(1).unwrap().to_string();
        assert!(row.starts_with(&format!("{mesh},1,1,uniform,4stage,{routing},")), "{row}");
    }
    for (args, field) in [
        (&["traffic", "--topology", "torus", "--rate", "0.1"][..], "routing = xy"),
        (&["traffic", "--topology", "ring", "--vcs", "2", "--rate", "0.1"][..], "height = 8"),
        (&["traffic", "--topology", "torus", "--vcs", "2", "--routing", "odd-even", "--rate", "0.1"][..], "routing = odd-even"),
    ] {
        let out = nocmsg(args, &dir);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
        assert!(text(&out.stderr).contains(field), "{args:?}\n{}", show(&out));
    }
}

fn hello_elf() -> String {
    static ELF: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ELF.get_or_init(|| {
        let out = scratch("cli-options-hello").join("hello.elf");
        run_checked(
            Command::new(root().join("bin/nocmsg-cc")).arg("-O2").arg(root().join("tests/programs/hello.c")).arg("-o").arg(&out),
            "nocmsg-cc hello.c",
        );
        out.display().to_string()
    })
    .clone()
}

/// Runs `nocmsg` and returns its output, its wall time and its peak resident memory in KiB (from `wait4`, which
/// reaps the child instead of `Child::wait`).
#[allow(clippy::zombie_processes)]
fn measured(args: &[&str], env: &[(&str, &str)]) -> (Output, std::time::Duration, u64) {
    use std::io::Read;
    let started = std::time::Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_nocmsg"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(std::env::temp_dir())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("nocmsg starts");
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        stderr.read_to_end(&mut v).unwrap();
        v
    });
    let mut out = Vec::new();
    stdout.read_to_end(&mut out).unwrap();
    let err = err_reader.join().unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 reaps exactly this child, which std has not waited for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4: {}", std::io::Error::last_os_error());
    let elapsed = started.elapsed();
    use std::os::unix::process::ExitStatusExt;
    let output = Output { status: std::process::ExitStatus::from_raw(status), stdout: out, stderr: err };
    (output, elapsed, usage.ru_maxrss as u64)
}

/// Issue 14 item 7: `run --tiles 0-99999999999` tried to allocate 800 GB and aborted.
#[test]
fn huge_tile_ranges_and_core_counts_are_refused_at_once() {
    let (elf, c4) = (hello_elf(), chip("pimp-4x4"));
    let cases: &[(&[&str], &str)] = &[
        (&["--tiles", "0-99999999999"], "--tiles 0-99999999999: range 0-99999999999 goes past the last tile: chip pimp-4x4 has tiles 0..15"),
        (&["--tiles", "0-4000000000"], "chip pimp-4x4 has tiles 0..15"),
        (&["--tiles", "3,99999999999-99999999999"], "tile 99999999999 does not exist: chip pimp-4x4 has tiles 0..15"),
        (&["--tiles", "0-15,4"], "tile 4 is selected twice"),
        (&["--cores", "99999999999"], "--cores 99999999999: chip pimp-4x4 has 16 cores"),
        (&["--cores", "999999999999999999999999"], "--cores"),
    ];
    for (opts, want) in cases {
        let mut args = vec!["run", "--chip", &c4];
        args.extend_from_slice(opts);
        args.push(&elf);
        let (out, elapsed, peak_kib) = measured(&args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: one line\n{}", show(&out));
        assert!(err.contains(want), "{args:?}: want {want:?}\n{}", show(&out));
        assert!(elapsed.as_secs_f64() < 1.0, "{args:?} took {elapsed:?}");
        assert!(peak_kib < 64 * 1024, "{args:?} peaked at {peak_kib} KiB");
    }
    // The tiles that exist still run, in list order.
    let out = nocmsg(&["run", "--chip", &c4, "--tiles", "15,0-1", &elf], &std::env::temp_dir());
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(text(&out.stdout).lines().count(), 3, "{}", show(&out));
}

/// The figure after "needs about " in a refusal, in bytes.
fn needs_about(stderr: &str) -> u64 {
    let rest = stderr.split("needs about ").nth(1).unwrap_or_else(|| panic!("no 'needs about' in {stderr:?}"));
    let mut words = rest.split_whitespace();
    let value: f64 = words.next().unwrap().parse().unwrap();
    let unit = words.next().unwrap().trim_end_matches([',', ';', '(']);
    let scale = match unit {
        "bytes" => 1u64,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        other => panic!("unit {other:?} in {stderr:?}"),
    };
    (value * scale as f64) as u64
}

fn write_chip(dir: &std::path::Path, name: &str, mesh: &str) -> String {
    let path = dir.join(format!("{name}.toml"));
    let toml = format!("name = \"{name}\"\nmesh = {{ {mesh} }}\ncore = {{ frequency_mhz = 500, memory_kib = 1024 }}\n[ni]\nkind = \"pimp\"\n");
    std::fs::write(&path, toml).unwrap();
    path.display().to_string()
}

/// Issue 14 item 8: `traffic --mesh 1024x1024 --concentration 4 --vcs 8 --buffer-flits 64` aborted on a 64 GiB
/// allocation after 17 s and 5 GB. It, a chip of 4M tiles and a deadlock demo with 4096-flit buffers on a
/// 1024x1024 mesh are refused at once, without allocating, saying how much they need.
#[test]
fn configurations_too_large_for_the_machine_are_refused_before_anything_is_built() {
    let dir = scratch("too-large");
    let huge = write_chip(&dir, "huge", "width = 1024, height = 1024, concentration = 4");
    let elf = hello_elf();
    let issue = ["traffic", "--mesh", "1024x1024", "--concentration", "4", "--vcs", "8", "--buffer-flits", "64", "--rate", "0.01"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (issue.to_vec(), "nocmsg: error: a 1024x1024 mesh with concentration 4, 8 VCs of 64 flits needs about "),
        (vec!["run", "--chip", &huge, &elf], "nocmsg: error: chip huge on 4194304 cores needs about "),
        (vec!["deadlock-demo", "--mesh", "1024x1024", "--buffer-flits", "4096"], "nocmsg: error: a 1024x1024 mesh with 4096-flit buffers needs about "),
    ];
    for (args, want) in &cases {
        let (out, elapsed, peak_kib) = measured(args, &[("NOCMSG_MEMORY_AVAILABLE", "16G")]);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: one line\n{}", show(&out));
        assert!(err.starts_with(want) && err.trim_end().ends_with("; NOCMSG_MEMORY_AVAILABLE allows 16.0 GiB"), "{args:?}\n{}", show(&out));
        assert!(needs_about(&err) > 64 << 30, "{args:?}: more than 64 GiB\n{err}");
        assert!(elapsed.as_secs_f64() < 1.0, "{args:?} took {elapsed:?}");
        assert!(peak_kib < 64 * 1024, "{args:?} peaked at {peak_kib} KiB");
    }
    // The issue's configuration: 64 GiB of flit buffers alone (1M routers x 8 ports x 8 VCs x 64 slots x 16 B).
    let (out, _, _) = measured(&issue, &[("NOCMSG_MEMORY_AVAILABLE", "16G")]);
    assert!(text(&out.stderr).contains("GiB for the network and "), "{}", show(&out));
    // Without the override, this machine's own figure decides (where it has less than the configuration needs).
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let available_kib: u64 = meminfo.lines().find_map(|l| l.strip_prefix("MemAvailable:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok()).unwrap_or(u64::MAX);
    if available_kib < 128 << 20 {
        let out = Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(issue).env_remove("NOCMSG_MEMORY_AVAILABLE").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        assert!(text(&out.stderr).contains(" available"), "{}", show(&out));
    }
    // A bad override is a usage error too.
    let out = Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(["traffic", "--rate", "0.1"]).env("NOCMSG_MEMORY_AVAILABLE", "lots").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("NOCMSG_MEMORY_AVAILABLE=lots: not a size"), "{}", show(&out));
}

/// The estimates against the peak resident memory of real runs: never below it by more than 10%, at most 2.2x
/// above it. Traffic runs are measured where the estimate's bounds are reached (saturated points fill their source
/// queues up to --max-queue-flits; below saturation a run uses less than its estimate).
#[test]
fn memory_estimates_hold_against_measured_peaks() {
    let elf = hello_elf();
    let c32 = chip("pimp-32x32");
    let profile = scratch("estimates").join("profile.json").display().to_string();
    let runs: Vec<Vec<&str>> = vec![
        vec!["traffic", "--mesh", "16x16", "--rate", "0.9", "--measure", "20000", "-q"],
        vec!["traffic", "--mesh", "32x32", "--rate", "0.05", "--vcs", "8", "--buffer-flits", "64", "--warmup", "100", "--measure", "300", "--drain-limit", "500", "--max-queue-flits", "10", "-q"],
        vec!["traffic", "--mesh", "8x8", "--rates", "0.1:0.5:0.2", "-q"],
        vec!["traffic", "--mesh", "16x16", "--rates", "0.5:0.9:0.4", "--jobs", "2", "--measure", "5000", "-q"],
        vec!["traffic", "--mesh", "16x16", "--concentration", "2", "--networks", "2", "--packet-flits", "4", "--vcs", "2", "--rate", "0.9", "--measure", "5000", "-q"],
        vec!["run", "--chip", &c32, &elf],
        vec!["run", "--chip", &c32, "--profile", &profile, &elf],
    ];
    let mut report = Vec::new();
    for args in &runs {
        let (refused, _, _) = measured(args, &[("NOCMSG_MEMORY_AVAILABLE", "1")]);
        assert_eq!(refused.status.code(), Some(2), "{args:?}\n{}", show(&refused));
        let estimate = needs_about(&text(&refused.stderr));
        let (out, _, peak_kib) = measured(args, &[("NOCMSG_MEMORY_AVAILABLE", "unlimited")]);
        assert!(out.status.success(), "{args:?}\n{}", show(&out));
        let peak = peak_kib * 1024;
        let line = format!("{:>8.1} MiB estimated, {:>8.1} MiB peak ({:.2}x): {}", estimate as f64 / 1048576.0, peak as f64 / 1048576.0, estimate as f64 / peak as f64, args.join(" "));
        println!("{line}");
        report.push((estimate, peak, line));
    }
    for (estimate, peak, line) in report {
        assert!(peak as f64 <= 1.1 * estimate as f64, "the estimate is below the peak: {line}");
        assert!(estimate as f64 <= 2.2 * peak as f64, "the estimate is far above the peak: {line}");
    }
}
