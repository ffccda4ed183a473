//! A timing wheel of the routers (or nodes) to visit in each cycle.
//!
//! Everything a router or node does to another one is stamped with a later cycle, and no stamp lies more than a
//! few link and credit delays ahead, so the wake-ups that are pending at any time fit in a ring of per-cycle
//! buckets. A step then visits exactly the ids filed under the current cycle instead of scanning every busy
//! router for the ones that are due.
//!
//! A bucket is a bitmap with one bit per id. Filing sets a bit, so filing twice is harmless and needs no check
//! of what is already filed (the check was a branch as good as random, taken two or three times per flit hop),
//! and a step visits the ids in increasing order, as debug clocking does. A wake-up that turns out to have
//! nothing to do (its cause was handled at an earlier visit, or `Network::skip_idle_to` jumped past the cycle it
//! was filed for and the ring came round to it) costs a visit that finds nothing due: debug clocking makes such
//! visits every cycle, and the tests hold both to the same results.

/// Ids to visit, filed by cycle in a ring of `slots` (a power of two) bitmaps of `words` words each.
#[derive(Clone, Debug)]
pub(crate) struct Calendar {
    /// Bit `id % 64` of `bits[slot * words + id / 64]`: `id` is due in a cycle equal to `slot` modulo `slots`.
    bits: Vec<u64>,
    words: usize,
    mask: u64,
}

impl Calendar {
    /// A wheel for `ids` ids and wake-ups at most `span` cycles ahead of the current cycle.
    pub(crate) fn new(span: u64, ids: usize) -> Calendar {
        let (slots, words) = Calendar::shape(span, ids);
        Calendar { bits: vec![0; slots as usize * words], words, mask: slots - 1 }
    }

    fn shape(span: u64, ids: usize) -> (u64, usize) {
        ((span + 1).next_power_of_two(), ids.div_ceil(64).max(1))
    }

    /// Bytes of the bitmaps of a wheel built by `new(span, ids)`.
    pub(crate) fn bytes(span: u64, ids: usize) -> u64 {
        let (slots, words) = Calendar::shape(span, ids);
        slots * words as u64 * 8
    }

    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> u64 {
        self.bits.capacity() as u64 * 8
    }

    /// Cycles ahead of the current one a wake-up may be filed.
    pub(crate) fn span(&self) -> u64 {
        self.mask
    }

    /// Files `id` under cycle `at`; `u64::MAX` (never) files nothing.
    #[inline]
    pub(crate) fn file(&mut self, at: u64, id: usize) {
        let word = (at & self.mask) as usize * self.words + id / 64;
        self.bits[word] |= u64::from(at != u64::MAX) << (id % 64);
    }

    /// Words of ids per cycle: `take(now, k)` covers ids `64 * k ..`.
    #[inline]
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    /// Takes word `k` of the ids filed under cycle `now`, clearing it.
    #[inline]
    pub(crate) fn take(&mut self, now: u64, k: usize) -> u64 {
        std::mem::take(&mut self.bits[(now & self.mask) as usize * self.words + k])
    }
}

#[cfg(test)]
mod tests {
    use super::Calendar;

    #[test]
    fn ids_come_back_in_their_cycle_and_the_ring_wraps() {
        let mut c = Calendar::new(5, 100);
        assert_eq!((c.span(), c.words()), (7, 2));
        c.file(3, 1);
        c.file(3, 70);
        c.file(3, 1);
        c.file(4, 9);
        c.file(u64::MAX, 9);
        assert_eq!((c.take(3, 0), c.take(3, 1)), (1 << 1, 1 << 6));
        assert_eq!(c.take(3, 0), 0, "taking clears");
        c.file(11, 5); // 11 = 3 + 8: same bucket, next turn of the ring
        assert_eq!(c.take(4, 0), 1 << 9);
        assert_eq!(c.take(11, 0), 1 << 5);
    }
}
