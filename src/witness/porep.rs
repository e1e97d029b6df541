//! One PoRep partition's witness as storage-proofs-porep 19.1.0's `StackedCircuit` allocates
//! it, from the plain vanilla proofs: the prefix, then every challenge on its own (in parallel),
//! joined in challenge order.
//!
//! Prefix: replica id (inputized, then its 255 bits), comm_d and comm_r (inputized), comm_r_last,
//! comm_c, and Poseidon(comm_c, comm_r_last), which the circuit equates with comm_r.
//!
//! A challenge, in allocation order:
//! 1. the data leaf and its tree D path (SHA-256 per level);
//! 2. each base parent's column, its hash and its tree C path; the same for each expander
//!    parent;
//! 3. the challenge index's 64 bits;
//! 4. per layer, the 255 bits of every parent label it reads (base parents' labels of this
//!    layer, and from layer 2 on the expander parents' of the layer below), then SHA-256 of
//!    replica id ‖ layer ‖ node ‖ 37 parent labels (the parents repeated in order), packed;
//! 5. the encoded node (last label + data leaf) and its tree R path;
//! 6. the hash of the node's computed labels and its tree C path.
//!
//! Public inputs: ONE, replica id, comm_d, comm_r, then per challenge the packed index bits of
//! each path (tree D, the 14 parents' tree C paths), the challenge, tree R's and tree C's paths.
use anyhow::{bail, Result};
use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use super::merkle::{inclusion, NodeHash};
use super::poseidon::Poseidon;
use super::sha256::{self, Word};
use super::shape::{ChallengeProof, Shape};
use super::{PackedAux, PackedWitness, WitnessPart};

/// The public values of a partition's circuit, and the roots its vanilla proofs carry.
#[derive(Clone, Copy, Debug)]
pub struct PartitionRoots {
    pub replica_id: Scalar,
    pub comm_d: Scalar,
    pub comm_r: Scalar,
    pub comm_r_last: Scalar,
    pub comm_c: Scalar,
}

/// Partition witness: inputs (with ONE) and aux, for challenges `proofs`. The shape must be
/// one [`Shape::is_native`] accepts and the proofs must have passed the shape check.
pub fn porep_partition(shape: &Shape, roots: &PartitionRoots, proofs: &[ChallengeProof]) -> Result<PackedWitness> {
    if !shape.is_native() {
        bail!("the native witness does not know the {} circuit's shape", shape.sector);
    }
    let parts = proofs.par_iter().map(|p| challenge(shape, roots, p)).collect();
    Ok(prefix(roots).join(parts))
}

/// The prefix: what the circuit allocates before its first challenge.
pub fn prefix(roots: &PartitionRoots) -> PackedWitness {
    let mut aux = PackedAux::with_capacity(571, 316);
    aux.push_field(roots.replica_id);
    aux.push_le_bits(&roots.replica_id);
    aux.push_field(roots.comm_d);
    aux.push_field(roots.comm_r);
    aux.push_field(roots.comm_r_last);
    aux.push_field(roots.comm_c);
    Poseidon::arity(2).expect("arity 2").hash(&mut aux, &[roots.comm_c, roots.comm_r_last]);
    PackedWitness { inputs: vec![Scalar::ONE, roots.replica_id, roots.comm_d, roots.comm_r], aux }
}

/// One challenge's aux and inputs, as if the prefix preceded it.
pub fn challenge(shape: &Shape, roots: &PartitionRoots, p: &ChallengeProof) -> WitnessPart {
    let mut aux = PackedAux::default();
    let mut inputs = Vec::with_capacity(4 + p.drg_parents.len() + p.exp_parents.len());
    let column_hash = Poseidon::arity(shape.layers).expect("a column arity of the shape");

    aux.push_field(p.data_leaf);
    inputs.push(inclusion(&mut aux, p.data_leaf, &p.data_path, NodeHash::Sha256));
    for col in p.drg_parents.iter().chain(&p.exp_parents) {
        for r in &col.rows {
            aux.push_field(*r);
        }
        let h = column_hash.hash(&mut aux, &col.rows);
        inputs.push(inclusion(&mut aux, h, &col.path, NodeHash::Poseidon));
    }

    let node = p.challenge.expect("checked: a challenge index");
    aux.push_bits(node, 64);
    inputs.push(Scalar::from(node));

    let replica = sha256::field_words(&roots.replica_id);
    let labels: Vec<Scalar> = (1..=shape.layers).map(|layer| label(&mut aux, p, &replica, layer, node)).collect();

    let encoded = labels[labels.len() - 1] + p.data_leaf;
    aux.push_field(encoded);
    inputs.push(inclusion(&mut aux, encoded, &p.replica_path, NodeHash::Poseidon));
    let h = column_hash.hash(&mut aux, &labels);
    inputs.push(inclusion(&mut aux, h, &p.column_path, NodeHash::Poseidon));
    WitnessPart { aux, inputs }
}

/// Parent labels a label hashes (`TOTAL_PARENTS`).
const LABEL_PARENTS: usize = 37;

/// The label of the challenged node in `layer`: its parents' bits, then the SHA-256 of
/// replica id, layer, node and the parents repeated to 37, packed into a field element.
fn label(aux: &mut PackedAux, p: &ChallengeProof, replica: &[Word; 8], layer: usize, node: u64) -> Scalar {
    let drg = p.drg_parents.iter().map(|c| c.rows[layer - 1]);
    let exp = p.exp_parents.iter().filter(|_| layer > 1).map(|c| c.rows[layer - 2]);
    let parents: Vec<[Word; 8]> = drg
        .chain(exp)
        .map(|v| {
            aux.push_le_bits(&v);
            sha256::field_words(&v)
        })
        .collect();

    let mut message = Vec::with_capacity(16 + 8 * LABEL_PARENTS);
    message.extend_from_slice(replica);
    message.push(Word::constant(layer as u32));
    message.push(Word::variable((node >> 32) as u32));
    message.push(Word::variable(node as u32));
    message.extend_from_slice(&[Word::constant(0); 5]);
    for i in 0..LABEL_PARENTS {
        message.extend_from_slice(&parents[i % parents.len()]);
    }
    let v = sha256::digest_scalar(&sha256::sha256(aux, &message));
    aux.push_field(v);
    v
}
