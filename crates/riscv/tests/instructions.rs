//! Every instruction of `riscv::isa::INSTRUCTIONS`, executed through the public API with its edge cases.
//!
//! Instruction words are encoded by `common::asm`, independently of the crate's table, from the RISC-V
//! unprivileged specification; each word is decoded for the hart's extensions (and checked to decode to the
//! intended [`Op`] and length) and executed with [`riscv::execute`] on a [`Hart`] and a [`Ram`]. Expected values
//! are the specification's, written out as constants rather than recomputed by the same formulas as the
//! simulator.
//!
//! Layout: this file holds the base groups (RV64I, M, Zicsr, Zifencei and the PIMP instructions, on an RV64IM
//! hart), the `x0` test, the coverage test (every op of the table is executed by some group of some module) and
//! two property tests; the A, F/D, C groups and the ISA gating live in the modules below, each with its own list
//! of groups that the coverage test runs.

mod common;

// The other groups, in tests/instructions/ (a test crate's root resolves modules beside itself).
#[path = "instructions/atomics.rs"]
mod atomics;
#[path = "instructions/compressed.rs"]
mod compressed;
#[path = "instructions/float.rs"]
mod float;
#[path = "instructions/gating.rs"]
mod gating;
#[path = "instructions/privileged.rs"]
mod privileged;

use common::asm::{self, Insn};
use common::*;
use proptest::prelude::*;
use riscv::isa::{Op, INSTRUCTIONS};
use riscv::memory::AccessKind;
use riscv::{EnvOp, Fault, Flow, MemFault};
use std::collections::HashSet;

// ------------------------------------------------------------------------------------------------------------
// Upper immediates
// ------------------------------------------------------------------------------------------------------------

#[test]
fn lui_and_auipc_sign_extend() {
    let cases: &[(u32, u64)] = &[
        (0x00000, 0),
        (0x12345, 0x1234_5000),
        (0x7ffff, 0x7fff_f000),
        // Bit 31 set: the 32-bit result is sign-extended to 64 bits.
        (0x80000, 0xffff_ffff_8000_0000),
        (0xfffff, 0xffff_ffff_ffff_f000),
    ];
    for &(imm20, want) in cases {
        let mut m = Machine::with(&[(A0, 0xdead_beef)]);
        m.next(asm::lui(A0, imm20));
        assert_eq!(m.get(A0), want, "lui a0, {imm20:#x}");

        let mut m = Machine::new();
        m.hart.pc = CODE + 0x20;
        m.next(asm::auipc(A0, imm20));
        assert_eq!(m.get(A0), (CODE + 0x20).wrapping_add(want), "auipc a0, {imm20:#x}");
    }

    // auipc reads the pc of the auipc itself, and a negative offset wraps below zero.
    let mut m = Machine::new();
    m.hart.pc = 0x1000;
    m.next(asm::auipc(A1, 0xfffff));
    assert_eq!(m.get(A1), 0);
    m.hart.pc = 0x1000;
    m.next(asm::auipc(A1, 0x80000));
    assert_eq!(m.get(A1), 0xffff_ffff_8000_1000);
    m.hart.pc = BASE;
    m.next(asm::auipc(A1, 0x80000));
    assert_eq!(m.get(A1), 0, "0x8000_0000 + sext(0x8000_0000) wraps to 0");
}

// ------------------------------------------------------------------------------------------------------------
// Jumps and branches
// ------------------------------------------------------------------------------------------------------------

#[test]
fn jal_links_and_jumps() {
    for &imm in &[8, -16, 0, 2048, (1 << 20) - 4, -(1 << 20)] {
        let mut m = Machine::new();
        assert_eq!(m.step(asm::jal(RA, imm)), Ok(Flow::Redirect), "jal ra, {imm}");
        assert_eq!(m.hart.pc, CODE.wrapping_add(imm as i64 as u64), "jal ra, {imm}: target");
        assert_eq!(m.get(RA), CODE + 4, "jal ra, {imm}: link");
    }
    // rd = x0: a plain jump.
    let mut m = Machine::new();
    assert_eq!(m.step(asm::jal(ZERO, -4)), Ok(Flow::Redirect));
    assert_eq!(m.hart.pc, CODE - 4);
    assert_eq!(m.get(ZERO), 0);
    // Another link register.
    let mut m = Machine::new();
    assert_eq!(m.step(asm::jal(T0, 12)), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.get(T0)), (CODE + 12, CODE + 4));
}

#[test]
fn jalr_links_and_clears_bit_zero() {
    // (rs1, imm, target)
    let cases: &[(u64, i32, u64)] = &[
        (BASE + 0x100, 0, BASE + 0x100),
        (BASE + 0x100, 8, BASE + 0x108),
        (BASE + 0x100, -4, BASE + 0xfc),
        // Bit 0 of the sum is cleared, whether it comes from rs1 or from the immediate.
        (BASE + 0x101, 0, BASE + 0x100),
        (BASE + 0x100, 1, BASE + 0x100),
        (BASE + 0x200, -3, BASE + 0x1fc),
        (BASE + 0x203, -2047, BASE + 0x200 - 0x7fc),
        // The sum wraps modulo 2^64.
        (u64::MAX, 1, 0),
    ];
    for &(base, imm, target) in cases {
        let mut m = Machine::with(&[(A1, base)]);
        assert_eq!(m.step(asm::jalr(RA, imm, A1)), Ok(Flow::Redirect), "jalr ra, {imm}(a1 = {base:#x})");
        assert_eq!(m.hart.pc, target, "jalr ra, {imm}(a1 = {base:#x}): target");
        assert_eq!(m.get(RA), CODE + 4, "jalr ra, {imm}(a1 = {base:#x}): link");
        assert_eq!(m.get(A1), base);
    }
    // rd == rs1: the target uses the old value, then the link overwrites it (`jalr ra, 0(ra)`, i.e. `ret` + link).
    let mut m = Machine::with(&[(RA, BASE + 0x40)]);
    assert_eq!(m.step(asm::jalr(RA, 4, RA)), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.get(RA)), (BASE + 0x44, CODE + 4));
    // rd = x0 (`ret`).
    let mut m = Machine::with(&[(RA, BASE + 0x40)]);
    assert_eq!(m.step(asm::jalr(ZERO, 0, RA)), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.get(ZERO), m.get(RA)), (BASE + 0x40, 0, BASE + 0x40));
}

type Branch = fn(u8, u8, i32) -> Insn;

#[test]
fn branches_taken_and_not_taken() {
    let neg = |v: i64| v as u64;
    // (branch, rs1, rs2, taken)
    let cases: &[(Branch, u64, u64, bool)] = &[
        (asm::beq, 5, 5, true),
        (asm::beq, 5, 6, false),
        (asm::beq, NEG1, NEG1, true),
        (asm::beq, 0, 1 << 32, false),
        (asm::bne, 5, 6, true),
        (asm::bne, 5, 5, false),
        (asm::bne, 1, 1 | 1 << 63, true),
        // Signed: -1 < 1, MIN < MAX, equal is not less.
        (asm::blt, neg(-1), 1, true),
        (asm::blt, 1, neg(-1), false),
        (asm::blt, I64_MIN, I64_MAX, true),
        (asm::blt, neg(-3), neg(-2), true),
        (asm::blt, 7, 7, false),
        (asm::bge, 1, neg(-1), true),
        (asm::bge, neg(-1), 1, false),
        (asm::bge, 7, 7, true),
        (asm::bge, neg(-2), neg(-3), true),
        (asm::bge, I64_MIN, I64_MAX, false),
        // Unsigned: -1 is the largest value.
        (asm::bltu, 1, neg(-1), true),
        (asm::bltu, neg(-1), 1, false),
        (asm::bltu, I64_MAX, I64_MIN, true),
        (asm::bltu, 7, 7, false),
        (asm::bltu, 0, 1, true),
        (asm::bgeu, neg(-1), 1, true),
        (asm::bgeu, 1, neg(-1), false),
        (asm::bgeu, 7, 7, true),
        (asm::bgeu, I64_MIN, I64_MAX, true),
        (asm::bgeu, 0, 1, false),
    ];
    let mut failures = Vec::new();
    for &(branch, a, b, taken) in cases {
        for imm in [16, -8, 4092, -4096] {
            let insn = branch(A1, A2, imm);
            let mut m = Machine::with(&[(A1, a), (A2, b)]);
            let flow = m.step(insn);
            let (want_flow, want_pc) =
                if taken { (Flow::Redirect, CODE.wrapping_add(imm as i64 as u64)) } else { (Flow::Next, CODE + 4) };
            if flow != Ok(want_flow) || m.hart.pc != want_pc {
                failures.push(format!(
                    "{} {a:#x}, {b:#x}, {imm}: expected {want_flow:?} to {want_pc:#x}, got {flow:?} to {:#x}",
                    insn.op.name(),
                    m.hart.pc
                ));
            }
            assert_eq!((m.get(A1), m.get(A2)), (a, b), "branches write no register");
        }
    }
    report(failures);

    // Comparing a register with itself, and with x0.
    let mut m = Machine::with(&[(A1, NEG1)]);
    assert_eq!(m.step(asm::beq(A1, A1, 8)), Ok(Flow::Redirect));
    let mut m = Machine::with(&[(A1, NEG1)]);
    assert_eq!(m.step(asm::blt(A1, ZERO, 8)), Ok(Flow::Redirect), "bltz");
    let mut m = Machine::with(&[(A1, NEG1)]);
    assert_eq!(m.step(asm::bltu(A1, ZERO, 8)), Ok(Flow::Next), "nothing is unsigned-below 0");
}

#[test]
fn misaligned_jump_and_branch_targets_fault() {
    // jal to pc + 2 and pc - 6.
    for imm in [2, -6, 0x7fe] {
        let mut m = Machine::with(&[(RA, 0x5a5a)]);
        let fault = m.fault(asm::jal(RA, imm));
        assert_eq!(fault, Fault::MisalignedTarget { target: CODE.wrapping_add(imm as i64 as u64), align: 4 }, "jal ra, {imm}");
    }
    // jalr: the target after clearing bit 0 must still be 4-byte aligned.
    for (base, imm, target) in [(BASE + 2, 0, BASE + 2), (BASE + 3, 0, BASE + 2), (BASE, 6, BASE + 6), (BASE, 7, BASE + 6)] {
        let mut m = Machine::with(&[(RA, 0x5a5a), (A1, base)]);
        let fault = m.fault(asm::jalr(RA, imm, A1));
        assert_eq!(fault, Fault::MisalignedTarget { target, align: 4 }, "jalr ra, {imm}(a1 = {base:#x})");
        // rd == rs1 must not be overwritten either.
        let mut m = Machine::with(&[(A1, base)]);
        m.fault(asm::jalr(A1, imm, A1));
    }
    // A taken branch to a misaligned target faults; an untaken one does not (the target is never used).
    // (branch, operands that take it, operands that do not)
    type Case = (Branch, (u64, u64), (u64, u64));
    let branches: [Case; 6] = [
        (asm::beq, (1, 1), (1, 2)),
        (asm::bne, (1, 2), (1, 1)),
        (asm::blt, (1, 2), (2, 1)),
        (asm::bge, (2, 1), (1, 2)),
        (asm::bltu, (1, 2), (2, 1)),
        (asm::bgeu, (2, 1), (1, 2)),
    ];
    for (branch, (a, b), (c, d)) in branches {
        let insn = branch(A1, A2, 6);
        let mut m = Machine::with(&[(A1, a), (A2, b)]);
        assert_eq!(m.fault(insn), Fault::MisalignedTarget { target: CODE + 6, align: 4 }, "{} taken to pc + 6", insn.op.name());
        let mut m = Machine::with(&[(A1, c), (A2, d)]);
        assert_eq!(m.step(branch(A1, A2, -2)), Ok(Flow::Next), "{} not taken", insn.op.name());
        assert_eq!(m.hart.pc, CODE + 4);
    }
}

// ------------------------------------------------------------------------------------------------------------
// Loads and stores
// ------------------------------------------------------------------------------------------------------------

/// Bytes at `DATA`: the first word has bit 31 set, the second does not (except the top byte of the doubleword).
const PATTERN: [u8; 16] = [0x81, 0x82, 0x83, 0x84, 0x05, 0x06, 0x07, 0x88, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x08];

type Load = fn(u8, i32, u8) -> Insn;
type Store = fn(u8, i32, u8) -> Insn;

#[test]
fn loads_sign_and_zero_extend_little_endian() {
    // (load, address, expected)
    let cases: &[(Load, u64, u64)] = &[
        (asm::lb, DATA, 0xffff_ffff_ffff_ff81),
        (asm::lb, DATA + 4, 0x05),
        (asm::lb, DATA + 7, 0xffff_ffff_ffff_ff88),
        (asm::lbu, DATA, 0x81),
        (asm::lbu, DATA + 4, 0x05),
        (asm::lbu, DATA + 7, 0x88),
        (asm::lh, DATA, 0xffff_ffff_ffff_8281),
        (asm::lh, DATA + 4, 0x0605),
        (asm::lh, DATA + 6, 0xffff_ffff_ffff_8807),
        (asm::lhu, DATA, 0x8281),
        (asm::lhu, DATA + 4, 0x0605),
        (asm::lhu, DATA + 6, 0x8807),
        (asm::lw, DATA, 0xffff_ffff_8483_8281),
        (asm::lw, DATA + 4, 0xffff_ffff_8807_0605),
        (asm::lw, DATA + 8, 0x4433_2211),
        (asm::lwu, DATA, 0x8483_8281),
        (asm::lwu, DATA + 4, 0x8807_0605),
        (asm::lwu, DATA + 8, 0x4433_2211),
        (asm::ld, DATA, 0x8807_0605_8483_8281),
        (asm::ld, DATA + 8, 0x0877_6655_4433_2211),
    ];
    let mut failures = Vec::new();
    for &(load, addr, want) in cases {
        // The address is formed both with a zero offset and with positive and negative immediates.
        for (base, imm) in [(addr, 0), (addr - 16, 16), (addr + 2047, -2047), (addr + 0x10, -16)] {
            let insn = load(A0, imm, A1);
            let mut m = Machine::with(&[(A0, 0xdead_beef_dead_beef), (A1, base)]);
            m.poke(DATA, &PATTERN);
            m.next(insn);
            if m.get(A0) != want {
                failures.push(format!(
                    "{} a0, {imm}(a1 = {base:#x}): expected {want:#x}, got {:#x}",
                    insn.op.name(),
                    m.get(A0)
                ));
            }
            assert_eq!(m.get(A1), base);
        }
    }
    report(failures);

    // A load into its own base register.
    let mut m = Machine::with(&[(A1, DATA)]);
    m.poke(DATA, &PATTERN);
    m.next(asm::ld(A1, 8, A1));
    assert_eq!(m.get(A1), 0x0877_6655_4433_2211);
    // The first and last bytes of the RAM are reachable.
    let mut m = Machine::with(&[(A1, BASE), (A2, END)]);
    m.poke(BASE, &[0xfe]);
    m.poke(END - 8, &0x8000_0000_0000_0001u64.to_le_bytes());
    m.next(asm::lb(A0, 0, A1));
    assert_eq!(m.get(A0), NEG1 - 1);
    m.next(asm::ld(A0, -8, A2));
    assert_eq!(m.get(A0), 0x8000_0000_0000_0001);
}

#[test]
fn stores_write_only_their_width_little_endian() {
    let value = 0x0102_0304_0506_0708u64;
    // (store, offset from DATA, expected 16 bytes at DATA)
    let fill = 0xee;
    let with = |at: usize, bytes: &[u8]| {
        let mut v = [fill; 16];
        v[at..at + bytes.len()].copy_from_slice(bytes);
        v
    };
    let cases: &[(Store, usize, [u8; 16])] = &[
        (asm::sb, 0, with(0, &[0x08])),
        (asm::sb, 5, with(5, &[0x08])),
        (asm::sh, 0, with(0, &[0x08, 0x07])),
        (asm::sh, 6, with(6, &[0x08, 0x07])),
        (asm::sw, 0, with(0, &[0x08, 0x07, 0x06, 0x05])),
        (asm::sw, 12, with(12, &[0x08, 0x07, 0x06, 0x05])),
        (asm::sd, 0, with(0, &[0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])),
        (asm::sd, 8, with(8, &[0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])),
    ];
    let mut failures = Vec::new();
    for &(store, at, want) in cases {
        for (base, imm) in [(DATA + at as u64, 0), (DATA + at as u64 + 0x100, -0x100), (DATA + at as u64 - 2040, 2040)] {
            let insn = store(A2, imm, A1);
            let mut m = Machine::with(&[(A1, base), (A2, value)]);
            m.poke(DATA, &[fill; 16]);
            let regs = m.hart.x;
            m.next(insn);
            let got = m.peek(DATA, 16);
            if got != want {
                failures.push(format!("{} a2, {imm}(a1 = {base:#x}): expected {want:02x?}, got {got:02x?}", insn.op.name()));
            }
            assert_eq!(m.hart.x, regs, "stores write no register");
        }
    }
    report(failures);

    // Store then load back every width; the high bits of rs2 are ignored by narrow stores.
    let mut m = Machine::with(&[(A1, DATA), (A2, 0xffff_ffff_ffff_ff80)]);
    m.next(asm::sd(ZERO, 0, A1));
    m.next(asm::sb(A2, 0, A1));
    m.next(asm::ld(A0, 0, A1));
    assert_eq!(m.get(A0), 0x80);
    m.next(asm::sh(A2, 2, A1));
    m.next(asm::sw(A2, 4, A1));
    m.next(asm::ld(A0, 0, A1));
    assert_eq!(m.get(A0), 0xffff_ff80_ff80_0080);
    // Storing x0 writes zeros.
    m.next(asm::sd(ZERO, 0, A1));
    assert_eq!(m.peek(DATA, 8), vec![0; 8]);
    // The last doubleword of the RAM is writable.
    let mut m = Machine::with(&[(A1, END - 8), (A2, value)]);
    m.next(asm::sd(A2, 0, A1));
    assert_eq!(m.peek(END - 8, 8), value.to_le_bytes().to_vec());
}

#[test]
fn misaligned_accesses_fault_without_side_effects() {
    use AccessKind::{Load as L, Store as S};
    let loads: &[(Load, u64, u32)] = &[
        (asm::lh, DATA + 1, 2),
        (asm::lh, DATA + 7, 2),
        (asm::lhu, DATA + 3, 2),
        (asm::lw, DATA + 1, 4),
        (asm::lw, DATA + 2, 4),
        (asm::lw, DATA + 6, 4),
        (asm::lwu, DATA + 2, 4),
        (asm::lwu, DATA + 3, 4),
        (asm::ld, DATA + 1, 8),
        (asm::ld, DATA + 4, 8),
        (asm::ld, DATA + 7, 8),
    ];
    for &(load, addr, size) in loads {
        let insn = load(A0, 0, A1);
        let mut m = Machine::with(&[(A0, 0x5a5a_5a5a), (A1, addr)]);
        m.poke(DATA, &PATTERN);
        assert_eq!(
            m.fault(insn),
            Fault::Memory(MemFault::Misaligned { addr, size, kind: L }),
            "{} at {addr:#x}",
            insn.op.name()
        );
        // The same address formed with an immediate.
        let mut m = Machine::with(&[(A1, addr - 3)]);
        assert!(matches!(m.fault(load(A1, 3, A1)), Fault::Memory(MemFault::Misaligned { .. })));
    }
    let stores: &[(Store, u64, u32)] = &[
        (asm::sh, DATA + 1, 2),
        (asm::sw, DATA + 2, 4),
        (asm::sw, DATA + 3, 4),
        (asm::sd, DATA + 4, 8),
        (asm::sd, DATA + 1, 8),
    ];
    for &(store, addr, size) in stores {
        let insn = store(A2, 0, A1);
        let mut m = Machine::with(&[(A1, addr), (A2, NEG1)]);
        m.poke(DATA, &PATTERN);
        assert_eq!(
            m.fault(insn),
            Fault::Memory(MemFault::Misaligned { addr, size, kind: S }),
            "{} at {addr:#x}",
            insn.op.name()
        );
    }
    // Bytes are never misaligned.
    let mut m = Machine::with(&[(A1, DATA + 3), (A2, 0x7f)]);
    m.next(asm::sb(A2, 0, A1));
    m.next(asm::lb(A0, 0, A1));
    assert_eq!(m.get(A0), 0x7f);
    m.next(asm::lbu(A0, 0, A1));
    assert_eq!(m.get(A0), 0x7f);
}

#[test]
fn out_of_range_accesses_fault_without_side_effects() {
    use AccessKind::{Load as L, Store as S};
    let all_loads: [(Load, u32); 7] =
        [(asm::lb, 1), (asm::lbu, 1), (asm::lh, 2), (asm::lhu, 2), (asm::lw, 4), (asm::lwu, 4), (asm::ld, 8)];
    let all_stores: [(Store, u32); 4] = [(asm::sb, 1), (asm::sh, 2), (asm::sw, 4), (asm::sd, 8)];
    // Aligned addresses just outside the RAM, far away, and (through a wrapping address computation) at the top
    // of the address space.
    for size in [1u32, 2, 4, 8] {
        let addrs = [BASE - u64::from(size), END, END + 0x1000, 0, u64::MAX - u64::from(size) + 1];
        for addr in addrs {
            for &(load, s) in all_loads.iter().filter(|(_, s)| *s == size) {
                let insn = load(A0, 0, A1);
                let mut m = Machine::with(&[(A0, 0x5a5a), (A1, addr)]);
                assert_eq!(
                    m.fault(insn),
                    Fault::Memory(MemFault::OutOfRange { addr, size: s, kind: L }),
                    "{} at {addr:#x}",
                    insn.op.name()
                );
            }
            for &(store, s) in all_stores.iter().filter(|(_, s)| *s == size) {
                let insn = store(A2, 0, A1);
                let mut m = Machine::with(&[(A1, addr), (A2, NEG1)]);
                assert_eq!(
                    m.fault(insn),
                    Fault::Memory(MemFault::OutOfRange { addr, size: s, kind: S }),
                    "{} at {addr:#x}",
                    insn.op.name()
                );
            }
        }
    }
    // x0 + negative offset wraps to the top of the address space.
    let mut m = Machine::new();
    assert_eq!(
        m.fault(asm::ld(A0, -8, ZERO)),
        Fault::Memory(MemFault::OutOfRange { addr: u64::MAX - 7, size: 8, kind: L })
    );
    // An offset that crosses the end of the RAM from inside it.
    let mut m = Machine::with(&[(A1, END - 8)]);
    assert_eq!(m.fault(asm::sd(A1, 8, A1)), Fault::Memory(MemFault::OutOfRange { addr: END, size: 8, kind: S }));
}

// ------------------------------------------------------------------------------------------------------------
// Integer computation
// ------------------------------------------------------------------------------------------------------------

#[test]
fn register_immediate_arithmetic_and_logic() {
    check_i(asm::addi, &[
        (5, 3, 8),
        (5, -6, NEG1),
        (0, -2048, 0xffff_ffff_ffff_f800),
        (0, 2047, 0x7ff),
        (NEG1, 1, 0),
        (I64_MAX, 1, I64_MIN),
        (I64_MIN, -1, I64_MAX),
        (0x1_0000_0000, -1, 0xffff_ffff),
    ]);
    check_i(asm::slti, &[
        (5, 6, 1),
        (6, 6, 0),
        ((-5i64) as u64, -4, 1),
        ((-3i64) as u64, -4, 0),
        (0, -1, 0),
        (NEG1, 0, 1),
        (I64_MIN, -2048, 1),
        (I64_MAX, 2047, 0),
        // A large unsigned value is negative.
        (0x8000_0000_0000_0005, 0, 1),
    ]);
    check_i(asm::sltiu, &[
        (5, 6, 1),
        (6, 6, 0),
        // The immediate is sign-extended, then compared unsigned: -1 is 2^64 - 1.
        (5, -1, 1),
        (NEG1, -1, 0),
        (NEG1 - 1, -1, 1),
        (NEG1, 0, 0),
        (I64_MIN, -2048, 1),
        // seqz
        (0, 1, 1),
        (7, 1, 0),
    ]);
    check_i(asm::xori, &[
        (0x0f0f, 0x0ff, 0x0ff0),
        // xori -1 is not.
        (0x1234_5678_9abc_def0, -1, 0xedcb_a987_6543_210f),
        (0, -2048, 0xffff_ffff_ffff_f800),
    ]);
    check_i(asm::ori, &[
        (0x0f00, 0x0f0, 0x0ff0),
        (0x1234_0000_0000_0000, -16, 0xffff_ffff_ffff_fff0),
        (0x1234_0000_0000_0000, 0x7ff, 0x1234_0000_0000_07ff),
    ]);
    check_i(asm::andi, &[
        (0x1234_5678_9abc_def0, 0x0ff, 0xf0),
        // A negative immediate keeps the high bits.
        (0x1234_5678_9abc_def0, -16, 0x1234_5678_9abc_def0),
        (0x1234_5678_9abc_deff, -256, 0x1234_5678_9abc_de00),
        (NEG1, 0, 0),
    ]);
}

#[test]
fn register_register_arithmetic_and_logic() {
    check_r(asm::add, &[
        (5, 3, 8),
        (NEG1, 1, 0),
        (I64_MAX, 1, I64_MIN),
        (I64_MIN, I64_MIN, 0),
        (0xffff_ffff, 1, 0x1_0000_0000),
    ]);
    check_r(asm::sub, &[
        (5, 3, 2),
        (3, 5, (-2i64) as u64),
        (0, 1, NEG1),
        (I64_MIN, 1, I64_MAX),
        (0, I64_MIN, I64_MIN),
    ]);
    check_r(asm::slt, &[
        (1, 2, 1),
        (2, 1, 0),
        (2, 2, 0),
        (NEG1, 0, 1),
        (0, NEG1, 0),
        ((-5i64) as u64, (-4i64) as u64, 1),
        (I64_MIN, I64_MAX, 1),
        (I64_MAX, I64_MIN, 0),
    ]);
    check_r(asm::sltu, &[
        (1, 2, 1),
        (2, 1, 0),
        (2, 2, 0),
        (NEG1, 0, 0),
        (0, NEG1, 1),
        (I64_MAX, I64_MIN, 1),
        (I64_MIN, I64_MAX, 0),
    ]);
    check_r(asm::xor, &[(0xff00, 0x0ff0, 0xf0f0), (NEG1, 0x1234_5678_9abc_def0, 0xedcb_a987_6543_210f)]);
    check_r(asm::or, &[(0xff00, 0x0ff0, 0xfff0), (I64_MIN, 1, I64_MIN | 1)]);
    check_r(asm::and, &[(0xff00, 0x0ff0, 0x0f00), (NEG1, 0x1234_5678_9abc_def0, 0x1234_5678_9abc_def0)]);

    // Sources may alias each other and the destination.
    let mut m = Machine::with(&[(A0, 21)]);
    m.next(asm::add(A0, A0, A0));
    assert_eq!(m.get(A0), 42);
    m.next(asm::sub(A0, A0, A0));
    assert_eq!(m.get(A0), 0);
    // snez: sltu rd, x0, rs
    let mut m = Machine::with(&[(A1, 1 << 40)]);
    m.next(asm::sltu(A0, ZERO, A1));
    assert_eq!(m.get(A0), 1);
}

#[test]
fn shifts_64() {
    let v = 0x8000_0000_0000_0001u64;
    let w = 0x1234_5678_9abc_def0u64;
    // Register shifts by 0, 31, 32 and 63; only the low 6 bits of rs2 count.
    check_r(asm::sll, &[
        (w, 0, w),
        (v, 0, v),
        (v, 1, 2),
        (v, 31, 0x8000_0000),
        (v, 32, 0x1_0000_0000),
        (v, 63, I64_MIN),
        (w, 4, 0x2345_6789_abcd_ef00),
        (v, 64, v),
        (v, 65, 2),
        (v, 0xffff_ffff_ffff_ffc1, 2),
    ]);
    check_r(asm::srl, &[
        (v, 0, v),
        (v, 1, 0x4000_0000_0000_0000),
        (v, 31, 0x1_0000_0000),
        (v, 32, 0x8000_0000),
        (v, 63, 1),
        (NEG1, 63, 1),
        (w, 4, 0x0123_4567_89ab_cdef),
        (v, 64, v),
        (v, 127, 1),
    ]);
    check_r(asm::sra, &[
        (v, 0, v),
        (v, 1, 0xc000_0000_0000_0000),
        (v, 31, 0xffff_ffff_0000_0000),
        (v, 32, 0xffff_ffff_8000_0000),
        (v, 63, NEG1),
        (I64_MAX, 63, 0),
        (I64_MAX, 32, 0x7fff_ffff),
        (w, 4, 0x0123_4567_89ab_cdef),
        (v, 64, v),
        (v, 0x7f, NEG1),
    ]);
    check_shift(asm::slli, &[(w, 0, w), (v, 1, 2), (v, 31, 0x8000_0000), (v, 32, 0x1_0000_0000), (v, 63, I64_MIN), (NEG1, 63, I64_MIN)]);
    check_shift(asm::srli, &[
        (v, 0, v),
        (v, 31, 0x1_0000_0000),
        (v, 32, 0x8000_0000),
        (v, 63, 1),
        (NEG1, 63, 1),
        (NEG1, 32, 0xffff_ffff),
    ]);
    check_shift(asm::srai, &[
        (v, 0, v),
        (v, 31, 0xffff_ffff_0000_0000),
        (v, 32, 0xffff_ffff_8000_0000),
        (v, 63, NEG1),
        (I64_MAX, 63, 0),
        (I64_MAX, 31, 0xffff_ffff),
    ]);
}

#[test]
fn shifts_32_sign_extend_and_use_five_bits() {
    // Bits 63..32 of rs1 are ignored; the 32-bit result is sign-extended.
    let hi = 0xdead_beef_0000_0000u64;
    check_shift(asm::slliw, &[
        (1, 0, 1),
        // shift by 0 still sign-extends.
        (hi | 0x8000_0000, 0, I32_MIN_SEXT),
        (hi | 0x1234_5678, 0, 0x1234_5678),
        (1, 31, I32_MIN_SEXT),
        (3, 31, I32_MIN_SEXT),
        (hi | 0x0001_8000, 16, 0xffff_ffff_8000_0000),
        (0x4000_0000, 1, I32_MIN_SEXT),
        (0x8000_0000, 1, 0),
    ]);
    check_shift(asm::srliw, &[
        (hi | 0x8000_0000, 0, I32_MIN_SEXT),
        (hi | 0x8000_0000, 1, 0x4000_0000),
        (hi | 0x8000_0000, 31, 1),
        (NEG1, 31, 1),
        (hi | 0xffff_fffe, 1, 0x7fff_ffff),
    ]);
    check_shift(asm::sraiw, &[
        (hi | 0x8000_0000, 0, I32_MIN_SEXT),
        (hi | 0x8000_0000, 1, 0xffff_ffff_c000_0000),
        (hi | 0x8000_0000, 31, NEG1),
        (hi | 0x7fff_ffff, 31, 0),
        (hi | 0x7fff_ffff, 30, 1),
        // Bit 63 of rs1 is not the sign of a W operation.
        (I64_MIN | 0x10, 4, 1),
    ]);
    // Register forms use only the low 5 bits of rs2: 32 shifts by 0, 33 by 1, 63 by 31.
    check_r(asm::sllw, &[
        (hi | 1, 0, 1),
        (1, 31, I32_MIN_SEXT),
        (1, 32, 1),
        (1, 33, 2),
        (1, 63, I32_MIN_SEXT),
        (hi | 0x8000_0000, 32, I32_MIN_SEXT),
        (0x1234_5678, 0xffff_ffff_ffff_ffe4, 0x2345_6780),
    ]);
    check_r(asm::srlw, &[
        (hi | 0x8000_0000, 0, I32_MIN_SEXT),
        (hi | 0x8000_0000, 31, 1),
        (hi | 0x8000_0000, 32, I32_MIN_SEXT),
        (hi | 0x8000_0000, 33, 0x4000_0000),
        (hi | 0x8000_0000, 63, 1),
        (NEG1, 1, 0x7fff_ffff),
    ]);
    check_r(asm::sraw, &[
        (hi | 0x8000_0000, 0, I32_MIN_SEXT),
        (hi | 0x8000_0000, 31, NEG1),
        (hi | 0x8000_0000, 32, I32_MIN_SEXT),
        (hi | 0x8000_0000, 33, 0xffff_ffff_c000_0000),
        (hi | 0x8000_0000, 63, NEG1),
        (hi | 0x7fff_ffff, 63, 0),
        (I64_MIN | 0x10, 4, 1),
    ]);
}

#[test]
fn word_arithmetic_sign_extends() {
    check_i(asm::addiw, &[
        (0x7fff_ffff, 1, I32_MIN_SEXT),
        (0xffff_ffff, 1, 0),
        (0, -1, NEG1),
        (0x8000_0000, -1, 0x7fff_ffff),
        // sext.w: addiw rd, rs, 0
        (0x1_0000_0000, 0, 0),
        (0x1234_5678_8000_0000, 0, I32_MIN_SEXT),
        (0xffff_ffff_7fff_ffff, 0, 0x7fff_ffff),
        (0, -2048, 0xffff_ffff_ffff_f800),
    ]);
    check_r(asm::addw, &[
        (0x7fff_ffff, 1, I32_MIN_SEXT),
        (0xffff_ffff, 1, 0),
        (0x8000_0000, 0x8000_0000, 0),
        (0x1_0000_0001, 0x2_0000_0002, 3),
        (0x4000_0000, 0x4000_0000, I32_MIN_SEXT),
    ]);
    check_r(asm::subw, &[
        (0, 0x8000_0000, I32_MIN_SEXT),
        (0x8000_0000, 1, 0x7fff_ffff),
        (0, 1, NEG1),
        (0x7fff_ffff, NEG1, I32_MIN_SEXT),
        (0x5_0000_0003, 0x1_0000_0001, 2),
    ]);
    check_r(asm::mul, &[
        (6, 7, 42),
        (NEG1, 5, (-5i64) as u64),
        (NEG1, NEG1, 1),
        (I64_MIN, 2, 0),
        (I64_MIN, NEG1, I64_MIN),
        (0x1234_5678_9abc_def0, 0x0fed_cba9_8765_4321, 0x2236_d88f_e561_8cf0),
    ]);
    check_r(asm::mulw, &[
        (6, 7, 42),
        (0x10000, 0x8000, I32_MIN_SEXT),
        (0x10000, 0x10000, 0),
        (0x1_0000_0003, 0x7_0000_0005, 15),
        (NEG1, 5, (-5i64) as u64),
        (0x7fff_ffff, 2, 0xffff_ffff_ffff_fffe),
        (0xffff_ffff, 0xffff_ffff, 1),
    ]);
}

#[test]
fn high_multiplies_by_sign() {
    let neg = |v: i64| v as u64;
    check_r(asm::mulh, &[
        (3, 5, 0),
        (neg(-3), 5, NEG1),
        (3, neg(-5), NEG1),
        (neg(-3), neg(-5), 0),
        (1 << 32, 1 << 32, 1),
        (neg(-(1 << 32)), 1 << 32, NEG1),
        (neg(-(1 << 32)), neg(-(1 << 32)), 1),
        (I64_MIN, I64_MIN, 0x4000_0000_0000_0000),
        (I64_MIN, NEG1, 0),
        (I64_MIN, I64_MAX, 0xc000_0000_0000_0000),
        (I64_MAX, I64_MAX, 0x3fff_ffff_ffff_ffff),
        (NEG1, NEG1, 0),
    ]);
    // rs1 signed, rs2 unsigned.
    check_r(asm::mulhsu, &[
        (3, 5, 0),
        (neg(-3), 5, NEG1),
        // rs2 = 2^64 - 5 is a large positive number, not -5.
        (3, neg(-5), 2),
        (1, NEG1, 0),
        (2, NEG1, 1),
        (neg(-1), NEG1, NEG1),
        (neg(-1), 1, NEG1),
        (neg(-1), 0, 0),
        (I64_MIN, NEG1, 0x8000_0000_0000_0000),
        (I64_MAX, NEG1, 0x7fff_ffff_ffff_fffe),
        (neg(-(1 << 32)), 1 << 32, NEG1),
    ]);
    check_r(asm::mulhu, &[
        (3, 5, 0),
        (NEG1, NEG1, NEG1 - 1),
        (NEG1, 2, 1),
        (I64_MIN, 2, 1),
        (I64_MIN, I64_MIN, 0x4000_0000_0000_0000),
        (1 << 32, 1 << 32, 1),
        (neg(-3), 5, 4),
    ]);
}

#[test]
fn division_by_zero_and_overflow() {
    let neg = |v: i64| v as u64;
    check_r(asm::div, &[
        (20, 6, 3),
        (neg(-20), 6, neg(-3)),
        (20, neg(-6), neg(-3)),
        (neg(-20), neg(-6), 3),
        (neg(-7), 2, neg(-3)),
        // Division by zero: all ones.
        (20, 0, NEG1),
        (0, 0, NEG1),
        (I64_MIN, 0, NEG1),
        // Overflow: the dividend.
        (I64_MIN, NEG1, I64_MIN),
        (I64_MIN, 1, I64_MIN),
    ]);
    check_r(asm::divu, &[
        (20, 6, 3),
        (neg(-20), 6, 0x2aaa_aaaa_aaaa_aaa7),
        (20, neg(-6), 0),
        (I64_MIN, NEG1, 0),
        (NEG1, 1, NEG1),
        (20, 0, NEG1),
        (0, 0, NEG1),
    ]);
    check_r(asm::rem, &[
        (20, 6, 2),
        (neg(-20), 6, neg(-2)),
        (20, neg(-6), 2),
        (neg(-20), neg(-6), neg(-2)),
        // Division by zero: the dividend.
        (20, 0, 20),
        (neg(-20), 0, neg(-20)),
        (I64_MIN, 0, I64_MIN),
        // Overflow: zero.
        (I64_MIN, NEG1, 0),
    ]);
    check_r(asm::remu, &[
        (20, 6, 2),
        (neg(-20), 6, 2),
        (20, neg(-6), 20),
        (I64_MIN, NEG1, I64_MIN),
        (20, 0, 20),
        (NEG1, 0, NEG1),
    ]);
    // W forms: only the low 32 bits of both operands count, the result is sign-extended.
    check_r(asm::divw, &[
        (20, 6, 3),
        (neg(-20), 6, neg(-3)),
        (20, 0xffff_fffa, neg(-3)),
        (0x1_0000_0014, 0x2_0000_0006, 3),
        (20, 0, NEG1),
        // A divisor whose low 32 bits are zero is zero.
        (20, 0x1_0000_0000, NEG1),
        (0x8000_0000, NEG1, I32_MIN_SEXT),
        (I32_MIN_SEXT, 0xffff_ffff, I32_MIN_SEXT),
        (0x8000_0000, 1, I32_MIN_SEXT),
    ]);
    check_r(asm::divuw, &[
        (20, 6, 3),
        (0xffff_fffe, 2, 0x7fff_ffff),
        // A quotient with bit 31 set is sign-extended.
        (0xffff_fffe, 1, 0xffff_ffff_ffff_fffe),
        (NEG1, 1, NEG1),
        (0x1_0000_000a, 0x1_0000_0003, 3),
        (20, 0, NEG1),
        (20, 0xff_0000_0000, NEG1),
        (0x8000_0000, 0xffff_ffff, 0),
    ]);
    check_r(asm::remw, &[
        (20, 6, 2),
        (neg(-20), 6, neg(-2)),
        (20, neg(-6), 2),
        // Division by zero: the dividend's low 32 bits, sign-extended.
        (20, 0, 20),
        (0x1_8000_0001, 0, 0xffff_ffff_8000_0001),
        (0x1_0000_0005, 0, 5),
        (0x1_0000_0005, 0x7_0000_0000, 5),
        // Overflow: zero.
        (0x8000_0000, NEG1, 0),
        (I32_MIN_SEXT, 0xffff_ffff, 0),
    ]);
    check_r(asm::remuw, &[
        (20, 6, 2),
        (0xffff_ffff, 0x10, 0xf),
        (0x8000_0007, 0x8000_0000, 7),
        // A remainder with bit 31 set is sign-extended.
        (0xffff_fff5, 0xffff_fff6, 0xffff_ffff_ffff_fff5),
        (20, 0, 20),
        (0x1_8000_0001, 0, 0xffff_ffff_8000_0001),
        (0x1_0000_0005, 0x3_0000_0000, 5),
    ]);
}

// ------------------------------------------------------------------------------------------------------------
// CSRs, fences and the environment
// ------------------------------------------------------------------------------------------------------------

#[test]
fn csr_read_modify_write_on_mscratch() {
    let start = 0xf0f0_0000_0000_f0f0u64;
    let operand = 0x0ff0_0000_0000_0ff0u64;
    type RegCsr = fn(u8, u16, u8) -> Insn;
    // (instruction, new mscratch)
    let reg_forms: &[(RegCsr, u64)] = &[
        (asm::csrrw, operand),
        (asm::csrrs, start | operand),
        (asm::csrrc, start & !operand),
    ];
    for &(f, want) in reg_forms {
        let insn = f(A0, MSCRATCH, A1);
        let mut m = Machine::with(&[(A0, 0x5a5a), (A1, operand)]);
        m.hart.mscratch = start;
        m.next(insn);
        assert_eq!(m.get(A0), start, "{}: old value to rd", insn.op.name());
        assert_eq!(m.hart.mscratch, want, "{}: new mscratch", insn.op.name());
        assert_eq!(m.get(A1), operand);
        // With rs1 = x0 csrrs/csrrc only read; csrrw writes zero.
        let insn = f(A0, MSCRATCH, ZERO);
        let mut m = Machine::new();
        m.hart.mscratch = start;
        m.next(insn);
        assert_eq!(m.get(A0), start, "{} rs1 = x0: old value to rd", insn.op.name());
        let want = if insn.op == Op::Csrrw { 0 } else { start };
        assert_eq!(m.hart.mscratch, want, "{} rs1 = x0", insn.op.name());
    }
    type ImmCsr = fn(u8, u16, u32) -> Insn;
    // (instruction, zimm, new mscratch): the 5-bit immediate is zero-extended.
    let imm_forms: &[(ImmCsr, u32, u64)] = &[
        (asm::csrrwi, 31, 31),
        (asm::csrrwi, 0, 0),
        (asm::csrrsi, 0x1f, start | 0x1f),
        (asm::csrrsi, 0x05, start | 0x05),
        (asm::csrrsi, 0, start),
        (asm::csrrci, 0x10, start & !0x10),
        (asm::csrrci, 0x1f, start & !0x1f),
        (asm::csrrci, 0, start),
    ];
    for &(f, zimm, want) in imm_forms {
        let insn = f(A0, MSCRATCH, zimm);
        let mut m = Machine::new();
        m.hart.mscratch = start;
        m.next(insn);
        assert_eq!(m.get(A0), start, "{} {zimm}: old value to rd", insn.op.name());
        assert_eq!(m.hart.mscratch, want, "{} {zimm}: new mscratch", insn.op.name());
    }
    // rd == rs1 swaps: the old CSR value and the old register value are both read before either is written.
    let mut m = Machine::with(&[(A0, 7)]);
    m.hart.mscratch = 9;
    m.next(asm::csrrw(A0, MSCRATCH, A0));
    assert_eq!((m.get(A0), m.hart.mscratch), (9, 7));
    m.next(asm::csrrs(A0, MSCRATCH, A0));
    assert_eq!((m.get(A0), m.hart.mscratch), (7, 7 | 9));
    // A full 64-bit value round-trips.
    let mut m = Machine::with(&[(A1, 0xdead_beef_0123_4567)]);
    m.next(asm::csrrw(A0, MSCRATCH, A1));
    m.next(asm::csrrs(A2, MSCRATCH, ZERO));
    assert_eq!(m.get(A2), 0xdead_beef_0123_4567);
}

#[test]
fn csr_counters_and_ids_are_read_only() {
    let new = || {
        let mut m = Machine::new();
        m.hart.hart_id = 7;
        m.hart.cycle = 0x1_2345_6789;
        m.hart.instret = 0x9876_5432;
        m
    };
    for (csr, want) in [(MHARTID, 7), (CYCLE, 0x1_2345_6789), (TIME, 0x1_2345_6789), (INSTRET, 0x9876_5432)] {
        // csrr rd, csr (= csrrs rd, csr, x0) and the other read-only spellings.
        let reads = [
            asm::csrrs(A0, csr, ZERO),
            asm::csrrc(A0, csr, ZERO),
            asm::csrrsi(A0, csr, 0),
            asm::csrrci(A0, csr, 0),
        ];
        for insn in reads {
            let mut m = new();
            m.next(insn);
            assert_eq!(m.get(A0), want, "{} a0, {csr:#x}", insn.op.name());
            assert_eq!((m.hart.hart_id, m.hart.cycle, m.hart.instret), (7, 0x1_2345_6789, 0x9876_5432));
        }
        // Any write faults, even of the same value or with rd = x0, and changes nothing.
        let writes = [
            asm::csrrw(A0, csr, A1),
            asm::csrrw(ZERO, csr, A1),
            asm::csrrs(A0, csr, A1),
            asm::csrrc(A0, csr, A1),
            // rs1 names a register other than x0: the write is attempted even though the register holds 0.
            asm::csrrs(A0, csr, A2),
            asm::csrrc(A0, csr, A2),
            asm::csrrwi(A0, csr, 0),
            asm::csrrsi(A0, csr, 1),
            asm::csrrci(A0, csr, 1),
        ];
        for insn in writes {
            let mut m = new();
            m.set(A0, 0x5a5a);
            m.set(A1, want);
            let fault = m.fault(insn);
            assert!(
                matches!(fault, Fault::Csr { csr: c, .. } if c == csr),
                "{} to {csr:#x}: expected Fault::Csr, got {fault:?}",
                insn.op.name()
            );
        }
    }
    // An unknown CSR faults on any access, reads included.
    for insn in [
        asm::csrrs(A0, UNKNOWN_CSR, ZERO),
        asm::csrrw(A0, UNKNOWN_CSR, A1),
        asm::csrrc(A0, UNKNOWN_CSR, A1),
        asm::csrrwi(A0, UNKNOWN_CSR, 3),
        asm::csrrsi(A0, UNKNOWN_CSR, 0),
        asm::csrrci(A0, UNKNOWN_CSR, 0),
    ] {
        let mut m = Machine::with(&[(A0, 0x5a5a), (A1, 1)]);
        let fault = m.fault(insn);
        assert!(
            matches!(fault, Fault::Csr { csr: UNKNOWN_CSR, .. }),
            "{} to {UNKNOWN_CSR:#x}: expected Fault::Csr, got {fault:?}",
            insn.op.name()
        );
    }
}

#[test]
fn fence_is_a_no_op() {
    for insn in [asm::fence(0xf, 0xf), asm::fence(0x3, 0x3), asm::fence(0, 0), asm::fence_tso()] {
        let mut m = Machine::with(&[(A0, 1), (A1, 2)]);
        m.poke(DATA, &PATTERN);
        let x = m.hart.x;
        let ram = m.ram.bytes.clone();
        m.next(insn);
        assert_eq!(m.hart.x, x, "fence writes no register");
        assert!(m.ram.bytes == ram, "fence writes no memory");
    }
}

#[test]
fn environment_instructions_leave_the_pc_on_themselves() {
    let mut m = Machine::with(&[(A0, 1), (A1, 2)]);
    assert_eq!(m.environment(asm::ecall()), EnvOp::Ecall);
    assert_eq!(m.environment(asm::ebreak()), EnvOp::Ebreak);
    assert_eq!(m.environment(asm::fence_i()), EnvOp::FenceI);
    // The PIMP instructions are handed over with their decoded operands.
    let custom = [
        asm::send(A0, A1),
        asm::recv(A0),
        asm::src(A2),
        asm::brs(16),
        asm::bns(-8),
        asm::bar(4094),
        asm::bnr(-4096),
    ];
    for insn in custom {
        let d = decode_insn(insn);
        assert_eq!(m.environment(insn), EnvOp::Custom(d), "{}", insn.op.name());
    }
    // The decoded operands are the ones encoded.
    let d = decode_insn(asm::send(A0, A1));
    assert_eq!((d.rs1, d.rs2), (A0, A1));
    assert_eq!(decode_insn(asm::recv(A0)).rd, A0);
    assert_eq!(decode_insn(asm::src(A2)).rd, A2);
    assert_eq!(decode_insn(asm::bns(-8)).imm, -8);
    assert_eq!(decode_insn(asm::bnr(-4096)).imm, -4096);
    assert_eq!(m.hart.pc, CODE);
}

// ------------------------------------------------------------------------------------------------------------
// x0
// ------------------------------------------------------------------------------------------------------------

#[test]
fn writes_to_x0_are_discarded() {
    // Every instruction that writes rd, with rd = x0 and operands that make the would-be result non-zero.
    // Regression: the CSR instructions once left the CSR's old value in x0 (`csrw`, `csrs`, ... have rd = x0).
    let insns = [
        asm::lui(ZERO, 0x12345),
        asm::auipc(ZERO, 1),
        asm::jal(ZERO, 8),
        asm::jalr(ZERO, 0, T0),
        asm::lb(ZERO, 0, A1),
        asm::lh(ZERO, 0, A1),
        asm::lw(ZERO, 0, A1),
        asm::ld(ZERO, 0, A1),
        asm::lbu(ZERO, 0, A1),
        asm::lhu(ZERO, 0, A1),
        asm::lwu(ZERO, 0, A1),
        asm::addi(ZERO, A1, 1),
        asm::slti(ZERO, A2, 4),
        asm::sltiu(ZERO, A2, 4),
        asm::xori(ZERO, A1, -1),
        asm::ori(ZERO, A1, 1),
        asm::andi(ZERO, A1, -1),
        asm::slli(ZERO, A1, 1),
        asm::srli(ZERO, A1, 1),
        asm::srai(ZERO, A1, 1),
        asm::add(ZERO, A1, A2),
        asm::sub(ZERO, A1, A2),
        asm::sll(ZERO, A1, A2),
        asm::slt(ZERO, A2, A1),
        asm::sltu(ZERO, A2, A1),
        asm::xor(ZERO, A1, A2),
        asm::srl(ZERO, A1, A2),
        asm::sra(ZERO, A1, A2),
        asm::or(ZERO, A1, A2),
        asm::and(ZERO, A1, A1),
        asm::addiw(ZERO, A1, 1),
        asm::slliw(ZERO, A1, 1),
        asm::srliw(ZERO, A1, 1),
        asm::sraiw(ZERO, A1, 1),
        asm::addw(ZERO, A1, A2),
        asm::subw(ZERO, A1, A2),
        asm::sllw(ZERO, A1, A2),
        asm::srlw(ZERO, A1, A2),
        asm::sraw(ZERO, A1, A2),
        asm::mul(ZERO, A1, A2),
        asm::mulh(ZERO, A3, A3),
        asm::mulhsu(ZERO, A3, A3),
        asm::mulhu(ZERO, A3, A3),
        asm::div(ZERO, A1, A2),
        asm::divu(ZERO, A1, A2),
        asm::rem(ZERO, A1, ZERO),
        asm::remu(ZERO, A1, ZERO),
        asm::mulw(ZERO, A1, A2),
        asm::divw(ZERO, A1, A2),
        asm::divuw(ZERO, A1, A2),
        asm::remw(ZERO, A1, ZERO),
        asm::remuw(ZERO, A1, ZERO),
        // `csrw mscratch, a1`, `csrs`, `csrc`, `csrwi`, ... are csrrX with rd = x0: the old value is discarded.
        asm::csrrw(ZERO, MSCRATCH, A1),
        asm::csrrs(ZERO, MSCRATCH, A1),
        asm::csrrc(ZERO, MSCRATCH, A1),
        asm::csrrwi(ZERO, MSCRATCH, 1),
        asm::csrrsi(ZERO, MSCRATCH, 1),
        asm::csrrci(ZERO, MSCRATCH, 1),
        asm::csrrs(ZERO, CYCLE, ZERO),
        asm::csrrs(ZERO, MHARTID, ZERO),
    ];
    let mut failures = Vec::new();
    for insn in insns {
        let mut m = Machine::with(&[(A1, DATA), (A2, 3), (A3, 0x8000_0000_0000_0003), (T0, CODE + 16)]);
        m.poke(DATA, &PATTERN);
        m.hart.mscratch = 0x1234_5678;
        m.hart.cycle = 1000;
        m.hart.hart_id = 3;
        let flow = m.step(insn);
        assert!(matches!(flow, Ok(Flow::Next | Flow::Redirect)), "{}: {flow:?}", insn.op.name());
        let x0 = m.get(ZERO);
        // The observable consequence: a following `addi t0, x0, 0` (`li t0, 0`) must give 0.
        m.next(asm::addi(T0, ZERO, 0));
        if x0 != 0 || m.get(T0) != 0 {
            failures.push(format!(
                "{} with rd = x0 ({:#010x}) left x0 = {x0:#x}; a following `li t0, 0` gave t0 = {:#x}",
                insn.op.name(),
                insn.word,
                m.get(T0)
            ));
        }
    }
    report(failures);
}

// ------------------------------------------------------------------------------------------------------------
// Coverage
// ------------------------------------------------------------------------------------------------------------

/// Every test group above (the base groups, on an RV64IM hart).
const GROUPS: &[Group] = &[
    ("lui_and_auipc_sign_extend", lui_and_auipc_sign_extend),
    ("jal_links_and_jumps", jal_links_and_jumps),
    ("jalr_links_and_clears_bit_zero", jalr_links_and_clears_bit_zero),
    ("branches_taken_and_not_taken", branches_taken_and_not_taken),
    ("misaligned_jump_and_branch_targets_fault", misaligned_jump_and_branch_targets_fault),
    ("loads_sign_and_zero_extend_little_endian", loads_sign_and_zero_extend_little_endian),
    ("stores_write_only_their_width_little_endian", stores_write_only_their_width_little_endian),
    ("misaligned_accesses_fault_without_side_effects", misaligned_accesses_fault_without_side_effects),
    ("out_of_range_accesses_fault_without_side_effects", out_of_range_accesses_fault_without_side_effects),
    ("register_immediate_arithmetic_and_logic", register_immediate_arithmetic_and_logic),
    ("register_register_arithmetic_and_logic", register_register_arithmetic_and_logic),
    ("shifts_64", shifts_64),
    ("shifts_32_sign_extend_and_use_five_bits", shifts_32_sign_extend_and_use_five_bits),
    ("word_arithmetic_sign_extends", word_arithmetic_sign_extends),
    ("high_multiplies_by_sign", high_multiplies_by_sign),
    ("division_by_zero_and_overflow", division_by_zero_and_overflow),
    ("csr_read_modify_write_on_mscratch", csr_read_modify_write_on_mscratch),
    ("csr_counters_and_ids_are_read_only", csr_counters_and_ids_are_read_only),
    ("fence_is_a_no_op", fence_is_a_no_op),
    ("environment_instructions_leave_the_pc_on_themselves", environment_instructions_leave_the_pc_on_themselves),
    ("writes_to_x0_are_discarded", writes_to_x0_are_discarded),
];

/// The groups of this file and of every module. The coverage test runs them all on its own thread and collects
/// the ops they execute, so an op that no group of any module executes fails it.
const ALL_GROUPS: &[&[Group]] =
    &[GROUPS, atomics::GROUPS, float::GROUPS, compressed::GROUPS, gating::GROUPS, privileged::GROUPS];

#[test]
fn every_instruction_of_the_table_is_executed() {
    EXECUTED.with(|e| e.borrow_mut().clear());
    // A group that fails is reported by its own test; here only the ops it reached before failing count, so a
    // failing group can at worst make this test report missing ops, never hide them.
    let names: HashSet<&str> = ALL_GROUPS.iter().flat_map(|groups| groups.iter()).map(|&(name, _)| name).collect();
    assert_eq!(names.len(), ALL_GROUPS.iter().map(|groups| groups.len()).sum::<usize>(), "group names are unique");
    let mut failed = Vec::new();
    for &(name, group) in ALL_GROUPS.iter().flat_map(|groups| groups.iter()) {
        if std::panic::catch_unwind(group).is_err() {
            failed.push(name);
        }
    }
    let executed = EXECUTED.with(|e| e.borrow().clone());
    let all: HashSet<Op> = INSTRUCTIONS.iter().map(|s| s.op).collect();
    assert_eq!(all.len(), INSTRUCTIONS.len(), "the table lists each op once");
    let mut missing: Vec<&str> = INSTRUCTIONS.iter().filter(|s| !executed.contains(&s.op)).map(|s| s.name).collect();
    missing.sort_unstable();
    assert!(missing.is_empty(), "instructions never executed: {missing:?} (groups that failed: {failed:?})");
    assert_eq!(executed, all);
}

// ------------------------------------------------------------------------------------------------------------
// Properties
// ------------------------------------------------------------------------------------------------------------

proptest! {
    #[test]
    fn add_and_sub_wrap_around(a in any::<u64>(), b in any::<u64>()) {
        let sext = |v: u32| v as i32 as i64 as u64;
        prop_assert_eq!(run_r(asm::add, a, b), a.wrapping_add(b));
        prop_assert_eq!(run_r(asm::sub, a, b), a.wrapping_sub(b));
        prop_assert_eq!(run_r(asm::addw, a, b), sext((a as u32).wrapping_add(b as u32)));
        prop_assert_eq!(run_r(asm::subw, a, b), sext((a as u32).wrapping_sub(b as u32)));
        // sub undoes add.
        prop_assert_eq!(run_r(asm::sub, run_r(asm::add, a, b), b), a);
    }

    #[test]
    fn branches_agree_with_set_less_than(a in prop_oneof![any::<u64>(), (-4i64..4).prop_map(|v| v as u64)], b in any::<u64>()) {
        let taken = |branch: Branch, x: u64, y: u64| {
            let mut m = Machine::with(&[(A1, x), (A2, y)]);
            m.step(branch(A1, A2, 64)) == Ok(Flow::Redirect)
        };
        for (x, y) in [(a, b), (b, a), (a, a)] {
            let slt = run_r(asm::slt, x, y) == 1;
            let sltu = run_r(asm::sltu, x, y) == 1;
            prop_assert_eq!(slt, (x as i64) < (y as i64));
            prop_assert_eq!(sltu, x < y);
            prop_assert_eq!(taken(asm::blt, x, y), slt);
            prop_assert_eq!(taken(asm::bge, x, y), !slt);
            prop_assert_eq!(taken(asm::bltu, x, y), sltu);
            prop_assert_eq!(taken(asm::bgeu, x, y), !sltu);
            prop_assert_eq!(taken(asm::beq, x, y), x == y);
            prop_assert_eq!(taken(asm::bne, x, y), x != y);
        }
    }
}
