//! Synthetic snap.json: a SnapDeals input whose vanilla partition proofs the crates accept, at
//! any sector size, without sealing or encoding a sector (`filsnark snap synth`).
//!
//! The update encodes new data D into the old replica R_old as
//! R_new[i] = R_old[i] + D[i]·rho(i >> (log2(nodes) − h)), rho = H(phi, high bits),
//! phi = H(comm_d_new ‖ comm_r_old), and the challenges come from comm_r_new. With R_old and D
//! each one random value repeated over the sector, tree D and tree R_old are constant per level
//! ([`SparseTree`] with a one-value pattern), and R_new is constant over each of the 2^h blocks
//! of `nodes / 2^h` leaves that share their high bits: [`BlockTree`] hashes such a tree with
//! one value per block up to the level where nodes span more than a block, and every node
//! above it. So comm_r_old, comm_d_new, phi, every rho and comm_r_new are computed before
//! any challenge is drawn, as the real encoding does, and the vanilla proofs are the crates'
//! Merkle proofs in those trees. Every partition passes the crate's vanilla verifier, and the
//! output filsnark's snap.json reader, before it is returned.
use std::path::Path;

use anyhow::{ensure, Context, Result};
use blstrs::Scalar as Fr;
use filecoin_hashers::{poseidon::PoseidonHasher, sha256::Sha256Hasher, Domain, Hasher};
use generic_array::typenum::{U0, U2};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::merkle::{MerkleProof, MerkleTreeTrait};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_update::constants::{h_default, TreeRDomain, TreeRHasher};
use storage_proofs_update::{
    phi, rho, ChallengeProof, Challenges, EmptySectorUpdate, PartitionProof, PublicInputs, PublicParams,
};

use super::sparse_tree::{hash_group, leaf_count, shape_arities, SparseTree};
use super::trees::{comm_r, sector_tree_arities};
use crate::input::fields::{to_base64, to_hex};
use crate::input::proof_type::with_shape;
use crate::input::snap::registered_update;
use crate::input::{PorepKind, SnapInput};

/// A Merkle tree whose leaves are constant over aligned blocks of `2^block_bits` leaves.
pub struct BlockTree<H: Hasher> {
    arities: Vec<usize>,
    block_bits: u32,
    /// Per level: one value per block while a node spans at most one block (`None` above).
    per_block: Vec<Option<Vec<H::Domain>>>,
    /// Per level: every node, from the first level whose nodes span more than one block.
    explicit: Vec<Option<Vec<H::Domain>>>,
}

impl<H: Hasher> BlockTree<H> {
    /// `blocks[b]` is the value of every leaf of block b; the blocks must tile the leaves.
    pub fn build(arities: Vec<usize>, block_bits: u32, blocks: Vec<H::Domain>) -> Result<Self> {
        let leaves = leaf_count(&arities);
        ensure!(
            leaves == (blocks.len() as u64) << block_bits,
            "{} blocks of 2^{block_bits} do not tile {leaves} leaves",
            blocks.len()
        );
        let levels = arities.len() + 1;
        let mut t = BlockTree { arities, block_bits, per_block: vec![None; levels], explicit: vec![None; levels] };
        t.per_block[0] = Some(blocks);
        let mut span = 1u64;
        for level in 1..levels {
            let a = t.arities[level - 1];
            span *= a as u64;
            let values = if span <= 1 << block_bits {
                let below = t.per_block[level - 1].as_ref().expect("a per-block level");
                let row = below.iter().map(|v| hash_group::<H>(&vec![*v; a], level - 1)).collect();
                t.per_block[level] = Some(row);
                continue;
            } else {
                let width = leaves / span;
                (0..width)
                    .map(|g| {
                        let children: Vec<_> =
                            (g * a as u64..(g + 1) * a as u64).map(|i| t.node(level - 1, i)).collect();
                        hash_group::<H>(&children, level - 1)
                    })
                    .collect()
            };
            t.explicit[level] = Some(values);
        }
        Ok(t)
    }

    fn span(&self, level: usize) -> u64 {
        self.arities[..level].iter().map(|&a| a as u64).product()
    }

    pub fn node(&self, level: usize, index: u64) -> H::Domain {
        match (&self.per_block[level], &self.explicit[level]) {
            (Some(row), _) => row[((index * self.span(level)) >> self.block_bits) as usize],
            (None, Some(row)) => row[index as usize],
            (None, None) => unreachable!("every level is built"),
        }
    }

    pub fn root(&self) -> H::Domain {
        self.node(self.arities.len(), 0)
    }

    /// The inclusion proof of leaf `index` (the shape must be the tree's).
    pub fn proof<A, B, C>(&self, index: u64) -> MerkleProof<H, A, B, C>
    where
        A: filecoin_hashers::PoseidonArity,
        B: filecoin_hashers::PoseidonArity,
        C: filecoin_hashers::PoseidonArity,
    {
        let mut i = index;
        let mut path = Vec::with_capacity(self.arities.len());
        for (level, &a) in self.arities.iter().enumerate() {
            let a = a as u64;
            let (g, pos) = (i / a, i % a);
            path.push(((g * a..(g + 1) * a).filter(|&j| j != i).map(|j| self.node(level, j)).collect(), pos as usize));
            i = g;
        }
        MerkleProof::from_parts(self.node(0, index), self.root(), path)
    }
}

/// The snap.json bytes of a synthetic update of a `size` sector, checked.
pub fn synth_snap(size: PorepKind, seed: u64) -> Result<Vec<u8>> {
    let (comms, proofs) = with_shape!(size, partitions_with, size, seed)?;
    let json = serde_json::json!({
        "UpdateProof": format!("{:?}", registered_update(size)),
        "CommROld": to_hex(&comms[0]),
        "CommRNew": to_hex(&comms[1]),
        "CommDNew": to_hex(&comms[2]),
        "VanillaProofs": proofs.iter().map(|p| to_base64(p)).collect::<Vec<_>>(),
    });
    let bytes = serde_json::to_vec(&json)?;
    SnapInput::parse(&bytes, Path::new("<synthesized snap.json>"))
        .context("filsnark's snap.json reader rejects the synthesized file")?;
    Ok(bytes)
}

fn bytes32<D: Domain>(d: &D) -> [u8; 32] {
    let mut b = [0u8; 32];
    b.copy_from_slice(d.as_ref());
    b
}

/// comm_r_old, comm_r_new, comm_d_new and the bincode of every partition's vanilla proof.
type Update = ([[u8; 32]; 3], Vec<Vec<u8>>);

fn partitions_with<Tree>(size: PorepKind, seed: u64) -> Result<Update>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
{
    let pp = PublicParams::from_sector_size(size.sector_size());
    let nodes = pp.sector_nodes as u64;
    let h = h_default(pp.sector_nodes);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let (x, y, comm_c) = (
        TreeRDomain::random(&mut rng),
        <Sha256Hasher as Hasher>::Domain::random(&mut rng),
        TreeRDomain::random(&mut rng),
    );
    let arities = sector_tree_arities::<Tree>(nodes)?;
    let tree_d = SparseTree::<Sha256Hasher>::build(shape_arities(nodes, 2, 0, 0)?, vec![y], [])?;
    let tree_r_old = SparseTree::<PoseidonHasher>::build(arities.clone(), vec![x], [])?;
    let comm_d_new = tree_d.root();
    let comm_r_old = comm_r::<PoseidonHasher>(&comm_c, &tree_r_old.root());
    let phi = phi(&comm_d_new, &comm_r_old);
    let (x, y): (Fr, Fr) = (x.into(), y.into());
    let blocks = (0..1u32 << h).map(|high| (x + y * rho(&phi, high)).into()).collect();
    let tree_r_new = BlockTree::<PoseidonHasher>::build(arities, pp.challenge_bit_len as u32 - h as u32, blocks)?;
    let comm_r_new = comm_r::<PoseidonHasher>(&comm_c, &tree_r_new.root());

    let apex_level = pp.challenge_bit_len - pp.partition_bit_len - pp.apex_leaf_bit_len;
    let proofs = (0..pp.partition_count)
        .map(|k| {
            let apex_leafs =
                (0..pp.apex_leaf_count).map(|i| tree_d.node(apex_level, (k * pp.apex_leaf_count + i) as u64)).collect();
            let challenge_proofs = Challenges::new(pp.sector_nodes, comm_r_new, k)
                .map(|c| {
                    let c = c as u64;
                    Ok(ChallengeProof::<Tree> {
                        proof_r_old: tree_r_old.proof::<Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>(c)?,
                        proof_d_new: tree_d.proof::<U2, U0, U0>(c)?,
                        proof_r_new: tree_r_new.proof::<Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>(c),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(PartitionProof::<Tree> { comm_c, apex_leafs, challenge_proofs })
        })
        .collect::<Result<Vec<_>>>()?;
    let pub_inputs = PublicInputs { k: 0, comm_r_old, comm_d_new, comm_r_new, h };
    ensure!(
        EmptySectorUpdate::<Tree>::verify_all_partitions(&pp, &pub_inputs, &proofs)?,
        "the crate's vanilla verifier rejects the synthesized partition proofs"
    );
    let proofs = proofs.iter().map(bincode::serialize).collect::<Result<Vec<_>, _>>()?;
    Ok(([bytes32(&comm_r_old), bytes32(&comm_r_new), bytes32(&comm_d_new)], proofs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use filecoin_hashers::poseidon::PoseidonHasher;
    use rand::Rng;

    /// A block tree hashes to the same root and paths as the sparse tree over the same leaves
    /// written out one by one.
    #[test]
    fn block_tree_is_the_dense_tree() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let arities = vec![8, 8, 2];
        let blocks: Vec<_> = (0..4).map(|_| <PoseidonHasher as Hasher>::Domain::random(&mut rng)).collect();
        let bt = BlockTree::<PoseidonHasher>::build(arities.clone(), 5, blocks.clone()).unwrap();
        let leaves = (0..128u64).map(|i| (i, blocks[(i >> 5) as usize]));
        let dense = SparseTree::<PoseidonHasher>::build(arities, vec![Default::default()], leaves).unwrap();
        assert_eq!(bt.root(), dense.root());
        for _ in 0..8 {
            let i = rng.gen_range(0..128u64);
            let got = bt.proof::<generic_array::typenum::U8, generic_array::typenum::U8, U2>(i);
            let want = dense.proof::<generic_array::typenum::U8, generic_array::typenum::U8, U2>(i).unwrap();
            assert_eq!(format!("{got:?}"), format!("{want:?}"));
        }
    }

    /// Every size's synthetic update passes the crate's vanilla verifier (synth_snap checks it),
    /// with the update circuit's partition count; 32GiB has 16 partitions of 86 challenges.
    #[test]
    fn synthetic_updates_verify() {
        for (size, partitions) in [(PorepKind::S2KiB, 1), (PorepKind::S8MiB, 4), (PorepKind::S32GiB, 16)] {
            let bytes = synth_snap(size, 5).unwrap();
            let input = SnapInput::parse(&bytes, Path::new("snap.json")).unwrap();
            assert_eq!(input.vanilla.len(), partitions, "{}", size.name());
            assert_ne!(
                input.public.comm_r_old,
                input.public.comm_r_new,
                "{}: the update changes the replica",
                size.name()
            );
        }
    }
}
