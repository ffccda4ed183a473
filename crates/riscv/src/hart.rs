//! Architectural state of one hart: registers, pc and the few CSRs a bare-metal program reads.

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

    /// `misa` of an RV64IM hart: MXL = 2 (64-bit), extensions I and M.
    pub const MISA_RV64IM: u64 = (2 << 62) | (1 << 8) | (1 << 12);

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
            _ => return None,
        })
    }
}

/// Registers, pc and CSR state. `cycle` and `instret` are maintained by whoever runs the hart (the timing model
/// decides how many cycles an instruction takes); the `cycle`, `time` and `instret` CSRs read them.
#[derive(Clone, Debug)]
pub struct Hart {
    pub x: [u64; 32],
    pub pc: u64,
    pub hart_id: u64,
    pub cycle: u64,
    pub instret: u64,
    pub mscratch: u64,
}

impl Hart {
    pub fn new(hart_id: u64, pc: u64) -> Hart {
        Hart { x: [0; 32], pc, hart_id, cycle: 0, instret: 0, mscratch: 0 }
    }

    /// Reads a CSR; `None` if it does not exist.
    pub fn read_csr(&self, number: u16) -> Option<u64> {
        Some(match number {
            csr::CYCLE | csr::MCYCLE | csr::TIME => self.cycle,
            csr::INSTRET | csr::MINSTRET => self.instret,
            csr::MVENDORID | csr::MARCHID | csr::MIMPID => 0,
            csr::MHARTID => self.hart_id,
            csr::MISA => csr::MISA_RV64IM,
            csr::MSCRATCH => self.mscratch,
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
