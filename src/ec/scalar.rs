//! Scalars as blst's multiplications and Pippenger read them: the canonical integer (not
//! Montgomery form), 32 little-endian bytes ([`ScalarBytes`]).
use blst::blst_scalar;
use blstrs::Scalar;

/// One scalar's canonical integer, little-endian bytes `b` (blst's `blst_scalar`).
pub type ScalarBytes = blst_scalar;

/// The canonical little-endian bytes of a field element.
#[inline]
pub fn scalar_bytes(v: &Scalar) -> ScalarBytes {
    let mut out = ScalarBytes::default();
    let fr: blst::blst_fr = (*v).into();
    // SAFETY: blst reads one element and writes one scalar through valid references.
    unsafe { blst::blst_scalar_from_fr(&mut out, &fr) };
    out
}

/// The scalars' bytes one after the other, as [`super::Curve::msm`] takes them.
pub fn as_bytes(s: &[ScalarBytes]) -> &[u8] {
    const _: () = assert!(std::mem::size_of::<ScalarBytes>() == 32 && std::mem::align_of::<ScalarBytes>() == 1);
    // SAFETY: ScalarBytes is `#[repr(C)] { b: [u8; 32] }` (size 32, alignment 1, asserted): the
    // slice's memory is exactly s.len()·32 initialised bytes.
    unsafe { std::slice::from_raw_parts(s.as_ptr() as *const u8, s.len() * 32) }
}

/// A scalar from its little-endian 64-bit words (any 256-bit value, for tests and edge cases).
pub fn from_words(w: [u64; 4]) -> ScalarBytes {
    let mut s = ScalarBytes::default();
    for (i, v) in w.iter().enumerate() {
        s.b[8 * i..8 * i + 8].copy_from_slice(&v.to_le_bytes());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::{Field, PrimeField};
    use rand::SeedableRng;

    #[test]
    fn bytes_are_the_canonical_integer() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(33);
        let v: Vec<Scalar> = (0..20).map(|_| Scalar::random(&mut rng)).chain([Scalar::ZERO, -Scalar::ONE]).collect();
        let s: Vec<ScalarBytes> = v.iter().map(scalar_bytes).collect();
        for (x, b) in v.iter().zip(as_bytes(&s).chunks(32)) {
            assert_eq!(b, x.to_repr().as_ref());
        }
        assert_eq!(from_words([5, 0, 0, 0]).b, scalar_bytes(&Scalar::from(5u64)).b);
    }
}
