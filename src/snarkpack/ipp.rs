//! The vector operations SnarkPack is built from, on the curve layer ([`crate::ec`]) and spread
//! over rayon's threads:
//! - pairing products Π e(a_i, b_i): multi-Miller loops ([`MillerProduct::of`]), one chunk of
//!   pairs per task, the chunks' values multiplied, one final exponentiation;
//! - several products over the same G2 vector ([`miller_loops_sharing_g2`]): each G2 point's
//!   lines computed once ([`G2Lines`]) and evaluated at every G1 vector's point;
//! - multi-exponentiations Σ s_i·P_i in G1 and G2 (the CPU MSMs of [`crate::cpu::msm`]);
//! - the GIPA fold L_i + x·R_i and the entrywise scaling s_i·P_i, with the results made
//!   affine by one batched inversion per chunk.
//!
//! Points are blstrs' affine types, lent to the curve layer in place
//! ([`crate::ec::g1_affines_as_blst`]). Pairs with a point at infinity contribute 1.
//!
//! [`Pairings`] says where the Miller loops of the prover's pairing products run: here, or on a
//! device the caller offers ([`MillerLoops`], a GPU) for the products large enough to pay.
use blstrs::{G1Affine, G2Affine, Gt, Scalar};
use rayon::prelude::*;

use crate::ec::{
    g1_affine_from_blst, g1_affines_as_blst, g2_affine_from_blst, g2_affines_as_blst, scalar_bytes, Curve, G2Lines,
    MillerLoops, MillerProduct, P1Affine, ScalarBytes, G1, G2,
};

/// Points per task of the fold and scale loops (one batched inversion each) at most, and at
/// least: short vectors (GIPA's last rounds) are cut finer so that every thread gets some.
const CHUNK: usize = 256;
const MIN_CHUNK: usize = 32;
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

/// Points per task of a fold or scaling of `len` points: about four tasks per thread, within
/// [MIN_CHUNK, CHUNK].
fn points_per_task(len: usize) -> usize {
    len.div_ceil(rayon::current_num_threads() * 4).clamp(MIN_CHUNK, CHUNK)
}

/// The GIPA fold: left_i + x·right_i.
pub fn fold<G: Group>(left: &[G], right: &[G], x: &Scalar) -> Vec<G> {
    assert_eq!(left.len(), right.len(), "fold of vectors of different lengths");
    let s = scalar_bytes(x);
    let (l, r) = (G::raw(left), G::raw(right));
    let chunk = points_per_task(l.len());
    l.par_chunks(chunk)
        .zip(r.par_chunks(chunk))
        .flat_map_iter(|(l, r)| {
            let p: Vec<Jacobian<G>> = l.iter().zip(r).map(|(a, b)| G::C::add_affine(&mul::<G::C>(b, &s), a)).collect();
            affine_all::<G>(&p)
        })
        .collect()
}

/// Entrywise scaling: s_i·p_i.
pub fn scale<G: Group>(points: &[G], s: &[Scalar]) -> Vec<G> {
    assert_eq!(points.len(), s.len(), "scaling by a vector of another length");
    let chunk = points_per_task(points.len());
    G::raw(points)
        .par_chunks(chunk)
        .zip(s.par_chunks(chunk))
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
    let per_task = pairs_per_task(a.len());
    a.par_chunks(per_task)
        .zip(b.par_chunks(per_task))
        .map(|(p, q)| MillerProduct::of(p, q))
        .reduce(MillerProduct::one, |x, y| x.mul(&y))
}

/// Pairs per task of a pairing product at most, whatever the vector length.
fn pairs_per_task(len: usize) -> usize {
    let tasks = (rayon::current_num_threads() * 4).max(1);
    len.div_ceil(tasks).next_multiple_of(MILLER_N).max(MILLER_N)
}

/// The Miller loops of Π_i e(p_i, q_i) for each G1 vector p of `ps`, all over the G2 vector q:
/// chunks of q on rayon's threads, each chunk's lines computed once (MILLER_N points at a time,
/// so they stay in cache) and evaluated at every p.
pub fn miller_loops_sharing_g2(ps: &[&[G1Affine]], q: &[G2Affine]) -> Vec<MillerProduct> {
    for p in ps {
        assert_eq!(p.len(), q.len(), "pairing products of vectors of different lengths");
    }
    let ps: Vec<&[Affine<G1Affine>]> = ps.iter().map(|p| G1Affine::raw(p)).collect();
    let q = G2Affine::raw(q);
    let one = || vec![MillerProduct::one(); ps.len()];
    let times = |x: Vec<MillerProduct>, y: Vec<MillerProduct>| x.iter().zip(&y).map(|(x, y)| x.mul(y)).collect();
    let per_task = pairs_per_task(q.len());
    q.par_chunks(per_task)
        .enumerate()
        .map(|(t, chunk)| {
            let start = t * per_task;
            let mut acc = one();
            for (k, sub) in chunk.chunks(MILLER_N).enumerate() {
                let lines: Vec<G2Lines> = sub.iter().map(G2Lines::of).collect();
                let at = start + k * MILLER_N;
                for (f, p) in acc.iter_mut().zip(&ps) {
                    *f = f.mul(&MillerProduct::of_lines(&p[at..at + sub.len()], &lines));
                }
            }
            acc
        })
        .reduce(one, times)
}

/// Where the Miller loops of pairing products run: rayon's threads ([`Pairings::CPU`]), or a
/// device for the products of at least as many pairs as it says pay. A device that fails hands
/// the product back to the CPU after a warning; both give the same Fp12 values' products, so the
/// same pairings and the same aggregate bytes.
#[derive(Clone, Copy)]
pub struct Pairings<'a>(Option<&'a dyn MillerLoops>);

impl<'a> Pairings<'a> {
    pub const CPU: Pairings<'static> = Pairings(None);

    pub fn on(device: &'a dyn MillerLoops) -> Self {
        Pairings(Some(device))
    }

    /// The device, when it takes `pairs` pairs.
    fn device_for(&self, pairs: usize) -> Option<&'a dyn MillerLoops> {
        self.0.filter(|d| d.pays(pairs))
    }

    /// [`miller_loops_sharing_g2`], on the device when it pays.
    pub fn sharing_g2(&self, ps: &[&[G1Affine]], q: &[G2Affine]) -> Vec<MillerProduct> {
        if let Some(d) = self.device_for(ps.len() * q.len()) {
            let raw: Vec<&[P1Affine]> = ps.iter().map(|p| G1Affine::raw(p)).collect();
            match d.sharing_g2(&raw, G2Affine::raw(q)) {
                Ok(v) => return v,
                Err(e) => eprintln!("warning: {e:#}; pairing on the CPU instead"),
            }
        }
        miller_loops_sharing_g2(ps, q)
    }

    /// [`miller_loop`], on the device when it pays.
    pub fn miller_loop(&self, a: &[G1Affine], b: &[G2Affine]) -> MillerProduct {
        if self.device_for(a.len()).is_some() {
            return self.sharing_g2(&[a], b).remove(0);
        }
        miller_loop(a, b)
    }
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

    /// Products sharing a G2 vector against one product at a time, across task and line-chunk
    /// boundaries, with points at infinity.
    #[test]
    fn products_sharing_g2_match_one_at_a_time() {
        let mut r = rng();
        for n in [1usize, 16, 33, 300] {
            let (mut a, c) = (g1s(n, &mut r), g1s(n, &mut r));
            let mut b = g2s(n, &mut r);
            if n > 3 {
                a[2] = G1Affine::identity();
                b[n - 1] = G2Affine::identity();
            }
            let got = miller_loops_sharing_g2(&[&a, &c], &b);
            assert_eq!(got[0].final_exp(), pairing_product(&a, &b), "n = {n}");
            assert_eq!(got[1].final_exp(), pairing_product(&c, &b), "n = {n}");
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
