//! The vector operations SnarkPack is built from, on the curve layer ([`crate::ec`]) and spread
//! over rayon's threads:
//! - pairing products Π e(a_i, b_i): multi-Miller loops ([`MillerProduct::of`]), one chunk of
//!   pairs per task, the chunks' values multiplied, one final exponentiation;
//! - multi-exponentiations Σ s_i·P_i in G1 and G2 (the CPU MSMs of [`crate::cpu::msm`]);
//! - the GIPA fold L_i + x·R_i and the entrywise scaling s_i·P_i, with the results made
//!   affine by one batched inversion per chunk.
//!
//! Points are blstrs' affine types, lent to the curve layer in place
//! ([`crate::ec::g1_affines_as_blst`]). Pairs with a point at infinity contribute 1.
use blstrs::{G1Affine, G2Affine, Gt, Scalar};
use rayon::prelude::*;

use crate::ec::{
    g1_affine_from_blst, g1_affines_as_blst, g2_affine_from_blst, g2_affines_as_blst, scalar_bytes, Curve,
    MillerProduct, ScalarBytes, G1, G2,
};

/// Points per task of the fold and scale loops (one batched inversion each).
const CHUNK: usize = 256;
/// Pairs per task of a pairing product at least (blst shares the squarings of up to 16).
const MILLER_N: usize = 16;

/// Affine points of a group on the curve layer.
type Affine<G> = <<G as Group>::C as Curve>::Affine;
/// Jacobian points of a group on the curve layer.
type Jacobian<G> = <<G as Group>::C as Curve>::Jacobian;

/// G1 or G2 as SnarkPack holds them: blstrs' affine points, computed on by the curve layer's
/// [`Curve`] over the same memory.
pub trait Group: Copy + Send + Sync + 'static {
    /// The curve layer's group.
    type C: Curve;
    /// The points as the curve layer's, in place.
    fn raw(p: &[Self]) -> &[Affine<Self>];
    fn from_raw(p: &Affine<Self>) -> Self;
    /// Σ s_i·p_i over points none of which is at infinity.
    fn msm(points: &[Affine<Self>], scalars: &[ScalarBytes]) -> Jacobian<Self>;
}

impl Group for G1Affine {
    type C = G1;
    fn raw(p: &[Self]) -> &[Affine<Self>] {
        g1_affines_as_blst(p)
    }
    fn from_raw(p: &Affine<Self>) -> Self {
        g1_affine_from_blst(p)
    }
    fn msm(points: &[Affine<Self>], scalars: &[ScalarBytes]) -> Jacobian<Self> {
        crate::cpu::msm::msm_g1(points, scalars)
    }
}

impl Group for G2Affine {
    type C = G2;
    fn raw(p: &[Self]) -> &[Affine<Self>] {
        g2_affines_as_blst(p)
    }
    fn from_raw(p: &Affine<Self>) -> Self {
        g2_affine_from_blst(p)
    }
    fn msm(points: &[Affine<Self>], scalars: &[ScalarBytes]) -> Jacobian<Self> {
        crate::cpu::msm::msm_g2(points, scalars)
    }
}

/// s·p for an affine p and a full-width scalar.
fn mul<C: Curve>(p: &C::Affine, s: &ScalarBytes) -> C::Jacobian {
    C::mult(&C::from_affine(p), &s.b, 255)
}

/// Jacobian points made affine: batched unless one is at infinity (rare: then one by one).
fn affine_all<G: Group>(p: &[Jacobian<G>]) -> Vec<G> {
    let raw =
        if p.iter().any(G::C::is_inf) { p.iter().map(G::C::to_affine).collect() } else { G::C::batch_to_affine_vec(p) };
    raw.iter().map(G::from_raw).collect()
}

/// The GIPA fold: left_i + x·right_i.
pub fn fold<G: Group>(left: &[G], right: &[G], x: &Scalar) -> Vec<G> {
    assert_eq!(left.len(), right.len(), "fold of vectors of different lengths");
    let s = scalar_bytes(x);
    let (l, r) = (G::raw(left), G::raw(right));
    l.par_chunks(CHUNK)
        .zip(r.par_chunks(CHUNK))
        .flat_map_iter(|(l, r)| {
            let p: Vec<Jacobian<G>> = l.iter().zip(r).map(|(a, b)| G::C::add_affine(&mul::<G::C>(b, &s), a)).collect();
            affine_all::<G>(&p)
        })
        .collect()
}

/// Entrywise scaling: s_i·p_i.
pub fn scale<G: Group>(points: &[G], s: &[Scalar]) -> Vec<G> {
    assert_eq!(points.len(), s.len(), "scaling by a vector of another length");
    G::raw(points)
        .par_chunks(CHUNK)
        .zip(s.par_chunks(CHUNK))
        .flat_map_iter(|(p, s)| {
            let q: Vec<Jacobian<G>> = p.iter().zip(s).map(|(p, s)| mul::<G::C>(p, &scalar_bytes(s))).collect();
            affine_all::<G>(&q)
        })
        .collect()
}

/// Σ s_i·p_i (`s` may be shorter than `points`: the rest count as 0).
pub fn msm<G: Group>(points: &[G], s: &[Scalar]) -> G {
    let n = s.len().min(points.len());
    let raw = &G::raw(points)[..n];
    let scalars: Vec<ScalarBytes> = s[..n].par_iter().map(scalar_bytes).collect();
    let sum = if raw.iter().any(G::C::affine_is_inf) {
        let (p, s): (Vec<Affine<G>>, Vec<ScalarBytes>) =
            raw.iter().zip(&scalars).filter(|(p, _)| !G::C::affine_is_inf(p)).map(|(p, s)| (*p, s.clone())).unzip();
        G::msm(&p, &s)
    } else {
        G::msm(raw, &scalars)
    };
    G::from_raw(&G::C::to_affine(&sum))
}

/// The product of the Miller loops of the pairs (a_i, b_i), before the final exponentiation:
/// chunks of pairs on rayon's threads.
pub fn miller_loop(a: &[G1Affine], b: &[G2Affine]) -> MillerProduct {
    assert_eq!(a.len(), b.len(), "pairing product of vectors of different lengths");
    let (a, b) = (G1Affine::raw(a), G2Affine::raw(b));
    let tasks = (rayon::current_num_threads() * 4).max(1);
    let per_task = a.len().div_ceil(tasks).next_multiple_of(MILLER_N).max(MILLER_N);
    a.par_chunks(per_task)
        .zip(b.par_chunks(per_task))
        .map(|(p, q)| MillerProduct::of(p, q))
        .reduce(MillerProduct::one, |x, y| x.mul(&y))
}

/// Π e(a_i, b_i).
pub fn pairing_product(a: &[G1Affine], b: &[G2Affine]) -> Gt {
    miller_loop(a, b).final_exp()
}

/// 1, s, s², …, s^{n−1}.
pub fn powers(s: &Scalar, n: usize) -> Vec<Scalar> {
    let mut out = Vec::with_capacity(n);
    let mut x = Scalar::from(1u64);
    for _ in 0..n {
        out.push(x);
        x *= s;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::{Bls12, G1Projective, G2Projective};
    use ff::Field;
    use group::{prime::PrimeCurveAffine, Curve, Group as _};
    use pairing::{MillerLoopResult, MultiMillerLoop};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn rng() -> ChaCha20Rng {
        ChaCha20Rng::seed_from_u64(rand::random())
    }

    fn g1s(n: usize, r: &mut ChaCha20Rng) -> Vec<G1Affine> {
        (0..n).map(|_| G1Projective::random(&mut *r).to_affine()).collect()
    }
    fn g2s(n: usize, r: &mut ChaCha20Rng) -> Vec<G2Affine> {
        (0..n).map(|_| G2Projective::random(&mut *r).to_affine()).collect()
    }

    /// The chunked, multi-pair Miller loops against blstrs' one-pair-at-a-time product, with a
    /// point at infinity among the pairs.
    #[test]
    fn pairing_product_matches_blstrs() {
        let mut r = rng();
        for n in [1usize, 5, 16, 17, 70] {
            let mut a = g1s(n, &mut r);
            let b = g2s(n, &mut r);
            if n > 3 {
                a[2] = G1Affine::identity();
            }
            let prepared: Vec<_> = b.iter().map(|q| blstrs::G2Prepared::from(*q)).collect();
            let terms: Vec<_> = a.iter().zip(&prepared).collect();
            let want = Bls12::multi_miller_loop(&terms).final_exponentiation();
            assert_eq!(pairing_product(&a, &b), want, "n = {n}");
        }
    }

    #[test]
    fn fold_scale_and_msm_match_blstrs() {
        let mut r = rng();
        let n = 300;
        let (l1, r1) = (g1s(n, &mut r), g1s(n, &mut r));
        let (l2, r2) = (g2s(n, &mut r), g2s(n, &mut r));
        let x = Scalar::random(&mut r);
        let s: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut r)).collect();
        let f1 = fold(&l1, &r1, &x);
        let f2 = fold(&l2, &r2, &x);
        for i in [0, 17, n - 1] {
            assert_eq!(f1[i], (G1Projective::from(l1[i]) + r1[i] * x).to_affine());
            assert_eq!(f2[i], (G2Projective::from(l2[i]) + r2[i] * x).to_affine());
        }
        let s1 = scale(&l1, &s);
        let s2 = scale(&l2, &s);
        assert_eq!(s1[5], (l1[5] * s[5]).to_affine());
        assert_eq!(s2[299], (l2[299] * s[299]).to_affine());
        let want1: G1Projective = l1.iter().zip(&s).map(|(p, s)| p * s).sum();
        let want2: G2Projective = l2.iter().zip(&s).map(|(p, s)| p * s).sum();
        assert_eq!(msm(&l1, &s), want1.to_affine());
        assert_eq!(msm(&l2, &s), want2.to_affine());
        // A shorter scalar vector counts the rest as zero.
        let short: G1Projective = l1[..10].iter().zip(&s).map(|(p, s)| p * s).sum();
        assert_eq!(msm(&l1, &s[..10]), short.to_affine());
    }
}
