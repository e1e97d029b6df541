//! Σ k_i·P_i over G1 on AVX-512 IFMA: Pippenger with signed c-bit digits, the bucket sums by
//! batch-affine additions eight lanes wide, the same point as blst's `msm_g1`.
//!
//! 1. [`prepare`]: points to our form (one 128-byte [`Affine`] each, from decoded points or
//!    straight from a section's bytes: [`G1Points`]); each scalar k (taken mod r)
//!    is replaced by r − k with the point negated when k > (r−1)/2, so k < 2^254; then
//!    k + Σ_w 2^(c·w + c−1) written in base 2^c gives the signed digits d_w ∈ [−2^(c−1), 2^(c−1))
//!    with no carries to chase. Each window keeps one u32 key per point: |d| and the sign
//!    (digit sign times point sign).
//! 2. Per window, in parallel: counting sort by |d| ([`buckets::Sorted`]), the bucket sums
//!    ([`buckets::accumulate`], split into tasks over the sorted list; the windows of small
//!    MSMs in batches that share its steps: [`batch_buckets`]), Σ b·B_b
//!    ([`buckets::bucket_sums`]), plus the few partial sums of buckets cut between slices (a
//!    small blst MSM).
//! 3. [`horner`]: Σ_w 2^(c·w)·W_w with blst doublings.
//!
//! c minimises the estimated cost (windows × (n·add + 2^(c−1)·reduction)): 16 at 2^20, 17 at 2^22.
//! Above 2^23 points the input is cut into chunks of equal size (memory: 128 + 4·windows bytes per
//! point of a chunk).
//!
//! G2 ([`g2`]) takes the same plan, keys, sort and accumulation, the latter over Fp2 through
//! [`coord::Coord`]; its few buckets per window are summed by blst.
mod buckets;
mod coord;
mod curve;
mod g2;
mod groups;
mod source;

use rayon::prelude::*;

use super::SyncPtr;
use crate::ec::{Curve, P1Affine, ScalarBytes, G1, P1};
use buckets::{Pool, Sorted, NEG};
use coord::{Coord, Jacobian};
use curve::{Affine, Fe};
pub use g2::{msm_g2_raw, sum_g2_raw};
pub use groups::{group_sums_g1, group_sums_g2};
pub use source::G1Points;

/// r, little-endian words.
const R: [u64; 4] = [0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48];
/// (r − 1)/2: scalars above it are negated.
const HALF: [u64; 4] = [0x7fffffff80000000, 0xa9ded2017fff2dff, 0x199cec0404d0ec02, 0x39f6d3a994cebea4];

/// Points per chunk at most.
const MAX_CHUNK: usize = Sorted::MAX_POINTS;
/// Sorted entries per accumulation task, about.
const TASK_ENTRIES: usize = 1 << 21;
/// Groups of eight slices per task at most (one inversion per step for all of them; their state
/// stays in L2).
const MAX_GROUPS: usize = 256;
/// Entries per slice at least, where the groups allow: each slice that begins inside a bucket
/// leaves a partial sum for [`extras_sum`] (blst, one thread). At 32, a 2^15-point window
/// (512 buckets) left some 1,000 of them, a fifth of the MSM's time; at 128 the 2^15 MSM took
/// 49 ms instead of 56 and the 2^17 one 166 instead of 195 (2 cores, Zen 4), the inversion per
/// step still shared by 8 × 32 lanes or more.
const MIN_SLICE: usize = 128;

/// Σ scalars[i]·points[i] (scalars little-endian, taken mod r as blst does with 255 bits).
/// Needs [`super::available`].
pub fn msm_g1(points: &[P1Affine], scalars: &[ScalarBytes]) -> P1 {
    msm_g1_from(G1Points::Decoded(points), scalars)
}

/// [`msm_g1`] over points in either form ([`G1Points`]: decoded, or a section's raw bytes).
pub fn msm_g1_from(points: G1Points, scalars: &[ScalarBytes]) -> P1 {
    assert!(crate::field::lanes::available(), "AVX-512 IFMA MSM called on a CPU without it");
    let n = points.len();
    assert_eq!(n, scalars.len());
    if n == 0 {
        return P1::default();
    }
    let chunks = n.div_ceil(MAX_CHUNK);
    let size = n.div_ceil(chunks);
    let mut out = P1::default();
    for (k, s) in scalars.chunks(size).enumerate() {
        let part = msm_chunk(points.range(k * size, k * size + s.len()), s);
        out = G1::add(&out, &part);
    }
    out
}

/// Σ of the points `indices` of a section's raw bytes (the query's points whose scalar is 1),
/// by the MSM's batch-affine accumulation with every point in one bucket: blocks of
/// [`SUM_BLOCK`] points are converted into a buffer of their own and summed in parallel (no
/// decoding by blst, no vector of all the points).
pub fn sum_g1_raw(raw: &[u8], indices: &[u32]) -> P1 {
    sum_raw::<Fe>(raw, indices)
}

/// [`sum_g1_raw`] in either group.
fn sum_raw<C: Coord>(raw: &[u8], indices: &[u32]) -> Jacobian<C> {
    assert!(crate::field::lanes::available(), "AVX-512 IFMA sum called on a CPU without it");
    let parts: Vec<Jacobian<C>> = indices
        .par_chunks(SUM_BLOCK)
        // SAFETY: the CPU has AVX-512F and IFMA (asserted above).
        .map(|block| unsafe { sum_block::<C>(raw, block) })
        .collect();
    parts.iter().fold(Jacobian::<C>::default(), |acc, p| C::Group::add(&acc, p))
}

/// Points per block of [`sum_raw`].
const SUM_BLOCK: usize = 1 << 15;

/// Σ of the points `block` of a section's raw bytes (one task of [`sum_raw`]).
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn sum_block<C: Coord>(raw: &[u8], block: &[u32]) -> Jacobian<C> {
    let size = C::Group::UNCOMPRESSED_BYTES;
    // Points at infinity add nothing, and the accumulation takes every entry for a real point.
    let live: Vec<u32> =
        block.iter().copied().filter(|&i| !crate::ec::encoding::is_infinity(&raw[i as usize * size..])).collect();
    let mut pts = Vec::with_capacity(live.len().next_multiple_of(8));
    for at in live.chunks(8) {
        pts.extend_from_slice(&C::convert8_at(raw, at)[..at.len()]);
    }
    if pts.is_empty() {
        return Jacobian::<C>::default();
    }
    let entries: Vec<u64> = (0..pts.len() as u64).map(|i| 1 << 32 | i).collect();
    let groups = (entries.len() / (8 * 64)).clamp(1, 32);
    let cut = buckets::Cut { groups, len: entries.len().div_ceil(8 * groups) };
    let mut primary = [C::Point::default(); 2];
    let mut extras = buckets::accumulate::<C>(&pts, &entries, 0, cut, SyncPtr(primary.as_mut_ptr()));
    extras.push((1, primary[1]));
    let sums: Vec<C::Point> = extras.iter().map(|e| e.1).collect();
    let mut out = Jacobian::<C>::default();
    for p in sums.chunks(8).flat_map(|c| C::to_group_affine(c)) {
        out = C::Group::add_affine(&out, &p);
    }
    out
}

/// Pippenger's windows: the scalars cut into signed digits of c bits, and the constants that go
/// with that width.
struct SignedDigits {
    c: usize,
    windows: usize,
    /// Buckets per window, 2^(c−1).
    h: usize,
    /// Σ_w 2^(c·w + c−1), added to k to read off signed digits.
    offset: [u64; 5],
}

impl SignedDigits {
    fn new(n: usize) -> Self {
        // In multiplications: a bucket addition ~7, its sort ~1; a bucket in Σ b·B_b ~27.
        let cost = |c: usize| 255usize.div_ceil(c) * (8 * n + (27 << (c - 1)));
        SignedDigits::with_c((8..=20).min_by_key(|&c| cost(c)).unwrap())
    }

    fn with_c(c: usize) -> Self {
        let windows = 255usize.div_ceil(c);
        let mut offset = [0u64; 5];
        for w in 0..windows {
            let bit = c * w + c - 1;
            offset[bit / 64] |= 1 << (bit % 64);
        }
        SignedDigits { c, windows, h: 1 << (c - 1), offset }
    }

    /// The keys of the points `range` in every window (window w's keys start at w·n), 0 where
    /// the point is at infinity; eight points at a time on AVX-512 ([`SignedDigits::keys8`]).
    ///
    /// # Safety
    /// `keys` holds windows·n values, and no one else writes those of `range`.
    unsafe fn fill_keys(
        &self,
        scalars: &[ScalarBytes],
        range: std::ops::Range<usize>,
        inf: impl Fn(usize) -> bool,
        keys: SyncPtr<u32>,
        n: usize,
    ) {
        let mut i = range.start;
        while i < range.end {
            let k = (range.end - i).min(8);
            let mut kc = [[0u64; 5]; 8];
            let (mut negs, mut infs) = (0u8, 0u8);
            for l in 0..k {
                let (v, neg) = reduce_and_fold(&scalars[i + l]);
                kc[l] = add_offset(&v, &self.offset);
                negs |= (neg as u8) << l;
                infs |= (inf(i + l) as u8) << l;
            }
            if k == 8 {
                self.keys8(&kc, negs, infs, keys, i, n);
            } else {
                for (l, kc) in kc.iter().enumerate().take(k) {
                    for w in 0..self.windows {
                        let key = if infs >> l & 1 != 0 { 0 } else { self.key(kc, negs >> l & 1 != 0, w) };
                        *keys.at(w * n + i + l) = key;
                    }
                }
            }
            i += k;
        }
    }

    /// [`SignedDigits::key`] of points i..i + 8 for every window, one lane per point (`negs`, `infs`:
    /// a bit per lane), each window's eight keys stored together.
    #[target_feature(enable = "avx512f")]
    unsafe fn keys8(&self, kc: &[[u64; 5]; 8], negs: u8, infs: u8, keys: SyncPtr<u32>, i: usize, n: usize) {
        use std::arch::x86_64::*;
        let mut lanes = [[0u64; 8]; 5];
        for (l, k) in kc.iter().enumerate() {
            for (j, v) in k.iter().enumerate() {
                lanes[j][l] = *v;
            }
        }
        let words = crate::field::lanes::per_limb!(5, |j| _mm512_loadu_si512(lanes[j].as_ptr() as *const _));
        let mask = _mm512_set1_epi64((1 << self.c) - 1);
        let h = _mm512_set1_epi64(self.h as i64);
        let flag = _mm512_set1_epi64(NEG as i64);
        for w in 0..self.windows {
            let bit = self.c * w;
            let (j, shift) = (bit / 64, (bit % 64) as i64);
            let mut v = _mm512_srl_epi64(words[j], _mm_cvtsi64_si128(shift));
            if shift as usize + self.c > 64 && j + 1 < 5 {
                v = _mm512_or_si512(v, _mm512_sll_epi64(words[j + 1], _mm_cvtsi64_si128(64 - shift)));
            }
            let d = _mm512_sub_epi64(_mm512_and_si512(v, mask), h);
            // The sign: the digit's (d < 0) times the point's; none for d = 0.
            let sign = (_mm512_cmplt_epi64_mask(d, _mm512_setzero_si512()) ^ negs) & _mm512_test_epi64_mask(d, d);
            let key = _mm512_mask_or_epi64(_mm512_abs_epi64(d), sign, _mm512_abs_epi64(d), flag);
            let key = _mm512_maskz_mov_epi64(!infs, key);
            _mm256_storeu_si256(keys.at(w * n + i) as *mut __m256i, _mm512_cvtepi64_epi32(key));
        }
    }

    /// The key of window w for k + offset (`kc`): |d| | NEG where the point enters negated.
    fn key(&self, kc: &[u64; 5], neg: bool, w: usize) -> u32 {
        let (bit, c) = (self.c * w, self.c);
        let (word, shift) = (bit / 64, bit % 64);
        let mut v = kc[word] >> shift;
        if shift + c > 64 && word + 1 < 5 {
            v |= kc[word + 1] << (64 - shift);
        }
        let d = (v & ((1 << c) - 1)) as i64 - self.h as i64;
        let sign = (d < 0) != neg;
        d.unsigned_abs() as u32 | if sign && d != 0 { NEG } else { 0 }
    }
}

/// k mod r (over k's low 255 bits), and whether it is above (r − 1)/2, then r − k if so.
fn reduce_and_fold(s: &ScalarBytes) -> ([u64; 4], bool) {
    let mut k: [u64; 4] = std::array::from_fn(|i| u64::from_le_bytes(s.b[8 * i..8 * i + 8].try_into().unwrap()));
    k[3] &= (1 << 63) - 1;
    if !less(&k, &R) {
        k = sub_words(&k, &R);
    }
    if less(&HALF, &k) {
        (sub_words(&R, &k), true)
    } else {
        (k, false)
    }
}

fn less(a: &[u64; 4], b: &[u64; 4]) -> bool {
    (0..4).rev().map(|i| a[i].cmp(&b[i])).find(|o| o.is_ne()) == Some(std::cmp::Ordering::Less)
}

/// a − b (a ≥ b).
fn sub_words(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let mut borrow = false;
    std::array::from_fn(|i| {
        let (v, b1) = a[i].overflowing_sub(b[i]);
        let (v, b2) = v.overflowing_sub(borrow as u64);
        borrow = b1 || b2;
        v
    })
}

/// k + offset, five words.
fn add_offset(k: &[u64; 4], offset: &[u64; 5]) -> [u64; 5] {
    let mut carry = false;
    std::array::from_fn(|i| {
        let (v, c1) = offset[i].overflowing_add(if i < 4 { k[i] } else { 0 });
        let (v, c2) = v.overflowing_add(carry as u64);
        carry = c1 || c2;
        v
    })
}

fn msm_chunk(points: G1Points, scalars: &[ScalarBytes]) -> P1 {
    let n = points.len();
    assert!(n <= Sorted::MAX_POINTS);
    let plan = SignedDigits::new(n);
    let (pts, keys) = prepare(points, scalars, &plan);
    let sums = window_sums::<Fe, P1>(&pts, &keys, &plan, |b| window_sum(b, &plan));
    horner::<Fe>(&sums, plan.c)
}

/// The points in our form and, window after window, the keys (n per window). The keys are read
/// in order, so they stay on 4 KiB pages: a huge page comes zeroed from memory the host has taken
/// back, slowly (2KiB proof on a Zen 4 VM: 1.1 s less system time, H MSM 5.6 -> 4.9-5.1 s).
fn prepare(points: G1Points, scalars: &[ScalarBytes], plan: &SignedDigits) -> (HugeBuf<Affine>, Vec<u32>) {
    const CHUNK: usize = 1 << 12;
    let n = points.len();
    let mut pts = HugeBuf::<Affine>::new(n);
    let mut keys = Vec::<u32>::with_capacity(plan.windows * n);
    let key_ptr = SyncPtr(keys.as_mut_ptr());
    pts.uninit().par_chunks_mut(CHUNK).enumerate().for_each(|(ci, out)| {
        let i0 = ci * CHUNK;
        for j in (0..out.len()).step_by(8) {
            let k = (out.len() - j).min(8);
            // SAFETY: msm_g1_from asserted AVX-512F and IFMA.
            let conv = unsafe { points.convert8(i0 + j, k) };
            for (l, a) in conv.iter().take(k).enumerate() {
                out[j + l].write(*a);
            }
        }
        // SAFETY: keys (w, i) for i in this chunk are written by this chunk only.
        unsafe { plan.fill_keys(scalars, i0..i0 + out.len(), |i| points.is_infinity(i), key_ptr, n) };
    });
    // SAFETY: every (w, i) was written above.
    unsafe { keys.set_len(plan.windows * n) };
    (pts, keys)
}

/// `len` plain values in memory aligned to 2 MiB and advised to take huge pages: the points are
/// read at random, and with 4 KiB pages nearly every read would miss the TLB. Written in full
/// (through [`HugeBuf::uninit`]) before it is read.
struct HugeBuf<T: Copy> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: a HugeBuf owns its values as a Vec would; shared, it only gives out `&[T]`.
unsafe impl<T: Copy + Sync> Sync for HugeBuf<T> {}

impl<T: Copy> HugeBuf<T> {
    const ALIGN: usize = 1 << 21;

    fn layout(len: usize) -> std::alloc::Layout {
        // At least one page: allocating zero bytes is undefined.
        let size = (len * std::mem::size_of::<T>()).max(1).next_multiple_of(Self::ALIGN);
        std::alloc::Layout::from_size_align(size, Self::ALIGN).unwrap()
    }

    fn new(len: usize) -> Self {
        let layout = Self::layout(len);
        // SAFETY: the layout's size is non-zero (at least one huge page).
        let ptr = unsafe { std::alloc::alloc(layout) } as *mut T;
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        crate::hostmem::advise_huge(ptr as *mut u8, layout.size());
        HugeBuf { ptr, len }
    }

    fn uninit(&mut self) -> &mut [std::mem::MaybeUninit<T>] {
        // SAFETY: ptr holds room for len values of T (aligned to 2 MiB), owned by self; MaybeUninit
        // makes no claim that they are initialised.
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut _, self.len) }
    }
}

impl<T: Copy> std::ops::Deref for HugeBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: as in `uninit`, and every value was written through it before any read (the
        // type's contract, kept by `prepare`).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T: Copy> Drop for HugeBuf<T> {
    fn drop(&mut self) {
        // SAFETY: ptr came from `alloc` with this same layout.
        unsafe { std::alloc::dealloc(self.ptr as *mut u8, Self::layout(self.len)) };
    }
}

/// Σ_b b·(Σ of the points in bucket b) for one window's buckets (None: no point has a digit).
fn window_sum(buckets: Option<Buckets<Fe>>, plan: &SignedDigits) -> P1 {
    let Some((primary, extras)) = buckets else {
        return P1::default();
    };
    // SAFETY: the buckets exist only where the AVX-512 MSM runs, on a CPU with AVX-512F and IFMA.
    let sum = unsafe { buckets::bucket_sums(&primary, plan.h) };
    G1::add(&sum, &extras_sum::<Fe>(&extras))
}

/// A window's buckets and the partial sums (bucket, E) of runs cut between slices.
type Buckets<C> = (Vec<<C as Coord>::Point>, Vec<(u32, <C as Coord>::Point)>);

/// Every window's sum, in window order, its buckets made in batches of windows
/// ([`batch_buckets`]) side by side and finished by `sum` (in either group).
fn window_sums<C: Coord, S: Send>(
    pts: &[C::Point],
    keys: &[u32],
    plan: &SignedDigits,
    sum: impl Fn(Option<Buckets<C>>) -> S + Sync,
) -> Vec<S> {
    let n = pts.len();
    let pool = Pool::default();
    let per = windows_per_batch::<C>(n, plan.windows);
    let batches: Vec<Vec<S>> = (0..plan.windows.div_ceil(per))
        .into_par_iter()
        .map(|k| {
            let ws = k * per..((k + 1) * per).min(plan.windows);
            batch_buckets::<C>(pts, keys, ws, plan, &pool).into_iter().map(&sum).collect()
        })
        .collect();
    batches.into_iter().flatten().collect()
}

/// Entries (times the size of a point) that a batch of windows gathers, about: 2^17 G1 points,
/// 128 groups of eight slices of [`MIN_SLICE`] entries, whose steps share one inversion.
const BATCH_BYTES: usize = 1 << 24;

/// Windows per batch for n points: as many as make about [`BATCH_BYTES`] of entries, but at
/// least two batches per thread where there are windows for them; the windows evened out over
/// the batches. One for large MSMs, whose windows fill their tasks alone.
fn windows_per_batch<C: Coord>(n: usize, windows: usize) -> usize {
    let fill = (BATCH_BYTES / std::mem::size_of::<C::Point>()).div_ceil(n.max(1));
    let spread = windows.div_ceil(2 * rayon::current_num_threads());
    let per = fill.min(spread).max(1);
    windows.div_ceil(windows.div_ceil(per))
}

/// The buckets of the windows `ws` (window w's keys at w·n of `keys`), one per window. One
/// window is cut into tasks ([`window_buckets`]); several are accumulated as one sorted list, in
/// one task: each window's entries sorted by bucket, window j's bucket b renumbered
/// j·(h + 1) + b. A step of the accumulation inverts once for all its lanes (blst's
/// constant-time inversion of their product); a 2^15-point window on its own filled 31 groups of
/// eight lanes, and in a 2KiB WindowPoSt's G1 MSMs a quarter of the samples (221 of 901) went to
/// those inversions, 30 after batching.
fn batch_buckets<C: Coord>(
    pts: &[C::Point],
    keys: &[u32],
    ws: std::ops::Range<usize>,
    plan: &SignedDigits,
    pool: &Pool,
) -> Vec<Option<Buckets<C>>> {
    let n = pts.len();
    if ws.len() == 1 {
        return vec![window_buckets::<C>(pts, &keys[ws.start * n..(ws.start + 1) * n], plan, pool)];
    }
    let stride = plan.h + 1;
    let mut entries = Vec::with_capacity(ws.len() * n);
    for (j, w) in ws.clone().enumerate() {
        let sorted = Sorted::new(&keys[w * n..(w + 1) * n], plan.h, pool);
        let shift = ((j * stride) as u64) << 32;
        entries.extend(sorted.entries.iter().map(|e| e + shift));
        pool.give(sorted.entries);
    }
    let mut primary = vec![C::Point::default(); ws.len() * stride];
    let mut extras = Vec::new();
    if !entries.is_empty() {
        let groups = (entries.len() / (8 * MIN_SLICE)).clamp(1, MAX_GROUPS);
        let cut = buckets::Cut { groups, len: entries.len().div_ceil(8 * groups) };
        // SAFETY: the AVX-512 MSMs assert the CPU features on entry; `primary` holds the
        // renumbered buckets of every window, and this one task takes every entry.
        extras = unsafe { buckets::accumulate::<C>(pts, &entries, 0, cut, SyncPtr(primary.as_mut_ptr())) };
    }
    let mut out: Vec<Buckets<C>> = primary.chunks(stride).map(|p| (p.to_vec(), Vec::new())).collect();
    for (b, e) in extras {
        out[b as usize / stride].1.push(((b as usize % stride) as u32, e));
    }
    out.into_iter().map(Some).collect()
}

/// One window's buckets, in either group: `primary[b]` (b in 1..=h; infinity where empty) for
/// the runs that begin at their bucket's first entry, and the partial sums (b, E) of the runs cut
/// between slices. None where no point has a digit.
fn window_buckets<C: Coord>(pts: &[C::Point], keys: &[u32], plan: &SignedDigits, pool: &Pool) -> Option<Buckets<C>> {
    let sorted = Sorted::new(keys, plan.h, pool);
    let m = sorted.entries.len();
    if m == 0 {
        return None;
    }
    let mut primary = vec![C::Point::default(); plan.h + 1];
    let out = SyncPtr(primary.as_mut_ptr());
    let (tasks, cut) = task_cut(m, plan.windows);
    let extras: Vec<(u32, C::Point)> = (0..tasks)
        .into_par_iter()
        // SAFETY: the AVX-512 MSMs assert the CPU features on entry; `out` is this window's h + 1
        // buckets, and the tasks' slices split the sorted entries, so no bucket begins in two.
        .flat_map_iter(|t| unsafe { buckets::accumulate::<C>(pts, &sorted.entries, t, cut, out) })
        .collect();
    pool.give(sorted.entries);
    Some((primary, extras))
}

/// How a window's m sorted entries are cut into accumulation tasks: every thread busy (windows
/// run side by side too), tasks of about TASK_ENTRIES at most, and at least two per window: with
/// one, the last of an odd number of windows (15 at 2^22 on two cores) ran alone for half a
/// second while the other core waited.
fn task_cut(m: usize, windows: usize) -> (usize, buckets::Cut) {
    let threads = rayon::current_num_threads();
    let tasks = (m / TASK_ENTRIES).max((4 * threads).div_ceil(windows).max(2)).min(m.div_ceil(1 << 16)).max(1);
    let groups = (m / tasks / (8 * MIN_SLICE)).clamp(1, MAX_GROUPS);
    (tasks, buckets::Cut { groups, len: m.div_ceil(tasks * 8 * groups) })
}

/// Σ b·E for the partial bucket sums (b, E) (blst Pippenger, one thread).
fn extras_sum<C: Coord>(extras: &[(u32, C::Point)]) -> Jacobian<C> {
    if extras.is_empty() {
        return Jacobian::<C>::default();
    }
    let pts: Vec<C::Point> = extras.iter().map(|e| e.1).collect();
    // SAFETY: partial sums exist only where the AVX-512 MSM runs, on a CPU with AVX-512F and IFMA.
    let pts: Vec<_> = pts.chunks(8).flat_map(|c| unsafe { C::to_group_affine(c) }).collect();
    // blst reads ⌈nbits/8⌉ bytes per scalar.
    let nbits = (32 - extras.iter().map(|e| e.0).max().unwrap_or(0).leading_zeros() as usize).max(1);
    let mut scalars = Vec::with_capacity(extras.len() * 4);
    for e in extras {
        scalars.extend_from_slice(&e.0.to_le_bytes()[..nbits.div_ceil(8)]);
    }
    C::Group::msm_one_thread(&pts, &scalars, nbits)
}

/// Σ_w 2^(c·w)·sums[w].
fn horner<C: Coord>(sums: &[Jacobian<C>], c: usize) -> Jacobian<C> {
    let mut acc = Jacobian::<C>::default();
    for s in sums.iter().rev() {
        for _ in 0..c {
            acc = C::Group::double(&acc);
        }
        acc = C::Group::add(&acc, s);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ec::sample::{encode_all, random_progression};
    use crate::ec::scalar::{as_bytes, from_words};
    use blstrs::Scalar;
    use ff::Field;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// n distinct points P_0 + i·G.
    fn points(n: usize, rng: &mut ChaCha8Rng) -> Vec<P1Affine> {
        random_progression::<G1>(n, rng)
    }

    fn scalars(n: usize, rng: &mut ChaCha8Rng) -> Vec<ScalarBytes> {
        (0..n).map(|_| crate::ec::scalar_bytes(&Scalar::random(&mut *rng))).collect()
    }

    fn blst_msm(points: &[P1Affine], scalars: &[ScalarBytes]) -> P1 {
        G1::msm(points, as_bytes(scalars), 255)
    }

    fn small(v: u64) -> ScalarBytes {
        from_words([v, 0, 0, 0])
    }

    /// Whether the IFMA test `test` runs here (see [`crate::field::lanes::available_for_test`]).
    fn ifma(test: &str) -> bool {
        crate::field::lanes::available_for_test(test)
    }

    fn check(what: &str, points: &[P1Affine], scalars: &[ScalarBytes]) {
        let (got, want) = (msm_g1(points, scalars), blst_msm(points, scalars));
        assert!(G1::eq(&got, &want), "{what}: n = {}", points.len());
    }

    fn neg(p: &P1Affine) -> P1Affine {
        G1::neg_affine(p)
    }

    #[test]
    fn constants() {
        let one = [1, 0, 0, 0];
        assert_eq!(sub_words(&sub_words(&R, &HALF), &one), HALF);
        let plan = SignedDigits::new(1 << 22);
        assert_eq!((plan.c, plan.windows), (17, 15));
        assert_eq!(SignedDigits::new(1 << 20).c, 16);
    }

    #[test]
    fn random_sizes_match_blst() {
        if !ifma("random_sizes_match_blst") {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        for n in [1, 7, 8, 9, 100, 4096, 1 << 16] {
            let (p, s) = (points(n, &mut rng), scalars(n, &mut rng));
            check("random", &p, &s);
        }
    }

    #[test]
    fn edge_scalars_and_points_match_blst() {
        if !ifma("edge_scalars_and_points_match_blst") {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(18);
        let n = 3000;
        let p = points(n, &mut rng);
        let r_minus = |v: u64| sub_words(&R, &[v, 0, 0, 0]);
        let plus = |w: [u64; 4], v: u64| add_offset(&w, &[v, 0, 0, 0, 0])[..4].try_into().unwrap();
        let edge = [
            small(0),
            small(1),
            small(2),
            from_words(r_minus(1)),
            from_words(r_minus(2)),
            from_words(HALF),
            from_words(plus(HALF, 1)),
            from_words(plus(HALF, 2)),
            small(1 << 15),
            small((1 << 16) - 1),
            small(1 << 16),
            small(0xffff_ffff_ffff_ffff),
            // Not canonical (r + 5, 2^255 − 1): blst reads 255 bits; so do we, mod r.
            from_words(plus(R, 5)),
            from_words([!0, !0, !0, !0 >> 1]),
        ];
        for (i, e) in edge.iter().enumerate() {
            check(&format!("all scalars edge[{i}]"), &p[..100], &vec![e.clone(); 100]);
        }
        let mixed: Vec<ScalarBytes> =
            (0..n)
                .map(|i| {
                    if i % 3 == 0 {
                        edge[rng.gen_range(0..edge.len())].clone()
                    } else {
                        scalars(1, &mut rng).remove(0)
                    }
                })
                .collect();
        check("mixed edge scalars", &p, &mixed);
        check("all zero", &p, &vec![small(0); n]);
        // Points at infinity among the others, and only those.
        let mut with_inf = p.clone();
        for i in (0..n).step_by(5) {
            with_inf[i] = P1Affine::default();
        }
        check("points at infinity", &with_inf, &mixed);
        check("only infinity", &vec![P1Affine::default(); 64], &scalars(64, &mut rng));
    }

    /// The points as a `.params` section stores them (uncompressed, 0x40 + zeros for infinity).
    fn raw(points: &[P1Affine]) -> Vec<u8> {
        encode_all::<G1>(points)
    }

    #[test]
    fn raw_section_bytes_match_blst() {
        if !ifma("raw_section_bytes_match_blst") {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(20);
        for n in [1, 9, 3000, 70_001] {
            let mut p = points(n, &mut rng);
            for i in (0..n).step_by(7) {
                p[i] = P1Affine::default();
            }
            let bytes = raw(&p);
            assert!(bytes[0] & 0x40 != 0, "point 0 is infinity, flagged in the encoding");
            let s = scalars(n, &mut rng);
            let (got, want) = (msm_g1_from(G1Points::Raw(&bytes), &s), blst_msm(&p, &s));
            assert!(G1::eq(&got, &want), "raw bytes, n = {n}");
        }
    }

    #[test]
    fn sums_of_raw_points_match_blst() {
        if !ifma("sums_of_raw_points_match_blst") {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let n = 3 * SUM_BLOCK + 1000;
        let mut p = points(n, &mut rng);
        for i in (0..n).step_by(13) {
            p[i] = P1Affine::default();
        }
        let bytes = raw(&p);
        let every: Vec<u32> = (0..n as u32).collect();
        // Gaps and points at infinity; index 5 three times and 7 twice (repeats); only infinity.
        let sparse: Vec<u32> = (0..n as u32).filter(|i| i % 3 != 1).chain([5, 5, 7]).collect();
        let inf: Vec<u32> = (0..40).map(|k| 13 * k).collect();
        for (what, idx) in
            [("every point", &every), ("sparse, repeats", &sparse), ("infinity only", &inf), ("one", &vec![2u32])]
        {
            let want = idx.iter().fold(P1::default(), |acc, &i| G1::add_affine(&acc, &p[i as usize]));
            let got = sum_g1_raw(&bytes, idx);
            assert!(G1::eq(&got, &want), "{what}");
        }
    }

    #[test]
    fn repeated_and_opposite_points_match_blst() {
        if !ifma("repeated_and_opposite_points_match_blst") {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(19);
        let base = points(4, &mut rng);
        let n = 5000;
        // One point many times: doublings inside buckets (random and equal scalars).
        let same = vec![base[0]; n];
        check("repeated, random scalars", &same, &scalars(n, &mut rng));
        let s = scalars(1, &mut rng).remove(0);
        check("repeated, one scalar", &same, &vec![s.clone(); n]);
        check("repeated, small scalars", &same, &(0..n).map(|i| small(1 + i as u64 % 3)).collect::<Vec<_>>());
        // P and −P with the same scalar: every bucket cancels, and then restarts.
        let pm: Vec<P1Affine> = (0..n).map(|i| if i % 2 == 0 { base[1] } else { neg(&base[1]) }).collect();
        check("P and -P, one scalar", &pm, &vec![s.clone(); n]);
        let mut sc = scalars(n, &mut rng);
        for i in (0..n).step_by(2) {
            sc[i + 1] = sc[i].clone();
        }
        check("P and -P pairs, random scalars", &pm, &sc);
        // A mix of few distinct points and their negatives with few distinct scalars.
        let few: Vec<P1Affine> = (0..n)
            .map(|_| {
                let q = base[rng.gen_range(0..4)];
                if rng.gen() {
                    neg(&q)
                } else {
                    q
                }
            })
            .collect();
        let sc: Vec<ScalarBytes> =
            (0..n).map(|_| [small(3), small(5), s.clone()][rng.gen_range(0..3)].clone()).collect();
        check("few points, few scalars", &few, &sc);
    }

    /// Times ours and blst's: FILSNARK_MSM_BENCH="20 22" (log sizes), 3 runs each;
    /// FILSNARK_MSM_BENCH_BLST=0 times ours only.
    #[test]
    #[ignore]
    fn bench_vs_blst() {
        if !ifma("bench_vs_blst") {
            return;
        }
        let logs = std::env::var("FILSNARK_MSM_BENCH").unwrap_or("20 22".into());
        let mut rng = ChaCha8Rng::seed_from_u64(20);
        for log in logs.split_whitespace().map(|v| v.parse::<u32>().unwrap()) {
            let n = 1usize << log;
            let (p, s) = (points(n, &mut rng), scalars(n, &mut rng));
            let runs = 3;
            let time = |f: &dyn Fn() -> P1| {
                let mut t = Vec::new();
                let mut r = P1::default();
                for _ in 0..runs {
                    let t0 = std::time::Instant::now();
                    r = f();
                    t.push(t0.elapsed().as_secs_f64());
                }
                (r, t)
            };
            let (ours, to) = time(&|| msm_g1(&p, &s));
            if std::env::var("FILSNARK_MSM_BENCH_BLST").is_ok_and(|v| v == "0") {
                println!("2^{log}: ours {to:.3?} s");
                continue;
            }
            let (theirs, tb) = time(&|| blst_msm(&p, &s));
            assert!(G1::eq(&ours, &theirs));
            println!("2^{log}: ours {to:.3?} s, blst {tb:.3?} s");
        }
    }
}
