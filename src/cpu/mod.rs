//! The CPU backend (blst + rayon): number-theoretic transforms over Fr, the H polynomial, and
//! multi-scalar multiplication over G1/G2 with scalars split three ways (0 skip, 1 batch
//! addition, other Pippenger once per distinct value). The reference for the GPU and the
//! fallback without one.
#[cfg(target_arch = "x86_64")]
pub mod avx512;
pub mod backend;
pub mod h_poly;
pub mod msm;
pub mod ntt;
pub mod prover;
pub mod repeats;
