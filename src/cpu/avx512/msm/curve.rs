//! G1 (y² = x³ + 4 over Fp) on eight lanes: affine points in memory, XYZZ points in registers.
//!
//! - [`Affine`]: one point per 128 bytes, x's eight limbs then y's, in our Montgomery form;
//!   (0, 0) is the point at infinity (no curve point has y = 0 and x = 0 both);
//! - [`Xyzz`]: x = X/ZZ, y = Y/ZZZ with ZZ³ = ZZZ²; infinity is ZZ = ZZZ = 0. [`madd`] (XYZZ +
//!   affine, madd-2008-s: 8M + 2S), [`add`] (XYZZ + XYZZ, add-2008-s: 12M + 2S) and [`double`]
//!   (dbl-2008-s-1: 6M + 3S) are exact in every lane: infinity on either side, P + P and P − P.
//!   P − P needs nothing: the formulas give ZZ = 0 when the x coordinates meet. P + P is redone
//!   by [`double`] in the lanes that need it, only when some lane does;
//! - moves between these and blst: [`to_affine_blst`], [`to_jacobian_blst`].
use std::arch::x86_64::*;

use crate::ec::{Fp, P1Affine, P1};

use crate::field::lanes::{self as field, per_limb, Lanes, Packed, FP};

/// Eight elements of Fp.
pub type Fe = Lanes<8>;

/// An affine point in our form: limbs 0..8 are x, 8..16 are y; all zero is infinity.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
pub struct Affine(pub [u64; 16]);

impl Affine {
    pub fn set(&mut self, x: &Packed<8>, y: &Packed<8>, lane: usize) {
        for j in 0..8 {
            self.0[j] = x.0[j][lane];
            self.0[8 + j] = y.0[j][lane];
        }
    }
}

#[inline(always)]
pub unsafe fn zero() -> Fe {
    Lanes([_mm512_setzero_si512(); 8])
}

#[inline(always)]
pub unsafe fn one() -> Fe {
    field::splat(&FP.one)
}

/// a·b·R⁻¹ mod p.
#[inline(always)]
pub unsafe fn mul(a: &Fe, b: &Fe) -> Fe {
    field::mul(&FP, a, b)
}

/// a·b·R⁻¹ mod p as a value < 2p (see [`field::mul_lazy`]).
#[inline(always)]
pub unsafe fn mul_lazy(a: &Fe, b: &Fe) -> Fe {
    field::mul_lazy(&FP, a, b)
}

/// x mod p for x < 2p.
#[inline(always)]
pub unsafe fn canonical(x: &Fe) -> Fe {
    field::canonical(&FP, x)
}

#[inline(always)]
pub unsafe fn sqr(a: &Fe) -> Fe {
    field::sqr(&FP, a)
}

/// a²·R⁻¹ mod p as a value < 2p (see [`field::sqr_lazy`]).
#[inline(always)]
pub unsafe fn sqr_lazy(a: &Fe) -> Fe {
    field::sqr_lazy(&FP, a)
}

#[inline(always)]
pub unsafe fn add_fe(a: &Fe, b: &Fe) -> Fe {
    field::add(&FP, a, b)
}

#[inline(always)]
pub unsafe fn sub(a: &Fe, b: &Fe) -> Fe {
    field::sub(&FP, a, b)
}

#[inline(always)]
pub unsafe fn dbl_fe(a: &Fe) -> Fe {
    field::dbl(&FP, a)
}

/// 3a.
#[inline(always)]
pub unsafe fn triple(a: &Fe) -> Fe {
    add_fe(&dbl_fe(a), a)
}

/// Eight affine points: lane l is `pts[idx[l] / 16]` (`idx` counts u64 words).
#[inline(always)]
pub unsafe fn gather(pts: *const Affine, idx: __m512i) -> (Fe, Fe) {
    let base = pts as *const i64;
    let x = Lanes(per_limb!(8, |j| _mm512_i64gather_epi64::<8>(idx, base.add(j))));
    let y = Lanes(per_limb!(8, |j| _mm512_i64gather_epi64::<8>(idx, base.add(8 + j))));
    (x, y)
}

/// A point in XYZZ coordinates, eight lanes.
#[derive(Clone, Copy)]
pub struct Xyzz {
    pub x: Fe,
    pub y: Fe,
    pub zz: Fe,
    pub zzz: Fe,
}

impl Xyzz {
    #[inline(always)]
    pub unsafe fn infinity() -> Self {
        Xyzz { x: zero(), y: zero(), zz: zero(), zzz: zero() }
    }

    /// Affine (x, y) as (x, y, 1, 1); (0, 0) stays infinity only through the callers' masks.
    #[inline(always)]
    pub unsafe fn from_affine(x: &Fe, y: &Fe) -> Self {
        Xyzz { x: *x, y: *y, zz: one(), zzz: one() }
    }

    #[inline(always)]
    pub unsafe fn is_infinity(&self) -> __mmask8 {
        field::is_zero(&self.zz)
    }
}

/// Lanes where `m` is set take `b`, the others `a`.
#[inline(always)]
pub unsafe fn blend(m: __mmask8, a: &Xyzz, b: &Xyzz) -> Xyzz {
    Xyzz {
        x: field::blend(m, &a.x, &b.x),
        y: field::blend(m, &a.y, &b.y),
        zz: field::blend(m, &a.zz, &b.zz),
        zzz: field::blend(m, &a.zzz, &b.zzz),
    }
}

/// 2S (dbl-2008-s-1, a = 0); infinity and y = 0 give infinity (V = 0).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn double(s: &Xyzz) -> Xyzz {
    let u = dbl_fe(&s.y);
    let v = sqr(&u);
    let w = mul(&u, &v);
    let sv = mul(&s.x, &v);
    let m = triple(&sqr(&s.x));
    let x = sub(&sqr(&m), &dbl_fe(&sv));
    let y = sub(&mul(&m, &sub(&sv, &x)), &mul(&w, &s.y));
    Xyzz { x, y, zz: mul(&v, &s.zz), zzz: mul(&w, &s.zzz) }
}

/// S + (qx, qy) with the affine point (0, 0) as infinity (madd-2008-s).
#[inline(always)]
pub unsafe fn madd(s: &Xyzz, qx: &Fe, qy: &Fe) -> Xyzz {
    let u2 = mul(qx, &s.zz);
    let s2 = mul(qy, &s.zzz);
    let p = sub(&u2, &s.x);
    let r = sub(&s2, &s.y);
    let pp = sqr(&p);
    let ppp = mul(&p, &pp);
    let q = mul(&s.x, &pp);
    let x = sub(&sub(&sqr(&r), &ppp), &dbl_fe(&q));
    let y = sub(&mul(&r, &sub(&q, &x)), &mul(&s.y, &ppp));
    let mut out = Xyzz { x, y, zz: mul(&s.zz, &pp), zzz: mul(&s.zzz, &ppp) };
    let s_inf = s.is_infinity();
    let q_inf = field::is_zero(qx) & field::is_zero(qy);
    let same = field::is_zero(&p) & field::is_zero(&r) & !s_inf & !q_inf;
    if same != 0 {
        out = blend(same, &out, &double(s));
    }
    out = blend(s_inf, &out, &Xyzz::from_affine(qx, qy));
    blend(q_inf, &out, s)
}

/// A + B (add-2008-s).
#[inline(always)]
pub unsafe fn add(a: &Xyzz, b: &Xyzz) -> Xyzz {
    let u1 = mul(&a.x, &b.zz);
    let u2 = mul(&b.x, &a.zz);
    let s1 = mul(&a.y, &b.zzz);
    let s2 = mul(&b.y, &a.zzz);
    let p = sub(&u2, &u1);
    let r = sub(&s2, &s1);
    let pp = sqr(&p);
    let ppp = mul(&p, &pp);
    let q = mul(&u1, &pp);
    let x = sub(&sub(&sqr(&r), &ppp), &dbl_fe(&q));
    let y = sub(&mul(&r, &sub(&q, &x)), &mul(&s1, &ppp));
    let zz = mul(&mul(&a.zz, &b.zz), &pp);
    let zzz = mul(&mul(&a.zzz, &b.zzz), &ppp);
    let mut out = Xyzz { x, y, zz, zzz };
    let (a_inf, b_inf) = (a.is_infinity(), b.is_infinity());
    let same = field::is_zero(&p) & field::is_zero(&r) & !a_inf & !b_inf;
    if same != 0 {
        out = blend(same, &out, &double(a));
    }
    out = blend(a_inf, &out, b);
    blend(b_inf, &out, a)
}

/// Eight points in blst's Jacobian form: (X·ZZ², Y·ZZ³, ZZZ) (Z = ZZZ/ZZ·ZZ, up to the scale).
#[inline(always)]
pub unsafe fn to_jacobian_blst(s: &Xyzz) -> [P1; 8] {
    let zz2 = sqr(&s.zz);
    let x = field::to_blst::<8, 6>(&FP, &mul(&s.x, &zz2));
    let y = field::to_blst::<8, 6>(&FP, &mul(&mul(&s.y, &s.zz), &zz2));
    let z = field::to_blst::<8, 6>(&FP, &s.zzz);
    std::array::from_fn(|l| P1 { x: Fp { l: x[l] }, y: Fp { l: y[l] }, z: Fp { l: z[l] } })
}

/// Up to eight of our affine points in blst's form ((0, 0) stays infinity).
#[inline(always)]
pub unsafe fn to_affine_blst(pts: &[Affine]) -> Vec<P1Affine> {
    let (mut x, mut y) = (Packed::<8>::default(), Packed::<8>::default());
    for (l, p) in pts.iter().enumerate() {
        for j in 0..8 {
            x.0[j][l] = p.0[j];
            y.0[j][l] = p.0[8 + j];
        }
    }
    let xs = field::to_blst::<8, 6>(&FP, &field::load(&x));
    let ys = field::to_blst::<8, 6>(&FP, &field::load(&y));
    (0..pts.len()).map(|l| P1Affine { x: Fp { l: xs[l] }, y: Fp { l: ys[l] } }).collect()
}

/// Eight blst affine points in our form, as (x, y) lanes.
#[inline(always)]
pub unsafe fn from_affine_blst(pts: &[P1Affine; 8]) -> (Fe, Fe) {
    let x = field::from_blst::<8, 6>(&FP, &std::array::from_fn(|l| pts[l].x.l));
    let y = field::from_blst::<8, 6>(&FP, &std::array::from_fn(|l| pts[l].y.l));
    (x, y)
}
