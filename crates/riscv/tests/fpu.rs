//! `riscv::fpu` (fast paths and SoftFloat reference alike) against an independent implementation: LLVM's APFloat as
//! ported to Rust (`rustc_apfloat`), with the rules IEEE 754 leaves to the platform written here from the RISC-V
//! specification: the canonical NaN, NV for inf*0 in an `fma` even with a quiet NaN addend, saturating
//! conversions. Square roots, which APFloat lacks, are checked by squaring the result exactly in quad precision.
//!
//! Two documented departures of APFloat from IEEE 754 (which RISC-V and SoftFloat follow) are masked: it detects
//! tininess on the result rounded to the format, not with an unbounded exponent, so UF can differ when the result
//! is the smallest normal and inexact; and it raises no OF when an overflow delivers the largest finite number
//! (directed rounding), where IEEE raises OF with NX. The unit tests pin both cases by hand.

use riscv::fpu::{self, flags::*, FpResult, Rm};
use rustc_apfloat::ieee::{Double, Quad, Single};
use rustc_apfloat::{Float, FloatConvert, Round, Status, StatusAnd};
use std::cmp::Ordering;

trait Format: Float + FloatConvert<Quad> {
    const CANONICAL_NAN: u128;
    const MIN_NORMAL: u128;
    const MAX_FINITE: u128;
    const SIGN: u128;
}

impl Format for Single {
    const CANONICAL_NAN: u128 = 0x7fc0_0000;
    const MIN_NORMAL: u128 = 0x0080_0000;
    const MAX_FINITE: u128 = 0x7f7f_ffff;
    const SIGN: u128 = 1 << 31;
}

impl Format for Double {
    const CANONICAL_NAN: u128 = 0x7ff8_0000_0000_0000;
    const MIN_NORMAL: u128 = 0x0010_0000_0000_0000;
    const MAX_FINITE: u128 = 0x7fef_ffff_ffff_ffff;
    const SIGN: u128 = 1 << 63;
}

fn round(rm: Rm) -> Round {
    match rm {
        Rm::Rne => Round::NearestTiesToEven,
        Rm::Rtz => Round::TowardZero,
        Rm::Rdn => Round::TowardNegative,
        Rm::Rup => Round::TowardPositive,
        Rm::Rmm => Round::NearestTiesToAway,
    }
}

fn fflags(status: Status) -> u8 {
    let table = [
        (Status::INVALID_OP, NV),
        (Status::DIV_BY_ZERO, DZ),
        (Status::OVERFLOW, OF),
        (Status::UNDERFLOW, UF),
        (Status::INEXACT, NX),
    ];
    table.iter().filter(|(s, _)| status.contains(*s)).fold(0, |acc, (_, f)| acc | f)
}

/// An IEEE result as RISC-V delivers it: any NaN is the canonical NaN.
fn deliver<F: Format>(r: StatusAnd<F>) -> FpResult<u128> {
    let bits = if r.value.is_nan() { F::CANONICAL_NAN } else { r.value.to_bits() };
    FpResult { bits, flags: fflags(r.status) }
}

fn nan_result<F: Format>(invalid: bool) -> FpResult<u128> {
    FpResult { bits: F::CANONICAL_NAN, flags: if invalid { NV } else { 0 } }
}

fn binary<F: Format>(a: u128, b: u128, rm: Rm, op: fn(F, F, Round) -> StatusAnd<F>) -> FpResult<u128> {
    let (x, y) = (F::from_bits(a), F::from_bits(b));
    if x.is_nan() || y.is_nan() {
        return nan_result::<F>(x.is_signaling() || y.is_signaling());
    }
    deliver(op(x, y, round(rm)))
}

/// `a * b + c` with the operands already negated as the instruction says (fnmadd = -(a*b) - c = (-a)*b + (-c)).
fn fused<F: Format>(a: u128, b: u128, c: u128, rm: Rm) -> FpResult<u128> {
    let (x, y, z) = (F::from_bits(a), F::from_bits(b), F::from_bits(c));
    if x.is_nan() || y.is_nan() || z.is_nan() {
        let inf_times_zero = (x.is_infinite() && y.is_zero()) || (x.is_zero() && y.is_infinite());
        return nan_result::<F>(x.is_signaling() || y.is_signaling() || z.is_signaling() || inf_times_zero);
    }
    deliver(x.mul_add_r(y, z, round(rm)))
}

fn convert<F: Format + FloatConvert<T>, T: Format>(a: u128, rm: Rm) -> FpResult<u128> {
    let x = F::from_bits(a);
    if x.is_nan() {
        return nan_result::<T>(x.is_signaling());
    }
    deliver::<T>(x.convert_r(round(rm), &mut false))
}

/// Float to integer in [lo, hi]: NaN gives hi, out of range saturates, both NV only; otherwise NX if inexact.
fn to_int<F: Format>(a: u128, rm: Rm, lo: i128, hi: i128) -> FpResult<i128> {
    let x = F::from_bits(a);
    if x.is_nan() {
        return FpResult { bits: hi, flags: NV };
    }
    let saturated = FpResult { bits: if x.is_negative() { lo } else { hi }, flags: NV };
    if x.is_infinite() || (x.is_finite_non_zero() && x.ilogb() >= 100) {
        return saturated;
    }
    let r = x.to_i128_r(128, round(rm), &mut false);
    if r.value < lo || r.value > hi {
        return saturated;
    }
    FpResult { bits: r.value, flags: if r.status.contains(Status::INEXACT) { NX } else { 0 } }
}

/// Whether `got` is the RISC-V square root of `a` in mode `rm`: special operands by the rules, finite positive ones by
/// squaring exactly in quad precision (a 54-bit midpoint squared fits its 113 bits).
fn check_sqrt<F: Format>(a: u128, rm: Rm, got: FpResult<u128>) {
    let x = F::from_bits(a);
    let expected = if x.is_nan() {
        Some(nan_result::<F>(x.is_signaling()))
    } else if x.is_zero() {
        Some(FpResult { bits: a, flags: 0 })
    } else if x.is_negative() {
        Some(nan_result::<F>(true))
    } else if x.is_infinite() {
        Some(FpResult { bits: a, flags: 0 })
    } else {
        None
    };
    if let Some(expected) = expected {
        assert_eq!(got, expected, "sqrt {a:#x} {rm:?}");
        return;
    }
    let r = F::from_bits(got.bits);
    assert!(r.is_finite_non_zero() && !r.is_negative(), "sqrt {a:#x} {rm:?}: {got:?}");
    let quad = |v: F| -> Quad { v.convert(&mut false).value };
    let square = |v: Quad| -> Quad {
        let s = v.mul_r(v, Round::NearestTiesToEven);
        assert_eq!(s.status, Status::OK, "exact square");
        s.value
    };
    let half = Quad::from_u128(1).value.scalbn(-1);
    let below = F::from_bits(got.bits - 1);
    let above = F::from_bits(got.bits + 1);
    let target = quad(x);
    let r2 = square(quad(r));
    let cmp = |p: Quad, q: Quad| p.partial_cmp(&q).unwrap();
    let ok = match rm {
        Rm::Rtz | Rm::Rdn => cmp(r2, target) != Ordering::Greater && cmp(target, square(quad(above))) == Ordering::Less,
        Rm::Rup => cmp(square(quad(below)), target) == Ordering::Less && cmp(target, r2) != Ordering::Greater,
        Rm::Rne | Rm::Rmm => {
            let mid = |p: F, q: F| square(((quad(p) + quad(q)).value * half).value);
            cmp(mid(below, r), target) == Ordering::Less && cmp(target, mid(r, above)) == Ordering::Less
        }
    };
    assert!(ok, "sqrt {a:#x} {rm:?}: {:#x} is not correctly rounded", got.bits);
    let exact = cmp(r2, target) == Ordering::Equal;
    assert_eq!(got.flags, if exact { 0 } else { NX }, "sqrt {a:#x} {rm:?} flags");
}

/// Equal, except for UF on an inexact smallest-normal result and OF on an inexact largest-finite one, where APFloat
/// departs from IEEE 754 (see the module docs).
fn same_modulo_apfloat_quirks<F: Format>(got: FpResult<u128>, expected: FpResult<u128>) -> bool {
    let magnitude = got.bits & !F::SIGN;
    let inexact = got.flags & NX != 0;
    let mask = match magnitude {
        m if m == F::MIN_NORMAL && inexact => !UF,
        m if m == F::MAX_FINITE && inexact => !OF,
        _ => !0,
    };
    got.bits == expected.bits && got.flags & mask == expected.flags & mask
}

fn assert_same<F: Format>(what: std::fmt::Arguments, got: FpResult<u128>, expected: FpResult<u128>) {
    assert!(same_modulo_apfloat_quirks::<F>(got, expected), "{what}: got {got:x?}, APFloat+spec says {expected:x?}");
}

fn widen<T: Into<u128>>(r: FpResult<T>) -> FpResult<u128> {
    FpResult { bits: r.bits.into(), flags: r.flags }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A bit pattern of a format with `exponent_bits` and `mantissa_bits`, biased to corner cases; `near` relates
    /// it to another operand (cancellation, ties, shared exponents).
    fn operand(&mut self, exponent_bits: u32, mantissa_bits: u32, near: u64) -> u64 {
        let mantissa_mask = (1u64 << mantissa_bits) - 1;
        let exponent_max = (1u64 << exponent_bits) - 1;
        let bias = exponent_max / 2;
        let sign = (self.next() & 1) << (exponent_bits + mantissa_bits);
        let mantissa = self.next() & mantissa_mask;
        let short = (self.next() & 0x1f) << self.below(u64::from(mantissa_bits) - 5);
        let with = |exponent: u64, mantissa: u64| sign | (exponent << mantissa_bits) | mantissa;
        match self.below(16) {
            0 => with(0, 0),
            1 => with(exponent_max, 0),
            2 => with(exponent_max, mantissa | 1),
            3 => with(0, mantissa),
            4 => with(0, self.below(3) + 1),
            5 => with(1, self.below(3)),
            6 => with(exponent_max - 1, mantissa_mask - self.below(3)),
            7 => with(bias + self.below(3), short),
            8 => near ^ (1 << (exponent_bits + mantissa_bits)),
            9 => near.wrapping_add(self.below(5)).wrapping_sub(2) & (u64::MAX >> (63 - exponent_bits - mantissa_bits)),
            10 | 11 => with(bias - 20 + self.below(40), short),
            12 | 13 => with(bias - 20 + self.below(40), mantissa),
            _ => with(self.below(exponent_max + 1), mantissa),
        }
    }

    fn single(&mut self, near: u32) -> u32 {
        self.operand(8, 23, near.into()) as u32
    }

    fn double(&mut self, near: u64) -> u64 {
        self.operand(11, 52, near)
    }

    fn integer(&mut self) -> u64 {
        let x = self.next() >> self.below(64);
        match self.below(4) {
            0 => x,
            1 => x.wrapping_neg(),
            2 => (x | 1) << self.below(40),
            _ => (1u64 << self.below(64)).wrapping_add(self.below(3)).wrapping_sub(1),
        }
    }
}

const ROUNDS: usize = 20_000;

#[test]
fn single_precision_matches_apfloat() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let neg = 1u32 << 31;
    for i in 0..ROUNDS {
        let a = rng.single(0x3f80_0000);
        let b = rng.single(a);
        let c = if i % 4 == 0 { (-(f32::from_bits(a) * f32::from_bits(b))).to_bits() } else { rng.single(b) };
        let (a_, b_, c_) = (u128::from(a), u128::from(b), u128::from(c));
        for rm in Rm::ALL {
            let at = |op: &str| format!("{op} {a:#x} {b:#x} {c:#x} {rm:?}");
            let s = |r: FpResult<u32>| widen(r);
            assert_same::<Single>(
                format_args!("{}", at("add")),
                s(fpu::f32_add(a, b, rm)),
                binary::<Single>(a_, b_, rm, Single::add_r),
            );
            assert_same::<Single>(
                format_args!("{}", at("sub")),
                s(fpu::f32_sub(a, b, rm)),
                binary::<Single>(a_, b_, rm, Single::sub_r),
            );
            assert_same::<Single>(
                format_args!("{}", at("mul")),
                s(fpu::f32_mul(a, b, rm)),
                binary::<Single>(a_, b_, rm, Single::mul_r),
            );
            assert_same::<Single>(
                format_args!("{}", at("div")),
                s(fpu::f32_div(a, b, rm)),
                binary::<Single>(a_, b_, rm, Single::div_r),
            );
            let n = u128::from(neg);
            assert_same::<Single>(
                format_args!("{}", at("madd")),
                s(fpu::f32_madd(a, b, c, rm)),
                fused::<Single>(a_, b_, c_, rm),
            );
            assert_same::<Single>(
                format_args!("{}", at("msub")),
                s(fpu::f32_msub(a, b, c, rm)),
                fused::<Single>(a_, b_, c_ ^ n, rm),
            );
            assert_same::<Single>(
                format_args!("{}", at("nmsub")),
                s(fpu::f32_nmsub(a, b, c, rm)),
                fused::<Single>(a_ ^ n, b_, c_, rm),
            );
            assert_same::<Single>(
                format_args!("{}", at("nmadd")),
                s(fpu::f32_nmadd(a, b, c, rm)),
                fused::<Single>(a_ ^ n, b_, c_ ^ n, rm),
            );
            check_sqrt::<Single>(a_, rm, s(fpu::f32_sqrt(a, rm)));
            check_to_int(
                &at("to int"),
                a_,
                rm,
                [fpu::f32_to_i32(a, rm), fpu::f32_to_u32(a, rm), fpu::f32_to_i64(a, rm), fpu::f32_to_u64(a, rm)],
                to_int::<Single>,
            );
            let x = rng.integer();
            let from = |r: FpResult<u32>| widen(r);
            let expect = |signed: bool, v: i128| {
                deliver::<Single>(if signed {
                    Single::from_i128_r(v, round(rm))
                } else {
                    Single::from_u128_r(v as u128, round(rm))
                })
            };
            assert_eq!(from(fpu::i32_to_f32(x as i32, rm)), expect(true, i128::from(x as i32)), "i32 {x:#x} {rm:?}");
            assert_eq!(from(fpu::u32_to_f32(x as u32, rm)), expect(false, i128::from(x as u32)), "u32 {x:#x} {rm:?}");
            assert_eq!(from(fpu::i64_to_f32(x as i64, rm)), expect(true, i128::from(x as i64)), "i64 {x:#x} {rm:?}");
            assert_eq!(from(fpu::u64_to_f32(x, rm)), expect(false, i128::from(x)), "u64 {x:#x} {rm:?}");
        }
        assert_eq!(widen(fpu::f32_to_f64(a)), convert::<Single, Double>(a_, Rm::Rne), "to f64 {a:#x}");
        check_bit_level::<Single>(
            a_,
            b_,
            [fpu::f32_eq(a, b), fpu::f32_lt(a, b), fpu::f32_le(a, b)],
            [widen(fpu::f32_min(a, b)), widen(fpu::f32_max(a, b))],
            fpu::f32_classify(a),
        );
    }
}

#[test]
fn double_precision_matches_apfloat() {
    let mut rng = Rng(0x0fed_cba9_8765_4321);
    let neg = 1u64 << 63;
    for i in 0..ROUNDS {
        let a = rng.double(0x3ff0_0000_0000_0000);
        let b = rng.double(a);
        let c = if i % 4 == 0 { (-(f64::from_bits(a) * f64::from_bits(b))).to_bits() } else { rng.double(b) };
        let (a_, b_, c_) = (u128::from(a), u128::from(b), u128::from(c));
        for rm in Rm::ALL {
            let at = |op: &str| format!("{op} {a:#x} {b:#x} {c:#x} {rm:?}");
            let d = |r: FpResult<u64>| widen(r);
            assert_same::<Double>(
                format_args!("{}", at("add")),
                d(fpu::f64_add(a, b, rm)),
                binary::<Double>(a_, b_, rm, Double::add_r),
            );
            assert_same::<Double>(
                format_args!("{}", at("sub")),
                d(fpu::f64_sub(a, b, rm)),
                binary::<Double>(a_, b_, rm, Double::sub_r),
            );
            assert_same::<Double>(
                format_args!("{}", at("mul")),
                d(fpu::f64_mul(a, b, rm)),
                binary::<Double>(a_, b_, rm, Double::mul_r),
            );
            assert_same::<Double>(
                format_args!("{}", at("div")),
                d(fpu::f64_div(a, b, rm)),
                binary::<Double>(a_, b_, rm, Double::div_r),
            );
            let n = u128::from(neg);
            assert_same::<Double>(
                format_args!("{}", at("madd")),
                d(fpu::f64_madd(a, b, c, rm)),
                fused::<Double>(a_, b_, c_, rm),
            );
            assert_same::<Double>(
                format_args!("{}", at("msub")),
                d(fpu::f64_msub(a, b, c, rm)),
                fused::<Double>(a_, b_, c_ ^ n, rm),
            );
            assert_same::<Double>(
                format_args!("{}", at("nmsub")),
                d(fpu::f64_nmsub(a, b, c, rm)),
                fused::<Double>(a_ ^ n, b_, c_, rm),
            );
            assert_same::<Double>(
                format_args!("{}", at("nmadd")),
                d(fpu::f64_nmadd(a, b, c, rm)),
                fused::<Double>(a_ ^ n, b_, c_ ^ n, rm),
            );
            check_sqrt::<Double>(a_, rm, d(fpu::f64_sqrt(a, rm)));
            assert_same::<Single>(
                format_args!("{}", at("to f32")),
                widen(fpu::f64_to_f32(a, rm)),
                convert::<Double, Single>(a_, rm),
            );
            check_to_int(
                &at("to int"),
                a_,
                rm,
                [fpu::f64_to_i32(a, rm), fpu::f64_to_u32(a, rm), fpu::f64_to_i64(a, rm), fpu::f64_to_u64(a, rm)],
                to_int::<Double>,
            );
            let x = rng.integer();
            let expect = |signed: bool, v: i128| {
                deliver::<Double>(if signed {
                    Double::from_i128_r(v, round(rm))
                } else {
                    Double::from_u128_r(v as u128, round(rm))
                })
            };
            assert_eq!(d(fpu::i32_to_f64(x as i32)), expect(true, i128::from(x as i32)), "i32 {x:#x}");
            assert_eq!(d(fpu::u32_to_f64(x as u32)), expect(false, i128::from(x as u32)), "u32 {x:#x}");
            assert_eq!(d(fpu::i64_to_f64(x as i64, rm)), expect(true, i128::from(x as i64)), "i64 {x:#x} {rm:?}");
            assert_eq!(d(fpu::u64_to_f64(x, rm)), expect(false, i128::from(x)), "u64 {x:#x} {rm:?}");
        }
        check_bit_level::<Double>(
            a_,
            b_,
            [fpu::f64_eq(a, b), fpu::f64_lt(a, b), fpu::f64_le(a, b)],
            [widen(fpu::f64_min(a, b)), widen(fpu::f64_max(a, b))],
            fpu::f64_classify(a),
        );
    }
}

/// The four conversions to integers (w, wu, l, lu), as the 64-bit values written to rd.
fn check_to_int(
    what: &str,
    a: u128,
    rm: Rm,
    got: [FpResult<u64>; 4],
    reference: fn(u128, Rm, i128, i128) -> FpResult<i128>,
) {
    let ranges = [
        (i128::from(i32::MIN), i128::from(i32::MAX)),
        (0, i128::from(u32::MAX)),
        (i128::from(i64::MIN), i128::from(i64::MAX)),
        (0, i128::from(u64::MAX)),
    ];
    for (i, ((lo, hi), got)) in ranges.into_iter().zip(got).enumerate() {
        let r = reference(a, rm, lo, hi);
        // 32-bit results, unsigned ones included, are sign-extended to 64 bits.
        let bits = if i < 2 { r.bits as i32 as i64 as u64 } else { r.bits as u64 };
        assert_eq!(got, FpResult { bits, flags: r.flags }, "{what} (conversion {i})");
    }
}

/// Comparisons, fmin/fmax and fclass, from APFloat's predicates and the specification's rules.
fn check_bit_level<F: Format>(
    a: u128,
    b: u128,
    compares: [FpResult<bool>; 3],
    min_max: [FpResult<u128>; 2],
    class: u64,
) {
    let (x, y) = (F::from_bits(a), F::from_bits(b));
    let order = x.partial_cmp(&y);
    let any_nan = x.is_nan() || y.is_nan();
    let any_snan = x.is_signaling() || y.is_signaling();
    let flag = |raise: bool| if raise { NV } else { 0 };
    assert_eq!(
        compares[0],
        FpResult { bits: order == Some(Ordering::Equal), flags: flag(any_snan) },
        "feq {a:#x} {b:#x}"
    );
    assert_eq!(
        compares[1],
        FpResult { bits: order == Some(Ordering::Less), flags: flag(any_nan) },
        "flt {a:#x} {b:#x}"
    );
    let le = matches!(order, Some(Ordering::Less | Ordering::Equal));
    assert_eq!(compares[2], FpResult { bits: le, flags: flag(any_nan) }, "fle {a:#x} {b:#x}");
    for (is_max, got) in [(false, min_max[0]), (true, min_max[1])] {
        let bits = match (x.is_nan(), y.is_nan()) {
            (true, true) => F::CANONICAL_NAN,
            (true, false) => b,
            (false, true) => a,
            // Equal values differ only as zeros of opposite signs: -0 is the smaller.
            (false, false) => match order.unwrap() {
                Ordering::Less => {
                    if is_max {
                        b
                    } else {
                        a
                    }
                }
                Ordering::Greater => {
                    if is_max {
                        a
                    } else {
                        b
                    }
                }
                Ordering::Equal => {
                    if x.is_negative() != is_max {
                        a
                    } else {
                        b
                    }
                }
            },
        };
        assert_eq!(got, FpResult { bits, flags: flag(any_snan) }, "fmin/fmax {a:#x} {b:#x} max {is_max}");
    }
    let negative = x.is_negative();
    let expected_class = if x.is_nan() {
        if x.is_signaling() {
            8
        } else {
            9
        }
    } else if x.is_infinite() {
        if negative {
            0
        } else {
            7
        }
    } else if x.is_zero() {
        if negative {
            3
        } else {
            4
        }
    } else if x.is_denormal() {
        if negative {
            2
        } else {
            5
        }
    } else if negative {
        1
    } else {
        6
    };
    assert_eq!(class, 1 << expected_class, "fclass {a:#x}");
}
