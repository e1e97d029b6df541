//! One Groth16 partition proof on the CPU: check the parameters' shape, H by NTTs, the five
//! queries by split MSMs over the mmapped sections, then assembly. Returns stage timings too.
//!
//! The queries of a small circuit run side by side ([`SIDE_BY_SIDE_DOMAIN`]): each one alone
//! leaves a core idle in its serial parts (the split of its scalars, the sums of its ones in
//! one block, the windows' Horner steps), and the others fill those gaps. A stage's timing is
//! then its own start to end, overlapping the others'.
use std::time::{Duration, Instant};

use anyhow::Result;
use blstrs::Scalar;

use super::h_poly::h_scalars;
use super::msm::{query_g1, query_g2, Split};
use crate::circuit::Assignment;
use crate::ec::{P1, P2};
use crate::groth16::prove::{assemble, shape_of, QueryResults};
use crate::groth16::Proof;
use crate::prover::ProveTimings;
use crate::srs::{ParamsFile, SectionKind};

/// Largest domain (constraints rounded up to a power of two) whose queries run side by side:
/// there every MSM is small enough to leave gaps for the others (a 2KiB WindowPoSt's are
/// 2^15 points and fewer), and several at once need little memory. Larger circuits keep
/// each query alone on every core, one after the other, holding one query's buffers at a time.
const SIDE_BY_SIDE_DOMAIN: usize = 1 << 20;

/// Proves one synthesized partition with randomness (r, s).
pub fn prove(srs: &ParamsFile, mut asg: Assignment, r: Scalar, s: Scalar) -> Result<(Proof, ProveTimings)> {
    srs.check_shape(&shape_of(&asg))?;
    let side_by_side = asg.a.len().next_power_of_two() <= SIDE_BY_SIDE_DOMAIN;
    let abc = (std::mem::take(&mut asg.a), std::mem::take(&mut asg.b), std::mem::take(&mut asg.c));
    let asg = &asg;
    let (h, (l, (a, b))) = both(
        side_by_side,
        || h_query(srs, abc),
        || {
            both(
                side_by_side,
                || timed(|| query_g1(srs.raw(SectionKind::L), &Split::new(asg.aux.iter()))),
                || {
                    both(
                        side_by_side,
                        || timed(|| query_g1(srs.raw(SectionKind::A), &Split::new(asg.a_query().iter_from(0)))),
                        || b_queries(srs, asg, side_by_side),
                    )
                },
            )
        },
    );
    let t = ProveTimings {
        evaluation: Duration::ZERO,
        h_ntt: h.1,
        h_msm: h.2,
        l_msm: l.1,
        a_msm: a.1,
        b_g1_msm: b.1,
        b_g2_msm: b.3,
    };
    Ok((assemble(&srs.vk, &QueryResults::from_blst(&h.0, &l.0, &a.0, &b.0, &b.2), r, s), t))
}

/// The H query: h = (a·b − c)/Z by NTTs, then its dense MSM; with both stages' times.
fn h_query(srs: &ParamsFile, (a, b, c): (Vec<Scalar>, Vec<Scalar>, Vec<Scalar>)) -> (P1, Duration, Duration) {
    let (h, ntt) = timed(|| h_scalars(a, b, c));
    let (h, msm) = timed(|| query_g1(srs.raw(SectionKind::H), &Split::dense(h)));
    (h, ntt, msm)
}

/// The B queries in G1 and G2, over one split of their scalars; with their times.
fn b_queries(srs: &ParamsFile, asg: &Assignment, side_by_side: bool) -> (P1, Duration, P2, Duration) {
    let split = Split::new(asg.b_query().iter_from(0));
    let (g1, g2) = both(
        side_by_side,
        || timed(|| query_g1(srs.raw(SectionKind::BG1), &split)),
        || timed(|| query_g2(srs.raw(SectionKind::BG2), &split)),
    );
    (g1.0, g1.1, g2.0, g2.1)
}

/// `f` and `g`, side by side on the thread pool or one after the other.
fn both<A: Send, B: Send>(side_by_side: bool, f: impl FnOnce() -> A + Send, g: impl FnOnce() -> B + Send) -> (A, B) {
    if side_by_side {
        rayon::join(f, g)
    } else {
        (f(), g())
    }
}

/// `f`'s result and how long it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let clock = Instant::now();
    let out = f();
    (out, clock.elapsed())
}
