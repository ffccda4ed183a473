//! Issue 14, the simulator and runtime side: programs that misbehave or need more than the old presets gave must get
//! a clear report or room to run. Each test names the defect it pins: stack overflows, stripped programs, aborts,
//! sleeping, memory sizes and out-of-memory messages, occupancy sums that left out words never received.

mod common;
use common::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

/// Builds `tests/<source>` for the simulator once per test run (with `extra` compiler arguments) and returns the
/// ELF's path.
fn build(source: &str, extra: &[&str]) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| scratch("hardening-sim"));
    let key = format!("{source} {}", extra.join(" "));
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(path) = built.get(&key) {
        return path.clone();
    }
    let stem = Path::new(source).file_stem().unwrap().to_string_lossy().into_owned();
    let out = dir.join(format!("{stem}-{}.elf", built.len()));
    let src = root().join("tests").join(source);
    let mut cmd = if source.ends_with(".S") && extra.contains(&"-nostdlib") {
        let mut c = Command::new("riscv64-unknown-elf-gcc");
        c.args(["-march=rv64im", "-mabi=lp64", "-nostartfiles", "-T"]).arg(root().join("runtime/nocmsg.ld"));
        c
    } else {
        let mut c = Command::new(root().join("bin/nocmsg-cc"));
        c.args(["-O2", "-Wall", "-Werror"]);
        c
    };
    cmd.args(extra).arg(&src).arg("-o").arg(&out);
    run_checked(&mut cmd, &format!("building {source}"));
    built.insert(key, out.clone());
    out
}

fn nocmsg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).output().expect("nocmsg runs")
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ---- item 9: stripped programs -------------------------------------------------------------------------------

/// A stripped program (or one whose section headers were removed) used to load without its boot block: every
/// core started with no stack and faulted on its first store. It is refused at load time instead.
#[test]
fn programs_without_a_symbol_table_are_refused_at_load_time() {
    let hello = build("programs/hello.c", &[]);
    let dir = scratch("stripped");
    let stripped = dir.join("hello-stripped.elf");
    run_checked(Command::new("riscv64-unknown-elf-strip").arg("-o").arg(&stripped).arg(&hello), "strip");
    // No section headers at all: e_shoff, e_shentsize, e_shnum and e_shstrndx zeroed in the ELF header.
    let mut bytes = std::fs::read(&hello).unwrap();
    bytes[0x28..0x30].fill(0);
    bytes[0x3a..0x40].fill(0);
    let headerless = dir.join("hello-no-sections.elf");
    std::fs::write(&headerless, &bytes).unwrap();
    let chip = chip("pimp-2x2");
    for elf in [&stripped, &headerless] {
        let out = nocmsg(&["run", "--chip", &chip, path_str(elf)]);
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "one line\n{err}");
        assert!(err.contains("has no symbol table (stripped, or its section headers removed)"), "{err}");
        assert!(err.contains("nocmsg_boot") && err.contains("bin/nocmsg-cc"), "says what to do: {err}");
    }
    // Keeping the one symbol the loader needs is enough.
    let kept = dir.join("hello-kept.elf");
    run_checked(
        Command::new("riscv64-unknown-elf-strip").arg("--keep-symbol=nocmsg_boot").arg("-o").arg(&kept).arg(&hello),
        "strip --keep-symbol",
    );
    let out = nocmsg(&["run", "--chip", &chip, "-n", "2", path_str(&kept)]);
    assert!(out.status.success(), "{}", show(&out));
    let mut lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    lines.sort();
    assert_eq!(lines, ["[core 0] hello from core 0 of 2", "[core 1] hello from core 1 of 2"]);
}

/// A plain bare-metal program (symbols, but no nocmsg runtime) still loads and runs as before.
#[test]
fn bare_metal_programs_without_the_runtime_still_run() {
    let bare = build("sim/bare_metal.S", &["-nostdlib"]);
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", path_str(&bare)]);
    assert_eq!(out.status.code(), Some(5), "{}", show(&out));
    assert_eq!(text(&out.stderr), "nocmsg: core 0 exited with status 5\n");
}

/// The runtime checks that a loader filled its boot block in: a nocmsg program whose `nocmsg_boot` symbol alone
/// was removed says so and exits 1, instead of faulting for want of a stack.
#[test]
fn the_runtime_says_when_its_boot_block_was_not_filled_in() {
    let hello = build("programs/hello.c", &[]);
    let dir = scratch("no-boot-symbol");
    let elf = dir.join("hello-no-boot.elf");
    run_checked(
        Command::new("riscv64-unknown-elf-strip").arg("--strip-symbol=nocmsg_boot").arg("-o").arg(&elf).arg(&hello),
        "strip --strip-symbol",
    );
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", path_str(&elf)]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(text(&out.stdout).contains("nocmsg runtime: the boot block (nocmsg_boot) was not filled in"), "{}", show(&out));
}

/// `chips/<preset>.toml` with its `[core]` memory and stack replaced, written to `dir`; returns the path.
fn chip_with_memory(dir: &Path, preset: &str, memory_kib: u64, stack_kib: u64) -> String {
    let text = std::fs::read_to_string(chip(preset)).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("memory_kib") {
                format!("memory_kib = {memory_kib}")
            } else if l.starts_with("stack_kib") {
                format!("stack_kib = {stack_kib}")
            } else {
                l.to_string()
            }
        })
        .collect();
    let path = dir.join(format!("{preset}-{memory_kib}k-{stack_kib}k.toml"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.display().to_string()
}

// ---- item 2: stack overflow ----------------------------------------------------------------------------------

/// A stack growing past its reservation used to overwrite the heap (and below it data and code) silently: the
/// program could print wrong results and exit 0. The core now stops at the instruction that moved `sp` below the
/// reservation, with the depth and the reservation in the report, the same with both clockings.
#[test]
fn a_stack_overflow_stops_the_core_with_a_report() {
    let elf = build("sim/stack_overflow.c", &[]);
    let dir = scratch("stack-overflow");
    let small = chip_with_memory(&dir, "pimp-2x2", 1024, 64);
    // 30 levels of 1 KiB fit in 64 KiB; 100 do not (recursion), nor does one 100 KiB array (alloca).
    for (mode, depth) in [("recurse", "30"), ("alloca", "30")] {
        let out = nocmsg(&["run", "--chip", &small, "-n", "1", "--no-prefix", path_str(&elf), mode, depth]);
        assert!(out.status.success(), "{}", show(&out));
        assert_eq!(text(&out.stdout), format!("{mode} {depth}\nsurvived\n"));
    }
    for (mode, insn) in [("recurse", "add sp, sp, t0"), ("alloca", "sub sp, sp,")] {
        let mut reports = Vec::new();
        for clocking in [None, Some("--debug-clocking")] {
            let mut args = vec!["run", "--chip", &small, "-n", "2", "--no-prefix"];
            args.extend(clocking);
            args.extend([path_str(&elf), mode, "100"]);
            let out = nocmsg(&args);
            assert_eq!(out.status.code(), Some(139), "{mode}\n{}", show(&out));
            assert!(!text(&out.stdout).contains("survived"), "{mode}\n{}", show(&out));
            let err = text(&out.stderr);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.starts_with("nocmsg: core 0 (tile 0) stopped at cycle "), "{err}");
            assert!(err.contains(insn), "the instruction that moved sp: {err}");
            assert!(err.contains(": stack overflow: the stack grew to "), "{err}");
            assert!(err.contains("past the 64 KiB reserved at 0x800f0000..0x80100000"), "{err}");
            assert!(err.contains("raise core.stack_kib"), "{err}");
            reports.push(err);
        }
        assert_eq!(reports[0], reports[1], "{mode}: fast and debug clocking disagree");
    }
    // A bigger reservation lets the same recursion finish.
    let roomy = chip_with_memory(&dir, "pimp-2x2", 1024, 256);
    let out = nocmsg(&["run", "--chip", &roomy, "-n", "1", "--no-prefix", path_str(&elf), "recurse", "100"]);
    assert!(out.status.success(), "{}", show(&out));
}

// ---- item 3: occupancy sums ----------------------------------------------------------------------------------

/// `recv_fifo_entry_cycles` left out words never received, so the Little's-law occupancy was wrong for exactly
/// the runs whose FIFOs filled up. Core 1 exits at once; the 10 words core 0 sends it wait in its receive FIFO
/// until core 0, computing for some 60,000 cycles more, ends the run. (The sums are checked exactly against the
/// words' timestamps in the unit test of `ni/pimp.rs`; here the whole run, both clockings.)
#[test]
fn words_never_received_count_in_the_fifo_occupancy() {
    let elf = build("sim/pimp_ni.c", &[]);
    let dir = scratch("unreceived");
    let mut stats = Vec::new();
    for clocking in [None, Some("--debug-clocking")] {
        let file = dir.join(format!("stats-{}.json", clocking.is_some()));
        let chip = chip("pimp-2x2");
        let mut args = vec!["run", "--chip", &chip, "-n", "2", "--stats", path_str(&file)];
        args.extend(clocking);
        args.extend([path_str(&elf), "unreceived", "10"]);
        let out = nocmsg(&args);
        assert!(out.status.success(), "{}", show(&out));
        let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let obj = json.as_object_mut().unwrap();
        obj.remove("host");
        obj.remove("clocking");
        stats.push(json);
    }
    assert_eq!(stats[0], stats[1], "fast and debug clocking disagree");
    let s = &stats[0];
    let total = s["total_cycles"].as_u64().unwrap();
    let (sender, receiver) = (&s["cores"][0], &s["cores"][1]);
    assert_eq!(sender["cycles"].as_u64().unwrap(), total, "core 0 ends the run");
    let exited = receiver["cycles"].as_u64().unwrap();
    assert!(total - exited > 50_000, "{s:#}");
    let ni = &receiver["ni"];
    assert_eq!(ni["recv_fifo_left"], 10, "{s:#}");
    assert_eq!(ni["receives"], 0, "{s:#}");
    // Each word arrived within a few hundred cycles of the start and waited to the end of the run.
    let sum = ni["recv_fifo_entry_cycles"].as_u64().unwrap();
    assert!(sum > 10 * (total - exited) && sum <= 10 * total, "recv_fifo_entry_cycles {sum}, total {total}\n{s:#}");
    // The words left the send FIFO at once (the network had room): a few cycles each, not nothing.
    let send = sender["ni"]["send_fifo_entry_cycles"].as_u64().unwrap();
    assert!(send < 10 * 100, "{s:#}");
}

// ---- item 4: abort -------------------------------------------------------------------------------------------

/// Runs `tests/sim/abort.c` on the simulator; returns the output and the stats without the host section.
fn simulated_abort(args: &[&str], debug: bool) -> (Output, serde_json::Value) {
    let elf = build("sim/abort.c", &[]);
    let dir = scratch(&format!("abort-{}-{debug}", args.join("-")));
    let stats = dir.join("stats.json");
    let chip = chip("pimp-4x4");
    let mut cmd = vec!["run", "--chip", &chip, "-n", "4", "--max-cycles", "50000000", "--stats", path_str(&stats)];
    if debug {
        cmd.push("--debug-clocking");
    }
    cmd.push(path_str(&elf));
    cmd.extend_from_slice(args);
    let out = nocmsg(&cmd);
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let obj = json.as_object_mut().unwrap();
    obj.remove("host");
    obj.remove("clocking");
    (out, json)
}

/// MPI_Abort on the simulator used to stop only the calling core (the port's abort was `exit`): ranks spinning in
/// MPI_Iprobe or computing ran on until --max-cycles or forever. It ends the whole run now, with the caller's code
/// and a line naming the rank, as natively; the output is the same with both clockings.
#[test]
fn mpi_abort_ends_the_whole_simulated_run_with_its_code() {
    let (out, stats) = simulated_abort(&["mpi", "7"], false);
    assert_eq!(out.status.code(), Some(7), "{}", show(&out));
    let err = text(&out.stderr);
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("nocmsg: rank 0 called abort (code 7) at cycle "), "{err}");
    assert!(last.ends_with("; stopped 3 other running cores"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let stdout = text(&out.stdout);
    // The library's own line (picolibc's semihosting stderr is the console's stdout).
    assert!(stdout.contains("[core 0] nocmsg: rank 0 called nocmsg_abort(7)"), "{stdout}");
    assert!(stdout.contains("[core 0] rank 0 of 4 aborts"), "{stdout}");
    assert!(stdout.contains("[core 2] rank 2 computing: 4096"), "the computing rank got going: {stdout}");
    assert!(!stdout.contains("returned from MPI_Abort") && !stdout.contains("nobody sent"), "{stdout}");
    // Well before the cycle limit: the abort's cycle is the run's end, and every other core stopped there.
    let cycle: u64 = last.split("at cycle ").nth(1).unwrap().split(';').next().unwrap().parse().unwrap();
    assert!(cycle < 5_000_000, "{last}");
    assert_eq!(stats["total_cycles"], cycle, "{stats:#}");
    let cores = stats["cores"].as_array().unwrap();
    assert_eq!(cores[0]["state"], "aborted");
    assert_eq!(cores[0]["code"], 7);
    for c in &cores[1..] {
        assert_eq!((&c["state"], &c["by"], &c["cycles"]), (&serde_json::json!("stopped"), &serde_json::json!(0), &serde_json::json!(cycle)), "{c}");
    }
    // Debug clocking stops at the same cycle with the same output.
    let (debug, debug_stats) = simulated_abort(&["mpi", "7"], true);
    assert_eq!(debug.status.code(), Some(7));
    assert_eq!(text(&debug.stdout), stdout);
    assert_eq!(text(&debug.stderr), err);
    assert_eq!(debug_stats["total_cycles"], stats["total_cycles"]);
    assert_eq!(debug_stats["cores"][0], stats["cores"][0], "the aborting core's statistics are exact");
}

/// C's abort() ends the whole run too, with status 134 as a rank killed by SIGABRT natively; MPI_Abort with code
/// 0 still fails the run (status 1), as natively.
#[test]
fn c_abort_and_mpi_abort_0_end_the_run_as_natively() {
    let (out, _) = simulated_abort(&["c"], false);
    assert_eq!(out.status.code(), Some(134), "{}", show(&out));
    assert!(text(&out.stderr).contains("nocmsg: rank 0 called abort (code 134) at cycle "), "{}", show(&out));
    let (out, _) = simulated_abort(&["mpi", "0"], false);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(text(&out.stderr).contains("nocmsg: rank 0 called abort (code 0) at cycle "), "{}", show(&out));
}

/// The same program natively (where the launcher already stopped the job): exit 7 quickly, naming rank 0.
#[test]
fn mpi_abort_ends_the_native_job_with_its_code() {
    let dir = scratch("abort-native");
    let exe = dir.join("abort");
    run_checked(
        Command::new(root().join("bin/nocmsg-cc-native")).args(["-O2", "-Wall", "-Werror"]).arg(root().join("tests/sim/abort.c")).arg("-o").arg(&exe),
        "nocmsg-cc-native abort.c",
    );
    let started = std::time::Instant::now();
    let out = nocmsg(&["native", "-n", "4", "--timeout", "60", path_str(&exe), "mpi", "7"]);
    assert_eq!(out.status.code(), Some(7), "{}", show(&out));
    assert!(started.elapsed().as_secs() < 30, "the launcher stopped the spinning ranks");
    let err = text(&out.stderr);
    assert!(err.contains("nocmsg: rank 0 called nocmsg_abort(7)"), "{err}");
    assert!(err.contains("rank 0"), "{err}");
    let out = nocmsg(&["native", "-n", "4", "--timeout", "60", path_str(&exe), "c"]);
    assert_eq!(out.status.code(), Some(134), "{}", show(&out));
}

// ---- item 17: sleep ------------------------------------------------------------------------------------------

/// sleep, usleep and nanosleep were missing on the simulated cores. They pass simulated time now: exactly what was
/// asked (rounded up to a cycle), with POSIX's errors, in host time next to nothing, and the same with debug
/// clocking; the slept cycles are a stall cause of their own in the statistics.
#[test]
fn sleep_usleep_and_nanosleep_pass_simulated_time() {
    let elf = build("sim/sleep.c", &[]);
    let dir = scratch("sleep");
    let golden = std::fs::read_to_string(root().join("tests/sim/sleep.expected")).unwrap();
    let mut runs = Vec::new();
    for clocking in [None, Some("--debug-clocking")] {
        let stats = dir.join(format!("stats-{}.json", clocking.is_some()));
        let chip = chip("pimp-2x2");
        let mut args = vec!["run", "--chip", &chip, "-n", "1", "--no-prefix", "--stats", path_str(&stats)];
        args.extend(clocking);
        args.push(path_str(&elf));
        let out = nocmsg(&args);
        assert!(out.status.success(), "{}", show(&out));
        assert_eq!(text(&out.stdout), golden);
        let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
        json.as_object_mut().unwrap().remove("host");
        json.as_object_mut().unwrap().remove("clocking");
        runs.push(json);
    }
    assert_eq!(runs[0], runs[1], "fast and debug clocking disagree");
    let core = &runs[0]["cores"][0];
    // 15 us + 25 us + 1 ns at 1 GHz: 40,001 cycles asleep, and every cycle still an instruction or a stall.
    assert_eq!(core["stalls"]["sleep"], 40_001, "{core}");
    let stalls: u64 = core["stalls"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(core["cycles"].as_u64().unwrap(), core["instructions"].as_u64().unwrap() + stalls);

    // Whole seconds cost no host time (the run jumps over them).
    let started = std::time::Instant::now();
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", "--no-prefix", path_str(&elf), "long"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(started.elapsed().as_secs() < 10, "5.5 simulated seconds of sleep took {:?}", started.elapsed());
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with(&golden), "{stdout}");
    let tail = &stdout[golden.len()..];
    assert!(tail.contains("sleep 2                      rc 0, 2000000 us\n"), "{tail}");
    assert!(tail.contains("usleep 1500000               rc 0, 1500000 us\n"), "{tail}");
    assert!(tail.contains("time() after: 5 s\n"), "{tail}");

    // Sleeping cores wake in simulated-time order: core r sleeps 40 - 10 r microseconds.
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), path_str(&elf), "order"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(text(&out.stdout), "[core 3] core 3 awake\n[core 2] core 2 awake\n[core 1] core 1 awake\n[core 0] core 0 awake\n");
}

// ---- item 16: memory for real programs -----------------------------------------------------------------------

/// Third-party MPI programs did not fit the shipped chips (1 MiB per core, 256 KiB on pimp-32x32). Every preset
/// now holds a 1 MiB static buffer and 2 x 4 MiB of heap per core, and bench/micro/coll.c runs on pimp-32x32.
#[test]
fn every_preset_holds_real_programs() {
    let elf = build("sim/memory.c", &[]);
    for preset in ["pimp-2x2", "pimp-3x3", "pimp-4x4", "pimp-8x8", "pimp-32x32"] {
        let out = nocmsg(&["run", "--chip", &chip(preset), "-n", "2", "--no-prefix", path_str(&elf), "big"]);
        assert!(out.status.success(), "{preset}\n{}", show(&out));
        assert_eq!(text(&out.stdout), "1 MiB static and 2 x 4 MiB of heap: 6\n".repeat(2), "{preset}");
    }
    let dir = scratch("coll-32x32");
    let coll = dir.join("coll.elf");
    run_checked(Command::new(root().join("bin/nocmsg-cc")).arg("-O2").arg(root().join("bench/micro/coll.c")).arg("-o").arg(&coll), "nocmsg-cc coll.c");
    let chip = chip("pimp-32x32");
    let args = ["run", "--chip", &chip, "-n", "4", "--no-prefix", path_str(&coll), "--op", "barrier", "--alg", "auto", "--iters", "1", "--reps", "1"];
    let out = nocmsg(&args);
    assert!(out.status.success(), "{}", show(&out));
    assert!(text(&out.stdout).contains("\nbarrier,auto,"), "{}", show(&out));
}

/// The last number in `text` after `marker` (up to the next character that is not a digit).
fn number_after(text: &str, marker: &str) -> u64 {
    let rest = text.split(marker).nth(1).unwrap_or_else(|| panic!("no {marker:?} in {text}"));
    rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
}

/// "Does not fit" named a segment and the memory, not how much the program needs or which setting gives it. Now it
/// says both, and the figure is exact: with that much memory the program runs, with 1 KiB less it does not.
#[test]
fn a_program_that_does_not_fit_is_told_how_much_memory_it_needs() {
    let elf = build("sim/memory.c", &[]);
    let dir = scratch("does-not-fit");
    let small = chip_with_memory(&dir, "pimp-2x2", 1024, 64);
    let out = nocmsg(&["run", "--chip", &small, "-n", "1", path_str(&elf), "malloc", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("does not fit chip pimp-2x2: its image needs "), "{err}");
    assert!(err.contains("below the 64 KiB stack, but core.memory_kib = 1024 leaves 960 KiB there"), "{err}");
    let needed = number_after(&err, "raise core.memory_kib to at least ");
    assert!(needed > 1024 + 64, "{err}");
    let enough = chip_with_memory(&dir, "pimp-2x2", needed, 64);
    let out = nocmsg(&["run", "--chip", &enough, "-n", "1", "--no-prefix", path_str(&elf), "malloc", "0"]);
    assert!(out.status.success(), "{}", show(&out));
    let short = chip_with_memory(&dir, "pimp-2x2", needed - 1, 64);
    let out = nocmsg(&["run", "--chip", &short, "-n", "1", path_str(&elf), "malloc", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

/// Running out of heap gave malloc's NULL and nothing else. The runtime now says, once per core and on stderr, how
/// much was asked, how much heap the core has and what to raise (again exact: that much memory serves the request).
#[test]
fn running_out_of_heap_is_reported_once_with_the_setting_to_raise() {
    let elf = build("sim/memory.c", &[]);
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "2", path_str(&elf), "malloc", "600"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(text(&out.stdout).matches("malloc 600 MiB: NULL").count(), 4, "{}", show(&out));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 2, "one line per core\n{err}");
    for core in 0..2 {
        let want = format!("[core {core}] nocmsg: core {core}: out of memory: the heap cannot grow by 614401 KiB (0 of its ");
        assert!(err.contains(&want), "{err}");
    }
    assert!(err.contains("KiB in use: core.memory_kib = 524288 less the 8192 KiB stack and the "), "{err}");
    let needed = number_after(&err, "raise core.memory_kib in the chip file (to at least ");
    let dir = scratch("out-of-memory");
    let enough = chip_with_memory(&dir, "pimp-2x2", needed, 8192);
    let out = nocmsg(&["run", "--chip", &enough, "-n", "1", "--no-prefix", path_str(&elf), "malloc", "600"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(text(&out.stdout).starts_with("malloc 600 MiB: ok\n"), "{}", show(&out));
    let short = chip_with_memory(&dir, "pimp-2x2", needed - 1, 8192);
    let out = nocmsg(&["run", "--chip", &short, "-n", "1", "--no-prefix", path_str(&elf), "malloc", "600"]);
    assert!(text(&out.stdout).starts_with("malloc 600 MiB: NULL\n"), "{}", show(&out));
}
