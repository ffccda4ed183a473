//! Switch allocators, chosen by name from a table.
//!
//! A switch allocator decides which of the input VCs bidding for the switch in a cycle cross it: at most one per
//! input port and one per output port. It sees the bidding VCs of one router (bits by local index
//! `port * vcs + vc`), the output port each bids for, and the router's pointers ([`SwRouter`]); it returns the
//! winners and moves its pointers; the router moves the winners' flits and lets the others bid again next cycle.
//! When a single VC bids, it wins whatever the allocator, and the row's `lone_winner` moves the pointers as the
//! allocator would have (the router's shortcut for that case, see `router`).
//!
//! Adding an allocator is one file here, one variant of [`SwAllocator`] and one row in [`SW_ALLOCATORS`].

mod input_first;
mod islip;

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

/// A switch allocator: the winners among the bidding VCs `requests` (bits by local index), moving the pointers.
pub(crate) type SwAllocFn = fn(requests: u64, st: SwRouter<'_>) -> SwWinners;

/// The pointer moves when VC `v` of input port `p`, bidding for output port `o`, is the only bidder and wins.
pub(crate) type SwLoneFn = fn(p: usize, v: usize, o: usize, st: SwRouter<'_>);

/// One row per switch allocator: its name (command line and chip files), variant, implementation, what a lone
/// winner does to the pointers, and the BookSim2 setting it corresponds to.
pub struct SwAllocatorRow {
    pub name: &'static str,
    pub allocator: SwAllocator,
    pub(crate) function: SwAllocFn,
    pub(crate) lone_winner: SwLoneFn,
    pub booksim: &'static str,
}

/// Every switch allocator.
pub const SW_ALLOCATORS: &[SwAllocatorRow] = &[
    SwAllocatorRow {
        name: "input-first",
        allocator: SwAllocator::InputFirst,
        function: input_first::allocate,
        lone_winner: every_pointer_past,
        booksim: "sw_allocator = separable_input_first",
    },
    SwAllocatorRow {
        name: "islip",
        allocator: SwAllocator::Islip,
        function: islip::allocate,
        lone_winner: every_pointer_past,
        booksim: "sw_allocator = islip, alloc_iters = 1",
    },
];

impl SwAllocator {
    pub(crate) fn row(self) -> &'static SwAllocatorRow {
        SW_ALLOCATORS.iter().find(|row| row.allocator == self).expect("every variant has a table row")
    }
}

/// A lone winner moves every pointer past itself: the output's grant pointer past its input, the input's VC
/// pointer past its VC and the input's accept pointer past its output (the allocators that do not use a pointer
/// never read it).
pub(crate) fn every_pointer_past(p: usize, v: usize, o: usize, st: SwRouter<'_>) {
    st.out_ptr[o] = wrap(p + 1, st.ports) as u8;
    st.in_ptr[p] = wrap(v + 1, st.vcs) as u8;
    st.accept_ptr[p] = wrap(o + 1, st.ports) as u8;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_has_one_row_with_a_unique_name() {
        for row in SW_ALLOCATORS {
            assert_eq!(SW_ALLOCATORS.iter().filter(|r| r.name == row.name || r.allocator == row.allocator).count(), 1);
            assert_eq!(row.allocator.row().name, row.name);
        }
    }
}
