//! Filecoin circuits and their synthesis.
//! - [`ProofCircuits`] — what the pipeline proves: one proof's partition circuits, whatever
//!   the proof (PoRep, WindowPoSt, WinningPoSt, SnapDeals), with their public inputs and the
//!   name of their parameter file.
//! - [`witness`] — our `ConstraintSystem` that records the witness, A·z, B·z, C·z and the
//!   A/B densities a Groth16 prover needs, with no per-term allocation of its own.
//! - [`porep`]   — the PoRep (stacked DRG) circuit of each partition and its public inputs,
//!   built with storage-proofs-porep from a c1.json, for all five sector sizes.
//! - [`post`]    — the FallbackPoSt circuit (WindowPoSt and WinningPoSt) from storage-proofs-post,
//!   its sectors synthesized in parallel ([`post_windows`]).
//! - [`snap`]    — the EmptySectorUpdate (SnapDeals) circuit from storage-proofs-update, its
//!   challenges synthesized in parallel ([`snap_windows`]); [`snap_sample`] records its blank
//!   R1CS for the compiled constraints.
//! - [`kind`]    — which circuit a parameter file is for: proof kind and sector size.
//! - [`native_check`] — the native witness against synthesis: the first difference and the
//!   gadget that allocates it.
//! - [`r1cs`]    — the R1CS recorded from a blank synthesis (for `params setup`).
//! - [`window`]  — recording one circuit's challenges on many cores into one recording,
//!   identical to the sequential one; [`witness_window`] and [`r1cs_window`] are its two
//!   recorders, [`porep_windows`] the PoRep partition cut into prefix and challenges.
//!
//! The tests check the circuits' own synthesis (windows against sequential, the transcribed
//! R1CS against the crate's, the native witness against the gadgets). `window_tests`,
//! `post_tests` and `snap_tests` are `pub(crate)` under `cfg(test)`: the compiled constraints'
//! tests take their synthetic inputs, the native witness held to the synthesis and the
//! comparison of assignments from them (constraints import circuit, never the reverse).
pub mod density;
pub mod kind;
pub mod native_check;
#[cfg(test)]
mod native_tests;
pub mod porep;
pub mod porep_windows;
pub mod post;
pub mod post_span;
#[cfg(test)]
pub(crate) mod post_tests;
pub mod post_windows;
pub mod r1cs;
pub mod r1cs_window;
pub mod snap;
pub mod snap_sample;
#[cfg(test)]
pub(crate) mod snap_tests;
pub mod snap_windows;
pub mod window;
#[cfg(test)]
pub(crate) mod window_tests;
pub mod witness;
pub mod witness_window;

use anyhow::Result;
use blstrs::Scalar;

use crate::witness::PackedWitness;

pub use density::Density;
pub use kind::{CircuitKind, ProofKind};
pub use porep::{blank_porep, circuits_from_c1, statement, CircuitsDyn, SealPublic, Statement};
pub use witness::Assignment;

/// What the verifier of one proof knows: its partitions' public inputs and the parameter
/// file their proofs are checked with. A proof is its partitions' 192-byte Groth16 proofs in
/// partition order.
pub trait ProofStatement: Send + Sync {
    /// Partitions of this proof.
    fn num_partitions(&self) -> usize;
    /// Public inputs of partition `k`, with the leading ONE.
    fn public_inputs(&self, k: usize) -> Result<Vec<Scalar>>;
    /// Official parameter file stem, e.g. `v28-proof-of-spacetime-fallback-…`.
    fn params_stem(&self) -> String;
}

/// One proof's circuits, one per partition, whatever the proof (PoRep, WindowPoSt,
/// WinningPoSt, SnapDeals): what the pipeline synthesizes, proves and checks.
pub trait ProofCircuits: ProofStatement {
    /// Partition `k`'s witness, synthesized by the crates' gadgets.
    fn synthesize(&self, k: usize) -> Result<Assignment>;
    /// Partition `k`'s public inputs and aux computed natively, equal to [`Self::synthesize`]'s;
    /// `None` where the native witness does not know the circuit (then synthesize).
    fn native_witness(&self, _k: usize) -> Option<Result<PackedWitness>> {
        None
    }
}

/// The PoRep circuits of a c1.json as [`ProofCircuits`].
pub struct PorepProof(pub Box<dyn CircuitsDyn>);

impl ProofStatement for PorepProof {
    fn num_partitions(&self) -> usize {
        self.0.num_partitions()
    }
    fn public_inputs(&self, k: usize) -> Result<Vec<Scalar>> {
        self.0.public_inputs(k)
    }
    fn params_stem(&self) -> String {
        self.0.params_stem()
    }
}

impl ProofCircuits for PorepProof {
    fn synthesize(&self, k: usize) -> Result<Assignment> {
        self.0.synthesize(k)
    }
    fn native_witness(&self, k: usize) -> Option<Result<PackedWitness>> {
        self.0.native_witness(k)
    }
}
