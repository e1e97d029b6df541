//! The kernels' data layout, seen from the host, and conversions from and to
//! the curve layer's types ([`crate::ec`]).
//!
//! - Fp: 12 little-endian u32 limbs, Montgomery form (R = 2^384) — the same
//!   bytes as [`crate::ec::Fp`] on a little-endian host. Fr: 8 limbs, R = 2^256.
//! - Fp2: c0 then c1. Affine point: x, y, with (0, 0) for infinity (as blst).
//! - XYZZ point: X, Y, ZZ, ZZZ with x = X/ZZ, y = Y/ZZZ; ZZ = 0 is infinity.
//! - Jacobian point (kernels' to_jacobian output): X, Y, Z as in [`crate::ec::P1`]/[`crate::ec::P2`].
use crate::ec::{Curve, Fp, Fp2, Fr, MontField};
pub use crate::ec::{G1, G2};

pub fn fp_words(x: &Fp) -> [u32; 12] {
    let mut w = [0u32; 12];
    for i in 0..6 {
        w[2 * i] = x.l[i] as u32;
        w[2 * i + 1] = (x.l[i] >> 32) as u32;
    }
    w
}

pub fn fp_from_words(w: &[u32]) -> Fp {
    let mut x = Fp::default();
    for i in 0..6 {
        x.l[i] = w[2 * i] as u64 | (w[2 * i + 1] as u64) << 32;
    }
    x
}

pub fn fr_words(x: &Fr) -> [u32; 8] {
    let mut w = [0u32; 8];
    for i in 0..4 {
        w[2 * i] = x.l[i] as u32;
        w[2 * i + 1] = (x.l[i] >> 32) as u32;
    }
    w
}

pub fn fr_from_words(w: &[u32]) -> Fr {
    let mut x = Fr::default();
    for i in 0..4 {
        x.l[i] = w[2 * i] as u64 | (w[2 * i + 1] as u64) << 32;
    }
    x
}

pub fn u64s_to_words(l: &[u64]) -> Vec<u32> {
    l.iter().flat_map(|v| [*v as u32, (*v >> 32) as u32]).collect()
}

/// Big-endian bytes as the kernels load them: little-endian u32 words of the byte string.
pub fn be_bytes_to_words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

pub fn fp2_words(x: &Fp2) -> [u32; 24] {
    let mut w = [0u32; 24];
    w[..12].copy_from_slice(&fp_words(&x.fp[0]));
    w[12..].copy_from_slice(&fp_words(&x.fp[1]));
    w
}

pub fn fp2_from_words(w: &[u32]) -> Fp2 {
    Fp2 { fp: [fp_from_words(&w[..12]), fp_from_words(&w[12..24])] }
}

/// A curve group as the kernels see it: the [`Curve`] (its arithmetic, on the host) plus the
/// words of its coordinates on the device. `F`, `Jac` and `Aff` are the kernel code's names
/// for the curve's base field, Jacobian and affine points; `SER` is the bytes of one point in
/// a `.params` section (uncompressed).
pub trait Group: Curve<Base = Self::F, Jacobian = Self::Jac, Affine = Self::Aff> {
    type F: MontField;
    type Jac: Copy + Default + Send + Sync + std::fmt::Debug;
    type Aff: Copy + Default + PartialEq + Send + Sync + std::fmt::Debug;
    /// u32 words per base-field element.
    const W: usize;
    const SER: usize = Self::UNCOMPRESSED_BYTES;
    fn f_words(x: &Self::F) -> Vec<u32>;
    fn f_from(w: &[u32]) -> Self::F;

    /// XYZZ words (X, Y, ZZ, ZZZ) of a Jacobian point (x = X/Z^2 = X/ZZ).
    fn xyzz_words(p: &Self::Jac) -> Vec<u32> {
        let (x, y, z) = Self::xyz(p);
        let zz = z.sqr();
        let zzz = zz.mul(&z);
        [x, y, zz, zzz].iter().flat_map(|c| Self::f_words(c)).collect()
    }
    /// Jacobian point from XYZZ words: (X ZZ ZZZ^2, Y ZZ^3 ZZZ^2, ZZ ZZZ).
    fn from_xyzz_words(w: &[u32]) -> Self::Jac {
        let n = Self::W;
        let (x, y, zz, zzz) = (
            Self::f_from(&w[..n]),
            Self::f_from(&w[n..2 * n]),
            Self::f_from(&w[2 * n..3 * n]),
            Self::f_from(&w[3 * n..4 * n]),
        );
        let z3sq = zzz.sqr();
        let xj = x.mul(&zz).mul(&z3sq);
        let zz3 = zz.sqr().mul(&zz);
        let yj = y.mul(&zz3).mul(&z3sq);
        Self::jacobian(xj, yj, zz.mul(&zzz))
    }
    fn jac_words(p: &Self::Jac) -> Vec<u32> {
        let (x, y, z) = Self::xyz(p);
        [x, y, z].iter().flat_map(|c| Self::f_words(c)).collect()
    }
    fn from_jac_words(w: &[u32]) -> Self::Jac {
        let n = Self::W;
        Self::jacobian(Self::f_from(&w[..n]), Self::f_from(&w[n..2 * n]), Self::f_from(&w[2 * n..3 * n]))
    }
    fn aff_words(p: &Self::Aff) -> Vec<u32> {
        [Self::x(p), Self::y(p)].iter().flat_map(|c| Self::f_words(c)).collect()
    }
}

impl Group for G1 {
    type F = Fp;
    type Jac = crate::ec::P1;
    type Aff = crate::ec::P1Affine;
    const W: usize = 12;
    fn f_words(x: &Fp) -> Vec<u32> {
        fp_words(x).to_vec()
    }
    fn f_from(w: &[u32]) -> Fp {
        fp_from_words(w)
    }
}

impl Group for G2 {
    type F = Fp2;
    type Jac = crate::ec::P2;
    type Aff = crate::ec::P2Affine;
    const W: usize = 24;
    fn f_words(x: &Fp2) -> Vec<u32> {
        fp2_words(x).to_vec()
    }
    fn f_from(w: &[u32]) -> Fp2 {
        fp2_from_words(w)
    }
}

/// Scalars as the kernels read them: 8 little-endian u32 words per element, Montgomery form.
/// `blstrs::Scalar` is `repr(transparent)` over `blst_fr` (4 little-endian u64 limbs, Montgomery
/// form), so on a little-endian host its bytes are exactly those words.
pub fn scalar_words(v: &[blstrs::Scalar]) -> &[u32] {
    const _: () = assert!(std::mem::size_of::<blstrs::Scalar>() == 32 && cfg!(target_endian = "little"));
    // SAFETY: Scalar is 32 bytes of plain integer limbs with no padding (asserted above), u32
    // has a smaller alignment than Scalar, and the length covers exactly the same bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u32, v.len() * 8) }
}

/// [`scalar_words`] for writing: device results (Montgomery words) straight into scalars.
pub fn scalar_words_mut(v: &mut [blstrs::Scalar]) -> &mut [u32] {
    // SAFETY: as in `scalar_words`; any words are plain data for a Scalar's limbs (the kernels
    // write reduced Montgomery elements).
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u32, v.len() * 8) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip<G: Group>() {
        let mut s = [7u8; 32];
        s[31] = 0x1f;
        let p = G::mult(&G::generator(), &s, 255);
        let q = G::add(&p, &G::generator()); // Z != 1
        assert!(G::eq(&G::from_xyzz_words(&G::xyzz_words(&q)), &q));
        assert!(G::eq(&G::from_jac_words(&G::jac_words(&q)), &q));
        let inf = G::Jac::default();
        assert!(G::eq(&G::from_xyzz_words(&G::xyzz_words(&inf)), &inf));
        let q2 = G::double(&q);
        let a = G::batch_to_affine_vec(&[q, q2]);
        // affine -> Jacobian with Z = 1 must equal the input points
        for (aff, jac) in a.iter().zip([q, q2]) {
            let one = G::xyz(&G::generator()).2; // the generator has Z = 1
            assert!(G::eq(&G::jacobian(*G::x(aff), *G::y(aff), one), &jac));
        }
        let w = G::aff_words(&a[0]);
        assert_eq!(w.len(), 2 * G::W);
        assert_eq!(G::f_from(&w[G::W..]), *G::y(&a[0]));
        let mut ser = vec![0u8; G::SER];
        G::serialize(&a[0], &mut ser);
        assert_eq!(ser[0] & 0xe0, 0);
        // Device words of the encoded coordinates: big-endian x, as the srs kernels read it.
        let mut be = vec![0u8; G::F::BE_BYTES];
        G::x(&a[0]).to_be_bytes(&mut be);
        assert_eq!(be[..], ser[..G::SER / 2]);
    }

    #[test]
    fn layouts_round_trip() {
        roundtrip::<G1>();
        roundtrip::<G2>();
        let x = Fp { l: [1, 2, 3, 4, 5, 6 | (7 << 32)] };
        assert_eq!(fp_from_words(&fp_words(&x)), x);
        assert_eq!(fp_words(&x)[..3], [1, 0, 2]);
        assert_eq!(fp_words(&x)[10..], [6, 7]);
        let y = Fp2 { fp: [x, Fp::from_u64(9)] };
        assert_eq!(fp2_from_words(&fp2_words(&y)), y);
        let r = Fr { l: [1 << 33, 2, 3, 4] };
        assert_eq!(fr_words(&r)[..2], [0, 2]);
        assert_eq!(fr_from_words(&fr_words(&r)), r);
        assert_eq!(u64s_to_words(&[5 | 6 << 32]), vec![5, 6]);
        assert_eq!(be_bytes_to_words(&[1, 2, 3, 4]), vec![0x04030201]);
    }

    /// Scalars' device words are their Montgomery limbs, low word first.
    #[test]
    fn scalar_words_are_montgomery_limbs() {
        use ff::Field;
        let mut v = vec![blstrs::Scalar::ONE, -blstrs::Scalar::ONE];
        let w: Vec<u32> = scalar_words(&v).to_vec();
        assert_eq!(w[..8], fr_words(&Fr::from(v[0])));
        assert_eq!(w[8..], fr_words(&Fr::from(v[1])));
        scalar_words_mut(&mut v)[..8].copy_from_slice(&fr_words(&Fr::from(blstrs::Scalar::from(5u64))));
        assert_eq!(v[0], blstrs::Scalar::from(5u64));
    }

    #[test]
    fn every_module_is_embedded_with_kernels() {
        for (name, _, text) in crate::gpu::ptx::MODULES {
            assert!(text.contains(".target sm_90"), "{name}");
            assert!(!crate::gpu::info::kernel_names(text).is_empty(), "{name}");
        }
    }
}
