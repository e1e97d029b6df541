//! The curve layer: BLS12-381's G1 and G2 over blst, the only module that calls blst's C
//! functions for points, their coordinate fields, their encodings and pairings. Everything above works
//! through safe functions here.
//!
//! - [`field`]: Fp, Fp2 and Fr as blst holds them (Montgomery limbs) and [`MontField`], their
//!   arithmetic;
//! - [`curve`]: [`Curve`], implemented by [`G1`] and [`G2`]: Jacobian and affine points,
//!   additions, scalar multiplication, batch conversion to affine, Pippenger, the zcash
//!   encoding with and without checks;
//! - [`scalar`]: scalars as blst's multiplications read them ([`ScalarBytes`]);
//! - [`encoding`]: the flag bits of the zcash point encoding;
//! - [`generator_table`]: window tables of the standard generators and fixed-base
//!   multiplication into encoded points (`params setup` on the CPU, and the tables the GPU's
//!   fixed-base kernels read);
//! - [`pairing`]: pairing products Π e(p_i, q_i): multi-Miller loops and the final
//!   exponentiation;
//! - [`convert`]: blst's points as blstrs' types and back (same limbs, no arithmetic);
//! - [`sample`]: distinct valid points in bulk, for tests and benchmarks.
pub mod convert;
pub mod curve;
pub mod encoding;
pub mod field;
pub mod generator_table;
pub mod pairing;
pub mod sample;
pub mod scalar;

pub use convert::{
    g1_affine_from_blst, g1_affines_as_blst, g1_from_blst, g2_affine_from_blst, g2_affines_as_blst, g2_from_blst,
};
pub use curve::{Curve, P1Affine, P2Affine, G1, G2, P1, P2};
pub use field::{Fp, Fp2, Fr, MontField};
pub use pairing::{pairing_product, G2Lines, MillerLoops, MillerProduct};
pub use scalar::{scalar_bytes, ScalarBytes};
