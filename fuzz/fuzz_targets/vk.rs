//! A `.vk` file: `parse_vk`; an accepted key used exactly its fixed part, the count and its ic
//! points, no more bytes than there are; every error names the file
//! (`filsnark::fuzzing::vk`).
#![no_main]
use std::path::Path;

use filsnark::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| filsnark_fuzz::judge(fuzzing::vk(data, Path::new("fuzz/v28-x.vk"))));
