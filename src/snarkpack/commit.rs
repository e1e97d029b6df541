//! SnarkPack's two commitment schemes, both with keys made of SRS powers (docs/aggregation.md):
//! - **single** commits to a vector A ∈ G1ⁿ with v = (h^{α^i}, h^{β^i}) ∈ (G2ⁿ)²:
//!   (Π e(A_i, v1_i), Π e(A_i, v2_i));
//! - **pair** commits to A ∈ G1ⁿ and B ∈ G2ⁿ with v and w = (g^{α^{n+i}}, g^{β^{n+i}}) ∈ (G1ⁿ)²:
//!   (Π e(A_i, v1_i)·e(w1_i, B_i), Π e(A_i, v2_i)·e(w2_i, B_i)).
//!
//! A commitment is a pair of Gt elements. Keys fold with the GIPA recursion like the vectors
//! they commit to ([`Key::fold`]).
//!
//! The prover always makes pair(v, w; A, B) and single(v; C) together (and, in GIPA, the inner
//! product Π e(A_i, B_i) of the same halves): [`pair_and_single`] computes them with each G2
//! point's Miller loop lines made once — v's powers pair with A and C, B with w's powers and A.
use blstrs::{G1Affine, G2Affine, Gt, Scalar};

use super::ipp::{self, Group, Pairings};
use crate::ec::MillerProduct;

/// A commitment key: the α powers and the β powers.
#[derive(Clone, Debug, PartialEq)]
pub struct Key<G> {
    pub a: Vec<G>,
    pub b: Vec<G>,
}

/// The key of the single commitment and of A in the pair one: powers of h in G2.
pub type VKey = Key<G2Affine>;
/// The key of B in the pair commitment: powers of g in G1 from n on.
pub type WKey = Key<G1Affine>;

/// A commitment: the α half and the β half.
pub type Commitment = (Gt, Gt);

/// A borrowed part of a key.
#[derive(Clone, Copy)]
pub struct KeyRef<'a, G> {
    pub a: &'a [G],
    pub b: &'a [G],
}

impl<G: Group> Key<G> {
    pub fn len(&self) -> usize {
        self.a.len()
    }

    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    pub fn as_ref(&self) -> KeyRef<'_, G> {
        KeyRef { a: &self.a, b: &self.b }
    }

    /// The left and right halves (at `at`).
    pub fn split(&self, at: usize) -> (KeyRef<'_, G>, KeyRef<'_, G>) {
        let (al, ar) = self.a.split_at(at);
        let (bl, br) = self.b.split_at(at);
        (KeyRef { a: al, b: bl }, KeyRef { a: ar, b: br })
    }

    /// Each power multiplied by its own scalar.
    pub fn scale(&self, s: &[Scalar]) -> Self {
        let (a, b) = rayon::join(|| ipp::scale(&self.a, s), || ipp::scale(&self.b, s));
        Key { a, b }
    }

    /// left + x·right, the key of the folded vectors.
    pub fn fold(left: KeyRef<'_, G>, right: KeyRef<'_, G>, x: &Scalar) -> Self {
        let (a, b) = rayon::join(|| ipp::fold(left.a, right.a, x), || ipp::fold(left.b, right.b, x));
        Key { a, b }
    }

    /// The single pair of points left after the last fold.
    pub fn first(&self) -> (G, G) {
        (self.a[0], self.b[0])
    }
}

/// The single commitment to `a` under `v`.
pub fn single(v: KeyRef<'_, G2Affine>, a: &[G1Affine]) -> Commitment {
    rayon::join(|| ipp::pairing_product(a, v.a), || ipp::pairing_product(a, v.b))
}

/// The pair commitment to (`a`, `b`) under (`v`, `w`).
pub fn pair(v: KeyRef<'_, G2Affine>, w: KeyRef<'_, G1Affine>, a: &[G1Affine], b: &[G2Affine]) -> Commitment {
    let half = |vk: &[G2Affine], wk: &[G1Affine]| {
        let (ml1, ml2) = rayon::join(|| ipp::miller_loop(a, vk), || ipp::miller_loop(wk, b));
        ml1.mul(&ml2).final_exp()
    };
    rayon::join(|| half(v.a, w.a), || half(v.b, w.b))
}

/// pair(v, w; a, b), single(v; c) and, with `with_z`, Π e(a_i, b_i): the values the prover
/// sends for one set of vectors. Each G2 point's lines are computed once for all the products it
/// is in; the five (or four) final exponentiations run in parallel.
pub fn pair_and_single(
    v: KeyRef<'_, G2Affine>,
    w: KeyRef<'_, G1Affine>,
    (a, b, c): (&[G1Affine], &[G2Affine], &[G1Affine]),
    with_z: bool,
    on: Pairings<'_>,
) -> (Commitment, Commitment, Option<Gt>) {
    let b_with: Vec<&[G1Affine]> = if with_z { vec![w.a, w.b, a] } else { vec![w.a, w.b] };
    let ((va, vb), bw) = rayon::join(
        || rayon::join(|| on.sharing_g2(&[a, c], v.a), || on.sharing_g2(&[a, c], v.b)),
        || on.sharing_g2(&b_with, b),
    );
    let fe = |m: &MillerProduct| m.final_exp();
    let ((pair_a, pair_b), ((single_a, single_b), z)) = rayon::join(
        || rayon::join(|| fe(&va[0].mul(&bw[0])), || fe(&vb[0].mul(&bw[1]))),
        || rayon::join(|| rayon::join(|| fe(&va[1]), || fe(&vb[1])), || bw.get(2).map(fe)),
    );
    ((pair_a, pair_b), (single_a, single_b), z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::{G1Projective, G2Projective};
    use group::{prime::PrimeCurveAffine, Curve, Group as _};
    use rand::SeedableRng;

    /// The shared-lines computation against the commitments one at a time, with a point at
    /// infinity among the G2 points.
    #[test]
    fn pair_and_single_match_the_separate_commitments() {
        let mut r = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        let n = 40;
        let g1 = |r: &mut rand_chacha::ChaCha20Rng| -> Vec<G1Affine> {
            (0..n).map(|_| G1Projective::random(&mut *r).to_affine()).collect()
        };
        let g2 = |r: &mut rand_chacha::ChaCha20Rng| -> Vec<G2Affine> {
            (0..n).map(|_| G2Projective::random(&mut *r).to_affine()).collect()
        };
        let (a, c, wa, wb) = (g1(&mut r), g1(&mut r), g1(&mut r), g1(&mut r));
        let (mut b, va, vb) = (g2(&mut r), g2(&mut r), g2(&mut r));
        b[7] = G2Affine::identity();
        let (v, w) = (KeyRef { a: &va, b: &vb }, KeyRef { a: &wa, b: &wb });
        let (p, s, z) = pair_and_single(v, w, (&a, &b, &c), true, Pairings::CPU);
        assert_eq!(p, pair(v, w, &a, &b));
        assert_eq!(s, single(v, &c));
        assert_eq!(z, Some(ipp::pairing_product(&a, &b)));
        assert_eq!(pair_and_single(v, w, (&a, &b, &c), false, Pairings::CPU).2, None);
    }
}
