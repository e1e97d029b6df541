//! The BLS12-381 scalar field Fr beyond what blstrs offers: quick tests on a value's limbs
//! ([`fr`]) and the roots of unity and power tables that every NTT, on either backend, starts
//! from ([`roots`]).
pub mod fr;
pub mod roots;

pub use roots::{powers, root_of_unity};
