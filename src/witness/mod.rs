//! The native witness: a circuit's public inputs and aux variables computed straight from the
//! vanilla proofs (SHA-256 and Poseidon word by word), in exactly the order and polarity the
//! gadgets allocate them, without running the gadgets. Booleans stay bits; the few field
//! elements (Poseidon states, packed values) stay `Scalar`s.
//!
//! - [`packed`]   — [`PackedWitness`], what the native witness produces and what the compiled
//!   constraints evaluate (A·z, B·z, C·z) and the MSMs read (0/1 straight from the bits);
//! - [`sha256`], [`poseidon`], [`merkle`] — the gadgets' allocations: SHA-256 compressions,
//!   Poseidon hashes (eight at a time on AVX-512 IFMA: [`poseidon_lanes`]), Merkle inclusion
//!   paths;
//! - [`porep`]    — a PoRep partition: prefix and challenges;
//! - [`post`]     — a FallbackPoSt partition (WindowPoSt, WinningPoSt): its circuit sectors;
//! - [`snap`]     — a SnapDeals (EmptySectorUpdate) partition: prefix and challenges;
//! - [`shape`]    — what a partition's vanilla proofs must look like, and their plain form;
//!   [`vanilla`] reads that form out of storage-proofs-porep's typed proofs.
pub mod merkle;
pub mod packed;
pub mod porep;
pub mod poseidon;
pub mod poseidon_lanes;
pub mod post;
pub mod sha256;
pub mod shape;
pub mod snap;
pub mod vanilla;

pub use packed::{PackedAux, PackedWitness, WitnessPart};
pub use porep::{porep_partition, PartitionRoots};
pub use shape::{check_partitions, ChallengeProof, Shape};
