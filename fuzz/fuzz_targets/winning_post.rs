//! post.json of a WinningPoSt: `PostInput::parse`, then `post::check`; an accepted input has one
//! partition with its public inputs, and filecoin-proofs' vanilla verifier accepts it (2KiB);
//! every error names the file (`filsnark::fuzzing::post`).
#![no_main]
use std::path::Path;

use filecoin_proofs_api::PoStType;
use filsnark::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    filsnark_fuzz::judge(fuzzing::post(data, Path::new("fuzz/winning-post.json"), PoStType::Winning))
});
