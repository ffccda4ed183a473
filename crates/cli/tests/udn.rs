//! The udn network interface (issue 18) seen from a program: `tests/sim/udn.c` runs one scenario per argument on
//! `chips/udn-2x2.toml` and prints what the cores observed. Checked here: demultiplexing by tag and the catch-all's
//! descriptor, the credits running out exactly when the path is full and back-pressure holding every word, stalls
//! on an empty queue, the arrival interrupt (taken, masked, taken when unmasked), fast and debug clocking giving
//! identical stats, the reports for misuse, and NoCMsg's Figure 1 on tilepro-64: the raw exchange of two long
//! packets deadlocks and is reported as a cycle of channels, while the same exchange through libnocmsg completes.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

/// `tests/sim/udn.c` built for the UDN chips (once per test run, under a lock: the tests run in parallel threads).
fn program() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    static BUILDING: Mutex<()> = Mutex::new(());
    let _guard = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = DIR.get_or_init(|| scratch("udn"));
    let out = dir.join("udn.elf");
    if !out.exists() {
        let mut cmd = Command::new(root().join("bin/nocmsg-cc"));
        cmd.args(["--chip", "udn-2x2", "-O2", "-Wall", "-Werror"])
            .arg(root().join("tests/sim/udn.c"))
            .arg("-o")
            .arg(&out);
        run_checked(&mut cmd, "building tests/sim/udn.c");
    }
    out
}

fn run(chip_name: &str, extra: &[&str], scenario: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg"))
        .args(["run", "--chip", &chip(chip_name)])
        .args(extra)
        .arg(program())
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

/// A run's `--stats` without the parts that differ between clockings and hosts.
fn deterministic_stats(json: &Path) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("host");
    v.as_object_mut().unwrap().remove("clocking");
    v
}

/// Runs a scenario on udn-2x2 with both clockings; they must agree byte for byte. Returns the lines and the stats.
fn both_clockings(scenario: &str) -> (Vec<String>, serde_json::Value) {
    let dir = scratch(&format!("udn-{scenario}"));
    let mut seen = Vec::new();
    for mode in ["fast", "debug"] {
        let json = dir.join(format!("{mode}.json"));
        let mut args = vec!["--stats", json.to_str().unwrap()];
        if mode == "debug" {
            args.push("--debug-clocking");
        }
        let out = run("udn-2x2", &args, scenario);
        seen.push((lines(&out), deterministic_stats(&json)));
    }
    assert_eq!(seen[0].0, seen[1].0, "{scenario}: the clockings print differently");
    assert_eq!(seen[0].1, seen[1].1, "{scenario}: the clockings' stats differ");
    seen.swap_remove(0)
}

fn ni(stats: &serde_json::Value, core: usize, field: &str) -> u64 {
    stats["cores"][core]["ni"][field].as_u64().unwrap_or_else(|| panic!("no cores[{core}].ni.{field} in the stats"))
}

#[test]
fn tags_pick_the_queue_and_the_catch_all_gets_a_descriptor() {
    let (l, stats) = both_clockings("demux");
    assert_eq!(
        l,
        [
            "[core 1] demux: avail 0x1f, counts 2 2 2 2 4",
            "[core 1] demux: catch-all: source 0 length 3 tag 9: 7 8 9; avail then 0",
            "[core 1] demux: queue 0: 100 101",
            "[core 1] demux: queue 1: 110 111",
            "[core 1] demux: queue 2: 120 121",
            "[core 1] demux: queue 3: 130 131",
        ]
    );
    assert_eq!((ni(&stats, 0, "packets_sent"), ni(&stats, 0, "words_sent")), (5, 16), "5 headers and 11 words");
    assert_eq!(
        (ni(&stats, 1, "packets_received"), ni(&stats, 1, "words_received")),
        (5, 12),
        "the descriptor is a word"
    );
}

/// The credits run out when the path is full: the header (stripped, it takes no room in the queue), 32 words in the
/// receive queue, 4 in the input queue, 3 in each of the two router buffers and 4 in the output queue: 47 words.
/// The writer then stalls until the reader drains, and all 120 words arrive, in order.
#[test]
fn credits_run_out_when_the_path_is_full_and_back_pressure_loses_nothing() {
    let (l, stats) = both_clockings("credits");
    assert_eq!(
        l,
        [
            "[core 0] credits: 4 at the start, 47 words written (header included) when they ran out",
            "[core 1] credits: core 1 read 120 words in order: yes, sum 7140",
        ]
    );
    assert!(ni(&stats, 0, "credit_stall_cycles") > 10_000, "core 0 stalls until core 1 reads at cycle 20000");
    assert_eq!(ni(&stats, 0, "out_queue_peak"), 4);
    assert_eq!(stats["cores"][1]["ni"]["queue_peak"][0], 32, "the receive queue filled");
    assert!(ni(&stats, 1, "queue_entry_cycles") > 32 * 10_000, "its words waited there");
}

#[test]
fn reading_an_empty_queue_stalls_until_the_word_lands() {
    let (l, stats) = both_clockings("stall");
    assert_eq!(l, ["[core 1] stall: read 42, after cycle 5000: yes"]);
    // From its read, a little after main began, to the word's landing, a little after cycle 5000.
    let stalled = ni(&stats, 1, "recv_stall_cycles");
    assert!((4800..5100).contains(&stalled), "stalled {stalled} cycles");
    assert_eq!(stats["cores"][1]["stalls"]["ni"], stalled, "the core's stall breakdown shows it");
}

/// Ten packets, ten interrupts (mcause: interrupt bit | 11); a packet arriving while mstatus.MIE is clear sets
/// mip.MEIP and is taken as soon as the core sets MIE again.
#[test]
fn the_arrival_interrupt_is_taken_masked_and_taken_when_unmasked() {
    let (l, stats) = both_clockings("irq");
    assert_eq!(
        l,
        [
            "[core 1] irq: 80 words, sum 3160, 10 interrupts, mcause 0x800000000000000b",
            "[core 1] irq: masked: 0 words taken while masked, mip.MEIP 1, taken when unmasked: yes",
        ]
    );
    assert_eq!(ni(&stats, 1, "interrupts"), 11);
}

#[test]
fn misuse_stops_the_core_with_a_report_naming_the_udn() {
    for (scenario, expected) in [
        ("bad-dest", "UDN header 0x10063 names destination 99: the program runs on cores 0..3"),
        ("bad-length", "has length 0: a packet carries 1 to 127 words (ni.udn.max_packet_words)"),
        ("long-packet", "has length 128: a packet carries 1 to 127 words"),
        ("write-recv", "receive queue 0 (CSR 0x801) is read-only"),
        ("read-send", "udn.send (CSR 0x800) cannot be read: write it with csrw"),
        ("write-credits", "udn.credits (CSR 0xcc0) is read-only"),
    ] {
        let out = run("udn-2x2", &[], scenario);
        let err = text(&out.stderr);
        assert!(
            !out.status.success() && err.contains(expected) && err.contains("core 0 (tile 0) stopped"),
            "{scenario}\n{}",
            show(&out)
        );
        assert!(!text(&out.stdout).contains("not stopped"), "{scenario}\n{}", show(&out));
    }
}

/// NoCMsg's Figure 1 on tilepro-64: each core writes a 127-word packet to its neighbour before reading. The
/// watchdog reports the deadlock with the eight resources of the cycle: each output queue, the two router buffers on
/// the way, the other's input queue, which waits for its core, which waits to write.
#[test]
fn raw_exchange_of_long_packets_deadlocks_and_is_reported() {
    let out = run("tilepro-64", &["-n", "2"], "raw-exchange");
    assert_eq!(out.status.code(), Some(200), "{}", show(&out));
    let err = text(&out.stderr);
    assert!(err.contains("nocmsg: deadlock at cycle") && err.contains("cycle of blocked channels"), "{err}");
    for rank in [0, 1] {
        assert!(err.contains(&format!("rank {rank} (tile {rank}) at nocmsg_udn_send_packet")), "{err}");
        assert!(
            err.contains(&format!(
                "core {rank} (tile {rank}) UDN input queue [4/4 flits; packet {} {}->{rank} (128 flits)] waits for core {rank} to read its receive queues, which it does only once its output queue has room",
                1 - rank,
                1 - rank
            )),
            "{err}"
        );
    }
    let steps =
        err.lines().filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains(". ")).count();
    assert_eq!(steps, 8, "{err}");
    assert!(!text(&out.stdout).contains("got"), "{}", show(&out));
}

/// The same deadlock through libnocmsg's raw sends (both ranks `nocmsg_xsend` first): the report names the call and
/// the rank each waits for, whether the send was inline in the caller, went through the library (a misaligned
/// buffer) or needed several packets, although none of them leaves a frame of `nocmsg_xsend` on the stack
/// (regression: the wait-site table names the stalling writes).
#[test]
fn raw_sends_through_libnocmsg_deadlock_and_the_report_names_them() {
    for how in ["inline", "lib", "packets"] {
        let out = run("tilepro-64", &["-n", "2"], &format!("lib-raw-deadlock-{how}"));
        assert_eq!(out.status.code(), Some(200), "{how}: {}", show(&out));
        let err = text(&out.stderr);
        assert!(err.contains("nocmsg: deadlock at cycle"), "{how}: {err}");
        for (rank, peer) in [(0, 1), (1, 0)] {
            let named = format!("rank {rank} (tile {rank}) in nocmsg_xsend called from main+");
            assert!(err.contains(&named), "{how}: {err}");
            assert!(err.contains(&format!("waits for rank {peer} [pc ")), "{how}: {err}");
        }
        assert!(err.contains("stalls writing udn.send"), "{how}: {err}");
        assert!(!text(&out.stdout).contains("got through"), "{how}: {}", show(&out));
    }
}

/// A program of two files that include nocmsg.h builds with `-flto` (one assembly file: the wait-site macros must be
/// defined once) and runs, for a UDN chip and a PIMP chip, with `-pedantic` quiet about the inline paths.
#[test]
fn programs_of_several_files_build_with_link_time_optimisation() {
    let dir = scratch("udn-lto");
    for chip_name in ["udn-2x2", "pimp-2x2"] {
        let elf = dir.join(format!("lto-{chip_name}.elf"));
        let mut cmd = Command::new(root().join("bin/nocmsg-cc"));
        cmd.args(["--chip", chip_name, "-O2", "-flto", "-Wall", "-Wextra", "-pedantic", "-Werror"])
            .arg(root().join("tests/sim/lto_main.c"))
            .arg(root().join("tests/sim/lto_part.c"))
            .arg("-o")
            .arg(&elf);
        run_checked(&mut cmd, "building tests/sim/lto_main.c and lto_part.c with -flto");
        let out = Command::new(env!("CARGO_BIN_EXE_nocmsg"))
            .args(["run", "--chip", &chip(chip_name), "-n", "2", "--no-prefix"])
            .arg(&elf)
            .output()
            .expect("nocmsg runs");
        assert!(out.status.success(), "{chip_name}: {}", show(&out));
        assert_eq!(text(&out.stdout).trim(), "lto: 42", "{chip_name}: {}", show(&out));
    }
}

/// The same exchange through libnocmsg completes: on two neighbours and on all 64 cores of tilepro-64 (pairs 2k,
/// 2k + 1), with a blocking sendrecv of 1016 bytes, an eager send before the receive, and 64 KiB each way.
#[test]
fn the_same_exchange_through_libnocmsg_completes() {
    for cores in [2usize, 64] {
        let n = cores.to_string();
        let out = run("tilepro-64", &["-n", &n, "--max-cycles", "50000000"], "lib-exchange");
        let l = lines(&out);
        assert_eq!(l.len(), cores, "{}", show(&out));
        assert!(l.iter().all(|line| line.ends_with(": ok")), "{}", show(&out));
    }
}

/// The port's common paths are byte-exact: every size to 40 bytes and sizes around the output queue, the eager limit
/// and a packet, from every source alignment into two destination alignments, through send/recv and xsend/xrecv, both
/// ways, with the bytes around each message untouched (regression for the frameless paths of lib/ports/udn.c).
#[test]
fn port_fast_paths_are_byte_exact_at_every_size_and_alignment() {
    let (l, _) = both_clockings("xfer-bytes");
    assert_eq!(
        l,
        [
            "[core 0] xfer-bytes: rank 0: ok (1472 received)",
            "[core 1] xfer-bytes: rank 1: ok (1472 received)",
            "[core 2] xfer-bytes: rank 2: ok (1472 received)",
            "[core 3] xfer-bytes: rank 3: ok (1472 received)"
        ]
    );
}

/// nocmsg_xsend writes straight into the network (stalling writes, no credit check) to a peer in nocmsg_xrecv, and
/// nocmsg_xchg orders its two raw writes by rank (NoCMsg's C1), so a pairwise exchange of 64 KiB completes, with and
/// without sync; on udn-2x2 and on all 64 cores of tilepro-64.
#[test]
fn raw_transfers_and_rank_ordered_exchanges_complete() {
    let (l, _) = both_clockings("xfer");
    assert_eq!(
        l,
        [
            "[core 0] xfer: rank 0: ok",
            "[core 1] xfer: rank 1: ok",
            "[core 2] xfer: rank 2: ok",
            "[core 3] xfer: rank 3: ok"
        ]
    );
    let out = run("tilepro-64", &["-n", "64", "--max-cycles", "100000000"], "xfer");
    let l = lines(&out);
    assert!(l.len() == 64 && l.iter().all(|line| line.ends_with(": ok")), "{}", show(&out));
}

/// The UDN barrier is the selector's choice, and ranks waiting for a late one sleep in wfi (exactly: both clockings
/// agree) instead of spinning.
#[test]
fn the_udn_barrier_is_chosen_and_waiting_ranks_sleep() {
    let (l, stats) = both_clockings("barrier");
    assert_eq!(l, ["[core 0] barrier: udn_tree, 3 rounds"]);
    for core in [0, 2, 3] {
        assert!(ni(&stats, core, "wfi_cycles") > 3 * 15_000, "core {core} slept while rank 1 computed: {stats}");
    }
    assert!(ni(&stats, 1, "wfi_cycles") < 1000, "rank 1 is the late one");
}

/// Regression (review): an interrupt arriving while the core is stalled on another queue was taken at once with
/// debug clocking but only after the stall with the default clocking. Now both take it at once.
#[test]
fn an_interrupt_during_a_stalled_read_is_taken_at_once_with_both_clockings() {
    let (l, stats) = both_clockings("irq-stall");
    assert_eq!(l, ["[core 1] irq-stall: read 1; the interrupt came before the read completed: yes"]);
    assert_eq!(ni(&stats, 1, "interrupts"), 1);
}

/// Regression (review): csrs and csrc on udn.irqen set and clear bits (they replaced the register).
#[test]
fn csrs_and_csrc_set_and_clear_irqen_bits() {
    let (l, _) = both_clockings("irqen-bits");
    assert_eq!(l, ["[core 0] irqen-bits: 0x1 0x3 0x2 0"]);
}
