//! Unit tests: vectors worked out by hand from the specification (they also pin the reference crate's RISC-V
//! specialization), edge cases per function, and the differential test of every fast path against SoftFloat on
//! biased random operands. The comparison with an independent implementation is in `tests/fpu.rs`.

use super::double::fast as fast64;
use super::flags::{DZ, NV, NX, OF, UF};
use super::single::fast as fast32;
use super::soft::exact_ops;
use super::*;

const QNAN32: u32 = 0x7fc0_0000;
const QNAN64: u64 = 0x7ff8_0000_0000_0000;
const ONE32: u32 = 0x3f80_0000;
const ONE64: u64 = 0x3ff0_0000_0000_0000;
const NEG32: u32 = 1 << 31;
const NEG64: u64 = 1 << 63;

fn r<T>(bits: T, flags: u8) -> FpResult<T> {
    FpResult { bits, flags }
}

fn s(x: f32) -> u32 {
    x.to_bits()
}

fn d(x: f64) -> u64 {
    x.to_bits()
}

// ---------------------------------------------------------------------------------------------------------------
// Hand vectors from the specification, checked against both the public functions and SoftFloat directly.

#[test]
fn flag_bits_are_softfloats() {
    use softfloat_wrapper::ExceptionFlags;
    assert!(ExceptionFlags::from_bits(NX).is_inexact());
    assert!(ExceptionFlags::from_bits(UF).is_underflow());
    assert!(ExceptionFlags::from_bits(OF).is_overflow());
    assert!(ExceptionFlags::from_bits(DZ).is_infinite());
    assert!(ExceptionFlags::from_bits(NV).is_invalid());
}

#[test]
fn rm_from_bits() {
    for rm in Rm::ALL {
        assert_eq!(Rm::from_bits(rm as u8), Some(rm));
    }
    for b in 5..=7 {
        assert_eq!(Rm::from_bits(b), None);
    }
}

#[test]
fn hand_vectors_canonical_nan() {
    // A quiet NaN with a payload and a sign: the result is the canonical NaN, no flag.
    let payload32 = 0xffc1_2345;
    let payload64 = 0xfff9_2345_6789_abcd;
    assert_eq!(f32_add(payload32, ONE32, Rm::Rne), r(QNAN32, 0));
    assert_eq!(soft::f32_add(payload32, ONE32, Rm::Rne), r(QNAN32, 0));
    assert_eq!(f64_mul(ONE64, payload64, Rm::Rne), r(QNAN64, 0));
    assert_eq!(soft::f64_mul(ONE64, payload64, Rm::Rne), r(QNAN64, 0));
    // A signaling NaN: canonical NaN and NV.
    assert_eq!(f32_sub(0x7f80_0001, ONE32, Rm::Rne), r(QNAN32, NV));
    assert_eq!(soft::f32_sub(0x7f80_0001, ONE32, Rm::Rne), r(QNAN32, NV));
    assert_eq!(f64_div(ONE64, 0x7ff0_0000_0000_0001, Rm::Rtz), r(QNAN64, NV));
    // Conversions between formats do not carry payloads either.
    assert_eq!(f32_to_f64(0x7fc0_0001), r(QNAN64, 0));
    assert_eq!(soft::f32_to_f64(0x7fc0_0001), r(QNAN64, 0));
    assert_eq!(f32_to_f64(0xff80_0001), r(QNAN64, NV));
    assert_eq!(f64_to_f32(0x7ff8_0000_dead_beef, Rm::Rne), r(QNAN32, 0));
    assert_eq!(soft::f64_to_f32(0x7ff0_0000_dead_beef, Rm::Rne), r(QNAN32, NV));
    // Invalid operations generate it.
    assert_eq!(f64_sqrt(d(-1.0), Rm::Rne), r(QNAN64, NV));
    assert_eq!(f32_mul(s(f32::INFINITY), 0, Rm::Rne), r(QNAN32, NV));
}

#[test]
fn hand_vectors_fmin_fmax() {
    let snan32 = 0x7f80_0001;
    let snan64 = 0x7ff4_0000_0000_0000;
    // One signaling NaN: the other operand, with NV.
    assert_eq!(f32_min(snan32, ONE32), r(ONE32, NV));
    assert_eq!(f64_max(d(2.0), snan64), r(d(2.0), NV));
    // One quiet NaN: the other operand, no flag.
    assert_eq!(f32_max(QNAN32, s(-3.0)), r(s(-3.0), 0));
    // Both NaN: canonical.
    assert_eq!(f64_min(0x7ff8_0000_0000_0042, snan64), r(QNAN64, NV));
    assert_eq!(f32_max(0xffc0_0000, 0x7fc0_1234), r(QNAN32, 0));
    // -0 < +0.
    assert_eq!(f32_min(0, NEG32), r(NEG32, 0));
    assert_eq!(f32_max(NEG32, 0), r(0, 0));
    assert_eq!(f64_min(0, NEG64), r(NEG64, 0));
    assert_eq!(f64_max(NEG64, 0), r(0, 0));
    assert_eq!(f64_min(d(-1.0), d(-2.0)), r(d(-2.0), 0));
    assert_eq!(f64_max(d(f64::NEG_INFINITY), d(-2.0)), r(d(-2.0), 0));
}

#[test]
fn hand_vectors_conversion_saturation() {
    let nan64 = QNAN64;
    let sext = |v: u32| v as i32 as i64 as u64;
    for rm in Rm::ALL {
        // NaN converts to the largest positive value, with NV.
        assert_eq!(f64_to_i32(nan64, rm), r(0x7fff_ffff, NV));
        assert_eq!(soft::f64_to_i32(nan64, rm), r(0x7fff_ffff, NV));
        assert_eq!(f32_to_u32(QNAN32, rm), r(u64::MAX, NV), "2^32-1, sign-extended");
        assert_eq!(soft::f32_to_u32(QNAN32, rm), r(u64::MAX, NV));
        assert_eq!(f64_to_i64(nan64, rm), r(i64::MAX as u64, NV));
        assert_eq!(f32_to_u64(0xffc0_0000, rm), r(u64::MAX, NV));
        // Infinities saturate.
        assert_eq!(f64_to_i32(d(f64::NEG_INFINITY), rm), r(sext(0x8000_0000), NV));
        assert_eq!(f64_to_i64(d(f64::NEG_INFINITY), rm), r(i64::MIN as u64, NV));
        assert_eq!(f32_to_u64(s(f32::INFINITY), rm), r(u64::MAX, NV));
        assert_eq!(f32_to_u32(s(f32::NEG_INFINITY), rm), r(0, NV));
        // Negative values below -1 saturate unsigned conversions to 0 with NV (not NX).
        assert_eq!(f64_to_u32(d(-1.0), rm), r(0, NV));
        assert_eq!(soft::f64_to_u32(d(-1.0), rm), r(0, NV));
        assert_eq!(f64_to_u64(d(-3.5), rm), r(0, NV));
        // 2^31 is one past i32's range; -2^31 is in it.
        assert_eq!(f64_to_i32(d(2147483648.0), rm), r(0x7fff_ffff, NV));
        assert_eq!(f64_to_i32(d(-2147483648.0), rm), r(sext(0x8000_0000), 0));
        assert_eq!(f64_to_u64(d(18446744073709551616.0), rm), r(u64::MAX, NV));
        assert_eq!(f64_to_i64(d(-9223372036854775808.0), rm), r(i64::MIN as u64, 0));
        assert_eq!(f32_to_i64(s(9223372036854775808.0), rm), r(i64::MAX as u64, NV));
        // fcvt.wu results are sign-extended.
        assert_eq!(f64_to_u32(d(3e9), rm), r(0xffff_ffff_b2d0_5e00, 0));
        assert_eq!(f64_to_u32(d(4294967295.0), rm), r(u64::MAX, 0));
    }
    // A negative value rounding to 0 converts to 0 with NX only; rounding to -1 is invalid.
    assert_eq!(f64_to_u32(d(-0.5), Rm::Rtz), r(0, NX));
    assert_eq!(soft::f64_to_u32(d(-0.5), Rm::Rtz), r(0, NX));
    assert_eq!(f32_to_u64(s(-0.9), Rm::Rup), r(0, NX));
    assert_eq!(f32_to_u64(s(-0.5), Rm::Rne), r(0, NX));
    assert_eq!(f32_to_u64(s(-0.5), Rm::Rmm), r(0, NV));
    assert_eq!(f64_to_u32(d(-0.5), Rm::Rdn), r(0, NV));
    assert_eq!(f64_to_u64(d(-0.0), Rm::Rdn), r(0, 0));
    // In range after rounding, out of range before, and the reverse.
    assert_eq!(f64_to_i32(d(-2147483648.5), Rm::Rtz), r(sext(0x8000_0000), NX));
    assert_eq!(f64_to_i32(d(-2147483648.5), Rm::Rne), r(sext(0x8000_0000), NX));
    assert_eq!(f64_to_i32(d(-2147483648.5), Rm::Rdn), r(sext(0x8000_0000), NV));
    assert_eq!(f64_to_i32(d(2147483647.5), Rm::Rne), r(0x7fff_ffff, NV));
    assert_eq!(f64_to_u32(d(4294967295.5), Rm::Rtz), r(u64::MAX, NX));
    assert_eq!(f64_to_u32(d(4294967295.5), Rm::Rne), r(u64::MAX, NV));
}

// ---------------------------------------------------------------------------------------------------------------
// Edge cases.

#[test]
fn signed_zero_sums() {
    for rm in Rm::ALL {
        let zero = if rm == Rm::Rdn { NEG64 } else { 0 };
        assert_eq!(f64_add(ONE64, d(-1.0), rm), r(zero, 0), "{rm:?}");
        assert_eq!(f64_sub(ONE64, ONE64, rm), r(zero, 0), "{rm:?}");
        assert_eq!(f32_add(s(-2.5), s(2.5), rm).bits, if rm == Rm::Rdn { NEG32 } else { 0 });
        assert_eq!(f64_add(NEG64, NEG64, rm), r(NEG64, 0));
        assert_eq!(f32_add(NEG32, 0, rm).bits, if rm == Rm::Rdn { NEG32 } else { 0 });
        assert_eq!(f32_sub(NEG32, 0, rm), r(NEG32, 0));
    }
}

#[test]
fn halfway_cases_in_every_mode() {
    // 1 + 2^-24 is halfway between 1 and 1 + 2^-23 (odd): nearest-even keeps 1.
    let up = ONE32 + 1;
    let expect = [(Rm::Rne, ONE32), (Rm::Rtz, ONE32), (Rm::Rdn, ONE32), (Rm::Rup, up), (Rm::Rmm, up)];
    for (rm, bits) in expect {
        assert_eq!(f32_add(ONE32, s(2f32.powi(-24)), rm), r(bits, NX), "{rm:?}");
        assert_eq!(f64_to_f32(d(1.0 + 2f64.powi(-24)), rm), r(bits, NX), "{rm:?}");
        // Negated: directed modes swap.
        let neg = match rm {
            Rm::Rdn => up | NEG32,
            Rm::Rup => ONE32 | NEG32,
            _ => bits | NEG32,
        };
        assert_eq!(f32_sub(ONE32 | NEG32, s(2f32.powi(-24)), rm), r(neg, NX), "{rm:?}");
    }
    // (1 + 2^-23) + 2^-24 is halfway between an odd and an even significand: nearest-even rounds up.
    assert_eq!(f32_add(up, s(2f32.powi(-24)), Rm::Rne), r(up + 1, NX));
    assert_eq!(f32_add(up, s(2f32.powi(-24)), Rm::Rtz), r(up, NX));
    // The same in double: 1 + 2^-53.
    assert_eq!(f64_add(ONE64, d(2f64.powi(-53)), Rm::Rne), r(ONE64, NX));
    assert_eq!(f64_add(ONE64, d(2f64.powi(-53)), Rm::Rmm), r(ONE64 + 1, NX));
    assert_eq!(f64_add(ONE64 + 1, d(2f64.powi(-53)), Rm::Rne), r(ONE64 + 2, NX));
    // A product exactly halfway: (1 + 2^-23) * (1 + 2^-23) = 1 + 2^-22 + 2^-46, not halfway, rounds to 1 + 2^-22.
    assert_eq!(f32_mul(up, up, Rm::Rne), r(ONE32 + 2, NX));
    assert_eq!(f32_mul(up, up, Rm::Rup), r(ONE32 + 3, NX));
}

#[test]
fn overflow_per_rounding_mode() {
    let max32 = s(f32::MAX);
    let inf32 = s(f32::INFINITY);
    let max64 = d(f64::MAX);
    let inf64 = d(f64::INFINITY);
    let expect = [(Rm::Rne, true), (Rm::Rtz, false), (Rm::Rdn, false), (Rm::Rup, true), (Rm::Rmm, true)];
    for (rm, to_infinity) in expect {
        let (b32, b64) = if to_infinity { (inf32, inf64) } else { (max32, max64) };
        assert_eq!(f32_add(max32, max32, rm), r(b32, OF | NX), "{rm:?}");
        assert_eq!(f64_mul(max64, d(2.0), rm), r(b64, OF | NX), "{rm:?}");
        assert_eq!(f64_to_f32(d(1e300), rm), r(b32, OF | NX), "{rm:?}");
        // Negative overflow: down and up swap.
        let neg_to_infinity = match rm {
            Rm::Rdn => true,
            Rm::Rup => false,
            _ => to_infinity,
        };
        let n64 = if neg_to_infinity { inf64 } else { max64 } | NEG64;
        assert_eq!(f64_sub(max64 | NEG64, max64, rm), r(n64, OF | NX), "{rm:?}");
        assert_eq!(f64_madd(max64, d(2.0), max64 | NEG64, rm), r(max64, 0), "exact fma, no overflow");
    }
    // Rounding to max finite in round-to-nearest is not overflow.
    assert_eq!(f64_add(max64, ONE64, Rm::Rne), r(max64, NX));
    // Division by zero.
    assert_eq!(f64_div(ONE64, 0, Rm::Rne), r(inf64, DZ));
    assert_eq!(f32_div(s(-1.0), 0, Rm::Rne), r(inf32 | NEG32, DZ));
    assert_eq!(f32_div(ONE32, NEG32, Rm::Rtz), r(inf32 | NEG32, DZ));
    assert_eq!(f64_div(0, 0, Rm::Rne), r(QNAN64, NV));
    assert_eq!(f64_div(inf64, inf64, Rm::Rne), r(QNAN64, NV));
    assert_eq!(f32_div(ONE32, inf32, Rm::Rne), r(0, 0));
}

#[test]
fn underflow_tininess_after_rounding() {
    let min_normal32 = 0x0080_0000;
    let below_one32 = s(1.0 - 2f32.powi(-24));
    // (1 - 2^-24) * 2^-126 = 2^-126 - 2^-150: with unbounded exponent it is a 24-bit value below 2^-126 (tiny);
    // in the format it is halfway between 2^-126 - 2^-149 (odd) and 2^-126 (even).
    assert_eq!(f32_mul(below_one32, min_normal32, Rm::Rne), r(min_normal32, UF | NX));
    assert_eq!(f32_mul(below_one32, min_normal32, Rm::Rup), r(min_normal32, UF | NX));
    assert_eq!(f32_mul(below_one32, min_normal32, Rm::Rtz), r(min_normal32 - 1, UF | NX));
    assert_eq!(f32_mul(below_one32, min_normal32, Rm::Rmm), r(min_normal32, UF | NX));
    // 2^-126 - 2^-151 rounds to 2^-126 even with unbounded exponent: not tiny, so no UF.
    let x = d(2f64.powi(-126) - 2f64.powi(-151));
    assert_eq!(f64_to_f32(x, Rm::Rne), r(min_normal32, NX));
    assert_eq!(f64_to_f32(x, Rm::Rtz), r(min_normal32 - 1, UF | NX));
    let x = d(2f64.powi(-126) - 2f64.powi(-150));
    assert_eq!(f64_to_f32(x, Rm::Rne), r(min_normal32, UF | NX));
    // The same in double: (1 - 2^-53) * 2^-1022.
    let min_normal64 = 0x0010_0000_0000_0000;
    assert_eq!(f64_mul(d(1.0 - 2f64.powi(-53)), min_normal64, Rm::Rne), r(min_normal64, UF | NX));
    // The same by division and by fma (whose fast paths must not take a smallest-normal result as safe).
    assert_eq!(f64_div(d(1.0 - 2f64.powi(-53)), d(2f64.powi(1022)), Rm::Rne), r(min_normal64, UF | NX));
    assert_eq!(f32_div(below_one32, s(2f32.powi(126)), Rm::Rne), r(min_normal32, UF | NX));
    let eps64 = d(2f64.powi(-53));
    assert_eq!(f64_madd(min_normal64 | NEG64, eps64, min_normal64, Rm::Rne), r(min_normal64, UF | NX));
    assert_eq!(f32_madd(min_normal32 | NEG32, s(2f32.powi(-24)), min_normal32, Rm::Rne), r(min_normal32, UF | NX));
    assert_eq!(f64_to_f32(d(2f64.powi(-126) - 2f64.powi(-150)), Rm::Rne), r(min_normal32, UF | NX));
    // Exact subnormal results raise nothing; inexact ones raise UF and NX.
    assert_eq!(f32_mul(min_normal32, s(0.5), Rm::Rne), r(0x0040_0000, 0));
    assert_eq!(f64_sub(min_normal64 + 3, min_normal64, Rm::Rne), r(3, 0));
    assert_eq!(f32_mul(1, s(0.5), Rm::Rne), r(0, UF | NX));
    assert_eq!(f32_mul(1, s(0.5), Rm::Rup), r(1, UF | NX));
    assert_eq!(f32_mul(1 | NEG32, s(0.5), Rm::Rne), r(NEG32, UF | NX));
    assert_eq!(f64_div(1, d(3.0), Rm::Rne), r(0, UF | NX));
    assert_eq!(f64_div(3, d(2.0), Rm::Rne), r(2, UF | NX));
    assert_eq!(f64_to_f32(1, Rm::Rup), r(1, UF | NX));
    // Subnormal operands.
    assert_eq!(f32_add(1, 1, Rm::Rne), r(2, 0));
    assert_eq!(f64_sqrt(4, Rm::Rne), r(d(2f64.powi(-536)), 0));
    assert_eq!(f32_to_f64(1), r(d(2f64.powi(-149)), 0));
    assert_eq!(f32_sqrt(1, Rm::Rne).flags, NX);
}

#[test]
fn fused_multiply_add() {
    let a = d(1.0 + 2f64.powi(-27));
    // (1 + 2^-27)^2 - 1 = 2^-26 + 2^-54 exactly: a single rounding keeps the last term.
    assert_eq!(f64_madd(a, a, d(-1.0), Rm::Rne), r(d(2f64.powi(-26) + 2f64.powi(-54)), 0));
    assert_eq!(f64_msub(a, a, ONE64, Rm::Rne), r(d(2f64.powi(-26) + 2f64.powi(-54)), 0));
    assert_eq!(f64_nmsub(a, a, ONE64, Rm::Rne), r(d(-(2f64.powi(-26) + 2f64.powi(-54))), 0));
    assert_eq!(f64_nmadd(a, a, d(-1.0), Rm::Rne), r(d(-(2f64.powi(-26) + 2f64.powi(-54))), 0));
    let a = s(1.0 + 2f32.powi(-12));
    assert_eq!(f32_madd(a, a, s(-1.0), Rm::Rne), r(s(2f32.powi(-11) + 2f32.powi(-24)), 0));
    // inf * 0 is invalid even with a quiet NaN addend.
    let inf = d(f64::INFINITY);
    assert_eq!(f64_madd(inf, 0, QNAN64, Rm::Rne), r(QNAN64, NV));
    assert_eq!(f64_madd(0, inf, ONE64, Rm::Rne), r(QNAN64, NV));
    assert_eq!(f32_nmadd(s(f32::INFINITY), NEG32, QNAN32, Rm::Rne), r(QNAN32, NV));
    assert_eq!(f64_madd(QNAN64, ONE64, inf, Rm::Rne), r(QNAN64, 0));
    assert_eq!(f32_madd(ONE32, ONE32, 0x7f80_0001, Rm::Rne), r(QNAN32, NV));
    assert_eq!(f64_madd(inf, ONE64, inf | NEG64, Rm::Rne), r(QNAN64, NV));
    // Signs of exact zeros: operands are negated before the sum.
    assert_eq!(f64_madd(ONE64, 0, NEG64, Rm::Rne), r(0, 0));
    assert_eq!(f64_madd(ONE64, 0, NEG64, Rm::Rdn), r(NEG64, 0));
    assert_eq!(f64_msub(ONE64, 0, 0, Rm::Rne), r(0, 0));
    assert_eq!(f64_msub(ONE64, 0, 0, Rm::Rdn), r(NEG64, 0));
    assert_eq!(f64_nmadd(ONE64, 0, 0, Rm::Rne), r(NEG64, 0));
    assert_eq!(f64_nmsub(ONE64, 0, 0, Rm::Rne), r(0, 0));
    assert_eq!(f32_nmadd(ONE32, 0, NEG32, Rm::Rne), r(0, 0));
    assert_eq!(f32_nmsub(ONE32, 0, NEG32, Rm::Rne), r(NEG32, 0));
    assert_eq!(f32_madd(ONE32, ONE32, s(-1.0), Rm::Rne), r(0, 0));
    assert_eq!(f32_madd(ONE32, ONE32, s(-1.0), Rm::Rdn), r(NEG32, 0));
    // Halfway after the exact sum: 1 + 2^-24 (single) as 1 * 1 + 2^-24.
    assert_eq!(f32_madd(ONE32, ONE32, s(2f32.powi(-24)), Rm::Rne), r(ONE32, NX));
    assert_eq!(f32_madd(ONE32, ONE32, s(2f32.powi(-24)), Rm::Rmm), r(ONE32 + 1, NX));
    // Off halfway by a product bit below double precision: p = 2^-24 * (1 + 2^-23) * (1 - 2^-23) = 2^-24 - 2^-70.
    // 1 + p is just below 1 + 2^-24 (halfway): a double rounding would land on the halfway point and then on 1.
    let a = s(2f32.powi(-24) * (1.0 + 2f32.powi(-23)));
    let b = s(1.0 - 2f32.powi(-23));
    assert_eq!(f32_madd(a, b, ONE32, Rm::Rne), r(ONE32, NX));
    assert_eq!(f32_madd(a, b, ONE32, Rm::Rup), r(ONE32 + 1, NX));
    // (1 + 2^-23) - p = 1 + 2^-24 + 2^-70 is just above it: rounds up, where rounding twice would give 1.
    assert_eq!(f32_nmsub(a, b, ONE32 + 1, Rm::Rne), r(ONE32 + 1, NX));
    assert_eq!(f32_nmsub(a, b, ONE32 + 1, Rm::Rtz), r(ONE32, NX));
    // In double: (1 + 2^-52) * (1 - 2^-52) = 1 - 2^-104; plus 2^-53 * ... similarly just off halfway.
    let a = d(2f64.powi(-53) * (1.0 + 2f64.powi(-52)));
    let b = d(1.0 - 2f64.powi(-52));
    assert_eq!(f64_madd(a, b, ONE64, Rm::Rne), r(ONE64, NX));
    assert_eq!(f64_nmsub(a, b, ONE64 + 1, Rm::Rne), r(ONE64 + 1, NX));
    // A zero addend or a zero factor.
    assert_eq!(f64_madd(d(3.0), d(5.0), NEG64, Rm::Rne), r(d(15.0), 0));
    assert_eq!(f64_madd(ONE64 + 1, ONE64 + 1, 0, Rm::Rne), r(ONE64 + 2, NX), "1 + 2^-51 + 2^-104");
    assert_eq!(f64_madd(0, d(5.0), NEG64, Rm::Rne), r(0, 0));
    assert_eq!(f64_madd(NEG64, d(5.0), NEG64, Rm::Rne), r(NEG64, 0));
    assert_eq!(f64_madd(0, d(5.0), 1, Rm::Rne), r(1, 0));
    assert_eq!(f64_madd(0, d(f64::MAX), d(-2.0), Rm::Rne), r(d(-2.0), 0));
    assert_eq!(f64_madd(0, d(f64::MAX), d(f64::INFINITY), Rm::Rne), r(d(f64::INFINITY), 0));
    // A large addend and a product far below it (the fast path's widest exponent gaps), exact and inexact.
    assert_eq!(f64_madd(d(2f64.powi(-100)), d(3.0), d(2f64.powi(100)), Rm::Rne), r(d(2f64.powi(100)), NX));
    assert_eq!(f64_madd(d(2f64.powi(60)), d(3.0), d(2f64.powi(-100)), Rm::Rne), r(d(3.0 * 2f64.powi(60)), NX));
    assert_eq!(
        f64_madd(d(2f64.powi(50)), d(3.0), d(2f64.powi(100)), Rm::Rne),
        r(d(2f64.powi(100) + 3.0 * 2f64.powi(50)), 0)
    );
    assert_eq!(
        f64_madd(d(2f64.powi(60)), d(3.0), d(2f64.powi(30)), Rm::Rne),
        r(d(3.0 * 2f64.powi(60) + 2f64.powi(30)), 0)
    );
}

#[test]
fn square_roots() {
    for rm in Rm::ALL {
        assert_eq!(f64_sqrt(d(4.0), rm), r(d(2.0), 0));
        assert_eq!(f32_sqrt(NEG32, rm), r(NEG32, 0));
        assert_eq!(f64_sqrt(NEG64 | 1, rm), r(QNAN64, NV));
        assert_eq!(f32_sqrt(s(f32::NEG_INFINITY), rm), r(QNAN32, NV));
        assert_eq!(f32_sqrt(s(f32::INFINITY), rm), r(s(f32::INFINITY), 0));
        assert_eq!(f64_sqrt(0x7ff0_0000_0000_0001, rm), r(QNAN64, NV));
        assert_eq!(f64_sqrt(QNAN64 | NEG64, rm), r(QNAN64, 0));
    }
    // sqrt(2) = 1.41421356237309504880...: the nearest double 0x3ff6a09e667f3bcd (1.41421356237309514547) is above
    // it, the nearest single 0x3fb504f3 (1.41421353816986083984) below it.
    assert_eq!(f64_sqrt(d(2.0), Rm::Rne), r(0x3ff6_a09e_667f_3bcd, NX));
    assert_eq!(f64_sqrt(d(2.0), Rm::Rup), r(0x3ff6_a09e_667f_3bcd, NX));
    assert_eq!(f64_sqrt(d(2.0), Rm::Rtz), r(0x3ff6_a09e_667f_3bcc, NX));
    assert_eq!(f32_sqrt(s(2.0), Rm::Rne), r(0x3fb5_04f3, NX));
    assert_eq!(f32_sqrt(s(2.0), Rm::Rtz), r(0x3fb5_04f3, NX));
    assert_eq!(f32_sqrt(s(2.0), Rm::Rup), r(0x3fb5_04f4, NX));
}

#[test]
fn comparisons() {
    let snan = 0x7f80_0001;
    assert_eq!(f32_eq(QNAN32, ONE32), r(false, 0));
    assert_eq!(f32_eq(snan, ONE32), r(false, NV));
    assert_eq!(f32_lt(QNAN32, ONE32), r(false, NV));
    assert_eq!(f32_le(ONE32, QNAN32), r(false, NV));
    assert_eq!(f32_eq(QNAN32, QNAN32), r(false, 0));
    assert_eq!(f64_eq(0, NEG64), r(true, 0));
    assert_eq!(f64_lt(NEG64, 0), r(false, 0));
    assert_eq!(f64_le(NEG64, 0), r(true, 0));
    assert_eq!(f64_lt(d(-1.0), d(f64::INFINITY)), r(true, 0));
    assert_eq!(f64_le(d(f64::INFINITY), d(f64::INFINITY)), r(true, 0));
    assert_eq!(f64_eq(0x7ff4_0000_0000_0000, QNAN64), r(false, NV));
}

#[test]
fn classify_all_ten_classes() {
    let singles = [
        (s(f32::NEG_INFINITY), 0),
        (s(-1.5), 1),
        (NEG32 | 1, 2),
        (NEG32, 3),
        (0, 4),
        (0x007f_ffff, 5),
        (s(f32::MAX), 6),
        (s(f32::INFINITY), 7),
        (0xff80_0001, 8),
        (QNAN32, 9),
    ];
    for (bits, class) in singles {
        assert_eq!(f32_classify(bits), 1 << class, "{bits:#x}");
    }
    let doubles = [
        (d(f64::NEG_INFINITY), 0),
        (d(-f64::MIN_POSITIVE), 1),
        (NEG64 | 0x000f_ffff_ffff_ffff, 2),
        (NEG64, 3),
        (0, 4),
        (1, 5),
        (ONE64, 6),
        (d(f64::INFINITY), 7),
        (0x7ff7_ffff_ffff_ffff, 8),
        (0xfff8_0000_0000_0001, 9),
    ];
    for (bits, class) in doubles {
        assert_eq!(f64_classify(bits), 1 << class, "{bits:#x}");
    }
}

#[test]
fn integer_to_float_rounding() {
    // 2^53 + 1 is halfway between 2^53 and 2^53 + 2.
    let x = (1i64 << 53) + 1;
    let (lo, hi) = (d(9007199254740992.0), d(9007199254740994.0));
    let expect = [(Rm::Rne, lo), (Rm::Rtz, lo), (Rm::Rdn, lo), (Rm::Rup, hi), (Rm::Rmm, hi)];
    for (rm, bits) in expect {
        assert_eq!(i64_to_f64(x, rm), r(bits, NX), "{rm:?}");
        assert_eq!(u64_to_f64(x as u64, rm), r(bits, NX), "{rm:?}");
        assert_eq!(
            i64_to_f64(-x, rm).bits ^ NEG64,
            if rm == Rm::Rdn {
                hi
            } else if rm == Rm::Rup {
                lo
            } else {
                bits
            }
        );
    }
    assert_eq!(u64_to_f64(u64::MAX, Rm::Rne), r(d(18446744073709551616.0), NX));
    assert_eq!(u64_to_f64(u64::MAX, Rm::Rtz), r(d(18446744073709549568.0), NX));
    assert_eq!(i64_to_f64(i64::MAX, Rm::Rne), r(d(9223372036854775808.0), NX));
    assert_eq!(i64_to_f64(i64::MIN, Rm::Rtz), r(d(-9223372036854775808.0), 0));
    assert_eq!(i32_to_f32(16777217, Rm::Rne), r(s(16777216.0), NX));
    assert_eq!(i32_to_f32(16777217, Rm::Rup), r(s(16777218.0), NX));
    assert_eq!(i32_to_f32(-16777217, Rm::Rdn), r(s(-16777218.0), NX));
    assert_eq!(u32_to_f32(u32::MAX, Rm::Rne), r(s(4294967296.0), NX));
    assert_eq!(u32_to_f32(u32::MAX, Rm::Rtz), r(s(4294967040.0), NX));
    assert_eq!(i64_to_f32(i64::MIN, Rm::Rup), r(s(-9223372036854775808.0), 0));
    assert_eq!(u64_to_f32(u64::MAX, Rm::Rdn), r(s(18446742974197923840.0), NX));
    assert_eq!(i32_to_f64(i32::MIN), r(d(-2147483648.0), 0));
    assert_eq!(u32_to_f64(u32::MAX), r(d(4294967295.0), 0));
    assert_eq!(i32_to_f32(0, Rm::Rdn), r(0, 0), "integer zero is +0 in every mode");
}

#[test]
fn float_to_integer_rounding() {
    let sext = |v: i64| v as u64;
    let expect = [(Rm::Rne, 2, -2), (Rm::Rtz, 2, -2), (Rm::Rdn, 2, -3), (Rm::Rup, 3, -2), (Rm::Rmm, 3, -3)];
    for (rm, pos, neg) in expect {
        assert_eq!(f64_to_i32(d(2.5), rm), r(sext(pos), NX), "{rm:?}");
        assert_eq!(f64_to_i32(d(-2.5), rm), r(sext(neg), NX), "{rm:?}");
        assert_eq!(f32_to_i64(s(2.5), rm), r(sext(pos), NX), "{rm:?}");
        assert_eq!(f32_to_i32(s(-2.5), rm), r(sext(neg), NX), "{rm:?}");
        assert_eq!(f64_to_u64(d(2.5), rm), r(sext(pos), NX), "{rm:?}");
        assert_eq!(f32_to_u32(s(2.5), rm), r(sext(pos), NX), "{rm:?}");
        assert_eq!(f64_to_i64(d(-7.0), rm), r(sext(-7), 0));
    }
    assert_eq!(f64_to_i32(d(3.5), Rm::Rne), r(4, NX));
    assert_eq!(f64_to_i64(d(1e18), Rm::Rne), r(1_000_000_000_000_000_000, 0));
    assert_eq!(f64_to_u64(d(18446744073709549568.0), Rm::Rne), r(18446744073709549568, 0));
    assert_eq!(f32_to_u32(s(-0.0), Rm::Rne), r(0, 0));
    assert_eq!(f32_to_i32(1, Rm::Rup), r(1, NX), "the smallest subnormal rounds up to 1");
    assert_eq!(f32_to_i32(1 | NEG32, Rm::Rdn), r(u64::MAX, NX));
}

#[test]
fn double_to_single() {
    assert_eq!(f64_to_f32(d(0.1), Rm::Rne), r(s(0.1), NX));
    assert_eq!(f64_to_f32(d(0.1), Rm::Rtz), r(s(0.1) - 1, NX));
    assert_eq!(f64_to_f32(d(-1e300), Rm::Rdn), r(s(f32::NEG_INFINITY), OF | NX));
    assert_eq!(f64_to_f32(d(-1e300), Rm::Rup), r(s(f32::MIN), OF | NX));
    assert_eq!(f64_to_f32(d(1e-300), Rm::Rne), r(0, UF | NX));
    assert_eq!(f64_to_f32(d(f64::NEG_INFINITY), Rm::Rne), r(s(f32::NEG_INFINITY), 0));
    assert_eq!(f64_to_f32(NEG64, Rm::Rne), r(NEG32, 0));
    assert_eq!(f64_to_f32(d(0.75), Rm::Rtz), r(s(0.75), 0));
    assert_eq!(f32_to_f64(s(f32::MIN_POSITIVE)), r(d(f64::from(f32::MIN_POSITIVE)), 0));
}

// ---------------------------------------------------------------------------------------------------------------
// Differential test: each fast path against SoftFloat.

/// xorshift64*: a fixed seed keeps failures reproducible.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A double biased to the values where arithmetic has corner cases. `near` is a value to relate to
    /// (cancellation, halfway points, shared exponents).
    pub(super) fn double(&mut self, near: u64) -> u64 {
        let sign = self.next() & NEG64;
        let mantissa = self.next() & 0x000f_ffff_ffff_ffff;
        let short_mantissa = (self.next() & 0xff) << (self.below(45));
        match self.below(24) {
            0 => sign,
            1 => sign | 0x7ff0_0000_0000_0000,
            2 => sign | QNAN64 | (mantissa >> 1),
            3 => sign | 0x7ff0_0000_0000_0000 | (mantissa >> 1).max(1),
            4 => sign | mantissa,
            5 => sign | (self.below(4) + 1),
            6 => sign | (0x000f_ffff_ffff_ffff - self.below(3)),
            7 => sign | (0x0010_0000_0000_0000 + self.below(3)),
            8 => sign | (d(f64::MAX) - self.below(3)),
            9 => sign | (ONE64 + self.below(3)),
            10 => sign | (self.below(40) + 1) << 52 | mantissa,
            11 => sign | (2046 - self.below(40)) << 52 | mantissa,
            12 => near ^ NEG64,
            13 => near.wrapping_add(self.below(5)).wrapping_sub(2),
            14 => (near ^ sign) & 0xfff0_0000_0000_0000 | short_mantissa,
            15 => {
                (near & 0x7ff0_0000_0000_0000).wrapping_add((self.below(120) << 52).wrapping_sub(60 << 52))
                    | sign
                    | short_mantissa
            }
            16 | 17 => sign | (1023 - 30 + self.below(60)) << 52 | short_mantissa,
            18..=20 => sign | (1023 - 30 + self.below(60)) << 52 | mantissa,
            _ => self.next(),
        }
    }

    pub(super) fn single(&mut self, near: u32) -> u32 {
        let sign = self.next() as u32 & NEG32;
        let mantissa = self.next() as u32 & 0x007f_ffff;
        let short_mantissa = (self.next() as u32 & 0xf) << self.below(20);
        match self.below(24) {
            0 => sign,
            1 => sign | 0x7f80_0000,
            2 => sign | QNAN32 | (mantissa >> 1),
            3 => sign | 0x7f80_0000 | (mantissa >> 1).max(1),
            4 => sign | mantissa,
            5 => sign | (self.below(4) as u32 + 1),
            6 => sign | (0x007f_ffff - self.below(3) as u32),
            7 => sign | (0x0080_0000 + self.below(3) as u32),
            8 => sign | (s(f32::MAX) - self.below(3) as u32),
            9 => sign | (ONE32 + self.below(3) as u32),
            10 => sign | (self.below(20) as u32 + 1) << 23 | mantissa,
            11 => sign | (254 - self.below(20) as u32) << 23 | mantissa,
            12 => near ^ NEG32,
            13 => near.wrapping_add(self.below(5) as u32).wrapping_sub(2),
            14 => (near ^ sign) & 0xff80_0000 | short_mantissa,
            15 => {
                (near & 0x7f80_0000).wrapping_add((self.below(60) as u32) << 23).wrapping_sub(30 << 23)
                    | sign
                    | short_mantissa
            }
            16 | 17 => sign | (127 - 15 + self.below(30) as u32) << 23 | short_mantissa,
            18..=20 => sign | (127 - 15 + self.below(30) as u32) << 23 | mantissa,
            _ => self.next() as u32,
        }
    }

    pub(super) fn rm(&mut self) -> Rm {
        Rm::ALL[self.below(5) as usize]
    }
}

/// How often a fast path answered, so the test proves it exercised them.
#[derive(Default)]
struct Hits {
    fast: u64,
    /// Fast answers that were exact: the exactness tests must see both outcomes.
    exact: u64,
    total: u64,
}

impl Hits {
    fn count(&mut self, fast: bool, exact: bool) {
        self.total += 1;
        self.fast += fast as u64;
        self.exact += (fast && exact) as u64;
    }

    fn check(&self, name: &str, at_least_percent: u64) {
        eprintln!("{name}: fast path answered {} of {} ({} exact)", self.fast, self.total, self.exact);
        assert!(self.exact * 100 >= self.fast, "{name}: too few exact results ({} of {})", self.exact, self.fast);
        assert!(
            self.fast * 100 >= self.total * at_least_percent,
            "{name}: the fast path answered only {} of {} cases",
            self.fast,
            self.total
        );
    }
}

const CASES: usize = 400_000;

fn check_fast<T: PartialEq + std::fmt::Debug + Copy>(
    hits: &mut Hits,
    what: std::fmt::Arguments,
    fast: Option<FpResult<T>>,
    reference: FpResult<T>,
) {
    hits.count(fast.is_some(), fast.is_some_and(|r| r.flags == 0));
    if let Some(fast) = fast {
        assert_eq!(fast, reference, "{what}");
    }
}

#[test]
fn fast_paths_match_softfloat_double() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let (mut add, mut mul, mut div, mut sqrt, mut fma, mut cvt) =
        (Hits::default(), Hits::default(), Hits::default(), Hits::default(), Hits::default(), Hits::default());
    for _ in 0..CASES {
        let a = rng.double(ONE64);
        let b = rng.double(a);
        let c = if rng.below(4) == 0 {
            // c close to -a*b: cancellation, exact and halfway sums.
            let p = f64::from_bits(a) * f64::from_bits(b);
            (-p).to_bits().wrapping_add(rng.below(5)).wrapping_sub(2)
        } else {
            rng.double(b)
        };
        let rne = Rm::Rne;
        check_fast(&mut add, format_args!("add {a:#x} {b:#x}"), fast64::add_fast(a, b), soft::f64_add(a, b, rne));
        check_fast(&mut mul, format_args!("mul {a:#x} {b:#x}"), fast64::mul_fast(a, b), soft::f64_mul(a, b, rne));
        check_fast(&mut div, format_args!("div {a:#x} {b:#x}"), fast64::div_fast(a, b), soft::f64_div(a, b, rne));
        check_fast(&mut sqrt, format_args!("sqrt {a:#x}"), fast64::sqrt_fast(a), soft::f64_sqrt(a, rne));
        check_fast(
            &mut fma,
            format_args!("fma {a:#x} {b:#x} {c:#x}"),
            fast64::mul_add_fast(a, b, c),
            soft::f64_mul_add(a, b, c, rne),
        );
        check_fast(&mut cvt, format_args!("to f32 {a:#x}"), fast64::to_f32_fast(a), soft::f64_to_f32(a, rne));
        // The public functions in every mode (fast or not) against the reference.
        let rm = rng.rm();
        assert_eq!(f64_sub(a, b, rm), soft::f64_sub(a, b, rm), "sub {a:#x} {b:#x} {rm:?}");
        assert_eq!(
            f64_nmadd(a, b, c, rm),
            soft::f64_mul_add(a ^ NEG64, b, c ^ NEG64, rm),
            "nmadd {a:#x} {b:#x} {c:#x}"
        );
        assert_eq!(f64_to_i32(a, rm), soft::f64_to_i32(a, rm), "to i32 {a:#x} {rm:?}");
        assert_eq!(f64_to_u32(a, rm), soft::f64_to_u32(a, rm), "to u32 {a:#x} {rm:?}");
        assert_eq!(f64_to_i64(a, rm), soft::f64_to_i64(a, rm), "to i64 {a:#x} {rm:?}");
        assert_eq!(f64_to_u64(a, rm), soft::f64_to_u64(a, rm), "to u64 {a:#x} {rm:?}");
        let x = rng.next() >> rng.below(64);
        assert_eq!(i64_to_f64(x as i64, rm), soft::i64_to_f64(x as i64, rm), "from i64 {x:#x} {rm:?}");
        assert_eq!(u64_to_f64(x, rm), soft::u64_to_f64(x, rm), "from u64 {x:#x} {rm:?}");
        assert_eq!(i32_to_f64(x as i32), exact_ops::i32_to_f64(x as i32));
        assert_eq!(u32_to_f64(x as u32), exact_ops::u32_to_f64(x as u32));
        assert_eq!(f64_eq(a, b), exact_ops::f64_eq(a, b), "eq {a:#x} {b:#x}");
        assert_eq!(f64_lt(a, b), exact_ops::f64_lt(a, b), "lt {a:#x} {b:#x}");
        assert_eq!(f64_le(a, b), exact_ops::f64_le(a, b), "le {a:#x} {b:#x}");
    }
    add.check("f64 add", 60);
    mul.check("f64 mul", 40);
    div.check("f64 div", 40);
    sqrt.check("f64 sqrt", 25);
    fma.check("f64 fma", 20);
    cvt.check("f64 to f32", 15);
}

#[test]
fn fast_paths_match_softfloat_single() {
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let (mut add, mut mul, mut div, mut sqrt, mut fma) =
        (Hits::default(), Hits::default(), Hits::default(), Hits::default(), Hits::default());
    for _ in 0..CASES {
        let a = rng.single(ONE32);
        let b = rng.single(a);
        let c = if rng.below(4) == 0 {
            let p = f32::from_bits(a) * f32::from_bits(b);
            (-p).to_bits().wrapping_add(rng.below(5) as u32).wrapping_sub(2)
        } else {
            rng.single(b)
        };
        let rne = Rm::Rne;
        check_fast(&mut add, format_args!("add {a:#x} {b:#x}"), fast32::add_fast(a, b), soft::f32_add(a, b, rne));
        check_fast(&mut mul, format_args!("mul {a:#x} {b:#x}"), fast32::mul_fast(a, b), soft::f32_mul(a, b, rne));
        check_fast(&mut div, format_args!("div {a:#x} {b:#x}"), fast32::div_fast(a, b), soft::f32_div(a, b, rne));
        check_fast(&mut sqrt, format_args!("sqrt {a:#x}"), fast32::sqrt_fast(a), soft::f32_sqrt(a, rne));
        check_fast(
            &mut fma,
            format_args!("fma {a:#x} {b:#x} {c:#x}"),
            fast32::mul_add_fast(a, b, c),
            soft::f32_mul_add(a, b, c, rne),
        );
        let rm = rng.rm();
        assert_eq!(f32_sub(a, b, rm), soft::f32_sub(a, b, rm), "sub {a:#x} {b:#x} {rm:?}");
        assert_eq!(f32_nmsub(a, b, c, rm), soft::f32_mul_add(a ^ NEG32, b, c, rm), "nmsub {a:#x} {b:#x} {c:#x}");
        assert_eq!(f32_to_f64(a), soft::f32_to_f64(a), "to f64 {a:#x}");
        assert_eq!(f32_to_i32(a, rm), soft::f32_to_i32(a, rm), "to i32 {a:#x} {rm:?}");
        assert_eq!(f32_to_u32(a, rm), soft::f32_to_u32(a, rm), "to u32 {a:#x} {rm:?}");
        assert_eq!(f32_to_i64(a, rm), soft::f32_to_i64(a, rm), "to i64 {a:#x} {rm:?}");
        assert_eq!(f32_to_u64(a, rm), soft::f32_to_u64(a, rm), "to u64 {a:#x} {rm:?}");
        let x = rng.next() >> rng.below(64);
        assert_eq!(i32_to_f32(x as i32, rm), soft::i32_to_f32(x as i32, rm), "from i32 {x:#x} {rm:?}");
        assert_eq!(u32_to_f32(x as u32, rm), soft::u32_to_f32(x as u32, rm), "from u32 {x:#x} {rm:?}");
        assert_eq!(i64_to_f32(x as i64, rm), soft::i64_to_f32(x as i64, rm), "from i64 {x:#x} {rm:?}");
        assert_eq!(u64_to_f32(x, rm), soft::u64_to_f32(x, rm), "from u64 {x:#x} {rm:?}");
        assert_eq!(f32_eq(a, b), exact_ops::f32_eq(a, b), "eq {a:#x} {b:#x}");
        assert_eq!(f32_lt(a, b), exact_ops::f32_lt(a, b), "lt {a:#x} {b:#x}");
        assert_eq!(f32_le(a, b), exact_ops::f32_le(a, b), "le {a:#x} {b:#x}");
    }
    add.check("f32 add", 60);
    mul.check("f32 mul", 40);
    div.check("f32 div", 40);
    sqrt.check("f32 sqrt", 25);
    fma.check("f32 fma", 20);
}

/// The fast paths on the operands of ordinary numerical kernels (moderate exponents, full or short significands),
/// where they must answer nearly always and where exact results are frequent.
#[test]
fn fast_paths_cover_ordinary_operands() {
    let mut rng = Rng::new(7);
    let mut hits = Hits::default();
    let ordinary = |rng: &mut Rng| {
        let mantissa = if rng.below(2) == 0 { rng.next() & 0x000f_ffff_ffff_ffff } else { (rng.next() & 0xf) << 48 };
        (rng.next() & NEG64) | (1023 - 20 + rng.below(40)) << 52 | mantissa
    };
    for _ in 0..CASES / 2 {
        let (a, b, c) = (ordinary(&mut rng), ordinary(&mut rng), ordinary(&mut rng));
        let rne = Rm::Rne;
        let pairs = [
            (fast64::add_fast(a, b), soft::f64_add(a, b, rne)),
            (fast64::mul_fast(a, b), soft::f64_mul(a, b, rne)),
            (fast64::div_fast(a, b), soft::f64_div(a, b, rne)),
            (fast64::mul_add_fast(a, b, c), soft::f64_mul_add(a, b, c, rne)),
        ];
        for (fast, reference) in pairs {
            check_fast(&mut hits, format_args!("{a:#x} {b:#x} {c:#x}"), fast, reference);
        }
        let (a, b, c) = (f64_to_f32(a, rne).bits, f64_to_f32(b, rne).bits, f64_to_f32(c, rne).bits);
        let pairs = [
            (fast32::add_fast(a, b), soft::f32_add(a, b, rne)),
            (fast32::mul_fast(a, b), soft::f32_mul(a, b, rne)),
            (fast32::div_fast(a, b), soft::f32_div(a, b, rne)),
            (fast32::mul_add_fast(a, b, c), soft::f32_mul_add(a, b, c, rne)),
        ];
        for (fast, reference) in pairs {
            check_fast(&mut hits, format_args!("{a:#x} {b:#x} {c:#x}"), fast, reference);
        }
    }
    hits.check("ordinary operands", 97);
}
