//! Σ k_i·Q_i over G2 on AVX-512 IFMA, straight from a section's raw bytes: the B query's G2 half.
//!
//! The G1 MSM's Pippenger ([`super::SignedDigits`]: signed digits, a counting sort per window), with the
//! bucket sums by the same batch-affine accumulation ([`buckets::accumulate`]) over Fp2. The
//! points are few (tens of thousands in a 2KiB proof), so the windows are narrow, and Σ b·B_b over
//! each window's few buckets and the Horner steps are left to blst. [`sum_g2_raw`] sums the
//! points whose scalar is 1 by the same accumulation with every point in one bucket.
use rayon::prelude::*;

use super::buckets::Sorted;
use super::coord::{convert8_g2_at, to_affine_blst_g2};
use super::coord::{Affine2, Fe2};
use super::{extras_sum, horner, window_sums, Buckets, SignedDigits, SyncPtr};
use crate::ec::encoding::is_infinity;
use crate::ec::{Curve, P2Affine, ScalarBytes, G2, P2};
use crate::srs::points::G2_BYTES;

/// Σ scalars[j]·Q_(indices[j]) over the G2 points of a section's raw bytes (scalars taken mod r
/// as blst takes them, 255 bits).
pub fn msm_g2_raw(raw: &[u8], indices: &[u32], scalars: &[ScalarBytes]) -> P2 {
    assert!(crate::field::lanes::available(), "AVX-512 IFMA MSM called on a CPU without it");
    assert_eq!(indices.len(), scalars.len());
    let mut out = P2::default();
    for (at, s) in indices.chunks(Sorted::MAX_POINTS).zip(scalars.chunks(Sorted::MAX_POINTS)) {
        out = G2::add(&out, &msm_chunk(raw, at, s));
    }
    out
}

/// Σ of the G2 points `indices` of a section's raw bytes.
pub fn sum_g2_raw(raw: &[u8], indices: &[u32]) -> P2 {
    super::sum_raw::<Fe2>(raw, indices)
}

/// The windows for n G2 points: a bucket of Σ b·B_b costs two blst additions, some seven
/// batch-affine ones, so windows stay narrower than G1's.
fn plan(n: usize) -> SignedDigits {
    let cost = |c: usize| 255usize.div_ceil(c) * (n + (7 << (c - 1)));
    SignedDigits::with_c((4..=16).min_by_key(|&c| cost(c)).unwrap())
}

fn msm_chunk(raw: &[u8], indices: &[u32], scalars: &[ScalarBytes]) -> P2 {
    const CHUNK: usize = 1 << 10;
    let n = indices.len();
    if n == 0 {
        return P2::default();
    }
    let plan = plan(n);
    let mut pts = vec![Affine2::default(); n];
    let mut keys = Vec::<u32>::with_capacity(plan.windows * n);
    let key_ptr = SyncPtr(keys.as_mut_ptr());
    pts.par_chunks_mut(CHUNK).enumerate().for_each(|(ci, out)| {
        let i0 = ci * CHUNK;
        for (j, o) in out.chunks_mut(8).enumerate() {
            let at = &indices[i0 + 8 * j..i0 + 8 * j + o.len()];
            // SAFETY: the CPU has AVX-512F and IFMA (asserted by msm_g2_raw).
            o.copy_from_slice(&unsafe { convert8_g2_at(raw, at) }[..o.len()]);
        }
        let inf = |i: usize| is_infinity(&raw[indices[i] as usize * G2_BYTES..]);
        // SAFETY: keys (w, i) for i in this chunk are written by this chunk only.
        unsafe { plan.fill_keys(scalars, i0..i0 + out.len(), inf, key_ptr, n) };
    });
    // SAFETY: every (w, i) was written above.
    unsafe { keys.set_len(plan.windows * n) };
    let sums = window_sums::<Fe2, P2>(&pts, &keys, &plan, window_sum);
    horner::<Fe2>(&sums, plan.c)
}

/// Σ_b b·(Σ of the points in bucket b) for one window's buckets (None: no point has a digit).
fn window_sum(buckets: Option<Buckets<Fe2>>) -> P2 {
    let Some((primary, extras)) = buckets else {
        return P2::default();
    };
    // Σ b·B_b from the top: S += B_b, T += S.
    // SAFETY: the CPU has AVX-512F and IFMA (asserted by msm_g2_raw).
    let buckets: Vec<P2Affine> = primary[1..].chunks(8).flat_map(|c| unsafe { to_affine_blst_g2(c) }).collect();
    let (mut s, mut t) = (P2::default(), P2::default());
    for b in buckets.iter().rev() {
        s = G2::add_affine(&s, b);
        t = G2::add(&t, &s);
    }
    G2::add(&t, &extras_sum::<Fe2>(&extras))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ec::sample::{encode_all, random_progression};
    use crate::ec::scalar::{as_bytes, from_words};
    use blstrs::Scalar;
    use ff::Field;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// n distinct G2 points Q_0 + i·G2.
    fn points(n: usize, rng: &mut ChaCha8Rng) -> Vec<P2Affine> {
        random_progression::<G2>(n, rng)
    }

    fn neg(p: &P2Affine) -> P2Affine {
        G2::neg_affine(p)
    }

    /// The points as a `.params` section stores them (uncompressed, 0x40 + zeros for infinity).
    fn raw(points: &[P2Affine]) -> Vec<u8> {
        encode_all::<G2>(points)
    }

    fn scalar(rng: &mut ChaCha8Rng) -> ScalarBytes {
        crate::ec::scalar_bytes(&Scalar::random(&mut *rng))
    }

    fn small(v: u64) -> ScalarBytes {
        from_words([v, 0, 0, 0])
    }

    fn ifma(test: &str) -> bool {
        crate::field::lanes::available_for_test(test)
    }

    /// Ours against blst's MSM over the same points, taken at `indices`.
    fn check(what: &str, pts: &[P2Affine], indices: &[u32], scalars: &[ScalarBytes]) {
        let got = msm_g2_raw(&raw(pts), indices, scalars);
        let picked: Vec<P2Affine> = indices.iter().map(|&i| pts[i as usize]).collect();
        let want = G2::msm(&picked, as_bytes(scalars), 255);
        assert!(G2::eq(&got, &want), "{what}: n = {}", indices.len());
    }

    #[test]
    fn msm_matches_blst() {
        if !ifma("msm_matches_blst") {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(22);
        let mut pts = points(3000, &mut rng);
        for i in (0..pts.len()).step_by(7) {
            pts[i] = P2Affine::default();
        }
        for n in [1, 7, 9, 100, 3000] {
            let idx: Vec<u32> = (0..n as u32).collect();
            let s: Vec<ScalarBytes> = (0..n).map(|_| scalar(&mut rng)).collect();
            check("random, every 7th at infinity", &pts, &idx, &s);
        }
        // Indices out of order, with repeats; edge scalars among random ones.
        let idx: Vec<u32> = (0..2000).map(|_| rng.gen_range(0..3000)).collect();
        let edge = [small(0), small(1), small(2), small(1 << 20), small(u64::MAX)];
        let s: Vec<ScalarBytes> = (0..idx.len())
            .map(|i| if i % 4 == 0 { edge[i / 4 % edge.len()].clone() } else { scalar(&mut rng) })
            .collect();
        check("scattered indices, edge scalars", &pts, &idx, &s);
        // One point many times (doublings in the buckets), and P, −P with one scalar (cancels).
        let q = points(1, &mut rng)[0];
        let same = vec![q; 600];
        let idx: Vec<u32> = (0..600).collect();
        let one = scalar(&mut rng);
        check("repeated point", &same, &idx, &vec![one.clone(); 600]);
        let pm: Vec<P2Affine> = (0..600).map(|i| if i % 2 == 0 { q } else { neg(&q) }).collect();
        check("P and -P", &pm, &idx, &vec![one; 600]);
    }

    #[test]
    fn sums_match_blst() {
        if !ifma("sums_match_blst") {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(23);
        let n = super::super::SUM_BLOCK + 700;
        let mut pts = points(n, &mut rng);
        for i in (0..n).step_by(11) {
            pts[i] = P2Affine::default();
        }
        let bytes = raw(&pts);
        let every: Vec<u32> = (0..n as u32).collect();
        let sparse: Vec<u32> = (0..n as u32).filter(|i| i % 3 != 1).chain([5, 5, 8]).collect();
        let q = neg(&pts[1]);
        for (what, idx) in [("every point", &every), ("sparse, repeats", &sparse), ("one", &vec![2u32])] {
            let want = idx.iter().fold(P2::default(), |acc, &i| G2::add_affine(&acc, &pts[i as usize]));
            let got = sum_g2_raw(&bytes, idx);
            assert!(G2::eq(&got, &want), "{what}");
        }
        // P + (−P) cancels to infinity.
        let two = raw(&[pts[1], q]);
        assert!(G2::is_inf(&sum_g2_raw(&two, &[0, 1])));
    }
}
