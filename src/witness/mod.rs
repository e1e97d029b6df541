//! The native witness: a circuit's public inputs and aux variables computed straight from the
//! vanilla proofs (SHA-256 and Poseidon word by word), in exactly the order and polarity the
//! gadgets allocate them, without running the gadgets. Booleans stay bits; the few field
//! elements (Poseidon states, packed values) stay `Scalar`s.
//!
//! [`PackedWitness`] is what the native witness produces and what the compiled constraints
//! evaluate (A·z, B·z, C·z) and the MSMs read (0/1 straight from the bits).
pub mod packed;

pub use packed::{PackedAux, PackedWitness};
