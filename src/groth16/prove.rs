//! Backend-independent parts of the Groth16 prover: the shape a synthesized circuit needs from
//! the parameters, the zero-knowledge randomness (r, s), and the assembly of the proof from the
//! five query results (bellperson's formulas):
//!   A = α + Σa + r·δ,  B = β + Σb₂ + s·δ,
//!   C = s·A' + r·B₁ + r·s·δ + s·α + r·β + H + L,  where A' = Σa and B₁ = Σb₁ (no α, β, δ).
use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::Curve;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use super::Proof;
use crate::circuit::Assignment;
use crate::ec::{g1_from_blst, g2_from_blst, P1, P2};
use crate::srs::{Shape, VerifyingKey};

/// The sums Σ s_i·P_i over each section, computed by a backend.
pub struct QueryResults {
    pub h: G1Projective,
    pub l: G1Projective,
    pub a: G1Projective,
    pub b_g1: G1Projective,
    pub b_g2: G2Projective,
}

impl QueryResults {
    /// The five sums from blst's points, as both backends compute them.
    pub fn from_blst(h: &P1, l: &P1, a: &P1, b_g1: &P1, b_g2: &P2) -> Self {
        QueryResults {
            h: g1_from_blst(h),
            l: g1_from_blst(l),
            a: g1_from_blst(a),
            b_g1: g1_from_blst(b_g1),
            b_g2: g2_from_blst(b_g2),
        }
    }
}

/// What the circuit needs of its parameters.
pub fn shape_of(asg: &Assignment) -> Shape {
    Shape {
        inputs: asg.inputs.len(),
        aux: asg.aux.len(),
        domain: asg.num_constraints().next_power_of_two(),
        a_aux: asg.a_aux_density.count(),
        b_inputs: asg.b_input_density.count(),
        b_aux: asg.b_aux_density.count(),
    }
}

/// (r, s) for partition `k`: from the OS when `seed` is None, else reproducibly from the seed
/// (ChaCha20, one stream per partition) so CPU and GPU runs can be compared byte for byte.
pub fn randomness(seed: Option<u64>, k: usize) -> (Scalar, Scalar) {
    match seed {
        None => (Scalar::random(rand::rngs::OsRng), Scalar::random(rand::rngs::OsRng)),
        Some(seed) => {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            rng.set_stream(k as u64);
            (Scalar::random(&mut rng), Scalar::random(&mut rng))
        }
    }
}

pub fn assemble(vk: &VerifyingKey, q: &QueryResults, r: Scalar, s: Scalar) -> Proof {
    let delta_g1 = G1Projective::from(vk.delta_g1);
    let g_a = q.a + vk.alpha_g1 + delta_g1 * r;
    let g_b = q.b_g2 + vk.beta_g2 + G2Projective::from(vk.delta_g2) * s;
    let g_c = q.a * s
        + q.b_g1 * r
        + delta_g1 * (r * s)
        + G1Projective::from(vk.alpha_g1) * s
        + G1Projective::from(vk.beta_g1) * r
        + q.h
        + q.l;
    Proof { a: g_a.to_affine(), b: g_b.to_affine(), c: g_c.to_affine() }
}
