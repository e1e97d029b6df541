//! Groth16 verification with blst pairings: with a prepared key, a proof (A, B, C) for public
//! inputs x (x_0 = 1) is accepted when e(A, B) = e(α, β) · e(Σ x_i·IC_i, γ) · e(C, δ), checked
//! as one multi-Miller loop and one final exponentiation.
use anyhow::{bail, Result};
use blstrs::{Bls12, G1Affine, G1Projective, G2Prepared, Gt, Scalar};
use group::{prime::PrimeCurveAffine, Curve, Group};
use pairing::{MillerLoopResult, MultiMillerLoop};

use super::Proof;
use crate::srs::VerifyingKey;

pub struct PreparedVerifyingKey {
    alpha_beta: Gt,
    neg_gamma: G2Prepared,
    neg_delta: G2Prepared,
    ic: Vec<G1Affine>,
}

impl PreparedVerifyingKey {
    pub fn new(vk: &VerifyingKey) -> Self {
        let alpha_beta = blstrs::pairing(&vk.alpha_g1, &vk.beta_g2);
        PreparedVerifyingKey {
            alpha_beta,
            neg_gamma: G2Prepared::from(-vk.gamma_g2),
            neg_delta: G2Prepared::from(-vk.delta_g2),
            ic: vk.ic.clone(),
        }
    }

    /// `inputs` includes the leading ONE.
    pub fn verify(&self, proof: &Proof, inputs: &[Scalar]) -> Result<bool> {
        if inputs.len() != self.ic.len() {
            bail!("{} public inputs, the verifying key has {}", inputs.len(), self.ic.len());
        }
        if bool::from(proof.a.is_identity() | proof.b.is_identity() | proof.c.is_identity()) {
            return Ok(false);
        }
        let acc: G1Projective = self.ic.iter().zip(inputs).map(|(p, x)| p * x).sum();
        let b = G2Prepared::from(proof.b);
        let ml = Bls12::multi_miller_loop(&[
            (&proof.a, &b),
            (&acc.to_affine(), &self.neg_gamma),
            (&proof.c, &self.neg_delta),
        ]);
        Ok(ml.final_exponentiation() == self.alpha_beta && !bool::from(self.alpha_beta.is_identity()))
    }
}
