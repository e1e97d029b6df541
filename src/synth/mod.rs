//! Synthetic inputs whose vanilla proofs the crates accept, made without sealing a sector:
//! a c1.json (`filsnark c1 synth`, this module), a post.json ([`post`], `filsnark post synth`)
//! and a snap.json ([`snap`], `filsnark snap synth`), for benchmarks at real scale.
//!
//! For the c1.json:
//! Only the challenged nodes and their parents need real values:
//! 1. Randomness from `--seed`: ticket, interactive seed, the key of the stand-in labels,
//!    and a block of random data nodes. The sector's data is that block repeated, so tree D
//!    and comm_d are fixed before the challenges are known (they depend on comm_d through
//!    the replica id) and cost one block's hashing (`trees::tree_d`).
//! 2. replica_id from prover id, sector number, ticket, comm_d and porep id
//!    (`generate_replica_id`); the challenges of every partition from replica_id and seed
//!    (the public inputs' own `challenges`, V1_1 interactive).
//! 3. Labels of the challenged nodes at every layer, from their parents' labels; every
//!    other label a fixed random stand-in (`labels`).
//! 4. Sparse tree C over the opened columns, sparse tree R over the challenged replica nodes,
//!    comm_r = Poseidon(comm_c, comm_r_last) (`trees`, `sparse_tree`).
//! 5. Per challenge the vanilla proof, laid out as the crates' prover does (`proofs`), into
//!    filecoin-proofs-api's `SealCommitPhase1Output` and the lotus-bench wrapper.
//! 6. The wrapper's bytes are parsed back with filsnark's c1 reader and checked with
//!    storage-proofs' vanilla verifier (`verify`); only then is the output returned.
pub mod labels;
pub mod post;
pub mod proofs;
pub mod snap;
pub mod sparse_tree;
pub mod trees;
pub mod verify;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use base64::Engine;
use filecoin_hashers::{sha256::Sha256Hasher, Domain, Hasher};
use filecoin_proofs::{
    parameters::public_params, DefaultPieceHasher, DefaultTreeHasher, SectorShape2KiB, SectorShape32GiB,
    SectorShape512MiB, SectorShape64GiB, SectorShape8MiB,
};
use filecoin_proofs_api::seal::{SealCommitPhase1Output, VanillaSealProof};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::{drgraph::Graph, merkle::MerkleTreeTrait};
use storage_proofs_porep::stacked::{generate_replica_id, Challenges, Proof, PublicInputs, PublicParams};

use self::labels::{drg_parents, exp_parents, SparseLabels};
use self::proofs::SyntheticSector;
use crate::input::{prover_id, C1Input, PorepKind, SectorIdentity};

type G = DefaultPieceHasher;
type DataDomain = <Sha256Hasher as Hasher>::Domain;
type TreeDomain = <DefaultTreeHasher as Hasher>::Domain;
/// The variant of filecoin-proofs-api's `VanillaSealProof` for a tree shape.
type WrapVanilla<Tree> = fn(Vec<Vec<Proof<Tree, G>>>) -> VanillaSealProof;

/// Data nodes (32 bytes each) in the random block the sector's data repeats: 2 MiB, or the
/// whole sector when it is smaller.
pub const DATA_BLOCK_NODES: u64 = 1 << 16;

/// What to synthesize.
#[derive(Clone, Debug)]
pub struct SynthOptions {
    pub kind: PorepKind,
    pub miner_id: u64,
    pub sector_num: u64,
    /// Seed of every random choice: the same options give the same bytes.
    pub seed: u64,
}

/// A verified synthetic C1 output.
pub struct Synthesized {
    pub output: SealCommitPhase1Output,
    /// The lotus-bench wrapper `{"SectorNum","Phase1Out","SectorSize"}`, as written to disk.
    pub wrapper: Vec<u8>,
    pub stats: SynthStats,
}

#[derive(Clone, Debug)]
pub struct SynthStats {
    pub partitions: usize,
    /// Challenges over all partitions (with repeats).
    pub challenges: usize,
    /// Distinct challenged nodes: labels computed at every layer.
    pub challenged_nodes: usize,
    /// Distinct columns opened in tree C (challenged nodes and their parents).
    pub opened_columns: usize,
    pub synthesis: Duration,
    pub verification: Duration,
}

/// The random choices of one synthetic sector.
struct SectorRandomness {
    ticket: [u8; 32],
    seed: [u8; 32],
    label_key: [u8; 32],
    data_block: Vec<DataDomain>,
}

impl SectorRandomness {
    fn draw(seed: u64, nodes: u64) -> Self {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let ticket: [u8; 32] = rng.gen();
        let mut interactive_seed: [u8; 32] = rng.gen();
        interactive_seed[31] &= 0x3f;
        let label_key: [u8; 32] = rng.gen();
        let data_block = (0..nodes.min(DATA_BLOCK_NODES)).map(|_| DataDomain::random(&mut rng)).collect();
        Self { ticket, seed: interactive_seed, label_key, data_block }
    }
}

/// Makes a synthetic C1 output and checks it with storage-proofs' vanilla verifier.
pub fn synth_c1(opts: &SynthOptions) -> Result<Synthesized> {
    use PorepKind::*;
    use VanillaSealProof as V;
    let start = Instant::now();
    let (output, mut stats) = match opts.kind {
        S2KiB => synth_with::<SectorShape2KiB>(opts, V::StackedDrg2KiBV1),
        S8MiB => synth_with::<SectorShape8MiB>(opts, V::StackedDrg8MiBV1),
        S512MiB => synth_with::<SectorShape512MiB>(opts, V::StackedDrg512MiBV1),
        S32GiB => synth_with::<SectorShape32GiB>(opts, V::StackedDrg32GiBV1),
        S64GiB => synth_with::<SectorShape64GiB>(opts, V::StackedDrg64GiBV1),
    }?;
    let wrapper = lotus_wrapper(&output, opts.sector_num)?;
    stats.synthesis = start.elapsed();

    let t = Instant::now();
    let parsed = C1Input::parse(&wrapper, Path::new("<synthesized c1>"))
        .context("filsnark's c1 reader rejects the synthesized wrapper")?;
    let sector = SectorIdentity { miner_id: opts.miner_id, sector_num: opts.sector_num };
    verify::verify_c1(&parsed, &sector).context("the synthesized C1 output does not verify")?;
    stats.verification = t.elapsed();
    Ok(Synthesized { output, wrapper, stats })
}

/// The lotus-bench / Curio wrapper around a C1 output: base64 of its JSON.
pub fn lotus_wrapper(out: &SealCommitPhase1Output, sector_num: u64) -> Result<Vec<u8>> {
    let raw = serde_json::to_vec(out)?;
    let b64 = base64::engine::general_purpose::STANDARD.encode(raw);
    let wrapper = serde_json::json!({
        "SectorNum": sector_num,
        "Phase1Out": b64,
        "SectorSize": u64::from(out.registered_proof.sector_size()),
    });
    Ok(serde_json::to_vec(&wrapper)?)
}

fn bytes32<D: Domain>(d: &D) -> [u8; 32] {
    let mut b = [0u8; 32];
    b.copy_from_slice(d.as_ref());
    b
}

/// The challenged nodes of every partition, as the interactive (V1_1) prover derives them.
fn partition_challenges<Tree: MerkleTreeTrait>(
    pp: &PublicParams<Tree>,
    replica_id: <Tree::Hasher as Hasher>::Domain,
    seed: [u8; 32],
    partitions: usize,
) -> Result<Vec<Vec<u32>>> {
    if !matches!(pp.challenges, Challenges::Interactive(_)) {
        bail!("only interactive (V1_1) PoRep challenges can be synthesized");
    }
    let pub_in = PublicInputs::<_, DataDomain> { replica_id, seed: Some(seed), tau: None, k: None };
    let nodes = pp.graph.size();
    Ok((0..partitions)
        .map(|k| pub_in.challenges(&pp.challenges, nodes, Some(k)).into_iter().map(|c| c as u32).collect())
        .collect())
}

/// The challenged nodes and all their DRG and expander parents: the columns tree C opens.
fn opened_columns<Tree: MerkleTreeTrait>(pp: &PublicParams<Tree>, challenged: &BTreeSet<u32>) -> Result<BTreeSet<u32>> {
    let mut opened = challenged.clone();
    for &c in challenged {
        opened.extend(drg_parents(&pp.graph, c)?);
        opened.extend(exp_parents(&pp.graph, c)?);
    }
    Ok(opened)
}

fn synth_with<Tree: 'static + MerkleTreeTrait<Hasher = DefaultTreeHasher>>(
    opts: &SynthOptions,
    wrap: WrapVanilla<Tree>,
) -> Result<(SealCommitPhase1Output, SynthStats)> {
    let registered = opts.kind.registered_v1_1();
    let config = registered.as_v1_config();
    let pp = public_params::<Tree>(&config).context("building the PoRep public parameters")?;
    let nodes = pp.graph.size() as u64;
    let rnd = SectorRandomness::draw(opts.seed, nodes);

    let tree_d = trees::tree_d(nodes, rnd.data_block)?;
    let comm_d = bytes32(&tree_d.root());
    let replica_id: TreeDomain = generate_replica_id::<Tree::Hasher, _>(
        &prover_id(opts.miner_id),
        opts.sector_num,
        &rnd.ticket,
        comm_d,
        &config.porep_id,
    );
    let partitions = usize::from(registered.partitions());
    let challenges = partition_challenges(&pp, replica_id, rnd.seed, partitions)?;
    let challenged: BTreeSet<u32> = challenges.iter().flatten().copied().collect();
    let opened = opened_columns(&pp, &challenged)?;

    let labels =
        SparseLabels::compute(&pp.graph, replica_id, pp.num_layers, rnd.label_key, challenged.iter().copied())?;
    let tree_c = trees::tree_c::<Tree>(nodes, &labels, &opened)?;
    let tree_r = trees::tree_r::<Tree>(nodes, &labels, &tree_d, &challenged)?;
    let comm_r = trees::comm_r::<Tree::Hasher>(&tree_c.root(), &tree_r.root());
    let sector = SyntheticSector::<Tree> { graph: &pp.graph, labels, tree_d, tree_c, tree_r };

    let vanilla = challenges
        .iter()
        .map(|part| part.iter().map(|&c| sector.challenge_proof(c)).collect::<Result<Vec<_>>>())
        .collect::<Result<Vec<_>>>()?;
    let stats = SynthStats {
        partitions,
        challenges: challenges.iter().map(Vec::len).sum(),
        challenged_nodes: challenged.len(),
        opened_columns: opened.len(),
        synthesis: Duration::ZERO,
        verification: Duration::ZERO,
    };
    let output = SealCommitPhase1Output {
        registered_proof: registered,
        vanilla_proofs: wrap(vanilla),
        comm_r: bytes32(&comm_r),
        comm_d,
        replica_id,
        seed: rnd.seed,
        ticket: rnd.ticket,
    };
    Ok((output, stats))
}
