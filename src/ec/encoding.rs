//! The flag bits of the zcash point encoding (the `.params` files' and blst's): the top three
//! bits of the first byte, above the big-endian x coordinate. 0x80: compressed (never in the
//! uncompressed sections read here), 0x40: the point at infinity (all other bits zero), 0x20: the
//! sign of y (compressed form only).

/// Whether an encoded point says it is the point at infinity.
#[inline]
pub fn is_infinity(bytes: &[u8]) -> bool {
    bytes[0] & 0x40 != 0
}

/// Copies an encoded point into `out` (same length) with its flag bits cleared, leaving the
/// big-endian coordinates.
#[inline]
pub fn strip_flags(bytes: &[u8], out: &mut [u8]) {
    out.copy_from_slice(bytes);
    out[0] &= 0x1f;
}
