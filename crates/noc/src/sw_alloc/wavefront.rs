//! `wavefront`: a wavefront allocator over the matrix of input ports and output ports (BookSim2's `wavefront`).
//! Each input port asks for every output one of its VCs bids for (per pair, the VC at or after the input's
//! pointer, as for `islip`). Requests are granted diagonal by diagonal from the router's priority diagonal:
//! diagonal `d` holds the pairs (input `i`, output `j`) with `(i + j) mod ports = (pri + d) mod ports`; a pair is
//! granted when neither its input nor its output is matched yet. The priority diagonal moves by one in every cycle
//! the router has a bid, whatever was granted, so unlike the round-robin allocators it rotates even with one VC.

use super::{SwRouter, SwWinners};
use crate::network::wrap;

#[inline]
pub(crate) fn allocate(requests: u64, st: SwRouter<'_>) -> SwWinners {
    let (ports, vcs) = (st.ports, st.vcs);
    let super::PortRequests { label, in_req, .. } = super::port_requests(requests, &st);
    let pri = usize::from(*st.wavefront_pri);
    let mut out = SwWinners::default();
    let (mut matched_in, mut matched_out) = (0u64, 0u64);
    for d in 0..ports {
        for o in 0..ports {
            let p = (pri + d + ports - o) % ports;
            if in_req[p] & (1 << o) != 0 && matched_in & (1 << p) == 0 && matched_out & (1 << o) == 0 {
                matched_in |= 1 << p;
                matched_out |= 1 << o;
                let v = label[p][o] as usize;
                st.in_ptr[p] = wrap(v + 1, vcs) as u8;
                out.push(p, v);
            }
        }
    }
    *st.wavefront_pri = wrap(pri + 1, ports) as u8;
    out
}

/// A lone winner: its input's VC pointer moves past it and the priority diagonal moves by one.
pub(crate) fn lone_winner(_p: usize, v: usize, _o: usize, st: super::LonePointers<'_>) {
    *st.in_ptr = wrap(v + 1, st.vcs) as u8;
    *st.wavefront_pri = wrap(usize::from(*st.wavefront_pri) + 1, st.ports) as u8;
}
