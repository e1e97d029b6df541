//! Filecoin circuits and their synthesis.
//! - [`witness`] — our `ConstraintSystem` that records the witness, A·z, B·z, C·z and the
//!   A/B densities a Groth16 prover needs, with no per-term allocation of its own.
//! - [`porep`]   — the PoRep (stacked DRG) circuit of each partition and its public inputs,
//!   built with storage-proofs-porep from a c1.json, for all five sector sizes.
pub mod density;
pub mod porep;
pub mod r1cs;
pub mod witness;

pub use density::Density;
pub use porep::{blank_porep, circuits_from_c1, statement, CircuitsDyn, SealPublic, SectorIdentity, Statement};
pub use witness::Assignment;
