//! Executing one decoded instruction against a hart and its memory. Each instruction is a short arm with explicit
//! state; arithmetic with subtle corner cases (M-extension division, high multiplies) lives in named functions
//! with their own tests. Timing is not decided here (see [`crate::timing`]): execution only reports whether
//! control flow was redirected.

use crate::decode::{csr_number, csr_zimm, Decoded};
use crate::hart::Hart;
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
    #[error("jump or branch target {target:#x} is not 4-byte aligned")]
    MisalignedTarget { target: u64 },
    #[error("CSR {csr:#05x}: {reason}")]
    Csr { csr: u16, reason: &'static str },
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
fn branch(h: &mut Hart, taken: bool, imm: i32) -> Result<Flow, Fault> {
    if taken {
        jump_to(h, h.pc.wrapping_add(imm as i64 as u64))
    } else {
        h.pc = h.pc.wrapping_add(4);
        Ok(Flow::Next)
    }
}

#[inline(always)]
fn jump_to(h: &mut Hart, target: u64) -> Result<Flow, Fault> {
    if target & 3 != 0 {
        return Err(Fault::MisalignedTarget { target });
    }
    h.pc = target;
    Ok(Flow::Redirect)
}

#[inline(always)]
fn csr_op(h: &mut Hart, d: Decoded, operand: u64, write: impl FnOnce(u64, u64) -> u64, writes: bool) -> Result<Flow, Fault> {
    let number = csr_number(&d);
    let old = h.read_csr(number).ok_or(Fault::Csr { csr: number, reason: "no such CSR" })?;
    if writes {
        h.write_csr(number, write(old, operand)).map_err(|reason| Fault::Csr { csr: number, reason })?;
    }
    h.x[d.rd as usize] = old;
    h.x[0] = 0; // `csrw` and friends have rd = x0
    h.pc = h.pc.wrapping_add(4);
    Ok(Flow::Next)
}

/// Executes `d` (fetched from `h.pc`). On success the pc points at the next instruction, except for
/// [`Flow::Environment`], which leaves it on this one for the environment to handle. On a fault nothing is
/// changed (registers, memory and pc are as before).
#[inline(always)]
pub fn execute<M: Memory>(h: &mut Hart, mem: &mut M, d: Decoded) -> Result<Flow, Fault> {
    let rs1 = h.x[d.rs1 as usize];
    let rs2 = h.x[d.rs2 as usize];
    let imm = d.imm as i64 as u64;
    let pc = h.pc;
    let value = match d.op {
        Op::Lui => imm,
        Op::Auipc => pc.wrapping_add(imm),
        Op::Jal => {
            let flow = jump_to(h, pc.wrapping_add(imm))?;
            h.x[d.rd as usize] = pc.wrapping_add(4);
            h.x[0] = 0;
            return Ok(flow);
        }
        Op::Jalr => {
            let flow = jump_to(h, rs1.wrapping_add(imm) & !1)?;
            h.x[d.rd as usize] = pc.wrapping_add(4);
            h.x[0] = 0;
            return Ok(flow);
        }
        Op::Beq => return branch(h, rs1 == rs2, d.imm),
        Op::Bne => return branch(h, rs1 != rs2, d.imm),
        Op::Blt => return branch(h, (rs1 as i64) < (rs2 as i64), d.imm),
        Op::Bge => return branch(h, (rs1 as i64) >= (rs2 as i64), d.imm),
        Op::Bltu => return branch(h, rs1 < rs2, d.imm),
        Op::Bgeu => return branch(h, rs1 >= rs2, d.imm),
        Op::Lb => mem.load(rs1.wrapping_add(imm), 1)? as i8 as i64 as u64,
        Op::Lh => mem.load(rs1.wrapping_add(imm), 2)? as i16 as i64 as u64,
        Op::Lw => mem.load(rs1.wrapping_add(imm), 4)? as i32 as i64 as u64,
        Op::Ld => mem.load(rs1.wrapping_add(imm), 8)?,
        Op::Lbu => mem.load(rs1.wrapping_add(imm), 1)?,
        Op::Lhu => mem.load(rs1.wrapping_add(imm), 2)?,
        Op::Lwu => mem.load(rs1.wrapping_add(imm), 4)?,
        Op::Sb | Op::Sh | Op::Sw | Op::Sd => {
            let size = 1 << (d.op as u8 - Op::Sb as u8);
            mem.store(rs1.wrapping_add(imm), size, rs2)?;
            h.pc = pc.wrapping_add(4);
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
            h.pc = pc.wrapping_add(4);
            return Ok(Flow::Next);
        }
        Op::Ecall => return Ok(Flow::Environment(EnvOp::Ecall)),
        Op::Ebreak => return Ok(Flow::Environment(EnvOp::Ebreak)),
        Op::FenceI => return Ok(Flow::Environment(EnvOp::FenceI)),
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
        Op::PimpSend | Op::PimpRecv | Op::PimpSrc | Op::PimpBrs | Op::PimpBns | Op::PimpBar | Op::PimpBnr => {
            return Ok(Flow::Environment(EnvOp::Custom(d)))
        }
    };
    h.x[d.rd as usize] = value;
    h.x[0] = 0;
    h.pc = pc.wrapping_add(4);
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
