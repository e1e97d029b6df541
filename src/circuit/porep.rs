//! The PoRep (stacked DRG) circuit, one per partition, and its public inputs, built with
//! storage-proofs-porep exactly as filecoin-proofs' `seal_commit_phase2` builds them.
//!
//! [`PorepStatement`] is what a verifier knows (commitments, seed, replica id); a
//! [`PorepCircuits`] adds the vanilla proofs of a c1.json and can synthesize each partition.
//! Both are type-erased over the five tree shapes behind [`Statement`] and [`CircuitsDyn`].
use std::ops::Range;

use anyhow::{anyhow, bail, Context, Result};
use bellperson::Circuit;
use blstrs::Scalar;
use ff::Field;
use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::{
    parameters::public_params, DefaultPieceDomain, DefaultPieceHasher, PoRepConfig, SectorShape2KiB, SectorShape32GiB,
    SectorShape512MiB, SectorShape64GiB, SectorShape8MiB,
};
use filecoin_proofs_api::RegisteredSealProof;
use storage_proofs_core::{
    compound_proof::CompoundProof, merkle::MerkleTreeTrait, parameter_cache::CacheableParameters,
    parameter_cache::VERSION,
};
use storage_proofs_porep::stacked::{
    generate_replica_id, Proof as VanillaProof, PublicInputs, PublicParams, StackedCircuit, StackedCompound,
    StackedDrg, Tau,
};

use super::native_check::Locate;
use super::witness::{Assignment, WitnessCs};
use crate::input::{prover_id, C1Input, PorepKind, SectorIdentity};
use crate::witness::{
    check_partitions, porep_partition, vanilla, ChallengeProof, PackedWitness, PartitionRoots, Shape,
};

/// What the verifier of a PoRep proof knows, for any tree shape.
pub trait Statement: Send + Sync {
    fn kind(&self) -> PorepKind;
    fn registered_proof(&self) -> RegisteredSealProof;
    fn num_partitions(&self) -> usize;
    /// Public inputs of partition `k`, with the leading ONE.
    fn public_inputs(&self, k: usize) -> Result<Vec<Scalar>>;
    /// Official parameter file stem, e.g. `v28-stacked-proof-of-replication-…-8-0-0-sha256_hasher-<hash>`.
    fn params_stem(&self) -> String;
}

pub(super) type G = DefaultPieceHasher;
type TreeDomain<Tree> = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;

pub struct PorepStatement<Tree: 'static + MerkleTreeTrait> {
    pub(super) kind: PorepKind,
    registered: RegisteredSealProof,
    pp: PublicParams<Tree>,
    pub(super) pub_in: PublicInputs<TreeDomain<Tree>, DefaultPieceDomain>,
}

pub struct PorepCircuits<Tree: 'static + MerkleTreeTrait> {
    pub(super) statement: PorepStatement<Tree>,
    pub(super) vanilla: Vec<Vec<VanillaProof<Tree, G>>>,
    /// The partition circuit's shape, which `vanilla` was checked against at load.
    pub(super) shape: Shape,
    /// What the circuit reads of `vanilla`, per partition and challenge (the native witness's
    /// input).
    pub(super) native: Vec<Vec<ChallengeProof>>,
}

/// The public part of a seal: what `verify_seal` takes besides the proof.
#[derive(Clone, Debug)]
pub struct SealPublic {
    pub registered: RegisteredSealProof,
    pub comm_r: [u8; 32],
    pub comm_d: [u8; 32],
    pub ticket: [u8; 32],
    pub seed: [u8; 32],
}

impl<Tree: 'static + MerkleTreeTrait> PorepStatement<Tree> {
    fn config(registered: RegisteredSealProof) -> PoRepConfig {
        registered.as_v1_config()
    }

    /// The statement a verifier rebuilds: replica id derived from miner, sector, ticket, comm_d.
    pub fn new(kind: PorepKind, public: &SealPublic, sector: &SectorIdentity) -> Result<Self> {
        let config = Self::config(public.registered);
        let replica_id = generate_replica_id::<Tree::Hasher, _>(
            &prover_id(sector.miner_id),
            sector.sector_num,
            &public.ticket,
            public.comm_d,
            &config.porep_id,
        );
        Self::with_replica_id(kind, public, replica_id)
    }

    fn with_replica_id(kind: PorepKind, public: &SealPublic, replica_id: TreeDomain<Tree>) -> Result<Self> {
        if public.comm_d == [0; 32] || public.comm_r == [0; 32] {
            bail!("comm_d and comm_r must not be all zero");
        }
        let config = Self::config(public.registered);
        let pp = public_params::<Tree>(&config).context("building the PoRep public parameters")?;
        let comm_r = TreeDomain::<Tree>::try_from_bytes(&public.comm_r).context("comm_r is not a field element")?;
        let comm_d = DefaultPieceDomain::try_from_bytes(&public.comm_d).context("comm_d is not a field element")?;
        let pub_in = PublicInputs { replica_id, tau: Some(Tau { comm_d, comm_r }), k: None, seed: Some(public.seed) };
        Ok(Self { kind, registered: public.registered, pp, pub_in })
    }
}

impl<Tree: 'static + MerkleTreeTrait> Statement for PorepStatement<Tree> {
    fn kind(&self) -> PorepKind {
        self.kind
    }
    fn registered_proof(&self) -> RegisteredSealProof {
        self.registered
    }
    fn num_partitions(&self) -> usize {
        usize::from(self.registered.partitions())
    }
    fn public_inputs(&self, k: usize) -> Result<Vec<Scalar>> {
        let inputs = <StackedCompound<Tree, G> as CompoundProof<StackedDrg<'_, Tree, G>, _>>::generate_public_inputs(
            &self.pub_in,
            &self.pp,
            Some(k),
        )?;
        let mut out = Vec::with_capacity(inputs.len() + 1);
        out.push(Scalar::ONE);
        out.extend(inputs);
        Ok(out)
    }
    fn params_stem(&self) -> String {
        params_stem_of(&self.pp)
    }
}

/// Official parameter file stem of the circuit with public parameters `pp`.
pub(super) fn params_stem_of<Tree: 'static + MerkleTreeTrait>(pp: &PublicParams<Tree>) -> String {
    let id = <StackedCompound<Tree, G> as CacheableParameters<StackedCircuit<Tree, G>, _>>::cache_identifier(pp);
    format!("v{VERSION}-{id}")
}

impl<Tree: 'static + MerkleTreeTrait> Statement for PorepCircuits<Tree> {
    fn kind(&self) -> PorepKind {
        self.statement.kind
    }
    fn registered_proof(&self) -> RegisteredSealProof {
        self.statement.registered
    }
    fn num_partitions(&self) -> usize {
        self.statement.num_partitions()
    }
    fn public_inputs(&self, k: usize) -> Result<Vec<Scalar>> {
        self.statement.public_inputs(k)
    }
    fn params_stem(&self) -> String {
        self.statement.params_stem()
    }
}

impl<Tree: 'static + MerkleTreeTrait> PorepCircuits<Tree> {
    /// Partition `k`'s witness from one sequential synthesis of the crate's circuit: the
    /// reference the parallel synthesis is held to.
    fn synthesize_partition_sequential(&self, k: usize) -> Result<Assignment> {
        let s = &self.statement;
        let circuit = <StackedCompound<Tree, G> as CompoundProof<StackedDrg<'_, Tree, G>, _>>::circuit(
            &s.pub_in,
            Default::default(),
            &self.vanilla[k],
            &s.pp,
            Some(k),
        )?;
        let mut cs = WitnessCs::with_capacity(expected_constraints(s.kind));
        circuit.synthesize(&mut cs).map_err(|e| anyhow!("synthesis of partition {k} failed: {e}"))?;
        Ok(cs.finish())
    }
}

/// Constraints per partition (docs/facts.md), so the recording vectors are allocated once.
pub fn expected_constraints(kind: PorepKind) -> usize {
    match kind {
        PorepKind::S2KiB => 2_687_961,
        PorepKind::S8MiB => 3_844_969,
        PorepKind::S512MiB => 4_423_473,
        PorepKind::S32GiB | PorepKind::S64GiB => 130_278_869,
    }
}

impl SealPublic {
    /// The public part of a c1.json's seal.
    pub fn of(c1: &C1Input) -> Self {
        let o = &c1.output;
        Self { registered: o.registered_proof, comm_r: o.comm_r, comm_d: o.comm_d, ticket: o.ticket, seed: o.seed }
    }
}

fn load_circuits<Tree: 'static + MerkleTreeTrait>(c1: &C1Input, sector: &SectorIdentity) -> Result<Box<dyn CircuitsDyn>>
where
    PorepCircuits<Tree>: Sync,
{
    Ok(Box::new(porep_circuits::<Tree>(c1, sector)?))
}

/// The circuits of a c1.json whose tree shape is `Tree`.
pub(super) fn porep_circuits<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Input,
    sector: &SectorIdentity,
) -> Result<PorepCircuits<Tree>> {
    let public = SealPublic::of(c1);
    let derived = PorepStatement::<Tree>::new(c1.kind, &public, sector)?;
    let theirs: Scalar = c1.output.replica_id.into();
    let ours: Scalar = derived.pub_in.replica_id.into();
    if theirs != ours {
        bail!(
            "the replica id in the C1 output does not belong to miner t0{} sector {}: this c1 was made for \
             another miner or sector (check --miner-id and --sector-num)",
            sector.miner_id,
            sector.sector_num
        );
    }
    let vanilla: Vec<Vec<VanillaProof<Tree, G>>> =
        c1.output.vanilla_proofs.clone().try_into().context("vanilla proofs do not fit the proof type")?;
    let shape = vanilla::shape_of(&derived.pp, c1.kind.name());
    let native = vanilla::partition_proofs(&vanilla)?;
    check_partitions(&shape, &native)?;
    Ok(PorepCircuits { statement: derived, vanilla, shape, native })
}

/// A statement together with its witness: one synthesizable circuit per partition.
pub trait CircuitsDyn: Statement {
    /// Partition `k`'s witness, its challenges synthesized in parallel.
    fn synthesize(&self, k: usize) -> Result<Assignment>;
    /// The same from one sequential synthesis (the reference).
    fn synthesize_sequential(&self, k: usize) -> Result<Assignment>;
    /// Partition `k`'s public inputs and aux computed natively from the vanilla proofs, equal
    /// to [`Self::synthesize`]'s; `None` when the native witness does not know the shape (then
    /// synthesize).
    fn native_witness(&self, k: usize) -> Option<Result<PackedWitness>>;
    /// Whether [`Self::native_witness`] knows this shape.
    fn has_native_witness(&self) -> bool;
    /// Diagnostics: the gadget namespace path that allocates aux `index` in the circuit of
    /// partition `k`'s prefix and `challenges` (all of them if `None`); `None` if that circuit
    /// allocates fewer.
    fn aux_namespace(&self, k: usize, challenges: Option<Range<usize>>, index: usize) -> Result<Option<String>>;
    /// Partition `k` cut to the given challenges: its prefix, then those challenges in the
    /// order given (a window of a partition too large to synthesize whole).
    fn synthesize_challenges(&self, k: usize, challenges: &[usize]) -> Result<Assignment>;
}
impl<Tree: 'static + MerkleTreeTrait> CircuitsDyn for PorepCircuits<Tree>
where
    PorepCircuits<Tree>: Sync,
{
    fn synthesize(&self, k: usize) -> Result<Assignment> {
        self.synthesize_partition_parallel(k)
    }
    fn synthesize_sequential(&self, k: usize) -> Result<Assignment> {
        self.synthesize_partition_sequential(k)
    }
    fn native_witness(&self, k: usize) -> Option<Result<PackedWitness>> {
        self.shape.is_native().then(|| self.native_partition(k))
    }
    fn has_native_witness(&self) -> bool {
        self.shape.is_native()
    }
    fn aux_namespace(&self, k: usize, challenges: Option<Range<usize>>, index: usize) -> Result<Option<String>> {
        let mut cs = Locate::new(index);
        let all = 0..self.vanilla.get(k).map_or(0, Vec::len);
        self.synthesize_range_into(k, challenges.unwrap_or(all), &mut cs)?;
        Ok(cs.found)
    }
    fn synthesize_challenges(&self, k: usize, challenges: &[usize]) -> Result<Assignment> {
        self.synthesize_selected_challenges(k, challenges)
    }
}

impl<Tree: 'static + MerkleTreeTrait> PorepCircuits<Tree> {
    /// The public values and roots partition `k`'s circuit starts from.
    pub(super) fn partition_roots(&self, k: usize) -> Result<PartitionRoots> {
        let first = self.native.get(k).and_then(|p| p.first()).ok_or_else(|| anyhow!("no partition {k}"))?;
        let tau = self.statement.pub_in.tau.as_ref().ok_or_else(|| anyhow!("the statement has no commitments"))?;
        Ok(PartitionRoots {
            replica_id: self.statement.pub_in.replica_id.into(),
            comm_d: tau.comm_d.into(),
            comm_r: tau.comm_r.into(),
            comm_r_last: first.comm_r_last,
            comm_c: first.comm_c,
        })
    }

    fn native_partition(&self, k: usize) -> Result<PackedWitness> {
        porep_partition(&self.shape, &self.partition_roots(k)?, &self.native[k])
    }
}

/// Builds the circuits of every partition of a c1.json for the given miner and sector, after
/// checking that the C1 output's replica id is theirs.
pub fn circuits_from_c1(c1: &C1Input, sector: &SectorIdentity) -> Result<Box<dyn CircuitsDyn>> {
    match c1.kind {
        PorepKind::S2KiB => load_circuits::<SectorShape2KiB>(c1, sector),
        PorepKind::S8MiB => load_circuits::<SectorShape8MiB>(c1, sector),
        PorepKind::S512MiB => load_circuits::<SectorShape512MiB>(c1, sector),
        PorepKind::S32GiB => load_circuits::<SectorShape32GiB>(c1, sector),
        PorepKind::S64GiB => load_circuits::<SectorShape64GiB>(c1, sector),
    }
}

/// The statement a verifier rebuilds from public data alone.
pub fn statement(public: &SealPublic, sector: &SectorIdentity) -> Result<Box<dyn Statement>> {
    let kind = PorepKind::from_sector_size(u64::from(public.registered.sector_size()))
        .ok_or_else(|| anyhow!("unknown sector size"))?;
    Ok(match kind {
        PorepKind::S2KiB => Box::new(PorepStatement::<SectorShape2KiB>::new(kind, public, sector)?),
        PorepKind::S8MiB => Box::new(PorepStatement::<SectorShape8MiB>::new(kind, public, sector)?),
        PorepKind::S512MiB => Box::new(PorepStatement::<SectorShape512MiB>::new(kind, public, sector)?),
        PorepKind::S32GiB => Box::new(PorepStatement::<SectorShape32GiB>::new(kind, public, sector)?),
        PorepKind::S64GiB => Box::new(PorepStatement::<SectorShape64GiB>::new(kind, public, sector)?),
    })
}

fn blank_with<Tree: 'static + MerkleTreeTrait, CS: bellperson::ConstraintSystem<Scalar>>(
    kind: PorepKind,
    cs: &mut CS,
) -> Result<String> {
    let pp = public_params::<Tree>(&kind.registered_v1_1().as_v1_config())?;
    let circuit = <StackedCompound<Tree, G> as CompoundProof<StackedDrg<'_, Tree, G>, _>>::blank_circuit(&pp);
    circuit.synthesize(cs).map_err(|e| anyhow!("blank synthesis of the {} PoRep circuit failed: {e}", kind.name()))?;
    Ok(params_stem_of(&pp))
}

/// Synthesizes the PoRep circuit of one partition with no witness (its shape only) into `cs`,
/// and returns the official parameter file stem for it. The caller allocates ONE (input 0)
/// first and adds the `input_i · 0 = 0` constraints after, as the Groth16 generator does.
pub fn blank_porep<CS: bellperson::ConstraintSystem<Scalar>>(kind: PorepKind, cs: &mut CS) -> Result<String> {
    match kind {
        PorepKind::S2KiB => blank_with::<SectorShape2KiB, CS>(kind, cs),
        PorepKind::S8MiB => blank_with::<SectorShape8MiB, CS>(kind, cs),
        PorepKind::S512MiB => blank_with::<SectorShape512MiB, CS>(kind, cs),
        PorepKind::S32GiB => blank_with::<SectorShape32GiB, CS>(kind, cs),
        PorepKind::S64GiB => blank_with::<SectorShape64GiB, CS>(kind, cs),
    }
}

/// The official parameter file stem of the PoRep circuit of a sector size (no synthesis).
pub fn porep_stem(kind: PorepKind) -> Result<String> {
    fn stem<Tree: 'static + MerkleTreeTrait>(kind: PorepKind) -> Result<String> {
        Ok(params_stem_of(&public_params::<Tree>(&kind.registered_v1_1().as_v1_config())?))
    }
    match kind {
        PorepKind::S2KiB => stem::<SectorShape2KiB>(kind),
        PorepKind::S8MiB => stem::<SectorShape8MiB>(kind),
        PorepKind::S512MiB => stem::<SectorShape512MiB>(kind),
        PorepKind::S32GiB => stem::<SectorShape32GiB>(kind),
        PorepKind::S64GiB => stem::<SectorShape64GiB>(kind),
    }
}
