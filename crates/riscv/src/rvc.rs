//! The C (compressed) extension: every 16-bit RV64C encoding expanded to the 32-bit base instruction it stands for.
//! (Being written; see issue 16.)
