//! Sparse Merkle trees: the Merkle trees of a whole sector (tree D, tree C, tree R) held only
//! along the paths a vanilla proof opens.
//!
//! Every node the tree does not store explicitly is *untouched*: its value comes from a
//! per-level repeating pattern. At the leaves the pattern is a block of leaf values repeated
//! over the whole width of the tree (one zero for tree C and tree R, a random data block for
//! tree D); one level up it is the hashes of the pattern's groups, and so on, until the
//! pattern is a single value per level (the hash of a subtree made only of pattern leaves).
//! A tree over 2^30 leaves therefore costs memory only for the pattern and for the touched
//! leaves and their ancestors.
//!
//! Hashing is the crates' own: `multi_node` of the hasher's merkletree `Algorithm`, the
//! function `InclusionPath::root` uses to check a path, and the shapes are the crates' (base
//! arity levels, then one sub-tree level, then one top-tree level). Proofs come out as
//! storage-proofs-core `MerkleProof`s.
use std::collections::{BTreeSet, HashMap};

use anyhow::{bail, ensure, Result};
use filecoin_hashers::{Hasher, PoseidonArity};
use merkletree::hash::Algorithm;
use storage_proofs_core::merkle::MerkleProof;

/// A Merkle tree whose untouched nodes follow a repeating pattern per level.
pub struct SparseTree<H: Hasher> {
    /// Arity of the grouping above each level, from the leaves up.
    arities: Vec<usize>,
    /// Per level (leaves first, root last): the repeating values of untouched nodes.
    patterns: Vec<Vec<H::Domain>>,
    /// Per level: nodes that differ from the pattern (touched leaves and their ancestors).
    touched: Vec<HashMap<u64, H::Domain>>,
}

/// The hash of one group of sibling nodes, as the crates' trees and path checks compute it.
pub fn hash_group<H: Hasher>(children: &[H::Domain], height: usize) -> H::Domain {
    let mut f = H::Function::default();
    f.multi_node(children, height)
}

/// Number of leaves under a tree with these level arities.
pub fn leaf_count(arities: &[usize]) -> u64 {
    arities.iter().map(|&a| a as u64).product()
}

/// Level arities of a sector tree: `base` repeated until the base trees hold
/// `leaves / (sub·top)` leaves, then `sub` and `top` when they are not 0 (the crates' shapes
/// 8-0-0, 8-8-0, 8-8-2; tree D is 2-0-0).
pub fn shape_arities(leaves: u64, base: usize, sub: usize, top: usize) -> Result<Vec<usize>> {
    ensure!(base >= 2, "base arity {base} is not a tree");
    let base_leaves = leaves / (sub.max(1) as u64 * top.max(1) as u64);
    let mut arities = Vec::new();
    let mut width = 1u64;
    while width < base_leaves {
        width *= base as u64;
        arities.push(base);
    }
    ensure!(width == base_leaves, "{leaves} leaves do not make base trees of arity {base} (sub {sub}, top {top})");
    arities.extend([sub, top].into_iter().filter(|&a| a > 0));
    ensure!(leaf_count(&arities) == leaves, "tree shape {arities:?} does not cover {leaves} leaves");
    Ok(arities)
}

impl<H: Hasher> SparseTree<H> {
    /// Builds the tree: `pattern` repeats over all leaves, `leaves` overrides some of them.
    /// The pattern's length must divide the leaf count along the level arities (1, or a
    /// whole number of groups at every level until it shrinks to one value).
    pub fn build(
        arities: Vec<usize>,
        pattern: Vec<H::Domain>,
        leaves: impl IntoIterator<Item = (u64, H::Domain)>,
    ) -> Result<Self> {
        let width = leaf_count(&arities);
        let patterns = level_patterns::<H>(&arities, pattern)?;
        let mut touched = vec![HashMap::new(); arities.len() + 1];
        for (i, v) in leaves {
            ensure!(i < width, "leaf {i} is outside a tree of {width} leaves");
            touched[0].insert(i, v);
        }
        let mut tree = Self { arities, patterns, touched };
        tree.hash_touched_ancestors();
        Ok(tree)
    }

    /// Recomputes, level by level, every ancestor of a touched node.
    fn hash_touched_ancestors(&mut self) {
        for level in 0..self.arities.len() {
            let a = self.arities[level] as u64;
            let groups: BTreeSet<u64> = self.touched[level].keys().map(|&i| i / a).collect();
            for g in groups {
                let children: Vec<H::Domain> = (g * a..(g + 1) * a).map(|i| self.node(level, i)).collect();
                let parent = hash_group::<H>(&children, level);
                self.touched[level + 1].insert(g, parent);
            }
        }
    }

    /// The value of node `index` at `level` (0 = leaves).
    pub fn node(&self, level: usize, index: u64) -> H::Domain {
        match self.touched[level].get(&index) {
            Some(v) => *v,
            None => {
                let p = &self.patterns[level];
                p[(index % p.len() as u64) as usize]
            }
        }
    }

    pub fn leaves(&self) -> u64 {
        leaf_count(&self.arities)
    }

    pub fn leaf(&self, index: u64) -> H::Domain {
        self.node(0, index)
    }

    pub fn root(&self) -> H::Domain {
        self.node(self.arities.len(), 0)
    }

    /// The path of leaf `index`: per level from the leaves up, the siblings (the group without
    /// the node itself) and the node's position in its group.
    pub fn path(&self, index: u64) -> Vec<(Vec<H::Domain>, usize)> {
        let mut i = index;
        let mut path = Vec::with_capacity(self.arities.len());
        for (level, &a) in self.arities.iter().enumerate() {
            let a = a as u64;
            let (g, pos) = (i / a, i % a);
            let siblings = (g * a..(g + 1) * a).filter(|&j| j != i).map(|j| self.node(level, j)).collect();
            path.push((siblings, pos as usize));
            i = g;
        }
        path
    }

    /// The storage-proofs-core inclusion proof of leaf `index`, for a proof type whose shape
    /// (base, sub, top arity) must be this tree's.
    pub fn proof<A: PoseidonArity, B: PoseidonArity, C: PoseidonArity>(
        &self,
        index: u64,
    ) -> Result<MerkleProof<H, A, B, C>> {
        let (a, b, c) = (A::to_usize(), B::to_usize(), C::to_usize());
        let want = shape_arities(self.leaves(), a, b, c)?;
        if want != self.arities {
            bail!("proof shape {a}-{b}-{c} does not match the tree's level arities {:?}", self.arities);
        }
        Ok(MerkleProof::from_parts(self.leaf(index), self.root(), self.path(index)))
    }
}

/// The repeating pattern of every level, from the leaf pattern up to the root.
fn level_patterns<H: Hasher>(arities: &[usize], leaf_pattern: Vec<H::Domain>) -> Result<Vec<Vec<H::Domain>>> {
    ensure!(!leaf_pattern.is_empty(), "the leaf pattern is empty");
    ensure!(
        leaf_count(arities).is_multiple_of(leaf_pattern.len() as u64),
        "a pattern of {} leaves does not repeat evenly over {} leaves",
        leaf_pattern.len(),
        leaf_count(arities)
    );
    let mut patterns = vec![leaf_pattern];
    for (level, &a) in arities.iter().enumerate() {
        let below = &patterns[level];
        let next: Vec<H::Domain> = if below.len() == 1 {
            vec![hash_group::<H>(&vec![below[0]; a], level)]
        } else {
            ensure!(below.len().is_multiple_of(a), "a pattern of {} nodes does not fill groups of {a}", below.len());
            below.chunks(a).map(|g| hash_group::<H>(g, level)).collect()
        };
        patterns.push(next);
    }
    Ok(patterns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use filecoin_hashers::{poseidon::PoseidonHasher, sha256::Sha256Hasher, Domain};
    use generic_array::typenum::{U0, U2, U8};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use storage_proofs_core::merkle::MerkleProofTrait;

    /// A dense tree, level by level, with the same hash: the reference for the sparse one.
    fn dense_root<H: Hasher>(arities: &[usize], leaves: Vec<H::Domain>) -> H::Domain {
        let mut level = leaves;
        for (h, &a) in arities.iter().enumerate() {
            level = level.chunks(a).map(|g| hash_group::<H>(g, h)).collect();
        }
        assert_eq!(level.len(), 1);
        level[0]
    }

    #[test]
    fn shapes_match_the_crates() {
        assert_eq!(shape_arities(64, 8, 0, 0).unwrap(), vec![8, 8]);
        assert_eq!(shape_arities(1 << 30, 8, 8, 0).unwrap().len(), 10);
        assert_eq!(shape_arities(1 << 31, 8, 8, 2).unwrap(), [vec![8; 9], vec![8, 2]].concat());
        assert_eq!(shape_arities(1 << 30, 2, 0, 0).unwrap().len(), 30);
        assert!(shape_arities(1 << 31, 8, 0, 0).is_err()); // 2^31 is no power of 8
    }

    #[test]
    fn sparse_equals_dense_and_proofs_verify() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        // Shape 8-2-0 over 128 leaves: two base trees of 64 leaves joined by a sub-tree level.
        let arities = shape_arities(128, 8, 2, 0).unwrap();
        let pattern: Vec<_> = (0..8).map(|_| <PoseidonHasher as Hasher>::Domain::random(&mut rng)).collect();
        let touched: Vec<(u64, _)> =
            [3u64, 9, 64, 127].iter().map(|&i| (i, <PoseidonHasher as Hasher>::Domain::random(&mut rng))).collect();
        let tree = SparseTree::<PoseidonHasher>::build(arities.clone(), pattern.clone(), touched.clone()).unwrap();
        let mut dense: Vec<_> = (0..128).map(|i| pattern[i % 8]).collect();
        for (i, v) in &touched {
            dense[*i as usize] = *v;
        }
        assert_eq!(tree.root(), dense_root::<PoseidonHasher>(&arities, dense));
        for i in [0u64, 3, 9, 64, 100, 127] {
            let p: MerkleProof<PoseidonHasher, U8, U2, U0> = tree.proof(i).unwrap();
            assert!(p.verify(), "leaf {i}");
            assert!(p.proves_challenge(i as usize));
            assert_eq!(p.leaf(), tree.leaf(i));
        }
        assert!(tree.proof::<U8, U0, U0>(3).is_err());
    }

    /// The crates' own in-memory trees (merkletree through storage-proofs-core) over the same
    /// leaves give the same roots and the same proof paths: binary SHA-256 (tree D) and the
    /// 8-8-2 Poseidon shape with base, sub and top levels (64GiB's tree C and tree R).
    #[test]
    fn same_roots_and_paths_as_the_crates_trees() {
        use merkletree::store::VecStore;
        use storage_proofs_core::merkle::{MerkleTreeTrait, MerkleTreeWrapper};
        type PD = <PoseidonHasher as Hasher>::Domain;
        type SD = <Sha256Hasher as Hasher>::Domain;
        let mut rng = ChaCha8Rng::seed_from_u64(9);

        let data: Vec<SD> = (0..64).map(|_| SD::random(&mut rng)).collect();
        let dense = MerkleTreeWrapper::<Sha256Hasher, VecStore<SD>, U2, U0, U0>::new(data.clone()).unwrap();
        let sparse = SparseTree::<Sha256Hasher>::build(shape_arities(64, 2, 0, 0).unwrap(), data, []).unwrap();
        assert_eq!(sparse.root(), dense.root());
        for i in [1usize, 37, 63] {
            assert_eq!(sparse.path(i as u64), dense.gen_proof(i).unwrap().path(), "tree D leaf {i}");
        }

        // 16 base trees of 64 leaves, 2 sub-trees of 8, a top of 2: zeros but for a few leaves.
        let mut leaves = vec![PD::default(); 1024];
        let touched: Vec<(u64, PD)> = [5u64, 64, 511, 512, 1023].iter().map(|&i| (i, PD::random(&mut rng))).collect();
        for (i, v) in &touched {
            leaves[*i as usize] = *v;
        }
        type Base = MerkleTreeWrapper<PoseidonHasher, VecStore<PD>, U8, U0, U0>;
        type Sub = MerkleTreeWrapper<PoseidonHasher, VecStore<PD>, U8, U8, U0>;
        let base: Vec<Base> = leaves.chunks(64).map(|c| Base::new(c.to_vec()).unwrap()).collect();
        let mut base = base.into_iter();
        let subs: Vec<Sub> = (0..2).map(|_| Sub::from_trees(base.by_ref().take(8).collect()).unwrap()).collect();
        let top = MerkleTreeWrapper::<PoseidonHasher, VecStore<PD>, U8, U8, U2>::from_sub_trees(subs).unwrap();
        let arities = shape_arities(1024, 8, 8, 2).unwrap();
        let sparse = SparseTree::<PoseidonHasher>::build(arities, vec![PD::default()], touched).unwrap();
        assert_eq!(sparse.root(), top.root());
        for i in [0usize, 5, 64, 300, 512, 1023] {
            let theirs = top.gen_proof(i).unwrap();
            let ours: MerkleProof<PoseidonHasher, U8, U8, U2> = sparse.proof(i as u64).unwrap();
            assert_eq!(ours.path(), theirs.path(), "8-8-2 leaf {i}");
            assert_eq!((ours.leaf(), ours.root()), (theirs.leaf(), theirs.root()));
        }
    }

    #[test]
    fn binary_sha256_with_a_constant_pattern() {
        let zero = <Sha256Hasher as Hasher>::Domain::default();
        let arities = shape_arities(1 << 20, 2, 0, 0).unwrap();
        let tree = SparseTree::<Sha256Hasher>::build(arities, vec![zero], []).unwrap();
        let p: MerkleProof<Sha256Hasher, U2> = tree.proof(12345).unwrap();
        assert!(p.verify() && p.proves_challenge(12345));
        let small = SparseTree::<Sha256Hasher>::build(vec![2; 4], vec![zero], []).unwrap();
        assert_eq!(small.root(), dense_root::<Sha256Hasher>(&[2; 4], vec![zero; 16]));
    }
}
