//! The instruction set as one table: every instruction is a row (name, match, mask, format, extension), and a
//! variant of [`Op`], so adding one is a row plus a variant, and the compiler's exhaustive matches show every place
//! (execute, timing class) that must learn about it.
//!
//! Encodings follow the RISC-V unprivileged specification (RV64I, M, A, F, D, Zicsr, Zifencei; the compressed
//! encodings of C are expanded to these rows by [`crate::rvc`]) and, for `mret` and `wfi`, the privileged one. The PIMP message-passing instructions live in the
//! custom-0 and custom-1 opcode spaces with the encoding fixed in the project's architecture document. Which
//! extensions a chip has is an [`Isa`]; the decoder refuses instructions of the others.

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
    /// rd, rs2, (rs1): atomic memory operations and SC.
    Amo,
    /// rd, (rs1): LR.
    Lr,
    /// FP load: f rd, x rs1, 12-bit signed offset.
    FLoad,
    /// FP store: x rs1, f rs2, 12-bit signed offset.
    FStore,
    /// f rd, f rs1, f rs2, rounding mode (or a fixed funct3).
    FRrr,
    /// f rd, f rs1, f rs2, f rs3, rounding mode (fused multiply-add).
    FR4,
    /// f rd, f rs1, rounding mode (square root, conversion between formats).
    FRr,
    /// x rd, f rs1, f rs2 (comparisons).
    FCmp,
    /// x rd, f rs1, rounding mode (conversion to integer, classify, move to x).
    FToX,
    /// f rd, x rs1, rounding mode (conversion from integer, move from x).
    XToF,
}

impl Format {
    /// Whether the format has a rounding-mode field (funct3), kept in [`crate::Decoded::imm`].
    pub fn has_rounding_mode(self) -> bool {
        matches!(self, Format::FRrr | Format::FR4 | Format::FRr | Format::FToX | Format::XToF)
    }
}

/// The extension an instruction belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extension {
    I,
    M,
    Zicsr,
    Zifencei,
    /// Atomic memory operations.
    A,
    /// Single-precision floating point.
    F,
    /// Double-precision floating point.
    D,
    /// Compressed instructions (16-bit encodings expanded to the rows of the others, see [`crate::rvc`]).
    C,
    /// The machine-level privileged instructions (`mret`, `wfi`).
    Sm,
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
    // Machine-level privileged instructions (there is no supervisor mode, hence no sret or sfence.vma)
    Mret,   "mret",   0x3020_0073, 0xffff_ffff, None, Sm;
    Wfi,    "wfi",    0x1050_0073, 0xffff_ffff, None, Sm;
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
    // A: aq and rl (bits 26, 25) are left free; lr has rs2 = 0.
    LrW,      "lr.w",      0x1000_202f, 0xf9f0_707f, Lr, A;
    ScW,      "sc.w",      0x1800_202f, 0xf800_707f, Amo, A;
    AmoswapW, "amoswap.w", 0x0800_202f, 0xf800_707f, Amo, A;
    AmoaddW,  "amoadd.w",  0x0000_202f, 0xf800_707f, Amo, A;
    AmoxorW,  "amoxor.w",  0x2000_202f, 0xf800_707f, Amo, A;
    AmoandW,  "amoand.w",  0x6000_202f, 0xf800_707f, Amo, A;
    AmoorW,   "amoor.w",   0x4000_202f, 0xf800_707f, Amo, A;
    AmominW,  "amomin.w",  0x8000_202f, 0xf800_707f, Amo, A;
    AmomaxW,  "amomax.w",  0xa000_202f, 0xf800_707f, Amo, A;
    AmominuW, "amominu.w", 0xc000_202f, 0xf800_707f, Amo, A;
    AmomaxuW, "amomaxu.w", 0xe000_202f, 0xf800_707f, Amo, A;
    LrD,      "lr.d",      0x1000_302f, 0xf9f0_707f, Lr, A;
    ScD,      "sc.d",      0x1800_302f, 0xf800_707f, Amo, A;
    AmoswapD, "amoswap.d", 0x0800_302f, 0xf800_707f, Amo, A;
    AmoaddD,  "amoadd.d",  0x0000_302f, 0xf800_707f, Amo, A;
    AmoxorD,  "amoxor.d",  0x2000_302f, 0xf800_707f, Amo, A;
    AmoandD,  "amoand.d",  0x6000_302f, 0xf800_707f, Amo, A;
    AmoorD,   "amoor.d",   0x4000_302f, 0xf800_707f, Amo, A;
    AmominD,  "amomin.d",  0x8000_302f, 0xf800_707f, Amo, A;
    AmomaxD,  "amomax.d",  0xa000_302f, 0xf800_707f, Amo, A;
    AmominuD, "amominu.d", 0xc000_302f, 0xf800_707f, Amo, A;
    AmomaxuD, "amomaxu.d", 0xe000_302f, 0xf800_707f, Amo, A;
    // F: the rounding mode (funct3) is left free where the instruction rounds.
    Flw,      "flw",       0x0000_2007, 0x0000_707f, FLoad, F;
    Fsw,      "fsw",       0x0000_2027, 0x0000_707f, FStore, F;
    FmaddS,   "fmadd.s",   0x0000_0043, 0x0600_007f, FR4, F;
    FmsubS,   "fmsub.s",   0x0000_0047, 0x0600_007f, FR4, F;
    FnmsubS,  "fnmsub.s",  0x0000_004b, 0x0600_007f, FR4, F;
    FnmaddS,  "fnmadd.s",  0x0000_004f, 0x0600_007f, FR4, F;
    FaddS,    "fadd.s",    0x0000_0053, 0xfe00_007f, FRrr, F;
    FsubS,    "fsub.s",    0x0800_0053, 0xfe00_007f, FRrr, F;
    FmulS,    "fmul.s",    0x1000_0053, 0xfe00_007f, FRrr, F;
    FdivS,    "fdiv.s",    0x1800_0053, 0xfe00_007f, FRrr, F;
    FsqrtS,   "fsqrt.s",   0x5800_0053, 0xfff0_007f, FRr, F;
    FsgnjS,   "fsgnj.s",   0x2000_0053, 0xfe00_707f, FRrr, F;
    FsgnjnS,  "fsgnjn.s",  0x2000_1053, 0xfe00_707f, FRrr, F;
    FsgnjxS,  "fsgnjx.s",  0x2000_2053, 0xfe00_707f, FRrr, F;
    FminS,    "fmin.s",    0x2800_0053, 0xfe00_707f, FRrr, F;
    FmaxS,    "fmax.s",    0x2800_1053, 0xfe00_707f, FRrr, F;
    FcvtWS,   "fcvt.w.s",  0xc000_0053, 0xfff0_007f, FToX, F;
    FcvtWuS,  "fcvt.wu.s", 0xc010_0053, 0xfff0_007f, FToX, F;
    FcvtLS,   "fcvt.l.s",  0xc020_0053, 0xfff0_007f, FToX, F;
    FcvtLuS,  "fcvt.lu.s", 0xc030_0053, 0xfff0_007f, FToX, F;
    FmvXW,    "fmv.x.w",   0xe000_0053, 0xfff0_707f, FToX, F;
    FeqS,     "feq.s",     0xa000_2053, 0xfe00_707f, FCmp, F;
    FltS,     "flt.s",     0xa000_1053, 0xfe00_707f, FCmp, F;
    FleS,     "fle.s",     0xa000_0053, 0xfe00_707f, FCmp, F;
    FclassS,  "fclass.s",  0xe000_1053, 0xfff0_707f, FToX, F;
    FcvtSW,   "fcvt.s.w",  0xd000_0053, 0xfff0_007f, XToF, F;
    FcvtSWu,  "fcvt.s.wu", 0xd010_0053, 0xfff0_007f, XToF, F;
    FcvtSL,   "fcvt.s.l",  0xd020_0053, 0xfff0_007f, XToF, F;
    FcvtSLu,  "fcvt.s.lu", 0xd030_0053, 0xfff0_007f, XToF, F;
    FmvWX,    "fmv.w.x",   0xf000_0053, 0xfff0_707f, XToF, F;
    // D
    Fld,      "fld",       0x0000_3007, 0x0000_707f, FLoad, D;
    Fsd,      "fsd",       0x0000_3027, 0x0000_707f, FStore, D;
    FmaddD,   "fmadd.d",   0x0200_0043, 0x0600_007f, FR4, D;
    FmsubD,   "fmsub.d",   0x0200_0047, 0x0600_007f, FR4, D;
    FnmsubD,  "fnmsub.d",  0x0200_004b, 0x0600_007f, FR4, D;
    FnmaddD,  "fnmadd.d",  0x0200_004f, 0x0600_007f, FR4, D;
    FaddD,    "fadd.d",    0x0200_0053, 0xfe00_007f, FRrr, D;
    FsubD,    "fsub.d",    0x0a00_0053, 0xfe00_007f, FRrr, D;
    FmulD,    "fmul.d",    0x1200_0053, 0xfe00_007f, FRrr, D;
    FdivD,    "fdiv.d",    0x1a00_0053, 0xfe00_007f, FRrr, D;
    FsqrtD,   "fsqrt.d",   0x5a00_0053, 0xfff0_007f, FRr, D;
    FsgnjD,   "fsgnj.d",   0x2200_0053, 0xfe00_707f, FRrr, D;
    FsgnjnD,  "fsgnjn.d",  0x2200_1053, 0xfe00_707f, FRrr, D;
    FsgnjxD,  "fsgnjx.d",  0x2200_2053, 0xfe00_707f, FRrr, D;
    FminD,    "fmin.d",    0x2a00_0053, 0xfe00_707f, FRrr, D;
    FmaxD,    "fmax.d",    0x2a00_1053, 0xfe00_707f, FRrr, D;
    FcvtSD,   "fcvt.s.d",  0x4010_0053, 0xfff0_007f, FRr, D;
    FcvtDS,   "fcvt.d.s",  0x4200_0053, 0xfff0_007f, FRr, D;
    FeqD,     "feq.d",     0xa200_2053, 0xfe00_707f, FCmp, D;
    FltD,     "flt.d",     0xa200_1053, 0xfe00_707f, FCmp, D;
    FleD,     "fle.d",     0xa200_0053, 0xfe00_707f, FCmp, D;
    FclassD,  "fclass.d",  0xe200_1053, 0xfff0_707f, FToX, D;
    FcvtWD,   "fcvt.w.d",  0xc200_0053, 0xfff0_007f, FToX, D;
    FcvtWuD,  "fcvt.wu.d", 0xc210_0053, 0xfff0_007f, FToX, D;
    FcvtLD,   "fcvt.l.d",  0xc220_0053, 0xfff0_007f, FToX, D;
    FcvtLuD,  "fcvt.lu.d", 0xc230_0053, 0xfff0_007f, FToX, D;
    FmvXD,    "fmv.x.d",   0xe200_0053, 0xfff0_707f, FToX, D;
    FcvtDW,   "fcvt.d.w",  0xd200_0053, 0xfff0_007f, XToF, D;
    FcvtDWu,  "fcvt.d.wu", 0xd210_0053, 0xfff0_007f, XToF, D;
    FcvtDL,   "fcvt.d.l",  0xd220_0053, 0xfff0_007f, XToF, D;
    FcvtDLu,  "fcvt.d.lu", 0xd230_0053, 0xfff0_007f, XToF, D;
    FmvDX,    "fmv.d.x",   0xf200_0053, 0xfff0_707f, XToF, D;
    // PIMP (custom-0 R-type, custom-1 B-type with rs1 = rs2 = x0)
    PimpSend, "send", 0x0000_000b, 0xfe00_707f, Rs1Rs2, Xpimp;
    PimpRecv, "recv", 0x0000_100b, 0xfe00_707f, Rd, Xpimp;
    PimpSrc,  "src",  0x0000_200b, 0xfe00_707f, Rd, Xpimp;
    PimpBrs,  "brs",  0x0000_002b, 0x01ff_707f, BranchOffset, Xpimp;
    PimpBns,  "bns",  0x0000_102b, 0x01ff_707f, BranchOffset, Xpimp;
    PimpBar,  "bar",  0x0000_202b, 0x01ff_707f, BranchOffset, Xpimp;
    PimpBnr,  "bnr",  0x0000_302b, 0x01ff_707f, BranchOffset, Xpimp;
}

impl Extension {
    /// The letter of a standard extension (`None` for Zicsr, Zifencei, the privileged instructions and PIMP, which
    /// every chip has).
    pub fn letter(self) -> Option<char> {
        Some(match self {
            Extension::I => 'i',
            Extension::M => 'm',
            Extension::A => 'a',
            Extension::F => 'f',
            Extension::D => 'd',
            Extension::C => 'c',
            Extension::Zicsr | Extension::Zifencei | Extension::Sm | Extension::Xpimp => return None,
        })
    }
}

/// The standard extensions a hart implements, from the ISA string of its chip (`rv64im`, `rv64imac`, `rv64gc`).
/// Zicsr and Zifencei are always present; the PIMP instructions depend on the chip's network interface instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Isa {
    /// One bit per letter (`1 << (letter - 'a')`), as in `misa`.
    letters: u32,
}

/// The extensions an ISA string may name, in the canonical order the string must follow.
const LETTERS: &str = "imafdc";

impl Isa {
    /// RV64IM: what the PIMP presets have (software floating point).
    pub const RV64IM: Isa = Isa::of("im");
    /// RV64IMAC: atomics and compressed instructions, software floating point (as on the TilePro).
    pub const RV64IMAC: Isa = Isa::of("imac");
    /// RV64GC: RV64IMAFDC with Zicsr and Zifencei.
    pub const RV64GC: Isa = Isa::of("imafdc");

    const fn of(letters: &str) -> Isa {
        let bytes = letters.as_bytes();
        let mut bits = 0;
        let mut i = 0;
        while i < bytes.len() {
            bits |= 1 << (bytes[i] - b'a');
            i += 1;
        }
        Isa { letters: bits }
    }

    /// Parses an ISA string: `rv64i` followed by any of `m`, `a`, `f`, `d`, `c` in that order, or `rv64g` (`imafd`)
    /// followed by `c`, optionally with `_zicsr` and `_zifencei` (always implied); case-insensitive. D needs F.
    pub fn parse(text: &str) -> Result<Isa, String> {
        let lower = text.to_ascii_lowercase();
        let mut parts = lower.split('_');
        let base = parts.next().unwrap_or_default();
        let letters = base
            .strip_prefix("rv64")
            .ok_or_else(|| format!("{text:?}: an ISA string starts with rv64 (these are 64-bit cores), e.g. \"rv64gc\""))?;
        let letters = match letters.strip_prefix('g') {
            Some(rest) => format!("imafd{rest}"),
            None => letters.to_string(),
        };
        if !letters.starts_with('i') {
            return Err(format!("{text:?}: the base must be i (rv64i...) or g"));
        }
        let mut bits = 0u32;
        let mut last = 0;
        for c in letters.chars() {
            let position = LETTERS.find(c).ok_or_else(|| format!("{text:?}: extension {c:?} is not supported (known: {LETTERS})"))?;
            if bits != 0 && position <= last {
                return Err(format!("{text:?}: extensions must appear once each, in the order {LETTERS}"));
            }
            last = position;
            bits |= 1 << (c as u8 - b'a');
        }
        for extra in parts {
            if extra != "zicsr" && extra != "zifencei" {
                return Err(format!("{text:?}: extension {extra:?} is not supported (known: zicsr, zifencei)"));
            }
        }
        let isa = Isa { letters: bits };
        if isa.has(Extension::D) && !isa.has(Extension::F) {
            return Err(format!("{text:?}: D needs F"));
        }
        Ok(isa)
    }

    /// Whether the hart has the extension (Zicsr, Zifencei and PIMP always).
    #[inline]
    pub fn has(self, ext: Extension) -> bool {
        match ext.letter() {
            Some(c) => self.letters & (1 << (c as u8 - b'a')) != 0,
            None => true,
        }
    }

    /// Whether every extension of `other` is here too.
    pub fn includes(self, other: Isa) -> bool {
        other.letters & !self.letters == 0
    }

    /// The letters `other` has and this ISA has not, in canonical order (e.g. `"fd"`).
    pub fn missing(self, other: Isa) -> String {
        LETTERS.chars().filter(|&c| other.letters & !self.letters & (1 << (c as u8 - b'a')) != 0).collect()
    }

    /// The `misa` CSR: MXL = 2 (64-bit) and one bit per extension.
    pub fn misa(self) -> u64 {
        (2 << 62) | u64::from(self.letters)
    }

    /// Whether a jump may target any 2-byte boundary (C) rather than only 4-byte ones (IALIGN).
    #[inline]
    pub fn compressed(self) -> bool {
        self.has(Extension::C)
    }
}

impl std::fmt::Display for Isa {
    /// The canonical ISA string, e.g. `rv64imafdc`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("rv64")?;
        for c in LETTERS.chars().filter(|&c| self.letters & (1 << (c as u8 - b'a')) != 0) {
            write!(f, "{c}")?;
        }
        Ok(())
    }
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
    fn isa_strings_parse_to_their_extensions() {
        assert_eq!(Isa::parse("rv64gc"), Ok(Isa::RV64GC));
        assert_eq!(Isa::parse("RV64IMAFDC_Zicsr_Zifencei"), Ok(Isa::RV64GC));
        assert_eq!(Isa::parse("rv64imac"), Ok(Isa::RV64IMAC));
        assert_eq!(Isa::parse("rv64im"), Ok(Isa::RV64IM));
        assert_eq!(Isa::RV64GC.to_string(), "rv64imafdc");
        assert_eq!(Isa::RV64GC.misa(), (2 << 62) | 0x112d, "misa letters a c d f i m");
        assert_eq!(Isa::RV64IM.missing(Isa::RV64GC), "afdc");
        assert!(Isa::RV64GC.includes(Isa::RV64IMAC) && !Isa::RV64IMAC.includes(Isa::RV64GC));
        for (bad, why) in [
            ("rv32gc", "starts with rv64"),
            ("rv64mi", "base must be i"),
            ("rv64imd", "D needs F"),
            ("rv64icm", "in the order"),
            ("rv64imv", "'v' is not supported"),
            ("rv64gc_zfh", "\"zfh\" is not supported"),
        ] {
            let err = Isa::parse(bad).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = INSTRUCTIONS.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OP_COUNT);
    }
}
