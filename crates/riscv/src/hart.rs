//! Architectural state of one hart: integer and floating-point registers, pc, the LR/SC reservation and the CSRs
//! a bare-metal program uses.

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
            _ => return None,
        })
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
        }
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
            csr::MISA => self.isa.misa(),
            csr::MSCRATCH => self.mscratch,
            csr::FFLAGS if self.has_fp() => u64::from(self.fflags),
            csr::FRM if self.has_fp() => u64::from(self.frm),
            csr::FCSR if self.has_fp() => u64::from(self.frm << 5 | self.fflags),
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
            _ if self.read_csr(number).is_some() => Err("read-only CSR"),
            _ => Err("no such CSR"),
        }
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
