//! Private caches: a core's L1 and L2 in front of its private memory, for chips whose private memory lives in
//! off-chip DRAM behind memory controllers on the mesh (`[memory.private]`, scc-48).
//!
//! Timing only. No other core reads or writes a core's private memory, so its bytes stay in the core's memory image
//! and the caches hold what decides the timing: tags, LRU order and dirty bits.
//!
//! - **L1** (`l1_kib`, `l1_ways`): a hit costs what a private access always costs (`core.timing.memory_cycles`).
//!   Write-through to the L2, and no allocation on a store miss (the P54C's L1 allocates on read misses only).
//! - **L2** (`l2_kib`, `l2_ways`): inclusive of the L1, write-back, allocating on load and store misses. A hit costs
//!   `l2_latency_cycles`; a load that hits is brought into the L1.
//! - **Misses** leave the core's loop: the network interface fetches the line from the controller serving the
//!   core's private memory, the core stalled meanwhile (the P54C has one outstanding miss), and fills it into both
//!   levels ([`PrivateCaches::fill`]). A dirty line it evicts is written back, posted.
//!
//! The caches change only by the core's own accesses and by fills of its own misses, which it waits for: a core
//! may run ahead of global time with them (hits are decided in its loop), and both clockings see the same.

use crate::config::PrivateMemoryConfig;
use crate::shmem::cache::Tags;
use riscv::{MemFault, Memory};
use serde::Serialize;

/// Per-core counters (`cores[i].private_memory` in `stats.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PrivateCounters {
    /// L1 misses served by the L2.
    pub l2_hits: u64,
    /// L2 misses: lines fetched from the controller.
    pub misses: u64,
    /// Dirty lines written back to the controller.
    pub writebacks: u64,
    /// Cycles the core waited for its misses.
    pub stall_cycles: u64,
}

/// One core's private caches.
#[derive(Clone, Debug)]
pub struct PrivateCaches {
    l1: Tags,
    l2: Tags,
    /// Per L2 slot: written since it was filled.
    dirty: Vec<bool>,
    line_shift: u32,
    /// The cached range `[lo, hi)`: the core's private memory.
    lo: u64,
    hi: u64,
    /// Core cycles an L2 hit costs beyond an L1 hit.
    l2_extra: u32,
    pub counters: PrivateCounters,
}

impl PrivateCaches {
    /// Caches for private memory `[lo, hi)` in lines of `line_bytes`; an L1 hit costs `l1_cycles`.
    pub fn new(config: &PrivateMemoryConfig, line_bytes: u64, l1_cycles: u32, lo: u64, hi: u64) -> PrivateCaches {
        let l2 = Tags::new(u64::from(config.l2_kib) * 1024, line_bytes, config.l2_ways as usize);
        PrivateCaches {
            l1: Tags::new(u64::from(config.l1_kib) * 1024, line_bytes, config.l1_ways as usize),
            dirty: vec![false; l2.slots()],
            l2,
            line_shift: line_bytes.trailing_zeros(),
            lo,
            hi,
            l2_extra: config.l2_latency_cycles.saturating_sub(l1_cycles),
            counters: PrivateCounters::default(),
        }
    }

    /// The line number of `addr`, if the caches hold private memory there.
    #[inline]
    fn line_of(&self, addr: u64) -> Option<u64> {
        (addr.wrapping_sub(self.lo) < self.hi - self.lo).then_some(addr >> self.line_shift)
    }

    /// A load (`store` false) or store at `addr`: `Some(extra)`, the core cycles it costs beyond an L1 hit, if it
    /// hits (or is not private memory: `Some(0)`); `None` on an L2 miss, changing nothing.
    #[inline]
    pub fn access(&mut self, addr: u64, store: bool) -> Option<u32> {
        let Some(line) = self.line_of(addr) else { return Some(0) };
        if self.l1.find(line).is_some() {
            if store {
                let slot = self.l2.peek(line).expect("the L2 holds every L1 line");
                self.dirty[slot] = true;
            }
            return Some(0);
        }
        let slot = self.l2.find(line)?;
        self.counters.l2_hits += 1;
        if store {
            self.dirty[slot] = true;
        } else {
            self.l1.insert(line);
        }
        Some(self.l2_extra)
    }

    /// The line at `addr` (a line's first byte), fetched after a miss, goes into both levels. Returns the address
    /// of the dirty line it evicted from the L2, which must be written back.
    pub fn fill(&mut self, addr: u64) -> Option<u64> {
        let line = addr >> self.line_shift;
        self.counters.misses += 1;
        let (slot, victim) = self.l2.insert(line);
        let dirty = std::mem::replace(&mut self.dirty[slot], false);
        if let Some(v) = victim {
            self.l1.remove(v);
        }
        if self.l1.peek(line).is_none() {
            self.l1.insert(line);
        }
        let written_back = victim.filter(|_| dirty);
        if written_back.is_some() {
            self.counters.writebacks += 1;
        }
        written_back.map(|v| v << self.line_shift)
    }
}

/// A core's private memory seen through its caches: an access that misses fails ([`PrivateView::miss`] set) and
/// changes nothing, so the instruction can run again once the line is in.
pub struct PrivateView<'a, M: Memory> {
    pub mem: &'a mut M,
    pub caches: &'a mut PrivateCaches,
    /// Core cycles beyond L1 hits.
    pub extra: u32,
    /// The address of the line that missed.
    pub miss: Option<u64>,
}

impl<M: Memory> Memory for PrivateView<'_, M> {
    #[inline(always)]
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, MemFault> {
        // Checked first, so that a miss leaves the memory untouched and an access outside it faults as before.
        let value = self.mem.load(addr, size)?;
        match self.caches.access(addr, false) {
            Some(extra) => {
                self.extra += extra;
                Ok(value)
            }
            None => {
                self.miss = self.caches.line_of(addr).map(|l| l << self.caches.line_shift);
                Err(MemFault::OutOfRange { addr, size, kind: riscv::memory::AccessKind::Load })
            }
        }
    }

    #[inline(always)]
    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        // A misaligned store is the memory's to refuse (or, split, to perform byte by byte), as without caches.
        if addr & u64::from(size - 1) != 0 {
            return self.mem.store(addr, size, value);
        }
        match self.caches.access(addr, true) {
            Some(extra) => {
                self.mem.store(addr, size, value)?;
                self.extra += extra;
                Ok(())
            }
            None => {
                self.miss = self.caches.line_of(addr).map(|l| l << self.caches.line_shift);
                Err(MemFault::OutOfRange { addr, size, kind: riscv::memory::AccessKind::Store })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caches() -> PrivateCaches {
        // L1: 2 lines (one set of two ways); L2: 4 lines (two sets of two ways); 32-byte lines.
        let config = PrivateMemoryConfig { l1_kib: 1, l1_ways: 2, l2_kib: 1, l2_ways: 2, l2_latency_cycles: 18 };
        let mut c = PrivateCaches::new(&config, 32, 1, 0x1000, 0x10_0000);
        c.l1 = Tags::new(64, 32, 2);
        c.l2 = Tags::new(128, 32, 2);
        c.dirty = vec![false; 4];
        c
    }

    #[test]
    fn misses_fill_both_levels_and_hits_cost_by_level() {
        let mut c = caches();
        assert_eq!(c.access(0x1000, false), None, "cold miss");
        assert_eq!(c.counters, PrivateCounters::default(), "a miss changes nothing until the fill");
        assert_eq!(c.fill(0x1000), None);
        assert_eq!(c.access(0x1008, false), Some(0), "same line: L1 hit");
        // Lines 0x80 and 0x81 (set 0 and 1 of the L2) fill the L1's two ways; 0x80's line is pushed out of the L1.
        c.fill(0x1020);
        c.fill(0x1040);
        assert_eq!(c.access(0x1000, false), Some(17), "L1 miss, L2 hit: 18 cycles, 17 beyond an L1 hit");
        assert_eq!(c.counters.l2_hits, 1);
        assert_eq!(c.access(0x1000, false), Some(0), "a load hitting the L2 is brought into the L1");
        assert_eq!(c.access(0x50, false), Some(0), "outside private memory: not cached here");
    }

    #[test]
    fn dirty_lines_are_written_back_once_and_clean_ones_dropped() {
        let mut c = caches();
        // Even lines share L2 set 0 (two ways).
        c.fill(0x1000);
        assert_eq!(c.access(0x1000, true), Some(0), "store hit in the L1, written through");
        c.fill(0x1040);
        assert_eq!(c.fill(0x1080), Some(0x1000), "the dirty LRU line is written back");
        assert_eq!(c.fill(0x10c0), None, "the clean one is dropped");
        assert_eq!(c.counters.writebacks, 1);
        assert_eq!(c.access(0x1000, false), None, "evicted from the L2 is evicted from the L1 too");
    }

    #[test]
    fn store_misses_in_the_l1_do_not_allocate_there() {
        let mut c = caches();
        c.fill(0x1000);
        c.fill(0x1020);
        c.fill(0x1040); // L1 now holds 0x1020 and 0x1040
        assert_eq!(c.access(0x1000, true), Some(17), "L2 hit");
        assert_eq!(c.access(0x1000, true), Some(17), "still not in the L1");
        assert_eq!(c.fill(0x1080), None, "the clean line 0x1040, used less recently, goes first");
        assert_eq!(c.fill(0x10c0), Some(0x1000), "the stored-to line is dirty in the L2");
    }

    #[test]
    fn the_view_fails_a_miss_without_touching_memory() {
        let mut c = caches();
        let mut ram = riscv::memory::Ram::new(0x1000, 0x1000);
        let mut view = PrivateView { mem: &mut ram, caches: &mut c, extra: 0, miss: None };
        assert!(view.store(0x1010, 8, 7).is_err());
        assert_eq!(view.miss, Some(0x1000));
        assert_eq!(ram.load(0x1010, 8).unwrap(), 0, "the failed store wrote nothing");
        c.fill(0x1010);
        let mut view = PrivateView { mem: &mut ram, caches: &mut c, extra: 0, miss: None };
        view.store(0x1010, 8, 7).unwrap();
        assert_eq!(view.load(0x1010, 8).unwrap(), 7);
        assert_eq!(view.extra, 0);
        // Misaligned: refused by the memory as such, whether the line is cached or not.
        assert!(matches!(view.store(0x1804, 8, 1), Err(MemFault::Misaligned { .. })));
        assert!(matches!(view.load(0x1804, 8), Err(MemFault::Misaligned { .. })));
        assert_eq!(view.miss, None);
    }
}
