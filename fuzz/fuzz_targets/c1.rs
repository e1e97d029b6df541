//! c1.json, wrapper or raw: `C1Input::parse`, then the full pre-proving check of what parses
//! (`check_c1`); every error names the file (`filsnark::fuzzing::c1`).
#![no_main]
use std::path::Path;

use filsnark::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| filsnark_fuzz::judge(fuzzing::c1(data, Path::new("fuzz/c1.json"))));
