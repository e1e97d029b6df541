//! Fixed-base scalar multiplication: many scalars times one base point (a standard generator),
//! as the parameter generator needs it, from window tables of the base. The CPU path of
//! `params setup` multiplies here; the GPU path uploads the same tables (their layout is the
//! kernels' contract, [`GeneratorTable::entries`]).
//!
//! The scalar is cut into 16 windows of 16 bits (its little-endian u16 limbs) and recoded into
//! signed digits in (−2^15, 2^15]; window k has a table of d·2^(16k)·G for d = 1..2^15 in
//! affine form (G1: 16 × 32768 × 96 B = 48 MiB, G2: 96 MiB). A product is then at most 16
//! table lookups and 15 additions, no doublings. Points are produced in blocks of 1024 whose
//! accumulators stay affine: each window's additions across the block share one inversion
//! (batched affine addition), and the results are serialized straight into the caller's byte
//! buffer (uncompressed zcash encoding).
use blstrs::Scalar;
use rayon::prelude::*;

use super::curve::{Curve, G1, G2, P1, P2};
use super::field::MontField;
use super::scalar::scalar_bytes;

/// Bits per window (the GPU kernels of module "generator_mul" assume the same table layout).
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
            Generator::G1 => G1::UNCOMPRESSED_BYTES,
            Generator::G2 => G2::UNCOMPRESSED_BYTES,
        }
    }
}

/// The standard generator of G1.
pub fn g1_generator() -> P1 {
    G1::generator()
}

/// The standard generator of G2.
pub fn g2_generator() -> P2 {
    G2::generator()
}

/// Signed base-2^16 digits of a scalar's canonical integer, least significant first.
#[inline]
fn signed_digits(s: &Scalar) -> [i32; NWIN] {
    let sc = scalar_bytes(s);
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

/// Window tables of one base point; see the module documentation.
pub struct GeneratorTable<C: Curve> {
    /// `t[k·2^15 + d − 1]` = d·2^(16k)·base.
    t: Vec<C::Affine>,
}

pub type G1Table = GeneratorTable<G1>;
pub type G2Table = GeneratorTable<G2>;

impl<C: Curve> GeneratorTable<C> {
    pub const POINT_BYTES: usize = C::UNCOMPRESSED_BYTES;

    pub fn new(base: &C::Jacobian) -> Self {
        let mut bases = Vec::with_capacity(NWIN);
        let mut b = *base;
        for _ in 0..NWIN {
            bases.push(b);
            for _ in 0..WBITS {
                b = C::double(&b);
            }
        }
        let bases_aff = C::batch_to_affine_vec(&bases);
        let mut t = vec![C::Affine::default(); NWIN * HALF];
        t.par_chunks_mut(HALF).zip(bases_aff.par_iter()).for_each(|(win, b)| {
            let mut jac = vec![C::Jacobian::default(); HALF];
            let mut acc = C::from_affine(b);
            for j in jac.iter_mut() {
                *j = acc;
                acc = C::add_affine(&acc, b);
            }
            C::batch_to_affine(&jac, win);
        });
        Self { t }
    }

    /// The affine entries, `entries()[k·2^15 + d − 1]` = d·2^(16k)·base (blst layout: Montgomery
    /// limbs, x then y), for the GPU's copy of the table.
    pub fn entries(&self) -> &[C::Affine] {
        &self.t
    }

    /// Asks for the cache lines of a table entry ahead of its use: the lookups are random
    /// over a 3 MiB (G1) or 6 MiB (G2) window and would otherwise stall on memory.
    #[inline]
    fn prefetch(&self, k: usize, d: i32) {
        if d == 0 {
            return;
        }
        let entry = &self.t[k * HALF + d.unsigned_abs() as usize - 1];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let start = entry as *const C::Affine as usize;
            let end = start + std::mem::size_of::<C::Affine>();
            // Every line the entry touches, once.
            let mut line = start & !63;
            while line < end {
                // SAFETY: SSE is in every x86_64 CPU, and a prefetch never faults whatever the
                // address (these lines belong to the table anyway).
                unsafe { _mm_prefetch(line as *const i8, _MM_HINT_T0) };
                line += 64;
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = entry;
    }

    /// d·2^(16k)·base for a digit d ≠ 0 (negated from the table for d < 0).
    #[inline]
    fn entry(&self, k: usize, d: i32) -> C::Affine {
        let p = self.t[k * HALF + d.unsigned_abs() as usize - 1];
        if d < 0 {
            C::affine(*C::x(&p), C::y(&p).neg())
        } else {
            p
        }
    }

    /// s_i·base for a block, in affine form (the all-zero point for s_i = 0). Window by window,
    /// every pending addition of the block shares one field inversion (Montgomery's trick):
    /// an affine addition then costs about 6 multiplications instead of ~11 for a Jacobian one.
    /// Additions of a point to itself or its negative (x equal) go through blst's complete
    /// Jacobian formula.
    #[allow(clippy::needless_range_loop)]
    pub fn mul_block_affine(&self, s: &[Scalar]) -> Vec<C::Affine> {
        let n = s.len();
        let digs: Vec<[i32; NWIN]> = s.iter().map(signed_digits).collect();
        let mut acc = vec![C::Affine::default(); n];
        let mut has = vec![false; n];
        // Pending additions of a window: (point, table index, negated), x differences and
        // their prefix products.
        let mut pend: Vec<(u32, u32, bool)> = Vec::with_capacity(n);
        let mut dens: Vec<C::Base> = Vec::with_capacity(n);
        let mut prefix: Vec<C::Base> = Vec::with_capacity(n);
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
                let den = C::x(&self.t[idx]).sub(C::x(&acc[i]));
                if den.is_zero() {
                    // acc = ±q: blst's complete formula doubles or gives infinity.
                    let p = C::add_affine(&C::from_affine(&acc[i]), &self.entry(k, d));
                    if C::is_inf(&p) {
                        has[i] = false;
                        acc[i] = C::Affine::default();
                    } else {
                        acc[i] = C::to_affine(&p);
                    }
                    continue;
                }
                let next = match prefix.last() {
                    Some(l) => l.mul(&den),
                    None => den,
                };
                prefix.push(next);
                dens.push(den);
                pend.push((i as u32, idx as u32, d < 0));
            }
            let Some(last) = prefix.last() else { continue };
            let mut inv = last.inv();
            for j in (0..pend.len()).rev() {
                let (i, idx, neg) = pend[j];
                let q = &self.t[idx as usize];
                let a = &mut acc[i as usize];
                let inv_j = if j > 0 { inv.mul(&prefix[j - 1]) } else { inv };
                inv = inv.mul(&dens[j]);
                *a = add_with_inverse::<C>(a, q, neg, &inv_j);
            }
        }
        acc
    }

    /// Serializes s_i·base (uncompressed, zcash encoding) into `out[i·BYTES..]`, in
    /// parallel. `out.len()` must be `scalars.len() · BYTES`.
    pub fn mul_to_bytes(&self, scalars: &[Scalar], out: &mut [u8]) {
        let size = C::UNCOMPRESSED_BYTES;
        assert_eq!(out.len(), scalars.len() * size);
        scalars.par_chunks(BLOCK).zip(out.par_chunks_mut(BLOCK * size)).for_each(|(s, o)| {
            let aff = self.mul_block_affine(s);
            for (a, chunk) in aff.iter().zip(o.chunks_exact_mut(size)) {
                C::serialize(a, chunk);
            }
        });
    }
}

/// a + q (a − q where `neg`) in affine form from 1/den, den = q.x − a.x ≠ 0: λ = (q.y − a.y)/den,
/// x3 = λ² − a.x − q.x, y3 = λ(a.x − x3) − a.y. For −q = (q.x, −q.y), λ = −(q.y + a.y)/den: x3 is
/// the same, and y3 = (q.y + a.y)/den·(x3 − a.x) − a.y.
#[inline]
fn add_with_inverse<C: Curve>(a: &C::Affine, q: &C::Affine, neg: bool, inv_den: &C::Base) -> C::Affine {
    let (ax, ay) = (C::x(a), C::y(a));
    let num = if neg { C::y(q).add(ay) } else { C::y(q).sub(ay) };
    let lambda = num.mul(inv_den);
    let x3 = lambda.sqr().sub(ax).sub(C::x(q));
    let dx = if neg { x3.sub(ax) } else { ax.sub(&x3) };
    let y3 = lambda.mul(&dx).sub(ay);
    C::affine(x3, y3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use group::{Curve as _, Group};
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
        // The same scalar twice in a row: equal accumulators meet the same table entries.
        scalars[7] = scalars[6];
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

    #[test]
    fn digits_recompose_the_scalar() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for s in (0..50).map(|_| Scalar::random(&mut rng)).chain([Scalar::ZERO, -Scalar::ONE]) {
            let want = s;
            let mut got = Scalar::ZERO;
            for d in signed_digits(&s).iter().rev() {
                got *= Scalar::from(1u64 << WBITS);
                let v = Scalar::from(d.unsigned_abs() as u64);
                got += if *d < 0 { -v } else { v };
                assert!(d.unsigned_abs() as usize <= HALF);
            }
            assert_eq!(got, want);
        }
    }
}
