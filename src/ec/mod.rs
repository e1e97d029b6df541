//! Point constructors over blst's raw types, generic in the coordinate field (Fp for G1, Fp2
//! for G2), so code written once for both groups can build points: the GPU layout conversions
//! (`gpu::layout`) and the fixed-base tables of `params setup` (`setup::fixed_base`).
use blst::{blst_fp, blst_fp2, blst_p1, blst_p1_affine, blst_p2, blst_p2_affine};

pub mod convert;

pub use convert::{g1_from_blst, g2_from_blst};

/// A Jacobian point from its coordinates (x = X/Z², y = Y/Z³).
pub trait FromXyz<F> {
    fn from_xyz(x: F, y: F, z: F) -> Self;
}

/// An affine point from its coordinates ((0, 0) is infinity, as blst has it).
pub trait FromXy<F> {
    fn from_xy(x: F, y: F) -> Self;
}

impl FromXyz<blst_fp> for blst_p1 {
    fn from_xyz(x: blst_fp, y: blst_fp, z: blst_fp) -> Self {
        blst_p1 { x, y, z }
    }
}
impl FromXyz<blst_fp2> for blst_p2 {
    fn from_xyz(x: blst_fp2, y: blst_fp2, z: blst_fp2) -> Self {
        blst_p2 { x, y, z }
    }
}
impl FromXy<blst_fp> for blst_p1_affine {
    fn from_xy(x: blst_fp, y: blst_fp) -> Self {
        blst_p1_affine { x, y }
    }
}
impl FromXy<blst_fp2> for blst_p2_affine {
    fn from_xy(x: blst_fp2, y: blst_fp2) -> Self {
        blst_p2_affine { x, y }
    }
}
