//! The machine-level privileged instructions: `mret` returns to the mode in `mstatus.MPP` at `mepc` and unstacks
//! the interrupt enable, and is illegal in user mode; `wfi` is a no-op that retires, illegal in user mode only when
//! `mstatus.TW` is set; user mode cannot touch machine CSRs. (Trap entry itself is the environment's, see
//! `riscv::trap`; its unit tests are there.)

use crate::common::asm::{self, Insn};
use crate::common::*;
use riscv::hart::{mstatus, Privilege};
use riscv::isa::Op;
use riscv::{Fault, Flow};

const MSTATUS: u16 = 0x300;
const MEPC: u16 = 0x341;

pub const GROUPS: &[Group] = &[
    ("mret_returns_to_mpp_at_mepc", mret_returns_to_mpp_at_mepc),
    ("user_mode_may_not_mret_or_touch_machine_csrs", user_mode_may_not_mret_or_touch_machine_csrs),
    ("wfi_is_a_no_op_unless_mstatus_tw_traps_it_in_user_mode", wfi_is_a_no_op_unless_mstatus_tw_traps_it_in_user_mode),
];

fn mret() -> Insn {
    Insn { op: Op::Mret, word: 0x3020_0073 }
}

fn wfi() -> Insn {
    Insn { op: Op::Wfi, word: 0x1050_0073 }
}

#[test]
fn mret_returns_to_mpp_at_mepc() {
    // To machine mode: MPP = M, MPIE = 1, MIE = 0.
    let mut m = Machine::gc().and(&[(A0, BASE + 0x102), (A1, mstatus::MPP | mstatus::MPIE)]);
    m.next(asm::csrrw(ZERO, MEPC, A0));
    m.next(asm::csrrw(ZERO, MSTATUS, A1));
    assert_eq!(m.step(mret()), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.hart.privilege), (BASE + 0x102, Privilege::Machine), "C: mepc keeps bit 1");
    let s = m.hart.mstatus;
    assert_eq!(s & (mstatus::MIE | mstatus::MPIE), mstatus::MIE | mstatus::MPIE, "MIE = MPIE, MPIE = 1");
    assert_eq!(s & mstatus::MPP, 0, "MPP = U, the least privileged mode");
    // Again: now to user mode, and without C the pc is 4-byte aligned.
    let mut m = Machine::new().and(&[(A0, BASE + 0x102)]);
    m.next(asm::csrrw(ZERO, MEPC, A0));
    assert_eq!(m.step(mret()), Ok(Flow::Redirect));
    assert_eq!((m.hart.pc, m.hart.privilege), (BASE + 0x100, Privilege::User));
}

#[test]
fn user_mode_may_not_mret_or_touch_machine_csrs() {
    let mut m = Machine::gc().and(&[(A1, 1)]);
    m.hart.privilege = Privilege::User;
    assert!(matches!(m.fault(mret()), Fault::Privileged { op: "mret", .. }));
    for insn in [asm::csrrs(A0, MSTATUS, ZERO), asm::csrrw(ZERO, MSCRATCH, A1), asm::csrrs(A0, MHARTID, ZERO)] {
        let fault = m.fault(insn);
        assert!(matches!(fault, Fault::Csr { .. }), "{}: {fault:?}", insn.op.name());
    }
    assert_eq!(m.hart.privilege, Privilege::User);
    // User CSRs stay usable.
    m.next(asm::csrrs(A0, FCSR, ZERO));
}

#[test]
fn wfi_is_a_no_op_unless_mstatus_tw_traps_it_in_user_mode() {
    let mut m = Machine::new().and(&[(A0, 7)]);
    m.next(wfi());
    m.hart.mstatus |= mstatus::TW;
    m.next(wfi()); // TW only concerns less privileged modes
    m.hart.privilege = Privilege::User;
    assert!(matches!(m.fault(wfi()), Fault::Privileged { op: "wfi", .. }));
    m.hart.mstatus &= !mstatus::TW;
    m.next(wfi());
    assert_eq!(m.get(A0), 7);
}
