//! Real C programs on the simulated chip: built with `bin/nocmsg-cc` (Debian's riscv64-unknown-elf-gcc and
//! picolibc, installed by `make test`), run with `nocmsg run`, checked against golden output, against the same
//! programs built natively, against debug clocking, and for precise fault reports.

mod common;
use common::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

const PROGRAMS: &[&str] =
    &["hello", "sort", "crc32", "matmul_int", "matmul_double", "recursion", "malloc", "printf_double", "readfile", "exitcode"];


fn programs_dir() -> PathBuf {
    root().join("tests/programs")
}






/// Builds every test program once per test run, for the simulator and natively.
fn builds() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("programs");
        let cc = root().join("bin/nocmsg-cc");
        let src = programs_dir();
        for p in PROGRAMS {
            let c = src.join(format!("{p}.c"));
            run_checked(
                Command::new(&cc).args(["-O2", "-Wall", "-Werror"]).arg(&c).arg("-o").arg(dir.join(format!("{p}.elf"))).arg("-lm"),
                &format!("nocmsg-cc {p}.c"),
            );
            run_checked(
                Command::new("cc").args(["-O2", "-std=c11"]).arg(&c).arg("-o").arg(dir.join(format!("{p}.native"))).arg("-lm"),
                &format!("cc {p}.c"),
            );
        }
        let sim = root().join("tests/sim");
        run_checked(
            Command::new(&cc).args(["-O2", "-Wall", "-Werror"]).arg(sim.join("kernels.c")).arg(sim.join("kernels.S")).arg("-o").arg(dir.join("kernels.elf")),
            "nocmsg-cc kernels",
        );
        for p in ["fault", "semihost", "pimp_ni", "libc_time"] {
            run_checked(
                Command::new(&cc).args(["-O2", "-Wall", "-Werror"]).arg(sim.join(format!("{p}.c"))).arg("-o").arg(dir.join(format!("{p}.elf"))).arg("-lm"),
                &format!("nocmsg-cc {p}.c"),
            );
        }
        dir
    })
}

fn elf(name: &str) -> String {
    builds().join(format!("{name}.elf")).display().to_string()
}

fn nocmsg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(programs_dir()).output().expect("nocmsg runs")
}

fn program_args(p: &str) -> Vec<&'static str> {
    if p == "readfile" {
        vec!["input.txt"]
    } else {
        vec![]
    }
}

fn expected(p: &str) -> String {
    std::fs::read_to_string(programs_dir().join(format!("{p}.expected"))).unwrap()
}

/// Splits prefixed console output into each core's lines.
fn by_core(stdout: &str) -> BTreeMap<usize, String> {
    let mut cores: BTreeMap<usize, String> = BTreeMap::new();
    for line in stdout.lines() {
        let rest = line.strip_prefix("[core ").unwrap_or_else(|| panic!("line without a core prefix: {line:?}"));
        let (n, text) = rest.split_once("] ").unwrap_or_else(|| (rest.trim_end_matches(']'), ""));
        let entry = cores.entry(n.parse().unwrap()).or_default();
        entry.push_str(text);
        entry.push('\n');
    }
    cores
}

#[test]
fn programs_print_their_golden_output_on_1_4_and_16_cores() {
    for p in PROGRAMS {
        for cores in ["1", "4", "16"] {
            let c = chip_4x4();
            let mut args = vec!["run", "--chip", &c, "-n", cores];
            let path = elf(p);
            args.push(&path);
            args.extend(program_args(p));
            let out = nocmsg(&args);
            let want_status = if *p == "exitcode" { Some(3) } else { Some(0) };
            assert_eq!(out.status.code(), want_status, "{p} on {cores} cores\n{}", show(&out));
            let per_core = by_core(&text(&out.stdout));
            let n: usize = cores.parse().unwrap();
            assert_eq!(per_core.len(), n, "{p}: every core prints\n{}", show(&out));
            for (core, got) in per_core {
                let want = if *p == "hello" { format!("hello from core {core} of {n}\n") } else { expected(p) };
                assert_eq!(got, want, "{p}, core {core} of {n}");
            }
        }
    }
}

fn chip_4x4() -> String {
    chip("pimp-4x4")
}

/// pimp-4x4 with cores of another ISA, written into `dir`.
fn chip_4x4_with_isa(dir: &std::path::Path, isa: &str) -> PathBuf {
    let text = std::fs::read_to_string(chip_4x4()).unwrap();
    let text = text.replacen("[core]\n", &format!("[core]\nisa = \"{isa}\"\n"), 1);
    assert!(text.contains(&format!("isa = \"{isa}\"")), "pimp-4x4.toml has a [core] table");
    let path = dir.join(format!("pimp-4x4-{isa}.toml"));
    std::fs::write(&path, text.replace("name = \"pimp-4x4\"", &format!("name = \"pimp-4x4-{isa}\""))).unwrap();
    path
}

/// Issue 16: every test program rebuilt for a chip with atomics and compressed instructions but software floating
/// point (rv64imac, as on the TilePro) and for one with an FPU (rv64gc) prints its golden output, so the double
/// programs print the same under soft-float and FPU; and a program built for rv64gc is refused, in one line naming
/// what is missing, by the RV64IM chip.
#[test]
fn programs_rebuilt_for_soft_float_and_fpu_chips_print_the_same() {
    let dir = scratch("programs-isa");
    let cc = root().join("bin/nocmsg-cc");
    for isa in ["rv64imac", "rv64gc"] {
        let chip = chip_4x4_with_isa(&dir, isa);
        for p in PROGRAMS {
            let out_elf = dir.join(format!("{p}-{isa}.elf"));
            run_checked(
                Command::new(&cc).arg("--chip").arg(&chip).args(["-O2", "-Wall", "-Werror"]).arg(programs_dir().join(format!("{p}.c"))).arg("-o").arg(&out_elf).arg("-lm"),
                &format!("nocmsg-cc --chip {isa} {p}.c"),
            );
            let (chip_arg, elf_arg) = (chip.display().to_string(), out_elf.display().to_string());
            let mut args = vec!["run", "--chip", &chip_arg, "-n", "4", &elf_arg];
            args.extend(program_args(p));
            let out = nocmsg(&args);
            let want_status = if *p == "exitcode" { Some(3) } else { Some(0) };
            assert_eq!(out.status.code(), want_status, "{p} on {isa}\n{}", show(&out));
            for (core, got) in by_core(&text(&out.stdout)) {
                let want = if *p == "hello" { format!("hello from core {core} of 4\n") } else { expected(p) };
                assert_eq!(got, want, "{p} on {isa}, core {core}");
            }
        }
    }
    let gc_elf = dir.join("matmul_double-rv64gc.elf").display().to_string();
    let out = nocmsg(&["run", "--chip", &chip_4x4(), &gc_elf]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = text(&out.stderr);
    assert!(err.contains("needs extensions A, F, D, C, which the cores (core.isa = \"rv64im\") do not have"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn native_and_simulated_builds_print_the_same() {
    for p in PROGRAMS {
        let native = Command::new(builds().join(format!("{p}.native")))
            .args(program_args(p))
            .current_dir(programs_dir())
            .env_clear()
            .output()
            .unwrap();
        let c = chip_4x4();
        let mut args = vec!["run", "--chip", &c, "-n", "1", "--no-prefix"];
        let path = elf(p);
        args.push(&path);
        args.extend(program_args(p));
        let sim = nocmsg(&args);
        assert_eq!(text(&sim.stdout), text(&native.stdout), "{p}: simulated vs native stdout");
        assert_eq!(sim.status.code(), native.status.code(), "{p}: exit status\n{}", show(&sim));
    }
}

#[test]
fn kernel_cycle_counts_match_the_golden_file() {
    // Assembly kernels timed with rdcycle/rdinstret: independent of the compiler, they pin the timing model
    // (load-use stalls, taken-branch and jump penalties, MUL 5, DIV 66, DIVW 34). Update only on purpose.
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", "--no-prefix", &elf("kernels")]);
    assert!(out.status.success(), "{}", show(&out));
    let golden = std::fs::read_to_string(root().join("tests/sim/kernels.expected")).unwrap();
    assert_eq!(text(&out.stdout), golden);
}

#[test]
fn kernel_cycle_counts_follow_the_latency_table() {
    // The same kernels on a chip with different latencies: the differences are exactly what the table says.
    let dir = scratch("timing");
    let base = std::fs::read_to_string(chip("pimp-2x2")).unwrap();
    let slow = base.replace("div64_cycles = 66", "div64_cycles = 70").replace("load_use_stall_cycles = 1", "load_use_stall_cycles = 2");
    let slow_chip = dir.join("slow.toml");
    std::fs::write(&slow_chip, slow).unwrap();
    let cycles = |chip: &str| -> BTreeMap<String, u64> {
        let out = nocmsg(&["run", "--chip", chip, "-n", "1", "--no-prefix", &elf("kernels")]);
        assert!(out.status.success(), "{}", show(&out));
        text(&out.stdout)
            .lines()
            .filter_map(|l| {
                let (name, rest) = l.split_once(": cycles ")?;
                Some((name.to_string(), rest.split_whitespace().next()?.parse().ok()?))
            })
            .collect()
    };
    let a = cycles(&chip("pimp-2x2"));
    let b = cycles(slow_chip.to_str().unwrap());
    // kernel_sum: one load-use stall per element (256).
    assert_eq!(b["sum"] - a["sum"], 256);
    // kernel_muldiv: two 64-bit divisions per iteration (div, remu), 100 iterations, 4 cycles more each.
    assert_eq!(b["muldiv"] - a["muldiv"], 2 * 100 * 4);
}

#[test]
fn fast_and_debug_clocking_agree() {
    for (p, cores) in [("hello", "16"), ("sort", "4"), ("printf_double", "2")] {
        let dir = scratch(&format!("clocking-{p}"));
        let mut outputs = Vec::new();
        for mode in [None, Some("--debug-clocking")] {
            let stats = dir.join(format!("{}.json", mode.is_some()));
            let stats_s = stats.display().to_string();
            let c = chip_4x4();
            let mut args = vec!["run", "--chip", &c, "-n", cores, "--stats", &stats_s];
            args.extend(mode);
            let path = elf(p);
            args.push(&path);
            let out = nocmsg(&args);
            assert!(out.status.success(), "{}", show(&out));
            let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
            let obj = json.as_object_mut().unwrap();
            obj.remove("host");
            obj.remove("clocking");
            outputs.push((text(&out.stdout), json));
        }
        assert_eq!(outputs[0].0, outputs[1].0, "{p}: console output differs between clockings");
        assert_eq!(outputs[0].1, outputs[1].1, "{p}: stats differ between clockings");
    }
}

#[test]
fn stats_json_has_cycles_instructions_and_stalls_per_core() {
    let dir = scratch("stats");
    let stats = dir.join("stats.json");
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "--stats", stats.to_str().unwrap(), &elf("matmul_int")]);
    assert!(out.status.success(), "{}", show(&out));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let cores = json["cores"].as_array().unwrap();
    assert_eq!(cores.len(), 4);
    let mut max = 0;
    for c in cores {
        let cycles = c["cycles"].as_u64().unwrap();
        let instructions = c["instructions"].as_u64().unwrap();
        let stalls: u64 = c["stalls"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
        // Every cycle is an instruction or a stall of a named cause.
        assert_eq!(cycles, instructions + stalls, "{c}");
        assert!(c["stalls"]["mul"].as_u64().unwrap() > 0, "matmul multiplies: {c}");
        assert_eq!(c["state"], "exited");
        max = max.max(cycles);
    }
    assert_eq!(json["total_cycles"].as_u64().unwrap(), max);
    assert!(json["host"]["mips"].as_f64().unwrap() > 0.0);
}

#[test]
fn faults_stop_the_core_with_a_precise_report() {
    // Exit status 128 + the signal a process would get for the same error natively.
    let cases = [
        ("illegal", "[00000000] .word 0x00000000: illegal instruction", 128 + 4),
        ("load", "load of 8 bytes at 0x10 is outside memory", 128 + 11),
        ("misaligned", "misaligned load of 8 bytes", 128 + 7),
        ("ecall", "ecall: no operating system", 128 + 31),
    ];
    for (kind, want, status) in cases {
        let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), &elf("fault"), kind, "2"]);
        assert_eq!(out.status.code(), Some(status), "{kind}\n{}", show(&out));
        let err = text(&out.stderr);
        assert!(err.starts_with("nocmsg: core 2 (tile 2) stopped at cycle "), "{kind}: {err}");
        assert!(err.contains(", pc 0x8"), "{kind}: {err}");
        assert!(err.contains(want), "{kind}: expected {want:?} in {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        // The other cores still ran to completion.
        let per_core = by_core(&text(&out.stdout));
        assert_eq!(per_core.get(&2).map(String::as_str), Some(format!("core 2 failing with {kind}\n").as_str()));
    }
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), &elf("fault"), "exit", "1"]);
    assert_eq!(out.status.code(), Some(7), "{}", show(&out));
    assert_eq!(text(&out.stderr), "nocmsg: core 1 exited with status 7\n");
}

#[test]
fn cycle_limit_stops_the_run() {
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "--max-cycles", "10000", &elf("sort")]);
    assert_eq!(out.status.code(), Some(124), "{}", show(&out));
    assert_eq!(text(&out.stderr), "nocmsg: cycle limit 10000 reached with cores 0, 1, 2, 3 still running\n");
}

#[test]
fn subsets_and_console_files() {
    let dir = scratch("console");
    let out = nocmsg(&["run", "--chip", &chip("pimp-4x4"), "--tiles", "5,9-10", "--console-dir", dir.to_str().unwrap(), &elf("hello")]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(text(&out.stdout), "");
    for rank in 0..3 {
        let got = std::fs::read_to_string(dir.join(format!("core-{rank}.out"))).unwrap();
        assert_eq!(got, format!("hello from core {rank} of 3\n"));
    }
}

#[test]
fn bad_inputs_get_one_clear_line_and_exit_code_2() {
    let dir = scratch("badinput");
    let garbage = dir.join("garbage.elf");
    std::fs::write(&garbage, b"this is not an executable").unwrap();
    let truncated = dir.join("truncated.elf");
    let bytes = std::fs::read(elf("hello")).unwrap();
    std::fs::write(&truncated, &bytes[..100]).unwrap();
    let bad_toml = dir.join("bad.toml");
    std::fs::write(&bad_toml, "name = \"x\"\nmesh = { width = 2, height = 2 }\ncore = { frequency_mhz = 1000, memory_kib = 4 }\n").unwrap();
    let typo = dir.join("typo.toml");
    std::fs::write(&typo, std::fs::read_to_string(chip("pimp-2x2")).unwrap().replace("mul_cycles", "mull_cycles")).unwrap();
    let host = std::env::current_exe().unwrap();
    let (g, t, b, ty, h) = (garbage.to_str().unwrap(), truncated.to_str().unwrap(), bad_toml.to_str().unwrap(), typo.to_str().unwrap(), host.to_str().unwrap());
    let c2 = chip("pimp-2x2");
    let hello = elf("hello");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", "--chip", &c2, "/nonexistent/prog.elf"], "cannot read program /nonexistent/prog.elf"),
        (vec!["run", "--chip", &c2, g], "is not a valid ELF file: no ELF magic number"),
        (vec!["run", "--chip", &c2, t], "is not a valid ELF file"),
        (vec!["run", "--chip", &c2, h], "but the cores are RV64"),
        (vec!["run", "--chip", "/nonexistent/chip.toml", &hello], "cannot read chip file /nonexistent/chip.toml"),
        (vec!["run", "--chip", b, &hello], "core.memory_kib = 4: must be between 16"),
        (vec!["run", "--chip", ty, &hello], "unknown field `mull_cycles`"),
        (vec!["run", "--chip", &c2, "-n", "5", &hello], "--cores 5: chip pimp-2x2 has 4 cores"),
        (vec!["run", "--chip", &c2, "--tiles", "1,7", &hello], "tile 7 does not exist"),
        (vec!["run", "--chip", &c2, "--tiles", "1,1", &hello], "tile 1 is selected twice"),
    ];
    for (args, want) in cases {
        let out = nocmsg(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: one line\n{err}");
        assert!(err.contains(want), "{args:?}: expected {want:?} in {err}");
    }
}

#[test]
fn programs_read_files_only_under_the_working_directory() {
    // readfile opens its argument through semihosting; a path escaping the working directory is refused.
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", "--no-prefix", &elf("readfile"), "../programs/input.txt"]);
    assert_ne!(out.status.code(), Some(0), "{}", show(&out));
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", "--no-prefix", &elf("readfile"), "input.txt"]);
    assert_eq!(text(&out.stdout), expected("readfile"));
}

#[test]
fn semihosting_files_heap_info_and_time() {
    let dir = scratch("semihost");
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", "--no-prefix", "--work-dir", dir.to_str().unwrap(), &elf("semihost")]);
    assert!(out.status.success(), "{}", show(&out));
    let golden = std::fs::read_to_string(root().join("tests/sim/semihost.expected")).unwrap();
    assert_eq!(text(&out.stdout), golden);
    assert_eq!(std::fs::read_to_string(dir.join("semihost-test.txt")).unwrap(), "0123456789abcdef");
    assert!(!dir.parent().unwrap().join("escape.txt").exists());
}

/// The C library's clocks read simulated time (runtime/posix.c) and the libc that benchmark programs use works
/// (getopt_long, posix_memalign, sysconf, qsort, libm). The program's arguments include `-n`, which `nocmsg run`
/// must pass on rather than take as its own `--cores` (it once did, and refused the run).
#[test]
fn clocks_are_simulated_time_and_benchmark_libc_works() {
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", "--no-prefix", &elf("libc_time"), "-n", "3", "--size=40", "extra"]);
    assert!(out.status.success(), "{}", show(&out));
    let golden = std::fs::read_to_string(root().join("tests/sim/libc_time.expected")).unwrap();
    assert_eq!(text(&out.stdout), golden);
}

#[test]
fn the_readme_first_program_steps_work() {
    // Keeps the README true: run its "first program" commands as written (binaries resolved to this build).
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme.split("## Your first program on 16 cores").nth(1).expect("README has the section");
    let script = section.split("```sh\n").nth(1).and_then(|s| s.split("\n```").next()).expect("a shell block");
    let dir = scratch("readme");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::create_dir_all(dir.join("target/release")).unwrap();
    std::os::unix::fs::symlink(root().join("bin/nocmsg-cc"), dir.join("bin/nocmsg-cc")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_nocmsg"), dir.join("target/release/nocmsg")).unwrap();
    std::os::unix::fs::symlink(root().join("chips"), dir.join("chips")).unwrap();
    let out = Command::new("bash").args(["-euo", "pipefail", "-c", script]).current_dir(&dir).output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let per_core = by_core(&text(&out.stdout));
    assert_eq!(per_core.len(), 16, "{}", show(&out));
    for (core, got) in per_core {
        assert_eq!(got, format!("hello from core {core} of 16\n"));
    }
}

/// Runs tests/sim/pimp_ni.c on two cores of pimp-2x2 with the given clocking; returns the output and the stats
/// without the host section.
fn pimp_ni(args: &[&str], debug: bool) -> (Output, serde_json::Value) {
    let dir = scratch(&format!("pimp-ni-{}-{debug}", args.join("-")));
    let stats = dir.join("stats.json");
    let chip = chip("pimp-2x2");
    let mut cmd = vec!["run", "--chip", &chip, "-n", "2", "--stats", stats.to_str().unwrap()];
    if debug {
        cmd.push("--debug-clocking");
    }
    let program = elf("pimp_ni");
    cmd.push(&program);
    cmd.extend_from_slice(args);
    let out = nocmsg(&cmd);
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let obj = json.as_object_mut().unwrap();
    obj.remove("host");
    obj.remove("clocking");
    (out, json)
}

#[test]
fn pimp_words_arrive_in_order_and_both_clockings_agree() {
    let (fast, fast_stats) = pimp_ni(&["order", "300"], false);
    assert!(fast.status.success(), "{}", show(&fast));
    assert!(text(&fast.stdout).contains("received 300 words in order"), "{}", show(&fast));
    let (debug, debug_stats) = pimp_ni(&["order", "300"], true);
    assert_eq!(text(&fast.stdout), text(&debug.stdout));
    assert_eq!(fast_stats, debug_stats, "fast and debug clocking disagree");
    let ni = &fast_stats["cores"][1]["ni"];
    assert_eq!(ni["receives"], 300);
    assert_eq!(fast_stats["cores"][0]["ni"]["sends"], 300);
    assert_eq!(fast_stats["network"]["flits_received"], 300);
}

#[test]
fn a_core_that_stops_receiving_back_pressures_the_network_into_the_sender() {
    let (out, stats) = pimp_ni(&["backpressure", "100"], false);
    assert!(out.status.success(), "{}", show(&out));
    let (sender, receiver) = (&stats["cores"][0]["ni"], &stats["cores"][1]["ni"]);
    // The receive FIFO (16 entries) fills, then the network behind it, then the send FIFO (8 entries).
    assert_eq!(receiver["recv_fifo_peak"], 16, "{stats:#}");
    assert_eq!(sender["send_fifo_peak"], 8, "{stats:#}");
    assert!(sender["send_wait_cycles"].as_u64().unwrap() > 10_000, "the sender waited on its full FIFO: {stats:#}");
    assert!(receiver["recv_fifo_entry_cycles"].as_u64().unwrap() > 16 * 10_000, "{stats:#}");
    let (_, debug_stats) = pimp_ni(&["backpressure", "100"], true);
    assert_eq!(stats, debug_stats, "fast and debug clocking disagree");
}

#[test]
fn misusing_the_pimp_fifos_stops_the_core_with_a_precise_report() {
    let cases = [
        ("recv-empty", "recv a5: recv on an empty receive FIFO; test it with bar/bnr before receiving"),
        ("src-empty", "src on an empty receive FIFO"),
        ("send-full", "send on a full send FIFO (8 entries); test it with brs/bns before sending"),
        ("bad-dest", "send to core 99: the program runs on cores 0..1"),
    ];
    for (mode, want) in cases {
        let (out, _) = pimp_ni(&[mode], false);
        assert_eq!(out.status.code(), Some(128 + 4), "{mode}: SIGILL's status\n{}", show(&out));
        let err = text(&out.stderr);
        assert!(err.contains("core 0 (tile 0) stopped at cycle") && err.contains(want), "{mode}: {err}");
    }
}

#[test]
fn cores_waiting_for_messages_nobody_sends_are_reported_as_a_deadlock() {
    let (fast, fast_stats) = pimp_ni(&["deadlock"], false);
    assert_eq!(fast.status.code(), Some(200), "{}", show(&fast));
    let err = text(&fast.stderr);
    assert!(err.contains("every running rank is blocked and the network is empty"), "{err}");
    for core in 0..2 {
        let line = err.lines().find(|l| l.starts_with(&format!("  rank {core} (tile {core}) at main+0x"))).unwrap_or_else(|| panic!("{err}"));
        assert!(line.contains("waits for a message (receive FIFO empty)]"), "{line}");
    }
    let (debug, debug_stats) = pimp_ni(&["deadlock"], true);
    assert_eq!(text(&fast.stderr), text(&debug.stderr));
    assert_eq!(fast_stats, debug_stats, "fast and debug clocking disagree");
}

/// Regression (review of the UDN work): an environment larger than the runtime's 4 KiB buffer was seen as empty;
/// now getenv finds every variable, large or not.
#[test]
fn getenv_sees_an_environment_larger_than_its_static_buffer() {
    let dir = scratch("programs-env");
    let src = dir.join("env.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void) {\n    const char *big = getenv(\"BIG\"), *small = getenv(\"SMALL\");\n    printf(\"BIG %zu SMALL %s\\n\", big ? strlen(big) : 0, small ? small : \"(none)\");\n    return 0;\n}\n",
    )
    .unwrap();
    let elf = dir.join("env.elf");
    run_checked(Command::new(root().join("bin/nocmsg-cc")).args(["-O2"]).arg(&src).arg("-o").arg(&elf), "env.c");
    let big = format!("BIG={}", "x".repeat(6000));
    let out = nocmsg(&["run", "--chip", &chip_4x4(), "-n", "1", "--env", &big, "--env", "SMALL=1", elf.to_str().unwrap()]);
    assert!(out.status.success() && text(&out.stdout).contains("BIG 6000 SMALL 1"), "{}", show(&out));
}
