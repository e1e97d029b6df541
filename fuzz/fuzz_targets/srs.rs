//! The SnarkPack SRS (written to a scratch file): `SrsFile::open`, then `verifier_key` and
//! `prover_key` for as many proofs as it holds; every error names the file
//! (`filsnark::fuzzing::srs`).
#![no_main]
use filsnark::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = filsnark_fuzz::scratch("v28-fil-inner-product-v1.srs", data);
    filsnark_fuzz::judge(fuzzing::srs(&path));
});
