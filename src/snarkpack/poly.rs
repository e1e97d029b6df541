//! The polynomials behind SnarkPack's KZG openings. After GIPA folds a commitment key log n
//! times with challenges x_1 … x_ℓ, its final element is the SRS evaluated at
//!   f(X) = Π_j (1 + y_j·(s·X)^{2^j}),
//! where y_j is the challenge of the j-th round counted from the last one and s a shift (1 for
//! v, r⁻¹ for w, whose key was scaled by r^{−i}). The prover opens f at a random point z with a
//! KZG proof: the quotient (f(X) − f(z)) / (X − z) as an MSM over the SRS powers.
use blstrs::Scalar;
use ff::Field;

/// The coefficients of Π_j (1 + ys[j]·(shift·X)^{2^j}), lowest first (2^len of them).
pub fn coefficients(ys: &[Scalar], shift: &Scalar) -> Vec<Scalar> {
    let mut out = Vec::with_capacity(1 << ys.len());
    out.push(Scalar::ONE);
    let mut s = *shift;
    for (j, y) in ys.iter().enumerate() {
        if j > 0 {
            s = s.square();
        }
        let factor = *y * s;
        let n = out.len();
        for i in 0..n {
            let c = out[i] * factor;
            out.push(c);
        }
    }
    out
}

/// The same polynomial evaluated at z, in O(len).
pub fn evaluate(ys: &[Scalar], z: &Scalar, shift: &Scalar) -> Scalar {
    let mut t = *z * shift;
    let mut acc = Scalar::ONE;
    for (j, y) in ys.iter().enumerate() {
        if j > 0 {
            t = t.square();
        }
        acc *= Scalar::ONE + *y * t;
    }
    acc
}

/// The quotient (f(X) − f(z)) / (X − z) of `f` (coefficients lowest first): one coefficient
/// fewer, by synthetic division from the top.
pub fn divide_by_linear(f: &[Scalar], z: &Scalar) -> Vec<Scalar> {
    let n = f.len();
    if n < 2 {
        return Vec::new();
    }
    let mut q = vec![Scalar::ZERO; n - 1];
    q[n - 2] = f[n - 1];
    for i in (1..n - 1).rev() {
        q[i - 1] = f[i] + *z * q[i];
    }
    q
}

/// f(x) by Horner's rule.
pub fn horner(f: &[Scalar], x: &Scalar) -> Scalar {
    f.iter().rev().fold(Scalar::ZERO, |acc, c| acc * x + c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn random(n: usize, r: &mut ChaCha20Rng) -> Vec<Scalar> {
        (0..n).map(|_| Scalar::random(&mut *r)).collect()
    }

    #[test]
    fn product_form_and_coefficients_agree() {
        let mut r = ChaCha20Rng::seed_from_u64(rand::random());
        for len in 0..6 {
            let ys = random(len, &mut r);
            let (z, shift) = (Scalar::random(&mut r), Scalar::random(&mut r));
            let c = coefficients(&ys, &shift);
            assert_eq!(c.len(), 1 << len);
            assert_eq!(horner(&c, &z), evaluate(&ys, &z, &shift));
        }
    }

    #[test]
    fn quotient_times_linear_plus_value_is_the_polynomial() {
        let mut r = ChaCha20Rng::seed_from_u64(rand::random());
        let f = random(9, &mut r);
        let (z, x) = (Scalar::random(&mut r), Scalar::random(&mut r));
        let q = divide_by_linear(&f, &z);
        assert_eq!(q.len(), 8);
        assert_eq!(horner(&q, &x) * (x - z) + horner(&f, &z), horner(&f, &x));
    }
}
