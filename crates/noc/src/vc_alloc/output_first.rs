//! `output-first`: separable, output first, with round-robin arbiters (BookSim2's `separable_output_first`). Each
//! free output VC picks one requester at or after its pointer; each requester granted by several picks the one at
//! or after its own pointer (over all output VCs of the router); both arbiters move past a match only. With
//! round-robin arbiters that update only on a match this is exactly one iteration of iSLIP, in BookSim2 as here (a
//! test holds the two to the same matches); it differs from `islip` with more than one iteration and from the
//! input-side choices of `lowest` and `round-robin`.

use super::islip::islip_port;
use super::{VcMatches, VcPort};
use crate::network::wrap;

#[inline]
pub(crate) fn allocate(requests: u64, free: u64, st: VcPort<'_>) -> VcMatches {
    if free == 0 {
        return VcMatches::default();
    }
    let (o, vcs, n) = (st.port, st.vcs, st.inputs);
    let (pairs, len, _) = islip_port(requests, free, st.grant_ptr, st.accept_ptr, o, vcs, 1);
    for &(g, ov) in &pairs[..len] {
        let (g, ov) = (g as usize, ov as usize);
        st.grant_ptr[ov] = wrap(g + 1, n) as u8;
        st.accept_ptr[g] = wrap(o * vcs + ov + 1, n) as u8;
    }
    VcMatches { pairs, len }
}
