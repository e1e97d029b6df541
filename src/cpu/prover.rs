//! One Groth16 partition proof on the CPU: check the parameters' shape, H by NTTs, the five
//! queries by split MSMs over the mmapped sections, then assembly. Returns stage timings too.
use std::time::{Duration, Instant};

use anyhow::Result;
use blst::{blst_p1, blst_p2};
use blstrs::{Fp, Fp2, G1Projective, G2Projective, Scalar};

use super::h_poly::h_scalars;
use super::msm::{query_g1, query_g2, Split};
use crate::circuit::Assignment;
use crate::groth16::prove::{assemble, shape_of, QueryResults};
use crate::groth16::Proof;
use crate::srs::{ParamsFile, SectionKind};

/// Wall time of each stage of one partition proof.
#[derive(Clone, Debug, Default)]
pub struct ProveTimings {
    pub h_ntt: Duration,
    pub h_msm: Duration,
    pub l_msm: Duration,
    pub a_msm: Duration,
    pub b_g1_msm: Duration,
    pub b_g2_msm: Duration,
}

pub fn g1_from_blst(p: &blst_p1) -> G1Projective {
    let f = |v: &blst::blst_fp| Fp::from_raw_unchecked(v.l);
    G1Projective::from_raw_unchecked(f(&p.x), f(&p.y), f(&p.z))
}

pub fn g2_from_blst(p: &blst_p2) -> G2Projective {
    let f = |v: &blst::blst_fp2| Fp2::new(Fp::from_raw_unchecked(v.fp[0].l), Fp::from_raw_unchecked(v.fp[1].l));
    G2Projective::from_raw_unchecked(f(&p.x), f(&p.y), f(&p.z))
}

/// Proves one synthesized partition with randomness (r, s).
pub fn prove(srs: &ParamsFile, mut asg: Assignment, r: Scalar, s: Scalar) -> Result<(Proof, ProveTimings)> {
    srs.check_shape(&shape_of(&asg))?;
    let mut t = ProveTimings::default();

    let clock = Instant::now();
    let h = h_scalars(std::mem::take(&mut asg.a), std::mem::take(&mut asg.b), std::mem::take(&mut asg.c));
    t.h_ntt = clock.elapsed();

    let clock = Instant::now();
    let h = query_g1(srs.raw(SectionKind::H), &Split::dense(h));
    t.h_msm = clock.elapsed();

    let clock = Instant::now();
    let l = query_g1(srs.raw(SectionKind::L), &Split::new(asg.aux.iter()));
    t.l_msm = clock.elapsed();

    let clock = Instant::now();
    let a = query_g1(srs.raw(SectionKind::A), &Split::new(asg.a_query().iter_from(0)));
    t.a_msm = clock.elapsed();

    let b_split = Split::new(asg.b_query().iter_from(0));
    let clock = Instant::now();
    let b_g1 = query_g1(srs.raw(SectionKind::BG1), &b_split);
    t.b_g1_msm = clock.elapsed();
    let clock = Instant::now();
    let b_g2 = query_g2(srs.raw(SectionKind::BG2), &b_split);
    t.b_g2_msm = clock.elapsed();

    Ok((assemble(&srs.vk, &query_results(&h, &l, &a, &b_g1, &b_g2), r, s), t))
}

/// The five query sums, from blst's points, as proof assembly takes them (both backends).
pub fn query_results(h: &blst_p1, l: &blst_p1, a: &blst_p1, b_g1: &blst_p1, b_g2: &blst_p2) -> QueryResults {
    QueryResults {
        h: g1_from_blst(h),
        l: g1_from_blst(l),
        a: g1_from_blst(a),
        b_g1: g1_from_blst(b_g1),
        b_g2: g2_from_blst(b_g2),
    }
}
