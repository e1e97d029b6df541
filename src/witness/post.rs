//! One FallbackPoSt partition's witness (WindowPoSt and WinningPoSt) as storage-proofs-post
//! 19.1.0's circuit allocates it, from the plain vanilla proofs: every circuit sector on its own,
//! joined in order. There is no prefix beyond ONE. Sectors are made in groups (in parallel),
//! whose Poseidon hashes run together, eight at a time on AVX-512 IFMA
//! ([`super::poseidon_lanes`]).
//!
//! A circuit sector, in allocation order (`Sector::synthesize`):
//! 1. comm_r_last, comm_c and comm_r; comm_r is inputized (a public input, no aux);
//! 2. Poseidon(comm_c, comm_r_last), which the circuit equates with comm_r;
//! 3. per challenge: the leaf, then its tree R path to comm_r_last (`PoRCircuit` with a private
//!    root: [`inclusion`]), whose packed index bits are the challenge's public input.
//!
//! Public inputs: ONE, then per sector comm_r and its challenges' packed path indices, the
//! order `FallbackPoStCompound::generate_public_inputs` lists them.
use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use super::merkle::poseidon_inclusions;
use super::poseidon::Poseidon;
use super::shape::PathLevel;
use super::{PackedAux, PackedWitness, WitnessPart};

/// One challenged leaf of a sector's replica and its path in tree R.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub leaf: Scalar,
    /// Leaf level first; the arity of a level is its siblings plus one (2 or 8).
    pub path: Vec<PathLevel>,
}

/// One circuit sector: its commitments and its openings (10 for a WindowPoSt sector, one for
/// each of WinningPoSt's 66 circuit sectors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostSector {
    pub comm_r: Scalar,
    pub comm_c: Scalar,
    pub comm_r_last: Scalar,
    pub openings: Vec<Opening>,
}

/// Circuit sectors made together: their commitment hashes and their paths' hashes of each
/// level run in one batch (a group of WindowPoSt sectors has 80 paths: ten full batches of eight;
/// of WinningPoSt's one-challenge sectors, 8 paths).
const GROUP: usize = 8;

/// A partition's witness: inputs (with ONE) and aux of its circuit sectors in order. The
/// openings must have passed the vanilla checks (paths of the tree's arities).
pub fn post_partition(sectors: &[PostSector]) -> PackedWitness {
    let parts = sectors.par_chunks(GROUP).flat_map_iter(sectors_in_group).collect();
    PackedWitness { inputs: vec![Scalar::ONE], aux: PackedAux::default() }.join(parts)
}

/// The group's circuit sectors in order, each as parts that join into its aux and inputs: one
/// for comm_r_last, comm_c and comm_r (inputized) and Poseidon(comm_c, comm_r_last), then one per
/// opening, its leaf and its path (the path's packed index the input). Left as parts, the paths
/// are copied once, into the partition's witness.
pub fn sectors_in_group(group: &[PostSector]) -> Vec<WitnessPart> {
    let mut heads: Vec<PackedAux> = group
        .iter()
        .map(|s| {
            let mut aux = PackedAux::default();
            aux.push_field(s.comm_r_last);
            aux.push_field(s.comm_c);
            aux.push_field(s.comm_r);
            aux
        })
        .collect();
    let commitments: Vec<Vec<Scalar>> = group.iter().map(|s| vec![s.comm_c, s.comm_r_last]).collect();
    Poseidon::arity(2).expect("arity 2").hash_many(&mut heads, &commitments);

    let openings: Vec<&Opening> = group.iter().flat_map(|s| &s.openings).collect();
    let leaves: Vec<Scalar> = openings.iter().map(|o| o.leaf).collect();
    let mut paths: Vec<PackedAux> = leaves
        .iter()
        .map(|&leaf| {
            let mut aux = PackedAux::default();
            aux.push_field(leaf);
            aux
        })
        .collect();
    let shapes: Vec<&[PathLevel]> = openings.iter().map(|o| &o.path[..]).collect();
    let inputs = poseidon_inclusions(&mut paths, &leaves, &shapes);
    let mut paths = paths.into_iter().zip(inputs).map(|(aux, input)| WitnessPart { aux, inputs: vec![input] });
    let mut parts = Vec::with_capacity(group.len() + openings.len());
    for (s, head) in group.iter().zip(heads) {
        parts.push(WitnessPart { aux: head, inputs: vec![s.comm_r] });
        parts.extend(paths.by_ref().take(s.openings.len()));
    }
    parts
}
