//! Switch allocators, chosen by name from a table.
//!
//! A switch allocator decides which of the input VCs bidding for the switch in a cycle cross it: at most one per
//! crossbar input and one per crossbar output. Without speedup a crossbar input is an input port and a crossbar
//! output an output port; with `input_speedup` s the VCs of an input port are interleaved over s crossbar inputs,
//! and with `output_speedup` s an output port has s crossbar outputs, input port `p` using output `p mod s` (as
//! BookSim2 expands its allocators' ports; see [`Crossbar`]). An allocator sees the bidding VCs of one router (bits
//! by local index `port * vcs + vc`), the output port each bids for, and the router's pointers (`SwRouter`); it
//! returns the winners and moves its pointers; the router moves the winners' flits and lets the others bid again
//! next cycle. When a single VC bids, it wins whatever the allocator, and `lone_winner` moves the pointers as the
//! allocator would have (the router's shortcut for that case, see `router`).
//!
//! Adding an allocator is one file here, one variant of [`SwAllocator`] and one row in [`SW_ALLOCATORS`].

mod input_first;
mod islip;
mod output_first;
mod wavefront;

use crate::config::{SwAllocator, MAX_CROSSBAR_PORTS};
use crate::network::{wrap, InputVc};

/// Crossbar ports per side at most.
pub(crate) const MAX_XBAR: usize = MAX_CROSSBAR_PORTS as usize;
/// Crossbar ports per side of a router without speedup at most: the allocators' scratch arrays are this long then
/// (each allocator is compiled for both sizes; the larger arrays cost 4% of a multi-VC simulation's instructions).
pub(crate) const SMALL_XBAR: usize = 8;

/// How a router's ports map onto its crossbar, fixed per network.
#[derive(Clone, Debug)]
pub(crate) struct Crossbar {
    pub in_speedup: usize,
    pub out_speedup: usize,
    /// Crossbar inputs (`ports * in_speedup`) and outputs (`ports * out_speedup`).
    pub inputs: usize,
    pub outputs: usize,
    /// The crossbar input of each local VC bit: `port * in_speedup + vc mod in_speedup`.
    pub input_of_bit: [u8; 64],
    /// The local VC bits of each crossbar input.
    pub bits_of_input: [u64; MAX_XBAR],
    /// The input port of each crossbar input.
    pub port_of_input: [u8; MAX_XBAR],
}

impl Crossbar {
    pub(crate) fn new(ports: usize, vcs: usize, in_speedup: usize, out_speedup: usize) -> Crossbar {
        debug_assert!(ports * in_speedup <= MAX_XBAR && ports * out_speedup <= MAX_XBAR && ports * vcs <= 64);
        let mut xbar = Crossbar {
            in_speedup,
            out_speedup,
            inputs: ports * in_speedup,
            outputs: ports * out_speedup,
            input_of_bit: [0; 64],
            bits_of_input: [0; MAX_XBAR],
            port_of_input: [0; MAX_XBAR],
        };
        for l in 0..ports * vcs {
            let x = l / vcs * in_speedup + l % vcs % in_speedup;
            xbar.input_of_bit[l] = x as u8;
            xbar.bits_of_input[x] |= 1 << l;
        }
        for x in 0..xbar.inputs {
            xbar.port_of_input[x] = (x / in_speedup) as u8;
        }
        xbar
    }

    /// The crossbar output by which input port `p` reaches output port `o`.
    #[inline(always)]
    pub(crate) fn output(&self, p: usize, o: usize) -> usize {
        if self.out_speedup == 1 {
            o
        } else {
            o * self.out_speedup + p % self.out_speedup
        }
    }

    /// A crossbar input's VC pointer after its VC `v` crossed: the next VC of the same crossbar input (BookSim2's
    /// `(vc + input_speedup) mod vcs`).
    #[inline(always)]
    pub(crate) fn next_vc(&self, v: usize, vcs: usize) -> u8 {
        let next = v + self.in_speedup;
        (if next < vcs { next } else { next % vcs }) as u8
    }
}

/// What switch allocation of one router reads, and the pointers it moves.
pub(crate) struct SwRouter<'a> {
    pub vcs: usize,
    pub xbar: &'a Crossbar,
    /// The router's input VCs (`ports * vcs`); a bidding VC's output port is its `out_port`.
    pub ivc: &'a [InputVc],
    /// The input port of each local VC index.
    pub port_of_bit: &'a [u8; 64],
    /// Per crossbar input: the VC served first next time.
    pub in_ptr: &'a mut [u8],
    /// Per crossbar output: the crossbar input granted first next time.
    pub out_ptr: &'a mut [u8],
    /// Per crossbar input: the crossbar output accepted first next time (iSLIP).
    pub accept_ptr: &'a mut [u8],
    /// iSLIP: iterations (`allocator_iterations`).
    pub iterations: u32,
    /// Speculative bids (bits by local index): a crossbar input prefers any other bidding VC to them when it picks
    /// the VC it bids with (for an output, or at all); at the outputs they compete as equals.
    pub speculative: u64,
    /// Wavefront: the router's priority diagonal.
    pub wavefront_pri: &'a mut u8,
}

/// The VCs that cross the switch: (input port, VC), in the order found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SwWinners {
    pub list: [(u8, u8); MAX_XBAR],
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

/// Crossbar-level requests of a router's bids, for the allocators that match crossbar inputs with crossbar outputs
/// (`islip`, `wavefront`): each crossbar input asks for every crossbar output one of its VCs bids for, and per
/// (input, output) pair the VC that would cross is the one at or after the input's VC pointer (non-speculative ones
/// first), as BookSim2 keeps one label per pair.
/// `N` is the allocator's scratch size, at least the crossbar's ports per side.
pub(crate) struct PortRequests<const N: usize> {
    /// Per (crossbar input, crossbar output): the VC of the input that asks for the output.
    pub label: [[u8; N]; N],
    /// Per crossbar input: the crossbar outputs it asks for.
    pub in_req: [u64; N],
    /// Per crossbar output: the crossbar inputs asking for it.
    pub out_req: [u64; N],
    /// The crossbar outputs anyone asks for.
    pub out_ports: u64,
}

#[inline(always)]
pub(crate) fn port_requests<const N: usize>(requests: u64, st: &SwRouter<'_>) -> PortRequests<N> {
    let (vcs, xbar) = (st.vcs, st.xbar);
    let vc_mask = (1u64 << vcs) - 1;
    let mut r = PortRequests { label: [[0u8; N]; N], in_req: [0; N], out_req: [0; N], out_ports: 0 };
    let mut req = requests;
    while req != 0 {
        let l = req.trailing_zeros() as usize;
        let (x, p) = (xbar.input_of_bit[l] as usize, st.port_of_bit[l] as usize);
        let mine = req & xbar.bits_of_input[x];
        req &= !mine;
        let mut bits = mine >> (p * vcs);
        let start = u32::from(st.in_ptr[x]);
        // Non-speculative VCs label their pairs first.
        let spec = st.speculative >> (p * vcs) & vc_mask;
        while bits != 0 {
            let v = crate::router::round_robin_pick(preferred(bits, spec), start) as usize;
            bits &= !(1 << v);
            let y = xbar.output(p, st.ivc[p * vcs + v].out_port as usize);
            if r.in_req[x] & (1 << y) == 0 {
                r.in_req[x] |= 1 << y;
                r.label[x][y] = v as u8;
                r.out_req[y] |= 1 << x;
                r.out_ports |= 1 << y;
            }
        }
    }
    r
}

/// Runs `choice`'s allocator. The match lets the compiler inline it into the router's loop (a call through a
/// function pointer cost up to 8% of a multi-VC simulation); being exhaustive, it cannot miss a new variant.
#[inline(always)]
pub(crate) fn allocate(choice: SwAllocator, requests: u64, st: SwRouter<'_>) -> SwWinners {
    if st.xbar.inputs <= SMALL_XBAR && st.xbar.outputs <= SMALL_XBAR {
        match choice {
            SwAllocator::InputFirst => input_first::allocate::<SMALL_XBAR>(requests, st),
            SwAllocator::Islip => islip::allocate::<SMALL_XBAR>(requests, st),
            SwAllocator::OutputFirst => output_first::allocate::<SMALL_XBAR>(requests, st),
            SwAllocator::Wavefront => wavefront::allocate::<SMALL_XBAR>(requests, st),
        }
    } else {
        match choice {
            SwAllocator::InputFirst => input_first::allocate::<MAX_XBAR>(requests, st),
            SwAllocator::Islip => islip::allocate::<MAX_XBAR>(requests, st),
            SwAllocator::OutputFirst => output_first::allocate::<MAX_XBAR>(requests, st),
            SwAllocator::Wavefront => wavefront::allocate::<MAX_XBAR>(requests, st),
        }
    }
}

/// The pointers a lone winner may move: its crossbar input's VC pointer and accept pointer, its crossbar output's
/// grant pointer, and the router's wavefront diagonal.
pub(crate) struct LonePointers<'a> {
    pub xbar: &'a Crossbar,
    pub vcs: usize,
    pub in_ptr: &'a mut u8,
    pub out_ptr: &'a mut u8,
    pub accept_ptr: &'a mut u8,
    pub wavefront_pri: &'a mut u8,
}

/// What `choice` does to the pointers when VC `v` on crossbar input `x`, bidding for crossbar output `y`, is the
/// only bidder and wins.
#[inline(always)]
pub(crate) fn lone_winner(choice: SwAllocator, x: usize, v: usize, y: usize, st: LonePointers<'_>) {
    match choice {
        SwAllocator::InputFirst | SwAllocator::Islip | SwAllocator::OutputFirst => every_pointer_past(x, v, y, st),
        SwAllocator::Wavefront => wavefront::lone_winner(x, v, y, st),
    }
}

/// A lone winner moves every pointer past itself: the output's grant pointer past its input, the input's VC
/// pointer past its VC and the input's accept pointer past its output (the allocators that do not use a pointer
/// never read it).
#[inline(always)]
pub(crate) fn every_pointer_past(x: usize, v: usize, y: usize, st: LonePointers<'_>) {
    *st.out_ptr = wrap(x + 1, st.xbar.inputs) as u8;
    *st.in_ptr = st.xbar.next_vc(v, st.vcs);
    *st.accept_ptr = wrap(y + 1, st.xbar.outputs) as u8;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{Flit, VcState};

    /// The winners of `allocator` with `iterations` among bidding VCs given as (input port, VC, output port) on a
    /// router of `ports` ports and 2 VCs, every pointer at 0; and the wavefront diagonal afterwards.
    fn winners(allocator: SwAllocator, iterations: u32, ports: usize, bids: &[(usize, usize, u8)]) -> (Vec<(u8, u8)>, u8) {
        winners_with(allocator, iterations, ports, bids, 0, (1, 1))
    }

    /// [`winners`] with speculative bids `speculative` (bits by local index `port * 2 + vc`) and (input, output)
    /// speedup `speedup`.
    fn winners_with(allocator: SwAllocator, iterations: u32, ports: usize, bids: &[(usize, usize, u8)], speculative: u64, speedup: (usize, usize)) -> (Vec<(u8, u8)>, u8) {
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
        let xbar = Crossbar::new(ports, vcs, speedup.0, speedup.1);
        let (mut in_ptr, mut out_ptr, mut accept_ptr, mut pri) = (vec![0; xbar.inputs], vec![0; xbar.outputs], vec![0; xbar.inputs], 0);
        let st = SwRouter {
            vcs,
            xbar: &xbar,
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
            assert_eq!(winners_with(allocator, 1, 3, &bids, 0b01, (1, 1)).0, [(0, 1)], "{allocator}");
            assert_eq!(winners_with(allocator, 1, 3, &bids, 0, (1, 1)).0, [(0, 0)], "{allocator}");
        }
        // At the outputs speculative bids compete as equals: input 0's speculative bid for output 0 wins over
        // input 1's non-speculative one by output 0's pointer.
        assert_eq!(winners_with(SwAllocator::Islip, 1, 3, &[(0, 0, 0), (1, 0, 0)], 0b01, (1, 1)).0, [(0, 0)]);
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
    fn input_speedup_lets_two_vcs_of_one_input_cross() {
        // Input 0's VCs 0 and 1 bid for outputs 1 and 2 of a 3-port router. Without speedup one crosses; with input
        // speedup 2 the VCs sit on crossbar inputs 0 and 1 and both cross, whatever the allocator.
        let bids = [(0, 0, 1), (0, 1, 2)];
        for allocator in [SwAllocator::InputFirst, SwAllocator::Islip, SwAllocator::OutputFirst, SwAllocator::Wavefront] {
            assert_eq!(winners_with(allocator, 1, 3, &bids, 0, (1, 1)).0.len(), 1, "{allocator}");
            let mut both = winners_with(allocator, 1, 3, &bids, 0, (2, 1)).0;
            both.sort();
            assert_eq!(both, [(0, 0), (0, 1)], "{allocator}");
        }
        // Both VCs bidding for one output: two crossbar inputs, but one crossbar output, so one crosses.
        assert_eq!(winners_with(SwAllocator::Islip, 1, 3, &[(0, 0, 1), (0, 1, 1)], 0, (2, 1)).0.len(), 1);
    }

    #[test]
    fn output_speedup_lets_two_inputs_reach_one_output() {
        // Inputs 0 and 1 bid for output 2: one wins without speedup; with output speedup 2 they use crossbar outputs
        // 4 and 5 (input port mod 2) and both cross. Inputs 0 and 2 share crossbar output 4 and still exclude each
        // other.
        for allocator in [SwAllocator::InputFirst, SwAllocator::Islip, SwAllocator::OutputFirst, SwAllocator::Wavefront] {
            assert_eq!(winners_with(allocator, 1, 3, &[(0, 0, 2), (1, 0, 2)], 0, (1, 1)).0.len(), 1, "{allocator}");
            assert_eq!(winners_with(allocator, 1, 3, &[(0, 0, 2), (1, 0, 2)], 0, (1, 2)).0.len(), 2, "{allocator}");
            assert_eq!(winners_with(allocator, 1, 3, &[(0, 0, 2), (2, 0, 2)], 0, (1, 2)).0.len(), 1, "{allocator}");
        }
    }

    #[test]
    fn crossbar_interleaves_vcs_and_inputs_as_booksim2() {
        // 5 ports, 4 VCs, input speedup 2: VC v of port p is on crossbar input 2p + v mod 2; the VC pointer steps
        // by 2 within a crossbar input. Output speedup 3: port p reaches output o on crossbar output 3o + p mod 3.
        let xbar = Crossbar::new(5, 4, 2, 3);
        assert_eq!((xbar.inputs, xbar.outputs), (10, 15));
        assert_eq!(xbar.input_of_bit[..8], [0, 1, 0, 1, 2, 3, 2, 3]);
        assert_eq!(xbar.bits_of_input[3], 0b1010_0000);
        assert_eq!(xbar.port_of_input[..4], [0, 0, 1, 1]);
        assert_eq!((xbar.output(4, 2), xbar.output(0, 2)), (7, 6));
        assert_eq!((xbar.next_vc(1, 4), xbar.next_vc(2, 4), xbar.next_vc(3, 4)), (3, 0, 1));
    }

    #[test]
    fn every_variant_has_one_row_with_a_unique_name() {
        for row in SW_ALLOCATORS {
            assert_eq!(SW_ALLOCATORS.iter().filter(|r| r.name == row.name || r.allocator == row.allocator).count(), 1);
            assert_eq!(row.allocator.row().name, row.name);
        }
    }
}
