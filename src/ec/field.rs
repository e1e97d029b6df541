//! The fields under the curves as blst holds them: [`Fp`] (G1's coordinates), [`Fp2`] =
//! Fp[u]/(u² + 1) (G2's) and [`Fr`] (the scalars), each element in Montgomery form over 64-bit
//! little-endian limbs (Fp: 6 limbs, R = 2^384; Fr: 4, R = 2^256; Fp2: c0 then c1). One trait,
//! [`MontField`], gives the arithmetic the point code needs (batched affine additions, layout
//! conversions) as safe functions over blst's.
use blst::{blst_fp, blst_fp2, blst_fr, blst_scalar};

/// An element of the base field of G1, blst's `blst_fp`: `l` are its Montgomery limbs.
pub type Fp = blst_fp;
/// An element of Fp2, blst's `blst_fp2`: `fp[0] + fp[1]·u`.
pub type Fp2 = blst_fp2;
/// An element of the scalar field, blst's `blst_fr` (the limbs under `blstrs::Scalar`).
pub type Fr = blst_fr;

/// A field whose elements are blst's Montgomery limbs, with blst's arithmetic.
pub trait MontField: Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static {
    /// Bytes of the big-endian encoding ([`MontField::from_be_bytes`]).
    const BE_BYTES: usize;
    fn from_u64(v: u64) -> Self;
    fn add(&self, b: &Self) -> Self;
    fn sub(&self, b: &Self) -> Self;
    fn mul(&self, b: &Self) -> Self;
    fn sqr(&self) -> Self;
    fn neg(&self) -> Self;
    /// 1/a (0 for a = 0).
    fn inv(&self) -> Self;
    /// All limbs zero (Montgomery form is unique for reduced values).
    fn is_zero(&self) -> bool;
    /// The element of a big-endian integer (Fp2: c1's 48 bytes, then c0's, as the zcash point
    /// encoding stores them); values of p or more are taken as blst takes them.
    fn from_be_bytes(b: &[u8]) -> Self;
    /// The big-endian encoding, [`MontField::BE_BYTES`] bytes into `out`.
    fn to_be_bytes(&self, out: &mut [u8]);
    /// The canonical integer (not Montgomery), little-endian 64-bit limbs (Fp2: c0's, then c1's).
    fn canonical_limbs(&self) -> Vec<u64>;
}

/// A unary or binary blst field function as a safe one returning its result.
macro_rules! blst_op {
    ($t:ty, $f:ident, $a:ident) => {{
        let mut r = <$t>::default();
        // SAFETY: blst reads the operand and writes the result through valid references of
        // the element type.
        unsafe { blst::$f(&mut r, $a) };
        r
    }};
    ($t:ty, $f:ident, $a:ident, $b:ident) => {{
        let mut r = <$t>::default();
        // SAFETY: as above, two operands.
        unsafe { blst::$f(&mut r, $a, $b) };
        r
    }};
}

impl MontField for Fp {
    const BE_BYTES: usize = 48;
    fn from_u64(v: u64) -> Self {
        let limbs = [v, 0, 0, 0, 0, 0];
        let mut r = Fp::default();
        // SAFETY: blst reads 6 limbs from the array and writes one element.
        unsafe { blst::blst_fp_from_uint64(&mut r, limbs.as_ptr()) };
        r
    }
    #[inline]
    fn add(&self, b: &Self) -> Self {
        blst_op!(Fp, blst_fp_add, self, b)
    }
    #[inline]
    fn sub(&self, b: &Self) -> Self {
        blst_op!(Fp, blst_fp_sub, self, b)
    }
    #[inline]
    fn mul(&self, b: &Self) -> Self {
        blst_op!(Fp, blst_fp_mul, self, b)
    }
    #[inline]
    fn sqr(&self) -> Self {
        blst_op!(Fp, blst_fp_sqr, self)
    }
    #[inline]
    fn neg(&self) -> Self {
        let mut r = Fp::default();
        // SAFETY: valid references; the flag asks for the negation.
        unsafe { blst::blst_fp_cneg(&mut r, self, true) };
        r
    }
    fn inv(&self) -> Self {
        blst_op!(Fp, blst_fp_inverse, self)
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.l.iter().fold(0, |z, l| z | l) == 0
    }
    #[inline]
    fn from_be_bytes(b: &[u8]) -> Self {
        let mut be = [0u8; 48];
        be.copy_from_slice(&b[..48]);
        let mut r = Fp::default();
        // SAFETY: blst reads 48 bytes from the local array.
        unsafe { blst::blst_fp_from_bendian(&mut r, be.as_ptr()) };
        r
    }
    fn to_be_bytes(&self, out: &mut [u8]) {
        let mut be = [0u8; 48];
        // SAFETY: blst writes 48 bytes into the local array.
        unsafe { blst::blst_bendian_from_fp(be.as_mut_ptr(), self) };
        out[..48].copy_from_slice(&be);
    }
    fn canonical_limbs(&self) -> Vec<u64> {
        let mut l = [0u64; 6];
        // SAFETY: blst writes 6 limbs into the local array.
        unsafe { blst::blst_uint64_from_fp(l.as_mut_ptr(), self) };
        l.to_vec()
    }
}

impl MontField for Fp2 {
    const BE_BYTES: usize = 96;
    fn from_u64(v: u64) -> Self {
        Fp2 { fp: [Fp::from_u64(v), Fp::default()] }
    }
    #[inline]
    fn add(&self, b: &Self) -> Self {
        blst_op!(Fp2, blst_fp2_add, self, b)
    }
    #[inline]
    fn sub(&self, b: &Self) -> Self {
        blst_op!(Fp2, blst_fp2_sub, self, b)
    }
    #[inline]
    fn mul(&self, b: &Self) -> Self {
        blst_op!(Fp2, blst_fp2_mul, self, b)
    }
    #[inline]
    fn sqr(&self) -> Self {
        blst_op!(Fp2, blst_fp2_sqr, self)
    }
    #[inline]
    fn neg(&self) -> Self {
        let mut r = Fp2::default();
        // SAFETY: valid references; the flag asks for the negation.
        unsafe { blst::blst_fp2_cneg(&mut r, self, true) };
        r
    }
    fn inv(&self) -> Self {
        blst_op!(Fp2, blst_fp2_inverse, self)
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.fp[0].is_zero() && self.fp[1].is_zero()
    }
    #[inline]
    fn from_be_bytes(b: &[u8]) -> Self {
        Fp2 { fp: [Fp::from_be_bytes(&b[48..96]), Fp::from_be_bytes(&b[..48])] }
    }
    fn to_be_bytes(&self, out: &mut [u8]) {
        self.fp[1].to_be_bytes(&mut out[..48]);
        self.fp[0].to_be_bytes(&mut out[48..96]);
    }
    fn canonical_limbs(&self) -> Vec<u64> {
        [self.fp[0].canonical_limbs(), self.fp[1].canonical_limbs()].concat()
    }
}

impl MontField for Fr {
    const BE_BYTES: usize = 32;
    fn from_u64(v: u64) -> Self {
        let limbs = [v, 0, 0, 0];
        let mut r = Fr::default();
        // SAFETY: blst reads 4 limbs from the array and writes one element.
        unsafe { blst::blst_fr_from_uint64(&mut r, limbs.as_ptr()) };
        r
    }
    #[inline]
    fn add(&self, b: &Self) -> Self {
        blst_op!(Fr, blst_fr_add, self, b)
    }
    #[inline]
    fn sub(&self, b: &Self) -> Self {
        blst_op!(Fr, blst_fr_sub, self, b)
    }
    #[inline]
    fn mul(&self, b: &Self) -> Self {
        blst_op!(Fr, blst_fr_mul, self, b)
    }
    #[inline]
    fn sqr(&self) -> Self {
        blst_op!(Fr, blst_fr_sqr, self)
    }
    #[inline]
    fn neg(&self) -> Self {
        let mut r = Fr::default();
        // SAFETY: valid references; the flag asks for the negation.
        unsafe { blst::blst_fr_cneg(&mut r, self, true) };
        r
    }
    fn inv(&self) -> Self {
        blst_op!(Fr, blst_fr_inverse, self)
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.l == [0; 4]
    }
    /// Through blst's scalar: the 32 bytes as an integer, then into Montgomery form.
    fn from_be_bytes(b: &[u8]) -> Self {
        let mut be = [0u8; 32];
        be.copy_from_slice(&b[..32]);
        let (mut s, mut r) = (blst_scalar::default(), Fr::default());
        // SAFETY: blst reads 32 bytes from the local array; then valid references.
        unsafe {
            blst::blst_scalar_from_bendian(&mut s, be.as_ptr());
            blst::blst_fr_from_scalar(&mut r, &s);
        }
        r
    }
    fn to_be_bytes(&self, out: &mut [u8]) {
        let (mut s, mut be) = (blst_scalar::default(), [0u8; 32]);
        // SAFETY: valid references; blst writes 32 bytes into the local array.
        unsafe {
            blst::blst_scalar_from_fr(&mut s, self);
            blst::blst_bendian_from_scalar(be.as_mut_ptr(), &s);
        }
        out[..32].copy_from_slice(&be);
    }
    fn canonical_limbs(&self) -> Vec<u64> {
        let mut l = [0u64; 4];
        // SAFETY: blst writes 4 limbs into the local array.
        unsafe { blst::blst_uint64_from_fr(l.as_mut_ptr(), self) };
        l.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::{Field, PrimeField};
    use rand::SeedableRng;

    fn fp_of(v: &blstrs::Fp) -> Fp {
        Fp::from_be_bytes(&v.to_bytes_be())
    }

    /// Each operation against blstrs' (its own code over the same limbs) on random values.
    #[test]
    fn fp_and_fp2_ops_match_blstrs() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
        for _ in 0..50 {
            let (a, b) = (blstrs::Fp::random(&mut rng), blstrs::Fp::random(&mut rng));
            let (x, y) = (fp_of(&a), fp_of(&b));
            assert_eq!(x.add(&y), fp_of(&(a + b)));
            assert_eq!(x.sub(&y), fp_of(&(a - b)));
            assert_eq!(x.mul(&y), fp_of(&(a * b)));
            assert_eq!(x.sqr(), fp_of(&a.square()));
            assert_eq!(x.neg(), fp_of(&-a));
            assert_eq!(x.inv(), fp_of(&a.invert().unwrap()));
            let mut be = [0u8; 48];
            x.to_be_bytes(&mut be);
            assert_eq!(be, a.to_bytes_be());
            let (c, d) = (blstrs::Fp2::random(&mut rng), blstrs::Fp2::random(&mut rng));
            let fp2 = |v: &blstrs::Fp2| Fp2 { fp: [fp_of(&v.c0()), fp_of(&v.c1())] };
            let (u, w) = (fp2(&c), fp2(&d));
            assert_eq!(u.mul(&w), fp2(&(c * d)));
            assert_eq!(u.sqr(), fp2(&c.square()));
            assert_eq!(u.inv(), fp2(&c.invert().unwrap()));
            assert_eq!(u.sub(&w).add(&w), u);
            let mut be2 = [0u8; 96];
            u.to_be_bytes(&mut be2);
            assert_eq!(Fp2::from_be_bytes(&be2), u);
        }
        assert!(Fp::default().is_zero() && !Fp::from_u64(1).is_zero());
        assert_eq!(Fp::from_u64(7).canonical_limbs(), vec![7, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn fr_ops_match_blstrs_scalars() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(32);
        let fr = |v: &blstrs::Scalar| Fr::from(*v);
        for _ in 0..50 {
            let (a, b) = (blstrs::Scalar::random(&mut rng), blstrs::Scalar::random(&mut rng));
            assert_eq!(fr(&a).mul(&fr(&b)), fr(&(a * b)));
            assert_eq!(fr(&a).add(&fr(&b)), fr(&(a + b)));
            assert_eq!(fr(&a).neg(), fr(&-a));
            let mut be = [0u8; 32];
            fr(&a).to_be_bytes(&mut be);
            let mut le = a.to_repr();
            le.as_mut().reverse();
            assert_eq!(be[..], le.as_ref()[..]);
            assert_eq!(Fr::from_be_bytes(&be), fr(&a));
        }
        assert_eq!(Fr::from_u64(1), fr(&blstrs::Scalar::ONE));
    }
}
