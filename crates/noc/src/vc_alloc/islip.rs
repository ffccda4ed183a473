//! `islip`: iSLIP over input VCs and output VCs, BookSim2's default (`vc_allocator = islip`), with
//! `allocator_iterations` iterations (BookSim2's `islip(N)`, default 1).
//! Every requester asks for all free VCs of its output port; each free output VC grants the requester at or after
//! its grant pointer; each requester accepts the granting VC at or after its accept pointer (one per input VC,
//! over all output VCs `port * vcs + vc` of the router); both pointers move past an accepted match only. Further
//! iterations match the input and output VCs still unmatched the same way, without moving pointers.

use super::{VcMatches, VcPort};
use crate::config::MAX_VCS;
use crate::network::wrap;
use crate::router::round_robin_pick;

#[inline]
pub(crate) fn allocate(requests: u64, free: u64, st: VcPort<'_>) -> VcMatches {
    if free == 0 {
        return VcMatches::default();
    }
    let (o, vcs, n) = (st.port, st.vcs, st.inputs);
    if requests.is_power_of_two() {
        // The only requester (the common case): every free VC grants it, and it accepts by its accept pointer.
        let g = requests.trailing_zeros() as usize;
        let ov = islip_accept(free, st.accept_ptr[g], o, vcs);
        st.grant_ptr[ov] = wrap(g + 1, n) as u8;
        st.accept_ptr[g] = wrap(o * vcs + ov + 1, n) as u8;
        let mut out = VcMatches::default();
        out.push(g, ov);
        return out;
    }
    let (pairs, len, first) = islip_port(requests, free, st.grant_ptr, st.accept_ptr, o, vcs, st.iterations);
    // Pointers move past the matches of the first iteration only (McKeown's iSLIP, as BookSim2's).
    for &(g, ov) in &pairs[..first] {
        let (g, ov) = (g as usize, ov as usize);
        st.grant_ptr[ov] = wrap(g + 1, n) as u8;
        st.accept_ptr[g] = wrap(o * vcs + ov + 1, n) as u8;
    }
    VcMatches { pairs, len }
}

/// Up to one match per output VC: (input VC by local index, output VC of the port), how many, and how many of them
/// the first iteration made.
type IslipMatches = ([(u8, u8); MAX_VCS as usize], usize, usize);

/// One iSLIP iteration for output port `o`, whose free VCs are `free` and whose requesters are the input VCs
/// `requests` (bits by local index; with dimension-order routing each asks for this one port only, so ports are
/// independent). Each free output VC grants the requester at or after its grant pointer (`grant_ptr`, per VC of
/// the port); each requester accepts, among the VCs granting it, the one at or after its accept pointer
/// (`accept_ptr`, per input VC of the router, over all output VCs `port * vcs + vc` of the router).
/// Each iteration after the first matches what is still unmatched the same way, with the pointers unchanged.
#[inline]
pub(crate) fn islip_port(requests: u64, free: u64, grant_ptr: &[u8], accept_ptr: &[u8], o: usize, vcs: usize, iterations: u32) -> IslipMatches {
    let mut out = ([(0u8, 0u8); MAX_VCS as usize], 0, 0);
    let (mut requests, mut free) = (requests, free);
    for iteration in 0..iterations {
        let mut granted = [0u8; 64];
        let mut granted_any = 0u64;
        let mut f = free;
        while f != 0 && requests != 0 {
            let ov = f.trailing_zeros() as usize;
            f &= f - 1;
            let g = round_robin_pick(requests, u32::from(grant_ptr[ov])) as usize;
            granted[g] |= 1 << ov;
            granted_any |= 1 << g;
        }
        if granted_any == 0 {
            break;
        }
        while granted_any != 0 {
            let g = granted_any.trailing_zeros() as usize;
            granted_any &= granted_any - 1;
            let ov = islip_accept(u64::from(granted[g]), accept_ptr[g], o, vcs);
            out.0[out.1] = (g as u8, ov as u8);
            out.1 += 1;
            requests &= !(1 << g);
            free &= !(1 << ov);
        }
        if iteration == 0 {
            out.2 = out.1;
        }
    }
    out
}

/// The VC of port `o` (bit in `granted`, not zero) that an input VC whose accept pointer is `accept_ptr` (an output
/// VC index `port * vcs + vc`) accepts: the first at or after the pointer, wrapping over all ports.
#[inline(always)]
pub(crate) fn islip_accept(granted: u64, accept_ptr: u8, o: usize, vcs: usize) -> usize {
    let (a, lo) = (accept_ptr as usize, o * vcs);
    if a > lo && a < lo + vcs {
        round_robin_pick(granted, (a - lo) as u32) as usize
    } else {
        granted.trailing_zeros() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::{islip_accept, islip_port};

    #[test]
    fn islip_one_iteration_loses_matches_when_grant_pointers_agree() {
        // Input VCs 0 and 1 both ask for port 1 (VCs 0 and 1 free). With every pointer at 0 both output VCs grant
        // input VC 0, which accepts one: a single match, as in BookSim2's iSLIP with one iteration.
        let (m, k, _) = islip_port(0b11, 0b11, &[0, 0], &[0; 8], 1, 2, 1);
        assert_eq!(&m[..k], &[(0, 0)]);
        // A second iteration matches the VC left over with the input VC left over.
        let (m, k, first) = islip_port(0b11, 0b11, &[0, 0], &[0; 8], 1, 2, 2);
        assert_eq!((&m[..k], first), (&[(0, 0), (1, 1)][..], 1));
        // Grant pointers apart: each output VC grants a different input VC and both match.
        let (m, k, _) = islip_port(0b11, 0b11, &[0, 1], &[0; 8], 1, 2, 1);
        assert_eq!(&m[..k], &[(0, 0), (1, 1)]);
    }

    #[test]
    fn islip_accept_pointer_wraps_over_all_output_vcs() {
        // Port 1 of 2-VC ports holds output VCs 2 and 3.
        assert_eq!(islip_accept(0b11, 3, 1, 2), 1, "pointer at VC 3 takes it");
        assert_eq!(islip_accept(0b11, 2, 1, 2), 0);
        assert_eq!(islip_accept(0b11, 0, 1, 2), 0, "pointer before the port: its first VC");
        assert_eq!(islip_accept(0b11, 5, 1, 2), 0, "pointer after the port: wraps to its first VC");
        assert_eq!(islip_accept(0b10, 5, 1, 2), 1);
    }
}
