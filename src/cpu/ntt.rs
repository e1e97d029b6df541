//! Radix-2 number-theoretic transforms over the BLS12-381 scalar field.
//!
//! Decimation in time after a bit-reversal permutation. The first stages run block by block
//! (blocks of 2^14 elements, 512 KiB, stay in L2); the remaining stages sweep the whole array,
//! parallel over butterflies. Twiddles are precomputed once per domain.
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

/// Elements per cache-resident block of the first stages.
const BLOCK_LOG: u32 = 14;

/// A radix-2 evaluation domain of size 2^log_n with its twiddle tables.
pub struct Domain {
    pub log_n: u32,
    pub n: usize,
    /// ω^i for i < n/2, ω a primitive n-th root of unity.
    twiddles: Vec<Scalar>,
    /// ω^-i for i < n/2.
    twiddles_inv: Vec<Scalar>,
    pub n_inv: Scalar,
}

/// A primitive 2^log_n-th root of unity (Fr has 2-adicity 32).
pub fn root_of_unity(log_n: u32) -> Scalar {
    assert!(log_n <= Scalar::S, "domain 2^{log_n} exceeds Fr's 2-adicity");
    let mut w = Scalar::ROOT_OF_UNITY;
    for _ in log_n..Scalar::S {
        w = w.square();
    }
    w
}

fn powers(base: Scalar, count: usize) -> Vec<Scalar> {
    let mut out = vec![Scalar::ZERO; count];
    let chunk = 1 << 12;
    out.par_chunks_mut(chunk).enumerate().for_each(|(c, part)| {
        let mut acc = base.pow_vartime([(c * chunk) as u64]);
        for v in part {
            *v = acc;
            acc *= base;
        }
    });
    out
}

impl Domain {
    pub fn new(log_n: u32) -> Self {
        let n = 1usize << log_n;
        let omega = root_of_unity(log_n);
        let half = (n / 2).max(1);
        Domain {
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

    /// In place: coefficients → evaluations at ω^i.
    pub fn ntt(&self, a: &mut [Scalar]) {
        self.transform(a, &self.twiddles);
    }

    /// In place: evaluations at ω^i → coefficients (scaled by 1/n).
    pub fn intt(&self, a: &mut [Scalar]) {
        self.transform(a, &self.twiddles_inv);
        let n_inv = self.n_inv;
        a.par_iter_mut().with_min_len(1 << 12).for_each(|v| *v *= n_inv);
    }

    /// In place: coefficients → evaluations at g·ω^i (g = Fr's multiplicative generator).
    pub fn coset_ntt(&self, a: &mut [Scalar]) {
        distribute_powers(a, Scalar::MULTIPLICATIVE_GENERATOR);
        self.ntt(a);
    }

    /// In place: evaluations at g·ω^i → coefficients.
    pub fn coset_intt(&self, a: &mut [Scalar]) {
        self.intt(a);
        distribute_powers(a, Scalar::MULTIPLICATIVE_GENERATOR.invert().unwrap());
    }

    fn transform(&self, a: &mut [Scalar], tw: &[Scalar]) {
        assert_eq!(a.len(), self.n);
        if self.n == 1 {
            return;
        }
        bit_reverse(a, self.log_n);
        let block_log = BLOCK_LOG.min(self.log_n);
        let block = 1usize << block_log;
        // Stages with half-size m < block: each block of `block` elements is independent.
        a.par_chunks_mut(block).for_each(|blk| {
            let mut m = 1;
            while m < block {
                let stride = self.n / (2 * m);
                for pair in blk.chunks_mut(2 * m) {
                    let (lo, hi) = pair.split_at_mut(m);
                    butterflies(lo, hi, tw, 0, stride);
                }
                m *= 2;
            }
        });
        // Remaining stages: parallel inside each group of 2m.
        let mut m = block;
        while m < self.n {
            let stride = self.n / (2 * m);
            for pair in a.chunks_mut(2 * m) {
                let (lo, hi) = pair.split_at_mut(m);
                let piece = 1 << 12;
                lo.par_chunks_mut(piece).zip(hi.par_chunks_mut(piece)).enumerate().for_each(|(c, (l, h))| {
                    butterflies(l, h, tw, c * piece, stride);
                });
            }
            m *= 2;
        }
    }
}

/// lo[j], hi[j] ← lo[j] + w·hi[j], lo[j] − w·hi[j], w = tw[(j0 + j)·stride].
#[inline]
fn butterflies(lo: &mut [Scalar], hi: &mut [Scalar], tw: &[Scalar], j0: usize, stride: usize) {
    for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
        let t = if j0 + j == 0 { *y } else { *y * tw[(j0 + j) * stride] };
        *y = *x - t;
        *x += t;
    }
}

/// a[i] ← a[i]·g^i.
pub fn distribute_powers(a: &mut [Scalar], g: Scalar) {
    let chunk = 1 << 12;
    a.par_chunks_mut(chunk).enumerate().for_each(|(c, part)| {
        let mut acc = g.pow_vartime([(c * chunk) as u64]);
        for v in part {
            *v *= acc;
            acc *= g;
        }
    });
}

/// Permutes a (length 2^log_n) into bit-reversed index order.
pub fn bit_reverse(a: &mut [Scalar], log_n: u32) {
    if log_n == 0 {
        return;
    }
    let shift = usize::BITS - log_n;
    for i in 0..a.len() {
        let r = i.reverse_bits() >> shift;
        if i < r {
            a.swap(i, r);
        }
    }
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
    fn ntt_matches_naive_evaluation_and_inverts() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for log_n in [0u32, 1, 3, 6, 15] {
            let d = Domain::new(log_n);
            let coeffs: Vec<Scalar> = (0..d.n).map(|_| Scalar::random(&mut rng)).collect();
            let mut v = coeffs.clone();
            d.ntt(&mut v);
            let w = root_of_unity(log_n);
            for i in [0usize, 1, d.n / 2, d.n - 1].into_iter().filter(|&i| i < d.n) {
                assert_eq!(v[i], eval(&coeffs, w.pow_vartime([i as u64])), "log_n {log_n} i {i}");
            }
            d.intt(&mut v);
            assert_eq!(v, coeffs);
            let mut c = coeffs.clone();
            d.coset_ntt(&mut c);
            let g = Scalar::MULTIPLICATIVE_GENERATOR;
            assert_eq!(c[d.n - 1], eval(&coeffs, g * w.pow_vartime([(d.n - 1) as u64])));
            d.coset_intt(&mut c);
            assert_eq!(c, coeffs);
        }
    }
}
