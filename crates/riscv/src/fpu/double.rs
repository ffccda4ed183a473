//! The D extension: double-precision operations on `u64` bit patterns. Each rounding operation tries its fast path
//! (host arithmetic, see the module docs of [`super`]) and otherwise asks the reference path; the comments on each
//! fast path say why its answer equals SoftFloat's.

use super::{flags, integer_fits, nx_unless, soft, FpResult, Rm, DOUBLE};

const SIGN: u64 = 1 << 63;
const MANTISSA: u64 = (1 << 52) - 1;
const HIDDEN: u64 = 1 << 52;
/// Biased exponent of infinities and NaNs.
const EXP_SPECIAL: u64 = 0x7ff;
/// Smallest biased exponent for which a result is "safely normal": at least 2^-1021, so twice the smallest normal
/// and never tiny, whichever way the exact value rounded.
const EXP_SAFE_RESULT: u64 = 2;
/// Smallest biased exponent (|x| >= 2^-960) for which the error terms of `mul`, `div` and `sqrt` lie on a grid no
/// finer than 2^-1066: a nonzero error is then at least a subnormal's spacing away from zero and `fma` computes it
/// exactly, so "residual == 0" is exactly "the operation was exact". The margins are generous; see each use.
const EXP_SAFE_OPERAND: u64 = 63;

#[inline(always)]
fn exponent(x: u64) -> u64 {
    (x >> 52) & EXP_SPECIAL
}

#[inline(always)]
fn f(x: u64) -> f64 {
    f64::from_bits(x)
}

/// A result whose magnitude is in [2^-1021, max finite]: finite, so no overflow (in round-to-nearest, overflow
/// rounds to infinity), and at least twice the smallest normal, so not tiny.
#[inline(always)]
fn safely_normal(r: f64) -> bool {
    (EXP_SAFE_RESULT..EXP_SPECIAL).contains(&exponent(r.to_bits()))
}

/// Whether `x + y` (both finite, with a finite rounded sum `s`) was exact. Fast2Sum (Dekker): with |big| >= |small|,
/// `s - big` is computed exactly and `small - (s - big)` is the exact rounding error, so the error is zero exactly
/// when `s - big == small`. Holds with subnormals (addition cannot underflow inexactly) and needs only `s` finite.
#[inline(always)]
fn sum_is_exact(x: f64, y: f64, s: f64) -> bool {
    let (big, small) = if x.abs() >= y.abs() { (x, y) } else { (y, x) };
    s - big == small
}

/// `add`/`sub` in round-to-nearest-even: the host sum is correctly rounded; it is finite exactly when no operand
/// is NaN or infinite and nothing overflowed; a sum never underflows inexactly (a tiny sum of two doubles is
/// exact), and an exact zero has the IEEE sign of round-to-nearest (+0 unless both operands are -0), which the
/// host gives too.
#[inline(always)]
pub(super) fn add_fast(a: u64, b: u64) -> Option<FpResult<u64>> {
    let (x, y) = (f(a), f(b));
    let s = x + y;
    s.is_finite().then(|| FpResult::new(s.to_bits(), nx_unless(sum_is_exact(x, y, s))))
}

/// `a + b`.
#[inline]
pub fn f64_add(a: u64, b: u64, rm: Rm) -> FpResult<u64> {
    if rm == Rm::Rne {
        if let Some(r) = add_fast(a, b) {
            return r;
        }
    }
    soft::f64_add(a, b, rm)
}

/// `a - b`, as `a + (-b)` in the fast path (identical, signs of zero included).
#[inline]
pub fn f64_sub(a: u64, b: u64, rm: Rm) -> FpResult<u64> {
    if rm == Rm::Rne {
        if let Some(r) = add_fast(a, b ^ SIGN) {
            return r;
        }
    }
    soft::f64_sub(a, b, rm)
}

/// `mul` in round-to-nearest-even. With |p| >= 2^-960 the exact product a*b = Ma*Mb*2^(ea+eb) (integer
/// significands below 2^53) has ea+eb > -1067, so its error a*b - p is a multiple of 2^(ea+eb) of at most 53 bits:
/// representable, and `fma(a, b, -p)` returns it exactly; it is zero exactly when the product was exact. A finite
/// `p` means no overflow, and |p| >= 2^-960 means not tiny. A zero product of a zero operand (and a finite other
/// one, else `p` would be NaN) is exact with the sign the host gives.
#[inline(always)]
pub(super) fn mul_fast(a: u64, b: u64) -> Option<FpResult<u64>> {
    let (x, y) = (f(a), f(b));
    let p = x * y;
    if (EXP_SAFE_OPERAND..EXP_SPECIAL).contains(&exponent(p.to_bits())) {
        return Some(FpResult::new(p.to_bits(), nx_unless(x.mul_add(y, -p) == 0.0)));
    }
    (p == 0.0 && (x == 0.0 || y == 0.0)).then(|| FpResult::exact(p.to_bits()))
}

/// `a * b`.
#[inline]
pub fn f64_mul(a: u64, b: u64, rm: Rm) -> FpResult<u64> {
    if rm == Rm::Rne {
        if let Some(r) = mul_fast(a, b) {
            return r;
        }
    }
    soft::f64_mul(a, b, rm)
}

/// `div` in round-to-nearest-even. With q = RN(a/b) the remainder a - q*b is exactly representable (no underflow
/// below), and its grid is 2^min(ea, eq+eb) with eq+eb >= ea-54 (q*b is within a factor 2 of a); |a| >= 2^-960
/// puts that grid at or above 2^-1066, so `fma(-q, b, a)` returns the remainder exactly and it is zero exactly when
/// the quotient was exact. `q` safely normal excludes a zero or infinite divisor, infinite or NaN operands,
/// overflow and tininess. A zero quotient of a zero dividend or an infinite divisor (and no NaN, or `q` would be
/// NaN) is exact, with the host's sign.
#[inline(always)]
pub(super) fn div_fast(a: u64, b: u64) -> Option<FpResult<u64>> {
    let (x, y) = (f(a), f(b));
    let q = x / y;
    if safely_normal(q) && exponent(a) >= EXP_SAFE_OPERAND {
        return Some(FpResult::new(q.to_bits(), nx_unless((-q).mul_add(y, x) == 0.0)));
    }
    (q == 0.0 && (x == 0.0 || y.is_infinite())).then(|| FpResult::exact(q.to_bits()))
}

/// `a / b`.
#[inline]
pub fn f64_div(a: u64, b: u64, rm: Rm) -> FpResult<u64> {
    if rm == Rm::Rne {
        if let Some(r) = div_fast(a, b) {
            return r;
        }
    }
    soft::f64_div(a, b, rm)
}

/// `sqrt` in round-to-nearest-even, for positive finite a >= 2^-960: the root is normal (no tininess, no
/// overflow), and the residual a - r*r, on a grid of 2^min(ea, 2*er) with 2*er >= ea-54, is exactly representable
/// and computed exactly by `fma(-r, r, a)`: zero exactly when the root was exact. Zeros are their own exact roots
/// (sqrt(-0) = -0).
#[inline(always)]
pub(super) fn sqrt_fast(a: u64) -> Option<FpResult<u64>> {
    if a & !SIGN == 0 {
        return Some(FpResult::exact(a));
    }
    (a & SIGN == 0 && (EXP_SAFE_OPERAND..EXP_SPECIAL).contains(&exponent(a))).then(|| {
        let x = f(a);
        let r = x.sqrt();
        FpResult::new(r.to_bits(), nx_unless((-r).mul_add(r, x) == 0.0))
    })
}

/// `sqrt(a)`.
#[inline]
pub fn f64_sqrt(a: u64, rm: Rm) -> FpResult<u64> {
    if rm == Rm::Rne {
        if let Some(r) = sqrt_fast(a) {
            return r;
        }
    }
    soft::f64_sqrt(a, rm)
}

/// `fma` in round-to-nearest-even for normal operands and a safely normal result. The host's `mul_add` is the
/// correctly rounded result (Rust guarantees a single rounding); whether it is exact is decided in integers. With
/// Ma, Mb, Mc the 53-bit significands and d = ec - (ea+eb) (exponents of the integer significands),
/// V = a*b + c = (±P ± Mc*2^d) * 2^(ea+eb) with P = Ma*Mb < 2^106. The result being safely normal, V is in the
/// normal range, so it is representable exactly when the bracket's odd part has at most 53 bits. The bracket is
/// formed in 127 bits: as is for d in [0, 73]; for d in [-20, 0) with P shifted left instead. For d > 73 the
/// low k = d-73 bits of V are those of P; if they are not all zero, V has a set bit below 2^k and its top bit is
/// above 2^(d+51), more than 53 bits apart, so V is inexact; if they are, P >> k is exact and the bracket is
/// formed at 2^k. For d < -20 the same holds with the roles swapped (k = -d-20 low bits of Mc). A zero addend
/// leaves V = a*b (exact when P has at most 53 significant bits); a zero factor with finite operands leaves an exact
/// sum, c or a zero with the sign IEEE gives (as the host does).
#[inline(always)]
pub(super) fn mul_add_fast(a: u64, b: u64, c: u64) -> Option<FpResult<u64>> {
    let normal = |x: u64| (1..EXP_SPECIAL).contains(&exponent(x));
    let finite = |x: u64| exponent(x) != EXP_SPECIAL;
    let zero = |x: u64| x & !SIGN == 0;
    if ((zero(a) && finite(b)) || (zero(b) && finite(a))) && finite(c) {
        return Some(FpResult::exact(f(a).mul_add(f(b), f(c)).to_bits()));
    }
    if !(normal(a) && normal(b) && (normal(c) || zero(c))) {
        return None;
    }
    let r = f(a).mul_add(f(b), f(c));
    if !safely_normal(r) {
        return None;
    }
    let significand = |x: u64| ((x & MANTISSA) | HIDDEN) as u128;
    let significant_bits = |x: u128| 128 - x.leading_zeros() - x.trailing_zeros();
    let product = significand(a) * significand(b);
    if zero(c) {
        return Some(FpResult::new(r.to_bits(), nx_unless(significant_bits(product) <= 53)));
    }
    let inexact = Some(FpResult::new(r.to_bits(), flags::NX));
    let addend = significand(c);
    let d = exponent(c) as i64 + 1075 - exponent(a) as i64 - exponent(b) as i64;
    let (p, q) = if d > 73 {
        let k = (d - 73) as u32;
        if k >= 106 || product & ((1 << k) - 1) != 0 {
            return inexact;
        }
        (product >> k, addend << 73)
    } else if d >= 0 {
        (product, addend << d)
    } else if d >= -20 {
        (product << -d, addend)
    } else {
        let k = (-d - 20) as u32;
        if k >= 53 || addend & ((1 << k) - 1) != 0 {
            return inexact;
        }
        (product << 20, addend >> k)
    };
    let sum = if (a ^ b ^ c) & SIGN == 0 { p + q } else { p.abs_diff(q) };
    Some(FpResult::new(r.to_bits(), nx_unless(sum == 0 || significant_bits(sum) <= 53)))
}

#[inline(always)]
fn mul_add(a: u64, b: u64, c: u64, rm: Rm) -> FpResult<u64> {
    if rm == Rm::Rne {
        if let Some(r) = mul_add_fast(a, b, c) {
            return r;
        }
    }
    soft::f64_mul_add(a, b, c, rm)
}

/// `fmadd.d`: a*b + c, rounded once.
#[inline]
pub fn f64_madd(a: u64, b: u64, c: u64, rm: Rm) -> FpResult<u64> {
    mul_add(a, b, c, rm)
}

/// `fmsub.d`: a*b - c, computed as a*b + (-c).
#[inline]
pub fn f64_msub(a: u64, b: u64, c: u64, rm: Rm) -> FpResult<u64> {
    mul_add(a, b, c ^ SIGN, rm)
}

/// `fnmsub.d`: -(a*b) + c, computed as (-a)*b + c (so an exact zero takes the sign IEEE gives that sum).
#[inline]
pub fn f64_nmsub(a: u64, b: u64, c: u64, rm: Rm) -> FpResult<u64> {
    mul_add(a ^ SIGN, b, c, rm)
}

/// `fnmadd.d`: -(a*b) - c, computed as (-a)*b + (-c).
#[inline]
pub fn f64_nmadd(a: u64, b: u64, c: u64, rm: Rm) -> FpResult<u64> {
    mul_add(a ^ SIGN, b, c ^ SIGN, rm)
}

/// `fmin.d`.
#[inline]
pub fn f64_min(a: u64, b: u64) -> FpResult<u64> {
    DOUBLE.min_max(a, b, false)
}

/// `fmax.d`.
#[inline]
pub fn f64_max(a: u64, b: u64) -> FpResult<u64> {
    DOUBLE.min_max(a, b, true)
}

/// `feq.d`: quiet, NV only for a signaling NaN; false when unordered.
#[inline]
pub fn f64_eq(a: u64, b: u64) -> FpResult<bool> {
    FpResult::new(f(a) == f(b), DOUBLE.compare_flags(a, b, false))
}

/// `flt.d`: signaling, NV for any NaN; false when unordered.
#[inline]
pub fn f64_lt(a: u64, b: u64) -> FpResult<bool> {
    FpResult::new(f(a) < f(b), DOUBLE.compare_flags(a, b, true))
}

/// `fle.d`: signaling, NV for any NaN; false when unordered.
#[inline]
pub fn f64_le(a: u64, b: u64) -> FpResult<bool> {
    FpResult::new(f(a) <= f(b), DOUBLE.compare_flags(a, b, true))
}

/// `fclass.d`: the 10-bit class mask.
#[inline]
pub fn f64_classify(a: u64) -> u64 {
    DOUBLE.classify(a)
}

/// `fcvt.s.d` in round-to-nearest-even: the host conversion is correctly rounded; a safely normal single result
/// cannot have overflowed or be tiny, and it is exact when it converts back to the same double. Zeros convert
/// exactly.
#[inline(always)]
pub(super) fn to_f32_fast(a: u64) -> Option<FpResult<u32>> {
    let x = f(a);
    let r = x as f32;
    let r_exponent = (r.to_bits() >> 23) & 0xff;
    if (2..0xff).contains(&r_exponent) {
        return Some(FpResult::new(r.to_bits(), nx_unless(r as f64 == x)));
    }
    (x == 0.0).then(|| FpResult::exact(r.to_bits()))
}

/// `fcvt.s.d`.
#[inline]
pub fn f64_to_f32(a: u64, rm: Rm) -> FpResult<u32> {
    if rm == Rm::Rne {
        if let Some(r) = to_f32_fast(a) {
            return r;
        }
    }
    soft::f64_to_f32(a, rm)
}

/// The range of an integer type for a float-to-integer conversion, as doubles (all exactly representable).
pub(super) struct IntRange {
    /// Smallest and largest integral double in range.
    lo: f64,
    hi: f64,
    /// Open bounds of the doubles whose truncation is in range: `trunc(x)` is in range exactly when
    /// `above < x < below`.
    above: f64,
    below: f64,
}

pub(super) const I32: IntRange =
    IntRange { lo: -2147483648.0, hi: 2147483647.0, above: -2147483649.0, below: 2147483648.0 };
pub(super) const U32: IntRange = IntRange { lo: 0.0, hi: 4294967295.0, above: -1.0, below: 4294967296.0 };
/// 2^63 - 1 is no double: the largest integral double below 2^63 is 2^63 - 1024; below -2^63 the next double is
/// -2^63 - 2048.
pub(super) const I64: IntRange = IntRange {
    lo: -9223372036854775808.0,
    hi: 9223372036854774784.0,
    above: -9223372036854777856.0,
    below: 9223372036854775808.0,
};
pub(super) const U64: IntRange =
    IntRange { lo: 0.0, hi: 18446744073709549568.0, above: -1.0, below: 18446744073709551616.0 };

/// The fast path of float-to-integer conversions, in every rounding mode: a double that, cast with `as` (which
/// truncates), gives the exact conversion of `x`, or `None` when `x` is NaN or its rounding is out of range
/// (saturation and NV: the reference path's business). Other modes round to an integral double first with the
/// host's functions, which are exact (an integral value near a double is a double); round-towards-zero, the mode
/// of C casts, needs no rounding function. -0.5 towards zero is -0, in range even for unsigned types. The
/// conversion is inexact when the integer differs from `x`.
#[inline(always)]
pub(super) fn int_candidate(x: f64, rm: Rm, range: &IntRange) -> Option<f64> {
    let rounded = match rm {
        Rm::Rtz => return (x > range.above && x < range.below).then_some(x),
        Rm::Rne => x.round_ties_even(),
        Rm::Rdn => x.floor(),
        Rm::Rup => x.ceil(),
        Rm::Rmm => x.round(),
    };
    (rounded >= range.lo && rounded <= range.hi).then_some(rounded)
}

fn sext32(v: u32) -> u64 {
    v as i32 as i64 as u64
}

/// `fcvt.w.d`: the 32-bit result sign-extended; NaN gives 2^31-1, out of range saturates, both with NV.
#[inline]
pub fn f64_to_i32(a: u64, rm: Rm) -> FpResult<u64> {
    match int_candidate(f(a), rm, &I32) {
        Some(v) => FpResult::new(v as i32 as i64 as u64, nx_unless(v as i32 as f64 == f(a))),
        None => soft::f64_to_i32(a, rm),
    }
}

/// `fcvt.wu.d`: the 32-bit result sign-extended (so 2^32-1 is all ones); negative values rounding to 0 give 0 with
/// NX only, anything below saturates to 0 with NV.
#[inline]
pub fn f64_to_u32(a: u64, rm: Rm) -> FpResult<u64> {
    match int_candidate(f(a), rm, &U32) {
        Some(v) => FpResult::new(sext32(v as u32), nx_unless(v as u32 as f64 == f(a))),
        None => soft::f64_to_u32(a, rm),
    }
}

/// `fcvt.l.d`.
#[inline]
pub fn f64_to_i64(a: u64, rm: Rm) -> FpResult<u64> {
    match int_candidate(f(a), rm, &I64) {
        // An i64 of magnitude >= 2^53 came from an integral double and converts back exactly.
        Some(v) => FpResult::new(v as i64 as u64, nx_unless(v as i64 as f64 == f(a))),
        None => soft::f64_to_i64(a, rm),
    }
}

/// `fcvt.lu.d`.
#[inline]
pub fn f64_to_u64(a: u64, rm: Rm) -> FpResult<u64> {
    match int_candidate(f(a), rm, &U64) {
        Some(v) => FpResult::new(v as u64, nx_unless(v as u64 as f64 == f(a))),
        None => soft::f64_to_u64(a, rm),
    }
}

/// `fcvt.d.w`: always exact.
#[inline]
pub fn i32_to_f64(x: i32) -> FpResult<u64> {
    FpResult::exact((x as f64).to_bits())
}

/// `fcvt.d.wu`: always exact.
#[inline]
pub fn u32_to_f64(x: u32) -> FpResult<u64> {
    FpResult::exact((x as f64).to_bits())
}

/// `fcvt.d.l`: the host conversion rounds to nearest-even (Rust guarantees the closest value); when the integer
/// fits in 53 bits it is exact, and the same in every mode.
#[inline]
pub fn i64_to_f64(x: i64, rm: Rm) -> FpResult<u64> {
    let exact = integer_fits(x.unsigned_abs(), 53);
    if exact || rm == Rm::Rne {
        return FpResult::new((x as f64).to_bits(), nx_unless(exact));
    }
    soft::i64_to_f64(x, rm)
}

/// `fcvt.d.lu`, as `fcvt.d.l`.
#[inline]
pub fn u64_to_f64(x: u64, rm: Rm) -> FpResult<u64> {
    let exact = integer_fits(x, 53);
    if exact || rm == Rm::Rne {
        return FpResult::new((x as f64).to_bits(), nx_unless(exact));
    }
    soft::u64_to_f64(x, rm)
}

/// Test access to the fast paths alone, so the differential tests can tell which path answered.
#[cfg(test)]
pub(super) mod fast {
    pub(in crate::fpu) use super::{add_fast, div_fast, mul_add_fast, mul_fast, sqrt_fast, to_f32_fast};
}
