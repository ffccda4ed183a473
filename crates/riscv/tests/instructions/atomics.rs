//! The A extension on an RV64GC hart: LR/SC and the reservation, every AMO in both widths, ordering bits, and
//! misaligned atomics.
//!
//! The reservation rules this core implements (the specification leaves some of them to the implementation):
//! an SC succeeds only at the exact address of the last LR, any SC clears the reservation, and so does any store
//! of the hart (integer, floating-point, AMO) to the 8-byte granule holding the reserved address.

use crate::common::asm::{self, Insn};
use crate::common::*;
use riscv::memory::{MemFault, Memory, Ram};
use riscv::{execute, Fault, Flow};

pub const GROUPS: &[Group] = &[
    ("lr_and_sc_pair_on_the_reserved_address", lr_and_sc_pair_on_the_reserved_address),
    ("sc_fails_without_a_reservation_and_clears_it", sc_fails_without_a_reservation_and_clears_it),
    ("stores_to_the_reserved_granule_break_the_reservation", stores_to_the_reserved_granule_break_the_reservation),
    ("word_amos_return_the_sign_extended_old_value", word_amos_return_the_sign_extended_old_value),
    ("doubleword_amos_return_the_old_value", doubleword_amos_return_the_old_value),
    ("amo_operands_may_alias", amo_operands_may_alias),
    ("ordering_bits_decode_to_the_same_instruction", ordering_bits_decode_to_the_same_instruction),
    ("misaligned_atomics_fault_without_side_effects", misaligned_atomics_fault_without_side_effects),
    ("atomics_with_rd_x0_still_access_memory", atomics_with_rd_x0_still_access_memory),
    (
        "split_misaligned_store_into_the_reserved_granule_breaks_the_reservation",
        split_misaligned_store_into_the_reserved_granule_breaks_the_reservation,
    ),
];

type Amo = fn(u8, u8, u8) -> Insn;

/// Every AMO, word then doubleword, with its width in bytes.
const AMOS: [(Amo, u32); 18] = [
    (asm::amoswap_w, 4),
    (asm::amoadd_w, 4),
    (asm::amoxor_w, 4),
    (asm::amoand_w, 4),
    (asm::amoor_w, 4),
    (asm::amomin_w, 4),
    (asm::amomax_w, 4),
    (asm::amominu_w, 4),
    (asm::amomaxu_w, 4),
    (asm::amoswap_d, 8),
    (asm::amoadd_d, 8),
    (asm::amoxor_d, 8),
    (asm::amoand_d, 8),
    (asm::amoor_d, 8),
    (asm::amomin_d, 8),
    (asm::amomax_d, 8),
    (asm::amominu_d, 8),
    (asm::amomaxu_d, 8),
];

/// An RV64GC machine with 16 bytes of a recognisable pattern at `DATA`.
fn machine(regs: &[(u8, u64)]) -> Machine {
    let mut m = Machine::gc().and(regs);
    m.poke(DATA, &[0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x08]);
    m
}

#[test]
fn lr_and_sc_pair_on_the_reserved_address() {
    // lr.w sign-extends the loaded word; sc.w stores the low word of rs2 and writes 0 to rd.
    let mut m = machine(&[(A1, DATA), (A2, 0x1111_2222_3333_4444), (A3, 0x5a5a)]);
    m.next(asm::lr_w(A0, A1));
    assert_eq!(m.get(A0), 0xffff_ffff_8483_8281, "lr.w sign-extends");
    m.next(asm::sc_w(A3, A2, A1));
    assert_eq!(m.get(A3), 0, "sc.w after lr.w to the same address succeeds");
    assert_eq!(m.peek(DATA, 8), [0x44, 0x44, 0x33, 0x33, 0x85, 0x86, 0x87, 0x88], "sc.w writes 4 bytes");
    // The reservation is used up: the same sc.w again fails, writes 1 and leaves memory alone.
    m.set(A2, 0x9999_9999);
    m.next(asm::sc_w(A3, A2, A1));
    assert_eq!(m.get(A3), 1, "a second sc.w fails");
    assert_eq!(m.peek(DATA, 8), [0x44, 0x44, 0x33, 0x33, 0x85, 0x86, 0x87, 0x88]);

    // lr.w of a word without bit 31 set.
    let mut m = machine(&[(A1, DATA + 8)]);
    m.next(asm::lr_w(A0, A1));
    assert_eq!(m.get(A0), 0x4433_2211);

    // The doubleword pair.
    let mut m = machine(&[(A1, DATA + 8), (A2, 0x0123_4567_89ab_cdef), (A3, 0x5a5a)]);
    m.next(asm::lr_d(A0, A1));
    assert_eq!(m.get(A0), 0x0877_6655_4433_2211);
    m.next(asm::sc_d(A3, A2, A1));
    assert_eq!(m.get(A3), 0, "sc.d succeeds");
    assert_eq!(m.peek_u64(DATA + 8), 0x0123_4567_89ab_cdef);
    assert_eq!(m.peek_u64(DATA), 0x8887_8685_8483_8281, "the doubleword before is untouched");
    m.next(asm::sc_d(A3, A2, A1));
    assert_eq!(m.get(A3), 1, "a second sc.d fails");

    // A newer lr replaces the reservation: sc to the older address fails, to the newer one succeeds.
    let mut m = machine(&[(A1, DATA), (A2, DATA + 8), (A4, 7)]);
    m.next(asm::lr_d(A0, A1));
    m.next(asm::lr_d(A0, A2));
    m.next(asm::sc_d(A3, A4, A1));
    assert_eq!(m.get(A3), 1, "the older reservation is gone");
    let mut m = machine(&[(A1, DATA), (A2, DATA + 8), (A4, 7)]);
    m.next(asm::lr_d(A0, A1));
    m.next(asm::lr_d(A0, A2));
    m.next(asm::sc_d(A3, A4, A2));
    assert_eq!((m.get(A3), m.peek_u64(DATA + 8)), (0, 7), "the newer reservation holds");

    // Loads do not disturb the reservation.
    let mut m = machine(&[(A1, DATA), (A4, 7)]);
    m.next(asm::lr_d(A0, A1));
    m.next(asm::ld(A2, 0, A1));
    m.next(asm::lw(A2, 4, A1));
    m.next(asm::fld(FA0, 0, A1));
    m.next(asm::sc_d(A3, A4, A1));
    assert_eq!(m.get(A3), 0, "loads of the reserved bytes keep the reservation");
}

#[test]
fn sc_fails_without_a_reservation_and_clears_it() {
    // No lr at all: sc fails, writes 1 (over whatever rd held) and stores nothing.
    for sc in [asm::sc_w as Amo, asm::sc_d] {
        let mut m = machine(&[(A1, DATA), (A2, 0), (A3, 0x5a5a)]);
        let before = m.peek(DATA, 16);
        m.next(sc(A3, A2, A1));
        let name = sc(0, 0, 0).op.name();
        assert_eq!(m.get(A3), 1, "{name} without lr");
        assert_eq!(m.peek(DATA, 16), before, "{name} without lr stores nothing");
    }
    // sc to another address than the lr's fails, stores nothing, and clears the reservation: a following sc to
    // the reserved address fails too. Another granule, and (this core requires the exact address) another word
    // of the same granule.
    for (lr, sc, other) in [
        (asm::lr_d as fn(u8, u8) -> Insn, asm::sc_d as Amo, DATA + 8),
        (asm::lr_w, asm::sc_w, DATA + 8),
        (asm::lr_w, asm::sc_w, DATA + 4),
        (asm::lr_w, asm::sc_w, DATA - 4),
    ] {
        let mut m = machine(&[(A1, DATA), (A2, other), (A4, 0)]);
        let name = sc(0, 0, 0).op.name();
        m.next(lr(A0, A1));
        let before = m.peek(DATA - 8, 24);
        m.next(sc(A3, A4, A2));
        assert_eq!(m.get(A3), 1, "{name} to {other:#x} after lr to {DATA:#x}");
        assert_eq!(m.peek(DATA - 8, 24), before, "{name} that fails stores nothing");
        m.next(sc(A3, A4, A1));
        assert_eq!(m.get(A3), 1, "{name} to {other:#x} cleared the reservation");
        assert_eq!(m.peek(DATA - 8, 24), before);
    }
}

type Store = fn(u8, i32, u8) -> Insn;

#[test]
fn stores_to_the_reserved_granule_break_the_reservation() {
    // The reservation of `lr.w` at DATA + 12 covers the granule DATA + 8 .. DATA + 16.
    let reserved = DATA + 12;
    // (store, address, whether it is in the granule)
    let stores: &[(Store, u64, bool)] = &[
        (asm::sb, DATA + 8, true),
        (asm::sb, DATA + 15, true),
        (asm::sb, DATA + 7, false),
        (asm::sb, DATA + 16, false),
        (asm::sh, DATA + 10, true),
        (asm::sh, DATA + 14, true),
        (asm::sh, DATA + 6, false),
        (asm::sh, DATA + 16, false),
        (asm::sw, DATA + 8, true),
        (asm::sw, DATA + 12, true),
        (asm::sw, DATA + 4, false),
        (asm::sw, DATA + 16, false),
        (asm::sd, DATA + 8, true),
        (asm::sd, DATA, false),
        (asm::sd, DATA + 16, false),
        (asm::fsw, DATA + 12, true),
        (asm::fsw, DATA + 8, true),
        (asm::fsw, DATA + 4, false),
        (asm::fsd, DATA + 8, true),
        (asm::fsd, DATA + 16, false),
    ];
    let mut failures = Vec::new();
    for &(store, addr, in_granule) in stores {
        let insn = store(A2, 0, A1);
        // rs2 is a2 for the integer stores and fa2 (f12) for the FP ones; both hold the same bits.
        let mut m = machine(&[(A1, addr), (A2, 0x5555_5555_5555_5555), (A4, 0x77), (A5, reserved)]);
        m.set_f(FA2, 0x5555_5555_5555_5555);
        m.next(asm::lr_w(A0, A5));
        m.next(insn);
        m.next(asm::sc_w(A3, A4, A5));
        let (want, got) = (u64::from(in_granule), m.get(A3));
        if got != want {
            failures.push(format!(
                "{} to {addr:#x} between lr.w and sc.w at {reserved:#x}: sc.w wrote {got}, expected {want}",
                insn.op.name()
            ));
        }
        let word = u32::from_le_bytes(m.peek(reserved, 4).try_into().unwrap());
        assert_eq!(word == 0x77, !in_granule, "{}: sc.w stores only if it succeeds", insn.op.name());
    }
    // AMOs store too.
    for &(amo, size) in &AMOS {
        for (addr, in_granule) in [(DATA + 8, true), (DATA + 16, false), (DATA, false)] {
            let insn = amo(A2, A2, A1);
            let mut m = machine(&[(A1, addr), (A2, 1), (A4, 0x77), (A5, reserved)]);
            m.next(asm::lr_w(A0, A5));
            m.next(insn);
            m.next(asm::sc_w(A3, A4, A5));
            let (want, got) = (u64::from(in_granule), m.get(A3));
            if got != want {
                failures.push(format!(
                    "{} ({size} bytes) at {addr:#x} between lr.w and sc.w at {reserved:#x}: sc.w wrote {got}, expected {want}",
                    insn.op.name()
                ));
            }
        }
    }
    // A store of the bytes already there still counts as a store.
    let mut m = machine(&[(A1, DATA + 8), (A4, 0x77), (A5, reserved)]);
    m.next(asm::lr_w(A0, A5));
    m.next(asm::lbu(A2, 0, A1));
    m.next(asm::sb(A2, 0, A1));
    m.next(asm::sc_w(A3, A4, A5));
    if m.get(A3) != 1 {
        failures.push("sb of the unchanged byte into the granule kept the reservation".to_string());
    }
    report(failures);
}

/// Runs `amo a0, a2, (a1)` with `old` in memory at `DATA` (the rest of 16 bytes filled with 0xee) and `rs2` in a2;
/// returns a0 and the 16 bytes at `DATA`.
fn run_amo(amo: Amo, old: u64, rs2: u64) -> (u64, Vec<u8>) {
    let mut m = Machine::gc().and(&[(A0, 0x5a5a), (A1, DATA), (A2, rs2)]);
    m.poke(DATA, &[0xee; 16]);
    let size = if amo(0, 0, 0).word & 0x7000 == 0x2000 { 4 } else { 8 };
    m.poke(DATA, &old.to_le_bytes()[..size]);
    m.next(amo(A0, A2, A1));
    assert_eq!((m.get(A1), m.get(A2)), (DATA, rs2), "the address and source registers are unchanged");
    (m.get(A0), m.peek(DATA, 16))
}

/// Checks `(memory before, rs2, expected rd, expected memory after)` cases of an AMO.
fn check_amo(amo: Amo, cases: &[(u64, u64, u64, u64)]) {
    let name = amo(0, 0, 0).op.name();
    let size = if name.ends_with(".w") { 4 } else { 8 };
    let mut failures = Vec::new();
    for &(old, rs2, want_rd, want_mem) in cases {
        let (rd, mem) = run_amo(amo, old, rs2);
        let mut want = [0xee; 16];
        want[..size].copy_from_slice(&want_mem.to_le_bytes()[..size]);
        if rd != want_rd || mem != want {
            failures.push(format!(
                "{name} with {old:#x} in memory, rs2 = {rs2:#x}: expected rd = {want_rd:#x}, memory {want:02x?}; \
                 got rd = {rd:#x}, memory {mem:02x?}"
            ));
        }
    }
    report(failures);
}

#[test]
fn word_amos_return_the_sign_extended_old_value() {
    // rd gets the old word sign-extended; only the low 32 bits of rs2 take part; 4 bytes are written.
    check_amo(asm::amoswap_w, &[
        (0x8000_0001, 0x1234_5678_9abc_def0, 0xffff_ffff_8000_0001, 0x9abc_def0),
        (0x7fff_ffff, 0, 0x7fff_ffff, 0),
    ]);
    check_amo(asm::amoadd_w, &[
        (5, 7, 5, 12),
        // Wraps in 32 bits.
        (0x7fff_ffff, 1, 0x7fff_ffff, 0x8000_0000),
        (0xffff_ffff, 0x1_0000_0001, NEG1, 0),
        (0x8000_0000, 0xffff_ffff_8000_0000, I32_MIN_SEXT, 0),
    ]);
    check_amo(asm::amoxor_w, &[(0xf0f0_f0f0, 0xffff_ffff_ff00_ff00, 0xffff_ffff_f0f0_f0f0, 0x0ff0_0ff0)]);
    check_amo(asm::amoand_w, &[(0xf0f0_f0f0, 0x0000_0000_ff00_ff00, 0xffff_ffff_f0f0_f0f0, 0xf000_f000)]);
    check_amo(asm::amoor_w, &[(0x0000_f0f0, 0xffff_ffff_0f00_0f00, 0xf0f0, 0x0f00_fff0)]);
    // Signed word comparisons: 0xffff_fffe is -2, 0x8000_0000 the smallest word.
    check_amo(asm::amomin_w, &[
        (0xffff_fffe, 1, 0xffff_ffff_ffff_fffe, 0xffff_fffe),
        (5, 0xffff_ffff, 5, 0xffff_ffff),
        (0x8000_0000, 0x7fff_ffff, I32_MIN_SEXT, 0x8000_0000),
        // rs2 = 0x1_ffff_fff0 is -16 as a word (it would be a large positive doubleword).
        (5, 0x1_ffff_fff0, 5, 0xffff_fff0),
        (3, 3, 3, 3),
    ]);
    check_amo(asm::amomax_w, &[
        (0xffff_fffe, 1, 0xffff_ffff_ffff_fffe, 1),
        (0x8000_0000, 0x7fff_ffff, I32_MIN_SEXT, 0x7fff_ffff),
        (5, 0x1_ffff_fff0, 5, 5),
        (0xffff_fff0, 0xffff_ffff, 0xffff_ffff_ffff_fff0, 0xffff_ffff),
    ]);
    // Unsigned word comparisons: 0xffff_fffe is large.
    check_amo(asm::amominu_w, &[
        (0xffff_fffe, 1, 0xffff_ffff_ffff_fffe, 1),
        (0x8000_0000, 0x7fff_ffff, I32_MIN_SEXT, 0x7fff_ffff),
        // rs2 = 0xffff_ffff_0000_0001 is 1 as a word.
        (2, 0xffff_ffff_0000_0001, 2, 1),
    ]);
    check_amo(asm::amomaxu_w, &[
        (0xffff_fffe, 1, 0xffff_ffff_ffff_fffe, 0xffff_fffe),
        (0x8000_0000, 0x7fff_ffff, I32_MIN_SEXT, 0x8000_0000),
        (2, 0xffff_ffff_0000_0001, 2, 2),
        (0, 0x8000_0000, 0, 0x8000_0000),
    ]);

    // A word AMO on the upper half of a doubleword touches only that half.
    let mut m = Machine::gc().and(&[(A1, DATA + 4), (A2, 0x0102_0304)]);
    m.poke_u64(DATA, 0x8877_6655_4433_2211);
    m.next(asm::amoadd_w(A0, A2, A1));
    assert_eq!(m.get(A0), 0xffff_ffff_8877_6655);
    assert_eq!(m.peek_u64(DATA), 0x8979_6959_4433_2211);
}

#[test]
fn doubleword_amos_return_the_old_value() {
    check_amo(asm::amoswap_d, &[(0x8000_0000_0000_0001, 0x1234_5678_9abc_def0, 0x8000_0000_0000_0001, 0x1234_5678_9abc_def0)]);
    check_amo(asm::amoadd_d, &[
        (5, 7, 5, 12),
        (I64_MAX, 1, I64_MAX, I64_MIN),
        (NEG1, 2, NEG1, 1),
        // No 32-bit wrap.
        (0xffff_ffff, 1, 0xffff_ffff, 0x1_0000_0000),
    ]);
    check_amo(asm::amoxor_d, &[(0xf0f0_0000_f0f0_f0f0, 0xff00_ff00_ff00_ff00, 0xf0f0_0000_f0f0_f0f0, 0x0ff0_ff00_0ff0_0ff0)]);
    check_amo(asm::amoand_d, &[(0xf0f0_0000_f0f0_f0f0, 0xff00_ff00_ff00_ff00, 0xf0f0_0000_f0f0_f0f0, 0xf000_0000_f000_f000)]);
    check_amo(asm::amoor_d, &[(0xf0f0_0000_0000_f0f0, 0x0f00_ff00_0000_0f00, 0xf0f0_0000_0000_f0f0, 0xfff0_ff00_0000_fff0)]);
    check_amo(asm::amomin_d, &[
        (NEG1, 1, NEG1, NEG1),
        (1, NEG1, 1, NEG1),
        (I64_MIN, I64_MAX, I64_MIN, I64_MIN),
        // 0xffff_ffff is positive as a doubleword (it is -1 only as a word).
        (0xffff_ffff, 0, 0xffff_ffff, 0),
    ]);
    check_amo(asm::amomax_d, &[
        (NEG1, 1, NEG1, 1),
        (I64_MIN, I64_MAX, I64_MIN, I64_MAX),
        (0xffff_ffff, 0, 0xffff_ffff, 0xffff_ffff),
    ]);
    check_amo(asm::amominu_d, &[
        (NEG1, 1, NEG1, 1),
        (I64_MIN, I64_MAX, I64_MIN, I64_MAX),
        (0, NEG1, 0, 0),
    ]);
    check_amo(asm::amomaxu_d, &[
        (NEG1, 1, NEG1, NEG1),
        (I64_MIN, I64_MAX, I64_MIN, I64_MIN),
        (0, NEG1, 0, NEG1),
    ]);
}

#[test]
fn amo_operands_may_alias() {
    // rd == rs2 (`amoswap.w a2, a2, (a1)`, the classic lock acquire): the old a2 is stored, then a2 gets the old
    // memory value.
    let mut m = Machine::gc().and(&[(A1, DATA), (A2, 1)]);
    m.poke(DATA, &0xffff_fffeu32.to_le_bytes());
    m.next(asm::amoswap_w(A2, A2, A1));
    assert_eq!((m.get(A2), m.peek(DATA, 4)), (0xffff_ffff_ffff_fffe, vec![1, 0, 0, 0]));
    // rd == rs1: the address is read before rd is written.
    let mut m = Machine::gc().and(&[(A1, DATA), (A2, 5)]);
    m.poke_u64(DATA, 10);
    m.next(asm::amoadd_d(A1, A2, A1));
    assert_eq!((m.get(A1), m.peek_u64(DATA)), (10, 15));
    // lr with rd == rs1 reserves the address it was given.
    let mut m = Machine::gc().and(&[(A1, DATA), (A2, 9)]);
    m.poke_u64(DATA, 0x1234);
    m.next(asm::lr_d(A1, A1));
    assert_eq!(m.get(A1), 0x1234);
    m.set(A1, DATA);
    m.next(asm::sc_d(A3, A2, A1));
    assert_eq!((m.get(A3), m.peek_u64(DATA)), (0, 9));
    // sc with rd == rs2: the old rs2 is stored, then rd gets the success code.
    let mut m = Machine::gc().and(&[(A1, DATA), (A2, 0x4242)]);
    m.next(asm::lr_d(A0, A1));
    m.next(asm::sc_d(A2, A2, A1));
    assert_eq!((m.get(A2), m.peek_u64(DATA)), (0, 0x4242));
}

#[test]
fn ordering_bits_decode_to_the_same_instruction() {
    let mut atomics: Vec<Insn> = AMOS.iter().map(|&(amo, _)| amo(A0, A2, A1)).collect();
    atomics.extend([asm::lr_w(A0, A1), asm::lr_d(A0, A1), asm::sc_w(A0, A2, A1), asm::sc_d(A0, A2, A1)]);
    assert_eq!(atomics.len(), 22, "every A instruction");
    for insn in atomics {
        let plain = decode_insn(insn);
        for (aq, rl) in [(true, false), (false, true), (true, true)] {
            let ordered = asm::ordered(insn, aq, rl);
            assert_ne!(ordered.word, insn.word);
            assert_eq!(decode_insn(ordered), plain, "{} with aq = {aq}, rl = {rl}", insn.op.name());
        }
    }
    // And they execute as the plain instruction does (one hart: ordering is not observable).
    let mut m = Machine::gc().and(&[(A1, DATA), (A2, 3)]);
    m.poke_u64(DATA, 4);
    m.next(asm::ordered(asm::lr_d(A0, A1), true, false));
    m.next(asm::ordered(asm::sc_d(A3, A2, A1), false, true));
    m.next(asm::ordered(asm::amoadd_d(A4, A2, A1), true, true));
    assert_eq!((m.get(A0), m.get(A3), m.get(A4), m.peek_u64(DATA)), (4, 0, 3, 6));
}

#[test]
fn misaligned_atomics_fault_without_side_effects() {
    let mut atomics: Vec<(Insn, u32)> = AMOS.iter().map(|&(amo, size)| (amo(A0, A2, A1), size)).collect();
    atomics.extend([
        (asm::lr_w(A0, A1), 4),
        (asm::lr_d(A0, A1), 8),
        (asm::sc_w(A0, A2, A1), 4),
        (asm::sc_d(A0, A2, A1), 8),
    ]);
    for (insn, size) in atomics {
        let offsets: &[u64] = if size == 4 { &[1, 2, 3] } else { &[1, 2, 4, 6] };
        for &offset in offsets {
            let addr = DATA + 8 + offset;
            // A reservation is held at DATA + 8, so sc would succeed if it ignored the alignment.
            let mut m = machine(&[(A0, 0x5a5a), (A1, DATA + 8), (A2, NEG1)]);
            m.next(asm::lr_d(A3, A1));
            m.set(A1, addr);
            let fault = m.fault(insn);
            assert_eq!(fault, Fault::MisalignedAtomic { op: insn.op.name(), addr }, "{} at {addr:#x}", insn.op.name());
            // The reservation survived (Machine::fault compares it too): an aligned sc still succeeds.
            m.set(A1, DATA + 8);
            m.next(asm::sc_d(A3, A2, A1));
            assert_eq!(m.get(A3), 0, "{} at {addr:#x} must not clear the reservation", insn.op.name());
        }
        // Outside memory: a memory fault, also without side effects. (An sc without a reservation fails before
        // touching memory, so it has no access to fault on.)
        if matches!(insn.op, riscv::Op::ScW | riscv::Op::ScD) {
            continue;
        }
        let mut m = Machine::gc().and(&[(A0, 0x5a5a), (A1, END), (A2, 1)]);
        let fault = m.fault(insn);
        assert!(
            matches!(fault, Fault::Memory(MemFault::OutOfRange { addr: END, size: s, .. }) if s == size),
            "{} at {END:#x}: {fault:?}",
            insn.op.name()
        );
    }
    // An lr that faults does not reserve.
    let mut m = Machine::gc().and(&[(A1, DATA + 2), (A2, DATA), (A4, 1)]);
    m.fault(asm::lr_w(A0, A1));
    m.next(asm::sc_w(A3, A4, A2));
    assert_eq!(m.get(A3), 1);
}

#[test]
fn atomics_with_rd_x0_still_access_memory() {
    let mut failures = Vec::new();
    for &(amo, size) in &AMOS {
        let insn = amo(ZERO, A2, A1);
        let mut m = Machine::gc().and(&[(A1, DATA), (A2, 0x7f)]);
        m.poke_u64(DATA, 0x8000_0000_8000_0005);
        m.next(insn);
        let after = m.peek_u64(DATA);
        if m.get(ZERO) != 0 {
            failures.push(format!("{} with rd = x0 left x0 = {:#x}", insn.op.name(), m.get(ZERO)));
        }
        // Every AMO changes memory here but the signed minimum and the unsigned maximum, which keep the old value.
        let keeps = matches!(insn.op, riscv::Op::AmominW | riscv::Op::AmominD | riscv::Op::AmomaxuW | riscv::Op::AmomaxuD);
        if (after == 0x8000_0000_8000_0005) != keeps {
            failures.push(format!("{} ({size} bytes) with rd = x0: memory {after:#x}", insn.op.name()));
        }
    }
    report(failures);
    // lr with rd = x0 still reserves; sc with rd = x0 still stores.
    let mut m = Machine::gc().and(&[(A1, DATA), (A2, 0x99)]);
    m.poke_u64(DATA, 0x1234);
    m.next(asm::lr_d(ZERO, A1));
    assert_eq!(m.get(ZERO), 0);
    m.next(asm::sc_d(ZERO, A2, A1));
    assert_eq!((m.get(ZERO), m.peek_u64(DATA)), (0, 0x99), "sc.d x0 after lr.d x0 succeeds");
    m.next(asm::sc_d(A3, A2, A1));
    assert_eq!(m.get(A3), 1, "and used the reservation");
}

/// Memory that performs misaligned accesses as byte accesses, as a chip with `core.misaligned_access = "split"`
/// does (crates/chip `SplitAccess`).
struct SplitRam(Ram);

impl Memory for SplitRam {
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, MemFault> {
        let mut value = 0;
        for i in 0..u64::from(size) {
            value |= self.0.load(addr + i, 1)? << (8 * i);
        }
        Ok(value)
    }

    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        for i in 0..u64::from(size) {
            self.0.store(addr + i, 1, value >> (8 * i))?;
        }
        Ok(())
    }
}

/// Regression for a bug found while writing these tests: a misaligned store that a splitting memory performs
/// clears the reservation only if its *first* byte is in the reserved granule, so `sd` at DATA + 4 (bytes
/// DATA + 4 .. DATA + 12) left the reservation of DATA + 8 in place and the next `sc.d` succeeded.
#[test]
fn split_misaligned_store_into_the_reserved_granule_breaks_the_reservation() {
    let isa = riscv::isa::Isa::RV64GC;
    for (store, addr) in [(asm::sd(A2, 0, A1), DATA + 4), (asm::sw(A2, 0, A1), DATA + 6), (asm::sh(A2, 0, A1), DATA + 7)] {
        let mut hart = riscv::Hart::with_isa(0, CODE, isa);
        let mut mem = SplitRam(Ram::new(BASE, RAM_SIZE));
        hart.x[A1 as usize] = DATA + 8;
        hart.x[A2 as usize] = NEG1;
        let mut run = |hart: &mut riscv::Hart, insn: Insn| {
            let d = decode_insn_for(insn, isa);
            EXECUTED.with(|e| e.borrow_mut().insert(d.op));
            assert_eq!(execute(hart, &mut mem, d), Ok(Flow::Next), "{}", insn.op.name());
        };
        run(&mut hart, asm::lr_d(A0, A1));
        hart.x[A1 as usize] = addr;
        run(&mut hart, store);
        hart.x[A1 as usize] = DATA + 8;
        run(&mut hart, asm::sc_d(A3, A2, A1));
        assert_eq!(
            hart.x[A3 as usize],
            1,
            "{} at {addr:#x} wrote bytes of the granule reserved at {:#x}, so the sc.d must fail",
            store.op.name(),
            DATA + 8
        );
    }
}
