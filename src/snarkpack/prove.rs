//! The SnarkPack prover: n Groth16 proofs (n a power of two) in one [`AggregateProof`].
//!
//! 1. Commit: com_ab = pair(v, w; A, B), com_c = single(v; C).
//! 2. r from the transcript of the commitments and the caller's bytes (`include`: Filecoin
//!    hashes the sectors' seeds and comm_rs there). B'_i = r^i·B_i, w'_i = r^{−i}·w_i, so that
//!    pair(v, w'; A, B') = com_ab still. ip_ab = Π e(A_i, B'_i), agg_c = Σ r^i·C_i.
//! 3. GIPA: while the vectors are longer than one, split each in halves L, R, send the cross
//!    values (pair and single commitments, Z_AB = Π e(·,·), Z_C = Σ C·r), draw the round's
//!    challenge x from them, and fold: A, C, w with x (L + x·R); B, r, v with x⁻¹.
//! 4. KZG: prove the final v and w are the SRS folded by the challenges — open their
//!    polynomials ([`super::poly`]) at a transcript point z.
use anyhow::{bail, Result};
use blstrs::{G1Affine, G2Affine, Gt, Scalar};
use ff::Field;
use rayon::prelude::*;

use super::commit::{self, Commitment, Key, VKey, WKey};
use super::ipp::{self, powers, Pairings};
use super::poly;
use super::proof::{AggregateProof, Gipa};
use super::srs::ProverKey;
use super::transcript::Transcript;
use super::Version;
use crate::groth16::Proof;

/// Aggregates `proofs` (a power of two, at least 2, equal to the key's size). `include` is
/// hashed into the transcript of r.
pub fn aggregate(pk: &ProverKey, include: &[u8], proofs: &[Proof], version: Version) -> Result<AggregateProof> {
    aggregate_on(pk, include, proofs, version, Pairings::CPU)
}

/// [`aggregate`] with the pairing products' Miller loops where `on` says (the same bytes).
pub fn aggregate_on(
    pk: &ProverKey,
    include: &[u8],
    proofs: &[Proof],
    version: Version,
    on: Pairings<'_>,
) -> Result<AggregateProof> {
    let n = proofs.len();
    if n < 2 || !n.is_power_of_two() {
        bail!("SnarkPack aggregates a power of two proofs, at least 2; given {n}");
    }
    if pk.n != n {
        bail!("the SnarkPack prover key is for {} proofs, given {n}", pk.n);
    }
    let a: Vec<G1Affine> = proofs.iter().map(|p| p.a).collect();
    let b: Vec<G2Affine> = proofs.iter().map(|p| p.b).collect();
    let c: Vec<G1Affine> = proofs.iter().map(|p| p.c).collect();
    let (vkey, wkey) = (pk.vkey(), pk.wkey());

    let (com_ab, com_c, _) = commit::pair_and_single(vkey.as_ref(), wkey.as_ref(), (&a, &b, &c), false, on);
    let hcom = Transcript::new("hcom").gt_pair(&com_ab).gt_pair(&com_c).challenge();
    let r = Transcript::new("random-r").scalar(&hcom).bytes(include).challenge();

    let r_vec = powers(&r, n);
    let r_inv: Vec<Scalar> = powers(&r.invert().unwrap(), n);
    let b_r = ipp::scale(&b, &r_vec);
    let (ip_ab, agg_c) = rayon::join(|| on.miller_loop(&a, &b_r).final_exp(), || ipp::msm(&c, &r_vec));
    let wkey_r_inv = wkey.scale(&r_inv);

    let start = Statement { hcom, ip_ab, agg_c, r };
    let (gipa, xs) = gipa(Vectors { a, b: b_r, c, r: r_vec, vkey, wkey: wkey_r_inv }, &start, version, on);
    let (vkey_opening, wkey_opening) = open_keys(pk, &gipa, &xs, &r, version);
    Ok(AggregateProof { com_ab, com_c, ip_ab, agg_c, gipa, vkey_opening, wkey_opening })
}

/// What GIPA starts from besides the vectors: the values its first challenge hashes.
struct Statement {
    hcom: Scalar,
    ip_ab: Gt,
    agg_c: G1Affine,
    r: Scalar,
}

/// The vectors GIPA folds.
struct Vectors {
    a: Vec<G1Affine>,
    b: Vec<G2Affine>,
    c: Vec<G1Affine>,
    r: Vec<Scalar>,
    vkey: VKey,
    wkey: WKey,
}

/// The challenges of the recursion: x per round (in round order), and the link challenge.
pub struct Challenges {
    pub x: Vec<Scalar>,
    pub extra: Scalar,
}

/// The cross values of one round.
pub struct Round {
    pub tab: (Commitment, Commitment),
    pub tuc: (Commitment, Commitment),
    pub zab: (Gt, Gt),
    pub zc: (G1Affine, G1Affine),
}

/// The transcript of round `i`'s challenge. `prev` is the previous challenge inverse (round 0:
/// the one drawn from the statement). V1 takes round 0's challenge from the statement alone.
pub fn round_challenge_inv(i: usize, prev_inv: &Scalar, round: &Round, version: Version) -> Scalar {
    if i == 0 && version == Version::V1 {
        return *prev_inv;
    }
    Transcript::new(&format!("gipa-{i}"))
        .scalar(prev_inv)
        .gt(&round.zab.0)
        .gt(&round.zab.1)
        .g1(&round.zc.0)
        .g1(&round.zc.1)
        .gt_pair(&round.tab.0)
        .gt_pair(&round.tab.1)
        .gt_pair(&round.tuc.0)
        .gt_pair(&round.tuc.1)
        .challenge()
}

/// The challenge inverse GIPA starts from.
pub fn initial_challenge_inv(hcom: &Scalar, ip_ab: &Gt, agg_c: &G1Affine, r: &Scalar) -> Scalar {
    Transcript::new("gipa-0").scalar(hcom).gt(ip_ab).g1(agg_c).scalar(r).challenge()
}

/// The challenge linking GIPA to the KZG openings.
pub fn extra_challenge(last_x: &Scalar, g: &Gipa, last: &Round) -> Scalar {
    Transcript::new("gipa-extra-link")
        .scalar(last_x)
        .g1(&g.final_a)
        .g2(&g.final_b)
        .g1(&g.final_c)
        .gt(&last.zab.0)
        .gt(&last.zab.1)
        .g1(&last.zc.0)
        .g1(&last.zc.1)
        .gt_pair(&last.tab.0)
        .gt_pair(&last.tab.1)
        .gt_pair(&last.tuc.0)
        .gt_pair(&last.tuc.1)
        .challenge()
}

/// The KZG evaluation point.
pub fn kzg_point(x_last: &Scalar, extra: &Scalar, g: &Gipa, version: Version) -> Scalar {
    let t = Transcript::new("random-z");
    let t = match version {
        Version::V1 => t.scalar(x_last),
        Version::V2 => t.scalar(extra),
    };
    let t = t.g2(&g.final_vkey.0).g2(&g.final_vkey.1).g1(&g.final_wkey.0).g1(&g.final_wkey.1);
    match version {
        Version::V1 => t.challenge(),
        Version::V2 => t.g1(&g.final_a).g2(&g.final_b).g1(&g.final_c).challenge(),
    }
}

/// The cross values of one round, from the halves.
fn round_values(v: &Vectors, split: usize, on: Pairings<'_>) -> Round {
    let (al, ar) = v.a.split_at(split);
    let (bl, br) = v.b.split_at(split);
    let (cl, cr) = v.c.split_at(split);
    let (rl, rr) = v.r.split_at(split);
    let (vl, vr) = v.vkey.split(split);
    let (wl, wr) = v.wkey.split(split);
    // Left: the keys' left halves with the vectors' right halves (B the other way round); right:
    // the mirror image.
    let ((left, right), zc) = rayon::join(
        || {
            rayon::join(
                || commit::pair_and_single(vl, wr, (ar, bl, cr), true, on),
                || commit::pair_and_single(vr, wl, (al, br, cl), true, on),
            )
        },
        || rayon::join(|| ipp::msm(cr, rl), || ipp::msm(cl, rr)),
    );
    let z = |side: Option<Gt>| side.expect("asked for Z_AB");
    Round { tab: (left.0, right.0), tuc: (left.1, right.1), zab: (z(left.2), z(right.2)), zc }
}

/// Folds every vector in half: A, C, w with x; B, r, v with x⁻¹.
fn fold_all(v: Vectors, split: usize, x: &Scalar, x_inv: &Scalar) -> Vectors {
    let (al, ar) = v.a.split_at(split);
    let (bl, br) = v.b.split_at(split);
    let (cl, cr) = v.c.split_at(split);
    let (vl, vr) = v.vkey.split(split);
    let (wl, wr) = v.wkey.split(split);
    let ((a, c), (b, (vkey, wkey))) = rayon::join(
        || rayon::join(|| ipp::fold(al, ar, x), || ipp::fold(cl, cr, x)),
        || {
            rayon::join(
                || ipp::fold(bl, br, x_inv),
                || rayon::join(|| Key::fold(vl, vr, x_inv), || Key::fold(wl, wr, x)),
            )
        },
    );
    let r = v.r[..split].par_iter().zip(&v.r[split..]).map(|(l, r)| *l + *r * x_inv).collect();
    Vectors { a, b, c, r, vkey, wkey }
}

/// The GIPA recursion for TIPP and MIPP at once; returns its proof part and challenges.
fn gipa(mut v: Vectors, st: &Statement, version: Version, on: Pairings<'_>) -> (Gipa, Challenges) {
    let nproofs = v.a.len() as u32;
    let mut x_inv = initial_challenge_inv(&st.hcom, &st.ip_ab, &st.agg_c, &st.r);
    let mut rounds = Vec::new();
    let mut xs = Vec::new();
    let mut i = 0;
    while v.a.len() > 1 {
        let split = v.a.len() / 2;
        let round = round_values(&v, split, on);
        x_inv = round_challenge_inv(i, &x_inv, &round, version);
        let x = x_inv.invert().unwrap();
        v = fold_all(v, split, &x, &x_inv);
        rounds.push(round);
        xs.push(x);
        i += 1;
    }
    let gipa = Gipa {
        nproofs,
        comms_ab: rounds.iter().map(|r| r.tab).collect(),
        comms_c: rounds.iter().map(|r| r.tuc).collect(),
        z_ab: rounds.iter().map(|r| r.zab).collect(),
        z_c: rounds.iter().map(|r| r.zc).collect(),
        final_a: v.a[0],
        final_b: v.b[0],
        final_c: v.c[0],
        final_vkey: v.vkey.first(),
        final_wkey: v.wkey.first(),
    };
    let extra = extra_challenge(xs.last().unwrap(), &gipa, rounds.last().unwrap());
    (gipa, Challenges { x: xs, extra })
}

/// The KZG openings of the final v (polynomial in the inverse challenges) and w (in the
/// challenges, shifted by r⁻¹ and by Xⁿ).
fn open_keys(
    pk: &ProverKey,
    g: &Gipa,
    ch: &Challenges,
    r: &Scalar,
    version: Version,
) -> ((G2Affine, G2Affine), (G1Affine, G1Affine)) {
    let n = pk.n;
    let rev: Vec<Scalar> = ch.x.iter().rev().copied().collect();
    let rev_inv: Vec<Scalar> = rev.iter().map(|x| x.invert().unwrap()).collect();
    let z = kzg_point(&rev[0], &ch.extra, g, version);
    rayon::join(
        || {
            let f = poly::coefficients(&rev_inv, &Scalar::ONE);
            let q = poly::divide_by_linear(&f, &z);
            rayon::join(|| ipp::msm(&pk.h_alpha, &q), || ipp::msm(&pk.h_beta, &q))
        },
        || {
            let mut f = vec![Scalar::ZERO; n];
            f.extend(poly::coefficients(&rev, &r.invert().unwrap()));
            let q = poly::divide_by_linear(&f, &z);
            rayon::join(|| ipp::msm(&pk.g_alpha, &q), || ipp::msm(&pk.g_beta, &q))
        },
    )
}
