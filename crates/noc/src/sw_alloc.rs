//! Switch allocators, chosen by name from a table.
//!
//! A switch allocator decides which of the input VCs bidding for the switch in a cycle cross it: at most one per
//! input port and one per output port. It sees the bidding VCs of one router (bits by local index
//! `port * vcs + vc`), the output port each bids for, and the router's pointers (`SwRouter`); it returns the
//! winners and moves its pointers; the router moves the winners' flits and lets the others bid again next cycle.
//! When a single VC bids, it wins whatever the allocator, and `lone_winner` moves the pointers as the allocator
//! would have (the router's shortcut for that case, see `router`).
//!
//! Adding an allocator is one file here, one variant of [`SwAllocator`] and one row in [`SW_ALLOCATORS`].

mod input_first;
mod islip;
mod output_first;
mod wavefront;

use crate::config::SwAllocator;
use crate::network::{wrap, InputVc};
use crate::router::MAX_PORTS;

/// What switch allocation of one router reads, and the pointers it moves.
pub(crate) struct SwRouter<'a> {
    pub ports: usize,
    pub vcs: usize,
    /// The router's input VCs (`ports * vcs`); a bidding VC's output port is its `out_port`.
    pub ivc: &'a [InputVc],
    /// The input port of each local VC index.
    pub port_of_bit: &'a [u8; 64],
    /// Per input port: the VC served first next time.
    pub in_ptr: &'a mut [u8],
    /// Per output port: the input port granted first next time.
    pub out_ptr: &'a mut [u8],
    /// Per input port: the output port accepted first next time (iSLIP).
    pub accept_ptr: &'a mut [u8],
    /// iSLIP: iterations (`allocator_iterations`).
    pub iterations: u32,
    /// Speculative bids (bits by local index): an input port prefers any other bidding VC to them when it picks
    /// the VC it bids with (for an output, or at all); at the outputs they compete as equals.
    pub speculative: u64,
    /// Wavefront: the router's priority diagonal.
    pub wavefront_pri: &'a mut u8,
}

/// The VCs that cross the switch: (input port, VC), in the order found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SwWinners {
    pub list: [(u8, u8); MAX_PORTS],
    pub len: usize,
}

impl SwWinners {
    #[inline(always)]
    pub fn push(&mut self, port: usize, vc: usize) {
        self.list[self.len] = (port as u8, vc as u8);
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[(u8, u8)] {
        &self.list[..self.len]
    }
}

// A switch allocator is `fn(requests: u64, st: SwRouter) -> SwWinners`: the winners among the bidding VCs
// `requests` (bits by local index), moving the pointers.

/// One row per switch allocator: its name (command line and chip files), variant, and the BookSim2 setting it
/// corresponds to.
pub struct SwAllocatorRow {
    pub name: &'static str,
    pub allocator: SwAllocator,
    pub booksim: &'static str,
    /// The allocator name a BookSim2 configuration file uses for it (`sw_allocator = ...`), read by
    /// [`crate::booksim`].
    pub booksim_name: Option<&'static str>,
    /// With one VC per port it is the round-robin choice of one input per output that the router's one-VC path
    /// makes, so that path may stand in for it.
    pub one_vc_round_robin: bool,
}

/// Every switch allocator.
pub const SW_ALLOCATORS: &[SwAllocatorRow] = &[
    SwAllocatorRow {
        name: "input-first",
        allocator: SwAllocator::InputFirst,
        booksim: "sw_allocator = separable_input_first",
        booksim_name: Some("separable_input_first"),
        one_vc_round_robin: true,
    },
    SwAllocatorRow {
        name: "islip",
        allocator: SwAllocator::Islip,
        booksim: "sw_allocator = islip(N), N = allocator_iterations",
        booksim_name: Some("islip"),
        one_vc_round_robin: true,
    },
    SwAllocatorRow {
        name: "output-first",
        allocator: SwAllocator::OutputFirst,
        booksim: "sw_allocator = separable_output_first",
        booksim_name: Some("separable_output_first"),
        one_vc_round_robin: true,
    },
    SwAllocatorRow {
        name: "wavefront",
        allocator: SwAllocator::Wavefront,
        booksim: "sw_allocator = wavefront",
        booksim_name: Some("wavefront"),
        one_vc_round_robin: false,
    },
];

crate::named::named_by_table!(SwAllocator, SwAllocatorRow, SW_ALLOCATORS, allocator, "switch allocator", pub(crate));

/// The bidding VCs `bits` (of one input port, bit per VC) an input picks from: the non-speculative ones if any.
#[inline(always)]
pub(crate) fn preferred(bits: u64, speculative: u64) -> u64 {
    let sure = bits & !speculative;
    if sure != 0 {
        sure
    } else {
        bits
    }
}

/// Port-level requests of a router's bids, for the allocators that match input ports with output ports (`islip`,
/// `wavefront`): each input port asks for every output port one of its VCs bids for, and per (input, output) pair
/// the VC that would cross is the one at or after the input's VC pointer (non-speculative ones first), as BookSim2
/// keeps one label per pair.
pub(crate) struct PortRequests {
    /// Per (input, output): the VC of the input that asks for the output.
    pub label: [[u8; MAX_PORTS]; MAX_PORTS],
    /// Per input: the outputs it asks for.
    pub in_req: [u64; MAX_PORTS],
    /// Per output: the inputs asking for it.
    pub out_req: [u64; MAX_PORTS],
    /// The outputs anyone asks for.
    pub out_ports: u64,
}

#[inline(always)]
pub(crate) fn port_requests(requests: u64, st: &SwRouter<'_>) -> PortRequests {
    let vcs = st.vcs;
    let vc_mask = (1u64 << vcs) - 1;
    let mut r = PortRequests { label: [[0u8; MAX_PORTS]; MAX_PORTS], in_req: [0; MAX_PORTS], out_req: [0; MAX_PORTS], out_ports: 0 };
    let mut req = requests;
    while req != 0 {
        let p = st.port_of_bit[req.trailing_zeros() as usize] as usize;
        let mut bits = (req >> (p * vcs)) & vc_mask;
        req &= !(vc_mask << (p * vcs));
        let start = u32::from(st.in_ptr[p]);
        // Non-speculative VCs label their pairs first.
        let spec = st.speculative >> (p * vcs) & vc_mask;
        while bits != 0 {
            let v = crate::router::round_robin_pick(preferred(bits, spec), start) as usize;
            bits &= !(1 << v);
            let o = st.ivc[p * vcs + v].out_port as usize;
            if r.in_req[p] & (1 << o) == 0 {
                r.in_req[p] |= 1 << o;
                r.label[p][o] = v as u8;
                r.out_req[o] |= 1 << p;
                r.out_ports |= 1 << o;
            }
        }
    }
    r
}

/// Runs `choice`'s allocator. The match lets the compiler inline it into the router's loop (a call through a
/// function pointer cost up to 8% of a multi-VC simulation); being exhaustive, it cannot miss a new variant.
#[inline(always)]
pub(crate) fn allocate(choice: SwAllocator, requests: u64, st: SwRouter<'_>) -> SwWinners {
    match choice {
        SwAllocator::InputFirst => input_first::allocate(requests, st),
        SwAllocator::Islip => islip::allocate(requests, st),
        SwAllocator::OutputFirst => output_first::allocate(requests, st),
        SwAllocator::Wavefront => wavefront::allocate(requests, st),
    }
}

/// The pointers a lone winner may move: its input port's VC pointer and accept pointer, its output port's grant
/// pointer, and the router's wavefront diagonal.
pub(crate) struct LonePointers<'a> {
    pub ports: usize,
    pub vcs: usize,
    pub in_ptr: &'a mut u8,
    pub out_ptr: &'a mut u8,
    pub accept_ptr: &'a mut u8,
    pub wavefront_pri: &'a mut u8,
}

/// What `choice` does to the pointers when VC `v` of input port `p`, bidding for output port `o`, is the only
/// bidder and wins.
#[inline(always)]
pub(crate) fn lone_winner(choice: SwAllocator, p: usize, v: usize, o: usize, st: LonePointers<'_>) {
    match choice {
        SwAllocator::InputFirst | SwAllocator::Islip | SwAllocator::OutputFirst => every_pointer_past(p, v, o, st),
        SwAllocator::Wavefront => wavefront::lone_winner(p, v, o, st),
    }
}

/// A lone winner moves every pointer past itself: the output's grant pointer past its input, the input's VC
/// pointer past its VC and the input's accept pointer past its output (the allocators that do not use a pointer
/// never read it).
#[inline(always)]
pub(crate) fn every_pointer_past(p: usize, v: usize, o: usize, st: LonePointers<'_>) {
    *st.out_ptr = wrap(p + 1, st.ports) as u8;
    *st.in_ptr = wrap(v + 1, st.vcs) as u8;
    *st.accept_ptr = wrap(o + 1, st.ports) as u8;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{Flit, VcState};

    /// The winners of `allocator` with `iterations` among bidding VCs given as (input port, VC, output port) on a
    /// router of `ports` ports and 2 VCs, every pointer at 0; and the wavefront diagonal afterwards.
    fn winners(allocator: SwAllocator, iterations: u32, ports: usize, bids: &[(usize, usize, u8)]) -> (Vec<(u8, u8)>, u8) {
        winners_with(allocator, iterations, ports, bids, 0)
    }

    /// [`winners`] with speculative bids `speculative` (bits by local index `port * 2 + vc`).
    fn winners_with(allocator: SwAllocator, iterations: u32, ports: usize, bids: &[(usize, usize, u8)], speculative: u64) -> (Vec<(u8, u8)>, u8) {
        let vcs = 2;
        let vc = InputVc {
            head: 0,
            len: 1,
            state: VcState::Active,
            out_port: 0,
            out_vc: 0,
            waiting_credit: false,
            ready_at: 0,
            due_at: 0,
            front: Flit::default(),
        };
        let mut ivc = vec![vc; ports * vcs];
        let mut requests = 0u64;
        for &(p, v, o) in bids {
            ivc[p * vcs + v].out_port = o;
            requests |= 1 << (p * vcs + v);
        }
        let mut port_of_bit = [0u8; 64];
        for (bit, port) in port_of_bit.iter_mut().enumerate().take(ports * vcs) {
            *port = (bit / vcs) as u8;
        }
        let (mut in_ptr, mut out_ptr, mut accept_ptr, mut pri) = (vec![0; ports], vec![0; ports], vec![0; ports], 0);
        let st = SwRouter {
            ports,
            vcs,
            ivc: &ivc,
            port_of_bit: &port_of_bit,
            in_ptr: &mut in_ptr,
            out_ptr: &mut out_ptr,
            accept_ptr: &mut accept_ptr,
            iterations,
            speculative,
            wavefront_pri: &mut pri,
        };
        let won = allocate(allocator, requests, st);
        (won.as_slice().to_vec(), pri)
    }

    #[test]
    fn allocators_differ_where_inputs_ask_for_two_outputs() {
        // Inputs 0 and 1 each bid for output 0 (VC 0) and output 1 (VC 1) of a 3-port router.
        let bids = [(0, 0, 0), (0, 1, 1), (1, 0, 0), (1, 1, 1)];
        // Input-first: both inputs choose VC 0, output 0 takes input 0, output 1 stays idle.
        assert_eq!(winners(SwAllocator::InputFirst, 1, 3, &bids).0, [(0, 0)]);
        // One iteration of iSLIP, and output-first: both outputs grant input 0, which accepts output 0.
        assert_eq!(winners(SwAllocator::Islip, 1, 3, &bids).0, [(0, 0)]);
        assert_eq!(winners(SwAllocator::OutputFirst, 1, 3, &bids).0, [(0, 0)]);
        assert_eq!(winners(SwAllocator::OutputFirst, 3, 3, &bids).0, [(0, 0)], "output-first has no iterations");
        // A second iSLIP iteration: output 1 grants input 1.
        assert_eq!(winners(SwAllocator::Islip, 2, 3, &bids).0, [(0, 0), (1, 1)]);
        // Wavefront from diagonal 0: (0, 0) on diagonal 0, then (1, 1) on diagonal 2; the diagonal moves to 1.
        assert_eq!(winners(SwAllocator::Wavefront, 1, 3, &bids), (vec![(0, 0), (1, 1)], 1));
    }

    #[test]
    fn wavefront_serves_by_diagonal_not_by_output_pointer() {
        // Inputs 1 and 2 bid for output 0. Round-robin from pointer 0 takes input 1; the wavefront's diagonal 0
        // holds (0, 0), diagonal 1 (1, 0), diagonal 2 (2, 0): it also takes input 1, but from diagonal 1 input 2.
        let bids = [(1, 0, 0), (2, 0, 0)];
        assert_eq!(winners(SwAllocator::InputFirst, 1, 3, &bids).0, [(1, 0)]);
        assert_eq!(winners(SwAllocator::Wavefront, 1, 3, &bids).0, [(1, 0)]);
        // Inputs 0 and 2 bid for output 1: diagonal 0 holds (2, 1), so the wavefront takes input 2 where the
        // round-robin output pointer (at 0) takes input 0.
        let bids = [(0, 0, 1), (2, 0, 1)];
        assert_eq!(winners(SwAllocator::InputFirst, 1, 3, &bids).0, [(0, 0)]);
        assert_eq!(winners(SwAllocator::Wavefront, 1, 3, &bids).0, [(2, 0)]);
    }

    #[test]
    fn an_input_prefers_a_non_speculative_vc() {
        // Input 0's VCs 0 and 1 both bid for output 1; VC 0 (nearest the pointer) is speculative, so every
        // allocator sends VC 1. Without speculation VC 0 goes.
        let bids = [(0, 0, 1), (0, 1, 1)];
        for allocator in [SwAllocator::InputFirst, SwAllocator::Islip, SwAllocator::OutputFirst, SwAllocator::Wavefront] {
            assert_eq!(winners_with(allocator, 1, 3, &bids, 0b01).0, [(0, 1)], "{allocator}");
            assert_eq!(winners_with(allocator, 1, 3, &bids, 0).0, [(0, 0)], "{allocator}");
        }
        // At the outputs speculative bids compete as equals: input 0's speculative bid for output 0 wins over
        // input 1's non-speculative one by output 0's pointer.
        assert_eq!(winners_with(SwAllocator::Islip, 1, 3, &[(0, 0, 0), (1, 0, 0)], 0b01).0, [(0, 0)]);
    }

    #[test]
    fn output_first_matches_one_islip_iteration() {
        // Every set of bids on a 3-port, 2-VC router where each VC asks for one of the 3 outputs or none.
        for code in 0..4usize.pow(6) {
            let bids: Vec<_> = (0..6)
                .filter_map(|l| match code / 4usize.pow(l as u32) % 4 {
                    0 => None,
                    o => Some((l / 2, l % 2, (o - 1) as u8)),
                })
                .collect();
            assert_eq!(winners(SwAllocator::OutputFirst, 1, 3, &bids), winners(SwAllocator::Islip, 1, 3, &bids), "{bids:?}");
        }
    }

    #[test]
    fn every_variant_has_one_row_with_a_unique_name() {
        for row in SW_ALLOCATORS {
            assert_eq!(SW_ALLOCATORS.iter().filter(|r| r.name == row.name || r.allocator == row.allocator).count(), 1);
            assert_eq!(row.allocator.row().name, row.name);
        }
    }
}
