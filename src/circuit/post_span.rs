//! What one FallbackPoSt sector records (inputs, aux variables, constraints): every sector of
//! every partition of one set of public parameters allocates the same, so the span is known
//! before the sectors' windows ([`super::post_windows`]) start. Every registered PoSt's span is
//! measured ([`MEASURED`]); others are counted on a blank sector with a constraint system that
//! computes no value and no linear combination, beside the vanilla checks.
use anyhow::{anyhow, Result};
use bellperson::Circuit;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_post::fallback::{self, Sector};

use super::window::{Counter, Span};

/// What one circuit sector records: the measured span of these public parameters where
/// [`MEASURED`] has it (every registered PoSt), else counted ([`count_sector_span`]).
pub fn sector_span<Tree: 'static + MerkleTreeTrait>(pp: &fallback::PublicParams) -> Result<Span> {
    match measured_sector_span(pp.sector_size, pp.challenge_count) {
        Some(span) => Ok(span),
        None => count_sector_span::<Tree>(pp),
    }
}

/// One circuit sector's (inputs, aux variables, constraints) per (sector size in bytes,
/// challenges per circuit sector), as [`count_sector_span`] counts them, for every registered
/// PoSt: WindowPoSt sectors have 10 challenges, WinningPoSt's 66 circuit sectors one each (the
/// public parameters fix the span: the tree shape and the challenge count). Counting took ~20
/// ms on one core at the start of every 2KiB PoSt (the blank sector's Poseidon gadgets), with
/// the other core idle beside the short vanilla checks. The windows check the span (a window
/// that records other numbers fails), and `measured_sector_spans_match_the_count` counts every
/// entry again.
const MEASURED: [(u64, usize, Span); 10] = [
    (2 << 10, 1, span(2, 1389, 1375)),       // WinningPoSt
    (8 << 20, 1, span(2, 3537, 3495)),       // WinningPoSt
    (512 << 20, 1, span(2, 4611, 4555)),     // WinningPoSt
    (32 << 30, 1, span(2, 5685, 5615)),      // WinningPoSt
    (64 << 30, 1, span(2, 6000, 5929)),      // WinningPoSt
    (2 << 10, 10, span(11, 11064, 10933)),   // WindowPoSt
    (8 << 20, 10, span(11, 32544, 32133)),   // WindowPoSt
    (512 << 20, 10, span(11, 43284, 42733)), // WindowPoSt
    (32 << 30, 10, span(11, 54024, 53333)),  // WindowPoSt
    (64 << 30, 10, span(11, 57174, 56473)),  // WindowPoSt
];

/// A span that records no non-zeros (a witness recording).
const fn span(inputs: usize, aux: usize, constraints: usize) -> Span {
    Span { inputs, aux, constraints, nnz: [0; 3] }
}

/// The measured span of a sector of `sector_size` bytes with `challenges` challenges, if any.
pub fn measured_sector_span(sector_size: u64, challenges: usize) -> Option<Span> {
    MEASURED.iter().find(|m| m.0 == sector_size && m.1 == challenges).map(|m| m.2)
}

/// What one circuit sector records, counted on a blank sector: every sector of every partition
/// of these public parameters allocates the same (the parameters fix the R1CS), and there is no
/// prefix.
pub fn count_sector_span<Tree: 'static + MerkleTreeTrait>(pp: &fallback::PublicParams) -> Result<Span> {
    let mut counter = Counter(Span::default());
    (&Sector::<Tree>::blank_circuit(pp))
        .synthesize(&mut counter)
        .map_err(|e| anyhow!("counting a blank circuit sector: {e}"))?;
    Ok(counter.0)
}
