//! agg.json: `AggInput::parse`, then each sector's statement and the public inputs of every
//! partition, and `split_seal` of its proof; every error names the file
//! (`filsnark::fuzzing::agg`).
#![no_main]
use std::path::Path;

use filsnark::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| filsnark_fuzz::judge(fuzzing::agg(data, Path::new("fuzz/agg.json"))));
