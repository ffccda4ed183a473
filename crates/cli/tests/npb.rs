//! The NPB-style kernels and TF*IDF of `bench/npb` (issue 18): every one verifies class S on 4 ranks natively with
//! libnocmsg, and IS and TF*IDF (the quick ones under software floating point) on the 4 cores of udn-2x2 in both of
//! the UDN port's modes. The class S runs of CG, FT and MG on the simulator take minutes: they are the experiments'.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

const KERNELS: &[&str] = &["is", "cg", "ft", "mg", "tfidf"];

/// The five programs built natively and for the UDN chips (once per test run).
fn builds() -> &'static (PathBuf, PathBuf) {
    static DIRS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    DIRS.get_or_init(|| {
        let dir = scratch("npb");
        let (native, udn) = (dir.join("native"), dir.join("udn"));
        for (cc, out, exe) in [
            (root().join("bin/nocmsg-cc-native").display().to_string(), &native, ""),
            (format!("{} --chip udn-2x2", root().join("bin/nocmsg-cc").display()), &udn, ".elf"),
        ] {
            run_checked(
                Command::new("make")
                    .arg("-s")
                    .arg("-C")
                    .arg(root().join("bench/npb"))
                    .arg(format!("CC={cc}"))
                    .arg(format!("OUT={}", out.display()))
                    .arg(format!("EXE={exe}")),
                "make -C bench/npb",
            );
        }
        (native, udn)
    })
}

/// The report line's fields, after checking the run passed and printed only it.
fn report(out: &std::process::Output, what: &str) -> Vec<String> {
    assert!(out.status.success(), "{what}\n{}", show(out));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: one report line\n{}", show(out));
    lines[0].split(',').map(str::to_string).collect()
}

#[test]
fn every_kernel_verifies_class_s_natively_on_4_ranks() {
    let (native, _) = builds();
    for k in KERNELS {
        let out = Command::new(env!("CARGO_BIN_EXE_nocmsg"))
            .args(["native", "-n", "4", "--timeout", "300"])
            .arg(native.join(k))
            .arg("S")
            .output()
            .unwrap();
        let f = report(&out, k);
        assert_eq!((f[0].as_str(), f[1].as_str(), f[2].as_str(), f[6].as_str()), (*k, "S", "4", "yes"), "{f:?}");
    }
}

#[test]
fn is_and_tfidf_verify_on_udn_2x2_in_both_modes_and_the_work_loop_communicates_faster() {
    let (_, udn) = builds();
    for k in ["is", "tfidf"] {
        let mut comm = Vec::new();
        for mode in ["poll", "interrupt"] {
            let out = Command::new(env!("CARGO_BIN_EXE_nocmsg"))
                .args([
                    "run",
                    "--chip",
                    &chip("udn-2x2"),
                    "--no-prefix",
                    "--max-cycles",
                    "5000000000",
                    "--env",
                    &format!("NOCMSG_UDN_MODE={mode}"),
                ])
                .arg(udn.join(format!("{k}.elf")))
                .arg("S")
                .output()
                .unwrap();
            let f = report(&out, &format!("{k} {mode}"));
            assert_eq!((f[0].as_str(), f[6].as_str()), (k, "yes"), "{f:?}");
            comm.push(f[4].parse::<f64>().unwrap());
        }
        assert!(
            comm[0] <= comm[1],
            "{k}: communication {} s with the work loop, {} s interrupt-driven",
            comm[0],
            comm[1]
        );
    }
}
