//! # nocmsg-chip: a many-core chip running real programs
//!
//! A chip is a mesh of tiles, each a RISC-V core with private memory and a network interface, described by a TOML
//! file ([`config`], presets in `chips/`). [`Chip`] loads the same ELF into every selected tile (SPMD), fills in
//! each core's boot block (rank, core count, mesh shape, clock, stack), and runs the cores on one global clock.
//!
//! Why it is fast: program text is decoded once and shared by all cores ([`core::DecodedText`]); each core runs
//! a tight loop over decoded instructions with timing from a per-op table; and because a core's memory is private,
//! a core may run ahead of the global clock until it next interacts with something outside itself. Debug
//! clocking advances everything one cycle at a time and must give identical results (tested).
//!
//! Programs talk to the host through RISC-V semihosting ([`semihost`]): console output (kept per core and printed
//! in simulated-time order, [`console`]), files under the working directory, simulated time, command line, heap
//! information and exit. Guest errors stop the core with a [`core::CoreFault`] naming core, pc, instruction and
//! reason; they never bring down the simulator.

pub mod background;
pub mod chip;
pub mod config;
pub mod console;
pub mod core;
pub mod diagnose;
pub mod elf;
pub mod footprint;
pub mod memory;
pub mod perturb;
pub mod private_cache;
pub mod ni;
pub mod profile;
pub mod semihost;
pub mod shmem;
pub mod stats;
pub mod unwind;

pub use chip::{Chip, Deadlock, Event, Profile, ProfileEntry, RunEnd, RunOptions};
pub use diagnose::{BlockedRank, FinishedRank, WaitsFor};
pub use config::ChipConfig;
pub use elf::Program;
