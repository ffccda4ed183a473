//! Table-driven decoding: an instruction word becomes a [`Decoded`] (op, registers, immediate) by looking up the
//! rows of [`INSTRUCTIONS`] that share its major opcode. Decoding is done once per static instruction (the chip
//! caches decoded program text), so the lookup favours clarity over speed.

use crate::isa::{Format, InstructionSpec, Op, INSTRUCTIONS};
use std::sync::OnceLock;

/// A decoded instruction: 8 bytes. Operand fields the format does not use are zero, so `rs1`/`rs2` of an
/// instruction that reads fewer registers name `x0` (which never causes a load-use stall).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub op: Op,
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    /// Sign-extended immediate, shift amount, or (CSR formats) the CSR number.
    pub imm: i32,
}

/// Rows grouped by the 7-bit major opcode.
fn rows_by_opcode() -> &'static [Vec<&'static InstructionSpec>; 128] {
    static TABLE: OnceLock<[Vec<&'static InstructionSpec>; 128]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: [Vec<&'static InstructionSpec>; 128] = std::array::from_fn(|_| Vec::new());
        for spec in INSTRUCTIONS {
            debug_assert_eq!(spec.mask & 0x7f, 0x7f, "{}: every row fixes the major opcode", spec.name);
            table[(spec.match_bits & 0x7f) as usize].push(spec);
        }
        table
    })
}

/// The table row of `word`, if it encodes a known instruction.
pub fn lookup(word: u32) -> Option<&'static InstructionSpec> {
    rows_by_opcode()[(word & 0x7f) as usize].iter().copied().find(|s| word & s.mask == s.match_bits)
}

fn bits(word: u32, hi: u32, lo: u32) -> u32 {
    (word >> lo) & ((1 << (hi - lo + 1)) - 1)
}

fn imm_i(word: u32) -> i32 {
    (word as i32) >> 20
}

fn imm_s(word: u32) -> i32 {
    (((word as i32) >> 25) << 5) | bits(word, 11, 7) as i32
}

fn imm_b(word: u32) -> i32 {
    let sign = ((word as i32) >> 31) << 12;
    sign | (bits(word, 7, 7) << 11) as i32 | (bits(word, 30, 25) << 5) as i32 | (bits(word, 11, 8) << 1) as i32
}

fn imm_u(word: u32) -> i32 {
    (word & 0xffff_f000) as i32
}

fn imm_j(word: u32) -> i32 {
    let sign = ((word as i32) >> 31) << 20;
    sign | (bits(word, 19, 12) << 12) as i32 | (bits(word, 20, 20) << 11) as i32 | (bits(word, 30, 21) << 1) as i32
}

/// Decodes one 32-bit instruction word; `None` if no row matches (an illegal instruction).
pub fn decode(word: u32) -> Option<Decoded> {
    let spec = lookup(word)?;
    let rd = bits(word, 11, 7) as u8;
    let rs1 = bits(word, 19, 15) as u8;
    let rs2 = bits(word, 24, 20) as u8;
    let d = |rd, rs1, rs2, imm| Decoded { op: spec.op, rd, rs1, rs2, imm };
    Some(match spec.format {
        Format::R => d(rd, rs1, rs2, 0),
        Format::I => d(rd, rs1, 0, imm_i(word)),
        Format::Shift64 => d(rd, rs1, 0, bits(word, 25, 20) as i32),
        Format::Shift32 => d(rd, rs1, 0, bits(word, 24, 20) as i32),
        Format::S => d(0, rs1, rs2, imm_s(word)),
        Format::B => d(0, rs1, rs2, imm_b(word)),
        Format::U => d(rd, 0, 0, imm_u(word)),
        Format::J => d(rd, 0, 0, imm_j(word)),
        Format::Csr => d(rd, rs1, 0, bits(word, 31, 20) as i32),
        // The 5-bit immediate sits in the rs1 field but is not a register read: keep it above the CSR number so
        // `rs1` stays x0 for hazard detection.
        Format::CsrImm => d(rd, 0, 0, (bits(word, 31, 20) | u32::from(rs1) << 12) as i32),
        Format::Fence => d(0, 0, 0, bits(word, 27, 20) as i32),
        Format::None => d(0, 0, 0, 0),
        Format::Rd => d(rd, 0, 0, 0),
        Format::Rs1Rs2 => d(0, rs1, rs2, 0),
        Format::BranchOffset => d(0, 0, 0, imm_b(word)),
    })
}

/// The CSR number of a Zicsr instruction.
pub fn csr_number(d: &Decoded) -> u16 {
    (d.imm & 0xfff) as u16
}

/// The 5-bit immediate of `csrrwi`/`csrrsi`/`csrrci`.
pub fn csr_zimm(d: &Decoded) -> u64 {
    (d.imm >> 12) as u64 & 0x1f
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn decodes_known_words() {
        // addi a0, a0, -1
        assert_eq!(decode(0xfff5_0513), Some(Decoded { op: Op::Addi, rd: 10, rs1: 10, rs2: 0, imm: -1 }));
        // sd ra, 8(sp)
        assert_eq!(decode(0x0011_3423), Some(Decoded { op: Op::Sd, rd: 0, rs1: 2, rs2: 1, imm: 8 }));
        // beq a0, a1, -4
        assert_eq!(decode(0xfeb5_0ee3), Some(Decoded { op: Op::Beq, rd: 0, rs1: 10, rs2: 11, imm: -4 }));
        // jal ra, 2048
        assert_eq!(decode(0x0010_00ef), Some(Decoded { op: Op::Jal, rd: 1, rs1: 0, rs2: 0, imm: 2048 }));
        // lui a0, 0x80000 (sign-extended)
        assert_eq!(decode(0x8000_0537), Some(Decoded { op: Op::Lui, rd: 10, rs1: 0, rs2: 0, imm: i32::MIN }));
        // srai a0, a0, 63
        assert_eq!(decode(0x43f5_5513), Some(Decoded { op: Op::Srai, rd: 10, rs1: 10, rs2: 0, imm: 63 }));
        // csrr a0, mhartid
        assert_eq!(decode(0xf140_2573), Some(Decoded { op: Op::Csrrs, rd: 10, rs1: 0, rs2: 0, imm: 0xf14 }));
        // divw a0, a0, a1
        assert_eq!(decode(0x02b5_453b).map(|d| d.op), Some(Op::Divw));
        // .insn r CUSTOM_0, 0, 0, x0, a0, a1  (send)
        assert_eq!(decode(0x00b5_000b), Some(Decoded { op: Op::PimpSend, rd: 0, rs1: 10, rs2: 11, imm: 0 }));
    }

    #[test]
    fn rejects_illegal_words() {
        assert_eq!(decode(0), None);
        assert_eq!(decode(0xffff_ffff), None);
        // slliw with shamt[5] set is reserved.
        assert_eq!(decode(0x0205_151b), None);
        // A compressed instruction (low bits != 11) is not RV64IM.
        assert_eq!(decode(0x0000_4501), None);
    }

    fn encode_b(imm: i32) -> u32 {
        let u = imm as u32;
        ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3f) << 25 | ((u >> 1) & 0xf) << 8 | ((u >> 11) & 1) << 7
    }

    fn encode_j(imm: i32) -> u32 {
        let u = imm as u32;
        ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 | ((u >> 12) & 0xff) << 12
    }

    proptest! {
        #[test]
        fn branch_offsets_round_trip(half in -2048i32..2048) {
            let imm = half * 2;
            let d = decode(encode_b(imm) | 0x63).unwrap();
            prop_assert_eq!(d.imm, imm);
        }

        #[test]
        fn jump_offsets_round_trip(half in -(1i32 << 19)..(1 << 19)) {
            let imm = half * 2;
            let d = decode(encode_j(imm) | 0x6f).unwrap();
            prop_assert_eq!(d.imm, imm);
        }

        #[test]
        fn store_offsets_round_trip(imm in -2048i32..2048) {
            let u = imm as u32;
            let word = ((u >> 5) & 0x7f) << 25 | (u & 0x1f) << 7 | 0x3023;
            prop_assert_eq!(decode(word).unwrap().imm, imm);
        }

        #[test]
        fn every_word_decodes_to_at_most_one_row(word in any::<u32>()) {
            let rows = INSTRUCTIONS.iter().filter(|s| word & s.mask == s.match_bits).count();
            prop_assert!(rows <= 1);
            prop_assert_eq!(decode(word).is_some(), rows == 1);
        }
    }
}
