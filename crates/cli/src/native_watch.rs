//! What `nocmsg native` learns from the ranks' wait records: each rank built with libnocmsg keeps one in its slot at
//! the start of the job's shared-memory file (lib/src/wait.h; layout in [`chip::diagnose::record`]), which the
//! launcher only reads, with `pread`, so a rank that writes garbage or shrinks the file cannot hurt it.
//!
//! Two things come of it:
//! * a rank that exits with status 0 but had initialized the library and not finalized it is reported and the job
//!   stopped at once, as production MPI launchers do (the others would otherwise wait for it until `--timeout`);
//! * a deadlock: every rank still running is blocked in the library, and for [`QUIET`] nothing has changed, no rank
//!   has blocked, unblocked or got anything done while blocked (each record's `epoch`), while every one of them kept
//!   polling in vain (each record's `heartbeat` moved on, so none was merely descheduled or stopped with data
//!   waiting for it). A rank that computes is running, so a job with one is never reported, however long it takes.
//!   The report names each rank's call and caller (from the backtrace the rank took of itself, looked up in the
//!   program's symbol table), the rank it waits for and the wait-for cycle, like the simulator's.

use chip::diagnose::{blocked_call, record, wait_for_cycle, write_waits, BlockedRank, FinishedRank, Frame, Symbols, WaitsFor};
use std::fmt;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long nothing may change before a job whose running ranks are all blocked is declared deadlocked: long
/// enough that a loaded machine cannot fake it (a rank that is merely slow to be scheduled also stops its
/// heartbeat, which holds the decision back), short enough not to keep a user waiting.
pub const QUIET: Duration = Duration::from_secs(1);
/// Polls in vain that every blocked rank must make during the quiet time.
const HEARTBEATS: u64 = 2;

/// One rank's record, when it has one.
#[derive(Clone, Debug, PartialEq)]
struct Slot {
    state: u32,
    peer: i32,
    epoch: u32,
    heartbeat: u64,
    /// Return addresses (see `record::FRAME_LIB`), when taken in the current epoch.
    frames: Vec<u64>,
    name: String,
}

impl Slot {
    fn parse(bytes: &[u8]) -> Option<Slot> {
        let u32_at = |o: u64| u32::from_le_bytes(bytes[o as usize..o as usize + 4].try_into().expect("4 bytes"));
        let u64_at = |o: u64| u64::from_le_bytes(bytes[o as usize..o as usize + 8].try_into().expect("8 bytes"));
        if bytes.len() < record::SLOT_BYTES || u32_at(record::OFFSET_MAGIC) != record::MAGIC {
            return None;
        }
        let epoch = u32_at(record::OFFSET_EPOCH);
        let frames = if u32_at(record::OFFSET_FRAMES_EPOCH) == epoch {
            let n = (u32_at(record::OFFSET_FRAMES) as usize).min(record::FRAMES);
            (0..n).map(|k| u64_at(record::OFFSET_FRAME + 8 * k as u64)).collect()
        } else {
            Vec::new()
        };
        let name = &bytes[record::OFFSET_NAME as usize..record::OFFSET_NAME as usize + record::NAME_BYTES];
        let name = String::from_utf8_lossy(&name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())]).into_owned();
        Some(Slot {
            state: u32_at(record::OFFSET_STATE),
            peer: u32_at(record::OFFSET_PEER) as i32,
            epoch,
            heartbeat: u64_at(record::OFFSET_HEARTBEAT),
            frames,
            name,
        })
    }
}

/// The quiet time being watched: since when, and the records' epochs and heartbeats then.
struct Quiet {
    since: Instant,
    running: Vec<usize>,
    epochs: Vec<Option<u32>>,
    heartbeats: Vec<u64>,
}

/// The launcher's view of the ranks' wait records.
pub struct Watch {
    file: File,
    ranks: usize,
    program: PathBuf,
    quiet: Option<Quiet>,
}

/// A deadlock found natively, as reported.
pub struct NativeDeadlock {
    blocked: Vec<BlockedRank>,
    cycle: Vec<usize>,
    finished: Vec<FinishedRank>,
}

impl fmt::Display for NativeDeadlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "nocmsg native: deadlock: every running rank is blocked and nothing has moved for {} s", QUIET.as_secs_f64())?;
        write_waits(f, "  ", &self.blocked, &self.cycle, &self.finished)
    }
}

impl Watch {
    /// Watches the job's shared-memory file `file` (opened for reading) of `ranks` ranks running `program`.
    pub fn new(file: File, ranks: usize, program: PathBuf) -> Watch {
        Watch { file, ranks, program, quiet: None }
    }

    /// Every rank's record (None: no record, or not yet).
    fn slots(&self) -> Vec<Option<Slot>> {
        let mut bytes = vec![0u8; self.ranks * record::SLOT_BYTES];
        let got = self.file.read_at(&mut bytes, 0).unwrap_or(0);
        bytes.truncate(got);
        (0..self.ranks).map(|r| bytes.get(r * record::SLOT_BYTES..(r + 1) * record::SLOT_BYTES).and_then(Slot::parse)).collect()
    }

    /// Whether `rank`, which has exited, had initialized the library without finalizing it.
    pub fn exited_unfinalized(&self, rank: usize) -> bool {
        self.slots()
            .get(rank)
            .and_then(Option::as_ref)
            .is_some_and(|s| matches!(s.state, record::RUNNING | record::BLOCKED | record::EXITED))
    }

    /// Forgets the quiet time so far (the job was stopped by the terminal, say).
    pub fn reset(&mut self) {
        self.quiet = None;
    }

    /// Called as the launcher polls: `ended[r]` describes rank r if it has ended. Returns the report once the job is
    /// deadlocked.
    pub fn check(&mut self, ended: &[Option<String>]) -> Option<NativeDeadlock> {
        let slots = self.slots();
        let running: Vec<usize> = (0..self.ranks).filter(|&r| ended[r].is_none()).collect();
        let blocked = |r: &usize| slots[*r].as_ref().is_some_and(|s| s.state == record::BLOCKED);
        if running.is_empty() || !running.iter().all(blocked) {
            self.quiet = None;
            return None;
        }
        let epochs: Vec<Option<u32>> = slots.iter().map(|s| s.as_ref().map(|s| s.epoch)).collect();
        let heartbeats: Vec<u64> = slots.iter().map(|s| s.as_ref().map_or(0, |s| s.heartbeat)).collect();
        let now = Instant::now();
        match &self.quiet {
            Some(q) if q.epochs == epochs && q.running == running => {
                let all_polled = running.iter().all(|&r| heartbeats[r] >= q.heartbeats[r] + HEARTBEATS);
                if now.duration_since(q.since) < QUIET || !all_polled {
                    return None;
                }
            }
            _ => {
                self.quiet = Some(Quiet { since: now, running, epochs, heartbeats });
                return None;
            }
        }
        Some(self.report(&slots, ended))
    }

    fn report(&self, slots: &[Option<Slot>], ended: &[Option<String>]) -> NativeDeadlock {
        let symbols = std::fs::read(&self.program)
            .ok()
            .and_then(|data| chip::elf::function_symbols(&data).ok())
            .map(Symbols::new)
            .unwrap_or_default();
        let blocked: Vec<BlockedRank> = (0..self.ranks)
            .filter(|&r| ended[r].is_none())
            .filter_map(|r| slots[r].as_ref().map(|s| (r, s)))
            .map(|(rank, s)| {
                let frames: Vec<Frame> = s
                    .frames
                    .iter()
                    .map(|&f| Frame { address: f & !record::FRAME_LIB, library: f & record::FRAME_LIB != 0 })
                    .collect();
                let fallback = (!s.name.is_empty()).then_some(s.name.as_str());
                // The rank's own frames are all return addresses; without one in the library there is no telling
                // where the library's code ends.
                let (call, caller) = if frames.iter().any(|f| f.library && f.address != 0) {
                    blocked_call(&frames, &symbols, fallback)
                } else {
                    (fallback.map(str::to_string), None)
                };
                let waits_for = match s.peer {
                    -1 => WaitsFor::AnySource,
                    p if p >= 0 && (p as usize) < self.ranks => WaitsFor::Rank(p as usize),
                    _ => WaitsFor::Unknown,
                };
                BlockedRank { rank, tile: None, pc: None, call, caller, waits_for, detail: None }
            })
            .collect();
        let cycle = wait_for_cycle(&blocked);
        let finished = ended.iter().enumerate().filter_map(|(rank, how)| Some(FinishedRank { rank, how: how.clone()? })).collect();
        NativeDeadlock { blocked, cycle, finished }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(state: u32, peer: i32, epoch: u32) -> Vec<u8> {
        let mut b = vec![0u8; record::SLOT_BYTES];
        b[0..4].copy_from_slice(&record::MAGIC.to_le_bytes());
        b[4..8].copy_from_slice(&state.to_le_bytes());
        b[8..12].copy_from_slice(&peer.to_le_bytes());
        b[12..16].copy_from_slice(&epoch.to_le_bytes());
        b
    }

    #[test]
    fn slots_parse_and_garbage_is_no_slot() {
        let s = Slot::parse(&slot(record::BLOCKED, 3, 7)).unwrap();
        assert_eq!((s.state, s.peer, s.epoch, s.frames.len()), (record::BLOCKED, 3, 7, 0));
        assert!(Slot::parse(&vec![0u8; record::SLOT_BYTES]).is_none());
        assert!(Slot::parse(&[1, 2, 3]).is_none());
    }
}
