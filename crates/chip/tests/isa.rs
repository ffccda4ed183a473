//! Issue 16 on whole chips: the chip's `core.isa` decides what decodes (an instruction of a missing extension stops
//! the core with a report naming it), compressed code runs with the pc stepping by 2, and `core.misaligned_access`
//! decides whether a misaligned load or store faults or is performed (at its penalty).

use chip::chip::{RunEnd, RunOptions};
use chip::config::MEMORY_BASE;
use chip::elf::Program;
use chip::{Chip, ChipConfig};
use riscv::isa::Isa;

mod common;

fn chip(isa: &str, misaligned: &str) -> ChipConfig {
    chip_with(isa, misaligned, "")
}

fn chip_with(isa: &str, misaligned: &str, extra: &str) -> ChipConfig {
    let text = format!(
        r#"
        name = "isa"
        mesh = {{ width = 1, height = 1 }}
        core = {{ frequency_mhz = 100, memory_kib = 64, stack_kib = 8, isa = "{isa}", misaligned_access = "{misaligned}" }}
        {extra}
        "#
    );
    ChipConfig::parse(&text, "isa").unwrap()
}

/// A program of raw little-endian bytes at the start of memory, built for `isa`.
fn program(bytes: Vec<u8>, isa: Isa) -> Program {
    common::raw_program("isa.elf", bytes, isa)
}

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Runs to the end (at most 1000 cycles) and returns the chip and the stats as JSON.
fn run(config: ChipConfig, program: &Program) -> (Chip, serde_json::Value) {
    let options = RunOptions { tiles: vec![0], args: vec![], debug_clocking: false, max_cycles: 1_000, work_dir: std::env::temp_dir(), profile: false, background: vec![], env: vec![], comm_profile: false, memory: Default::default(), perturb: None };
    let mut chip = Chip::new(config, program, options).unwrap();
    let (end, stats) = chip.run(&mut |_| {});
    assert!(!matches!(end, RunEnd::CycleLimit { .. }) || chip.cores[0].running(), "{end:?}");
    (chip, serde_json::to_value(&stats).unwrap())
}

const EBREAK: u32 = 0x0010_0073; // a stray ebreak ends every program below with a report at a known pc

#[test]
fn an_instruction_of_a_missing_extension_stops_the_core_naming_it() {
    // fadd.d fa0, fa0, fa1 on a soft-float chip, then the same word on an FPU chip (which runs on to the ebreak).
    let code = words(&[0x02b5_0553, EBREAK]);
    let (_, stats) = run(chip("rv64imac", "fault"), &program(code.clone(), Isa::RV64IM));
    let fault = &stats["cores"][0]["fault"];
    assert_eq!(fault["pc"], MEMORY_BASE, "{fault}");
    let reason = fault["reason"].as_str().unwrap();
    assert!(reason.contains("belongs to the D extension, which this chip's cores (core.isa = rv64imac) do not have"), "{reason}");
    let (_, stats) = run(chip("rv64gc", "fault"), &program(code, Isa::RV64IM));
    assert_eq!(stats["cores"][0]["fault"]["kind"], "breakpoint", "{stats}");
    assert_eq!(stats["cores"][0]["fault"]["pc"], MEMORY_BASE + 4);
}

#[test]
fn compressed_code_steps_by_two_and_links_pc_plus_two() {
    // c.li a0, 5; c.addi a0, 3; c.jal is RV32-only, so: c.mv a1, a0; then a 4-byte ebreak at offset 6.
    let mut code = Vec::new();
    for parcel in [0x4515u16, 0x050d, 0x85aa] {
        code.extend(parcel.to_le_bytes());
    }
    code.extend(EBREAK.to_le_bytes());
    let (chip_, stats) = run(chip("rv64gc", "fault"), &program(code.clone(), Isa::RV64GC));
    assert_eq!(stats["cores"][0]["fault"]["pc"], MEMORY_BASE + 6, "{stats}");
    assert_eq!((chip_.cores[0].hart.x[10], chip_.cores[0].hart.x[11]), (8, 8));
    assert_eq!(stats["cores"][0]["instructions"], 3);
    // Without C the first parcel is an illegal instruction.
    let (_, stats) = run(chip("rv64im", "fault"), &program(code, Isa::RV64IM));
    let reason = stats["cores"][0]["fault"]["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("belongs to the C extension"), "{reason}");
    assert_eq!(stats["cores"][0]["fault"]["pc"], MEMORY_BASE);
}

#[test]
fn misaligned_accesses_fault_or_are_split_at_their_penalty() {
    // auipc a0, 8 (a0 = base + 0x8000); addi a1, zero, -2; sd a1, 1(a0); ld a2, 1(a0); lw a3, 3(a0); ebreak
    let code = words(&[0x0000_8517, 0xffe0_0593, 0x00b5_30a3, 0x0015_3603, 0x0035_2683, EBREAK]);
    let (_, stats) = run(chip("rv64gc", "fault"), &program(code.clone(), Isa::RV64IM));
    assert_eq!(stats["cores"][0]["fault"]["kind"], "misaligned", "{stats}");
    assert_eq!(stats["cores"][0]["fault"]["pc"], MEMORY_BASE + 8);
    let (split, stats) = run(chip("rv64gc", "split"), &program(code, Isa::RV64IM));
    assert_eq!(stats["cores"][0]["fault"]["pc"], MEMORY_BASE + 20, "{stats}");
    let x = &split.cores[0].hart.x;
    assert_eq!((x[12], x[13]), (u64::MAX - 1, u64::MAX), "ld of the stored -2, lw of its bytes 2..6 (all ones)");
    let core = &stats["cores"][0];
    assert_eq!(core["stalls"]["misaligned"], 3 * 2, "three split accesses at the default penalty of 2: {core}");
    // cycles = instructions + stalls (the ebreak that stopped the core is not retired).
    let stalls: u64 = core["stalls"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(core["cycles"].as_u64().unwrap(), core["instructions"].as_u64().unwrap() + stalls, "{core}");
}

#[test]
fn a_program_built_for_more_than_the_chip_has_is_refused_in_one_line() {
    let err = match Chip::new(chip("rv64imac", "fault"), &program(words(&[EBREAK]), Isa::RV64GC), RunOptions {
        tiles: vec![0],
        args: vec![],
        debug_clocking: false,
        max_cycles: 0,
        work_dir: std::env::temp_dir(),
        profile: false,
        background: vec![],
        env: vec![],
        comm_profile: false,
        memory: Default::default(),
        perturb: None,
    }) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("an rv64gc program loaded on an rv64imac chip"),
    };
    assert!(err.contains("needs extensions F, D, which the cores (core.isa = \"rv64imac\") do not have"), "{err}");
    assert!(!err.contains('\n'));
}

/// Regression (the fpu experiment on pimp-8x8 with rv64gc cores stopped at `bns` "instruction address misaligned:
/// branch target 0x800067aa"): a PIMP branch, executed by the network interface, may target a 2-byte boundary on a
/// core with C, as any branch there.
#[test]
fn pimp_branches_may_target_two_byte_boundaries_with_c() {
    // bnr +6 (nothing received: taken); c.nop; ebreak at +6.
    let mut code = 0x0000_332bu32.to_le_bytes().to_vec();
    code.extend(0x0001u16.to_le_bytes());
    code.extend(EBREAK.to_le_bytes());
    let pimp = "[ni]\nkind = \"pimp\"";
    let (_, stats) = run(chip_with("rv64gc", "fault", pimp), &program(code.clone(), Isa::RV64GC));
    assert_eq!(stats["cores"][0]["fault"]["kind"], "breakpoint", "{stats}");
    assert_eq!(stats["cores"][0]["fault"]["pc"], MEMORY_BASE + 6);
    // Without C the same target is misaligned.
    let (_, stats) = run(chip_with("rv64im", "fault", pimp), &program(code, Isa::RV64IM));
    assert_eq!(stats["cores"][0]["fault"]["kind"], "misaligned", "{stats}");
}
