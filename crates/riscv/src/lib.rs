//! # nocmsg-riscv: the RV64GC core model
//!
//! The seed systems are judged by real programs on real cores, so the core is a real ISA: RV64I with FENCE,
//! ECALL/EBREAK and Zicsr (`mhartid`, `cycle`, `time`, `instret`, `fflags`/`frm`/`fcsr`), and the extensions a chip
//! names ([`isa::Isa`]): M with the specification's results for division by zero and overflow, A (LR/SC with a
//! reservation, every AMO), F and D bit-exact with the specification ([`fpu`]: rounding modes, flags, NaN boxing,
//! canonical NaN), C (expanded at decode time, [`rvc`]); and the PIMP message-passing instructions in the custom
//! opcode spaces. Soft-float chips (TilePro-like `rv64imac`) and FPU chips (`rv64gc`) run the same decoder with a
//! different extension set, so a measured difference between them is the FPU's alone.
//!
//! The crate is split the way the instruction set is: [`isa`] is the one table of encodings (a test proves no two
//! overlap), [`rvc`] the compressed encodings, [`decode`] turns words into [`Decoded`] values once, [`exec`]
//! executes a decoded instruction against a [`Hart`] and any [`Memory`] with [`fpu`] for IEEE arithmetic, [`timing`]
//! is the separate latency table of an in-order 5-stage pipeline, and [`disasm`] prints instructions for fault
//! reports. It knows nothing of networks or chips: custom instructions,
//! `ecall` and `ebreak` are handed back to the caller as [`exec::Flow::Environment`].
//!
//! Harts have machine and user mode with the machine-level CSRs and `mret` ([`hart`]); [`trap`] takes
//! exceptions into machine mode for a caller that has a trap handler to go to.

pub mod decode;
pub mod disasm;
pub mod exec;
pub mod fpu;
pub mod hart;
pub mod isa;
pub mod memory;
pub mod rvc;
pub mod timing;
pub mod trap;

pub use decode::{decode, Decoded};
pub use exec::{execute, EnvOp, Fault, Flow};
pub use hart::Hart;
pub use isa::Op;
pub use memory::{MemFault, Memory, Ram};
pub use timing::{CostTable, Pipeline, Timing};
