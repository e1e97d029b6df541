//! A SnarkPack aggregate proof file: `AggregateProof::from_bytes`; a decoded aggregate encodes
//! back to the same bytes (`filsnark::fuzzing::aggregate_proof`).
#![no_main]
use filsnark::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| filsnark_fuzz::judge(fuzzing::aggregate_proof(data)));
