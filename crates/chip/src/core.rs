//! One tile's core: an RV64 hart (the chip's extensions, `core.isa`) with its private memory, run by a fast loop
//! over pre-decoded program text.
//!
//! Every core of a chip runs the same program, so the program text is decoded once and shared. A core that writes
//! into its own text (self-modifying code, a JIT) switches to decoding from its memory at every fetch, which is
//! slow but exact. A core never touches another core's state, so it can run ahead of the global clock until its
//! next interaction with the outside world: [`Core::run`] stops in front of a network interface instruction and
//! the chip executes it once the network has caught up (semihosting is per core and needs no such care).
//!
//! Exceptions (illegal instruction, misaligned or out-of-memory access, `ecall`, an `ebreak` that is not a
//! semihosting call) stop the core with a precise report, unless the program has installed a machine-mode trap
//! handler (`mtvec` != 0): then the core takes the trap ([`riscv::trap`]) and goes on in the handler. Taking a
//! trap costs `jump_penalty_cycles` (the fetches behind the faulting instruction are squashed, as behind a jump,
//! and are counted with the jumps' stalls); the faulting instruction does not retire. A trap raised by the first
//! instruction of the handler itself stops the core (it would trap forever). Misuse of a network interface
//! (`recv` on an empty FIFO...) and the stack-pointer check stop the core whatever `mtvec` holds: they are the
//! simulator's diagnostics, not architectural exceptions.

use crate::shmem::MemSystem;
use crate::config::NiKind;
use crate::console::Console;
use crate::semihost::{self, FileTable};
use riscv::disasm::disassemble_word;
use riscv::exec::{EnvOp, Fault, Flow};
use riscv::hart::Privilege;
use riscv::isa::{Isa, OP_COUNT};
use riscv::trap::Exception;
use riscv::{CostTable, Decoded, Hart, MemFault, Memory, Pipeline, Ram};
use serde::Serialize;
use std::sync::Arc;

/// Program text decoded once for all cores, for a hart with extensions `isa`: entry `i` is the instruction
/// starting at `base + 2 i` (`None`: not an instruction there, reported if executed). Every halfword has an entry,
/// because with compressed instructions one may start at any; without them only every other entry is reached.
#[derive(Debug)]
pub struct DecodedText {
    pub base: u64,
    pub entries: Vec<Option<Decoded>>,
}

impl DecodedText {
    pub fn new(base: u64, bytes: &[u8], isa: Isa) -> DecodedText {
        let halfwords = bytes.len() / 2;
        let entries = (0..halfwords)
            .map(|i| {
                let at = |k: usize| bytes.get(2 * (i + k)..2 * (i + k) + 2).map_or(0, |b| u32::from(u16::from_le_bytes([b[0], b[1]])));
                let low = at(0);
                // A 32-bit instruction whose second half lies past the text is not one.
                if low & 3 == 3 && i + 1 >= halfwords {
                    return None;
                }
                riscv::decode::decode_for(low | at(1) << 16, isa)
            })
            .collect();
        DecodedText { base, entries }
    }

    fn len_bytes(&self) -> u64 {
        self.entries.len() as u64 * 2
    }
}

/// A tile's private memory, noticing stores into the shared decoded text.
#[derive(Debug)]
pub struct TileMemory {
    pub ram: Ram,
    text_base: u64,
    text_len: u64,
    /// Set once the core has stored into its program text; fetches then decode from memory.
    pub text_written: bool,
    /// Stores into private memory so far (the mpb interface tells a polling loop that writes nothing by it).
    pub stores: u64,
}

impl Memory for TileMemory {
    #[inline(always)]
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, MemFault> {
        self.ram.load(addr, size)
    }

    #[inline(always)]
    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        self.ram.store(addr, size, value)?;
        self.stores += 1;
        if addr.wrapping_sub(self.text_base) < self.text_len {
            self.text_written = true;
        }
        Ok(())
    }
}

/// What kind of error stopped a core: the POSIX signal a process would get for it natively, which also gives
/// `nocmsg run` its exit status (128 + the signal's number, as a shell reports a process killed by it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// A load, store or fetch outside the core's memory (SIGSEGV).
    BadAddress,
    /// A misaligned access or jump target (SIGBUS).
    Misaligned,
    /// An instruction that does not exist or cannot run in this state, network-interface misuse included (SIGILL).
    IllegalInstruction,
    /// `ebreak` outside a semihosting sequence (SIGTRAP).
    Breakpoint,
    /// A system call the core cannot take: `ecall`, a bad semihosting request (SIGSYS).
    System,
}

impl FaultKind {
    /// The signal's name and its number on Linux.
    pub fn signal(self) -> (&'static str, u8) {
        match self {
            FaultKind::BadAddress => ("SIGSEGV", 11),
            FaultKind::Misaligned => ("SIGBUS", 7),
            FaultKind::IllegalInstruction => ("SIGILL", 4),
            FaultKind::Breakpoint => ("SIGTRAP", 5),
            FaultKind::System => ("SIGSYS", 31),
        }
    }
}

/// Why a core stopped before exiting normally: everything needed to find the bug without a debugger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CoreFault {
    pub core: usize,
    pub tile: usize,
    pub pc: u64,
    /// The instruction word at `pc`, if it could be fetched (a compressed parcel's 16 bits on a hart with C).
    pub instruction: Option<u32>,
    /// Bytes of `instruction`: 2 for a compressed parcel, else 4 (how the report prints it).
    #[serde(skip)]
    pub instruction_bytes: u8,
    pub disassembly: String,
    pub kind: FaultKind,
    pub reason: String,
    pub cycle: u64,
}

impl std::fmt::Display for CoreFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "core {} (tile {}) stopped at cycle {}, pc {:#x}", self.core, self.tile, self.cycle, self.pc)?;
        match self.instruction {
            Some(word) if self.instruction_bytes == 2 => write!(f, " [{word:04x}] {}", self.disassembly)?,
            Some(word) => write!(f, " [{word:08x}] {}", self.disassembly)?,
            None => {}
        }
        write!(f, ": {}", self.reason)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum CoreStatus {
    Running,
    Exited { code: i64 },
    Faulted { fault: Box<CoreFault> },
    /// The core ended the whole run (MPI_Abort, abort(): semihosting `NOCMSG_SYS_ABORT`) with this code.
    Aborted { code: i64 },
    /// The core was still running when core `by` aborted the run.
    Stopped { by: usize },
}

/// Why [`Core::run`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStop {
    /// The core's clock reached the horizon.
    Horizon,
    /// The core exited or faulted.
    Stopped,
    /// The next instruction (at the pc, not yet executed, at cycle `hart.cycle`) talks to the network
    /// interface (a custom instruction, or a load or store in its address ranges): the chip runs it once the
    /// network has caught up with the core.
    Ni(Decoded),
    /// An interruptible core ([`Core::irq_armed`]) reached `irq_until`, or retired an instruction that may enable
    /// interrupts: the chip asks the interface, once the network has caught up, whether to take the interrupt
    /// before the instruction at the pc.
    InterruptCheck,
    /// With cached memory: the next instruction (at the pc, not yet executed) needs the memory system in global
    /// time order (a miss, a store that must travel, a fence with stores in flight, an atomic, a semihosting call).
    Memory(Decoded),
}

/// Whether an instruction may have enabled a pending interrupt: `mret` (restores MIE), and CSR writes of `mstatus`
/// or `mie`.
fn may_enable_interrupts(d: &Decoded) -> bool {
    use riscv::hart::csr;
    match d.op {
        riscv::Op::Mret => true,
        riscv::Op::Csrrw | riscv::Op::Csrrs | riscv::Op::Csrrc | riscv::Op::Csrrwi | riscv::Op::Csrrsi | riscv::Op::Csrrci => {
            matches!((d.imm as u32 & 0xfff) as u16, csr::MSTATUS | csr::MIE)
        }
        _ => false,
    }
}

/// The core clock and the network clock, which may differ (the SCC: 533 MHz cores, an 800 MHz mesh). Global time is
/// exact: core cycle `c` is at `c / core MHz` microseconds, network cycle `n` at `n / network MHz`; whatever a core
/// does with the network happens at the first network cycle at or after its core cycle, and what the network
/// delivers reaches the core at the first core cycle at or after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// Periods in units of 1 / lcm(core MHz, network MHz) microseconds.
    core_period: u64,
    net_period: u64,
}

impl Clocks {
    pub fn new(core_mhz: u64, net_mhz: u64) -> Clocks {
        let (mut a, mut b) = (core_mhz, net_mhz);
        while b != 0 {
            (a, b) = (b, a % b);
        }
        Clocks { core_period: net_mhz / a, net_period: core_mhz / a }
    }

    /// Both clocks are one.
    pub fn same(&self) -> bool {
        self.core_period == self.net_period
    }

    /// The first network cycle at or after core cycle `c`.
    #[inline]
    pub fn to_net(&self, c: u64) -> u64 {
        if self.same() {
            c
        } else {
            (u128::from(c) * u128::from(self.core_period)).div_ceil(u128::from(self.net_period)) as u64
        }
    }

    /// The first core cycle at or after network cycle `n`.
    #[inline]
    pub fn to_core(&self, n: u64) -> u64 {
        if self.same() {
            n
        } else {
            (u128::from(n) * u128::from(self.net_period)).div_ceil(u128::from(self.core_period)) as u64
        }
    }

    /// Network cycles covering at least `c` core cycles (a duration).
    pub fn net_cycles(&self, c: u64) -> u64 {
        if self.same() {
            c
        } else {
            (u128::from(c) * u128::from(self.core_period)).div_ceil(u128::from(self.net_period)) as u64
        }
    }
}

/// Read-only facts shared by all cores of a run.
#[derive(Debug)]
pub struct CoreEnv {
    pub costs: CostTable,
    pub frequency_hz: u64,
    pub command_line: String,
    /// The program's environment: `NAME=VALUE` entries, each followed by a NUL.
    pub environment: String,
    /// Keep the library's communication profile records (`nocmsg run --comm-profile`).
    pub comm_profile: bool,
    pub heap_start: u64,
    /// The bottom of the stack reservation: the heap stops here.
    pub heap_end: u64,
    /// `sp` must not go below this: `heap_end` for programs with the nocmsg runtime (whose stack is the
    /// reservation), 0 for others, which may use x2 as they like (the official RISC-V tests use it as an ordinary
    /// register).
    pub stack_floor: u64,
    pub stack_top: u64,
    /// Directory files opened through semihosting are resolved against (and confined to).
    pub work_dir: std::path::PathBuf,
    /// The chip's network interface kind; `None` turns NI instructions into faults.
    pub ni: crate::config::NiKind,
    /// Misaligned loads and stores are performed (split) rather than faults.
    pub misaligned_split: bool,
    /// Address ranges `[lo, hi)` the network interface serves (memory-mapped interfaces): a load or store there
    /// stops the fast loop and is handed to the interface ([`RunStop::Ni`]). Empty for the others.
    pub ni_mapped: Vec<(u64, u64)>,
    /// The CSR numbers (inclusive ranges) the interface serves: an instruction on one of them is handed to it.
    pub ni_csrs: Vec<(u16, u16)>,
    pub clocks: Clocks,
}

/// One core and everything it owns.
#[derive(Debug)]
pub struct Core {
    /// Rank among the cores running the program.
    pub rank: usize,
    pub tile: usize,
    pub hart: Hart,
    pub mem: TileMemory,
    text: Arc<DecodedText>,
    pub pipeline: Pipeline,
    /// Retired instructions per op (stall accounting for multi-cycle ops is derived from these).
    pub op_counts: Box<[u64; OP_COUNT]>,
    pub status: CoreStatus,
    pub console: Console,
    pub files: FileTable,
    /// Cycle at which the core exited or faulted.
    pub end_cycle: Option<u64>,
    /// With profiling on: cycles spent at each word of the program text (`--profile`).
    pub profile: Option<Box<[u64]>>,
    /// Cycles spent asleep (sleep, usleep, nanosleep: semihosting `NOCMSG_SYS_SLEEP`).
    pub sleep_cycles: u64,
    /// Misaligned loads and stores performed as split accesses (`core.misaligned_access = "split"`).
    pub misaligned_accesses: u64,
    /// `instret` when the last trap was taken: a trap with no instruction retired since then is raised by the
    /// handler's first instruction.
    last_trap_instret: Option<u64>,
    /// The network interface may raise this core's external interrupt (`mip.MEIP`): the core then runs only up to
    /// `irq_until` (the first cycle at which an interrupt could be due) and stops after any instruction that may
    /// enable interrupts (`mret`, a write of `mstatus` or `mie`), so the chip can take an interrupt exactly at the
    /// instruction boundary where it becomes due ([`RunStop::InterruptCheck`]).
    pub irq_armed: bool,
    pub irq_until: u64,
    /// Communication profile records the program reported (`nocmsg run --comm-profile`).
    pub comm_records: Vec<crate::profile::Record>,
    /// The job the core runs (partitioned jobs; 0 otherwise).
    pub job: usize,
    /// With cached memory: the address space's tag in the memory system's addresses (see `crate::memory`).
    pub memory_key: u64,
    /// With cached memory: cycles beyond L1 hits (`stalls.cache`).
    pub cache_cycles: u64,
    /// With threads: cycles idle or joining (`stalls.idle`).
    pub idle_cycles: u64,
    /// Cycles lost to the seeded perturbation (`stalls.noise`; `crate::perturb`).
    pub noise_cycles: u64,
    /// With `[memory.private]`: the caches in front of private memory ([`crate::private_cache`]); a miss stops the
    /// loop and goes to the network interface.
    pub private: Option<Box<crate::private_cache::PrivateCaches>>,
}

/// What became of an access in the network interface's address ranges.
enum NiAccess {
    /// Not in them.
    NotMine,
    /// Run and retired by the interface's local part.
    Done,
    /// For the interface, in global time order.
    Hand(Decoded),
}

/// What the run loop does after a failed instruction ([`Core::after_fault`]).
enum AfterFault {
    /// It was performed after all (split): it retires, having redirected the pc or not.
    Retire(bool),
    /// Handled (retired by the interface's local part, or trapped): on to the next instruction.
    Next,
    /// The loop stops.
    Stop(RunStop),
}

/// How an instruction handed to the environment ended.
enum EnvStep {
    /// Done; the pc is past the instruction, which retires.
    Done,
    /// It raised an exception that the core took: the pc is at the trap handler.
    Trapped,
    /// The core stopped (exit, abort, or a fault).
    Stopped,
}

impl Core {
    pub fn new(rank: usize, tile: usize, hart: Hart, ram: Ram, text: Arc<DecodedText>) -> Core {
        let (text_base, text_len) = (text.base, text.len_bytes());
        Core {
            rank,
            tile,
            hart,
            mem: TileMemory { ram, text_base, text_len, text_written: false, stores: 0 },
            text,
            pipeline: Pipeline::default(),
            op_counts: Box::new([0; OP_COUNT]),
            status: CoreStatus::Running,
            console: Console::default(),
            files: FileTable::default(),
            end_cycle: None,
            profile: None,
            sleep_cycles: 0,
            misaligned_accesses: 0,
            last_trap_instret: None,
            irq_armed: false,
            irq_until: u64::MAX,
            comm_records: Vec::new(),
            job: 0,
            memory_key: 0,
            cache_cycles: 0,
            private: None,
            idle_cycles: 0,
            noise_cycles: 0,
        }
    }

    pub fn running(&self) -> bool {
        matches!(self.status, CoreStatus::Running)
    }

    /// The instruction at the pc from the shared decoded text, if it is there. The fast loop handles everything else
    /// in [`Self::fetch_slow`]: keeping the slow path's error (a `String`) out of this value lets the decoded
    /// instruction stay in registers.
    #[inline(always)]
    fn fetch_decoded(&self) -> Option<Decoded> {
        let pc = self.hart.pc;
        let index = pc.wrapping_sub(self.text.base) >> 1;
        if pc & 1 == 0 && !self.mem.text_written {
            if let Some(&entry) = self.text.entries.get(index as usize) {
                return entry;
            }
        }
        None
    }

    /// The instruction at the pc: from the shared decoded text, else from memory.
    fn fetch(&mut self) -> Result<Decoded, (FaultKind, String)> {
        match self.fetch_decoded() {
            Some(d) => Ok(d),
            None => self.fetch_from_memory(),
        }
    }

    /// The instruction at the pc when it is not in the decoded text: decoded from memory (`Ok`), or its fetch
    /// exception was taken (`Err(true)`: run on at the handler) or the core stopped (`Err(false)`).
    #[cold]
    #[inline(never)]
    fn fetch_slow(&mut self, env: &CoreEnv) -> Result<Decoded, bool> {
        match self.fetch_from_memory() {
            Ok(d) => Ok(d),
            Err((kind, reason)) => Err(self.fetch_exception(kind, reason, env)),
        }
    }

    /// Fetches and decodes the instruction at the pc from memory (written text, code outside the text segments,
    /// or an illegal instruction to report).
    #[cold]
    #[inline(never)]
    fn fetch_from_memory(&mut self) -> Result<Decoded, (FaultKind, String)> {
        let pc = self.hart.pc;
        let word = self.fetch_word(pc).map_err(|e| (memory_fault_kind(&e), e.to_string()))?;
        riscv::decode::decode_for(word, self.hart.isa).ok_or_else(|| (FaultKind::IllegalInstruction, illegal_reason(word, self.hart.isa)))
    }

    /// The instruction word at `pc` (only its low half if that is a compressed parcel on a hart with C), fetched in
    /// halfwords so that a compressed instruction at the very end of memory is no fault.
    fn fetch_word(&mut self, pc: u64) -> Result<u32, MemFault> {
        let as_fetch = |e: MemFault| match e {
            MemFault::OutOfRange { addr, size, .. } => MemFault::OutOfRange { addr, size, kind: riscv::memory::AccessKind::Fetch },
            MemFault::Misaligned { addr, size, .. } => MemFault::Misaligned { addr, size, kind: riscv::memory::AccessKind::Fetch },
        };
        let low = self.mem.ram.load(pc, 2).map_err(as_fetch)? as u32;
        if low & 3 != 3 && self.hart.isa.compressed() {
            return Ok(low);
        }
        let high = self.mem.ram.load(pc.wrapping_add(2), 2).map_err(as_fetch)? as u32;
        Ok(low | high << 16)
    }

    /// Stops the core with a report about the instruction at the pc.
    pub fn fault(&mut self, kind: FaultKind, mut reason: String) {
        if self.hart.privilege == Privilege::User {
            reason.push_str(" (in user mode)");
        }
        let pc = self.hart.pc;
        let instruction = self.fetch_word(pc).ok();
        let instruction_bytes = if instruction.is_some_and(|w| w & 3 != 3 && self.hart.isa.compressed()) { 2 } else { 4 };
        let disassembly = instruction.map(|w| disassemble_word(w, pc)).unwrap_or_default();
        let cycle = self.hart.cycle;
        self.status = CoreStatus::Faulted {
            fault: Box::new(CoreFault { core: self.rank, tile: self.tile, pc, instruction, instruction_bytes, disassembly, kind, reason, cycle }),
        };
        self.end_cycle = Some(cycle);
    }

    pub fn exit(&mut self, code: i64) {
        self.status = CoreStatus::Exited { code };
        self.end_cycle = Some(self.hart.cycle);
    }

    /// Runs until the core's clock reaches `until`, it stops, or its next instruction needs the network
    /// interface. Instructions start at cycles below `until`; the last one may end beyond it.
    /// `local` is the interface's part this core may use ahead of global time (memory-mapped interfaces).
    pub fn run(&mut self, until: u64, env: &CoreEnv, mut local: Option<&mut dyn crate::ni::LocalAccess>, memory: Option<&mut MemSystem>) -> RunStop {
        if let Some(ms) = memory {
            return self.run_cached(until, env, &mut local, ms);
        }
        if self.private.is_some() {
            return self.run_private(until, env, &mut local);
        }
        if self.irq_armed {
            return self.run_interruptible(until, env, &mut local);
        }
        if self.profile.is_some() {
            self.run_loop::<true, false, false>(until, env, &mut local)
        } else {
            self.run_loop::<false, false, false>(until, env, &mut local)
        }
    }

    /// [`Core::run`] with private memory behind the core's caches (`[memory.private]`): its own instances of the
    /// loop, so the others pay nothing for it.
    #[cold]
    #[inline(never)]
    fn run_private(&mut self, until: u64, env: &CoreEnv, local: &mut Option<&mut dyn crate::ni::LocalAccess>) -> RunStop {
        if self.irq_armed {
            let limit = until.min(self.irq_until);
            let stop = if self.profile.is_some() {
                self.run_loop::<true, true, true>(limit, env, local)
            } else {
                self.run_loop::<false, true, true>(limit, env, local)
            };
            return match stop {
                RunStop::Horizon if self.hart.cycle < until => RunStop::InterruptCheck,
                other => other,
            };
        }
        if self.profile.is_some() {
            self.run_loop::<true, false, true>(until, env, local)
        } else {
            self.run_loop::<false, false, true>(until, env, local)
        }
    }

    /// [`Core::run`] with the cache hierarchy: loads and stores go through the core's caches in `ms` (hits run here,
    /// ahead of global time; the rest stops the loop, [`RunStop::Memory`]). Its own loop, so the private-memory
    /// loop pays nothing for it.
    #[cold]
    #[inline(never)]
    fn run_cached(&mut self, until: u64, env: &CoreEnv, local: &mut Option<&mut dyn crate::ni::LocalAccess>, ms: &mut MemSystem) -> RunStop {
        if self.irq_armed {
            let stop = self.run_cached_loop::<true>(until.min(self.irq_until), env, local, ms);
            return match stop {
                RunStop::Horizon if self.hart.cycle < until => RunStop::InterruptCheck,
                other => other,
            };
        }
        self.run_cached_loop::<false>(until, env, local, ms)
    }

    fn run_cached_loop<const IRQ: bool>(
        &mut self,
        until: u64,
        env: &CoreEnv,
        local: &mut Option<&mut dyn crate::ni::LocalAccess>,
        ms: &mut MemSystem,
    ) -> RunStop {
        let l1 = ms.params().l1d.latency_cycles;
        while self.hart.cycle < until {
            let (pc, start) = (self.hart.pc, self.hart.cycle);
            let d = match self.fetch_decoded() {
                Some(d) => d,
                None => match self.fetch_slow(env) {
                    Ok(d) => d,
                    Err(false) => return RunStop::Stopped,
                    Err(true) => {
                        self.charge(pc, self.hart.cycle - start);
                        continue;
                    }
                },
            };
            if IRQ && d.op == riscv::Op::Wfi && env.ni != NiKind::None {
                return RunStop::Ni(d);
            }
            let class = riscv::timing::LatencyClass::of(d.op);
            if matches!(class, riscv::timing::LatencyClass::Amo | riscv::timing::LatencyClass::LrSc)
                || (d.op == riscv::Op::Fence && ms.pending_writes(self.rank) > 0)
            {
                return RunStop::Memory(d);
            }
            let stall = self.pipeline.stall(&d);
            let mut view = CachedView { tm: &mut self.mem, ms, tile: self.rank, key: self.memory_key, lo: crate::config::MEMORY_BASE, hi: env.stack_top, l1, extra: 0, deferred: false };
            let result = riscv::execute(&mut self.hart, &mut view, d);
            let (extra, deferred) = (view.extra, view.deferred);
            let redirected = match result {
                Ok(Flow::Next) => false,
                Ok(Flow::Redirect) => true,
                Ok(Flow::Environment(EnvOp::Custom(d))) if env.ni != NiKind::None => return RunStop::Ni(d),
                // Semihosting reads and writes memory: in global time order, through the coherent view.
                Ok(Flow::Environment(EnvOp::Ebreak)) if semihost::is_semihosting_call(&mut self.mem.ram, self.hart.pc) => return RunStop::Memory(d),
                Ok(Flow::Environment(op)) => match self.environment(op, env) {
                    EnvStep::Done => false,
                    EnvStep::Trapped => {
                        self.charge(pc, self.hart.cycle - start);
                        continue;
                    }
                    EnvStep::Stopped => return RunStop::Stopped,
                },
                Err(_) if deferred => return RunStop::Memory(d),
                Err(fault) => match self.after_fault(fault, env, local, pc, start, true) {
                    AfterFault::Retire(redirected) => redirected,
                    AfterFault::Next => continue,
                    AfterFault::Stop(stop) => return stop,
                },
            };
            if d.rd == 2 && self.hart.x[2] < env.stack_floor {
                self.stack_overflow(pc, env);
                return RunStop::Stopped;
            }
            self.hart.cycle += self.pipeline.charge(&env.costs, d.op, d.rd, stall, redirected) + u64::from(extra);
            self.cache_cycles += u64::from(extra);
            self.hart.instret += 1;
            self.op_counts[d.op as usize] += 1;
            self.charge(pc, self.hart.cycle - start);
            if IRQ && may_enable_interrupts(&d) {
                return RunStop::InterruptCheck;
            }
        }
        RunStop::Horizon
    }

    /// With cached memory, the instruction at the pc whose access the memory system finished (`value`: what a load
    /// or atomic read, or an SC's result) runs again with that value and retires, `extra` cycles on top of its
    /// pipeline cost.
    pub fn replay(&mut self, d: Decoded, value: u64, extra: u64, env: &CoreEnv) {
        if matches!(d.op, riscv::Op::ScW | riscv::Op::ScD) {
            // The home decided; the hart's own reservation says the same to the executor.
            let addr = self.hart.x[usize::from(d.rs1)];
            self.hart.reservation = if value == 0 { addr } else { riscv::hart::NO_RESERVATION };
        }
        let pc = self.hart.pc;
        let start = self.hart.cycle;
        let stall = self.pipeline.stall(&d);
        let flow = riscv::execute(&mut self.hart, &mut Replay { value }, d).expect("a finished access runs again");
        let redirected = flow == Flow::Redirect;
        self.hart.cycle += self.pipeline.charge(&env.costs, d.op, d.rd, stall, redirected) + extra;
        self.hart.instret += 1;
        self.op_counts[d.op as usize] += 1;
        self.charge(pc, self.hart.cycle - start);
    }

    /// [`Core::run`] for a core whose interrupt the network interface may raise: up to `irq_until`, and up to the
    /// first instruction that may enable interrupts.
    #[cold]
    #[inline(never)]
    fn run_interruptible(&mut self, until: u64, env: &CoreEnv, local: &mut Option<&mut dyn crate::ni::LocalAccess>) -> RunStop {
        let stop = if self.profile.is_some() {
            self.run_loop::<true, true, false>(until.min(self.irq_until), env, local)
        } else {
            self.run_loop::<false, true, false>(until.min(self.irq_until), env, local)
        };
        match stop {
            RunStop::Horizon if self.hart.cycle < until => RunStop::InterruptCheck,
            other => other,
        }
    }

    /// The interpreter loop; the profiling variant is compiled separately so the plain one pays nothing, and so is
    /// the interruptible one (`IRQ`), which also stops after an instruction that may enable interrupts, and the one
    /// with private caches (`PRIVATE`), whose misses go to the network interface ([`RunStop::Ni`]).
    #[inline(always)]
    fn run_loop<const PROFILE: bool, const IRQ: bool, const PRIVATE: bool>(
        &mut self,
        until: u64,
        env: &CoreEnv,
        local: &mut Option<&mut dyn crate::ni::LocalAccess>,
    ) -> RunStop {
        while self.hart.cycle < until {
            let (pc, start) = (self.hart.pc, self.hart.cycle);
            let d = match self.fetch_decoded() {
                Some(d) => d,
                None => match self.fetch_slow(env) {
                    Ok(d) => d,
                    Err(false) => return RunStop::Stopped,
                    Err(true) => {
                        if PROFILE {
                            self.charge(pc, self.hart.cycle - start);
                        }
                        continue;
                    }
                },
            };
            // Asked now, while the source registers are at hand: kept across `execute`, they spilled to memory.
            // An armed core waits for its interrupt in the interface (`wfi` sleeps until it is pending).
            if IRQ && d.op == riscv::Op::Wfi && env.ni != NiKind::None {
                return RunStop::Ni(d);
            }
            let stall = self.pipeline.stall(&d);
            let mut extra = 0u32;
            let result = if PRIVATE {
                let caches = self.private.as_deref_mut().expect("the private loop runs with private caches");
                let mut view = crate::private_cache::PrivateView { mem: &mut self.mem, caches, extra: 0, miss: None };
                let result = riscv::execute(&mut self.hart, &mut view, d);
                if result.is_err() && view.miss.is_some() {
                    return RunStop::Ni(d);
                }
                extra = view.extra;
                result
            } else {
                riscv::execute(&mut self.hart, &mut self.mem, d)
            };
            let redirected = match result {
                Ok(Flow::Next) => false,
                Ok(Flow::Redirect) => true,
                Ok(Flow::Environment(EnvOp::Custom(d))) if env.ni != NiKind::None => return RunStop::Ni(d),
                Ok(Flow::Environment(op)) => match self.environment(op, env) {
                    EnvStep::Done => false,
                    EnvStep::Trapped => {
                        if PROFILE {
                            self.charge(pc, self.hart.cycle - start);
                        }
                        continue;
                    }
                    EnvStep::Stopped => return RunStop::Stopped,
                },
                Err(fault) => match self.after_fault(fault, env, local, pc, start, PROFILE) {
                    AfterFault::Retire(redirected) => redirected,
                    AfterFault::Next => continue,
                    AfterFault::Stop(stop) => return stop,
                },
            };
            // The only instructions that move the stack pointer are those writing x2, so checking them catches a
            // stack growing into the heap at the instruction that does it (decoded words carry rd = 0 for formats
            // without a destination).
            if d.rd == 2 && self.hart.x[2] < env.stack_floor {
                self.stack_overflow(pc, env);
                return RunStop::Stopped;
            }
            self.hart.cycle += self.pipeline.charge(&env.costs, d.op, d.rd, stall, redirected);
            if PRIVATE {
                self.hart.cycle += u64::from(extra);
                self.cache_cycles += u64::from(extra);
            }
            self.hart.instret += 1;
            self.op_counts[d.op as usize] += 1;
            if PROFILE {
                self.charge(pc, self.hart.cycle - start);
            }
            if IRQ && may_enable_interrupts(&d) {
                return RunStop::InterruptCheck;
            }
        }
        RunStop::Horizon
    }

    /// After the instruction at the pc (begun at cycle `start`) failed with `fault`: a misaligned access performed
    /// split (it retires), an access the interface's local part ran or hands on, or the exception (charged to the
    /// profile if `profile`).
    #[cold]
    #[inline(never)]
    fn after_fault(
        &mut self,
        fault: Fault,
        env: &CoreEnv,
        local: &mut Option<&mut dyn crate::ni::LocalAccess>,
        pc: u64,
        start: u64,
        profile: bool,
    ) -> AfterFault {
        let fault = match self.execute_split(fault, env) {
            Ok(redirected) => return AfterFault::Retire(redirected),
            Err(fault) => fault,
        };
        match self.ni_access(&fault, env, local) {
            NiAccess::NotMine => {}
            NiAccess::Done => return AfterFault::Next,
            NiAccess::Hand(d) => return AfterFault::Stop(RunStop::Ni(d)),
        }
        if !self.execution_exception(&fault, env) {
            return AfterFault::Stop(RunStop::Stopped);
        }
        if profile {
            self.charge(pc, self.hart.cycle - start);
        }
        AfterFault::Next
    }

    /// The core loses `cycles` to the seeded perturbation (a start skew or a noise event; [`crate::perturb`]).
    pub fn lose_to_noise(&mut self, cycles: u64) {
        self.hart.cycle += cycles;
        self.noise_cycles += cycles;
    }

    /// Takes exception `cause` (trap value `tval`) of the instruction at the pc if the program has a trap handler;
    /// otherwise stops the core with the report (`kind`, `reason`) it has always given. Returns whether the core
    /// goes on (at the handler).
    #[cold]
    #[inline(never)]
    fn trap_or_stop(&mut self, cause: Exception, tval: u64, kind: FaultKind, reason: String, env: &CoreEnv) -> bool {
        if self.hart.mtvec == 0 {
            self.fault(kind, reason);
            return false;
        }
        if self.last_trap_instret == Some(self.hart.instret) {
            let mtvec = self.hart.mtvec;
            let why = format!("raised by the first instruction of the trap handler (mtvec = {mtvec:#x})");
            self.fault(kind, format!("{reason}, {why}: every trap would end here again"));
            return false;
        }
        self.last_trap_instret = Some(self.hart.instret);
        riscv::trap::take(&mut self.hart, cause, tval);
        // The pipeline is flushed: no load is in flight any more.
        self.pipeline.pending_load_rd = 0;
        self.pipeline.pending_load_use = 0;
        self.pipeline.jumps += 1;
        self.hart.cycle += u64::from(env.costs.jump);
        true
    }

    /// Takes the machine external interrupt before the instruction at the pc (the caller has checked it is due): as
    /// a trap, the pipeline is flushed and the jump to the handler costs a taken jump.
    pub fn take_external_interrupt(&mut self, env: &CoreEnv) {
        riscv::trap::take_external_interrupt(&mut self.hart);
        self.pipeline.pending_load_rd = 0;
        self.pipeline.pending_load_use = 0;
        self.pipeline.jumps += 1;
        self.hart.cycle += u64::from(env.costs.jump);
    }

    /// The instruction at the pc could not be fetched or is illegal here: its exception, or the core stops.
    #[cold]
    #[inline(never)]
    fn fetch_exception(&mut self, kind: FaultKind, reason: String, env: &CoreEnv) -> bool {
        let (cause, tval) = match self.fetch_word(self.hart.pc) {
            Err(e) => riscv::trap::fetch_exception(&e),
            Ok(word) => (Exception::IllegalInstruction, u64::from(word)),
        };
        self.trap_or_stop(cause, tval, kind, reason, env)
    }

    /// The instruction at the pc failed with `fault`: its exception, or the core stops. (It takes no `Decoded`:
    /// one passed to a function that is not inlined must live in memory, which made the fast loop store the
    /// instruction on every iteration; the instruction is fetched again here instead, unchanged by the fault.)
    #[cold]
    #[inline(never)]
    fn execution_exception(&mut self, fault: &Fault, env: &CoreEnv) -> bool {
        let word = self.fetch_word(self.hart.pc).unwrap_or(0);
        let op = riscv::decode::decode_for(word, self.hart.isa).map_or(riscv::Op::Ebreak, |d| d.op);
        let (cause, tval) = riscv::trap::exception_of(fault, op, word);
        self.trap_or_stop(cause, tval, fault_kind(fault), fault_reason(fault), env)
    }

    /// After the instruction at the pc failed with `fault`: if that was a load or store outside private memory in
    /// an address range of the network interface, either the interface's local part runs it at once (a line-cache
    /// hit...: it retires here) or the instruction (fetched again, see `execution_exception`) goes to the interface
    /// in global time order. Cold: memory-mapped interfaces cost the fast loop nothing.
    #[cold]
    #[inline(never)]
    fn ni_access(&mut self, fault: &Fault, env: &CoreEnv, local: &mut Option<&mut dyn crate::ni::LocalAccess>) -> NiAccess {
        if let Fault::Csr { csr, reason: "no such CSR" } = *fault {
            if env.ni_csrs.iter().any(|&(lo, hi)| (lo..=hi).contains(&csr)) {
                if let Ok(d) = self.fetch() {
                    return NiAccess::Hand(d);
                }
            }
            return NiAccess::NotMine;
        }
        let Fault::Memory(MemFault::OutOfRange { addr, kind, .. }) = *fault else { return NiAccess::NotMine };
        if kind == riscv::memory::AccessKind::Fetch || !env.ni_mapped.iter().any(|&(lo, hi)| (lo..hi).contains(&addr)) {
            return NiAccess::NotMine;
        }
        let Ok(d) = self.fetch() else { return NiAccess::NotMine };
        if let Some(l) = local.as_deref_mut() {
            let (pc, start) = (self.hart.pc, self.hart.cycle);
            if l.try_local(&mut self.mem, &mut self.hart, d) {
                self.retire(&d, false, env);
                self.charge(pc, self.hart.cycle - start);
                return NiAccess::Done;
            }
        }
        NiAccess::Hand(d)
    }

    /// After the instruction at the pc failed with `fault`: if that was a misaligned load or store on a chip with
    /// `core.misaligned_access = "split"`, runs it again with the access split into bytes, costing the misaligned
    /// penalty on top of the instruction's cycles, and returns whether it redirected the pc (loads and stores never
    /// do); otherwise, or if it fails again, the fault. Execution changes nothing on a fault, so running it again is
    /// exact. Cold: the fast loop pays nothing for it.
    #[cold]
    #[inline(never)]
    fn execute_split(&mut self, fault: Fault, env: &CoreEnv) -> Result<bool, Fault> {
        if !(env.misaligned_split && matches!(fault, Fault::Memory(MemFault::Misaligned { .. }))) {
            return Err(fault);
        }
        // Fetched again rather than passed (see `execution_exception`).
        let Ok(d) = self.fetch() else { return Err(fault) };
        let flow = riscv::execute(&mut self.hart, &mut SplitAccess(&mut self.mem), d)?;
        debug_assert_eq!(flow, Flow::Next, "only loads and stores are split");
        self.misaligned_accesses += 1;
        self.hart.cycle += u64::from(env.costs.misaligned);
        Ok(false)
    }

    /// Stops the core whose instruction at `pc` (already executed) put the stack pointer below the stack
    /// reservation: without this the stack would silently overwrite the heap, data and code below it.
    #[cold]
    #[inline(never)]
    pub(crate) fn stack_overflow(&mut self, pc: u64, env: &CoreEnv) {
        self.hart.pc = pc;
        let sp = self.hart.x[2];
        let (floor, top) = (env.heap_end, env.stack_top);
        let reserved = format!("the {} KiB reserved at {floor:#x}..{top:#x}", (top - floor) / 1024);
        let reason = if sp >= crate::config::MEMORY_BASE {
            format!(
                "stack overflow: the stack grew to {} bytes, {} past {reserved} (sp = {sp:#x}; raise core.stack_kib)",
                top - sp,
                floor - sp
            )
        } else {
            format!("stack pointer set outside memory: sp = {sp:#x}, below the stack ({reserved})")
        };
        self.fault(FaultKind::BadAddress, reason);
    }

    /// Adds `cycles` to the profile entry of the instruction at `pc` (if profiling, and if it is program text).
    #[inline]
    pub fn charge(&mut self, pc: u64, cycles: u64) {
        if let Some(p) = self.profile.as_mut() {
            let index = pc.wrapping_sub(self.text.base) >> 1;
            if let Some(slot) = p.get_mut(index as usize) {
                *slot += cycles;
            }
        }
    }

    /// Turns on profiling (one counter per halfword of program text: where an instruction may start).
    pub fn enable_profile(&mut self) {
        self.profile = Some(vec![0; self.text.entries.len()].into_boxed_slice());
    }

    /// Address of profile entry `index`.
    pub fn text_address(&self, index: usize) -> u64 {
        self.text.base + 2 * index as u64
    }

    /// Charges the cycles of an executed instruction and counts it.
    #[inline(always)]
    pub fn retire(&mut self, d: &Decoded, redirected: bool, env: &CoreEnv) {
        self.hart.cycle += self.pipeline.cycles(&env.costs, d, redirected);
        self.hart.instret += 1;
        self.op_counts[d.op as usize] += 1;
    }

    /// With cached memory: the fault `fault` of the instruction at the pc, taken as an exception if the program has a
    /// trap handler (returns true: the core goes on), else the core stops.
    pub fn take_fault(&mut self, fault: &Fault, env: &CoreEnv) -> bool {
        self.execution_exception(fault, env)
    }

    /// With cached memory: the semihosting call at the pc (instruction `d`) was made by the memory system with
    /// `result`; the call retires as in [`Core::run`]. Returns whether the core goes on.
    pub fn finish_semihosting(&mut self, d: Decoded, result: Result<semihost::Outcome, String>, env: &CoreEnv) -> bool {
        match result {
            Ok(semihost::Outcome::Continue) => {
                self.hart.pc = self.hart.pc.wrapping_add(4);
                let stall = self.pipeline.stall(&d);
                self.hart.cycle += self.pipeline.charge(&env.costs, d.op, d.rd, stall, false);
                self.hart.instret += 1;
                self.op_counts[d.op as usize] += 1;
                true
            }
            Ok(semihost::Outcome::Exit(code)) => {
                self.retire_last_call(env);
                self.exit(code);
                false
            }
            Ok(semihost::Outcome::Abort(code)) => {
                self.retire_last_call(env);
                self.status = CoreStatus::Aborted { code };
                self.end_cycle = Some(self.hart.cycle);
                false
            }
            Err(reason) => {
                self.fault(FaultKind::System, format!("semihosting: {reason}"));
                false
            }
        }
    }

    /// With threads: the core does nothing until cycle `at` (idle, or waiting to join).
    pub fn idle_until(&mut self, at: u64) {
        if at > self.hart.cycle {
            self.idle_cycles += at - self.hart.cycle;
            self.hart.cycle = at;
        }
    }

    /// A semihosting call that ends the core (exit, abort) retires like any instruction before the core stops.
    fn retire_last_call(&mut self, env: &CoreEnv) {
        self.hart.pc = self.hart.pc.wrapping_add(4); // the semihosting `ebreak` is never compressed
        self.hart.cycle += u64::from(env.costs.cycles[riscv::Op::Ebreak as usize]);
        self.hart.instret += 1;
        self.op_counts[riscv::Op::Ebreak as usize] += 1;
    }

    /// Handles `ecall`, `ebreak`, `fence.i` and custom instructions. Semihosting (the `ebreak` sequence) works in
    /// every privilege mode: it is the host's service, not the hart's.
    fn environment(&mut self, op: EnvOp, env: &CoreEnv) -> EnvStep {
        let trapped = |going_on: bool| if going_on { EnvStep::Trapped } else { EnvStep::Stopped };
        match op {
            EnvOp::Ebreak if semihost::is_semihosting_call(&mut self.mem.ram, self.hart.pc) => {
                match semihost::call(self, env, None) {
                    Ok(semihost::Outcome::Continue) => {
                        self.hart.pc = self.hart.pc.wrapping_add(4);
                        EnvStep::Done
                    }
                    Ok(semihost::Outcome::Exit(code)) => {
                        self.retire_last_call(env);
                        self.exit(code);
                        EnvStep::Stopped
                    }
                    Ok(semihost::Outcome::Abort(code)) => {
                        // The chip sees the status and stops every other core at this cycle.
                        self.retire_last_call(env);
                        self.status = CoreStatus::Aborted { code };
                        self.end_cycle = Some(self.hart.cycle);
                        EnvStep::Stopped
                    }
                    Err(reason) => {
                        self.fault(FaultKind::System, format!("semihosting: {reason}"));
                        EnvStep::Stopped
                    }
                }
            }
            EnvOp::Ebreak => {
                let reason = "breakpoint (ebreak outside a semihosting sequence)".to_string();
                let pc = self.hart.pc;
                trapped(self.trap_or_stop(Exception::Breakpoint, pc, FaultKind::Breakpoint, reason, env))
            }
            EnvOp::Ecall => {
                let reason = "no operating system to take the ecall; use semihosting (picolibc --oslib=semihost)".to_string();
                let cause = Exception::ecall_from(self.hart.privilege);
                trapped(self.trap_or_stop(cause, 0, FaultKind::System, reason, env))
            }
            EnvOp::FenceI => {
                // The decoded text is only used while the core has not written its text, so there is nothing to
                // flush; fence.i is an ordinary one-cycle instruction.
                self.hart.pc = self.hart.pc.wrapping_add(4);
                EnvStep::Done
            }
            EnvOp::Custom(d) => {
                // Without a network interface the custom instructions do not exist: an illegal instruction.
                let what = "this chip has no network interface (ni.kind = \"none\")";
                let text = format!("network interface instruction `{}`: {what}", riscv::disasm::disassemble(&d, self.hart.pc));
                let word = u64::from(self.fetch_word(self.hart.pc).unwrap_or(0));
                trapped(self.trap_or_stop(Exception::IllegalInstruction, word, FaultKind::IllegalInstruction, text, env))
            }
        }
    }
}

/// The core's view of memory with caches: its address space (`lo..hi`) through the memory system, tagged with
/// `key`; everything else (interfaces' windows) as before. An access that does not hit marks itself `deferred`
/// and fails, changing nothing.
struct CachedView<'a> {
    tm: &'a mut TileMemory,
    ms: &'a mut MemSystem,
    tile: usize,
    key: u64,
    lo: u64,
    hi: u64,
    l1: u32,
    /// Cycles beyond an L1 hit.
    extra: u32,
    deferred: bool,
}

impl Memory for CachedView<'_> {
    #[inline]
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, MemFault> {
        if addr < self.lo || addr >= self.hi {
            return self.tm.load(addr, size);
        }
        if addr & u64::from(size - 1) != 0 || self.hi - addr < u64::from(size) {
            return self.tm.ram.load(addr, size);
        }
        match self.ms.load_hit(self.tile, self.key | addr, size) {
            Some((value, cycles)) => {
                self.extra += cycles - self.l1;
                Ok(value)
            }
            None => {
                self.deferred = true;
                Err(MemFault::OutOfRange { addr, size, kind: riscv::memory::AccessKind::Load })
            }
        }
    }

    #[inline]
    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        if addr < self.lo || addr >= self.hi {
            return self.tm.store(addr, size, value);
        }
        if addr & u64::from(size - 1) != 0 || self.hi - addr < u64::from(size) {
            return self.tm.ram.store(addr, size, value);
        }
        match self.ms.store_hit(self.tile, self.key | addr, size, value) {
            Some(cycles) => {
                self.extra += cycles - self.l1;
                Ok(())
            }
            None => {
                self.deferred = true;
                Err(MemFault::OutOfRange { addr, size, kind: riscv::memory::AccessKind::Store })
            }
        }
    }
}

/// The memory an instruction sees when it runs again after its access finished: loads read `value`, stores are
/// already made.
struct Replay {
    value: u64,
}

impl Memory for Replay {
    fn load(&mut self, _addr: u64, _size: u32) -> Result<u64, MemFault> {
        Ok(self.value)
    }

    fn store(&mut self, _addr: u64, _size: u32, _value: u64) -> Result<(), MemFault> {
        Ok(())
    }
}

/// A memory seen through byte accesses: a misaligned access becomes aligned ones (checked in full before a store
/// writes anything, so a fault still changes nothing).
struct SplitAccess<'a>(&'a mut TileMemory);

impl Memory for SplitAccess<'_> {
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, MemFault> {
        let mut value = 0;
        for i in 0..u64::from(size) {
            value |= self.0.load(addr.wrapping_add(i), 1)? << (8 * i);
        }
        Ok(value)
    }

    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        for i in 0..u64::from(size) {
            self.0.load(addr.wrapping_add(i), 1).map_err(|e| match e {
                MemFault::OutOfRange { .. } => MemFault::OutOfRange { addr, size, kind: riscv::memory::AccessKind::Store },
                other => other,
            })?;
        }
        for i in 0..u64::from(size) {
            self.0.store(addr.wrapping_add(i), 1, value >> (8 * i))?;
        }
        Ok(())
    }
}

/// Why an instruction word does not run on a hart with `isa`: an instruction of a missing extension, or none.
fn illegal_reason(word: u32, isa: Isa) -> String {
    match riscv::decode::missing_extension(word, isa) {
        Some(ext) => format!(
            "illegal instruction: it belongs to the {:?} extension, which this chip's cores (core.isa = {isa}) do not have",
            ext
        ),
        None => "illegal instruction".to_string(),
    }
}

fn memory_fault_kind(fault: &MemFault) -> FaultKind {
    match fault {
        MemFault::OutOfRange { .. } => FaultKind::BadAddress,
        MemFault::Misaligned { .. } => FaultKind::Misaligned,
    }
}

fn fault_kind(fault: &Fault) -> FaultKind {
    match fault {
        Fault::Memory(m) => memory_fault_kind(m),
        Fault::MisalignedTarget { .. } | Fault::MisalignedAtomic { .. } => FaultKind::Misaligned,
        Fault::Csr { .. } | Fault::RoundingMode { .. } | Fault::Privileged { .. } => FaultKind::IllegalInstruction,
    }
}

fn fault_reason(fault: &Fault) -> String {
    match fault {
        Fault::Csr { .. } | Fault::RoundingMode { .. } | Fault::Privileged { .. } => format!("illegal instruction: {fault}"),
        Fault::Memory(_) | Fault::MisalignedTarget { .. } | Fault::MisalignedAtomic { .. } => fault.to_string(),
    }
}

#[cfg(test)]
mod clock_tests {
    use super::Clocks;

    #[test]
    fn clocks_convert_to_the_first_cycle_at_or_after() {
        let same = Clocks::new(1000, 1000);
        assert!(same.same());
        assert_eq!((same.to_net(17), same.to_core(17), same.net_cycles(5)), (17, 17, 5));
        // The SCC: 533 MHz cores, 800 MHz mesh. Core cycle 533 is network cycle 800 exactly (1 us).
        let scc = Clocks::new(533, 800);
        assert_eq!((scc.to_net(533), scc.to_core(800)), (800, 533));
        assert_eq!(scc.to_net(1), 2, "core cycle 1 is at 1.5 network cycles: the next network edge is 2");
        assert_eq!(scc.to_core(1), 1, "network cycle 1 is at 0.67 core cycles: the next core edge is 1");
        assert_eq!(scc.to_core(2), 2);
        assert_eq!(scc.net_cycles(15), 23, "15 core cycles = 22.5 network cycles, rounded up");
        for c in 0..2000 {
            let n = scc.to_net(c);
            assert!(n * 533 >= c * 800 && (n == 0 || (n - 1) * 533 < c * 800), "core {c} -> net {n}");
            assert!(scc.to_core(n) >= c);
        }
    }
}
