//! The instruction set as one table: every instruction is a row (name, match, mask, format, extension), and a
//! variant of [`Op`], so adding one is a row plus a variant, and the compiler's exhaustive matches show every place
//! (execute, timing class) that must learn about it.
//!
//! Encodings follow the RISC-V unprivileged specification (RV64I, M, Zicsr, Zifencei). The PIMP message-passing
//! instructions live in the custom-0 and custom-1 opcode spaces with the encoding fixed in the project's
//! architecture document.

/// How the bits of an instruction word are laid out, which decides the operands it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// rd, rs1, rs2.
    R,
    /// rd, rs1, 12-bit signed immediate (loads, ALU with immediate, JALR).
    I,
    /// rd, rs1, 6-bit shift amount (RV64 shifts).
    Shift64,
    /// rd, rs1, 5-bit shift amount (32-bit "W" shifts).
    Shift32,
    /// rs1, rs2, 12-bit signed offset (stores).
    S,
    /// rs1, rs2, 13-bit signed branch offset.
    B,
    /// rd, 32-bit upper immediate.
    U,
    /// rd, 21-bit signed jump offset.
    J,
    /// rd, rs1, CSR number.
    Csr,
    /// rd, 5-bit immediate (in the rs1 field), CSR number.
    CsrImm,
    /// FENCE: predecessor/successor sets, no register operands used.
    Fence,
    /// No operands (ECALL, EBREAK, FENCE.I).
    None,
    /// rd only (PIMP `recv`, `src`).
    Rd,
    /// rs1, rs2 only (PIMP `send`).
    Rs1Rs2,
    /// Branch offset only (PIMP branch-on-status; rs1 = rs2 = x0).
    BranchOffset,
}

/// The extension an instruction belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extension {
    I,
    M,
    Zicsr,
    Zifencei,
    /// PIMP register-level message passing (custom-0 / custom-1).
    Xpimp,
}

macro_rules! isa_table {
    ($($op:ident, $name:literal, $match:literal, $mask:literal, $fmt:ident, $ext:ident;)*) => {
        /// One variant per instruction; the discriminant indexes [`INSTRUCTIONS`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Op { $($op,)* }

        /// Every instruction the simulator decodes, in [`Op`] order.
        pub const INSTRUCTIONS: &[InstructionSpec] = &[
            $(InstructionSpec { op: Op::$op, name: $name, match_bits: $match, mask: $mask, format: Format::$fmt, extension: Extension::$ext },)*
        ];
    };
}

/// A row of the instruction table: the instruction is `word & mask == match_bits`.
#[derive(Clone, Copy, Debug)]
pub struct InstructionSpec {
    pub op: Op,
    pub name: &'static str,
    pub match_bits: u32,
    pub mask: u32,
    pub format: Format,
    pub extension: Extension,
}

isa_table! {
    // RV64I
    Lui,    "lui",    0x0000_0037, 0x0000_007f, U, I;
    Auipc,  "auipc",  0x0000_0017, 0x0000_007f, U, I;
    Jal,    "jal",    0x0000_006f, 0x0000_007f, J, I;
    Jalr,   "jalr",   0x0000_0067, 0x0000_707f, I, I;
    Beq,    "beq",    0x0000_0063, 0x0000_707f, B, I;
    Bne,    "bne",    0x0000_1063, 0x0000_707f, B, I;
    Blt,    "blt",    0x0000_4063, 0x0000_707f, B, I;
    Bge,    "bge",    0x0000_5063, 0x0000_707f, B, I;
    Bltu,   "bltu",   0x0000_6063, 0x0000_707f, B, I;
    Bgeu,   "bgeu",   0x0000_7063, 0x0000_707f, B, I;
    Lb,     "lb",     0x0000_0003, 0x0000_707f, I, I;
    Lh,     "lh",     0x0000_1003, 0x0000_707f, I, I;
    Lw,     "lw",     0x0000_2003, 0x0000_707f, I, I;
    Ld,     "ld",     0x0000_3003, 0x0000_707f, I, I;
    Lbu,    "lbu",    0x0000_4003, 0x0000_707f, I, I;
    Lhu,    "lhu",    0x0000_5003, 0x0000_707f, I, I;
    Lwu,    "lwu",    0x0000_6003, 0x0000_707f, I, I;
    Sb,     "sb",     0x0000_0023, 0x0000_707f, S, I;
    Sh,     "sh",     0x0000_1023, 0x0000_707f, S, I;
    Sw,     "sw",     0x0000_2023, 0x0000_707f, S, I;
    Sd,     "sd",     0x0000_3023, 0x0000_707f, S, I;
    Addi,   "addi",   0x0000_0013, 0x0000_707f, I, I;
    Slti,   "slti",   0x0000_2013, 0x0000_707f, I, I;
    Sltiu,  "sltiu",  0x0000_3013, 0x0000_707f, I, I;
    Xori,   "xori",   0x0000_4013, 0x0000_707f, I, I;
    Ori,    "ori",    0x0000_6013, 0x0000_707f, I, I;
    Andi,   "andi",   0x0000_7013, 0x0000_707f, I, I;
    Slli,   "slli",   0x0000_1013, 0xfc00_707f, Shift64, I;
    Srli,   "srli",   0x0000_5013, 0xfc00_707f, Shift64, I;
    Srai,   "srai",   0x4000_5013, 0xfc00_707f, Shift64, I;
    Add,    "add",    0x0000_0033, 0xfe00_707f, R, I;
    Sub,    "sub",    0x4000_0033, 0xfe00_707f, R, I;
    Sll,    "sll",    0x0000_1033, 0xfe00_707f, R, I;
    Slt,    "slt",    0x0000_2033, 0xfe00_707f, R, I;
    Sltu,   "sltu",   0x0000_3033, 0xfe00_707f, R, I;
    Xor,    "xor",    0x0000_4033, 0xfe00_707f, R, I;
    Srl,    "srl",    0x0000_5033, 0xfe00_707f, R, I;
    Sra,    "sra",    0x4000_5033, 0xfe00_707f, R, I;
    Or,     "or",     0x0000_6033, 0xfe00_707f, R, I;
    And,    "and",    0x0000_7033, 0xfe00_707f, R, I;
    Fence,  "fence",  0x0000_000f, 0x0000_707f, Fence, I;
    Ecall,  "ecall",  0x0000_0073, 0xffff_ffff, None, I;
    Ebreak, "ebreak", 0x0010_0073, 0xffff_ffff, None, I;
    Addiw,  "addiw",  0x0000_001b, 0x0000_707f, I, I;
    Slliw,  "slliw",  0x0000_101b, 0xfe00_707f, Shift32, I;
    Srliw,  "srliw",  0x0000_501b, 0xfe00_707f, Shift32, I;
    Sraiw,  "sraiw",  0x4000_501b, 0xfe00_707f, Shift32, I;
    Addw,   "addw",   0x0000_003b, 0xfe00_707f, R, I;
    Subw,   "subw",   0x4000_003b, 0xfe00_707f, R, I;
    Sllw,   "sllw",   0x0000_103b, 0xfe00_707f, R, I;
    Srlw,   "srlw",   0x0000_503b, 0xfe00_707f, R, I;
    Sraw,   "sraw",   0x4000_503b, 0xfe00_707f, R, I;
    // Zifencei
    FenceI, "fence.i", 0x0000_100f, 0x0000_707f, None, Zifencei;
    // Zicsr
    Csrrw,  "csrrw",  0x0000_1073, 0x0000_707f, Csr, Zicsr;
    Csrrs,  "csrrs",  0x0000_2073, 0x0000_707f, Csr, Zicsr;
    Csrrc,  "csrrc",  0x0000_3073, 0x0000_707f, Csr, Zicsr;
    Csrrwi, "csrrwi", 0x0000_5073, 0x0000_707f, CsrImm, Zicsr;
    Csrrsi, "csrrsi", 0x0000_6073, 0x0000_707f, CsrImm, Zicsr;
    Csrrci, "csrrci", 0x0000_7073, 0x0000_707f, CsrImm, Zicsr;
    // M
    Mul,    "mul",    0x0200_0033, 0xfe00_707f, R, M;
    Mulh,   "mulh",   0x0200_1033, 0xfe00_707f, R, M;
    Mulhsu, "mulhsu", 0x0200_2033, 0xfe00_707f, R, M;
    Mulhu,  "mulhu",  0x0200_3033, 0xfe00_707f, R, M;
    Div,    "div",    0x0200_4033, 0xfe00_707f, R, M;
    Divu,   "divu",   0x0200_5033, 0xfe00_707f, R, M;
    Rem,    "rem",    0x0200_6033, 0xfe00_707f, R, M;
    Remu,   "remu",   0x0200_7033, 0xfe00_707f, R, M;
    Mulw,   "mulw",   0x0200_003b, 0xfe00_707f, R, M;
    Divw,   "divw",   0x0200_403b, 0xfe00_707f, R, M;
    Divuw,  "divuw",  0x0200_503b, 0xfe00_707f, R, M;
    Remw,   "remw",   0x0200_603b, 0xfe00_707f, R, M;
    Remuw,  "remuw",  0x0200_703b, 0xfe00_707f, R, M;
    // PIMP (custom-0 R-type, custom-1 B-type with rs1 = rs2 = x0)
    PimpSend, "send", 0x0000_000b, 0xfe00_707f, Rs1Rs2, Xpimp;
    PimpRecv, "recv", 0x0000_100b, 0xfe00_707f, Rd, Xpimp;
    PimpSrc,  "src",  0x0000_200b, 0xfe00_707f, Rd, Xpimp;
    PimpBrs,  "brs",  0x0000_002b, 0x01ff_707f, BranchOffset, Xpimp;
    PimpBns,  "bns",  0x0000_102b, 0x01ff_707f, BranchOffset, Xpimp;
    PimpBar,  "bar",  0x0000_202b, 0x01ff_707f, BranchOffset, Xpimp;
    PimpBnr,  "bnr",  0x0000_302b, 0x01ff_707f, BranchOffset, Xpimp;
}

/// Number of instructions in the table (and of [`Op`] variants).
pub const OP_COUNT: usize = INSTRUCTIONS.len();

impl Op {
    pub fn spec(self) -> &'static InstructionSpec {
        &INSTRUCTIONS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Every op, in table order.
    pub fn all() -> impl Iterator<Item = Op> {
        INSTRUCTIONS.iter().map(|s| s.op)
    }
}

/// Whether some instruction word matches both rows (their fixed bits never disagree).
pub fn encodings_overlap(a: &InstructionSpec, b: &InstructionSpec) -> bool {
    let common = a.mask & b.mask;
    (a.match_bits ^ b.match_bits) & common == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_in_op_order() {
        for (i, spec) in INSTRUCTIONS.iter().enumerate() {
            assert_eq!(spec.op as usize, i, "row {i} ({}) is out of order", spec.name);
        }
    }

    #[test]
    fn no_two_encodings_overlap() {
        for (i, a) in INSTRUCTIONS.iter().enumerate() {
            assert_eq!(a.match_bits & !a.mask, 0, "{}: match has bits outside its mask", a.name);
            for b in &INSTRUCTIONS[i + 1..] {
                assert!(!encodings_overlap(a, b), "{} and {} overlap", a.name, b.name);
            }
        }
    }

    #[test]
    fn overlap_check_detects_overlap() {
        // A row that leaves funct7 free would swallow SUB when compared with ADD.
        let loose = InstructionSpec { mask: 0x0000_707f, ..*Op::Add.spec() };
        assert!(encodings_overlap(&loose, Op::Sub.spec()));
        assert!(!encodings_overlap(Op::Add.spec(), Op::Sub.spec()));
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = INSTRUCTIONS.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OP_COUNT);
    }
}
