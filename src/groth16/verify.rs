//! Groth16 verification on the curve layer's pairings: with a prepared key, a proof (A, B, C)
//! for public inputs x (x_0 = 1) is accepted when e(A, B) = e(α, β) · e(Σ x_i·IC_i, γ) · e(C, δ),
//! checked as e(A, B) · e(Σ x_i·IC_i, −γ) · e(C, −δ) = e(α, β): one multi-Miller loop and one
//! final exponentiation.
use anyhow::{bail, Result};
use blstrs::{G1Affine, G1Projective, G2Affine, Gt, Scalar};
use group::{prime::PrimeCurveAffine, Curve, Group};
use rayon::prelude::*;

use super::Proof;
use crate::ec::{g1_affines_as_blst, g2_affines_as_blst, pairing_product};
use crate::srs::VerifyingKey;

pub struct PreparedVerifyingKey {
    alpha_beta: Gt,
    neg_gamma: G2Affine,
    neg_delta: G2Affine,
    ic: Vec<G1Affine>,
}

impl PreparedVerifyingKey {
    pub fn new(vk: &VerifyingKey) -> Self {
        let alpha_beta = pairing_product(g1_affines_as_blst(&[vk.alpha_g1]), g2_affines_as_blst(&[vk.beta_g2]));
        PreparedVerifyingKey { alpha_beta, neg_gamma: -vk.gamma_g2, neg_delta: -vk.delta_g2, ic: vk.ic.clone() }
    }

    /// `inputs` includes the leading ONE.
    pub fn verify(&self, proof: &Proof, inputs: &[Scalar]) -> Result<bool> {
        if inputs.len() != self.ic.len() {
            bail!("{} public inputs, the verifying key has {}", inputs.len(), self.ic.len());
        }
        if bool::from(proof.a.is_identity() | proof.b.is_identity() | proof.c.is_identity()) {
            return Ok(false);
        }
        let acc = input_sum(&self.ic, inputs);
        let g1 = [proof.a, acc.to_affine(), proof.c];
        let g2 = [proof.b, self.neg_gamma, self.neg_delta];
        let e = pairing_product(g1_affines_as_blst(&g1), g2_affines_as_blst(&g2));
        Ok(e == self.alpha_beta && !bool::from(self.alpha_beta.is_identity()))
    }
}

/// Σ x_i·IC_i, the products side by side: a proof is verified after its last MSM with the cores
/// otherwise idle, and these scalar multiplications (25 for a 2KiB WindowPoSt) ran on one.
fn input_sum(ic: &[G1Affine], inputs: &[Scalar]) -> G1Projective {
    ic.par_iter().zip(inputs).map(|(p, x)| p * x).reduce(G1Projective::identity, |a, b| a + b)
}
