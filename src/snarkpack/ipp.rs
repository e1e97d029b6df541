//! The vector operations SnarkPack is built from, over blst and spread over rayon's threads:
//! - pairing products Π e(a_i, b_i): Miller loops of up to 16 pairs sharing their squarings
//!   (`blst_miller_loop_n`), one chunk per task, one final exponentiation;
//! - multi-exponentiations Σ s_i·P_i in G1 and G2 (the CPU MSMs of [`crate::cpu::msm`]);
//! - the GIPA fold L_i + x·R_i and the entrywise scaling s_i·P_i, with the results made
//!   affine by one batched inversion per chunk.
//!
//! Points are blstrs' affine types, whose memory is blst's (`#[repr(transparent)]`), so slices
//! pass to blst without copies. Pairs with a point at infinity contribute 1 and are skipped.
use blst::{
    blst_final_exp, blst_fp12, blst_fp12_mul, blst_fp12_one, blst_miller_loop_n, blst_p1, blst_p1_add_or_double_affine,
    blst_p1_affine, blst_p1_affine_is_inf, blst_p1_from_affine, blst_p1_is_inf, blst_p1_mult, blst_p1_to_affine,
    blst_p1s_to_affine, blst_p2, blst_p2_add_or_double_affine, blst_p2_affine, blst_p2_affine_is_inf,
    blst_p2_from_affine, blst_p2_is_inf, blst_p2_mult, blst_p2_to_affine, blst_p2s_to_affine, blst_scalar,
};
use blstrs::{Fp12, G1Affine, G2Affine, Gt, Scalar};
use rayon::prelude::*;

use crate::ec::scalar_bytes as to_blst_scalar;

/// Points per task of the fold and scale loops (one batched inversion each).
const CHUNK: usize = 256;
/// Pairs per `blst_miller_loop_n` call (blst shares the squarings of up to 16).
const MILLER_N: usize = 16;

/// G1 or G2 as SnarkPack uses them: blstrs' affine points over blst's raw arithmetic.
pub trait Group: Copy + Send + Sync + 'static {
    type Raw: Copy + Send + Sync + Default;
    type Proj: Copy + Send + Sync + Default;
    fn raw(p: &[Self]) -> &[Self::Raw];
    fn from_raw(p: Self::Raw) -> Self;
    fn raw_is_inf(p: &Self::Raw) -> bool;
    fn proj_is_inf(p: &Self::Proj) -> bool;
    /// s·p.
    fn mul(p: &Self::Raw, s: &blst_scalar) -> Self::Proj;
    /// acc + p.
    fn add_affine(acc: &Self::Proj, p: &Self::Raw) -> Self::Proj;
    fn to_affine(p: &Self::Proj) -> Self::Raw;
    /// Many projective points made affine with one shared inversion (none at infinity).
    fn batch_to_affine(p: &[Self::Proj]) -> Vec<Self::Raw>;
    fn msm(points: &[Self::Raw], scalars: &[blst_scalar]) -> Self::Proj;
}

impl Group for G1Affine {
    type Raw = blst_p1_affine;
    type Proj = blst_p1;
    fn raw(p: &[Self]) -> &[blst_p1_affine] {
        // SAFETY: G1Affine is #[repr(transparent)] over blst_p1_affine.
        unsafe { &*(p as *const [G1Affine] as *const [blst_p1_affine]) }
    }
    fn from_raw(p: blst_p1_affine) -> Self {
        G1Affine::from_raw_unchecked(p.x.into(), p.y.into(), false)
    }
    fn raw_is_inf(p: &blst_p1_affine) -> bool {
        unsafe { blst_p1_affine_is_inf(p) }
    }
    fn proj_is_inf(p: &blst_p1) -> bool {
        unsafe { blst_p1_is_inf(p) }
    }
    fn mul(p: &blst_p1_affine, s: &blst_scalar) -> blst_p1 {
        let mut out = blst_p1::default();
        unsafe {
            blst_p1_from_affine(&mut out, p);
            blst_p1_mult(&mut out, &out, s.b.as_ptr(), 255);
        }
        out
    }
    fn add_affine(acc: &blst_p1, p: &blst_p1_affine) -> blst_p1 {
        let mut out = blst_p1::default();
        unsafe { blst_p1_add_or_double_affine(&mut out, acc, p) };
        out
    }
    fn to_affine(p: &blst_p1) -> blst_p1_affine {
        let mut out = blst_p1_affine::default();
        unsafe { blst_p1_to_affine(&mut out, p) };
        out
    }
    fn batch_to_affine(p: &[blst_p1]) -> Vec<blst_p1_affine> {
        let ptrs: Vec<*const blst_p1> = p.iter().map(|q| q as *const blst_p1).collect();
        let mut out = vec![blst_p1_affine::default(); p.len()];
        unsafe { blst_p1s_to_affine(out.as_mut_ptr(), ptrs.as_ptr(), p.len()) };
        out
    }
    fn msm(points: &[blst_p1_affine], scalars: &[blst_scalar]) -> blst_p1 {
        crate::cpu::msm::msm_g1(points, scalars)
    }
}

impl Group for G2Affine {
    type Raw = blst_p2_affine;
    type Proj = blst_p2;
    fn raw(p: &[Self]) -> &[blst_p2_affine] {
        // SAFETY: G2Affine is #[repr(transparent)] over blst_p2_affine.
        unsafe { &*(p as *const [G2Affine] as *const [blst_p2_affine]) }
    }
    fn from_raw(p: blst_p2_affine) -> Self {
        G2Affine::from_raw_unchecked(p.x.into(), p.y.into(), false)
    }
    fn raw_is_inf(p: &blst_p2_affine) -> bool {
        unsafe { blst_p2_affine_is_inf(p) }
    }
    fn proj_is_inf(p: &blst_p2) -> bool {
        unsafe { blst_p2_is_inf(p) }
    }
    fn mul(p: &blst_p2_affine, s: &blst_scalar) -> blst_p2 {
        let mut out = blst_p2::default();
        unsafe {
            blst_p2_from_affine(&mut out, p);
            blst_p2_mult(&mut out, &out, s.b.as_ptr(), 255);
        }
        out
    }
    fn add_affine(acc: &blst_p2, p: &blst_p2_affine) -> blst_p2 {
        let mut out = blst_p2::default();
        unsafe { blst_p2_add_or_double_affine(&mut out, acc, p) };
        out
    }
    fn to_affine(p: &blst_p2) -> blst_p2_affine {
        let mut out = blst_p2_affine::default();
        unsafe { blst_p2_to_affine(&mut out, p) };
        out
    }
    fn batch_to_affine(p: &[blst_p2]) -> Vec<blst_p2_affine> {
        let ptrs: Vec<*const blst_p2> = p.iter().map(|q| q as *const blst_p2).collect();
        let mut out = vec![blst_p2_affine::default(); p.len()];
        unsafe { blst_p2s_to_affine(out.as_mut_ptr(), ptrs.as_ptr(), p.len()) };
        out
    }
    fn msm(points: &[blst_p2_affine], scalars: &[blst_scalar]) -> blst_p2 {
        crate::cpu::msm::msm_g2(points, scalars)
    }
}

/// Projective points made affine: batched unless one is at infinity (rare: then one by one).
fn affine_all<G: Group>(p: &[G::Proj]) -> Vec<G> {
    let raw = if p.iter().any(G::proj_is_inf) { p.iter().map(G::to_affine).collect() } else { G::batch_to_affine(p) };
    raw.into_iter().map(G::from_raw).collect()
}

/// The GIPA fold: left_i + x·right_i.
pub fn fold<G: Group>(left: &[G], right: &[G], x: &Scalar) -> Vec<G> {
    assert_eq!(left.len(), right.len(), "fold of vectors of different lengths");
    let s = to_blst_scalar(x);
    let (l, r) = (G::raw(left), G::raw(right));
    l.par_chunks(CHUNK)
        .zip(r.par_chunks(CHUNK))
        .flat_map_iter(|(l, r)| {
            let p: Vec<G::Proj> = l.iter().zip(r).map(|(a, b)| G::add_affine(&G::mul(b, &s), a)).collect();
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
            let q: Vec<G::Proj> = p.iter().zip(s).map(|(p, s)| G::mul(p, &to_blst_scalar(s))).collect();
            affine_all::<G>(&q)
        })
        .collect()
}

/// Σ s_i·p_i (`s` may be shorter than `points`: the rest count as 0).
pub fn msm<G: Group>(points: &[G], s: &[Scalar]) -> G {
    let n = s.len().min(points.len());
    let raw = &G::raw(points)[..n];
    let scalars: Vec<blst_scalar> = s[..n].par_iter().map(to_blst_scalar).collect();
    let sum = if raw.iter().any(G::raw_is_inf) {
        let (p, s): (Vec<G::Raw>, Vec<blst_scalar>) =
            raw.iter().zip(&scalars).filter(|(p, _)| !G::raw_is_inf(p)).map(|(p, s)| (*p, s.clone())).unzip();
        G::msm(&p, &s)
    } else {
        G::msm(raw, &scalars)
    };
    G::from_raw(G::to_affine(&sum))
}

/// The product of the Miller loops of the pairs (a_i, b_i), before the final exponentiation.
pub fn miller_loop(a: &[G1Affine], b: &[G2Affine]) -> blst_fp12 {
    assert_eq!(a.len(), b.len(), "pairing product of vectors of different lengths");
    let (a, b) = (G1Affine::raw(a), G2Affine::raw(b));
    let pairs: Vec<(blst_p1_affine, blst_p2_affine)> = a
        .iter()
        .zip(b)
        .filter(|(p, q)| !G1Affine::raw_is_inf(p) && !G2Affine::raw_is_inf(q))
        .map(|(p, q)| (*p, *q))
        .collect();
    let tasks = (rayon::current_num_threads() * 4).max(1);
    let per_task = pairs.len().div_ceil(tasks).next_multiple_of(MILLER_N).max(MILLER_N);
    pairs.par_chunks(per_task).map(miller_chunk).reduce(fp12_one, |x, y| fp12_mul(&x, &y))
}

fn miller_chunk(pairs: &[(blst_p1_affine, blst_p2_affine)]) -> blst_fp12 {
    let ps: Vec<*const blst_p1_affine> = pairs.iter().map(|(p, _)| p as *const _).collect();
    let qs: Vec<*const blst_p2_affine> = pairs.iter().map(|(_, q)| q as *const _).collect();
    let mut out = blst_fp12::default();
    unsafe { blst_miller_loop_n(&mut out, qs.as_ptr(), ps.as_ptr(), pairs.len()) };
    out
}

fn fp12_one() -> blst_fp12 {
    unsafe { *blst_fp12_one() }
}

pub fn fp12_mul(x: &blst_fp12, y: &blst_fp12) -> blst_fp12 {
    let mut out = blst_fp12::default();
    unsafe { blst_fp12_mul(&mut out, x, y) };
    out
}

/// The final exponentiation: a Miller loop product as an element of Gt.
pub fn final_exp(ml: &blst_fp12) -> Gt {
    let mut out = blst_fp12::default();
    unsafe { blst_final_exp(&mut out, ml) };
    Gt::from(Fp12::from(out))
}

/// Π e(a_i, b_i).
pub fn pairing_product(a: &[G1Affine], b: &[G2Affine]) -> Gt {
    final_exp(&miller_loop(a, b))
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
