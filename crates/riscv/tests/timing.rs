//! The timing model's classes for the A, F, D and C instructions, through the public API: instruction words
//! encoded by `common::asm`, decoded for an RV64GC hart and fed to [`Pipeline::cycles`] with a [`CostTable`].
//!
//! Latencies are given distinct values so that a wrong class shows up as a wrong number; the expected class of
//! each A, F and D instruction (all of them, from `common::every_afd_instruction`) is decided here from its name
//! (the grouping of issue 16), not from `LatencyClass::of`.

mod common;

use common::asm::{self, rm::RNE, Insn};
use common::*;
use riscv::isa::Isa;
use riscv::timing::{CostTable, Pipeline, Timing};

/// Every latency different, so that each class is recognisable by its cycle count.
fn distinct() -> Timing {
    Timing {
        alu_cycles: 1,
        load_use_stall_cycles: 2,
        taken_branch_penalty_cycles: 3,
        jump_penalty_cycles: 4,
        mul_cycles: 5,
        div32_cycles: 6,
        div64_cycles: 7,
        memory_cycles: 8,
        amo_penalty_cycles: 9,
        lr_sc_penalty_cycles: 10,
        fp_add_cycles: 11,
        fp_mul_cycles: 12,
        fp_fma_cycles: 13,
        fp_div32_cycles: 14,
        fp_div64_cycles: 15,
        fp_sqrt32_cycles: 16,
        fp_sqrt64_cycles: 17,
        fp_convert_cycles: 18,
        fp_misc_cycles: 19,
        fp_load_use_stall_cycles: 20,
        misaligned_penalty_cycles: 21,
    }
}

fn gc(insn: Insn) -> riscv::Decoded {
    decode_insn_for(insn, Isa::RV64GC)
}

/// Cycles of `insn` on an empty pipeline (no hazard, not redirected).
fn alone(costs: &CostTable, insn: Insn) -> u64 {
    Pipeline::default().cycles(costs, &gc(insn), false)
}

/// The latency an A, F or D instruction should take, decided by its name.
fn expected_latency(t: &Timing, name: &str) -> u32 {
    let (base, _) = name.split_once('.').unwrap_or((name, ""));
    let double = name.ends_with(".d");
    match base {
        "lr" | "sc" => t.memory_cycles + t.lr_sc_penalty_cycles,
        _ if base.starts_with("amo") => t.memory_cycles + t.amo_penalty_cycles,
        "flw" | "fld" | "fsw" | "fsd" => t.memory_cycles,
        "fadd" | "fsub" => t.fp_add_cycles,
        "fmul" => t.fp_mul_cycles,
        "fmadd" | "fmsub" | "fnmsub" | "fnmadd" => t.fp_fma_cycles,
        "fdiv" if double => t.fp_div64_cycles,
        "fdiv" => t.fp_div32_cycles,
        "fsqrt" if double => t.fp_sqrt64_cycles,
        "fsqrt" => t.fp_sqrt32_cycles,
        "fcvt" => t.fp_convert_cycles,
        "fsgnj" | "fsgnjn" | "fsgnjx" | "fmin" | "fmax" | "feq" | "flt" | "fle" | "fclass" | "fmv" => t.fp_misc_cycles,
        _ => panic!("{name}: no expected latency"),
    }
}

#[test]
fn fp_and_atomic_latencies() {
    for t in [Timing::default(), distinct()] {
        let costs = t.cost_table();
        let all = every_afd_instruction();
        assert_eq!(all.len(), 84, "22 A, 30 F and 32 D instructions");
        let mut failures = Vec::new();
        for (insn, _) in all {
            let name = insn.op.name();
            let got = alone(&costs, insn);
            let want = u64::from(expected_latency(&t, name));
            if got != want {
                failures.push(format!("{name}: {got} cycles, expected {want}"));
            }
        }
        report(failures);
    }
    // The defaults of issue 16, spelled out: FADD/FMUL 3, FMA 4, FDIV and FSQRT 20 single / 33 double, conversions
    // 2, the rest 1; an AMO costs a memory access and 2 more, LR and SC one more.
    let costs = Timing::default().cost_table();
    for (insn, cycles) in [
        (asm::fadd_s(FA0, FA1, FA2, RNE), 3),
        (asm::fmul_d(FA0, FA1, FA2, RNE), 3),
        (asm::fnmadd_s(FA0, FA1, FA2, FA3, RNE), 4),
        (asm::fdiv_s(FA0, FA1, FA2, RNE), 20),
        (asm::fdiv_d(FA0, FA1, FA2, RNE), 33),
        (asm::fsqrt_s(FA0, FA1, RNE), 20),
        (asm::fsqrt_d(FA0, FA1, RNE), 33),
        (asm::fcvt_d_s(FA0, FA1, RNE), 2),
        (asm::fcvt_w_d(A0, FA1, RNE), 2),
        (asm::fmv_x_w(A0, FA1), 1),
        (asm::fclass_d(A0, FA1), 1),
        (asm::flw(FA0, 0, A1), 1),
        (asm::fsd(FA0, 0, A1), 1),
        (asm::amoadd_w(A0, A2, A1), 3),
        (asm::amomaxu_d(A0, A2, A1), 3),
        (asm::lr_d(A0, A1), 2),
        (asm::sc_w(A0, A2, A1), 2),
    ] {
        assert_eq!(alone(&costs, insn), cycles, "{} with the default timing", insn.op.name());
    }
}

/// Cycles of `second` right after `first` (which is not redirected), and the stall counters after both.
fn pair(costs: &CostTable, first: Insn, second: Insn) -> (u64, u64, u64) {
    let mut p = Pipeline::default();
    p.cycles(costs, &gc(first), false);
    let c = p.cycles(costs, &gc(second), false);
    (c, p.load_use_stalls, p.load_use_stall_cycles)
}

#[test]
fn fp_load_use_stall_is_its_own_and_register_files_do_not_mix() {
    let t = distinct();
    let costs = t.cost_table();
    let (int_stall, fp_stall) = (2, 20);
    let (add, fadd, fma, fstore, mv) = (1, 11, 13, 8, 19);
    // An FP load followed by a reader of its register: the FP load-use stall.
    assert_eq!(pair(&costs, asm::flw(FT5, 0, A1), asm::fadd_s(FA0, FT5, FA1, RNE)), (fadd + fp_stall, 1, 20));
    assert_eq!(pair(&costs, asm::fld(FT5, 0, A1), asm::fadd_d(FA0, FA1, FT5, RNE)), (fadd + fp_stall, 1, 20));
    // An integer load followed by a reader: the integer stall.
    assert_eq!(pair(&costs, asm::ld(T0, 0, A1), asm::add(A0, T0, A1)), (add + int_stall, 1, 2));
    // f5 and x5 are different registers: no stall either way.
    assert_eq!(pair(&costs, asm::flw(FT5, 0, A1), asm::add(A0, T0, T0)), (add, 0, 0));
    assert_eq!(pair(&costs, asm::ld(T0, 0, A1), asm::fadd_s(FA0, FT5, FT5, RNE)), (fadd, 0, 0));
    assert_eq!(pair(&costs, asm::fld(FT5, 0, A1), asm::sd(T0, 0, A1)), (8, 0, 0));
    // Across the files, the kind of the load decides: an integer load read by fmv.w.x, an FP load read by a store
    // of it or by fmv.x.w.
    assert_eq!(pair(&costs, asm::ld(T0, 0, A1), asm::fmv_w_x(FA0, T0)), (mv + int_stall, 1, 2));
    assert_eq!(pair(&costs, asm::flw(FT5, 0, A1), asm::fsw(FT5, 8, A1)), (fstore + fp_stall, 1, 20));
    assert_eq!(pair(&costs, asm::flw(FT5, 0, A1), asm::fmv_x_w(A0, FT5)), (mv + fp_stall, 1, 20));
    // An FP load whose base register is the loaded integer register.
    assert_eq!(pair(&costs, asm::ld(A1, 0, A1), asm::fld(FA0, 0, A1)), (8 + int_stall, 1, 2));
    // The fused multiply-adds read a third source: a loaded rs3 stalls as rs1 or rs2 would.
    for (r1, r2, r3) in [(FT5, FA1, FA2), (FA1, FT5, FA2), (FA1, FA2, FT5)] {
        let fmadd = asm::fmadd_d(FA0, r1, r2, r3, RNE);
        assert_eq!(pair(&costs, asm::fld(FT5, 0, A1), fmadd), (fma + fp_stall, 1, 20), "loaded register as {:?}", (r1, r2, r3));
    }
    assert_eq!(pair(&costs, asm::fld(FT5, 0, A1), asm::fmadd_d(FA0, FA1, FA2, FA3, RNE)), (fma, 0, 0));
    // f0 is an ordinary register (unlike x0): a load into it stalls its reader.
    assert_eq!(pair(&costs, asm::flw(FT0, 0, A1), asm::fsgnj_s(FA0, FT0, FT0)), (mv + fp_stall, 1, 20));
    assert_eq!(pair(&costs, asm::ld(ZERO, 0, A1), asm::add(A0, ZERO, ZERO)), (add, 0, 0));
    // The stall lasts one instruction.
    let mut p = Pipeline::default();
    p.cycles(&costs, &gc(asm::flw(FT5, 0, A1)), false);
    p.cycles(&costs, &gc(asm::add(A0, A1, A1)), false);
    assert_eq!(p.cycles(&costs, &gc(asm::fadd_s(FA0, FT5, FT5, RNE)), false), fadd);
    // Both kinds accumulate in the same counters, by their own lengths.
    let mut p = Pipeline::default();
    for insn in [asm::flw(FT5, 0, A1), asm::fmv_x_w(A0, FT5), asm::lw(T0, 0, A1), asm::add(A0, T0, T0)] {
        p.cycles(&costs, &gc(insn), false);
    }
    assert_eq!((p.load_use_stalls, p.load_use_stall_cycles), (2, 22));
}

#[test]
fn atomics_stall_their_readers_like_loads() {
    let t = distinct();
    let costs = t.cost_table();
    let add = 1;
    let int_stall = 2;
    // AMOs and LR return a value from memory; this pipeline also delivers SC's success code late (its class is
    // LR/SC).
    let producers = [asm::amoadd_w(A0, A2, A1), asm::amoswap_d(A0, A2, A1), asm::lr_w(A0, A1), asm::lr_d(A0, A1), asm::sc_d(A0, A2, A1)];
    for first in producers {
        assert_eq!(pair(&costs, first, asm::add(A3, A0, A0)), (add + int_stall, 1, 2), "{} then a reader", first.op.name());
        assert_eq!(pair(&costs, first, asm::add(A3, A1, A2)), (add, 0, 0), "{} then a non-reader", first.op.name());
    }
    // With rd = x0 nothing waits.
    assert_eq!(pair(&costs, asm::amoor_d(ZERO, A2, A1), asm::add(A3, ZERO, ZERO)), (add, 0, 0));
    // An AMO right after a load of its address register waits for it.
    assert_eq!(pair(&costs, asm::ld(A1, 0, A1), asm::amoadd_d(A0, A2, A1)), (8 + 9 + int_stall, 1, 2));
}

#[test]
fn compressed_instructions_cost_their_expansion() {
    let t = distinct();
    let costs = t.cost_table();
    // Same cost as the 32-bit instruction, hazards and redirections included.
    for (compressed, base) in [
        (asm::c_add(A0, A1), asm::add(A0, A0, A1)),
        (asm::c_ld(A0, 8, S0), asm::ld(A0, 8, S0)),
        (asm::c_fld(FS0, 8, S0), asm::fld(FS0, 8, S0)),
        (asm::c_fsdsp(FA0, 8), asm::fsd(FA0, 8, SP)),
        (asm::c_addiw(A0, 1), asm::addiw(A0, A0, 1)),
    ] {
        assert_eq!(alone(&costs, compressed), alone(&costs, base), "{} ({:#06x})", compressed.op.name(), compressed.word);
    }
    assert_eq!(pair(&costs, asm::c_ld(A0, 8, S0), asm::c_add(A1, A0)), (1 + 2, 1, 2));
    assert_eq!(pair(&costs, asm::c_fld(FS0, 8, S0), asm::fadd_d(FA0, FS0, FS0, RNE)), (11 + 20, 1, 20));
    let mut p = Pipeline::default();
    assert_eq!(p.cycles(&costs, &gc(asm::c_j(8)), true), 1 + 4);
    assert_eq!(p.cycles(&costs, &gc(asm::c_jalr(A0)), true), 1 + 4);
    assert_eq!(p.cycles(&costs, &gc(asm::c_beqz(A0, 8)), true), 1 + 3);
    assert_eq!(p.cycles(&costs, &gc(asm::c_bnez(A0, 8)), false), 1);
    assert_eq!((p.jumps, p.taken_branches), (2, 1));
}

#[test]
fn fp_latencies_must_be_positive() {
    for (name, t) in [
        ("fp_add_cycles", Timing { fp_add_cycles: 0, ..Timing::default() }),
        ("fp_fma_cycles", Timing { fp_fma_cycles: 0, ..Timing::default() }),
        ("fp_div64_cycles", Timing { fp_div64_cycles: 0, ..Timing::default() }),
        ("fp_sqrt32_cycles", Timing { fp_sqrt32_cycles: 0, ..Timing::default() }),
        ("fp_convert_cycles", Timing { fp_convert_cycles: 0, ..Timing::default() }),
        ("fp_misc_cycles", Timing { fp_misc_cycles: 0, ..Timing::default() }),
    ] {
        let err = t.validate().expect_err(name).to_string();
        assert_eq!(err, format!("timing: {name} = 0: must be between 1 and 10000"));
    }
    // Penalties and stalls may be zero, not huge.
    let t = Timing { amo_penalty_cycles: 0, lr_sc_penalty_cycles: 0, fp_load_use_stall_cycles: 0, ..Timing::default() };
    assert!(t.validate().is_ok());
    let err = Timing { fp_load_use_stall_cycles: 10_001, ..Timing::default() }.validate().unwrap_err().to_string();
    assert_eq!(err, "timing: fp_load_use_stall_cycles = 10001: must be at most 10000");
    // With no penalty an AMO costs a memory access, and a zero FP load-use stall stalls nothing.
    let costs = t.cost_table();
    assert_eq!(alone(&costs, asm::amoadd_d(A0, A2, A1)), 1);
    assert_eq!(pair(&costs, asm::flw(FT5, 0, A1), asm::fadd_s(FA0, FT5, FT5, RNE)), (3, 0, 0));
}
