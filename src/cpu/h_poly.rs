//! The H polynomial of a Groth16 proof on the CPU: h = (A·B − C) / Z over the domain, with
//! A, B, C given by their evaluations at the domain's points. Seven transforms and no
//! bit-reversal pass: for each of A, B, C an inverse DIF (natural → bit-reversed n·coeffs),
//! a scale by g^rev(i)/n (the coset shift), and a forward DIT (→ natural coset evaluations);
//! then pointwise (a·b − c)/Z, Z = g^n − 1 being constant on the coset; then an inverse DIF
//! and a scale by g^-rev(i)/n give h's coefficients, returned in natural order, n − 1 of them.
//! On CPUs with AVX-512 IFMA the same steps run eight elements at a time ([`super::avx512::ntt`]).
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use super::ntt::{from_bitrev, Direction, EvaluationDomain};

pub fn h_poly(a: Vec<Scalar>, b: Vec<Scalar>, c: Vec<Scalar>) -> Vec<Scalar> {
    #[cfg(target_arch = "x86_64")]
    {
        use super::avx512;
        let log_n = a.len().next_power_of_two().trailing_zeros();
        if crate::field::lanes::available() && log_n >= avx512::ntt::MIN_LOG_N {
            return avx512::ntt::h_poly(&avx512::ntt::LaneDomain::cached(log_n), a, b, c);
        }
    }
    h_poly_blst(a, b, c)
}

/// [`h_poly`] as the MSM takes its scalars (canonical, little-endian; on AVX-512 IFMA straight
/// from the transform's form).
pub fn h_scalars(a: Vec<Scalar>, b: Vec<Scalar>, c: Vec<Scalar>) -> Vec<crate::ec::ScalarBytes> {
    #[cfg(target_arch = "x86_64")]
    {
        use super::avx512;
        let log_n = a.len().next_power_of_two().trailing_zeros();
        if crate::field::lanes::available() && log_n >= avx512::ntt::MIN_LOG_N {
            return avx512::ntt::h_poly_scalars(&avx512::ntt::LaneDomain::cached(log_n), a, b, c);
        }
    }
    h_poly_blst(a, b, c).par_iter().with_min_len(1 << 12).map(crate::ec::scalar_bytes).collect()
}

/// [`h_poly`] with blst's Fr arithmetic, one element at a time.
pub fn h_poly_blst(mut a: Vec<Scalar>, mut b: Vec<Scalar>, mut c: Vec<Scalar>) -> Vec<Scalar> {
    let d = EvaluationDomain::for_len(a.len());
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    for v in [&mut a, &mut b, &mut c] {
        v.resize(d.n, Scalar::ZERO);
        d.dif(v, Direction::Inverse);
        d.scale_bitrev(v, g, d.n_inv);
        d.dit(v, Direction::Forward);
    }
    let z_inv = (g.pow_vartime([d.n as u64]) - Scalar::ONE).invert().unwrap();
    a.par_iter_mut().zip(b.par_iter()).zip(c.par_iter()).with_min_len(1 << 12).for_each(|((x, y), z)| {
        *x = (*x * y - z) * z_inv;
    });
    drop((b, c));
    d.dif(&mut a, Direction::Inverse);
    d.scale_bitrev(&mut a, g.invert().unwrap(), d.n_inv);
    let mut h = from_bitrev(&a, d.log_n);
    h.truncate(d.n - 1);
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn h_times_z_is_ab_minus_c() {
        // C = A·B on the domain, so A·B − C vanishes there and is divisible by Z; check
        // A(x)·B(x) − C(x) = h(x)·(x^n − 1) at a random x.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let n = 1 << 10;
        let a: Vec<Scalar> = (0..n - 3).map(|_| Scalar::random(&mut rng)).collect();
        let b: Vec<Scalar> = (0..n - 3).map(|_| Scalar::random(&mut rng)).collect();
        let c: Vec<Scalar> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        let h = h_poly(a.clone(), b.clone(), c.clone());
        assert_eq!(h.len(), n - 1);
        let d = EvaluationDomain::new(10);
        let interp = |mut v: Vec<Scalar>| {
            v.resize(n, Scalar::ZERO);
            d.intt(&mut v);
            v
        };
        let (pa, pb, pc) = (interp(a), interp(b), interp(c));
        let eval = |p: &[Scalar], x: Scalar| p.iter().rev().fold(Scalar::ZERO, |acc, k| acc * x + k);
        let x = Scalar::random(&mut rng);
        let lhs = eval(&pa, x) * eval(&pb, x) - eval(&pc, x);
        let rhs = eval(&h, x) * (x.pow_vartime([n as u64]) - Scalar::ONE);
        assert_eq!(lhs, rhs);
    }
}
