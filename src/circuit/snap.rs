//! The EmptySectorUpdate (SnapDeals) circuit, one per partition, and its public inputs, built
//! with storage-proofs-update exactly as filecoin-proofs'
//! `generate_empty_sector_update_proof_with_vanilla` builds them, and the checks of the vanilla
//! partition proofs that come with a snap.json.
//!
//! The partition count, challenges per partition and `h` come from the update circuit's
//! configuration of the sector size (`h` is the default the network uses). A partition's witness
//! is computed natively from the vanilla proof ([`crate::witness::snap`], `native_witness`), or
//! synthesized by the crate's circuit transcribed as a prefix and its challenges, the challenges
//! side by side ([`super::snap_windows`]); the pipeline also runs partitions side by side.
use std::sync::Mutex;

use anyhow::{anyhow, bail, ensure, Result};
use bellperson::{Circuit, ConstraintSystem};
use blstrs::Scalar;
use ff::Field;
use filecoin_hashers::{Domain, HashFunction, Hasher};
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::merkle::{MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_core::parameter_cache::{CacheableParameters, VERSION};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_update::constants::{h_default, TreeDDomain, TreeRDomain, TreeRHasher};
use storage_proofs_update::{
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof, PublicInputs, PublicParams,
};

use super::r1cs::{R1cs, R1csCs};
use super::snap_windows::{challenge_span, synthesize_windows};
use super::witness::{Assignment, WitnessCs};
use super::{ProofCircuits, ProofStatement};
use crate::input::proof_type::with_shape;
use crate::input::{PorepKind, SnapInput, SnapPublic};
use crate::witness::snap::{snap_partition, SnapChallenge, SnapPartition, SnapShape};
use crate::witness::PackedWitness;

/// What the verifier of a SnapDeals proof knows.
pub struct SnapStatement<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> {
    size: PorepKind,
    pp: PublicParams,
    pub_in: PublicInputs,
    _tree: std::marker::PhantomData<Tree>,
}

/// A SnapDeals statement with its vanilla partition proofs.
pub struct SnapCircuits<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> {
    statement: SnapStatement<Tree>,
    vanilla: Vec<PartitionProof<Tree>>,
}

/// Constraints of one partition per sector size, learned from the first synthesis in this
/// process, so later partitions allocate their vectors once.
static CONSTRAINTS: Mutex<Vec<(PorepKind, usize)>> = Mutex::new(Vec::new());

/// Constraints of one partition (its input constraints included) as measured, 2KiB checked by
/// the tests: the first partition a process synthesizes allocates its vectors once too.
pub(crate) fn measured_constraints(size: PorepKind) -> Option<usize> {
    match size {
        PorepKind::S2KiB => Some(1_705_044),
        _ => None,
    }
}

fn nodes(size: PorepKind) -> usize {
    (size.sector_size() / 32) as usize
}

/// The update circuit's public parameters for a sector size.
pub fn public_params(size: PorepKind) -> PublicParams {
    PublicParams::from_sector_size(size.sector_size())
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> SnapStatement<Tree> {
    pub fn new(public: &SnapPublic) -> Result<Self> {
        let size = PorepKind::from_sector_size(u64::from(public.registered.sector_size()))
            .ok_or_else(|| anyhow!("{:?} has an unknown sector size", public.registered))?;
        let pp = public_params(size);
        let r = |b: &[u8; 32], what: &str| {
            TreeRDomain::try_from_bytes(b).map_err(|_| anyhow!("{what} is not a field element"))
        };
        let comm_d_new =
            TreeDDomain::try_from_bytes(&public.comm_d_new).map_err(|_| anyhow!("CommDNew is not a field element"))?;
        let pub_in = PublicInputs {
            k: 0,
            comm_r_old: r(&public.comm_r_old, "CommROld")?,
            comm_d_new,
            comm_r_new: r(&public.comm_r_new, "CommRNew")?,
            h: h_default(nodes(size)),
        };
        Ok(Self { size, pp, pub_in, _tree: std::marker::PhantomData })
    }

    fn partition_inputs(&self, k: usize) -> PublicInputs {
        PublicInputs { k, ..self.pub_in.clone() }
    }
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> ProofStatement for SnapStatement<Tree> {
    fn num_partitions(&self) -> usize {
        self.pp.partition_count
    }
    fn public_inputs(&self, k: usize) -> Result<Vec<Scalar>> {
        ensure!(k < self.pp.partition_count, "partition {k} out of range");
        let inputs =
            <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::generate_public_inputs(
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
        stem_of::<Tree>(&self.pp)
    }
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> ProofStatement for SnapCircuits<Tree> {
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

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> ProofCircuits for SnapCircuits<Tree>
where
    SnapCircuits<Tree>: Sync,
{
    fn synthesize(&self, k: usize) -> Result<Assignment> {
        self.synthesize_partition(k, true)
    }
    fn native_witness(&self, k: usize) -> Option<Result<PackedWitness>> {
        Some(self.plain_partition(k).and_then(|p| snap_partition(&SnapShape::of(&self.statement.pp), &p)))
    }
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> SnapCircuits<Tree>
where
    SnapCircuits<Tree>: Sync,
{
    /// A snap.json's circuits, after checking its vanilla proofs.
    pub fn from_input(input: &SnapInput) -> Result<Self> {
        let statement = SnapStatement::<Tree>::new(&input.public)?;
        let mut vanilla = Vec::with_capacity(input.vanilla.len());
        for (k, bytes) in input.vanilla.iter().enumerate() {
            let at = format!("VanillaProofs[{k}] (partition {k})");
            let proof: PartitionProof<Tree> = bincode::deserialize(bytes).map_err(|e| {
                anyhow!("{at}: not a vanilla partition proof of a {} sector update ({e})", input.size.name())
            })?;
            check_partition(&statement, k, &proof).map_err(|e| anyhow!("{at}: {e}"))?;
            vanilla.push(proof);
        }
        Ok(Self { statement, vanilla })
    }

    /// Partition `k` in plain form, as `EmptySectorUpdateCompound::circuit` reads the vanilla
    /// proof: the roots of tree R old and new from challenge 0's proofs, `h` the statement's.
    pub(super) fn plain_partition(&self, k: usize) -> Result<SnapPartition> {
        let s = &self.statement;
        let v = self.vanilla.get(k).ok_or_else(|| anyhow!("partition {k} out of range"))?;
        let first = v.challenge_proofs.first().ok_or_else(|| anyhow!("partition {k} has no challenge proof"))?;
        let challenges = v
            .challenge_proofs
            .iter()
            .map(|c| SnapChallenge {
                leaf_r_old: c.proof_r_old.leaf().into(),
                path_r_old: siblings(&c.proof_r_old),
                leaf_d_new: c.proof_d_new.leaf().into(),
                path_d_new: siblings(&c.proof_d_new).into_iter().map(|level| level[0]).collect(),
                leaf_r_new: c.proof_r_new.leaf().into(),
                path_r_new: siblings(&c.proof_r_new),
            })
            .collect();
        Ok(SnapPartition {
            k,
            h: s.pub_in.h,
            comm_r_old: s.pub_in.comm_r_old.into(),
            comm_d_new: s.pub_in.comm_d_new.into(),
            comm_r_new: s.pub_in.comm_r_new.into(),
            comm_c: v.comm_c.into(),
            root_r_old: first.proof_r_old.root().into(),
            root_r_new: first.proof_r_new.root().into(),
            apex_leaves: v.apex_leafs.iter().map(|&l| l.into()).collect(),
            challenges,
        })
    }

    /// Partition `k`'s circuit, as filecoin-proofs builds it.
    pub(super) fn circuit(&self, k: usize) -> Result<EmptySectorUpdateCircuit<Tree>> {
        let s = &self.statement;
        <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::circuit(
            &s.pub_in,
            (),
            &self.vanilla[k],
            &s.pp,
            Some(k),
        )
    }

    /// Partition `k`'s witness: the circuit transcribed with its challenges in parallel
    /// windows, one per core (`parallel`, [`super::snap_windows`]), or the crate's
    /// `synthesize` in one go (the reference); the same [`Assignment`] either way.
    pub(super) fn synthesize_partition(&self, k: usize, parallel: bool) -> Result<Assignment> {
        let s = &self.statement;
        let circuit = self.circuit(k)?;
        let known = CONSTRAINTS.lock().unwrap().iter().find(|(z, _)| *z == s.size).map(|(_, n)| *n);
        let mut cs = WitnessCs::with_capacity(known.or(measured_constraints(s.size)).unwrap_or(0));
        if parallel {
            let per = || challenge_span::<Tree>(&s.pp).map(Some);
            synthesize_windows(&circuit, &mut cs, rayon::current_num_threads(), per)
                .map_err(|e| anyhow!("synthesis of partition {k} failed: {e:#}"))?;
        } else {
            circuit.synthesize(&mut cs).map_err(|e| anyhow!("synthesis of partition {k} failed: {e}"))?;
        }
        let asg = cs.finish();
        if known.is_none() {
            CONSTRAINTS.lock().unwrap().push((s.size, asg.num_constraints()));
        }
        Ok(asg)
    }
}

/// A Merkle proof's siblings per level, leaf level first.
fn siblings<P: MerkleProofTrait>(p: &P) -> Vec<Vec<Scalar>> {
    p.path().into_iter().map(|(siblings, _)| siblings.into_iter().map(Into::into).collect()).collect()
}

pub(super) fn stem_of<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(pp: &PublicParams) -> String {
    let id =
        <EmptySectorUpdateCompound<Tree> as CacheableParameters<EmptySectorUpdateCircuit<Tree>, _>>::cache_identifier(
            pp,
        );
    format!("v{VERSION}-{id}")
}

/// Checks one vanilla partition proof against the commitments, naming what does not match.
fn check_partition<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    s: &SnapStatement<Tree>,
    k: usize,
    proof: &PartitionProof<Tree>,
) -> Result<()> {
    let pp = &s.pp;
    ensure!(
        proof.challenge_proofs.len() == pp.challenge_count && proof.apex_leafs.len() == pp.apex_leaf_count,
        "it has {} challenge proofs and {} apex leaves; a {} partition has {} and {}",
        proof.challenge_proofs.len(),
        proof.apex_leafs.len(),
        s.size.name(),
        pp.challenge_count,
        pp.apex_leaf_count
    );
    for (i, c) in proof.challenge_proofs.iter().enumerate() {
        let lens = [c.proof_r_old.path().len(), c.proof_d_new.path().len(), c.proof_r_new.path().len()];
        let want = [
            c.proof_r_old.expected_len(pp.sector_nodes),
            c.proof_d_new.expected_len(pp.sector_nodes),
            c.proof_r_new.expected_len(pp.sector_nodes),
        ];
        ensure!(lens == want, "challenge proof {i} has Merkle paths of lengths {lens:?}, not {want:?}");
    }
    let comm_r = |root: TreeRDomain| <TreeRHasher as Hasher>::Function::hash2(&proof.comm_c, &root);
    if comm_r(proof.challenge_proofs[0].proof_r_old.root()) != s.pub_in.comm_r_old {
        bail!("H(comm_c ‖ TreeROld root) is not CommROld: this vanilla proof is for another sector");
    }
    if comm_r(proof.challenge_proofs[0].proof_r_new.root()) != s.pub_in.comm_r_new {
        bail!("H(comm_c ‖ TreeRNew root) is not CommRNew: this vanilla proof is for another update of the sector");
    }
    let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        EmptySectorUpdate::<Tree>::verify(pp, &s.partition_inputs(k), proof)
    }));
    match verdict {
        Ok(Ok(true)) => Ok(()),
        Ok(Ok(false)) => bail!(
            "it does not verify as partition {k}: its challenges, Merkle paths or encoding do not match CommRNew and \
             CommDNew (a proof of another partition, or made for other data?)"
        ),
        Ok(Err(e)) => bail!("it is malformed ({e})"),
        Err(_) => bail!("it is malformed (the vanilla verifier panicked on it)"),
    }
}

fn load<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(input: &SnapInput) -> Result<Box<dyn ProofCircuits>>
where
    SnapCircuits<Tree>: Sync,
{
    Ok(Box::new(SnapCircuits::<Tree>::from_input(input)?))
}

/// The circuits of a snap.json, after checking its vanilla proofs.
pub fn circuits_from_snap(input: &SnapInput) -> Result<Box<dyn ProofCircuits>> {
    with_shape!(input.size, load, input)
}

/// The statement a verifier rebuilds from public data alone.
pub fn snap_statement(public: &SnapPublic) -> Result<Box<dyn ProofStatement>> {
    fn new<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
        public: &SnapPublic,
    ) -> Result<Box<dyn ProofStatement>> {
        Ok(Box::new(SnapStatement::<Tree>::new(public)?))
    }
    let size = PorepKind::from_sector_size(u64::from(public.registered.sector_size()))
        .ok_or_else(|| anyhow!("{:?} has an unknown sector size", public.registered))?;
    with_shape!(size, new, public)
}

/// The official parameter file stem of the update circuit of a sector size.
pub fn snap_stem(size: PorepKind) -> String {
    fn stem<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(size: PorepKind) -> String {
        stem_of::<Tree>(&public_params(size))
    }
    with_shape!(size, stem, size)
}

/// Records the R1CS of one update partition from a blank synthesis; returns it and the stem.
pub fn record_snap(size: PorepKind) -> Result<(R1cs, String)> {
    fn record<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(size: PorepKind) -> Result<(R1cs, String)> {
        let pp = public_params(size);
        let blank = <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::blank_circuit(&pp);
        let mut cs = <R1csCs as ConstraintSystem<Scalar>>::new();
        blank
            .synthesize(&mut cs)
            .map_err(|e| anyhow!("blank synthesis of the {} update circuit failed: {e}", size.name()))?;
        Ok((cs.finish()?, stem_of::<Tree>(&pp)))
    }
    with_shape!(size, record, size)
}
