//! One Groth16 partition proof on the CPU: check the parameters' shape, H by NTTs, the five
//! queries by split MSMs over the mmapped sections, then assembly. Returns stage timings too.
use std::time::Instant;

use anyhow::Result;
use blstrs::Scalar;

use super::h_poly::h_scalars;
use super::msm::{query_g1, query_g2, Split};
use crate::circuit::Assignment;
use crate::groth16::prove::{assemble, shape_of, QueryResults};
use crate::groth16::Proof;
use crate::prover::ProveTimings;
use crate::srs::{ParamsFile, SectionKind};

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

    Ok((assemble(&srs.vk, &QueryResults::from_blst(&h, &l, &a, &b_g1, &b_g2), r, s), t))
}
