//! `round-robin`: separable like `lowest`, but each output port also rotates over its VCs, handing out first the
//! free VC at or after the one after the VC it handed out last.

use super::{separable, VcMatches, VcPort};
use crate::network::wrap;
use crate::router::round_robin_pick;

#[inline(always)]
pub(crate) fn allocate(requests: u64, free: u64, st: VcPort<'_>) -> VcMatches {
    let vcs = st.vcs;
    separable(requests, free, st, |free, next| {
        let ov = round_robin_pick(free, u32::from(*next)) as usize;
        *next = wrap(ov + 1, vcs) as u8;
        ov
    })
}
