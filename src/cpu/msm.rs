//! Multi-scalar multiplication on the CPU with blst (Pippenger, multi-threaded).
//!
//! Most witness values of Filecoin circuits are bits, so scalars are split three ways: 0 is
//! skipped, 1 sends its point to a batch addition, anything else goes to the real MSM, once
//! per distinct value: the points of a value met before are added to its first point
//! ([`super::repeats`]). Points are decoded from the mmapped section only when their scalar is
//! not 0.
use std::borrow::Cow;

use blstrs::Scalar;

use super::avx512::MIN_POINTS as AVX512_MIN_POINTS;
use super::repeats::{summed_section, Distinct, GroupSums};
use crate::ec::scalar::as_bytes;
use crate::ec::{scalar_bytes, Curve, P1Affine, P2Affine, ScalarBytes, G1, G2, P1, P2};
use crate::srs::points::gather;

/// Point indices of a query split by their scalar.
#[derive(Default)]
pub struct Split {
    /// Indices of the points whose scalar is 1.
    pub ones: Vec<u32>,
    /// Per distinct scalar other than 0 and 1, the index of the first point with it (empty for
    /// a dense query: there scalar i meets point i).
    pub others: Vec<u32>,
    /// The MSM's scalars, in the order of `others` (or of the points, dense).
    pub scalars: Vec<ScalarBytes>,
    /// The other points with a scalar met before: (point index, position of that scalar in
    /// `others`). Their points are added to the first one's before the MSM.
    pub repeats: Vec<(u32, u32)>,
    /// Every point goes to the MSM, scalar i with point i (a dense query).
    pub dense: bool,
}

impl Split {
    /// Splits scalars given in point order (the i-th scalar meets point i).
    pub fn new<'a>(scalars: impl Iterator<Item = &'a Scalar>) -> Self {
        let mut s = Split::default();
        let mut distinct = Distinct::default();
        for (i, v) in scalars.enumerate() {
            if crate::field::fr::is_zero(v) {
                continue;
            } else if crate::field::fr::is_one(v) {
                s.ones.push(i as u32);
            } else if let Some(at) = distinct.seen(v, s.others.len()) {
                s.repeats.push((i as u32, at));
            } else {
                s.others.push(i as u32);
                s.scalars.push(scalar_bytes(v));
            }
        }
        s
    }

    /// Every scalar goes to the MSM (for dense queries such as h).
    pub fn dense(scalars: Vec<ScalarBytes>) -> Self {
        Split { dense: true, scalars, ..Split::default() }
    }

    /// The section the MSM reads and the indices of its points there, scalar j meeting point
    /// j: the query's own section, or where scalars repeat, the section of the summed points.
    fn msm_points<'a, C: GroupSums>(&'a self, raw: &'a [u8]) -> (Cow<'a, [u8]>, Cow<'a, [u32]>) {
        if self.repeats.is_empty() {
            return (raw.into(), self.msm_indices());
        }
        let summed = summed_section::<C>(raw, &self.others, &self.repeats);
        (summed.into(), (0..self.scalars.len() as u32).collect::<Vec<_>>().into())
    }

    /// The indices of the MSM's points.
    fn msm_indices(&self) -> Cow<'_, [u32]> {
        if self.dense {
            (0..self.scalars.len() as u32).collect::<Vec<_>>().into()
        } else {
            self.others.as_slice().into()
        }
    }
}

/// Σ scalars[i]·points[i]: on AVX-512 IFMA from [`AVX512_MIN_POINTS`] points on
/// ([`super::avx512::msm`], the same point), else blst.
pub fn msm_g1(points: &[P1Affine], scalars: &[ScalarBytes]) -> P1 {
    if points.is_empty() {
        return P1::default();
    }
    #[cfg(target_arch = "x86_64")]
    if points.len() >= AVX512_MIN_POINTS && crate::field::lanes::available() {
        return super::avx512::msm::msm_g1(points, &scalars[..points.len()]);
    }
    G1::msm(points, as_bytes(scalars), 255)
}

/// Σ scalars[i]·points[i] over G2 by blst.
pub fn msm_g2(points: &[P2Affine], scalars: &[ScalarBytes]) -> P2 {
    G2::msm(points, as_bytes(scalars), 255)
}

/// The query Σ s_i·P_i over a G1 section's raw bytes, by the split. A dense query on AVX-512
/// reads the points straight from the bytes (no vector of decoded points). The sum of the ones
/// runs beside the MSM: a small one is a single task, which left a core idle.
pub fn query_g1(raw: &[u8], split: &Split) -> P1 {
    #[cfg(target_arch = "x86_64")]
    if split.dense && split.scalars.len() >= AVX512_MIN_POINTS && crate::field::lanes::available() {
        let bytes = &raw[..split.scalars.len() * crate::srs::points::G1_BYTES];
        return super::avx512::msm::msm_g1_from(super::avx512::msm::G1Points::Raw(bytes), &split.scalars);
    }
    let (ones, rest) = rayon::join(
        || sum_g1(raw, &split.ones),
        || {
            let (points, indices) = split.msm_points::<G1>(raw);
            msm_g1(&gather::<G1>(&points, &indices), &split.scalars)
        },
    );
    G1::add(&ones, &rest)
}

/// Σ of the points `indices` of a G1 section's raw bytes: on AVX-512 IFMA from
/// [`AVX512_MIN_POINTS`] points on, straight from the bytes ([`super::avx512::msm::sum_g1_raw`]),
/// else decoded by blst and batch-added.
fn sum_g1(raw: &[u8], indices: &[u32]) -> P1 {
    #[cfg(target_arch = "x86_64")]
    if indices.len() >= AVX512_MIN_POINTS && crate::field::lanes::available() {
        return super::avx512::msm::sum_g1_raw(raw, indices);
    }
    G1::sum(&gather::<G1>(raw, indices))
}

/// The query Σ s_i·Q_i over a G2 section's raw bytes, by the split: on AVX-512 IFMA, from
/// [`AVX512_MIN_POINTS`] points on, straight from the bytes ([`super::avx512::msm::msm_g2_raw`],
/// [`super::avx512::msm::sum_g2_raw`]), else decoded by blst; the ones beside the MSM, as in
/// [`query_g1`].
pub fn query_g2(raw: &[u8], split: &Split) -> P2 {
    let (ones, rest) = rayon::join(|| sum_g2(raw, &split.ones), || msm_g2_split(raw, split));
    G2::add(&ones, &rest)
}

fn sum_g2(raw: &[u8], indices: &[u32]) -> P2 {
    #[cfg(target_arch = "x86_64")]
    if indices.len() >= AVX512_MIN_POINTS && crate::field::lanes::available() {
        return super::avx512::msm::sum_g2_raw(raw, indices);
    }
    G2::sum(&gather::<G2>(raw, indices))
}

fn msm_g2_split(raw: &[u8], split: &Split) -> P2 {
    let (points, indices) = split.msm_points::<G2>(raw);
    #[cfg(target_arch = "x86_64")]
    if split.scalars.len() >= AVX512_MIN_POINTS && crate::field::lanes::available() {
        return super::avx512::msm::msm_g2_raw(&points, &indices, &split.scalars);
    }
    msm_g2(&gather::<G2>(&points, &indices), &split.scalars)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use group::{Curve as _, Group};
    use rand::SeedableRng;

    #[test]
    fn split_query_matches_naive_sum() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let n = 300;
        let pts: Vec<blstrs::G1Affine> = (0..n).map(|_| blstrs::G1Projective::random(&mut rng).to_affine()).collect();
        let raw: Vec<u8> = pts.iter().flat_map(|p| p.to_uncompressed()).collect();
        let scalars: Vec<Scalar> = (0..n)
            .map(|i| match i % 3 {
                0 => Scalar::ZERO,
                1 => Scalar::ONE,
                _ => Scalar::random(&mut rng),
            })
            .collect();
        let want: blstrs::G1Projective = pts.iter().zip(&scalars).map(|(p, s)| p * s).sum();
        let got = query_g1(&raw, &Split::new(scalars.iter()));
        let mut bytes = [0u8; 48];
        G1::compress(&got, &mut bytes);
        assert_eq!(bytes, want.to_affine().to_compressed());
    }

    /// `split` with every repeat sent to the MSM on its own (the query without summing).
    fn unsummed(split: &Split) -> Split {
        let mut s = Split { ones: split.ones.clone(), ..Split::default() };
        s.others = split.others.iter().copied().chain(split.repeats.iter().map(|r| r.0)).collect();
        s.scalars =
            split.scalars.iter().chain(split.repeats.iter().map(|r| &split.scalars[r.1 as usize])).cloned().collect();
        s
    }

    /// A section of `n` points whose last two are P and −P, scalars drawn from `values`
    /// distinct values (and 0 and 1), the last two equal: one value's points sum to infinity.
    fn repeating<C: Curve>(n: usize, values: usize) -> (Vec<u8>, Vec<Scalar>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let mut pts = crate::ec::sample::random_progression::<C>(n - 1, &mut rng);
        pts.push(C::neg_affine(&pts[n - 2]));
        let pool: Vec<Scalar> = (0..values).map(|_| Scalar::random(&mut rng)).collect();
        let mut scalars: Vec<Scalar> = (0..n)
            .map(|i| match i % 7 {
                0 => Scalar::ZERO,
                1 => Scalar::ONE,
                _ => pool[(i * 31) % values],
            })
            .collect();
        scalars[n - 1] = scalars[n - 2];
        (crate::ec::sample::encode_all::<C>(&pts), scalars)
    }

    #[test]
    fn repeated_scalars_give_the_query_without_summing() {
        for (n, values) in [(600, 40), (3 * AVX512_MIN_POINTS, AVX512_MIN_POINTS + 5)] {
            let (raw, scalars) = repeating::<G1>(n, values);
            let split = Split::new(scalars.iter());
            assert_eq!(split.scalars.len(), values);
            assert!(G1::eq(&query_g1(&raw, &split), &query_g1(&raw, &unsummed(&split))));
            let (raw, scalars) = repeating::<G2>(n, values);
            let split = Split::new(scalars.iter());
            assert!(G2::eq(&query_g2(&raw, &split), &query_g2(&raw, &unsummed(&split))));
        }
    }
}
