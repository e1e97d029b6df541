//! Quick tests on values of Fr by their limbs. `Scalar`'s own `==` and `is_zero` are
//! constant-time (through `subtle`), which costs more than the arithmetic around them where
//! synthesis and the query split ask them millions of times. A `Scalar` is always reduced, so
//! its Montgomery limbs are unique: comparing them is exact. Variable time is no concern here:
//! the prover already skips zeros and ones, and runs on its owner's machine.
use blst::blst_fr;
use blstrs::Scalar;
use ff::Field;

#[inline(always)]
pub fn is_zero(v: &Scalar) -> bool {
    blst_fr::from(*v).l == [0; 4]
}

#[inline(always)]
pub fn is_one(v: &Scalar) -> bool {
    blst_fr::from(*v).l == blst_fr::from(Scalar::ONE).l
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn agree_with_scalar_comparisons() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut values =
            vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::from(2u64), Scalar::ONE + Scalar::ONE - Scalar::ONE];
        values.extend((0..100).map(|_| Scalar::random(&mut rng)));
        for v in &values {
            assert_eq!(is_zero(v), bool::from(v.is_zero()));
            assert_eq!(is_one(v), *v == Scalar::ONE);
        }
    }
}
