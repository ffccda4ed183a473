//! The C (compressed) extension: every 16-bit RV64C encoding expanded to the 32-bit base instruction it stands for.
//! (Being written; see issue 16.)

/// TEMPORARY stand-in (no compressed instruction decodes) until branch issue16-rvc lands.
pub fn expand(parcel: u16) -> Option<u32> {
    let _ = parcel;
    None
}
