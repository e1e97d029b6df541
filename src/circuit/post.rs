//! The FallbackPoSt circuit (WindowPoSt and WinningPoSt), one per partition, and its public
//! inputs, built with storage-proofs-post exactly as filecoin-proofs' `*_post_with_vanilla`
//! build them, and the checks of the vanilla proofs that come with a post.json.
//!
//! - WindowPoSt: a partition holds `sector_count` sectors (2 at the test sizes, 2,349 at 32GiB,
//!   2,300 at 64GiB) with 10 challenges each; the sectors are cut into partitions in the order
//!   given and the last partition is padded by repeating its last sector, as filecoin-proofs
//!   pads it. With `Partition` set, the input holds that partition's sectors only
//!   (`generate_single_window_post_with_vanilla`): since the V1_2 challenges do not depend on a
//!   sector's position, its public inputs are those of a proof over these sectors alone.
//! - WinningPoSt: one sector with 66 challenges; the circuit is 66 one-challenge "sectors"
//!   (the vanilla proof's inclusion proofs unrolled), the verifier's sector list that sector
//!   repeated 66 times, as `verify_winning_post` builds it.
//!
//! Each circuit sector uses only its own variables, so a partition's sectors are synthesized
//! in parallel ([`super::post_windows`]).
use anyhow::{anyhow, bail, ensure, Context, Result};
use blstrs::Scalar;
use ff::Field;
use filecoin_hashers::{Domain, HashFunction, Hasher, POSEIDON_CONSTANTS_2, POSEIDON_CONSTANTS_8};
use filecoin_proofs::parameters::{window_post_public_params, winning_post_public_params};
use filecoin_proofs::{FallbackPoStSectorProof, PoStConfig, PoStType};
use rayon::prelude::*;
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::merkle::{MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_core::parameter_cache::{CacheableParameters, VERSION};
use storage_proofs_core::sector::SectorId;
use storage_proofs_core::util::NODE_SIZE;
use storage_proofs_post::fallback::{self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, SectorProof};

use super::post_span::sector_span;
use super::window::Span;
use super::witness::Assignment;
use super::{ProofCircuits, ProofStatement};
use crate::input::post::{window_partitions, PostInput, PostPublic};
use crate::input::proof_type::with_shape;
use crate::input::{prover_id, PorepKind};
use crate::witness::post::{post_partition, Opening, PostSector};
use crate::witness::shape::PathLevel;
use crate::witness::PackedWitness;

pub(super) type TreeDomain<Tree> = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;
type Vanilla<Tree> = fallback::Proof<<Tree as MerkleTreeTrait>::Proof>;

/// What the verifier of a PoSt knows, for one tree shape.
pub struct PostStatement<Tree: 'static + MerkleTreeTrait> {
    pub(super) pp: fallback::PublicParams,
    /// The public inputs as the verifier builds them.
    pub(super) pub_in: fallback::PublicInputs<TreeDomain<Tree>>,
    /// The partition index each partition of this proof has in `pub_in`.
    pub(super) partitions: Vec<usize>,
}

/// A PoSt statement with its vanilla proofs, one per partition, laid out for the circuit.
pub struct PostCircuits<Tree: 'static + MerkleTreeTrait> {
    pub(super) statement: PostStatement<Tree>,
    vanilla: Vec<Vanilla<Tree>>,
    /// What one circuit sector records (the same for every sector of every partition).
    pub(super) span: Span,
}

/// The fallback public parameters of a registered PoSt (sector size, challenges per circuit
/// sector, sectors per partition).
pub fn public_params<Tree: 'static + MerkleTreeTrait>(config: &PoStConfig) -> Result<fallback::PublicParams> {
    match config.typ {
        PoStType::Window => window_post_public_params::<Tree>(config),
        PoStType::Winning => winning_post_public_params::<Tree>(config),
    }
}

/// Official parameter file stem of the PoSt circuit with public parameters `pp`.
pub fn params_stem_of<Tree: 'static + MerkleTreeTrait>(pp: &fallback::PublicParams) -> String {
    let id = <FallbackPoStCompound<Tree> as CacheableParameters<FallbackPoStCircuit<Tree>, _>>::cache_identifier(pp);
    format!("v{VERSION}-{id}")
}

fn domain<Tree: 'static + MerkleTreeTrait>(bytes: &[u8; 32], what: &str) -> Result<TreeDomain<Tree>> {
    TreeDomain::<Tree>::try_from_bytes(bytes).map_err(|_| anyhow!("{what} is not a field element"))
}

impl<Tree: 'static + MerkleTreeTrait> PostStatement<Tree> {
    pub fn new(public: &PostPublic) -> Result<Self> {
        let config = public.registered.as_v1_config();
        let pp = public_params::<Tree>(&config)?;
        let randomness = domain::<Tree>(&public.randomness, "Randomness")?;
        let prover = domain::<Tree>(&prover_id(public.miner_id), "the prover id")?;
        let mut sectors = Vec::with_capacity(public.sectors.len());
        for s in &public.sectors {
            let comm_r = domain::<Tree>(&s.comm_r, &format!("CommR of sector {}", s.num))?;
            sectors.push(fallback::PublicSector { id: SectorId::from(s.num), comm_r });
        }
        let partitions = match (config.typ, public.partition) {
            (PoStType::Winning, _) => {
                // verify_winning_post: the one sector repeated for every circuit sector.
                sectors = (0..pp.sector_count).map(|_| sectors[0].clone()).collect();
                vec![0]
            }
            (PoStType::Window, None) => (0..window_partitions(public.registered, sectors.len())).collect(),
            (PoStType::Window, Some(_)) => {
                ensure!(
                    config.api_version == ApiVersion::V1_2_0,
                    "a single WindowPoSt partition is proved only for V1_2, whose challenges do not depend on a \
                     sector's position"
                );
                vec![0]
            }
        };
        let pub_in = fallback::PublicInputs { randomness, prover_id: prover, sectors, k: None };
        Ok(Self { pp, pub_in, partitions })
    }
}

impl<Tree: 'static + MerkleTreeTrait> ProofStatement for PostStatement<Tree> {
    fn num_partitions(&self) -> usize {
        self.partitions.len()
    }
    fn public_inputs(&self, k: usize) -> Result<Vec<Scalar>> {
        let j = *self.partitions.get(k).ok_or_else(|| anyhow!("partition {k} out of range"))?;
        let inputs = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::generate_public_inputs(
            &self.pub_in,
            &self.pp,
            Some(j),
        )?;
        let mut out = Vec::with_capacity(inputs.len() + 1);
        out.push(Scalar::ONE);
        out.extend(inputs);
        Ok(out)
    }
    fn params_stem(&self) -> String {
        params_stem_of::<Tree>(&self.pp)
    }
}

impl<Tree: 'static + MerkleTreeTrait> ProofStatement for PostCircuits<Tree> {
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

impl<Tree: 'static + MerkleTreeTrait> ProofCircuits for PostCircuits<Tree>
where
    PostCircuits<Tree>: Sync,
{
    fn synthesize(&self, k: usize) -> Result<Assignment> {
        self.synthesize_partition(k, true)
    }
    fn native_witness(&self, k: usize) -> Option<Result<PackedWitness>> {
        Some(self.plain_sectors(k).map(|s| post_partition(&s)))
    }
}

impl<Tree: 'static + MerkleTreeTrait> PostCircuits<Tree> {
    /// Partition `k`'s circuit sectors in plain form, as `FallbackPoStCompound::circuit` pairs
    /// them: vanilla sector `i` with public sector `i` of the partition's chunk, the last one
    /// repeated where the chunk is short (padding).
    pub(super) fn plain_sectors(&self, k: usize) -> Result<Vec<PostSector>> {
        let s = &self.statement;
        let j = *s.partitions.get(k).ok_or_else(|| anyhow!("partition {k} out of range"))?;
        let chunk =
            s.pub_in.sectors.chunks(s.pp.sector_count).nth(j).ok_or_else(|| anyhow!("no sectors for partition {j}"))?;
        let plain = |v: &SectorProof<Tree::Proof>, i: usize| PostSector {
            comm_r: chunk[i.min(chunk.len() - 1)].comm_r.into(),
            comm_c: v.comm_c.into(),
            comm_r_last: v.comm_r_last.into(),
            openings: v.inclusion_proofs.iter().map(opening).collect(),
        };
        Ok(self.vanilla[k].sectors.iter().enumerate().map(|(i, v)| plain(v, i)).collect())
    }
}

/// A leaf and its path, leaf level first.
fn opening<P: MerkleProofTrait>(p: &P) -> Opening {
    let path = p
        .path()
        .into_iter()
        .map(|(siblings, index)| PathLevel { siblings: siblings.into_iter().map(Into::into).collect(), index })
        .collect();
    Opening { leaf: p.leaf().into(), path }
}

impl<Tree: 'static + MerkleTreeTrait> PostCircuits<Tree> {
    /// The crate's circuit of partition `k` (`FallbackPoStCompound::circuit`).
    pub(super) fn circuit(&self, k: usize) -> Result<FallbackPoStCircuit<Tree>> {
        let s = &self.statement;
        <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::circuit(
            &s.pub_in,
            Default::default(),
            &self.vanilla[k],
            &s.pp,
            Some(s.partitions[k]),
        )
    }
}

impl<Tree: 'static + MerkleTreeTrait> PostCircuits<Tree> {
    /// Decodes the vanilla proofs of a post.json, checks each against its sector and the
    /// challenges, and lays them out per partition; takes a sector's span from the measured
    /// ones, or counts it beside the checks (it would otherwise run alone before the
    /// partition's windows start).
    pub fn from_input(input: &PostInput) -> Result<Self> {
        let statement = PostStatement::<Tree>::new(&input.public)?;
        poseidon_constants();
        let (proofs, span) =
            rayon::join(|| decode_and_check::<Tree>(input, &statement), || sector_span::<Tree>(&statement.pp));
        let proofs = proofs?;
        let vanilla = match input.public.typ() {
            PoStType::Window => window_layout::<Tree>(&statement, proofs),
            PoStType::Winning => winning_layout::<Tree>(&statement, proofs)?,
        };
        Ok(PostCircuits { statement, vanilla, span: span? })
    }
}

fn load<Tree: 'static + MerkleTreeTrait>(input: &PostInput) -> Result<Box<dyn ProofCircuits>>
where
    PostCircuits<Tree>: Sync,
{
    Ok(Box::new(PostCircuits::<Tree>::from_input(input)?))
}

/// Per partition, the sectors' proofs in order, the last partition padded with its last.
fn window_layout<Tree: 'static + MerkleTreeTrait>(
    s: &PostStatement<Tree>,
    proofs: Vec<FallbackPoStSectorProof<Tree>>,
) -> Vec<Vanilla<Tree>> {
    let per = s.pp.sector_count;
    let all: Vec<SectorProof<Tree::Proof>> = proofs.into_iter().flat_map(|p| p.vanilla_proof.sectors).collect();
    all.chunks(per)
        .map(|chunk| {
            let mut sectors = chunk.to_vec();
            while sectors.len() < per {
                sectors.push(sectors[sectors.len() - 1].clone());
            }
            fallback::Proof { sectors }
        })
        .collect()
}

/// The one sector's inclusion proofs as one-challenge circuit sectors.
fn winning_layout<Tree: 'static + MerkleTreeTrait>(
    s: &PostStatement<Tree>,
    proofs: Vec<FallbackPoStSectorProof<Tree>>,
) -> Result<Vec<Vanilla<Tree>>> {
    let sector = &proofs[0].vanilla_proof.sectors[0];
    let sectors: Vec<_> = sector
        .inclusion_proofs
        .iter()
        .map(|p| SectorProof {
            inclusion_proofs: vec![p.clone()],
            comm_c: sector.comm_c,
            comm_r_last: sector.comm_r_last,
        })
        .collect();
    ensure!(sectors.len() == s.pp.sector_count, "internal: {} winning circuit sectors", sectors.len());
    Ok(vec![fallback::Proof { sectors }])
}

/// Every vanilla proof decoded and checked: its sector and comm_r are the ones `Sectors` names
/// at its position, it opens exactly the leaves `Randomness` challenges, and every opening is a
/// valid path to its comm_r_last with H(comm_c ‖ comm_r_last) = comm_r. Errors name the entry.
fn decode_and_check<Tree: 'static + MerkleTreeTrait>(
    input: &PostInput,
    s: &PostStatement<Tree>,
) -> Result<Vec<FallbackPoStSectorProof<Tree>>> {
    let public = &input.public;
    let config = public.registered.as_v1_config();
    let ids: Vec<SectorId> = public.sectors.iter().map(|x| SectorId::from(x.num)).collect();
    let challenges = filecoin_proofs::generate_fallback_sector_challenges::<Tree>(
        &config,
        &public.randomness,
        &ids,
        prover_id(public.miner_id),
    )
    .context("deriving the challenges from Randomness")?;
    let leaves = s.pp.sector_size as usize / NODE_SIZE;
    let checked: Vec<Result<FallbackPoStSectorProof<Tree>>> = (0..input.vanilla.len())
        .into_par_iter()
        .map(|i| {
            let sector = public.sectors[i];
            let at = format!("VanillaProofs[{i}] (sector {})", sector.num);
            let proof: FallbackPoStSectorProof<Tree> = bincode::deserialize(&input.vanilla[i])
                .map_err(|e| anyhow!("{at}: not a vanilla proof of a {} sector ({e})", size_of(public).name()))?;
            let want = &challenges[&ids[i]];
            check_sector::<Tree>(&proof, sector.num, &sector.comm_r, want, leaves).map_err(|e| anyhow!("{at}: {e}"))?;
            Ok(proof)
        })
        .collect();
    // The first bad entry's error in input order (a thread may have found a later one first).
    checked.into_iter().collect()
}

/// Poseidon's constants for arity 8 (the trees) and 2 (comm_r = H(comm_c ‖ comm_r_last)),
/// derived side by side: each is a lazy static that its first user derives alone (the two took
/// some 25 ms of a 2KiB WindowPoSt's 0.3 s, one after the other on one core), and the checks
/// and the circuits need both.
fn poseidon_constants() {
    rayon::join(|| &*POSEIDON_CONSTANTS_8, || &*POSEIDON_CONSTANTS_2);
}

fn size_of(public: &PostPublic) -> PorepKind {
    PorepKind::from_sector_size(u64::from(public.registered.sector_size())).expect("a known sector size")
}

/// The checks of one sector's vanilla proof (see [`decode_and_check`]).
fn check_sector<Tree: 'static + MerkleTreeTrait>(
    proof: &FallbackPoStSectorProof<Tree>,
    num: u64,
    comm_r: &[u8; 32],
    challenges: &[u64],
    leaves: usize,
) -> Result<()> {
    let theirs = u64::from(proof.sector_id);
    if theirs != num {
        bail!("this is a vanilla proof of sector {theirs}, but Sectors names sector {num} here");
    }
    let their_comm_r: [u8; 32] = proof.comm_r.into_bytes().try_into().expect("32 bytes");
    if &their_comm_r != comm_r {
        bail!("its comm_r differs from the sector's CommR: a proof of another replica of sector {num}");
    }
    let sectors = &proof.vanilla_proof.sectors;
    ensure!(sectors.len() == 1, "holds {} sector proofs, not one", sectors.len());
    let sp = &sectors[0];
    ensure!(
        sp.inclusion_proofs.len() == challenges.len(),
        "opens {} leaves, but the proof type challenges {} per sector",
        sp.inclusion_proofs.len(),
        challenges.len()
    );
    let h = <Tree::Hasher as Hasher>::Function::hash2(&sp.comm_c, &sp.comm_r_last);
    if h != proof.comm_r {
        bail!("H(comm_c ‖ comm_r_last) is not its comm_r: the proof does not belong to this sector's replica");
    }
    for (n, (p, &want)) in sp.inclusion_proofs.iter().zip(challenges).enumerate() {
        let got = p.path_index() as u64;
        if got != want {
            bail!(
                "challenge {n} opens leaf {got}, but Randomness challenges leaf {want} of sector {num}: this vanilla \
                 proof was made for other randomness (or another miner)"
            );
        }
        if p.path().len() != p.expected_len(leaves) || !p.validate(want as usize) || p.root() != sp.comm_r_last {
            bail!("the inclusion proof of challenge {n} (leaf {want}) does not verify against comm_r_last");
        }
    }
    Ok(())
}

/// The circuits of a post.json, after checking its vanilla proofs.
pub fn circuits_from_post(input: &PostInput) -> Result<Box<dyn ProofCircuits>> {
    with_shape!(input.size, load, input)
}

/// The statement a verifier rebuilds from public data alone.
pub fn post_statement(public: &PostPublic) -> Result<Box<dyn ProofStatement>> {
    fn new<Tree: 'static + MerkleTreeTrait>(public: &PostPublic) -> Result<Box<dyn ProofStatement>> {
        Ok(Box::new(PostStatement::<Tree>::new(public)?))
    }
    with_shape!(size_of(public), new, public)
}
