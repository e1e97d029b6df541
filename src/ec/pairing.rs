//! The optimal ate pairing e: G1 × G2 → Gt over blst, in the form every user here needs:
//! products Π e(p_i, q_i) as one multi-Miller loop ([`MillerProduct::of`], blst shares the
//! squarings of up to 16 pairs) and one final exponentiation ([`MillerProduct::final_exp`]).
//! Miller loop values of separate products multiply ([`MillerProduct::mul`]) before a shared
//! final exponentiation, so a product split over threads costs one exponentiation in all.
//!
//! Pairs with a point at infinity on either side contribute 1 and are left out of the loop:
//! blst's n-pair loop takes every pair for a finite one.
use std::borrow::Cow;

use blst::blst_fp12;
use blstrs::Gt;

use super::curve::{Curve, P1Affine, P2Affine, G1, G2};

/// The product of Miller loops: an element of Fp12 before the final exponentiation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MillerProduct(blst_fp12);

impl MillerProduct {
    /// The empty product, 1.
    pub fn one() -> Self {
        // SAFETY: blst returns a pointer to its static one, valid for the whole program.
        MillerProduct(unsafe { *blst::blst_fp12_one() })
    }

    /// The Miller loop of Π e(p_i, q_i), on the calling thread; pairs with a point at
    /// infinity are skipped, and none left is 1.
    pub fn of(p: &[P1Affine], q: &[P2Affine]) -> Self {
        assert_eq!(p.len(), q.len(), "a pairing product of {} G1 and {} G2 points", p.len(), q.len());
        let finite = |i: &usize| !G1::affine_is_inf(&p[*i]) && !G2::affine_is_inf(&q[*i]);
        let keep: Vec<usize> = (0..p.len()).filter(finite).collect();
        if keep.is_empty() {
            return Self::one();
        }
        let (ps, qs): (Cow<'_, [P1Affine]>, Cow<'_, [P2Affine]>) = if keep.len() == p.len() {
            (p.into(), q.into())
        } else {
            let (ps, qs): (Vec<_>, Vec<_>) = keep.iter().map(|&i| (p[i], q[i])).unzip();
            (ps.into(), qs.into())
        };
        // blst reads null-terminated lists of arrays: here one contiguous array on each side.
        let pp = [ps.as_ptr(), std::ptr::null()];
        let qp = [qs.as_ptr(), std::ptr::null()];
        let mut out = blst_fp12::default();
        // SAFETY: both arrays hold ps.len() = qs.len() points, which blst reads (one array per
        // list, each list null-terminated), and it writes one element to `out`.
        unsafe { blst::blst_miller_loop_n(&mut out, qp.as_ptr(), pp.as_ptr(), ps.len()) };
        MillerProduct(out)
    }

    /// The product of two Miller loop values (the loop of both sets of pairs).
    pub fn mul(&self, other: &Self) -> Self {
        let mut out = blst_fp12::default();
        // SAFETY: blst reads two elements and writes one through valid references.
        unsafe { blst::blst_fp12_mul(&mut out, &self.0, &other.0) };
        MillerProduct(out)
    }

    /// The final exponentiation: the pairing product as an element of Gt.
    pub fn final_exp(&self) -> Gt {
        let mut out = blst_fp12::default();
        // SAFETY: blst reads one element and writes one through valid references.
        unsafe { blst::blst_final_exp(&mut out, &self.0) };
        Gt::from(blstrs::Fp12::from(out))
    }
}

/// Π e(p_i, q_i) on the calling thread.
pub fn pairing_product(p: &[P1Affine], q: &[P2Affine]) -> Gt {
    MillerProduct::of(p, q).final_exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ec::convert::{g1_affines_as_blst, g2_affines_as_blst};
    use blstrs::{Bls12, G1Affine, G1Projective, G2Affine, G2Prepared, G2Projective};
    use group::{prime::PrimeCurveAffine, Curve as _, Group};
    use pairing::{MillerLoopResult, MultiMillerLoop};
    use rand::SeedableRng;

    /// Products of 0 to 40 pairs (past blst's 16 per shared loop), with points at infinity on
    /// either side, against blstrs' prepared multi-Miller loop; split products multiply.
    #[test]
    fn products_match_blstrs() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        for n in [0usize, 1, 3, 16, 17, 40] {
            let mut a: Vec<G1Affine> = (0..n).map(|_| G1Projective::random(&mut rng).to_affine()).collect();
            let mut b: Vec<G2Affine> = (0..n).map(|_| G2Projective::random(&mut rng).to_affine()).collect();
            if n > 3 {
                a[1] = G1Affine::identity();
                b[3] = G2Affine::identity();
            }
            let prepared: Vec<G2Prepared> = b.iter().map(|q| G2Prepared::from(*q)).collect();
            let terms: Vec<_> = a.iter().zip(&prepared).collect();
            let want = Bls12::multi_miller_loop(&terms).final_exponentiation();
            let (p, q) = (g1_affines_as_blst(&a), g2_affines_as_blst(&b));
            assert_eq!(pairing_product(p, q), want, "n = {n}");
            let h = n / 2;
            let split = MillerProduct::of(&p[..h], &q[..h]).mul(&MillerProduct::of(&p[h..], &q[h..]));
            assert_eq!(split.final_exp(), want, "n = {n}, split");
        }
        assert_eq!(MillerProduct::one().final_exp(), Gt::identity());
    }

    /// Bilinearity: e(3·g, 5·h) = e(g, h)^15, and e(g, h)·e(−g, h) = 1.
    #[test]
    fn bilinear() {
        let (g, h) = (G1::to_affine(&G1::generator()), G2::to_affine(&G2::generator()));
        let g3 = G1::to_affine(&G1::mult(&G1::generator(), &[3], 8));
        let h5 = G2::to_affine(&G2::mult(&G2::generator(), &[5], 8));
        let e = pairing_product(&[g], &[h]);
        assert_eq!(pairing_product(&[g3], &[h5]), e * blstrs::Scalar::from(15u64));
        assert_eq!(pairing_product(&[g, G1::neg_affine(&g)], &[h, h]), Gt::identity());
        assert_ne!(e, Gt::identity());
    }
}
