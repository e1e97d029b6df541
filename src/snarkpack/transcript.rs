//! The Fiat–Shamir transcript of SnarkPack: SHA-256 over a tag and the encoded values, and the
//! challenge drawn from it. The encoding is bincode's (1.x, fixed-width little endian) of the
//! blstrs values bellperson writes, so the challenges, and with them the proof bytes, match:
//! - a new transcript hashes "snarkpack-v1" then its tag (no lengths);
//! - a scalar is its 32 canonical bytes, little endian;
//! - a G1 / G2 point is its compressed encoding (48 / 96 bytes), a projective one once affine;
//! - a Gt element is its 12 Fp coefficients, 48 bytes little endian each, in the order
//!   c0.c0.c0, c0.c0.c1, c0.c1.c0, …, c1.c2.c1 (Fp12 = Fp6², Fp6 = Fp2³, Fp2 = Fp²);
//! - a byte string is its length as a u64 little endian, then the bytes.
//!
//! A challenge appends a counter (1, 2, …; a u64 big endian, kept in the hash) and reads the
//! digest as a little-endian scalar with its top bit cleared, until that is a field element
//! other than 0 and 1.
use blstrs::{Fp12, G1Affine, G2Affine, Gt, Scalar};
use ff::Field;
use sha2::{Digest, Sha256};

const PREFIX: &[u8] = b"snarkpack-v1";

#[derive(Clone)]
pub struct Transcript {
    hasher: Sha256,
}

impl Transcript {
    pub fn new(tag: &str) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(PREFIX);
        hasher.update(tag.as_bytes());
        Transcript { hasher }
    }

    pub fn scalar(mut self, x: &Scalar) -> Self {
        self.hasher.update(x.to_bytes_le());
        self
    }

    pub fn g1(mut self, p: &G1Affine) -> Self {
        self.hasher.update(p.to_compressed());
        self
    }

    pub fn g2(mut self, p: &G2Affine) -> Self {
        self.hasher.update(p.to_compressed());
        self
    }

    pub fn gt(mut self, x: &Gt) -> Self {
        self.hasher.update(gt_bytes(x));
        self
    }

    /// Both halves of a commitment, in order.
    pub fn gt_pair(self, x: &(Gt, Gt)) -> Self {
        self.gt(&x.0).gt(&x.1)
    }

    pub fn bytes(mut self, b: &[u8]) -> Self {
        self.hasher.update((b.len() as u64).to_le_bytes());
        self.hasher.update(b);
        self
    }

    /// The challenge: never 0 or 1, so it and its inverse are usable as folding factors.
    pub fn challenge(mut self) -> Scalar {
        let mut counter: u64 = 0;
        loop {
            counter += 1;
            self.hasher.update(counter.to_be_bytes());
            let mut repr: [u8; 32] = self.hasher.clone().finalize().into();
            repr[31] &= 0x7f;
            if let Some(c) = Option::<Scalar>::from(Scalar::from_bytes_le(&repr)) {
                if c != Scalar::ONE && !bool::from(c.is_zero()) {
                    return c;
                }
            }
        }
    }
}

/// The transcript encoding of a Gt element (576 bytes).
pub fn gt_bytes(x: &Gt) -> Vec<u8> {
    let f = Fp12::from(*x);
    let mut out = Vec::with_capacity(576);
    for c6 in [f.c0(), f.c1()] {
        for c2 in [c6.c0(), c6.c1(), c6.c2()] {
            out.extend_from_slice(&c2.c0().to_bytes_le());
            out.extend_from_slice(&c2.c1().to_bytes_le());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use group::{prime::PrimeCurveAffine, Group};

    /// The same values give the same challenge; any change of value, order or tag another.
    #[test]
    fn challenges_depend_on_every_value_and_the_tag() {
        let g1 = G1Affine::generator();
        let g2 = G2Affine::generator();
        let gt = Gt::generator();
        let make = |tag: &str, x: u64| {
            Transcript::new(tag).g1(&g1).g2(&g2).gt(&gt).scalar(&Scalar::from(x)).bytes(b"abc").challenge()
        };
        let c = make("t", 5);
        assert_eq!(c, make("t", 5));
        assert_ne!(c, make("t", 6));
        assert_ne!(c, make("u", 5));
        let swapped = Transcript::new("t").g2(&g2).g1(&g1).gt(&gt).scalar(&Scalar::from(5)).bytes(b"abc").challenge();
        assert_ne!(c, swapped);
        assert!(c != Scalar::ONE && !bool::from(c.is_zero()));
    }

    /// Gt's encoding is the canonical little-endian coefficients: the identity is 1, 0, …, 0.
    #[test]
    fn gt_encoding_of_the_identity_is_one_then_zeros() {
        let b = gt_bytes(&Gt::identity());
        assert_eq!(b.len(), 576);
        assert_eq!(b[0], 1);
        assert!(b[1..].iter().all(|&x| x == 0));
    }
}
