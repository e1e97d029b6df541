//! post.json of a WindowPoSt: `PostInput::parse`, then `post::check` (every vanilla proof
//! against its sector, challenges, commitments); an accepted input has the partitions its proof
//! type says, public inputs for each, and filecoin-proofs' vanilla verifier accepts it (2KiB);
//! every error names the file (`filsnark::fuzzing::post`).
#![no_main]
use std::path::Path;

use filecoin_proofs_api::PoStType;
use filsnark::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    filsnark_fuzz::judge(fuzzing::post(data, Path::new("fuzz/window-post.json"), PoStType::Window))
});
