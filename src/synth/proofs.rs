//! The vanilla proof of one challenge, assembled from a synthetic sector exactly as
//! storage-proofs-porep's prover lays it out (`prove_layers_generate`):
//! - comm_d proof: tree D path of the challenged node (its data);
//! - replica column proofs: the column (labels at every layer) and tree C path of the
//!   challenged node, of its 6 DRG parents and of its 8 expander parents;
//! - comm_r_last proof: tree R path of the challenged node (its replica node);
//! - labeling proofs, layer 1..=layers: the 37 parent labels of the node at that layer;
//! - encoding proof: the labeling proof of the last layer.
use anyhow::Result;
use filecoin_hashers::sha256::Sha256Hasher;
use storage_proofs_core::merkle::{MerkleProof, MerkleTreeTrait};
use storage_proofs_porep::stacked::{
    ColumnProof, EncodingProof, LabelingProof, Proof, ReplicaColumnProof, StackedBucketGraph,
};

use super::labels::{drg_parents, exp_parents, SparseLabels};
use super::sparse_tree::SparseTree;

/// Inclusion proofs in a tree of the sector's shape (tree C, tree R).
type TreeProof<Tree> = MerkleProof<
    <Tree as MerkleTreeTrait>::Hasher,
    <Tree as MerkleTreeTrait>::Arity,
    <Tree as MerkleTreeTrait>::SubTreeArity,
    <Tree as MerkleTreeTrait>::TopTreeArity,
>;

/// Everything a challenge's proof is read from.
pub struct SyntheticSector<'g, Tree: MerkleTreeTrait> {
    pub graph: &'g StackedBucketGraph<Tree::Hasher>,
    pub labels: SparseLabels<'g, Tree::Hasher>,
    pub tree_d: SparseTree<Sha256Hasher>,
    pub tree_c: SparseTree<Tree::Hasher>,
    pub tree_r: SparseTree<Tree::Hasher>,
}

impl<Tree: 'static + MerkleTreeTrait> SyntheticSector<'_, Tree> {
    /// The opened column of `node`: its labels and their tree C path.
    fn column_proof(&self, node: u32) -> Result<ColumnProof<TreeProof<Tree>>> {
        let column = self.labels.column(node)?;
        Ok(ColumnProof::new(node, column, self.tree_c.proof(node as u64)?))
    }

    /// The vanilla proof of `challenge`.
    pub fn challenge_proof(&self, challenge: u32) -> Result<Proof<Tree, Sha256Hasher>> {
        let layers = self.labels.layers();
        let node = challenge as u64;
        let replica_column_proofs = ReplicaColumnProof {
            c_x: self.column_proof(challenge)?,
            drg_parents: drg_parents(self.graph, challenge)?
                .into_iter()
                .map(|p| self.column_proof(p))
                .collect::<Result<_>>()?,
            exp_parents: exp_parents(self.graph, challenge)?
                .into_iter()
                .map(|p| self.column_proof(p))
                .collect::<Result<_>>()?,
        };
        let labeling_proofs = (1..=layers)
            .map(|l| Ok(LabelingProof::new(l as u32, node, self.labels.parent_labels(challenge, l)?)))
            .collect::<Result<Vec<_>>>()?;
        let encoding_proof = EncodingProof::new(layers as u32, node, self.labels.parent_labels(challenge, layers)?);
        Ok(Proof {
            comm_d_proofs: self.tree_d.proof(node)?,
            comm_r_last_proof: self.tree_r.proof(node)?,
            replica_column_proofs,
            labeling_proofs,
            encoding_proof,
        })
    }
}
