//! libnocmsg's C test suite (`tests/lib`, see its README) on both ports: built with `bin/nocmsg-cc` for the
//! simulated PIMP chips and with `bin/nocmsg-cc-native` for Linux processes, run on 1, 2, 3, 4 and 8 native ranks,
//! on the 4 cores of pimp-2x2 and the 16 cores of pimp-4x4. Every run must pass, and the random-pattern checksum
//! (which depends only on the number of ranks) must be the same natively and simulated: a differential test of the
//! two ports.
//!
//! The same suite built for the MPB port (`bin/nocmsg-cc --chip mpb-2x2`: lib/ports/mpb.c) runs on the 4 cores of
//! mpb-2x2 (16-bit counts, rings of 4 KiB) and on 8 cores of mpb-8x8 (byte counts, rings of 2 KiB), and must give the
//! native checksums of 4 and 8 ranks; built for the UDN port (`--chip udn-2x2`: lib/ports/udn.c) it runs on udn-2x2
//! and the 16 cores of udn-4x4, with the native checksums of 4 and 16 ranks, in both of the port's modes (the work
//! loop, and the interrupt-driven baseline: `--env NOCMSG_UDN_MODE=interrupt`).
//!
//! The simulated suite also runs on pimp-2x2 built with `-DNOCMSG_NO_INLINE`, so the library's own paths are
//! checked as well as the inline fast paths of `nocmsg_inline.h`; the ping-pong benchmark's cycle counts on
//! pimp-4x4 are pinned by a golden file and held to PIMP's published round trip and to issue 14's bounds, and every
//! way of calling blocking point-to-point (bench/micro/p2p_paths.c) is held near the inline one.
//!
//! Nothing is skipped: a missing cross compiler or native wrapper fails the build step with its message.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Native rank counts that must pass; 16 is also run, for the comparison with pimp-4x4.
const NATIVE_RANKS: &[usize] = &[1, 2, 3, 4, 8];
const SEEDS_PREFIX: &str = "libnocmsg random patterns: 100 seeds, ";

struct Builds {
    sim: PathBuf,
    /// Simulated, with the inline fast paths turned off.
    sim_no_inline: PathBuf,
    /// Simulated, for the MPB chips (lib/ports/mpb.c).
    sim_mpb: PathBuf,
    /// Simulated, for the UDN chips (lib/ports/udn.c).
    sim_udn: PathBuf,
    native: PathBuf,
}

/// Builds the suite once per test run, for the simulator and natively.
fn builds() -> &'static Builds {
    static BUILDS: OnceLock<Builds> = OnceLock::new();
    BUILDS.get_or_init(|| {
        let dir = scratch("libnocmsg");
        let builds = Builds {
            sim: dir.join("suite.elf"),
            sim_no_inline: dir.join("suite-no-inline.elf"),
            sim_mpb: dir.join("suite-mpb.elf"),
            sim_udn: dir.join("suite-udn.elf"),
            native: dir.join("suite"),
        };
        for (wrapper, flags, out) in [
            ("nocmsg-cc", &[][..], &builds.sim),
            ("nocmsg-cc", &["-DNOCMSG_NO_INLINE"][..], &builds.sim_no_inline),
            ("nocmsg-cc", &["--chip", "mpb-2x2"][..], &builds.sim_mpb),
            ("nocmsg-cc", &["--chip", "udn-2x2"][..], &builds.sim_udn),
            ("nocmsg-cc-native", &[][..], &builds.native),
        ] {
            let cc = root().join("bin").join(wrapper);
            assert!(cc.exists(), "{} does not exist: the library suite needs it", cc.display());
            run_checked(
                Command::new(&cc).args(["-O2", "-Wall"]).args(flags).args(c_sources("tests/lib")).arg("-o").arg(out),
                &format!("{wrapper} {} tests/lib/*.c", flags.join(" ")),
            );
        }
        builds
    })
}

fn nocmsg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(root()).output().expect("nocmsg runs")
}

/// `nocmsg native -n N`, run once per test run and rank count.
fn native(ranks: usize) -> &'static Output {
    static RUNS: [OnceLock<Output>; 17] = [const { OnceLock::new() }; 17];
    RUNS[ranks].get_or_init(|| {
        let suite = builds().native.display().to_string();
        nocmsg(&["native", "-n", &ranks.to_string(), "--timeout", "120", &suite])
    })
}

/// `nocmsg run` on every core of a chip, once per test run and chip (`pimp-2x2-no-inline`: pimp-2x2 running the
/// build without inline fast paths; the MPB chips run the MPB build, mpb-8x8 on its first 8 cores).
fn simulated(chip_name: &str) -> &'static Output {
    static RUNS: [OnceLock<Output>; 9] = [const { OnceLock::new() }; 9];
    let (slot, extra): (usize, &[&str]) = match chip_name {
        "pimp-2x2" => (0, &[]),
        "pimp-4x4" => (1, &["--max-cycles", "2000000000"]),
        "pimp-2x2-no-inline" => (2, &[]),
        // About 40M cycles; 0.2G stops a hang soon.
        "mpb-2x2" => (3, &["--max-cycles", "200000000"]),
        // About 45M cycles.
        "mpb-8x8" => (4, &["-n", "8", "--max-cycles", "300000000"]),
        // About 35M and 41M cycles.
        "udn-2x2" => (5, &["--max-cycles", "200000000"]),
        "udn-4x4" => (6, &["--max-cycles", "200000000"]),
        // About 55M and 64M cycles.
        "udn-2x2-interrupt" => (7, &["--max-cycles", "300000000", "--env", "NOCMSG_UDN_MODE=interrupt"]),
        "udn-4x4-interrupt" => (8, &["--max-cycles", "300000000", "--env", "NOCMSG_UDN_MODE=interrupt"]),
        other => panic!("no run set up for chip {other}"),
    };
    RUNS[slot].get_or_init(|| {
        let (c, build) = match chip_name.strip_suffix("-no-inline") {
            Some(name) => (chip(name), &builds().sim_no_inline),
            None if chip_name.ends_with("-interrupt") => (chip(chip_name.strip_suffix("-interrupt").unwrap()), &builds().sim_udn),
            None if chip_name.starts_with("mpb-") => (chip(chip_name), &builds().sim_mpb),
            None if chip_name.starts_with("udn-") => (chip(chip_name), &builds().sim_udn),
            None => (chip(chip_name), &builds().sim),
        };
        let suite = build.display().to_string();
        let mut args = vec!["run", "--chip", c.as_str()];
        args.extend_from_slice(extra);
        args.push(&suite);
        nocmsg(&args)
    })
}

/// A console line without its `[core N] ` or `[rank N] ` prefix, if it has one.
fn unprefixed(line: &str) -> &str {
    if let Some(rest) = line.strip_prefix('[') {
        if let Some((label, text)) = rest.split_once("] ") {
            let mut words = label.split(' ');
            if matches!(words.next(), Some("core" | "rank")) && words.next().is_some_and(|n| n.parse::<usize>().is_ok()) {
                return text;
            }
        }
    }
    line
}

/// Checks a native run: success, no failure reports, the summary line once, and returns the checksum line.
fn native_passed(ranks: usize) -> String {
    let out = native(ranks);
    let what = format!("native, {ranks} ranks");
    assert!(out.status.success(), "{what}: the suite failed\n{}", show(out));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().map(unprefixed).collect();
    assert!(!lines.iter().any(|l| l.starts_with("FAIL")), "{what}: failure reports\n{}", show(out));
    assert!(!text(&out.stderr).lines().any(|l| unprefixed(l).starts_with("FAIL")), "{what}: failure reports\n{}", show(out));
    let summary = format!("libnocmsg suite: {ranks} ranks, all checks passed");
    assert_eq!(lines.iter().filter(|l| **l == summary).count(), 1, "{what}: expected {summary:?} once\n{}", show(out));
    let checksums: Vec<&&str> = lines.iter().filter(|l| l.starts_with(SEEDS_PREFIX)).collect();
    assert_eq!(checksums.len(), 1, "{what}: expected one checksum line\n{}", show(out));
    checksums[0].to_string()
}

/// Checks a simulated run: success, and exactly the two lines of rank 0 on the console. Returns the checksum line.
fn simulated_passed(chip_name: &str, ranks: usize) -> String {
    let out = simulated(chip_name);
    let what = format!("{chip_name}, {ranks} cores");
    assert!(out.status.success(), "{what}: the suite failed\n{}", show(out));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{what}: expected rank 0's two lines and nothing else\n{}", show(out));
    assert_eq!(lines[0], format!("[core 0] libnocmsg suite: {ranks} ranks, all checks passed"), "{what}\n{}", show(out));
    let checksum = lines[1].strip_prefix("[core 0] ").unwrap_or_else(|| panic!("{what}: second line {:?}", lines[1]));
    assert!(checksum.starts_with(SEEDS_PREFIX), "{what}: second line {checksum:?}");
    checksum.to_string()
}

#[test]
fn suite_passes_natively_on_1_2_3_4_and_8_ranks() {
    for &ranks in NATIVE_RANKS {
        native_passed(ranks);
    }
}

#[test]
fn suite_passes_on_the_4_cores_of_pimp_2x2() {
    simulated_passed("pimp-2x2", 4);
}

#[test]
fn suite_passes_on_the_16_cores_of_pimp_4x4() {
    simulated_passed("pimp-4x4", 16);
}

#[test]
fn suite_passes_on_pimp_2x2_without_the_inline_fast_paths() {
    simulated_passed("pimp-2x2-no-inline", 4);
}

#[test]
fn suite_passes_on_the_mpb_port_on_mpb_2x2_and_8_cores_of_mpb_8x8() {
    simulated_passed("mpb-2x2", 4);
    simulated_passed("mpb-8x8", 8);
}

#[test]
fn suite_passes_on_the_udn_port_on_udn_2x2_and_udn_4x4() {
    simulated_passed("udn-2x2", 4);
    simulated_passed("udn-4x4", 16);
}

/// The interrupt-driven baseline (OperaMPI style: words taken by the arrival interrupt, every packet acknowledged):
/// the same suite, the same checksums.
#[test]
fn suite_passes_on_the_udn_port_in_its_interrupt_driven_mode() {
    assert_eq!(simulated_passed("udn-2x2-interrupt", 4), simulated_passed("udn-2x2", 4));
    assert_eq!(simulated_passed("udn-4x4-interrupt", 16), simulated_passed("udn-4x4", 16));
}

#[test]
fn random_pattern_checksums_agree_between_native_and_simulated() {
    // Same rank count, same messages, same bytes: the ports must deliver identical contents.
    assert_eq!(native_passed(4), simulated_passed("pimp-2x2", 4), "4 ranks: native vs pimp-2x2");
    assert_eq!(native_passed(4), simulated_passed("pimp-2x2-no-inline", 4), "4 ranks: native vs pimp-2x2 without inlining");
    assert_eq!(native_passed(16), simulated_passed("pimp-4x4", 16), "16 ranks: native vs pimp-4x4");
    assert_eq!(native_passed(4), simulated_passed("mpb-2x2", 4), "4 ranks: native vs mpb-2x2");
    assert_eq!(native_passed(8), simulated_passed("mpb-8x8", 8), "8 ranks: native vs 8 cores of mpb-8x8");
    assert_eq!(native_passed(4), simulated_passed("udn-2x2", 4), "4 ranks: native vs udn-2x2");
    assert_eq!(native_passed(16), simulated_passed("udn-4x4", 16), "16 ranks: native vs udn-4x4");
}

/// bench/micro/pingpong on pimp-4x4 up to 1 KiB (past the eager limit of 512 B, so the rendezvous handshake is in),
/// 20 round trips per size: its CSV, byte for byte, is a golden file (cycle counts change only on purpose; update
/// with NOCMSG_UPDATE_GOLDEN=1 and say why in the commit). Whatever the golden file says, the 8-byte neighbour round
/// trip must stay within the 139 cycles PIMP published and the 100 of issue 14, each further 64-bit word within 18
/// cycles, and, for both pairs (issue 14, items 12 and 13): 1 KiB at most 2.2x the 512-byte round trip (was 5.5x),
/// 1 byte at most 1.3x the 8-byte one (was 35x), 3 and 13 bytes at most 1.5x the next whole word (8 and 16 bytes).
#[test]
fn pingpong_cycles_match_the_golden_file_and_the_pimp_targets() {
    let dir = scratch("pingpong");
    let elf = dir.join("pingpong.elf");
    run_checked(
        Command::new(root().join("bin/nocmsg-cc")).args(["-O2"]).arg(root().join("bench/micro/pingpong.c")).arg("-o").arg(&elf),
        "nocmsg-cc bench/micro/pingpong.c",
    );
    let out = nocmsg(&["run", "--chip", &chip("pimp-4x4"), "--no-prefix", &elf.display().to_string(), "1024", "20"]);
    assert!(out.status.success(), "pingpong on pimp-4x4\n{}", show(&out));
    let actual = text(&out.stdout);
    let round_trip = |pair: &str, bytes: u32| -> f64 {
        let prefix = format!("{pair},{bytes},");
        let line = actual.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("no {prefix} line in\n{actual}"));
        line.split(',').nth(3).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("bad line {line:?}"))
    };
    let rt8 = round_trip("neighbour", 8);
    let per_word = (round_trip("neighbour", 512) - rt8) / 63.0;
    assert!(rt8 <= 100.0, "8-byte neighbour round trip {rt8} cycles, at most 100 (issue 14; PIMP's target is 139)\n{actual}");
    assert!(per_word <= 18.0, "{per_word:.2} cycles per extra word, the target is 18\n{actual}");
    for pair in ["neighbour", "far"] {
        let ratio = |a: u32, b: u32| round_trip(pair, a) / round_trip(pair, b);
        let step = ratio(1024, 512);
        assert!(step <= 2.2, "{pair}: 1 KiB costs {step:.2}x the 512-byte round trip, at most 2.2x\n{actual}");
        let one = ratio(1, 8);
        assert!(one <= 1.3, "{pair}: 1 byte costs {one:.2}x the 8-byte round trip, at most 1.3x\n{actual}");
        for (part, whole) in [(3, 8), (13, 16)] {
            let r = ratio(part, whole);
            assert!(r <= 1.5, "{pair}: {part} bytes cost {r:.2}x the {whole}-byte round trip, at most 1.5x\n{actual}");
        }
    }

    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/pingpong_pimp-4x4.csv");
    if std::env::var_os("NOCMSG_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
    assert!(expected == actual, "pingpong cycles differ from {}\n--- expected ---\n{expected}--- actual ---\n{actual}", golden.display());
}

/// bench/micro/p2p_paths (every way a program calls blocking send and receive, while the other ranks wait in a
/// barrier): on pimp-8x8 between ranks 0 and 63 and on pimp-4x4 between neighbours, through libnocmsg and MPI, the
/// 8-byte round trip of every path at most 1.5x that of constant arguments on MPI_COMM_WORLD (1.6x for the paths
/// through a user communicator or a datatype in a variable between pimp-4x4's neighbours; issue 14, item 15:
/// it was 12x with barrier messages waiting, and 3.9x through a duplicated communicator), and at most 100 cycles
/// between neighbours with constant arguments; 1 KiB at most 2.2x 512 bytes and 1 byte at most 1.3x 8 bytes with a
/// count from the command line (items 12 and 13).
#[test]
fn every_point_to_point_path_stays_near_the_inline_one() {
    let dir = scratch("p2p-paths");
    let elf = dir.join("p2p_paths.elf");
    run_checked(
        Command::new(root().join("bin/nocmsg-cc")).args(["-O2"]).arg(root().join("bench/micro/p2p_paths.c")).arg("-o").arg(&elf),
        "nocmsg-cc bench/micro/p2p_paths.c",
    );
    for (chip_name, peer, sizes) in [("pimp-4x4", "1", "1,8,512,1024"), ("pimp-8x8", "63", "8")] {
        let out = nocmsg(&["run", "--chip", &chip(chip_name), "--no-prefix", &elf.display().to_string(), peer, "10", sizes]);
        assert!(out.status.success(), "p2p_paths on {chip_name}\n{}", show(&out));
        let csv = text(&out.stdout);
        let rt = |api: &str, path: &str, bytes: u32| -> f64 {
            let prefix = format!("{api},{path},{bytes},");
            let line = csv.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("no {prefix} line in\n{csv}"));
            line.split(',').nth(4).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("bad line {line:?}"))
        };
        for api in ["nocmsg", "mpi"] {
            let base = rt(api, "const", 8);
            if chip_name == "pimp-4x4" {
                assert!(base <= 100.0, "{chip_name}: {api} 8-byte round trip {base} cycles, at most 100\n{csv}");
                let step = rt(api, "var", 1024) / rt(api, "var", 512);
                assert!(step <= 2.2, "{chip_name}: {api} 1 KiB costs {step:.2}x 512 bytes, at most 2.2x\n{csv}");
                let one = rt(api, "var", 1) / rt(api, "var", 8);
                assert!(one <= 1.3, "{chip_name}: {api} 1 byte costs {one:.2}x 8 bytes, at most 1.3x\n{csv}");
            }
            // Issue 14 item 15 measures the paths between ranks 0 and 63 of pimp-8x8: each at most 1.5x. Between
            // neighbours on pimp-4x4 the constant round trip is only about 80 cycles, so the look-ups of a user
            // communicator (its size, the world rank of the peer, its header) weigh more there: 1.48x to 1.55x as
            // code layout moves the constant path by a few cycles; there the variable-count path (the issue's
            // acceptance) must stay within 1.5x and the others within 1.6x.
            for path in ["var", "var-int", "var-double", "dup", "dup-double", "anytype", "status"] {
                let r = rt(api, path, 8) / base;
                let bound = if chip_name == "pimp-4x4" && !path.starts_with("var") { 1.6 } else { 1.5 };
                assert!(r <= bound, "{chip_name}: {api} {path} costs {r:.2}x the constant-argument round trip, at most {bound}x\n{csv}");
            }
        }
    }
}
