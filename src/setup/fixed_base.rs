//! Fixed-base scalar multiplication over blst: many scalars times one base point (the
//! generator), as a parameter generator needs it.
//!
//! The scalar is cut into 16 windows of 16 bits (its little-endian u16 limbs) and recoded into
//! signed digits in (−2^15, 2^15]; window k has a table of d·2^(16k)·G for d = 1..2^15 in
//! affine form (G1: 16 × 32768 × 96 B = 48 MiB, G2: 96 MiB). A product is then at most 16
//! table lookups and 15 additions, no doublings. Points are produced in blocks of 1024 whose
//! accumulators stay affine: each window's additions across the block share one inversion
//! (batched affine addition), and the results are serialized straight into the caller's byte
//! buffer (uncompressed zcash encoding).
use blst::{
    blst_fp, blst_fp2, blst_fp2_add, blst_fp2_cneg, blst_fp2_inverse, blst_fp2_mul, blst_fp2_sqr, blst_fp2_sub,
    blst_fp_add, blst_fp_cneg, blst_fp_inverse, blst_fp_mul, blst_fp_sqr, blst_fp_sub, blst_fr, blst_p1,
    blst_p1_add_or_double_affine, blst_p1_affine, blst_p1_affine_serialize, blst_p1_double, blst_p1_from_affine,
    blst_p1_is_inf, blst_p1s_to_affine, blst_p2, blst_p2_add_or_double_affine, blst_p2_affine,
    blst_p2_affine_serialize, blst_p2_double, blst_p2_from_affine, blst_p2_is_inf, blst_p2s_to_affine, blst_scalar,
    blst_scalar_from_fr,
};
use blstrs::Scalar;
use rayon::prelude::*;

use crate::ec::FromXy;

/// Bits per window (the GPU kernels of module "fixed_base" assume the same table layout).
pub const WBITS: usize = 16;
/// Windows per scalar.
pub const NWIN: usize = 256 / WBITS;
/// Table entries per window: d = 1..=HALF.
pub const HALF: usize = 1 << (WBITS - 1);
/// Points per block of a batch (one batched inversion each).
const BLOCK: usize = 1024;
/// How many points ahead table entries are prefetched.
const PREFETCH: usize = 20;

/// Which standard generator a fixed-base multiplication uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generator {
    G1,
    G2,
}

impl Generator {
    /// Bytes of one uncompressed (zcash) encoded point.
    pub fn point_bytes(self) -> usize {
        match self {
            Generator::G1 => 96,
            Generator::G2 => 192,
        }
    }
}

/// Signed base-2^16 digits of a scalar's canonical integer, least significant first.
#[inline]
fn digits(s: &Scalar) -> [i32; NWIN] {
    let fr: blst_fr = (*s).into();
    let mut sc = blst_scalar::default();
    unsafe { blst_scalar_from_fr(&mut sc, &fr) };
    let mut out = [0i32; NWIN];
    let mut carry = 0i32;
    for (k, d) in out.iter_mut().enumerate() {
        let v = u16::from_le_bytes([sc.b[2 * k], sc.b[2 * k + 1]]) as i32 + carry;
        if v > HALF as i32 {
            *d = v - (1 << WBITS);
            carry = 1;
        } else {
            *d = v;
            carry = 0;
        }
    }
    // r < 2^255 and its top limb is below 2^15, so the top digit never carries out.
    debug_assert_eq!(carry, 0);
    out
}

/// The curve operations the tables need: Jacobian arithmetic from blst for the rare cases,
/// and field arithmetic for batched affine additions.
pub trait Curve: Send + Sync + 'static {
    type Fq: Copy + Default + Send + Sync;
    type P: Copy + Default + Send + Sync;
    type A: Copy + Default + Send + Sync;
    /// Uncompressed encoding size.
    const BYTES: usize;
    fn x(a: &Self::A) -> &Self::Fq;
    fn y(a: &Self::A) -> &Self::Fq;
    fn affine(x: Self::Fq, y: Self::Fq) -> Self::A;
    fn mul(a: &Self::Fq, b: &Self::Fq) -> Self::Fq;
    fn sqr(a: &Self::Fq) -> Self::Fq;
    fn sub(a: &Self::Fq, b: &Self::Fq) -> Self::Fq;
    fn add(a: &Self::Fq, b: &Self::Fq) -> Self::Fq;
    fn neg(a: &Self::Fq) -> Self::Fq;
    fn inv(a: &Self::Fq) -> Self::Fq;
    fn is_zero(a: &Self::Fq) -> bool;
    fn double(p: &Self::P) -> Self::P;
    fn add_affine(p: &Self::P, a: &Self::A) -> Self::P;
    fn from_affine(a: &Self::A) -> Self::P;
    fn is_inf(p: &Self::P) -> bool;
    /// Batch conversion to affine (one inversion).
    fn to_affine(p: &[Self::P], out: &mut [Self::A]);
    fn serialize(a: &Self::A, out: &mut [u8]);
}

macro_rules! curve {
    ($name:ident, $fq:ty, $p:ty, $aff:ty, $bytes:expr, $fmul:ident, $fsqr:ident, $fsub:ident, $fadd:ident, $fneg:ident,
     $finv:ident, $add:ident, $double:ident, $from_aff:ident, $is_inf:ident, $to_aff:ident, $ser:ident,
     $zero:expr) => {
        pub struct $name;
        impl Curve for $name {
            type Fq = $fq;
            type P = $p;
            type A = $aff;
            const BYTES: usize = $bytes;
            #[inline]
            fn x(a: &$aff) -> &$fq {
                &a.x
            }
            #[inline]
            fn y(a: &$aff) -> &$fq {
                &a.y
            }
            #[inline]
            fn affine(x: $fq, y: $fq) -> $aff {
                <$aff>::from_xy(x, y)
            }
            #[inline]
            fn mul(a: &$fq, b: &$fq) -> $fq {
                let mut r = <$fq>::default();
                unsafe { $fmul(&mut r, a, b) };
                r
            }
            #[inline]
            fn sqr(a: &$fq) -> $fq {
                let mut r = <$fq>::default();
                unsafe { $fsqr(&mut r, a) };
                r
            }
            #[inline]
            fn sub(a: &$fq, b: &$fq) -> $fq {
                let mut r = <$fq>::default();
                unsafe { $fsub(&mut r, a, b) };
                r
            }
            #[inline]
            fn add(a: &$fq, b: &$fq) -> $fq {
                let mut r = <$fq>::default();
                unsafe { $fadd(&mut r, a, b) };
                r
            }
            #[inline]
            fn neg(a: &$fq) -> $fq {
                let mut r = <$fq>::default();
                unsafe { $fneg(&mut r, a, true) };
                r
            }
            fn inv(a: &$fq) -> $fq {
                let mut r = <$fq>::default();
                unsafe { $finv(&mut r, a) };
                r
            }
            #[inline]
            fn is_zero(a: &$fq) -> bool {
                $zero(a)
            }
            #[inline]
            fn double(p: &$p) -> $p {
                let mut r = <$p>::default();
                unsafe { $double(&mut r, p) };
                r
            }
            #[inline]
            fn add_affine(p: &$p, a: &$aff) -> $p {
                let mut r = <$p>::default();
                unsafe { $add(&mut r, p, a) };
                r
            }
            #[inline]
            fn from_affine(a: &$aff) -> $p {
                let mut r = <$p>::default();
                unsafe { $from_aff(&mut r, a) };
                r
            }
            fn is_inf(p: &$p) -> bool {
                unsafe { $is_inf(p) }
            }
            fn to_affine(p: &[$p], out: &mut [$aff]) {
                assert_eq!(p.len(), out.len());
                let ptrs = [p.as_ptr(), std::ptr::null()];
                unsafe { $to_aff(out.as_mut_ptr(), ptrs.as_ptr(), p.len()) };
            }
            #[inline]
            fn serialize(a: &$aff, out: &mut [u8]) {
                assert!(out.len() >= $bytes);
                unsafe { $ser(out.as_mut_ptr(), a) };
            }
        }
    };
}

curve!(
    G1,
    blst_fp,
    blst_p1,
    blst_p1_affine,
    96,
    blst_fp_mul,
    blst_fp_sqr,
    blst_fp_sub,
    blst_fp_add,
    blst_fp_cneg,
    blst_fp_inverse,
    blst_p1_add_or_double_affine,
    blst_p1_double,
    blst_p1_from_affine,
    blst_p1_is_inf,
    blst_p1s_to_affine,
    blst_p1_affine_serialize,
    |a: &blst_fp| a.l.iter().fold(0, |z, l| z | l) == 0
);
curve!(
    G2,
    blst_fp2,
    blst_p2,
    blst_p2_affine,
    192,
    blst_fp2_mul,
    blst_fp2_sqr,
    blst_fp2_sub,
    blst_fp2_add,
    blst_fp2_cneg,
    blst_fp2_inverse,
    blst_p2_add_or_double_affine,
    blst_p2_double,
    blst_p2_from_affine,
    blst_p2_is_inf,
    blst_p2s_to_affine,
    blst_p2_affine_serialize,
    |a: &blst_fp2| a.fp[0].l.iter().chain(a.fp[1].l.iter()).fold(0, |z, l| z | l) == 0
);

/// Window tables of one base point; see the module documentation.
pub struct Table<C: Curve> {
    /// `t[k·2^15 + d − 1]` = d·2^(16k)·base.
    t: Vec<C::A>,
}

pub type G1Table = Table<G1>;
pub type G2Table = Table<G2>;

impl<C: Curve> Table<C> {
    pub const POINT_BYTES: usize = C::BYTES;

    pub fn new(base: &C::P) -> Self {
        let mut bases = Vec::with_capacity(NWIN);
        let mut b = *base;
        for _ in 0..NWIN {
            bases.push(b);
            for _ in 0..WBITS {
                b = C::double(&b);
            }
        }
        let mut bases_aff = vec![C::A::default(); NWIN];
        C::to_affine(&bases, &mut bases_aff);
        let mut t = vec![C::A::default(); NWIN * HALF];
        t.par_chunks_mut(HALF).zip(bases_aff.par_iter()).for_each(|(win, b)| {
            let mut jac = vec![C::P::default(); HALF];
            let mut acc = C::from_affine(b);
            for j in jac.iter_mut() {
                *j = acc;
                acc = C::add_affine(&acc, b);
            }
            C::to_affine(&jac, win);
        });
        Self { t }
    }

    /// The affine entries, `entries()[k·2^15 + d − 1]` = d·2^(16k)·base (blst layout: Montgomery
    /// limbs, x then y), for the GPU's copy of the table.
    pub fn entries(&self) -> &[C::A] {
        &self.t
    }

    /// Asks for the cache lines of a table entry ahead of its use: the lookups are random
    /// over a 3 MiB (G1) or 6 MiB (G2) window and would otherwise stall on memory.
    #[inline]
    fn prefetch(&self, k: usize, d: i32) {
        if d == 0 {
            return;
        }
        let p = &self.t[k * HALF + d.unsigned_abs() as usize - 1] as *const C::A as *const i8;
        #[cfg(target_arch = "x86_64")]
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // Every line the entry touches, once.
            let size = std::mem::size_of::<C::A>();
            let first = p as usize & !63;
            let mut line = first;
            while line < p as usize + size {
                _mm_prefetch(line as *const i8, _MM_HINT_T0);
                line += 64;
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = p;
    }

    #[inline]
    fn entry(&self, k: usize, d: i32) -> C::A {
        let p = self.t[k * HALF + d.unsigned_abs() as usize - 1];
        if d < 0 {
            C::affine(*C::x(&p), C::neg(C::y(&p)))
        } else {
            p
        }
    }

    /// s·base in Jacobian coordinates (one at a time; [`Table::mul_to_bytes`] is the fast path).
    pub fn mul(&self, s: &Scalar) -> C::P {
        let mut acc = C::P::default();
        let mut first = true;
        for (k, &dk) in digits(s).iter().enumerate() {
            if dk == 0 {
                continue;
            }
            let pt = self.entry(k, dk);
            acc = if first { C::from_affine(&pt) } else { C::add_affine(&acc, &pt) };
            first = false;
        }
        acc
    }

    /// s_i·base for a block, in affine form (the all-zero point for s_i = 0). Window by window,
    /// every pending addition of the block shares one field inversion (Montgomery's trick):
    /// an affine addition then costs about 6 multiplications instead of ~11 for a Jacobian one.
    /// Additions of a point to itself or its negative (x equal) go through blst's complete
    /// Jacobian formula.
    #[allow(clippy::needless_range_loop)]
    pub fn mul_block_affine(&self, s: &[Scalar]) -> Vec<C::A> {
        let n = s.len();
        let digs: Vec<[i32; NWIN]> = s.iter().map(digits).collect();
        let mut acc = vec![C::A::default(); n];
        let mut has = vec![false; n];
        // Pending additions of a window: (point, table index, negated), x differences and
        // their prefix products.
        let mut pend: Vec<(u32, u32, bool)> = Vec::with_capacity(n);
        let mut dens: Vec<C::Fq> = Vec::with_capacity(n);
        let mut prefix: Vec<C::Fq> = Vec::with_capacity(n);
        for k in 0..NWIN {
            pend.clear();
            dens.clear();
            prefix.clear();
            for i in 0..n {
                if i + PREFETCH < n {
                    self.prefetch(k, digs[i + PREFETCH][k]);
                }
                let d = digs[i][k];
                if d == 0 {
                    continue;
                }
                if !has[i] {
                    acc[i] = self.entry(k, d);
                    has[i] = true;
                    continue;
                }
                let idx = k * HALF + d.unsigned_abs() as usize - 1;
                let den = C::sub(C::x(&self.t[idx]), C::x(&acc[i]));
                if C::is_zero(&den) {
                    // acc = ±q: blst's complete formula doubles or gives infinity.
                    let p = C::add_affine(&C::from_affine(&acc[i]), &self.entry(k, d));
                    if C::is_inf(&p) {
                        has[i] = false;
                        acc[i] = C::A::default();
                    } else {
                        C::to_affine(std::slice::from_ref(&p), std::slice::from_mut(&mut acc[i]));
                    }
                    continue;
                }
                let next = match prefix.last() {
                    Some(l) => C::mul(l, &den),
                    None => den,
                };
                prefix.push(next);
                dens.push(den);
                pend.push((i as u32, idx as u32, d < 0));
            }
            let Some(last) = prefix.last() else { continue };
            let mut inv = C::inv(last);
            for j in (0..pend.len()).rev() {
                let (i, idx, neg) = pend[j];
                let q = &self.t[idx as usize];
                let a = &mut acc[i as usize];
                let inv_j = if j > 0 { C::mul(&inv, &prefix[j - 1]) } else { inv };
                inv = C::mul(&inv, &dens[j]);
                // For −q = (qx, −qy): λ = −(qy + ay)/den; x3 is the same, and
                // y3 = λ(ax − x3) − ay = (qy + ay)/den·(x3 − ax) − ay.
                let (ax, ay) = (C::x(a), C::y(a));
                let num = if neg { C::add(C::y(q), ay) } else { C::sub(C::y(q), ay) };
                let lambda = C::mul(&num, &inv_j);
                let x3 = C::sub(&C::sub(&C::sqr(&lambda), ax), C::x(q));
                let dx = if neg { C::sub(&x3, ax) } else { C::sub(ax, &x3) };
                let y3 = C::sub(&C::mul(&lambda, &dx), ay);
                *a = C::affine(x3, y3);
            }
        }
        acc
    }

    /// Serializes s_i·base (uncompressed, zcash encoding) into `out[i·BYTES..]`, in
    /// parallel. `out.len()` must be `scalars.len() · BYTES`.
    pub fn mul_to_bytes(&self, scalars: &[Scalar], out: &mut [u8]) {
        assert_eq!(out.len(), scalars.len() * C::BYTES);
        scalars.par_chunks(BLOCK).zip(out.par_chunks_mut(BLOCK * C::BYTES)).for_each(|(s, o)| {
            let aff = self.mul_block_affine(s);
            for (a, chunk) in aff.iter().zip(o.chunks_exact_mut(C::BYTES)) {
                C::serialize(a, chunk);
            }
        });
    }
}

/// The standard generators.
pub fn g1_generator() -> blst_p1 {
    unsafe { *blst::blst_p1_generator() }
}

pub fn g2_generator() -> blst_p2 {
    unsafe { *blst::blst_p2_generator() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use group::{Curve, Group};
    use rand::SeedableRng;

    /// Single-thread throughput: `cargo test --release --lib -- --ignored bench_fixed_base --nocapture`.
    #[test]
    #[ignore]
    fn bench_fixed_base() {
        let g1 = G1Table::new(&g1_generator());
        let g2 = G2Table::new(&g2_generator());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let scalars: Vec<Scalar> = (0..1 << 17).map(|_| Scalar::random(&mut rng)).collect();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        // CPU time of this thread (ns), so that other load on the machine does not count.
        let cpu = || {
            let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
            s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0)
        };
        pool.install(|| {
            let mut b1 = vec![0u8; scalars.len() * 96];
            let t = cpu();
            g1.mul_to_bytes(&scalars, &mut b1);
            let g1_ns = (cpu() - t) / scalars.len() as f64;
            let mut b2 = vec![0u8; scalars.len() / 4 * 192];
            let t = cpu();
            g2.mul_to_bytes(&scalars[..scalars.len() / 4], &mut b2);
            let g2_ns = (cpu() - t) / (scalars.len() / 4) as f64;
            eprintln!("one thread, CPU time: G1 {g1_ns:.0} ns/point, G2 {g2_ns:.0} ns/point");
        });
    }

    #[test]
    fn matches_blstrs_scalar_multiplication() {
        let g1 = G1Table::new(&g1_generator());
        let g2 = G2Table::new(&g2_generator());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut scalars: Vec<Scalar> = (0..2500).map(|_| Scalar::random(&mut rng)).collect();
        scalars[0] = Scalar::ZERO;
        scalars[1] = Scalar::ONE;
        scalars[2] = -Scalar::ONE;
        scalars[3] = Scalar::from(0x8000u64);
        scalars[4] = Scalar::from(0xffffu64);
        scalars[5] = Scalar::from(0x1_7fffu64);
        let mut b1 = vec![0u8; scalars.len() * 96];
        let mut b2 = vec![0u8; scalars.len() * 192];
        g1.mul_to_bytes(&scalars, &mut b1);
        g2.mul_to_bytes(&scalars, &mut b2);
        for (i, s) in scalars.iter().enumerate() {
            let want1 = (blstrs::G1Projective::generator() * s).to_affine().to_uncompressed();
            assert_eq!(&b1[i * 96..(i + 1) * 96], &want1[..], "G1 scalar {i}");
            let want2 = (blstrs::G2Projective::generator() * s).to_affine().to_uncompressed();
            assert_eq!(&b2[i * 192..(i + 1) * 192], &want2[..], "G2 scalar {i}");
        }
    }
}
