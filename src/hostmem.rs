//! Host memory for the large per-partition buffers (assignments, witness values, the CPU
//! kernels' vectors): huge pages asked for, and vectors kept for reuse.
//!
//! A 32GiB WindowPoSt partition's host evaluation writes ~16 GB of fresh scalars (aux, A·z,
//! B·z, C·z). Freed and allocated again for the next partition, every page is faulted in and
//! cleared by the kernel first: on 2 cores that was a fifth of the evaluation (A·z, B·z, C·z
//! 37.4–38.1 core-s with new vectors, 29.5–31.3 reusing the last partition's). [`SCALARS`]
//! keeps the spent vectors for the next partition instead.
//!
//! What is kept must not raise a partition's footprint above the memory budget's
//! `per_partition` (pipeline/budget.rs: the assignment plus its witness, 20 GiB at 2^27). A
//! pipeline worker gives back its spent assignment (16 GB at 32GiB) and then makes its next
//! witness: the witness's parts (4 GB) beside the kept vectors, and the joined witness in one
//! of them. Had it also kept the last witness's values, that moment would hold 24 GB. So a
//! witness that was evaluated on the host is freed, and only a witness the device evaluated
//! (no assignment beside it) is kept.
use std::sync::Mutex;

use blstrs::Scalar;

/// Asks the kernel for huge pages over [ptr, ptr + len) (2 MiB aligned). Only advice: without
/// huge pages it is slower, not wrong.
pub fn advise_huge(ptr: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        // SAFETY: madvise reads no memory; MADV_HUGEPAGE only changes how pages of the range are
        // backed, and a bad range makes the call fail (ignored), nothing else.
        unsafe { madvise(ptr as *mut _, len, MADV_HUGEPAGE) };
    }
}

/// Huge pages asked for over the spare capacity of `v` (the whole 2 MiB pages inside it).
fn advise_huge_spare<T>(v: &mut Vec<T>) {
    const HUGE: usize = 1 << 21;
    let spare = v.spare_capacity_mut();
    let from = spare.as_ptr() as usize;
    let to = from + std::mem::size_of_val(spare);
    let (from, to) = (from.next_multiple_of(HUGE), to / HUGE * HUGE);
    if to > from {
        advise_huge(from as *mut u8, to - from);
    }
}

/// An empty vector with room for `n` elements, on huge pages where the kernel has them.
pub fn with_huge_capacity<T>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    advise_huge_spare(&mut v);
    v
}

/// Vectors this large and up are worth keeping (smaller ones cost little to make again).
const KEEP_FROM_BYTES: usize = 64 << 20;

/// Spent large vectors kept for the next partition's buffers.
pub struct Recycler<T> {
    free: Mutex<Vec<Vec<T>>>,
    /// At most this many are kept; beyond it the smallest is freed.
    keep: usize,
}

impl<T> Recycler<T> {
    pub const fn new(keep: usize) -> Self {
        Recycler { free: Mutex::new(Vec::new()), keep }
    }

    /// An empty vector with room for `n`: the smallest kept one that is large enough, else a new
    /// one on huge pages.
    pub fn take(&self, n: usize) -> Vec<T> {
        if n * std::mem::size_of::<T>() >= KEEP_FROM_BYTES {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            let fit = (0..free.len()).filter(|&i| free[i].capacity() >= n).min_by_key(|&i| free[i].capacity());
            if let Some(i) = fit {
                let mut v = free.swap_remove(i);
                v.clear();
                return v;
            }
        }
        with_huge_capacity(n)
    }

    /// Keeps `v`'s memory for a later [`Recycler::take`] (small vectors are simply freed).
    pub fn give(&self, v: Vec<T>) {
        if v.capacity() * std::mem::size_of::<T>() < KEEP_FROM_BYTES {
            return;
        }
        let spilled = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            free.push(v);
            if free.len() > self.keep {
                let i = (0..free.len()).min_by_key(|&i| free[i].capacity()).expect("not empty");
                Some(free.swap_remove(i))
            } else {
                None
            }
        };
        // Freed outside the lock: unmapping gigabytes takes a while.
        drop(spilled);
    }

    /// Bytes held for reuse.
    pub fn held_bytes(&self) -> usize {
        let free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        free.iter().map(|v| v.capacity() * std::mem::size_of::<T>()).sum()
    }
}

/// Scalar vectors of spent partitions: an assignment's aux, A·z, B·z, C·z, or the field values
/// of a witness the device evaluated. Two assignments' worth.
pub static SCALARS: Recycler<Scalar> = Recycler::new(8);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycler_reuses_the_smallest_fit_and_keeps_a_bounded_number() {
        let r: Recycler<u64> = Recycler::new(2);
        let big = KEEP_FROM_BYTES / 8;
        let mut v = r.take(big);
        v.extend(std::iter::repeat_n(7u64, big));
        let (p, cap) = (v.as_ptr(), v.capacity());
        r.give(v);
        let mut w = r.take(2 * big);
        w.push(1);
        r.give(w);
        assert_eq!(r.held_bytes(), (cap + 2 * big) * 8);
        // The smallest vector that fits comes back, empty.
        let again = r.take(big);
        assert_eq!((again.as_ptr(), again.len()), (p, 0));
        r.give(again);
        // A third vector makes the smallest one go.
        r.give(Vec::with_capacity(3 * big));
        assert_eq!(r.held_bytes(), (2 * big + 3 * big) * 8);
        // Too small to keep, too small to reuse for, or nothing large enough: a new vector.
        r.give(vec![1u64; 10]);
        assert_eq!(r.held_bytes(), 5 * big * 8);
        assert_eq!(r.take(big - 1).capacity(), big - 1);
        assert!(r.take(4 * big).capacity() >= 4 * big);
        assert_eq!(r.held_bytes(), 5 * big * 8);
    }
}
