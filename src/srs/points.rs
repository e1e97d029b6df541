//! Reading points out of a `.params` section's bytes (uncompressed zcash encoding) into the
//! curve layer's affine form, in parallel. The points of the official files are trusted as the
//! crates trust them (no per-point subgroup check, [`Curve::decode_trusted`]); `check_sample`
//! verifies a spread of points fully.
use rayon::prelude::*;

use crate::ec::{Curve, G1, G2};

/// Bytes of one G1 point in a section.
pub const G1_BYTES: usize = G1::UNCOMPRESSED_BYTES;
/// Bytes of one G2 point in a section.
pub const G2_BYTES: usize = G2::UNCOMPRESSED_BYTES;

/// Points per parallel task: about 384 KiB of encoded points.
fn min_task<C: Curve>() -> usize {
    (1 << 22) / C::UNCOMPRESSED_BYTES
}

/// Decodes the points at `indices` of a section's raw bytes, in parallel.
pub fn gather<C: Curve>(raw: &[u8], indices: &[u32]) -> Vec<C::Affine> {
    let size = C::UNCOMPRESSED_BYTES;
    indices.par_iter().with_min_len(min_task::<C>()).map(|&i| C::decode_trusted(&raw[i as usize * size..])).collect()
}

/// Decodes every point of a section's raw bytes, in parallel.
pub fn all<C: Curve>(raw: &[u8]) -> Vec<C::Affine> {
    raw.par_chunks_exact(C::UNCOMPRESSED_BYTES).with_min_len(min_task::<C>()).map(C::decode_trusted).collect()
}

/// Full check (encoding, on the curve, in the subgroup) of every `stride`-th point, in
/// parallel; returns the first bad index.
pub fn check_sample<C: Curve>(raw: &[u8], stride: usize) -> Option<usize> {
    let size = C::UNCOMPRESSED_BYTES;
    let n = raw.len() / size;
    (0..n)
        .into_par_iter()
        .step_by(stride.max(1))
        .find_first(|&i| C::deserialize_checked(&raw[i * size..(i + 1) * size]).is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use group::{prime::PrimeCurveAffine, Curve as _, Group};

    #[test]
    fn decode_matches_checked_deserialize() {
        let mut rng = rand::thread_rng();
        let mut raw1 = Vec::new();
        let mut raw2 = Vec::new();
        for _ in 0..20 {
            let p1 = blstrs::G1Projective::random(&mut rng).to_affine().to_uncompressed();
            assert_eq!(Some(G1::decode_trusted(&p1)), G1::deserialize_checked(&p1));
            let p2 = blstrs::G2Projective::random(&mut rng).to_affine().to_uncompressed();
            assert_eq!(Some(G2::decode_trusted(&p2)), G2::deserialize_checked(&p2));
            raw1.extend_from_slice(&p1);
            raw2.extend_from_slice(&p2);
        }
        let inf = blstrs::G1Affine::identity().to_uncompressed();
        assert_eq!(G1::decode_trusted(&inf), Default::default());
        assert_eq!(gather::<G1>(&raw1, &[3, 1])[1], all::<G1>(&raw1)[1]);
        assert_eq!(gather::<G2>(&raw2, &[7])[0], all::<G2>(&raw2)[7]);
        assert_eq!(check_sample::<G1>(&raw1, 1), None);
        assert_eq!(check_sample::<G2>(&raw2, 3), None);
        // A point off the curve (last byte of y changed) is found, on the stride only.
        raw1[5 * G1_BYTES + G1_BYTES - 1] ^= 1;
        raw2[6 * G2_BYTES + G2_BYTES - 1] ^= 1;
        assert_eq!(check_sample::<G1>(&raw1, 1), Some(5));
        assert_eq!(check_sample::<G1>(&raw1, 2), None);
        assert_eq!(check_sample::<G2>(&raw2, 3), Some(6));
    }
}
