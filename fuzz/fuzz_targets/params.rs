//! A `.params` file (written to a scratch file): `ParamsFile::open`, then `check_shape` against
//! the seed's shape (counts and sampled points); every error names the file
//! (`filsnark::fuzzing::params`).
#![no_main]
use filsnark::fuzzing::{self, PARAMS_SHAPE};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = filsnark_fuzz::scratch("fuzz.params", data);
    filsnark_fuzz::judge(fuzzing::params(&path, &PARAMS_SHAPE));
});
