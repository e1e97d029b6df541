//! Radix-2 number-theoretic transforms over the BLS12-381 scalar field, paired so that no
//! bit-reversal pass is needed: the forward transform used on natural-order data is
//! decimation in frequency (natural in, bit-reversed out), and the one used on bit-reversed
//! data is decimation in time (bit-reversed in, natural out).
//!
//! Stages whose butterflies span fewer than 2^14 elements (512 KiB, L2-resident) run block by
//! block, in parallel over blocks; wider stages sweep the array, in parallel over butterflies.
//! Twiddles (ω^i and ω^-i for i < n/2) are precomputed once per domain.
use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::field::{powers, root_of_unity};

/// Elements per cache-resident block.
const BLOCK_LOG: u32 = 14;
/// Elements per parallel task in the wide stages and elementwise passes.
const PIECE: usize = 1 << 12;

/// A radix-2 evaluation domain of size 2^log_n with its twiddle tables.
pub struct EvaluationDomain {
    pub log_n: u32,
    pub n: usize,
    /// ω^i for i < n/2, ω a primitive n-th root of unity.
    twiddles: Vec<Scalar>,
    /// ω^-i for i < n/2.
    twiddles_inv: Vec<Scalar>,
    pub n_inv: Scalar,
}

/// Which way a transform goes.
#[derive(Clone, Copy)]
pub enum Direction {
    /// Coefficients → evaluations at ω^i.
    Forward,
    /// Evaluations → n·coefficients (the caller scales by 1/n).
    Inverse,
}

#[inline]
fn rev(i: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - bits)
    }
}

impl EvaluationDomain {
    pub fn new(log_n: u32) -> Self {
        let n = 1usize << log_n;
        let omega = root_of_unity(log_n);
        let half = (n / 2).max(1);
        EvaluationDomain {
            log_n,
            n,
            twiddles: powers(omega, half),
            twiddles_inv: powers(omega.invert().unwrap(), half),
            n_inv: Scalar::from(n as u64).invert().unwrap(),
        }
    }

    /// Smallest domain holding `len` values.
    pub fn for_len(len: usize) -> Self {
        Self::new(len.next_power_of_two().trailing_zeros())
    }

    fn table(&self, dir: Direction) -> &[Scalar] {
        match dir {
            Direction::Forward => &self.twiddles,
            Direction::Inverse => &self.twiddles_inv,
        }
    }

    /// Decimation in frequency: natural-order input, bit-reversed output.
    pub fn dif(&self, a: &mut [Scalar], dir: Direction) {
        assert_eq!(a.len(), self.n);
        let tw = self.table(dir);
        let block = 1usize << BLOCK_LOG.min(self.log_n);
        let mut m = self.n / 2;
        while m >= block {
            wide_stage(a, m, self.n / (2 * m), tw, dif_butterflies);
            m /= 2;
        }
        a.par_chunks_mut(block).for_each(|blk| {
            let mut m = block / 2;
            while m >= 1 {
                narrow_stage(blk, m, self.n / (2 * m), tw, dif_butterflies);
                m /= 2;
            }
        });
    }

    /// Decimation in time: bit-reversed input, natural-order output.
    pub fn dit(&self, a: &mut [Scalar], dir: Direction) {
        assert_eq!(a.len(), self.n);
        let tw = self.table(dir);
        let block = 1usize << BLOCK_LOG.min(self.log_n);
        a.par_chunks_mut(block).for_each(|blk| {
            let mut m = 1;
            while m < block {
                narrow_stage(blk, m, self.n / (2 * m), tw, dit_butterflies);
                m *= 2;
            }
        });
        let mut m = block;
        while m < self.n {
            wide_stage(a, m, self.n / (2 * m), tw, dit_butterflies);
            m *= 2;
        }
    }

    /// In place, natural order: coefficients → evaluations at ω^i.
    pub fn ntt(&self, a: &mut [Scalar]) {
        self.dif(a, Direction::Forward);
        bit_reverse(a, self.log_n);
    }

    /// In place, natural order: evaluations at ω^i → coefficients.
    pub fn intt(&self, a: &mut [Scalar]) {
        self.dif(a, Direction::Inverse);
        bit_reverse(a, self.log_n);
        let n_inv = self.n_inv;
        a.par_iter_mut().with_min_len(PIECE).for_each(|v| *v *= n_inv);
    }

    /// In place, for data in bit-reversed order: a[p] ← a[p]·c·g^rev(p). With `a` holding
    /// n·coefficients in bit-reversed order (the output of an inverse `dif`), c = 1/n and
    /// g the coset generator, this prepares a coset evaluation by `dit`.
    pub fn scale_bitrev(&self, a: &mut [Scalar], g: Scalar, c: Scalar) {
        // p = hi·2^k + lo  ⇒  rev(p) = rev_k(lo)·2^(L−k) + rev_{L−k}(hi).
        let (l, k) = (self.log_n, self.log_n / 2);
        let lo_pows = powers(g.pow_vartime([1u64 << (l - k)]), 1 << k);
        let hi_pows = powers(g, 1 << (l - k));
        let lo_tab: Vec<Scalar> = (0..1usize << k).map(|lo| lo_pows[rev(lo, k)]).collect();
        a.par_chunks_mut(1 << k).enumerate().for_each(|(hi, row)| {
            let row_c = hi_pows[rev(hi, l - k)] * c;
            for (v, t) in row.iter_mut().zip(&lo_tab) {
                *v *= *t * row_c;
            }
        });
    }
}

type Butterflies = fn(&mut [Scalar], &mut [Scalar], &[Scalar], usize, usize);

/// One stage over a cache-resident block: butterflies (j, j+m) in every group of 2m.
#[inline]
fn narrow_stage(blk: &mut [Scalar], m: usize, stride: usize, tw: &[Scalar], f: Butterflies) {
    for pair in blk.chunks_mut(2 * m) {
        let (lo, hi) = pair.split_at_mut(m);
        f(lo, hi, tw, 0, stride);
    }
}

/// One stage over the whole array, parallel over the butterflies of each group of 2m.
fn wide_stage(a: &mut [Scalar], m: usize, stride: usize, tw: &[Scalar], f: Butterflies) {
    for pair in a.chunks_mut(2 * m) {
        let (lo, hi) = pair.split_at_mut(m);
        lo.par_chunks_mut(PIECE)
            .zip(hi.par_chunks_mut(PIECE))
            .enumerate()
            .for_each(|(c, (l, h))| f(l, h, tw, c * PIECE, stride));
    }
}

/// Cooley–Tukey: x, y ← x + w·y, x − w·y with w = tw[(j0 + j)·stride].
fn dit_butterflies(lo: &mut [Scalar], hi: &mut [Scalar], tw: &[Scalar], j0: usize, stride: usize) {
    for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
        let t = *y * tw[(j0 + j) * stride];
        *y = *x - t;
        *x += t;
    }
}

/// Gentleman–Sande: x, y ← x + y, (x − y)·w with w = tw[(j0 + j)·stride].
fn dif_butterflies(lo: &mut [Scalar], hi: &mut [Scalar], tw: &[Scalar], j0: usize, stride: usize) {
    for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
        let d = *x - *y;
        *x += *y;
        *y = d * tw[(j0 + j) * stride];
    }
}

/// Permutes a (length 2^log_n) into bit-reversed index order.
pub fn bit_reverse(a: &mut [Scalar], log_n: u32) {
    for i in 0..a.len() {
        let r = rev(i, log_n);
        if i < r {
            a.swap(i, r);
        }
    }
}

/// out[i] = a[rev(i)]: a bit-reversed array back in natural order, in parallel.
pub fn from_bitrev(a: &[Scalar], log_n: u32) -> Vec<Scalar> {
    (0..a.len()).into_par_iter().with_min_len(PIECE).map(|i| a[rev(i, log_n)]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Naive evaluation Σ c_j x^j.
    fn eval(coeffs: &[Scalar], x: Scalar) -> Scalar {
        coeffs.iter().rev().fold(Scalar::ZERO, |acc, c| acc * x + c)
    }

    #[test]
    fn transforms_match_naive_evaluation_and_invert() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for log_n in [0u32, 1, 3, 6, 15, 16] {
            let d = EvaluationDomain::new(log_n);
            let coeffs: Vec<Scalar> = (0..d.n).map(|_| Scalar::random(&mut rng)).collect();
            let mut v = coeffs.clone();
            d.ntt(&mut v);
            let w = root_of_unity(log_n);
            for i in [0usize, 1, d.n / 2, d.n - 1].into_iter().filter(|&i| i < d.n) {
                assert_eq!(v[i], eval(&coeffs, w.pow_vartime([i as u64])), "log_n {log_n} i {i}");
            }
            d.intt(&mut v);
            assert_eq!(v, coeffs);

            // The coset route of the H pipeline: dif⁻¹ → scale → dit gives evaluations at g·ω^i.
            let mut e = coeffs.clone();
            d.ntt(&mut e);
            d.dif(&mut e, Direction::Inverse);
            let g = <Scalar as ff::PrimeField>::MULTIPLICATIVE_GENERATOR;
            d.scale_bitrev(&mut e, g, d.n_inv);
            d.dit(&mut e, Direction::Forward);
            let i = d.n - 1;
            assert_eq!(e[i], eval(&coeffs, g * w.pow_vartime([i as u64])), "coset log_n {log_n}");
        }
    }
}
