//! The SCC broadcast family (`lib/src/coll/bcast/scc.h`; issue 17): `tests/coll/scc_bcast/scc_bcast.c` runs every
//! bcast algorithm at every root (or the ends) for the sizes that matter to the chunking (0, 1, 31, 32 and 33 bytes
//! around a line, 8 KiB and 8 KiB + 1 around a chunk, 1 MiB for many chunks) on MPB chips: all 4 cores of mpb-2x2,
//! the 48 of scc-48 (two cores a router, four memory controllers), odd core counts and split communicators whose
//! ranks are not the world's. Every rank checks every byte and the guard bytes after the message.
//! Also: the family's algorithms exist only on MPB chips (asking for one elsewhere is an error naming what there
//! is), and fast and debug clocking agree on a run of the family.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

const FAMILY: &str = "rcce,parallel,optimized_parallel,tiled,optimized_tiled,mpb,offchip,modmpb,hybrid";

/// The test program built for `chip` (once per chip and test run, under a lock).
fn program(chip: &str) -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    static BUILDING: Mutex<()> = Mutex::new(());
    let _guard = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = DIR.get_or_init(|| scratch("scc-bcast"));
    let name = Path::new(chip).file_stem().unwrap().to_string_lossy().into_owned();
    let out = dir.join(format!("scc_bcast-{name}.elf"));
    if !out.exists() {
        let mut cmd = Command::new(root().join("bin/nocmsg-cc"));
        cmd.args(["--chip", chip, "-O2", "-Wall", "-Werror"])
            .arg(root().join("tests/coll/scc_bcast/scc_bcast.c"))
            .arg("-o")
            .arg(&out);
        run_checked(&mut cmd, "building tests/coll/scc_bcast/scc_bcast.c");
    }
    out
}

fn run(chip: &str, sim: &[&str], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg"))
        .args(["run", "--chip", chip, "--no-prefix", "--max-cycles", "4000000000"])
        .args(sim)
        .arg(program(chip))
        .args(args)
        .current_dir(root())
        .output()
        .expect("nocmsg runs")
}

/// Runs and checks that every algorithm asked for reported its broadcasts and the run passed.
fn passes(chip: &str, sim: &[&str], args: &[&str], algorithms: &[&str]) {
    let out = run(chip, sim, args);
    assert!(out.status.success(), "{}", show(&out));
    let stdout = text(&out.stdout);
    for a in algorithms {
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("{a}: ")) && !l.starts_with(&format!("{a}: 0 "))),
            "no broadcasts of {a} were checked:\n{stdout}"
        );
    }
    assert!(stdout.lines().any(|l| l == "all checks passed"), "{stdout}");
}

const SMALL: [&str; 7] = ["0", "1", "31", "32", "33", "8192", "8193"];

#[test]
fn every_algorithm_at_every_root_on_mpb_2x2() {
    let all = ["linear", "binomial", "mesh", "mesh_center", "scatter_allgather", "chain"];
    let family: Vec<&str> = FAMILY.split(',').collect();
    let mut args = vec!["--roots", "all"];
    args.extend(SMALL);
    passes(&chip("mpb-2x2"), &[], &args, &[&all[..], &family[..]].concat());
}

#[test]
fn the_family_moves_a_mebibyte_on_mpb_2x2_and_between_split_communicators() {
    let family: Vec<&str> = FAMILY.split(',').collect();
    passes(&chip("mpb-2x2"), &[], &["--algorithms", FAMILY, "--roots", "0,3", "1048576"], &family);
    passes(&chip("mpb-2x2"), &[], &["--algorithms", FAMILY, "--split", "--roots", "all", "1", "33", "8193"], &family);
}

#[test]
fn the_family_on_the_48_cores_of_scc_48() {
    let family: Vec<&str> = FAMILY.split(',').collect();
    passes(&chip("scc-48"), &[], &["--algorithms", FAMILY, "--roots", "all", "0", "1", "31", "32", "33"], &family);
    passes(&chip("scc-48"), &[], &["--algorithms", FAMILY, "--roots", "ends", "8192", "8193"], &family);
}

#[test]
fn the_family_on_the_64_cores_of_mpb_8x8() {
    // One core per router, and no off-chip shared memory: offchip runs as mpb (and says so).
    let family: Vec<&str> = FAMILY.split(',').collect();
    let mut args = vec!["--algorithms", FAMILY, "--roots", "0,27,63"];
    args.extend(SMALL);
    let out = run(&chip("mpb-8x8"), &[], &args);
    assert!(out.status.success(), "{}", show(&out));
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(said.contains("no room in off-chip shared memory"), "{said}");
    assert_eq!(said.matches("no room in off-chip shared memory").count(), 1, "{said}");
    for a in &family {
        assert!(said.contains(&format!("{a}: 21 broadcasts checked")), "{a}:\n{said}");
    }
}

#[test]
fn the_family_on_odd_core_counts_and_split_communicators_of_scc_48() {
    let family: Vec<&str> = FAMILY.split(',').collect();
    passes(&chip("scc-48"), &["-n", "13"], &["--algorithms", FAMILY, "--roots", "all", "1", "33", "8193"], &family);
    passes(&chip("scc-48"), &["-n", "27"], &["--algorithms", FAMILY, "--split", "--roots", "ends", "33", "8193"], &family);
}

#[test]
fn the_fast_family_moves_a_mebibyte_on_scc_48() {
    // rcce and the trees take minutes of host time for 1 MiB to 48 cores (python -m experiments scc-bcast runs
    // them, and checks every result); the star and group broadcasts take seconds (offchip and hybrid move 1 MiB on
    // mpb-2x2 above).
    passes(&chip("scc-48"), &[], &["--algorithms", "mpb,modmpb", "--roots", "47", "1048576"], &["mpb", "modmpb"]);
}

#[test]
fn fast_and_debug_clocking_agree_on_the_family() {
    let dir = scratch("scc-bcast-clocking");
    let chip = chip("mpb-2x2");
    let mut stats = Vec::new();
    for (name, extra) in [("fast", None), ("debug", Some("--debug-clocking"))] {
        let json = dir.join(format!("{name}.json"));
        let mut sim = vec!["--stats", json.to_str().unwrap()];
        sim.extend(extra);
        let out = run(&chip, &sim, &["--algorithms", FAMILY, "--roots", "all", "1", "33", "2000"]);
        assert!(out.status.success(), "{}", show(&out));
        let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("host");
        v.as_object_mut().unwrap().remove("clocking");
        stats.push(v);
    }
    assert!(stats[0] == stats[1], "fast and debug clocking give different stats");
}

#[test]
fn the_family_is_only_on_mpb_chips() {
    let elf = scratch("scc-bcast-pimp").join("scc_bcast-pimp.elf");
    run_checked(
        Command::new(root().join("bin/nocmsg-cc"))
            .args(["--chip", &chip("pimp-2x2"), "-O2", "-Wall", "-Werror"])
            .arg(root().join("tests/coll/scc_bcast/scc_bcast.c"))
            .arg("-o")
            .arg(&elf),
        "building tests/coll/scc_bcast/scc_bcast.c for pimp-2x2",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_nocmsg"))
        .args(["run", "--chip", &chip("pimp-2x2"), "--no-prefix"])
        .arg(&elf)
        .args(["--algorithms", "binomial", "33"])
        .output()
        .expect("nocmsg runs");
    assert!(out.status.success(), "{}", show(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("binomial: 4 broadcasts checked"), "{stdout}");
    // nocmsg_coll_set refuses the family's names there, and the program says which algorithms there are.
    let out = Command::new(env!("CARGO_BIN_EXE_nocmsg"))
        .args(["run", "--chip", &chip("pimp-2x2"), "--no-prefix"])
        .arg(&elf)
        .args(["--algorithms", "modmpb", "33"])
        .output()
        .expect("nocmsg runs");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(said.contains("no bcast algorithm \"modmpb\" here; there are: linear binomial mesh"), "{said}");
}

/// Golden cycle counts of the MPB collectives on 12 cores of scc-48 (`bench/micro/coll.c`): every algorithm of the
/// SCC family at 1 B, 1 KiB and 8 KiB + 1, the MPB reduce and the MPB barrier. They change only on purpose (a change
/// of the model or of the algorithms' protocol); update with NOCMSG_UPDATE_GOLDEN=1 and say why in the commit.
#[test]
fn mpb_collective_cycles_match_the_golden_file() {
    let dir = scratch("scc-bcast-golden");
    let elf = dir.join("coll-scc-48.elf");
    run_checked(
        Command::new(root().join("bin/nocmsg-cc"))
            .args(["--chip", &chip("scc-48"), "-O2"])
            .arg(root().join("bench/micro/coll.c"))
            .arg("-o")
            .arg(&elf),
        "nocmsg-cc --chip scc-48 bench/micro/coll.c",
    );
    let mut actual = String::new();
    let runs: [&[&str]; 3] = [
        &["--op", "bcast", "--alg", FAMILY, "--sizes", "1,1024,8193", "--roots", "0,11"],
        &["--op", "reduce", "--alg", "mpb,binomial", "--sizes", "8,4096"],
        &["--op", "barrier", "--alg", "mpb,dissemination"],
    ];
    for args in runs {
        let out = Command::new(env!("CARGO_BIN_EXE_nocmsg"))
            .args(["run", "--chip", &chip("scc-48"), "-n", "12", "--no-prefix"])
            .arg(&elf)
            .args(args)
            .args(["--iters", "1", "--warmup", "1"])
            .output()
            .expect("nocmsg runs");
        assert!(out.status.success(), "{}", show(&out));
        let csv = text(&out.stdout);
        assert!(csv.lines().skip(1).all(|l| l.ends_with(",ok")), "{csv}");
        actual.push_str(&csv);
    }
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/mpb_collectives_scc-48.csv");
    if std::env::var_os("NOCMSG_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
    assert!(expected == actual, "the MPB collectives' cycles differ from the golden file\n--- expected ---\n{expected}--- actual ---\n{actual}");
}

/// `tests/coll/scc_bcast/regress.c` built for mpb-2x2 (once per test run).
fn regress_program() -> PathBuf {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        let elf = scratch("scc-bcast-regress").join("regress.elf");
        run_checked(
            Command::new(root().join("bin/nocmsg-cc"))
                .args(["--chip", &chip("mpb-2x2"), "-O2", "-Wall", "-Werror"])
                .arg(root().join("tests/coll/scc_bcast/regress.c"))
                .arg("-o")
                .arg(&elf),
            "building tests/coll/scc_bcast/regress.c",
        );
        elf
    })
    .clone()
}

/// Regressions (each failed before its fix): 16-bit counts wrapping past an old slot entry (a hang), barrier signals
/// sharing the chunks' counts (a slot overwritten before its readers took it: wrong data, on 2 ranks), and MPB waits
/// that never moved the point-to-point engine (a legal program with a posted receive deadlocked).
#[test]
fn mpb_collectives_regressions() {
    for (ranks, scenarios) in [("2", &["wrap", "signals", "progress"][..]), ("4", &["wrap", "progress"][..])] {
        let out = Command::new(env!("CARGO_BIN_EXE_nocmsg"))
            .args(["run", "--chip", &chip("mpb-2x2"), "-n", ranks, "--no-prefix", "--max-cycles", "2000000000"])
            .arg(regress_program())
            .args(scenarios)
            .output()
            .expect("nocmsg runs");
        assert!(out.status.success(), "{ranks} ranks: {}", show(&out));
        let stdout = text(&out.stdout);
        for s in scenarios {
            let ok = stdout.lines().filter(|l| *l == format!("{s} ok")).count();
            assert_eq!(ok.to_string(), ranks, "{s} on {ranks} ranks:\n{stdout}");
        }
    }
}
