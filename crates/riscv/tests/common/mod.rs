//! What the instruction and timing tests share: the encoders ([`asm`]), register names and the memory map, and
//! the test machine (a [`Hart`] of a chosen ISA and a [`Ram`]) that decodes each word for its hart's extensions,
//! executes it and checks the pc step and the "a fault changes nothing" rule.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

pub mod asm;

use asm::Insn;
use riscv::decode::decode_for;
use riscv::isa::{Extension, Isa, Op};
use riscv::{decode, execute, Decoded, EnvOp, Fault, Flow, Hart, Ram};
use std::cell::RefCell;
use std::collections::HashSet;

// ------------------------------------------------------------------------------------------------------------
// Registers and memory map
// ------------------------------------------------------------------------------------------------------------

pub const ZERO: u8 = 0;
pub const RA: u8 = 1;
pub const SP: u8 = 2;
pub const T0: u8 = 5;
pub const T1: u8 = 6;
pub const S0: u8 = 8;
pub const S1: u8 = 9;
pub const A0: u8 = 10;
pub const A1: u8 = 11;
pub const A2: u8 = 12;
pub const A3: u8 = 13;
pub const A4: u8 = 14;
pub const A5: u8 = 15;

/// Floating-point registers, by architectural number (as the encoders take them).
pub const FT0: u8 = 0;
pub const FT5: u8 = 5;
pub const FS0: u8 = 8;
pub const FS1: u8 = 9;
pub const FA0: u8 = 10;
pub const FA1: u8 = 11;
pub const FA2: u8 = 12;
pub const FA3: u8 = 13;

/// The RAM: 8 KiB at `BASE`.
pub const BASE: u64 = 0x8000_0000;
pub const RAM_SIZE: usize = 0x2000;
pub const END: u64 = BASE + RAM_SIZE as u64;
/// Where the executed instructions pretend to be (they are never fetched from memory).
pub const CODE: u64 = BASE + 0x400;
/// A naturally aligned data area inside the RAM.
pub const DATA: u64 = BASE + 0x1000;

pub const MSCRATCH: u16 = 0x340;
pub const MHARTID: u16 = 0xf14;
pub const MISA: u16 = 0x301;
pub const CYCLE: u16 = 0xc00;
pub const TIME: u16 = 0xc01;
pub const INSTRET: u16 = 0xc02;
pub const UNKNOWN_CSR: u16 = 0x7c0;
pub const FFLAGS: u16 = 0x001;
pub const FRM: u16 = 0x002;
pub const FCSR: u16 = 0x003;

/// Frequently used 64-bit values.
pub const I64_MIN: u64 = 0x8000_0000_0000_0000;
pub const I64_MAX: u64 = 0x7fff_ffff_ffff_ffff;
pub const NEG1: u64 = u64::MAX;
/// `i32::MIN` sign-extended to 64 bits.
pub const I32_MIN_SEXT: u64 = 0xffff_ffff_8000_0000;

// ------------------------------------------------------------------------------------------------------------
// The test machine
// ------------------------------------------------------------------------------------------------------------

thread_local! {
    /// Ops executed on this thread (read by the coverage test, which runs every group on its own thread).
    pub static EXECUTED: RefCell<HashSet<Op>> = RefCell::new(HashSet::new());
}

/// A test group: its name and its function (each module lists its groups for the coverage test).
pub type Group = (&'static str, fn());

/// Decodes `insn.word` with the ISA-independent decoder, checking that it decodes to `insn.op`.
pub fn decode_insn(insn: Insn) -> Decoded {
    let d = decode(insn.word)
        .unwrap_or_else(|| panic!("{:#010x} (meant as {}) does not decode", insn.word, insn.op.name()));
    assert_eq!(d.op, insn.op, "{:#010x} decodes to the wrong instruction", insn.word);
    d
}

/// Decodes `insn` as a hart with `isa` does, checking the op and the length; a 32-bit word must decode to the same
/// thing with the ISA-independent decoder.
pub fn decode_insn_for(insn: Insn, isa: Isa) -> Decoded {
    let d = decode_for(insn.word, isa).unwrap_or_else(|| {
        panic!("{:#010x} (meant as {}) does not decode on an {isa} hart", insn.word, insn.op.name())
    });
    assert_eq!(d.op, insn.op, "{:#010x} decodes to the wrong instruction on an {isa} hart", insn.word);
    assert_eq!(d.len, insn.len(), "{:#010x} ({}): length", insn.word, insn.op.name());
    if insn.len() == 4 {
        assert_eq!(decode(insn.word), Some(d), "{:#010x}: decode and decode_for disagree", insn.word);
    }
    d
}

/// Architectural state except memory, for "nothing changed" checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HartState {
    x: [u64; 32],
    f: [u64; 32],
    pc: u64,
    hart_id: u64,
    cycle: u64,
    instret: u64,
    mscratch: u64,
    fflags: u8,
    frm: u8,
    reservation: u64,
}

impl HartState {
    pub fn of(h: &Hart) -> HartState {
        HartState {
            x: h.x,
            f: h.f,
            pc: h.pc,
            hart_id: h.hart_id,
            cycle: h.cycle,
            instret: h.instret,
            mscratch: h.mscratch,
            fflags: h.fflags,
            frm: h.frm,
            reservation: h.reservation,
        }
    }
}

pub struct Machine {
    pub hart: Hart,
    pub ram: Ram,
}

impl Machine {
    /// An RV64IM hart (what `Hart::new` makes) at `CODE` with zeroed registers and zeroed RAM.
    pub fn new() -> Machine {
        Machine { hart: Hart::new(0, CODE), ram: Ram::new(BASE, RAM_SIZE) }
    }

    /// A hart with the extensions of `isa`.
    pub fn with_isa(isa: Isa) -> Machine {
        Machine { hart: Hart::with_isa(0, CODE, isa), ram: Ram::new(BASE, RAM_SIZE) }
    }

    /// An RV64GC hart.
    pub fn gc() -> Machine {
        Machine::with_isa(Isa::RV64GC)
    }

    /// An RV64IM machine with some registers preset.
    pub fn with(regs: &[(u8, u64)]) -> Machine {
        Machine::new().and(regs)
    }

    /// Presets some registers.
    pub fn and(mut self, regs: &[(u8, u64)]) -> Machine {
        for &(r, v) in regs {
            self.set(r, v);
        }
        self
    }

    pub fn set(&mut self, r: u8, v: u64) {
        assert_ne!(r, 0, "x0 cannot be preset");
        self.hart.x[r as usize] = v;
    }

    pub fn get(&self, r: u8) -> u64 {
        self.hart.x[r as usize]
    }

    /// Sets f register `r` to raw 64 bits.
    pub fn set_f(&mut self, r: u8, bits: u64) {
        self.hart.f[r as usize] = bits;
    }

    /// Sets f register `r` to a NaN-boxed single.
    pub fn set_s(&mut self, r: u8, bits: u32) {
        self.hart.f[r as usize] = 0xffff_ffff_0000_0000 | u64::from(bits);
    }

    /// The raw 64 bits of f register `r`.
    pub fn f(&self, r: u8) -> u64 {
        self.hart.f[r as usize]
    }

    pub fn poke(&mut self, addr: u64, bytes: &[u8]) {
        self.ram.write_bytes(addr, bytes).expect("poke inside RAM");
    }

    pub fn peek(&self, addr: u64, len: usize) -> Vec<u8> {
        self.ram.slice(addr, len).expect("peek inside RAM").to_vec()
    }

    pub fn peek_u64(&self, addr: u64) -> u64 {
        u64::from_le_bytes(self.peek(addr, 8).try_into().unwrap())
    }

    pub fn poke_u64(&mut self, addr: u64, v: u64) {
        self.poke(addr, &v.to_le_bytes());
    }

    /// Decodes (for this hart's ISA) and executes one instruction, recording its op for the coverage test.
    pub fn step(&mut self, insn: Insn) -> Result<Flow, Fault> {
        let d = decode_insn_for(insn, self.hart.isa);
        EXECUTED.with(|e| e.borrow_mut().insert(d.op));
        execute(&mut self.hart, &mut self.ram, d)
    }

    /// Executes an instruction that must fall through (`Ok(Flow::Next)`, pc advanced by its length).
    pub fn next(&mut self, insn: Insn) {
        let pc = self.hart.pc;
        let flow = self.step(insn);
        assert_eq!(flow, Ok(Flow::Next), "{} ({:#010x})", insn.op.name(), insn.word);
        let len = insn.len();
        assert_eq!(self.hart.pc, pc.wrapping_add(u64::from(len)), "{} must advance the pc by {len}", insn.op.name());
    }

    /// Executes an instruction that must fault, and checks that registers (x and f), pc, CSRs, the reservation
    /// and memory are unchanged.
    pub fn fault(&mut self, insn: Insn) -> Fault {
        let hart = HartState::of(&self.hart);
        let ram = self.ram.bytes.clone();
        let fault = match self.step(insn) {
            Err(f) => f,
            Ok(flow) => panic!("{} ({:#010x}) should fault but returned {flow:?}", insn.op.name(), insn.word),
        };
        assert_eq!(HartState::of(&self.hart), hart, "{} faulted ({fault:?}) but changed the hart", insn.op.name());
        assert!(self.ram.bytes == ram, "{} faulted ({fault:?}) but changed memory", insn.op.name());
        fault
    }

    /// Executes an instruction that must hand control to the environment: the pc stays on it and nothing else
    /// changes either.
    pub fn environment(&mut self, insn: Insn) -> EnvOp {
        let hart = HartState::of(&self.hart);
        let ram = self.ram.bytes.clone();
        let env = match self.step(insn) {
            Ok(Flow::Environment(env)) => env,
            other => panic!("{} should return Flow::Environment, got {other:?}", insn.op.name()),
        };
        assert_eq!(HartState::of(&self.hart), hart, "{} must leave the hart to the environment", insn.op.name());
        assert!(self.ram.bytes == ram, "{} changed memory", insn.op.name());
        env
    }
}

/// Panics listing every mismatch, so one run reports all wrong results of a table.
pub fn report(failures: Vec<String>) {
    assert!(failures.is_empty(), "{} wrong result(s):\n{}", failures.len(), failures.join("\n"));
}

/// `op a0, a1, a2` on a fresh machine; the result in a0 (sources checked to be unchanged).
pub fn run_r(f: fn(u8, u8, u8) -> Insn, a: u64, b: u64) -> u64 {
    let mut m = Machine::with(&[(A1, a), (A2, b)]);
    m.next(f(A0, A1, A2));
    assert_eq!((m.get(A1), m.get(A2)), (a, b), "sources must be unchanged");
    m.get(A0)
}

/// `op a0, a1, imm`
pub fn run_i(f: fn(u8, u8, i32) -> Insn, a: u64, imm: i32) -> u64 {
    let mut m = Machine::with(&[(A1, a)]);
    m.next(f(A0, A1, imm));
    assert_eq!(m.get(A1), a, "source must be unchanged");
    m.get(A0)
}

/// `op a0, a1, shamt`
pub fn run_shift(f: fn(u8, u8, u32) -> Insn, a: u64, shamt: u32) -> u64 {
    let mut m = Machine::with(&[(A1, a)]);
    m.next(f(A0, A1, shamt));
    m.get(A0)
}

/// Checks `(rs1, rs2, expected rd)` cases of a register-register instruction.
pub fn check_r(f: fn(u8, u8, u8) -> Insn, cases: &[(u64, u64, u64)]) {
    let name = f(0, 0, 0).op.name();
    let mut failures = Vec::new();
    for &(a, b, want) in cases {
        let got = run_r(f, a, b);
        if got != want {
            failures.push(format!("{name} {a:#x}, {b:#x}: expected {want:#x}, got {got:#x}"));
        }
    }
    report(failures);
}

/// Checks `(rs1, imm, expected rd)` cases of a register-immediate instruction.
pub fn check_i(f: fn(u8, u8, i32) -> Insn, cases: &[(u64, i32, u64)]) {
    let name = f(0, 0, 0).op.name();
    let mut failures = Vec::new();
    for &(a, imm, want) in cases {
        let got = run_i(f, a, imm);
        if got != want {
            failures.push(format!("{name} {a:#x}, {imm}: expected {want:#x}, got {got:#x}"));
        }
    }
    report(failures);
}

/// Checks `(rs1, shamt, expected rd)` cases of a shift-by-immediate instruction.
pub fn check_shift(f: fn(u8, u8, u32) -> Insn, cases: &[(u64, u32, u64)]) {
    let name = f(0, 0, 0).op.name();
    let mut failures = Vec::new();
    for &(a, shamt, want) in cases {
        let got = run_shift(f, a, shamt);
        if got != want {
            failures.push(format!("{name} {a:#x}, {shamt}: expected {want:#x}, got {got:#x}"));
        }
    }
    report(failures);
}

// ------------------------------------------------------------------------------------------------------------
// Instruction lists
// ------------------------------------------------------------------------------------------------------------

/// One instance of every A, F and D instruction with the extension the specification puts it in (fcvt.s.d and
/// fcvt.d.s are D instructions; fmv.x.w and fmv.w.x are F's).
pub fn every_afd_instruction() -> Vec<(Insn, Extension)> {
    use Extension::{A, D, F};
    let (r, x) = (asm::rm::RNE, A1);
    vec![
        (asm::lr_w(A0, A1), A),
        (asm::sc_w(A0, A2, A1), A),
        (asm::amoswap_w(A0, A2, A1), A),
        (asm::amoadd_w(A0, A2, A1), A),
        (asm::amoxor_w(A0, A2, A1), A),
        (asm::amoand_w(A0, A2, A1), A),
        (asm::amoor_w(A0, A2, A1), A),
        (asm::amomin_w(A0, A2, A1), A),
        (asm::amomax_w(A0, A2, A1), A),
        (asm::amominu_w(A0, A2, A1), A),
        (asm::amomaxu_w(A0, A2, A1), A),
        (asm::lr_d(A0, A1), A),
        (asm::sc_d(A0, A2, A1), A),
        (asm::amoswap_d(A0, A2, A1), A),
        (asm::amoadd_d(A0, A2, A1), A),
        (asm::amoxor_d(A0, A2, A1), A),
        (asm::amoand_d(A0, A2, A1), A),
        (asm::amoor_d(A0, A2, A1), A),
        (asm::amomin_d(A0, A2, A1), A),
        (asm::amomax_d(A0, A2, A1), A),
        (asm::amominu_d(A0, A2, A1), A),
        (asm::amomaxu_d(A0, A2, A1), A),
        (asm::flw(FA0, 8, x), F),
        (asm::fsw(FA0, 8, x), F),
        (asm::fmadd_s(FA0, FA1, FA2, FA3, r), F),
        (asm::fmsub_s(FA0, FA1, FA2, FA3, r), F),
        (asm::fnmsub_s(FA0, FA1, FA2, FA3, r), F),
        (asm::fnmadd_s(FA0, FA1, FA2, FA3, r), F),
        (asm::fadd_s(FA0, FA1, FA2, r), F),
        (asm::fsub_s(FA0, FA1, FA2, r), F),
        (asm::fmul_s(FA0, FA1, FA2, r), F),
        (asm::fdiv_s(FA0, FA1, FA2, r), F),
        (asm::fsqrt_s(FA0, FA1, r), F),
        (asm::fsgnj_s(FA0, FA1, FA2), F),
        (asm::fsgnjn_s(FA0, FA1, FA2), F),
        (asm::fsgnjx_s(FA0, FA1, FA2), F),
        (asm::fmin_s(FA0, FA1, FA2), F),
        (asm::fmax_s(FA0, FA1, FA2), F),
        (asm::fcvt_w_s(A0, FA1, r), F),
        (asm::fcvt_wu_s(A0, FA1, r), F),
        (asm::fcvt_l_s(A0, FA1, r), F),
        (asm::fcvt_lu_s(A0, FA1, r), F),
        (asm::fmv_x_w(A0, FA1), F),
        (asm::feq_s(A0, FA1, FA2), F),
        (asm::flt_s(A0, FA1, FA2), F),
        (asm::fle_s(A0, FA1, FA2), F),
        (asm::fclass_s(A0, FA1), F),
        (asm::fcvt_s_w(FA0, x, r), F),
        (asm::fcvt_s_wu(FA0, x, r), F),
        (asm::fcvt_s_l(FA0, x, r), F),
        (asm::fcvt_s_lu(FA0, x, r), F),
        (asm::fmv_w_x(FA0, x), F),
        (asm::fld(FA0, 8, x), D),
        (asm::fsd(FA0, 8, x), D),
        (asm::fmadd_d(FA0, FA1, FA2, FA3, r), D),
        (asm::fmsub_d(FA0, FA1, FA2, FA3, r), D),
        (asm::fnmsub_d(FA0, FA1, FA2, FA3, r), D),
        (asm::fnmadd_d(FA0, FA1, FA2, FA3, r), D),
        (asm::fadd_d(FA0, FA1, FA2, r), D),
        (asm::fsub_d(FA0, FA1, FA2, r), D),
        (asm::fmul_d(FA0, FA1, FA2, r), D),
        (asm::fdiv_d(FA0, FA1, FA2, r), D),
        (asm::fsqrt_d(FA0, FA1, r), D),
        (asm::fsgnj_d(FA0, FA1, FA2), D),
        (asm::fsgnjn_d(FA0, FA1, FA2), D),
        (asm::fsgnjx_d(FA0, FA1, FA2), D),
        (asm::fmin_d(FA0, FA1, FA2), D),
        (asm::fmax_d(FA0, FA1, FA2), D),
        (asm::fcvt_s_d(FA0, FA1, r), D),
        (asm::fcvt_d_s(FA0, FA1, r), D),
        (asm::feq_d(A0, FA1, FA2), D),
        (asm::flt_d(A0, FA1, FA2), D),
        (asm::fle_d(A0, FA1, FA2), D),
        (asm::fclass_d(A0, FA1), D),
        (asm::fcvt_w_d(A0, FA1, r), D),
        (asm::fcvt_wu_d(A0, FA1, r), D),
        (asm::fcvt_l_d(A0, FA1, r), D),
        (asm::fcvt_lu_d(A0, FA1, r), D),
        (asm::fmv_x_d(A0, FA1), D),
        (asm::fcvt_d_w(FA0, x, r), D),
        (asm::fcvt_d_wu(FA0, x, r), D),
        (asm::fcvt_d_l(FA0, x, r), D),
        (asm::fcvt_d_lu(FA0, x, r), D),
        (asm::fmv_d_x(FA0, x), D),
    ]
}
