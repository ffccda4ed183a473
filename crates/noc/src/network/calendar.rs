//! A timing wheel of the routers (or nodes) to visit in each cycle.
//!
//! Everything a router or node does to another one is stamped with a later cycle, and no stamp lies more than a
//! few link and credit delays ahead, so the wake-ups that are pending at any time fit in a ring of per-cycle
//! buckets. A step then visits exactly the ids filed under the current cycle instead of scanning every busy
//! router for the ones that are due.
//!
//! An id may be filed more than once (its wake-up can move earlier after it was filed); the owner keeps each id's
//! current wake-up cycle and skips entries that no longer match it, so a bucket never needs searching.

/// Ids to visit, filed by cycle in a ring of `buckets.len()` (a power of two) cycles.
#[derive(Clone, Debug)]
pub(crate) struct Calendar {
    buckets: Vec<Vec<u32>>,
    mask: u64,
}

impl Calendar {
    /// A wheel for wake-ups at most `span` cycles ahead of the current cycle.
    pub(crate) fn new(span: u64) -> Calendar {
        let len = (span + 1).next_power_of_two();
        Calendar { buckets: vec![Vec::new(); len as usize], mask: len - 1 }
    }

    /// Cycles ahead of the current one a wake-up may be filed.
    pub(crate) fn span(&self) -> u64 {
        self.mask
    }

    /// Files `id` under cycle `at`.
    #[inline]
    pub(crate) fn file(&mut self, at: u64, id: u32) {
        self.buckets[(at & self.mask) as usize].push(id);
    }

    /// Takes the ids filed under cycle `now`; hand the vector back with [`Calendar::restore`] to keep its
    /// allocation.
    #[inline]
    pub(crate) fn take(&mut self, now: u64) -> Vec<u32> {
        std::mem::take(&mut self.buckets[(now & self.mask) as usize])
    }

    /// Returns the (emptied) vector taken for cycle `now`. Ids filed under `now` meanwhile would be a bug: every
    /// wake-up lies in the future.
    #[inline]
    pub(crate) fn restore(&mut self, now: u64, mut ids: Vec<u32>) {
        let bucket = &mut self.buckets[(now & self.mask) as usize];
        debug_assert!(bucket.is_empty(), "a wake-up was filed for the current cycle");
        ids.clear();
        *bucket = ids;
    }
}

#[cfg(test)]
mod tests {
    use super::Calendar;

    #[test]
    fn ids_come_back_in_their_cycle_and_the_ring_wraps() {
        let mut c = Calendar::new(5);
        assert_eq!(c.span(), 7);
        c.file(3, 1);
        c.file(3, 2);
        c.file(4, 9);
        assert_eq!(c.take(3), vec![1, 2]);
        c.restore(3, Vec::new());
        c.file(11, 5); // 11 = 3 + 8: same bucket, next turn of the ring
        assert_eq!(c.take(4), vec![9]);
        assert_eq!(c.take(11), vec![5]);
    }
}
