//! One window of the Pippenger sum: the bucket sums B_b = Σ of the points whose digit is ±b, then
//! Σ_b b·B_b.
//!
//! [`Sorted`]: the window's points counting-sorted by bucket (b = |digit| in 1..=h), each entry
//! a point index with bit 31 set where the point enters negated.
//!
//! [`accumulate`]: batch-affine additions. A task's stretch of the sorted list is cut into 8·G
//! equal slices, lane l of group g walking slice 8g + l; each step adds every slice's next point
//! to its accumulator, or restarts it where a bucket begins. The G·8 denominators x_P − x_acc
//! share one inversion per step (Montgomery's trick down the groups, then across the eight lanes
//! with blst), so an addition costs 6 multiplications (1 forward, 2 backward, λ, λ², y). Exact
//! lanes: an accumulator at infinity takes the point, P + P uses λ = 3x²/2y (same formulas
//! after), P − P gives infinity (kept as (0, 0)). A run ends where its bucket or slice ends:
//! written to `primary[b]` if it began at the bucket's first entry, else (the first run of a
//! slice that starts inside a bucket) returned as an extra (b, point) for the caller to add.
//!
//! [`bucket_sums`]: Σ b·B_b by running sums in XYZZ, lane l over buckets l·h/8 + 1 ..= (l+1)·h/8
//! from the top: S += B_b, T += S; the lane gives T + (l·h/8)·S.
use std::arch::x86_64::*;

use super::super::SyncPtr;
use super::coord::Coord;
use super::curve::*;
use crate::ec::{Curve, G1, P1};
use crate::field::lanes as field;

/// Bit 31 of an entry: the point enters negated.
pub const NEG: u32 = 1 << 31;

/// A window's entries in bucket order, each (bucket << 32) | point index | NEG.
pub struct Sorted {
    pub entries: Vec<u64>,
}

impl Sorted {
    /// Bits of the bucket index sorted by the second pass (its working set stays in L2).
    const LOW: usize = 8;
    /// Points at most (a point index and the sign fit in 24 bits of a first-pass pair).
    pub const MAX_POINTS: usize = 1 << 23;

    /// Point indices sorted by key (bucket | NEG; 0 = digit 0, left out), in two counting
    /// passes: by the bucket's high bits into 32-bit pairs (low bits, sign, index), then each of
    /// those groups by the low bits. One pass over 2^16 buckets would scatter its writes over as
    /// many cache lines.
    pub fn new(keys: &[u32], h: usize, pool: &Pool) -> Self {
        assert!(keys.len() <= Self::MAX_POINTS);
        let low_mask = (1 << Self::LOW) - 1;
        let groups = (h >> Self::LOW) + 1;
        let mut start = vec![0u32; groups + 1];
        for &k in keys {
            if k & !NEG != 0 {
                start[((k & !NEG) as usize >> Self::LOW) + 1] += 1;
            }
        }
        for g in 0..groups {
            start[g + 1] += start[g];
        }
        let m = start[groups] as usize;
        let mut buf = pool.take(m.div_ceil(2));
        // SAFETY: u64 storage viewed as twice as many u32.
        let pairs = unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr() as *mut u32, m) };
        let mut cursor = start.clone();
        for (i, &k) in keys.iter().enumerate() {
            let b = (k & !NEG) as usize;
            if b != 0 {
                let c = &mut cursor[b >> Self::LOW];
                pairs[*c as usize] = ((b & low_mask) as u32) << 24 | (k & NEG) >> 8 | i as u32;
                // This group's next lines, fetched before its stores need them.
                // SAFETY: SSE's prefetch is in every x86_64 CPU and never faults, whatever the address.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(pairs.as_ptr().wrapping_add(*c as usize + 32) as *const i8) };
                *c += 1;
            }
        }
        let mut entries = pool.take(m);
        let mut count = vec![0u32; 1 << Self::LOW];
        for g in 0..groups {
            let group = &pairs[start[g] as usize..start[g + 1] as usize];
            count.fill(0);
            for &p in group {
                count[(p >> 24) as usize] += 1;
            }
            let mut at = start[g];
            for c in count.iter_mut() {
                (*c, at) = (at, at + *c);
            }
            for &p in group {
                let c = &mut count[(p >> 24) as usize];
                let bucket = (g << Self::LOW | (p >> 24) as usize) as u64;
                entries[*c as usize] = bucket << 32 | ((p & 1 << 23) << 8 | p & 0x7f_ffff) as u64;
                // SAFETY: SSE's prefetch is in every x86_64 CPU and never faults, whatever the address.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(entries.as_ptr().wrapping_add(*c as usize + 16) as *const i8) };
                *c += 1;
            }
        }
        pool.give(buf);
        Sorted { entries }
    }
}

/// Buffers handed from one window's sort to the next (fresh ones would cost a page fault per
/// 4 KiB written).
#[derive(Default)]
pub struct Pool(std::sync::Mutex<Vec<Vec<u64>>>);

impl Pool {
    /// A buffer of `len` values, to be written before being read.
    pub fn take(&self, len: usize) -> Vec<u64> {
        let mut v = self.0.lock().unwrap().pop().unwrap_or_default();
        if v.len() < len {
            v.resize(len, 0);
        }
        v.truncate(len);
        v
    }

    pub fn give(&self, v: Vec<u64>) {
        self.0.lock().unwrap().push(v);
    }
}

/// How a window's sorted list is cut: tasks of 8·`groups` slices of `len` entries each (the last
/// slices may be short or empty).
#[derive(Clone, Copy)]
pub struct Cut {
    pub groups: usize,
    pub len: usize,
}

impl Cut {
    /// Entries per task.
    pub fn span(&self) -> usize {
        8 * self.groups * self.len
    }
}

/// A group's accumulators and the current step's operands.
#[derive(Clone, Copy)]
struct Group<C: Coord> {
    acc: [C::Mem; 2],
    pt: [C::Mem; 2],
    /// The denominator, and the product of the denominators of groups 0..=this one.
    d: C::Mem,
    prefix: C::Mem,
    /// Lanes that take the point (new run, accumulator at infinity, past the slice's end).
    take: u8,
    /// Lanes whose sum is infinity (P − P).
    inf: u8,
    /// Lanes that double (P + P).
    dbl: u8,
    /// Lanes whose current run began inside its bucket, in an earlier slice (goes to the extras).
    cont: u8,
}

impl<C: Coord> Default for Group<C> {
    fn default() -> Self {
        Group {
            acc: Default::default(),
            pt: Default::default(),
            d: Default::default(),
            prefix: Default::default(),
            take: 0,
            inf: 0,
            dbl: 0,
            cont: 0,
        }
    }
}

/// Steps whose entries are laid out step-major at a time.
const BLOCK: usize = 16;
/// Rows of a block: the step before it, its BLOCK steps and the three after (the write-out looks
/// one step ahead, the L2 prefetch two).
const ROWS: usize = BLOCK + 4;
/// Groups ahead that the forward pass asks for its points in L1.
const L1_AHEAD: usize = 3;

/// Entries t0 − 1 .. t0 + BLOCK + 3 of task `task`'s slices, step-major: row r holds entry
/// t0 − 1 + r of every slice, 0 (no bucket) where there is none. Reading a block row by row keeps
/// the accumulation's loads sequential and in L2.
fn transpose(rows: &mut [u64], entries: &[u64], task: usize, cut: Cut, t0: usize) {
    let slices = 8 * cut.groups;
    let base = task * cut.span();
    for s in 0..slices {
        let (from, to) = (base + s * cut.len, base + (s + 1) * cut.len);
        // The lines a later slice will read (many slices, one stream each: no hardware help).
        let ahead = from + 16 * cut.len + t0;
        if ahead + ROWS - 1 < entries.len() {
            for line in 0..3 {
                // SAFETY: SSE's prefetch is in every x86_64 CPU and never faults, whatever the address.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(entries.as_ptr().wrapping_add(ahead + 8 * line) as *const i8) };
            }
        }
        for r in 0..ROWS {
            let q = (from + t0 + r).wrapping_sub(1);
            rows[r * slices + s] = if (from..to.min(entries.len())).contains(&q) { entries[q] } else { 0 };
        }
    }
}

/// The buckets of task `task`'s slices (see [`Cut`]) over `pts`: runs that begin at their
/// bucket's first entry go into `primary`, the others (the first run of a slice that begins
/// inside a bucket) are returned as (bucket, partial sum).
///
/// # Safety
/// The CPU has AVX-512F and IFMA; `primary` points to the window's h + 1 buckets, and no other
/// task writes the buckets whose runs begin in this task's slices (each bucket's first entry
/// lies in one slice only).
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn accumulate<C: Coord>(
    pts: &[C::Point],
    entries: &[u64],
    task: usize,
    cut: Cut,
    primary: SyncPtr<C::Point>,
) -> Vec<(u32, C::Point)> {
    let slices = 8 * cut.groups;
    let mut rows = vec![0u64; ROWS * slices];
    let mut g = vec![Group::<C>::default(); cut.groups];
    for (k, gk) in g.iter_mut().enumerate() {
        for l in 0..8 {
            let q = task * cut.span() + (8 * k + l) * cut.len;
            if q > 0 && q < entries.len() && entries[q - 1] >> 32 == entries[q] >> 32 {
                gk.cont |= 1 << l;
            }
        }
    }
    let mut extras = Vec::new();
    for t in 0..cut.len {
        if t % BLOCK == 0 {
            transpose(&mut rows, entries, task, cut, t);
        }
        // Row r of the block: entry t − 1 + r - (t - t % BLOCK).
        let at = t % BLOCK;
        let row = |r: usize, k: usize| _mm512_loadu_si512(rows.as_ptr().add((at + r) * slices + 8 * k) as *const _);
        let mut prefix = C::one();
        load_points(pts, row(1, 0), &mut g[0]);
        for k in 0..cut.groups {
            // The next group's gathers go first, to overlap this group's arithmetic.
            if k + 1 < cut.groups {
                load_points(pts, row(1, k + 1), &mut g[k + 1]);
            }
            if k + L1_AHEAD < cut.groups {
                prefetch::<C, _MM_HINT_T0>(pts, row(1, k + L1_AHEAD));
            }
            prefix = forward(row(1, k), row(0, k), &mut g[k], &prefix, k == 0);
        }
        let mut inv = C::invert(&prefix);
        let before = |g: &[Group<C>], k: usize| if k > 0 { Some(g[k - 1].prefix) } else { None };
        let mut k = cut.groups;
        while k > 0 {
            let done = if k >= 2 {
                let (lo, hi) = g.split_at_mut(k - 1);
                let inv_a = inverse_of(&hi[0], before(lo, k - 1).as_ref(), &mut inv);
                let inv_b = inverse_of(&lo[k - 2], before(lo, k - 2).as_ref(), &mut inv);
                add_pair(&mut hi[0], &mut lo[k - 2], &inv_a, &inv_b);
                k - 2..k
            } else {
                let inv_d = inverse_of(&g[0], None, &mut inv);
                add_one(&mut g[0], &inv_d);
                0..1
            };
            for j in done.clone().rev() {
                write_out(&mut g[j], row(1, j), row(2, j), primary, &mut extras);
                prefetch::<C, _MM_HINT_T1>(pts, row(3, cut.groups - 1 - j));
            }
            k = done.start;
        }
    }
    extras
}

/// An entry's bucket (0: no entry).
#[inline(always)]
unsafe fn bucket(e: __m512i) -> __m512i {
    _mm512_srli_epi64(e, 32)
}

/// The points of the entries `e` into `g.pt` (negated where the entry says).
#[inline(always)]
unsafe fn load_points<C: Coord>(pts: &[C::Point], e: __m512i, g: &mut Group<C>) {
    let neg = _mm512_test_epi64_mask(e, field::splat64(NEG as u64));
    let idx = _mm512_and_si512(e, field::splat64(!NEG as u64));
    let (px, mut py) = C::gather(pts.as_ptr(), idx);
    if neg != 0 {
        py = C::blend(neg, &py, &C::sub(&C::zero(), &py));
    }
    C::store(&mut g.pt[0], &px);
    C::store(&mut g.pt[1], &py);
}

/// Sorts out the exceptional lanes of acc + P, stores the denominators; returns the running
/// product of the denominators.
#[inline(always)]
unsafe fn forward<C: Coord>(e: __m512i, before: __m512i, g: &mut Group<C>, prefix: &C, head: bool) -> C {
    let active = _mm512_test_epi64_mask(bucket(e), bucket(e));
    let first = _mm512_cmpneq_epu64_mask(bucket(e), bucket(before));
    let px = C::load(&g.pt[0]);
    let py = C::load(&g.pt[1]);
    let ax = C::load(&g.acc[0]);
    let ay = C::load(&g.acc[1]);
    let take = first | !active | (C::is_zero(&ax) & C::is_zero(&ay));
    let mut d = C::sub(&px, &ax);
    let (mut inf, mut dbl) = (0, 0);
    let same_x = C::is_zero(&d) & !take;
    if same_x != 0 {
        dbl = same_x & C::is_zero(&C::sub(&py, &ay));
        d = C::blend(dbl, &d, &C::add(&ay, &ay));
        inf = C::is_zero(&d) & !take;
    }
    let d = C::blend(take | inf, &d, &C::one());
    C::store(&mut g.d, &d);
    let prefix = if head { d } else { C::mul_lazy(prefix, &d) };
    C::store(&mut g.prefix, &prefix);
    (g.take, g.inf, g.dbl) = (take, inf, dbl);
    prefix
}

/// 1/d of group k (`g`) from inv = 1/(d_0 ⋯ d_k): inv · (d_0 ⋯ d_(k−1)) (`before`, none for
/// k = 0); inv moves on to 1/(d_0 ⋯ d_(k−1)).
#[inline(always)]
unsafe fn inverse_of<C: Coord>(g: &Group<C>, before: Option<&C::Mem>, inv: &mut C) -> C {
    match before {
        Some(b) => {
            let v = C::mul_lazy(inv, &C::load(b));
            *inv = C::mul_lazy(inv, &C::load(&g.d));
            v
        }
        None => *inv,
    }
}

/// A group's operands: (x, y) of the accumulator and of the point, and λ's numerator.
#[inline(always)]
unsafe fn operands<C: Coord>(g: &Group<C>) -> [C; 5] {
    let ax = C::load(&g.acc[0]);
    let ay = C::load(&g.acc[1]);
    let px = C::load(&g.pt[0]);
    let py = C::load(&g.pt[1]);
    let mut num = C::sub(&py, &ay);
    if g.dbl != 0 {
        let x2 = C::canonical(&C::sqr_lazy(&ax));
        num = C::blend(g.dbl, &num, &C::add(&C::add(&x2, &x2), &x2));
    }
    [ax, ay, px, py, num]
}

/// The new accumulator: the sum (x, y), or the point, or infinity, lane by lane.
#[inline(always)]
unsafe fn store_sum<C: Coord>(g: &mut Group<C>, x: &C, y: &C, px: &C, py: &C) {
    let (x, y) = (C::blend(g.take, x, px), C::blend(g.take, y, py));
    let z = C::zero();
    C::store(&mut g.acc[0], &C::blend(g.inf, &x, &z));
    C::store(&mut g.acc[1], &C::blend(g.inf, &y, &z));
}

/// acc ← acc + P in two groups at once (`inv_a`, `inv_b`: their 1/d), the two computations
/// side by side so that each fills the other's latencies. λ and λ² may be ≥ p (< 2p): each sub
/// takes a canonical subtrahend and gives < 2p, made canonical where it is kept.
#[inline(always)]
unsafe fn add_pair<C: Coord>(ga: &mut Group<C>, gb: &mut Group<C>, inv_a: &C, inv_b: &C) {
    let [axa, aya, pxa, pya, na] = operands(ga);
    let [axb, ayb, pxb, pyb, nb] = operands(gb);
    let la = C::mul_lazy(&na, inv_a);
    let lb = C::mul_lazy(&nb, inv_b);
    let sa = C::sqr_lazy(&la);
    let sb = C::sqr_lazy(&lb);
    let xa = C::canonical(&C::sub(&C::sub(&sa, &axa), &pxa));
    let xb = C::canonical(&C::sub(&C::sub(&sb, &axb), &pxb));
    let ta = C::mul_lazy(&la, &C::sub(&axa, &xa));
    let tb = C::mul_lazy(&lb, &C::sub(&axb, &xb));
    let ya = C::canonical(&C::sub(&ta, &aya));
    let yb = C::canonical(&C::sub(&tb, &ayb));
    store_sum(ga, &xa, &ya, &pxa, &pya);
    store_sum(gb, &xb, &yb, &pxb, &pyb);
}

/// acc ← acc + P in one group.
#[inline(always)]
unsafe fn add_one<C: Coord>(g: &mut Group<C>, inv_d: &C) {
    let [ax, ay, px, py, num] = operands(g);
    let lambda = C::mul_lazy(&num, inv_d);
    let x = C::canonical(&C::sub(&C::sub(&C::sqr_lazy(&lambda), &ax), &px));
    let y = C::canonical(&C::sub(&C::mul_lazy(&lambda, &C::sub(&ax, &x)), &ay));
    store_sum(g, &x, &y, &px, &py);
}

/// Writes out the sums of the runs that end with this step's entry `e` (the next entry `after`
/// is in another bucket, or there is none).
#[inline(always)]
unsafe fn write_out<C: Coord>(
    g: &mut Group<C>,
    e: __m512i,
    after: __m512i,
    primary: SyncPtr<C::Point>,
    extras: &mut Vec<(u32, C::Point)>,
) {
    let ends = _mm512_test_epi64_mask(bucket(e), bucket(e)) & _mm512_cmpneq_epu64_mask(bucket(e), bucket(after));
    if ends == 0 {
        return;
    }
    let mut b = [0u64; 8];
    _mm512_storeu_si512(b.as_mut_ptr() as *mut _, bucket(e));
    for l in (0..8).filter(|l| ends >> l & 1 != 0) {
        let mut sum = C::Point::default();
        C::set(&mut sum, &g.acc[0], &g.acc[1], l);
        if g.cont >> l & 1 != 0 {
            extras.push((b[l] as u32, sum));
            g.cont &= !(1 << l);
        } else {
            // SAFETY: only the slice holding a bucket's first entry writes it.
            *primary.at(b[l] as usize) = sum;
        }
    }
}

/// Asks for the points of the entries `e` to be brought into L2 (`_MM_HINT_T1`: two steps ahead,
/// from the backward pass) or L1 (`_MM_HINT_T0`: a few groups ahead, from the forward pass).
/// The L2 request alone came too early for L1 and the L1 one alone too late: the first gather of
/// each group stalled on memory, a quarter of the accumulation's time.
#[inline(always)]
unsafe fn prefetch<C: Coord, const HINT: i32>(pts: &[C::Point], e: __m512i) {
    let mut idx = [0u64; 8];
    _mm512_storeu_si512(idx.as_mut_ptr() as *mut _, _mm512_and_si512(e, field::splat64(!NEG as u64)));
    for i in idx {
        let p = pts.as_ptr().add(i as usize) as *const i8;
        for line in 0..std::mem::size_of::<C::Point>() / 64 {
            _mm_prefetch::<HINT>(p.add(64 * line));
        }
    }
}

/// Σ_b b·primary[b] for b in 1..=h (h a multiple of 8; (0, 0) entries are infinity).
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn bucket_sums(primary: &[Affine], h: usize) -> P1 {
    assert!(h.is_multiple_of(8) && primary.len() > h);
    let seg = h / 8;
    let (mut s, mut t) = (Xyzz::infinity(), Xyzz::infinity());
    for i in 0..seg {
        let idx: [i64; 8] = std::array::from_fn(|l| (((l + 1) * seg - i) * 16) as i64);
        let (bx, by) = gather(primary.as_ptr(), _mm512_loadu_si512(idx.as_ptr() as *const _));
        s = madd(&s, &bx, &by);
        t = add(&t, &s);
    }
    let (s, t) = (to_jacobian_blst(&s), to_jacobian_blst(&t));
    let mut out = P1::default();
    for l in 0..8 {
        let mut part = t[l];
        if l > 0 {
            let k = (l * seg) as u64;
            part = G1::add(&part, &G1::mult(&s[l], &k.to_le_bytes(), 64 - k.leading_zeros() as usize));
        }
        out = G1::add(&out, &part);
    }
    out
}
