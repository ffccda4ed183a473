//! libnocmsg's ports under load (`tests/port/port.c`, see tests/port/README.md), and how `bin/nocmsg-cc` picks the
//! port from the chip.
//!
//! The stress program checks, through the public API, what every port must get right: sizes around words and lines
//! (0, 1, 31, 32, 33 bytes, 8 KiB and 8 KiB + 1), a stream many times round the receive ring, a late receiver whose
//! sender must wait for room, large messages both ways at once, and all ranks sending to one. Its output depends only
//! on the number of ranks, so it must be the same natively, on the PIMP port and on the MPB port (lib/ports/mpb.c):
//! on 4 ranks (mpb-2x2: 16-bit counts, 4 KiB rings), 2 ranks (8 KiB rings) and all 64 cores of mpb-8x8 (byte counts,
//! 224-byte rings: the stream wraps hundreds of times, and 63 ranks send to rank 0), where it is compared with
//! pimp-8x8, and on the 48 cores of scc-48 (two per router, 8 KiB shares, rv64gc, its own mesh clock).

mod common;
use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

struct Builds {
    pimp: PathBuf,
    mpb: PathBuf,
    udn: PathBuf,
    native: PathBuf,
}

/// Builds the program once per test run: for the PIMP chips, for the MPB chips, natively.
fn builds() -> &'static Builds {
    static BUILDS: OnceLock<Builds> = OnceLock::new();
    BUILDS.get_or_init(|| {
        let dir = scratch("port");
        let builds = Builds {
            pimp: dir.join("port.elf"),
            mpb: dir.join("port-mpb.elf"),
            udn: dir.join("port-udn.elf"),
            native: dir.join("port"),
        };
        let source = root().join("tests/port/port.c");
        for (wrapper, flags, out) in [
            ("nocmsg-cc", &[][..], &builds.pimp),
            ("nocmsg-cc", &["--chip", "mpb-2x2"][..], &builds.mpb),
            ("nocmsg-cc", &["--chip", "udn-2x2"][..], &builds.udn),
            ("nocmsg-cc-native", &[][..], &builds.native),
        ] {
            run_checked(
                Command::new(root().join("bin").join(wrapper))
                    .args(flags)
                    .args(["-O2", "-Wall", "-Wextra"])
                    .arg(&source)
                    .arg("-o")
                    .arg(out),
                &format!("{wrapper} {} tests/port/port.c", flags.join(" ")),
            );
        }
        builds
    })
}

fn nocmsg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(root()).output().expect("nocmsg runs")
}

/// `nocmsg run` of the build for the chip's port on `cores` cores (all of them: None) with the given sections.
fn simulated(chip_name: &str, cores: Option<usize>, sections: &[&str]) -> Output {
    let build = match chip_name {
        c if c.starts_with("mpb-") => &builds().mpb,
        c if c.starts_with("udn-") || c.starts_with("tilepro-") => &builds().udn,
        _ => &builds().pimp,
    };
    let c = chip(chip_name);
    let n = cores.map(|n| n.to_string());
    let mut args = vec!["run", "--chip", c.as_str(), "--no-prefix", "--max-cycles", "1000000000"];
    if let Some(n) = &n {
        args.extend(["-n", n.as_str()]);
    }
    let elf = build.display().to_string();
    args.push(&elf);
    args.extend(sections);
    nocmsg(&args)
}

fn native(ranks: usize) -> Output {
    nocmsg(&["native", "-n", &ranks.to_string(), "--timeout", "120", &builds().native.display().to_string()])
}

/// The output of a run that passed: success, no failure report, the summary line last.
fn passed(out: &Output, what: &str, ranks: usize) -> String {
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{what}: failed\n{}", show(out));
    assert!(!stdout.contains("FAIL"), "{what}: failure reports\n{}", show(out));
    let summary = format!("port: {ranks} ranks, all checks passed");
    assert_eq!(stdout.lines().last(), Some(summary.as_str()), "{what}: the summary line is not last\n{}", show(out));
    stdout
}

#[test]
fn stress_gives_the_same_output_natively_on_pimp_2x2_and_on_mpb_2x2() {
    let native = passed(&native(4), "native, 4 ranks", 4);
    assert_eq!(native.lines().count(), 6, "a line per section and the summary\n{native}");
    let pimp = passed(&simulated("pimp-2x2", None, &[]), "pimp-2x2", 4);
    let mpb = passed(&simulated("mpb-2x2", None, &[]), "mpb-2x2", 4);
    assert_eq!(pimp, native, "pimp-2x2 and native differ");
    assert_eq!(mpb, native, "mpb-2x2 and native differ");
}

/// The UDN port, in both of its modes, gives the native output on udn-2x2.
#[test]
fn stress_gives_the_same_output_on_udn_2x2_in_both_modes() {
    let native = passed(&native(4), "native, 4 ranks", 4);
    assert_eq!(passed(&simulated("udn-2x2", None, &[]), "udn-2x2", 4), native, "udn-2x2 and native differ");
    let build = builds().udn.display().to_string();
    let c = chip("udn-2x2");
    let out = nocmsg(&[
        "run",
        "--chip",
        &c,
        "--no-prefix",
        "--max-cycles",
        "1000000000",
        "--env",
        "NOCMSG_UDN_MODE=interrupt",
        &build,
    ]);
    assert_eq!(passed(&out, "udn-2x2, interrupt-driven", 4), native, "udn-2x2 interrupt-driven and native differ");
}

/// Regression: on all 64 cores of tilepro-64 the UDN barrier after all2one deadlocked: a rank posting its barrier
/// word with its output queue full slept in wfi, which credits coming back do not end. Both modes.
#[test]
fn late_receivers_and_all_to_one_then_a_barrier_on_the_64_cores_of_tilepro_64() {
    let sections = ["slow", "all2one"];
    let work_loop = passed(&simulated("tilepro-64", None, &sections), "tilepro-64, 64 cores", 64);
    let build = builds().udn.display().to_string();
    let c = chip("tilepro-64");
    let mut args = vec![
        "run",
        "--chip",
        c.as_str(),
        "--no-prefix",
        "--max-cycles",
        "1000000000",
        "--env",
        "NOCMSG_UDN_MODE=interrupt",
        build.as_str(),
    ];
    args.extend(sections);
    assert_eq!(passed(&nocmsg(&args), "tilepro-64, interrupt-driven", 64), work_loop);
    assert!(work_loop.contains("port all2one: 64 ranks, 378 messages\n"), "{work_loop}");
}

#[test]
fn stress_passes_on_2_ranks_of_mpb_2x2_with_the_largest_rings() {
    let native = passed(&native(2), "native, 2 ranks", 2);
    let mpb = passed(&simulated("mpb-2x2", Some(2), &[]), "mpb-2x2, 2 cores", 2);
    assert_eq!(mpb, native, "2 cores of mpb-2x2 and native differ");
}

/// About 6 s on the MPB chip: 63 senders share each receiver's 16 KiB.
#[test]
fn all_to_one_and_the_smallest_rings_on_the_64_cores_of_mpb_8x8() {
    let sections = ["wrap", "slow", "all2one"];
    let mpb = passed(&simulated("mpb-8x8", None, &sections), "mpb-8x8, 64 cores", 64);
    let pimp = passed(&simulated("pimp-8x8", None, &sections), "pimp-8x8, 64 cores", 64);
    assert_eq!(mpb, pimp, "mpb-8x8 and pimp-8x8 differ");
    assert!(mpb.contains("port all2one: 64 ranks, 378 messages\n"), "63 ranks x 6 messages\n{mpb}");
}

/// The SCC preset: two cores per router sharing its MPB (8 KiB each, 160-byte rings on 48 ranks), cores and mesh on
/// clocks of their own, rv64gc cores (the port built for another ISA). About 2 s on each chip.
#[test]
fn stress_passes_on_the_48_cores_of_scc_48() {
    let dir = scratch("port-scc");
    let elf = dir.join("port-scc.elf");
    run_checked(
        Command::new(root().join("bin/nocmsg-cc"))
            .args(["--chip", "scc-48", "-O2", "-Wall"])
            .arg(root().join("tests/port/port.c"))
            .arg("-o")
            .arg(&elf),
        "nocmsg-cc --chip scc-48 tests/port/port.c",
    );
    let sections = ["wrap", "slow", "all2one"];
    let mut args = vec!["run".to_string(), "--chip".to_string(), chip("scc-48"), "--no-prefix".to_string()];
    args.extend(["--max-cycles".to_string(), "1000000000".to_string(), elf.display().to_string()]);
    args.extend(sections.iter().map(|s| s.to_string()));
    let out = Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(&args).current_dir(root()).output().expect("nocmsg runs");
    let scc = passed(&out, "scc-48, 48 cores", 48);
    let pimp = passed(&simulated("pimp-8x8", Some(48), &sections), "48 cores of pimp-8x8", 48);
    assert_eq!(scc, pimp, "scc-48 and 48 cores of pimp-8x8 differ");
}

/// `nocmsg-cc -show` with each kind of chip: the MPB port (its define and its library directory) exactly for chips
/// with ni.kind = "mpb", named by --chip or NOCMSG_CHIP; the PIMP port otherwise.
#[test]
fn nocmsg_cc_picks_the_port_from_the_chips_network_interface() {
    let show = |args: &[&str], env_chip: Option<&str>| -> String {
        let mut cmd = Command::new(root().join("bin/nocmsg-cc"));
        cmd.env_remove("NOCMSG_CHIP");
        if let Some(c) = env_chip {
            cmd.env("NOCMSG_CHIP", c);
        }
        let out = cmd.args(args).args(["-show", "x.c", "-o", "x.elf"]).output().expect("nocmsg-cc runs");
        assert!(out.status.success(), "nocmsg-cc {args:?} -show\n{}", show(&out));
        text(&out.stdout)
    };
    let mpb_file = chip("mpb-8x8");
    for (args, env_chip, mpb) in [
        (&["--chip", "mpb-2x2"][..], None, true),
        (&["--chip", mpb_file.as_str()][..], None, true),
        (&[][..], Some("mpb-8x8"), true),
        (&["--chip", "pimp-2x2"][..], None, false),
        (&[][..], None, false),
    ] {
        let line = show(args, env_chip);
        let what = format!("nocmsg-cc {args:?} (NOCMSG_CHIP={env_chip:?})");
        assert_eq!(line.contains(" -DNOCMSG_PORT_MPB "), mpb, "{what}: the port's define\n{line}");
        assert_eq!(line.contains("/lib/build/sim-rv64im-lp64-mpb/libnocmsg.a"), mpb, "{what}: the MPB library\n{line}");
        assert_eq!(line.contains("/lib/build/sim-rv64im-lp64/libnocmsg.a"), !mpb, "{what}: the PIMP library\n{line}");
    }
}

/// A program built for one port on a chip with the other interface stops rather than hang or run on: a PIMP build
/// with the simulator's report of its first PIMP instruction, an MPB build with the library's own message (its
/// init probes the MPB with a trap handler in place).
#[test]
fn a_build_for_one_port_stops_on_a_chip_with_the_other_interface() {
    let pimp_on_mpb = nocmsg(&["run", "--chip", &chip("mpb-2x2"), "-n", "2", &builds().pimp.display().to_string()]);
    assert!(!pimp_on_mpb.status.success(), "the PIMP build ran on mpb-2x2\n{}", show(&pimp_on_mpb));
    assert!(
        text(&pimp_on_mpb.stderr).contains("is not an instruction of the mpb interface"),
        "the PIMP build on mpb-2x2\n{}",
        show(&pimp_on_mpb)
    );
    let mpb_on_pimp = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "2", &builds().mpb.display().to_string()]);
    assert!(!mpb_on_pimp.status.success(), "the MPB build ran on pimp-2x2\n{}", show(&mpb_on_pimp));
    let said = text(&mpb_on_pimp.stdout) + &text(&mpb_on_pimp.stderr);
    assert!(
        said.contains("libnocmsg: this program is built for the MPB port (chips with ni.kind = \"mpb\"), and this chip has no MPBs"),
        "the MPB build on pimp-2x2\n{}",
        show(&mpb_on_pimp)
    );
}

/// bench/micro/pingpong on all 64 cores of mpb-8x8 (each receiver's 16 KiB shared by 63 senders): the round trips
/// docs/libnocmsg.md quotes, with room for noise from code layout, so that a change that slows the MPB port down
/// (say, polls that stop sleeping between reads, or a report per word) shows here. 8 B: 1,890 cycles between
/// neighbours (two remote writes and a poll each way, the rest the library's instructions); 1 KiB: 21,641.
#[test]
fn mpb_pingpong_on_mpb_8x8_stays_near_the_documented_round_trips() {
    let dir = scratch("port-pingpong");
    let elf = dir.join("pingpong.elf");
    run_checked(
        Command::new(root().join("bin/nocmsg-cc"))
            .args(["--chip", "mpb-8x8", "-O2"])
            .arg(root().join("bench/micro/pingpong.c"))
            .arg("-o")
            .arg(&elf),
        "nocmsg-cc --chip mpb-8x8 bench/micro/pingpong.c",
    );
    let out = nocmsg(&["run", "--chip", &chip("mpb-8x8"), "--no-prefix", &elf.display().to_string(), "1024", "10"]);
    assert!(out.status.success(), "pingpong on mpb-8x8\n{}", show(&out));
    let csv = text(&out.stdout);
    let round_trip = |bytes: u32| -> f64 {
        let prefix = format!("neighbour,{bytes},");
        let line = csv.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("no {prefix} line in\n{csv}"));
        line.split(',').nth(3).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("bad line {line:?}"))
    };
    let (small, large) = (round_trip(8), round_trip(1024));
    assert!(small <= 2_300.0, "8-byte round trip {small} cycles, documented 1,881\n{csv}");
    assert!(large <= 30_000.0, "1 KiB round trip {large} cycles, documented 24,891\n{csv}");
}
