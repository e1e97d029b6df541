//! The FallbackPoSt partition synthesized sector by sector on many cores ([`super::window`]).
//!
//! storage-proofs-post's circuit is a list of sectors, each allocating its own comm_r (a public
//! input), comm_c and comm_r_last and checking its inclusion paths; no sector reads another's
//! variables and there is no prefix beyond ONE. Every sector allocates the same numbers, so the
//! sectors are the "challenges" of [`ChallengeCircuit`], and a window is the crate's own
//! `Sector` synthesis (the same code `FallbackPoStCircuit::synthesize` runs for each sector,
//! in order). What one sector records is known before the windows (measured, or counted on a
//! blank sector beside the vanilla checks: [`super::post_span`]), so every sector's window
//! starts at once: a 2KiB WindowPoSt partition has two sectors, and learning the span from the
//! first would leave one core idle.
//!
//! [`record_post`] and [`record_post_sample`] record a blank partition's R1CS, whole or cut to its
//! first circuit sectors, which the compiled constraints are made from.
use std::ops::Range;

use anyhow::{anyhow, Result};
use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use filecoin_proofs_api::RegisteredPoStProof;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_post::fallback::{FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, Sector};

use super::post::{params_stem_of, public_params, PostCircuits};
use super::r1cs::{R1cs, R1csCs, Sample};
use super::window::{synthesize_windows, ChallengeCircuit};
use super::witness::{Assignment, WitnessCs};
use crate::input::proof_type::with_shape;
use crate::input::PorepKind;

/// One partition's circuit sectors (or the first few: a sample), as challenges.
struct Sectors<'a, Tree: 'static + MerkleTreeTrait>(&'a [Sector<Tree>]);

impl<Tree: 'static + MerkleTreeTrait> ChallengeCircuit for Sectors<'_, Tree>
where
    FallbackPoStCircuit<Tree>: Sync,
{
    fn num_challenges(&self) -> usize {
        self.0.len()
    }

    fn synthesize_range<CS: ConstraintSystem<Scalar>>(
        &self,
        cs: &mut CS,
        range: Range<usize>,
    ) -> Result<(), SynthesisError> {
        for sector in &self.0[range] {
            sector.synthesize(cs)?;
        }
        Ok(())
    }
}

impl<Tree: 'static + MerkleTreeTrait> PostCircuits<Tree>
where
    PostCircuits<Tree>: Sync,
{
    /// Partition `k`'s witness: its sectors in parallel windows (`parallel`) or the crate's
    /// circuit synthesized in one go (the reference); the same [`Assignment`] either way.
    pub(super) fn synthesize_partition(&self, k: usize, parallel: bool) -> Result<Assignment> {
        let circuit = self.circuit(k)?;
        let mut cs = WitnessCs::with_capacity(0);
        if parallel {
            synthesize_windows(&Sectors(&circuit.sectors), &mut cs, Some(self.span))
                .map_err(|e| anyhow!("synthesis of partition {k} failed: {e:#}"))?;
        } else {
            circuit.synthesize(&mut cs).map_err(|e| anyhow!("synthesis of partition {k} failed: {e}"))?;
        }
        Ok(cs.finish())
    }
}

fn record_with<Tree: 'static + MerkleTreeTrait>(
    registered: RegisteredPoStProof,
    parallel: bool,
) -> Result<(R1cs, String)>
where
    FallbackPoStCircuit<Tree>: Sync,
{
    let pp = public_params::<Tree>(&registered.as_v1_config())?;
    let blank = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::blank_circuit(&pp);
    let mut cs = <R1csCs as ConstraintSystem<Scalar>>::new();
    let failed = |e: &dyn std::fmt::Display| anyhow!("blank synthesis of the {registered:?} circuit failed: {e}");
    if parallel {
        synthesize_windows(&Sectors(&blank.sectors), &mut cs, None).map_err(|e| failed(&e))?;
    } else {
        blank.synthesize(&mut cs).map_err(|e| failed(&e))?;
    }
    Ok((cs.finish()?, params_stem_of::<Tree>(&pp)))
}

fn size_of(registered: RegisteredPoStProof) -> PorepKind {
    PorepKind::from_sector_size(u64::from(registered.sector_size())).expect("a known sector size")
}

/// Records the R1CS of one PoSt partition from a blank synthesis; returns it and the stem.
pub fn record_post(registered: RegisteredPoStProof, parallel: bool) -> Result<(R1cs, String)> {
    with_shape!(size_of(registered), record_with, registered, parallel)
}

fn sample_with<Tree: 'static + MerkleTreeTrait>(registered: RegisteredPoStProof, sectors: usize) -> Result<Sample>
where
    FallbackPoStCircuit<Tree>: Sync,
{
    let pp = public_params::<Tree>(&registered.as_v1_config())?;
    let blank: Vec<Sector<Tree>> = (0..sectors).map(|_| Sector::blank_circuit(&pp)).collect();
    let mut cs = <R1csCs as ConstraintSystem<Scalar>>::new();
    let per = synthesize_windows(&Sectors(&blank), &mut cs, None)
        .map_err(|e| anyhow!("blank synthesis of the {registered:?} circuit failed: {e:#}"))?;
    Sample::new(cs, sectors, per, pp.sector_count, params_stem_of::<Tree>(&pp))
}

/// Records the R1CS of a blank PoSt partition cut to its first `sectors` circuit sectors, and
/// where they lie (the prefix is ONE alone): what the constraints' `compile_post` compiles.
pub fn record_post_sample(registered: RegisteredPoStProof, sectors: usize) -> Result<Sample> {
    with_shape!(size_of(registered), sample_with, registered, sectors)
}

/// The official parameter file stem of a registered PoSt's circuit (no synthesis).
pub fn post_stem(registered: RegisteredPoStProof) -> Result<String> {
    fn stem<Tree: 'static + MerkleTreeTrait>(registered: RegisteredPoStProof) -> Result<String> {
        Ok(params_stem_of::<Tree>(&public_params::<Tree>(&registered.as_v1_config())?))
    }
    with_shape!(size_of(registered), stem, registered)
}
