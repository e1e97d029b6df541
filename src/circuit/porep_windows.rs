//! The PoRep partition circuit as a prefix and challenges ([`ChallengeCircuit`]), so that its
//! witness and its R1CS are recorded on many cores ([`super::window`]).
//!
//! storage-proofs-porep's `StackedCircuit` allocates replica id, comm_d, comm_r (inputs),
//! comm_r_last, comm_c and checks comm_r = H(comm_c ‖ comm_r_last); then each challenge's
//! sub-circuit uses only those and its own variables. Its fields are private, but
//! `StackedCircuit::synthesize` takes the same values and any list of challenge proofs, so the
//! circuit of "prefix + challenges i..j" is the crate's own code run on a slice of the proofs
//! (the blank circuit: the public parameters with j − i challenges).
use std::ops::Range;
use std::sync::Mutex;

use anyhow::{anyhow, bail, ensure, Result};
use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use filecoin_proofs::{
    parameters::public_params, SectorShape2KiB, SectorShape32GiB, SectorShape512MiB, SectorShape64GiB, SectorShape8MiB,
};
use storage_proofs_core::{compound_proof::CompoundProof, merkle::MerkleTreeTrait};
use storage_proofs_porep::stacked::{Challenges, PublicParams, StackedCircuit, StackedCompound, StackedDrg};

use super::porep::{expected_constraints, params_stem_of, PorepCircuits, G};
use super::r1cs::{R1cs, R1csCs, Sample};
use super::window::{synthesize_windows, ChallengeCircuit, Span};
use super::witness::{Assignment, WitnessCs};
use crate::input::PorepKind;

/// Partition `k` of a c1's circuits.
struct Partition<'a, Tree: 'static + MerkleTreeTrait> {
    circuits: &'a PorepCircuits<Tree>,
    k: usize,
}

impl<Tree: 'static + MerkleTreeTrait> ChallengeCircuit for Partition<'_, Tree>
where
    PorepCircuits<Tree>: Sync,
{
    fn num_challenges(&self) -> usize {
        self.circuits.vanilla[self.k].len()
    }

    /// `StackedCompound::circuit` on the proofs in `range`, synthesized.
    fn synthesize_range<CS: ConstraintSystem<Scalar>>(
        &self,
        cs: &mut CS,
        range: Range<usize>,
    ) -> Result<(), SynthesisError> {
        let (pub_in, vanilla) = (&self.circuits.statement.pub_in, &self.circuits.vanilla[self.k]);
        StackedCircuit::<Tree, G>::synthesize(
            cs,
            Some(pub_in.replica_id),
            pub_in.tau.as_ref().map(|t| t.comm_d),
            pub_in.tau.as_ref().map(|t| t.comm_r),
            Some(vanilla[0].comm_r_last()),
            Some(vanilla[0].comm_c()),
            vanilla[range].iter().cloned().map(Into::into).collect(),
        )
    }
}

/// Partition `k`'s circuit cut to some of its challenges, in the order given: the circuit a
/// window of the partition would be on its own (its public inputs are those challenges').
struct Selected<'a, Tree: 'static + MerkleTreeTrait> {
    partition: Partition<'a, Tree>,
    challenges: &'a [usize],
}

impl<Tree: 'static + MerkleTreeTrait> ChallengeCircuit for Selected<'_, Tree>
where
    PorepCircuits<Tree>: Sync,
{
    fn num_challenges(&self) -> usize {
        self.challenges.len()
    }

    fn synthesize_range<CS: ConstraintSystem<Scalar>>(
        &self,
        cs: &mut CS,
        range: Range<usize>,
    ) -> Result<(), SynthesisError> {
        let (circuits, k) = (self.partition.circuits, self.partition.k);
        let pub_in = &circuits.statement.pub_in;
        let vanilla = &circuits.vanilla[k];
        StackedCircuit::<Tree, G>::synthesize(
            cs,
            Some(pub_in.replica_id),
            pub_in.tau.as_ref().map(|t| t.comm_d),
            pub_in.tau.as_ref().map(|t| t.comm_r),
            Some(vanilla[0].comm_r_last()),
            Some(vanilla[0].comm_c()),
            self.challenges[range].iter().map(|&i| vanilla[i].clone().into()).collect(),
        )
    }
}

/// The blank (shape only) circuit of one partition, with `challenges` challenges (a real
/// partition's count, or fewer or more to sample the shape).
struct Blank<Tree: 'static + MerkleTreeTrait> {
    pp: PublicParams<Tree>,
    challenges: usize,
}

impl<Tree: 'static + MerkleTreeTrait> ChallengeCircuit for Blank<Tree>
where
    PublicParams<Tree>: Sync,
{
    fn num_challenges(&self) -> usize {
        self.challenges
    }

    /// `StackedCompound::blank_circuit` with `range.len()` challenges (all blank challenges
    /// are alike), synthesized.
    fn synthesize_range<CS: ConstraintSystem<Scalar>>(
        &self,
        cs: &mut CS,
        range: Range<usize>,
    ) -> Result<(), SynthesisError> {
        let mut pp = self.pp.clone();
        pp.challenges = Challenges::new_interactive(range.len());
        <StackedCompound<Tree, G> as CompoundProof<StackedDrg<'_, Tree, G>, _>>::blank_circuit(&pp).synthesize(cs)
    }
}

/// The span of one challenge's witness, per sector size, learned from the first partition
/// synthesized in this process.
static WITNESS_SPANS: Mutex<Vec<(PorepKind, Span)>> = Mutex::new(Vec::new());

fn learned_span(kind: PorepKind) -> Option<Span> {
    WITNESS_SPANS.lock().unwrap().iter().find(|(k, _)| *k == kind).map(|(_, s)| *s)
}

/// One challenge's witness span as measured (2KiB and 8MiB checked by the tests, 512MiB and
/// 32GiB by `time_windows` against the sequential synthesis): with it the first partition a
/// process synthesizes runs all its challenges at once too. 64GiB is learned.
pub(super) fn measured_span(kind: PorepKind) -> Option<Span> {
    let (aux, constraints) = match kind {
        PorepKind::S2KiB => (1_342_551, 1_343_675),
        PorepKind::S8MiB => (1_920_939, 1_922_179),
        PorepKind::S512MiB => (2_210_133, 2_211_431),
        PorepKind::S32GiB => (7_231_629, 7_237_665),
        PorepKind::S64GiB => return None,
    };
    Some(Span { inputs: 18, aux, constraints, nnz: [0; 3] })
}

impl<Tree: 'static + MerkleTreeTrait> PorepCircuits<Tree>
where
    PorepCircuits<Tree>: Sync,
{
    /// Checks what `StackedCompound::circuit` checks before building a partition's circuit.
    fn check_partition(&self, k: usize) -> Result<()> {
        let vanilla = &self.vanilla[k];
        ensure!(!vanilla.is_empty(), "Cannot create a circuit with no vanilla proofs");
        let (comm_r_last, comm_c) = (vanilla[0].comm_r_last(), vanilla[0].comm_c());
        ensure!(vanilla.iter().all(|p| p.comm_r_last() == comm_r_last), "inconsistent comm_r_lasts");
        ensure!(vanilla.iter().all(|p| p.comm_c() == comm_c), "inconsistent comm_cs");
        Ok(())
    }

    /// Synthesizes partition `k`'s prefix and the challenges in `range` into `cs`: the
    /// circuit of a partition with just those challenges.
    pub(super) fn synthesize_range_into<CS: ConstraintSystem<Scalar>>(
        &self,
        k: usize,
        range: Range<usize>,
        cs: &mut CS,
    ) -> Result<()> {
        self.check_partition(k)?;
        ensure!(range.end <= self.vanilla[k].len(), "partition {k} has {} challenges", self.vanilla[k].len());
        Partition { circuits: self, k }
            .synthesize_range(cs, range.clone())
            .map_err(|e| anyhow!("synthesis of partition {k} challenges {range:?} failed: {e}"))
    }

    /// Partition `k`'s witness, its challenges synthesized in parallel: the same
    /// [`Assignment`] as the sequential synthesis.
    /// The span comes from this process's earlier partitions, else from the measured table
    /// (learned again from challenge 0 should the table not fit), else from challenge 0.
    pub(super) fn synthesize_partition_parallel(&self, k: usize) -> Result<Assignment> {
        let kind = self.statement.kind;
        if let Some(per) = learned_span(kind) {
            return Ok(self.synthesize_in_windows(k, Some(per))?.0);
        }
        let (assignment, per) = match measured_span(kind).map(|per| self.synthesize_in_windows(k, Some(per))) {
            Some(Ok(done)) => done,
            _ => self.synthesize_in_windows(k, None)?,
        };
        WITNESS_SPANS.lock().unwrap().push((kind, per));
        Ok(assignment)
    }

    /// Partition `k`'s witness given the span of one challenge, or learning it from the
    /// first; returns it with that span.
    pub(super) fn synthesize_in_windows(&self, k: usize, per: Option<Span>) -> Result<(Assignment, Span)> {
        self.check_partition(k)?;
        let mut cs = WitnessCs::with_capacity(expected_constraints(self.statement.kind));
        let per = synthesize_windows(&Partition { circuits: self, k }, &mut cs, per)
            .map_err(|e| anyhow!("synthesis of partition {k} failed: {e:#}"))?;
        Ok((cs.finish(), per))
    }
}

impl<Tree: 'static + MerkleTreeTrait> PorepCircuits<Tree>
where
    PorepCircuits<Tree>: Sync,
{
    /// The witness of partition `k` cut to the given challenges (prefix, then those
    /// challenges in the order given), synthesized in windows.
    pub(super) fn synthesize_selected_challenges(&self, k: usize, challenges: &[usize]) -> Result<Assignment> {
        self.check_partition(k)?;
        let n = self.vanilla[k].len();
        if let Some(&bad) = challenges.iter().find(|&&i| i >= n) {
            bail!("partition {k} has {n} challenges; there is no challenge {bad}");
        }
        ensure!(!challenges.is_empty(), "no challenges selected");
        let mut cs = WitnessCs::with_capacity(0);
        let sel = Selected { partition: Partition { circuits: self, k }, challenges };
        synthesize_windows(&sel, &mut cs, measured_span(self.statement.kind))
            .map_err(|e| anyhow!("synthesis of partition {k}'s challenges {challenges:?} failed: {e:#}"))?;
        Ok(cs.finish())
    }
}

/// A recorder sized for one partition of `kind` (non-zeros per constraint measured on 32GiB:
/// A 2.37, B 1.0, C 2.17).
fn r1cs_recorder(kind: PorepKind) -> R1csCs {
    let m = expected_constraints(kind);
    R1csCs::with_capacity(m, [m * 5 / 2, m + m / 16, m * 9 / 4])
}

fn record_with<Tree: 'static + MerkleTreeTrait>(kind: PorepKind, parallel: bool) -> Result<(R1cs, String)>
where
    PublicParams<Tree>: Sync,
{
    let mut cs = r1cs_recorder(kind);
    let stem = if parallel {
        let pp = public_params::<Tree>(&kind.registered_v1_1().as_v1_config())?;
        let stem = params_stem_of(&pp);
        let challenges = pp.challenges.num_challenges_per_partition();
        synthesize_windows(&Blank { pp, challenges }, &mut cs, None)
            .map_err(|e| anyhow!("blank synthesis of the {} PoRep circuit failed: {e:#}", kind.name()))?;
        stem
    } else {
        super::porep::blank_porep(kind, &mut cs)?
    };
    Ok((cs.finish()?, stem))
}

/// Records the R1CS of one PoRep partition from a blank synthesis, its challenges in
/// parallel (`parallel`) or in one sequential synthesis; the same R1CS either way. Returns it
/// and the official parameter file stem.
pub fn record_porep(kind: PorepKind, parallel: bool) -> Result<(R1cs, String)> {
    match kind {
        PorepKind::S2KiB => record_with::<SectorShape2KiB>(kind, parallel),
        PorepKind::S8MiB => record_with::<SectorShape8MiB>(kind, parallel),
        PorepKind::S512MiB => record_with::<SectorShape512MiB>(kind, parallel),
        PorepKind::S32GiB => record_with::<SectorShape32GiB>(kind, parallel),
        PorepKind::S64GiB => record_with::<SectorShape64GiB>(kind, parallel),
    }
}

fn sample_with<Tree: 'static + MerkleTreeTrait>(kind: PorepKind, challenges: usize) -> Result<Sample>
where
    PublicParams<Tree>: Sync,
{
    let pp = public_params::<Tree>(&kind.registered_v1_1().as_v1_config())?;
    let (stem, partition_challenges) = (params_stem_of(&pp), pp.challenges.num_challenges_per_partition());
    let mut cs = r1cs_recorder(kind);
    let per = synthesize_windows(&Blank { pp, challenges }, &mut cs, None)
        .map_err(|e| anyhow!("blank synthesis of the {} PoRep circuit failed: {e:#}", kind.name()))?;
    Sample::new(cs, challenges, per, partition_challenges, stem)
}

/// Records the R1CS of a blank PoRep partition of `kind` with `challenges` challenges (in
/// parallel windows), and where its prefix and challenges lie.
pub fn record_porep_sample(kind: PorepKind, challenges: usize) -> Result<Sample> {
    match kind {
        PorepKind::S2KiB => sample_with::<SectorShape2KiB>(kind, challenges),
        PorepKind::S8MiB => sample_with::<SectorShape8MiB>(kind, challenges),
        PorepKind::S512MiB => sample_with::<SectorShape512MiB>(kind, challenges),
        PorepKind::S32GiB => sample_with::<SectorShape32GiB>(kind, challenges),
        PorepKind::S64GiB => sample_with::<SectorShape64GiB>(kind, challenges),
    }
}

fn stem_with<Tree: 'static + MerkleTreeTrait>(kind: PorepKind) -> Result<String> {
    Ok(params_stem_of(&public_params::<Tree>(&kind.registered_v1_1().as_v1_config())?))
}

/// The official parameter file stem of a PoRep shape (every variant of a size shares it).
pub fn porep_params_stem(kind: PorepKind) -> Result<String> {
    match kind {
        PorepKind::S2KiB => stem_with::<SectorShape2KiB>(kind),
        PorepKind::S8MiB => stem_with::<SectorShape8MiB>(kind),
        PorepKind::S512MiB => stem_with::<SectorShape512MiB>(kind),
        PorepKind::S32GiB => stem_with::<SectorShape32GiB>(kind),
        PorepKind::S64GiB => stem_with::<SectorShape64GiB>(kind),
    }
}
