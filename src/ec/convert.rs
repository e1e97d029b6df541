//! blst's points as blstrs' types and back (the same Montgomery limbs; no arithmetic). blstrs'
//! affine points are `#[repr(transparent)]` over blst's, so slices of them are lent to the
//! curve layer's functions as they are, without copies.
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};

use super::curve::{P1Affine, P2Affine, P1, P2};
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

/// An affine G1 point as blstrs' type ((0, 0) stays the identity).
pub fn g1_affine_from_blst(a: &P1Affine) -> G1Affine {
    G1Affine::from_raw_unchecked(fp(&a.x), fp(&a.y), false)
}

/// An affine G2 point as blstrs' type ((0, 0) stays the identity).
pub fn g2_affine_from_blst(a: &P2Affine) -> G2Affine {
    G2Affine::from_raw_unchecked(fp2(&a.x), fp2(&a.y), false)
}

const _: () = assert!(
    std::mem::size_of::<G1Affine>() == std::mem::size_of::<P1Affine>()
        && std::mem::align_of::<G1Affine>() == std::mem::align_of::<P1Affine>()
        && std::mem::size_of::<G2Affine>() == std::mem::size_of::<P2Affine>()
        && std::mem::align_of::<G2Affine>() == std::mem::align_of::<P2Affine>()
);

/// blstrs' affine G1 points as the curve layer's, in place.
pub fn g1_affines_as_blst(p: &[G1Affine]) -> &[P1Affine] {
    // SAFETY: blstrs' G1Affine is `#[repr(transparent)]` over blst_p1_affine (size and
    // alignment asserted equal above): the same memory holds the same points.
    unsafe { std::slice::from_raw_parts(p.as_ptr() as *const P1Affine, p.len()) }
}

/// blstrs' affine G2 points as the curve layer's, in place.
pub fn g2_affines_as_blst(p: &[G2Affine]) -> &[P2Affine] {
    // SAFETY: as in `g1_affines_as_blst`, G2Affine over blst_p2_affine.
    unsafe { std::slice::from_raw_parts(p.as_ptr() as *const P2Affine, p.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ec::{Curve, G1, G2};
    use group::{prime::PrimeCurveAffine, Curve as _};

    #[test]
    fn affine_points_round_trip() {
        let g = G1::generator();
        let h = G2::double(&G2::generator());
        let (ga, ha) = (G1::to_affine(&g), G2::to_affine(&h));
        assert_eq!(g1_affine_from_blst(&ga), g1_from_blst(&g).to_affine());
        assert_eq!(g2_affine_from_blst(&ha), g2_from_blst(&h).to_affine());
        let ours = [g1_affine_from_blst(&ga), G1Affine::identity()];
        assert_eq!(g1_affines_as_blst(&ours), [ga, P1Affine::default()]);
        let ours = [G2Affine::identity(), g2_affine_from_blst(&ha)];
        assert_eq!(g2_affines_as_blst(&ours), [P2Affine::default(), ha]);
        assert!(bool::from(g1_affine_from_blst(&P1Affine::default()).is_identity()));
    }
}
