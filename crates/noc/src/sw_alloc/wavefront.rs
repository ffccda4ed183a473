//! `wavefront`: a wavefront allocator over the matrix of crossbar inputs and outputs (input and output ports
//! without speedup; BookSim2's `wavefront`). Each crossbar input asks for every crossbar output one of its VCs bids
//! for (per pair, the VC at or after the input's pointer, as for `islip`). Requests are granted diagonal by diagonal
//! from the router's priority diagonal over a square matrix of side `n`, the larger of the two port counts:
//! diagonal `d` holds the pairs (input `i`, output `j`) with `(i + j) mod n = (pri + d) mod n`; a pair is granted
//! when neither its input nor its output is matched yet. The priority diagonal moves by one in every cycle the
//! router has a bid, whatever was granted, so unlike the round-robin allocators it rotates even with one VC.

use super::{SwRouter, SwWinners};
use crate::network::wrap;

// `y` walks the crossbar outputs and indexes the request bits and the labels of an input that depends on it.
#[allow(clippy::needless_range_loop)]
#[inline]
pub(crate) fn allocate<const N: usize>(requests: u64, st: SwRouter<'_>) -> SwWinners {
    let (vcs, xbar) = (st.vcs, st.xbar);
    let super::PortRequests { label, in_req, .. } = super::port_requests::<N>(requests, &st);
    let side = xbar.inputs.max(xbar.outputs);
    let pri = usize::from(*st.wavefront_pri);
    let mut out = SwWinners::default();
    let (mut matched_in, mut matched_out) = (0u64, 0u64);
    for d in 0..side {
        for y in 0..xbar.outputs {
            let x = (pri + d + side - y) % side;
            if x < xbar.inputs && in_req[x] & (1 << y) != 0 && matched_in & (1 << x) == 0 && matched_out & (1 << y) == 0 {
                matched_in |= 1 << x;
                matched_out |= 1 << y;
                let v = label[x][y] as usize;
                st.in_ptr[x] = xbar.next_vc(v, vcs);
                out.push(xbar.port_of_input[x] as usize, v);
            }
        }
    }
    *st.wavefront_pri = wrap(pri + 1, side) as u8;
    out
}

/// A lone winner: its input's VC pointer moves past it and the priority diagonal moves by one.
pub(crate) fn lone_winner(_x: usize, v: usize, _y: usize, st: super::LonePointers<'_>) {
    *st.in_ptr = st.xbar.next_vc(v, st.vcs);
    let side = st.xbar.inputs.max(st.xbar.outputs);
    *st.wavefront_pri = wrap(usize::from(*st.wavefront_pri) + 1, side) as u8;
}
