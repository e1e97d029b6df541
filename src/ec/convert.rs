//! blst's points as blstrs' types (the same Montgomery limbs; no arithmetic).
use blstrs::{G1Projective, G2Projective};

use super::curve::{P1, P2};
use super::field::{Fp, Fp2};

fn fp(v: &Fp) -> blstrs::Fp {
    blstrs::Fp::from_raw_unchecked(v.l)
}

fn fp2(v: &Fp2) -> blstrs::Fp2 {
    blstrs::Fp2::new(fp(&v.fp[0]), fp(&v.fp[1]))
}

pub fn g1_from_blst(p: &P1) -> G1Projective {
    G1Projective::from_raw_unchecked(fp(&p.x), fp(&p.y), fp(&p.z))
}

pub fn g2_from_blst(p: &P2) -> G2Projective {
    G2Projective::from_raw_unchecked(fp2(&p.x), fp2(&p.y), fp2(&p.z))
}
