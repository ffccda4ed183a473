//! Shared memory: per-tile caches, home tiles and directory coherence in the Tilera way (issue 19's memory system).
//!
//! This module is the protocol engine: what every tile's caches hold, what each access costs, and which messages
//! travel between tiles and memory controllers. It knows nothing of the network it runs on: it hands out
//! [`Packet`]s (with the cycle they leave) and takes them back when they arrive ([`MemSystem::deliver`]), so the
//! chip runs it over a physical network of its own and the tests over a randomised one.
//!
//! ## The scheme (the TilePro's "dynamic distributed cache", as we model it)
//! - Every line has a **home tile** ([`homing`]). The home's L2 holds the line's authoritative copy (fetched from
//!   the memory controller that serves the line, written back when evicted dirty) and the line's **directory
//!   entry**: the tiles holding copies.
//! - Other tiles keep **read-only copies** in their L2 (and L1): a load that misses asks the home (`Read`), which
//!   answers with the line and records the reader.
//! - Stores to a line homed elsewhere are **written through** to the home (`Write`, posted: the core goes on, up to
//!   `write_buffer` stores in flight); the writer's own copy, if it has one, is updated at once. The home applies the
//!   store, invalidates every other copy (`Inv`/`InvAck`), and only then acknowledges it (`WriteAck`). Stores to a
//!   line homed at the storing tile go straight into its L2, with the same invalidations when others hold copies.
//! - While a line's invalidations are outstanding its home serves no other request for it (they queue in arrival
//!   order), and the home tile's own core does not read it: a store becomes visible to every other core at once
//!   (multi-copy atomicity, as RVWMO requires).
//! - A `fence` waits until every store of the core is acknowledged; atomics (AMOs, LR/SC) first drain the stores,
//!   then run at the home, which invalidates every copy before answering. LR leaves a reservation at the home,
//!   which any other store or atomic to the line cancels.
//! - The directory is kept per line apart from the L2's contents (as if in memory), so evicting a home line only
//!   writes it back; copies are dropped silently, and an `Inv` for a copy already gone is acknowledged all the same.
//!
//! Messages between one pair of endpoints arrive in the order they were sent (the chip's networks route every
//! packet of a pair the same way, and the tests' transport keeps that order); the protocol's correctness rests on it.
//!
//! ## Time
//! Every method takes the global cycle `now` at which it happens, and must be called in global time order. An access
//! that needs no message ([`MemSystem::load_hit`], [`MemSystem::store_hit`]) changes only its own tile's state, so a
//! core may make it ahead of global time as long as nothing can arrive at its tile before then; everything else
//! happens at `now`.

pub mod cache;
pub mod homing;
#[cfg(test)]
mod tests;

use cache::Tags;
use homing::Homing;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};

/// One cache's shape and hit latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheSpec {
    pub bytes: u64,
    pub ways: usize,
    /// Core cycles of a hit.
    pub latency_cycles: u32,
}

/// The memory system's parameters (from the chip file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    pub tiles: usize,
    pub line_bytes: u64,
    /// Payload bytes per flit on the memory network (a packet is one header flit plus its payload's flits).
    pub flit_bytes: u64,
    pub l1d: CacheSpec,
    pub l2: CacheSpec,
    /// Cycles the home takes to serve a request (its L2 access) before the answer leaves.
    pub home_cycles: u32,
    /// Stores a core may have in flight before it stalls.
    pub write_buffer: u32,
    pub controllers: usize,
    /// Lines are spread over the controllers in blocks of this many bytes.
    pub interleave_bytes: u64,
    /// Cycles from a request reaching an idle controller to its answer leaving, and cycles a controller is busy per
    /// line (requests arriving meanwhile queue).
    pub dram_latency_cycles: u32,
    pub dram_cycles_per_line: u32,
}

/// Who sends or receives a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Endpoint {
    Tile(usize),
    Controller(usize),
}

/// A read-modify-write the home performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicKind {
    Swap,
    Add,
    Xor,
    And,
    Or,
    Min,
    Max,
    MinU,
    MaxU,
    /// Load-reserved: the value, and a reservation.
    Lr,
    /// Store-conditional: 0 if it stored, 1 if not.
    Sc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atomic {
    pub kind: AtomicKind,
    /// 4 or 8 bytes.
    pub size: u32,
    pub operand: u64,
}

impl Atomic {
    /// The value the atomic leaves in memory, given the old one (`None`: it writes nothing).
    fn result(&self, old: u64) -> Option<u64> {
        let (a, b) = (old, self.operand);
        let signed = |v: u64| if self.size == 4 { v as i32 as i64 } else { v as i64 };
        let unsigned = |v: u64| if self.size == 4 { v & 0xffff_ffff } else { v };
        Some(match self.kind {
            AtomicKind::Swap | AtomicKind::Sc => b,
            AtomicKind::Add => a.wrapping_add(b),
            AtomicKind::Xor => a ^ b,
            AtomicKind::And => a & b,
            AtomicKind::Or => a | b,
            AtomicKind::Min => if signed(a) <= signed(b) { a } else { b },
            AtomicKind::Max => if signed(a) >= signed(b) { a } else { b },
            AtomicKind::MinU => if unsigned(a) <= unsigned(b) { a } else { b },
            AtomicKind::MaxU => if unsigned(a) >= unsigned(b) { a } else { b },
            AtomicKind::Lr => return None,
        })
    }
}

/// A line's bytes on their way to a cache. The engine keeps a handle on every one in flight, so that the simulator's
/// own writes into memory ([`MemSystem::dma_write`]) reach the copies under way too.
pub type LineData = std::rc::Rc<std::cell::RefCell<Box<[u8]>>>;
type WeakLineData = std::rc::Weak<std::cell::RefCell<Box<[u8]>>>;

/// What travels on the memory network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// A load missed: the line, please.
    Read { line: u64, from: usize },
    ReadData { line: u64, data: LineData },
    /// A store written through to the home: `len` bytes at byte `offset` of the line.
    Write { line: u64, offset: u32, len: u32, value: u64, from: usize },
    WriteAck { line: u64 },
    Inv { line: u64, home: usize },
    InvAck { line: u64, from: usize },
    Atomic { line: u64, offset: u32, op: Atomic, from: usize },
    AtomicResult { line: u64, value: u64 },
    MemRead { line: u64, home: usize },
    MemData { line: u64, data: LineData },
    MemWrite { line: u64, data: Box<[u8]> },
}

impl Msg {
    /// Payload bytes after the header flit.
    fn payload_bytes(&self, line_bytes: u64) -> u64 {
        match self {
            Msg::ReadData { .. } | Msg::MemData { .. } | Msg::MemWrite { .. } => line_bytes,
            Msg::Write { .. } | Msg::Atomic { .. } | Msg::AtomicResult { .. } => 8,
            _ => 0,
        }
    }
}

/// A message leaving `src` at cycle `at` for `dst`: `flits` flits long.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    pub at: u64,
    pub src: Endpoint,
    pub dst: Endpoint,
    pub flits: u32,
    pub msg: Msg,
}

/// A blocked core's access finished: it goes on at cycle `at`, with `value` for a load or an atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    pub tile: usize,
    pub at: u64,
    pub value: u64,
}

/// What became of a core's access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Finished: the value (loads, atomics) and its cost in core cycles.
    Done { value: u64, cycles: u32 },
    /// The core waits; [`MemSystem::take_done`] reports when it may go on.
    Wait,
}

/// Main memory behind the controllers: the address space's backing store.
pub trait Dram {
    fn read(&mut self, addr: u64, buf: &mut [u8]);
    fn write(&mut self, addr: u64, data: &[u8]);
}

/// Per-tile counters (`stats.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TileCounters {
    pub l1_hits: u64,
    pub l2_hits: u64,
    /// Loads that went to their home (another tile's, or this tile's when the line was not in its L2).
    pub load_misses: u64,
    /// Stores written through to another tile's home, and stores into this tile's own home lines.
    pub remote_stores: u64,
    pub local_stores: u64,
    pub atomics: u64,
    /// Cycles the core waited for loads, store slots, fences and atomics.
    pub wait_cycles: u64,
    /// Requests this tile served as a home, invalidations it sent as a home and those it received for its copies.
    pub home_requests: u64,
    pub invalidations_sent: u64,
    pub invalidations_received: u64,
    /// Lines fetched from and written back to memory, as a home.
    pub dram_reads: u64,
    pub dram_writebacks: u64,
    /// Miss latencies (loads and atomics), log2 buckets of cycles: bucket `i` counts latencies in `[2^i, 2^(i+1))`.
    pub miss_latency_log2: Vec<u64>,
}

/// Per-controller counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ControllerCounters {
    pub reads: u64,
    pub writes: u64,
    /// Cycles requests waited for the controller to be free.
    pub queue_cycles: u64,
}

/// A home line's L2 state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    Empty,
    /// A read-only copy of a line homed elsewhere.
    Copy,
    /// A line homed here: `dirty` against memory, `busy` while its invalidations are out, `shared` while other
    /// tiles may hold copies.
    Home { dirty: bool, busy: bool, shared: bool },
}

/// What a blocked core waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    None,
    Load { addr: u64, size: u32, since: u64 },
    /// A free write-buffer entry, to make this store.
    Store { addr: u64, size: u32, value: u64, since: u64 },
    Fence { since: u64 },
    /// The stores to drain before this atomic goes.
    Drain { addr: u64, op: Atomic, since: u64 },
    Atomic { since: u64 },
}

/// A request at a home.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Req {
    Read { from: usize },
    Write { from: usize, offset: u32, len: u32, value: u64 },
    Atomic { from: usize, offset: u32, op: Atomic },
}

/// What a home line is busy with; requests arriving meanwhile queue.
#[derive(Clone, Debug)]
enum Phase {
    /// Waiting for the line from memory.
    Fetching,
    /// Waiting for `acks` invalidation acknowledgements, then answering.
    Invalidating { acks: u32, then: Answer },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    WriteAck { to: usize, line: u64 },
    Atomic { to: usize, line: u64, value: u64 },
}

#[derive(Clone, Debug)]
struct Txn {
    phase: Phase,
    queue: VecDeque<Req>,
}

/// A home's directory entry for one line.
#[derive(Clone, Debug, Default)]
struct DirEntry {
    sharers: Vec<usize>,
    txn: Option<Txn>,
}

/// One tile: its caches, its core's pending accesses, its directory.
#[derive(Clone, Debug)]
struct Tile {
    l1: Tags,
    l2: Tags,
    state: Vec<Line>,
    data: Vec<u8>,
    pending_writes: u32,
    wait: Wait,
    dir: HashMap<u64, DirEntry>,
    /// The line this core's LR reserved, if the reservation stands.
    reserved: Option<u64>,
    /// Lines homed here with a transaction under way (fetching, invalidating).
    txns: u32,
    counters: TileCounters,
}

/// The memory system of one address space over a chip's tiles.
#[derive(Debug)]
pub struct MemSystem {
    params: Params,
    pub homing: Homing,
    tiles: Vec<Tile>,
    /// Per controller: the cycle it is next free.
    controller_free: Vec<u64>,
    controllers: Vec<ControllerCounters>,
    out: Vec<Packet>,
    done: Vec<Done>,
    /// Answers of homes to their own cores, applied once the event that made them is handled (applying them at once
    /// could start a request for a line whose queue is being served, overtaking it).
    local_answers: VecDeque<(usize, u64, Answer)>,
    /// Per line, the lines' bytes in flight to caches (`ReadData`, `MemData`), weakly held.
    in_flight: HashMap<u64, Vec<WeakLineData>>,
    /// Lines written back whose data has not reached the controller yet: how many such writes, and the latest data.
    writebacks: HashMap<u64, (u32, Box<[u8]>)>,
    /// Stores and atomics as their homes applied them (word address, new value), for the tests' coherence checks.
    #[cfg(test)]
    applied: Vec<(u64, u64)>,
}

fn read_le(bytes: &[u8]) -> u64 {
    let mut v = [0u8; 8];
    v[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(v)
}

fn write_le(bytes: &mut [u8], value: u64) {
    let n = bytes.len();
    bytes.copy_from_slice(&value.to_le_bytes()[..n]);
}

impl MemSystem {
    pub fn new(params: Params, homing: Homing) -> MemSystem {
        let lb = params.line_bytes;
        let tile = Tile {
            l1: Tags::new(params.l1d.bytes, lb, params.l1d.ways),
            l2: Tags::new(params.l2.bytes, lb, params.l2.ways),
            state: Vec::new(),
            data: Vec::new(),
            pending_writes: 0,
            wait: Wait::None,
            dir: HashMap::new(),
            reserved: None,
            txns: 0,
            counters: TileCounters { miss_latency_log2: vec![0; 24], ..TileCounters::default() },
        };
        let slots = tile.l2.slots();
        let tile = Tile { state: vec![Line::Empty; slots], data: vec![0; slots * lb as usize], ..tile };
        MemSystem {
            tiles: vec![tile; params.tiles],
            controller_free: vec![0; params.controllers],
            controllers: vec![ControllerCounters::default(); params.controllers],
            out: Vec::new(),
            done: Vec::new(),
            writebacks: HashMap::new(),
            in_flight: HashMap::new(),
            local_answers: VecDeque::new(),
            homing,
            params,
            #[cfg(test)]
            applied: Vec::new(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The packets made since the last call.
    pub fn take_packets(&mut self) -> std::vec::Drain<'_, Packet> {
        self.out.drain(..)
    }

    /// The blocked accesses finished since the last call.
    pub fn take_done(&mut self) -> std::vec::Drain<'_, Done> {
        self.done.drain(..)
    }

    pub fn counters(&self, tile: usize) -> &TileCounters {
        &self.tiles[tile].counters
    }

    pub fn controller_counters(&self) -> &[ControllerCounters] {
        &self.controllers
    }

    /// Whether tile `tile`'s core waits for the memory system.
    pub fn waiting(&self, tile: usize) -> bool {
        self.tiles[tile].wait != Wait::None
    }

    /// Whether nothing tile `tile` started is under way (no access waiting, no store unacknowledged, no transaction
    /// at its home): then only a request another tile makes from now on, or an invalidation a home sends from now
    /// on, can reach it, and neither leaves before [`MemSystem::quiet_cycles`] have passed.
    pub fn quiet(&self, tile: usize) -> bool {
        let t = &self.tiles[tile];
        t.wait == Wait::None && t.pending_writes == 0 && t.txns == 0
    }

    /// The fewest cycles between anything happening and a message it causes leaving for a quiet tile: a request
    /// leaves after its L2 lookup, a home's invalidation after its service time.
    pub fn quiet_cycles(&self) -> u64 {
        u64::from(self.params.l2.latency_cycles.min(self.params.home_cycles))
    }

    /// Stores of tile `tile` not yet acknowledged by their homes.
    pub fn pending_writes(&self, tile: usize) -> u32 {
        self.tiles[tile].pending_writes
    }

    fn line_of(&self, addr: u64) -> (u64, usize) {
        (addr / self.params.line_bytes, (addr % self.params.line_bytes) as usize)
    }

    fn send(&mut self, at: u64, src: Endpoint, dst: Endpoint, msg: Msg) {
        let flits = 1 + msg.payload_bytes(self.params.line_bytes).div_ceil(self.params.flit_bytes) as u32;
        self.out.push(Packet { at, src, dst, flits, msg });
    }

    /// A line's bytes to send, registered as in flight.
    fn line_data(&mut self, line: u64, bytes: &[u8]) -> LineData {
        let data = std::rc::Rc::new(std::cell::RefCell::new(Box::<[u8]>::from(bytes)));
        let list = self.in_flight.entry(line).or_default();
        list.retain(|w| w.strong_count() > 0);
        list.push(std::rc::Rc::downgrade(&data));
        data
    }

    fn controller_of(&self, line: u64) -> usize {
        ((line * self.params.line_bytes / self.params.interleave_bytes) % self.params.controllers as u64) as usize
    }

    fn line_bytes(&self, tile: usize, slot: usize) -> &[u8] {
        let lb = self.params.line_bytes as usize;
        &self.tiles[tile].data[slot * lb..(slot + 1) * lb]
    }

    fn line_bytes_mut(&mut self, tile: usize, slot: usize) -> &mut [u8] {
        let lb = self.params.line_bytes as usize;
        &mut self.tiles[tile].data[slot * lb..(slot + 1) * lb]
    }

    // ---- the core's side -------------------------------------------------------------------------------------

    /// A load that hits in tile `tile`'s caches: its value and cost, or `None` (it needs [`MemSystem::load`]).
    /// Changes only the tile's own caches, so a core may run it ahead of global time (see the module docs).
    #[inline]
    pub fn load_hit(&mut self, tile: usize, addr: u64, size: u32) -> Option<(u64, u32)> {
        let (line, off) = self.line_of(addr);
        let t = &mut self.tiles[tile];
        let in_l1 = t.l1.find(line).is_some();
        let slot = t.l2.find(line)?;
        if let Line::Home { busy: true, .. } = t.state[slot] {
            return None;
        }
        let cycles = if in_l1 {
            t.counters.l1_hits += 1;
            self.params.l1d.latency_cycles
        } else {
            t.l1.insert(line);
            t.counters.l2_hits += 1;
            self.params.l2.latency_cycles
        };
        let value = read_le(&self.line_bytes(tile, slot)[off..off + size as usize]);
        Some((value, cycles))
    }

    /// A store into a line homed at tile `tile` that no other tile holds: made in its L2 at once, returning the
    /// cost; `None` otherwise (it needs [`MemSystem::store`]). May run ahead of global time, as `load_hit`.
    #[inline]
    pub fn store_hit(&mut self, tile: usize, addr: u64, size: u32, value: u64) -> Option<u32> {
        let (line, off) = self.line_of(addr);
        let t = &mut self.tiles[tile];
        let slot = t.l2.peek(line)?;
        let Line::Home { busy: false, shared: false, .. } = t.state[slot] else { return None };
        t.l2.find(line);
        t.state[slot] = Line::Home { dirty: true, busy: false, shared: false };
        let in_l1 = t.l1.find(line).is_some();
        if !in_l1 {
            t.l1.insert(line);
        }
        t.counters.local_stores += 1;
        write_le(&mut self.line_bytes_mut(tile, slot)[off..off + size as usize], value);
        #[cfg(test)]
        self.applied.push((addr, value));
        Some(self.params.l1d.latency_cycles)
    }

    /// A load by tile `tile`'s core at `now`.
    pub fn load(&mut self, tile: usize, addr: u64, size: u32, now: u64) -> Outcome {
        if let Some((value, cycles)) = self.load_hit(tile, addr, size) {
            return Outcome::Done { value, cycles };
        }
        let (line, _) = self.line_of(addr);
        let home = self.homing.home(addr, tile);
        let t = &mut self.tiles[tile];
        t.counters.load_misses += 1;
        t.wait = Wait::Load { addr, size, since: now };
        let leave = now + u64::from(self.params.l2.latency_cycles);
        if home == tile {
            self.home_request(home, line, Req::Read { from: tile }, now);
        } else {
            self.send(leave, Endpoint::Tile(tile), Endpoint::Tile(home), Msg::Read { line, from: tile });
        }
        self.settle();
        Outcome::Wait
    }

    /// A store by tile `tile`'s core at `now`.
    pub fn store(&mut self, tile: usize, addr: u64, size: u32, value: u64, now: u64) -> Outcome {
        if let Some(cycles) = self.store_hit(tile, addr, size, value) {
            return Outcome::Done { value: 0, cycles };
        }
        if self.tiles[tile].pending_writes >= self.params.write_buffer {
            self.tiles[tile].wait = Wait::Store { addr, size, value, since: now };
            return Outcome::Wait;
        }
        self.issue_store(tile, addr, size, value, now);
        self.settle();
        Outcome::Done { value: 0, cycles: self.params.l1d.latency_cycles }
    }

    fn issue_store(&mut self, tile: usize, addr: u64, size: u32, value: u64, now: u64) {
        let (line, off) = self.line_of(addr);
        let home = self.homing.home(addr, tile);
        self.tiles[tile].pending_writes += 1;
        let req = Req::Write { from: tile, offset: off as u32, len: size, value };
        let leave = now + u64::from(self.params.l2.latency_cycles);
        if home == tile {
            self.tiles[tile].counters.local_stores += 1;
            self.home_request(home, line, req, now);
            return;
        }
        // Written through: the own copy at once, the home's when the store gets there.
        let t = &mut self.tiles[tile];
        t.counters.remote_stores += 1;
        if let Some(slot) = t.l2.peek(line) {
            write_le(&mut self.line_bytes_mut(tile, slot)[off..off + size as usize], value);
        }
        self.send(leave, Endpoint::Tile(tile), Endpoint::Tile(home), Msg::Write { line, offset: off as u32, len: size, value, from: tile });
    }

    /// A fence by tile `tile`'s core at `now`: done once its stores are acknowledged.
    pub fn fence(&mut self, tile: usize, now: u64) -> Outcome {
        if self.tiles[tile].pending_writes == 0 {
            return Outcome::Done { value: 0, cycles: 1 };
        }
        self.tiles[tile].wait = Wait::Fence { since: now };
        Outcome::Wait
    }

    /// An atomic by tile `tile`'s core at `now` on `op.size` bytes at `addr`.
    pub fn atomic(&mut self, tile: usize, addr: u64, op: Atomic, now: u64) -> Outcome {
        self.tiles[tile].counters.atomics += 1;
        if self.tiles[tile].pending_writes > 0 {
            self.tiles[tile].wait = Wait::Drain { addr, op, since: now };
        } else {
            self.tiles[tile].wait = Wait::Atomic { since: now };
            self.issue_atomic(tile, addr, op, now);
            self.settle();
        }
        Outcome::Wait
    }

    fn issue_atomic(&mut self, tile: usize, addr: u64, op: Atomic, now: u64) {
        let (line, off) = self.line_of(addr);
        let home = self.homing.home(addr, tile);
        let leave = now + u64::from(self.params.l2.latency_cycles);
        if home == tile {
            self.home_request(home, line, Req::Atomic { from: tile, offset: off as u32, op }, now);
        } else {
            self.send(leave, Endpoint::Tile(tile), Endpoint::Tile(home), Msg::Atomic { line, offset: off as u32, op, from: tile });
        }
    }

    /// Tile `tile`'s blocked access finished at `at` with `value`.
    fn finish(&mut self, tile: usize, at: u64, value: u64) {
        let t = &mut self.tiles[tile];
        let since = match t.wait {
            Wait::Load { since, .. } | Wait::Atomic { since } => {
                let latency = at.saturating_sub(since).max(1);
                let bucket = (63 - latency.leading_zeros() as usize).min(t.counters.miss_latency_log2.len() - 1);
                t.counters.miss_latency_log2[bucket] += 1;
                since
            }
            Wait::Store { since, .. } | Wait::Fence { since } | Wait::Drain { since, .. } => since,
            Wait::None => unreachable!("tile {tile} finished an access it was not waiting for"),
        };
        t.counters.wait_cycles += at.saturating_sub(since);
        t.wait = Wait::None;
        self.done.push(Done { tile, at, value });
    }

    /// One of tile `tile`'s stores was acknowledged at `now`: a waiting store, fence or atomic may go on.
    fn store_acknowledged(&mut self, tile: usize, now: u64) {
        let t = &mut self.tiles[tile];
        t.pending_writes -= 1;
        match t.wait {
            Wait::Store { addr, size, value, .. } => {
                // Finished first: the store may be acknowledged at once (a home line no one else holds).
                self.finish(tile, now, 0);
                self.issue_store(tile, addr, size, value, now);
            }
            Wait::Fence { .. } if t.pending_writes == 0 => self.finish(tile, now, 0),
            Wait::Drain { addr, op, since } if t.pending_writes == 0 => {
                t.wait = Wait::Atomic { since };
                self.issue_atomic(tile, addr, op, now);
            }
            _ => {}
        }
    }

    // ---- the home's side -------------------------------------------------------------------------------------

    /// Request `req` for `line` reached its home `home` at `now`.
    fn home_request(&mut self, home: usize, line: u64, req: Req, now: u64) {
        self.tiles[home].counters.home_requests += 1;
        let entry = self.tiles[home].dir.entry(line).or_default();
        if let Some(txn) = entry.txn.as_mut() {
            txn.queue.push_back(req);
            return;
        }
        self.serve_queue(home, line, VecDeque::from([req]), now);
    }

    /// Serves `queue` in order for `line` at its home, as far as the line lets it (it may need fetching, or one of
    /// them starts invalidations): the rest waits in the line's transaction.
    fn serve_queue(&mut self, home: usize, line: u64, mut queue: VecDeque<Req>, now: u64) {
        while let Some(req) = queue.pop_front() {
            if self.tiles[home].l2.peek(line).is_none() {
                queue.push_front(req);
                let controller = self.controller_of(line);
                self.tiles[home].counters.dram_reads += 1;
                self.tiles[home].dir.entry(line).or_default().txn = Some(Txn { phase: Phase::Fetching, queue });
                self.tiles[home].txns += 1;
                self.send(now, Endpoint::Tile(home), Endpoint::Controller(controller), Msg::MemRead { line, home });
                return;
            }
            if let Some(phase) = self.serve(home, line, req, now) {
                self.tiles[home].dir.entry(line).or_default().txn = Some(Txn { phase, queue });
                self.tiles[home].txns += 1;
                self.set_busy(home, line, true);
                return;
            }
        }
    }

    fn set_busy(&mut self, home: usize, line: u64, on: bool) {
        let t = &mut self.tiles[home];
        if let Some(slot) = t.l2.peek(line) {
            if let Line::Home { busy, .. } = &mut t.state[slot] {
                *busy = on;
            }
        }
    }

    /// Keeps the `shared` flag of a home line true while other tiles may hold copies or a reservation: the home
    /// core's own stores then go the slow way, in global time order, where they invalidate and cancel.
    fn set_shared(&mut self, home: usize, line: u64) {
        let reserved = self.tiles.iter().any(|t| t.reserved == Some(line));
        let t = &mut self.tiles[home];
        let shared = reserved || t.dir.get(&line).is_some_and(|e| !e.sharers.is_empty());
        if let Some(slot) = t.l2.peek(line) {
            if let Line::Home { shared: s, .. } = &mut t.state[slot] {
                *s = shared;
            }
        }
    }

    /// Serves `req` for `line`, which its home `home` holds and nothing else occupies. Returns the phase the line
    /// enters if invalidations must be acknowledged before the answer.
    fn serve(&mut self, home: usize, line: u64, req: Req, now: u64) -> Option<Phase> {
        let lb = self.params.line_bytes;
        let slot = self.tiles[home].l2.find(line).expect("the home holds the line");
        let answer_at = now + u64::from(self.params.home_cycles);
        match req {
            Req::Read { from } if from == home => {
                let Wait::Load { addr, size, .. } = self.tiles[home].wait else { unreachable!("a home read without a load") };
                let off = (addr % lb) as usize;
                let value = read_le(&self.line_bytes(home, slot)[off..off + size as usize]);
                self.tiles[home].l1.find(line).is_none().then(|| self.tiles[home].l1.insert(line));
                self.finish(home, answer_at, value);
                None
            }
            Req::Read { from } => {
                let bytes: Box<[u8]> = self.line_bytes(home, slot).into();
                let data = self.line_data(line, &bytes);
                let sharers = &mut self.tiles[home].dir.get_mut(&line).expect("entry").sharers;
                if !sharers.contains(&from) {
                    sharers.push(from);
                }
                self.set_shared(home, line);
                self.send(answer_at, Endpoint::Tile(home), Endpoint::Tile(from), Msg::ReadData { line, data });
                None
            }
            Req::Write { from, offset, len, value } => {
                let off = offset as usize;
                write_le(&mut self.line_bytes_mut(home, slot)[off..off + len as usize], value);
                #[cfg(test)]
                self.applied.push((line * lb + u64::from(offset), value));
                self.mark_dirty(home, slot);
                self.cancel_reservations(line, Some(from));
                let targets = self.take_sharers(home, line, Some(from));
                self.invalidate(home, line, &targets, answer_at, Answer::WriteAck { to: from, line })
            }
            Req::Atomic { from, offset, op } => {
                let off = offset as usize;
                let bytes = &self.line_bytes(home, slot)[off..off + op.size as usize];
                let old = read_le(bytes);
                let old = if op.size == 4 { old as u32 as i32 as i64 as u64 } else { old };
                let (value, new) = match op.kind {
                    AtomicKind::Lr => {
                        self.tiles[from].reserved = Some(line);
                        self.set_shared(home, line);
                        (old, None)
                    }
                    AtomicKind::Sc => {
                        let held = self.tiles[from].reserved == Some(line);
                        self.tiles[from].reserved = None;
                        if held { (0, op.result(old)) } else { (1, None) }
                    }
                    _ => (old, op.result(old)),
                };
                let Some(new) = new else {
                    self.answer(home, answer_at, Answer::Atomic { to: from, line, value });
                    return None;
                };
                write_le(&mut self.line_bytes_mut(home, slot)[off..off + op.size as usize], new);
                #[cfg(test)]
                self.applied.push((line * lb + u64::from(offset), if op.size == 4 { new & 0xffff_ffff } else { new }));
                self.mark_dirty(home, slot);
                self.cancel_reservations(line, Some(from));
                let targets = self.take_sharers(home, line, None);
                self.invalidate(home, line, &targets, answer_at, Answer::Atomic { to: from, line, value })
            }
        }
    }

    fn mark_dirty(&mut self, home: usize, slot: usize) {
        if let Line::Home { dirty, .. } = &mut self.tiles[home].state[slot] {
            *dirty = true;
        }
    }

    /// Every other tile's reservation of `line` is cancelled (a store or atomic by `by` reached the home).
    fn cancel_reservations(&mut self, line: u64, by: Option<usize>) {
        for (i, t) in self.tiles.iter_mut().enumerate() {
            if t.reserved == Some(line) && Some(i) != by {
                t.reserved = None;
            }
        }
    }

    /// The sharers of `line` to invalidate (all but `keep`, which stays a sharer if it was one).
    fn take_sharers(&mut self, home: usize, line: u64, keep: Option<usize>) -> Vec<usize> {
        let sharers = &mut self.tiles[home].dir.get_mut(&line).expect("entry").sharers;
        let mut targets = std::mem::take(sharers);
        if let Some(k) = keep {
            if let Some(i) = targets.iter().position(|&s| s == k) {
                targets.swap_remove(i);
                sharers.push(k);
            }
        }
        targets.sort_unstable();
        self.set_shared(home, line);
        targets
    }

    /// Sends invalidations of `line` to `targets` at `at`; answers at once if there are none, else returns the
    /// phase that answers when they are acknowledged.
    fn invalidate(&mut self, home: usize, line: u64, targets: &[usize], at: u64, then: Answer) -> Option<Phase> {
        if targets.is_empty() {
            self.answer(home, at, then);
            return None;
        }
        self.tiles[home].counters.invalidations_sent += targets.len() as u64;
        for &t in targets {
            self.send(at, Endpoint::Tile(home), Endpoint::Tile(t), Msg::Inv { line, home });
        }
        Some(Phase::Invalidating { acks: targets.len() as u32, then })
    }

    fn answer(&mut self, home: usize, at: u64, answer: Answer) {
        match answer {
            Answer::WriteAck { to, .. } | Answer::Atomic { to, .. } if to == home => self.local_answers.push_back((home, at, answer)),
            Answer::WriteAck { to, line } => self.send(at, Endpoint::Tile(home), Endpoint::Tile(to), Msg::WriteAck { line }),
            Answer::Atomic { to, line, value } => self.send(at, Endpoint::Tile(home), Endpoint::Tile(to), Msg::AtomicResult { line, value }),
        }
    }

    /// Applies the homes' answers to their own cores (which may start further requests).
    fn settle(&mut self) {
        while let Some((tile, at, answer)) = self.local_answers.pop_front() {
            match answer {
                Answer::WriteAck { .. } => self.store_acknowledged(tile, at),
                Answer::Atomic { value, .. } => self.finish(tile, at, value),
            }
        }
    }

    /// Tile `tile` drops its read-only copy of `line`, if it has one (not a line homed there).
    fn drop_copy(&mut self, tile: usize, line: u64) {
        let t = &mut self.tiles[tile];
        if let Some(slot) = t.l2.peek(line) {
            if t.state[slot] == Line::Copy {
                t.l2.remove(line);
                t.l1.remove(line);
                t.state[slot] = Line::Empty;
            }
        }
    }

    /// Puts `line` into tile `tile`'s L2 as `state` with `data`, evicting what it must (a dirty home line is
    /// written back; copies go silently).
    fn install(&mut self, tile: usize, line: u64, state: Line, data: &[u8], now: u64) -> usize {
        let (slot, victim) = self.tiles[tile].l2.insert(line);
        if let Some(v) = victim {
            self.tiles[tile].l1.remove(v);
            if let Line::Home { dirty: true, .. } = self.tiles[tile].state[slot] {
                let data: Box<[u8]> = self.line_bytes(tile, slot).into();
                let controller = self.controller_of(v);
                self.tiles[tile].counters.dram_writebacks += 1;
                let pending = self.writebacks.entry(v).or_insert((0, Box::default()));
                pending.0 += 1;
                pending.1 = data.clone();
                self.send(now, Endpoint::Tile(tile), Endpoint::Controller(controller), Msg::MemWrite { line: v, data });
            }
        }
        self.tiles[tile].state[slot] = state;
        self.line_bytes_mut(tile, slot).copy_from_slice(data);
        slot
    }

    /// A packet reached its destination at `now` (called in global time order).
    pub fn deliver(&mut self, packet: Packet, now: u64, dram: &mut dyn Dram) {
        self.handle(packet, now, dram);
        self.settle();
    }

    fn handle(&mut self, packet: Packet, now: u64, dram: &mut dyn Dram) {
        let lb = self.params.line_bytes;
        match (packet.dst, packet.msg) {
            (Endpoint::Controller(c), Msg::MemRead { line, home }) => {
                let start = now.max(self.controller_free[c]);
                self.controller_free[c] = start + u64::from(self.params.dram_cycles_per_line);
                self.controllers[c].reads += 1;
                self.controllers[c].queue_cycles += start - now;
                let mut bytes = vec![0; lb as usize].into_boxed_slice();
                dram.read(line * lb, &mut bytes);
                let data = self.line_data(line, &bytes);
                let at = start + u64::from(self.params.dram_latency_cycles);
                self.send(at, Endpoint::Controller(c), Endpoint::Tile(home), Msg::MemData { line, data });
            }
            (Endpoint::Controller(c), Msg::MemWrite { line, data }) => {
                let start = now.max(self.controller_free[c]);
                self.controller_free[c] = start + u64::from(self.params.dram_cycles_per_line);
                self.controllers[c].writes += 1;
                self.controllers[c].queue_cycles += start - now;
                // The latest data written back (which a simulator write, `dma_write`, may have patched).
                let pending = self.writebacks.get_mut(&line).expect("a write-back on its way is recorded");
                dram.write(line * lb, &pending.1);
                let _ = data;
                pending.0 -= 1;
                if pending.0 == 0 {
                    self.writebacks.remove(&line);
                }
            }
            (Endpoint::Tile(home), Msg::MemData { line, data }) => {
                let data = data.borrow().clone();
                self.install(home, line, Line::Home { dirty: false, busy: false, shared: false }, &data, now);
                self.set_shared(home, line);
                let txn = self.tiles[home].dir.get_mut(&line).and_then(|e| e.txn.take()).expect("a fetch was under way");
                self.tiles[home].txns -= 1;
                self.serve_queue(home, line, txn.queue, now);
            }
            (Endpoint::Tile(home), Msg::Read { line, from }) => self.home_request(home, line, Req::Read { from }, now),
            (Endpoint::Tile(home), Msg::Write { line, offset, len, value, from }) => {
                self.home_request(home, line, Req::Write { from, offset, len, value }, now)
            }
            (Endpoint::Tile(home), Msg::Atomic { line, offset, op, from }) => self.home_request(home, line, Req::Atomic { from, offset, op }, now),
            (Endpoint::Tile(tile), Msg::Inv { line, home }) => {
                self.tiles[tile].counters.invalidations_received += 1;
                self.drop_copy(tile, line);
                let at = now + u64::from(self.params.l1d.latency_cycles);
                self.send(at, Endpoint::Tile(tile), Endpoint::Tile(home), Msg::InvAck { line, from: tile });
            }
            (Endpoint::Tile(home), Msg::InvAck { line, .. }) => {
                let entry = self.tiles[home].dir.get_mut(&line).expect("acknowledged line has an entry");
                let txn = entry.txn.as_mut().expect("acknowledged line is busy");
                let Phase::Invalidating { acks, then } = &mut txn.phase else { unreachable!("acknowledgement while fetching") };
                *acks -= 1;
                if *acks == 0 {
                    let then = *then;
                    let txn = entry.txn.take().expect("busy");
                    self.tiles[home].txns -= 1;
                    self.set_busy(home, line, false);
                    self.answer(home, now, then);
                    self.serve_queue(home, line, txn.queue, now);
                }
            }
            (Endpoint::Tile(tile), Msg::ReadData { line, data }) => {
                let data = data.borrow().clone();
                let slot = match self.tiles[tile].l2.peek(line) {
                    Some(slot) => {
                        self.line_bytes_mut(tile, slot).copy_from_slice(&data);
                        slot
                    }
                    None => self.install(tile, line, Line::Copy, &data, now),
                };
                let t = &mut self.tiles[tile];
                if t.l1.peek(line).is_none() {
                    t.l1.insert(line);
                }
                let Wait::Load { addr, size, .. } = t.wait else { unreachable!("line {line:#x} arrived for no load") };
                let off = (addr % lb) as usize;
                let value = read_le(&self.line_bytes(tile, slot)[off..off + size as usize]);
                self.finish(tile, now, value);
            }
            (Endpoint::Tile(tile), Msg::WriteAck { .. }) => self.store_acknowledged(tile, now),
            (Endpoint::Tile(tile), Msg::AtomicResult { value, .. }) => self.finish(tile, now, value),
            (dst, msg) => unreachable!("{msg:?} sent to {dst:?}"),
        }
    }

    // ---- outside the protocol --------------------------------------------------------------------------------

    /// Writes `data` at `addr` from outside the cores (the simulator's services, such as a semihosting `read` into a
    /// buffer), at once and without messages: wherever the lines' bytes are (the home's copy, memory, write-backs and
    /// lines on their way to caches). Other tiles' copies are dropped (they stay listed, so later stores still
    /// invalidate a copy that a line on its way brings back), and reservations of the lines are cancelled.
    pub fn dma_write(&mut self, addr: u64, data: &[u8], dram: &mut dyn Dram) {
        let lb = self.params.line_bytes;
        dram.write(addr, data);
        let (first, last) = (addr / lb, (addr + data.len() as u64).div_ceil(lb));
        for line in first..last {
            let lo = (line * lb).max(addr);
            let hi = ((line + 1) * lb).min(addr + data.len() as u64);
            let bytes = &data[(lo - addr) as usize..(hi - addr) as usize];
            let off = (lo - line * lb) as usize;
            if let Some(pending) = self.writebacks.get_mut(&line) {
                pending.1[off..off + bytes.len()].copy_from_slice(bytes);
            }
            if let Some(list) = self.in_flight.get_mut(&line) {
                list.retain(|w| w.strong_count() > 0);
                for w in list.iter() {
                    if let Some(d) = w.upgrade() {
                        d.borrow_mut()[off..off + bytes.len()].copy_from_slice(bytes);
                    }
                }
            }
            self.cancel_reservations(line, None);
            let Some(home) = self.homing.known_home(line * lb) else { continue };
            if let Some(slot) = self.tiles[home].l2.peek(line) {
                if matches!(self.tiles[home].state[slot], Line::Home { .. }) {
                    self.line_bytes_mut(home, slot)[off..off + bytes.len()].copy_from_slice(bytes);
                    self.mark_dirty(home, slot);
                }
            }
            let sharers = self.tiles[home].dir.get(&line).map(|e| e.sharers.clone()).unwrap_or_default();
            for s in sharers {
                self.drop_copy(s, line);
            }
            self.set_shared(home, line);
        }
    }

    /// The current value of `buf.len()` bytes at `addr` as the homes hold them (the coherent view; stores still in
    /// flight are not in it), for the simulator's own reads (semihosting, diagnostics).
    pub fn peek(&self, addr: u64, buf: &mut [u8], dram: &mut dyn Dram) {
        let lb = self.params.line_bytes;
        for (i, b) in buf.iter_mut().enumerate() {
            let a = addr + i as u64;
            let line = a / lb;
            let held = self.homing.known_home(a).and_then(|h| self.tiles[h].l2.peek(line).map(|s| (h, s)));
            *b = match held {
                Some((h, slot)) if matches!(self.tiles[h].state[slot], Line::Home { .. }) => self.line_bytes(h, slot)[(a % lb) as usize],
                _ if self.writebacks.contains_key(&line) => self.writebacks[&line].1[(a % lb) as usize],
                _ => {
                    let mut one = [0u8];
                    dram.read(a, &mut one);
                    one[0]
                }
            };
        }
    }
}
