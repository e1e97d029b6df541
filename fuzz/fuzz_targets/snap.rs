//! snap.json: `SnapInput::parse`, then `snap::check` (every vanilla partition proof against
//! the commitments); an accepted input has the partitions its sector size says, public inputs
//! for each; every error names the file (`filsnark::fuzzing::snap`).
#![no_main]
use std::path::Path;

use filsnark::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| filsnark_fuzz::judge(fuzzing::snap(data, Path::new("fuzz/snap.json"))));
