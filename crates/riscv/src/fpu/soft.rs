//! The reference path: Berkeley SoftFloat 3e with its RISC-V specialization (canonical NaN, RISC-V's saturation
//! values for invalid conversions, tininess after rounding), the library Spike computes with. Every operation and
//! rounding mode is here; the fast paths only answer for the cases they have proven identical.
//!
//! SoftFloat keeps its rounding mode and exception flags in thread-local C variables: each call sets the mode,
//! clears the flags, computes and reads the flags back, so nothing leaks between calls or threads. The functions
//! are `#[inline(never)]` to keep the callers' inlined fast paths small.

use super::{FpResult, Rm};
use softfloat_wrapper::{ExceptionFlags, Float, RoundingMode, F32, F64};

fn mode(rm: Rm) -> RoundingMode {
    match rm {
        Rm::Rne => RoundingMode::TiesToEven,
        Rm::Rtz => RoundingMode::TowardZero,
        Rm::Rdn => RoundingMode::TowardNegative,
        Rm::Rup => RoundingMode::TowardPositive,
        Rm::Rmm => RoundingMode::TiesToAway,
    }
}

/// Runs `op` with SoftFloat's flags cleared and returns its value with the flags it raised (SoftFloat's flag bits
/// are `fflags`' bits; a test checks).
fn run<T>(op: impl FnOnce() -> T) -> FpResult<T> {
    ExceptionFlags::default().set();
    let bits = op();
    let mut raised = ExceptionFlags::default();
    raised.get();
    FpResult::new(bits, raised.to_bits())
}

fn s(bits: u32) -> F32 {
    F32::from_bits(bits)
}

fn d(bits: u64) -> F64 {
    F64::from_bits(bits)
}

fn sext32(v: u32) -> u64 {
    v as i32 as i64 as u64
}

#[inline(never)]
pub(super) fn f32_add(a: u32, b: u32, rm: Rm) -> FpResult<u32> {
    run(|| s(a).add(s(b), mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f32_sub(a: u32, b: u32, rm: Rm) -> FpResult<u32> {
    run(|| s(a).sub(s(b), mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f32_mul(a: u32, b: u32, rm: Rm) -> FpResult<u32> {
    run(|| s(a).mul(s(b), mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f32_div(a: u32, b: u32, rm: Rm) -> FpResult<u32> {
    run(|| s(a).div(s(b), mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f32_sqrt(a: u32, rm: Rm) -> FpResult<u32> {
    run(|| s(a).sqrt(mode(rm)).to_bits())
}

/// `a * b + c` with one rounding; the negated forms negate operands first, as Spike does.
#[inline(never)]
pub(super) fn f32_mul_add(a: u32, b: u32, c: u32, rm: Rm) -> FpResult<u32> {
    run(|| s(a).fused_mul_add(s(b), s(c), mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f32_to_f64(a: u32) -> FpResult<u64> {
    run(|| s(a).to_f64(RoundingMode::TiesToEven).to_bits())
}

#[inline(never)]
pub(super) fn f32_to_i32(a: u32, rm: Rm) -> FpResult<u64> {
    run(|| s(a).to_i32(mode(rm), true) as i64 as u64)
}

#[inline(never)]
pub(super) fn f32_to_u32(a: u32, rm: Rm) -> FpResult<u64> {
    run(|| sext32(s(a).to_u32(mode(rm), true)))
}

#[inline(never)]
pub(super) fn f32_to_i64(a: u32, rm: Rm) -> FpResult<u64> {
    run(|| s(a).to_i64(mode(rm), true) as u64)
}

#[inline(never)]
pub(super) fn f32_to_u64(a: u32, rm: Rm) -> FpResult<u64> {
    run(|| s(a).to_u64(mode(rm), true))
}

#[inline(never)]
pub(super) fn i32_to_f32(x: i32, rm: Rm) -> FpResult<u32> {
    run(|| F32::from_i32(x, mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn u32_to_f32(x: u32, rm: Rm) -> FpResult<u32> {
    run(|| F32::from_u32(x, mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn i64_to_f32(x: i64, rm: Rm) -> FpResult<u32> {
    run(|| F32::from_i64(x, mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn u64_to_f32(x: u64, rm: Rm) -> FpResult<u32> {
    run(|| F32::from_u64(x, mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f64_add(a: u64, b: u64, rm: Rm) -> FpResult<u64> {
    run(|| d(a).add(d(b), mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f64_sub(a: u64, b: u64, rm: Rm) -> FpResult<u64> {
    run(|| d(a).sub(d(b), mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f64_mul(a: u64, b: u64, rm: Rm) -> FpResult<u64> {
    run(|| d(a).mul(d(b), mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f64_div(a: u64, b: u64, rm: Rm) -> FpResult<u64> {
    run(|| d(a).div(d(b), mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f64_sqrt(a: u64, rm: Rm) -> FpResult<u64> {
    run(|| d(a).sqrt(mode(rm)).to_bits())
}

/// `a * b + c` with one rounding; the negated forms negate operands first, as Spike does.
#[inline(never)]
pub(super) fn f64_mul_add(a: u64, b: u64, c: u64, rm: Rm) -> FpResult<u64> {
    run(|| d(a).fused_mul_add(d(b), d(c), mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f64_to_f32(a: u64, rm: Rm) -> FpResult<u32> {
    run(|| d(a).to_f32(mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn f64_to_i32(a: u64, rm: Rm) -> FpResult<u64> {
    run(|| d(a).to_i32(mode(rm), true) as i64 as u64)
}

#[inline(never)]
pub(super) fn f64_to_u32(a: u64, rm: Rm) -> FpResult<u64> {
    run(|| sext32(d(a).to_u32(mode(rm), true)))
}

#[inline(never)]
pub(super) fn f64_to_i64(a: u64, rm: Rm) -> FpResult<u64> {
    run(|| d(a).to_i64(mode(rm), true) as u64)
}

#[inline(never)]
pub(super) fn f64_to_u64(a: u64, rm: Rm) -> FpResult<u64> {
    run(|| d(a).to_u64(mode(rm), true))
}

#[inline(never)]
pub(super) fn i64_to_f64(x: i64, rm: Rm) -> FpResult<u64> {
    run(|| F64::from_i64(x, mode(rm)).to_bits())
}

#[inline(never)]
pub(super) fn u64_to_f64(x: u64, rm: Rm) -> FpResult<u64> {
    run(|| F64::from_u64(x, mode(rm)).to_bits())
}

/// Operations the public functions compute without SoftFloat because they never round (comparisons, exact
/// conversions), kept as the tests' reference. SoftFloat's `eq` is quiet, `lt`/`le` signaling, as `feq`/`flt`/`fle`.
#[cfg(test)]
pub(super) mod exact_ops {
    use super::*;

    pub fn i32_to_f64(x: i32) -> FpResult<u64> {
        run(|| F64::from_i32(x, RoundingMode::TiesToEven).to_bits())
    }
    pub fn u32_to_f64(x: u32) -> FpResult<u64> {
        run(|| F64::from_u32(x, RoundingMode::TiesToEven).to_bits())
    }

    pub fn f32_eq(a: u32, b: u32) -> FpResult<bool> {
        run(|| s(a).eq(s(b)))
    }
    pub fn f32_lt(a: u32, b: u32) -> FpResult<bool> {
        run(|| s(a).lt(s(b)))
    }
    pub fn f32_le(a: u32, b: u32) -> FpResult<bool> {
        run(|| s(a).le(s(b)))
    }
    pub fn f64_eq(a: u64, b: u64) -> FpResult<bool> {
        run(|| d(a).eq(d(b)))
    }
    pub fn f64_lt(a: u64, b: u64) -> FpResult<bool> {
        run(|| d(a).lt(d(b)))
    }
    pub fn f64_le(a: u64, b: u64) -> FpResult<bool> {
        run(|| d(a).le(d(b)))
    }
}
