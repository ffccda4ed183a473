//! A set-associative array of line addresses with least-recently-used replacement: the tags of one cache. What a
//! slot holds besides its tag (state, data) lives in arrays the owner indexes by slot.

/// Marks an empty way.
const EMPTY: u64 = u64::MAX;

/// The tags of a cache of `sets` x `ways` lines.
#[derive(Clone, Debug)]
pub struct Tags {
    sets: usize,
    ways: usize,
    tags: Vec<u64>,
    /// Last use of each slot (a counter, not a cycle: replacement needs only the order).
    used: Vec<u64>,
    clock: u64,
}

impl Tags {
    /// A cache of `bytes` in lines of `line_bytes`, `ways`-way set-associative (at least one set).
    pub fn new(bytes: u64, line_bytes: u64, ways: usize) -> Tags {
        let lines = (bytes / line_bytes).max(1) as usize;
        let ways = ways.clamp(1, lines);
        let sets = lines / ways;
        Tags { sets, ways, tags: vec![EMPTY; sets * ways], used: vec![0; sets * ways], clock: 0 }
    }

    /// Number of slots (`sets` x `ways`).
    pub fn slots(&self) -> usize {
        self.tags.len()
    }

    fn set_range(&self, line: u64) -> std::ops::Range<usize> {
        let set = (line % self.sets as u64) as usize;
        set * self.ways..(set + 1) * self.ways
    }

    /// The slot holding line `line` (a line number: address / line size), marking it used.
    #[inline]
    pub fn find(&mut self, line: u64) -> Option<usize> {
        let slot = self.peek(line)?;
        self.clock += 1;
        self.used[slot] = self.clock;
        Some(slot)
    }

    /// The slot holding `line`, leaving the replacement order alone.
    #[inline]
    pub fn peek(&self, line: u64) -> Option<usize> {
        self.set_range(line).find(|&s| self.tags[s] == line)
    }

    /// Puts `line` (not present) into its set: an empty way, else the least recently used one. Returns the slot and
    /// the line it evicted, if any.
    pub fn insert(&mut self, line: u64) -> (usize, Option<u64>) {
        debug_assert!(self.peek(line).is_none(), "line {line:#x} is already cached");
        let range = self.set_range(line);
        let slot = range.clone().find(|&s| self.tags[s] == EMPTY).unwrap_or_else(|| {
            range.min_by_key(|&s| self.used[s]).expect("a set has at least one way")
        });
        let victim = self.tags[slot];
        self.tags[slot] = line;
        self.clock += 1;
        self.used[slot] = self.clock;
        (slot, (victim != EMPTY).then_some(victim))
    }

    /// Drops `line` if present; returns the slot it had.
    pub fn remove(&mut self, line: u64) -> Option<usize> {
        let slot = self.peek(line)?;
        self.tags[slot] = EMPTY;
        Some(slot)
    }

    /// The line in `slot`, if any.
    pub fn line_at(&self, slot: usize) -> Option<u64> {
        let t = self.tags[slot];
        (t != EMPTY).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_way_is_evicted() {
        // Two sets of two ways: even lines in set 0, odd ones in set 1.
        let mut t = Tags::new(4 * 64, 64, 2);
        assert_eq!(t.slots(), 4);
        assert_eq!(t.insert(0).1, None);
        assert_eq!(t.insert(2).1, None);
        assert_eq!(t.insert(1).1, None, "another set");
        t.find(0);
        let (_, victim) = t.insert(4);
        assert_eq!(victim, Some(2), "0 was used after 2");
        assert!(t.peek(0).is_some() && t.peek(4).is_some() && t.peek(2).is_none());
        assert!(t.remove(4).is_some());
        assert_eq!(t.insert(6).1, None, "the removed way is empty");
    }

    #[test]
    fn tiny_caches_have_one_set() {
        let t = Tags::new(64, 64, 4);
        assert_eq!(t.slots(), 1);
    }
}
