//! One FallbackPoSt partition's witness (WindowPoSt and WinningPoSt) as storage-proofs-post
//! 19.1.0's circuit allocates it, from the plain vanilla proofs: every circuit sector on its own
//! (in parallel), joined in order. There is no prefix beyond ONE.
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

use super::merkle::{inclusion, NodeHash};
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

/// A partition's witness: inputs (with ONE) and aux of its circuit sectors in order. The
/// openings must have passed the vanilla checks (paths of the tree's arities).
pub fn post_partition(sectors: &[PostSector]) -> PackedWitness {
    let parts = sectors.par_iter().map(sector).collect();
    PackedWitness { inputs: vec![Scalar::ONE], aux: PackedAux::default() }.join(parts)
}

/// One circuit sector's aux and inputs.
pub fn sector(s: &PostSector) -> WitnessPart {
    let mut aux = PackedAux::default();
    let mut inputs = Vec::with_capacity(1 + s.openings.len());
    aux.push_field(s.comm_r_last);
    aux.push_field(s.comm_c);
    aux.push_field(s.comm_r);
    inputs.push(s.comm_r);
    Poseidon::arity(2).expect("arity 2").hash(&mut aux, &[s.comm_c, s.comm_r_last]);
    for o in &s.openings {
        aux.push_field(o.leaf);
        inputs.push(inclusion(&mut aux, o.leaf, &o.path, NodeHash::Poseidon));
    }
    WitnessPart { aux, inputs }
}
