//! Reading a program: a statically linked RV64 ELF executable, checked for what the cores can run (64-bit,
//! little-endian, RISC-V, no compressed instructions, soft-float ABI) before anything is loaded.

use object::{Object, ObjectSymbol};
use std::path::Path;

/// The ELF header flag marking code that uses compressed (RVC) instructions.
const EF_RISCV_RVC: u32 = 0x1;
/// The ELF header bits giving the floating-point ABI (0 = soft float).
const EF_RISCV_FLOAT_ABI: u32 = 0x6;
const PF_X: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    #[error("cannot read program {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("program {path} is not a valid ELF file: {message}")]
    Malformed { path: String, message: String },
    #[error("program {path}: {message}")]
    Unsupported { path: String, message: String },
}

/// A loadable piece of the program image.
#[derive(Clone, Debug)]
pub struct Segment {
    pub address: u64,
    /// Bytes from the file; the rest up to `mem_size` is zero.
    pub data: Vec<u8>,
    pub mem_size: u64,
    pub executable: bool,
}

/// A function symbol of the program (for profiles).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub address: u64,
    pub size: u64,
    pub name: String,
}

/// A program ready to be loaded into every core's memory.
#[derive(Clone, Debug)]
pub struct Program {
    pub path: String,
    pub entry: u64,
    pub segments: Vec<Segment>,
    /// Address of the runtime's boot block (`nocmsg_boot`), if the program was linked with the nocmsg runtime.
    pub boot_block: Option<u64>,
    /// First address past the loaded image (where the heap may start).
    pub image_end: u64,
    /// Function symbols by address (empty for a stripped program).
    pub functions: Vec<Function>,
    /// The call frame information (`.debug_frame`), for naming where a deadlocked core waits; empty if absent.
    pub debug_frame: Vec<u8>,
    /// libnocmsg's wait-site table (`.nocmsg_waits`, lib/include/nocmsg_wait.h); empty if absent.
    pub wait_sites: Vec<u8>,
    /// Address of libnocmsg's wait record (`nocmsg_wait_record`), if the program has one.
    pub wait_record: Option<u64>,
    /// libnocmsg's code (`__start_nocmsg_text`..`__stop_nocmsg_text`, placed by runtime/nocmsg.ld).
    pub library_text: Option<(u64, u64)>,
}

/// The function symbols of any ELF file (for naming addresses in a program's backtrace), by address.
pub fn function_symbols(data: &[u8]) -> Result<Vec<Function>, String> {
    let file = object::File::parse(data).map_err(|e| e.to_string())?;
    Ok(functions_of(&file))
}

fn functions_of(file: &object::File) -> Vec<Function> {
    let mut functions: Vec<Function> = file
        .symbols()
        .filter(|s| s.kind() == object::SymbolKind::Text && s.size() > 0)
        .filter_map(|s| Some(Function { address: s.address(), size: s.size(), name: s.name().ok()?.to_string() }))
        .collect();
    functions.sort_by(|a, b| (a.address, &a.name).cmp(&(b.address, &b.name)));
    functions.dedup_by_key(|f| f.address);
    functions
}

impl Program {
    pub fn load(path: &Path) -> Result<Program, ElfError> {
        let data = std::fs::read(path).map_err(|source| ElfError::Read { path: path.display().to_string(), source })?;
        Program::parse(&data, &path.display().to_string())
    }

    pub fn parse(data: &[u8], path: &str) -> Result<Program, ElfError> {
        let malformed = |message: String| ElfError::Malformed { path: path.to_string(), message };
        let unsupported = |message: String| ElfError::Unsupported { path: path.to_string(), message };
        if data.len() < 4 || &data[..4] != b"\x7fELF" {
            return Err(malformed("no ELF magic number at the start of the file".into()));
        }
        let file = object::File::parse(data).map_err(|e| malformed(e.to_string()))?;
        if file.architecture() != object::Architecture::Riscv64 {
            return Err(unsupported(format!(
                "built for {:?}, but the cores are RV64 (compile with bin/nocmsg-cc)",
                file.architecture()
            )));
        }
        if !file.is_little_endian() {
            return Err(unsupported("big-endian ELF; RISC-V cores are little-endian".into()));
        }
        if file.kind() != object::ObjectKind::Executable {
            return Err(unsupported(format!("is a {:?} file, not a statically linked executable", file.kind())));
        }
        if let object::FileFlags::Elf { e_flags, .. } = file.flags() {
            if e_flags & EF_RISCV_RVC != 0 {
                return Err(unsupported("uses compressed (RVC) instructions; the cores are RV64IM (use -march=rv64im)".into()));
            }
            if e_flags & EF_RISCV_FLOAT_ABI != 0 {
                return Err(unsupported("uses a hardware floating-point ABI; the cores are RV64IM (use -mabi=lp64)".into()));
            }
        }
        let mut segments = Vec::new();
        if let object::File::Elf64(elf) = &file {
            use object::read::elf::ProgramHeader;
            let endian = elf.endian();
            for ph in elf.elf_program_headers() {
                if ph.p_type(endian) != object::elf::PT_LOAD || ph.p_memsz(endian) == 0 {
                    continue;
                }
                let bytes = ph.data(endian, data).map_err(|_| malformed("a loadable segment lies outside the file".into()))?;
                let (address, mem_size) = (ph.p_vaddr(endian), ph.p_memsz(endian));
                if (bytes.len() as u64) > mem_size {
                    return Err(malformed(format!("segment at {address:#x} has more file bytes than memory bytes")));
                }
                if address.checked_add(mem_size).is_none() {
                    return Err(malformed(format!("segment at {address:#x} wraps around the address space")));
                }
                segments.push(Segment {
                    address,
                    data: bytes.to_vec(),
                    mem_size,
                    executable: ph.p_flags(endian) & PF_X != 0,
                });
            }
        } else {
            return Err(unsupported("not a 64-bit ELF file".into()));
        }
        // Touch the segments API too so a broken header table is reported rather than ignored.
        let _ = object::Object::segments(&file).count();
        if segments.is_empty() {
            return Err(unsupported("has no loadable segments".into()));
        }
        let entry = file.entry();
        if !segments.iter().any(|s| s.executable && entry >= s.address && entry < s.address + s.mem_size) {
            return Err(malformed(format!("entry point {entry:#x} is not inside an executable segment")));
        }
        // The loader finds the runtime's boot block by its symbol. Without a symbol table it cannot tell a nocmsg
        // program (whose cores would all start without rank or stack and fault on their first store) from a plain
        // one, so it refuses the file rather than guess.
        if file.symbol_table().is_none() {
            return Err(unsupported(
                "has no symbol table (stripped, or its section headers removed), which the loader needs to find the \
                 runtime's boot block `nocmsg_boot`; build it with bin/nocmsg-cc and do not strip it \
                 (`strip --keep-symbol=nocmsg_boot` keeps what the loader needs)"
                    .into(),
            ));
        }
        let symbol = |name: &str| file.symbols().find(|s| s.name() == Ok(name)).map(|s| s.address());
        let boot_block = symbol("nocmsg_boot");
        let functions = functions_of(&file);
        let section = |name: &str| {
            use object::ObjectSection;
            file.section_by_name(name).and_then(|s| s.data().ok()).map(<[u8]>::to_vec).unwrap_or_default()
        };
        let library_text = symbol("__start_nocmsg_text").zip(symbol("__stop_nocmsg_text")).filter(|(lo, hi)| lo < hi);
        let image_end = segments.iter().map(|s| s.address + s.mem_size).max().unwrap_or(0);
        Ok(Program {
            path: path.to_string(),
            entry,
            segments,
            boot_block,
            image_end,
            functions,
            debug_frame: section(".debug_frame"),
            wait_sites: section(".nocmsg_waits"),
            wait_record: symbol("nocmsg_wait_record"),
            library_text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_garbage_with_one_line() {
        let err = Program::parse(b"hello world", "x.elf").unwrap_err().to_string();
        assert_eq!(err, "program x.elf is not a valid ELF file: no ELF magic number at the start of the file");
        let mut truncated = b"\x7fELF\x02\x01\x01".to_vec();
        truncated.resize(20, 0);
        let err = Program::parse(&truncated, "t.elf").unwrap_err().to_string();
        assert!(err.starts_with("program t.elf is not a valid ELF file"), "{err}");
        assert!(!err.contains('\n'));
    }

    #[test]
    fn rejects_a_host_executable() {
        let exe = std::env::current_exe().unwrap();
        let err = Program::load(&exe).unwrap_err().to_string();
        assert!(err.contains("but the cores are RV64"), "{err}");
    }
}
