//! Reading a program: a statically linked RV64 ELF executable, checked for what any core can run (64-bit,
//! little-endian, RISC-V) before anything is loaded, with the extensions it was built for (its `.riscv.attributes`
//! arch string, or the ELF header's RVC and float-ABI flags), which the chip compares with its own ISA.

use object::{Object, ObjectSymbol};
use riscv::isa::Isa;
use std::path::Path;

/// The ELF header flag marking code that uses compressed (RVC) instructions.
const EF_RISCV_RVC: u32 = 0x1;
/// The ELF header bits giving the floating-point ABI (0 soft, 2 single, 4 double, 6 quad).
const EF_RISCV_FLOAT_ABI: u32 = 0x6;
const PF_X: u32 = 1;
/// The RISC-V build-attribute tag holding the arch string (RISC-V ELF psABI).
const TAG_RISCV_ARCH: u64 = 5;

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
    /// The thread-local template (PT_TLS): its address, its initialised bytes (.tdata) and its whole size (with
    /// .tbss), from which every thread's block is made.
    pub tls: Option<(u64, Vec<u8>, u64)>,
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
    /// The extensions the program was built for, and where that was read (`arch attribute "rv64i2p1_m2p0..."` or
    /// `ELF header flags`).
    pub isa: (Isa, String),
}

/// The value of `Tag_RISCV_arch` in a `.riscv.attributes` section: version 'A', then subsections (length, vendor
/// name, then sub-subsections of tag, length and attributes, whose even tags take a ULEB128 value and odd ones a
/// NUL-terminated string).
fn arch_attribute(section: &[u8]) -> Option<String> {
    fn uleb(b: &[u8], at: &mut usize) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *b.get(*at)?;
            *at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }
    fn u32_at(b: &[u8], at: usize) -> Option<usize> {
        Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize)
    }
    let (&version, mut rest) = section.split_first()?;
    if version != b'A' {
        return None;
    }
    while rest.len() >= 4 {
        let len = u32_at(rest, 0)?;
        let sub = rest.get(4..len)?;
        rest = &rest[len..];
        let name_end = sub.iter().position(|&c| c == 0)?;
        if &sub[..name_end] != b"riscv" {
            continue;
        }
        let mut inner = &sub[name_end + 1..];
        while inner.len() >= 5 {
            let (tag, len) = (inner[0], u32_at(inner, 1)?);
            let attrs = inner.get(5..len)?;
            inner = &inner[len..];
            if tag != 1 {
                continue; // only file-wide attributes
            }
            let mut at = 0;
            while at < attrs.len() {
                let tag = uleb(attrs, &mut at)?;
                if tag % 2 == 0 {
                    uleb(attrs, &mut at)?;
                } else {
                    let end = at + attrs[at..].iter().position(|&c| c == 0)?;
                    let text = std::str::from_utf8(&attrs[at..end]).ok()?;
                    if tag == TAG_RISCV_ARCH {
                        return Some(text.to_string());
                    }
                    at = end + 1;
                }
            }
        }
    }
    None
}

/// The standard extensions an arch string such as `rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0` names (version
/// numbers and multi-letter extensions other than the implied ones aside).
fn isa_of_arch(arch: &str) -> Isa {
    let letters: String = arch
        .strip_prefix("rv64")
        .unwrap_or(arch)
        .split('_')
        .filter_map(|part| part.chars().next())
        .filter(|c| "imafdc".contains(*c))
        .collect();
    // `g` never appears in the attribute (the assembler spells it out); an unknown order still parses letter by letter.
    let canonical: String = "imafdc".chars().filter(|c| letters.contains(*c)).collect();
    Isa::parse(&format!("rv64{canonical}")).unwrap_or(Isa::RV64IM)
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
        let e_flags = match file.flags() {
            object::FileFlags::Elf { e_flags, .. } => e_flags,
            _ => 0,
        };
        let attributes = {
            use object::ObjectSection;
            file.section_by_name(".riscv.attributes").and_then(|s| s.data().ok()).and_then(arch_attribute)
        };
        let isa = match attributes {
            Some(arch) => (isa_of_arch(&arch), format!("arch attribute {arch:?}")),
            None => {
                // No attributes (an old toolchain, or removed): what the header says, C and the FP registers the
                // ABI passes values in; code using F or D with a soft-float ABI shows when it runs.
                let mut letters = String::from("im");
                match e_flags & EF_RISCV_FLOAT_ABI {
                    0 => {}
                    2 => letters.push('f'),
                    _ => letters.push_str("fd"),
                }
                if e_flags & EF_RISCV_RVC != 0 {
                    letters.push('c');
                }
                (Isa::parse(&format!("rv64{letters}")).expect("valid"), format!("ELF header flags {e_flags:#x}"))
            }
        };
        let mut segments = Vec::new();
        // Segments without any permission flag (a linker script whose PHDRS give none, as the RISC-V test
        // environment's does): if no segment is marked executable, these hold the code.
        let mut flagless = Vec::new();
        let mut tls = None;
        if let object::File::Elf64(elf) = &file {
            use object::read::elf::ProgramHeader;
            let endian = elf.endian();
            for ph in elf.elf_program_headers() {
                if ph.p_type(endian) == object::elf::PT_TLS && ph.p_memsz(endian) > 0 {
                    let bytes = ph.data(endian, data).map_err(|_| malformed("the TLS segment lies outside the file".into()))?;
                    if (bytes.len() as u64) > ph.p_memsz(endian) {
                        return Err(malformed("the TLS segment has more file bytes than memory bytes".into()));
                    }
                    tls = Some((ph.p_vaddr(endian), bytes.to_vec(), ph.p_memsz(endian)));
                    continue;
                }
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
                if ph.p_flags(endian) == 0 {
                    flagless.push(segments.len());
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
        if !segments.iter().any(|s| s.executable) {
            flagless.iter().for_each(|&i| segments[i].executable = true);
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
            tls,
            boot_block,
            image_end,
            functions,
            debug_frame: section(".debug_frame"),
            wait_sites: section(".nocmsg_waits"),
            wait_record: symbol("nocmsg_wait_record"),
            library_text,
            isa,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_arch_attribute() {
        // What GNU as writes for -march=rv64gc: 'A', subsection "riscv", file tag 1, stack_align (4) 16, arch (5).
        let arch = b"rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0_zifencei2p0\0";
        let attrs: Vec<u8> = [&[4u8, 16, 5][..], arch].concat();
        let file_sub: Vec<u8> = [&[1u8][..], &((attrs.len() + 5) as u32).to_le_bytes(), &attrs].concat();
        let sub: Vec<u8> = [&((file_sub.len() + 10) as u32).to_le_bytes()[..], b"riscv\0", &file_sub].concat();
        let section: Vec<u8> = [&[b'A'][..], &sub].concat();
        let text = arch_attribute(&section).unwrap();
        assert_eq!(text, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0_zifencei2p0");
        assert_eq!(isa_of_arch(&text), Isa::RV64GC);
        assert_eq!(isa_of_arch("rv64i2p1_m2p0_zmmul1p0"), Isa::RV64IM);
        assert_eq!(isa_of_arch("rv64i2p1_m2p0_a2p1_c2p0"), Isa::RV64IMAC);
        assert_eq!(arch_attribute(b"B"), None);
        assert_eq!(arch_attribute(&section[..section.len() - 3]), None, "truncated");
    }

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
