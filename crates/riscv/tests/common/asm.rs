//! Instruction encoders, written from the RISC-V unprivileged specification's instruction formats (R, I, S, B,
//! U, J, the AMO and R4 variants of R, and the compressed CR, CI, CSS, CL, CS, CB and CJ formats), independently
//! of the crate's table. Each returns an [`Insn`]: the word and the op it must decode to.

use riscv::Op;

/// An encoded instruction word and the op it must decode to. A compressed instruction is a 16-bit parcel in the
/// low half of `word`, and its op is the one of the base instruction it expands to.
#[derive(Clone, Copy, Debug)]
pub struct Insn {
    pub op: Op,
    pub word: u32,
}

impl Insn {
    /// Bytes of the encoding: a word whose low two bits are not `11` is a 16-bit parcel.
    pub fn len(self) -> u8 {
        if self.word & 3 == 3 {
            4
        } else {
            2
        }
    }
}

// Major opcodes.
const LOAD: u32 = 0x03;
const LOAD_FP: u32 = 0x07;
const CUSTOM_0: u32 = 0x0b;
const MISC_MEM: u32 = 0x0f;
const OP_IMM: u32 = 0x13;
const AUIPC: u32 = 0x17;
const OP_IMM_32: u32 = 0x1b;
const STORE: u32 = 0x23;
const STORE_FP: u32 = 0x27;
const CUSTOM_1: u32 = 0x2b;
const AMO: u32 = 0x2f;
const OP: u32 = 0x33;
const LUI: u32 = 0x37;
const OP_32: u32 = 0x3b;
const MADD: u32 = 0x43;
const MSUB: u32 = 0x47;
const NMSUB: u32 = 0x4b;
const NMADD: u32 = 0x4f;
const OP_FP: u32 = 0x53;
const BRANCH: u32 = 0x63;
const JALR: u32 = 0x67;
const JAL: u32 = 0x6f;
const SYSTEM: u32 = 0x73;

fn reg(r: u8) -> u32 {
    assert!(r < 32, "register number {r} is not 0 to 31");
    u32::from(r)
}

pub fn r_word(opcode: u32, funct3: u32, funct7: u32, rd: u8, rs1: u8, rs2: u8) -> u32 {
    (funct7 << 25) | (reg(rs2) << 20) | (reg(rs1) << 15) | (funct3 << 12) | (reg(rd) << 7) | opcode
}

pub fn i_word(opcode: u32, funct3: u32, rd: u8, rs1: u8, imm: i32) -> u32 {
    assert!((-2048..2048).contains(&imm), "I-type immediate {imm} out of range");
    (((imm as u32) & 0xfff) << 20) | (reg(rs1) << 15) | (funct3 << 12) | (reg(rd) << 7) | opcode
}

pub fn s_word(opcode: u32, funct3: u32, rs1: u8, rs2: u8, imm: i32) -> u32 {
    assert!((-2048..2048).contains(&imm), "S-type immediate {imm} out of range");
    let u = imm as u32;
    (((u >> 5) & 0x7f) << 25) | (reg(rs2) << 20) | (reg(rs1) << 15) | (funct3 << 12) | ((u & 0x1f) << 7) | opcode
}

pub fn b_word(opcode: u32, funct3: u32, rs1: u8, rs2: u8, imm: i32) -> u32 {
    assert!((-4096..4096).contains(&imm) && imm % 2 == 0, "B-type offset {imm} not encodable");
    let u = imm as u32;
    (((u >> 12) & 1) << 31)
        | (((u >> 5) & 0x3f) << 25)
        | (reg(rs2) << 20)
        | (reg(rs1) << 15)
        | (funct3 << 12)
        | (((u >> 1) & 0xf) << 8)
        | (((u >> 11) & 1) << 7)
        | opcode
}

pub fn u_word(opcode: u32, rd: u8, imm20: u32) -> u32 {
    assert!(imm20 < 1 << 20, "U-type immediate {imm20:#x} out of range");
    (imm20 << 12) | (reg(rd) << 7) | opcode
}

pub fn j_word(opcode: u32, rd: u8, imm: i32) -> u32 {
    assert!((-(1 << 20)..(1 << 20)).contains(&imm) && imm % 2 == 0, "J-type offset {imm} not encodable");
    let u = imm as u32;
    (((u >> 20) & 1) << 31)
        | (((u >> 1) & 0x3ff) << 21)
        | (((u >> 11) & 1) << 20)
        | (((u >> 12) & 0xff) << 12)
        | (reg(rd) << 7)
        | opcode
}

fn csr_word(funct3: u32, rd: u8, rs1_or_zimm: u32, csr: u16) -> u32 {
    assert!(csr < 1 << 12 && rs1_or_zimm < 32);
    (u32::from(csr) << 20) | (rs1_or_zimm << 15) | (funct3 << 12) | (reg(rd) << 7) | SYSTEM
}

/// `name rd, rs1, rs2`
macro_rules! r_type {
    ($($name:ident: $op:ident = $opcode:ident, $f3:literal, $f7:literal;)*) => {$(
        pub fn $name(rd: u8, rs1: u8, rs2: u8) -> Insn {
            Insn { op: Op::$op, word: r_word($opcode, $f3, $f7, rd, rs1, rs2) }
        }
    )*};
}

/// `name rd, rs1, imm`
macro_rules! i_type {
    ($($name:ident: $op:ident = $opcode:ident, $f3:literal;)*) => {$(
        pub fn $name(rd: u8, rs1: u8, imm: i32) -> Insn {
            Insn { op: Op::$op, word: i_word($opcode, $f3, rd, rs1, imm) }
        }
    )*};
}

/// `name rd, imm(rs1)` (loads, in assembly operand order)
macro_rules! load {
    ($($name:ident: $op:ident = $f3:literal;)*) => {$(
        pub fn $name(rd: u8, imm: i32, rs1: u8) -> Insn {
            Insn { op: Op::$op, word: i_word(LOAD, $f3, rd, rs1, imm) }
        }
    )*};
}

/// `name rs2, imm(rs1)` (stores, in assembly operand order)
macro_rules! store {
    ($($name:ident: $op:ident = $f3:literal;)*) => {$(
        pub fn $name(rs2: u8, imm: i32, rs1: u8) -> Insn {
            Insn { op: Op::$op, word: s_word(STORE, $f3, rs1, rs2, imm) }
        }
    )*};
}

/// `name rs1, rs2, offset`
macro_rules! branch {
    ($($name:ident: $op:ident = $f3:literal;)*) => {$(
        pub fn $name(rs1: u8, rs2: u8, imm: i32) -> Insn {
            Insn { op: Op::$op, word: b_word(BRANCH, $f3, rs1, rs2, imm) }
        }
    )*};
}

/// `name rd, rs1, shamt` (the high bits of the immediate select the arithmetic shift)
macro_rules! shift {
    ($($name:ident: $op:ident = $opcode:ident, $f3:literal, $high:literal, $limit:literal;)*) => {$(
        pub fn $name(rd: u8, rs1: u8, shamt: u32) -> Insn {
            assert!(shamt < $limit, "shift amount {shamt} out of range");
            Insn { op: Op::$op, word: i_word($opcode, $f3, rd, rs1, ($high | shamt) as i32) }
        }
    )*};
}

/// `name rd, csr, rs1`
macro_rules! csr_reg {
    ($($name:ident: $op:ident = $f3:literal;)*) => {$(
        pub fn $name(rd: u8, csr: u16, rs1: u8) -> Insn {
            Insn { op: Op::$op, word: csr_word($f3, rd, reg(rs1), csr) }
        }
    )*};
}

/// `name rd, csr, zimm`
macro_rules! csr_imm {
    ($($name:ident: $op:ident = $f3:literal;)*) => {$(
        pub fn $name(rd: u8, csr: u16, zimm: u32) -> Insn {
            Insn { op: Op::$op, word: csr_word($f3, rd, zimm, csr) }
        }
    )*};
}

/// PIMP branch-on-status: custom-1 B-type with rs1 = rs2 = x0.
macro_rules! pimp_branch {
    ($($name:ident: $op:ident = $f3:literal;)*) => {$(
        pub fn $name(imm: i32) -> Insn {
            Insn { op: Op::$op, word: b_word(CUSTOM_1, $f3, 0, 0, imm) }
        }
    )*};
}

r_type! {
    add: Add = OP, 0, 0x00;
    sub: Sub = OP, 0, 0x20;
    sll: Sll = OP, 1, 0x00;
    slt: Slt = OP, 2, 0x00;
    sltu: Sltu = OP, 3, 0x00;
    xor: Xor = OP, 4, 0x00;
    srl: Srl = OP, 5, 0x00;
    sra: Sra = OP, 5, 0x20;
    or: Or = OP, 6, 0x00;
    and: And = OP, 7, 0x00;
    addw: Addw = OP_32, 0, 0x00;
    subw: Subw = OP_32, 0, 0x20;
    sllw: Sllw = OP_32, 1, 0x00;
    srlw: Srlw = OP_32, 5, 0x00;
    sraw: Sraw = OP_32, 5, 0x20;
    mul: Mul = OP, 0, 0x01;
    mulh: Mulh = OP, 1, 0x01;
    mulhsu: Mulhsu = OP, 2, 0x01;
    mulhu: Mulhu = OP, 3, 0x01;
    div: Div = OP, 4, 0x01;
    divu: Divu = OP, 5, 0x01;
    rem: Rem = OP, 6, 0x01;
    remu: Remu = OP, 7, 0x01;
    mulw: Mulw = OP_32, 0, 0x01;
    divw: Divw = OP_32, 4, 0x01;
    divuw: Divuw = OP_32, 5, 0x01;
    remw: Remw = OP_32, 6, 0x01;
    remuw: Remuw = OP_32, 7, 0x01;
}

i_type! {
    addi: Addi = OP_IMM, 0;
    slti: Slti = OP_IMM, 2;
    sltiu: Sltiu = OP_IMM, 3;
    xori: Xori = OP_IMM, 4;
    ori: Ori = OP_IMM, 6;
    andi: Andi = OP_IMM, 7;
    addiw: Addiw = OP_IMM_32, 0;
}

shift! {
    slli: Slli = OP_IMM, 1, 0x000, 64;
    srli: Srli = OP_IMM, 5, 0x000, 64;
    srai: Srai = OP_IMM, 5, 0x400, 64;
    slliw: Slliw = OP_IMM_32, 1, 0x000, 32;
    srliw: Srliw = OP_IMM_32, 5, 0x000, 32;
    sraiw: Sraiw = OP_IMM_32, 5, 0x400, 32;
}

load! {
    lb: Lb = 0;
    lh: Lh = 1;
    lw: Lw = 2;
    ld: Ld = 3;
    lbu: Lbu = 4;
    lhu: Lhu = 5;
    lwu: Lwu = 6;
}

store! {
    sb: Sb = 0;
    sh: Sh = 1;
    sw: Sw = 2;
    sd: Sd = 3;
}

branch! {
    beq: Beq = 0;
    bne: Bne = 1;
    blt: Blt = 4;
    bge: Bge = 5;
    bltu: Bltu = 6;
    bgeu: Bgeu = 7;
}

csr_reg! {
    csrrw: Csrrw = 1;
    csrrs: Csrrs = 2;
    csrrc: Csrrc = 3;
}

csr_imm! {
    csrrwi: Csrrwi = 5;
    csrrsi: Csrrsi = 6;
    csrrci: Csrrci = 7;
}

pimp_branch! {
    brs: PimpBrs = 0;
    bns: PimpBns = 1;
    bar: PimpBar = 2;
    bnr: PimpBnr = 3;
}

/// `lui rd, imm20` (rd = imm20 << 12, sign-extended)
pub fn lui(rd: u8, imm20: u32) -> Insn {
    Insn { op: Op::Lui, word: u_word(LUI, rd, imm20) }
}

/// `auipc rd, imm20` (rd = pc + (imm20 << 12), sign-extended)
pub fn auipc(rd: u8, imm20: u32) -> Insn {
    Insn { op: Op::Auipc, word: u_word(AUIPC, rd, imm20) }
}

pub fn jal(rd: u8, imm: i32) -> Insn {
    Insn { op: Op::Jal, word: j_word(JAL, rd, imm) }
}

/// `jalr rd, imm(rs1)`
pub fn jalr(rd: u8, imm: i32, rs1: u8) -> Insn {
    Insn { op: Op::Jalr, word: i_word(JALR, 0, rd, rs1, imm) }
}

/// `fence pred, succ` (4-bit sets of I, O, R, W)
pub fn fence(pred: u32, succ: u32) -> Insn {
    assert!(pred < 16 && succ < 16);
    Insn { op: Op::Fence, word: (pred << 24) | (succ << 20) | MISC_MEM }
}

/// `fence.tso`: fm = 1000, pred = succ = RW.
pub fn fence_tso() -> Insn {
    Insn { op: Op::Fence, word: 0x8330_000f }
}

pub fn fence_i() -> Insn {
    Insn { op: Op::FenceI, word: (1 << 12) | MISC_MEM }
}

pub fn ecall() -> Insn {
    Insn { op: Op::Ecall, word: SYSTEM }
}

pub fn ebreak() -> Insn {
    Insn { op: Op::Ebreak, word: (1 << 20) | SYSTEM }
}

/// PIMP `send rs1, rs2` (custom-0, funct3 0).
pub fn send(rs1: u8, rs2: u8) -> Insn {
    Insn { op: Op::PimpSend, word: r_word(CUSTOM_0, 0, 0, 0, rs1, rs2) }
}

/// PIMP `recv rd` (custom-0, funct3 1).
pub fn recv(rd: u8) -> Insn {
    Insn { op: Op::PimpRecv, word: r_word(CUSTOM_0, 1, 0, rd, 0, 0) }
}

/// PIMP `src rd` (custom-0, funct3 2).
pub fn src(rd: u8) -> Insn {
    Insn { op: Op::PimpSrc, word: r_word(CUSTOM_0, 2, 0, rd, 0, 0) }
}

// ------------------------------------------------------------------------------------------------------------
// A: `funct5 | aq | rl | rs2 | rs1 | width | rd | AMO`, width 010 for words and 011 for doublewords
// ------------------------------------------------------------------------------------------------------------

fn amo_word(funct5: u32, width: u32, rd: u8, rs1: u8, rs2: u8) -> u32 {
    (funct5 << 27) | (reg(rs2) << 20) | (reg(rs1) << 15) | (width << 12) | (reg(rd) << 7) | AMO
}

/// `name rd, rs2, (rs1)` (AMOs and SC, in assembly operand order)
macro_rules! amo {
    ($($name:ident: $op:ident = $funct5:literal, $width:literal;)*) => {$(
        pub fn $name(rd: u8, rs2: u8, rs1: u8) -> Insn {
            Insn { op: Op::$op, word: amo_word($funct5, $width, rd, rs1, rs2) }
        }
    )*};
}

amo! {
    sc_w: ScW = 0b00011, 2;
    amoswap_w: AmoswapW = 0b00001, 2;
    amoadd_w: AmoaddW = 0b00000, 2;
    amoxor_w: AmoxorW = 0b00100, 2;
    amoand_w: AmoandW = 0b01100, 2;
    amoor_w: AmoorW = 0b01000, 2;
    amomin_w: AmominW = 0b10000, 2;
    amomax_w: AmomaxW = 0b10100, 2;
    amominu_w: AmominuW = 0b11000, 2;
    amomaxu_w: AmomaxuW = 0b11100, 2;
    sc_d: ScD = 0b00011, 3;
    amoswap_d: AmoswapD = 0b00001, 3;
    amoadd_d: AmoaddD = 0b00000, 3;
    amoxor_d: AmoxorD = 0b00100, 3;
    amoand_d: AmoandD = 0b01100, 3;
    amoor_d: AmoorD = 0b01000, 3;
    amomin_d: AmominD = 0b10000, 3;
    amomax_d: AmomaxD = 0b10100, 3;
    amominu_d: AmominuD = 0b11000, 3;
    amomaxu_d: AmomaxuD = 0b11100, 3;
}

/// `lr.w rd, (rs1)` (rs2 = 0)
pub fn lr_w(rd: u8, rs1: u8) -> Insn {
    Insn { op: Op::LrW, word: amo_word(0b00010, 2, rd, rs1, 0) }
}

/// `lr.d rd, (rs1)`
pub fn lr_d(rd: u8, rs1: u8) -> Insn {
    Insn { op: Op::LrD, word: amo_word(0b00010, 3, rd, rs1, 0) }
}

/// The `.aq`, `.rl` or `.aqrl` form of an AMO, LR or SC: bit 26 is aq, bit 25 rl.
pub fn ordered(insn: Insn, aq: bool, rl: bool) -> Insn {
    assert_eq!(insn.word & 0x7f, AMO, "only atomics have ordering bits");
    Insn { word: insn.word | u32::from(aq) << 26 | u32::from(rl) << 25, ..insn }
}

// ------------------------------------------------------------------------------------------------------------
// F and D: OP-FP is R-type with funct7 = funct5 | fmt (00 single, 01 double) and the rounding mode in funct3
// where the instruction rounds; the fused multiply-adds are R4 (rs3 | fmt | rs2 | rs1 | rm | rd | opcode).
// Register numbers here are the architectural ones (f10 is 10), whatever file they name.
// ------------------------------------------------------------------------------------------------------------

/// The `rm` field.
pub mod rm {
    pub const RNE: u32 = 0;
    pub const RTZ: u32 = 1;
    pub const RDN: u32 = 2;
    pub const RUP: u32 = 3;
    pub const RMM: u32 = 4;
    /// Dynamic: the mode in `frm`.
    pub const DYN: u32 = 7;
    /// The five rounding modes, in encoding order.
    pub const ALL: [u32; 5] = [RNE, RTZ, RDN, RUP, RMM];
}

fn rm_field(rm: u32) -> u32 {
    assert!(rm < 8, "rm {rm} is a 3-bit field");
    rm
}

/// `name rd, imm(rs1)` (f rd)
macro_rules! fp_load {
    ($($name:ident: $op:ident = $width:literal;)*) => {$(
        pub fn $name(rd: u8, imm: i32, rs1: u8) -> Insn {
            Insn { op: Op::$op, word: i_word(LOAD_FP, $width, rd, rs1, imm) }
        }
    )*};
}

/// `name rs2, imm(rs1)` (f rs2)
macro_rules! fp_store {
    ($($name:ident: $op:ident = $width:literal;)*) => {$(
        pub fn $name(rs2: u8, imm: i32, rs1: u8) -> Insn {
            Insn { op: Op::$op, word: s_word(STORE_FP, $width, rs1, rs2, imm) }
        }
    )*};
}

/// `name rd, rs1, rs2, rm`
macro_rules! fp_rrr_rm {
    ($($name:ident: $op:ident = $funct7:literal;)*) => {$(
        pub fn $name(rd: u8, rs1: u8, rs2: u8, rm: u32) -> Insn {
            Insn { op: Op::$op, word: r_word(OP_FP, rm_field(rm), $funct7, rd, rs1, rs2) }
        }
    )*};
}

/// `name rd, rs1, rs2` with a fixed funct3 (sign injection, min/max, comparisons)
macro_rules! fp_rrr {
    ($($name:ident: $op:ident = $funct7:literal, $funct3:literal;)*) => {$(
        pub fn $name(rd: u8, rs1: u8, rs2: u8) -> Insn {
            Insn { op: Op::$op, word: r_word(OP_FP, $funct3, $funct7, rd, rs1, rs2) }
        }
    )*};
}

/// `name rd, rs1, rm`; the rs2 field selects the operation (square root, conversions)
macro_rules! fp_rr_rm {
    ($($name:ident: $op:ident = $funct7:literal, $rs2:literal;)*) => {$(
        pub fn $name(rd: u8, rs1: u8, rm: u32) -> Insn {
            Insn { op: Op::$op, word: r_word(OP_FP, rm_field(rm), $funct7, rd, rs1, $rs2) }
        }
    )*};
}

/// `name rd, rs1` with fixed funct3 and rs2 (moves, classify)
macro_rules! fp_rr {
    ($($name:ident: $op:ident = $funct7:literal, $funct3:literal;)*) => {$(
        pub fn $name(rd: u8, rs1: u8) -> Insn {
            Insn { op: Op::$op, word: r_word(OP_FP, $funct3, $funct7, rd, rs1, 0) }
        }
    )*};
}

/// `name rd, rs1, rs2, rs3, rm` (R4)
macro_rules! fp_r4 {
    ($($name:ident: $op:ident = $opcode:ident, $fmt:literal;)*) => {$(
        pub fn $name(rd: u8, rs1: u8, rs2: u8, rs3: u8, rm: u32) -> Insn {
            let word = (reg(rs3) << 27) | ($fmt << 25) | (reg(rs2) << 20) | (reg(rs1) << 15) | (rm_field(rm) << 12)
                | (reg(rd) << 7) | $opcode;
            Insn { op: Op::$op, word }
        }
    )*};
}

fp_load! {
    flw: Flw = 2;
    fld: Fld = 3;
}

fp_store! {
    fsw: Fsw = 2;
    fsd: Fsd = 3;
}

fp_rrr_rm! {
    fadd_s: FaddS = 0x00;
    fsub_s: FsubS = 0x04;
    fmul_s: FmulS = 0x08;
    fdiv_s: FdivS = 0x0c;
    fadd_d: FaddD = 0x01;
    fsub_d: FsubD = 0x05;
    fmul_d: FmulD = 0x09;
    fdiv_d: FdivD = 0x0d;
}

fp_rrr! {
    fsgnj_s: FsgnjS = 0x10, 0;
    fsgnjn_s: FsgnjnS = 0x10, 1;
    fsgnjx_s: FsgnjxS = 0x10, 2;
    fmin_s: FminS = 0x14, 0;
    fmax_s: FmaxS = 0x14, 1;
    fle_s: FleS = 0x50, 0;
    flt_s: FltS = 0x50, 1;
    feq_s: FeqS = 0x50, 2;
    fsgnj_d: FsgnjD = 0x11, 0;
    fsgnjn_d: FsgnjnD = 0x11, 1;
    fsgnjx_d: FsgnjxD = 0x11, 2;
    fmin_d: FminD = 0x15, 0;
    fmax_d: FmaxD = 0x15, 1;
    fle_d: FleD = 0x51, 0;
    flt_d: FltD = 0x51, 1;
    feq_d: FeqD = 0x51, 2;
}

fp_rr_rm! {
    fsqrt_s: FsqrtS = 0x2c, 0;
    fsqrt_d: FsqrtD = 0x2d, 0;
    fcvt_s_d: FcvtSD = 0x20, 1;
    fcvt_d_s: FcvtDS = 0x21, 0;
    fcvt_w_s: FcvtWS = 0x60, 0;
    fcvt_wu_s: FcvtWuS = 0x60, 1;
    fcvt_l_s: FcvtLS = 0x60, 2;
    fcvt_lu_s: FcvtLuS = 0x60, 3;
    fcvt_w_d: FcvtWD = 0x61, 0;
    fcvt_wu_d: FcvtWuD = 0x61, 1;
    fcvt_l_d: FcvtLD = 0x61, 2;
    fcvt_lu_d: FcvtLuD = 0x61, 3;
    fcvt_s_w: FcvtSW = 0x68, 0;
    fcvt_s_wu: FcvtSWu = 0x68, 1;
    fcvt_s_l: FcvtSL = 0x68, 2;
    fcvt_s_lu: FcvtSLu = 0x68, 3;
    fcvt_d_w: FcvtDW = 0x69, 0;
    fcvt_d_wu: FcvtDWu = 0x69, 1;
    fcvt_d_l: FcvtDL = 0x69, 2;
    fcvt_d_lu: FcvtDLu = 0x69, 3;
}

fp_rr! {
    fmv_x_w: FmvXW = 0x70, 0;
    fclass_s: FclassS = 0x70, 1;
    fmv_w_x: FmvWX = 0x78, 0;
    fmv_x_d: FmvXD = 0x71, 0;
    fclass_d: FclassD = 0x71, 1;
    fmv_d_x: FmvDX = 0x79, 0;
}

fp_r4! {
    fmadd_s: FmaddS = MADD, 0;
    fmsub_s: FmsubS = MSUB, 0;
    fnmsub_s: FnmsubS = NMSUB, 0;
    fnmadd_s: FnmaddS = NMADD, 0;
    fmadd_d: FmaddD = MADD, 1;
    fmsub_d: FmsubD = MSUB, 1;
    fnmsub_d: FnmsubD = NMSUB, 1;
    fnmadd_d: FnmaddD = NMADD, 1;
}

// ------------------------------------------------------------------------------------------------------------
// C: 16-bit parcels in quadrants 00, 01 and 10; each `Insn` carries the op of the base instruction the parcel
// stands for. `r'` fields hold x8..x15 (or f8..f15) as 3 bits.
// ------------------------------------------------------------------------------------------------------------

const C0: u16 = 0b00;
const C1: u16 = 0b01;
const C2: u16 = 0b10;

fn parcel(op: Op, bits: u16) -> Insn {
    Insn { op, word: u32::from(bits) }
}

/// A 3-bit `r'` register field.
fn creg(r: u8) -> u16 {
    assert!((8..16).contains(&r), "register {r} is not one of 8..15, which a 3-bit field names");
    u16::from(r - 8)
}

/// A 5-bit register field.
fn creg5(r: u8) -> u16 {
    reg(r) as u16
}

/// Bit `b` of `v`.
fn bit(v: u32, b: u32) -> u16 {
    ((v >> b) & 1) as u16
}

/// Bits `hi..=lo` of `v`, shifted down.
fn bits(v: u32, hi: u32, lo: u32) -> u16 {
    ((v >> lo) & ((1 << (hi - lo + 1)) - 1)) as u16
}

/// CI with a 6-bit signed immediate: `funct3 | imm[5] | rd | imm[4:0] | op`.
fn ci(funct3: u16, rd: u8, imm: i32, quadrant: u16) -> u16 {
    assert!((-32..32).contains(&imm), "CI immediate {imm} out of range");
    let u = imm as u32;
    funct3 << 13 | bit(u, 5) << 12 | creg5(rd) << 7 | bits(u, 4, 0) << 2 | quadrant
}

/// `c.addi rd, imm` (`addi rd, rd, imm`)
pub fn c_addi(rd: u8, imm: i32) -> Insn {
    assert!(rd != 0 && imm != 0, "c.addi with rd = x0 or imm = 0 is c.nop or a HINT");
    parcel(Op::Addi, ci(0b000, rd, imm, C1))
}

/// `c.li rd, imm` (`addi rd, x0, imm`)
pub fn c_li(rd: u8, imm: i32) -> Insn {
    parcel(Op::Addi, ci(0b010, rd, imm, C1))
}

/// `c.addiw rd, imm` (`addiw rd, rd, imm`): on RV64 this encoding (quadrant 01, funct3 001) is c.addiw, not the
/// RV32-only c.jal.
pub fn c_addiw(rd: u8, imm: i32) -> Insn {
    assert!(rd != 0, "c.addiw with rd = x0 is reserved");
    parcel(Op::Addiw, ci(0b001, rd, imm, C1))
}

/// `c.mv rd, rs2` (`add rd, x0, rs2`): CR `1000 | rd | rs2 | 10`
pub fn c_mv(rd: u8, rs2: u8) -> Insn {
    assert!(rs2 != 0, "c.mv with rs2 = x0 is c.jr");
    parcel(Op::Add, 0b1000 << 12 | creg5(rd) << 7 | creg5(rs2) << 2 | C2)
}

/// `c.add rd, rs2` (`add rd, rd, rs2`): CR `1001 | rd | rs2 | 10`
pub fn c_add(rd: u8, rs2: u8) -> Insn {
    assert!(rs2 != 0, "c.add with rs2 = x0 is c.jalr or c.ebreak");
    parcel(Op::Add, 0b1001 << 12 | creg5(rd) << 7 | creg5(rs2) << 2 | C2)
}

/// `c.jr rs1` (`jalr x0, 0(rs1)`): CR `1000 | rs1 | 00000 | 10`
pub fn c_jr(rs1: u8) -> Insn {
    assert!(rs1 != 0, "c.jr with rs1 = x0 is reserved");
    parcel(Op::Jalr, 0b1000 << 12 | creg5(rs1) << 7 | C2)
}

/// `c.jalr rs1` (`jalr ra, 0(rs1)`): CR `1001 | rs1 | 00000 | 10`
pub fn c_jalr(rs1: u8) -> Insn {
    assert!(rs1 != 0, "c.jalr with rs1 = x0 is c.ebreak");
    parcel(Op::Jalr, 0b1001 << 12 | creg5(rs1) << 7 | C2)
}

/// `c.ebreak`: CR `1001 | 00000 | 00000 | 10`
pub fn c_ebreak() -> Insn {
    parcel(Op::Ebreak, 0b1001 << 12 | C2)
}

/// `c.j offset` (`jal x0, offset`): CJ `101 | offset[11|4|9:8|10|6|7|3:1|5] | 01`
pub fn c_j(offset: i32) -> Insn {
    assert!((-2048..2048).contains(&offset) && offset % 2 == 0, "c.j offset {offset} not encodable");
    let u = offset as u32;
    let target = bit(u, 11) << 10
        | bit(u, 4) << 9
        | bits(u, 9, 8) << 7
        | bit(u, 10) << 6
        | bit(u, 6) << 5
        | bit(u, 7) << 4
        | bits(u, 3, 1) << 1
        | bit(u, 5);
    parcel(Op::Jal, 0b101 << 13 | target << 2 | C1)
}

/// CB branch: `funct3 | offset[8|4:3] | rs1' | offset[7:6|2:1|5] | 01`
fn cb(funct3: u16, rs1: u8, offset: i32) -> u16 {
    assert!((-256..256).contains(&offset) && offset % 2 == 0, "CB offset {offset} not encodable");
    let u = offset as u32;
    funct3 << 13
        | bit(u, 8) << 12
        | bits(u, 4, 3) << 10
        | creg(rs1) << 7
        | bits(u, 7, 6) << 5
        | bits(u, 2, 1) << 3
        | bit(u, 5) << 2
        | C1
}

/// `c.beqz rs1', offset` (`beq rs1', x0, offset`)
pub fn c_beqz(rs1: u8, offset: i32) -> Insn {
    parcel(Op::Beq, cb(0b110, rs1, offset))
}

/// `c.bnez rs1', offset` (`bne rs1', x0, offset`)
pub fn c_bnez(rs1: u8, offset: i32) -> Insn {
    parcel(Op::Bne, cb(0b111, rs1, offset))
}

/// CL/CS with a doubleword offset: `funct3 | uimm[5:3] | rs1' | uimm[7:6] | rd'/rs2' | 00`
fn cl_double(funct3: u16, r: u8, offset: u32, rs1: u8) -> u16 {
    assert!(offset < 256 && offset % 8 == 0, "doubleword offset {offset} not encodable");
    funct3 << 13 | bits(offset, 5, 3) << 10 | creg(rs1) << 7 | bits(offset, 7, 6) << 5 | creg(r) << 2 | C0
}

/// CL/CS with a word offset: `funct3 | uimm[5:3] | rs1' | uimm[2|6] | rd'/rs2' | 00`
fn cl_word(funct3: u16, r: u8, offset: u32, rs1: u8) -> u16 {
    assert!(offset < 128 && offset % 4 == 0, "word offset {offset} not encodable");
    funct3 << 13 | bits(offset, 5, 3) << 10 | creg(rs1) << 7 | bit(offset, 2) << 6 | bit(offset, 6) << 5 | creg(r) << 2 | C0
}

/// `c.lw rd', offset(rs1')`
pub fn c_lw(rd: u8, offset: u32, rs1: u8) -> Insn {
    parcel(Op::Lw, cl_word(0b010, rd, offset, rs1))
}

/// `c.sw rs2', offset(rs1')`
pub fn c_sw(rs2: u8, offset: u32, rs1: u8) -> Insn {
    parcel(Op::Sw, cl_word(0b110, rs2, offset, rs1))
}

/// `c.ld rd', offset(rs1')`
pub fn c_ld(rd: u8, offset: u32, rs1: u8) -> Insn {
    parcel(Op::Ld, cl_double(0b011, rd, offset, rs1))
}

/// `c.sd rs2', offset(rs1')`
pub fn c_sd(rs2: u8, offset: u32, rs1: u8) -> Insn {
    parcel(Op::Sd, cl_double(0b111, rs2, offset, rs1))
}

/// `c.fld rd', offset(rs1')` (f rd')
pub fn c_fld(rd: u8, offset: u32, rs1: u8) -> Insn {
    parcel(Op::Fld, cl_double(0b001, rd, offset, rs1))
}

/// `c.fsd rs2', offset(rs1')` (f rs2')
pub fn c_fsd(rs2: u8, offset: u32, rs1: u8) -> Insn {
    parcel(Op::Fsd, cl_double(0b101, rs2, offset, rs1))
}

/// CI sp-relative doubleword load: `funct3 | uimm[5] | rd | uimm[4:3|8:6] | 10`
fn ci_ldsp(funct3: u16, rd: u8, offset: u32) -> u16 {
    assert!(offset < 512 && offset % 8 == 0, "sp-relative doubleword offset {offset} not encodable");
    funct3 << 13 | bit(offset, 5) << 12 | creg5(rd) << 7 | bits(offset, 4, 3) << 5 | bits(offset, 8, 6) << 2 | C2
}

/// CSS sp-relative doubleword store: `funct3 | uimm[5:3|8:6] | rs2 | 10`
fn css_sdsp(funct3: u16, rs2: u8, offset: u32) -> u16 {
    assert!(offset < 512 && offset % 8 == 0, "sp-relative doubleword offset {offset} not encodable");
    funct3 << 13 | bits(offset, 5, 3) << 10 | bits(offset, 8, 6) << 7 | creg5(rs2) << 2 | C2
}

/// `c.ldsp rd, offset(sp)`
pub fn c_ldsp(rd: u8, offset: u32) -> Insn {
    assert!(rd != 0, "c.ldsp with rd = x0 is reserved");
    parcel(Op::Ld, ci_ldsp(0b011, rd, offset))
}

/// `c.sdsp rs2, offset(sp)`
pub fn c_sdsp(rs2: u8, offset: u32) -> Insn {
    parcel(Op::Sd, css_sdsp(0b111, rs2, offset))
}

/// `c.fldsp rd, offset(sp)` (f rd)
pub fn c_fldsp(rd: u8, offset: u32) -> Insn {
    parcel(Op::Fld, ci_ldsp(0b001, rd, offset))
}

/// `c.fsdsp rs2, offset(sp)` (f rs2)
pub fn c_fsdsp(rs2: u8, offset: u32) -> Insn {
    parcel(Op::Fsd, css_sdsp(0b101, rs2, offset))
}

/// A compressed parcel with `upper` in the high half of the fetched word (the next parcel), which decoding it
/// must ignore.
pub fn followed_by(insn: Insn, upper: u16) -> Insn {
    assert_eq!(insn.len(), 2, "only a 16-bit parcel is followed by another in the same word");
    Insn { word: insn.word | u32::from(upper) << 16, ..insn }
}
