//! blst's raw points as blstrs' types (the same Montgomery limbs; no arithmetic).
use blst::{blst_p1, blst_p2};
use blstrs::{Fp, Fp2, G1Projective, G2Projective};

pub fn g1_from_blst(p: &blst_p1) -> G1Projective {
    let f = |v: &blst::blst_fp| Fp::from_raw_unchecked(v.l);
    G1Projective::from_raw_unchecked(f(&p.x), f(&p.y), f(&p.z))
}

pub fn g2_from_blst(p: &blst_p2) -> G2Projective {
    let f = |v: &blst::blst_fp2| Fp2::new(Fp::from_raw_unchecked(v.fp[0].l), Fp::from_raw_unchecked(v.fp[1].l));
    G2Projective::from_raw_unchecked(f(&p.x), f(&p.y), f(&p.z))
}
