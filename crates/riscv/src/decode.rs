//! Table-driven decoding: an instruction word becomes a [`Decoded`] (op, registers, immediate) by looking up the
//! rows of [`INSTRUCTIONS`] that share its major opcode; a compressed parcel is first expanded to the word it
//! stands for ([`crate::rvc`]). Decoding is done once per static instruction (the chip caches decoded program
//! text), so the lookup favours clarity over speed.
//!
//! Registers are numbered in one space: `x0..x31` are 0..31 and `f0..f31` are 32..63 ([`F0`]), so the timing
//! model's hazard check compares register numbers without knowing which file an operand is in.

use crate::isa::{Extension, Format, InstructionSpec, Isa, Op, INSTRUCTIONS};
use std::sync::OnceLock;

/// The number of `f0` in [`Decoded`]'s register fields (`f<n>` is `F0 + n`).
pub const F0: u8 = 32;

/// A decoded instruction: 12 bytes. Operand fields the format does not use are zero, so `rs1`/`rs2`/`rs3` of an
/// instruction that reads fewer registers name `x0` (which never causes a load-use stall). Floating-point
/// registers are numbered from [`F0`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub op: Op,
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    /// The third source of a fused multiply-add.
    pub rs3: u8,
    /// Bytes of the encoding: 4, or 2 for a compressed instruction (the pc steps by it).
    pub len: u8,
    /// Sign-extended immediate, shift amount, (CSR formats) the CSR number, or (floating point) the rounding mode.
    pub imm: i32,
}

impl Decoded {
    /// An instruction of `op` with the given operands, 4 bytes long.
    pub fn new(op: Op, rd: u8, rs1: u8, rs2: u8, imm: i32) -> Decoded {
        Decoded { op, rd, rs1, rs2, rs3: 0, len: 4, imm }
    }
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

/// Decodes one 32-bit instruction word of any extension; `None` if no row matches or a rounding mode is reserved
/// (an illegal instruction).
pub fn decode(word: u32) -> Option<Decoded> {
    let spec = lookup(word)?;
    let rd = bits(word, 11, 7) as u8;
    let rs1 = bits(word, 19, 15) as u8;
    let rs2 = bits(word, 24, 20) as u8;
    let (frd, frs1, frs2) = (F0 + rd, F0 + rs1, F0 + rs2);
    let rm = bits(word, 14, 12) as i32;
    // Rounding modes 5 and 6 are reserved (7 is the dynamic mode of `frm`, checked when the instruction runs).
    if spec.format.has_rounding_mode() && spec.mask & 0x7000 == 0 && (rm == 5 || rm == 6) {
        return None;
    }
    let d = |rd, rs1, rs2, imm| Decoded::new(spec.op, rd, rs1, rs2, imm);
    Some(match spec.format {
        Format::R | Format::Amo | Format::Lr => d(rd, rs1, rs2, 0),
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
        Format::FLoad => d(frd, rs1, 0, imm_i(word)),
        Format::FStore => d(0, rs1, frs2, imm_s(word)),
        Format::FRrr => d(frd, frs1, frs2, rm),
        Format::FR4 => Decoded { rs3: F0 + bits(word, 31, 27) as u8, ..d(frd, frs1, frs2, rm) },
        Format::FRr => d(frd, frs1, 0, rm),
        Format::FCmp => d(rd, frs1, frs2, rm),
        Format::FToX => d(rd, frs1, 0, rm),
        Format::XToF => d(frd, rs1, 0, rm),
    })
}

/// Decodes the instruction whose first bytes are `word` (its low half alone if it is a compressed parcel) for a
/// hart with extensions `isa`: `None` if it is illegal there, including an instruction of an extension the hart
/// lacks ([`missing_extension`] tells which).
pub fn decode_for(word: u32, isa: Isa) -> Option<Decoded> {
    let (d, len) = if word & 3 != 3 {
        if !isa.compressed() {
            return None;
        }
        (decode(crate::rvc::expand(word as u16)?)?, 2)
    } else {
        (decode(word)?, 4)
    };
    isa.has(d.op.spec().extension).then_some(Decoded { len, ..d })
}

/// The extension that makes `word` illegal on a hart with `isa` although it is a valid instruction of another:
/// what a fault report names.
pub fn missing_extension(word: u32, isa: Isa) -> Option<Extension> {
    if word & 3 != 3 {
        if !isa.compressed() {
            return crate::rvc::expand(word as u16).map(|_| Extension::C);
        }
        return decode(crate::rvc::expand(word as u16)?).map(|d| d.op.spec().extension).filter(|&e| !isa.has(e));
    }
    decode(word).map(|d| d.op.spec().extension).filter(|&e| !isa.has(e))
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
        assert_eq!(decode(0xfff5_0513), Some(Decoded::new(Op::Addi, 10, 10, 0, -1)));
        // sd ra, 8(sp)
        assert_eq!(decode(0x0011_3423), Some(Decoded::new(Op::Sd, 0, 2, 1, 8)));
        // beq a0, a1, -4
        assert_eq!(decode(0xfeb5_0ee3), Some(Decoded::new(Op::Beq, 0, 10, 11, -4)));
        // jal ra, 2048
        assert_eq!(decode(0x0010_00ef), Some(Decoded::new(Op::Jal, 1, 0, 0, 2048)));
        // lui a0, 0x80000 (sign-extended)
        assert_eq!(decode(0x8000_0537), Some(Decoded::new(Op::Lui, 10, 0, 0, i32::MIN)));
        // srai a0, a0, 63
        assert_eq!(decode(0x43f5_5513), Some(Decoded::new(Op::Srai, 10, 10, 0, 63)));
        // csrr a0, mhartid
        assert_eq!(decode(0xf140_2573), Some(Decoded::new(Op::Csrrs, 10, 0, 0, 0xf14)));
        // divw a0, a0, a1
        assert_eq!(decode(0x02b5_453b).map(|d| d.op), Some(Op::Divw));
        // fmadd.d fa0, fa1, fa2, fa3, rne: f registers are numbered from F0
        assert_eq!(decode(0x6ac5_8543), Some(Decoded { rs3: F0 + 13, ..Decoded::new(Op::FmaddD, F0 + 10, F0 + 11, F0 + 12, 0) }));
        // fld fa0, 8(sp); fsd fa0, 16(sp); fcvt.w.d a0, fa0, rtz; feq.d a0, fa0, fa1
        assert_eq!(decode(0x0081_3507), Some(Decoded::new(Op::Fld, F0 + 10, 2, 0, 8)));
        assert_eq!(decode(0x00a1_3827), Some(Decoded::new(Op::Fsd, 0, 2, F0 + 10, 16)));
        assert_eq!(decode(0xc205_1553), Some(Decoded::new(Op::FcvtWD, 10, F0 + 10, 0, 1)));
        assert_eq!(decode(0xa2b5_2553).map(|d| (d.op, d.rd, d.rs1, d.rs2)), Some((Op::FeqD, 10, F0 + 10, F0 + 11)));
        // amoadd.d.aqrl a0, a1, (a2)
        assert_eq!(decode(0x06b6_352f), Some(Decoded::new(Op::AmoaddD, 10, 12, 11, 0)));
        // .insn r CUSTOM_0, 0, 0, x0, a0, a1  (send)
        assert_eq!(decode(0x00b5_000b), Some(Decoded::new(Op::PimpSend, 0, 10, 11, 0)));
    }

    #[test]
    fn rejects_illegal_words() {
        assert_eq!(decode(0), None);
        assert_eq!(decode(0xffff_ffff), None);
        // slliw with shamt[5] set is reserved.
        assert_eq!(decode(0x0205_151b), None);
        // A compressed instruction (low bits != 11) is not a 32-bit word.
        assert_eq!(decode(0x0000_4501), None);
        // fadd.d with the reserved rounding modes 5 and 6; 7 (dynamic) decodes.
        assert_eq!(decode(0x02b5_5553), None);
        assert_eq!(decode(0x02b5_6553), None);
        assert_eq!(decode(0x02b5_7553).map(|d| (d.op, d.imm)), Some((Op::FaddD, 7)));
    }

    #[test]
    fn a_hart_decodes_only_its_extensions() {
        let fadd_d = 0x02b5_0553;
        assert_eq!(decode_for(fadd_d, Isa::RV64GC).map(|d| (d.op, d.len)), Some((Op::FaddD, 4)));
        assert_eq!(decode_for(fadd_d, Isa::RV64IMAC), None);
        assert_eq!(missing_extension(fadd_d, Isa::RV64IMAC), Some(Extension::D));
        assert_eq!(missing_extension(0x0000_2007, Isa::RV64IM), Some(Extension::F), "flw");
        assert_eq!(missing_extension(0x06b6_352f, Isa::RV64IM), Some(Extension::A), "amoadd.d");
        assert_eq!(missing_extension(fadd_d, Isa::RV64GC), None);
        assert_eq!(missing_extension(0, Isa::RV64GC), None, "the all-zero parcel is illegal everywhere");
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
            let rows: Vec<_> = INSTRUCTIONS.iter().filter(|s| word & s.mask == s.match_bits).collect();
            prop_assert!(rows.len() <= 1);
            // A row with a free rounding-mode field refuses the reserved modes 5 and 6.
            let reserved_rm = rows.first().is_some_and(|s| s.format.has_rounding_mode() && s.mask & 0x7000 == 0 && matches!((word >> 12) & 7, 5 | 6));
            prop_assert_eq!(decode(word).is_some(), rows.len() == 1 && !reserved_rm);
        }
    }
}
