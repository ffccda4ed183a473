//! What a deadlocked rank is blocked in, in the terms of the program: the call (`MPI_Ssend`), its caller
//! (`main+0x4c`), the rank it waits for, and the cycle those waits form. Used by the chip's deadlock report and,
//! through the same types and rules, by `nocmsg native`'s.
//!
//! Three sources, all written by libnocmsg (lib/src/wait.h, lib/include/nocmsg_wait.h):
//! * the stack: the chip unwinds a sleeping core ([`crate::unwind`]) and the call is the outermost frame in the
//!   library's own code (`__start_nocmsg_text`..`__stop_nocmsg_text`) with a public name, the caller the frame
//!   just outside the library (natively the rank records its own backtrace for the launcher);
//! * the wait record (`nocmsg_wait_record`, natively the rank's slot of the shared-memory file): state, the rank a
//!   blocking loop waits for, and the call's name where a tail call took the public function off the stack;
//! * the wait-site table (section `.nocmsg_waits`): for the waits on the fast paths, which write nothing at run
//!   time, where the rank waited for is (a register, a stack slot or a constant) and, for the inline paths that
//!   live in the caller's code, the call's name.

use crate::core::{Core, CoreStatus};
use crate::elf::{Function, Program};
use crate::unwind::Unwinder;
use serde::Serialize;
use std::fmt;

/// Offsets and values of the wait record (lib/src/wait.h, struct nocmsg_wait_record).
pub mod record {
    pub const MAGIC: u32 = 0x3172_776e;
    pub const OFFSET_MAGIC: u64 = 0;
    pub const OFFSET_STATE: u64 = 4;
    pub const OFFSET_PEER: u64 = 8;
    pub const OFFSET_EPOCH: u64 = 12;
    pub const OFFSET_CALL: u64 = 16;
    pub const OFFSET_HEARTBEAT: u64 = 24;
    pub const OFFSET_FRAMES_EPOCH: u64 = 32;
    pub const OFFSET_FRAMES: u64 = 36;
    pub const OFFSET_FRAME: u64 = 40;
    pub const FRAMES: usize = 16;
    pub const OFFSET_NAME: u64 = 168;
    pub const NAME_BYTES: usize = 32;
    /// Natively each rank's record is a slot of this many bytes at the start of the shared-memory file.
    pub const SLOT_BYTES: usize = 256;
    /// Frame entries: this bit marks an address in libnocmsg's code; 0 is a frame outside the program.
    pub const FRAME_LIB: u64 = 1 << 63;
    pub const NONE: u32 = 0;
    pub const RUNNING: u32 = 1;
    pub const BLOCKED: u32 = 2;
    pub const FINALIZED: u32 = 3;
    pub const EXITED: u32 = 4;
}

/// The line a report gives a rank that ended without finalizing the library.
pub const UNFINALIZED: &str = "without calling MPI_Finalize (or nocmsg_finalize)";

/// A program's function symbols, by address.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    functions: Vec<Function>,
}

impl Symbols {
    pub fn new(mut functions: Vec<Function>) -> Symbols {
        functions.sort_by(|a, b| (a.address, &a.name).cmp(&(b.address, &b.name)));
        functions.dedup_by_key(|f| f.address);
        Symbols { functions }
    }

    /// The function containing `address`.
    pub fn function(&self, address: u64) -> Option<&Function> {
        let k = self.functions.partition_point(|f| f.address <= address).checked_sub(1)?;
        let f = &self.functions[k];
        (address < f.address + f.size.max(1)).then_some(f)
    }

    /// `name+0xoffset` (or the bare address); `inside` is where to look the function up (a return address minus 1,
    /// since a call may be the last instruction of its function).
    pub fn describe(&self, address: u64, inside: u64) -> String {
        match self.function(inside) {
            Some(f) if address == f.address => f.name.clone(),
            Some(f) => format!("{}+{:#x}", f.name, address - f.address),
            None => format!("{address:#x}"),
        }
    }
}

/// Whether `name` is a call of the library's interface (the MPI and libnocmsg functions a program calls), as
/// opposed to its internals.
pub fn is_public_call(name: &str) -> bool {
    const INTERNAL: &[&str] = &["nocmsg__", "nocmsg_engine_", "nocmsg_port_", "nocmsg_wait_"];
    const INTERNAL_NAMES: &[&str] = &["nocmsg_coll_init", "nocmsg_comm_init", "nocmsg_comm_finalize"];
    name.starts_with("MPI_")
        || name.starts_with("PMPI_")
        || (name.starts_with("nocmsg_") && !INTERNAL.iter().any(|p| name.starts_with(p)) && !INTERNAL_NAMES.contains(&name))
}

/// One frame of a blocked rank's stack, innermost first: the first is where the rank waits, the others return
/// addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub address: u64,
    /// In libnocmsg's own code.
    pub library: bool,
}

/// The call a rank is blocked in and where it was called from: the outermost library frame with a public name
/// (else `fallback`, else the outermost library frame), and the first frame outside the library. When the rank
/// waits outside the library (an inline fast path, or a program's own wait loop), the call is `fallback` and the
/// place is the wait itself.
pub fn blocked_call(frames: &[Frame], symbols: &Symbols, fallback: Option<&str>) -> (Option<String>, Option<String>) {
    let Some(first) = frames.first() else { return (fallback.map(str::to_string), None) };
    let inside = |k: usize| if k == 0 { frames[k].address } else { frames[k].address - 1 };
    if !first.library {
        return (fallback.map(str::to_string), Some(symbols.describe(first.address, first.address)));
    }
    let outermost = frames.iter().take_while(|f| f.library).count() - 1;
    // The C function a symbol belongs to: GCC names the parts it splits off `f.cold`, `f.part.0`, `f.isra.0`.
    let function = |k: usize| symbols.function(inside(k)).map(|f| f.name.split('.').next().unwrap_or_default().to_string());
    let public = (0..=outermost).rev().find_map(|k| function(k).filter(|name| is_public_call(name)));
    let call = match (public, fallback) {
        (Some(name), _) => Some(name),
        (None, Some(name)) => Some(name.to_string()),
        (None, None) => function(outermost),
    };
    let caller = frames.get(outermost + 1).map(|f| symbols.describe(f.address, f.address - 1));
    (call, caller)
}

/// What a blocked rank waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitsFor {
    /// A message from this world rank (or something only it can give, such as a clear-to-send).
    Rank(usize),
    /// A message from any rank.
    AnySource,
    /// A rank of a communicator other than the world, whose world rank the report does not know.
    CommRank { rank: i64, comm: i64 },
    Unknown,
}

/// A rank blocked in the deadlock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockedRank {
    pub rank: usize,
    /// The tile it runs on (simulated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile: Option<usize>,
    /// Where it waits (simulated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pc: Option<u64>,
    /// The call it is blocked in (`MPI_Ssend`), if known.
    pub call: Option<String>,
    /// Where that call was made (`main+0x4c`), or where the rank waits when that is outside any library call.
    pub caller: Option<String>,
    pub waits_for: WaitsFor,
    /// What the network interface says the core waits for (simulated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl fmt::Display for BlockedRank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rank {}", self.rank)?;
        if let Some(tile) = self.tile {
            write!(f, " (tile {tile})")?;
        }
        match (&self.call, &self.caller) {
            (Some(call), Some(caller)) => write!(f, " in {call} called from {caller}")?,
            (Some(call), None) => write!(f, " in {call}")?,
            (None, Some(at)) => write!(f, " at {at}")?,
            (None, None) => {}
        }
        match &self.waits_for {
            WaitsFor::Rank(r) => write!(f, ", waits for rank {r}")?,
            WaitsFor::AnySource => write!(f, ", waits for a message from any rank")?,
            WaitsFor::CommRank { rank, comm } => write!(f, ", waits for rank {rank} of communicator {comm}")?,
            WaitsFor::Unknown => {}
        }
        match (self.pc, &self.detail) {
            (Some(pc), Some(d)) => write!(f, " [pc {pc:#x}: {d}]"),
            (Some(pc), None) => write!(f, " [pc {pc:#x}]"),
            (None, Some(d)) => write!(f, " [{d}]"),
            (None, None) => Ok(()),
        }
    }
}

/// A rank that is no longer running, for the report's account of what the blocked ranks wait for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FinishedRank {
    pub rank: usize,
    /// How it ended, in words ("exited with status 0 without calling MPI_Finalize (or nocmsg_finalize)").
    pub how: String,
}

/// The cycle the blocked ranks' waits form, as world ranks from the smallest (each waits for the next, the last for
/// the first); empty when the known waits form none.
pub fn wait_for_cycle(blocked: &[BlockedRank]) -> Vec<usize> {
    let next = |r: usize| {
        blocked.iter().find(|b| b.rank == r).and_then(|b| match b.waits_for {
            WaitsFor::Rank(p) => Some(p),
            _ => None,
        })
    };
    let mut ranks: Vec<usize> = blocked.iter().map(|b| b.rank).collect();
    ranks.sort_unstable();
    for &start in &ranks {
        let mut path = vec![start];
        let mut at = start;
        while let Some(p) = next(at) {
            if let Some(k) = path.iter().position(|&q| q == p) {
                let mut cycle = path.split_off(k);
                let min = cycle.iter().enumerate().min_by_key(|(_, &r)| r).map_or(0, |(i, _)| i);
                cycle.rotate_left(min);
                return cycle;
            }
            path.push(p);
            at = p;
        }
    }
    Vec::new()
}

/// The report's lines for the blocked ranks and their waits: one per rank, then the wait-for cycle, or the waits
/// that end at a rank no longer running. Each line starts with `indent`.
pub fn write_waits(f: &mut fmt::Formatter<'_>, indent: &str, blocked: &[BlockedRank], cycle: &[usize], finished: &[FinishedRank]) -> fmt::Result {
    for b in blocked {
        writeln!(f, "{indent}{b}")?;
    }
    if let Some(&first) = cycle.first() {
        let path: Vec<String> = cycle.iter().chain([&first]).map(|r| format!("rank {r}")).collect();
        return writeln!(f, "{indent}wait-for cycle: {}", path.join(" -> "));
    }
    let mut any = false;
    for b in blocked {
        if let WaitsFor::Rank(p) = b.waits_for {
            if let Some(done) = finished.iter().find(|d| d.rank == p) {
                writeln!(f, "{indent}rank {} waits for rank {p}, which {}", b.rank, done.how)?;
                any = true;
            }
        }
    }
    if !any && blocked.iter().any(|b| matches!(b.waits_for, WaitsFor::Rank(_))) {
        writeln!(f, "{indent}no cycle among the waits the ranks name")?;
    }
    Ok(())
}

/// Where a wait site's peer is while the core sleeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operand {
    Register(usize),
    Constant(i64),
    /// 8 bytes at register + offset.
    Stack { base: usize, offset: i64 },
}

impl Operand {
    fn parse(text: &str) -> Option<Operand> {
        let text = text.trim();
        if let Ok(v) = text.parse::<i64>() {
            return Some(Operand::Constant(v));
        }
        if let Some((offset, rest)) = text.split_once('(') {
            let base = register(rest.strip_suffix(')')?)?;
            let offset = if offset.is_empty() { 0 } else { offset.parse().ok()? };
            return Some(Operand::Stack { base, offset });
        }
        register(text).map(Operand::Register)
    }

    fn value(self, core: &Core) -> Option<i64> {
        match self {
            Operand::Register(r) => Some(core.hart.x[r] as i64),
            Operand::Constant(v) => Some(v),
            Operand::Stack { base, offset } => load64(core, core.hart.x[base].wrapping_add(offset as u64)).map(|v| v as i64),
        }
    }
}

/// A RISC-V integer register by ABI or x-name.
fn register(name: &str) -> Option<usize> {
    const ABI: [&str; 32] = [
        "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3",
        "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
    ];
    if name == "fp" {
        return Some(8);
    }
    if let Some(n) = name.strip_prefix('x').and_then(|n| n.parse::<usize>().ok()) {
        return (n < 32).then_some(n);
    }
    ABI.iter().position(|&r| r == name)
}

/// The peer of a wait site: a world rank, or a rank of the communicator with the given handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PeerSpec {
    World(Operand),
    Local { rank: Operand, comm: Operand },
}

/// One entry of the wait-site table.
#[derive(Clone, Debug, PartialEq, Eq)]
struct WaitSite {
    pc: u64,
    call: Option<String>,
    peer: Option<PeerSpec>,
}

/// Parses the `.nocmsg_waits` section: 8-aligned entries of an address and a NUL-terminated "call|peer".
fn parse_sites(section: &[u8]) -> Vec<WaitSite> {
    let mut sites = Vec::new();
    let mut at = 0;
    while at + 8 < section.len() {
        let pc = u64::from_le_bytes(section[at..at + 8].try_into().expect("8 bytes"));
        let rest = &section[at + 8..];
        let Some(len) = rest.iter().position(|&b| b == 0) else { break };
        let text = String::from_utf8_lossy(&rest[..len]);
        if let Some((call, peer)) = text.split_once('|') {
            let peer = match peer.split_once('/') {
                Some((rank, comm)) => Operand::parse(rank).zip(Operand::parse(comm)).map(|(rank, comm)| PeerSpec::Local { rank, comm }),
                None => Operand::parse(peer).map(PeerSpec::World),
            };
            sites.push(WaitSite { pc, call: (!call.is_empty()).then(|| call.to_string()), peer });
        }
        at = (at + 8 + len + 1 + 7) & !7;
    }
    sites.sort_by_key(|s| s.pc);
    sites
}

fn load64(core: &Core, address: u64) -> Option<u64> {
    core.mem.ram.slice(address, 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
}

fn load32(core: &Core, address: u64) -> Option<u32> {
    core.mem.ram.slice(address, 4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
}

/// A NUL-terminated string of at most 64 bytes in a core's memory.
fn load_str(core: &Core, address: u64) -> Option<String> {
    let bytes: Vec<u8> = (0..64).map_while(|k| core.mem.ram.slice(address + k, 1).map(|b| b[0])).take_while(|&b| b != 0).collect();
    (!bytes.is_empty()).then(|| String::from_utf8_lossy(&bytes).into_owned())
}

/// What a program offers the deadlock report: symbols, call frame information, wait sites, the wait record.
#[derive(Clone, Debug, Default)]
pub struct ProgramDiagnostics {
    pub symbols: Symbols,
    unwinder: Unwinder,
    sites: Vec<WaitSite>,
    record: Option<u64>,
    library: Option<(u64, u64)>,
}

impl ProgramDiagnostics {
    pub fn new(program: &Program) -> ProgramDiagnostics {
        ProgramDiagnostics {
            symbols: Symbols::new(program.functions.clone()),
            unwinder: Unwinder::parse(&program.debug_frame),
            sites: parse_sites(&program.wait_sites),
            record: program.wait_record,
            library: program.library_text,
        }
    }

    fn in_library(&self, address: u64) -> bool {
        self.library.is_some_and(|(lo, hi)| address >= lo && address < hi)
    }

    /// The core's wait record: state, peer, and the call's name while blocked (None without a library).
    fn record(&self, core: &Core) -> Option<(u32, i32, Option<String>)> {
        let at = self.record?;
        if load32(core, at + record::OFFSET_MAGIC)? != record::MAGIC {
            return None;
        }
        let state = load32(core, at + record::OFFSET_STATE)?;
        let peer = load32(core, at + record::OFFSET_PEER)? as i32;
        let call = load64(core, at + record::OFFSET_CALL).filter(|&a| a != 0).and_then(|a| load_str(core, a));
        Some((state, peer, call))
    }

    /// A core asleep in a wait loop, described: `detail` is what its network interface says it waits for.
    pub fn blocked_rank(&self, core: &Core, ranks: usize, detail: String) -> BlockedRank {
        let pc = core.hart.pc;
        let site = self.sites.binary_search_by_key(&pc, |s| s.pc).ok().map(|k| &self.sites[k]);
        let record = self.record(core).filter(|(state, _, _)| *state == record::BLOCKED);
        let world = |v: i64| match v {
            -1 => WaitsFor::AnySource,
            v if v >= 0 && (v as usize) < ranks => WaitsFor::Rank(v as usize),
            _ => WaitsFor::Unknown,
        };
        let waits_for = match (site.and_then(|s| s.peer), &record) {
            (Some(PeerSpec::World(op)), _) => op.value(core).map_or(WaitsFor::Unknown, world),
            (Some(PeerSpec::Local { rank, comm }), _) => match (rank.value(core), comm.value(core)) {
                (Some(-1), _) => WaitsFor::AnySource,
                (Some(r), Some(0)) => world(r),
                (Some(0), Some(1)) => WaitsFor::Rank(core.rank),
                (Some(r), Some(c)) => WaitsFor::CommRank { rank: r, comm: c },
                _ => WaitsFor::Unknown,
            },
            (None, Some((_, peer, _))) => world(i64::from(*peer)),
            (None, None) => WaitsFor::Unknown,
        };
        let fallback = site.and_then(|s| s.call.clone()).or_else(|| record.and_then(|(_, _, call)| call));
        let addresses = self.unwinder.frames(pc, &core.hart.x, &|a| load64(core, a));
        let frames: Vec<Frame> = addresses
            .iter()
            .enumerate()
            .map(|(k, &a)| Frame { address: a, library: self.in_library(if k == 0 { a } else { a - 1 }) })
            .collect();
        let (call, caller) = blocked_call(&frames, &self.symbols, fallback.as_deref());
        BlockedRank { rank: core.rank, tile: Some(core.tile), pc: Some(pc), call, caller, waits_for, detail: Some(detail) }
    }

    /// A core that is no longer running, described for the report.
    pub fn finished_rank(&self, core: &Core) -> Option<FinishedRank> {
        let how = match &core.status {
            CoreStatus::Running => return None,
            CoreStatus::Faulted { fault } => format!("stopped on an error at cycle {}", fault.cycle),
            CoreStatus::Aborted { code } => format!("aborted with code {code} at cycle {}", core.end_cycle.unwrap_or(core.hart.cycle)),
            CoreStatus::Stopped { by } => format!("stopped by rank {by}'s abort"),
            CoreStatus::Exited { code } => {
                let unfinalized = self.record(core).is_some_and(|(state, _, _)| state == record::RUNNING || state == record::BLOCKED);
                let end = core.end_cycle.unwrap_or(core.hart.cycle);
                if unfinalized {
                    format!("exited with status {code} at cycle {end} {UNFINALIZED}")
                } else {
                    format!("exited with status {code} at cycle {end}")
                }
            }
        };
        Some(FinishedRank { rank: core.rank, how })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols() -> Symbols {
        let f = |address, size, name: &str| Function { address, size, name: name.to_string() };
        Symbols::new(vec![
            f(0x100, 0x100, "main"),
            f(0x1000, 0x40, "MPI_Ssend"),
            f(0x1040, 0x40, "nocmsg_ssend"),
            f(0x1080, 0x80, "blocking"),
            f(0x1100, 0x40, "nocmsg_engine_block"),
            f(0x1200, 0x40, "nocmsg_recv.cold"),
        ])
    }

    fn lib(address: u64) -> Frame {
        Frame { address, library: true }
    }

    fn user(address: u64) -> Frame {
        Frame { address, library: false }
    }

    #[test]
    fn the_call_is_the_outermost_public_library_frame_and_the_caller_the_next() {
        let s = symbols();
        let frames = [lib(0x1110), lib(0x10a0), lib(0x1050), lib(0x1010), user(0x14c)];
        assert_eq!(blocked_call(&frames, &s, None), (Some("MPI_Ssend".into()), Some("main+0x4c".into())));
        // A tail call took the public function off the stack: the record's name stands in for it.
        let frames = [lib(0x1110), lib(0x10a0), user(0x14c)];
        assert_eq!(blocked_call(&frames, &s, Some("nocmsg_ssend")), (Some("nocmsg_ssend".into()), Some("main+0x4c".into())));
        assert_eq!(blocked_call(&frames, &s, None), (Some("blocking".into()), Some("main+0x4c".into())));
        // Waiting in the program's own code (an inline fast path): the call from the wait-site table, the place.
        assert_eq!(blocked_call(&[user(0x140)], &s, Some("MPI_Recv")), (Some("MPI_Recv".into()), Some("main+0x40".into())));
        assert_eq!(blocked_call(&[user(0x140)], &s, None), (None, Some("main+0x40".into())));
        // A part GCC split off a public function is named after the function.
        assert_eq!(blocked_call(&[lib(0x1110), lib(0x1210), user(0x150)], &s, None), (Some("nocmsg_recv".into()), Some("main+0x50".into())));
        // The walk ended inside the library: no caller.
        assert_eq!(blocked_call(&[lib(0x1110), lib(0x1010)], &s, None), (Some("MPI_Ssend".into()), None));
    }

    #[test]
    fn public_names() {
        for name in ["MPI_Recv", "PMPI_Barrier", "nocmsg_recv", "nocmsg_comm_split", "nocmsg_barrier"] {
            assert!(is_public_call(name), "{name}");
        }
        for name in ["nocmsg__recv_handoff", "nocmsg_engine_block", "nocmsg_port_wait", "nocmsg_wait_idle", "nocmsg_comm_init", "blocking", "main"] {
            assert!(!is_public_call(name), "{name}");
        }
    }

    fn blocked(rank: usize, waits_for: WaitsFor) -> BlockedRank {
        BlockedRank { rank, tile: None, pc: None, call: None, caller: None, waits_for, detail: None }
    }

    #[test]
    fn cycles_are_found_and_start_at_the_smallest_rank() {
        let b = [blocked(2, WaitsFor::Rank(0)), blocked(0, WaitsFor::Rank(1)), blocked(1, WaitsFor::Rank(2))];
        assert_eq!(wait_for_cycle(&b), vec![0, 1, 2]);
        let b = [blocked(0, WaitsFor::Rank(1)), blocked(1, WaitsFor::Rank(0))];
        assert_eq!(wait_for_cycle(&b), vec![0, 1]);
        // A tail into a cycle: only the cycle.
        let b = [blocked(0, WaitsFor::Rank(1)), blocked(1, WaitsFor::Rank(2)), blocked(2, WaitsFor::Rank(1))];
        assert_eq!(wait_for_cycle(&b), vec![1, 2]);
        let b = [blocked(0, WaitsFor::Rank(1)), blocked(1, WaitsFor::AnySource)];
        assert_eq!(wait_for_cycle(&b), Vec::<usize>::new());
        let b = [blocked(0, WaitsFor::Rank(3))];
        assert_eq!(wait_for_cycle(&b), Vec::<usize>::new());
    }

    #[test]
    fn wait_sites_parse() {
        let mut section = Vec::new();
        for (pc, text) in [(0x8000_0040u64, "MPI_Recv|a5"), (0x8000_0010, "|-1"), (0x8000_0020, "|8(sp)"), (0x8000_0030, "|a3/a5")] {
            section.extend(pc.to_le_bytes());
            section.extend(text.as_bytes());
            section.push(0);
            while section.len() % 8 != 0 {
                section.push(0);
            }
        }
        let sites = parse_sites(&section);
        assert_eq!(sites.len(), 4);
        assert_eq!(sites[0], WaitSite { pc: 0x8000_0010, call: None, peer: Some(PeerSpec::World(Operand::Constant(-1))) });
        assert_eq!(sites[1].peer, Some(PeerSpec::World(Operand::Stack { base: 2, offset: 8 })));
        assert_eq!(
            sites[2].peer,
            Some(PeerSpec::Local { rank: Operand::Register(13), comm: Operand::Register(15) })
        );
        assert_eq!(sites[3], WaitSite { pc: 0x8000_0040, call: Some("MPI_Recv".into()), peer: Some(PeerSpec::World(Operand::Register(15))) });
        assert!(parse_sites(b"\x01\x02").is_empty());
    }
}
