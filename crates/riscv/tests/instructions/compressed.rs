//! The C extension as the executor sees it: on a hart with C a 16-bit parcel decodes to the base instruction it
//! stands for, with length 2; it runs as that instruction, steps the pc by 2, and a jump links the address 2 after
//! it. With C, jump and branch targets need only be 2-byte aligned. (The expansion of every encoding is checked
//! by `rvc`'s own tests against the GNU assembler.)

use crate::common::asm::{self, Insn};
use crate::common::*;
use riscv::decode::{decode_for, missing_extension, F0};
use riscv::isa::{Extension, Isa, Op};
use riscv::{EnvOp, Fault, Flow};

pub const GROUPS: &[Group] = &[
    ("compressed_parcels_decode_only_with_c", compressed_parcels_decode_only_with_c),
    ("compressed_instructions_step_the_pc_by_two", compressed_instructions_step_the_pc_by_two),
    ("compressed_jumps_link_the_next_parcel", compressed_jumps_link_the_next_parcel),
    ("two_byte_aligned_targets_need_c", two_byte_aligned_targets_need_c),
];

/// One parcel of each kind the tests use, and whether it needs D.
fn parcels() -> Vec<(Insn, bool)> {
    vec![
        (asm::c_addi(A0, -3), false),
        (asm::c_li(A0, 5), false),
        (asm::c_addiw(A0, 1), false),
        (asm::c_mv(A0, A1), false),
        (asm::c_add(A0, A1), false),
        (asm::c_j(-4), false),
        (asm::c_jr(RA), false),
        (asm::c_jalr(A0), false),
        (asm::c_beqz(S0, 8), false),
        (asm::c_bnez(S1, -8), false),
        (asm::c_lw(A0, 4, S0), false),
        (asm::c_sw(A0, 4, S0), false),
        (asm::c_ld(A0, 8, S0), false),
        (asm::c_sd(A0, 8, S0), false),
        (asm::c_ldsp(A0, 8), false),
        (asm::c_sdsp(A0, 8), false),
        (asm::c_ebreak(), false),
        (asm::c_fld(FS0, 16, S1), true),
        (asm::c_fsd(FS1, 16, S0), true),
        (asm::c_fldsp(FA0, 8), true),
        (asm::c_fsdsp(FA0, 8), true),
    ]
}

#[test]
fn compressed_parcels_decode_only_with_c() {
    for (insn, needs_d) in parcels() {
        let name = insn.op.name();
        // RV64GC: the base op, 2 bytes; the next parcel in the upper half of the word changes nothing.
        let d = decode_insn_for(insn, Isa::RV64GC);
        for upper in [0xffff, 0x0001, 0x4501] {
            assert_eq!(decode_insn_for(asm::followed_by(insn, upper), Isa::RV64GC), d, "{name} ({:#06x})", insn.word);
        }
        // RV64IMAC has C but not D.
        let on_imac = decode_for(insn.word, Isa::RV64IMAC).map(|d| d.op);
        assert_eq!(on_imac, (!needs_d).then_some(insn.op), "{name} ({:#06x}) on rv64imac", insn.word);
        assert_eq!(missing_extension(insn.word, Isa::RV64IMAC), needs_d.then_some(Extension::D), "{name} on rv64imac");
        // RV64IM has no compressed instructions at all.
        assert_eq!(decode_for(insn.word, Isa::RV64IM), None, "{name} ({:#06x}) on rv64im", insn.word);
        assert_eq!(missing_extension(insn.word, Isa::RV64IM), Some(Extension::C), "{name} on rv64im");
    }
    // Operands come from the parcel's fields (f registers numbered from F0).
    let fields = |insn: Insn| {
        let d = decode_insn_for(insn, Isa::RV64GC);
        (d.op, d.rd, d.rs1, d.rs2, d.imm)
    };
    assert_eq!(fields(asm::c_addi(A0, -3)), (Op::Addi, A0, A0, 0, -3));
    assert_eq!(fields(asm::c_li(A5, -32)), (Op::Addi, A5, ZERO, 0, -32));
    assert_eq!(fields(asm::c_addiw(A1, 31)), (Op::Addiw, A1, A1, 0, 31));
    assert_eq!(fields(asm::c_mv(A0, A1)), (Op::Add, A0, ZERO, A1, 0));
    assert_eq!(fields(asm::c_add(A0, A1)), (Op::Add, A0, A0, A1, 0));
    assert_eq!(fields(asm::c_jr(RA)), (Op::Jalr, ZERO, RA, 0, 0));
    assert_eq!(fields(asm::c_jalr(A0)), (Op::Jalr, RA, A0, 0, 0));
    assert_eq!(fields(asm::c_j(-2048)), (Op::Jal, ZERO, 0, 0, -2048));
    assert_eq!(fields(asm::c_j(2046)), (Op::Jal, ZERO, 0, 0, 2046));
    assert_eq!(fields(asm::c_beqz(S0, -256)), (Op::Beq, 0, S0, ZERO, -256));
    assert_eq!(fields(asm::c_bnez(A5, 254)), (Op::Bne, 0, A5, ZERO, 254));
    assert_eq!(fields(asm::c_lw(A0, 124, S1)), (Op::Lw, A0, S1, 0, 124));
    assert_eq!(fields(asm::c_sd(A4, 248, S0)), (Op::Sd, 0, S0, A4, 248));
    assert_eq!(fields(asm::c_ldsp(T0, 504)), (Op::Ld, T0, SP, 0, 504));
    assert_eq!(fields(asm::c_sdsp(RA, 8)), (Op::Sd, 0, SP, RA, 8));
    assert_eq!(fields(asm::c_fld(FS0, 16, S1)), (Op::Fld, F0 + FS0, S1, 0, 16));
    assert_eq!(fields(asm::c_fsd(FA5, 248, A0)), (Op::Fsd, 0, A0, F0 + FA5, 248));
    assert_eq!(fields(asm::c_fldsp(FT0, 0)), (Op::Fld, F0 + FT0, SP, 0, 0));
    assert_eq!(fields(asm::c_fsdsp(FA0, 504)), (Op::Fsd, 0, SP, F0 + FA0, 504));
    // A 32-bit instruction on a hart with C is still 4 bytes.
    assert_eq!(decode_for(asm::addi(A0, A0, 1).word, Isa::RV64GC).map(|d| d.len), Some(4));
    // The all-zero parcel is illegal everywhere, not an instruction of a missing extension.
    assert_eq!(decode_for(0, Isa::RV64GC), None);
    assert_eq!(missing_extension(0, Isa::RV64GC), None);
}

/// f15, the last register a 3-bit field names.
const FA5: u8 = 15;

#[test]
fn compressed_instructions_step_the_pc_by_two() {
    let mut m = Machine::gc().and(&[(A1, 40), (S0, DATA), (S1, DATA + 32), (SP, DATA + 64)]);
    m.next(asm::c_li(A0, -5));
    assert_eq!(m.get(A0), (-5i64) as u64);
    m.next(asm::c_addi(A0, 7));
    assert_eq!(m.get(A0), 2);
    m.set(A0, 0x7fff_ffff);
    m.next(asm::c_addiw(A0, 1));
    assert_eq!(m.get(A0), I32_MIN_SEXT, "c.addiw sign-extends a 32-bit sum");
    m.next(asm::c_mv(A2, A1));
    m.next(asm::c_add(A2, A1));
    assert_eq!(m.get(A2), 80);
    assert_eq!(m.hart.pc, CODE + 10);
    // Loads and stores.
    m.next(asm::c_sd(A2, 8, S0));
    m.next(asm::c_ld(A3, 8, S0));
    assert_eq!((m.peek_u64(DATA + 8), m.get(A3)), (80, 80));
    m.next(asm::c_sw(A0, 4, S0));
    m.next(asm::c_lw(A4, 4, S0));
    assert_eq!(m.get(A4), I32_MIN_SEXT, "c.lw sign-extends");
    m.next(asm::c_sdsp(A3, 16));
    m.next(asm::c_ldsp(A5, 16));
    assert_eq!((m.peek_u64(DATA + 80), m.get(A5)), (80, 80));
    m.set_f(FS1, 0x4009_21fb_5444_2d18);
    m.next(asm::c_fsd(FS1, 16, S1));
    m.next(asm::c_fld(FS0, 16, S1));
    assert_eq!((m.peek_u64(DATA + 48), m.f(FS0)), (0x4009_21fb_5444_2d18, 0x4009_21fb_5444_2d18));
    m.next(asm::c_fsdsp(FS0, 24));
    m.next(asm::c_fldsp(FA0, 24));
    assert_eq!((m.peek_u64(DATA + 88), m.f(FA0)), (0x4009_21fb_5444_2d18, 0x4009_21fb_5444_2d18));
    assert_eq!(m.hart.pc, CODE + 2 * 15);
    // A 32-bit instruction at a 2-byte-aligned pc steps by 4.
    m.next(asm::addi(A0, ZERO, 1));
    assert_eq!(m.hart.pc, CODE + 34);
    // Branches not taken step by 2; taken ones go to pc + offset.
    m.next(asm::c_beqz(S0, 8));
    m.set(A0, 0);
    m.next(asm::c_bnez(A0, -8));
    let pc = m.hart.pc;
    assert_eq!(m.step(asm::c_beqz(A0, -6)), Ok(Flow::Redirect));
    assert_eq!(m.hart.pc, pc - 6);
    let pc = m.hart.pc;
    assert_eq!(m.step(asm::c_bnez(S0, 254)), Ok(Flow::Redirect));
    assert_eq!(m.hart.pc, pc + 254);
    // c.ebreak hands over to the environment with the pc on it.
    let pc = m.hart.pc;
    assert_eq!(m.environment(asm::c_ebreak()), EnvOp::Ebreak);
    assert_eq!(m.hart.pc, pc);
}

#[test]
fn compressed_jumps_link_the_next_parcel() {
    // c.jalr links pc + 2.
    let mut m = Machine::gc().and(&[(A0, BASE + 0x102)]);
    assert_eq!(m.step(asm::c_jalr(A0)), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.get(RA)), (BASE + 0x102, CODE + 2));
    // From a pc that is only 2-byte aligned.
    let mut m = Machine::gc().and(&[(A0, BASE + 0x200)]);
    m.hart.pc = CODE + 2;
    assert_eq!(m.step(asm::c_jalr(A0)), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.get(RA)), (BASE + 0x200, CODE + 4));
    // c.jalr ra: the target is the old ra, then ra is the link.
    let mut m = Machine::gc().and(&[(RA, BASE + 0x40)]);
    assert_eq!(m.step(asm::c_jalr(RA)), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.get(RA)), (BASE + 0x40, CODE + 2));
    // c.jr and c.j link nothing.
    let mut m = Machine::gc().and(&[(RA, BASE + 0x40)]);
    let x = m.hart.x;
    assert_eq!(m.step(asm::c_jr(RA)), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.hart.x), (BASE + 0x40, x));
    for offset in [-2048, -4, 2, 2046] {
        let mut m = Machine::gc();
        assert_eq!(m.step(asm::c_j(offset)), Ok(Flow::Redirect), "c.j {offset}");
        assert_eq!(m.hart.pc, CODE.wrapping_add(offset as i64 as u64));
        assert_eq!(m.hart.x, [0; 32], "c.j links nothing");
    }
    // RV64 has no c.jal: its encoding is c.addiw, which adds and links nothing.
    let mut m = Machine::gc().and(&[(A0, 5)]);
    m.next(asm::c_addiw(A0, 1));
    assert_eq!((m.get(A0), m.get(RA)), (6, 0));
    // A 32-bit jal or jalr on the same hart links pc + 4.
    let mut m = Machine::gc();
    assert_eq!(m.step(asm::jal(RA, 8)), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.get(RA)), (CODE + 8, CODE + 4));
    let mut m = Machine::gc().and(&[(A0, BASE + 0x100)]);
    assert_eq!(m.step(asm::jalr(RA, 2, A0)), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.get(RA)), (BASE + 0x102, CODE + 4));
}

#[test]
fn two_byte_aligned_targets_need_c() {
    // (instruction, registers, target): every target is 2- but not 4-byte aligned.
    type Case = (Insn, &'static [(u8, u64)], u64);
    let cases: [Case; 8] = [
        (asm::jal(RA, 2), &[], CODE + 2),
        (asm::jal(RA, -6), &[], CODE - 6),
        (asm::jalr(RA, 0, A1), &[(A1, BASE + 2)], BASE + 2),
        // Bit 0 is cleared first: BASE + 3 becomes BASE + 2.
        (asm::jalr(RA, 0, A1), &[(A1, BASE + 3)], BASE + 2),
        (asm::jalr(RA, 7, A1), &[(A1, BASE)], BASE + 6),
        (asm::beq(A1, A1, 6), &[], CODE + 6),
        (asm::bne(A1, A2, -2), &[(A2, 1)], CODE - 2),
        (asm::bgeu(A1, A2, 4094), &[], CODE + 4094),
    ];
    for (insn, regs, target) in cases {
        for isa in [Isa::RV64GC, Isa::RV64IMAC] {
            let mut m = Machine::with_isa(isa).and(regs);
            assert_eq!(m.step(insn), Ok(Flow::Redirect), "{} on {isa}", insn.op.name());
            assert_eq!(m.hart.pc, target, "{} on {isa}", insn.op.name());
        }
        // Without C the same jump faults (IALIGN = 32) and changes nothing.
        let mut m = Machine::with_isa(Isa::RV64IM).and(regs);
        assert_eq!(m.fault(insn), Fault::MisalignedTarget { target, align: 4 }, "{} on rv64im", insn.op.name());
    }
    // Compressed jumps to 2-byte-aligned targets.
    let mut m = Machine::gc().and(&[(A0, BASE + 0x12)]);
    assert_eq!(m.step(asm::c_jr(A0)), Ok(Flow::Redirect));
    assert_eq!(m.hart.pc, BASE + 0x12);
    assert_eq!(m.step(asm::c_j(-10)), Ok(Flow::Redirect));
    assert_eq!(m.hart.pc, BASE + 0x8);
}
