//! The coordinate field of the points a bucket accumulation adds, eight lanes at a time: Fp for
//! G1 ([`Fe`]), Fp2 = Fp[u]/(u² + 1) for G2 ([`Fe2`]). [`super::buckets::accumulate`] is written
//! once over [`Coord`]; both curves are y² = x³ + b with a = 0, so the batch-affine formulas
//! (λ = (y_P − y_A)/(x_P − x_A), or 3x²/2y for P + P) are the same in either field. G2's points
//! come in from raw `.params` bytes and go out to blst here too ([`convert8_g2_at`],
//! [`to_affine_blst_g2`]); G1's are in [`super::source`].
//!
//! Lazy values: `mul_lazy`/`sqr_lazy` give each Fp component < 2p (normalised limbs) from
//! operands < 3p; `sub` takes a minuend < 2p and a canonical subtrahend and gives < 2p;
//! `canonical` takes < 2p.
use std::arch::x86_64::*;

use super::curve::{self, Affine, Fe};
use super::source::{self, limbs_from_be, R2};
use crate::ec::encoding::{is_infinity, strip_flags};
use crate::ec::{Curve, Fp, Fp2, MontField, P1Affine, P2Affine, G1, G2};
use crate::field::lanes::{self as field, per_limb, Lanes, Packed, FP};
use crate::srs::points::G2_BYTES;

/// The Jacobian points of a [`Coord`]'s group, where sums leave the lanes.
pub type Jacobian<C> = <<C as Coord>::Group as Curve>::Jacobian;
/// The affine points of a [`Coord`]'s group in the curve layer's form.
pub type GroupAffine<C> = <<C as Coord>::Group as Curve>::Affine;

/// A field whose elements are a point's coordinates, eight lanes at a time.
pub trait Coord: Copy {
    /// Eight elements in memory.
    type Mem: Copy + Default;
    /// One affine point in memory, (0, 0) for infinity; 64-byte aligned, 2^POINT_LOG u64 words.
    type Point: Copy + Default + Send + Sync;
    const POINT_LOG: u32;

    unsafe fn load(m: &Self::Mem) -> Self;
    unsafe fn store(m: &mut Self::Mem, v: &Self);
    unsafe fn zero() -> Self;
    unsafe fn one() -> Self;
    unsafe fn mul_lazy(a: &Self, b: &Self) -> Self;
    unsafe fn sqr_lazy(a: &Self) -> Self;
    unsafe fn canonical(a: &Self) -> Self;
    unsafe fn add(a: &Self, b: &Self) -> Self;
    unsafe fn sub(a: &Self, b: &Self) -> Self;
    /// Lanes holding 0.
    unsafe fn is_zero(a: &Self) -> __mmask8;
    /// Lanes where `m` is set take `b`, the others `a`.
    unsafe fn blend(m: __mmask8, a: &Self, b: &Self) -> Self;
    /// 1/a in each lane (a ≠ 0), canonical.
    unsafe fn invert(a: &Self) -> Self;
    /// The points `idx` (indices into `pts`, one per lane) as (x, y).
    unsafe fn gather(pts: *const Self::Point, idx: __m512i) -> (Self, Self);
    /// Writes lane `lane` of (x, y) as one point.
    fn set(p: &mut Self::Point, x: &Self::Mem, y: &Self::Mem, lane: usize);

    /// The group whose points have these coordinates: sums leave the lanes as its points, and
    /// its arithmetic ([`Curve`]) finishes them.
    type Group: Curve;
    /// The raw points `at` (≤ 8 indices into a section's bytes) in our form, the rest at infinity.
    unsafe fn convert8_at(raw: &[u8], at: &[u32]) -> [Self::Point; 8];
    /// Up to eight of our points in the curve layer's affine form.
    unsafe fn to_group_affine(pts: &[Self::Point]) -> Vec<GroupAffine<Self>>;
}

impl Coord for Fe {
    type Mem = Packed<8>;
    type Point = Affine;
    const POINT_LOG: u32 = 4;

    #[inline(always)]
    unsafe fn load(m: &Packed<8>) -> Self {
        field::load(m)
    }
    #[inline(always)]
    unsafe fn store(m: &mut Packed<8>, v: &Self) {
        field::store(m, v)
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        curve::zero()
    }
    #[inline(always)]
    unsafe fn one() -> Self {
        curve::one()
    }
    #[inline(always)]
    unsafe fn mul_lazy(a: &Self, b: &Self) -> Self {
        curve::mul_lazy(a, b)
    }
    #[inline(always)]
    unsafe fn sqr_lazy(a: &Self) -> Self {
        curve::sqr_lazy(a)
    }
    #[inline(always)]
    unsafe fn canonical(a: &Self) -> Self {
        curve::canonical(a)
    }
    #[inline(always)]
    unsafe fn add(a: &Self, b: &Self) -> Self {
        curve::add_fe(a, b)
    }
    #[inline(always)]
    unsafe fn sub(a: &Self, b: &Self) -> Self {
        curve::sub(a, b)
    }
    #[inline(always)]
    unsafe fn is_zero(a: &Self) -> __mmask8 {
        field::is_zero(a)
    }
    #[inline(always)]
    unsafe fn blend(m: __mmask8, a: &Self, b: &Self) -> Self {
        field::blend(m, a, b)
    }
    #[inline(always)]
    unsafe fn invert(a: &Self) -> Self {
        invert_fp(a)
    }
    #[inline(always)]
    unsafe fn gather(pts: *const Affine, idx: __m512i) -> (Self, Self) {
        curve::gather(pts, _mm512_slli_epi64(idx, Self::POINT_LOG))
    }
    fn set(p: &mut Affine, x: &Packed<8>, y: &Packed<8>, lane: usize) {
        p.set(x, y, lane)
    }

    type Group = G1;
    unsafe fn convert8_at(raw: &[u8], at: &[u32]) -> [Affine; 8] {
        source::convert8_at(raw, at)
    }
    unsafe fn to_group_affine(pts: &[Affine]) -> Vec<P1Affine> {
        to_affine_g1(pts)
    }
}

/// [`curve::to_affine_blst`] compiled with the features its intrinsics need (callers of
/// [`Coord::to_group_affine`] need not have them).
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn to_affine_g1(pts: &[Affine]) -> Vec<P1Affine> {
    curve::to_affine_blst(pts)
}

/// 1/v in each lane (v ≠ 0): one blst inversion for the eight, by Montgomery's trick.
#[inline(always)]
unsafe fn invert_fp(v: &Fe) -> Fe {
    let a = field::to_blst::<8, 6>(&FP, v).map(|l| Fp { l });
    let mut pre = a;
    for i in 1..8 {
        pre[i] = pre[i - 1].mul(&a[i]);
    }
    let mut inv = pre[7].inv();
    let mut out = [[0u64; 6]; 8];
    for i in (1..8).rev() {
        out[i] = inv.mul(&pre[i - 1]).l;
        inv = inv.mul(&a[i]);
    }
    out[0] = inv.l;
    field::from_blst::<8, 6>(&FP, &out)
}

/// Eight elements of Fp2: c0 + c1·u.
#[derive(Clone, Copy)]
pub struct Fe2 {
    pub c0: Fe,
    pub c1: Fe,
}

/// A G2 affine point in our form: x.c0, x.c1, y.c0, y.c1, eight limbs each; all zero is
/// infinity.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
pub struct Affine2(pub [u64; 32]);

impl Coord for Fe2 {
    type Mem = [Packed<8>; 2];
    type Point = Affine2;
    const POINT_LOG: u32 = 5;

    #[inline(always)]
    unsafe fn load(m: &[Packed<8>; 2]) -> Self {
        Fe2 { c0: field::load(&m[0]), c1: field::load(&m[1]) }
    }
    #[inline(always)]
    unsafe fn store(m: &mut [Packed<8>; 2], v: &Self) {
        field::store(&mut m[0], &v.c0);
        field::store(&mut m[1], &v.c1);
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        Fe2 { c0: curve::zero(), c1: curve::zero() }
    }
    #[inline(always)]
    unsafe fn one() -> Self {
        Fe2 { c0: curve::one(), c1: curve::zero() }
    }
    /// Karatsuba: a0·b0 − a1·b1, (a0 + a1)(b0 + b1) − a0·b0 − a1·b1.
    #[inline(always)]
    unsafe fn mul_lazy(a: &Self, b: &Self) -> Self {
        let v0 = curve::mul_lazy(&a.c0, &b.c0);
        let v1 = curve::mul_lazy(&a.c1, &b.c1);
        let v2 = curve::mul_lazy(&curve::add_fe(&a.c0, &a.c1), &curve::add_fe(&b.c0, &b.c1));
        let (v0c, v1c) = (curve::canonical(&v0), curve::canonical(&v1));
        Fe2 { c0: curve::sub(&v0, &v1c), c1: curve::sub(&curve::sub(&v2, &v0c), &v1c) }
    }
    /// (a0 + a1)(a0 − a1), 2·a0·a1.
    #[inline(always)]
    unsafe fn sqr_lazy(a: &Self) -> Self {
        let c0 = curve::mul_lazy(&curve::add_fe(&a.c0, &a.c1), &curve::sub(&a.c0, &curve::canonical(&a.c1)));
        let m = curve::mul_lazy(&a.c0, &a.c1);
        Fe2 { c0, c1: curve::canonical(&curve::add_fe(&m, &m)) }
    }
    #[inline(always)]
    unsafe fn canonical(a: &Self) -> Self {
        Fe2 { c0: curve::canonical(&a.c0), c1: curve::canonical(&a.c1) }
    }
    #[inline(always)]
    unsafe fn add(a: &Self, b: &Self) -> Self {
        Fe2 { c0: curve::add_fe(&a.c0, &b.c0), c1: curve::add_fe(&a.c1, &b.c1) }
    }
    #[inline(always)]
    unsafe fn sub(a: &Self, b: &Self) -> Self {
        Fe2 { c0: curve::sub(&a.c0, &b.c0), c1: curve::sub(&a.c1, &b.c1) }
    }
    #[inline(always)]
    unsafe fn is_zero(a: &Self) -> __mmask8 {
        field::is_zero(&a.c0) & field::is_zero(&a.c1)
    }
    #[inline(always)]
    unsafe fn blend(m: __mmask8, a: &Self, b: &Self) -> Self {
        Fe2 { c0: field::blend(m, &a.c0, &b.c0), c1: field::blend(m, &a.c1, &b.c1) }
    }
    /// 1/(a0 + a1·u) = (a0 − a1·u)/(a0² + a1²).
    #[inline(always)]
    unsafe fn invert(a: &Self) -> Self {
        let norm = curve::add_fe(&curve::sqr(&a.c0), &curve::sqr(&a.c1));
        let inv = invert_fp(&norm);
        Fe2 { c0: curve::mul(&a.c0, &inv), c1: curve::sub(&curve::zero(), &curve::mul(&a.c1, &inv)) }
    }
    #[inline(always)]
    unsafe fn gather(pts: *const Affine2, idx: __m512i) -> (Self, Self) {
        let idx = _mm512_slli_epi64(idx, Self::POINT_LOG);
        let base = pts as *const i64;
        // Written out, not a closure: a closure around intrinsics may not be inlined.
        let x0 = Lanes(per_limb!(8, |j| _mm512_i64gather_epi64::<8>(idx, base.add(j))));
        let x1 = Lanes(per_limb!(8, |j| _mm512_i64gather_epi64::<8>(idx, base.add(8 + j))));
        let y0 = Lanes(per_limb!(8, |j| _mm512_i64gather_epi64::<8>(idx, base.add(16 + j))));
        let y1 = Lanes(per_limb!(8, |j| _mm512_i64gather_epi64::<8>(idx, base.add(24 + j))));
        (Fe2 { c0: x0, c1: x1 }, Fe2 { c0: y0, c1: y1 })
    }
    fn set(p: &mut Affine2, x: &[Packed<8>; 2], y: &[Packed<8>; 2], lane: usize) {
        for (k, c) in [&x[0], &x[1], &y[0], &y[1]].into_iter().enumerate() {
            for j in 0..8 {
                p.0[8 * k + j] = c.0[j][lane];
            }
        }
    }

    type Group = G2;
    unsafe fn convert8_at(raw: &[u8], at: &[u32]) -> [Affine2; 8] {
        convert8_g2_at(raw, at)
    }
    unsafe fn to_group_affine(pts: &[Affine2]) -> Vec<P2Affine> {
        to_affine_blst_g2(pts)
    }
}

/// The raw G2 points `at` (≤ 8 indices into a section's bytes; each point x.c1, x.c0, y.c1, y.c0,
/// 48 big-endian bytes apiece) in our form, the rest of the eight at infinity.
///
/// # Safety
/// The CPU must have AVX-512 F and IFMA ([`super::super::available`]).
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn convert8_g2_at(raw: &[u8], at: &[u32]) -> [Affine2; 8] {
    // x.c0, x.c1, y.c0, y.c1 of the eight points.
    let mut c = [Packed::<8>::default(); 4];
    let mut b = [0u8; G2_BYTES];
    for (l, &i) in at.iter().enumerate() {
        let pt = &raw[i as usize * G2_BYTES..(i as usize + 1) * G2_BYTES];
        if !is_infinity(pt) {
            strip_flags(pt, &mut b);
            for (k, from) in [48, 0, 144, 96].into_iter().enumerate() {
                c[k].set(l, &limbs_from_be(&b[from..from + 48]));
            }
        }
    }
    let r2 = field::splat(&R2);
    for v in c.iter_mut() {
        let ours = curve::mul(&field::load(v), &r2);
        field::store(v, &ours);
    }
    let mut out = [Affine2::default(); 8];
    for (l, p) in out.iter_mut().enumerate() {
        Fe2::set(p, &[c[0], c[1]], &[c[2], c[3]], l);
    }
    out
}

/// Up to eight of our G2 affine points in blst's form ((0, 0) stays infinity).
///
/// # Safety
/// The CPU must have AVX-512 F and IFMA ([`super::super::available`]).
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn to_affine_blst_g2(pts: &[Affine2]) -> Vec<P2Affine> {
    let mut c = [Packed::<8>::default(); 4];
    for (l, p) in pts.iter().enumerate() {
        for (k, ck) in c.iter_mut().enumerate() {
            for j in 0..8 {
                ck.0[j][l] = p.0[8 * k + j];
            }
        }
    }
    let mut w = [[[0u64; 6]; 8]; 4];
    for (wk, ck) in w.iter_mut().zip(&c) {
        *wk = field::to_blst::<8, 6>(&FP, &field::load(ck));
    }
    let fp2 = |c0: [u64; 6], c1: [u64; 6]| Fp2 { fp: [Fp { l: c0 }, Fp { l: c1 }] };
    (0..pts.len()).map(|l| G2::affine(fp2(w[0][l], w[1][l]), fp2(w[2][l], w[3][l]))).collect()
}
