//! Backend-independent Groth16 over BLS12-381: the proof and its 192-byte encoding, proof
//! assembly from the query results, and verification (prepared key, one multi-pairing).
pub mod proof;
pub mod prove;
pub mod verify;

pub use proof::{Proof, PROOF_BYTES};
pub use prove::{assemble, randomness, shape_of, QueryResults};
pub use verify::PreparedVerifyingKey;
