//! The CPU kernels on AVX-512 IFMA: eight field elements per instruction in 52-bit limbs.
//!
//! - the arithmetic itself, eight elements of Fr or Fp in 52-bit limbs, is the field's
//!   ([`crate::field::lanes`], which the native witness's Poseidon also uses);
//! - [`ntt`]: the H polynomial's transforms over Fr;
//! - [`msm`]: G1 and G2 multi-scalar multiplication (Pippenger, batch-affine bucket sums over Fp
//!   or Fp2).
//!
//! Used where [`crate::field::lanes::available`] (the CPU has AVX-512F and AVX-512 IFMA, and
//! `FILSNARK_CPU_AVX512` is not `0`); otherwise the blst code in the parent module runs. Both give
//! the same bytes (tests).
pub mod msm;
pub mod ntt;

/// Below this many points blst's MSM is as fast as the AVX-512 one (2^10: both 18 ms, 2^11: 21 ms vs
/// 31 ms, on 2 cores of a Sapphire Rapids): the MSMs and sums of the parent module switch here.
pub const MIN_POINTS: usize = 1 << 11;

/// `len` copies of `fill`, the vector's whole 2 MiB pages advised to be huge pages before anything
/// touches them. For the H polynomial's buffers: freed just before the H MSM takes its huge pages
/// for the points, their pages go straight back to it, instead of the MSM's coming from memory the
/// VM host has reclaimed (slow to fault in).
pub fn huge_vec<T: Copy + Send + Sync>(len: usize, fill: T) -> Vec<T> {
    let mut v = crate::hostmem::with_huge_capacity(len);
    // Filled on every core: each first touch of a page is a fault.
    use rayon::prelude::*;
    v.spare_capacity_mut().par_chunks_mut(1 << 14).for_each(|c| c.fill(std::mem::MaybeUninit::new(fill)));
    // SAFETY: all `len` elements were written just above.
    unsafe { v.set_len(len) };
    v
}

/// A raw pointer shared by tasks that write disjoint elements (Copy whatever T is).
pub struct SyncPtr<T>(pub *mut T);
impl<T> Clone for SyncPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SyncPtr<T> {}
// SAFETY: the pointer is only dereferenced through `at`, whose callers promise disjoint elements.
unsafe impl<T> Send for SyncPtr<T> {}
// SAFETY: as for Send.
unsafe impl<T> Sync for SyncPtr<T> {}

impl<T> SyncPtr<T> {
    /// Element i (the whole wrapper is captured by closures, not its raw field).
    ///
    /// # Safety
    /// i is within the allocation, and no other task touches element i.
    pub unsafe fn at(self, i: usize) -> *mut T {
        self.0.add(i)
    }
}
