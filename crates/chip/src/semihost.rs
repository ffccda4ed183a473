//! RISC-V semihosting: the host services a bare-metal program reaches through `slli x0,x0,0x1f; ebreak;
//! srai x0,x0,7` with the operation in a0 and a parameter block (64-bit fields on RV64) in a1. Operation numbers
//! and meanings follow the Arm semihosting specification, which the RISC-V one adopts; picolibc's
//! `--oslib=semihost` uses them for console output, files, time and exit.
//!
//! Files are confined to the run's working directory: relative paths without `..`. Time is simulated time (the
//! core's cycle count at the chip's clock), so programs measure the simulated machine and runs are reproducible.
//!
//! Three operations are nocmsg's own, numbered in the range the specification leaves to applications (0x100 to
//! 0x1ff): [`NOCMSG_SYS_ABORT`] ends the whole run, not only the calling core (MPI_Abort, abort()),
//! [`NOCMSG_SYS_SLEEP`] lets simulated time pass on the calling core (sleep, usleep, nanosleep) without simulating
//! a busy loop, and [`NOCMSG_SYS_ENVIRON`] hands the program its environment (`nocmsg run --env`; getenv).

use crate::console::Stream;
use crate::core::{Core, CoreEnv};
use riscv::{Memory, Ram};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Component, Path};

const SLLI_X0_X0_0X1F: u32 = 0x01f0_1013;
const EBREAK: u32 = 0x0010_0073;
const SRAI_X0_X0_7: u32 = 0x4070_5013;

pub const SYS_OPEN: u64 = 0x01;
pub const SYS_CLOSE: u64 = 0x02;
pub const SYS_WRITEC: u64 = 0x03;
pub const SYS_WRITE0: u64 = 0x04;
pub const SYS_WRITE: u64 = 0x05;
pub const SYS_READ: u64 = 0x06;
pub const SYS_READC: u64 = 0x07;
pub const SYS_ISERROR: u64 = 0x08;
pub const SYS_ISTTY: u64 = 0x09;
pub const SYS_SEEK: u64 = 0x0a;
pub const SYS_FLEN: u64 = 0x0c;
pub const SYS_CLOCK: u64 = 0x10;
pub const SYS_TIME: u64 = 0x11;
pub const SYS_ERRNO: u64 = 0x13;
pub const SYS_GET_CMDLINE: u64 = 0x15;
pub const SYS_HEAPINFO: u64 = 0x16;
pub const SYS_EXIT: u64 = 0x18;
pub const SYS_EXIT_EXTENDED: u64 = 0x20;
pub const SYS_ELAPSED: u64 = 0x30;
pub const SYS_TICKFREQ: u64 = 0x31;
/// nocmsg: end the whole run; the parameter block is `{code}`: every other core stops where it is and the run
/// exits with `code` (as a job whose rank calls MPI_Abort ends natively).
pub const NOCMSG_SYS_ABORT: u64 = 0x100;
/// nocmsg: sleep; the parameter block is `{seconds, nanoseconds}` (nanoseconds below 10^9): the core's clock
/// moves on by that much simulated time, rounded up to whole cycles. Returns 0, or -1 for a bad duration.
pub const NOCMSG_SYS_SLEEP: u64 = 0x101;
/// Block {buffer, capacity}: the environment as `NAME=VALUE` entries each ending in a NUL, and one more NUL after the
/// last, if it fits in `capacity` bytes; returns the bytes it takes (whether or not it fit).
pub const NOCMSG_SYS_ENVIRON: u64 = 0x102;
/// Block {kind, region, peer, tag, bytes, flags, site}: a communication profile record of libnocmsg (kept when the
/// run makes a profile, `nocmsg run --comm-profile`; see [`crate::profile`]). Returns 0.
pub const NOCMSG_SYS_PROFILE: u64 = 0x103;
/// Threads (cores sharing an address space, `nocmsg run --threads`; `crate::memory`). Block {index, count}: this
/// core's thread index in its process and the process's cores. Returns 0. Without threads: {0, 1}.
pub const NOCMSG_SYS_THREAD_INFO: u64 = 0x104;
/// Block {thread, pc, a0, a1, tp}: starts the process's idle core `thread` at `pc` with those registers, its own
/// stack, and the caller's gp. Returns 0, or -1 (no such thread, the caller itself, or one still running).
pub const NOCMSG_SYS_THREAD_START: u64 = 0x105;
/// Block {value}: this thread ends with `value`; its core idles until started again. Does not return.
pub const NOCMSG_SYS_THREAD_EXIT: u64 = 0x106;
/// Block {thread, value}: waits until thread `thread` has ended, stores its value in the block's second field and
/// returns 0; -1 for no such thread, the caller itself, or one never started.
pub const NOCMSG_SYS_THREAD_JOIN: u64 = 0x107;

/// `ADP_Stopped_ApplicationExit`: the reason code of a normal exit.
const ADP_STOPPED_APPLICATION_EXIT: u64 = 0x20026;
/// Contents of the `:semihosting-features` pseudo-file: magic, then feature byte 0 (bit 0: SYS_EXIT_EXTENDED).
const FEATURES: &[u8] = b"SHFB\x01";

const ENOENT: i64 = 2;
const EBADF: i64 = 9;
const EACCES: i64 = 13;
const EINVAL: i64 = 22;
const EIO: i64 = 5;
const EMFILE: i64 = 24;

/// Largest single transfer (keeps a corrupted length from making the host allocate gigabytes).
const MAX_TRANSFER: u64 = 64 << 20;
const MAX_OPEN_FILES: usize = 64;

/// Whether the `ebreak` at `pc` is the middle of the semihosting sequence: three uncompressed instructions (the
/// convention's rule; a `c.ebreak` is never a call), which compressed code may place on any 2-byte boundary, so the
/// words are read in halfwords.
pub fn is_semihosting_call(ram: &mut Ram, pc: u64) -> bool {
    let word = |ram: &mut Ram, at: u64| -> Option<u32> {
        let low = Memory::load(ram, at, 2).ok()? as u32;
        let high = Memory::load(ram, at.wrapping_add(2), 2).ok()? as u32;
        Some(low | high << 16)
    };
    pc >= 4
        && word(ram, pc) == Some(EBREAK)
        && word(ram, pc - 4) == Some(SLLI_X0_X0_0X1F)
        && word(ram, pc.wrapping_add(4)) == Some(SRAI_X0_X0_7)
}

/// What the core does after a call.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Continue,
    Exit(i64),
    /// End the whole run with this code.
    Abort(i64),
}

#[derive(Debug)]
enum Handle {
    Stdin,
    Console(Stream),
    Features { pos: usize },
    File(File),
}

/// A core's open files. Handles are small positive integers.
#[derive(Debug, Default)]
pub struct FileTable {
    slots: Vec<Option<Handle>>,
    errno: i64,
}

impl FileTable {
    fn insert(&mut self, h: Handle) -> Option<u64> {
        let slot = match self.slots.iter().position(Option::is_none) {
            Some(i) => i,
            None if self.slots.len() < MAX_OPEN_FILES => {
                self.slots.push(None);
                self.slots.len() - 1
            }
            None => return None,
        };
        self.slots[slot] = Some(h);
        Some(slot as u64 + 1)
    }

    fn get(&mut self, handle: u64) -> Option<&mut Handle> {
        let i = handle.checked_sub(1)? as usize;
        self.slots.get_mut(i)?.as_mut()
    }
}

/// The memory a semihosting call reads and writes: the core's private memory, or, with caches, the coherent view
/// of its address space (`crate::memory`).
pub trait GuestMemory {
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, riscv::MemFault>;
    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), riscv::MemFault>;
    /// `len` bytes at `addr`, if all inside memory.
    fn read(&mut self, addr: u64, len: usize) -> Option<Vec<u8>>;
    /// Writes `data` at `addr`; false (and nothing written) if it does not fit.
    fn write(&mut self, addr: u64, data: &[u8]) -> bool;
}

impl GuestMemory for Ram {
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, riscv::MemFault> {
        Memory::load(self, addr, size)
    }
    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), riscv::MemFault> {
        Memory::store(self, addr, size, value)
    }
    fn read(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        self.slice(addr, len).map(<[u8]>::to_vec)
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> bool {
        self.write_bytes(addr, data).is_ok()
    }
}

fn field(ram: &mut dyn GuestMemory, block: u64, index: u64) -> Result<u64, String> {
    let addr = block.wrapping_add(index * 8);
    ram.load(addr, 8).map_err(|_| format!("parameter block field at {addr:#x} is not readable memory"))
}

fn bytes(ram: &mut dyn GuestMemory, addr: u64, len: u64) -> Result<Vec<u8>, String> {
    if len > MAX_TRANSFER {
        return Err(format!("transfer of {len} bytes is larger than the {MAX_TRANSFER}-byte limit"));
    }
    ram.read(addr, len as usize).ok_or_else(|| format!("buffer {addr:#x}+{len} is outside memory"))
}

fn c_string(ram: &mut dyn GuestMemory, addr: u64) -> Result<Vec<u8>, String> {
    let mut s = Vec::new();
    loop {
        let at = addr.wrapping_add(s.len() as u64);
        match ram.load(at, 1) {
            Ok(0) => return Ok(s),
            Ok(b) => s.push(b as u8),
            Err(_) if s.is_empty() => return Err(format!("string at {addr:#x} is outside memory")),
            Err(_) => return Err(format!("string at {addr:#x} has no terminating NUL")),
        }
        if s.len() as u64 > MAX_TRANSFER {
            return Err(format!("string at {addr:#x} is longer than {MAX_TRANSFER} bytes"));
        }
    }
}

/// A guest path, accepted only if it stays inside the working directory.
fn confined_path(work_dir: &Path, name: &[u8]) -> Result<std::path::PathBuf, i64> {
    let name = std::str::from_utf8(name).map_err(|_| EINVAL)?;
    let rel = Path::new(name);
    if name.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(EACCES);
    }
    Ok(work_dir.join(rel))
}

fn open_mode(mode: u64) -> Option<std::fs::OpenOptions> {
    let mut o = std::fs::OpenOptions::new();
    match mode {
        0 | 1 => o.read(true),
        2 | 3 => o.read(true).write(true),
        4 | 5 => o.write(true).create(true).truncate(true),
        6 | 7 => o.read(true).write(true).create(true).truncate(true),
        8 | 9 => o.append(true).create(true),
        10 | 11 => o.read(true).append(true).create(true),
        _ => return None,
    };
    Some(o)
}

fn io_errno(e: &std::io::Error) -> i64 {
    match e.kind() {
        std::io::ErrorKind::NotFound => ENOENT,
        std::io::ErrorKind::PermissionDenied => EACCES,
        _ => EIO,
    }
}

/// Performs the call whose operation is in a0 and parameter block in a1; the result goes to a0.
///
/// `memory` is what the call reads and writes (`None`: the core's private memory).
pub fn call(core: &mut Core, env: &CoreEnv, memory: Option<&mut dyn GuestMemory>) -> Result<Outcome, String> {
    let op = core.hart.x[10];
    let arg = core.hart.x[11];
    let cycle = core.hart.cycle;
    let rank = core.rank;
    let ram: &mut dyn GuestMemory = match memory {
        Some(m) => m,
        None => &mut core.mem.ram,
    };
    let files = &mut core.files;
    let fail = |files: &mut FileTable, errno: i64| {
        files.errno = errno;
        u64::MAX
    };
    let result: u64 = match op {
        SYS_WRITEC => {
            let c = ram.load(arg, 1).map_err(|_| format!("SYS_WRITEC character at {arg:#x} is outside memory"))? as u8;
            core.console.write(rank, Stream::Stdout, &[c], cycle);
            0
        }
        SYS_WRITE0 => {
            let s = c_string(ram, arg)?;
            core.console.write(rank, Stream::Stdout, &s, cycle);
            0
        }
        SYS_OPEN => {
            let (name_ptr, mode, len) = (field(ram, arg, 0)?, field(ram, arg, 1)?, field(ram, arg, 2)?);
            let name = bytes(ram, name_ptr, len)?;
            let handle = match (name.as_slice(), mode) {
                (b":tt", 0..=3) => files.insert(Handle::Stdin),
                (b":tt", 4..=7) => files.insert(Handle::Console(Stream::Stdout)),
                (b":tt", 8..=11) => files.insert(Handle::Console(Stream::Stderr)),
                (b":semihosting-features", 0 | 1) => files.insert(Handle::Features { pos: 0 }),
                (_, m) => match (open_mode(m), confined_path(&env.work_dir, &name)) {
                    (None, _) => return Err(format!("SYS_OPEN mode {m} is not a valid mode (0..11)")),
                    (_, Err(errno)) => {
                        files.errno = errno;
                        None
                    }
                    (Some(opts), Ok(path)) => match opts.open(path) {
                        Ok(f) => files.insert(Handle::File(f)),
                        Err(e) => {
                            files.errno = io_errno(&e);
                            None
                        }
                    },
                },
            };
            match handle {
                Some(h) => h,
                None => {
                    if files.errno == 0 {
                        files.errno = EMFILE;
                    }
                    u64::MAX
                }
            }
        }
        SYS_CLOSE => {
            let h = field(ram, arg, 0)?;
            match h.checked_sub(1).and_then(|i| files.slots.get_mut(i as usize)).and_then(Option::take) {
                Some(_) => 0,
                None => fail(files, EBADF),
            }
        }
        SYS_WRITE => {
            let (h, buf, len) = (field(ram, arg, 0)?, field(ram, arg, 1)?, field(ram, arg, 2)?);
            let data = bytes(ram, buf, len)?;
            match files.get(h) {
                Some(Handle::Console(stream)) => {
                    let stream = *stream;
                    core.console.write(rank, stream, &data, cycle);
                    0
                }
                Some(Handle::File(f)) => match f.write_all(&data) {
                    Ok(()) => 0,
                    Err(e) => {
                        files.errno = io_errno(&e);
                        len
                    }
                },
                _ => {
                    files.errno = EBADF;
                    len
                }
            }
        }
        SYS_READ => {
            let (h, buf, len) = (field(ram, arg, 0)?, field(ram, arg, 1)?, field(ram, arg, 2)?);
            if len > MAX_TRANSFER {
                return Err(format!("SYS_READ of {len} bytes is larger than the {MAX_TRANSFER}-byte limit"));
            }
            let mut data = vec![0u8; len as usize];
            let got = match files.get(h) {
                Some(Handle::Stdin) => Some(0),
                Some(Handle::Features { pos }) => {
                    let n = FEATURES.len().saturating_sub(*pos).min(data.len());
                    data[..n].copy_from_slice(&FEATURES[*pos..*pos + n]);
                    *pos += n;
                    Some(n)
                }
                Some(Handle::File(f)) => {
                    let mut total = 0;
                    loop {
                        match f.read(&mut data[total..]) {
                            Ok(0) => break Some(total),
                            Ok(n) => {
                                total += n;
                                if total == data.len() {
                                    break Some(total);
                                }
                            }
                            Err(e) => {
                                files.errno = io_errno(&e);
                                break None;
                            }
                        }
                    }
                }
                _ => {
                    files.errno = EBADF;
                    None
                }
            };
            match got {
                Some(n) => {
                    if !ram.write(buf, &data[..n]) {
                        return Err(format!("SYS_READ buffer {buf:#x}+{n} is outside memory"));
                    }
                    len - n as u64
                }
                None => u64::MAX,
            }
        }
        SYS_READC => u64::MAX, // No console input.
        SYS_ISERROR => u64::from((field(ram, arg, 0)? as i64) < 0),
        SYS_ISTTY => {
            let h = field(ram, arg, 0)?;
            match files.get(h) {
                Some(Handle::Stdin | Handle::Console(_)) => 1,
                Some(_) => 0,
                None => fail(files, EBADF),
            }
        }
        SYS_SEEK => {
            let (h, pos) = (field(ram, arg, 0)?, field(ram, arg, 1)?);
            match files.get(h) {
                Some(Handle::File(f)) => match f.seek(SeekFrom::Start(pos)) {
                    Ok(_) => 0,
                    Err(e) => fail(files, io_errno(&e)),
                },
                Some(Handle::Features { pos: p }) => {
                    *p = (pos as usize).min(FEATURES.len());
                    0
                }
                _ => fail(files, EBADF),
            }
        }
        SYS_FLEN => {
            let h = field(ram, arg, 0)?;
            match files.get(h) {
                Some(Handle::File(f)) => match f.metadata() {
                    Ok(m) => m.len(),
                    Err(e) => fail(files, io_errno(&e)),
                },
                Some(Handle::Features { .. }) => FEATURES.len() as u64,
                Some(_) => 0,
                None => fail(files, EBADF),
            }
        }
        // Centiseconds of simulated time since the core started.
        SYS_CLOCK => (u128::from(cycle) * 100 / u128::from(env.frequency_hz)) as u64,
        // Seconds of simulated time: the simulated machine's clock starts at 0 (the epoch) when the run starts.
        SYS_TIME => cycle / env.frequency_hz,
        SYS_ERRNO => files.errno as u64,
        SYS_GET_CMDLINE => {
            let (buf, cap) = (field(ram, arg, 0)?, field(ram, arg, 1)?);
            let text = env.command_line.as_bytes();
            if (text.len() as u64) < cap {
                let mut z = text.to_vec();
                z.push(0);
                if !ram.write(buf, &z) {
                    return Err(format!("SYS_GET_CMDLINE buffer {buf:#x} is outside memory"));
                }
                ram.store(arg + 8, 8, text.len() as u64).map_err(|e| e.to_string())?;
                0
            } else {
                fail(files, EINVAL)
            }
        }
        SYS_HEAPINFO => {
            let block = field(ram, arg, 0)?;
            let values = [env.heap_start, env.heap_end, env.stack_top, env.heap_end];
            for (i, v) in values.iter().enumerate() {
                ram.store(block + 8 * i as u64, 8, *v).map_err(|_| format!("SYS_HEAPINFO block at {block:#x} is not writable memory"))?;
            }
            0
        }
        SYS_EXIT | SYS_EXIT_EXTENDED => {
            // On RV64 a1 points to {reason, subcode}; picolibc passes the exit status as the subcode.
            let (reason, subcode) = (field(ram, arg, 0)?, field(ram, arg, 1)?);
            let code = if reason == ADP_STOPPED_APPLICATION_EXIT || subcode != 0 { subcode as i64 } else { 1 };
            return Ok(Outcome::Exit(code));
        }
        SYS_ELAPSED => {
            ram.store(arg, 8, cycle).map_err(|_| format!("SYS_ELAPSED result at {arg:#x} is not writable memory"))?;
            0
        }
        SYS_TICKFREQ => env.frequency_hz,
        NOCMSG_SYS_ABORT => return Ok(Outcome::Abort(field(ram, arg, 0)? as i64)),
        NOCMSG_SYS_SLEEP => {
            let (seconds, nanoseconds) = (field(ram, arg, 0)?, field(ram, arg, 1)?);
            match sleep_cycles(seconds, nanoseconds, env.frequency_hz) {
                Some(cycles) => {
                    core.hart.cycle = core.hart.cycle.saturating_add(cycles);
                    core.sleep_cycles += cycles;
                    0
                }
                None => fail(files, EINVAL),
            }
        }
        NOCMSG_SYS_PROFILE => {
            if env.comm_profile {
                let mut f = [0u64; 7];
                for (i, v) in f.iter_mut().enumerate() {
                    *v = field(ram, arg, i as u64)?;
                }
                let name = if f[0] == crate::profile::REC_REGION {
                    Some(String::from_utf8_lossy(&c_string(ram, f[4])?).into_owned())
                } else {
                    None
                };
                core.comm_records.push(crate::profile::Record {
                    cycle,
                    kind: f[0],
                    region: f[1],
                    peer: f[2],
                    tag: f[3],
                    bytes: f[4],
                    flags: f[5],
                    site: f[6],
                    name,
                });
            }
            0
        }
        // Without threads a process is one core.
        NOCMSG_SYS_THREAD_INFO => {
            ram.store(arg, 8, 0).and_then(|_| ram.store(arg + 8, 8, 1)).map_err(|_| format!("NOCMSG_SYS_THREAD_INFO block at {arg:#x} is not writable memory"))?;
            0
        }
        NOCMSG_SYS_THREAD_START | NOCMSG_SYS_THREAD_JOIN => u64::MAX,
        NOCMSG_SYS_THREAD_EXIT => return Ok(Outcome::Exit(field(ram, arg, 0)? as i64)),
        NOCMSG_SYS_ENVIRON => {
            let (buf, cap) = (field(ram, arg, 0)?, field(ram, arg, 1)?);
            let text = env.environment.as_bytes();
            let needed = text.len() as u64 + 1;
            if needed <= cap {
                let mut z = text.to_vec();
                z.push(0);
                if !ram.write(buf, &z) {
                    return Err(format!("NOCMSG_SYS_ENVIRON buffer {buf:#x} is outside memory"));
                }
            }
            needed
        }
        other => return Err(format!("operation {other:#x} is not supported")),
    };
    core.hart.x[10] = result;
    Ok(Outcome::Continue)
}

/// Whole cycles covering `seconds` + `nanoseconds` at `frequency_hz` (rounded up, so a sleep lasts at least as
/// long as asked), saturating at the largest cycle count; `None` for nanoseconds of 10^9 or more.
pub fn sleep_cycles(seconds: u64, nanoseconds: u64, frequency_hz: u64) -> Option<u64> {
    if nanoseconds >= 1_000_000_000 {
        return None;
    }
    let ns = u128::from(seconds) * 1_000_000_000 + u128::from(nanoseconds);
    // u64::MAX seconds at 100 GHz overflows even u128: saturate (a sleep that long never ends anyway).
    let Some(product) = ns.checked_mul(u128::from(frequency_hz)) else { return Some(u64::MAX) };
    Some(u64::try_from(product.div_ceil(1_000_000_000)).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeps_last_at_least_what_was_asked_in_whole_cycles() {
        let ghz = 1_000_000_000;
        assert_eq!(sleep_cycles(0, 0, ghz), Some(0));
        assert_eq!(sleep_cycles(1, 500, ghz), Some(1_000_000_500));
        // 533 MHz (the SCC's cores): 1 ns is 0.533 cycles, rounded up to 1; 1 s exactly 533,000,000.
        assert_eq!(sleep_cycles(0, 1, 533_000_000), Some(1));
        assert_eq!(sleep_cycles(1, 0, 533_000_000), Some(533_000_000));
        assert_eq!(sleep_cycles(0, 3, 533_000_000), Some(2));
        assert_eq!(sleep_cycles(0, 1_000_000_000, ghz), None);
        assert_eq!(sleep_cycles(u64::MAX, 999_999_999, 100_000_000_000), Some(u64::MAX));
    }

    #[test]
    fn paths_stay_inside_the_working_directory() {
        let wd = Path::new("/w");
        assert_eq!(confined_path(wd, b"input.txt").unwrap(), Path::new("/w/input.txt"));
        assert_eq!(confined_path(wd, b"./d/f").unwrap(), Path::new("/w/./d/f"));
        assert_eq!(confined_path(wd, b"../etc/passwd"), Err(EACCES));
        assert_eq!(confined_path(wd, b"/etc/passwd"), Err(EACCES));
        assert_eq!(confined_path(wd, b"d/../../x"), Err(EACCES));
        assert_eq!(confined_path(wd, b""), Err(EACCES));
    }
}
