//! The shape of a PoRep partition circuit (what its vanilla proofs must look like), the plain
//! form of those proofs the native witness reads, and the check of one against the other.
//!
//! The gadgets take their shape from the vanilla proofs they are given: a path with one level
//! too many makes a circuit with one more hash, a column with a missing row another column
//! hash, a level with the wrong number of siblings a panic. None of that matches the
//! parameters, so [`check_partitions`] refuses such proofs before any synthesis, naming the
//! partition, the challenge and the field as the c1.json spells it.
use anyhow::{bail, Result};
use blstrs::Scalar;

/// What one partition's circuit expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Sector size, for messages ("2KiB", "32GiB").
    pub sector: &'static str,
    /// Nodes of the sector (leaves of every tree).
    pub nodes: usize,
    pub layers: usize,
    pub drg_parents: usize,
    pub exp_parents: usize,
    /// Challenges per partition.
    pub challenges: usize,
    /// Levels of tree D's paths (binary, SHA-256).
    pub data_levels: usize,
    /// Arity of each level of tree R's and tree C's paths, leaf level first (Poseidon).
    pub tree_arities: Vec<usize>,
}

/// One level of a Merkle inclusion path: the node's siblings (arity − 1 of them) and its
/// position among its parent's children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathLevel {
    pub siblings: Vec<Scalar>,
    pub index: usize,
}

/// A column opening: the node's label in every layer and the path of its hash in tree C.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub rows: Vec<Scalar>,
    pub path: Vec<PathLevel>,
}

/// What the circuit reads of one challenge's vanilla proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeProof {
    /// The challenged data node and its path in tree D.
    pub data_leaf: Scalar,
    pub data_path: Vec<PathLevel>,
    /// The challenged node's index (`labeling_proofs[0].node`).
    pub challenge: Option<u64>,
    pub labeling_proofs: usize,
    pub drg_parents: Vec<Column>,
    pub exp_parents: Vec<Column>,
    /// Path of the encoded node in tree R, and its root.
    pub replica_path: Vec<PathLevel>,
    pub comm_r_last: Scalar,
    /// Rows of the challenged node's own column, the path of its hash in tree C, and its root.
    pub column_rows: usize,
    pub column_path: Vec<PathLevel>,
    pub comm_c: Scalar,
}

impl Shape {
    /// Whether the native witness knows this shape: the arities it hashes and inserts with,
    /// the column hashes neptune's circuit has (2 or 11 layers), the 37 parent labels a label
    /// hashes (6 base parents, 8 expander parents), and paths that pack into one input.
    pub fn is_native(&self) -> bool {
        self.tree_arities.iter().all(|&a| a == 2 || a == 8)
            && matches!(self.layers, 2 | 11)
            && self.drg_parents == 6
            && self.exp_parents == 8
            && self.data_levels < 64
            && self.tree_arities.iter().map(|a| a.trailing_zeros()).sum::<u32>() < 64
    }
}

/// Checks every partition's vanilla proofs against the shape; the first misfit is the error.
pub fn check_partitions(shape: &Shape, partitions: &[Vec<ChallengeProof>]) -> Result<()> {
    for (k, proofs) in partitions.iter().enumerate() {
        if proofs.len() != shape.challenges {
            bail!(
                "vanilla_proofs partition {k}: {} challenge proofs, the {} circuit has {} per partition",
                proofs.len(),
                shape.sector,
                shape.challenges
            );
        }
        for (i, p) in proofs.iter().enumerate() {
            check_challenge(shape, p)
                .map_err(|e| anyhow::anyhow!("vanilla_proofs partition {k} challenge {i}: {e}"))?;
            if p.comm_r_last != proofs[0].comm_r_last {
                bail!(
                    "vanilla_proofs partition {k} challenge {i}: comm_r_last_proof's root differs from challenge 0's"
                );
            }
            if p.comm_c != proofs[0].comm_c {
                bail!(
                    "vanilla_proofs partition {k} challenge {i}: replica_column_proofs.c_x's root (comm_c) differs \
                     from challenge 0's"
                );
            }
        }
    }
    Ok(())
}

fn check_challenge(shape: &Shape, p: &ChallengeProof) -> Result<()> {
    let s = shape.sector;
    check_path("comm_d_proofs", &p.data_path, &vec![2; shape.data_levels], s)?;
    if p.labeling_proofs != shape.layers {
        bail!("labeling_proofs has {} entries, the {s} circuit has {} layers", p.labeling_proofs, shape.layers);
    }
    if p.challenge.is_none_or(|c| c >= shape.nodes as u64) {
        bail!("labeling_proofs[0].node is not a node of a {s} sector ({} nodes)", shape.nodes);
    }
    for (name, cols, want) in
        [("drg_parents", &p.drg_parents, shape.drg_parents), ("exp_parents", &p.exp_parents, shape.exp_parents)]
    {
        if cols.len() != want {
            bail!("replica_column_proofs.{name} has {} columns, the {s} circuit has {want}", cols.len());
        }
        for (j, col) in cols.iter().enumerate() {
            let field = format!("replica_column_proofs.{name}[{j}]");
            if col.rows.len() != shape.layers {
                bail!("{field}.column.rows has {} labels, the {s} circuit has {} layers", col.rows.len(), shape.layers);
            }
            check_path(&format!("{field}.inclusion_proof"), &col.path, &shape.tree_arities, s)?;
        }
    }
    if p.column_rows != shape.layers {
        bail!(
            "replica_column_proofs.c_x.column.rows has {} labels, the {s} circuit has {} layers",
            p.column_rows,
            shape.layers
        );
    }
    check_path("replica_column_proofs.c_x.inclusion_proof", &p.column_path, &shape.tree_arities, s)?;
    check_path("comm_r_last_proof", &p.replica_path, &shape.tree_arities, s)
}

/// A path has one level per expected arity, each with arity − 1 siblings and an index below
/// the arity.
fn check_path(field: &str, path: &[PathLevel], arities: &[usize], sector: &str) -> Result<()> {
    if path.len() != arities.len() {
        bail!("{field} has a path of {} levels, the {sector} tree's paths have {}", path.len(), arities.len());
    }
    for (j, (level, &arity)) in path.iter().zip(arities).enumerate() {
        if level.siblings.len() + 1 != arity {
            bail!(
                "{field} level {j} has {} siblings, the {sector} tree has arity {arity} there ({} siblings)",
                level.siblings.len(),
                arity - 1
            );
        }
        if level.index >= arity {
            bail!("{field} level {j} has index {}, beyond its arity {arity}", level.index);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape_32gib() -> Shape {
        let mut tree_arities = vec![8; 10];
        tree_arities.push(8);
        Shape {
            sector: "32GiB",
            nodes: 1 << 30,
            layers: 11,
            drg_parents: 6,
            exp_parents: 8,
            challenges: 18,
            data_levels: 30,
            tree_arities,
        }
    }

    /// The native witness knows the PoRep shapes and refuses others (so callers synthesize).
    #[test]
    fn native_shapes() {
        let known = shape_32gib();
        assert!(known.is_native());
        let arity_4 = Shape { tree_arities: vec![4; 15], ..known.clone() };
        let layers_5 = Shape { layers: 5, ..known.clone() };
        let parents_7 = Shape { drg_parents: 7, ..known.clone() };
        for s in [arity_4, layers_5, parents_7] {
            assert!(!s.is_native(), "{s:?}");
        }
    }
}
