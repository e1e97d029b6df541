//! G1 and G2 over blst's point types: one trait, [`Curve`], for everything the prover, the
//! parameter generator and the GPU layout do with points on the host (Jacobian arithmetic,
//! batch conversion to affine, scalar multiplication, Pippenger, the zcash encoding),
//! implemented once per group over blst's C functions, so that no caller needs `unsafe`.
//!
//! Both curves are y² = x³ + b (a = 0): G1 over [`Fp`], G2 over [`Fp2`]. Jacobian points are
//! (X, Y, Z) with x = X/Z², y = Y/Z³ and Z = 0 at infinity; affine points are (x, y) with (0, 0)
//! at infinity, as blst has them.
use blst::{blst_p1, blst_p1_affine, blst_p2, blst_p2_affine, MultiPoint, BLST_ERROR};

use super::encoding::{is_infinity, strip_flags};
use super::field::{Fp, Fp2, MontField};

/// A G1 point in Jacobian coordinates (blst's `blst_p1`).
pub type P1 = blst_p1;
/// A G1 point in affine coordinates (blst's `blst_p1_affine`).
pub type P1Affine = blst_p1_affine;
/// A G2 point in Jacobian coordinates (blst's `blst_p2`).
pub type P2 = blst_p2;
/// A G2 point in affine coordinates (blst's `blst_p2_affine`).
pub type P2Affine = blst_p2_affine;

/// One of the two groups, as blst computes in it.
pub trait Curve: Send + Sync + 'static {
    /// The coordinate field.
    type Base: MontField;
    type Jacobian: Copy + Default + Send + Sync + std::fmt::Debug;
    type Affine: Copy + Default + PartialEq + Send + Sync + std::fmt::Debug;
    /// "G1" or "G2".
    const NAME: &'static str;
    /// Bytes of one uncompressed zcash encoding (x then y, big-endian, flags in the top bits).
    const UNCOMPRESSED_BYTES: usize;
    /// Bytes of one compressed encoding.
    const COMPRESSED_BYTES: usize;

    /// The standard generator (Z = 1).
    fn generator() -> Self::Jacobian;
    fn jacobian(x: Self::Base, y: Self::Base, z: Self::Base) -> Self::Jacobian;
    /// (X, Y, Z).
    fn xyz(p: &Self::Jacobian) -> (Self::Base, Self::Base, Self::Base);
    fn affine(x: Self::Base, y: Self::Base) -> Self::Affine;
    fn x(a: &Self::Affine) -> &Self::Base;
    fn y(a: &Self::Affine) -> &Self::Base;

    fn is_inf(p: &Self::Jacobian) -> bool;
    /// Whether a and b are the same point (whatever their Z).
    fn eq(a: &Self::Jacobian, b: &Self::Jacobian) -> bool;
    fn neg(p: &Self::Jacobian) -> Self::Jacobian;
    /// a + b by the complete formula (doubles where a = b, infinity on either side).
    fn add(a: &Self::Jacobian, b: &Self::Jacobian) -> Self::Jacobian;
    /// a + b for an affine b, complete as [`Curve::add`].
    fn add_affine(a: &Self::Jacobian, b: &Self::Affine) -> Self::Jacobian;
    fn double(a: &Self::Jacobian) -> Self::Jacobian;
    /// k·p for the little-endian integer k of `nbits` bits (⌈nbits/8⌉ bytes of `k_le`).
    fn mult(p: &Self::Jacobian, k_le: &[u8], nbits: usize) -> Self::Jacobian;

    fn from_affine(a: &Self::Affine) -> Self::Jacobian;
    fn to_affine(p: &Self::Jacobian) -> Self::Affine;
    /// `out[i]` = `ps[i]` in affine form, with one inversion for all (no point at infinity).
    fn batch_to_affine(ps: &[Self::Jacobian], out: &mut [Self::Affine]);

    /// Σ points (blst's batched affine addition, on blst's thread pool).
    fn sum(points: &[Self::Affine]) -> Self::Jacobian;
    /// Σ k_i·points[i] by blst's Pippenger on blst's thread pool; the k_i are `nbits` wide,
    /// ⌈nbits/8⌉ little-endian bytes each, one after the other in `scalars`.
    fn msm(points: &[Self::Affine], scalars: &[u8], nbits: usize) -> Self::Jacobian;
    /// [`Curve::msm`] on the calling thread only.
    fn msm_one_thread(points: &[Self::Affine], scalars: &[u8], nbits: usize) -> Self::Jacobian;

    /// The uncompressed encoding, [`Curve::UNCOMPRESSED_BYTES`] into `out`.
    fn serialize(a: &Self::Affine, out: &mut [u8]);
    /// The compressed encoding, [`Curve::COMPRESSED_BYTES`] into `out`.
    fn compress(p: &Self::Jacobian, out: &mut [u8]);
    /// The point of an uncompressed encoding, or None where the bytes are not one of a point of
    /// the group: the compressed flag set (blst alone would decompress), other flags wrong,
    /// coordinates of p or more, off the curve, outside the prime-order subgroup.
    fn deserialize_checked(bytes: &[u8]) -> Option<Self::Affine>;

    /// The point of an uncompressed encoding taken on trust: flags read (infinity) and
    /// cleared, coordinates converted, nothing checked. The parameter files' points are
    /// trusted this way, as filecoin-proofs trusts them.
    #[inline]
    fn decode_trusted(bytes: &[u8]) -> Self::Affine {
        let n = Self::UNCOMPRESSED_BYTES;
        if is_infinity(bytes) {
            return Self::Affine::default();
        }
        let mut b = [0u8; 192];
        strip_flags(&bytes[..n], &mut b[..n]);
        Self::affine(Self::Base::from_be_bytes(&b[..n / 2]), Self::Base::from_be_bytes(&b[n / 2..n]))
    }

    /// −a in affine form ((0, 0) stays infinity: −0 = 0).
    #[inline]
    fn neg_affine(a: &Self::Affine) -> Self::Affine {
        Self::affine(*Self::x(a), Self::y(a).neg())
    }

    /// Whether an affine point is infinity, (0, 0).
    #[inline]
    fn affine_is_inf(a: &Self::Affine) -> bool {
        Self::x(a).is_zero() && Self::y(a).is_zero()
    }

    /// [`Curve::batch_to_affine`] into a new vector.
    fn batch_to_affine_vec(ps: &[Self::Jacobian]) -> Vec<Self::Affine> {
        let mut out = vec![Self::Affine::default(); ps.len()];
        Self::batch_to_affine(ps, &mut out);
        out
    }
}

/// The group G1 over Fp.
pub struct G1;
/// The group G2 over Fp2.
pub struct G2;

/// [`Curve`] for one group over its blst functions (the names differ only in p1/p2).
macro_rules! blst_curve {
    ($g:ident, $name:expr, $base:ident, $jac:ident, $aff:ident, $bytes:expr,
     generator: $gen:ident, is_inf: $is_inf:ident, eq: $eq:ident, cneg: $cneg:ident, add: $add:ident,
     add_affine: $add_aff:ident, double: $dbl:ident, mult: $mult:ident, from_affine: $from_aff:ident,
     to_affine: $to_aff:ident, batch_to_affine: $batch:ident, pippenger: $pip:ident,
     pippenger_scratch: $scratch:ident, serialize: $ser:ident, compress: $comp:ident,
     deserialize: $deser:ident, in_group: $in_group:ident) => {
        impl Curve for $g {
            type Base = $base;
            type Jacobian = $jac;
            type Affine = $aff;
            const NAME: &'static str = $name;
            const UNCOMPRESSED_BYTES: usize = $bytes;
            const COMPRESSED_BYTES: usize = $bytes / 2;

            fn generator() -> $jac {
                // SAFETY: blst returns a pointer to its static generator, valid for the program.
                unsafe { *blst::$gen() }
            }
            #[inline]
            fn jacobian(x: $base, y: $base, z: $base) -> $jac {
                $jac { x, y, z }
            }
            #[inline]
            fn xyz(p: &$jac) -> ($base, $base, $base) {
                (p.x, p.y, p.z)
            }
            #[inline]
            fn affine(x: $base, y: $base) -> $aff {
                $aff { x, y }
            }
            #[inline]
            fn x(a: &$aff) -> &$base {
                &a.x
            }
            #[inline]
            fn y(a: &$aff) -> &$base {
                &a.y
            }
            #[inline]
            fn is_inf(p: &$jac) -> bool {
                // SAFETY: blst reads the point through a valid reference.
                unsafe { blst::$is_inf(p) }
            }
            fn eq(a: &$jac, b: &$jac) -> bool {
                // SAFETY: blst reads both points through valid references.
                unsafe { blst::$eq(a, b) }
            }
            #[inline]
            fn neg(p: &$jac) -> $jac {
                let mut r = *p;
                // SAFETY: blst negates the point in place through a valid reference.
                unsafe { blst::$cneg(&mut r, true) };
                r
            }
            #[inline]
            fn add(a: &$jac, b: &$jac) -> $jac {
                let mut r = <$jac>::default();
                // SAFETY: valid references; blst allows the output to be any of them.
                unsafe { blst::$add(&mut r, a, b) };
                r
            }
            #[inline]
            fn add_affine(a: &$jac, b: &$aff) -> $jac {
                let mut r = <$jac>::default();
                // SAFETY: as in `add`.
                unsafe { blst::$add_aff(&mut r, a, b) };
                r
            }
            #[inline]
            fn double(a: &$jac) -> $jac {
                let mut r = <$jac>::default();
                // SAFETY: as in `add`.
                unsafe { blst::$dbl(&mut r, a) };
                r
            }
            fn mult(p: &$jac, k_le: &[u8], nbits: usize) -> $jac {
                assert!(k_le.len() >= nbits.div_ceil(8), "scalar shorter than its {nbits} bits");
                let mut r = <$jac>::default();
                // SAFETY: blst reads ⌈nbits/8⌉ bytes of the scalar, which are there (asserted).
                unsafe { blst::$mult(&mut r, p, k_le.as_ptr(), nbits) };
                r
            }
            #[inline]
            fn from_affine(a: &$aff) -> $jac {
                let mut r = <$jac>::default();
                // SAFETY: valid references.
                unsafe { blst::$from_aff(&mut r, a) };
                r
            }
            fn to_affine(p: &$jac) -> $aff {
                let mut r = <$aff>::default();
                // SAFETY: valid references.
                unsafe { blst::$to_aff(&mut r, p) };
                r
            }
            fn batch_to_affine(ps: &[$jac], out: &mut [$aff]) {
                assert_eq!(ps.len(), out.len());
                if ps.is_empty() {
                    return;
                }
                // blst takes a null-terminated list of arrays: here one array of ps.len() points.
                let arrays = [ps.as_ptr(), std::ptr::null()];
                // SAFETY: blst reads ps.len() points from the one array and writes as many to out
                // (lengths asserted equal).
                unsafe { blst::$batch(out.as_mut_ptr(), arrays.as_ptr(), ps.len()) };
            }
            fn sum(points: &[$aff]) -> $jac {
                if points.is_empty() {
                    return <$jac>::default();
                }
                points.add()
            }
            fn msm(points: &[$aff], scalars: &[u8], nbits: usize) -> $jac {
                if points.is_empty() {
                    return <$jac>::default();
                }
                points.mult(scalars, nbits)
            }
            fn msm_one_thread(points: &[$aff], scalars: &[u8], nbits: usize) -> $jac {
                let n = points.len();
                if n == 0 {
                    return <$jac>::default();
                }
                assert!(scalars.len() >= n * nbits.div_ceil(8), "fewer scalars than points");
                let mut out = <$jac>::default();
                let (p, s) = ([points.as_ptr(), std::ptr::null()], [scalars.as_ptr(), std::ptr::null()]);
                // SAFETY: blst's scratch size for n points, in u64 words (its required alignment).
                let mut scratch = vec![0u64; unsafe { blst::$scratch(n) } / 8];
                // SAFETY: one array of n points and one of n scalars of ⌈nbits/8⌉ bytes (asserted),
                // each list null-terminated, and the scratch blst asked for.
                unsafe { blst::$pip(&mut out, p.as_ptr(), n, s.as_ptr(), nbits, scratch.as_mut_ptr()) };
                out
            }
            #[inline]
            fn serialize(a: &$aff, out: &mut [u8]) {
                assert!(out.len() >= $bytes);
                // SAFETY: blst writes UNCOMPRESSED_BYTES into out, which has them (asserted).
                unsafe { blst::$ser(out.as_mut_ptr(), a) };
            }
            fn compress(p: &$jac, out: &mut [u8]) {
                assert!(out.len() >= $bytes / 2);
                // SAFETY: blst writes COMPRESSED_BYTES into out, which has them (asserted).
                unsafe { blst::$comp(out.as_mut_ptr(), p) };
            }
            fn deserialize_checked(bytes: &[u8]) -> Option<$aff> {
                assert!(bytes.len() >= $bytes);
                if bytes[0] & 0x80 != 0 {
                    return None;
                }
                let mut a = <$aff>::default();
                // SAFETY: blst reads UNCOMPRESSED_BYTES from bytes, which has them (asserted).
                let ok = unsafe { blst::$deser(&mut a, bytes.as_ptr()) } == BLST_ERROR::BLST_SUCCESS;
                // SAFETY: valid reference to a decoded point.
                (ok && unsafe { blst::$in_group(&a) }).then_some(a)
            }
        }
    };
}

blst_curve!(G1, "G1", Fp, P1, P1Affine, 96,
    generator: blst_p1_generator, is_inf: blst_p1_is_inf, eq: blst_p1_is_equal, cneg: blst_p1_cneg,
    add: blst_p1_add_or_double, add_affine: blst_p1_add_or_double_affine, double: blst_p1_double,
    mult: blst_p1_mult, from_affine: blst_p1_from_affine, to_affine: blst_p1_to_affine,
    batch_to_affine: blst_p1s_to_affine, pippenger: blst_p1s_mult_pippenger,
    pippenger_scratch: blst_p1s_mult_pippenger_scratch_sizeof, serialize: blst_p1_affine_serialize,
    compress: blst_p1_compress, deserialize: blst_p1_deserialize, in_group: blst_p1_affine_in_g1);
blst_curve!(G2, "G2", Fp2, P2, P2Affine, 192,
    generator: blst_p2_generator, is_inf: blst_p2_is_inf, eq: blst_p2_is_equal, cneg: blst_p2_cneg,
    add: blst_p2_add_or_double, add_affine: blst_p2_add_or_double_affine, double: blst_p2_double,
    mult: blst_p2_mult, from_affine: blst_p2_from_affine, to_affine: blst_p2_to_affine,
    batch_to_affine: blst_p2s_to_affine, pippenger: blst_p2s_mult_pippenger,
    pippenger_scratch: blst_p2s_mult_pippenger_scratch_sizeof, serialize: blst_p2_affine_serialize,
    compress: blst_p2_compress, deserialize: blst_p2_deserialize, in_group: blst_p2_affine_in_g2);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ec::convert::{g1_from_blst, g2_from_blst};
    use crate::ec::sample::random_progression;
    use crate::ec::scalar::{as_bytes, scalar_bytes};
    use ff::Field;
    use group::{Curve as _, Group};
    use rand::SeedableRng;

    /// Every operation of one group against blstrs (its own arithmetic over the same limbs),
    /// through `to_bytes`, the uncompressed encoding of a Jacobian point.
    fn ops_match<C: Curve>(to_bytes: impl Fn(&C::Jacobian) -> Vec<u8>, seed: u64) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let pts = random_progression::<C>(40, &mut rng);
        let jac: Vec<C::Jacobian> = pts.iter().map(C::from_affine).collect();
        let (p, q) = (C::add(&jac[0], &C::double(&jac[1])), jac[2]);
        // add, add_affine, double, neg and eq agree with each other on Z ≠ 1.
        assert!(C::eq(&C::add(&p, &q), &C::add_affine(&p, &pts[2])));
        assert!(C::eq(&C::add(&p, &p), &C::double(&p)));
        assert!(C::is_inf(&C::add(&p, &C::neg(&p))));
        assert!(!C::eq(&p, &q) && !C::is_inf(&p));
        // k·P by `mult` against repeated additions, and 0·P.
        let k = 1234567u64;
        let mut want = C::Jacobian::default();
        let mut base = p;
        for bit in 0..64 {
            if k >> bit & 1 == 1 {
                want = C::add(&want, &base);
            }
            base = C::double(&base);
        }
        assert!(C::eq(&C::mult(&p, &k.to_le_bytes(), 64), &want));
        assert!(C::is_inf(&C::mult(&p, &[0; 32], 255)));
        // to_affine and batch_to_affine give the same points, encoded as blstrs encodes them.
        let batch = C::batch_to_affine_vec(&[p, q]);
        assert_eq!(batch[0], C::to_affine(&p));
        assert!(C::eq(&C::from_affine(&batch[0]), &p));
        let mut enc = vec![0u8; C::UNCOMPRESSED_BYTES];
        C::serialize(&batch[0], &mut enc);
        assert_eq!(enc, to_bytes(&p));
        assert_eq!(C::deserialize_checked(&enc), Some(batch[0]));
        assert_eq!(C::decode_trusted(&enc), batch[0]);
        let mut comp = vec![0u8; C::COMPRESSED_BYTES];
        C::compress(&p, &mut comp);
        assert_eq!(comp[0] & 0x80, 0x80);
        assert_eq!(comp[1..], enc[1..C::COMPRESSED_BYTES]);
        assert!(C::eq(&C::from_affine(&C::neg_affine(&batch[0])), &C::neg(&p)));
        // Bad encodings: compressed flag, x ≥ p, a changed y (off the curve).
        for (at, bits) in [(0, 0x80u8), (0, 0x1f), (C::UNCOMPRESSED_BYTES - 1, 1)] {
            let mut bad = enc.clone();
            bad[at] ^= bits;
            assert_eq!(C::deserialize_checked(&bad), None, "byte {at} ^ {bits:#x}");
        }
        // Infinity: (0, 0), encoded 0x40 then zeros, and back.
        let inf = C::Affine::default();
        assert!(C::affine_is_inf(&inf) && !C::affine_is_inf(&batch[0]));
        C::serialize(&inf, &mut enc);
        assert!(enc[0] == 0x40 && enc[1..].iter().all(|&b| b == 0));
        assert_eq!(C::deserialize_checked(&enc), Some(inf));
        assert_eq!(C::decode_trusted(&enc), inf);
        // MSMs: threaded, one thread, and the sum, against the naive sums.
        let scalars: Vec<_> = (0..pts.len()).map(|_| scalar_bytes(&blstrs::Scalar::random(&mut rng))).collect();
        let naive = pts
            .iter()
            .zip(&scalars)
            .fold(C::Jacobian::default(), |acc, (pt, s)| C::add(&acc, &C::mult(&C::from_affine(pt), &s.b, 255)));
        assert!(C::eq(&C::msm(&pts, as_bytes(&scalars), 255), &naive));
        assert!(C::eq(&C::msm_one_thread(&pts, as_bytes(&scalars), 255), &naive));
        let sum = pts.iter().fold(C::Jacobian::default(), |acc, pt| C::add_affine(&acc, pt));
        assert!(C::eq(&C::sum(&pts), &sum));
        assert!(C::is_inf(&C::sum(&[])) && C::is_inf(&C::msm(&[], &[], 255)));
    }

    #[test]
    fn g1_and_g2_ops_match_blstrs() {
        ops_match::<G1>(|p| g1_from_blst(p).to_affine().to_uncompressed().to_vec(), 41);
        ops_match::<G2>(|p| g2_from_blst(p).to_affine().to_uncompressed().to_vec(), 42);
        let g = G1::generator();
        assert_eq!(g1_from_blst(&g), blstrs::G1Projective::generator());
        assert_eq!(g2_from_blst(&G2::generator()), blstrs::G2Projective::generator());
    }

    /// A point on y² = x³ + 4 outside the prime-order subgroup is refused by the checked
    /// decoding and taken by the trusting one.
    #[test]
    fn checked_decoding_refuses_points_outside_the_subgroup() {
        let (x, y) = (1u64..)
            .find_map(|v| {
                let x = blstrs::Fp::from(v);
                let y = (x.square() * x + blstrs::Fp::from(4u64)).sqrt();
                Option::<blstrs::Fp>::from(y).map(|y| (x, y))
            })
            .unwrap();
        let mut enc = [0u8; 96];
        enc[..48].copy_from_slice(&x.to_bytes_be());
        enc[48..].copy_from_slice(&y.to_bytes_be());
        assert_eq!(G1::deserialize_checked(&enc), None);
        let a = G1::decode_trusted(&enc);
        assert!(!G1::affine_is_inf(&a));
        let mut back = [0u8; 96];
        G1::serialize(&a, &mut back);
        assert_eq!(back, enc);
    }
}
