//! The C (compressed) extension: every 16-bit RV64C parcel expanded to the 32-bit base instruction it stands for.
//!
//! The specification defines each compressed instruction as an abbreviation of one base instruction, so the core
//! expands a parcel when it decodes it and everything after decode (execute, the hazard checks, the timing table)
//! only ever sees base instructions. A compressed instruction therefore costs exactly what its expansion costs; the
//! one thing it changes is the fetch: the pc steps by 2 instead of 4, and `jal`/`jalr` link the address 2 after a
//! compressed one. Keeping the expansion here, apart from the base decoder, also keeps the C extension a single
//! table that a test can check against the GNU assembler.
//!
//! [`COMPRESSED`] has one row per RV64C instruction. A row's match and mask cannot say "this field is not zero", and
//! the specification carves a few instructions out of others by exactly such a field (`c.nop` is `c.addi` with
//! rd = x0, `c.addi16sp` is `c.lui` with rd = sp, `c.jr` is `c.mv` with rs2 = x0, `c.jalr` is `c.add` with
//! rs2 = x0, and `c.ebreak` is `c.jalr` with rs1 = x0). Those carve-outs come before the row they are cut from and
//! the first matching row wins; a test proves they are the only overlaps, that each is nested in its wider row,
//! and so that every parcel has exactly one most specific row.
//!
//! Reserved encodings expand to `None`: the all-zero parcel and the rest of `c.addi4spn` with a zero immediate,
//! `c.addi16sp` and `c.lui` with a zero immediate, `c.addiw`, `c.lwsp` and `c.ldsp` with rd = x0, `c.jr` with
//! rs1 = x0, funct3 100 of quadrant 0 and the two unused `funct2` values after `c.subw`/`c.addw` (both are taken
//! by later extensions such as Zcb, which this core does not implement). Parcels ending in `11` are not compressed.
//!
//! HINTs are legal instructions with no architectural effect, so they expand to their base form like any other
//! parcel: `c.nop` with a non-zero immediate, `c.addi` with a zero immediate, `c.li`, `c.lui`, `c.mv`, `c.add` and
//! `c.slli` with rd = x0, and on RV64 the shifts by zero (`c.slli64`, `c.srli64`, `c.srai64` in the GNU assembler).
//! Each becomes a base instruction that writes x0 or leaves its register unchanged, which is what a HINT must do.

use Format::{B, I, J, R, S, U};
use Imm::{Signed, Unsigned, Zero};
use Reg::{Bits11, Bits6, Fixed, Prime4, Prime9};

/// One row of the compressed-instruction table: the parcel is `parcel & mask == match_bits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompressedSpec {
    pub name: &'static str,
    pub match_bits: u16,
    pub mask: u16,
}

/// The 32-bit base instruction a 16-bit RV64C parcel stands for, or `None` if the parcel is reserved, not defined on
/// RV64, or not compressed at all (its low two bits are `11`). HINTs are legal and expand to their base form.
pub fn expand(parcel: u16) -> Option<u32> {
    EXPANSIONS[row_of(parcel)?].apply(parcel)
}

/// The index in [`COMPRESSED`] of the most specific row that matches (carve-outs come first).
fn row_of(parcel: u16) -> Option<usize> {
    COMPRESSED.iter().position(|spec| parcel & spec.mask == spec.match_bits)
}

macro_rules! rvc_table {
    ($($name:literal, $match:literal, $mask:literal => $expansion:expr;)*) => {
        /// Every RV64C instruction, carve-outs before the rows they are cut from (see the module docs).
        pub const COMPRESSED: &[CompressedSpec] = &[
            $(CompressedSpec { name: $name, match_bits: $match, mask: $mask },)*
        ];

        /// How each row of [`COMPRESSED`] expands, in the same order.
        const EXPANSIONS: &[Expansion] = &[$($expansion,)*];
    };
}

rvc_table! {
    // Quadrant 0: CIW, CL and CS formats; funct3 100 is reserved.
    "c.addi4spn", 0x0000, 0xe003 => expand_i(ADDI, Prime4, SP, Unsigned(ADDI4SPN)).reserved_when(Reserved::ImmZero);
    "c.fld",      0x2000, 0xe003 => expand_i(FLD, Prime4, Prime9, Unsigned(DOUBLE_OFFSET));
    "c.lw",       0x4000, 0xe003 => expand_i(LW, Prime4, Prime9, Unsigned(WORD_OFFSET));
    "c.ld",       0x6000, 0xe003 => expand_i(LD, Prime4, Prime9, Unsigned(DOUBLE_OFFSET));
    "c.fsd",      0xa000, 0xe003 => expand_s(FSD, Prime9, Prime4, DOUBLE_OFFSET);
    "c.sw",       0xc000, 0xe003 => expand_s(SW, Prime9, Prime4, WORD_OFFSET);
    "c.sd",       0xe000, 0xe003 => expand_s(SD, Prime9, Prime4, DOUBLE_OFFSET);
    // Quadrant 1: immediates, ALU on x8..x15, jumps and branches.
    "c.nop",      0x0001, 0xef83 => expand_i(ADDI, X0, X0, Signed(CI_IMM));
    "c.addi",     0x0001, 0xe003 => expand_i(ADDI, Bits11, Bits11, Signed(CI_IMM));
    "c.addiw",    0x2001, 0xe003 => expand_i(ADDIW, Bits11, Bits11, Signed(CI_IMM)).reserved_when(Reserved::Bits11Zero);
    "c.li",       0x4001, 0xe003 => expand_i(ADDI, Bits11, X0, Signed(CI_IMM));
    "c.addi16sp", 0x6101, 0xef83 => expand_i(ADDI, SP, SP, Signed(ADDI16SP)).reserved_when(Reserved::ImmZero);
    "c.lui",      0x6001, 0xe003 => expand_as(U, LUI, Bits11, X0, X0, Signed(LUI_IMM)).reserved_when(Reserved::ImmZero);
    "c.srli",     0x8001, 0xec03 => expand_i(SRLI, Prime9, Prime9, Unsigned(CI_IMM));
    "c.srai",     0x8401, 0xec03 => expand_i(SRAI, Prime9, Prime9, Unsigned(CI_IMM));
    "c.andi",     0x8801, 0xec03 => expand_i(ANDI, Prime9, Prime9, Signed(CI_IMM));
    "c.sub",      0x8c01, 0xfc63 => expand_r(SUB, Prime9, Prime9, Prime4);
    "c.xor",      0x8c21, 0xfc63 => expand_r(XOR, Prime9, Prime9, Prime4);
    "c.or",       0x8c41, 0xfc63 => expand_r(OR, Prime9, Prime9, Prime4);
    "c.and",      0x8c61, 0xfc63 => expand_r(AND, Prime9, Prime9, Prime4);
    "c.subw",     0x9c01, 0xfc63 => expand_r(SUBW, Prime9, Prime9, Prime4);
    "c.addw",     0x9c21, 0xfc63 => expand_r(ADDW, Prime9, Prime9, Prime4);
    "c.j",        0xa001, 0xe003 => expand_as(J, JAL, X0, X0, X0, Signed(JUMP_OFFSET));
    "c.beqz",     0xc001, 0xe003 => expand_as(B, BEQ, X0, Prime9, X0, Signed(BRANCH_OFFSET));
    "c.bnez",     0xe001, 0xe003 => expand_as(B, BNE, X0, Prime9, X0, Signed(BRANCH_OFFSET));
    // Quadrant 2: full registers, sp-relative loads and stores, jumps through registers.
    "c.slli",     0x0002, 0xe003 => expand_i(SLLI, Bits11, Bits11, Unsigned(CI_IMM));
    "c.fldsp",    0x2002, 0xe003 => expand_i(FLD, Bits11, SP, Unsigned(LDSP_OFFSET));
    "c.lwsp",     0x4002, 0xe003 => expand_i(LW, Bits11, SP, Unsigned(LWSP_OFFSET)).reserved_when(Reserved::Bits11Zero);
    "c.ldsp",     0x6002, 0xe003 => expand_i(LD, Bits11, SP, Unsigned(LDSP_OFFSET)).reserved_when(Reserved::Bits11Zero);
    "c.jr",       0x8002, 0xf07f => expand_i(JALR, X0, Bits11, Zero).reserved_when(Reserved::Bits11Zero);
    "c.mv",       0x8002, 0xf003 => expand_r(ADD, Bits11, X0, Bits6);
    "c.ebreak",   0x9002, 0xffff => expand_r(EBREAK, X0, X0, X0);
    "c.jalr",     0x9002, 0xf07f => expand_i(JALR, RA, Bits11, Zero);
    "c.add",      0x9002, 0xf003 => expand_r(ADD, Bits11, Bits11, Bits6);
    "c.fsdsp",    0xa002, 0xe003 => expand_s(FSD, SP, Bits6, SDSP_OFFSET);
    "c.swsp",     0xc002, 0xe003 => expand_s(SW, SP, Bits6, SWSP_OFFSET);
    "c.sdsp",     0xe002, 0xe003 => expand_s(SD, SP, Bits6, SDSP_OFFSET);
}

// The base instructions, with every operand field zero.
const LUI: u32 = 0x0000_0037;
const JAL: u32 = 0x0000_006f;
const JALR: u32 = 0x0000_0067;
const BEQ: u32 = 0x0000_0063;
const BNE: u32 = 0x0000_1063;
const LW: u32 = 0x0000_2003;
const LD: u32 = 0x0000_3003;
const FLD: u32 = 0x0000_3007;
const SW: u32 = 0x0000_2023;
const SD: u32 = 0x0000_3023;
const FSD: u32 = 0x0000_3027;
const ADDI: u32 = 0x0000_0013;
const SLLI: u32 = 0x0000_1013;
const SRLI: u32 = 0x0000_5013;
const SRAI: u32 = 0x4000_5013;
const ANDI: u32 = 0x0000_7013;
const ADD: u32 = 0x0000_0033;
const SUB: u32 = 0x4000_0033;
const XOR: u32 = 0x0000_4033;
const OR: u32 = 0x0000_6033;
const AND: u32 = 0x0000_7033;
const ADDIW: u32 = 0x0000_001b;
const ADDW: u32 = 0x0000_003b;
const SUBW: u32 = 0x4000_003b;
const EBREAK: u32 = 0x0010_0073;

// Where the immediate bits sit in each format, written as in the specification's encoding figures: `(b, "…")`
// means the parcel bits from b downwards hold the listed immediate bits in that order.
/// CIW `nzuimm[5:4|9:6|2|3]` (c.addi4spn).
const ADDI4SPN: Layout = layout(&[(12, "5:4|9:6|2|3")]);
/// CL/CS word offset `uimm[5:3]`, `uimm[2|6]` (c.lw, c.sw).
const WORD_OFFSET: Layout = layout(&[(12, "5:3"), (6, "2|6")]);
/// CL/CS doubleword offset `uimm[5:3]`, `uimm[7:6]` (c.ld, c.sd, c.fld, c.fsd).
const DOUBLE_OFFSET: Layout = layout(&[(12, "5:3"), (6, "7:6")]);
/// CI/CB 6-bit immediate or shift amount `imm[5]`, `imm[4:0]`.
const CI_IMM: Layout = layout(&[(12, "5"), (6, "4:0")]);
/// c.lui `nzimm[17]`, `nzimm[16:12]`.
const LUI_IMM: Layout = layout(&[(12, "17"), (6, "16:12")]);
/// c.addi16sp `nzimm[9]`, `nzimm[4|6|8:7|5]`.
const ADDI16SP: Layout = layout(&[(12, "9"), (6, "4|6|8:7|5")]);
/// c.lwsp `uimm[5]`, `uimm[4:2|7:6]`.
const LWSP_OFFSET: Layout = layout(&[(12, "5"), (6, "4:2|7:6")]);
/// c.ldsp and c.fldsp `uimm[5]`, `uimm[4:3|8:6]`.
const LDSP_OFFSET: Layout = layout(&[(12, "5"), (6, "4:3|8:6")]);
/// CSS c.swsp `uimm[5:2|7:6]`.
const SWSP_OFFSET: Layout = layout(&[(12, "5:2|7:6")]);
/// CSS c.sdsp and c.fsdsp `uimm[5:3|8:6]`.
const SDSP_OFFSET: Layout = layout(&[(12, "5:3|8:6")]);
/// CJ `offset[11|4|9:8|10|6|7|3:1|5]`.
const JUMP_OFFSET: Layout = layout(&[(12, "11|4|9:8|10|6|7|3:1|5")]);
/// CB `offset[8|4:3]`, `offset[7:6|2:1|5]`.
const BRANCH_OFFSET: Layout = layout(&[(12, "8|4:3"), (6, "7:6|2:1|5")]);

const X0: Reg = Fixed(0);
const RA: Reg = Fixed(1);
const SP: Reg = Fixed(2);

/// Where a register number of the expansion comes from.
#[derive(Clone, Copy, Debug)]
enum Reg {
    Fixed(u32),
    /// The 5-bit field at parcel bits 11:7 (rd, rs1 of the CR and CI formats).
    Bits11,
    /// The 5-bit field at parcel bits 6:2 (rs2 of the CR and CSS formats).
    Bits6,
    /// The 3-bit field at parcel bits 9:7, naming x8..x15 (rs1', rd' of CL, CS, CA, CB).
    Prime9,
    /// The 3-bit field at parcel bits 4:2, naming x8..x15 (rd', rs2' of CIW, CL, CS, CA).
    Prime4,
}

impl Reg {
    fn number(self, parcel: u16) -> u32 {
        let field = |low: u32, width: u32| (u32::from(parcel) >> low) & ((1 << width) - 1);
        match self {
            Fixed(number) => number,
            Bits11 => field(7, 5),
            Bits6 => field(2, 5),
            Prime9 => 8 + field(7, 3),
            Prime4 => 8 + field(2, 3),
        }
    }
}

/// The immediate of the expansion.
#[derive(Clone, Copy, Debug)]
enum Imm {
    Zero,
    Unsigned(Layout),
    Signed(Layout),
}

/// Which parcels of a row are reserved rather than instructions.
#[derive(Clone, Copy, Debug)]
enum Reserved {
    Never,
    ImmZero,
    /// The rd (or rs1) field at bits 11:7 is x0.
    Bits11Zero,
}

/// The base format, which decides where the immediate goes in the 32-bit word.
#[derive(Clone, Copy, Debug)]
enum Format {
    R,
    I,
    S,
    B,
    U,
    J,
}

impl Format {
    fn place(self, imm: i32) -> u32 {
        let imm = imm as u32;
        let bits = |high: u32, low: u32| (imm >> low) & ((1 << (high - low + 1)) - 1);
        match self {
            R => 0,
            I => imm << 20,
            S => (bits(11, 5) << 25) | (bits(4, 0) << 7),
            B => (bits(12, 12) << 31) | (bits(10, 5) << 25) | (bits(4, 1) << 8) | (bits(11, 11) << 7),
            U => imm & 0xffff_f000,
            J => (bits(20, 20) << 31) | (bits(10, 1) << 21) | (bits(11, 11) << 20) | (bits(19, 12) << 12),
        }
    }
}

/// How one row expands: the base instruction with its operand fields filled from the parcel.
#[derive(Clone, Copy, Debug)]
struct Expansion {
    format: Format,
    base: u32,
    rd: Reg,
    rs1: Reg,
    rs2: Reg,
    imm: Imm,
    reserved: Reserved,
}

impl Expansion {
    const fn reserved_when(self, reserved: Reserved) -> Self {
        Expansion { reserved, ..self }
    }

    fn apply(&self, parcel: u16) -> Option<u32> {
        let imm = match self.imm {
            Zero => 0,
            Unsigned(layout) => layout.unsigned(parcel) as i32,
            Signed(layout) => layout.signed(parcel),
        };
        let reserved = match self.reserved {
            Reserved::Never => false,
            Reserved::ImmZero => imm == 0,
            Reserved::Bits11Zero => Bits11.number(parcel) == 0,
        };
        if reserved {
            return None;
        }
        let [rd, rs1, rs2] = [self.rd, self.rs1, self.rs2].map(|reg| reg.number(parcel));
        Some(self.base | (rd << 7) | (rs1 << 15) | (rs2 << 20) | self.format.place(imm))
    }
}

const fn expand_as(format: Format, base: u32, rd: Reg, rs1: Reg, rs2: Reg, imm: Imm) -> Expansion {
    Expansion { format, base, rd, rs1, rs2, imm, reserved: Reserved::Never }
}

const fn expand_i(base: u32, rd: Reg, rs1: Reg, imm: Imm) -> Expansion {
    expand_as(I, base, rd, rs1, X0, imm)
}

const fn expand_s(base: u32, rs1: Reg, rs2: Reg, offset: Layout) -> Expansion {
    expand_as(S, base, X0, rs1, rs2, Unsigned(offset))
}

const fn expand_r(base: u32, rd: Reg, rs1: Reg, rs2: Reg) -> Expansion {
    expand_as(R, base, rd, rs1, rs2, Zero)
}

/// Where each parcel bit goes in the immediate: `target[p]` is the immediate bit parcel bit `p` holds, if any.
#[derive(Clone, Copy, Debug)]
struct Layout {
    target: [u8; 16],
    /// The highest immediate bit, which is the sign of a signed immediate.
    top: u8,
}

const NOT_IMMEDIATE: u8 = u8::MAX;

impl Layout {
    fn unsigned(&self, parcel: u16) -> u32 {
        let mut value = 0;
        for (bit, &target) in self.target.iter().enumerate() {
            if target != NOT_IMMEDIATE {
                value |= u32::from((parcel >> bit) & 1) << target;
            }
        }
        value
    }

    fn signed(&self, parcel: u16) -> i32 {
        let unused = 31 - u32::from(self.top);
        ((self.unsigned(parcel) << unused) as i32) >> unused
    }
}

/// Builds a [`Layout`] from the specification's notation at compile time, so a typo fails the build: every
/// immediate bit must appear once, they must form one contiguous range, and they must stay within parcel bits 12:2.
const fn layout(fields: &[(u32, &str)]) -> Layout {
    let mut target = [NOT_IMMEDIATE; 16];
    let mut seen: u32 = 0;
    let mut f = 0;
    while f < fields.len() {
        let (top, text) = fields[f];
        let text = text.as_bytes();
        let mut parcel_bit = top;
        let mut at = 0;
        while at < text.len() {
            let (high, next) = number(text, at);
            let ranged = next < text.len() && text[next] == b':';
            let (low, next) = if ranged { number(text, next + 1) } else { (high, next) };
            assert!(high >= low, "a range must be written high:low");
            let mut bit = high;
            loop {
                assert!(parcel_bit >= 2 && parcel_bit <= 12, "immediates live in parcel bits 12:2");
                assert!(seen & (1 << bit) == 0, "an immediate bit appears twice");
                seen |= 1 << bit;
                target[parcel_bit as usize] = bit as u8;
                parcel_bit -= 1;
                if bit == low {
                    break;
                }
                bit -= 1;
            }
            at = next;
            if at < text.len() {
                assert!(text[at] == b'|', "fields are separated by |");
                at += 1;
            }
        }
        f += 1;
    }
    let (low, top) = (seen.trailing_zeros(), 31 - seen.leading_zeros());
    assert!(seen == (u32::MAX >> (31 - top)) & (u32::MAX << low), "immediate bits must be one contiguous range");
    Layout { target, top: top as u8 }
}

/// The decimal number starting at `text[at]`, and the index after it.
const fn number(text: &[u8], mut at: usize) -> (u32, usize) {
    assert!(at < text.len() && text[at].is_ascii_digit(), "expected a bit number");
    let mut value = 0;
    while at < text.len() && text[at].is_ascii_digit() {
        value = value * 10 + (text[at] - b'0') as u32;
        at += 1;
    }
    (value, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode;
    use proptest::prelude::*;

    /// The rows the specification carves out of wider ones, as (narrow, wide): the only overlaps allowed.
    const CARVE_OUTS: &[(&str, &str)] = &[
        ("c.nop", "c.addi"),
        ("c.addi16sp", "c.lui"),
        ("c.jr", "c.mv"),
        ("c.ebreak", "c.jalr"),
        ("c.ebreak", "c.add"),
        ("c.jalr", "c.add"),
    ];

    fn overlap(a: &CompressedSpec, b: &CompressedSpec) -> bool {
        (a.match_bits ^ b.match_bits) & a.mask & b.mask == 0
    }

    /// Whether every parcel matching `narrow` also matches `wide`.
    fn nested(narrow: &CompressedSpec, wide: &CompressedSpec) -> bool {
        narrow.mask & wide.mask == wide.mask && narrow.match_bits & wide.mask == wide.match_bits
    }

    fn spec(name: &str) -> &'static CompressedSpec {
        COMPRESSED.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no row {name}"))
    }

    #[test]
    fn rows_overlap_only_where_the_spec_carves_one_out_of_another() {
        for (i, a) in COMPRESSED.iter().enumerate() {
            assert_eq!(a.match_bits & !a.mask, 0, "{}: match has bits outside its mask", a.name);
            assert_ne!(a.match_bits & 3, 3, "{}: quadrant 3 is not compressed", a.name);
            assert_eq!(a.mask & 3, 3, "{}: the quadrant must be fixed", a.name);
            for b in &COMPRESSED[i + 1..] {
                let declared = CARVE_OUTS.contains(&(a.name, b.name));
                assert_eq!(overlap(a, b), declared, "{} and {}: overlap is not what CARVE_OUTS says", a.name, b.name);
                if declared {
                    assert!(nested(a, b) && a.mask != b.mask, "{} must be strictly inside {}", a.name, b.name);
                }
            }
        }
        for (narrow, wide) in CARVE_OUTS {
            let position = |name: &str| COMPRESSED.iter().position(|s| s.name == name).unwrap();
            assert!(position(narrow) < position(wide), "{narrow} must come before {wide}");
        }
    }

    #[test]
    fn overlap_check_detects_overlap() {
        assert!(overlap(spec("c.jr"), spec("c.mv")));
        assert!(!overlap(spec("c.jr"), spec("c.jalr")));
        assert!(!nested(spec("c.mv"), spec("c.jr")));
    }

    #[test]
    fn names_are_unique_and_cover_rv64c() {
        let mut names: Vec<_> = COMPRESSED.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COMPRESSED.len());
        assert_eq!(COMPRESSED.len(), 37);
        assert_eq!(EXPANSIONS.len(), COMPRESSED.len());
    }

    /// Checks what every legal parcel must satisfy; `Some(word)` if the parcel is legal.
    fn check_invariants(parcel: u16) -> Option<u32> {
        let word = expand(parcel)?;
        assert_ne!(parcel & 3, 3, "{parcel:04x}: a 32-bit instruction expanded");
        let matching: Vec<_> = COMPRESSED.iter().filter(|s| parcel & s.mask == s.match_bits).collect();
        let most_specific = matching[0];
        for wider in &matching[1..] {
            let carved = CARVE_OUTS.contains(&(most_specific.name, wider.name));
            assert!(carved, "{parcel:04x} matches {} and {}", most_specific.name, wider.name);
        }
        // The expansion is the row's base instruction: same opcode and funct3, and where the base decoder knows it
        // (not yet F/D), the same operation.
        let Expansion { base, format, .. } = EXPANSIONS[row_of(parcel).unwrap()];
        let opcode_and_funct3 = if matches!(format, U | J) { 0x7f } else { 0x707f };
        let name = most_specific.name;
        assert_eq!(word & opcode_and_funct3, base & opcode_and_funct3, "{parcel:04x} ({name}) expanded to {word:08x}");
        match decode(base) {
            Some(op) => assert_eq!(decode(word).map(|d| d.op), Some(op.op), "{parcel:04x} ({name})"),
            None => assert!(matches!(word & 0x707f, 0x3007 | 0x3027), "{parcel:04x}: only fld/fsd are not decoded"),
        }
        Some(word)
    }

    #[test]
    fn every_parcel_expands_to_its_rows_base_instruction_or_is_reserved() {
        let reserved = (0..=u16::MAX).filter(|&p| p & 3 != 3 && check_invariants(p).is_none()).count();
        // Reserved RV64C code points, counted from the specification's tables.
        let expected = 8 // c.addi4spn with nzuimm = 0 (rd' free), the all-zero parcel among them
            + (1 << 11) // quadrant 0, funct3 100 (bits 12:2 free)
            + 64 // c.addiw rd = x0
            + 1 // c.addi16sp nzimm = 0
            + 31 // c.lui nzimm = 0, rd != sp
            + 2 * 64 // funct6 100111, funct2 10 and 11
            + 2 * 64 // c.lwsp, c.ldsp rd = x0
            + 1; // c.jr rs1 = x0
        assert_eq!(reserved, expected);
        assert!((0..=u16::MAX).filter(|p| p & 3 == 3).all(|p| expand(p).is_none()));
    }

    /// "parcel word  source" lines from `tests/data/rvc_vectors.txt`, made by the GNU assembler (see the script).
    fn golden() -> Vec<(u16, u32, &'static str)> {
        include_str!("../tests/data/rvc_vectors.txt")
            .lines()
            .filter(|line| !line.starts_with('#'))
            .map(|line| {
                let mut fields = line.splitn(3, ' ');
                let mut hex = || fields.next().unwrap();
                let parcel = u16::from_str_radix(hex(), 16).unwrap();
                let word = u32::from_str_radix(hex(), 16).unwrap();
                (parcel, word, fields.next().unwrap().trim())
            })
            .collect()
    }

    #[test]
    fn matches_the_gnu_assembler() {
        let vectors = golden();
        assert!(vectors.len() >= 250);
        for &(parcel, word, source) in &vectors {
            assert_eq!(expand(parcel), Some(word), "{parcel:04x} `{source}`: expected {word:08x}");
        }
        for spec in COMPRESSED {
            let covered = vectors.iter().any(|&(p, ..)| COMPRESSED[row_of(p).unwrap()] == *spec);
            assert!(covered, "no vector for {}", spec.name);
        }
    }

    #[test]
    fn hand_computed_expansions() {
        let cases: &[(u16, Option<u32>, &str)] = &[
            (0x0000, None, "all zero: defined illegal"),
            (0x0001, Some(0x0000_0013), "c.nop = addi x0, x0, 0"),
            (0x9002, Some(0x0010_0073), "c.ebreak"),
            // nzuimm = 1020 sets all of bits 12:5; rd' = 2 is a0: addi a0, sp, 1020.
            (0x1fe8, Some(0x3fc1_0513), "c.addi4spn a0, sp, 1020"),
            // offset[11] alone: jal x0, -2048 has imm[20] = imm[11] = 1 and imm[19:12] all ones.
            (0xb001, Some(0x801f_f06f), "c.j -2048"),
            // nzimm[9] alone: addi sp, sp, -512.
            (0x7101, Some(0xe001_0113), "c.addi16sp sp, -512"),
            // nzimm[17] sign-extends through the whole upper immediate.
            (0x7501, Some(0xfffe_0537), "c.lui a0, 0xfffe0"),
            // offset[8] alone: beq s0, x0, -256 (imm[12] = imm[11] = 1, imm[10:5] all ones).
            (0xd001, Some(0xf004_00e3), "c.beqz s0, -256"),
            // uimm[6] of c.lw is parcel bit 5: lw s0, 64(s0).
            (0x4020, Some(0x0404_2403), "c.lw s0, 64(s0)"),
            // c.sdsp ra, 504(sp): uimm[5:3|8:6] all ones = parcel bits 12:7.
            (0xff86, Some(0x1e11_3c23), "c.sdsp ra, 504(sp)"),
            (0x4015, Some(0x0050_0013), "HINT c.li x0, 5 = addi x0, x0, 5"),
            (0x0502, Some(0x0005_1513), "HINT c.slli64 a0 = slli a0, a0, 0"),
            (0x802a, Some(0x00a0_0033), "HINT c.mv x0, a0 = add x0, x0, a0"),
            (0x1502, Some(0x0205_1513), "c.slli a0, 32: shamt[5] is legal on RV64"),
            (0x8002, None, "c.jr x0 is reserved"),
            (0x6101, None, "c.addi16sp with nzimm = 0 is reserved"),
            (0x6001, None, "c.lui x0, 0 is reserved"),
            (0x6501, None, "c.lui a0, 0 is reserved"),
            (0x2001, None, "c.addiw x0 is reserved"),
            (0x4002, None, "c.lwsp x0 is reserved"),
            (0x6002, None, "c.ldsp x0 is reserved"),
            (0x0004, None, "c.addi4spn s1, sp, 0 is reserved"),
            (0x8000, None, "quadrant 0 funct3 100 is reserved"),
            (0x9c41, None, "funct6 100111 funct2 10 is reserved"),
            (0x9c61, None, "funct6 100111 funct2 11 is reserved"),
            (0xffff, None, "32-bit instruction"),
        ];
        for &(parcel, expected, what) in cases {
            assert_eq!(expand(parcel), expected, "{parcel:04x}: {what}");
        }
    }

    #[test]
    fn layouts_place_the_sign_and_scale_as_the_spec_says() {
        assert_eq!(JUMP_OFFSET.signed(0x1000), -2048);
        assert_eq!(BRANCH_OFFSET.signed(0x1000), -256);
        assert_eq!(ADDI16SP.signed(0x1000), -512);
        assert_eq!(LUI_IMM.signed(0x1000), -(1 << 17));
        assert_eq!(CI_IMM.signed(0x107c), -1);
        assert_eq!(CI_IMM.unsigned(0x107c), 63);
        assert_eq!(ADDI4SPN.unsigned(0x1fe0), 1020);
        assert_eq!(WORD_OFFSET.unsigned(0x1c60), 124);
        assert_eq!(DOUBLE_OFFSET.unsigned(0x1c60), 248);
        assert_eq!(LWSP_OFFSET.unsigned(0x107c), 252);
        assert_eq!(LDSP_OFFSET.unsigned(0x107c), 504);
        assert_eq!(SWSP_OFFSET.unsigned(0x1f80), 252);
        assert_eq!(SDSP_OFFSET.unsigned(0x1f80), 504);
    }

    proptest! {
        #[test]
        fn random_parcels_keep_the_invariants(parcel: u16) {
            check_invariants(parcel);
        }

        #[test]
        fn no_operand_bit_is_dropped(parcel: u16, bit in 0u32..16) {
            // Two legal parcels of one row that differ in one bit never expand to the same word. (Across rows they
            // may: the HINTs c.li x0, 5 and c.nop 5 both are addi x0, x0, 5.)
            let other = parcel ^ (1 << bit);
            if let (Some(a), Some(b)) = (expand(parcel), expand(other)) {
                if row_of(parcel) == row_of(other) {
                    prop_assert_ne!(a, b, "{:04x} and {:04x}", parcel, other);
                }
            }
        }
    }
}
