//! Executing one decoded instruction against a hart and its memory. Each instruction is a short arm with explicit
//! state; arithmetic with subtle corner cases (M-extension division, high multiplies) lives in named functions
//! with their own tests. Timing is not decided here (see [`crate::timing`]): execution only reports whether
//! control flow was redirected.

use crate::decode::{csr_number, csr_zimm, Decoded};
use crate::fpu::{self, FpResult, Rm};
use crate::hart::{mstatus, Hart, Privilege, NO_RESERVATION};
use crate::isa::Op;
use crate::memory::{MemFault, Memory};

/// What the instruction did besides updating registers and memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Fell through to the next instruction.
    Next,
    /// A taken branch or a jump redirected the pc.
    Redirect,
    /// Needs the environment: `ecall`, `ebreak` (semihosting), `fence.i` (code may have changed), or a custom
    /// (network interface) instruction. The pc still points at the instruction.
    Environment(EnvOp),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvOp {
    Ecall,
    Ebreak,
    FenceI,
    Custom(Decoded),
}

/// Why an instruction could not complete. The pc still points at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    #[error(transparent)]
    Memory(#[from] MemFault),
    #[error("jump or branch target {target:#x} is not {align}-byte aligned")]
    MisalignedTarget { target: u64, align: u8 },
    #[error("CSR {csr:#05x}: {reason}")]
    Csr { csr: u16, reason: &'static str },
    #[error("dynamic rounding mode with frm = {frm}, which is not a rounding mode (0 to 4)")]
    RoundingMode { frm: u8 },
    #[error("{op} at {addr:#x}: atomic accesses must be naturally aligned")]
    MisalignedAtomic { op: &'static str, addr: u64 },
    /// A privileged instruction the current mode may not execute (`mret` in U-mode, `wfi` in U-mode with
    /// `mstatus.TW` set).
    #[error("{op} {reason}")]
    Privileged { op: &'static str, reason: &'static str },
}

#[inline(always)]
fn sext32(v: u64) -> u64 {
    v as i32 as i64 as u64
}

/// `div`: signed 64-bit division with the specification's results for division by zero (-1) and overflow.
pub fn div(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i64, b as i64);
    if b == 0 {
        u64::MAX
    } else {
        a.wrapping_div(b) as u64
    }
}

/// `divu`: division by zero gives all ones.
pub fn divu(a: u64, b: u64) -> u64 {
    a.checked_div(b).unwrap_or(u64::MAX)
}

/// `rem`: division by zero gives the dividend, overflow gives 0.
pub fn rem(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i64, b as i64);
    if b == 0 {
        a as u64
    } else {
        a.wrapping_rem(b) as u64
    }
}

/// `remu`: division by zero gives the dividend.
pub fn remu(a: u64, b: u64) -> u64 {
    a.checked_rem(b).unwrap_or(a)
}

/// `divw`: 32-bit signed division, result sign-extended.
pub fn divw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i32, b as i32);
    if b == 0 {
        u64::MAX
    } else {
        a.wrapping_div(b) as i64 as u64
    }
}

/// `divuw`: 32-bit unsigned division, result sign-extended (all ones on division by zero).
pub fn divuw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    a.checked_div(b).map_or(u64::MAX, |q| q as i32 as i64 as u64)
}

/// `remw`: 32-bit signed remainder, sign-extended; the dividend on division by zero.
pub fn remw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i32, b as i32);
    if b == 0 {
        a as i64 as u64
    } else {
        a.wrapping_rem(b) as i64 as u64
    }
}

/// `remuw`: 32-bit unsigned remainder, sign-extended; the dividend on division by zero.
pub fn remuw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    a.checked_rem(b).unwrap_or(a) as i32 as i64 as u64
}

pub fn mulh(a: u64, b: u64) -> u64 {
    ((i128::from(a as i64) * i128::from(b as i64)) >> 64) as u64
}

pub fn mulhsu(a: u64, b: u64) -> u64 {
    ((i128::from(a as i64) * i128::from(b)) >> 64) as u64
}

pub fn mulhu(a: u64, b: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) >> 64) as u64
}

#[inline(always)]
fn branch(h: &mut Hart, d: Decoded, taken: bool) -> Result<Flow, Fault> {
    if taken {
        jump_to(h, h.pc.wrapping_add(d.imm as i64 as u64))
    } else {
        h.pc = h.pc.wrapping_add(u64::from(d.len));
        Ok(Flow::Next)
    }
}

#[inline(always)]
fn jump_to(h: &mut Hart, target: u64) -> Result<Flow, Fault> {
    // IALIGN: 16 bits with compressed instructions, 32 without.
    let align: u8 = if h.isa.compressed() { 2 } else { 4 };
    if target & u64::from(align - 1) != 0 {
        return Err(Fault::MisalignedTarget { target, align });
    }
    h.pc = target;
    Ok(Flow::Redirect)
}

/// Canonical quiet NaNs of the two formats.
const CANONICAL_NAN_S: u32 = 0x7fc0_0000;

/// A single in an f register: its low 32 bits if NaN-boxed (upper 32 bits all ones), else the canonical NaN.
#[inline(always)]
fn single(h: &Hart, r: u8) -> u32 {
    let v = h.f[usize::from(r & 31)];
    if v >> 32 == 0xffff_ffff {
        v as u32
    } else {
        CANONICAL_NAN_S
    }
}

#[inline(always)]
fn double(h: &Hart, r: u8) -> u64 {
    h.f[usize::from(r & 31)]
}

#[inline(always)]
fn boxed(v: u32) -> u64 {
    0xffff_ffff_0000_0000 | u64::from(v)
}

/// The rounding mode of `d`: its own, or `frm` for the dynamic mode 7.
#[inline(always)]
fn rounding(h: &Hart, d: Decoded) -> Result<Rm, Fault> {
    let bits = if d.imm == 7 { h.frm } else { d.imm as u8 };
    Rm::from_bits(bits).ok_or(Fault::RoundingMode { frm: h.frm })
}

/// Writes an f register (and accrues the flags of the operation that produced it), then steps the pc.
#[inline(always)]
fn set_f(h: &mut Hart, d: Decoded, r: FpResult<u64>) -> Result<Flow, Fault> {
    h.f[usize::from(d.rd & 31)] = r.bits;
    h.fflags |= r.flags;
    h.pc = h.pc.wrapping_add(u64::from(d.len));
    Ok(Flow::Next)
}

/// A single-precision result, NaN-boxed.
#[inline(always)]
fn set_s(h: &mut Hart, d: Decoded, r: FpResult<u32>) -> Result<Flow, Fault> {
    set_f(h, d, FpResult { bits: boxed(r.bits), flags: r.flags })
}

/// An integer result of a floating-point operation (compare, convert, classify), with its flags.
#[inline(always)]
fn fp_to_x(h: &mut Hart, r: FpResult<u64>) -> u64 {
    h.fflags |= r.flags;
    r.bits
}

#[inline(always)]
fn flag_bool(r: FpResult<bool>) -> FpResult<u64> {
    FpResult { bits: u64::from(r.bits), flags: r.flags }
}

/// A store by this hart of `size` bytes at `addr` touching the LR reservation's 8-byte granule clears it (a store
/// is at most 8 bytes, so it touches the granule of its first or of its last byte; a misaligned one may touch two).
#[inline(always)]
fn store_clears_reservation(h: &mut Hart, addr: u64, size: u32) {
    if h.reservation != NO_RESERVATION {
        let last = addr.wrapping_add(u64::from(size) - 1);
        if (addr ^ h.reservation) & !7 == 0 || (last ^ h.reservation) & !7 == 0 {
            h.reservation = NO_RESERVATION;
        }
    }
}

/// AMO `op` of `size` bytes: `rd` gets the old value (sign-extended for words), memory `f(old, rs2)`.
#[inline(always)]
fn amo<M: Memory>(h: &mut Hart, mem: &mut M, d: Decoded, size: u32, f: impl FnOnce(u64, u64) -> u64) -> Result<u64, Fault> {
    let addr = h.x[d.rs1 as usize];
    if addr & u64::from(size - 1) != 0 {
        return Err(Fault::MisalignedAtomic { op: d.op.name(), addr });
    }
    let raw = mem.load(addr, size)?;
    let old = if size == 4 { raw as i32 as i64 as u64 } else { raw };
    mem.store(addr, size, f(old, h.x[d.rs2 as usize]))?;
    store_clears_reservation(h, addr, size);
    Ok(old)
}

/// `lr.w`/`lr.d`: loads and reserves the address.
#[inline(always)]
fn load_reserved<M: Memory>(h: &mut Hart, mem: &mut M, d: Decoded, size: u32) -> Result<u64, Fault> {
    let addr = h.x[d.rs1 as usize];
    if addr & u64::from(size - 1) != 0 {
        return Err(Fault::MisalignedAtomic { op: d.op.name(), addr });
    }
    let raw = mem.load(addr, size)?;
    h.reservation = addr;
    Ok(if size == 4 { raw as i32 as i64 as u64 } else { raw })
}

/// `sc.w`/`sc.d`: stores only if the address is the one the last LR reserved; `rd` gets 0 on success, 1 on
/// failure. The reservation is gone either way.
#[inline(always)]
fn store_conditional<M: Memory>(h: &mut Hart, mem: &mut M, d: Decoded, size: u32) -> Result<u64, Fault> {
    let addr = h.x[d.rs1 as usize];
    if addr & u64::from(size - 1) != 0 {
        return Err(Fault::MisalignedAtomic { op: d.op.name(), addr });
    }
    if h.reservation != addr {
        h.reservation = NO_RESERVATION;
        return Ok(1);
    }
    mem.store(addr, size, h.x[d.rs2 as usize])?;
    h.reservation = NO_RESERVATION;
    Ok(0)
}

#[inline(always)]
fn csr_op(h: &mut Hart, d: Decoded, operand: u64, write: impl FnOnce(u64, u64) -> u64, writes: bool) -> Result<Flow, Fault> {
    let number = csr_number(&d);
    let old = h.read_csr(number).ok_or(Fault::Csr { csr: number, reason: "no such CSR" })?;
    h.check_csr_access(number, writes).map_err(|reason| Fault::Csr { csr: number, reason })?;
    if writes {
        h.write_csr(number, write(old, operand)).map_err(|reason| Fault::Csr { csr: number, reason })?;
    }
    h.x[d.rd as usize] = old;
    h.x[0] = 0; // `csrw` and friends have rd = x0
    h.pc = h.pc.wrapping_add(u64::from(d.len));
    Ok(Flow::Next)
}

/// The A, F and D instructions but the FP loads and stores. Out of line: their arms (the FP ones call into `fpu`)
/// inlined into [`execute`], and so into the chip's interpreter loop, made that loop's body so large that its state
/// spilled to memory, and an integer kernel that executes none of them ran at 135 MIPS instead of 220. The FP loads
/// and stores are as small as the integer ones and stay in line (the FP kernel ran 11% faster for it).
#[inline(never)]
fn execute_afd<M: Memory>(h: &mut Hart, mem: &mut M, d: Decoded) -> Result<Flow, Fault> {
    let rs1 = h.x[usize::from(d.rs1 & 31)];
    let next = h.pc.wrapping_add(u64::from(d.len));
    let value = match d.op {
        // A
        Op::LrW => load_reserved(h, mem, d, 4)?,
        Op::LrD => load_reserved(h, mem, d, 8)?,
        Op::ScW => store_conditional(h, mem, d, 4)?,
        Op::ScD => store_conditional(h, mem, d, 8)?,
        Op::AmoswapW => amo(h, mem, d, 4, |_, b| b)?,
        Op::AmoaddW => amo(h, mem, d, 4, u64::wrapping_add)?,
        Op::AmoxorW => amo(h, mem, d, 4, |a, b| a ^ b)?,
        Op::AmoandW => amo(h, mem, d, 4, |a, b| a & b)?,
        Op::AmoorW => amo(h, mem, d, 4, |a, b| a | b)?,
        Op::AmominW => amo(h, mem, d, 4, |a, b| if (a as i32) < (b as i32) { a } else { b })?,
        Op::AmomaxW => amo(h, mem, d, 4, |a, b| if (a as i32) > (b as i32) { a } else { b })?,
        Op::AmominuW => amo(h, mem, d, 4, |a, b| if (a as u32) < (b as u32) { a } else { b })?,
        Op::AmomaxuW => amo(h, mem, d, 4, |a, b| if (a as u32) > (b as u32) { a } else { b })?,
        Op::AmoswapD => amo(h, mem, d, 8, |_, b| b)?,
        Op::AmoaddD => amo(h, mem, d, 8, u64::wrapping_add)?,
        Op::AmoxorD => amo(h, mem, d, 8, |a, b| a ^ b)?,
        Op::AmoandD => amo(h, mem, d, 8, |a, b| a & b)?,
        Op::AmoorD => amo(h, mem, d, 8, |a, b| a | b)?,
        Op::AmominD => amo(h, mem, d, 8, |a, b| if (a as i64) < (b as i64) { a } else { b })?,
        Op::AmomaxD => amo(h, mem, d, 8, |a, b| if (a as i64) > (b as i64) { a } else { b })?,
        Op::AmominuD => amo(h, mem, d, 8, |a, b| a.min(b))?,
        Op::AmomaxuD => amo(h, mem, d, 8, |a, b| a.max(b))?,
        Op::FaddS => return set_s(h, d, fpu::f32_add(single(h, d.rs1), single(h, d.rs2), rounding(h, d)?)),
        Op::FsubS => return set_s(h, d, fpu::f32_sub(single(h, d.rs1), single(h, d.rs2), rounding(h, d)?)),
        Op::FmulS => return set_s(h, d, fpu::f32_mul(single(h, d.rs1), single(h, d.rs2), rounding(h, d)?)),
        Op::FdivS => return set_s(h, d, fpu::f32_div(single(h, d.rs1), single(h, d.rs2), rounding(h, d)?)),
        Op::FsqrtS => return set_s(h, d, fpu::f32_sqrt(single(h, d.rs1), rounding(h, d)?)),
        Op::FmaddS => return set_s(h, d, fpu::f32_madd(single(h, d.rs1), single(h, d.rs2), single(h, d.rs3), rounding(h, d)?)),
        Op::FmsubS => return set_s(h, d, fpu::f32_msub(single(h, d.rs1), single(h, d.rs2), single(h, d.rs3), rounding(h, d)?)),
        Op::FnmsubS => return set_s(h, d, fpu::f32_nmsub(single(h, d.rs1), single(h, d.rs2), single(h, d.rs3), rounding(h, d)?)),
        Op::FnmaddS => return set_s(h, d, fpu::f32_nmadd(single(h, d.rs1), single(h, d.rs2), single(h, d.rs3), rounding(h, d)?)),
        Op::FsgnjS | Op::FsgnjnS | Op::FsgnjxS => {
            let (a, b) = (single(h, d.rs1), single(h, d.rs2));
            let sign = match d.op {
                Op::FsgnjS => b,
                Op::FsgnjnS => !b,
                _ => a ^ b,
            } & 0x8000_0000;
            return set_s(h, d, FpResult { bits: a & 0x7fff_ffff | sign, flags: 0 });
        }
        Op::FminS => return set_s(h, d, fpu::f32_min(single(h, d.rs1), single(h, d.rs2))),
        Op::FmaxS => return set_s(h, d, fpu::f32_max(single(h, d.rs1), single(h, d.rs2))),
        Op::FcvtWS => fp_to_x(h, fpu::f32_to_i32(single(h, d.rs1), rounding(h, d)?)),
        Op::FcvtWuS => fp_to_x(h, fpu::f32_to_u32(single(h, d.rs1), rounding(h, d)?)),
        Op::FcvtLS => fp_to_x(h, fpu::f32_to_i64(single(h, d.rs1), rounding(h, d)?)),
        Op::FcvtLuS => fp_to_x(h, fpu::f32_to_u64(single(h, d.rs1), rounding(h, d)?)),
        // fmv.x.w moves the low 32 bits whatever the boxing, sign-extended.
        Op::FmvXW => double(h, d.rs1) as i32 as i64 as u64,
        Op::FeqS => fp_to_x(h, flag_bool(fpu::f32_eq(single(h, d.rs1), single(h, d.rs2)))),
        Op::FltS => fp_to_x(h, flag_bool(fpu::f32_lt(single(h, d.rs1), single(h, d.rs2)))),
        Op::FleS => fp_to_x(h, flag_bool(fpu::f32_le(single(h, d.rs1), single(h, d.rs2)))),
        Op::FclassS => fpu::f32_classify(single(h, d.rs1)),
        Op::FcvtSW => return set_s(h, d, fpu::i32_to_f32(rs1 as i32, rounding(h, d)?)),
        Op::FcvtSWu => return set_s(h, d, fpu::u32_to_f32(rs1 as u32, rounding(h, d)?)),
        Op::FcvtSL => return set_s(h, d, fpu::i64_to_f32(rs1 as i64, rounding(h, d)?)),
        Op::FcvtSLu => return set_s(h, d, fpu::u64_to_f32(rs1, rounding(h, d)?)),
        Op::FmvWX => return set_f(h, d, FpResult { bits: boxed(rs1 as u32), flags: 0 }),
        Op::FaddD => return set_f(h, d, fpu::f64_add(double(h, d.rs1), double(h, d.rs2), rounding(h, d)?)),
        Op::FsubD => return set_f(h, d, fpu::f64_sub(double(h, d.rs1), double(h, d.rs2), rounding(h, d)?)),
        Op::FmulD => return set_f(h, d, fpu::f64_mul(double(h, d.rs1), double(h, d.rs2), rounding(h, d)?)),
        Op::FdivD => return set_f(h, d, fpu::f64_div(double(h, d.rs1), double(h, d.rs2), rounding(h, d)?)),
        Op::FsqrtD => return set_f(h, d, fpu::f64_sqrt(double(h, d.rs1), rounding(h, d)?)),
        Op::FmaddD => return set_f(h, d, fpu::f64_madd(double(h, d.rs1), double(h, d.rs2), double(h, d.rs3), rounding(h, d)?)),
        Op::FmsubD => return set_f(h, d, fpu::f64_msub(double(h, d.rs1), double(h, d.rs2), double(h, d.rs3), rounding(h, d)?)),
        Op::FnmsubD => return set_f(h, d, fpu::f64_nmsub(double(h, d.rs1), double(h, d.rs2), double(h, d.rs3), rounding(h, d)?)),
        Op::FnmaddD => return set_f(h, d, fpu::f64_nmadd(double(h, d.rs1), double(h, d.rs2), double(h, d.rs3), rounding(h, d)?)),
        Op::FsgnjD | Op::FsgnjnD | Op::FsgnjxD => {
            let (a, b) = (double(h, d.rs1), double(h, d.rs2));
            let sign = match d.op {
                Op::FsgnjD => b,
                Op::FsgnjnD => !b,
                _ => a ^ b,
            } & (1 << 63);
            return set_f(h, d, FpResult { bits: a & !(1 << 63) | sign, flags: 0 });
        }
        Op::FminD => return set_f(h, d, fpu::f64_min(double(h, d.rs1), double(h, d.rs2))),
        Op::FmaxD => return set_f(h, d, fpu::f64_max(double(h, d.rs1), double(h, d.rs2))),
        Op::FcvtSD => return set_s(h, d, fpu::f64_to_f32(double(h, d.rs1), rounding(h, d)?)),
        Op::FcvtDS => {
            rounding(h, d)?;
            return set_f(h, d, fpu::f32_to_f64(single(h, d.rs1)));
        },
        Op::FeqD => fp_to_x(h, flag_bool(fpu::f64_eq(double(h, d.rs1), double(h, d.rs2)))),
        Op::FltD => fp_to_x(h, flag_bool(fpu::f64_lt(double(h, d.rs1), double(h, d.rs2)))),
        Op::FleD => fp_to_x(h, flag_bool(fpu::f64_le(double(h, d.rs1), double(h, d.rs2)))),
        Op::FclassD => fpu::f64_classify(double(h, d.rs1)),
        Op::FcvtWD => fp_to_x(h, fpu::f64_to_i32(double(h, d.rs1), rounding(h, d)?)),
        Op::FcvtWuD => fp_to_x(h, fpu::f64_to_u32(double(h, d.rs1), rounding(h, d)?)),
        Op::FcvtLD => fp_to_x(h, fpu::f64_to_i64(double(h, d.rs1), rounding(h, d)?)),
        Op::FcvtLuD => fp_to_x(h, fpu::f64_to_u64(double(h, d.rs1), rounding(h, d)?)),
        Op::FmvXD => double(h, d.rs1),
        Op::FcvtDW => {
            // Exact, but a reserved dynamic rounding mode still makes it illegal, as for every instruction with one.
            rounding(h, d)?;
            return set_f(h, d, fpu::i32_to_f64(rs1 as i32));
        },
        Op::FcvtDWu => {
            rounding(h, d)?;
            return set_f(h, d, fpu::u32_to_f64(rs1 as u32));
        },
        Op::FcvtDL => return set_f(h, d, fpu::i64_to_f64(rs1 as i64, rounding(h, d)?)),
        Op::FcvtDLu => return set_f(h, d, fpu::u64_to_f64(rs1, rounding(h, d)?)),
        Op::FmvDX => return set_f(h, d, FpResult { bits: rs1, flags: 0 }),
        other => unreachable!("{other:?} is not an A, F or D instruction"),
    };
    h.x[usize::from(d.rd & 31)] = value;
    h.x[0] = 0;
    h.pc = next;
    Ok(Flow::Next)
}

/// Executes `d` (fetched from `h.pc`). On success the pc points at the next instruction, except for
/// [`Flow::Environment`], which leaves it on this one for the environment to handle. On a fault nothing is
/// changed (registers, memory and pc are as before).
#[inline(always)]
pub fn execute<M: Memory>(h: &mut Hart, mem: &mut M, d: Decoded) -> Result<Flow, Fault> {
    // Operands in f registers are numbered from F0 = 32: masked, they read some x register, unused by those ops.
    let rs1 = h.x[usize::from(d.rs1 & 31)];
    let rs2 = h.x[usize::from(d.rs2 & 31)];
    let imm = d.imm as i64 as u64;
    let pc = h.pc;
    let next = pc.wrapping_add(u64::from(d.len));
    let value = match d.op {
        Op::Lui => imm,
        Op::Auipc => pc.wrapping_add(imm),
        Op::Jal => {
            let flow = jump_to(h, pc.wrapping_add(imm))?;
            h.x[d.rd as usize] = next;
            h.x[0] = 0;
            return Ok(flow);
        }
        Op::Jalr => {
            let flow = jump_to(h, rs1.wrapping_add(imm) & !1)?;
            h.x[d.rd as usize] = next;
            h.x[0] = 0;
            return Ok(flow);
        }
        Op::Beq => return branch(h, d, rs1 == rs2),
        Op::Bne => return branch(h, d, rs1 != rs2),
        Op::Blt => return branch(h, d, (rs1 as i64) < (rs2 as i64)),
        Op::Bge => return branch(h, d, (rs1 as i64) >= (rs2 as i64)),
        Op::Bltu => return branch(h, d, rs1 < rs2),
        Op::Bgeu => return branch(h, d, rs1 >= rs2),
        Op::Lb => mem.load(rs1.wrapping_add(imm), 1)? as i8 as i64 as u64,
        Op::Lh => mem.load(rs1.wrapping_add(imm), 2)? as i16 as i64 as u64,
        Op::Lw => mem.load(rs1.wrapping_add(imm), 4)? as i32 as i64 as u64,
        Op::Ld => mem.load(rs1.wrapping_add(imm), 8)?,
        Op::Lbu => mem.load(rs1.wrapping_add(imm), 1)?,
        Op::Lhu => mem.load(rs1.wrapping_add(imm), 2)?,
        Op::Lwu => mem.load(rs1.wrapping_add(imm), 4)?,
        Op::Sb | Op::Sh | Op::Sw | Op::Sd => {
            let size = 1 << (d.op as u8 - Op::Sb as u8);
            let addr = rs1.wrapping_add(imm);
            mem.store(addr, size, rs2)?;
            store_clears_reservation(h, addr, size);
            h.pc = next;
            return Ok(Flow::Next);
        }
        Op::Addi => rs1.wrapping_add(imm),
        Op::Slti => u64::from((rs1 as i64) < (imm as i64)),
        Op::Sltiu => u64::from(rs1 < imm),
        Op::Xori => rs1 ^ imm,
        Op::Ori => rs1 | imm,
        Op::Andi => rs1 & imm,
        Op::Slli => rs1 << (d.imm & 63),
        Op::Srli => rs1 >> (d.imm & 63),
        Op::Srai => ((rs1 as i64) >> (d.imm & 63)) as u64,
        Op::Add => rs1.wrapping_add(rs2),
        Op::Sub => rs1.wrapping_sub(rs2),
        Op::Sll => rs1 << (rs2 & 63),
        Op::Slt => u64::from((rs1 as i64) < (rs2 as i64)),
        Op::Sltu => u64::from(rs1 < rs2),
        Op::Xor => rs1 ^ rs2,
        Op::Srl => rs1 >> (rs2 & 63),
        Op::Sra => ((rs1 as i64) >> (rs2 & 63)) as u64,
        Op::Or => rs1 | rs2,
        Op::And => rs1 & rs2,
        // A single in-order hart with private memory: FENCE orders nothing observable.
        Op::Fence => {
            h.pc = next;
            return Ok(Flow::Next);
        }
        Op::Ecall => return Ok(Flow::Environment(EnvOp::Ecall)),
        Op::Ebreak => return Ok(Flow::Environment(EnvOp::Ebreak)),
        Op::FenceI => return Ok(Flow::Environment(EnvOp::FenceI)),
        Op::Mret => {
            if h.privilege != Privilege::Machine {
                return Err(Fault::Privileged { op: "mret", reason: "in user mode" });
            }
            crate::trap::mret(h);
            return Ok(Flow::Redirect);
        }
        // Here a no-op (the specification allows one); a chip whose interface can raise the external interrupt runs
        // `wfi` itself while the interrupt is armed, and lets the core sleep until it is pending.
        Op::Wfi => {
            if h.privilege == Privilege::User && h.mstatus & mstatus::TW != 0 {
                return Err(Fault::Privileged { op: "wfi", reason: "in user mode with mstatus.TW set" });
            }
            h.pc = next;
            return Ok(Flow::Next);
        }
        Op::Addiw => sext32(rs1.wrapping_add(imm)),
        Op::Slliw => sext32(((rs1 as u32) << (d.imm & 31)) as u64),
        Op::Srliw => sext32(((rs1 as u32) >> (d.imm & 31)) as u64),
        Op::Sraiw => ((rs1 as i32) >> (d.imm & 31)) as i64 as u64,
        Op::Addw => sext32(rs1.wrapping_add(rs2)),
        Op::Subw => sext32(rs1.wrapping_sub(rs2)),
        Op::Sllw => sext32(((rs1 as u32) << (rs2 & 31)) as u64),
        Op::Srlw => sext32(((rs1 as u32) >> (rs2 & 31)) as u64),
        Op::Sraw => ((rs1 as i32) >> (rs2 & 31)) as i64 as u64,
        Op::Csrrw => return csr_op(h, d, rs1, |_, v| v, true),
        Op::Csrrs => return csr_op(h, d, rs1, |old, v| old | v, d.rs1 != 0),
        Op::Csrrc => return csr_op(h, d, rs1, |old, v| old & !v, d.rs1 != 0),
        Op::Csrrwi => return csr_op(h, d, csr_zimm(&d), |_, v| v, true),
        Op::Csrrsi => return csr_op(h, d, csr_zimm(&d), |old, v| old | v, csr_zimm(&d) != 0),
        Op::Csrrci => return csr_op(h, d, csr_zimm(&d), |old, v| old & !v, csr_zimm(&d) != 0),
        Op::Mul => rs1.wrapping_mul(rs2),
        Op::Mulh => mulh(rs1, rs2),
        Op::Mulhsu => mulhsu(rs1, rs2),
        Op::Mulhu => mulhu(rs1, rs2),
        Op::Div => div(rs1, rs2),
        Op::Divu => divu(rs1, rs2),
        Op::Rem => rem(rs1, rs2),
        Op::Remu => remu(rs1, rs2),
        Op::Mulw => sext32(rs1.wrapping_mul(rs2)),
        Op::Divw => divw(rs1, rs2),
        Op::Divuw => divuw(rs1, rs2),
        Op::Remw => remw(rs1, rs2),
        Op::Remuw => remuw(rs1, rs2),
        // F and D loads and stores move bits, in line like the integer ones (a loaded single is NaN-boxed, a stored one is the low 32 bits).
        Op::Flw => {
            let v = mem.load(rs1.wrapping_add(imm), 4)?;
            return set_f(h, d, FpResult { bits: boxed(v as u32), flags: 0 });
        }
        Op::Fld => {
            let v = mem.load(rs1.wrapping_add(imm), 8)?;
            return set_f(h, d, FpResult { bits: v, flags: 0 });
        }
        Op::Fsw | Op::Fsd => {
            let size = if d.op == Op::Fsw { 4 } else { 8 };
            let addr = rs1.wrapping_add(imm);
            mem.store(addr, size, h.f[usize::from(d.rs2 & 31)])?;
            store_clears_reservation(h, addr, size);
            h.pc = next;
            return Ok(Flow::Next);
        }
        // A, F and D arithmetic, out of line (see `execute_afd`).
        Op::LrW | Op::ScW | Op::AmoswapW | Op::AmoaddW | Op::AmoxorW | Op::AmoandW | Op::AmoorW | Op::AmominW |
        Op::AmomaxW | Op::AmominuW | Op::AmomaxuW | Op::LrD | Op::ScD | Op::AmoswapD | Op::AmoaddD | Op::AmoxorD |
        Op::AmoandD | Op::AmoorD | Op::AmominD | Op::AmomaxD | Op::AmominuD | Op::AmomaxuD |
        Op::FmaddS | Op::FmsubS | Op::FnmsubS | Op::FnmaddS | Op::FaddS | Op::FsubS | Op::FmulS | Op::FdivS |
        Op::FsqrtS | Op::FsgnjS | Op::FsgnjnS | Op::FsgnjxS | Op::FminS | Op::FmaxS | Op::FcvtWS | Op::FcvtWuS |
        Op::FcvtLS | Op::FcvtLuS | Op::FmvXW | Op::FeqS | Op::FltS | Op::FleS | Op::FclassS | Op::FcvtSW |
        Op::FcvtSWu | Op::FcvtSL | Op::FcvtSLu | Op::FmvWX | Op::FmaddD | Op::FmsubD |
        Op::FnmsubD | Op::FnmaddD | Op::FaddD | Op::FsubD | Op::FmulD | Op::FdivD | Op::FsqrtD | Op::FsgnjD |
        Op::FsgnjnD | Op::FsgnjxD | Op::FminD | Op::FmaxD | Op::FcvtSD | Op::FcvtDS | Op::FeqD | Op::FltD |
        Op::FleD | Op::FclassD | Op::FcvtWD | Op::FcvtWuD | Op::FcvtLD | Op::FcvtLuD | Op::FmvXD | Op::FcvtDW |
        Op::FcvtDWu | Op::FcvtDL | Op::FcvtDLu | Op::FmvDX => return execute_afd(h, mem, d),
        Op::PimpSend | Op::PimpRecv | Op::PimpSrc | Op::PimpBrs | Op::PimpBns | Op::PimpBar | Op::PimpBnr => {
            return Ok(Flow::Environment(EnvOp::Custom(d)))
        }
    };
    h.x[usize::from(d.rd & 31)] = value;
    h.x[0] = 0;
    h.pc = next;
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn division_corner_cases_follow_the_specification() {
        let min = i64::MIN as u64;
        let neg1 = u64::MAX;
        assert_eq!(div(7, 0), neg1);
        assert_eq!(divu(7, 0), u64::MAX);
        assert_eq!(rem(7, 0), 7);
        assert_eq!(remu(7, 0), 7);
        assert_eq!(div(min, neg1), min);
        assert_eq!(rem(min, neg1), 0);
        assert_eq!(div(-7i64 as u64, 2), -3i64 as u64);
        assert_eq!(rem(-7i64 as u64, 2), -1i64 as u64);
        let min32 = i32::MIN as i64 as u64;
        assert_eq!(divw(7, 0), neg1);
        assert_eq!(divuw(7, 0), neg1);
        assert_eq!(remw(0xffff_ffff_8000_0001, 0), 0xffff_ffff_8000_0001);
        assert_eq!(remuw(0x1_8000_0001, 0), 0xffff_ffff_8000_0001);
        assert_eq!(divw(min32, neg1), min32);
        assert_eq!(remw(min32, neg1), 0);
        // The W forms look only at the low 32 bits.
        assert_eq!(divw(0x1_0000_0006, 0x1_0000_0003), 2);
        assert_eq!(divuw(0xffff_fffe, 2), 0x7fff_ffff);
        assert_eq!(divuw(0xffff_fffe, 1), 0xffff_ffff_ffff_fffe);
    }

    #[test]
    fn high_multiplies() {
        assert_eq!(mulh(u64::MAX, u64::MAX), 0); // (-1) * (-1) = 1
        assert_eq!(mulhu(u64::MAX, u64::MAX), u64::MAX - 1);
        assert_eq!(mulhsu(u64::MAX, u64::MAX), u64::MAX); // -1 * (2^64-1) = -(2^64-1)
        assert_eq!(mulh(i64::MIN as u64, i64::MIN as u64), 1 << 62);
    }

    fn run(h: &mut Hart, word: u32) -> Result<Flow, Fault> {
        let mut ram = crate::Ram::new(0x8000_0000, 64);
        execute(h, &mut ram, crate::decode::decode(word).unwrap())
    }

    #[test]
    fn user_mode_cannot_touch_machine_state() {
        let mut h = Hart::with_isa(0, 0x8000_0000, crate::isa::Isa::RV64GC);
        h.privilege = Privilege::User;
        h.x[10] = 0x55;
        let before = h.clone();
        // csrr a0, mstatus; csrw mscratch, a0; csrr a0, mhartid; mret; csrr a0, cycle (mcounteren clear)
        for word in [0x3000_2573, 0x3405_1073, 0xf140_2573, 0x3020_0073, 0xc000_2573] {
            let fault = run(&mut h, word).unwrap_err();
            assert!(matches!(fault, Fault::Csr { .. } | Fault::Privileged { op: "mret", .. }), "{word:#x}: {fault}");
            assert_eq!((h.x, h.pc, h.mstatus, h.mscratch), (before.x, before.pc, before.mstatus, before.mscratch), "{word:#x}");
        }
        // User CSRs work: csrrwi fcsr, 0 (rd = x0).
        assert_eq!(run(&mut h, 0x0030_5073), Ok(Flow::Next));
        // wfi is a no-op, unless mstatus.TW traps it in user mode.
        let wfi = 0x1050_0073;
        assert_eq!(run(&mut h, wfi), Ok(Flow::Next));
        h.mstatus |= mstatus::TW;
        assert!(matches!(run(&mut h, wfi), Err(Fault::Privileged { op: "wfi", .. })));
        h.privilege = Privilege::Machine;
        assert_eq!(run(&mut h, wfi), Ok(Flow::Next));
    }

    #[test]
    fn mret_returns_to_mepc_in_mpp() {
        let mut h = Hart::with_isa(0, 0x8000_0000, crate::isa::Isa::RV64GC);
        // csrw mepc, a0 with a0 = 0x80001002, then mret (MPP = U at reset).
        h.x[10] = 0x8000_1002;
        assert_eq!(run(&mut h, 0x3415_1073), Ok(Flow::Next));
        assert_eq!(run(&mut h, 0x3020_0073), Ok(Flow::Redirect));
        assert_eq!((h.pc, h.privilege), (0x8000_1002, Privilege::User));
        // Writing a read-only CSR is refused even with a read-only value: csrrw x0, mhartid, x0.
        h.privilege = Privilege::Machine;
        assert!(matches!(run(&mut h, 0xf140_1073), Err(Fault::Csr { csr: 0xf14, reason: "read-only CSR" })));
    }

    proptest! {
        #[test]
        fn division_identity(a in any::<u64>(), b in any::<u64>()) {
            // q * b + r == a for every pair, including the corner cases.
            prop_assert_eq!(div(a, b).wrapping_mul(b).wrapping_add(rem(a, b)), a);
            prop_assert_eq!(divu(a, b).wrapping_mul(b).wrapping_add(remu(a, b)), a);
            let (a32, b32) = (a as i32 as i64 as u64, b as i32 as i64 as u64);
            prop_assert_eq!(sext32(divw(a, b).wrapping_mul(b32).wrapping_add(remw(a, b))), a32);
        }

        #[test]
        fn high_multiply_matches_wide_product(a in any::<u64>(), b in any::<u64>()) {
            let wide = u128::from(a) * u128::from(b);
            prop_assert_eq!(mulhu(a, b), (wide >> 64) as u64);
            prop_assert_eq!(a.wrapping_mul(b), wide as u64);
        }
    }
}
