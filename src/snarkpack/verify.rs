//! The SnarkPack verifier. It replays the transcript to get r, the round challenges x_j, the
//! link challenge and the KZG point z, folds the prover's commitments and products with them
//! (left values ^x, right values ^x⁻¹), and checks nine equations, each on its own:
//! - the KZG openings of the final v key (α and β halves) and of the final w key;
//! - TIPP: e(A, B) = Z_AB, e(A, v1)·e(w1, B) = T_AB, e(A, v2)·e(w2, B) = U_AB at the end;
//! - MIPP: r_final·C = Z_C, e(C, v1) = T_C, e(C, v2) = U_C at the end;
//! - the aggregated Groth16 equation
//!   ip_ab = e(α, β)^{Σ r^j} · e(Σ_i IC_i·Σ_j x_{j,i} r^j, γ) · e(agg_c, δ).
//!
//! The verdict names the first equation that fails.
use anyhow::{bail, Result};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Gt, Scalar};
use ff::Field;
use group::{Curve, Group};
use rayon::prelude::*;

use super::ipp::{self, pairing_product};
use super::poly;
use super::proof::AggregateProof;
use super::prove::{extra_challenge, initial_challenge_inv, kzg_point, round_challenge_inv, Round};
use super::srs::VerifierKey;
use super::transcript::Transcript;
use super::Version;
use crate::srs::VerifyingKey;

/// Ok(Ok(())) when the aggregate proves that every `inputs[j]` (with the leading ONE) has a
/// valid Groth16 proof under `gvk`; Ok(Err(why)) when it does not; Err for inputs that do not
/// fit together (counts, lengths).
pub fn verify(
    vk: &VerifierKey,
    gvk: &VerifyingKey,
    inputs: &[Vec<Scalar>],
    include: &[u8],
    proof: &AggregateProof,
    version: Version,
) -> Result<std::result::Result<(), String>> {
    let g = &proof.gipa;
    let n = g.nproofs as usize;
    if inputs.len() != n {
        bail!("the aggregate holds {n} proofs, {} public input vectors were given", inputs.len());
    }
    if vk.n != n {
        bail!("the SnarkPack verifier key is for {} proofs, the aggregate holds {n}", vk.n);
    }
    for (j, x) in inputs.iter().enumerate() {
        if x.len() != gvk.ic.len() || x.first() != Some(&Scalar::ONE) {
            bail!(
                "public inputs of proof {j}: {} values (with the leading 1), the verifying key has {}",
                x.len(),
                gvk.ic.len()
            );
        }
    }

    let hcom = Transcript::new("hcom").gt_pair(&proof.com_ab).gt_pair(&proof.com_c).challenge();
    let r = Transcript::new("random-r").scalar(&hcom).bytes(include).challenge();
    let rounds: Vec<Round> = (0..g.comms_ab.len())
        .map(|i| Round { tab: g.comms_ab[i], tuc: g.comms_c[i], zab: g.z_ab[i], zc: g.z_c[i] })
        .collect();
    let mut x_inv = initial_challenge_inv(&hcom, &proof.ip_ab, &proof.agg_c, &r);
    let mut xs = Vec::with_capacity(rounds.len());
    for (i, round) in rounds.iter().enumerate() {
        x_inv = round_challenge_inv(i, &x_inv, round, version);
        xs.push(x_inv.invert().unwrap());
    }
    let extra = extra_challenge(xs.last().unwrap(), g, rounds.last().unwrap());
    let folded = fold_statement(proof, &rounds, &xs);

    let rev: Vec<Scalar> = xs.iter().rev().copied().collect();
    let rev_inv: Vec<Scalar> = rev.iter().map(|x| x.invert().unwrap()).collect();
    let z = kzg_point(&rev[0], &extra, g, version);
    let final_r = poly::evaluate(&rev_inv, &r, &Scalar::ONE);

    let checks: Vec<(&str, Check<'_>)> = vec![
        ("the KZG opening of the final v key", Box::new(|| kzg_v(vk, proof, &rev_inv, &z))),
        ("the KZG opening of the final w key", Box::new(|| kzg_w(vk, proof, &rev, &r, &z, n))),
        ("TIPP: e(A, B) = Z_AB", Box::new(|| pairing_product(&[g.final_a], &[g.final_b]) == folded.zab)),
        (
            "TIPP: the commitment T_AB",
            Box::new(|| pair_check(g.final_a, g.final_vkey.0, g.final_wkey.0, g.final_b) == folded.tab),
        ),
        (
            "TIPP: the commitment U_AB",
            Box::new(|| pair_check(g.final_a, g.final_vkey.1, g.final_wkey.1, g.final_b) == folded.uab),
        ),
        ("MIPP: r·C = Z_C", Box::new(|| (g.final_c * final_r).to_affine() == folded.zc)),
        ("MIPP: the commitment T_C", Box::new(|| pairing_product(&[g.final_c], &[g.final_vkey.0]) == folded.tc)),
        ("MIPP: the commitment U_C", Box::new(|| pairing_product(&[g.final_c], &[g.final_vkey.1]) == folded.uc)),
        ("the aggregated Groth16 equation", Box::new(|| groth16_check(gvk, inputs, proof, &r))),
    ];
    let results: Vec<bool> = checks.par_iter().map(|(_, f)| f()).collect();
    match checks.iter().zip(results).find(|(_, ok)| !ok) {
        Some(((what, _), _)) => Ok(Err(format!("{what} does not hold"))),
        None => Ok(Ok(())),
    }
}

/// One equation of the verifier, evaluated on demand.
type Check<'a> = Box<dyn Fn() -> bool + Sync + 'a>;

/// The statement folded down the rounds.
struct Folded {
    tab: Gt,
    uab: Gt,
    zab: Gt,
    tc: Gt,
    uc: Gt,
    zc: G1Affine,
}

fn fold_statement(proof: &AggregateProof, rounds: &[Round], xs: &[Scalar]) -> Folded {
    let per_round: Vec<[Gt; 5]> = rounds
        .par_iter()
        .zip(xs)
        .map(|(rd, x)| {
            let xi = x.invert().unwrap();
            let f = |l: &Gt, r: &Gt| l * x + r * xi;
            [
                f(&rd.tab.0 .0, &rd.tab.1 .0),
                f(&rd.tab.0 .1, &rd.tab.1 .1),
                f(&rd.zab.0, &rd.zab.1),
                f(&rd.tuc.0 .0, &rd.tuc.1 .0),
                f(&rd.tuc.0 .1, &rd.tuc.1 .1),
            ]
        })
        .collect();
    let mut acc = [proof.com_ab.0, proof.com_ab.1, proof.ip_ab, proof.com_c.0, proof.com_c.1];
    for r in &per_round {
        for (a, x) in acc.iter_mut().zip(r) {
            *a += x;
        }
    }
    let zc: G1Projective = rounds
        .iter()
        .zip(xs)
        .map(|(rd, x)| rd.zc.0 * x + rd.zc.1 * x.invert().unwrap())
        .fold(G1Projective::from(proof.agg_c), |a, b| a + b);
    Folded { tab: acc[0], uab: acc[1], zab: acc[2], tc: acc[3], uc: acc[4], zc: zc.to_affine() }
}

/// e(a, v)·e(w, b).
fn pair_check(a: G1Affine, v: G2Affine, w: G1Affine, b: G2Affine) -> Gt {
    pairing_product(&[a, w], &[v, b])
}

/// e(−g, v_final − y·h)·e(g^α − z·g, π) = 1 for the α half, the same with β.
fn kzg_v(vk: &VerifierKey, proof: &AggregateProof, rev_inv: &[Scalar], z: &Scalar) -> bool {
    let y = poly::evaluate(rev_inv, z, &Scalar::ONE);
    let ng = -vk.g;
    let one = |fv: G2Affine, gk: G1Affine, pi: G2Affine| {
        let b = (G2Projective::from(fv) - vk.h * y).to_affine();
        let c = (G1Projective::from(gk) - vk.g * z).to_affine();
        pairing_product(&[ng, c], &[b, pi]) == Gt::identity()
    };
    let (fv, pi) = (proof.gipa.final_vkey, proof.vkey_opening);
    one(fv.0, vk.g_alpha, pi.0) && one(fv.1, vk.g_beta, pi.1)
}

/// e(w_final − y·g, −h)·e(π, h^α − z·h) = 1 for the α half, the same with β, where
/// y = zⁿ·f(z) (the w polynomial is shifted by Xⁿ and its challenges by r⁻¹).
fn kzg_w(vk: &VerifierKey, proof: &AggregateProof, rev: &[Scalar], r: &Scalar, z: &Scalar, n: usize) -> bool {
    let y = poly::evaluate(rev, z, &r.invert().unwrap()) * z.pow_vartime([n as u64]);
    let nh = -vk.h;
    let one = |fw: G1Affine, hk: G2Affine, pi: G1Affine| {
        let a = (G1Projective::from(fw) - vk.g * y).to_affine();
        let d = (G2Projective::from(hk) - vk.h * z).to_affine();
        pairing_product(&[a, pi], &[nh, d]) == Gt::identity()
    };
    let (fw, pi) = (proof.gipa.final_wkey, proof.wkey_opening);
    one(fw.0, vk.h_alpha, pi.0) && one(fw.1, vk.h_beta, pi.1)
}

/// ip_ab = e(α·Σr^j, β)·e(Σ_i IC_i·Σ_j x_{j,i} r^j, γ)·e(agg_c, δ).
fn groth16_check(gvk: &VerifyingKey, inputs: &[Vec<Scalar>], proof: &AggregateProof, r: &Scalar) -> bool {
    let n = inputs.len();
    let r_pows = ipp::powers(r, n);
    let r_sum: Scalar = r_pows.iter().sum();
    let coeffs: Vec<Scalar> =
        (0..gvk.ic.len()).into_par_iter().map(|i| inputs.iter().zip(&r_pows).map(|(x, rj)| x[i] * rj).sum()).collect();
    let g_ic = ipp::msm(&gvk.ic, &coeffs);
    let alpha = (gvk.alpha_g1 * r_sum).to_affine();
    pairing_product(&[alpha, g_ic, proof.agg_c], &[gvk.beta_g2, gvk.gamma_g2, gvk.delta_g2]) == proof.ip_ab
}
