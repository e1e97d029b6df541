//! Where the MSM reads its points: decoded affine points (the curve layer's, blst's Montgomery
//! form), or the raw bytes of a `.params` section (the uncompressed zcash encoding, 96 bytes a
//! point), both turned into our [`Affine`] form eight at a time. From raw bytes nothing is
//! decoded beforehand: no blst conversion and no vector of decoded points (for the 2KiB proof's
//! H query, 4M points, that was ~0.4 s and 400 MB). G1 here; G2's conversions sit with its
//! coordinates in [`super::coord`].
use super::curve::{self, Affine, Fe};
use crate::ec::encoding::{is_infinity, strip_flags};
use crate::ec::{Curve, P1Affine, G1};
use crate::field::lanes::{self as field, limbs_from_words, Packed};
use crate::srs::points::G1_BYTES as RAW_BYTES;

/// R² mod p (R = 2^416), plain limbs: multiplying x by it gives x·R, our form.
pub const R2: [u64; 8] = [
    0xa5bf4cb89af51,
    0x3afbba7ca31a2,
    0x2646160ec71f1,
    0xa84d710465903,
    0x3480a4a188311,
    0x98e5907ad91f5,
    0x2075d74507266,
    0x8746,
];

/// The G1 points of one MSM.
#[derive(Clone, Copy)]
pub enum G1Points<'a> {
    /// Affine points, decoded.
    Decoded(&'a [P1Affine]),
    /// Whole uncompressed points, as a `.params` section stores them.
    Raw(&'a [u8]),
}

impl<'a> G1Points<'a> {
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        match self {
            G1Points::Decoded(p) => p.len(),
            G1Points::Raw(r) => r.len() / RAW_BYTES,
        }
    }

    /// Points [a, b).
    pub fn range(&self, a: usize, b: usize) -> G1Points<'a> {
        match self {
            G1Points::Decoded(p) => G1Points::Decoded(&p[a..b]),
            G1Points::Raw(r) => G1Points::Raw(&r[a * RAW_BYTES..b * RAW_BYTES]),
        }
    }

    pub fn is_infinity(&self, i: usize) -> bool {
        match self {
            G1Points::Decoded(p) => G1::affine_is_inf(&p[i]),
            G1Points::Raw(r) => is_infinity(&r[i * RAW_BYTES..]),
        }
    }

    /// Points [i, i + k) (k ≤ 8) in our form, the rest of the eight at infinity.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and IFMA ([`super::super::available`]).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub unsafe fn convert8(&self, i: usize, k: usize) -> [Affine; 8] {
        let (x, y) = match self {
            G1Points::Decoded(p) => {
                let mut g = [P1Affine::default(); 8];
                g[..k].copy_from_slice(&p[i..i + k]);
                curve::from_affine_blst(&g)
            }
            G1Points::Raw(r) => from_raw(&r[i * RAW_BYTES..(i + k) * RAW_BYTES]),
        };
        let (mut xp, mut yp) = (Packed::default(), Packed::default());
        field::store(&mut xp, &x);
        field::store(&mut yp, &y);
        let mut out = [Affine::default(); 8];
        for (l, a) in out.iter_mut().enumerate() {
            a.set(&xp, &yp, l);
        }
        out
    }
}

/// The raw points `at` (≤ 8 indices into a section's bytes) in our form, the rest of the eight
/// at infinity.
///
/// # Safety
/// The CPU must have AVX-512 F and IFMA ([`super::super::available`]).
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn convert8_at(raw: &[u8], at: &[u32]) -> [Affine; 8] {
    let mut bytes = [0u8; 8 * RAW_BYTES];
    for (dst, &i) in bytes.chunks_exact_mut(RAW_BYTES).zip(at) {
        dst.copy_from_slice(&raw[i as usize * RAW_BYTES..(i as usize + 1) * RAW_BYTES]);
    }
    G1Points::Raw(&bytes[..at.len() * RAW_BYTES]).convert8(0, at.len())
}

/// Up to eight raw points (x, y) in our form: the big-endian bytes as limbs (flags cleared as
/// the blst decoding clears them; infinity as 0, which stays 0), then one multiplication by R²
/// each. Like blst's decoding, a coordinate is taken mod p.
#[inline(always)]
unsafe fn from_raw(raw: &[u8]) -> (Fe, Fe) {
    let (mut x, mut y) = (Packed::<8>::default(), Packed::<8>::default());
    let mut b = [0u8; RAW_BYTES];
    for (l, pt) in raw.chunks_exact(RAW_BYTES).enumerate() {
        if !is_infinity(pt) {
            strip_flags(pt, &mut b);
            x.set(l, &limbs_from_be(&b[..48]));
            y.set(l, &limbs_from_be(&b[48..]));
        }
    }
    let r2 = field::splat(&R2);
    (curve::mul(&field::load(&x), &r2), curve::mul(&field::load(&y), &r2))
}

/// 48 big-endian bytes as eight 52-bit limbs.
#[inline(always)]
pub(super) fn limbs_from_be(b: &[u8]) -> [u64; 8] {
    let w: [u64; 6] = std::array::from_fn(|k| u64::from_be_bytes(b[40 - 8 * k..48 - 8 * k].try_into().unwrap()));
    limbs_from_words(&w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::Fp;
    use ff::Field;

    #[test]
    fn r2_is_r_squared() {
        let want = Fp::from(2u64).pow_vartime([832]);
        let words: [u64; 6] =
            std::array::from_fn(|i| u64::from_le_bytes(want.to_bytes_le()[8 * i..8 * i + 8].try_into().unwrap()));
        assert_eq!(limbs_from_words::<6, 8>(&words), R2);
    }
}
