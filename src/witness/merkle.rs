//! Merkle inclusion as storage-proofs-core 19.1.0's `PoRCircuit` allocates it (private root,
//! leaf already allocated), for tree D (binary, SHA-256) and trees R and C (Poseidon, arity 8
//! with an arity-8 sub-tree level and an arity-2 top level where the sector has them).
//!
//! Per level: the index bits (little-endian, log2(arity) of them), the siblings, the children
//! with the node inserted at its index (`insert`: pick results, see [`insert`]), then the hash
//! of the children. The packed index bits of all levels are the path's public input.
//! `por_no_challenge_input` (SnapDeals) allocates neither index bits nor siblings on the way:
//! [`root_of`].
use blstrs::Scalar;

use super::poseidon::Poseidon;
use super::sha256;
use super::shape::PathLevel;
use super::PackedAux;

/// How a tree hashes a node's children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeHash {
    /// Tree D: SHA-256 of the children's 32-byte encodings, truncated to a field element.
    Sha256,
    /// Trees R and C: Poseidon of the children.
    Poseidon,
}

/// Walks `path` up from `leaf`, appending what the circuit allocates; returns the public input
/// (the index bits of every level packed, the leaf level's lowest).
pub fn inclusion(aux: &mut PackedAux, leaf: Scalar, path: &[PathLevel], hash: NodeHash) -> Scalar {
    let mut cur = leaf;
    for level in path {
        let children = open_level(aux, cur, level);
        cur = match hash {
            NodeHash::Sha256 => sha256_children(aux, &children),
            NodeHash::Poseidon => poseidon(children.len()).hash(aux, &children),
        };
    }
    path_input(path)
}

/// [`inclusion`] of several paths of one Poseidon tree (trees R and C) at once, each into its
/// own aux (`aux[i]` for `paths[i]`, from leaf `leaves[i]`): level by level, the level's hashes
/// of every path run together ([`Poseidon::hash_many`]: eight at a time on AVX-512 IFMA).
/// Returns each path's public input. The paths must have one shape (the arities of their
/// levels), as the vanilla checks ensure for the openings of one sector size.
pub fn poseidon_inclusions(aux: &mut [PackedAux], leaves: &[Scalar], paths: &[&[PathLevel]]) -> Vec<Scalar> {
    assert!(aux.len() == leaves.len() && leaves.len() == paths.len(), "one aux and leaf per path");
    let levels = paths.first().map_or(0, |p| p.len());
    let mut cur = leaves.to_vec();
    for k in 0..levels {
        let children: Vec<Vec<Scalar>> =
            aux.iter_mut().zip(paths).zip(&cur).map(|((a, p), &c)| open_level(a, c, &p[k])).collect();
        let arity = children[0].len();
        assert!(children.iter().all(|c| c.len() == arity), "level {k}: paths of different arities");
        cur = poseidon(arity).hash_many(aux, &children);
    }
    paths.iter().map(|p| path_input(p)).collect()
}

fn poseidon(arity: usize) -> &'static Poseidon {
    Poseidon::arity(arity).expect("a Poseidon arity of the shape")
}

/// One level's allocations before its hash: the index bits (little-endian), the siblings, and
/// the children with `node` inserted at its index; returns the children.
fn open_level(aux: &mut PackedAux, node: Scalar, level: &PathLevel) -> Vec<Scalar> {
    aux.push_bits(level.index as u64, (level.siblings.len() + 1).trailing_zeros());
    for s in &level.siblings {
        aux.push_field(*s);
    }
    insert(aux, node, level.index, &level.siblings)
}

/// The public input of a path: every level's index bits packed, the leaf level's lowest.
fn path_input(path: &[PathLevel]) -> Scalar {
    let (mut input, mut shift) = (0u64, 0u32);
    for level in path {
        input |= (level.index as u64) << shift;
        shift += (level.siblings.len() + 1).trailing_zeros();
    }
    Scalar::from(input)
}

/// `por_no_challenge_input`: walks `path` up from `leaf` as [`inclusion`] does, but the index
/// bits come from challenge bits and the siblings were allocated before (by the caller), so per
/// level only the children with the node inserted and their hash are appended. Returns the
/// root computed.
pub fn root_of(aux: &mut PackedAux, leaf: Scalar, path: &[PathLevel], hash: NodeHash) -> Scalar {
    let mut cur = leaf;
    for level in path {
        let children = insert(aux, cur, level.index, &level.siblings);
        cur = match hash {
            NodeHash::Sha256 => sha256_children(aux, &children),
            NodeHash::Poseidon => poseidon(children.len()).hash(aux, &children),
        };
    }
    cur
}

/// `pick`: allocates `a` when `cond`, else `b`.
#[inline]
fn pick(aux: &mut PackedAux, cond: bool, a: Scalar, b: Scalar) -> Scalar {
    let v = if cond { a } else { b };
    aux.push_field(v);
    v
}

/// The children of a level: `siblings` with `node` inserted at `index`, as `insert_2` and
/// `insert_8` allocate them (arity 8 first allocates `b0 nor b1` and `b0 and b1`).
fn insert(aux: &mut PackedAux, node: Scalar, index: usize, siblings: &[Scalar]) -> Vec<Scalar> {
    let (b0, b1, b2) = (index & 1 == 1, index & 2 == 2, index & 4 == 4);
    let a = node;
    match *siblings {
        [b] => vec![pick(aux, b0, b, a), pick(aux, b0, a, b)],
        [b, c, d, e, f, g, h] => {
            let (nor, and) = (!b0 && !b1, b0 && b1);
            aux.push_bit(nor);
            aux.push_bit(and);
            let mut p = |cond, x, y| pick(aux, cond, x, y);
            let p0_xx0 = p(nor, a, b);
            let p0 = p(b2, b, p0_xx0);
            let p1_x00 = p(b0, a, b);
            let p1_xx0 = p(b1, c, p1_x00);
            let p1 = p(b2, c, p1_xx0);
            let p2_x10 = p(b0, d, a);
            let p2_xx0 = p(b1, p2_x10, c);
            let p2 = p(b2, d, p2_xx0);
            let p3_xx0 = p(and, a, d);
            let p3 = p(b2, e, p3_xx0);
            let p4_xx1 = p(nor, a, f);
            let p4 = p(b2, p4_xx1, e);
            let p5_x01 = p(b0, a, f);
            let p5_xx1 = p(b1, g, p5_x01);
            let p5 = p(b2, p5_xx1, f);
            let p6_x11 = p(b0, h, a);
            let p6_xx1 = p(b1, p6_x11, g);
            let p6 = p(b2, p6_xx1, g);
            let p7_xx1 = p(and, a, h);
            let p7 = p(b2, p7_xx1, h);
            vec![p0, p1, p2, p3, p4, p5, p6, p7]
        }
        _ => unreachable!("the shape check admits arities 2 and 8 only"),
    }
}

/// `Sha256Function::hash_multi_leaf_circuit` (and `hash2_circuit` for two children): each
/// child's 255 bits, then SHA-256 of their 32-byte encodings, packed into a field element.
pub fn sha256_children(aux: &mut PackedAux, children: &[Scalar]) -> Scalar {
    let mut message = Vec::with_capacity(8 * children.len());
    for c in children {
        aux.push_le_bits(c);
        message.extend_from_slice(&sha256::field_words(c));
    }
    let digest = sha256::sha256(aux, &message);
    let v = sha256::digest_scalar(&digest);
    aux.push_field(v);
    v
}
