//! Machine-mode traps: synchronous exceptions and the machine external interrupt taken into M-mode, and `mret`, as
//! the privileged specification (version 1.12) defines them for a hart with M and U modes, no S-mode and one
//! interrupt source (`mip.MEIP`, which the chip's network interface drives: [`take_external_interrupt`]).
//!
//! Execution ([`crate::exec`]) never takes a trap itself: it reports a [`Fault`] and changes nothing, or hands
//! `ecall`/`ebreak` to the environment. Whoever runs the hart decides what an exception does: with a handler
//! installed (`mtvec` != 0) it calls [`take`]; without one (the reset value, and every program of the nocmsg
//! runtime) it may stop the core with a report instead, which is what a bare-metal program without a handler
//! would end in anyway. [`exception_of`] and [`fetch_exception`] say which exception a fault raises and with
//! which trap value.
//!
//! Taking a trap: `mepc` = pc of the instruction, `mcause` = the exception code, `mtval` = the faulting address
//! (misaligned or access fault, misaligned jump target, `ebreak`'s own address) or the instruction bits (illegal
//! instruction; 16 bits for a compressed one), 0 for `ecall`; `mstatus.MPIE` = MIE, MIE = 0, MPP = the mode
//! trapped from; the hart enters M-mode at `mtvec`'s BASE (direct and vectored mode alike: vectoring applies to
//! interrupts only). The trapping instruction does not retire.

use crate::exec::Fault;
use crate::hart::{mstatus, Hart, Privilege};
use crate::isa::Op;
use crate::memory::{AccessKind, MemFault};

/// The synchronous exceptions a hart can raise, with their `mcause` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Exception {
    InstructionMisaligned = 0,
    InstructionAccessFault = 1,
    IllegalInstruction = 2,
    Breakpoint = 3,
    LoadMisaligned = 4,
    LoadAccessFault = 5,
    /// Store, SC or AMO.
    StoreMisaligned = 6,
    StoreAccessFault = 7,
    UserEcall = 8,
    MachineEcall = 11,
}

impl Exception {
    /// The exception code written to `mcause` (the interrupt bit is clear).
    pub fn code(self) -> u64 {
        self as u64
    }

    /// `ecall` from privilege mode `mode`.
    pub fn ecall_from(mode: Privilege) -> Exception {
        match mode {
            Privilege::User => Exception::UserEcall,
            Privilege::Machine => Exception::MachineEcall,
        }
    }

    /// The specification's name of the exception.
    pub fn name(self) -> &'static str {
        match self {
            Exception::InstructionMisaligned => "instruction address misaligned",
            Exception::InstructionAccessFault => "instruction access fault",
            Exception::IllegalInstruction => "illegal instruction",
            Exception::Breakpoint => "breakpoint",
            Exception::LoadMisaligned => "load address misaligned",
            Exception::LoadAccessFault => "load access fault",
            Exception::StoreMisaligned => "store/AMO address misaligned",
            Exception::StoreAccessFault => "store/AMO access fault",
            Exception::UserEcall => "environment call from U-mode",
            Exception::MachineEcall => "environment call from M-mode",
        }
    }
}

/// Whether `op` raises store/AMO exceptions although its first memory access is a read (SC and the AMOs; LR
/// raises load exceptions).
fn store_like(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        ScW | ScD
            | AmoswapW
            | AmoaddW
            | AmoxorW
            | AmoandW
            | AmoorW
            | AmominW
            | AmomaxW
            | AmominuW
            | AmomaxuW
            | AmoswapD
            | AmoaddD
            | AmoxorD
            | AmoandD
            | AmoorD
            | AmominD
            | AmomaxD
            | AmominuD
            | AmomaxuD
    )
}

/// The exception of a memory fault by an instruction `op` (not a fetch), and the faulting address.
fn memory_exception(fault: &MemFault, op: Op) -> (Exception, u64) {
    match *fault {
        MemFault::OutOfRange { addr, kind, .. } => match kind {
            AccessKind::Fetch => (Exception::InstructionAccessFault, addr),
            AccessKind::Store => (Exception::StoreAccessFault, addr),
            AccessKind::Load if store_like(op) => (Exception::StoreAccessFault, addr),
            AccessKind::Load => (Exception::LoadAccessFault, addr),
        },
        MemFault::Misaligned { addr, kind, .. } => match kind {
            AccessKind::Fetch => (Exception::InstructionMisaligned, addr),
            AccessKind::Store => (Exception::StoreMisaligned, addr),
            AccessKind::Load if store_like(op) => (Exception::StoreMisaligned, addr),
            AccessKind::Load => (Exception::LoadMisaligned, addr),
        },
    }
}

/// The exception raised by instruction `op` (whose encoding is `word`: what `mtval` holds for an illegal
/// instruction) failing with `fault`, and its trap value.
pub fn exception_of(fault: &Fault, op: Op, word: u32) -> (Exception, u64) {
    match fault {
        Fault::Memory(m) => memory_exception(m, op),
        Fault::MisalignedTarget { target, .. } => (Exception::InstructionMisaligned, *target),
        Fault::MisalignedAtomic { addr, .. } => {
            let cause =
                if matches!(op, Op::LrW | Op::LrD) { Exception::LoadMisaligned } else { Exception::StoreMisaligned };
            (cause, *addr)
        }
        Fault::Csr { .. } | Fault::RoundingMode { .. } | Fault::Privileged { .. } => {
            (Exception::IllegalInstruction, u64::from(word))
        }
    }
}

/// The exception raised when the instruction at the pc cannot be fetched: an access fault at the address that
/// failed (the second half of an instruction may be the part outside memory), or a misaligned pc.
pub fn fetch_exception(fault: &MemFault) -> (Exception, u64) {
    match *fault {
        MemFault::OutOfRange { addr, .. } => (Exception::InstructionAccessFault, addr),
        MemFault::Misaligned { addr, .. } => (Exception::InstructionMisaligned, addr),
    }
}

/// Takes exception `cause` with trap value `tval` for the instruction at the pc, into machine mode.
pub fn take(h: &mut Hart, cause: Exception, tval: u64) {
    h.mepc = h.pc & !1;
    h.mcause = cause.code();
    h.mtval = tval;
    let mpie = if h.mstatus & mstatus::MIE != 0 { mstatus::MPIE } else { 0 };
    let mpp = (h.privilege as u64) << mstatus::MPP.trailing_zeros();
    h.mstatus = h.mstatus & !(mstatus::MIE | mstatus::MPIE | mstatus::MPP) | mpie | mpp;
    h.privilege = Privilege::Machine;
    h.pc = h.mtvec & !3;
}

/// Whether the machine external interrupt would be taken before the next instruction: pending (`mip.MEIP`), enabled
/// (`mie.MEIE`) and, in M-mode, `mstatus.MIE` set (in U-mode M-level interrupts are always enabled).
pub fn external_interrupt_due(h: &Hart) -> bool {
    h.meip && h.mie & crate::hart::mip::MEIP != 0 && (h.privilege != Privilege::Machine || h.mstatus & mstatus::MIE != 0)
}

/// Takes the machine external interrupt before the instruction at the pc: `mepc` = that pc, `mcause` = interrupt
/// bit | 11, `mtval` = 0, `mstatus` as for an exception, and the hart enters M-mode at `mtvec`'s BASE, plus 4 x 11
/// in vectored mode.
pub fn take_external_interrupt(h: &mut Hart) {
    let code = crate::hart::mip::MEI_CODE;
    h.mepc = h.pc & !1;
    h.mcause = 1 << 63 | code;
    h.mtval = 0;
    let mpie = if h.mstatus & mstatus::MIE != 0 { mstatus::MPIE } else { 0 };
    let mpp = (h.privilege as u64) << mstatus::MPP.trailing_zeros();
    h.mstatus = h.mstatus & !(mstatus::MIE | mstatus::MPIE | mstatus::MPP) | mpie | mpp;
    h.privilege = Privilege::Machine;
    let base = h.mtvec & !3;
    h.pc = if h.mtvec & 3 == 1 { base + 4 * code } else { base };
}

/// `mret` (the caller has checked that the hart is in M-mode): back to the mode in MPP at `mepc`, MIE = MPIE,
/// MPIE = 1, MPP = U (the least privileged mode), MPRV cleared when returning to U. The LR reservation is kept
/// (the specification allows either).
pub fn mret(h: &mut Hart) {
    let to = h.mpp();
    let mie = if h.mstatus & mstatus::MPIE != 0 { mstatus::MIE } else { 0 };
    let mut s = h.mstatus & !(mstatus::MIE | mstatus::MPP) | mie | mstatus::MPIE;
    if to != Privilege::Machine {
        s &= !mstatus::MPRV;
    }
    h.mstatus = s;
    h.privilege = to;
    h.pc = h.mepc();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hart::csr;
    use crate::isa::Isa;

    fn hart() -> Hart {
        Hart::with_isa(0, 0x8000_0100, Isa::RV64GC)
    }

    #[test]
    fn taking_a_trap_stacks_the_mode_and_interrupt_enable() {
        let mut h = hart();
        h.mtvec = 0x8000_0040;
        h.mstatus = mstatus::MIE;
        h.privilege = Privilege::User;
        take(&mut h, Exception::UserEcall, 0);
        assert_eq!((h.pc, h.mepc, h.mcause, h.mtval), (0x8000_0040, 0x8000_0100, 8, 0));
        assert_eq!(h.privilege, Privilege::Machine);
        assert_eq!(h.mstatus & (mstatus::MIE | mstatus::MPIE), mstatus::MPIE, "MPIE = old MIE, MIE = 0");
        assert_eq!(h.mpp(), Privilege::User);
        // A second trap, from M-mode with MIE clear.
        h.pc = 0x8000_0044;
        take(&mut h, Exception::IllegalInstruction, 0xffff_ffff);
        assert_eq!((h.mepc, h.mcause, h.mtval), (0x8000_0044, 2, 0xffff_ffff));
        assert_eq!(h.mstatus & (mstatus::MIE | mstatus::MPIE), 0);
        assert_eq!(h.mpp(), Privilege::Machine);
    }

    #[test]
    fn mret_unstacks_and_leaves_mpp_at_user() {
        let mut h = hart();
        h.mstatus = mstatus::MPIE | mstatus::MPRV; // MPP = U
        h.mepc = 0x8000_2000;
        mret(&mut h);
        assert_eq!((h.pc, h.privilege), (0x8000_2000, Privilege::User));
        assert_eq!(h.mstatus, mstatus::MIE | mstatus::MPIE, "MIE = MPIE, MPIE = 1, MPRV cleared going to U");
        // Returning to M keeps MPRV; MPP becomes U.
        let mut h = hart();
        h.mstatus = mstatus::MPP | mstatus::MPRV;
        h.mepc = 0x8000_3000;
        mret(&mut h);
        assert_eq!((h.pc, h.privilege), (0x8000_3000, Privilege::Machine));
        assert_eq!(h.mstatus, mstatus::MPIE | mstatus::MPRV);
        assert_eq!(h.mpp(), Privilege::User);
    }

    #[test]
    fn trap_and_mret_round_trip() {
        let mut h = hart();
        h.privilege = Privilege::User;
        h.mtvec = 0x8000_0000;
        let before = h.mstatus;
        let pc = h.pc;
        take(&mut h, Exception::Breakpoint, pc);
        h.mepc += 4;
        mret(&mut h);
        assert_eq!((h.pc, h.privilege), (0x8000_0104, Privilege::User));
        assert_eq!(h.mstatus & !mstatus::MPIE, before, "only MPIE differs (set by mret)");
    }

    #[test]
    fn vectored_mtvec_sends_exceptions_to_base() {
        let mut h = hart();
        h.write_csr(csr::MTVEC, 0x8000_0401).unwrap();
        assert_eq!(h.read_csr(csr::MTVEC), Some(0x8000_0401));
        take(&mut h, Exception::MachineEcall, 0);
        assert_eq!(h.pc, 0x8000_0400, "exceptions use BASE in vectored mode, not BASE + 4 * cause");
    }

    #[test]
    fn mret_reads_mepc_as_ialign_allows() {
        let mut h = Hart::with_isa(0, 0, Isa::RV64IM);
        h.write_csr(csr::MEPC, 0x8000_0007).unwrap();
        assert_eq!(h.read_csr(csr::MEPC), Some(0x8000_0004), "bits 1:0 read zero without C");
        h.mstatus = mstatus::MPP;
        mret(&mut h);
        assert_eq!(h.pc, 0x8000_0004);
        let mut h = hart();
        h.write_csr(csr::MEPC, 0x8000_0007).unwrap();
        assert_eq!(h.read_csr(csr::MEPC), Some(0x8000_0006), "bit 0 is always zero");
    }

    #[test]
    fn faults_map_to_their_exceptions() {
        let load = MemFault::OutOfRange { addr: 0x10, size: 8, kind: AccessKind::Load };
        let store = MemFault::Misaligned { addr: 0x8000_0001, size: 4, kind: AccessKind::Store };
        let cases = [
            (Fault::Memory(load), Op::Ld, (Exception::LoadAccessFault, 0x10)),
            (Fault::Memory(load), Op::LrD, (Exception::LoadAccessFault, 0x10)),
            (Fault::Memory(load), Op::AmoaddW, (Exception::StoreAccessFault, 0x10)),
            (Fault::Memory(store), Op::Sw, (Exception::StoreMisaligned, 0x8000_0001)),
            (
                Fault::Memory(MemFault::Misaligned { addr: 0x8000_0002, size: 4, kind: AccessKind::Load }),
                Op::Lw,
                (Exception::LoadMisaligned, 0x8000_0002),
            ),
            (
                Fault::MisalignedAtomic { op: "lr.w", addr: 0x8000_0002 },
                Op::LrW,
                (Exception::LoadMisaligned, 0x8000_0002),
            ),
            (
                Fault::MisalignedAtomic { op: "sc.w", addr: 0x8000_0002 },
                Op::ScW,
                (Exception::StoreMisaligned, 0x8000_0002),
            ),
            (
                Fault::MisalignedTarget { target: 0x8000_0002, align: 4 },
                Op::Jal,
                (Exception::InstructionMisaligned, 0x8000_0002),
            ),
            (Fault::Csr { csr: 0x180, reason: "no such CSR" }, Op::Csrrw, (Exception::IllegalInstruction, 0x1802_9073)),
            (Fault::RoundingMode { frm: 5 }, Op::FaddD, (Exception::IllegalInstruction, 0x1802_9073)),
        ];
        for (fault, op, want) in cases {
            assert_eq!(exception_of(&fault, op, 0x1802_9073), want, "{fault:?} by {op:?}");
        }
        let fetch = MemFault::OutOfRange { addr: 0x8000_1002, size: 2, kind: AccessKind::Fetch };
        assert_eq!(fetch_exception(&fetch), (Exception::InstructionAccessFault, 0x8000_1002));
        assert_eq!(Exception::ecall_from(Privilege::User).code(), 8);
        assert_eq!(Exception::ecall_from(Privilege::Machine).code(), 11);
    }

    /// The external interrupt: due only when pending, enabled in mie and (in M-mode) by mstatus.MIE; taken to BASE
    /// (direct) or BASE + 44 (vectored), with mepc = the interrupted pc, the interrupt bit in mcause, mtval 0.
    #[test]
    fn external_interrupt_is_due_only_when_pending_and_enabled_and_vectors() {
        let mut h = Hart::with_isa(0, 0x8000_0100, Isa::RV64GC);
        h.mtvec = 0x8000_1001;
        assert!(!external_interrupt_due(&h));
        h.meip = true;
        assert!(!external_interrupt_due(&h), "mie.MEIE clear");
        h.write_csr(csr::MIE, crate::hart::mip::MEIP).unwrap();
        assert!(!external_interrupt_due(&h), "M-mode with mstatus.MIE clear");
        h.privilege = Privilege::User;
        assert!(external_interrupt_due(&h), "M-level interrupts are always enabled in U-mode");
        h.privilege = Privilege::Machine;
        h.mstatus |= mstatus::MIE;
        assert!(external_interrupt_due(&h));
        h.mtval = 9;
        take_external_interrupt(&mut h);
        assert_eq!((h.pc, h.mepc, h.mcause, h.mtval), (0x8000_1000 + 44, 0x8000_0100, 1 << 63 | 11, 0));
        assert_eq!(h.mstatus & (mstatus::MIE | mstatus::MPIE), mstatus::MPIE);
        assert!(!external_interrupt_due(&h), "masked in the handler");
        mret(&mut h);
        assert_eq!((h.pc, h.mstatus & mstatus::MIE), (0x8000_0100, mstatus::MIE));
        h.mtvec = 0x8000_1000;
        take_external_interrupt(&mut h);
        assert_eq!(h.pc, 0x8000_1000, "direct mode");
    }
}
