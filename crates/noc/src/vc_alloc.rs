//! VC allocators, chosen by name from a table.
//!
//! A VC allocator gives requesting head flits free VCs of the output port they are routed to. Each head asks
//! for exactly one output port (an adaptive head has chosen one before allocation, see `router`), so each port is
//! allocated on its own; a head limited to a class of VCs (torus datelines, Duato's escape VC) is allocated with
//! the others of its class on the class's free VCs only, one allocator run per class:
//! an allocator sees the requesting input VCs of one port (bits by local index `port * vcs + vc` in the router),
//! that port's free output VCs, and the pointers it keeps (`VcPort`); it returns the matches and moves its
//! pointers. The router applies the matches, and the same function answers [`crate::Network`]'s reports on
//! copies of the pointers, so the two cannot disagree. With one VC per port every allocator is the same (the one
//! free VC goes to the requester next in round-robin order), and the router's one-VC path does that itself.
//!
//! Adding an allocator is one file here, one variant of [`VcAllocator`] and one row in [`VC_ALLOCATORS`].

mod islip;
mod lowest;
mod output_first;
mod round_robin;
mod wavefront;

use crate::config::{VcAllocator, MAX_VCS};
use crate::router::round_robin_pick;

/// The pointers VC allocation of one output port reads and moves.
pub(crate) struct VcPort<'a> {
    /// The output port allocated.
    pub port: usize,
    /// VCs per port.
    pub vcs: usize,
    /// Input VCs of the router (`ports * vcs`).
    pub inputs: usize,
    /// Separable allocators: the requester (input VC) served first next time.
    pub requester_ptr: &'a mut u8,
    /// Separable allocators that rotate over output VCs: the output VC handed out first next time.
    pub out_vc_ptr: &'a mut u8,
    /// Per output VC of the port: the requester it grants first next time.
    pub grant_ptr: &'a mut [u8],
    /// Per input VC of the router: the output VC (`port * vcs + vc`) it accepts first next time.
    pub accept_ptr: &'a mut [u8],
    /// iSLIP: iterations (`allocator_iterations`).
    pub iterations: u32,
    /// Wavefront: the router's priority diagonal in this cycle, and where its value for the next cycle goes.
    pub wavefront_pri: u8,
    pub wavefront_next: &'a mut u8,
}

/// Up to one match per output VC of a port: (input VC by local index, output VC of the port), in the order made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct VcMatches {
    pub pairs: [(u8, u8); MAX_VCS as usize],
    pub len: usize,
}

impl VcMatches {
    #[inline(always)]
    pub fn push(&mut self, input: usize, out_vc: usize) {
        self.pairs[self.len] = (input as u8, out_vc as u8);
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[(u8, u8)] {
        &self.pairs[..self.len]
    }
}

/// A VC allocator: the matches between `requests` (input VCs, bits by local index) and `free` (output VCs of the
/// port, bits by VC), moving the port's pointers.
pub(crate) type VcAllocFn = fn(requests: u64, free: u64, st: VcPort<'_>) -> VcMatches;

/// One row per VC allocator: its name (command line and chip files), variant, and the BookSim2 setting it
/// corresponds to.
pub struct VcAllocatorRow {
    pub name: &'static str,
    pub allocator: VcAllocator,
    pub booksim: &'static str,
    /// The allocator name a BookSim2 configuration file uses for it (`vc_allocator = ...`), read by
    /// [`crate::booksim`].
    pub booksim_name: Option<&'static str>,
    /// With one VC per port it allocates as the router's one-VC path does (the free VC to the next requester in
    /// round-robin order), so that path may stand in for it.
    pub one_vc_round_robin: bool,
}

/// Every VC allocator.
pub const VC_ALLOCATORS: &[VcAllocatorRow] = &[
    VcAllocatorRow { name: "lowest", allocator: VcAllocator::Lowest, booksim: "none (nocmsg before issue 15)", booksim_name: None, one_vc_round_robin: true },
    VcAllocatorRow { name: "round-robin", allocator: VcAllocator::RoundRobin, booksim: "none", booksim_name: None, one_vc_round_robin: true },
    VcAllocatorRow { name: "islip", allocator: VcAllocator::Islip, booksim: "vc_allocator = islip(N), N = allocator_iterations", booksim_name: Some("islip"), one_vc_round_robin: true },
    VcAllocatorRow { name: "output-first", allocator: VcAllocator::OutputFirst, booksim: "vc_allocator = separable_output_first", booksim_name: Some("separable_output_first"), one_vc_round_robin: true },
    VcAllocatorRow { name: "wavefront", allocator: VcAllocator::Wavefront, booksim: "vc_allocator = wavefront", booksim_name: Some("wavefront"), one_vc_round_robin: false },
];

crate::named::named_by_table!(VcAllocator, VcAllocatorRow, VC_ALLOCATORS, allocator, "VC allocator", pub(crate));

impl VcAllocator {
    /// This allocator's function (for tests and reports; the router calls [`allocate`]).
    pub(crate) fn function(self) -> VcAllocFn {
        match self {
            VcAllocator::Lowest => lowest::allocate,
            VcAllocator::RoundRobin => round_robin::allocate,
            VcAllocator::Islip => islip::allocate,
            VcAllocator::OutputFirst => output_first::allocate,
            VcAllocator::Wavefront => wavefront::allocate,
        }
    }
}

/// Runs `choice`'s allocator. The match lets the compiler inline it into the router's loop (a call through a
/// function pointer cost up to 8% of a multi-VC simulation); being exhaustive, it cannot miss a new variant.
#[inline(always)]
pub(crate) fn allocate(choice: VcAllocator, requests: u64, free: u64, st: VcPort<'_>) -> VcMatches {
    match choice {
        VcAllocator::Lowest => lowest::allocate(requests, free, st),
        VcAllocator::RoundRobin => round_robin::allocate(requests, free, st),
        VcAllocator::Islip => islip::allocate(requests, free, st),
        VcAllocator::OutputFirst => output_first::allocate(requests, free, st),
        VcAllocator::Wavefront => wavefront::allocate(requests, free, st),
    }
}

/// Separable allocation with round-robin requesters: requesters in round-robin order from the port's requester
/// pointer each take the free VC `choose` picks; the pointer moves past the last requester served.
#[inline(always)]
pub(crate) fn separable(mut requests: u64, mut free: u64, st: VcPort<'_>, mut choose: impl FnMut(u64, &mut u8) -> usize) -> VcMatches {
    let mut out = VcMatches::default();
    let start = u32::from(*st.requester_ptr);
    let mut last = None;
    while free != 0 && requests != 0 {
        let pick = round_robin_pick(requests, start) as usize;
        requests &= !(1 << pick);
        let ov = choose(free, st.out_vc_ptr);
        free &= !(1 << ov);
        out.push(pick, ov);
        last = Some(pick);
    }
    if let Some(pick) = last {
        *st.requester_ptr = crate::network::wrap(pick + 1, st.inputs) as u8;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The matches of `allocator` on output port 1 of a router with 2 ports of 2 VCs (input VCs 0..4, the port's
    /// output VCs 2 and 3), every pointer at 0 and the wavefront diagonal at `pri`; and the next diagonal.
    fn matches(allocator: VcAllocator, iterations: u32, requests: u64, free: u64, pri: u8) -> (Vec<(u8, u8)>, u8) {
        let (mut requester, mut out_vc, mut grant, mut accept, mut next) = (0, 0, [0u8; 2], [0u8; 4], pri);
        let st = VcPort {
            port: 1,
            vcs: 2,
            inputs: 4,
            requester_ptr: &mut requester,
            out_vc_ptr: &mut out_vc,
            grant_ptr: &mut grant,
            accept_ptr: &mut accept,
            iterations,
            wavefront_pri: pri,
            wavefront_next: &mut next,
        };
        ((allocator.function())(requests, free, st).as_slice().to_vec(), next)
    }

    #[test]
    fn allocators_differ_on_two_requesters_and_two_free_vcs() {
        // Input VCs 0 and 1 ask for port 1, both of its VCs free.
        assert_eq!(matches(VcAllocator::Lowest, 1, 0b11, 0b11, 0).0, [(0, 0), (1, 1)]);
        // iSLIP with all pointers at 0: both output VCs grant input VC 0; one match. Output-first alike.
        assert_eq!(matches(VcAllocator::Islip, 1, 0b11, 0b11, 0).0, [(0, 0)]);
        assert_eq!(matches(VcAllocator::OutputFirst, 1, 0b11, 0b11, 0).0, [(0, 0)]);
        assert_eq!(matches(VcAllocator::Islip, 2, 0b11, 0b11, 0).0, [(0, 0), (1, 1)], "a second iteration");
        // Wavefront from diagonal 0 (pairs with (input + output) mod 4 = 0): output VC 3 with input VC 1 first,
        // then output VC 2 with input VC 0 on diagonal 2. The diagonal moves to 1.
        assert_eq!(matches(VcAllocator::Wavefront, 1, 0b11, 0b11, 0), (vec![(1, 1), (0, 0)], 1));
    }

    #[test]
    fn wavefront_hands_out_the_vc_on_the_first_diagonal() {
        // Input VC 0 alone: `lowest` gives VC 0 (output 2); the wavefront from diagonal 0 finds (0, 3) on diagonal 3
        // and (0, 2) on diagonal 2, so VC 0; from diagonal 3 it takes VC 1 (output 3).
        assert_eq!(matches(VcAllocator::Lowest, 1, 0b1, 0b11, 0).0, [(0, 0)]);
        assert_eq!(matches(VcAllocator::Wavefront, 1, 0b1, 0b11, 0), (vec![(0, 0)], 1));
        assert_eq!(matches(VcAllocator::Wavefront, 1, 0b1, 0b11, 3), (vec![(0, 1)], 0));
        // No free VC: no request reaches the allocator, and the diagonal stays.
        assert_eq!(matches(VcAllocator::Wavefront, 1, 0b1, 0, 3), (vec![], 3));
    }

    #[test]
    fn every_variant_has_one_row_with_a_unique_name() {
        for row in VC_ALLOCATORS {
            assert_eq!(VC_ALLOCATORS.iter().filter(|r| r.name == row.name || r.allocator == row.allocator).count(), 1);
            assert_eq!(row.allocator.row().name, row.name);
        }
    }
}
