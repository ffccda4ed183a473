//! `input-first`: separable, input first, round-robin (nocmsg's behaviour before issue 15; BookSim2's
//! `separable_input_first`). Each input port picks one of its bidding VCs at or after its pointer, then each output
//! port picks one of the inputs whose choice asks for it at or after its pointer; pointers move past granted
//! choices only. An input whose chosen VC loses at its output sends nothing that cycle.

use super::{SwRouter, SwWinners};
use crate::network::wrap;
use crate::router::{round_robin_pick, MAX_PORTS};

#[inline(always)]
pub(crate) fn allocate(requests: u64, st: SwRouter<'_>) -> SwWinners {
    let (ports, vcs) = (st.ports, st.vcs);
    let vc_mask = (1u64 << vcs) - 1;
    // Input stage: one VC per input port.
    let mut chosen = [0u8; MAX_PORTS];
    let mut out_req = [0u64; MAX_PORTS];
    let mut out_ports = 0u32;
    let mut req = requests;
    while req != 0 {
        let p = st.port_of_bit[req.trailing_zeros() as usize] as usize;
        let port_bits = (req >> (p * vcs)) & vc_mask;
        req &= !(vc_mask << (p * vcs));
        let port_bits = super::preferred(port_bits, st.speculative >> (p * vcs) & vc_mask);
        let v = round_robin_pick(port_bits, u32::from(st.in_ptr[p])) as usize;
        chosen[p] = v as u8;
        let o = st.ivc[p * vcs + v].out_port as usize;
        out_req[o] |= 1 << p;
        out_ports |= 1 << o;
    }
    // Output stage: one input per output port.
    let mut out = SwWinners::default();
    while out_ports != 0 {
        let o = out_ports.trailing_zeros() as usize;
        out_ports &= out_ports - 1;
        let p = round_robin_pick(out_req[o], u32::from(st.out_ptr[o])) as usize;
        st.out_ptr[o] = wrap(p + 1, ports) as u8;
        let v = chosen[p] as usize;
        st.in_ptr[p] = wrap(v + 1, vcs) as u8;
        out.push(p, v);
    }
    out
}
