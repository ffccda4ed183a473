//! The timing model of an in-order, single-issue, 5-stage pipeline (fetch, decode, execute, memory, write-back
//! with full forwarding), kept apart from execution as a latency table that each chip configures.
//!
//! An instruction occupies the pipeline for its class's latency (`alu_cycles` for most, `mul_cycles` for
//! multiplies, `div32_cycles`/`div64_cycles` for divisions and remainders, `memory_cycles` for loads and stores,
//! `memory_cycles` plus `amo_penalty_cycles` or `lr_sc_penalty_cycles` for atomics, and the `fp_*` latencies of a
//! classic in-order FPU for floating point); on top of that:
//! * a taken branch costs `taken_branch_penalty_cycles` and a jump `jump_penalty_cycles` (the instructions fetched
//!   behind it are squashed);
//! * an instruction reading the destination of the load just before it waits `load_use_stall_cycles` (the value
//!   only exists after the memory stage), `fp_load_use_stall_cycles` for an FP load; LR, SC and AMOs count as loads.
//!
//! A compressed instruction costs what the instruction it expands to costs. Everything beyond one cycle per
//! instruction is counted as a stall of its cause, so cycles = instructions + sum of stalls.

use crate::decode::Decoded;
use crate::isa::{Op, OP_COUNT};
use serde::{Deserialize, Serialize};

/// Latencies in cycles. Defaults are the classic 5-stage pipeline of the PIMP evaluation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Timing {
    pub alu_cycles: u32,
    pub load_use_stall_cycles: u32,
    pub taken_branch_penalty_cycles: u32,
    pub jump_penalty_cycles: u32,
    pub mul_cycles: u32,
    pub div32_cycles: u32,
    pub div64_cycles: u32,
    pub memory_cycles: u32,
    /// Added to `memory_cycles` for an AMO (read, modify, write).
    pub amo_penalty_cycles: u32,
    /// Added to `memory_cycles` for LR and SC.
    pub lr_sc_penalty_cycles: u32,
    /// FP add and subtract.
    pub fp_add_cycles: u32,
    pub fp_mul_cycles: u32,
    /// Fused multiply-add (all four kinds).
    pub fp_fma_cycles: u32,
    pub fp_div32_cycles: u32,
    pub fp_div64_cycles: u32,
    pub fp_sqrt32_cycles: u32,
    pub fp_sqrt64_cycles: u32,
    /// Conversions between the formats and to and from integers.
    pub fp_convert_cycles: u32,
    /// Sign injection, min/max, compares, classify and moves between register files.
    pub fp_misc_cycles: u32,
    /// What an instruction reading the destination of the FP load just before it waits.
    pub fp_load_use_stall_cycles: u32,
    /// Added to a misaligned load or store on a chip that performs them (split into aligned accesses).
    pub misaligned_penalty_cycles: u32,
}

impl Default for Timing {
    /// The classic 5-stage pipeline of the PIMP evaluation; FP latencies of a classic in-order FPU (FADD/FMUL 3,
    /// FMA 4, FDIV and FSQRT 20/33 single/double, conversions 2, as listed in issue 16).
    fn default() -> Timing {
        Timing {
            alu_cycles: 1,
            load_use_stall_cycles: 1,
            taken_branch_penalty_cycles: 2,
            jump_penalty_cycles: 2,
            mul_cycles: 5,
            div32_cycles: 34,
            div64_cycles: 66,
            memory_cycles: 1,
            amo_penalty_cycles: 2,
            lr_sc_penalty_cycles: 1,
            fp_add_cycles: 3,
            fp_mul_cycles: 3,
            fp_fma_cycles: 4,
            fp_div32_cycles: 20,
            fp_div64_cycles: 33,
            fp_sqrt32_cycles: 20,
            fp_sqrt64_cycles: 33,
            fp_convert_cycles: 2,
            fp_misc_cycles: 1,
            fp_load_use_stall_cycles: 1,
            misaligned_penalty_cycles: 2,
        }
    }
}

/// Which latency an instruction takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatencyClass {
    Alu,
    Load,
    Store,
    Branch,
    Jump,
    Mul,
    Div32,
    Div64,
    /// AMOs (the old value is loaded: a later reader waits as after a load).
    Amo,
    /// LR (a load) and SC.
    LrSc,
    FpLoad,
    FpStore,
    FpAdd,
    FpMul,
    FpFma,
    FpDiv32,
    FpDiv64,
    FpSqrt32,
    FpSqrt64,
    FpConvert,
    FpMisc,
    /// CSR access, fences, environment calls and custom instructions: one ALU slot here; whatever else they cost
    /// (a semihosting call, a network interface) is the environment's business.
    System,
}

impl LatencyClass {
    /// Whether the class's result comes from memory, so that the next instruction reading it waits.
    pub fn loads(self) -> bool {
        matches!(self, LatencyClass::Load | LatencyClass::FpLoad | LatencyClass::Amo | LatencyClass::LrSc)
    }

    pub fn of(op: Op) -> LatencyClass {
        use Op::*;
        match op {
            LrW | LrD | ScW | ScD => LatencyClass::LrSc,
            AmoswapW | AmoaddW | AmoxorW | AmoandW | AmoorW | AmominW | AmomaxW | AmominuW | AmomaxuW | AmoswapD
            | AmoaddD | AmoxorD | AmoandD | AmoorD | AmominD | AmomaxD | AmominuD | AmomaxuD => LatencyClass::Amo,
            Flw | Fld => LatencyClass::FpLoad,
            Fsw | Fsd => LatencyClass::FpStore,
            FaddS | FsubS | FaddD | FsubD => LatencyClass::FpAdd,
            FmulS | FmulD => LatencyClass::FpMul,
            FmaddS | FmsubS | FnmsubS | FnmaddS | FmaddD | FmsubD | FnmsubD | FnmaddD => LatencyClass::FpFma,
            FdivS => LatencyClass::FpDiv32,
            FdivD => LatencyClass::FpDiv64,
            FsqrtS => LatencyClass::FpSqrt32,
            FsqrtD => LatencyClass::FpSqrt64,
            FcvtWS | FcvtWuS | FcvtLS | FcvtLuS | FcvtSW | FcvtSWu | FcvtSL | FcvtSLu | FcvtSD | FcvtDS | FcvtWD
            | FcvtWuD | FcvtLD | FcvtLuD | FcvtDW | FcvtDWu | FcvtDL | FcvtDLu => LatencyClass::FpConvert,
            FsgnjS | FsgnjnS | FsgnjxS | FminS | FmaxS | FmvXW | FeqS | FltS | FleS | FclassS | FmvWX | FsgnjD | FsgnjnD
            | FsgnjxD | FminD | FmaxD | FeqD | FltD | FleD | FclassD | FmvXD | FmvDX => LatencyClass::FpMisc,
            Lui | Auipc | Addi | Slti | Sltiu | Xori | Ori | Andi | Slli | Srli | Srai | Add | Sub | Sll | Slt | Sltu
            | Xor | Srl | Sra | Or | And | Addiw | Slliw | Srliw | Sraiw | Addw | Subw | Sllw | Srlw | Sraw => LatencyClass::Alu,
            Lb | Lh | Lw | Ld | Lbu | Lhu | Lwu => LatencyClass::Load,
            Sb | Sh | Sw | Sd => LatencyClass::Store,
            Beq | Bne | Blt | Bge | Bltu | Bgeu | PimpBrs | PimpBns | PimpBar | PimpBnr => LatencyClass::Branch,
            Jal | Jalr | Mret => LatencyClass::Jump,
            Mul | Mulh | Mulhsu | Mulhu | Mulw => LatencyClass::Mul,
            Divw | Divuw | Remw | Remuw => LatencyClass::Div32,
            Div | Divu | Rem | Remu => LatencyClass::Div64,
            Fence | FenceI | Wfi | Ecall | Ebreak | Csrrw | Csrrs | Csrrc | Csrrwi | Csrrsi | Csrrci | PimpSend | PimpRecv
            | PimpSrc => LatencyClass::System,
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("timing: {0}")]
pub struct TimingError(String);

impl Timing {
    pub fn validate(&self) -> Result<(), TimingError> {
        let one_or_more = [
            ("alu_cycles", self.alu_cycles),
            ("mul_cycles", self.mul_cycles),
            ("div32_cycles", self.div32_cycles),
            ("div64_cycles", self.div64_cycles),
            ("memory_cycles", self.memory_cycles),
            ("fp_add_cycles", self.fp_add_cycles),
            ("fp_mul_cycles", self.fp_mul_cycles),
            ("fp_fma_cycles", self.fp_fma_cycles),
            ("fp_div32_cycles", self.fp_div32_cycles),
            ("fp_div64_cycles", self.fp_div64_cycles),
            ("fp_sqrt32_cycles", self.fp_sqrt32_cycles),
            ("fp_sqrt64_cycles", self.fp_sqrt64_cycles),
            ("fp_convert_cycles", self.fp_convert_cycles),
            ("fp_misc_cycles", self.fp_misc_cycles),
        ];
        for (name, v) in one_or_more {
            if v == 0 || v > 10_000 {
                return Err(TimingError(format!("{name} = {v}: must be between 1 and 10000")));
            }
        }
        for (name, v) in [
            ("load_use_stall_cycles", self.load_use_stall_cycles),
            ("taken_branch_penalty_cycles", self.taken_branch_penalty_cycles),
            ("jump_penalty_cycles", self.jump_penalty_cycles),
            ("amo_penalty_cycles", self.amo_penalty_cycles),
            ("lr_sc_penalty_cycles", self.lr_sc_penalty_cycles),
            ("fp_load_use_stall_cycles", self.fp_load_use_stall_cycles),
            ("misaligned_penalty_cycles", self.misaligned_penalty_cycles),
        ] {
            if v > 10_000 {
                return Err(TimingError(format!("{name} = {v}: must be at most 10000")));
            }
        }
        Ok(())
    }

    pub fn latency(&self, class: LatencyClass) -> u32 {
        match class {
            LatencyClass::Alu | LatencyClass::Branch | LatencyClass::Jump | LatencyClass::System => self.alu_cycles,
            LatencyClass::Load | LatencyClass::Store | LatencyClass::FpLoad | LatencyClass::FpStore => self.memory_cycles,
            LatencyClass::Mul => self.mul_cycles,
            LatencyClass::Div32 => self.div32_cycles,
            LatencyClass::Div64 => self.div64_cycles,
            LatencyClass::Amo => self.memory_cycles.saturating_add(self.amo_penalty_cycles),
            LatencyClass::LrSc => self.memory_cycles.saturating_add(self.lr_sc_penalty_cycles),
            LatencyClass::FpAdd => self.fp_add_cycles,
            LatencyClass::FpMul => self.fp_mul_cycles,
            LatencyClass::FpFma => self.fp_fma_cycles,
            LatencyClass::FpDiv32 => self.fp_div32_cycles,
            LatencyClass::FpDiv64 => self.fp_div64_cycles,
            LatencyClass::FpSqrt32 => self.fp_sqrt32_cycles,
            LatencyClass::FpSqrt64 => self.fp_sqrt64_cycles,
            LatencyClass::FpConvert => self.fp_convert_cycles,
            LatencyClass::FpMisc => self.fp_misc_cycles,
        }
    }

    /// Per-op occupancy, looked up once per instruction by the fast loop.
    pub fn cost_table(&self) -> CostTable {
        let mut cycles = [0u32; OP_COUNT];
        let mut class = [LatencyClass::Alu; OP_COUNT];
        let mut load_use = [0u32; OP_COUNT];
        for op in Op::all() {
            class[op as usize] = LatencyClass::of(op);
            cycles[op as usize] = self.latency(class[op as usize]);
            load_use[op as usize] = match class[op as usize] {
                LatencyClass::FpLoad => self.fp_load_use_stall_cycles,
                c if c.loads() => self.load_use_stall_cycles,
                _ => 0,
            };
        }
        CostTable {
            cycles,
            class,
            load_use,
            taken_branch: self.taken_branch_penalty_cycles,
            jump: self.jump_penalty_cycles,
            misaligned: self.misaligned_penalty_cycles,
        }
    }
}

/// [`Timing`] flattened for the execution loop.
#[derive(Clone, Debug)]
pub struct CostTable {
    pub cycles: [u32; OP_COUNT],
    pub class: [LatencyClass; OP_COUNT],
    /// What an instruction reading this op's destination right after it waits (0: not a load).
    pub load_use: [u32; OP_COUNT],
    pub taken_branch: u32,
    pub jump: u32,
    /// The penalty of a split misaligned access.
    pub misaligned: u32,
}

/// Pipeline state carried between instructions, and the stall counts it produces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pipeline {
    /// Destination of the previous instruction if it was a load (0 otherwise: x0 never stalls anyone; f registers
    /// are numbered from [`crate::decode::F0`], so f0 does).
    pub pending_load_rd: u8,
    /// What reading `pending_load_rd` costs the next instruction.
    pub pending_load_use: u32,
    pub load_use_stalls: u64,
    /// Cycles of those stalls (integer and FP loads may stall for different times).
    pub load_use_stall_cycles: u64,
    pub taken_branches: u64,
    pub jumps: u64,
}

impl Pipeline {
    /// Cycles `d` takes given how it changed control flow (`redirected`); updates the hazard state.
    #[inline(always)]
    pub fn cycles(&mut self, costs: &CostTable, d: &Decoded, redirected: bool) -> u64 {
        let stall = self.stall(d);
        self.charge(costs, d.op, d.rd, stall, redirected)
    }

    /// The load-use stall `d` will pay (0 if it reads no register the previous load is writing). Changes nothing:
    /// the interpreter asks before executing, while the source registers are at hand, and charges it with
    /// [`Self::charge`] once the instruction has completed.
    #[inline(always)]
    pub fn stall(&self, d: &Decoded) -> u32 {
        let p = self.pending_load_rd;
        if p != 0 && (d.rs1 == p || d.rs2 == p || d.rs3 == p) {
            self.pending_load_use
        } else {
            0
        }
    }

    /// Cycles of a completed instruction of `op` writing `rd` that stalled `stall` cycles (from [`Self::stall`]),
    /// given how it changed control flow (`redirected`); updates the hazard state. A load always sets a nonzero
    /// load-use cost, so a stall is never 0 when there was a hazard.
    #[inline(always)]
    pub fn charge(&mut self, costs: &CostTable, op: Op, rd: u8, stall: u32, redirected: bool) -> u64 {
        let mut c = costs.cycles[op as usize];
        if stall != 0 {
            self.load_use_stalls += 1;
            self.load_use_stall_cycles += u64::from(stall);
            c += stall;
        }
        if redirected {
            if costs.class[op as usize] == LatencyClass::Jump {
                self.jumps += 1;
                c += costs.jump;
            } else {
                self.taken_branches += 1;
                c += costs.taken_branch;
            }
        }
        let load_use = costs.load_use[op as usize];
        self.pending_load_rd = if load_use != 0 { rd } else { 0 };
        self.pending_load_use = load_use;
        u64::from(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode;

    #[test]
    fn load_use_taken_branch_and_long_ops() {
        let t = Timing::default();
        let costs = t.cost_table();
        let mut p = Pipeline::default();
        let ld = decode(0x0005_3503).unwrap(); // ld a0, 0(a0)
        let add = decode(0x00b5_0533).unwrap(); // add a0, a0, a1
        let beq = decode(0xfeb5_0ee3).unwrap(); // beq a0, a1, -4
        let div = decode(0x02b5_4533).unwrap(); // div a0, a0, a1
        let divw = decode(0x02b5_453b).unwrap();
        let mul = decode(0x02b5_0533).unwrap();
        assert_eq!(p.cycles(&costs, &ld, false), 1);
        assert_eq!(p.cycles(&costs, &add, false), 2, "add reads the loaded a0");
        assert_eq!(p.cycles(&costs, &add, false), 1);
        assert_eq!(p.cycles(&costs, &beq, true), 3);
        assert_eq!(p.cycles(&costs, &beq, false), 1);
        assert_eq!(p.cycles(&costs, &div, false), 66);
        assert_eq!(p.cycles(&costs, &divw, false), 34);
        assert_eq!(p.cycles(&costs, &mul, false), 5);
        assert_eq!((p.load_use_stalls, p.taken_branches, p.jumps), (1, 1, 0));
        // A load into x0 stalls nobody.
        let ld0 = decode(0x0005_3003).unwrap(); // ld x0, 0(a0)
        p.cycles(&costs, &ld0, false);
        assert_eq!(p.cycles(&costs, &decode(0x0000_0033).unwrap(), false), 1); // add x0, x0, x0
    }

    #[test]
    fn every_op_has_a_class() {
        for op in Op::all() {
            assert!(Timing::default().latency(LatencyClass::of(op)) >= 1);
        }
    }

    #[test]
    fn rejects_zero_latency() {
        let t = Timing { mul_cycles: 0, ..Timing::default() };
        assert_eq!(t.validate().unwrap_err().to_string(), "timing: mul_cycles = 0: must be between 1 and 10000");
    }
}
