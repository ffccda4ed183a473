//! `islip`: iSLIP over ports, BookSim2's default (`sw_allocator = islip`), with `allocator_iterations` iterations
//! (BookSim2's `islip(N)`, default 1). Each input port asks
//! for every output port one of its VCs bids for (per pair, the VC at or after the input's pointer, as BookSim2
//! keeps one label per pair); each output grants the requesting input at or after its grant pointer; each input
//! accepts the granting output at or after its accept pointer; pointers move past accepted matches only (further
//! iterations match what is still unmatched, without moving pointers; the input's VC pointer moves past every
//! winner). An input whose first choice is contended can still send on another output.

use super::{SwRouter, SwWinners};
use crate::network::wrap;
use crate::router::{round_robin_pick, MAX_PORTS};

#[inline]
pub(crate) fn allocate(requests: u64, st: SwRouter<'_>) -> SwWinners {
    let (ports, vcs) = (st.ports, st.vcs);
    let super::PortRequests { label, out_req, out_ports, .. } = super::port_requests(requests, &st);
    // Grant: each output port takes the requesting input at or after its pointer; accept: each granted input
    // takes the granting output at or after its pointer; the pointers move past the first iteration's matches only.
    let mut out = SwWinners::default();
    let (mut free_in, mut free_out) = (u64::MAX, out_ports);
    for iteration in 0..st.iterations {
        let mut grants = [0u64; MAX_PORTS];
        let mut granted = 0u64;
        let mut outs = free_out;
        while outs != 0 {
            let o = outs.trailing_zeros() as usize;
            outs &= outs - 1;
            let asking = out_req[o] & free_in;
            if asking != 0 {
                let p = round_robin_pick(asking, u32::from(st.out_ptr[o])) as usize;
                grants[p] |= 1 << o;
                granted |= 1 << p;
            }
        }
        if granted == 0 {
            break;
        }
        while granted != 0 {
            let p = granted.trailing_zeros() as usize;
            granted &= granted - 1;
            let o = round_robin_pick(grants[p], u32::from(st.accept_ptr[p])) as usize;
            let v = label[p][o] as usize;
            if iteration == 0 {
                st.out_ptr[o] = wrap(p + 1, ports) as u8;
                st.accept_ptr[p] = wrap(o + 1, ports) as u8;
            }
            st.in_ptr[p] = wrap(v + 1, vcs) as u8;
            free_in &= !(1 << p);
            free_out &= !(1 << o);
            out.push(p, v);
        }
    }
    out
}
