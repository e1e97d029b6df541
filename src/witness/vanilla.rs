//! From storage-proofs-porep's typed vanilla proofs to the plain [`ChallengeProof`], and the
//! [`Shape`] a tree type and its public parameters give.
//!
//! Most of a vanilla proof is public (`comm_d_proofs`, `comm_r_last_proof`, and the Merkle
//! proofs' `path()`), but the column openings' rows and paths and the labeling proofs' node are
//! private to the crate. Both types derive serde, so they are read by serializing them
//! (bincode) into mirror structs with the same fields in the same order.
use std::marker::PhantomData;

use anyhow::{Context, Result};
use filecoin_hashers::Hasher;
use generic_array::typenum::Unsigned;
use serde::{de::DeserializeOwned, Deserialize};
use storage_proofs_core::{
    drgraph::Graph,
    merkle::{base_path_length, MerkleProof, MerkleProofTrait, MerkleTreeTrait},
};
use storage_proofs_porep::stacked::{Proof as VanillaProof, PublicParams};

use super::shape::{ChallengeProof, Column, PathLevel, Shape};

type TreeDomain<Tree> = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;
type TreeProof<Tree> = MerkleProof<
    <Tree as MerkleTreeTrait>::Hasher,
    <Tree as MerkleTreeTrait>::Arity,
    <Tree as MerkleTreeTrait>::SubTreeArity,
    <Tree as MerkleTreeTrait>::TopTreeArity,
>;

/// `ReplicaColumnProof`'s fields.
#[derive(Deserialize)]
#[serde(bound = "P: DeserializeOwned, D: DeserializeOwned")]
struct ReplicaColumns<P, D> {
    c_x: ColumnProof<P, D>,
    drg_parents: Vec<ColumnProof<P, D>>,
    exp_parents: Vec<ColumnProof<P, D>>,
}

/// `ColumnProof`'s fields.
#[derive(Deserialize)]
#[serde(bound = "P: DeserializeOwned, D: DeserializeOwned")]
struct ColumnProof<P, D> {
    column: ColumnRows<D>,
    inclusion_proof: P,
}

/// `Column`'s fields.
#[derive(Deserialize)]
#[serde(bound = "D: DeserializeOwned")]
struct ColumnRows<D> {
    #[allow(dead_code)]
    index: u32,
    rows: Vec<D>,
    #[allow(dead_code)]
    _h: PhantomData<()>,
}

/// `LabelingProof`'s serialized fields.
#[derive(Deserialize)]
#[serde(bound = "D: DeserializeOwned")]
struct Labeling<D> {
    #[allow(dead_code)]
    parents: Vec<D>,
    #[allow(dead_code)]
    layer_index: u32,
    node: u64,
}

/// Reads a serde value as the mirror type `T` of the same fields.
fn mirror<S: serde::Serialize, T: DeserializeOwned>(value: &S, what: &str) -> Result<T> {
    let bytes = bincode::serialize(value).with_context(|| format!("serializing {what}"))?;
    bincode::deserialize(&bytes).with_context(|| format!("reading {what}"))
}

fn path_of<P: MerkleProofTrait>(proof: &P) -> Vec<PathLevel> {
    proof
        .path()
        .into_iter()
        .map(|(hashes, index)| PathLevel { siblings: hashes.into_iter().map(Into::into).collect(), index })
        .collect()
}

fn column_of<Tree: MerkleTreeTrait>(c: ColumnProof<TreeProof<Tree>, TreeDomain<Tree>>) -> Column {
    Column { rows: c.column.rows.into_iter().map(Into::into).collect(), path: path_of(&c.inclusion_proof) }
}

/// What the circuit reads of one challenge's vanilla proof.
pub fn challenge_proof<Tree: 'static + MerkleTreeTrait, G: 'static + Hasher>(
    p: &VanillaProof<Tree, G>,
) -> Result<ChallengeProof> {
    let columns: ReplicaColumns<TreeProof<Tree>, TreeDomain<Tree>> =
        mirror(&p.replica_column_proofs, "replica_column_proofs")?;
    let labeling: Vec<Labeling<TreeDomain<Tree>>> = mirror(&p.labeling_proofs, "labeling_proofs")?;
    let c_x = columns.c_x;
    Ok(ChallengeProof {
        data_leaf: p.comm_d_proofs.leaf().into(),
        data_path: path_of(&p.comm_d_proofs),
        challenge: labeling.first().map(|l| l.node),
        labeling_proofs: labeling.len(),
        drg_parents: columns.drg_parents.into_iter().map(column_of::<Tree>).collect(),
        exp_parents: columns.exp_parents.into_iter().map(column_of::<Tree>).collect(),
        replica_path: path_of(&p.comm_r_last_proof),
        comm_r_last: p.comm_r_last_proof.root().into(),
        column_rows: c_x.column.rows.len(),
        column_path: path_of(&c_x.inclusion_proof),
        comm_c: c_x.inclusion_proof.root().into(),
    })
}

/// Every partition's challenge proofs in plain form.
pub fn partition_proofs<Tree: 'static + MerkleTreeTrait, G: 'static + Hasher>(
    vanilla: &[Vec<VanillaProof<Tree, G>>],
) -> Result<Vec<Vec<ChallengeProof>>> {
    vanilla
        .iter()
        .enumerate()
        .map(|(k, proofs)| {
            proofs
                .iter()
                .enumerate()
                .map(|(i, p)| challenge_proof(p).with_context(|| format!("vanilla_proofs partition {k} challenge {i}")))
                .collect()
        })
        .collect()
}

/// The shape of the partition circuit of `Tree` with public parameters `pp`.
pub fn shape_of<Tree: 'static + MerkleTreeTrait>(pp: &PublicParams<Tree>, sector: &'static str) -> Shape {
    let nodes = pp.graph.size();
    let (sub, top) = (Tree::SubTreeArity::to_usize(), Tree::TopTreeArity::to_usize());
    let base = base_path_length::<Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>(nodes);
    let mut tree_arities = vec![Tree::Arity::to_usize(); base];
    tree_arities.extend([sub, top].into_iter().filter(|&a| a > 0));
    Shape {
        sector,
        nodes,
        layers: pp.num_layers,
        drg_parents: pp.graph.base_graph().degree(),
        exp_parents: pp.graph.expansion_degree(),
        challenges: pp.challenges.num_challenges_per_partition(),
        data_levels: nodes.trailing_zeros() as usize,
        tree_arities,
    }
}
