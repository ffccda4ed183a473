//! `islip`: iSLIP over crossbar ports (input and output ports without speedup), BookSim2's default
//! (`sw_allocator = islip`), with `allocator_iterations` iterations (BookSim2's `islip(N)`, default 1). Each
//! crossbar input asks for every crossbar output one of its VCs bids for (per pair, the VC at or after the input's
//! pointer, as BookSim2 keeps one label per pair); each output grants the requesting input at or after its grant
//! pointer; each input accepts the granting output at or after its accept pointer; pointers move past accepted
//! matches only (further iterations match what is still unmatched, without moving pointers; the input's VC pointer
//! moves past every winner). An input whose first choice is contended can still send on another output.

use super::{SwRouter, SwWinners};
use crate::network::wrap;
use crate::router::round_robin_pick;

#[inline]
pub(crate) fn allocate<const N: usize>(requests: u64, st: SwRouter<'_>) -> SwWinners {
    let (vcs, xbar) = (st.vcs, st.xbar);
    let super::PortRequests { label, out_req, out_ports, .. } = super::port_requests::<N>(requests, &st);
    // Grant: each output takes the requesting input at or after its pointer; accept: each granted input takes the
    // granting output at or after its pointer; the pointers move past the first iteration's matches only.
    let mut out = SwWinners::default();
    let (mut free_in, mut free_out) = (u64::MAX, out_ports);
    for iteration in 0..st.iterations {
        let mut grants = [0u64; N];
        let mut granted = 0u64;
        let mut outs = free_out;
        while outs != 0 {
            let y = outs.trailing_zeros() as usize;
            outs &= outs - 1;
            let asking = out_req[y] & free_in;
            if asking != 0 {
                let x = round_robin_pick(asking, u32::from(st.out_ptr[y])) as usize;
                grants[x] |= 1 << y;
                granted |= 1 << x;
            }
        }
        if granted == 0 {
            break;
        }
        while granted != 0 {
            let x = granted.trailing_zeros() as usize;
            granted &= granted - 1;
            let y = round_robin_pick(grants[x], u32::from(st.accept_ptr[x])) as usize;
            let v = label[x][y] as usize;
            if iteration == 0 {
                st.out_ptr[y] = wrap(x + 1, xbar.inputs) as u8;
                st.accept_ptr[x] = wrap(y + 1, xbar.outputs) as u8;
            }
            st.in_ptr[x] = xbar.next_vc(v, vcs);
            free_in &= !(1 << x);
            free_out &= !(1 << y);
            out.push(xbar.port_of_input[x] as usize, v);
        }
    }
    out
}
