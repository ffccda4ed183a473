//! Helpers shared by the chip's integration tests.

use chip::config::MEMORY_BASE;
use chip::elf::{Program, Segment};
use riscv::isa::Isa;

/// A program of raw little-endian code at the start of memory, entered there, declared as built for `isa`, without
/// the nocmsg runtime (no boot block: the cores start as they are).
pub fn raw_program(path: &str, code: Vec<u8>, isa: Isa) -> Program {
    let len = code.len() as u64;
    Program {
        path: path.into(),
        entry: MEMORY_BASE,
        segments: vec![Segment { address: MEMORY_BASE, data: code, mem_size: len, executable: true }],
        tls: None,
        boot_block: None,
        image_end: MEMORY_BASE + len,
        functions: Vec::new(),
        debug_frame: Vec::new(),
        wait_sites: Vec::new(),
        wait_record: None,
        library_text: None,
        isa: (isa, "test".into()),
    }
}
