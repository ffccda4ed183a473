//! The protocol over a randomised transport: random programs of loads, stores, fences and atomics on a few lines,
//! tiny caches (so lines are evicted and fetched again), messages delayed at random but kept in order between each
//! pair of endpoints. Every step checks that the directory agrees with the caches and that a copy differs from its
//! home only while an invalidation or the holder's own store is on its way; the end checks coherence per word (no
//! core sees a word's values out of the order its home applied them, nor misses its own store), that no store is
//! lost, and that atomics are atomic.

use super::homing::{Base, HashMode, Homing};
use super::*;
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const LINE: u64 = 64;
/// Words the plain accesses use: two in each of three lines.
const WORDS: [u64; 6] = [0, 8, 64, 72, 128, 136];
/// The counters of the AMO and LR/SC increments, in lines of their own.
const AMO_COUNTER: u64 = 192;
const LRSC_COUNTER: u64 = 256;

struct VecDram(Vec<u8>);

impl Dram for VecDram {
    fn read(&mut self, addr: u64, buf: &mut [u8]) {
        buf.copy_from_slice(&self.0[addr as usize..addr as usize + buf.len()]);
    }
    fn write(&mut self, addr: u64, data: &[u8]) {
        self.0[addr as usize..addr as usize + data.len()].copy_from_slice(data);
    }
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Load(u64),
    Store(u64),
    Fence,
    AmoAdd,
    /// LR, then SC of the value plus one, again until the SC succeeds.
    LrScIncrement,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..WORDS.len()).prop_map(|w| Op::Load(WORDS[w])),
        4 => (0..WORDS.len()).prop_map(|w| Op::Store(WORDS[w])),
        1 => Just(Op::Fence),
        1 => Just(Op::AmoAdd),
        1 => Just(Op::LrScIncrement),
    ]
}

fn params(tiles: usize, l2_lines: u64, ways: usize) -> Params {
    Params {
        tiles,
        line_bytes: LINE,
        flit_bytes: 16,
        l1d: CacheSpec { bytes: LINE, ways: 1, latency_cycles: 2 },
        l2: CacheSpec { bytes: l2_lines * LINE, ways, latency_cycles: 8 },
        home_cycles: 4,
        write_buffer: 2,
        controllers: 2,
        interleave_bytes: 128,
        dram_latency_cycles: 20,
        dram_cycles_per_line: 3,
    }
}

/// Messages in flight: departures (at the cycle they leave) and arrivals (each pair's in the order they left).
struct Transport {
    departures: BinaryHeap<Reverse<(u64, u64)>>,
    arrivals: BinaryHeap<Reverse<(u64, u64)>>,
    packets: HashMap<u64, Packet>,
    last: HashMap<(Endpoint, Endpoint), u64>,
    seq: u64,
    rng: rand_xoshiro::Xoshiro256PlusPlus,
    max_delay: u64,
}

impl Transport {
    fn push(&mut self, p: Packet) {
        self.seq += 1;
        self.departures.push(Reverse((p.at, self.seq)));
        self.packets.insert(self.seq, p);
    }

    /// Packets leaving at `now` enter the network.
    fn depart(&mut self, now: u64) {
        while let Some(&Reverse((at, id))) = self.departures.peek() {
            assert!(at >= now, "packet {:?} leaves in the past", self.packets[&id]);
            if at > now {
                break;
            }
            self.departures.pop();
            let p = &self.packets[&id];
            let pair = (p.src, p.dst);
            let arrive = (now + 1 + self.rng.random_range(0..=self.max_delay)).max(self.last.get(&pair).copied().unwrap_or(0));
            self.last.insert(pair, arrive);
            self.arrivals.push(Reverse((arrive, id)));
        }
    }

    fn in_flight(&self) -> impl Iterator<Item = &Packet> {
        self.packets.values()
    }

    fn idle(&self) -> bool {
        self.packets.is_empty()
    }
}

/// One tile's program and what it saw.
struct Program {
    ops: Vec<Op>,
    next: usize,
    /// Cycle of its next operation.
    at: u64,
    /// The operation waiting for the memory system, and an LR/SC increment's stage.
    pending: Option<Op>,
    lrsc_stage: Option<u64>,
    /// (word, value) observed by loads, written by stores, in program order.
    seen: Vec<(u64, u64)>,
    amo_olds: Vec<u64>,
    stores: u64,
}

fn home_view(m: &MemSystem, dram: &mut VecDram, addr: u64) -> u64 {
    let mut b = [0u8; 8];
    m.peek(addr, &mut b, dram);
    u64::from_le_bytes(b)
}

/// The invariants that hold at every step.
fn check_step(m: &MemSystem, net: &Transport, dram: &mut VecDram) {
    for (t, tile) in m.tiles.iter().enumerate() {
        for slot in 0..tile.l2.slots() {
            let Some(line) = tile.l2.line_at(slot) else { continue };
            if tile.state[slot] != Line::Copy {
                continue;
            }
            let home = m.homing.known_home(line * LINE).expect("a copied line has a home");
            assert_ne!(home, t, "a tile keeps no copy of its own home line");
            let inv_on_way = net.in_flight().any(|p| p.dst == Endpoint::Tile(t) && matches!(p.msg, Msg::Inv { line: l, .. } if l == line));
            let entry = m.tiles[home].dir.get(&line);
            let listed = entry.is_some_and(|e| e.sharers.contains(&t));
            assert!(listed || inv_on_way, "tile {t} holds line {line} but its home {home} does not list it");
            let busy = entry.is_some_and(|e| e.txn.is_some());
            let own_write = net.in_flight().any(|p| p.src == Endpoint::Tile(t) && matches!(p.msg, Msg::Write { line: l, .. } if l == line));
            if !(busy || inv_on_way || own_write) {
                let mut view = vec![0u8; LINE as usize];
                m.peek(line * LINE, &mut view, dram);
                assert_eq!(&tile.data[slot * LINE as usize..(slot + 1) * LINE as usize], &view[..], "tile {t}'s copy of line {line} is stale");
            }
        }
        for (&line, entry) in &tile.dir {
            if let Some(Txn { phase: Phase::Invalidating { acks, .. }, .. }) = &entry.txn {
                let out = net
                    .in_flight()
                    .filter(|p| match p.msg {
                        Msg::Inv { line: l, home } => l == line && home == t,
                        Msg::InvAck { line: l, .. } => l == line && p.dst == Endpoint::Tile(t),
                        _ => false,
                    })
                    .count();
                assert_eq!(*acks as usize, out, "home {t} waits for {acks} acknowledgements of line {line}, {out} are on their way");
            }
        }
    }
}

fn run(programs: Vec<Vec<Op>>, mode: HashMode, l2_lines: u64, ways: usize, max_delay: u64, seed: u64) {
    let tiles = programs.len();
    let homing = Homing::new(Vec::new(), mode, Base::Local, (0..tiles).collect(), 128, LINE);
    let mut m = MemSystem::new(params(tiles, l2_lines, ways), homing);
    let mut dram = VecDram(vec![0; 4096]);
    let mut net = Transport {
        departures: BinaryHeap::new(),
        arrivals: BinaryHeap::new(),
        packets: HashMap::new(),
        last: HashMap::new(),
        seq: 0,
        rng: rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed),
        max_delay,
    };
    let mut progs: Vec<Program> = programs
        .into_iter()
        .map(|ops| Program { ops, next: 0, at: 0, pending: None, lrsc_stage: None, seen: Vec::new(), amo_olds: Vec::new(), stores: 0 })
        .collect();
    let (mut amo_adds, mut lrsc_increments) = (0u64, 0u64);
    let mut now = 0;
    loop {
        // Arrivals due now (their answers may leave now too).
        loop {
            net.depart(now);
            let Some(&Reverse((at, id))) = net.arrivals.peek() else { break };
            assert!(at >= now);
            if at > now {
                break;
            }
            net.arrivals.pop();
            let p = net.packets.remove(&id).expect("in flight");
            m.deliver(p, now, &mut dram);
            for p in m.take_packets().collect::<Vec<_>>() {
                net.push(p);
            }
        }
        for d in m.take_done().collect::<Vec<_>>() {
            let p = &mut progs[d.tile];
            p.at = d.at;
            match p.pending.take().expect("a finished access was pending") {
                Op::Load(w) => p.seen.push((w, d.value)),
                Op::AmoAdd => p.amo_olds.push(d.value),
                Op::LrScIncrement => match p.lrsc_stage.take() {
                    None => {
                        p.lrsc_stage = Some(d.value);
                        p.pending = None;
                        p.next -= 1; // the SC comes next
                    }
                    Some(_) if d.value == 0 => {}
                    Some(_) => p.next -= 1, // failed: again from the LR
                },
                Op::Store(_) | Op::Fence => {}
            }
        }
        // Cores whose next operation is due.
        for t in 0..tiles {
            let p = &mut progs[t];
            if p.pending.is_some() || m.waiting(t) || p.at > now || p.next >= p.ops.len() {
                continue;
            }
            let op = p.ops[p.next];
            p.next += 1;
            let outcome = match op {
                Op::Load(w) => m.load(t, w, 8, now),
                Op::Store(w) => {
                    p.stores += 1;
                    let value = (t as u64 + 1) << 32 | p.stores;
                    p.seen.push((w, value));
                    m.store(t, w, 8, value, now)
                }
                Op::Fence => m.fence(t, now),
                Op::AmoAdd => {
                    amo_adds += 1;
                    m.atomic(t, AMO_COUNTER, Atomic { kind: AtomicKind::Add, size: 8, operand: 1 }, now)
                }
                Op::LrScIncrement => match p.lrsc_stage {
                    None => m.atomic(t, LRSC_COUNTER, Atomic { kind: AtomicKind::Lr, size: 8, operand: 0 }, now),
                    Some(old) => m.atomic(t, LRSC_COUNTER, Atomic { kind: AtomicKind::Sc, size: 8, operand: old + 1 }, now),
                },
            };
            match outcome {
                Outcome::Done { value, cycles } => {
                    if let Op::Load(w) = op {
                        p.seen.push((w, value));
                    }
                    p.at = now + u64::from(cycles);
                }
                Outcome::Wait => p.pending = Some(op),
            }
            for pk in m.take_packets().collect::<Vec<_>>() {
                net.push(pk);
            }
        }
        net.depart(now);
        check_step(&m, &net, &mut dram);
        let finished = progs.iter().all(|p| p.next >= p.ops.len() && p.pending.is_none()) && (0..tiles).all(|t| !m.waiting(t));
        if finished && net.idle() {
            // Drain the stores: fence every core.
            if (0..tiles).all(|t| m.pending_writes(t) == 0) {
                break;
            }
        }
        now += 1;
        assert!(now < 2_000_000, "no progress: the protocol hangs");
    }
    for p in &progs {
        lrsc_increments += p.ops.iter().filter(|o| matches!(o, Op::LrScIncrement)).count() as u64;
    }
    // No transaction left, every copy as its home has it.
    for (t, tile) in m.tiles.iter().enumerate() {
        assert!(tile.dir.values().all(|e| e.txn.is_none()), "tile {t} has a transaction left");
    }
    check_step(&m, &net, &mut dram);
    // Coherence per word: the order in which homes applied the stores.
    let mut order: HashMap<(u64, u64), usize> = HashMap::new();
    let mut last: HashMap<u64, u64> = HashMap::new();
    for (i, &(w, v)) in m.applied.iter().enumerate() {
        order.insert((w, v), i);
        last.insert(w, v);
    }
    for (t, p) in progs.iter().enumerate() {
        let mut latest: HashMap<u64, i64> = HashMap::new();
        for &(w, v) in &p.seen {
            let index = if v == 0 { -1 } else { *order.get(&(w, v)).unwrap_or_else(|| panic!("tile {t} saw {v:#x} at {w}, never stored")) as i64 };
            let before = latest.get(&w).copied().unwrap_or(-1);
            assert!(index >= before, "tile {t} saw word {w} go back: {v:#x} (store #{index}) after store #{before}");
            latest.insert(w, index);
        }
    }
    for &w in &WORDS {
        assert_eq!(home_view(&m, &mut dram, w), last.get(&w).copied().unwrap_or(0), "word {w}: the last store was lost");
    }
    // Atomics.
    assert_eq!(home_view(&m, &mut dram, AMO_COUNTER), amo_adds, "AMO increments lost");
    let mut olds: Vec<u64> = progs.iter().flat_map(|p| p.amo_olds.iter().copied()).collect();
    olds.sort_unstable();
    assert_eq!(olds, (0..amo_adds).collect::<Vec<_>>(), "two AMOs saw the same value");
    assert_eq!(home_view(&m, &mut dram, LRSC_COUNTER), lrsc_increments, "LR/SC increments lost");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_stay_coherent(
        programs in prop::collection::vec(prop::collection::vec(op(), 1..40), 2..5),
        mode in prop_oneof![Just(HashMode::All), Just(HashMode::None)],
        l2_lines in 1u64..5,
        ways in 1usize..3,
        max_delay in 0u64..12,
        seed in any::<u64>(),
    ) {
        run(programs, mode, l2_lines, ways, max_delay, seed);
    }
}

#[test]
fn a_remote_load_misses_once_then_hits_and_a_store_invalidates_it() {
    // Two tiles, lines hashed: find a word homed at tile 1, read it from tile 0.
    let homing = Homing::new(Vec::new(), HashMode::All, Base::Local, vec![0, 1], 4096, LINE);
    let mut m = MemSystem::new(params(2, 4, 2), homing);
    let mut dram = VecDram(vec![0; 4096]);
    let addr = (0..32).map(|l| l * LINE).find(|&a| m.homing.known_home(a) == Some(1)).unwrap();
    dram.0[addr as usize..addr as usize + 8].copy_from_slice(&42u64.to_le_bytes());
    assert_eq!(m.load(0, addr, 8, 0), Outcome::Wait);
    let mut now = 0;
    let mut deliver_all = |m: &mut MemSystem, now: &mut u64| loop {
        // A fixed latency of 5 cycles per packet, one chain of messages at a time.
        let mut packets: Vec<Packet> = m.take_packets().collect();
        if packets.is_empty() {
            break;
        }
        packets.sort_by_key(|p| p.at);
        for p in packets {
            *now = (*now).max(p.at + 5);
            m.deliver(p, *now, &mut dram);
        }
    };
    deliver_all(&mut m, &mut now);
    let done: Vec<Done> = m.take_done().collect();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].value, 42);
    // Read at 0 + 8 (L2) + 5 -> home; home 4 cycles + DRAM 20 + 5 back, 4 to answer, 5 to tile 0.
    assert_eq!(done[0].at, 8 + 5 + 5 + 20 + 5 + 4 + 5);
    assert_eq!(m.load(0, addr, 8, 100), Outcome::Done { value: 42, cycles: 2 }, "now an L1 hit");
    assert_eq!(m.counters(0).load_misses, 1);
    // Tile 1 (the home) stores: tile 0's copy is invalidated before the store is acknowledged.
    assert_eq!(m.store(1, addr, 8, 43, 200), Outcome::Done { value: 0, cycles: 2 });
    assert_eq!(m.pending_writes(1), 1);
    let mut now = 200;
    deliver_all(&mut m, &mut now);
    assert_eq!(m.pending_writes(1), 0);
    assert_eq!(m.counters(0).invalidations_received, 1);
    assert_eq!(m.load(0, addr, 8, 300), Outcome::Wait, "the copy is gone");
}
