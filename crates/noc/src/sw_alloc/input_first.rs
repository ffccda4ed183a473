//! `input-first`: separable, input first, round-robin (nocmsg's behaviour before issue 15; BookSim2's
//! `separable_input_first`). Each crossbar input (an input port without speedup) picks one of its bidding VCs at
//! or after its pointer, then each crossbar output picks one of the inputs whose choice asks for it at or after its
//! pointer; pointers move past granted choices only. An input whose chosen VC loses at its output sends nothing
//! that cycle.

use super::{SwRouter, SwWinners};
use crate::network::wrap;
use crate::router::round_robin_pick;

#[inline(always)]
pub(crate) fn allocate<const N: usize>(requests: u64, st: SwRouter<'_>) -> SwWinners {
    let (vcs, xbar) = (st.vcs, st.xbar);
    let vc_mask = (1u64 << vcs) - 1;
    // Input stage: one VC per crossbar input.
    let mut chosen = [0u8; N];
    let mut out_req = [0u64; N];
    let mut out_ports = 0u32;
    let mut req = requests;
    while req != 0 {
        let l = req.trailing_zeros() as usize;
        let (x, p) = (xbar.input_of_bit[l] as usize, st.port_of_bit[l] as usize);
        let mine = req & xbar.bits_of_input[x];
        req &= !mine;
        let bits = super::preferred(mine >> (p * vcs), st.speculative >> (p * vcs) & vc_mask);
        let v = round_robin_pick(bits, u32::from(st.in_ptr[x])) as usize;
        chosen[x] = v as u8;
        let y = xbar.output(p, st.ivc[p * vcs + v].out_port as usize);
        out_req[y] |= 1 << x;
        out_ports |= 1 << y;
    }
    // Output stage: one crossbar input per crossbar output.
    let mut out = SwWinners::default();
    while out_ports != 0 {
        let y = out_ports.trailing_zeros() as usize;
        out_ports &= out_ports - 1;
        let x = round_robin_pick(out_req[y], u32::from(st.out_ptr[y])) as usize;
        st.out_ptr[y] = wrap(x + 1, xbar.inputs) as u8;
        let v = chosen[x] as usize;
        st.in_ptr[x] = xbar.next_vc(v, vcs);
        out.push(xbar.port_of_input[x] as usize, v);
    }
    out
}
