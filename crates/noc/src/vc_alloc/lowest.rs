//! `lowest`: separable; each output port gives its free VCs to the requesters in round-robin order, the
//! lowest-numbered free VC first (nocmsg's behaviour before issue 15). An output VC freed by a tail is the first to
//! be handed out again, so back-to-back short packets queue in the same downstream VC.

use super::{separable, VcMatches, VcPort};

#[inline(always)]
pub(crate) fn allocate(requests: u64, free: u64, st: VcPort<'_>) -> VcMatches {
    separable(requests, free, st, |free, _| free.trailing_zeros() as usize)
}
