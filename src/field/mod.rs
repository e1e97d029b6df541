//! The BLS12-381 fields beyond what blstrs offers: quick tests on a value's limbs ([`fr`]), the
//! roots of unity and power tables that every NTT, on either backend, starts from ([`roots`]),
//! and eight elements of Fr or Fp at a time on AVX-512 IFMA ([`lanes`]).
pub mod fr;
pub mod lanes;
pub mod roots;

pub use roots::{powers, root_of_unity};
