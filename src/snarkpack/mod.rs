//! SnarkPack: n Groth16 proofs of one circuit in one proof of O(log n) size, as bellperson's
//! `groth16::aggregate` makes it and the Filecoin chain checks it (ProveCommitAggregate,
//! NI-PoRep). docs/aggregation.md describes the protocol, its transcript and its encoding.
//!
//! The prover commits to the proofs' A, B and C with pairing-based commitment keys from the
//! SnarkPack SRS ([`srs`]), draws a random linear combination r from a transcript
//! ([`transcript`]), and proves two inner products of the committed vectors — TIPP,
//! Π e(A_i, B_i^{r^i}), and MIPP, Σ r^i·C_i — with one shared GIPA recursion ([`prove`]) that
//! halves the vectors log n times. Two KZG openings ([`poly`]) show the final commitment keys
//! are the folded SRS keys. Everything is deterministic: the same proofs, SRS and transcript
//! input give the same bytes ([`proof`]). [`verify`] replays the transcript and checks the
//! pairing equations; [`seal`] holds Filecoin's conventions around it (padding, transcript
//! input, limits).
pub mod commit;
pub mod ipp;
pub mod poly;
pub mod proof;
pub mod prove;
pub mod seal;
pub mod setup;
pub mod srs;
pub mod transcript;
pub mod verify;

pub use ipp::Pairings;
pub use proof::AggregateProof;
pub use prove::{aggregate, aggregate_on};
pub use srs::{ProverKey, SrsFile, VerifierKey};
pub use verify::verify;

/// SnarkPack protocol versions. V2 (the one NI-PoRep uses) feeds the first round's commitments
/// into the first GIPA challenge and the final A, B, C into the KZG point; V1 does neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    V1,
    V2,
}

impl Version {
    /// The name filecoin-proofs-api gives it (`RegisteredAggregationProof`).
    pub fn name(self) -> &'static str {
        match self {
            Version::V1 => "SnarkPackV1",
            Version::V2 => "SnarkPackV2",
        }
    }
}

#[cfg(test)]
mod tests;
