//! The optimal ate pairing e: G1 × G2 → Gt over blst, in the form every user here needs:
//! products Π e(p_i, q_i) as one multi-Miller loop ([`MillerProduct::of`], blst shares the
//! squarings of up to 16 pairs) and one final exponentiation ([`MillerProduct::final_exp`]).
//! Miller loop values of separate products multiply ([`MillerProduct::mul`]) before a shared
//! final exponentiation, so a product split over threads costs one exponentiation in all.
//!
//! A G2 point paired with several G1 points in separate products can have its line coefficients
//! computed once ([`G2Lines`], the G2 half of a Miller loop's work) and evaluated at each G1
//! point ([`MillerProduct::of_lines`], again sharing the squarings of f across the pairs).
//!
//! Pairs with a point at infinity on either side contribute 1 and are left out of the loop:
//! blst's n-pair loop takes every pair for a finite one.
//!
//! [`MillerLoops`] is where a layer above (a GPU) offers to run such loops for many pairs at
//! once; its users keep the CPU loops here for the products it does not take.
use std::borrow::Cow;

use blst::{blst_fp, blst_fp12, blst_fp6};
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

    /// An Fp12 element in blst's form, as a Miller loop value (one computed elsewhere, on a GPU).
    pub fn from_blst(f: blst_fp12) -> Self {
        MillerProduct(f)
    }

    /// The Fp12 element in blst's form.
    pub fn as_blst(&self) -> &blst_fp12 {
        &self.0
    }

    /// The final exponentiation: the pairing product as an element of Gt.
    pub fn final_exp(&self) -> Gt {
        let mut out = blst_fp12::default();
        // SAFETY: blst reads one element and writes one through valid references.
        unsafe { blst::blst_final_exp(&mut out, &self.0) };
        Gt::from(blstrs::Fp12::from(out))
    }
}

/// Lines per Miller loop in blst's table: one per doubling and per addition of the loop over
/// |z| = 0xd201000000010000.
pub const LINES: usize = 68;

/// blst's line table walks the bits of |z| after the leading one: each entry is the index of an
/// addition line and the number of doubling lines after it (each doubling first squares f).
/// Line 0, the first doubling, comes before them.
const ADD_THEN_DOUBLINGS: [(usize, usize); 5] = [(1, 2), (4, 3), (8, 9), (18, 32), (51, 16)];

/// The Miller loop lines of one G2 point, not yet evaluated at any G1 point (blst's
/// `precompute_lines`); none for the point at infinity, whose pairs contribute 1.
pub struct G2Lines(Option<Box<[blst_fp6; LINES]>>);

impl G2Lines {
    pub fn of(q: &P2Affine) -> Self {
        if G2::affine_is_inf(q) {
            return G2Lines(None);
        }
        let mut lines = Box::new([blst_fp6::default(); LINES]);
        // SAFETY: blst writes LINES line coefficients into the array and reads one point.
        unsafe { blst::blst_precompute_lines(lines.as_mut_ptr(), q) };
        G2Lines(Some(lines))
    }

    /// The 68 lines in loop order; None for the point at infinity.
    pub fn lines(&self) -> Option<&[blst_fp6; LINES]> {
        self.0.as_deref()
    }
}

/// Miller loops run elsewhere (a GPU), many pairs at once.
pub trait MillerLoops: Sync {
    /// The device, for messages ("GPU 0 (NVIDIA H100)").
    fn label(&self) -> String;
    /// Whether `pairs` pairs over one G2 vector are worth sending there (fewer stay on the CPU).
    fn pays(&self, pairs: usize) -> bool;
    /// For each G1 vector p of `ps` (each as long as `q`), the Miller loop of Π_i e(p_i, q_i),
    /// pairs with a point at infinity contributing 1: what [`MillerProduct::of_lines`] gives.
    fn sharing_g2(&self, ps: &[&[P1Affine]], q: &[P2Affine]) -> anyhow::Result<Vec<MillerProduct>>;
}

/// A G1 point as a line evaluation takes it: (−2x, 2y), the factors blst moves out of the lines.
struct LineScalars(blst_fp, blst_fp);

impl LineScalars {
    fn of(p: &P1Affine) -> Self {
        let (mut x, mut y) = (blst_fp::default(), blst_fp::default());
        // SAFETY: blst reads and writes field elements through valid references.
        unsafe {
            blst::blst_fp_add(&mut x, &p.x, &p.x);
            blst::blst_fp_cneg(&mut x, &x, true);
            blst::blst_fp_add(&mut y, &p.y, &p.y);
        }
        LineScalars(x, y)
    }

    /// The line evaluated at the point: its second coefficient times −2x, its third times 2y.
    fn eval(&self, line: &blst_fp6) -> blst_fp6 {
        let mut out = *line;
        let [_, b, c] = &mut out.fp2;
        // SAFETY: blst reads and writes field elements through valid references.
        unsafe {
            blst::blst_fp_mul(&mut b.fp[0], &line.fp2[1].fp[0], &self.0);
            blst::blst_fp_mul(&mut b.fp[1], &line.fp2[1].fp[1], &self.0);
            blst::blst_fp_mul(&mut c.fp[0], &line.fp2[2].fp[0], &self.1);
            blst::blst_fp_mul(&mut c.fp[1], &line.fp2[2].fp[1], &self.1);
        }
        out
    }
}

/// A precomputed line evaluated at a G1 point (blst's `line_by_Px2`): its second coefficient
/// times −2x, its third times 2y. The form the GPU's line multiply is checked against.
pub fn line_at(line: &blst_fp6, p: &P1Affine) -> blst_fp6 {
    LineScalars::of(p).eval(line)
}

/// f times line `k` of every pair, each evaluated at its G1 point.
fn mul_by_lines(f: &mut blst_fp12, pairs: &[(LineScalars, &[blst_fp6; LINES])], k: usize) {
    for (p, lines) in pairs {
        let line = p.eval(&lines[k]);
        // SAFETY: blst reads f and the sparse line and writes f through valid references.
        unsafe { blst::blst_fp12_mul_by_xy00z0(f, f, &line) };
    }
}

impl MillerProduct {
    /// The Miller loop of Π e(p_i, q_i) from the G2 points' precomputed lines, on the calling
    /// thread, one squaring of f per doubling for all pairs; pairs with a point at infinity are
    /// skipped. Equal to [`MillerProduct::of`] on the same pairs.
    pub fn of_lines(p: &[P1Affine], lines: &[G2Lines]) -> Self {
        assert_eq!(p.len(), lines.len(), "a pairing product of {} G1 points and {} G2 lines", p.len(), lines.len());
        let pairs: Vec<(LineScalars, &[blst_fp6; LINES])> = p
            .iter()
            .zip(lines)
            .filter(|(p, _)| !G1::affine_is_inf(p))
            .filter_map(|(p, l)| Some((LineScalars::of(p), l.0.as_deref()?)))
            .collect();
        if pairs.is_empty() {
            return Self::one();
        }
        let mut f = Self::one().0;
        mul_by_lines(&mut f, &pairs, 0);
        for (add, doublings) in ADD_THEN_DOUBLINGS {
            mul_by_lines(&mut f, &pairs, add);
            for k in add + 1..=add + doublings {
                // SAFETY: blst reads and writes one element through valid references.
                unsafe { blst::blst_fp12_sqr(&mut f, &f) };
                mul_by_lines(&mut f, &pairs, k);
            }
        }
        // z is negative: the loop's value is conjugated, as blst's own loops do.
        // SAFETY: blst conjugates one element in place.
        unsafe { blst::blst_fp12_conjugate(&mut f) };
        MillerProduct(f)
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

    /// Loops over precomputed lines against blst's n-pair loop, with points at infinity on
    /// either side, the same lines evaluated at two G1 vectors.
    #[test]
    fn lines_match_the_n_pair_loop() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
        for n in [0usize, 1, 5, 17] {
            let mut a: Vec<G1Affine> = (0..n).map(|_| G1Projective::random(&mut rng).to_affine()).collect();
            let c: Vec<G1Affine> = (0..n).map(|_| G1Projective::random(&mut rng).to_affine()).collect();
            let mut b: Vec<G2Affine> = (0..n).map(|_| G2Projective::random(&mut rng).to_affine()).collect();
            if n > 3 {
                a[1] = G1Affine::identity();
                b[3] = G2Affine::identity();
            }
            let (pa, pc, q) = (g1_affines_as_blst(&a), g1_affines_as_blst(&c), g2_affines_as_blst(&b));
            let lines: Vec<G2Lines> = q.iter().map(G2Lines::of).collect();
            for p in [pa, pc] {
                let got = MillerProduct::of_lines(p, &lines).final_exp();
                assert_eq!(got, MillerProduct::of(p, q).final_exp(), "n = {n}");
            }
        }
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
