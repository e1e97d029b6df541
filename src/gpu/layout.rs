//! The kernels' data layout, seen from the host, and conversions from and to
//! blst's types.
//!
//! - Fp: 12 little-endian u32 limbs, Montgomery form (R = 2^384) — the same
//!   bytes as blst's `blst_fp` on a little-endian host. Fr: 8 limbs, R = 2^256.
//! - Fp2: c0 then c1. Affine point: x, y, with (0, 0) for infinity (as blst).
//! - XYZZ point: X, Y, ZZ, ZZZ with x = X/ZZ, y = Y/ZZZ; ZZ = 0 is infinity.
//! - Jacobian point (kernels' to_jacobian output): X, Y, Z as in blst_p1/p2.
use blst::*;

use crate::ec::{FromXy, FromXyz};

pub fn fp_words(x: &blst_fp) -> [u32; 12] {
    let mut w = [0u32; 12];
    for i in 0..6 {
        w[2 * i] = x.l[i] as u32;
        w[2 * i + 1] = (x.l[i] >> 32) as u32;
    }
    w
}

pub fn fp_from_words(w: &[u32]) -> blst_fp {
    let mut x = blst_fp::default();
    for i in 0..6 {
        x.l[i] = w[2 * i] as u64 | (w[2 * i + 1] as u64) << 32;
    }
    x
}

pub fn fr_words(x: &blst_fr) -> [u32; 8] {
    let mut w = [0u32; 8];
    for i in 0..4 {
        w[2 * i] = x.l[i] as u32;
        w[2 * i + 1] = (x.l[i] >> 32) as u32;
    }
    w
}

pub fn fr_from_words(w: &[u32]) -> blst_fr {
    let mut x = blst_fr::default();
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

pub fn fp2_words(x: &blst_fp2) -> [u32; 24] {
    let mut w = [0u32; 24];
    w[..12].copy_from_slice(&fp_words(&x.fp[0]));
    w[12..].copy_from_slice(&fp_words(&x.fp[1]));
    w
}

pub fn fp2_from_words(w: &[u32]) -> blst_fp2 {
    blst_fp2 { fp: [fp_from_words(&w[..12]), fp_from_words(&w[12..24])] }
}

/// A curve group as the kernels see it: its base field is Fp (G1) or Fp2 (G2).
pub trait Group: Sync + Send + 'static {
    type F: Copy + Default + Send + Sync;
    type Jac: Copy + Default + Send + Sync;
    type Aff: Copy + Default + Send + Sync;
    /// u32 words per base-field element.
    const W: usize;
    const NAME: &'static str;
    /// Serialized uncompressed size (.params encoding).
    const SER: usize;
    fn f_words(x: &Self::F) -> Vec<u32>;
    fn f_from(w: &[u32]) -> Self::F;
    fn f_mul(a: &Self::F, b: &Self::F) -> Self::F;
    fn f_sqr(a: &Self::F) -> Self::F;
    fn f_is_zero(a: &Self::F) -> bool;
    fn jac(p: &Self::Jac) -> (Self::F, Self::F, Self::F);
    fn jac_new(x: Self::F, y: Self::F, z: Self::F) -> Self::Jac;
    fn aff(p: &Self::Aff) -> (Self::F, Self::F);
    fn aff_new(x: Self::F, y: Self::F) -> Self::Aff;
    fn generator() -> Self::Jac;
    fn mult(p: &Self::Jac, scalar_le: &[u8; 32]) -> Self::Jac;
    fn add(a: &Self::Jac, b: &Self::Jac) -> Self::Jac;
    fn add_aff(a: &Self::Jac, b: &Self::Aff) -> Self::Jac;
    fn dbl(a: &Self::Jac) -> Self::Jac;
    fn neg(a: &Self::Jac) -> Self::Jac;
    fn eq(a: &Self::Jac, b: &Self::Jac) -> bool;
    fn to_affine_batch(ps: &[Self::Jac]) -> Vec<Self::Aff>;
    fn serialize(a: &Self::Aff, out: &mut [u8]);

    /// XYZZ words (X, Y, ZZ, ZZZ) of a Jacobian point (x = X/Z^2 = X/ZZ).
    fn xyzz_words(p: &Self::Jac) -> Vec<u32> {
        let (x, y, z) = Self::jac(p);
        let zz = Self::f_sqr(&z);
        let zzz = Self::f_mul(&zz, &z);
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
        let z3sq = Self::f_sqr(&zzz);
        let xj = Self::f_mul(&Self::f_mul(&x, &zz), &z3sq);
        let zz3 = Self::f_mul(&Self::f_sqr(&zz), &zz);
        let yj = Self::f_mul(&Self::f_mul(&y, &zz3), &z3sq);
        Self::jac_new(xj, yj, Self::f_mul(&zz, &zzz))
    }
    fn jac_words(p: &Self::Jac) -> Vec<u32> {
        let (x, y, z) = Self::jac(p);
        [x, y, z].iter().flat_map(|c| Self::f_words(c)).collect()
    }
    fn from_jac_words(w: &[u32]) -> Self::Jac {
        let n = Self::W;
        Self::jac_new(Self::f_from(&w[..n]), Self::f_from(&w[n..2 * n]), Self::f_from(&w[2 * n..3 * n]))
    }
    fn aff_words(p: &Self::Aff) -> Vec<u32> {
        let (x, y) = Self::aff(p);
        [x, y].iter().flat_map(|c| Self::f_words(c)).collect()
    }
}

pub struct G1;
pub struct G2;

macro_rules! group_impl {
    ($g:ident, $F:ty, $J:ty, $A:ty, $w:expr, $name:expr, $ser:expr,
     $fw:expr, $ff:expr, $fmul:ident, $fsqr:ident,
     $gen:ident, $mult:ident, $add:ident, $adda:ident, $dbl:ident, $cneg:ident, $eq:ident, $batch:ident, $serf:ident) => {
        impl Group for $g {
            type F = $F;
            type Jac = $J;
            type Aff = $A;
            const W: usize = $w;
            const NAME: &'static str = $name;
            const SER: usize = $ser;
            fn f_words(x: &$F) -> Vec<u32> {
                $fw(x).to_vec()
            }
            fn f_from(w: &[u32]) -> $F {
                $ff(w)
            }
            fn f_mul(a: &$F, b: &$F) -> $F {
                let mut r = <$F>::default();
                unsafe { $fmul(&mut r, a, b) };
                r
            }
            fn f_sqr(a: &$F) -> $F {
                let mut r = <$F>::default();
                unsafe { $fsqr(&mut r, a) };
                r
            }
            fn f_is_zero(a: &$F) -> bool {
                Self::f_words(a).iter().all(|&x| x == 0)
            }
            fn jac(p: &$J) -> ($F, $F, $F) {
                (p.x, p.y, p.z)
            }
            fn jac_new(x: $F, y: $F, z: $F) -> $J {
                <$J>::from_xyz(x, y, z)
            }
            fn aff(p: &$A) -> ($F, $F) {
                (p.x, p.y)
            }
            fn aff_new(x: $F, y: $F) -> $A {
                <$A>::from_xy(x, y)
            }
            fn generator() -> $J {
                unsafe { *$gen() }
            }
            fn mult(p: &$J, s: &[u8; 32]) -> $J {
                let mut r = <$J>::default();
                unsafe { $mult(&mut r, p, s.as_ptr(), 255) };
                r
            }
            fn add(a: &$J, b: &$J) -> $J {
                let mut r = <$J>::default();
                unsafe { $add(&mut r, a, b) };
                r
            }
            fn add_aff(a: &$J, b: &$A) -> $J {
                let mut r = <$J>::default();
                unsafe { $adda(&mut r, a, b) };
                r
            }
            fn dbl(a: &$J) -> $J {
                let mut r = <$J>::default();
                unsafe { $dbl(&mut r, a) };
                r
            }
            fn neg(a: &$J) -> $J {
                let mut r = *a;
                unsafe { $cneg(&mut r, true) };
                r
            }
            fn eq(a: &$J, b: &$J) -> bool {
                unsafe { $eq(a, b) }
            }
            fn to_affine_batch(ps: &[$J]) -> Vec<$A> {
                let mut out = vec![<$A>::default(); ps.len()];
                // blst: points[0] = start of a contiguous array, points[1] = NULL
                let ptrs: [*const $J; 2] = [ps.as_ptr(), std::ptr::null()];
                unsafe { $batch(out.as_mut_ptr(), ptrs.as_ptr(), ps.len()) };
                out
            }
            fn serialize(a: &$A, out: &mut [u8]) {
                assert!(out.len() >= $ser);
                unsafe { $serf(out.as_mut_ptr(), a) };
            }
        }
    };
}

group_impl!(
    G1,
    blst_fp,
    blst_p1,
    blst_p1_affine,
    12,
    "G1",
    96,
    fp_words,
    fp_from_words,
    blst_fp_mul,
    blst_fp_sqr,
    blst_p1_generator,
    blst_p1_mult,
    blst_p1_add_or_double,
    blst_p1_add_or_double_affine,
    blst_p1_double,
    blst_p1_cneg,
    blst_p1_is_equal,
    blst_p1s_to_affine,
    blst_p1_affine_serialize
);
group_impl!(
    G2,
    blst_fp2,
    blst_p2,
    blst_p2_affine,
    24,
    "G2",
    192,
    fp2_words,
    fp2_from_words,
    blst_fp2_mul,
    blst_fp2_sqr,
    blst_p2_generator,
    blst_p2_mult,
    blst_p2_add_or_double,
    blst_p2_add_or_double_affine,
    blst_p2_double,
    blst_p2_cneg,
    blst_p2_is_equal,
    blst_p2s_to_affine,
    blst_p2_affine_serialize
);

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
        let p = G::mult(&G::generator(), &s);
        let q = G::add(&p, &G::generator()); // Z != 1
        assert!(G::eq(&G::from_xyzz_words(&G::xyzz_words(&q)), &q));
        assert!(G::eq(&G::from_jac_words(&G::jac_words(&q)), &q));
        let inf = G::Jac::default();
        assert!(G::eq(&G::from_xyzz_words(&G::xyzz_words(&inf)), &inf));
        let q2 = G::dbl(&q);
        let a = G::to_affine_batch(&[q, q2]);
        // affine -> Jacobian with Z = 1 must equal the input points
        for (aff, jac) in a.iter().zip([q, q2]) {
            let (x, y) = G::aff(aff);
            let one = G::jac(&G::generator()).2; // the generator has Z = 1
            assert!(G::eq(&G::jac_new(x, y, one), &jac));
        }
        let w = G::aff_words(&a[0]);
        assert_eq!(w.len(), 2 * G::W);
        let mut ser = vec![0u8; G::SER];
        G::serialize(&a[0], &mut ser);
        assert_eq!(ser[0] & 0xe0, 0);
    }

    #[test]
    fn layouts_round_trip() {
        roundtrip::<G1>();
        roundtrip::<G2>();
        let x = blst_fp { l: [1, 2, 3, 4, 5, 6 | (7 << 32)] };
        assert_eq!(fp_from_words(&fp_words(&x)), x);
    }

    #[test]
    fn every_module_is_embedded_with_kernels() {
        for (name, _, text) in crate::gpu::ptx::MODULES {
            assert!(text.contains(".target sm_90"), "{name}");
            assert!(!crate::gpu::info::kernel_names(text).is_empty(), "{name}");
        }
    }
}
