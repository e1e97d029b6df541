//! The three Merkle trees of a synthetic sector, sparse, with the crates' shapes and hashes:
//! - tree D: binary SHA-256 over the sector data (a random block repeated over the sector);
//! - tree C: over column hashes, Poseidon of a node's labels at every layer (the crates'
//!   `Column::hash`), in the sector size's tree shape; touched at every opened column;
//! - tree R (comm_r_last): over the replica, the last layer's label plus the data node in
//!   the field (the crates' `encode`), same shape; touched at the challenged nodes.
//!
//! comm_r = Poseidon(comm_c, comm_r_last), the sector hasher's `hash2`.
use std::collections::BTreeSet;

use anyhow::Result;
use blstrs::Scalar as Fr;
use filecoin_hashers::{sha256::Sha256Hasher, HashFunction, Hasher};
use generic_array::typenum::Unsigned;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_porep::stacked::Column;

use super::labels::SparseLabels;
use super::sparse_tree::{shape_arities, SparseTree};

type DataDomain = <Sha256Hasher as Hasher>::Domain;

/// Level arities of the sector tree shape `Tree` (tree C and tree R) over `nodes` leaves.
pub fn sector_tree_arities<Tree: MerkleTreeTrait>(nodes: u64) -> Result<Vec<usize>> {
    shape_arities(nodes, Tree::Arity::to_usize(), Tree::SubTreeArity::to_usize(), Tree::TopTreeArity::to_usize())
}

/// Tree D over a sector whose data is `block` repeated (no node differs from the pattern).
pub fn tree_d(nodes: u64, block: Vec<DataDomain>) -> Result<SparseTree<Sha256Hasher>> {
    SparseTree::build(shape_arities(nodes, 2, 0, 0)?, block, [])
}

/// The column hash of `node`: Poseidon over its labels at every layer.
pub fn column_hash<H: 'static + Hasher>(labels: &SparseLabels<'_, H>, node: u32) -> Result<H::Domain> {
    let column = Column::<H>::new(node, labels.column(node)?)?;
    Ok(column.hash().into())
}

/// Tree C: zero everywhere except at the `opened` nodes, whose leaves are their column hashes.
pub fn tree_c<Tree: MerkleTreeTrait>(
    nodes: u64,
    labels: &SparseLabels<'_, Tree::Hasher>,
    opened: &BTreeSet<u32>,
) -> Result<SparseTree<Tree::Hasher>> {
    let leaves = opened.iter().map(|&n| Ok((n as u64, column_hash(labels, n)?))).collect::<Result<Vec<_>>>()?;
    SparseTree::build(sector_tree_arities::<Tree>(nodes)?, vec![Default::default()], leaves)
}

/// The replica node: the data node encoded with the last layer's label as key (field addition).
pub fn encode<D: filecoin_hashers::Domain>(key: D, data: DataDomain) -> D {
    let sum: Fr = Into::<Fr>::into(key) + Into::<Fr>::into(data);
    sum.into()
}

/// Tree R (comm_r_last): zero everywhere except at the challenged nodes, whose leaves are
/// their replica nodes.
pub fn tree_r<Tree: MerkleTreeTrait>(
    nodes: u64,
    labels: &SparseLabels<'_, Tree::Hasher>,
    tree_d: &SparseTree<Sha256Hasher>,
    challenged: &BTreeSet<u32>,
) -> Result<SparseTree<Tree::Hasher>> {
    let last = labels.layers();
    let leaves = challenged
        .iter()
        .map(|&n| Ok((n as u64, encode(labels.label(n, last)?, tree_d.leaf(n as u64)))))
        .collect::<Result<Vec<_>>>()?;
    SparseTree::build(sector_tree_arities::<Tree>(nodes)?, vec![Default::default()], leaves)
}

/// comm_r = H(comm_c, comm_r_last).
pub fn comm_r<H: Hasher>(comm_c: &H::Domain, comm_r_last: &H::Domain) -> H::Domain {
    H::Function::hash2(comm_c, comm_r_last)
}
