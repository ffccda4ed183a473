//! Machine-mode traps (issue 16): a program that installs a trap handler gets the privileged specification's
//! exceptions (illegal instruction, misaligned and out-of-memory accesses, misaligned jump target, breakpoint,
//! environment calls from M- and U-mode) with their `mcause`, `mepc` and `mtval`; one that does not (every program
//! of the nocmsg runtime) still stops with the precise report, and a handler that faults at once is reported rather
//! than entered forever. The program, `tests/sim/traps.S`, checks the values itself and exits with 0 or the number of
//! the first wrong one.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};

/// Builds `tests/sim/traps.S` with the preprocessor definitions `defines`.
fn build(name: &str, defines: &[&str]) -> PathBuf {
    let dir = scratch(&format!("traps-{name}"));
    let elf = dir.join(format!("{name}.elf"));
    run_checked(
        Command::new("riscv64-unknown-elf-gcc")
            .args(["-march=rv64im_zicsr", "-mabi=lp64", "-nostdlib", "-nostartfiles", "-T"])
            .arg(root().join("runtime/nocmsg.ld"))
            .args(defines)
            .arg(root().join("tests/sim/traps.S"))
            .arg("-o")
            .arg(&elf),
        &format!("building traps.S {defines:?}"),
    );
    elf
}

fn nocmsg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).output().expect("nocmsg runs")
}

#[test]
fn a_trap_handler_sees_every_exception_with_its_cause_pc_and_value() {
    let elf = build("handler", &[]);
    let dir = scratch("traps-stats");
    let stats = dir.join("stats.json");
    let out = nocmsg(&[
        "run",
        "--chip",
        &chip("pimp-2x2"),
        "-n",
        "1",
        "--stats",
        stats.to_str().unwrap(),
        elf.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "exit status 10 * trap + field names the first wrong value\n{}", show(&out));
    assert_eq!(text(&out.stderr), "", "{}", show(&out));
    // The trapping instructions do not retire, and every cycle is still an instruction or a named stall (a trap's
    // cost counts with the jumps).
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let core = &json["cores"][0];
    let stalls: u64 = core["stalls"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(core["cycles"].as_u64().unwrap(), core["instructions"].as_u64().unwrap() + stalls, "{core}");
    assert!(core["stalls"]["jump"].as_u64().unwrap() >= 9 * 2, "9 traps of jump_penalty_cycles = 2: {core}");
}

#[test]
fn without_a_handler_the_core_stops_with_the_usual_report() {
    let elf = build("no-handler", &["-DNO_HANDLER"]);
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", elf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(128 + 4), "SIGILL\n{}", show(&out));
    let err = text(&out.stderr);
    assert!(err.starts_with("nocmsg: core 0 (tile 0) stopped at cycle "), "{err}");
    assert!(
        err.ends_with("[c0001073] csrrw zero, cycle, zero: illegal instruction: CSR 0xc00: read-only CSR\n"),
        "{err}"
    );
}

#[test]
fn a_handler_that_faults_on_its_first_instruction_is_reported_not_entered_forever() {
    let elf = build("bad-handler", &["-DBAD_HANDLER"]);
    let out = nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", elf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(128 + 4), "{}", show(&out));
    let err = text(&out.stderr);
    assert!(err.contains("[00000000] .word 0x00000000: illegal instruction, raised by the first instruction of the trap handler (mtvec = 0x8"), "{err}");
    assert!(err.contains("every trap would end here again"), "{err}");
}
