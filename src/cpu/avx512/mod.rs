//! The CPU kernels on AVX-512 IFMA: eight field elements per instruction in 52-bit limbs.
//!
//! - [`field`]: Montgomery arithmetic over N limbs of 52 bits, one implementation for both fields;
//! - [`FR`], [`FP`]: the scalar field (5 limbs, R = 2^260) and the base field (8 limbs, R = 2^416),
//!   with the factors that move values between blst's Montgomery form and ours;
//! - [`ntt`]: the H polynomial's transforms over Fr;
//! - [`msm`]: G1 and G2 multi-scalar multiplication (Pippenger, batch-affine bucket sums over Fp
//!   or Fp2).
//!
//! Used when the CPU has AVX-512F and AVX-512 IFMA (checked at run time, once) and
//! `FILSNARK_CPU_AVX512` is not `0`; otherwise the blst code in the parent module runs. Both give
//! the same bytes (tests).
//!
//! Tests of these kernels ask [`available_for_test`] first: on a CPU without IFMA they print a
//! line naming the test and why it is skipped (straight to the terminal, past the test
//! harness's capture) and pass; with `FILSNARK_EXPECT_IFMA=1` in the environment (a CI machine
//! known to have IFMA) they fail instead, so that a lost CPU feature cannot pass unnoticed.
pub mod field;
pub mod msm;
pub mod ntt;

use std::sync::OnceLock;

use field::Modulus;

/// Below this many points blst's MSM is as fast as the AVX-512 one (2^10: both 18 ms, 2^11: 21 ms vs
/// 31 ms, on 2 cores of a Sapphire Rapids): the MSMs and sums of the parent module switch here.
pub const MIN_POINTS: usize = 1 << 11;

/// r, the order of G1 and G2.
pub const FR: Modulus<5> = Modulus {
    p: [0xfffff00000001, 0x02fffe5bfefff, 0x9a1d80553bda4, 0x7d483339d8080, 0x073eda753299d],
    m0: 0xffffeffffffff,
    to_ours: [0x00234fffffdcb, 0x61039ef635000, 0xdce3c3e2e7505, 0x7fa6f1563642b, 0x0247db575276a],
    to_blst: [0x00001fffffffe, 0xfa00034802000, 0xcbc4ff55884b7, 0x056f998c4fefe, 0x01824b159acc5],
    one: [0x00022ffffffdd, 0x9700396c23000, 0xedf77458d1293, 0xdf20ff1776e6a, 0x026821fa14f77],
};

/// p, the base field of G1.
pub const FP: Modulus<8> = Modulus {
    p: [
        0xeffffffffaaab,
        0xfeb153ffffb9f,
        0x6b0f6241eabff,
        0x12bf6730d2a0f,
        0x764774b84f385,
        0x1ba7b6434bacd,
        0x1ea397fe69a4b,
        0x000000001a011,
    ],
    m0: 0x3fffcfffcfffd,
    to_ours: [
        0x7fde37dba9366,
        0x4e27525bc342b,
        0x1f5b1e9778489,
        0xb872b2b91b9dc,
        0xb206f497dfcaf,
        0x4137cc89a9b0b,
        0xd9d20d7e39959,
        0x000000000411c,
    ],
    to_blst: [
        0x900000002fffd,
        0x0bc40c0002760,
        0x3c758baebf400,
        0x57455f4898575,
        0xd77ce58537052,
        0x071a97a256ec6,
        0xec3fa80e4935c,
        0x0000000015f65,
    ],
    one: [
        0x6480ea8e9b9af,
        0x65766c8fe444f,
        0x8b540fea96f7d,
        0x3b2ee82efd422,
        0xa6723e5f0ade5,
        0xff6eb6fdd4230,
        0xe06ef23c24a25,
        0x0000000014c8e,
    ],
};

/// Whether the AVX-512 IFMA kernels run: the CPU has them and `FILSNARK_CPU_AVX512` is not `0`.
pub fn available() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var("FILSNARK_CPU_AVX512").map_or(true, |v| v != "0")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512ifma")
    })
}

/// Whether the IFMA test `test` can run here: true where [`available`]. Otherwise it writes
/// "skipped `test`: …" to the terminal and returns false, or panics where `FILSNARK_EXPECT_IFMA`
/// is `1` (IFMA expected: the test must not pass by skipping).
pub fn available_for_test(test: &str) -> bool {
    if available() {
        return true;
    }
    let why = if std::env::var("FILSNARK_CPU_AVX512").is_ok_and(|v| v == "0") {
        "FILSNARK_CPU_AVX512=0 turns the AVX-512 kernels off"
    } else {
        "this CPU has no AVX-512 IFMA"
    };
    if std::env::var("FILSNARK_EXPECT_IFMA").is_ok_and(|v| v == "1") {
        panic!("{test}: FILSNARK_EXPECT_IFMA=1, but {why}");
    }
    // Straight to stderr: the harness captures print!/eprint! of passing tests, not this.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped {test}: {why}");
    false
}

/// `len` copies of `fill`, the vector's whole 2 MiB pages advised to be huge pages before anything
/// touches them. For the H polynomial's buffers: freed just before the H MSM takes its huge pages
/// for the points, their pages go straight back to it, instead of the MSM's coming from memory the
/// VM host has reclaimed (slow to fault in).
pub fn huge_vec<T: Copy + Send + Sync>(len: usize, fill: T) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    const HUGE: usize = 1 << 21;
    let start = v.as_mut_ptr() as usize;
    let (a, b) = (start.next_multiple_of(HUGE), (start + len * std::mem::size_of::<T>()) / HUGE * HUGE);
    if b > a {
        crate::hostmem::advise_huge(a as *mut u8, b - a);
    }
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
