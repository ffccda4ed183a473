//! IEEE 754 arithmetic of the F and D extensions on raw bit patterns, bit-exact with the RISC-V specification:
//! its five rounding modes, its accrued exception flags, the canonical NaN (no payload propagation), tininess
//! detected after rounding, `fmin`/`fmax` as minimumNumber/maximumNumber, and the saturating float-to-integer
//! conversions.
//!
//! # Why two paths
//!
//! Bit-exactness is the requirement: a program's output, the branches it takes and so its cycle counts must be those
//! of real hardware and of Spike, whose results the official `rv64uf`/`rv64ud` tests record. Spike computes with
//! Berkeley SoftFloat 3e built with its RISC-V specialization, so that is this module's **reference path**
//! (`soft`, through the `softfloat-wrapper` crate with its `riscv` feature, which compiles SoftFloat's C sources;
//! its build script supports x86_64 Linux only): every rounding operation, every rounding mode, every special case
//! goes there unless a fast path has proven it can give the same answer. Comparisons, `fmin`/`fmax` and `fclass`
//! never round and are computed on the bits directly from the specification.
//!
//! SoftFloat costs 9 to 17 ns an operation here (setting its thread-local mode and flags included), several times
//! an instruction's share of the simulator's budget. The **fast paths**
//! (`single`, `double`) compute with the host's own IEEE arithmetic (Rust guarantees correctly rounded
//! round-to-nearest-even `+ - * / sqrt`, a fused `mul_add`, and forbids changing the floating-point environment, so
//! no flush-to-zero), and recover the one thing the host does not hand back, the inexact flag, with error-free
//! transformations that are exact in the range where they are used: Fast2Sum for `add`/`sub`, the `fma` residual
//! for `mul`, the division remainder `fma(-q, b, a)` and the square-root residual `fma(-r, r, a)`, the odd part of a
//! 128-bit integer sum for the double `fma`. A fast path only answers when the rounding mode is
//! round-to-nearest-even (or, for conversions, when the result is exact or the mode is one the host has) and its
//! result is finite and normal with a margin above the smallest normal, so that overflow, underflow and tininess
//! cannot arise; NaNs, infinities, zeros that need the rounding mode, subnormal and near-underflow results fall
//! back to the reference path. Each fast path carries the argument of why its answer is identical; the tests check
//! the claim against SoftFloat on millions of biased operands, and both paths against a third, independent
//! implementation (`rustc_apfloat`, adapted to RISC-V's NaN rules).
//!
//! Single-precision operations compute in double on the host: `+ - * / sqrt` rounded to double and then to single
//! are correctly rounded (53 >= 2 * 24 + 2), the single product is exact in double, and the single `fma` uses a
//! double TwoSum and round-to-odd, which makes the second rounding innocuous too.
//!
//! # Interface
//!
//! Functions take and return bit patterns (`u32` for single, `u64` for double; NaN-boxing is the caller's business)
//! and return [`FpResult`]: the result and the flags it raised, to be ORed into `fflags`. Integer results are the
//! 64-bit values the instruction writes to `rd` (32-bit results sign-extended, `fcvt.wu` included). The dynamic
//! rounding mode (`rm` = 7) is resolved by the caller from `frm`; [`Rm::from_bits`] rejects the reserved 5 and 6.

mod double;
mod single;
mod soft;
#[cfg(test)]
mod tests;

pub use double::{
    f64_add, f64_classify, f64_div, f64_eq, f64_le, f64_lt, f64_madd, f64_max, f64_min, f64_msub, f64_mul, f64_nmadd,
    f64_nmsub, f64_sqrt, f64_sub, f64_to_f32, f64_to_i32, f64_to_i64, f64_to_u32, f64_to_u64, i32_to_f64, i64_to_f64,
    u32_to_f64, u64_to_f64,
};
pub use single::{
    f32_add, f32_classify, f32_div, f32_eq, f32_le, f32_lt, f32_madd, f32_max, f32_min, f32_msub, f32_mul, f32_nmadd,
    f32_nmsub, f32_sqrt, f32_sub, f32_to_f64, f32_to_i32, f32_to_i64, f32_to_u32, f32_to_u64, i32_to_f32, i64_to_f32,
    u32_to_f32, u64_to_f32,
};

/// Exception flags as they sit in `fflags`/`fcsr` (SoftFloat uses the same bits).
pub mod flags {
    /// Invalid operation.
    pub const NV: u8 = 0x10;
    /// Divide by zero.
    pub const DZ: u8 = 0x08;
    /// Overflow.
    pub const OF: u8 = 0x04;
    /// Underflow (tiny after rounding and inexact).
    pub const UF: u8 = 0x02;
    /// Inexact.
    pub const NX: u8 = 0x01;
}

/// Rounding mode, numbered as in the `rm` field and `frm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Rm {
    /// To nearest, ties to even.
    Rne = 0,
    /// Towards zero.
    Rtz = 1,
    /// Down (towards -infinity).
    Rdn = 2,
    /// Up (towards +infinity).
    Rup = 3,
    /// To nearest, ties away from zero (to max magnitude).
    Rmm = 4,
}

impl Rm {
    /// All five modes, in encoding order.
    pub const ALL: [Rm; 5] = [Rm::Rne, Rm::Rtz, Rm::Rdn, Rm::Rup, Rm::Rmm];

    /// The mode of an `rm` field or `frm` value; `None` for the reserved 5 and 6 and for 7 (dynamic), which the
    /// caller resolves from `frm`.
    pub fn from_bits(b: u8) -> Option<Rm> {
        match b {
            0 => Some(Rm::Rne),
            1 => Some(Rm::Rtz),
            2 => Some(Rm::Rdn),
            3 => Some(Rm::Rup),
            4 => Some(Rm::Rmm),
            _ => None,
        }
    }
}

/// A result (bit pattern, integer or comparison outcome) and the exception flags computing it raised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FpResult<T> {
    pub bits: T,
    pub flags: u8,
}

impl<T> FpResult<T> {
    #[inline(always)]
    pub(crate) const fn new(bits: T, flags: u8) -> Self {
        FpResult { bits, flags }
    }

    /// An exact result (no flags).
    #[inline(always)]
    pub(crate) const fn exact(bits: T) -> Self {
        FpResult { bits, flags: 0 }
    }
}

/// The inexact flag for a fast path that found out whether its result is exact.
#[inline(always)]
fn nx_unless(exact: bool) -> u8 {
    if exact {
        0
    } else {
        flags::NX
    }
}

/// Whether the integer magnitude `m` is exactly representable with a `precision`-bit significand: its set bits
/// span at most that many (integer-to-float conversions cannot overflow or underflow).
#[inline(always)]
fn integer_fits(m: u64, precision: u32) -> bool {
    m == 0 || 64 - m.leading_zeros() - m.trailing_zeros() <= precision
}

/// Bit-level facts about the two formats, shared by classify, compare, min and max (which need no rounding and so
/// are computed here directly from the specification, for both formats on `u64`).
#[derive(Clone, Copy)]
struct Format {
    sign: u64,
    exponent: u64,
    mantissa: u64,
    quiet: u64,
    canonical_nan: u64,
}

const SINGLE: Format =
    Format { sign: 1 << 31, exponent: 0x7f80_0000, mantissa: 0x007f_ffff, quiet: 1 << 22, canonical_nan: 0x7fc0_0000 };
const DOUBLE: Format = Format {
    sign: 1 << 63,
    exponent: 0x7ff0_0000_0000_0000,
    mantissa: 0x000f_ffff_ffff_ffff,
    quiet: 1 << 51,
    canonical_nan: 0x7ff8_0000_0000_0000,
};

impl Format {
    #[inline(always)]
    fn is_nan(self, x: u64) -> bool {
        x & self.exponent == self.exponent && x & self.mantissa != 0
    }

    #[inline(always)]
    fn is_snan(self, x: u64) -> bool {
        self.is_nan(x) && x & self.quiet == 0
    }

    /// `fclass`: bit 0 -inf, 1 negative normal, 2 negative subnormal, 3 -0, 4 +0, 5 positive subnormal,
    /// 6 positive normal, 7 +inf, 8 signaling NaN, 9 quiet NaN.
    fn classify(self, x: u64) -> u64 {
        let negative = x & self.sign != 0;
        let exponent = x & self.exponent;
        let mantissa = x & self.mantissa;
        let bit = if exponent == self.exponent {
            match (mantissa != 0, x & self.quiet != 0, negative) {
                (true, true, _) => 9,
                (true, false, _) => 8,
                (false, _, true) => 0,
                (false, _, false) => 7,
            }
        } else if exponent == 0 {
            match (mantissa != 0, negative) {
                (false, true) => 3,
                (false, false) => 4,
                (true, true) => 2,
                (true, false) => 5,
            }
        } else if negative {
            1
        } else {
            6
        };
        1 << bit
    }

    /// Orders non-NaN values as integers: -inf < ... < -0 < +0 < ... < +inf.
    #[inline(always)]
    fn order_key(self, x: u64) -> u64 {
        let all = self.sign | (self.sign - 1);
        if x & self.sign != 0 {
            !x & all
        } else {
            x | self.sign
        }
    }

    /// `fmin` (`is_max` false) and `fmax`: minimumNumber/maximumNumber of IEEE 754-2019 as in F 2.2, with -0 < +0,
    /// a NaN operand ignored, the canonical NaN when both are NaN, and NV for any signaling NaN.
    fn min_max(self, a: u64, b: u64, is_max: bool) -> FpResult<u64> {
        let invalid = if self.is_snan(a) || self.is_snan(b) { flags::NV } else { 0 };
        let bits = match (self.is_nan(a), self.is_nan(b)) {
            (true, true) => self.canonical_nan,
            (true, false) => b,
            (false, true) => a,
            (false, false) => {
                let a_smaller = self.order_key(a) < self.order_key(b);
                if a_smaller != is_max {
                    a
                } else {
                    b
                }
            }
        };
        FpResult::new(bits, invalid)
    }

    /// NV for `feq` (quiet: only signaling NaNs) or `flt`/`fle` (signaling: any NaN).
    #[inline(always)]
    fn compare_flags(self, a: u64, b: u64, signaling: bool) -> u8 {
        let raise = if signaling { self.is_nan(a) || self.is_nan(b) } else { self.is_snan(a) || self.is_snan(b) };
        if raise {
            flags::NV
        } else {
            0
        }
    }
}
