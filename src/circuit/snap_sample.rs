//! The R1CS of a blank SnapDeals partition for the compiled constraints: whole (what the
//! constraints' `compile_snap` compiles, every challenge checked against the template) or cut
//! to its prefix and first challenges (what the constraints' tests compile to check the first
//! challenges of a large partition), both recorded with the windows of [`super::snap_windows`].
use anyhow::{anyhow, Result};
use bellperson::ConstraintSystem;
use blstrs::Scalar as Fr;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_update::constants::TreeRHasher;
use storage_proofs_update::EmptySectorUpdateCircuit;

use super::r1cs::{R1csCs, Sample};
use super::snap::{public_params, stem_of};
use super::snap_windows::{challenge_span, synthesize_first, synthesize_windows};
use crate::input::proof_type::with_shape;
use crate::input::PorepKind;

fn sample_with<Tree>(size: PorepKind, challenges: usize) -> Result<Sample>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
{
    let pp = public_params(size);
    let (stem, partition_challenges) = (stem_of::<Tree>(&pp), pp.challenge_count);
    let blank = EmptySectorUpdateCircuit::<Tree>::blank(pp);
    let mut cs = <R1csCs as ConstraintSystem<Fr>>::new();
    let per = synthesize_first(&blank, &mut cs, challenges, rayon::current_num_threads())
        .map_err(|e| anyhow!("blank synthesis of the {} update circuit failed: {e:#}", size.name()))?;
    Sample::new(cs, challenges, per, partition_challenges, stem)
}

/// Records the R1CS of a blank SnapDeals partition of `size` cut to its prefix and first
/// `challenges` challenges, and where they lie. Its challenges repeat one another only with
/// the prefix's moving range (each reads its own bits in the prefix: see the constraints'
/// `compile_snap`), whose offsets this cut gives for its own challenges.
pub fn record_snap_sample(size: PorepKind, challenges: usize) -> Result<Sample> {
    with_shape!(size, sample_with, size, challenges)
}

fn partition_with<Tree>(size: PorepKind) -> Result<Sample>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
{
    let pp = public_params(size);
    let (stem, challenges) = (stem_of::<Tree>(&pp), pp.challenge_count);
    let per = challenge_span::<Tree>(&pp)?;
    let blank = EmptySectorUpdateCircuit::<Tree>::blank(pp);
    let mut cs = <R1csCs as ConstraintSystem<Fr>>::new();
    synthesize_windows(&blank, &mut cs, rayon::current_num_threads(), || Ok(None))
        .map_err(|e| anyhow!("blank synthesis of the {} update circuit failed: {e:#}", size.name()))?;
    Sample::new(cs, challenges, per, challenges, stem)
}

/// Records the R1CS of a whole blank SnapDeals partition of `size`, its challenges in windows
/// side by side (the crate's R1CS: `snap_tests`), as a sample of all its challenges: where the
/// prefix and one challenge lie (inputs, aux and constraints; `per` is counted on a blank
/// challenge, without non-zeros) and the parameter file stem.
pub fn record_snap_partition(size: PorepKind) -> Result<Sample> {
    with_shape!(size, partition_with, size)
}
