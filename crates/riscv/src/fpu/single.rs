//! The F extension: single-precision operations on `u32` bit patterns. The fast paths compute in double on the
//! host, where single operands and products are exact and double rounding is innocuous for `+ - * / sqrt`
//! (53 >= 2 * 24 + 2, Figueroa); the comments on each say why the answer and its flags equal SoftFloat's.

use super::double::{int_candidate, I32, I64, U32, U64};
use super::{integer_fits, nx_unless, soft, FpResult, Rm, SINGLE};

const SIGN: u32 = 1 << 31;
const EXP_SPECIAL: u32 = 0xff;

#[inline(always)]
fn exponent(x: u32) -> u32 {
    (x >> 23) & EXP_SPECIAL
}

/// The single operand as an (exactly equal) double.
#[inline(always)]
fn w(x: u32) -> f64 {
    f32::from_bits(x) as f64
}

/// A single result of magnitude in [2^-125, max finite]: finite (no overflow in round-to-nearest) and twice the
/// smallest normal (not tiny, whichever way the exact value rounded).
#[inline(always)]
fn safely_normal(r: f32) -> bool {
    (2..EXP_SPECIAL).contains(&exponent(r.to_bits()))
}

/// `add`/`sub` in round-to-nearest-even: the double sum of two singles rounded to single is the correctly rounded
/// single sum (double rounding is innocuous for addition here); it is exact when the double sum was (Fast2Sum
/// in double: never overflows, exact with subnormals) and the single rounding was. A finite single result means no
/// NaN or infinite operand and no overflow; a sum never underflows inexactly (a tiny sum of two singles is exact),
/// and exact zeros have the round-to-nearest signs in both formats.
#[inline(always)]
pub(super) fn add_fast(a: u32, b: u32) -> Option<FpResult<u32>> {
    let (x, y) = (w(a), w(b));
    let s = x + y;
    let r = s as f32;
    r.is_finite().then(|| {
        let (big, small) = if x.abs() >= y.abs() { (x, y) } else { (y, x) };
        FpResult::new(r.to_bits(), nx_unless(s - big == small && r as f64 == s))
    })
}

/// `a + b`.
#[inline]
pub fn f32_add(a: u32, b: u32, rm: Rm) -> FpResult<u32> {
    if rm == Rm::Rne {
        if let Some(r) = add_fast(a, b) {
            return r;
        }
    }
    soft::f32_add(a, b, rm)
}

/// `a - b`, as `a + (-b)` in the fast path.
#[inline]
pub fn f32_sub(a: u32, b: u32, rm: Rm) -> FpResult<u32> {
    if rm == Rm::Rne {
        if let Some(r) = add_fast(a, b ^ SIGN) {
            return r;
        }
    }
    soft::f32_sub(a, b, rm)
}

/// `mul` in round-to-nearest-even: the double product of two singles is exact (48 bits, exponents far inside the
/// double range), so rounding it to single is the only rounding, exact when it converts back. A zero product is
/// exact only when an operand is zero (two nonzero singles have a product of at least 2^-298), with the host's sign.
#[inline(always)]
pub(super) fn mul_fast(a: u32, b: u32) -> Option<FpResult<u32>> {
    let p = w(a) * w(b);
    let r = p as f32;
    if safely_normal(r) {
        return Some(FpResult::new(r.to_bits(), nx_unless(r as f64 == p)));
    }
    (p == 0.0).then(|| FpResult::exact(r.to_bits()))
}

/// `a * b`.
#[inline]
pub fn f32_mul(a: u32, b: u32, rm: Rm) -> FpResult<u32> {
    if rm == Rm::Rne {
        if let Some(r) = mul_fast(a, b) {
            return r;
        }
    }
    soft::f32_mul(a, b, rm)
}

/// `div` in round-to-nearest-even: the double quotient rounded to single is correctly rounded (innocuous double
/// rounding); a/b = r exactly when r*b = a, and r*b is exact in double. A safely normal r excludes NaN, infinite
/// and zero results, overflow and tininess. A zero double quotient means a zero dividend or an infinite divisor
/// (finite nonzero singles have quotients of at least 2^-277): exact, no flags.
#[inline(always)]
pub(super) fn div_fast(a: u32, b: u32) -> Option<FpResult<u32>> {
    let (x, y) = (w(a), w(b));
    let q = x / y;
    let r = q as f32;
    if safely_normal(r) {
        return Some(FpResult::new(r.to_bits(), nx_unless(r as f64 * y == x)));
    }
    (q == 0.0).then(|| FpResult::exact(r.to_bits()))
}

/// `a / b`.
#[inline]
pub fn f32_div(a: u32, b: u32, rm: Rm) -> FpResult<u32> {
    if rm == Rm::Rne {
        if let Some(r) = div_fast(a, b) {
            return r;
        }
    }
    soft::f32_div(a, b, rm)
}

/// `sqrt` in round-to-nearest-even for positive finite operands (subnormals included: every root is normal): the
/// double root rounded to single is correctly rounded (innocuous double rounding), exact when r*r (exact in
/// double) is the operand. Zeros are their own roots.
#[inline(always)]
pub(super) fn sqrt_fast(a: u32) -> Option<FpResult<u32>> {
    if a & !SIGN == 0 {
        return Some(FpResult::exact(a));
    }
    (a < 0x7f80_0000).then(|| {
        let x = w(a);
        let r = x.sqrt() as f32;
        FpResult::new(r.to_bits(), nx_unless(r as f64 * r as f64 == x))
    })
}

/// `sqrt(a)`.
#[inline]
pub fn f32_sqrt(a: u32, rm: Rm) -> FpResult<u32> {
    if rm == Rm::Rne {
        if let Some(r) = sqrt_fast(a) {
            return r;
        }
    }
    soft::f32_sqrt(a, rm)
}

/// `fma` in round-to-nearest-even, in double without a host `fma`: p = a*b is exact in double, and TwoSum gives
/// p + c = s + e exactly (all values are multiples of 2^-298, so nothing underflows, and nothing overflows). If
/// e = 0 the single rounding of s is the answer. Otherwise s is replaced by its round-to-odd neighbour towards
/// s + e (s itself when its last bit is odd, else one step towards e), which is the round-to-odd of the exact sum
/// at 53 bits; rounding that to nearest single is the correct rounding of the exact sum (53 >= 24 + 2, Boldo and
/// Melquiond). The result is exact when e = 0 and s converts back. A safely normal result rules out overflow and
/// tininess; an exact zero sum (s = 0 implies e = 0) has the host's round-to-nearest sign, which is IEEE's.
#[inline(always)]
pub(super) fn mul_add_fast(a: u32, b: u32, c: u32) -> Option<FpResult<u32>> {
    let p = w(a) * w(b);
    let z = w(c);
    let s = p + z;
    // TwoSum (Knuth): no ordering of the operands needed.
    let p_part = s - z;
    let z_part = s - p_part;
    let e = (p - p_part) + (z - z_part);
    let odd = if e == 0.0 || s.to_bits() & 1 == 1 {
        s
    } else if (e > 0.0) == (s > 0.0) {
        f64::from_bits(s.to_bits() + 1)
    } else {
        f64::from_bits(s.to_bits() - 1)
    };
    let r = odd as f32;
    if safely_normal(r) {
        return Some(FpResult::new(r.to_bits(), nx_unless(e == 0.0 && r as f64 == s)));
    }
    (s == 0.0 && e == 0.0).then(|| FpResult::exact(r.to_bits()))
}

#[inline(always)]
fn mul_add(a: u32, b: u32, c: u32, rm: Rm) -> FpResult<u32> {
    if rm == Rm::Rne {
        if let Some(r) = mul_add_fast(a, b, c) {
            return r;
        }
    }
    soft::f32_mul_add(a, b, c, rm)
}

/// `fmadd.s`: a*b + c, rounded once.
#[inline]
pub fn f32_madd(a: u32, b: u32, c: u32, rm: Rm) -> FpResult<u32> {
    mul_add(a, b, c, rm)
}

/// `fmsub.s`: a*b - c, computed as a*b + (-c).
#[inline]
pub fn f32_msub(a: u32, b: u32, c: u32, rm: Rm) -> FpResult<u32> {
    mul_add(a, b, c ^ SIGN, rm)
}

/// `fnmsub.s`: -(a*b) + c, computed as (-a)*b + c.
#[inline]
pub fn f32_nmsub(a: u32, b: u32, c: u32, rm: Rm) -> FpResult<u32> {
    mul_add(a ^ SIGN, b, c, rm)
}

/// `fnmadd.s`: -(a*b) - c, computed as (-a)*b + (-c).
#[inline]
pub fn f32_nmadd(a: u32, b: u32, c: u32, rm: Rm) -> FpResult<u32> {
    mul_add(a ^ SIGN, b, c ^ SIGN, rm)
}

/// `fmin.s`.
#[inline]
pub fn f32_min(a: u32, b: u32) -> FpResult<u32> {
    let r = SINGLE.min_max(a as u64, b as u64, false);
    FpResult::new(r.bits as u32, r.flags)
}

/// `fmax.s`.
#[inline]
pub fn f32_max(a: u32, b: u32) -> FpResult<u32> {
    let r = SINGLE.min_max(a as u64, b as u64, true);
    FpResult::new(r.bits as u32, r.flags)
}

/// `feq.s`: quiet, NV only for a signaling NaN; false when unordered.
#[inline]
pub fn f32_eq(a: u32, b: u32) -> FpResult<bool> {
    FpResult::new(f32::from_bits(a) == f32::from_bits(b), SINGLE.compare_flags(a as u64, b as u64, false))
}

/// `flt.s`: signaling, NV for any NaN; false when unordered.
#[inline]
pub fn f32_lt(a: u32, b: u32) -> FpResult<bool> {
    FpResult::new(f32::from_bits(a) < f32::from_bits(b), SINGLE.compare_flags(a as u64, b as u64, true))
}

/// `fle.s`: signaling, NV for any NaN; false when unordered.
#[inline]
pub fn f32_le(a: u32, b: u32) -> FpResult<bool> {
    FpResult::new(f32::from_bits(a) <= f32::from_bits(b), SINGLE.compare_flags(a as u64, b as u64, true))
}

/// `fclass.s`: the 10-bit class mask.
#[inline]
pub fn f32_classify(a: u32) -> u64 {
    SINGLE.classify(a as u64)
}

/// `fcvt.d.s`: exact for every non-NaN value (subnormals become normal doubles); a NaN becomes the canonical NaN,
/// with NV if it was signaling.
#[inline]
pub fn f32_to_f64(a: u32) -> FpResult<u64> {
    if SINGLE.is_nan(a as u64) {
        return soft::f32_to_f64(a);
    }
    FpResult::exact(w(a).to_bits())
}

/// `fcvt.w.s`: the 32-bit result sign-extended; NaN gives 2^31-1, out of range saturates, both with NV. The fast
/// path is the double one on the (exactly converted) operand.
#[inline]
pub fn f32_to_i32(a: u32, rm: Rm) -> FpResult<u64> {
    match int_candidate(w(a), rm, &I32) {
        Some(v) => FpResult::new(v as i32 as i64 as u64, nx_unless(v as i32 as f64 == w(a))),
        None => soft::f32_to_i32(a, rm),
    }
}

/// `fcvt.wu.s`: the 32-bit result sign-extended; negative values rounding to 0 give 0 with NX only.
#[inline]
pub fn f32_to_u32(a: u32, rm: Rm) -> FpResult<u64> {
    match int_candidate(w(a), rm, &U32) {
        Some(v) => FpResult::new(v as u32 as i32 as i64 as u64, nx_unless(v as u32 as f64 == w(a))),
        None => soft::f32_to_u32(a, rm),
    }
}

/// `fcvt.l.s`.
#[inline]
pub fn f32_to_i64(a: u32, rm: Rm) -> FpResult<u64> {
    match int_candidate(w(a), rm, &I64) {
        Some(v) => FpResult::new(v as i64 as u64, nx_unless(v as i64 as f64 == w(a))),
        None => soft::f32_to_i64(a, rm),
    }
}

/// `fcvt.lu.s`.
#[inline]
pub fn f32_to_u64(a: u32, rm: Rm) -> FpResult<u64> {
    match int_candidate(w(a), rm, &U64) {
        Some(v) => FpResult::new(v as u64, nx_unless(v as u64 as f64 == w(a))),
        None => soft::f32_to_u64(a, rm),
    }
}

/// Integer-to-single conversions: the host rounds to nearest-even (Rust guarantees the closest value); an integer
/// that fits in 24 bits converts exactly, the same in every mode.
macro_rules! from_int {
    ($(#[$doc:meta])* $name:ident, $int:ty, $magnitude:expr) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(x: $int, rm: Rm) -> FpResult<u32> {
            let exact = integer_fits($magnitude(x), 24);
            if exact || rm == Rm::Rne {
                return FpResult::new((x as f32).to_bits(), nx_unless(exact));
            }
            soft::$name(x, rm)
        }
    };
}

from_int!(
    /// `fcvt.s.w`.
    i32_to_f32,
    i32,
    |x: i32| u64::from(x.unsigned_abs())
);
from_int!(
    /// `fcvt.s.wu`.
    u32_to_f32,
    u32,
    u64::from
);
from_int!(
    /// `fcvt.s.l`.
    i64_to_f32,
    i64,
    i64::unsigned_abs
);
from_int!(
    /// `fcvt.s.lu`.
    u64_to_f32,
    u64,
    |x: u64| x
);

/// Test access to the fast paths alone, so the differential tests can tell which path answered.
#[cfg(test)]
pub(super) mod fast {
    pub(in crate::fpu) use super::{add_fast, div_fast, mul_add_fast, mul_fast, sqrt_fast};
}
