//! A seal proof file: `Proof::split_seal` into as many partitions as its length holds; a
//! decoded proof encodes back to the same bytes (`filsnark::fuzzing::seal_proof`).
#![no_main]
use filsnark::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| filsnark_fuzz::judge(fuzzing::seal_proof(data)));
