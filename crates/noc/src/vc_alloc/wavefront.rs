//! `wavefront`: a wavefront allocator over the matrix of input VCs and output VCs of the router (BookSim2's
//! `wavefront`). Requests are granted diagonal by diagonal, starting at the router's priority diagonal: diagonal
//! `d` holds the pairs (input `i`, output `j`, both local indices `port * vcs + vc`) with
//! `(i + j) mod n = (pri + d) mod n`, `n` the router's VCs; a pair is granted when neither its input nor its output
//! is matched yet. The priority diagonal moves by one in each cycle the router has a request (for a free output
//! VC), whatever was granted. With dimension-order routing each input VC requests the free VCs of one port, so
//! ports are allocated one at a time with the same diagonal; each port sets the router's next diagonal to the same
//! value.

use super::{VcMatches, VcPort};

#[inline]
pub(crate) fn allocate(requests: u64, free: u64, st: VcPort<'_>) -> VcMatches {
    let mut out = VcMatches::default();
    if free == 0 || requests == 0 {
        return out;
    }
    let (o, vcs, n) = (st.port, st.vcs, st.inputs);
    let pri = usize::from(st.wavefront_pri);
    let (mut unmatched_in, mut unmatched_out) = (requests, free);
    'diagonals: for d in 0..n {
        let mut f = unmatched_out;
        while f != 0 {
            let ov = f.trailing_zeros() as usize;
            f &= f - 1;
            let j = o * vcs + ov;
            let i = (pri + d + n - j) % n;
            if unmatched_in & (1 << i) != 0 {
                out.push(i, ov);
                unmatched_in &= !(1 << i);
                unmatched_out &= !(1 << ov);
                if unmatched_in == 0 || unmatched_out == 0 {
                    break 'diagonals;
                }
            }
        }
    }
    *st.wavefront_next = ((pri + 1) % n) as u8;
    out
}
