//! The F and D extensions on an RV64GC hart: every instruction with signed zeros, infinities, NaNs (canonical
//! results, signaling inputs), subnormals, the five rounding modes on halfway and overflowing results, the flags,
//! NaN boxing of singles, the FP CSRs and dynamic rounding.
//!
//! Values are bit patterns written out from the IEEE 754 encodings (names below), results from the specification
//! (F and D chapters: canonical NaN, fmin/fmax as minimumNumber/maximumNumber, the conversion table, tininess
//! after rounding, NaN boxing). Every vector with a rounding mode runs twice, with the mode in the instruction
//! (while `frm` holds another one) and with the dynamic mode and the mode in `frm`; both must give the result.

use crate::common::asm::{self, rm, Insn};
use crate::common::*;
use riscv::Fault;

pub const GROUPS: &[Group] = &[
    ("fp_loads_and_stores_move_bits", fp_loads_and_stores_move_bits),
    ("fp_moves_box_and_sign_extend", fp_moves_box_and_sign_extend),
    ("sign_injection_keeps_nans_and_reads_unboxed_singles_as_nan", sign_injection_keeps_nans_and_reads_unboxed_singles_as_nan),
    ("unboxed_singles_are_the_canonical_nan", unboxed_singles_are_the_canonical_nan),
    ("add_single", add_single),
    ("subtract_single", subtract_single),
    ("add_and_subtract_double", add_and_subtract_double),
    ("multiply", multiply),
    ("divide", divide),
    ("square_root", square_root),
    ("fused_multiply_add_single", fused_multiply_add_single),
    ("fused_multiply_add_double", fused_multiply_add_double),
    ("min_and_max", min_and_max),
    ("comparisons_quiet_and_signaling", comparisons_quiet_and_signaling),
    ("classify_all_ten_classes", classify_all_ten_classes),
    ("single_to_integer", single_to_integer),
    ("double_to_integer", double_to_integer),
    ("integer_to_single", integer_to_single),
    ("integer_to_double", integer_to_double),
    ("double_to_single", double_to_single),
    ("single_to_double_is_exact", single_to_double_is_exact),
    ("flags_accrue_until_a_csr_write", flags_accrue_until_a_csr_write),
    ("fp_csrs_mask_their_fields", fp_csrs_mask_their_fields),
    ("dynamic_rounding_with_an_invalid_frm_faults", dynamic_rounding_with_an_invalid_frm_faults),
    ("fp_results_in_x0_are_discarded", fp_results_in_x0_are_discarded),
];

// ------------------------------------------------------------------------------------------------------------
// Values
// ------------------------------------------------------------------------------------------------------------

/// `fflags` bits (fcsr bits 4..0): invalid, divide by zero, overflow, underflow, inexact.
const NV: u8 = 0x10;
const DZ: u8 = 0x08;
const OF: u8 = 0x04;
const UF: u8 = 0x02;
const NX: u8 = 0x01;

use rm::{RDN, RMM, RNE, RTZ, RUP};

/// In a `mode` column: every rounding mode gives this result.
const ANY: u32 = 8;

// Singles (sign | 8-bit exponent biased by 127 | 23-bit fraction).
const S_ZERO: u32 = 0x0000_0000;
const S_NEG_ZERO: u32 = 0x8000_0000;
const S_ONE: u32 = 0x3f80_0000;
const S_NEG_ONE: u32 = 0xbf80_0000;
const S_HALF: u32 = 0x3f00_0000;
const S_NEG_HALF: u32 = 0xbf00_0000;
const S_ONE_HALF: u32 = 0x3fc0_0000; // 1.5
const S_NEG_ONE_HALF: u32 = 0xbfc0_0000;
const S_TWO: u32 = 0x4000_0000;
const S_NEG_TWO: u32 = 0xc000_0000;
const S_TWO_HALF: u32 = 0x4020_0000; // 2.5
const S_NEG_TWO_HALF: u32 = 0xc020_0000;
const S_THREE: u32 = 0x4040_0000;
const S_FOUR: u32 = 0x4080_0000;
const S_FIVE: u32 = 0x40a0_0000;
const S_NEG_FIVE: u32 = 0xc0a0_0000;
const S_SIX: u32 = 0x40c0_0000;
const S_SEVEN: u32 = 0x40e0_0000;
const S_NEG_SEVEN: u32 = 0xc0e0_0000;
const S_INF: u32 = 0x7f80_0000;
const S_NEG_INF: u32 = 0xff80_0000;
const S_MAX: u32 = 0x7f7f_ffff; // (2 - 2^-23) * 2^127
const S_NEG_MAX: u32 = 0xff7f_ffff;
const S_MIN_NORMAL: u32 = 0x0080_0000; // 2^-126
const S_MAX_SUB: u32 = 0x007f_ffff; // 2^-126 - 2^-149
const S_MIN_SUB: u32 = 0x0000_0001; // 2^-149
const S_NEG_MIN_SUB: u32 = 0x8000_0001;
/// The canonical NaN.
const S_QNAN: u32 = 0x7fc0_0000;
const S_QNAN_PAYLOAD: u32 = 0x7fc1_2345;
const S_NEG_QNAN: u32 = 0xffc0_0000;
const S_SNAN: u32 = 0x7f80_0001;
const S_NEG_SNAN: u32 = 0xff80_0001;
/// 2^-24: half an ulp of 1.0.
const S_2M24: u32 = 0x3380_0000;
const S_NEG_2M24: u32 = 0xb380_0000;

// Doubles (sign | 11-bit exponent biased by 1023 | 52-bit fraction).
const D_ZERO: u64 = 0x0000_0000_0000_0000;
const D_NEG_ZERO: u64 = 0x8000_0000_0000_0000;
const D_ONE: u64 = 0x3ff0_0000_0000_0000;
const D_NEG_ONE: u64 = 0xbff0_0000_0000_0000;
const D_HALF: u64 = 0x3fe0_0000_0000_0000;
const D_NEG_HALF: u64 = 0xbfe0_0000_0000_0000;
const D_ONE_HALF: u64 = 0x3ff8_0000_0000_0000;
const D_TWO: u64 = 0x4000_0000_0000_0000;
const D_NEG_TWO: u64 = 0xc000_0000_0000_0000;
const D_TWO_HALF: u64 = 0x4004_0000_0000_0000;
const D_NEG_TWO_HALF: u64 = 0xc004_0000_0000_0000;
const D_THREE: u64 = 0x4008_0000_0000_0000;
const D_FOUR: u64 = 0x4010_0000_0000_0000;
const D_FIVE: u64 = 0x4014_0000_0000_0000;
const D_NEG_FIVE: u64 = 0xc014_0000_0000_0000;
const D_SIX: u64 = 0x4018_0000_0000_0000;
const D_SEVEN: u64 = 0x401c_0000_0000_0000;
const D_NEG_SEVEN: u64 = 0xc01c_0000_0000_0000;
const D_INF: u64 = 0x7ff0_0000_0000_0000;
const D_NEG_INF: u64 = 0xfff0_0000_0000_0000;
const D_MAX: u64 = 0x7fef_ffff_ffff_ffff;
const D_NEG_MAX: u64 = 0xffef_ffff_ffff_ffff;
const D_MIN_NORMAL: u64 = 0x0010_0000_0000_0000; // 2^-1022
const D_MAX_SUB: u64 = 0x000f_ffff_ffff_ffff;
const D_MIN_SUB: u64 = 0x0000_0000_0000_0001; // 2^-1074
const D_NEG_MIN_SUB: u64 = 0x8000_0000_0000_0001;
/// The canonical NaN.
const D_QNAN: u64 = 0x7ff8_0000_0000_0000;
const D_QNAN_PAYLOAD: u64 = 0x7ff8_0000_0000_0123;
const D_NEG_QNAN: u64 = 0xfff8_0000_0000_0000;
const D_SNAN: u64 = 0x7ff0_0000_0000_0001;
const D_NEG_SNAN: u64 = 0xfff0_0000_0000_0001;
/// 2^-53: half an ulp of 1.0.
const D_2M53: u64 = 0x3ca0_0000_0000_0000;

/// Register images that are not NaN-boxed singles (the upper 32 bits are not all ones): 1.0 with zeros above, and
/// -1.0 with one zero bit above.
const UNBOXED_ONE: u64 = 0x0000_0000_3f80_0000;
const UNBOXED_NEG_ONE: u64 = 0xffff_fffe_bf80_0000;

// ------------------------------------------------------------------------------------------------------------
// Running FP instructions
// ------------------------------------------------------------------------------------------------------------

/// A value of one of the two formats, as it sits in an f register.
trait Fp: Copy + std::fmt::LowerHex {
    fn reg(self) -> u64;
}

impl Fp for u32 {
    /// Singles are NaN-boxed.
    fn reg(self) -> u64 {
        0xffff_ffff_0000_0000 | u64::from(self)
    }
}

impl Fp for u64 {
    fn reg(self) -> u64 {
        self
    }
}

fn modes(mode: u32) -> Vec<u32> {
    if mode == ANY {
        rm::ALL.to_vec()
    } else {
        vec![mode]
    }
}

fn rm_name(rm: u32) -> &'static str {
    ["rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"][rm as usize]
}

fn flag_names(flags: u8) -> String {
    let names: Vec<_> = [(NV, "NV"), (DZ, "DZ"), (OF, "OF"), (UF, "UF"), (NX, "NX")]
        .iter()
        .filter(|(bit, _)| flags & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join("|")
    }
}

/// Where an instruction's result goes: fa0 or a0.
#[derive(Clone, Copy, PartialEq)]
enum Dest {
    F,
    X,
}

/// Executes `insn` on a fresh RV64GC hart with the given f and x registers, `frm` and clear flags; checks that it
/// writes nothing but its destination (fa0 or a0); returns the destination and `fflags`.
fn run(insn: Insn, frm: u32, fregs: &[(u8, u64)], xregs: &[(u8, u64)], dest: Dest) -> (u64, u8) {
    let mut m = Machine::gc().and(xregs);
    for &(r, v) in fregs {
        m.set_f(r, v);
    }
    m.set_f(FA0, 0x5a5a_5a5a_5a5a_5a5a);
    m.set(A0, 0x5a5a_5a5a_5a5a_5a5a);
    m.hart.frm = frm as u8;
    let (f, x) = (m.hart.f, m.hart.x);
    m.next(insn);
    for r in 0..32u8 {
        if !(dest == Dest::F && r == FA0) {
            assert_eq!(m.f(r), f[r as usize], "{}: f{r} changed", insn.op.name());
        }
        if !(dest == Dest::X && r == A0) {
            assert_eq!(m.get(r), x[r as usize], "{}: x{r} changed", insn.op.name());
        }
    }
    assert_eq!(m.hart.frm, frm as u8, "{} changed frm", insn.op.name());
    let rd = if dest == Dest::F { m.f(FA0) } else { m.get(A0) };
    (rd, m.hart.fflags)
}

/// Runs `build(rm)` with a static rounding mode (`frm` holding another one) and `build(DYN)` with `frm = rm`;
/// the two must agree.
fn run_rm(
    build: &dyn Fn(u32) -> Insn,
    rm: u32,
    fregs: &[(u8, u64)],
    xregs: &[(u8, u64)],
    dest: Dest,
) -> Result<(u64, u8), String> {
    let other = (rm + 1) % 5;
    let fixed = run(build(rm), other, fregs, xregs, dest);
    let dynamic = run(build(rm::DYN), rm, fregs, xregs, dest);
    if fixed == dynamic {
        Ok(fixed)
    } else {
        Err(format!(
            "static rm gives {:#x} ({}), dynamic rm with frm = {rm} gives {:#x} ({})",
            fixed.0,
            flag_names(fixed.1),
            dynamic.0,
            flag_names(dynamic.1)
        ))
    }
}

fn compare(failures: &mut Vec<String>, what: String, got: Result<(u64, u8), String>, want: u64, flags: u8) {
    match got {
        Err(e) => failures.push(format!("{what}: {e}")),
        Ok((value, raised)) if value != want || raised != flags => failures.push(format!(
            "{what}: expected {want:#x} ({}), got {value:#x} ({})",
            flag_names(flags),
            flag_names(raised)
        )),
        Ok(_) => {}
    }
}

type Binary = fn(u8, u8, u8, u32) -> Insn;
type Ternary = fn(u8, u8, u8, u8, u32) -> Insn;
type Unary = fn(u8, u8, u32) -> Insn;
type Fixed = fn(u8, u8, u8) -> Insn;

/// `(mode, rs1, rs2, expected rd, expected flags)` of `op fa0, fa1, fa2, rm`.
fn check_binary<T: Fp>(f: Binary, cases: &[(u32, T, T, T, u8)]) {
    let name = f(0, 0, 0, 0).op.name();
    let mut failures = Vec::new();
    for &(mode, a, b, want, flags) in cases {
        for rm in modes(mode) {
            let got = run_rm(&|rm| f(FA0, FA1, FA2, rm), rm, &[(FA1, a.reg()), (FA2, b.reg())], &[], Dest::F);
            compare(&mut failures, format!("{name} {a:#x}, {b:#x}, {}", rm_name(rm)), got, want.reg(), flags);
        }
    }
    report(failures);
}

/// `(mode, rs1, expected rd, expected flags)` of `op fa0, fa1, rm` (square root, conversion between formats).
fn check_unary<A: Fp, R: Fp>(f: Unary, cases: &[(u32, A, R, u8)]) {
    let name = f(0, 0, 0).op.name();
    let mut failures = Vec::new();
    for &(mode, a, want, flags) in cases {
        for rm in modes(mode) {
            let got = run_rm(&|rm| f(FA0, FA1, rm), rm, &[(FA1, a.reg())], &[], Dest::F);
            compare(&mut failures, format!("{name} {a:#x}, {}", rm_name(rm)), got, want.reg(), flags);
        }
    }
    report(failures);
}

/// `(mode, f rs1, expected x rd, expected flags)` of `fcvt.* a0, fa1, rm`.
fn check_to_int<A: Fp>(f: Unary, cases: &[(u32, A, u64, u8)]) {
    let name = f(0, 0, 0).op.name();
    let mut failures = Vec::new();
    for &(mode, a, want, flags) in cases {
        for rm in modes(mode) {
            let got = run_rm(&|rm| f(A0, FA1, rm), rm, &[(FA1, a.reg())], &[], Dest::X);
            compare(&mut failures, format!("{name} {a:#x}, {}", rm_name(rm)), got, want, flags);
        }
    }
    report(failures);
}

/// `(mode, x rs1, expected f rd, expected flags)` of `fcvt.* fa0, a1, rm`.
fn check_from_int<R: Fp>(f: Unary, cases: &[(u32, u64, R, u8)]) {
    let name = f(0, 0, 0).op.name();
    let mut failures = Vec::new();
    for &(mode, a, want, flags) in cases {
        for rm in modes(mode) {
            let got = run_rm(&|rm| f(FA0, A1, rm), rm, &[], &[(A1, a)], Dest::F);
            compare(&mut failures, format!("{name} {a:#x}, {}", rm_name(rm)), got, want.reg(), flags);
        }
    }
    report(failures);
}

/// `(rs1, rs2, expected rd, expected flags)` of `op fa0, fa1, fa2` without a rounding mode.
fn check_fixed<T: Fp>(f: Fixed, cases: &[(T, T, T, u8)]) {
    let name = f(0, 0, 0).op.name();
    let mut failures = Vec::new();
    for &(a, b, want, flags) in cases {
        let got = run(f(FA0, FA1, FA2), 0, &[(FA1, a.reg()), (FA2, b.reg())], &[], Dest::F);
        compare(&mut failures, format!("{name} {a:#x}, {b:#x}"), Ok(got), want.reg(), flags);
    }
    report(failures);
}

/// `(mode, rs1, rs2, rs3, [(expected rd, flags) of fmadd, fmsub, fnmsub, fnmadd])`.
type FmaCase<T> = (u32, T, T, T, [(T, u8); 4]);

fn check_fma<T: Fp>(ops: [Ternary; 4], cases: &[FmaCase<T>]) {
    let mut failures = Vec::new();
    for &(mode, a, b, c, wants) in cases {
        for (f, (want, flags)) in ops.into_iter().zip(wants) {
            let name = f(0, 0, 0, 0, 0).op.name();
            for rm in modes(mode) {
                let fregs = [(FA1, a.reg()), (FA2, b.reg()), (FA3, c.reg())];
                let got = run_rm(&|rm| f(FA0, FA1, FA2, FA3, rm), rm, &fregs, &[], Dest::F);
                compare(&mut failures, format!("{name} {a:#x}, {b:#x}, {c:#x}, {}", rm_name(rm)), got, want.reg(), flags);
            }
        }
    }
    report(failures);
}

// ------------------------------------------------------------------------------------------------------------
// Moving bits: loads, stores, moves, sign injection, NaN boxing
// ------------------------------------------------------------------------------------------------------------

#[test]
fn fp_loads_and_stores_move_bits() {
    let mut m = Machine::gc().and(&[(A1, DATA)]);
    m.poke(DATA, &[0x01, 0x00, 0x80, 0x7f, 0x00, 0x00, 0x80, 0x3f]); // sNaN 0x7f80_0001, then 1.0
    m.poke_u64(DATA + 8, D_SNAN);
    // flw NaN-boxes the word and keeps a signaling NaN's payload; loads raise no flags.
    m.next(asm::flw(FA0, 0, A1));
    assert_eq!(m.f(FA0), 0xffff_ffff_7f80_0001);
    m.next(asm::flw(FT0, 4, A1));
    assert_eq!(m.f(FT0), 0xffff_ffff_3f80_0000, "flw into f0");
    m.next(asm::fld(FA1, 8, A1));
    assert_eq!(m.f(FA1), D_SNAN, "fld moves 64 bits");
    m.next(asm::fld(FA2, 0, A1));
    assert_eq!(m.f(FA2), 0x3f80_0000_7f80_0001);
    assert_eq!(m.hart.fflags, 0);
    // fsw stores the low 32 bits whatever the upper ones (here an unboxed value); fsd stores all 64.
    m.set_f(FA3, 0x1234_5678_9abc_def0);
    m.poke(DATA + 16, &[0xee; 16]);
    m.next(asm::fsw(FA3, 16, A1));
    assert_eq!(m.peek(DATA + 16, 8), [0xf0, 0xde, 0xbc, 0x9a, 0xee, 0xee, 0xee, 0xee]);
    m.next(asm::fsd(FA3, 24, A1));
    assert_eq!(m.peek_u64(DATA + 24), 0x1234_5678_9abc_def0);
    m.next(asm::fsw(FA0, -4, A1)); // negative offset
    assert_eq!(m.peek(DATA - 4, 4), [0x01, 0x00, 0x80, 0x7f]);
    assert_eq!(m.hart.fflags, 0);
    // Round trip of a NaN-boxed single through fsd/fld keeps the box.
    m.next(asm::fsd(FA0, 32, A1));
    m.next(asm::fld(FA3, 32, A1));
    assert_eq!(m.f(FA3), 0xffff_ffff_7f80_0001);

    // Misaligned and out-of-range FP accesses fault without side effects.
    use riscv::memory::{AccessKind, MemFault};
    for (insn, addr, size, kind) in [
        (asm::flw(FA0, 2, A1), DATA + 2, 4, AccessKind::Load),
        (asm::fld(FA0, 4, A1), DATA + 4, 8, AccessKind::Load),
        (asm::fsw(FA0, 1, A1), DATA + 1, 4, AccessKind::Store),
        (asm::fsd(FA0, 12, A1), DATA + 12, 8, AccessKind::Store),
    ] {
        let mut m = Machine::gc().and(&[(A1, DATA)]);
        m.set_f(FA0, 0x1111_2222_3333_4444);
        assert_eq!(m.fault(insn), Fault::Memory(MemFault::Misaligned { addr, size, kind }), "{}", insn.op.name());
    }
    for (insn, size, kind) in [
        (asm::flw(FA0, 0, A1), 4, AccessKind::Load),
        (asm::fld(FA0, 0, A1), 8, AccessKind::Load),
        (asm::fsw(FA0, 0, A1), 4, AccessKind::Store),
        (asm::fsd(FA0, 0, A1), 8, AccessKind::Store),
    ] {
        let mut m = Machine::gc().and(&[(A1, END)]);
        assert_eq!(m.fault(insn), Fault::Memory(MemFault::OutOfRange { addr: END, size, kind }), "{}", insn.op.name());
    }
}

#[test]
fn fp_moves_box_and_sign_extend() {
    // fmv.x.w: the low 32 bits, sign-extended, whatever the upper ones; no NaN handling.
    for (f, want) in [
        (0xffff_ffff_8000_0000, 0xffff_ffff_8000_0000),
        (0xffff_ffff_7f80_0001, 0x7f80_0001),
        (0xffff_ffff_ffc1_2345, 0xffff_ffff_ffc1_2345),
        (0xffff_ffff_3f80_0000, 0x3f80_0000),
        (0x0000_0000_8765_4321, 0xffff_ffff_8765_4321),
        (0x1234_5678_0765_4321, 0x0765_4321),
    ] {
        let (x, flags) = run(asm::fmv_x_w(A0, FA1), 0, &[(FA1, f)], &[], Dest::X);
        assert_eq!((x, flags), (want, 0), "fmv.x.w of {f:#x}");
    }
    // fmv.w.x: the low 32 bits of rs1, NaN-boxed.
    for (x, want) in [
        (0x1234_5678_8000_0000, 0xffff_ffff_8000_0000),
        (0x7f80_0001, 0xffff_ffff_7f80_0001),
        (0, 0xffff_ffff_0000_0000),
        (NEG1, NEG1),
    ] {
        let (f, flags) = run(asm::fmv_w_x(FA0, A1), 0, &[], &[(A1, x)], Dest::F);
        assert_eq!((f, flags), (want, 0), "fmv.w.x of {x:#x}");
    }
    // The double moves copy 64 bits, signaling NaNs included.
    for v in [D_SNAN, D_NEG_ZERO, 0xffff_ffff_3f80_0000, 0x0123_4567_89ab_cdef] {
        assert_eq!(run(asm::fmv_x_d(A0, FA1), 0, &[(FA1, v)], &[], Dest::X), (v, 0), "fmv.x.d of {v:#x}");
        assert_eq!(run(asm::fmv_d_x(FA0, A1), 0, &[], &[(A1, v)], Dest::F), (v, 0), "fmv.d.x of {v:#x}");
    }
    // fmv.w.x into f0 then out again, on one hart.
    let mut m = Machine::gc().and(&[(A1, 0xdead_beef)]);
    m.next(asm::fmv_w_x(FT0, A1));
    m.next(asm::fmv_x_w(A2, FT0));
    assert_eq!(m.get(A2), 0xffff_ffff_dead_beef);
}

#[test]
fn sign_injection_keeps_nans_and_reads_unboxed_singles_as_nan() {
    // Sign injection takes everything but the sign from rs1; it raises no flag and does not canonicalize NaNs.
    check_fixed(asm::fsgnj_s, &[
        (S_ONE, S_NEG_TWO, S_NEG_ONE, 0),
        (S_NEG_ONE, S_TWO, S_ONE, 0),
        (S_NEG_ONE, S_NEG_TWO, S_NEG_ONE, 0),
        (S_QNAN_PAYLOAD, S_NEG_ZERO, 0xffc1_2345, 0),
        (S_SNAN, S_ONE, S_SNAN, 0),
        (S_NEG_INF, S_ZERO, S_INF, 0),
    ]);
    check_fixed(asm::fsgnjn_s, &[
        (S_ONE, S_NEG_TWO, S_ONE, 0),
        (S_ONE, S_TWO, S_NEG_ONE, 0),
        // fneg.s of a signaling NaN.
        (S_SNAN, S_SNAN, S_NEG_SNAN, 0),
        (S_ZERO, S_ZERO, S_NEG_ZERO, 0),
    ]);
    check_fixed(asm::fsgnjx_s, &[
        (S_NEG_ONE, S_NEG_TWO, S_ONE, 0),
        (S_NEG_ONE, S_TWO, S_NEG_ONE, 0),
        (S_ONE, S_NEG_TWO, S_NEG_ONE, 0),
        // fabs.s of a negative NaN keeps its payload.
        (0xffc1_2345, 0xffc1_2345, S_QNAN_PAYLOAD, 0),
    ]);
    check_fixed(asm::fsgnj_d, &[
        (D_ONE, D_NEG_TWO, D_NEG_ONE, 0),
        (D_NEG_ONE, D_TWO, D_ONE, 0),
        (D_SNAN, D_NEG_ONE, D_NEG_SNAN, 0),
        // A double operation reads a boxed single as the negative NaN it is.
        (0xffff_ffff_3f80_0000, D_ONE, 0x7fff_ffff_3f80_0000, 0),
    ]);
    check_fixed(asm::fsgnjn_d, &[
        (D_ONE, D_NEG_TWO, D_ONE, 0),
        (D_ONE, D_TWO, D_NEG_ONE, 0),
        (D_QNAN_PAYLOAD, D_ZERO, 0xfff8_0000_0000_0123, 0),
    ]);
    check_fixed(asm::fsgnjx_d, &[
        (D_NEG_ONE, D_NEG_TWO, D_ONE, 0),
        (D_NEG_ONE, D_TWO, D_NEG_ONE, 0),
        (D_NEG_INF, D_NEG_ZERO, D_INF, 0),
    ]);

    // An input that is not a NaN-boxed single is the canonical NaN 0x7fc0_0000 (positive): as rs1 its magnitude
    // is the NaN's, as rs2 its sign is +.
    // (instruction, rs1 register image, rs2 register image, expected single)
    let cases: &[(Fixed, u64, u64, u32)] = &[
        (asm::fsgnj_s, UNBOXED_ONE, S_NEG_ONE.reg(), 0xffc0_0000),
        (asm::fsgnj_s, UNBOXED_NEG_ONE, S_ONE.reg(), S_QNAN),
        (asm::fsgnj_s, S_ONE.reg(), UNBOXED_NEG_ONE, S_ONE),
        (asm::fsgnj_s, S_NEG_ONE.reg(), UNBOXED_NEG_ONE, S_ONE),
        (asm::fsgnjn_s, S_ONE.reg(), UNBOXED_ONE, S_NEG_ONE),
        (asm::fsgnjn_s, UNBOXED_ONE, S_ONE.reg(), 0xffc0_0000),
        (asm::fsgnjx_s, S_NEG_ONE.reg(), UNBOXED_NEG_ONE, S_NEG_ONE),
        (asm::fsgnjx_s, UNBOXED_NEG_ONE, S_NEG_ONE.reg(), 0xffc0_0000),
    ];
    let mut failures = Vec::new();
    for &(f, a, b, want) in cases {
        let got = run(f(FA0, FA1, FA2), 0, &[(FA1, a), (FA2, b)], &[], Dest::F);
        let what = format!("{} {a:#x}, {b:#x}", f(0, 0, 0).op.name());
        compare(&mut failures, what, Ok(got), want.reg(), 0);
    }
    report(failures);
}

#[test]
fn unboxed_singles_are_the_canonical_nan() {
    // Every single-precision operation but the transfers reads an unboxed register as the canonical (quiet)
    // NaN: arithmetic gives the canonical NaN without NV, signaling comparisons raise NV as for any NaN.
    let one = S_ONE.reg();
    let mut failures = Vec::new();
    let mut expect = |what: &str, got: (u64, u8), want: (u64, u8)| {
        if got != want {
            let (want_flags, got_flags) = (flag_names(want.1), flag_names(got.1));
            failures.push(format!("{what}: expected {:#x} ({want_flags}), got {:#x} ({got_flags})", want.0, got.0));
        }
    };
    for unboxed in [UNBOXED_ONE, UNBOXED_NEG_ONE] {
        let nan = (S_QNAN.reg(), 0);
        expect("fadd.s", run(asm::fadd_s(FA0, FA1, FA2, RNE), 0, &[(FA1, unboxed), (FA2, one)], &[], Dest::F), nan);
        expect("fmul.s rs2", run(asm::fmul_s(FA0, FA1, FA2, RNE), 0, &[(FA1, one), (FA2, unboxed)], &[], Dest::F), nan);
        expect("fsqrt.s", run(asm::fsqrt_s(FA0, FA1, RNE), 0, &[(FA1, unboxed)], &[], Dest::F), nan);
        let fregs = [(FA1, one), (FA2, one), (FA3, unboxed)];
        expect("fmadd.s rs3", run(asm::fmadd_s(FA0, FA1, FA2, FA3, RNE), 0, &fregs, &[], Dest::F), nan);
        expect("fmin.s", run(asm::fmin_s(FA0, FA1, FA2), 0, &[(FA1, unboxed), (FA2, one)], &[], Dest::F), (one, 0));
        expect("fmax.s", run(asm::fmax_s(FA0, FA1, FA2), 0, &[(FA1, one), (FA2, unboxed)], &[], Dest::F), (one, 0));
        expect("feq.s", run(asm::feq_s(A0, FA1, FA2), 0, &[(FA1, unboxed), (FA2, unboxed)], &[], Dest::X), (0, 0));
        expect("flt.s", run(asm::flt_s(A0, FA1, FA2), 0, &[(FA1, unboxed), (FA2, one)], &[], Dest::X), (0, NV));
        expect("fle.s", run(asm::fle_s(A0, FA1, FA2), 0, &[(FA1, one), (FA2, unboxed)], &[], Dest::X), (0, NV));
        expect("fclass.s", run(asm::fclass_s(A0, FA1), 0, &[(FA1, unboxed)], &[], Dest::X), (0x200, 0));
        expect("fcvt.w.s", run(asm::fcvt_w_s(A0, FA1, RTZ), 0, &[(FA1, unboxed)], &[], Dest::X), (0x7fff_ffff, NV));
        expect("fcvt.lu.s", run(asm::fcvt_lu_s(A0, FA1, RTZ), 0, &[(FA1, unboxed)], &[], Dest::X), (NEG1, NV));
        expect("fcvt.d.s", run(asm::fcvt_d_s(FA0, FA1, RNE), 0, &[(FA1, unboxed)], &[], Dest::F), (D_QNAN, 0));
    }
    report(failures);
}

// ------------------------------------------------------------------------------------------------------------
// Arithmetic
// ------------------------------------------------------------------------------------------------------------

#[test]
fn add_single() {
    check_binary::<u32>(asm::fadd_s, &[
        (ANY, S_ONE, S_TWO, S_THREE, 0),
        (ANY, S_NEG_ONE, S_NEG_TWO, 0xc040_0000, 0),
        // An exact zero sum is +0, except -0 when rounding down; -0 + -0 is -0 in every mode.
        (RNE, S_ONE, S_NEG_ONE, S_ZERO, 0),
        (RTZ, S_ONE, S_NEG_ONE, S_ZERO, 0),
        (RDN, S_ONE, S_NEG_ONE, S_NEG_ZERO, 0),
        (RUP, S_ONE, S_NEG_ONE, S_ZERO, 0),
        (RMM, S_ONE, S_NEG_ONE, S_ZERO, 0),
        (RNE, S_ZERO, S_NEG_ZERO, S_ZERO, 0),
        (RTZ, S_NEG_ZERO, S_ZERO, S_ZERO, 0),
        (RDN, S_ZERO, S_NEG_ZERO, S_NEG_ZERO, 0),
        (RUP, S_ZERO, S_NEG_ZERO, S_ZERO, 0),
        (RMM, S_NEG_ZERO, S_ZERO, S_ZERO, 0),
        (ANY, S_NEG_ZERO, S_NEG_ZERO, S_NEG_ZERO, 0),
        (ANY, S_ZERO, S_ZERO, S_ZERO, 0),
        (ANY, S_NEG_ZERO, S_ONE, S_ONE, 0),
        // Infinities.
        (ANY, S_INF, S_ONE, S_INF, 0),
        (ANY, S_NEG_INF, S_MAX, S_NEG_INF, 0),
        (ANY, S_INF, S_INF, S_INF, 0),
        (ANY, S_INF, S_NEG_INF, S_QNAN, NV),
        (ANY, S_NEG_INF, S_INF, S_QNAN, NV),
        // A NaN result is the canonical NaN; quiet NaN inputs raise nothing, signaling ones NV.
        (ANY, S_QNAN_PAYLOAD, S_ONE, S_QNAN, 0),
        (ANY, S_ONE, S_NEG_QNAN, S_QNAN, 0),
        (ANY, S_INF, S_QNAN, S_QNAN, 0),
        (ANY, S_SNAN, S_ONE, S_QNAN, NV),
        (ANY, S_ONE, S_NEG_SNAN, S_QNAN, NV),
        (ANY, S_SNAN, S_QNAN, S_QNAN, NV),
        (ANY, S_QNAN, S_SNAN, S_QNAN, NV),
        // Halfway between 1.0 (even) and 1.0 + 2^-23 (odd).
        (RNE, S_ONE, S_2M24, S_ONE, NX),
        (RTZ, S_ONE, S_2M24, S_ONE, NX),
        (RDN, S_ONE, S_2M24, S_ONE, NX),
        (RUP, S_ONE, S_2M24, 0x3f80_0001, NX),
        (RMM, S_ONE, S_2M24, 0x3f80_0001, NX),
        (RNE, S_NEG_ONE, S_NEG_2M24, S_NEG_ONE, NX),
        (RTZ, S_NEG_ONE, S_NEG_2M24, S_NEG_ONE, NX),
        (RDN, S_NEG_ONE, S_NEG_2M24, 0xbf80_0001, NX),
        (RUP, S_NEG_ONE, S_NEG_2M24, S_NEG_ONE, NX),
        (RMM, S_NEG_ONE, S_NEG_2M24, 0xbf80_0001, NX),
        // Halfway between 1.0 + 2^-23 (odd) and 1.0 + 2^-22 (even): nearest-even now rounds up.
        (RNE, 0x3f80_0001, S_2M24, 0x3f80_0002, NX),
        (RTZ, 0x3f80_0001, S_2M24, 0x3f80_0001, NX),
        (RDN, 0x3f80_0001, S_2M24, 0x3f80_0001, NX),
        (RUP, 0x3f80_0001, S_2M24, 0x3f80_0002, NX),
        (RMM, 0x3f80_0001, S_2M24, 0x3f80_0002, NX),
        // Far below half an ulp: only the sticky bit says inexact.
        (RNE, S_ONE, S_MIN_SUB, S_ONE, NX),
        (RTZ, S_ONE, S_MIN_SUB, S_ONE, NX),
        (RDN, S_ONE, S_MIN_SUB, S_ONE, NX),
        (RUP, S_ONE, S_MIN_SUB, 0x3f80_0001, NX),
        (RMM, S_ONE, S_MIN_SUB, S_ONE, NX),
        // -1 + 2^-149 is just above -1: toward zero and up give -(1 - 2^-24).
        (RNE, S_NEG_ONE, S_MIN_SUB, S_NEG_ONE, NX),
        (RTZ, S_NEG_ONE, S_MIN_SUB, 0xbf7f_ffff, NX),
        (RDN, S_NEG_ONE, S_MIN_SUB, S_NEG_ONE, NX),
        (RUP, S_NEG_ONE, S_MIN_SUB, 0xbf7f_ffff, NX),
        (RMM, S_NEG_ONE, S_MIN_SUB, S_NEG_ONE, NX),
        // Overflow: infinity or the largest finite value, by mode and sign.
        (RNE, S_MAX, S_MAX, S_INF, OF | NX),
        (RTZ, S_MAX, S_MAX, S_MAX, OF | NX),
        (RDN, S_MAX, S_MAX, S_MAX, OF | NX),
        (RUP, S_MAX, S_MAX, S_INF, OF | NX),
        (RMM, S_MAX, S_MAX, S_INF, OF | NX),
        (RNE, S_NEG_MAX, S_NEG_MAX, S_NEG_INF, OF | NX),
        (RTZ, S_NEG_MAX, S_NEG_MAX, S_NEG_MAX, OF | NX),
        (RDN, S_NEG_MAX, S_NEG_MAX, S_NEG_INF, OF | NX),
        (RUP, S_NEG_MAX, S_NEG_MAX, S_NEG_MAX, OF | NX),
        (RMM, S_NEG_MAX, S_NEG_MAX, S_NEG_INF, OF | NX),
        // MAX + 2^103 is halfway between MAX (odd) and 2^128: it overflows only where it rounds up.
        (RNE, S_MAX, 0x7300_0000, S_INF, OF | NX),
        (RTZ, S_MAX, 0x7300_0000, S_MAX, NX),
        (RDN, S_MAX, 0x7300_0000, S_MAX, NX),
        (RUP, S_MAX, 0x7300_0000, S_INF, OF | NX),
        (RMM, S_MAX, 0x7300_0000, S_INF, OF | NX),
        // Subnormals add exactly: no underflow without inexactness.
        (ANY, S_MIN_SUB, S_MIN_SUB, 0x0000_0002, 0),
        (ANY, S_MAX_SUB, S_MIN_SUB, S_MIN_NORMAL, 0),
        (ANY, S_MIN_NORMAL, S_NEG_MIN_SUB, S_MAX_SUB, 0),
        (RNE, S_MIN_SUB, S_NEG_MIN_SUB, S_ZERO, 0),
        (RDN, S_MIN_SUB, S_NEG_MIN_SUB, S_NEG_ZERO, 0),
    ]);
}

#[test]
fn subtract_single() {
    check_binary::<u32>(asm::fsub_s, &[
        (ANY, S_THREE, S_ONE, S_TWO, 0),
        (ANY, S_ONE, S_THREE, S_NEG_TWO, 0),
        (RNE, S_ZERO, S_ZERO, S_ZERO, 0),
        (RDN, S_ZERO, S_ZERO, S_NEG_ZERO, 0),
        (RNE, S_TWO, S_TWO, S_ZERO, 0),
        (RDN, S_TWO, S_TWO, S_NEG_ZERO, 0),
        (ANY, S_NEG_ZERO, S_ZERO, S_NEG_ZERO, 0),
        (ANY, S_ZERO, S_NEG_ZERO, S_ZERO, 0),
        (ANY, S_INF, S_INF, S_QNAN, NV),
        (ANY, S_NEG_INF, S_NEG_INF, S_QNAN, NV),
        (ANY, S_INF, S_NEG_INF, S_INF, 0),
        (ANY, S_NEG_INF, S_INF, S_NEG_INF, 0),
        (ANY, S_ONE, S_INF, S_NEG_INF, 0),
        (ANY, S_SNAN, S_ZERO, S_QNAN, NV),
        (ANY, S_QNAN, S_QNAN_PAYLOAD, S_QNAN, 0),
        // 1 - 2^-25 is halfway between 1 - 2^-24 (odd) and 1.0 (even).
        (RNE, S_ONE, 0x3300_0000, S_ONE, NX),
        (RTZ, S_ONE, 0x3300_0000, 0x3f7f_ffff, NX),
        (RDN, S_ONE, 0x3300_0000, 0x3f7f_ffff, NX),
        (RUP, S_ONE, 0x3300_0000, S_ONE, NX),
        (RMM, S_ONE, 0x3300_0000, S_ONE, NX),
        (RNE, S_MAX, S_NEG_MAX, S_INF, OF | NX),
        (RTZ, S_MAX, S_NEG_MAX, S_MAX, OF | NX),
        (RUP, S_NEG_MAX, S_MAX, S_NEG_MAX, OF | NX),
        (ANY, S_MIN_NORMAL, S_MIN_SUB, S_MAX_SUB, 0),
    ]);
}

#[test]
fn add_and_subtract_double() {
    check_binary::<u64>(asm::fadd_d, &[
        (ANY, D_ONE, D_TWO, D_THREE, 0),
        (RNE, D_ONE, D_NEG_ONE, D_ZERO, 0),
        (RDN, D_ONE, D_NEG_ONE, D_NEG_ZERO, 0),
        (RNE, D_ZERO, D_NEG_ZERO, D_ZERO, 0),
        (RDN, D_ZERO, D_NEG_ZERO, D_NEG_ZERO, 0),
        (ANY, D_NEG_ZERO, D_NEG_ZERO, D_NEG_ZERO, 0),
        (ANY, D_INF, D_NEG_INF, D_QNAN, NV),
        (ANY, D_NEG_INF, D_ONE, D_NEG_INF, 0),
        (ANY, D_QNAN_PAYLOAD, D_ONE, D_QNAN, 0),
        (ANY, D_NEG_QNAN, D_ONE, D_QNAN, 0),
        (ANY, D_SNAN, D_ONE, D_QNAN, NV),
        (ANY, D_ONE, D_NEG_SNAN, D_QNAN, NV),
        // A boxed single is a negative quiet NaN to a double operation.
        (ANY, 0xffff_ffff_3f80_0000, D_ONE, D_QNAN, 0),
        (RNE, D_ONE, D_2M53, D_ONE, NX),
        (RTZ, D_ONE, D_2M53, D_ONE, NX),
        (RDN, D_ONE, D_2M53, D_ONE, NX),
        (RUP, D_ONE, D_2M53, 0x3ff0_0000_0000_0001, NX),
        (RMM, D_ONE, D_2M53, 0x3ff0_0000_0000_0001, NX),
        (RNE, 0x3ff0_0000_0000_0001, D_2M53, 0x3ff0_0000_0000_0002, NX),
        (RTZ, 0x3ff0_0000_0000_0001, D_2M53, 0x3ff0_0000_0000_0001, NX),
        (RDN, 0x3ff0_0000_0000_0001, D_2M53, 0x3ff0_0000_0000_0001, NX),
        (RUP, 0x3ff0_0000_0000_0001, D_2M53, 0x3ff0_0000_0000_0002, NX),
        (RMM, 0x3ff0_0000_0000_0001, D_2M53, 0x3ff0_0000_0000_0002, NX),
        (RNE, D_NEG_ONE, 0xbca0_0000_0000_0000, D_NEG_ONE, NX),
        (RDN, D_NEG_ONE, 0xbca0_0000_0000_0000, 0xbff0_0000_0000_0001, NX),
        (RMM, D_NEG_ONE, 0xbca0_0000_0000_0000, 0xbff0_0000_0000_0001, NX),
        (RNE, D_MAX, D_MAX, D_INF, OF | NX),
        (RTZ, D_MAX, D_MAX, D_MAX, OF | NX),
        (RDN, D_MAX, D_MAX, D_MAX, OF | NX),
        (RUP, D_MAX, D_MAX, D_INF, OF | NX),
        (RMM, D_MAX, D_MAX, D_INF, OF | NX),
        (RNE, D_NEG_MAX, D_NEG_MAX, D_NEG_INF, OF | NX),
        (RTZ, D_NEG_MAX, D_NEG_MAX, D_NEG_MAX, OF | NX),
        (RDN, D_NEG_MAX, D_NEG_MAX, D_NEG_INF, OF | NX),
        (RUP, D_NEG_MAX, D_NEG_MAX, D_NEG_MAX, OF | NX),
        (RMM, D_NEG_MAX, D_NEG_MAX, D_NEG_INF, OF | NX),
        (ANY, D_MIN_SUB, D_MIN_SUB, 0x0000_0000_0000_0002, 0),
        (ANY, D_MAX_SUB, D_MIN_SUB, D_MIN_NORMAL, 0),
    ]);
    check_binary::<u64>(asm::fsub_d, &[
        (ANY, D_THREE, D_ONE, D_TWO, 0),
        (RNE, D_ONE, D_ONE, D_ZERO, 0),
        (RDN, D_ONE, D_ONE, D_NEG_ZERO, 0),
        (ANY, D_NEG_ZERO, D_ZERO, D_NEG_ZERO, 0),
        (ANY, D_INF, D_INF, D_QNAN, NV),
        (ANY, D_INF, D_NEG_INF, D_INF, 0),
        (ANY, D_SNAN, D_ZERO, D_QNAN, NV),
        (ANY, D_MIN_NORMAL, D_MIN_SUB, D_MAX_SUB, 0),
        (RNE, D_ONE, D_NEG_ONE, D_TWO, 0),
        (RTZ, D_NEG_MAX, D_MAX, D_NEG_MAX, OF | NX),
        (RNE, D_NEG_MAX, D_MAX, D_NEG_INF, OF | NX),
    ]);
}

#[test]
fn multiply() {
    check_binary::<u32>(asm::fmul_s, &[
        (ANY, S_TWO, S_THREE, S_SIX, 0),
        (ANY, S_NEG_TWO, S_THREE, 0xc0c0_0000, 0),
        (ANY, S_NEG_ZERO, S_THREE, S_NEG_ZERO, 0),
        (ANY, S_NEG_ONE, S_ZERO, S_NEG_ZERO, 0),
        (ANY, S_NEG_ZERO, S_NEG_ZERO, S_ZERO, 0),
        (ANY, S_NEG_INF, S_NEG_TWO, S_INF, 0),
        (ANY, S_INF, S_NEG_MIN_SUB, S_NEG_INF, 0),
        (ANY, S_INF, S_ZERO, S_QNAN, NV),
        (ANY, S_NEG_ZERO, S_INF, S_QNAN, NV),
        (ANY, S_QNAN_PAYLOAD, S_ZERO, S_QNAN, 0),
        (ANY, S_SNAN, S_ONE, S_QNAN, NV),
        // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46.
        (RNE, 0x3f80_0001, 0x3f80_0001, 0x3f80_0002, NX),
        (RTZ, 0x3f80_0001, 0x3f80_0001, 0x3f80_0002, NX),
        (RUP, 0x3f80_0001, 0x3f80_0001, 0x3f80_0003, NX),
        (RNE, S_MAX, S_TWO, S_INF, OF | NX),
        (RTZ, S_MAX, S_TWO, S_MAX, OF | NX),
        (RDN, S_MAX, S_TWO, S_MAX, OF | NX),
        (RUP, S_MAX, S_TWO, S_INF, OF | NX),
        (RMM, S_MAX, S_TWO, S_INF, OF | NX),
        (RNE, S_NEG_MAX, S_TWO, S_NEG_INF, OF | NX),
        (RTZ, S_NEG_MAX, S_TWO, S_NEG_MAX, OF | NX),
        (RDN, S_NEG_MAX, S_TWO, S_NEG_INF, OF | NX),
        (RUP, S_NEG_MAX, S_TWO, S_NEG_MAX, OF | NX),
        (RMM, S_NEG_MAX, S_TWO, S_NEG_INF, OF | NX),
        // A subnormal result that is exact raises nothing.
        (ANY, S_MIN_NORMAL, S_HALF, 0x0040_0000, 0),
        // A subnormal input (2^-149 * 2^127 = 2^-22).
        (ANY, S_MIN_SUB, 0x7f00_0000, 0x3480_0000, 0),
        // 2^-150 is halfway between 0 and the smallest subnormal: tiny and inexact, so UF.
        (RNE, S_MIN_SUB, S_HALF, S_ZERO, UF | NX),
        (RTZ, S_MIN_SUB, S_HALF, S_ZERO, UF | NX),
        (RDN, S_MIN_SUB, S_HALF, S_ZERO, UF | NX),
        (RUP, S_MIN_SUB, S_HALF, S_MIN_SUB, UF | NX),
        (RMM, S_MIN_SUB, S_HALF, S_MIN_SUB, UF | NX),
        (RNE, S_NEG_MIN_SUB, S_HALF, S_NEG_ZERO, UF | NX),
        (RTZ, S_NEG_MIN_SUB, S_HALF, S_NEG_ZERO, UF | NX),
        (RDN, S_NEG_MIN_SUB, S_HALF, S_NEG_MIN_SUB, UF | NX),
        (RUP, S_NEG_MIN_SUB, S_HALF, S_NEG_ZERO, UF | NX),
        (RMM, S_NEG_MIN_SUB, S_HALF, S_NEG_MIN_SUB, UF | NX),
        // 18631 * 2^-14 times 1801 * 2^-137 (a subnormal) is exactly (2^25 - 1) * 2^-151 = 2^-126 - 2^-151: halfway
        // between the largest subnormal and 2^-126 at 24 bits. Tininess is detected after rounding: where it
        // rounds to 2^-126 the result is not tiny and only NX is raised.
        (RNE, 0x3f91_8e00, 0x0070_9000, S_MIN_NORMAL, NX),
        (RTZ, 0x3f91_8e00, 0x0070_9000, S_MAX_SUB, UF | NX),
        (RDN, 0x3f91_8e00, 0x0070_9000, S_MAX_SUB, UF | NX),
        (RUP, 0x3f91_8e00, 0x0070_9000, S_MIN_NORMAL, NX),
        (RMM, 0x3f91_8e00, 0x0070_9000, S_MIN_NORMAL, NX),
    ]);
    check_binary::<u64>(asm::fmul_d, &[
        (ANY, D_TWO, D_THREE, D_SIX, 0),
        (ANY, D_NEG_ZERO, D_THREE, D_NEG_ZERO, 0),
        (ANY, D_INF, D_ZERO, D_QNAN, NV),
        (ANY, D_NEG_INF, D_NEG_TWO, D_INF, 0),
        (ANY, D_SNAN, D_ONE, D_QNAN, NV),
        (ANY, D_QNAN_PAYLOAD, D_INF, D_QNAN, 0),
        (RNE, 0x3ff0_0000_0000_0001, 0x3ff0_0000_0000_0001, 0x3ff0_0000_0000_0002, NX),
        (RUP, 0x3ff0_0000_0000_0001, 0x3ff0_0000_0000_0001, 0x3ff0_0000_0000_0003, NX),
        (RNE, D_MAX, D_TWO, D_INF, OF | NX),
        (RTZ, D_MAX, D_TWO, D_MAX, OF | NX),
        (RDN, D_MAX, D_TWO, D_MAX, OF | NX),
        (RUP, D_MAX, D_TWO, D_INF, OF | NX),
        (RMM, D_MAX, D_TWO, D_INF, OF | NX),
        (RDN, D_NEG_MAX, D_TWO, D_NEG_INF, OF | NX),
        (RUP, D_NEG_MAX, D_TWO, D_NEG_MAX, OF | NX),
        (ANY, D_MIN_NORMAL, D_HALF, 0x0008_0000_0000_0000, 0),
        (RNE, D_MIN_SUB, D_HALF, D_ZERO, UF | NX),
        (RTZ, D_MIN_SUB, D_HALF, D_ZERO, UF | NX),
        (RDN, D_MIN_SUB, D_HALF, D_ZERO, UF | NX),
        (RUP, D_MIN_SUB, D_HALF, D_MIN_SUB, UF | NX),
        (RMM, D_MIN_SUB, D_HALF, D_MIN_SUB, UF | NX),
        (RDN, D_NEG_MIN_SUB, D_HALF, D_NEG_MIN_SUB, UF | NX),
    ]);
}

#[test]
fn divide() {
    check_binary::<u32>(asm::fdiv_s, &[
        (ANY, S_SIX, S_THREE, S_TWO, 0),
        (ANY, S_ONE, S_TWO, S_HALF, 0),
        // 1/3 = 1.0101...b * 2^-2: the bits after the 23rd are 1010..., above half.
        (RNE, S_ONE, S_THREE, 0x3eaa_aaab, NX),
        (RTZ, S_ONE, S_THREE, 0x3eaa_aaaa, NX),
        (RDN, S_ONE, S_THREE, 0x3eaa_aaaa, NX),
        (RUP, S_ONE, S_THREE, 0x3eaa_aaab, NX),
        (RMM, S_ONE, S_THREE, 0x3eaa_aaab, NX),
        (RNE, S_NEG_ONE, S_THREE, 0xbeaa_aaab, NX),
        (RTZ, S_NEG_ONE, S_THREE, 0xbeaa_aaaa, NX),
        (RDN, S_NEG_ONE, S_THREE, 0xbeaa_aaab, NX),
        (RUP, S_NEG_ONE, S_THREE, 0xbeaa_aaaa, NX),
        (RMM, S_NEG_ONE, S_THREE, 0xbeaa_aaab, NX),
        // Division of a finite non-zero number by zero: a signed infinity and DZ.
        (ANY, S_ONE, S_ZERO, S_INF, DZ),
        (ANY, S_NEG_ONE, S_ZERO, S_NEG_INF, DZ),
        (ANY, S_ONE, S_NEG_ZERO, S_NEG_INF, DZ),
        (ANY, S_NEG_MIN_SUB, S_NEG_ZERO, S_INF, DZ),
        // Not DZ: 0/0 and inf/inf are invalid, inf/0 is an exact infinity, NaN/0 a NaN.
        (ANY, S_ZERO, S_ZERO, S_QNAN, NV),
        (ANY, S_NEG_ZERO, S_ZERO, S_QNAN, NV),
        (ANY, S_INF, S_NEG_INF, S_QNAN, NV),
        (ANY, S_INF, S_ZERO, S_INF, 0),
        (ANY, S_NEG_INF, S_ZERO, S_NEG_INF, 0),
        (ANY, S_ZERO, S_INF, S_ZERO, 0),
        (ANY, S_ONE, S_NEG_INF, S_NEG_ZERO, 0),
        (ANY, S_NEG_ZERO, S_ONE, S_NEG_ZERO, 0),
        (ANY, S_QNAN_PAYLOAD, S_ZERO, S_QNAN, 0),
        (ANY, S_SNAN, S_ZERO, S_QNAN, NV),
        (ANY, S_ONE, S_SNAN, S_QNAN, NV),
        (RNE, S_MAX, S_HALF, S_INF, OF | NX),
        (RTZ, S_MAX, S_HALF, S_MAX, OF | NX),
        (RNE, S_MIN_SUB, S_TWO, S_ZERO, UF | NX),
        (RUP, S_MIN_SUB, S_TWO, S_MIN_SUB, UF | NX),
        // A subnormal divisor.
        (ANY, S_MIN_NORMAL, 0x0040_0000, S_TWO, 0),
    ]);
    check_binary::<u64>(asm::fdiv_d, &[
        (ANY, D_SIX, D_THREE, D_TWO, 0),
        // 1/3: the bits after the 52nd are 0101..., below half.
        (RNE, D_ONE, D_THREE, 0x3fd5_5555_5555_5555, NX),
        (RTZ, D_ONE, D_THREE, 0x3fd5_5555_5555_5555, NX),
        (RDN, D_ONE, D_THREE, 0x3fd5_5555_5555_5555, NX),
        (RUP, D_ONE, D_THREE, 0x3fd5_5555_5555_5556, NX),
        (RMM, D_ONE, D_THREE, 0x3fd5_5555_5555_5555, NX),
        (RDN, D_NEG_ONE, D_THREE, 0xbfd5_5555_5555_5556, NX),
        (ANY, D_ONE, D_ZERO, D_INF, DZ),
        (ANY, D_ONE, D_NEG_ZERO, D_NEG_INF, DZ),
        (ANY, D_ZERO, D_ZERO, D_QNAN, NV),
        (ANY, D_INF, D_INF, D_QNAN, NV),
        (ANY, D_INF, D_ZERO, D_INF, 0),
        (ANY, D_QNAN, D_ZERO, D_QNAN, 0),
        (ANY, D_SNAN, D_ONE, D_QNAN, NV),
        (RNE, D_MAX, D_HALF, D_INF, OF | NX),
        (RTZ, D_MAX, D_HALF, D_MAX, OF | NX),
        (RNE, D_MIN_SUB, D_TWO, D_ZERO, UF | NX),
        (RMM, D_MIN_SUB, D_TWO, D_MIN_SUB, UF | NX),
    ]);
}

#[test]
fn square_root() {
    check_unary::<u32, u32>(asm::fsqrt_s, &[
        (ANY, S_FOUR, S_TWO, 0),
        (ANY, S_ZERO, S_ZERO, 0),
        (ANY, S_NEG_ZERO, S_NEG_ZERO, 0),
        (ANY, S_INF, S_INF, 0),
        // The square root of anything below zero is invalid.
        (ANY, S_NEG_ONE, S_QNAN, NV),
        (ANY, S_NEG_INF, S_QNAN, NV),
        (ANY, S_NEG_MIN_SUB, S_QNAN, NV),
        (ANY, S_QNAN_PAYLOAD, S_QNAN, 0),
        (ANY, S_NEG_QNAN, S_QNAN, 0),
        (ANY, S_SNAN, S_QNAN, NV),
        // sqrt(2) = 1.0110101 0000 0100 1111 0011 | 0011...b
        (RNE, S_TWO, 0x3fb5_04f3, NX),
        (RTZ, S_TWO, 0x3fb5_04f3, NX),
        (RDN, S_TWO, 0x3fb5_04f3, NX),
        (RUP, S_TWO, 0x3fb5_04f4, NX),
        (RMM, S_TWO, 0x3fb5_04f3, NX),
        // Subnormal inputs: sqrt(2^-148) = 2^-74 exactly, sqrt(2^-149) = sqrt(2) * 2^-75.
        (ANY, 0x0000_0002, 0x1a80_0000, 0),
        (RNE, S_MIN_SUB, 0x1a35_04f3, NX),
        (RUP, S_MIN_SUB, 0x1a35_04f4, NX),
        // sqrt(MAX) is just below 2^64 - 2^39, the midpoint of 2^64 - 2^40 and 2^64.
        (RNE, S_MAX, 0x5f7f_ffff, NX),
        (RUP, S_MAX, 0x5f80_0000, NX),
        (RMM, S_MAX, 0x5f7f_ffff, NX),
    ]);
    check_unary::<u64, u64>(asm::fsqrt_d, &[
        (ANY, D_FOUR, D_TWO, 0),
        (ANY, D_NEG_ZERO, D_NEG_ZERO, 0),
        (ANY, D_INF, D_INF, 0),
        (ANY, D_NEG_ONE, D_QNAN, NV),
        (ANY, D_NEG_INF, D_QNAN, NV),
        (ANY, D_SNAN, D_QNAN, NV),
        (ANY, D_QNAN_PAYLOAD, D_QNAN, 0),
        // sqrt(2): the bits after the 52nd are 1001..., above half.
        (RNE, D_TWO, 0x3ff6_a09e_667f_3bcd, NX),
        (RTZ, D_TWO, 0x3ff6_a09e_667f_3bcc, NX),
        (RDN, D_TWO, 0x3ff6_a09e_667f_3bcc, NX),
        (RUP, D_TWO, 0x3ff6_a09e_667f_3bcd, NX),
        (RMM, D_TWO, 0x3ff6_a09e_667f_3bcd, NX),
        // sqrt(2^-1074) = 2^-537.
        (ANY, D_MIN_SUB, 0x1e60_0000_0000_0000, 0),
    ]);
}

const FMA_S: [Ternary; 4] = [asm::fmadd_s, asm::fmsub_s, asm::fnmsub_s, asm::fnmadd_s];
const FMA_D: [Ternary; 4] = [asm::fmadd_d, asm::fmsub_d, asm::fnmsub_d, asm::fnmadd_d];

#[test]
fn fused_multiply_add_single() {
    // fmadd = a*b + c, fmsub = a*b - c, fnmsub = -(a*b) + c, fnmadd = -(a*b) - c: the product is negated, not the
    // sum, which decides the sign of exact zeros.
    let nan_nv = [(S_QNAN, NV); 4];
    check_fma::<u32>(FMA_S, &[
        (ANY, S_TWO, S_THREE, S_ONE, [(S_SEVEN, 0), (S_FIVE, 0), (S_NEG_FIVE, 0), (S_NEG_SEVEN, 0)]),
        (ANY, S_NEG_TWO, S_THREE, S_ONE, [(S_NEG_FIVE, 0), (S_NEG_SEVEN, 0), (S_SEVEN, 0), (S_FIVE, 0)]),
        // 1*1 -/+ 1 = 0: +0 when rounding to nearest, -0 when rounding down (a MIPS-style negated sum would give
        // -0 for fnmsub and fnmadd in RNE).
        (RNE, S_ONE, S_ONE, S_ONE, [(S_TWO, 0), (S_ZERO, 0), (S_ZERO, 0), (S_NEG_TWO, 0)]),
        (RDN, S_ONE, S_ONE, S_ONE, [(S_TWO, 0), (S_NEG_ZERO, 0), (S_NEG_ZERO, 0), (S_NEG_TWO, 0)]),
        (RNE, S_ONE, S_ONE, S_NEG_ONE, [(S_ZERO, 0), (S_TWO, 0), (S_NEG_TWO, 0), (S_ZERO, 0)]),
        // Signed zero products and addends.
        (RNE, S_ONE, S_ZERO, S_NEG_ZERO, [(S_ZERO, 0), (S_ZERO, 0), (S_NEG_ZERO, 0), (S_ZERO, 0)]),
        (RDN, S_ONE, S_ZERO, S_NEG_ZERO, [(S_NEG_ZERO, 0), (S_ZERO, 0), (S_NEG_ZERO, 0), (S_NEG_ZERO, 0)]),
        (RNE, S_ONE, S_NEG_ZERO, S_NEG_ZERO, [(S_NEG_ZERO, 0), (S_ZERO, 0), (S_ZERO, 0), (S_ZERO, 0)]),
        // inf * 0 is invalid even with a quiet NaN addend (the specification requires NV here).
        (ANY, S_INF, S_ZERO, S_QNAN, nan_nv),
        (ANY, S_NEG_ZERO, S_INF, S_QNAN_PAYLOAD, nan_nv),
        (ANY, S_ZERO, S_NEG_INF, S_ONE, nan_nv),
        // inf * 1 meets an infinite addend: invalid where they cancel.
        (ANY, S_INF, S_ONE, S_NEG_INF, [(S_QNAN, NV), (S_INF, 0), (S_NEG_INF, 0), (S_QNAN, NV)]),
        (ANY, S_INF, S_ONE, S_ONE, [(S_INF, 0), (S_INF, 0), (S_NEG_INF, 0), (S_NEG_INF, 0)]),
        // NaN inputs.
        (ANY, S_QNAN_PAYLOAD, S_ONE, S_ONE, [(S_QNAN, 0); 4]),
        (ANY, S_ONE, S_NEG_QNAN, S_INF, [(S_QNAN, 0); 4]),
        (ANY, S_ONE, S_ONE, S_SNAN, nan_nv),
        (ANY, S_SNAN, S_ONE, S_QNAN, nan_nv),
        // One rounding: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 exactly, so adding -(1 + 2^-11) leaves 2^-24 (a separately
        // rounded product would be 1 + 2^-11 and the sum 0).
        (RNE, 0x3f80_0800, 0x3f80_0800, 0xbf80_1000, [(S_2M24, 0), (0x4000_1000, NX), (0xc000_1000, NX), (S_NEG_2M24, 0)]),
        (RUP, 0x3f80_0800, 0x3f80_0800, 0xbf80_1000, [(S_2M24, 0), (0x4000_1001, NX), (0xc000_1000, NX), (S_NEG_2M24, 0)]),
        // Overflow of the fused result.
        (RNE, S_MAX, S_TWO, S_ZERO, [(S_INF, OF | NX), (S_INF, OF | NX), (S_NEG_INF, OF | NX), (S_NEG_INF, OF | NX)]),
        (RTZ, S_MAX, S_TWO, S_ZERO, [(S_MAX, OF | NX), (S_MAX, OF | NX), (S_NEG_MAX, OF | NX), (S_NEG_MAX, OF | NX)]),
    ]);
}

#[test]
fn fused_multiply_add_double() {
    let nan_nv = [(D_QNAN, NV); 4];
    check_fma::<u64>(FMA_D, &[
        (ANY, D_TWO, D_THREE, D_ONE, [(D_SEVEN, 0), (D_FIVE, 0), (D_NEG_FIVE, 0), (D_NEG_SEVEN, 0)]),
        (RNE, D_ONE, D_ONE, D_ONE, [(D_TWO, 0), (D_ZERO, 0), (D_ZERO, 0), (D_NEG_TWO, 0)]),
        (RDN, D_ONE, D_ONE, D_ONE, [(D_TWO, 0), (D_NEG_ZERO, 0), (D_NEG_ZERO, 0), (D_NEG_TWO, 0)]),
        (ANY, D_INF, D_ZERO, D_QNAN, nan_nv),
        (ANY, D_ZERO, D_INF, D_QNAN_PAYLOAD, nan_nv),
        (ANY, D_INF, D_ONE, D_NEG_INF, [(D_QNAN, NV), (D_INF, 0), (D_NEG_INF, 0), (D_QNAN, NV)]),
        (ANY, D_ONE, D_ONE, D_SNAN, nan_nv),
        (ANY, D_NEG_QNAN, D_ONE, D_ONE, [(D_QNAN, 0); 4]),
        // (1 + 2^-27)^2 - (1 + 2^-26) = 2^-54 exactly.
        (
            RNE,
            0x3ff0_0000_0200_0000,
            0x3ff0_0000_0200_0000,
            0xbff0_0000_0400_0000,
            [(0x3c90_0000_0000_0000, 0), (0x4000_0000_0400_0000, NX), (0xc000_0000_0400_0000, NX), (0xbc90_0000_0000_0000, 0)],
        ),
        (RNE, D_MAX, D_TWO, D_ZERO, [(D_INF, OF | NX), (D_INF, OF | NX), (D_NEG_INF, OF | NX), (D_NEG_INF, OF | NX)]),
    ]);
}

// ------------------------------------------------------------------------------------------------------------
// Min, max, comparisons, classification
// ------------------------------------------------------------------------------------------------------------

#[test]
fn min_and_max() {
    // (a, b, min, max, flags): -0 is below +0; one NaN gives the other operand, two give the canonical NaN;
    // signaling NaNs raise NV even when the result is a number.
    let singles: &[(u32, u32, u32, u32, u8)] = &[
        (S_ONE, S_TWO, S_ONE, S_TWO, 0),
        (S_TWO, S_ONE, S_ONE, S_TWO, 0),
        (S_NEG_TWO, S_NEG_ONE, S_NEG_TWO, S_NEG_ONE, 0),
        (S_ZERO, S_NEG_ZERO, S_NEG_ZERO, S_ZERO, 0),
        (S_NEG_ZERO, S_ZERO, S_NEG_ZERO, S_ZERO, 0),
        (S_NEG_INF, S_MAX, S_NEG_INF, S_MAX, 0),
        (S_INF, S_NEG_INF, S_NEG_INF, S_INF, 0),
        (S_MIN_SUB, S_ZERO, S_ZERO, S_MIN_SUB, 0),
        (S_NEG_MIN_SUB, S_NEG_ZERO, S_NEG_MIN_SUB, S_NEG_ZERO, 0),
        (S_ONE, S_QNAN, S_ONE, S_ONE, 0),
        (S_QNAN_PAYLOAD, S_NEG_ONE, S_NEG_ONE, S_NEG_ONE, 0),
        (S_NEG_QNAN, S_NEG_INF, S_NEG_INF, S_NEG_INF, 0),
        (S_QNAN_PAYLOAD, S_NEG_QNAN, S_QNAN, S_QNAN, 0),
        (S_SNAN, S_ONE, S_ONE, S_ONE, NV),
        (S_ONE, S_NEG_SNAN, S_ONE, S_ONE, NV),
        (S_SNAN, S_QNAN, S_QNAN, S_QNAN, NV),
        (S_SNAN, S_SNAN, S_QNAN, S_QNAN, NV),
    ];
    let min_s: Vec<_> = singles.iter().map(|&(a, b, min, _, fl)| (a, b, min, fl)).collect();
    let max_s: Vec<_> = singles.iter().map(|&(a, b, _, max, fl)| (a, b, max, fl)).collect();
    check_fixed(asm::fmin_s, &min_s);
    check_fixed(asm::fmax_s, &max_s);
    let doubles: &[(u64, u64, u64, u64, u8)] = &[
        (D_ONE, D_TWO, D_ONE, D_TWO, 0),
        (D_TWO, D_NEG_ONE, D_NEG_ONE, D_TWO, 0),
        (D_ZERO, D_NEG_ZERO, D_NEG_ZERO, D_ZERO, 0),
        (D_NEG_ZERO, D_ZERO, D_NEG_ZERO, D_ZERO, 0),
        (D_NEG_INF, D_INF, D_NEG_INF, D_INF, 0),
        (D_MIN_SUB, D_NEG_MIN_SUB, D_NEG_MIN_SUB, D_MIN_SUB, 0),
        (D_ONE, D_QNAN, D_ONE, D_ONE, 0),
        (D_QNAN_PAYLOAD, D_NEG_ONE, D_NEG_ONE, D_NEG_ONE, 0),
        (D_QNAN_PAYLOAD, D_NEG_QNAN, D_QNAN, D_QNAN, 0),
        (D_SNAN, D_ONE, D_ONE, D_ONE, NV),
        (D_TWO, D_NEG_SNAN, D_TWO, D_TWO, NV),
        (D_QNAN, D_SNAN, D_QNAN, D_QNAN, NV),
        // A boxed single is a NaN to the double operations.
        (0xffff_ffff_3f80_0000, D_TWO, D_TWO, D_TWO, 0),
    ];
    let min_d: Vec<_> = doubles.iter().map(|&(a, b, min, _, fl)| (a, b, min, fl)).collect();
    let max_d: Vec<_> = doubles.iter().map(|&(a, b, _, max, fl)| (a, b, max, fl)).collect();
    check_fixed(asm::fmin_d, &min_d);
    check_fixed(asm::fmax_d, &max_d);
}

/// `(a, b, [feq, flt, fle], [their flags])`
type CompareCase<T> = (T, T, [u64; 3], [u8; 3]);

fn check_compare<T: Fp>(ops: [Fixed; 3], cases: &[CompareCase<T>]) {
    let mut failures = Vec::new();
    for &(a, b, wants, flags) in cases {
        for ((f, want), fl) in ops.into_iter().zip(wants).zip(flags) {
            let got = run(f(A0, FA1, FA2), 0, &[(FA1, a.reg()), (FA2, b.reg())], &[], Dest::X);
            compare(&mut failures, format!("{} {a:#x}, {b:#x}", f(0, 0, 0).op.name()), Ok(got), want, fl);
        }
    }
    report(failures);
}

#[test]
fn comparisons_quiet_and_signaling() {
    // feq is quiet (NV only for signaling NaNs), flt and fle signal on any NaN; a NaN compares false.
    let quiet = [0, NV, NV];
    let signaling = [NV, NV, NV];
    check_compare::<u32>([asm::feq_s, asm::flt_s, asm::fle_s], &[
        (S_ONE, S_ONE, [1, 0, 1], [0; 3]),
        (S_ONE, S_TWO, [0, 1, 1], [0; 3]),
        (S_TWO, S_ONE, [0, 0, 0], [0; 3]),
        (S_NEG_TWO, S_NEG_ONE, [0, 1, 1], [0; 3]),
        (S_ZERO, S_NEG_ZERO, [1, 0, 1], [0; 3]),
        (S_NEG_ZERO, S_ZERO, [1, 0, 1], [0; 3]),
        (S_NEG_INF, S_INF, [0, 1, 1], [0; 3]),
        (S_INF, S_INF, [1, 0, 1], [0; 3]),
        (S_MAX, S_INF, [0, 1, 1], [0; 3]),
        (S_MIN_SUB, S_MIN_NORMAL, [0, 1, 1], [0; 3]),
        (S_NEG_MIN_SUB, S_MIN_SUB, [0, 1, 1], [0; 3]),
        (S_QNAN, S_ONE, [0, 0, 0], quiet),
        (S_ONE, S_QNAN_PAYLOAD, [0, 0, 0], quiet),
        (S_QNAN, S_QNAN, [0, 0, 0], quiet),
        (S_NEG_QNAN, S_NEG_INF, [0, 0, 0], quiet),
        (S_SNAN, S_ONE, [0, 0, 0], signaling),
        (S_ONE, S_NEG_SNAN, [0, 0, 0], signaling),
        (S_SNAN, S_SNAN, [0, 0, 0], signaling),
    ]);
    check_compare::<u64>([asm::feq_d, asm::flt_d, asm::fle_d], &[
        (D_ONE, D_ONE, [1, 0, 1], [0; 3]),
        (D_ONE, D_TWO, [0, 1, 1], [0; 3]),
        (D_TWO, D_ONE, [0, 0, 0], [0; 3]),
        (D_ZERO, D_NEG_ZERO, [1, 0, 1], [0; 3]),
        (D_NEG_INF, D_NEG_MAX, [0, 1, 1], [0; 3]),
        (D_NEG_MIN_SUB, D_ZERO, [0, 1, 1], [0; 3]),
        (D_QNAN, D_ONE, [0, 0, 0], quiet),
        (D_ONE, D_NEG_QNAN, [0, 0, 0], quiet),
        (D_SNAN, D_ONE, [0, 0, 0], signaling),
        (D_QNAN, D_NEG_SNAN, [0, 0, 0], signaling),
        // Boxed singles are NaNs to double comparisons.
        (0xffff_ffff_3f80_0000, 0xffff_ffff_3f80_0000, [0, 0, 0], quiet),
    ]);
}

#[test]
fn classify_all_ten_classes() {
    // Bit 0 -inf, 1 negative normal, 2 negative subnormal, 3 -0, 4 +0, 5 positive subnormal, 6 positive normal,
    // 7 +inf, 8 signaling NaN, 9 quiet NaN. Classification raises no flag, not even for a signaling NaN.
    let singles: &[(u64, u64)] = &[
        (S_NEG_INF.reg(), 1 << 0),
        (S_NEG_ONE.reg(), 1 << 1),
        (S_NEG_MAX.reg(), 1 << 1),
        (0x8080_0000u32.reg(), 1 << 1),
        (S_NEG_MIN_SUB.reg(), 1 << 2),
        (0x807f_ffffu32.reg(), 1 << 2),
        (S_NEG_ZERO.reg(), 1 << 3),
        (S_ZERO.reg(), 1 << 4),
        (S_MIN_SUB.reg(), 1 << 5),
        (S_MAX_SUB.reg(), 1 << 5),
        (S_MIN_NORMAL.reg(), 1 << 6),
        (S_MAX.reg(), 1 << 6),
        (S_INF.reg(), 1 << 7),
        (S_SNAN.reg(), 1 << 8),
        (S_NEG_SNAN.reg(), 1 << 8),
        (0x7fbf_ffffu32.reg(), 1 << 8),
        (S_QNAN.reg(), 1 << 9),
        (S_NEG_QNAN.reg(), 1 << 9),
        (0x7fff_ffffu32.reg(), 1 << 9),
        // Not NaN-boxed: the canonical NaN.
        (UNBOXED_ONE, 1 << 9),
        (0x0000_0000_7f80_0001, 1 << 9),
    ];
    let doubles: &[(u64, u64)] = &[
        (D_NEG_INF, 1 << 0),
        (D_NEG_ONE, 1 << 1),
        (D_NEG_MAX, 1 << 1),
        (D_NEG_MIN_SUB, 1 << 2),
        (0x800f_ffff_ffff_ffff, 1 << 2),
        (D_NEG_ZERO, 1 << 3),
        (D_ZERO, 1 << 4),
        (D_MIN_SUB, 1 << 5),
        (D_MAX_SUB, 1 << 5),
        (D_MIN_NORMAL, 1 << 6),
        (D_ONE, 1 << 6),
        (D_INF, 1 << 7),
        (D_SNAN, 1 << 8),
        (D_NEG_SNAN, 1 << 8),
        (0x7ff7_ffff_ffff_ffff, 1 << 8),
        (D_QNAN, 1 << 9),
        (D_NEG_QNAN, 1 << 9),
        (D_QNAN_PAYLOAD, 1 << 9),
        // A boxed single is a negative quiet NaN as a double.
        (S_ONE.reg(), 1 << 9),
    ];
    let mut failures = Vec::new();
    for (f, cases) in [(asm::fclass_s as fn(u8, u8) -> Insn, singles), (asm::fclass_d, doubles)] {
        for &(v, want) in cases {
            let got = run(f(A0, FA1), 0, &[(FA1, v)], &[], Dest::X);
            compare(&mut failures, format!("{} {v:#x}", f(0, 0).op.name()), Ok(got), want, 0);
        }
    }
    report(failures);
}

// ------------------------------------------------------------------------------------------------------------
// Conversions
// ------------------------------------------------------------------------------------------------------------

/// The largest single below 2^32 (4294967040), below 2^31 (2147483520), below 2^64 and below 2^63.
const S_BELOW_2P32: u32 = 0x4f7f_ffff;
const S_BELOW_2P31: u32 = 0x4eff_ffff;
const S_BELOW_2P64: u32 = 0x5f7f_ffff;
const S_BELOW_2P63: u32 = 0x5eff_ffff;
/// 3e9 = 0xb2d0_5e00 (exactly representable): above 2^31, below 2^32.
const S_3E9: u32 = 0x4f32_d05e;

#[test]
fn single_to_integer() {
    let nan_w = 0x7fff_ffff; // 2^31 - 1 for NaN and +inf
    check_to_int::<u32>(asm::fcvt_w_s, &[
        (ANY, S_ZERO, 0, 0),
        (ANY, S_NEG_ZERO, 0, 0),
        (ANY, S_ONE, 1, 0),
        // Word results are sign-extended to 64 bits.
        (ANY, S_NEG_ONE, NEG1, 0),
        (RNE, S_ONE_HALF, 2, NX),
        (RTZ, S_ONE_HALF, 1, NX),
        (RDN, S_ONE_HALF, 1, NX),
        (RUP, S_ONE_HALF, 2, NX),
        (RMM, S_ONE_HALF, 2, NX),
        (RNE, S_TWO_HALF, 2, NX),
        (RTZ, S_TWO_HALF, 2, NX),
        (RDN, S_TWO_HALF, 2, NX),
        (RUP, S_TWO_HALF, 3, NX),
        (RMM, S_TWO_HALF, 3, NX),
        (RNE, S_NEG_TWO_HALF, (-2i64) as u64, NX),
        (RTZ, S_NEG_TWO_HALF, (-2i64) as u64, NX),
        (RDN, S_NEG_TWO_HALF, (-3i64) as u64, NX),
        (RUP, S_NEG_TWO_HALF, (-2i64) as u64, NX),
        (RMM, S_NEG_TWO_HALF, (-3i64) as u64, NX),
        (RNE, S_NEG_HALF, 0, NX),
        (RTZ, S_NEG_HALF, 0, NX),
        (RDN, S_NEG_HALF, NEG1, NX),
        (RUP, S_NEG_HALF, 0, NX),
        (RMM, S_NEG_HALF, NEG1, NX),
        (RNE, S_MIN_SUB, 0, NX),
        (RUP, S_MIN_SUB, 1, NX),
        (RDN, S_NEG_MIN_SUB, NEG1, NX),
        (RTZ, S_NEG_MIN_SUB, 0, NX),
        // The range ends: 2^31 is out, -2^31 in; saturation raises NV and not NX.
        (ANY, S_BELOW_2P31, 0x7fff_ff80, 0),
        (ANY, 0x4f00_0000, nan_w, NV),
        (ANY, 0xcf00_0000, I32_MIN_SEXT, 0),
        (ANY, 0xcf00_0001, I32_MIN_SEXT, NV),
        (ANY, S_MAX, nan_w, NV),
        (ANY, S_INF, nan_w, NV),
        (ANY, S_NEG_INF, I32_MIN_SEXT, NV),
        // Any NaN, whatever its sign, gives 2^31 - 1.
        (ANY, S_QNAN, nan_w, NV),
        (ANY, S_NEG_QNAN, nan_w, NV),
        (ANY, S_SNAN, nan_w, NV),
        (ANY, S_NEG_SNAN, nan_w, NV),
    ]);
    check_to_int::<u32>(asm::fcvt_wu_s, &[
        (ANY, S_ZERO, 0, 0),
        (ANY, S_NEG_ZERO, 0, 0),
        (ANY, S_ONE, 1, 0),
        // Unsigned word results are sign-extended too: bit 31 set fills the upper half.
        (ANY, S_3E9, 0xffff_ffff_b2d0_5e00, 0),
        (ANY, 0x4f00_0000, 0xffff_ffff_8000_0000, 0),
        (ANY, S_BELOW_2P32, 0xffff_ffff_ffff_ff00, 0),
        (ANY, 0x4f80_0000, NEG1, NV),
        (ANY, S_INF, NEG1, NV),
        (ANY, S_QNAN, NEG1, NV),
        (ANY, S_NEG_QNAN, NEG1, NV),
        // Negative inputs: 0 with NV unless they round to zero.
        (ANY, S_NEG_ONE, 0, NV),
        (ANY, S_NEG_INF, 0, NV),
        (RNE, S_NEG_HALF, 0, NX),
        (RTZ, S_NEG_HALF, 0, NX),
        (RDN, S_NEG_HALF, 0, NV),
        (RUP, S_NEG_HALF, 0, NX),
        (RMM, S_NEG_HALF, 0, NV),
        (RNE, S_ONE_HALF, 2, NX),
        (RTZ, S_ONE_HALF, 1, NX),
    ]);
    check_to_int::<u32>(asm::fcvt_l_s, &[
        (ANY, S_NEG_ONE, NEG1, 0),
        (ANY, S_3E9, 0xb2d0_5e00, 0),
        (ANY, S_BELOW_2P63, 0x7fff_ff80_0000_0000, 0),
        (ANY, 0x5f00_0000, I64_MAX, NV),
        (ANY, 0xdf00_0000, I64_MIN, 0),
        (ANY, 0xdf00_0001, I64_MIN, NV),
        (ANY, S_INF, I64_MAX, NV),
        (ANY, S_NEG_INF, I64_MIN, NV),
        (ANY, S_NEG_QNAN, I64_MAX, NV),
        (ANY, S_SNAN, I64_MAX, NV),
        (RNE, S_NEG_ONE_HALF, (-2i64) as u64, NX),
        (RTZ, S_NEG_ONE_HALF, NEG1, NX),
        (RDN, S_NEG_ONE_HALF, (-2i64) as u64, NX),
        (RUP, S_NEG_ONE_HALF, NEG1, NX),
        (RMM, S_NEG_ONE_HALF, (-2i64) as u64, NX),
    ]);
    check_to_int::<u32>(asm::fcvt_lu_s, &[
        (ANY, S_3E9, 0xb2d0_5e00, 0),
        (ANY, 0x5f00_0000, I64_MIN, 0),
        (ANY, S_BELOW_2P64, 0xffff_ff00_0000_0000, 0),
        (ANY, 0x5f80_0000, NEG1, NV),
        (ANY, S_INF, NEG1, NV),
        (ANY, S_QNAN, NEG1, NV),
        (ANY, S_NEG_ONE, 0, NV),
        (ANY, S_NEG_INF, 0, NV),
        (ANY, S_NEG_ZERO, 0, 0),
        // -0.25 rounds to -0 (fine) except downwards (to -1: invalid).
        (RNE, 0xbe80_0000, 0, NX),
        (RTZ, 0xbe80_0000, 0, NX),
        (RDN, 0xbe80_0000, 0, NV),
        (RUP, 0xbe80_0000, 0, NX),
        (RMM, 0xbe80_0000, 0, NX),
        (RNE, S_TWO_HALF, 2, NX),
        (RMM, S_TWO_HALF, 3, NX),
    ]);
}

/// 2^31 - 1 and 2^31 - 0.5, -2^31 - 0.5, 2^32 - 1 and 2^32 - 0.5, as doubles.
const D_2P31_M1: u64 = 0x41df_ffff_ffc0_0000;
const D_2P31_MHALF: u64 = 0x41df_ffff_ffe0_0000;
const D_NEG_2P31_MHALF: u64 = 0xc1e0_0000_0010_0000;
const D_2P32_M1: u64 = 0x41ef_ffff_ffe0_0000;
const D_2P32_MHALF: u64 = 0x41ef_ffff_fff0_0000;
const D_2P31: u64 = 0x41e0_0000_0000_0000;
const D_2P63: u64 = 0x43e0_0000_0000_0000;
const D_2P64: u64 = 0x43f0_0000_0000_0000;

#[test]
fn double_to_integer() {
    let nan_w = 0x7fff_ffff;
    // "Valid" means valid after rounding: 2^31 - 0.5 is in range for a word where it rounds down.
    check_to_int::<u64>(asm::fcvt_w_d, &[
        (ANY, D_2P31_M1, 0x7fff_ffff, 0),
        (RNE, D_2P31_MHALF, nan_w, NV),
        (RTZ, D_2P31_MHALF, 0x7fff_ffff, NX),
        (RDN, D_2P31_MHALF, 0x7fff_ffff, NX),
        (RUP, D_2P31_MHALF, nan_w, NV),
        (RMM, D_2P31_MHALF, nan_w, NV),
        // -2^31 - 0.5: ties-to-even and toward zero stay in range (NX), down and away do not (NV).
        (RNE, D_NEG_2P31_MHALF, I32_MIN_SEXT, NX),
        (RTZ, D_NEG_2P31_MHALF, I32_MIN_SEXT, NX),
        (RDN, D_NEG_2P31_MHALF, I32_MIN_SEXT, NV),
        (RUP, D_NEG_2P31_MHALF, I32_MIN_SEXT, NX),
        (RMM, D_NEG_2P31_MHALF, I32_MIN_SEXT, NV),
        (ANY, D_2P31, nan_w, NV),
        (ANY, 0x4202_a05f_2000_0000, nan_w, NV), // 1e10
        (ANY, D_NEG_ONE, NEG1, 0),
        (ANY, D_NEG_ZERO, 0, 0),
        (ANY, D_INF, nan_w, NV),
        (ANY, D_NEG_INF, I32_MIN_SEXT, NV),
        (ANY, D_QNAN, nan_w, NV),
        (ANY, D_NEG_SNAN, nan_w, NV),
        (RNE, D_HALF, 0, NX),
        (RTZ, D_HALF, 0, NX),
        (RDN, D_HALF, 0, NX),
        (RUP, D_HALF, 1, NX),
        (RMM, D_HALF, 1, NX),
        (RNE, D_NEG_TWO_HALF, (-2i64) as u64, NX),
        (RMM, D_NEG_TWO_HALF, (-3i64) as u64, NX),
    ]);
    check_to_int::<u64>(asm::fcvt_wu_d, &[
        (ANY, D_2P32_M1, NEG1, 0),
        (ANY, D_2P31, 0xffff_ffff_8000_0000, 0),
        (RNE, D_2P32_MHALF, NEG1, NV),
        (RTZ, D_2P32_MHALF, NEG1, NX),
        (RDN, D_2P32_MHALF, NEG1, NX),
        (RUP, D_2P32_MHALF, NEG1, NV),
        (RMM, D_2P32_MHALF, NEG1, NV),
        (ANY, D_NEG_ONE, 0, NV),
        (ANY, D_NEG_INF, 0, NV),
        (ANY, D_INF, NEG1, NV),
        (ANY, D_QNAN, NEG1, NV),
        (RNE, D_NEG_HALF, 0, NX),
        (RTZ, D_NEG_HALF, 0, NX),
        (RDN, D_NEG_HALF, 0, NV),
        (RUP, D_NEG_HALF, 0, NX),
        (RMM, D_NEG_HALF, 0, NV),
        (ANY, D_THREE, 3, 0),
    ]);
    check_to_int::<u64>(asm::fcvt_l_d, &[
        (ANY, 0x43df_ffff_ffff_ffff, 0x7fff_ffff_ffff_fc00, 0),
        (ANY, D_2P63, I64_MAX, NV),
        (ANY, 0xc3e0_0000_0000_0000, I64_MIN, 0),
        (ANY, 0xc3e0_0000_0000_0001, I64_MIN, NV),
        (ANY, 0x4340_0000_0000_0000, 0x0020_0000_0000_0000, 0), // 2^53
        (ANY, D_2P32_M1, 0xffff_ffff, 0),
        (ANY, D_INF, I64_MAX, NV),
        (ANY, D_NEG_INF, I64_MIN, NV),
        (ANY, D_QNAN_PAYLOAD, I64_MAX, NV),
        (ANY, D_NEG_QNAN, I64_MAX, NV),
        (RNE, D_TWO_HALF, 2, NX),
        (RTZ, D_TWO_HALF, 2, NX),
        (RDN, D_TWO_HALF, 2, NX),
        (RUP, D_TWO_HALF, 3, NX),
        (RMM, D_TWO_HALF, 3, NX),
        (RNE, D_NEG_TWO_HALF, (-2i64) as u64, NX),
        (RDN, D_NEG_TWO_HALF, (-3i64) as u64, NX),
        (RUP, D_NEG_TWO_HALF, (-2i64) as u64, NX),
    ]);
    check_to_int::<u64>(asm::fcvt_lu_d, &[
        (ANY, 0x43ef_ffff_ffff_ffff, 0xffff_ffff_ffff_f800, 0),
        (ANY, D_2P64, NEG1, NV),
        (ANY, D_2P63, I64_MIN, 0),
        (ANY, D_NEG_ONE, 0, NV),
        (ANY, D_NEG_INF, 0, NV),
        (ANY, D_QNAN, NEG1, NV),
        (ANY, D_SNAN, NEG1, NV),
        (ANY, D_NEG_ZERO, 0, 0),
        (RNE, D_NEG_MIN_SUB, 0, NX),
        (RDN, D_NEG_MIN_SUB, 0, NV),
        (RNE, D_ONE_HALF, 2, NX),
        (RTZ, D_ONE_HALF, 1, NX),
        (RDN, D_ONE_HALF, 1, NX),
        (RUP, D_ONE_HALF, 2, NX),
        (RMM, D_ONE_HALF, 2, NX),
    ]);
}

#[test]
fn integer_to_single() {
    check_from_int::<u32>(asm::fcvt_s_w, &[
        (ANY, 0, S_ZERO, 0),
        (ANY, 1, S_ONE, 0),
        (ANY, NEG1, S_NEG_ONE, 0),
        (ANY, I32_MIN_SEXT, 0xcf00_0000, 0),
        // Only the low 32 bits are the operand.
        (ANY, 0x0000_0000_8000_0000, 0xcf00_0000, 0),
        (ANY, 0x1234_5678_0000_0001, S_ONE, 0),
        // 2^24 + 1 is halfway between 2^24 (even) and 2^24 + 2.
        (RNE, 0x100_0001, 0x4b80_0000, NX),
        (RTZ, 0x100_0001, 0x4b80_0000, NX),
        (RDN, 0x100_0001, 0x4b80_0000, NX),
        (RUP, 0x100_0001, 0x4b80_0001, NX),
        (RMM, 0x100_0001, 0x4b80_0001, NX),
        (RNE, 0xffff_ffff_feff_ffff, 0xcb80_0000, NX),
        (RTZ, 0xffff_ffff_feff_ffff, 0xcb80_0000, NX),
        (RDN, 0xffff_ffff_feff_ffff, 0xcb80_0001, NX),
        (RUP, 0xffff_ffff_feff_ffff, 0xcb80_0000, NX),
        (RMM, 0xffff_ffff_feff_ffff, 0xcb80_0001, NX),
        // 2^24 + 3 is halfway between 2^24 + 2 (odd significand) and 2^24 + 4 (even).
        (RNE, 0x100_0003, 0x4b80_0002, NX),
        (RTZ, 0x100_0003, 0x4b80_0001, NX),
        (RDN, 0x100_0003, 0x4b80_0001, NX),
        (RUP, 0x100_0003, 0x4b80_0002, NX),
        (RMM, 0x100_0003, 0x4b80_0002, NX),
        (RNE, 0x7fff_ffff, 0x4f00_0000, NX),
        (RTZ, 0x7fff_ffff, S_BELOW_2P31, NX),
        (RDN, 0x7fff_ffff, S_BELOW_2P31, NX),
        (RUP, 0x7fff_ffff, 0x4f00_0000, NX),
        (RMM, 0x7fff_ffff, 0x4f00_0000, NX),
    ]);
    check_from_int::<u32>(asm::fcvt_s_wu, &[
        (ANY, 0, S_ZERO, 0),
        (ANY, 0x8000_0000, 0x4f00_0000, 0),
        (ANY, I32_MIN_SEXT, 0x4f00_0000, 0),
        (ANY, 0xffff_ffff_0000_0002, S_TWO, 0),
        (RNE, 0xffff_ffff, 0x4f80_0000, NX),
        (RTZ, 0xffff_ffff, S_BELOW_2P32, NX),
        (RDN, 0xffff_ffff, S_BELOW_2P32, NX),
        (RUP, 0xffff_ffff, 0x4f80_0000, NX),
        (RMM, 0xffff_ffff, 0x4f80_0000, NX),
    ]);
    check_from_int::<u32>(asm::fcvt_s_l, &[
        (ANY, 0, S_ZERO, 0),
        (ANY, NEG1, S_NEG_ONE, 0),
        (ANY, (-3i64) as u64, 0xc040_0000, 0),
        (ANY, I64_MIN, 0xdf00_0000, 0),
        (RNE, 0xffff_ffff, 0x4f80_0000, NX),
        (RTZ, 0xffff_ffff, S_BELOW_2P32, NX),
        (RNE, I64_MAX, 0x5f00_0000, NX),
        (RTZ, I64_MAX, S_BELOW_2P63, NX),
        (RDN, I64_MAX, S_BELOW_2P63, NX),
        (RUP, I64_MAX, 0x5f00_0000, NX),
        (RMM, I64_MAX, 0x5f00_0000, NX),
        (RNE, 0x1_0000_0001, 0x4f80_0000, NX),
        (RUP, 0x1_0000_0001, 0x4f80_0001, NX),
        (RDN, 0xffff_fffe_ffff_ffff, 0xcf80_0001, NX), // -(2^32 + 1)
    ]);
    check_from_int::<u32>(asm::fcvt_s_lu, &[
        (ANY, 0, S_ZERO, 0),
        (ANY, I64_MIN, 0x5f00_0000, 0),
        (RNE, NEG1, 0x5f80_0000, NX),
        (RTZ, NEG1, S_BELOW_2P64, NX),
        (RDN, NEG1, S_BELOW_2P64, NX),
        (RUP, NEG1, 0x5f80_0000, NX),
        (RMM, NEG1, 0x5f80_0000, NX),
    ]);
}

#[test]
fn integer_to_double() {
    // Words convert exactly in every mode.
    check_from_int::<u64>(asm::fcvt_d_w, &[
        (ANY, 0, D_ZERO, 0),
        (ANY, NEG1, D_NEG_ONE, 0),
        (ANY, I32_MIN_SEXT, 0xc1e0_0000_0000_0000, 0),
        (ANY, 0xffff_ffff_7fff_ffff, D_2P31_M1, 0),
        (ANY, 0x0000_0000_ffff_fffd, 0xc008_0000_0000_0000, 0), // -3
    ]);
    check_from_int::<u64>(asm::fcvt_d_wu, &[
        (ANY, 0, D_ZERO, 0),
        (ANY, 0xffff_ffff, D_2P32_M1, 0),
        (ANY, NEG1, D_2P32_M1, 0),
        (ANY, 0x1_0000_0000, D_ZERO, 0),
        (ANY, I32_MIN_SEXT, D_2P31, 0),
    ]);
    check_from_int::<u64>(asm::fcvt_d_l, &[
        (ANY, 0, D_ZERO, 0),
        (ANY, NEG1, D_NEG_ONE, 0),
        (ANY, I64_MIN, 0xc3e0_0000_0000_0000, 0),
        (ANY, 0x0020_0000_0000_0000, 0x4340_0000_0000_0000, 0),
        // 2^53 + 1 is halfway between 2^53 (even) and 2^53 + 2.
        (RNE, 0x0020_0000_0000_0001, 0x4340_0000_0000_0000, NX),
        (RTZ, 0x0020_0000_0000_0001, 0x4340_0000_0000_0000, NX),
        (RDN, 0x0020_0000_0000_0001, 0x4340_0000_0000_0000, NX),
        (RUP, 0x0020_0000_0000_0001, 0x4340_0000_0000_0001, NX),
        (RMM, 0x0020_0000_0000_0001, 0x4340_0000_0000_0001, NX),
        (RNE, 0xffdf_ffff_ffff_ffff, 0xc340_0000_0000_0000, NX),
        (RDN, 0xffdf_ffff_ffff_ffff, 0xc340_0000_0000_0001, NX),
        (RUP, 0xffdf_ffff_ffff_ffff, 0xc340_0000_0000_0000, NX),
        (RMM, 0xffdf_ffff_ffff_ffff, 0xc340_0000_0000_0001, NX),
        (RNE, I64_MAX, D_2P63, NX),
        (RTZ, I64_MAX, 0x43df_ffff_ffff_ffff, NX),
        (RDN, I64_MAX, 0x43df_ffff_ffff_ffff, NX),
        (RUP, I64_MAX, D_2P63, NX),
        (RMM, I64_MAX, D_2P63, NX),
    ]);
    check_from_int::<u64>(asm::fcvt_d_lu, &[
        (ANY, 0, D_ZERO, 0),
        (ANY, I64_MIN, D_2P63, 0),
        (RNE, NEG1, D_2P64, NX),
        (RTZ, NEG1, 0x43ef_ffff_ffff_ffff, NX),
        (RDN, NEG1, 0x43ef_ffff_ffff_ffff, NX),
        (RUP, NEG1, D_2P64, NX),
        (RMM, NEG1, D_2P64, NX),
    ]);
}

#[test]
fn double_to_single() {
    check_unary::<u64, u32>(asm::fcvt_s_d, &[
        (ANY, D_ONE, S_ONE, 0),
        (ANY, D_NEG_ZERO, S_NEG_ZERO, 0),
        (ANY, D_INF, S_INF, 0),
        (ANY, D_NEG_INF, S_NEG_INF, 0),
        (ANY, 0x47ef_ffff_e000_0000, S_MAX, 0),
        (ANY, 0x3fd5_5555_6000_0000, 0x3eaa_aaab, 0),
        // 1 + 2^-24: halfway.
        (RNE, 0x3ff0_0000_1000_0000, S_ONE, NX),
        (RTZ, 0x3ff0_0000_1000_0000, S_ONE, NX),
        (RDN, 0x3ff0_0000_1000_0000, S_ONE, NX),
        (RUP, 0x3ff0_0000_1000_0000, 0x3f80_0001, NX),
        (RMM, 0x3ff0_0000_1000_0000, 0x3f80_0001, NX),
        // 1 + 2^-24 + 2^-52: just above halfway.
        (RNE, 0x3ff0_0000_1000_0001, 0x3f80_0001, NX),
        (RTZ, 0x3ff0_0000_1000_0001, S_ONE, NX),
        (RMM, 0x3ff0_0000_1000_0001, 0x3f80_0001, NX),
        // Overflow.
        (RNE, D_MAX, S_INF, OF | NX),
        (RTZ, D_MAX, S_MAX, OF | NX),
        (RDN, D_MAX, S_MAX, OF | NX),
        (RUP, D_MAX, S_INF, OF | NX),
        (RMM, D_MAX, S_INF, OF | NX),
        (RNE, D_NEG_MAX, S_NEG_INF, OF | NX),
        (RTZ, D_NEG_MAX, S_NEG_MAX, OF | NX),
        (RDN, D_NEG_MAX, S_NEG_INF, OF | NX),
        (RUP, D_NEG_MAX, S_NEG_MAX, OF | NX),
        (RMM, D_NEG_MAX, S_NEG_INF, OF | NX),
        (RTZ, 0x47f0_0000_0000_0000, S_MAX, OF | NX), // 2^128
        (RNE, 0x47f0_0000_0000_0000, S_INF, OF | NX),
        // Underflow: 2^-150 is halfway between 0 and 2^-149; 1.5 * 2^-149 halfway between 2^-149 and 2^-148.
        (RNE, 0x3690_0000_0000_0000, S_ZERO, UF | NX),
        (RTZ, 0x3690_0000_0000_0000, S_ZERO, UF | NX),
        (RDN, 0x3690_0000_0000_0000, S_ZERO, UF | NX),
        (RUP, 0x3690_0000_0000_0000, S_MIN_SUB, UF | NX),
        (RMM, 0x3690_0000_0000_0000, S_MIN_SUB, UF | NX),
        (RNE, 0x36a8_0000_0000_0000, 0x0000_0002, UF | NX),
        (RTZ, 0x36a8_0000_0000_0000, S_MIN_SUB, UF | NX),
        (RMM, 0x36a8_0000_0000_0000, 0x0000_0002, UF | NX),
        (ANY, 0x36a0_0000_0000_0000, S_MIN_SUB, 0),
        (ANY, 0x380f_ffff_c000_0000, S_MAX_SUB, 0),
        (RNE, D_MIN_SUB, S_ZERO, UF | NX),
        (RUP, D_MIN_SUB, S_MIN_SUB, UF | NX),
        (RDN, D_NEG_MIN_SUB, S_NEG_MIN_SUB, UF | NX),
        // NaNs become the canonical NaN; a signaling one raises NV.
        (ANY, D_QNAN, S_QNAN, 0),
        (ANY, D_QNAN_PAYLOAD, S_QNAN, 0),
        (ANY, D_NEG_QNAN, S_QNAN, 0),
        (ANY, D_SNAN, S_QNAN, NV),
        (ANY, S_ONE.reg(), S_QNAN, 0),
    ]);
}

#[test]
fn single_to_double_is_exact() {
    check_unary::<u32, u64>(asm::fcvt_d_s, &[
        (ANY, S_ONE, D_ONE, 0),
        (ANY, S_NEG_ZERO, D_NEG_ZERO, 0),
        (ANY, S_INF, D_INF, 0),
        (ANY, S_NEG_INF, D_NEG_INF, 0),
        (ANY, S_MAX, 0x47ef_ffff_e000_0000, 0),
        (ANY, 0x3eaa_aaab, 0x3fd5_5555_6000_0000, 0),
        // Subnormal singles are normal doubles.
        (ANY, S_MIN_SUB, 0x36a0_0000_0000_0000, 0),
        (ANY, S_MAX_SUB, 0x380f_ffff_c000_0000, 0),
        (ANY, S_NEG_MIN_SUB, 0xb6a0_0000_0000_0000, 0),
        (ANY, S_QNAN_PAYLOAD, D_QNAN, 0),
        (ANY, S_NEG_QNAN, D_QNAN, 0),
        (ANY, S_SNAN, D_QNAN, NV),
    ]);
}

// ------------------------------------------------------------------------------------------------------------
// Flags, CSRs and dynamic rounding
// ------------------------------------------------------------------------------------------------------------

#[test]
fn flags_accrue_until_a_csr_write() {
    let mut m = Machine::gc();
    for (r, v) in [(FA1, S_ONE), (FA2, S_ZERO), (FA3, S_2M24), (FS0, S_QNAN), (FS1, S_MAX), (FT5, S_MIN_SUB)] {
        m.set_s(r, v);
    }
    let steps: &[(Insn, u8)] = &[
        (asm::fdiv_s(FA0, FA1, FA2, RNE), DZ),
        (asm::fadd_s(FA0, FA1, FA3, RNE), DZ | NX),
        // An exact operation and a quiet comparison of numbers raise nothing and clear nothing.
        (asm::fadd_s(FA0, FA1, FA1, RNE), DZ | NX),
        (asm::feq_s(A0, FA1, FA1), DZ | NX),
        (asm::flt_s(A0, FS0, FA1), NV | DZ | NX),
        (asm::fmul_s(FA0, FS1, FS1, RNE), NV | DZ | OF | NX),
        (asm::fmul_s(FA0, FT5, FT5, RNE), NV | DZ | OF | UF | NX),
        // Moves, sign injection, classification, loads and stores do not clear them either.
        (asm::fsgnj_s(FA0, FA1, FA1), 0x1f),
        (asm::fclass_s(A0, FS0), 0x1f),
        (asm::fmv_x_w(A0, FA1), 0x1f),
    ];
    for &(insn, want) in steps {
        m.next(insn);
        assert_eq!(m.hart.fflags, want, "after {}: {}", insn.op.name(), flag_names(m.hart.fflags));
    }
    // Reading fflags or fcsr does not clear them.
    m.next(asm::csrrs(A0, FFLAGS, ZERO));
    assert_eq!((m.get(A0), m.hart.fflags), (0x1f, 0x1f));
    m.next(asm::csrrs(A0, FCSR, ZERO));
    assert_eq!((m.get(A0), m.hart.fflags), (0x1f, 0x1f));
    // Writes do: clearing some bits, then all.
    m.next(asm::csrrci(A0, FFLAGS, u32::from(NX | UF)));
    assert_eq!((m.get(A0), m.hart.fflags), (0x1f, NV | DZ | OF));
    m.next(asm::csrrw(A0, FFLAGS, ZERO));
    assert_eq!((m.get(A0), m.hart.fflags), (u64::from(NV | DZ | OF), 0));
    // Software may set flags, and instructions OR into them.
    m.next(asm::csrrsi(ZERO, FFLAGS, u32::from(DZ)));
    m.next(asm::fadd_s(FA0, FA1, FA3, RNE));
    assert_eq!(m.hart.fflags, DZ | NX);
    // Writing fcsr clears them too.
    m.next(asm::csrrw(ZERO, FCSR, ZERO));
    assert_eq!(m.hart.fflags, 0);
}

#[test]
fn fp_csrs_mask_their_fields() {
    let mut m = Machine::gc().and(&[(A1, NEG1)]);
    // fcsr holds frm (bits 7..5) and fflags (bits 4..0); its other bits read as zero.
    m.next(asm::csrrw(A0, FCSR, A1));
    assert_eq!(m.get(A0), 0);
    assert_eq!((m.hart.frm, m.hart.fflags), (7, 0x1f));
    m.next(asm::csrrs(A0, FCSR, ZERO));
    assert_eq!(m.get(A0), 0xff);
    m.next(asm::csrrs(A0, FRM, ZERO));
    assert_eq!(m.get(A0), 7);
    m.next(asm::csrrs(A0, FFLAGS, ZERO));
    assert_eq!(m.get(A0), 0x1f);
    // fcsr = 0x1_2345: fflags 0b00101, frm 0b010.
    m.set(A1, 0x1_2345);
    m.next(asm::csrrw(A0, FCSR, A1));
    assert_eq!(m.get(A0), 0xff, "the old fcsr");
    assert_eq!((m.hart.frm, m.hart.fflags), (2, 0x05));
    m.next(asm::csrrs(A0, FCSR, ZERO));
    assert_eq!(m.get(A0), 0x45);
    // Writing fflags leaves frm alone, and only 5 bits stick.
    m.set(A1, 0xff);
    m.next(asm::csrrw(A0, FFLAGS, A1));
    assert_eq!(m.get(A0), 0x05);
    assert_eq!((m.hart.frm, m.hart.fflags), (2, 0x1f));
    // Writing frm leaves fflags alone, and only 3 bits stick (an invalid mode can be written).
    m.next(asm::csrrw(A0, FRM, A1));
    assert_eq!(m.get(A0), 2);
    assert_eq!((m.hart.frm, m.hart.fflags), (7, 0x1f));
    m.next(asm::csrrwi(A0, FRM, 0b11110));
    assert_eq!((m.get(A0), m.hart.frm), (7, 6));
    m.next(asm::csrrci(A0, FRM, 0b010));
    assert_eq!((m.get(A0), m.hart.frm), (6, 4));
    m.next(asm::csrrsi(A0, FRM, 0b001));
    assert_eq!((m.get(A0), m.hart.frm), (4, 5));
    m.next(asm::csrrs(A0, FCSR, ZERO));
    assert_eq!(m.get(A0), 5 << 5 | 0x1f);
    // A mode set through frm is the one dynamic rounding uses.
    m.next(asm::csrrwi(ZERO, FRM, RUP));
    m.next(asm::csrrw(ZERO, FFLAGS, ZERO));
    m.set_s(FA1, S_ONE);
    m.set_s(FA2, S_2M24);
    m.next(asm::fadd_s(FA0, FA1, FA2, rm::DYN));
    assert_eq!((m.f(FA0), m.hart.fflags), (0x3f80_0001u32.reg(), NX));
    m.next(asm::csrrwi(ZERO, FRM, RDN));
    m.next(asm::fadd_s(FA0, FA1, FA2, rm::DYN));
    assert_eq!(m.f(FA0), S_ONE.reg());
}

#[test]
fn dynamic_rounding_with_an_invalid_frm_faults() {
    // Every instruction with a rounding-mode field, with rm = DYN, on an frm of 5, 6 or 7: illegal, nothing changes
    // (no destination write, no flags). Conversions that never round (fcvt.d.s, fcvt.d.w) included.
    let dynamic: &[Insn] = &[
        asm::fadd_s(FA0, FA1, FA2, rm::DYN),
        asm::fsub_d(FA0, FA1, FA2, rm::DYN),
        asm::fmul_s(FA0, FA1, FA2, rm::DYN),
        asm::fdiv_d(FA0, FA1, FA2, rm::DYN),
        asm::fsqrt_s(FA0, FA1, rm::DYN),
        asm::fmadd_d(FA0, FA1, FA2, FA3, rm::DYN),
        asm::fnmadd_s(FA0, FA1, FA2, FA3, rm::DYN),
        asm::fcvt_w_s(A0, FA1, rm::DYN),
        asm::fcvt_lu_d(A0, FA1, rm::DYN),
        asm::fcvt_s_l(FA0, A1, rm::DYN),
        asm::fcvt_d_w(FA0, A1, rm::DYN),
        asm::fcvt_s_d(FA0, FA1, rm::DYN),
        asm::fcvt_d_s(FA0, FA1, rm::DYN),
    ];
    for frm in [5u8, 6, 7] {
        for &insn in dynamic {
            let mut m = Machine::gc().and(&[(A0, 0x5a5a), (A1, 3)]);
            m.set_s(FA1, S_SNAN);
            m.set_f(FA2, D_SNAN);
            m.set_f(FA3, D_ONE);
            m.hart.frm = frm;
            m.hart.fflags = DZ;
            assert_eq!(m.fault(insn), Fault::RoundingMode { frm }, "{} with frm = {frm}", insn.op.name());
        }
    }
    // The same instructions with a static mode ignore an invalid frm.
    let mut m = Machine::gc().and(&[(A1, 3)]);
    m.hart.frm = 5;
    m.set_s(FA1, S_ONE);
    m.set_s(FA2, S_TWO);
    m.next(asm::fadd_s(FA0, FA1, FA2, RNE));
    assert_eq!(m.f(FA0), S_THREE.reg());
    m.next(asm::fcvt_d_w(FA0, A1, RTZ));
    assert_eq!(m.f(FA0), D_THREE);
    // Instructions without a rounding mode run with any frm.
    let mut m = Machine::gc().and(&[(A1, DATA)]);
    m.hart.frm = 7;
    m.set_s(FA1, S_ONE);
    m.set_s(FA2, S_NEG_TWO);
    for insn in [
        asm::fsgnj_s(FA0, FA1, FA2),
        asm::fmin_d(FA0, FA1, FA2),
        asm::fmax_s(FA0, FA1, FA2),
        asm::feq_s(A0, FA1, FA2),
        asm::fclass_d(A0, FA1),
        asm::fmv_x_w(A0, FA1),
        asm::fmv_d_x(FA0, A1),
        asm::fsw(FA1, 0, A1),
        asm::flw(FA0, 0, A1),
    ] {
        m.next(insn);
    }
    // The decoder keeps the dynamic mode as 7 (the reserved static modes 5 and 6 do not decode: see the gating
    // tests).
    assert_eq!(decode_insn(asm::fadd_d(FA0, FA1, FA2, rm::DYN)).imm, 7);
}

#[test]
fn fp_results_in_x0_are_discarded() {
    // Instructions writing an x register, with rd = x0: x0 stays 0, the flags still accrue.
    let insns: &[(Insn, u8)] = &[
        (asm::fcvt_w_s(ZERO, FA1, RNE), NX),
        (asm::fcvt_wu_s(ZERO, FA1, RNE), NX),
        (asm::fcvt_l_s(ZERO, FA1, RNE), NX),
        (asm::fcvt_lu_s(ZERO, FA1, RNE), NX),
        (asm::fcvt_w_d(ZERO, FA2, RNE), NX),
        (asm::fcvt_wu_d(ZERO, FA2, RNE), NX),
        (asm::fcvt_l_d(ZERO, FA2, RNE), NX),
        (asm::fcvt_lu_d(ZERO, FA2, RNE), NX),
        (asm::fmv_x_w(ZERO, FA1), 0),
        (asm::fmv_x_d(ZERO, FA2), 0),
        (asm::fclass_s(ZERO, FA1), 0),
        (asm::fclass_d(ZERO, FA2), 0),
        (asm::feq_s(ZERO, FA1, FA1), 0),
        (asm::flt_s(ZERO, FA3, FA1), NV),
        (asm::fle_s(ZERO, FA1, FA1), 0),
        (asm::feq_d(ZERO, FA2, FA2), 0),
        (asm::flt_d(ZERO, FA2, FA1), NV),
        (asm::fle_d(ZERO, FA2, FA2), 0),
    ];
    let mut failures = Vec::new();
    for &(insn, flags) in insns {
        let mut m = Machine::gc();
        m.set_s(FA1, S_ONE_HALF);
        m.set_f(FA2, D_ONE_HALF);
        m.set_s(FA3, S_QNAN);
        m.next(insn);
        if m.get(ZERO) != 0 || m.hart.fflags != flags {
            failures.push(format!(
                "{} with rd = x0: x0 = {:#x}, flags {} (expected {})",
                insn.op.name(),
                m.get(ZERO),
                flag_names(m.hart.fflags),
                flag_names(flags)
            ));
        }
    }
    report(failures);
}
