//! The H polynomial on AVX-512 IFMA: seven radix-2 transforms over Fr, eight elements per
//! instruction, the same values as [`crate::cpu::h_poly`].
//!
//! Data live as [`Packed`] groups of eight consecutive elements (5 limbs of 52 bits, R = 2^260)
//! from the first conversion to the last. Two transforms, both with one twiddle per butterfly
//! block (so the wide levels broadcast a single constant):
//! - [`dft_to_bitrev`] (Cooley–Tukey, natural in, bit-reversed out): at level ℓ (half-size
//!   m = n/2^(ℓ+1)) block k maps (x, y) to (x + W[k]·y, x − W[k]·y);
//! - [`dft_from_bitrev`] (Gentleman–Sande, bit-reversed in, natural out): levels in the reverse
//!   order, (x, y) to (x + y, (x − y)·W[k]);
//!
//! where W[k] = φ^rev(k) (rev over log n − 1 bits): both compute the DFT at the root φ.
//! Levels whose blocks are wider than a cache chunk (2^14 elements) sweep the array, two levels
//! per sweep ([`level_pair`]); the rest run chunk by chunk. The last three levels pair lanes of
//! one vector: each group of eight vectors is transposed (lane t of vector c = element 8t + c),
//! so those butterflies are lane-parallel too.
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;
use std::arch::x86_64::*;
use std::sync::{Arc, Mutex};

use super::SyncPtr;
use crate::ec::{Fr, ScalarBytes};
use crate::field::lanes::{self as field, per_limb, Lanes, Packed, FR};
use crate::field::{powers, root_of_unity};

type Fr8 = Packed<5>;
type L5 = Lanes<5>;

/// Elements per cache chunk (640 KiB in our form).
const CHUNK_LOG: u32 = 14;
/// Vectors per parallel task in the element-wise passes and wide levels.
const TASK: usize = 1 << 9;

/// Smallest domain this module transforms (one group of eight vectors).
pub const MIN_LOG_N: u32 = 6;

/// The twiddles of one root: W[k] = φ^rev(k) for k < n/2, packed.
struct Twiddles(Vec<Fr8>);

/// A domain of 2^log_n points with the tables of the H polynomial.
pub struct LaneDomain {
    log_n: u32,
    fwd: Twiddles,
    inv: Twiddles,
    /// Coset factors for bit-reversed data: position 8v + t takes row[v]·lane[t].
    shift: CosetFactors,
    unshift: CosetFactors,
}

struct CosetFactors {
    row: Vec<[u64; 5]>,
    lane: Fr8,
}

/// Panics unless the kernels here can run: the CPU has AVX-512F and IFMA and they are on
/// ([`super::available`]). Every way into this module calls it (a [`LaneDomain`], [`pack`],
/// [`unpack`]), which is what the `unsafe` calls of `#[target_feature]` functions rely on.
fn ifma() {
    assert!(crate::field::lanes::available(), "AVX-512 IFMA NTT called on a CPU without it");
}

#[inline]
fn rev(i: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - bits)
    }
}

impl LaneDomain {
    pub fn new(log_n: u32) -> Self {
        ifma();
        assert!(log_n >= MIN_LOG_N, "domain 2^{log_n} below 2^{MIN_LOG_N}");
        let n = 1usize << log_n;
        let omega = root_of_unity(log_n);
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        let n_inv = Scalar::from(n as u64).invert().unwrap();
        LaneDomain {
            log_n,
            fwd: Twiddles::new(omega, log_n),
            inv: Twiddles::new(omega.invert().unwrap(), log_n),
            shift: CosetFactors::new(g, n_inv, log_n),
            unshift: CosetFactors::new(g.invert().unwrap(), n_inv, log_n),
        }
    }
}

impl LaneDomain {
    /// The domain of 2^log_n points, kept for the next call (one proof's partitions share it).
    pub fn cached(log_n: u32) -> Arc<LaneDomain> {
        static LAST: Mutex<Option<Arc<LaneDomain>>> = Mutex::new(None);
        let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        match last.as_ref() {
            Some(d) if d.log_n == log_n => d.clone(),
            _ => {
                *last = None;
                let d = Arc::new(LaneDomain::new(log_n));
                *last = Some(d.clone());
                d
            }
        }
    }
}

impl Twiddles {
    /// With k = 8q + t over L = log n − 1 bits, rev_L(k) = rev_3(t)·2^(L−3) + rev_(L−3)(q): vector
    /// q is φ^rev(q) in every lane times the constant vector φ^(rev_3(t)·2^(L−3)). So only the
    /// n/16 powers of φ are made one by one (no tables of n/2 scalars on the way).
    fn new(root: Scalar, log_n: u32) -> Self {
        let bits = log_n - 4;
        let pw = powers(root, 1 << bits);
        let step = root.pow_vartime([1u64 << bits]);
        let lane: Vec<Scalar> = (0..8).map(|t| step.pow_vartime([rev(t, 3) as u64])).collect();
        let lane = pack(&lane)[0];
        let mut out = vec![Fr8::default(); 1 << bits];
        out.par_chunks_mut(TASK)
            .enumerate()
            // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
            .for_each(|(ci, o)| unsafe { twiddle_span(o, ci * TASK, &pw, &lane, bits) });
        Twiddles(out)
    }

    /// W[k] in all lanes.
    #[inline(always)]
    unsafe fn splat(&self, k: usize) -> L5 {
        let v = &self.0[k / 8];
        Lanes(per_limb!(5, |j| field::splat64(v.0[j][k % 8])))
    }
}

impl CosetFactors {
    /// Factors c·s^rev_L(i) for bit-reversed position i = 8v + t: rev_L(i) = rev_3(t)·2^(L−3) + rev_(L−3)(v),
    /// so row[v] = s^rev(v) and lane[t] = c·s^(rev_3(t)·2^(L−3)). The rows are the powers of s
    /// picked in bit-reversed order and put in our form eight at a time, in parallel.
    fn new(s: Scalar, c: Scalar, log_n: u32) -> Self {
        let bits = log_n - 3;
        let pw = powers(s, 1 << bits);
        let s3 = s.pow_vartime([1u64 << bits]);
        let lane: Vec<Scalar> = (0..8).map(|t| s3.pow_vartime([rev(t, 3) as u64]) * c).collect();
        let mut row = vec![[0u64; 5]; 1 << bits];
        row.par_chunks_mut(8 * TASK)
            .enumerate()
            // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
            .for_each(|(ci, out)| unsafe { coset_rows(out, ci * 8 * TASK, &pw, bits) });
        CosetFactors { row, lane: pack(&lane)[0] }
    }
}

/// Rows v0.. of [`CosetFactors::new`]: s^rev(v) over `bits` bits, in our form.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn coset_rows(out: &mut [[u64; 5]], v0: usize, pw: &[Scalar], bits: u32) {
    let mut m = Fr8::default();
    for (k, o) in out.chunks_mut(8).enumerate() {
        let words: [[u64; 4]; 8] = std::array::from_fn(|l| Fr::from(pw[rev(v0 + 8 * k + l, bits)]).l);
        field::store(&mut m, &field::from_blst(&FR, &words));
        for (l, x) in o.iter_mut().enumerate() {
            *x = m.get(l);
        }
    }
}

/// Twiddle vectors q0.. of [`Twiddles::new`]: φ^rev(q) (over `bits` bits) times `lane`.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn twiddle_span(out: &mut [Fr8], q0: usize, pw: &[Scalar], lane: &Fr8, bits: u32) {
    let lane = field::load(lane);
    for (i, o) in out.iter_mut().enumerate() {
        let row = field::from_blst::<5, 4>(&FR, &[Fr::from(pw[rev(q0 + i, bits)]).l; 8]);
        field::store(o, &field::mul(&FR, &row, &lane));
    }
}

/// Scalars (blst form) to packed groups in our form, zero-padded to a multiple of eight.
pub fn pack(v: &[Scalar]) -> Vec<Fr8> {
    pack_padded(v, v.len().div_ceil(8))
}

/// [`pack`] into `vectors` groups (at least enough for `v`), zeros after `v`: the transform's
/// whole buffer in one allocation, with no second one to grow it.
fn pack_padded(v: &[Scalar], vectors: usize) -> Vec<Fr8> {
    ifma();
    assert!(vectors * 8 >= v.len());
    let mut out = super::huge_vec(vectors, Fr8::default());
    // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
    out.par_chunks_mut(TASK).zip(v.par_chunks(8 * TASK)).for_each(|(o, s)| unsafe { pack_span(o, s) });
    out
}

#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn pack_span(out: &mut [Fr8], v: &[Scalar]) {
    for (o, s) in out.iter_mut().zip(v.chunks(8)) {
        let words: [[u64; 4]; 8] = std::array::from_fn(|l| s.get(l).map_or([0; 4], |x| Fr::from(*x).l));
        field::store(o, &field::from_blst(&FR, &words));
    }
}

/// Packed groups back to scalars (blst form), the first `len`.
pub fn unpack(v: &[Fr8], len: usize) -> Vec<Scalar> {
    ifma();
    let mut out = vec![Scalar::ZERO; v.len() * 8];
    // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
    out.par_chunks_mut(8 * TASK).zip(v.par_chunks(TASK)).for_each(|(o, s)| unsafe { unpack_span(o, s) });
    out.truncate(len);
    out
}

#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn unpack_span(out: &mut [Scalar], v: &[Fr8]) {
    for (o, s) in out.chunks_mut(8).zip(v) {
        let words = field::to_blst::<5, 4>(&FR, &field::load(s));
        for (x, w) in o.iter_mut().zip(words) {
            *x = Scalar::from(Fr { l: w });
        }
    }
}

/// Cooley–Tukey over one block's halves: x, y ← x + w·y, x − w·y.
#[inline(always)]
unsafe fn ct(x: &mut Fr8, y: &mut Fr8, w: &L5) {
    let (mut a, mut b) = (field::load(x), field::load(y));
    butterfly(Butterfly::Ct, &mut a, &mut b, w);
    field::store(x, &a);
    field::store(y, &b);
}

/// Gentleman–Sande: x, y ← x + y, (x − y)·w.
#[inline(always)]
unsafe fn gs(x: &mut Fr8, y: &mut Fr8, w: &L5) {
    let (mut a, mut b) = (field::load(x), field::load(y));
    butterfly(Butterfly::Gs, &mut a, &mut b, w);
    field::store(x, &a);
    field::store(y, &b);
}

/// One butterfly in registers: Cooley–Tukey (x + w·y, x − w·y) or Gentleman–Sande
/// (x + y, (x − y)·w).
#[inline(always)]
unsafe fn butterfly(kind: Butterfly, x: &mut L5, y: &mut L5, w: &L5) {
    match kind {
        Butterfly::Ct => {
            let t = field::mul(&FR, y, w);
            (*x, *y) = (field::add(&FR, x, &t), field::sub(&FR, x, &t));
        }
        Butterfly::Gs => {
            let d = field::sub(&FR, x, y);
            (*x, *y) = (field::add(&FR, x, y), field::mul(&FR, &d, w));
        }
    }
}

#[derive(Clone, Copy)]
enum Butterfly {
    Ct,
    Gs,
}

#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn span(kind: Butterfly, xs: &mut [Fr8], ys: &mut [Fr8], tw: &Twiddles, k: usize) {
    let w = tw.splat(k);
    for (x, y) in xs.iter_mut().zip(ys.iter_mut()) {
        match kind {
            Butterfly::Ct => ct(x, y, &w),
            Butterfly::Gs => gs(x, y, &w),
        }
    }
}

/// One level over blocks of 2m elements (m ≥ 8), the first block being number `k0`.
fn level(kind: Butterfly, data: &mut [Fr8], tw: &Twiddles, log_m: u32, k0: usize, parallel: bool) {
    let mv = 1usize << (log_m - 3);
    for (b, block) in data.chunks_mut(2 * mv).enumerate() {
        let (xs, ys) = block.split_at_mut(mv);
        if parallel {
            xs.par_chunks_mut(TASK)
                .zip(ys.par_chunks_mut(TASK))
                // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
                .for_each(|(x, y)| unsafe { span(kind, x, y, tw, k0 + b) });
        } else {
            // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
            unsafe { span(kind, xs, ys, tw, k0 + b) };
        }
    }
}

/// Two wide levels in one sweep (half the memory traffic of two): blocks of 4q elements (quarter
/// size q = 2^log_q, q ≥ 8), block k's quarters q0..q3. The outer level (half-size 2q) pairs
/// (q0, q2) and (q1, q3) by W[k]; the inner one (half-size q) pairs (q0, q1) by W[2k] and (q2, q3)
/// by W[2k+1]. Cooley–Tukey runs the outer level first, Gentleman–Sande the inner one.
fn level_pair(kind: Butterfly, data: &mut [Fr8], tw: &Twiddles, log_q: u32) {
    let qv = 1usize << (log_q - 3);
    for (k, block) in data.chunks_mut(4 * qv).enumerate() {
        let (lo, hi) = block.split_at_mut(2 * qv);
        let (q0, q1) = lo.split_at_mut(qv);
        let (q2, q3) = hi.split_at_mut(qv);
        q0.par_chunks_mut(TASK)
            .zip(q1.par_chunks_mut(TASK))
            .zip(q2.par_chunks_mut(TASK))
            .zip(q3.par_chunks_mut(TASK))
            // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
            .for_each(|(((a, b), c), d)| unsafe { span_pair(kind, [a, b, c, d], tw, k) });
    }
}

#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn span_pair(kind: Butterfly, q: [&mut [Fr8]; 4], tw: &Twiddles, k: usize) {
    let (w, w0, w1) = (tw.splat(k), tw.splat(2 * k), tw.splat(2 * k + 1));
    let [q0, q1, q2, q3] = q;
    for j in 0..q0.len() {
        let mut v = [field::load(&q0[j]), field::load(&q1[j]), field::load(&q2[j]), field::load(&q3[j])];
        let [a, b, c, d] = &mut v;
        if let Butterfly::Ct = kind {
            butterfly(kind, a, c, &w);
            butterfly(kind, b, d, &w);
        }
        butterfly(kind, a, b, &w0);
        butterfly(kind, c, d, &w1);
        if let Butterfly::Gs = kind {
            butterfly(kind, a, c, &w);
            butterfly(kind, b, d, &w);
        }
        field::store(&mut q0[j], &v[0]);
        field::store(&mut q1[j], &v[1]);
        field::store(&mut q2[j], &v[2]);
        field::store(&mut q3[j], &v[3]);
    }
}

/// Transposes eight vectors of one limb: lane t of r[c] ↔ lane c of r[t].
#[inline(always)]
unsafe fn transpose8(r: &mut [__m512i; 8]) {
    let a: [__m512i; 8] = per_limb!(8, |i| {
        let (p, q) = (r[i & !1], r[i | 1]);
        if i % 2 == 0 {
            _mm512_unpacklo_epi64(p, q)
        } else {
            _mm512_unpackhi_epi64(p, q)
        }
    });
    let lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    let hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    let b: [__m512i; 8] = per_limb!(8, |i| {
        let base = (i & 4) | (i & 1);
        let (p, q) = (a[base], a[base | 2]);
        if i & 2 == 0 {
            _mm512_permutex2var_epi64(p, lo, q)
        } else {
            _mm512_permutex2var_epi64(p, hi, q)
        }
    });
    *r = per_limb!(8, |i| {
        let (p, q) = (b[i & 3], b[(i & 3) | 4]);
        if i < 4 {
            _mm512_shuffle_i64x2::<0x44>(p, q)
        } else {
            _mm512_shuffle_i64x2::<0xee>(p, q)
        }
    });
}

/// Eight vectors of group `g`, loaded transposed: u[c] lane t = element 8t + c.
#[inline(always)]
unsafe fn load_group(v: &[Fr8]) -> [L5; 8] {
    let mut u = [Lanes([_mm512_setzero_si512(); 5]); 8];
    for j in 0..5 {
        let mut r: [__m512i; 8] = per_limb!(8, |c| _mm512_load_si512(v[c].0[j].as_ptr() as *const _));
        transpose8(&mut r);
        for c in 0..8 {
            u[c].0[j] = r[c];
        }
    }
    u
}

#[inline(always)]
unsafe fn store_group(v: &mut [Fr8], u: &[L5; 8]) {
    for j in 0..5 {
        let mut r: [__m512i; 8] = per_limb!(8, |c| u[c].0[j]);
        transpose8(&mut r);
        for c in 0..8 {
            _mm512_store_si512(v[c].0[j].as_mut_ptr() as *mut _, r[c]);
        }
    }
}

/// Lanes t of W[base + stride·t + off], from the packed table.
#[inline(always)]
unsafe fn strided(tw: &Twiddles, base: usize, stride: usize, off: usize) -> L5 {
    let mut m = Fr8::default();
    for t in 0..8 {
        let k = base + stride * t + off;
        m.set(t, &tw.0[k / 8].get(k % 8));
    }
    field::load(&m)
}

/// The three levels of half-size 4, 2, 1 on group `g` (eight vectors), in the transform's order.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn small_levels(kind: Butterfly, v: &mut [Fr8], tw: &Twiddles, g: usize) {
    let mut u = load_group(v);
    let w4 = field::load(&tw.0[g]);
    let w2 = [strided(tw, 16 * g, 2, 0), strided(tw, 16 * g, 2, 1)];
    let w1: [L5; 4] = std::array::from_fn(|q| strided(tw, 32 * g, 4, q));
    let pairs4 = [(0, 4, w4), (1, 5, w4), (2, 6, w4), (3, 7, w4)];
    let pairs2 = [(0, 2, w2[0]), (1, 3, w2[0]), (4, 6, w2[1]), (5, 7, w2[1])];
    let pairs1 = [(0, 1, w1[0]), (2, 3, w1[1]), (4, 5, w1[2]), (6, 7, w1[3])];
    let order = match kind {
        Butterfly::Ct => [pairs4, pairs2, pairs1],
        Butterfly::Gs => [pairs1, pairs2, pairs4],
    };
    for pairs in order {
        for (i, j, w) in pairs {
            let (a, b) = (u[i], u[j]);
            match kind {
                Butterfly::Ct => {
                    let t = field::mul(&FR, &b, &w);
                    u[i] = field::add(&FR, &a, &t);
                    u[j] = field::sub(&FR, &a, &t);
                }
                Butterfly::Gs => {
                    u[i] = field::add(&FR, &a, &b);
                    u[j] = field::mul(&FR, &field::sub(&FR, &a, &b), &w);
                }
            }
        }
    }
    store_group(v, &u);
}

/// The levels of one cache chunk (chunk number `ci`, 2^cl elements), in the transform's order.
fn chunk_levels(kind: Butterfly, chunk: &mut [Fr8], tw: &Twiddles, ci: usize, cl: u32) {
    let groups = |chunk: &mut [Fr8]| {
        for (gi, grp) in chunk.chunks_mut(8).enumerate() {
            // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
            unsafe { small_levels(kind, grp, tw, (ci << (cl - 6)) + gi) };
        }
    };
    let blocks = |chunk: &mut [Fr8], log_m: u32| level(kind, chunk, tw, log_m, ci << (cl - log_m - 1), false);
    match kind {
        Butterfly::Ct => {
            for log_m in (3..cl).rev() {
                blocks(chunk, log_m);
            }
            groups(chunk);
        }
        Butterfly::Gs => {
            groups(chunk);
            for log_m in 3..cl {
                blocks(chunk, log_m);
            }
        }
    }
}

/// Natural-order values to their DFT at φ in bit-reversed order (the table's root).
fn dft_to_bitrev(d: &LaneDomain, data: &mut [Fr8], tw: &Twiddles) {
    let (ln, cl) = (d.log_n, CHUNK_LOG.min(d.log_n));
    let mut log_m = ln;
    while log_m > cl {
        if log_m - cl >= 2 {
            level_pair(Butterfly::Ct, data, tw, log_m - 2);
            log_m -= 2;
        } else {
            level(Butterfly::Ct, data, tw, log_m - 1, 0, true);
            log_m -= 1;
        }
    }
    data.par_chunks_mut(1 << (cl - 3)).enumerate().for_each(|(ci, c)| chunk_levels(Butterfly::Ct, c, tw, ci, cl));
}

/// Bit-reversed values to the DFT at φ of their natural order, in natural order.
fn dft_from_bitrev(d: &LaneDomain, data: &mut [Fr8], tw: &Twiddles) {
    let (ln, cl) = (d.log_n, CHUNK_LOG.min(d.log_n));
    data.par_chunks_mut(1 << (cl - 3)).enumerate().for_each(|(ci, c)| chunk_levels(Butterfly::Gs, c, tw, ci, cl));
    let mut log_m = cl;
    while log_m < ln {
        if ln - log_m >= 2 {
            level_pair(Butterfly::Gs, data, tw, log_m);
            log_m += 2;
        } else {
            level(Butterfly::Gs, data, tw, log_m, 0, true);
            log_m += 1;
        }
    }
}

/// Bit-reversed position i = 8v + t times row[v]·lane[t].
fn coset_scale(data: &mut [Fr8], f: &CosetFactors) {
    // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
    data.par_chunks_mut(TASK).enumerate().for_each(|(ti, part)| unsafe { coset_span(part, f, ti * TASK) });
}

#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn coset_span(part: &mut [Fr8], f: &CosetFactors, v0: usize) {
    let lane = field::load(&f.lane);
    for (i, x) in part.iter_mut().enumerate() {
        let s = field::mul(&FR, &field::splat(&f.row[v0 + i]), &lane);
        field::store(x, &field::mul(&FR, &field::load(x), &s));
    }
}

/// a ← (a·b − c)·z for all elements.
fn quotient(a: &mut [Fr8], b: &[Fr8], c: &[Fr8], z: &[u64; 5]) {
    a.par_chunks_mut(TASK)
        .zip(b.par_chunks(TASK))
        .zip(c.par_chunks(TASK))
        // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
        .for_each(|((a, b), c)| unsafe { quotient_span(a, b, c, z) });
}

#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn quotient_span(a: &mut [Fr8], b: &[Fr8], c: &[Fr8], z: &[u64; 5]) {
    let z = field::splat(z);
    for ((x, y), w) in a.iter_mut().zip(b).zip(c) {
        let ab = field::mul(&FR, &field::load(x), &field::load(y));
        field::store(x, &field::mul(&FR, &field::sub(&FR, &ab, &field::load(w)), &z));
    }
}

/// h = (A·B − C)/Z from the evaluations of A, B, C over the domain (zero-padded), as
/// [`crate::cpu::h_poly::h_poly`]: n − 1 coefficients in natural order.
/// Each input is dropped once packed.
pub fn h_poly(d: &LaneDomain, a: Vec<Scalar>, b: Vec<Scalar>, c: Vec<Scalar>) -> Vec<Scalar> {
    let n = 1usize << d.log_n;
    let h = unpack(&h_bitrev(d, a, b, c), n);
    let mut h = crate::cpu::ntt::from_bitrev(&h, d.log_n);
    h.truncate(n - 1);
    h
}

/// [`h_poly`] as the MSM takes its scalars (canonical, little-endian): converted and put back in
/// natural order in one pass, with no vector of `Scalar`s in between.
pub fn h_poly_scalars(d: &LaneDomain, a: Vec<Scalar>, b: Vec<Scalar>, c: Vec<Scalar>) -> Vec<ScalarBytes> {
    let h = h_bitrev(d, a, b, c);
    let n = 1usize << d.log_n;
    let mut out: Vec<ScalarBytes> = Vec::with_capacity(n);
    let dst = SyncPtr(out.as_mut_ptr());
    // SAFETY: the CPU has AVX-512F and IFMA: every way into this module asserts it ([`ifma`]).
    h.par_chunks(TASK).enumerate().for_each(|(ti, part)| unsafe { canonical_span(part, ti * TASK, d.log_n, dst) });
    // SAFETY: position rev(i) was written for every i < n.
    unsafe { out.set_len(n) };
    out.truncate(n - 1);
    out
}

/// Vectors v0.. of bit-reversed values to canonical little-endian scalars at their natural
/// positions: element 8v + t goes to rev(8v + t). Multiplying by a plain 1 leaves Montgomery form.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn canonical_span(part: &[Fr8], v0: usize, log_n: u32, dst: SyncPtr<ScalarBytes>) {
    let one = field::splat(&[1u64, 0, 0, 0, 0]);
    let mut m = Fr8::default();
    for (i, x) in part.iter().enumerate() {
        field::store(&mut m, &field::mul(&FR, &field::load(x), &one));
        for t in 0..8 {
            let words: [u64; 4] = field::words_from_limbs(&m.get(t));
            let mut b = [0u8; 32];
            for (chunk, w) in b.chunks_mut(8).zip(words) {
                chunk.copy_from_slice(&w.to_le_bytes());
            }
            dst.at(rev(8 * (v0 + i) + t, log_n)).write(ScalarBytes { b });
        }
    }
}

/// The H polynomial's coefficients in bit-reversed order, packed.
fn h_bitrev(d: &LaneDomain, a: Vec<Scalar>, b: Vec<Scalar>, c: Vec<Scalar>) -> Vec<Fr8> {
    let n = 1usize << d.log_n;
    assert!(a.len() <= n && b.len() <= n && c.len() <= n, "h_poly: inputs longer than the domain");
    let to_coset = |v: Vec<Scalar>| {
        let mut p = pack_padded(&v, n / 8);
        drop(v);
        dft_to_bitrev(d, &mut p, &d.inv);
        coset_scale(&mut p, &d.shift);
        dft_from_bitrev(d, &mut p, &d.fwd);
        p
    };
    let mut pa = to_coset(a);
    let pb = to_coset(b);
    let pc = to_coset(c);
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let z_inv = (g.pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap();
    quotient(&mut pa, &pb, &pc, &pack(&[z_inv])[0].get(0));
    drop((pb, pc));
    dft_to_bitrev(d, &mut pa, &d.inv);
    coset_scale(&mut pa, &d.unshift);
    pa
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::lanes::available_for_test;
    use rand::SeedableRng;

    #[test]
    fn transposes_a_group() {
        if !available_for_test("transposes_a_group") {
            return;
        }
        // SAFETY: available_for_test found AVX-512F and IFMA.
        unsafe {
            let mut r: [__m512i; 8] = std::array::from_fn(|i| {
                _mm512_set_epi64(
                    8 * i as i64 + 7,
                    8 * i as i64 + 6,
                    8 * i as i64 + 5,
                    8 * i as i64 + 4,
                    8 * i as i64 + 3,
                    8 * i as i64 + 2,
                    8 * i as i64 + 1,
                    8 * i as i64,
                )
            });
            transpose8(&mut r);
            for (c, v) in r.iter().enumerate() {
                let mut out = [0u64; 8];
                _mm512_storeu_si512(out.as_mut_ptr() as *mut _, *v);
                assert_eq!(out, std::array::from_fn(|t| (8 * t + c) as u64));
            }
        }
    }

    #[test]
    fn h_poly_matches_blst_path() {
        if !available_for_test("h_poly_matches_blst_path") {
            return;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(260);
        for log_n in [6u32, 7, 9, 12, 14, 15, 16, 17] {
            let n = 1usize << log_n;
            let len = n - 3;
            let mut v = || (0..len).map(|_| Scalar::random(&mut rng)).collect::<Vec<_>>();
            let (a, b, c) = (v(), v(), v());
            let want = crate::cpu::h_poly::h_poly_blst(a.clone(), b.clone(), c.clone());
            let d = LaneDomain::new(log_n);
            let scalars = h_poly_scalars(&d, a.clone(), b.clone(), c.clone());
            let got = h_poly(&d, a, b, c);
            assert!(got == want, "log_n {log_n}");
            let want_scalars: Vec<ScalarBytes> = want.iter().map(crate::ec::scalar_bytes).collect();
            assert!(scalars.iter().map(|s| s.b).eq(want_scalars.iter().map(|s| s.b)), "scalars, log_n {log_n}");
        }
    }

    #[test]
    fn transforms_are_the_dft() {
        if !available_for_test("transforms_are_the_dft") {
            return;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for log_n in [6u32, 8, 15] {
            let n = 1usize << log_n;
            let d = LaneDomain::new(log_n);
            let x: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
            let w = root_of_unity(log_n);
            let mut p = pack(&x);
            dft_to_bitrev(&d, &mut p, &d.fwd);
            let y = unpack(&p, n);
            let eval = |i: usize| x.iter().rev().fold(Scalar::ZERO, |acc, c| acc * w.pow_vartime([i as u64]) + c);
            for i in [0usize, 1, 5, n - 1] {
                assert_eq!(y[rev(i, log_n)], eval(i), "to_bitrev log_n {log_n} i {i}");
            }
            let mut q = pack(&crate::cpu::ntt::from_bitrev(&x, log_n));
            dft_from_bitrev(&d, &mut q, &d.fwd);
            let y = unpack(&q, n);
            for i in [0usize, 3, n - 1] {
                assert_eq!(y[i], eval(i), "from_bitrev log_n {log_n} i {i}");
            }
        }
    }
}
