//! `output-first`: separable, output first, with round-robin arbiters (BookSim2's `separable_output_first`). Each
//! input port asks for every output one of its VCs bids for (per pair, the VC at or after the input's pointer);
//! each output picks one requesting input at or after its pointer; each input granted by several outputs picks the
//! one at or after its own pointer; arbiters move past a match only. With such arbiters this is exactly one
//! iteration of iSLIP, in BookSim2 as here (a test holds the two to the same winners); it differs from `islip` with
//! more than one iteration, and from `input-first`, where an input commits to one VC before the outputs choose.

use super::{SwRouter, SwWinners};

#[inline]
pub(crate) fn allocate<const N: usize>(requests: u64, st: SwRouter<'_>) -> SwWinners {
    super::islip::allocate::<N>(requests, SwRouter { iterations: 1, ..st })
}
