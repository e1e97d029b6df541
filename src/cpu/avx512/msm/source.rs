//! Where the MSM reads its points: decoded affine points (the curve layer's, blst's Montgomery
//! form), or the raw bytes of a `.params` section (the uncompressed zcash encoding, 96 bytes a
//! point), both turned into our [`Affine`] form eight at a time. From raw bytes nothing is
//! decoded beforehand: no blst conversion and no vector of decoded points (for the 2KiB proof's
//! H query, 4M points, that was ~0.4 s and 400 MB).
use super::super::field::{self, limbs_from_words, Packed};
use super::super::FP;
use super::coord::{Affine2, Coord, Fe2};
use super::curve::{self, Affine, Fe};
use crate::ec::encoding::{is_infinity, strip_flags};
use crate::ec::{Curve, Fp, Fp2, P1Affine, P2Affine, G1, G2};
use crate::srs::points::{G1_BYTES as RAW_BYTES, G2_BYTES};

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

/// The raw G2 points `at` (≤ 8 indices into a section's bytes; each point x.c1, x.c0, y.c1, y.c0,
/// 48 big-endian bytes apiece) in our form, the rest of the eight at infinity.
///
/// # Safety
/// The CPU must have AVX-512 F and IFMA ([`super::super::available`]).
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn convert8_g2_at(raw: &[u8], at: &[u32]) -> [Affine2; 8] {
    // x.c0, x.c1, y.c0, y.c1 of the eight points.
    let mut c = [Packed::<8>::default(); 4];
    let mut b = [0u8; G2_BYTES];
    for (l, &i) in at.iter().enumerate() {
        let pt = &raw[i as usize * G2_BYTES..(i as usize + 1) * G2_BYTES];
        if !is_infinity(pt) {
            strip_flags(pt, &mut b);
            for (k, from) in [48, 0, 144, 96].into_iter().enumerate() {
                c[k].set(l, &limbs_from_be(&b[from..from + 48]));
            }
        }
    }
    let r2 = field::splat(&R2);
    for v in c.iter_mut() {
        let ours = curve::mul(&field::load(v), &r2);
        field::store(v, &ours);
    }
    let mut out = [Affine2::default(); 8];
    for (l, p) in out.iter_mut().enumerate() {
        Fe2::set(p, &[c[0], c[1]], &[c[2], c[3]], l);
    }
    out
}

/// Up to eight of our G2 affine points in blst's form ((0, 0) stays infinity).
///
/// # Safety
/// The CPU must have AVX-512 F and IFMA ([`super::super::available`]).
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn to_affine_blst_g2(pts: &[Affine2]) -> Vec<P2Affine> {
    let mut c = [Packed::<8>::default(); 4];
    for (l, p) in pts.iter().enumerate() {
        for (k, ck) in c.iter_mut().enumerate() {
            for j in 0..8 {
                ck.0[j][l] = p.0[8 * k + j];
            }
        }
    }
    let mut w = [[[0u64; 6]; 8]; 4];
    for (wk, ck) in w.iter_mut().zip(&c) {
        *wk = field::to_blst::<8, 6>(&FP, &field::load(ck));
    }
    let fp2 = |c0: [u64; 6], c1: [u64; 6]| Fp2 { fp: [Fp { l: c0 }, Fp { l: c1 }] };
    (0..pts.len()).map(|l| G2::affine(fp2(w[0][l], w[1][l]), fp2(w[2][l], w[3][l]))).collect()
}

/// 48 big-endian bytes as eight 52-bit limbs.
#[inline(always)]
fn limbs_from_be(b: &[u8]) -> [u64; 8] {
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
