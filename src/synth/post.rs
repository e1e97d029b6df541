//! Synthetic post.json: WindowPoSt and WinningPoSt inputs whose vanilla proofs the crates
//! accept, at any sector size and sector count, without sealing (`filsnark post synth`).
//!
//! A PoSt opens only tree R (comm_r_last) of each sector, at leaves chosen from the randomness
//! and the sector number alone. So per sector: random leaves at the challenged nodes of a
//! sparse tree R that is zero elsewhere ([`SparseTree`]), a random comm_c, and
//! comm_r = H(comm_c ‖ comm_r_last). The inclusion proofs come out in the crates' types and are
//! serialised as filecoin-proofs does (bincode of `FallbackPoStSectorProof`). The output is
//! parsed back by filsnark's post.json reader and judged by the crates' own partitioning and
//! vanilla verifier (`partition_vanilla_proofs`, what `*_post_with_vanilla` run first) before it
//! is returned.
use std::path::Path;

use anyhow::{ensure, Context, Result};
use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::FallbackPoStSectorProof;
use filecoin_proofs_api::{PoStType, RegisteredPoStProof};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::merkle::{MerkleProof, MerkleTreeTrait};
use storage_proofs_core::sector::SectorId;
use storage_proofs_post::fallback::{self, SectorProof};

use super::sparse_tree::SparseTree;
use super::trees::{comm_r, sector_tree_arities};
use crate::input::fields::{to_base64, to_hex};
use crate::input::proof_type::with_shape;
use crate::input::{prover_id, PorepKind, PostInput};

/// What to synthesize.
#[derive(Clone, Debug)]
pub struct PostSynthOptions {
    pub registered: RegisteredPoStProof,
    pub miner_id: u64,
    /// Sectors, numbered `first_sector`, `first_sector + 1`, …
    pub sectors: usize,
    pub first_sector: u64,
    /// WindowPoSt only: mark the file as this one partition (`sectors` at most a partition's).
    pub partition: Option<usize>,
    /// Seed of every random choice: the same options give the same bytes.
    pub seed: u64,
}

/// The post.json bytes, checked.
pub fn synth_post(opts: &PostSynthOptions) -> Result<Vec<u8>> {
    ensure!(opts.sectors > 0, "at least one sector");
    ensure!(opts.registered.typ() == PoStType::Window || opts.sectors == 1, "a WinningPoSt proves exactly one sector");
    let size = PorepKind::from_sector_size(u64::from(opts.registered.sector_size())).expect("a known size");
    let mut rng = ChaCha20Rng::seed_from_u64(opts.seed);
    let mut randomness: [u8; 32] = rng.gen();
    randomness[31] &= 0x3f;
    let nums: Vec<u64> = (0..opts.sectors as u64).map(|i| opts.first_sector + i).collect();
    let sectors = with_shape!(size, sectors_with, opts, &randomness, &nums, &mut rng)?;
    let mut json = serde_json::json!({
        "PoStProof": format!("{:?}", opts.registered),
        "MinerId": opts.miner_id,
        "Randomness": to_hex(&randomness),
        "Sectors": sectors.iter().map(|(n, c, _)| serde_json::json!({"SectorNum": n, "CommR": to_hex(c)})).collect::<Vec<_>>(),
        "VanillaProofs": sectors.iter().map(|(_, _, v)| to_base64(v)).collect::<Vec<_>>(),
    });
    if let Some(k) = opts.partition {
        json["Partition"] = k.into();
    }
    let bytes = serde_json::to_vec(&json)?;
    let parsed = PostInput::parse(&bytes, Path::new("<synthesized post.json>"), opts.registered.typ())
        .context("filsnark's post.json reader rejects the synthesized file")?;
    crates_accept(&parsed).context("the crates' vanilla verifier rejects the synthesized proofs")?;
    Ok(bytes)
}

/// Whether filecoin-proofs accepts a post.json's vanilla proofs ([`crate_check`] at its sector
/// size): the judge of synthesized files and of the fuzz tests' accepted inputs.
pub fn crates_accept(input: &PostInput) -> Result<()> {
    let sector_size = u64::from(input.public.registered.sector_size());
    let size = PorepKind::from_sector_size(sector_size)
        .ok_or_else(|| anyhow::anyhow!("no PoSt shape for sectors of {sector_size} bytes"))?;
    with_shape!(size, crate_check, input)
}

/// filecoin-proofs' `partition_vanilla_proofs` on a post.json: it lays the sectors' proofs out
/// per partition and runs storage-proofs-post's vanilla verifier on every partition.
fn crate_check<Tree: 'static + MerkleTreeTrait>(input: &PostInput) -> Result<()> {
    let p = &input.public;
    let config = p.registered.as_v1_config();
    let pp = match p.typ() {
        PoStType::Window => filecoin_proofs::parameters::window_post_public_params::<Tree>(&config)?,
        PoStType::Winning => filecoin_proofs::parameters::winning_post_public_params::<Tree>(&config)?,
    };
    let domain = |b: &[u8; 32]| <Tree::Hasher as Hasher>::Domain::try_from_bytes(b);
    let mut proofs = Vec::with_capacity(input.vanilla.len());
    let mut sectors = Vec::with_capacity(input.vanilla.len());
    for (s, bytes) in p.sectors.iter().zip(&input.vanilla) {
        proofs.push(bincode::deserialize::<FallbackPoStSectorProof<Tree>>(bytes)?);
        sectors.push(fallback::PublicSector { id: SectorId::from(s.num), comm_r: domain(&s.comm_r)? });
    }
    let pub_inputs = fallback::PublicInputs {
        randomness: domain(&p.randomness)?,
        prover_id: domain(&prover_id(p.miner_id))?,
        sectors,
        k: None,
    };
    let partitions = match p.typ() {
        PoStType::Window => crate::input::post::window_partitions(p.registered, p.sectors.len()),
        PoStType::Winning => 1,
    };
    filecoin_proofs::partition_vanilla_proofs(&config, &pp, &pub_inputs, partitions, &proofs)?;
    Ok(())
}

/// Per sector: number, comm_r, vanilla proof bytes.
type SynthSector = (u64, [u8; 32], Vec<u8>);

fn sectors_with<Tree>(
    opts: &PostSynthOptions,
    randomness: &[u8; 32],
    nums: &[u64],
    rng: &mut ChaCha20Rng,
) -> Result<Vec<SynthSector>>
where
    Tree: 'static
        + MerkleTreeTrait<
            Proof = MerkleProof<
                <Tree as MerkleTreeTrait>::Hasher,
                <Tree as MerkleTreeTrait>::Arity,
                <Tree as MerkleTreeTrait>::SubTreeArity,
                <Tree as MerkleTreeTrait>::TopTreeArity,
            >,
        >,
{
    let config = opts.registered.as_v1_config();
    let ids: Vec<SectorId> = nums.iter().map(|&n| SectorId::from(n)).collect();
    let challenges = filecoin_proofs::generate_fallback_sector_challenges::<Tree>(
        &config,
        randomness,
        &ids,
        prover_id(opts.miner_id),
    )?;
    let nodes = u64::from(config.sector_size) / 32;
    let arities = sector_tree_arities::<Tree>(nodes)?;
    let mut out = Vec::with_capacity(nums.len());
    for id in ids {
        let leaves: Vec<(u64, <Tree::Hasher as Hasher>::Domain)> =
            challenges[&id].iter().map(|&c| (c, <Tree::Hasher as Hasher>::Domain::random(&mut *rng))).collect();
        let tree_r = SparseTree::<Tree::Hasher>::build(arities.clone(), vec![Default::default()], leaves)?;
        let comm_c = <Tree::Hasher as Hasher>::Domain::random(&mut *rng);
        let comm_r_last = tree_r.root();
        let inclusion_proofs = challenges[&id]
            .iter()
            .map(|&c| tree_r.proof::<Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>(c))
            .collect::<Result<Vec<_>>>()?;
        let comm_r = comm_r::<Tree::Hasher>(&comm_c, &comm_r_last);
        let proof = FallbackPoStSectorProof::<Tree> {
            sector_id: id,
            comm_r,
            vanilla_proof: fallback::Proof { sectors: vec![SectorProof { inclusion_proofs, comm_c, comm_r_last }] },
        };
        let mut c = [0u8; 32];
        c.copy_from_slice(comm_r.as_ref());
        out.push((u64::from(id), c, bincode::serialize(&proof)?));
    }
    Ok(out)
}
