//! Architectural state of one hart: integer and floating-point registers, pc, the LR/SC reservation, the
//! privilege mode and the CSRs a bare-metal program and its machine-mode trap handler use.
//!
//! The hart has machine mode (M) and user mode (U), no supervisor mode, one interrupt source (the machine external
//! interrupt, which the chip's network interface drives), no physical memory protection and no address translation;
//! see [`crate::trap`] for how exceptions and interrupts are taken. CSRs follow the
//! privileged specification (version 1.12) for such a hart:
//!
//! * `mstatus`: MIE, MPIE, MPP (M or U: any other value written reads back U), MPRV (kept; without memory
//!   protection or translation it changes nothing) and TW (`wfi` in U-mode is illegal when set) hold what is
//!   written. FS is read-only Dirty when the hart has F (floating point is always usable: FS cannot be turned Off,
//!   which the specification allows for a WARL field that reports dirtiness imprecisely), read-only zero
//!   otherwise; SD follows FS; UXL reads 2 (64-bit U-mode); every other field is read-only zero.
//! * `mtvec`: BASE (4-byte aligned) and MODE direct (0) or vectored (1); a reserved MODE written (2, 3) becomes
//!   direct or vectored by its low bit. Exceptions go to BASE in both modes (vectoring is for interrupts).
//! * `mepc` (bit 0 always zero; bit 1 reads zero without C), `mcause`, `mtval`, `mscratch`: read/write.
//! * `mie`: MEIE (bit 11) writable, every other bit read-only zero; `mip`: MEIP (bit 11) read-only, set while the
//!   platform's external interrupt line is ([`Hart::meip`]), every other bit zero; `menvcfg` read-only zero (none of its
//!   features exist); `mconfigptr` zero; `mcounteren`: CY, TM, IR writable (reset 0), which let U-mode read
//!   `cycle`, `time`, `instret`.
//! * Absent, so any access is an illegal instruction: `medeleg`/`mideleg` (they exist only with S-mode), `satp`
//!   and every other S-mode CSR, `pmpcfg*`/`pmpaddr*` (no PMP entries: the specification allows zero), the
//!   hardware performance counters beyond `cycle`/`instret`, `mcountinhibit`, `mnstatus` (no Smrnmi).
//!
//! Access rules: a CSR's number says the least privilege that may access it (bits 9:8) and whether it is
//! read-only (bits 11:10 = 11); breaking either, or accessing a CSR that does not exist, is an illegal instruction.

use crate::isa::{Extension, Isa};

/// CSR numbers the simulator implements.
pub mod csr {
    pub const CYCLE: u16 = 0xc00;
    pub const TIME: u16 = 0xc01;
    pub const INSTRET: u16 = 0xc02;
    pub const MCYCLE: u16 = 0xb00;
    pub const MINSTRET: u16 = 0xb02;
    pub const MVENDORID: u16 = 0xf11;
    pub const MARCHID: u16 = 0xf12;
    pub const MIMPID: u16 = 0xf13;
    pub const MHARTID: u16 = 0xf14;
    pub const MISA: u16 = 0x301;
    pub const MSCRATCH: u16 = 0x340;
    pub const FFLAGS: u16 = 0x001;
    pub const FRM: u16 = 0x002;
    pub const FCSR: u16 = 0x003;
    pub const MSTATUS: u16 = 0x300;
    pub const MIE: u16 = 0x304;
    pub const MTVEC: u16 = 0x305;
    pub const MCOUNTEREN: u16 = 0x306;
    pub const MENVCFG: u16 = 0x30a;
    pub const MEPC: u16 = 0x341;
    pub const MCAUSE: u16 = 0x342;
    pub const MTVAL: u16 = 0x343;
    pub const MIP: u16 = 0x344;
    pub const MCONFIGPTR: u16 = 0xf15;

    pub fn name(number: u16) -> Option<&'static str> {
        Some(match number {
            CYCLE => "cycle",
            TIME => "time",
            INSTRET => "instret",
            MCYCLE => "mcycle",
            MINSTRET => "minstret",
            MVENDORID => "mvendorid",
            MARCHID => "marchid",
            MIMPID => "mimpid",
            MHARTID => "mhartid",
            MISA => "misa",
            MSCRATCH => "mscratch",
            FFLAGS => "fflags",
            FRM => "frm",
            FCSR => "fcsr",
            MSTATUS => "mstatus",
            MIE => "mie",
            MTVEC => "mtvec",
            MCOUNTEREN => "mcounteren",
            MENVCFG => "menvcfg",
            MEPC => "mepc",
            MCAUSE => "mcause",
            MTVAL => "mtval",
            MIP => "mip",
            MCONFIGPTR => "mconfigptr",
            _ => return None,
        })
    }
}

/// Fields of `mstatus`.
pub mod mstatus {
    /// Machine interrupt enable.
    pub const MIE: u64 = 1 << 3;
    /// MIE before the last trap.
    pub const MPIE: u64 = 1 << 7;
    /// The privilege mode before the last trap (bits 12:11).
    pub const MPP: u64 = 3 << 11;
    /// Floating-point state (bits 14:13; 3 is Dirty).
    pub const FS: u64 = 3 << 13;
    /// Modify privilege: loads and stores as if in MPP.
    pub const MPRV: u64 = 1 << 17;
    /// Timeout wait: `wfi` in a less privileged mode is illegal.
    pub const TW: u64 = 1 << 21;
    /// U-mode XLEN (bits 33:32): 2 is 64 bits.
    pub const UXL_64: u64 = 2 << 32;
    /// Some state is dirty (FS = Dirty).
    pub const SD: u64 = 1 << 63;
    /// The fields that hold what is written (MPP only M or U).
    pub const WRITABLE: u64 = MIE | MPIE | MPP | MPRV | TW;
}

/// The privilege modes of a hart (numbered as in `mstatus.MPP` and in bits 9:8 of CSR numbers). There is no
/// supervisor mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Privilege {
    User = 0,
    Machine = 3,
}

impl Privilege {
    /// The one-letter name (U, M).
    pub fn letter(self) -> char {
        match self {
            Privilege::User => 'U',
            Privilege::Machine => 'M',
        }
    }
}

/// No LR reservation is held (reservations are naturally aligned, so this address never is one).
pub const NO_RESERVATION: u64 = u64::MAX;

/// Registers, pc and CSR state. `cycle` and `instret` are maintained by whoever runs the hart (the timing model
/// decides how many cycles an instruction takes); the `cycle`, `time` and `instret` CSRs read them.
#[derive(Clone, Debug)]
pub struct Hart {
    pub x: [u64; 32],
    /// Floating-point registers (64 bits; a single is NaN-boxed: its upper 32 bits all ones).
    pub f: [u64; 32],
    pub pc: u64,
    pub hart_id: u64,
    pub cycle: u64,
    pub instret: u64,
    pub mscratch: u64,
    /// Accrued floating-point exception flags (`fflags`, the low 5 bits of `fcsr`).
    pub fflags: u8,
    /// Dynamic rounding mode (`frm`, bits 7:5 of `fcsr`); 5 to 7 are invalid and make a dynamic-rounding
    /// instruction illegal.
    pub frm: u8,
    /// The address reserved by the last LR ([`NO_RESERVATION`] if none); an SC succeeds only on it, and any SC or
    /// store to the reserved bytes clears it.
    pub reservation: u64,
    /// The extensions this hart has (`misa`; instructions of others do not decode).
    pub isa: Isa,
    /// The current privilege mode (machine at reset).
    pub privilege: Privilege,
    /// The writable fields of `mstatus` ([`mstatus::WRITABLE`]); [`Hart::read_csr`] adds the read-only ones.
    pub mstatus: u64,
    /// `mtvec`: trap handler BASE | MODE. 0 (the reset value) means no handler is installed, and the environment
    /// stops the core on an exception instead of trapping (see [`crate::trap`]).
    pub mtvec: u64,
    /// `mepc` as written (bit 0 clear); reads mask bit 1 too without C ([`Hart::mepc`]).
    pub mepc: u64,
    pub mcause: u64,
    pub mtval: u64,
    /// `mcounteren`: bits CY (0), TM (1), IR (2).
    pub mcounteren: u64,
    /// `mie`: MEIE only ([`mip::MEIP`]'s bit).
    pub mie: u64,
    /// The machine external interrupt line, as the platform last set it: `mip.MEIP`.
    pub meip: bool,
}

/// Bits of `mie` and `mip`.
pub mod mip {
    /// Machine external interrupt (pending in `mip`, enabled in `mie`); its `mcause` code is 11.
    pub const MEIP: u64 = 1 << 11;
    pub const MEI_CODE: u64 = 11;
}

impl Hart {
    /// An RV64IM hart (the PIMP cores); [`Hart::with_isa`] for others.
    pub fn new(hart_id: u64, pc: u64) -> Hart {
        Hart::with_isa(hart_id, pc, Isa::RV64IM)
    }

    pub fn with_isa(hart_id: u64, pc: u64, isa: Isa) -> Hart {
        Hart {
            x: [0; 32],
            f: [0; 32],
            pc,
            hart_id,
            cycle: 0,
            instret: 0,
            mscratch: 0,
            fflags: 0,
            frm: 0,
            reservation: NO_RESERVATION,
            isa,
            privilege: Privilege::Machine,
            mstatus: 0,
            mtvec: 0,
            mepc: 0,
            mcause: 0,
            mtval: 0,
            mcounteren: 0,
            mie: 0,
            meip: false,
        }
    }

    /// `mepc` as read (by a CSR instruction or `mret`): bit 1 is masked when IALIGN is 32 (no C).
    pub fn mepc(&self) -> u64 {
        if self.isa.compressed() {
            self.mepc
        } else {
            self.mepc & !3
        }
    }

    /// The privilege mode in `mstatus.MPP`.
    pub fn mpp(&self) -> Privilege {
        if self.mstatus & mstatus::MPP == mstatus::MPP {
            Privilege::Machine
        } else {
            Privilege::User
        }
    }

    /// The whole `mstatus`: the writable fields and the read-only FS (Dirty with F), SD and UXL.
    fn read_mstatus(&self) -> u64 {
        let fs = if self.has_fp() { mstatus::FS | mstatus::SD } else { 0 };
        self.mstatus | fs | mstatus::UXL_64
    }

    /// Whether the floating-point CSRs exist (F present).
    fn has_fp(&self) -> bool {
        self.isa.has(Extension::F)
    }

    /// Reads a CSR; `None` if it does not exist.
    pub fn read_csr(&self, number: u16) -> Option<u64> {
        Some(match number {
            csr::CYCLE | csr::MCYCLE | csr::TIME => self.cycle,
            csr::INSTRET | csr::MINSTRET => self.instret,
            csr::MVENDORID | csr::MARCHID | csr::MIMPID => 0,
            csr::MHARTID => self.hart_id,
            csr::MISA => self.misa(),
            csr::MSCRATCH => self.mscratch,
            csr::FFLAGS if self.has_fp() => u64::from(self.fflags),
            csr::FRM if self.has_fp() => u64::from(self.frm),
            csr::FCSR if self.has_fp() => u64::from(self.frm << 5 | self.fflags),
            csr::MSTATUS => self.read_mstatus(),
            csr::MTVEC => self.mtvec,
            csr::MEPC => self.mepc(),
            csr::MCAUSE => self.mcause,
            csr::MTVAL => self.mtval,
            csr::MCOUNTEREN => self.mcounteren,
            csr::MIE => self.mie,
            csr::MIP => if self.meip { mip::MEIP } else { 0 },
            csr::MENVCFG | csr::MCONFIGPTR => 0,
            _ => return None,
        })
    }

    /// Writes a CSR; `Err` names why it cannot be written. Counters are read-only here: they are the timing
    /// model's output, and letting a program rewrite them would make reported cycle counts meaningless.
    pub fn write_csr(&mut self, number: u16, value: u64) -> Result<(), &'static str> {
        match number {
            csr::MSCRATCH => {
                self.mscratch = value;
                Ok(())
            }
            // Bits beyond the fields are read-only zero (writes to them are ignored, as the specification allows).
            csr::FFLAGS if self.has_fp() => {
                self.fflags = value as u8 & 0x1f;
                Ok(())
            }
            csr::FRM if self.has_fp() => {
                self.frm = value as u8 & 7;
                Ok(())
            }
            csr::FCSR if self.has_fp() => {
                self.fflags = value as u8 & 0x1f;
                self.frm = (value >> 5) as u8 & 7;
                Ok(())
            }
            csr::MCYCLE | csr::MINSTRET => Err("the cycle and instruction counters are read-only in this simulator"),
            csr::MISA => Ok(()), // WARL: writes are ignored, the ISA is fixed.
            csr::MSTATUS => {
                // MPP holds M or U; anything else (S, the reserved 2) is not a mode of this hart and reads back U.
                let mpp = if value & mstatus::MPP == mstatus::MPP { mstatus::MPP } else { 0 };
                self.mstatus = value & (mstatus::WRITABLE & !mstatus::MPP) | mpp;
                Ok(())
            }
            csr::MTVEC => {
                // MODE 2 and 3 are reserved: keep the low bit (direct or vectored).
                self.mtvec = value & !2;
                Ok(())
            }
            csr::MEPC => {
                self.mepc = value & !1;
                Ok(())
            }
            csr::MCAUSE => {
                self.mcause = value;
                Ok(())
            }
            csr::MTVAL => {
                self.mtval = value;
                Ok(())
            }
            csr::MCOUNTEREN => {
                self.mcounteren = value & 7;
                Ok(())
            }
            csr::MIE => {
                self.mie = value & mip::MEIP;
                Ok(())
            }
            // WARL registers whose every field is read-only here.
            csr::MIP | csr::MENVCFG => Ok(()),
            _ if self.read_csr(number).is_some() => Err("read-only CSR"),
            _ => Err("no such CSR"),
        }
    }

    /// Whether the hart, in its current mode, may access CSR `number` (which exists), writing it if `writes`.
    pub fn check_csr_access(&self, number: u16, writes: bool) -> Result<(), &'static str> {
        if (number >> 8) & 3 > self.privilege as u16 {
            return Err("a machine-mode CSR, accessed from user mode");
        }
        if writes && number >> 10 == 3 {
            return Err("read-only CSR");
        }
        if self.privilege == Privilege::User
            && matches!(number, csr::CYCLE | csr::TIME | csr::INSTRET)
            && self.mcounteren >> (number - csr::CYCLE) & 1 == 0
        {
            return Err("the counter is not enabled for user mode (mcounteren)");
        }
        Ok(())
    }

    /// `misa`: the extensions, and U for user mode.
    fn misa(&self) -> u64 {
        self.isa.misa() | 1 << (b'u' - b'a')
    }
}

/// ABI names of the integer registers, for disassembly and reports.
pub const ABI_NAMES: [&str; 32] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2",
    "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
];

/// ABI names of the floating-point registers.
pub const FP_ABI_NAMES: [&str; 32] = [
    "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1", "fa2", "fa3", "fa4", "fa5", "fa6",
    "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn gc() -> Hart {
        Hart::with_isa(0, 0x8000_0000, Isa::RV64GC)
    }

    #[test]
    fn mstatus_keeps_its_writable_fields_and_fixes_the_others() {
        let mut h = gc();
        let fixed = mstatus::SD | mstatus::UXL_64 | mstatus::FS;
        assert_eq!(h.read_csr(csr::MSTATUS), Some(fixed), "reset: FS Dirty, MPP U");
        h.write_csr(csr::MSTATUS, u64::MAX).unwrap();
        let all = mstatus::WRITABLE | mstatus::FS | mstatus::SD | mstatus::UXL_64;
        assert_eq!(h.read_csr(csr::MSTATUS), Some(all), "S-mode, endianness, VS, XS, SXL... stay zero");
        h.write_csr(csr::MSTATUS, 0).unwrap();
        assert_eq!(h.read_csr(csr::MSTATUS), Some(fixed), "FS cannot be turned off");
        // MPP holds M or U only.
        let mpp = [(0, Privilege::User), (1, Privilege::User), (2, Privilege::User), (3, Privilege::Machine)];
        for (written, read) in mpp {
            h.write_csr(csr::MSTATUS, written << 11).unwrap();
            assert_eq!(h.mpp(), read, "MPP written {written}");
        }
        // Without F, FS and SD are zero.
        let h = Hart::with_isa(0, 0, Isa::RV64IMAC);
        assert_eq!(h.read_csr(csr::MSTATUS), Some(mstatus::UXL_64));
    }

    #[test]
    fn trap_csrs_read_back_what_they_may_hold() {
        let mut h = gc();
        for (number, written, read) in [
            (csr::MTVEC, 0x8000_0101, 0x8000_0101),
            (csr::MTVEC, 0x8000_0102, 0x8000_0100), // reserved MODE 2 -> direct
            (csr::MTVEC, 0x8000_0103, 0x8000_0101), // reserved MODE 3 -> vectored
            (csr::MEPC, 0x8000_0003, 0x8000_0002),
            (csr::MCAUSE, 0x8000_0000_0000_0007, 0x8000_0000_0000_0007),
            (csr::MTVAL, u64::MAX, u64::MAX),
            (csr::MCOUNTEREN, u64::MAX, 7),
            (csr::MIE, u64::MAX, mip::MEIP), // MEIE only: the one interrupt source
            (csr::MIP, u64::MAX, 0),        // MEIP is the platform's line, not software's
            (csr::MENVCFG, u64::MAX, 0),
            (csr::MSCRATCH, 0x1234, 0x1234),
        ] {
            h.write_csr(number, written).unwrap();
            assert_eq!(h.read_csr(number), Some(read), "{}", csr::name(number).unwrap());
        }
        assert_eq!(h.read_csr(csr::MCONFIGPTR), Some(0));
        assert_eq!(h.read_csr(csr::MISA).map(|m| m >> 20 & 1), Some(1), "misa says U-mode");
        h.meip = true;
        assert_eq!(h.read_csr(csr::MIP), Some(mip::MEIP), "mip shows the line");
    }

    #[test]
    fn csrs_of_absent_features_do_not_exist() {
        let h = gc();
        // medeleg, mideleg, satp, sstatus, pmpcfg0, pmpaddr0, mnstatus, mcountinhibit, mhpmcounter3, mstatush.
        for number in [0x302, 0x303, 0x180, 0x100, 0x3a0, 0x3b0, 0x744, 0x320, 0xb03, 0x310] {
            assert_eq!(h.read_csr(number), None, "{number:#x}");
        }
    }

    #[test]
    fn access_checks_follow_the_csr_number() {
        let mut h = gc();
        // Machine mode: everything that exists; writes to read-only numbers are refused.
        assert_eq!(h.check_csr_access(csr::MSTATUS, true), Ok(()));
        assert_eq!(h.check_csr_access(csr::MHARTID, false), Ok(()));
        assert_eq!(h.check_csr_access(csr::MHARTID, true), Err("read-only CSR"));
        assert_eq!(h.check_csr_access(csr::CYCLE, true), Err("read-only CSR"));
        assert_eq!(h.check_csr_access(csr::CYCLE, false), Ok(()), "M-mode reads counters whatever mcounteren says");
        // User mode: no machine-mode CSR, even for reading; the FP CSRs are user CSRs.
        h.privilege = Privilege::User;
        for number in [csr::MSTATUS, csr::MSCRATCH, csr::MEPC, csr::MHARTID, csr::MCYCLE] {
            assert!(h.check_csr_access(number, false).is_err(), "{number:#x}");
        }
        assert_eq!(h.check_csr_access(csr::FCSR, true), Ok(()));
        // Counters in user mode need their mcounteren bit.
        assert!(h.check_csr_access(csr::CYCLE, false).is_err());
        h.mcounteren = 0b101;
        assert_eq!(h.check_csr_access(csr::CYCLE, false), Ok(()));
        assert!(h.check_csr_access(csr::TIME, false).is_err());
        assert_eq!(h.check_csr_access(csr::INSTRET, false), Ok(()));
    }
}
