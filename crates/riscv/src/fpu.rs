//! IEEE 754 arithmetic of the F and D extensions on bit patterns, with RISC-V's rounding modes, accrued exception
//! flags and canonical NaN. (Being written; see issue 16.)
