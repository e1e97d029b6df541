//! The H polynomial of a Groth16 proof on the CPU: h = (A·B − C) / Z over the domain, with
//! A, B, C given by their evaluations at the domain's points. Seven transforms: three inverse
//! NTTs, three coset NTTs, then pointwise a·b − c divided by Z (constant g^n − 1 on the coset)
//! and one inverse coset NTT. Returns the n − 1 coefficients that meet the `h` points.
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use super::ntt::Domain;

pub fn h_poly(mut a: Vec<Scalar>, mut b: Vec<Scalar>, mut c: Vec<Scalar>) -> Vec<Scalar> {
    let d = Domain::for_len(a.len());
    for v in [&mut a, &mut b, &mut c] {
        v.resize(d.n, Scalar::ZERO);
        d.intt(v);
        d.coset_ntt(v);
    }
    let g_n = Scalar::MULTIPLICATIVE_GENERATOR.pow_vartime([d.n as u64]);
    let z_inv = (g_n - Scalar::ONE).invert().unwrap();
    a.par_iter_mut().zip(b.par_iter()).zip(c.par_iter()).with_min_len(1 << 12).for_each(|((x, y), z)| {
        *x = (*x * y - z) * z_inv;
    });
    drop((b, c));
    d.coset_intt(&mut a);
    a.truncate(d.n - 1);
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::ntt::root_of_unity;
    use rand::SeedableRng;

    #[test]
    fn h_times_z_is_ab_minus_c() {
        // Random A, B evaluations; C = A·B at every domain point except one, so A·B − C is
        // divisible by Z only if we fix it: take C = A·B everywhere (h must then satisfy
        // h·Z = A·B − C as polynomials, checked at a random point).
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let n = 1 << 10;
        let a: Vec<Scalar> = (0..n - 3).map(|_| Scalar::random(&mut rng)).collect();
        let b: Vec<Scalar> = (0..n - 3).map(|_| Scalar::random(&mut rng)).collect();
        let c: Vec<Scalar> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        let h = h_poly(a.clone(), b.clone(), c.clone());
        assert_eq!(h.len(), n - 1);
        // Interpolate A, B, C and check A(x)B(x) − C(x) = h(x)(x^n − 1) at a random x.
        let d = Domain::new(10);
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
        assert_ne!(root_of_unity(10), Scalar::ONE);
    }
}
