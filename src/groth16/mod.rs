//! groth16
