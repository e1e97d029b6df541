//! Decoding uncompressed BLS12-381 points (zcash encoding, big-endian) into blst's affine
//! Montgomery form, in parallel. The points of the official files are trusted as the crates
//! trust them (no per-point subgroup check); `check_sample` verifies a spread of points fully.
use blst::{blst_fp, blst_fp_from_bendian, blst_p1_affine, blst_p2_affine};
use rayon::prelude::*;

pub const G1_BYTES: usize = 96;
pub const G2_BYTES: usize = 192;

#[inline]
fn fp(bytes: &[u8]) -> blst_fp {
    let mut out = blst_fp::default();
    let mut be = [0u8; 48];
    be.copy_from_slice(&bytes[..48]);
    unsafe { blst_fp_from_bendian(&mut out, be.as_ptr()) };
    out
}

/// Flags in the first byte: 0x80 compressed (must be clear here), 0x40 infinity.
#[inline]
pub(crate) fn is_infinity(bytes: &[u8]) -> bool {
    bytes[0] & 0x40 != 0
}

#[inline]
pub(crate) fn strip_flags(bytes: &[u8], out: &mut [u8]) {
    out.copy_from_slice(bytes);
    out[0] &= 0x1f;
}

pub fn decode_g1(bytes: &[u8]) -> blst_p1_affine {
    if is_infinity(bytes) {
        return blst_p1_affine::default();
    }
    let mut b = [0u8; G1_BYTES];
    strip_flags(&bytes[..G1_BYTES], &mut b);
    blst_p1_affine { x: fp(&b[0..48]), y: fp(&b[48..96]) }
}

pub fn decode_g2(bytes: &[u8]) -> blst_p2_affine {
    if is_infinity(bytes) {
        return blst_p2_affine::default();
    }
    let mut b = [0u8; G2_BYTES];
    strip_flags(&bytes[..G2_BYTES], &mut b);
    let mut p = blst_p2_affine::default();
    p.x.fp = [fp(&b[48..96]), fp(&b[0..48])];
    p.y.fp = [fp(&b[144..192]), fp(&b[96..144])];
    p
}

/// Decodes the points at `indices` of a section's raw bytes, in parallel.
pub fn gather_g1(raw: &[u8], indices: &[u32]) -> Vec<blst_p1_affine> {
    indices.par_iter().with_min_len(4096).map(|&i| decode_g1(&raw[i as usize * G1_BYTES..])).collect()
}

pub fn gather_g2(raw: &[u8], indices: &[u32]) -> Vec<blst_p2_affine> {
    indices.par_iter().with_min_len(2048).map(|&i| decode_g2(&raw[i as usize * G2_BYTES..])).collect()
}

/// Decodes every point of a section's raw bytes, in parallel.
pub fn all_g1(raw: &[u8]) -> Vec<blst_p1_affine> {
    raw.par_chunks_exact(G1_BYTES).with_min_len(4096).map(decode_g1).collect()
}

/// Full check (on curve, in the subgroup) of every `stride`-th point, in parallel; returns the first
/// bad index.
pub fn check_sample_g1(raw: &[u8], stride: usize) -> Option<usize> {
    let n = raw.len() / G1_BYTES;
    (0..n).into_par_iter().step_by(stride.max(1)).find_first(|&i| {
        let mut p = blst_p1_affine::default();
        let ok = unsafe { blst::blst_p1_deserialize(&mut p, raw[i * G1_BYTES..].as_ptr()) }
            == blst::BLST_ERROR::BLST_SUCCESS;
        !(ok && unsafe { blst::blst_p1_affine_in_g1(&p) })
    })
}

pub fn check_sample_g2(raw: &[u8], stride: usize) -> Option<usize> {
    let n = raw.len() / G2_BYTES;
    (0..n).into_par_iter().step_by(stride.max(1)).find_first(|&i| {
        let mut p = blst_p2_affine::default();
        let ok = unsafe { blst::blst_p2_deserialize(&mut p, raw[i * G2_BYTES..].as_ptr()) }
            == blst::BLST_ERROR::BLST_SUCCESS;
        !(ok && unsafe { blst::blst_p2_affine_in_g2(&p) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use group::{prime::PrimeCurveAffine, Curve, Group};

    #[test]
    fn decode_matches_blst_deserialize() {
        let mut rng = rand::thread_rng();
        for _ in 0..20 {
            let p1 = blstrs::G1Projective::random(&mut rng).to_affine();
            let mut want = blst_p1_affine::default();
            unsafe { blst::blst_p1_deserialize(&mut want, p1.to_uncompressed().as_ptr()) };
            assert_eq!(decode_g1(&p1.to_uncompressed()), want);
            let p2 = blstrs::G2Projective::random(&mut rng).to_affine();
            let mut want2 = blst_p2_affine::default();
            unsafe { blst::blst_p2_deserialize(&mut want2, p2.to_uncompressed().as_ptr()) };
            assert_eq!(decode_g2(&p2.to_uncompressed()), want2);
        }
        let inf = blstrs::G1Affine::identity().to_uncompressed();
        assert_eq!(decode_g1(&inf), blst_p1_affine::default());
    }
}
