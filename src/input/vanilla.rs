//! The nodes inside the vanilla proofs of a post.json or snap.json. bincode decodes any 32
//! bytes into a tree node and any count of siblings into a Merkle path level, and the crates'
//! hashers panic on a node that is not a canonical field element ([`super::field`]), on a
//! level of the wrong size and on a position past its group. So every node and every path
//! level of every vanilla proof is checked here, before the proofs are checked against their
//! sectors, and refused with its place, e.g. `VanillaProofs[0] (sector 3): sector proof 0:
//! inclusion proof 8: path level 1, sibling 2 is not a field element`. A proof that does not
//! decode is left to those checks, which say so.
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use filecoin_hashers::Domain;
use filecoin_proofs::FallbackPoStSectorProof;
use generic_array::typenum::Unsigned;
use storage_proofs_core::merkle::{MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_update::constants::TreeRHasher;
use storage_proofs_update::PartitionProof;

use super::field::{check_canonical, is_canonical};
use super::proof_type::with_shape;
use super::{PostInput, SnapInput};

/// Checks every node of every vanilla proof of a post.json; errors name the file, the entry
/// and the node.
pub fn check_post_elements(input: &PostInput) -> Result<()> {
    with_shape!(input.size, post_elements, input)
}

/// Checks every node of every vanilla partition proof of a snap.json; errors name the file,
/// the entry and the node.
pub fn check_snap_elements(input: &SnapInput) -> Result<()> {
    with_shape!(input.size, snap_elements, input)
}

fn post_elements<Tree: 'static + MerkleTreeTrait>(input: &PostInput) -> Result<()> {
    for (i, bytes) in input.vanilla.iter().enumerate() {
        let Ok(proof) = bincode::deserialize::<FallbackPoStSectorProof<Tree>>(bytes) else { continue };
        let at = format!("VanillaProofs[{i}] (sector {})", input.public.sectors[i].num);
        sector_proof(&proof).map_err(|e| named(&input.path, &at, e))?;
    }
    Ok(())
}

fn snap_elements<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(input: &SnapInput) -> Result<()> {
    for (k, bytes) in input.vanilla.iter().enumerate() {
        let Ok(proof) = bincode::deserialize::<PartitionProof<Tree>>(bytes) else { continue };
        partition_proof(&proof).map_err(|e| named(&input.path, &format!("VanillaProofs[{k}] (partition {k})"), e))?;
    }
    Ok(())
}

fn named(path: &Path, at: &str, e: anyhow::Error) -> anyhow::Error {
    anyhow!("{}: {at}: {e}", path.display())
}

/// A PoSt sector proof: its comm_r, and per sector its comm_c, comm_r_last and every
/// inclusion proof.
fn sector_proof<Tree: 'static + MerkleTreeTrait>(proof: &FallbackPoStSectorProof<Tree>) -> Result<()> {
    node(&proof.comm_r, || "comm_r".into())?;
    for (s, sp) in proof.vanilla_proof.sectors.iter().enumerate() {
        node(&sp.comm_c, || format!("sector proof {s}: comm_c"))?;
        node(&sp.comm_r_last, || format!("sector proof {s}: comm_r_last"))?;
        for (n, p) in sp.inclusion_proofs.iter().enumerate() {
            merkle_proof(&format!("sector proof {s}: inclusion proof {n}"), p)?;
        }
    }
    Ok(())
}

/// A SnapDeals partition proof: comm_c, the apex leaves, and the three Merkle proofs of every
/// challenge.
fn partition_proof<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(proof: &PartitionProof<Tree>) -> Result<()> {
    node(&proof.comm_c, || "comm_c".into())?;
    for (i, leaf) in proof.apex_leafs.iter().enumerate() {
        node(leaf, || format!("apex leaf {i}"))?;
    }
    for (i, c) in proof.challenge_proofs.iter().enumerate() {
        merkle_proof(&format!("challenge proof {i}: proof_r_old"), &c.proof_r_old)?;
        merkle_proof(&format!("challenge proof {i}: proof_d_new"), &c.proof_d_new)?;
        merkle_proof(&format!("challenge proof {i}: proof_r_new"), &c.proof_r_new)?;
    }
    Ok(())
}

/// A Merkle proof's leaf, root and path: each level a group of as many nodes as the tree's
/// arity there, the position in it within the group, every sibling a field element.
fn merkle_proof<P: MerkleProofTrait>(what: &str, p: &P) -> Result<()> {
    node(&p.leaf(), || format!("{what}: leaf"))?;
    node(&p.root(), || format!("{what}: root"))?;
    let path = p.path();
    for (level, (siblings, position)) in path.iter().enumerate() {
        let arity = arity_at::<P>(level, path.len());
        if siblings.len() + 1 != arity || *position >= arity {
            bail!(
                "{what}: path level {level} holds {} sibling(s) at position {position}, but the tree groups {arity} \
                 nodes there: {} sibling(s), position 0 to {}",
                siblings.len(),
                arity - 1,
                arity - 1
            );
        }
        for (j, sibling) in siblings.iter().enumerate() {
            node(sibling, || format!("{what}: path level {level}, sibling {j}"))?;
        }
    }
    Ok(())
}

/// The arity of level `level` of a path of `levels` levels: the top tree's at the top and the
/// sub-trees' below it where the tree has them, the base arity everywhere else.
fn arity_at<P: MerkleProofTrait>(level: usize, levels: usize) -> usize {
    let (sub, top) = (P::SubTreeArity::to_usize(), P::TopTreeArity::to_usize());
    let mut upper: Vec<usize> = [sub, top].into_iter().filter(|&a| a > 0).collect();
    let from_top = levels - 1 - level;
    if from_top < upper.len() {
        upper.reverse();
        return upper[from_top];
    }
    P::Arity::to_usize()
}

/// A node, named by `what` (made only for the error) unless it is a canonical field element.
fn node<D: Domain>(d: &D, what: impl FnOnce() -> String) -> Result<()> {
    match <[u8; 32]>::try_from(d.as_ref()) {
        Ok(bytes) if is_canonical(&bytes) => Ok(()),
        Ok(bytes) => check_canonical(&what(), &bytes),
        Err(_) => Err(anyhow!("{} is not 32 bytes", what())),
    }
}
