//! Filecoin circuits and their synthesis.
//! - [`witness`] — our `ConstraintSystem` that records the witness, A·z, B·z, C·z and the
//!   A/B densities a Groth16 prover needs, with no per-term allocation of its own.
//! - [`porep`]   — the PoRep (stacked DRG) circuit of each partition and its public inputs,
//!   built with storage-proofs-porep from a c1.json, for all five sector sizes.
//! - [`native_check`] — the native witness against synthesis: the first difference and the
//!   gadget that allocates it.
//! - [`r1cs`]    — the R1CS recorded from a blank synthesis (for `params setup`).
//! - [`window`]  — recording one circuit's challenges on many cores into one recording,
//!   identical to the sequential one; [`witness_window`] and [`r1cs_window`] are its two
//!   recorders, [`porep_windows`] the PoRep partition cut into prefix and challenges.
pub mod density;
pub mod native_check;
#[cfg(test)]
mod native_tests;
pub mod porep;
pub mod porep_windows;
pub mod r1cs;
pub mod r1cs_window;
pub mod window;
#[cfg(test)]
mod window_tests;
pub mod witness;
pub mod witness_window;

pub use density::Density;
pub use porep::{blank_porep, circuits_from_c1, statement, CircuitsDyn, SealPublic, Statement};
pub use witness::Assignment;
