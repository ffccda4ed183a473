//! The mpb network interface (issue 17) seen from a program: `tests/sim/mpb.c` runs one scenario per argument on
//! `chips/mpb-2x2.toml` and prints what the cores observed. Checked here: stale lines until invalidated, the
//! write-combining buffer's flush rules, local against remote latency, test-and-set atomicity under contention,
//! shared memory behind queueing controllers, fast and debug clocking giving identical stats, and the reports for
//! misuse (misaligned, unmapped, atomic accesses).

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

/// `tests/sim/mpb.c` built for `chip` (once per chip and test run; the tests run in parallel threads, so the build
/// is under a lock: a test must not see an ELF another is still writing).
fn program(chip: &str) -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    static BUILDING: Mutex<()> = Mutex::new(());
    let _guard = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = DIR.get_or_init(|| scratch("mpb"));
    let name = Path::new(chip).file_stem().unwrap().to_string_lossy().into_owned();
    let out = dir.join(format!("mpb-{name}.elf"));
    if !out.exists() {
        let mut cmd = Command::new(root().join("bin/nocmsg-cc"));
        cmd.args(["--chip", chip, "-O2", "-Wall", "-Werror"]).arg(root().join("tests/sim/mpb.c")).arg("-o").arg(&out);
        run_checked(&mut cmd, "building tests/sim/mpb.c");
    }
    out
}

fn run(chip: &str, extra: &[&str], scenario: &str) -> Output {
    let elf = program(chip);
    Command::new(env!("CARGO_BIN_EXE_nocmsg"))
        .args(["run", "--chip", chip])
        .args(extra)
        .arg(&elf)
        .arg(scenario)
        .current_dir(root())
        .output()
        .expect("nocmsg runs")
}

/// The console lines of a successful run, sorted (cores print concurrently; each line names its core).
fn lines(out: &Output) -> Vec<String> {
    assert!(out.status.success(), "{}", show(out));
    let mut l: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    l.sort();
    l
}

/// A run's `--stats` without the parts that differ between clockings and hosts (`host`, `clocking`).
fn deterministic_stats(json: &Path) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("host");
    v.as_object_mut().unwrap().remove("clocking");
    v
}

fn mpb_2x2() -> String {
    chip("mpb-2x2")
}

#[test]
fn a_cached_line_is_stale_until_the_core_invalidates() {
    let out = run(&mpb_2x2(), &[], "stale");
    assert_eq!(lines(&out), ["[core 0] stale: first 0, without invalidating 0, after invalidating 42"]);
}

#[test]
fn the_write_combining_buffer_goes_out_when_full_on_another_line_before_a_miss_and_on_flush() {
    let out = run(&mpb_2x2(), &[], "wcb");
    assert_eq!(
        lines(&out),
        [
            "[core 0] wcb: rank 0 reads its own buffered store: 6",
            // Line A waits in rank 0's buffer ...
            "[core 1] wcb: at 10000 rank 1 sees A=0 B=0,0,0,0 C=0 D=0",
            // ... until a store to line B pushes it out; B's first word waits in turn ...
            "[core 1] wcb: at 20000 rank 1 sees A=1 B=0,0,0,0 C=0 D=0",
            // ... until its fourth word fills the line;
            "[core 1] wcb: at 30000 rank 1 sees A=1 B=2,3,4,5 C=0 D=0",
            // line C goes out before rank 0's own load misses, line D on the explicit flush.
            "[core 1] wcb: at 40000 rank 1 sees A=1 B=2,3,4,5 C=6 D=0",
            "[core 1] wcb: at 50000 rank 1 sees A=1 B=2,3,4,5 C=6 D=7",
        ]
    );
}

/// The costs follow the model in `ni/mpb.rs` with mpb-2x2's numbers (1-cycle routers and links, 2-flit lines):
/// a hit is a load (1); a local miss is the local latency (15) plus the load and the load-use stall of reading the
/// counter right after; a remote one costs the requester's overhead (30) and the remote MPB's service (15) instead
/// of the local latency, plus the mesh's round trip, which grows by 2 cycles (a router and a link) per hop each way.
#[test]
fn local_transfers_are_cheaper_than_remote_ones_which_grow_with_distance() {
    let out = run(&mpb_2x2(), &[], "latency");
    assert_eq!(
        lines(&out),
        ["[core 0] latency: hit 1, local miss 17, remote miss 1 hop 58, 2 hops 62, line write 1 hop 59, test-and-set local 18, 2 hops 62"]
    );
}

#[test]
fn test_and_set_registers_make_a_lock_under_contention() {
    let out = run(&mpb_2x2(), &[], "lock");
    assert_eq!(lines(&out), ["[core 0] lock: counter 200 (expected 200)"]);
}

#[test]
fn shared_memory_reads_queue_at_the_controllers_and_both_clockings_agree() {
    let dir = scratch("mpb-clocking");
    let mut stats = Vec::new();
    for (name, extra) in [("fast", vec![]), ("debug", vec!["--debug-clocking"])] {
        let json = dir.join(format!("{name}.json"));
        let mut args = extra.clone();
        args.extend(["--stats", json.to_str().unwrap()]);
        let out = run(&mpb_2x2(), &args, "shared");
        let l = lines(&out);
        assert_eq!(l.len(), 4, "{}", show(&out));
        assert!(l.iter().all(|line| line.contains("read 512 words (sum 392960)")), "{l:?}");
        stats.push(deterministic_stats(&json));
    }
    assert_eq!(stats[0], stats[1], "fast and debug clocking must give identical stats");
    let controllers = stats[0]["memory_controllers"].as_array().unwrap();
    assert_eq!(controllers.len(), 2);
    let reads: u64 = controllers.iter().map(|c| c["reads"].as_u64().unwrap()).sum();
    // 4 KiB = 128 lines read by each of 4 cores, split over the two controllers' 4 KiB blocks.
    assert_eq!(reads, 4 * 128, "{controllers:?}");
    let queued: u64 = controllers.iter().map(|c| c["queue_cycles"].as_u64().unwrap()).sum();
    assert!(queued > 0, "four cores reading at once queue at the controllers: {controllers:?}");
    let core0 = &stats[0]["cores"][0];
    assert!(core0["stalls"]["ni"].as_u64().unwrap() > 0 && core0["ni"]["shared_reads"].as_u64().unwrap() >= 128, "{core0}");
}

#[test]
fn the_other_scenarios_agree_between_fast_and_debug_clocking() {
    let dir = scratch("mpb-clocking-2");
    for scenario in ["wcb", "lock", "latency"] {
        let mut stats = Vec::new();
        for (name, extra) in [("fast", vec![]), ("debug", vec!["--debug-clocking"])] {
            let json = dir.join(format!("{scenario}-{name}.json"));
            let mut args = extra.clone();
            args.extend(["--stats", json.to_str().unwrap()]);
            let out = run(&mpb_2x2(), &args, scenario);
            assert!(out.status.success(), "{}", show(&out));
            stats.push((text(&out.stdout), deterministic_stats(&json)));
        }
        assert_eq!(stats[0], stats[1], "{scenario}: fast and debug clocking differ");
    }
}

#[test]
fn misuse_stops_the_core_with_a_report_naming_the_mpb() {
    let cases = [
        ("misaligned", 135, "misaligned load of 8 bytes at 0x40004004 in the MPB address range"),
        ("unmapped", 139, "0x40010000 is not mapped: the MPBs of ranks 0..3 are at 0x40000000..0x40010000"),
    ];
    for (scenario, status, want) in cases {
        let out = run(&mpb_2x2(), &[], scenario);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{scenario}: {}", show(&out));
        assert!(err.contains(want), "{scenario}: expected {want:?} in\n{err}");
    }
    // Atomics need the A extension: an rv64imac variant of the chip.
    let dir = scratch("mpb-atomic");
    let imac = dir.join("mpb-2x2-imac.toml");
    let text_chip = std::fs::read_to_string(mpb_2x2()).unwrap().replace("[core]\n", "[core]\nisa = \"rv64imac\"\n");
    std::fs::write(&imac, text_chip).unwrap();
    let out = run(imac.to_str().unwrap(), &[], "atomic");
    assert_eq!(out.status.code(), Some(132), "{}", show(&out));
    assert!(text(&out.stderr).contains("amoadd.d zero, a5, (a4): atomic instructions cannot access the MPB"), "{}", show(&out));
}

/// mpb-2x2 with private memory behind small caches (`[memory.private]`: 1 KiB L1, 8 KiB L2, L2 hits 10 cycles).
fn mpb_2x2_private(dir: &Path) -> String {
    let path = dir.join("mpb-2x2-private.toml");
    let text_chip = std::fs::read_to_string(mpb_2x2()).unwrap()
        + "\n[memory.private]\nl1_kib = 1\nl1_ways = 2\nl2_kib = 8\nl2_ways = 4\nl2_latency_cycles = 10\n";
    std::fs::write(&path, text_chip).unwrap();
    path.to_str().unwrap().to_string()
}

/// Private memory behind the core's caches: a load costs by where its line is (L1 1 cycle, L2 10; a miss the
/// requester's overhead, 30, and the DRAM's latency, 46, plus the way to controller 0, on the core's own router, and
/// back); lines stream in and dirty ones out through the nearest controller, where cores sharing it queue; both
/// clockings agree.
#[test]
fn private_memory_misses_go_to_the_nearest_controller_and_queue_there() {
    let dir = scratch("mpb-private");
    let chip_path = mpb_2x2_private(&dir);
    let mut stats = Vec::new();
    for (name, extra) in [("alone", vec!["-n", "1"]), ("fast", vec![]), ("debug", vec!["--debug-clocking"])] {
        let json = dir.join(format!("{name}.json"));
        let mut args = extra.clone();
        args.extend(["--stats", json.to_str().unwrap()]);
        let out = run(&chip_path, &args, "private");
        let l = lines(&out);
        assert!(l.contains(&"[core 0] private: L1 hit 1, L2 hit 10, miss 85".to_string()), "{l:?}");
        // Every rank's words, read back: sum of i * (rank + 1) for i < 8192.
        for r in 0..(if name == "alone" { 1 } else { 4 }) {
            let want = 8191u64 * 8192 / 2 * (r + 1);
            assert!(l.contains(&format!("[core {r}] private: rank {r} sum {want}")), "{l:?}");
        }
        stats.push(deterministic_stats(&json));
    }
    assert_eq!(stats[1], stats[2], "fast and debug clocking must give identical stats");
    let (alone, all) = (&stats[0], &stats[1]);
    let private = |s: &serde_json::Value, r: usize, what: &str| s["cores"][r]["private_memory"][what].as_u64().unwrap();
    // Each rank writes 2,048 lines, eight times its L2, and reads them back: each line misses twice and is written
    // back once (more with the program's other accesses).
    for r in 0..4 {
        assert!(private(all, r, "misses") >= 4096 && private(all, r, "writebacks") >= 2048, "{}", all["cores"][r]);
    }
    // Ranks 0 to 2 are nearest controller 0 ((0, 0); ties go to the first), rank 3 to controller 1 ((1, 1)).
    let controllers = all["memory_controllers"].as_array().unwrap();
    let sum = |ranks: &[usize], what: &str| ranks.iter().map(|&r| private(all, r, what)).sum::<u64>();
    assert_eq!(controllers[0]["reads"].as_u64(), Some(sum(&[0, 1, 2], "misses")), "{controllers:?}");
    assert_eq!(controllers[0]["writes"].as_u64(), Some(sum(&[0, 1, 2], "writebacks")), "{controllers:?}");
    assert_eq!(controllers[1]["reads"].as_u64(), Some(sum(&[3], "misses")), "{controllers:?}");
    assert_eq!(controllers[1]["writes"].as_u64(), Some(sum(&[3], "writebacks")), "{controllers:?}");
    // Three cores at controller 0 wait for each other; rank 3, alone at its controller, waits as a core alone on the
    // chip does.
    assert!(controllers[0]["queue_cycles"].as_u64().unwrap() > 10 * controllers[1]["queue_cycles"].as_u64().unwrap().max(1), "{controllers:?}");
    let per_miss = |s: &serde_json::Value, r: usize| private(s, r, "stall_cycles") as f64 / private(s, r, "misses") as f64;
    assert!(per_miss(all, 0) > 1.05 * per_miss(alone, 0), "rank 0 shares its controller: {} against {}", per_miss(all, 0), per_miss(alone, 0));
    assert!((per_miss(all, 3) - per_miss(alone, 0)).abs() < 0.02 * per_miss(alone, 0));
    // The waits are cache stalls, not the interface's.
    assert!(all["cores"][0]["stalls"]["cache"].as_u64().unwrap() >= private(all, 0, "stall_cycles"));
    // A misaligned store to a private line not cached yet is a misaligned access, reported as such, as without
    // private caches (not a miss for the interface).
    let out = run(&chip_path, &["-n", "1"], "misaligned-private");
    assert_eq!(out.status.code(), Some(135), "{}", show(&out));
    assert!(text(&out.stderr).contains("misaligned store of 8 bytes"), "{}", show(&out));
    // Chips without [memory.private] keep private memory at core speed, and say nothing of it.
    let json = dir.join("flat.json");
    let out = run(&mpb_2x2(), &["-n", "1", "--stats", json.to_str().unwrap()], "private");
    assert!(lines(&out).contains(&"[core 0] private: L1 hit 1, L2 hit 1, miss 1".to_string()), "{}", show(&out));
    assert!(deterministic_stats(&json)["cores"][0].get("private_memory").is_none());
}

/// Regressions found in review of the private caches, each on mpb-2x2 with them:
/// - write-backs no core waits for, still under way when the last core stopped, reached their controller only with
///   debug clocking (the fast run's catch-up did not tick the interface): `memory_controllers[].writes` differed;
/// - with L2 hits as cheap as L1 hits, a polling core with L2 hits in every round fell asleep, and the rounds it
///   slept through did not count their L2 hits;
/// - a load into sp that missed retired in the interface without the stack check, and the program wrote below its
///   stack.
#[test]
fn private_caches_keep_clockings_identical_and_the_stack_check() {
    let dir = scratch("mpb-private-review");
    let chip_path = mpb_2x2_private(&dir);
    let cheap = dir.join("mpb-2x2-private-l2-1.toml");
    std::fs::write(&cheap, std::fs::read_to_string(&chip_path).unwrap().replace("l2_latency_cycles = 10", "l2_latency_cycles = 1")).unwrap();
    for (scenario, chip_file) in [("writeback-exit", chip_path.as_str()), ("poll-l2", cheap.to_str().unwrap())] {
        let mut stats = Vec::new();
        for (name, extra) in [("fast", vec![]), ("debug", vec!["--debug-clocking"])] {
            let json = dir.join(format!("{scenario}-{name}.json"));
            let mut args = extra.clone();
            args.extend(["--stats", json.to_str().unwrap()]);
            let out = run(chip_file, &args, scenario);
            assert!(out.status.success(), "{scenario}: {}", show(&out));
            stats.push(deterministic_stats(&json));
        }
        assert_eq!(stats[0], stats[1], "{scenario}: fast and debug clocking differ");
        let s = &stats[0];
        let cores = s["cores"].as_array().unwrap();
        let writebacks: u64 = cores.iter().map(|c| c["private_memory"]["writebacks"].as_u64().unwrap()).sum();
        let writes: u64 = s["memory_controllers"].as_array().unwrap().iter().map(|c| c["writes"].as_u64().unwrap()).sum();
        assert_eq!(writes, writebacks, "{scenario}: every write-back reaches its controller");
        if scenario == "poll-l2" {
            assert!(cores[1]["private_memory"]["l2_hits"].as_u64().unwrap() > 1000, "{}", cores[1]);
        }
    }
    let out = run(&chip_path, &["-n", "1"], "sp-miss");
    assert_eq!(out.status.code(), Some(139), "{}", show(&out));
    assert!(text(&out.stderr).contains("ld sp, 0(s0): stack overflow"), "{}", show(&out));
}

/// scc-48 has cores at 533 MHz and the mesh at 800 MHz: global time stays exact, so both clockings agree there too,
/// and a rank's sibling on the same router is local.
#[test]
fn scc_48_with_separate_core_and_mesh_clocks_agrees_between_clockings() {
    let scc = chip("scc-48");
    let dir = scratch("mpb-scc");
    let mut stats = Vec::new();
    for (name, extra) in [("fast", vec![]), ("debug", vec!["--debug-clocking"])] {
        let json = dir.join(format!("{name}.json"));
        let mut args = extra.clone();
        args.extend(["-n", "8", "--stats", json.to_str().unwrap()]);
        let out = run(&scc, &args, "shared");
        assert_eq!(lines(&out).len(), 8, "{}", show(&out));
        stats.push(deterministic_stats(&json));
    }
    assert_eq!(stats[0], stats[1], "fast and debug clocking must give identical stats");
    let out = run(&scc, &["-n", "4"], "latency");
    let l = lines(&out);
    assert!(l[0].contains("local miss 17, remote miss 1 hop 16,"), "rank 1 shares rank 0's router: {l:?}");
}

/// Background traffic shares the network with the program: the program's transfers take longer, both clockings
/// still agree, and its packets are reported apart from the program's.
#[test]
fn background_traffic_slows_the_program_and_is_reported_apart() {
    let dir = scratch("mpb-background");
    let quiet = dir.join("quiet.json");
    let out = run(&mpb_2x2(), &["--stats", quiet.to_str().unwrap()], "shared");
    assert!(out.status.success(), "{}", show(&out));
    let mut loaded = Vec::new();
    for (name, extra) in [("fast", vec![]), ("debug", vec!["--debug-clocking"])] {
        let json = dir.join(format!("{name}.json"));
        let mut args = extra.clone();
        args.extend(["--background", "pattern=uniform,rate=0.3,flits=2,seed=3", "--stats", json.to_str().unwrap()]);
        let out = run(&mpb_2x2(), &args, "shared");
        assert_eq!(lines(&out).len(), 4, "{}", show(&out));
        loaded.push(deterministic_stats(&json));
    }
    assert_eq!(loaded[0], loaded[1], "fast and debug clocking must agree with background traffic");
    let (quiet, busy) = (deterministic_stats(&quiet), &loaded[0]);
    let bg = &busy["network"]["background"];
    assert_eq!(bg["injectors"], 4, "{bg}");
    assert!(bg["latency"]["packets"].as_u64().unwrap() > 1000, "{bg}");
    assert!(quiet["network"].get("background").is_none());
    let program_latency = |s: &serde_json::Value| s["network"]["program_packets"]["mean"].as_f64().unwrap();
    assert!(program_latency(busy) > program_latency(&quiet), "the program's packets wait behind the background's");
    assert!(busy["total_cycles"].as_u64() > quiet["total_cycles"].as_u64());
    // PIMP's receive FIFOs are the ejection queues: background packets would land in them.
    let out = run(&chip("pimp-2x2"), &["--background", "interval=10"], "stale");
    assert!(!out.status.success() && text(&out.stderr).contains("--background needs a chip whose network drains its own packets"), "{}", show(&out));
}

/// Regression: a load that missed counted as a hit too when it ran again with its line (10 misses and 5 hits
/// reported 15 hits).
#[test]
fn a_miss_is_not_also_counted_as_a_hit() {
    let dir = scratch("mpb-counts");
    let json = dir.join("s.json");
    let out = run(&mpb_2x2(), &["-n", "1", "--stats", json.to_str().unwrap()], "counts");
    assert_eq!(lines(&out), ["[core 0] counts: sum 0"]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ni = &v["cores"][0]["ni"];
    assert_eq!((ni["line_hits"].as_u64(), ni["line_misses"].as_u64(), ni["reads_local"].as_u64()), (Some(5), Some(10), Some(10)), "{ni}");
}

/// Cores that poll a line of their router's MPB with nothing changing sleep until a write to the line is scheduled
/// (fast clocking only), charged exactly as if they had polled: debug clocking, which never lets them sleep, must give
/// the same stats. Polls and writes meet at uneven times here, locally (siblings on a router of scc-48) and remotely.
#[test]
fn polling_cores_sleep_exactly() {
    let dir = scratch("mpb-storm");
    for (name, chip_path, cores) in [("mpb-2x2", mpb_2x2(), "4"), ("scc-48", chip("scc-48"), "8")] {
        let mut stats = Vec::new();
        for (clocking, extra) in [("fast", vec![]), ("debug", vec!["--debug-clocking"])] {
            let json = dir.join(format!("{name}-{clocking}.json"));
            let mut args = extra.clone();
            args.extend(["-n", cores, "--stats", json.to_str().unwrap()]);
            let out = run(&chip_path, &args, "storm");
            assert_eq!(lines(&out).len(), cores.parse::<usize>().unwrap(), "{name}: {}", show(&out));
            stats.push(deterministic_stats(&json));
        }
        assert_eq!(stats[0], stats[1], "{name}: sleeping pollers must be charged exactly what spinning ones do");
    }
}

/// Cores that all wait for flags in their own MPBs that nobody will set: with them asleep and nothing left to run,
/// the chip reports the deadlock (exit status 200) with what each waits for, instead of running forever.
#[test]
fn cores_all_polling_lines_nobody_writes_are_a_deadlock() {
    let out = run(&mpb_2x2(), &[], "deadlock");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(200), "{}", show(&out));
    assert!(err.contains("deadlock at cycle"), "{err}");
    for r in 1..4 {
        // Word 5 of the rank's share: the line at byte 32.
        let line = 0x4000_0000u64 + r * 16384 + 32;
        assert!(err.contains(&format!("rank {r} (tile {r}) at ")), "{err}");
        assert!(err.contains(&format!("polls the line at {line:#x} (byte 32 of rank {r}'s MPB), which no core will write")), "{err}");
    }
    assert!(!err.contains("rank 0 (tile 0) at"), "rank 0 has exited: {err}");
}

/// Issue 17's acceptance: an unmodified MPI program runs on scc-48 (its 48 cores, the MPB port, rv64gc at 533 MHz
/// with the mesh at 800 MHz) with the same output as natively.
#[test]
fn an_unmodified_mpi_program_gives_the_same_output_on_scc_48_as_natively() {
    let dir = scratch("mpb-mpi");
    let (sim, native) = (dir.join("ring.elf"), dir.join("ring"));
    let source = root().join("tests/mpi/ring.c");
    run_checked(
        Command::new(root().join("bin/nocmsg-cc")).args(["--chip", &chip("scc-48"), "-O2", "-Wall", "-Werror"]).arg(&source).arg("-o").arg(&sim),
        "nocmsg-cc --chip scc-48 tests/mpi/ring.c",
    );
    run_checked(Command::new(root().join("bin/nocmsg-cc-native")).args(["-O2", "-Wall", "-Werror"]).arg(&source).arg("-o").arg(&native), "nocmsg-cc-native ring.c");
    let on_chip = Command::new(env!("CARGO_BIN_EXE_nocmsg"))
        .args(["run", "--no-prefix", "--max-cycles", "500000000", "--chip", &chip("scc-48")])
        .arg(&sim)
        .output()
        .unwrap();
    let natively = Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(["native", "-n", "48"]).arg(&native).output().unwrap();
    assert!(on_chip.status.success(), "{}", show(&on_chip));
    assert!(natively.status.success(), "{}", show(&natively));
    assert_eq!(text(&on_chip.stdout), text(&natively.stdout));
    // 48 ranks: rank 1 receives from rank 0 (0) and rank 0 from rank 47 (470) in the shift by 1.
    assert!(text(&on_chip.stdout).contains("shift by 1 received 470 0 10"), "the ring ran on 48 ranks: {}", text(&on_chip.stdout));
}
