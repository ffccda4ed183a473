//! `islip`: one iteration of iSLIP over input VCs and output VCs, BookSim2's default (`vc_allocator = islip`).
//! Every requester asks for all free VCs of its output port; each free output VC grants the requester at or after
//! its grant pointer; each requester accepts the granting VC at or after its accept pointer (one per input VC,
//! over all output VCs `port * vcs + vc` of the router); both pointers move past an accepted match only.

use super::{VcMatches, VcPort};
use crate::config::MAX_VCS;
use crate::network::wrap;
use crate::router::round_robin_pick;

pub(crate) fn allocate(requests: u64, free: u64, st: VcPort<'_>) -> VcMatches {
    if free == 0 {
        return VcMatches::default();
    }
    let (o, vcs, n) = (st.port, st.vcs, st.inputs);
    let (pairs, len) = islip_port(requests, free, st.grant_ptr, st.accept_ptr, o, vcs);
    for &(g, ov) in &pairs[..len] {
        let (g, ov) = (g as usize, ov as usize);
        st.grant_ptr[ov] = wrap(g + 1, n) as u8;
        st.accept_ptr[g] = wrap(o * vcs + ov + 1, n) as u8;
    }
    VcMatches { pairs, len }
}

/// Up to one match per output VC: (input VC by local index, output VC of the port).
type IslipMatches = ([(u8, u8); MAX_VCS as usize], usize);

/// One iSLIP iteration for output port `o`, whose free VCs are `free` and whose requesters are the input VCs
/// `requests` (bits by local index; with dimension-order routing each asks for this one port only, so ports are
/// independent). Each free output VC grants the requester at or after its grant pointer (`grant_ptr`, per VC of
/// the port); each requester accepts, among the VCs granting it, the one at or after its accept pointer
/// (`accept_ptr`, per input VC of the router, over all output VCs `port * vcs + vc` of the router).
#[inline]
pub(crate) fn islip_port(requests: u64, free: u64, grant_ptr: &[u8], accept_ptr: &[u8], o: usize, vcs: usize) -> IslipMatches {
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
    let mut out = ([(0u8, 0u8); MAX_VCS as usize], 0);
    while granted_any != 0 {
        let g = granted_any.trailing_zeros() as usize;
        granted_any &= granted_any - 1;
        out.0[out.1] = (g as u8, islip_accept(u64::from(granted[g]), accept_ptr[g], o, vcs) as u8);
        out.1 += 1;
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
        let (m, k) = islip_port(0b11, 0b11, &[0, 0], &[0; 8], 1, 2);
        assert_eq!(&m[..k], &[(0, 0)]);
        // Grant pointers apart: each output VC grants a different input VC and both match.
        let (m, k) = islip_port(0b11, 0b11, &[0, 1], &[0; 8], 1, 2);
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
