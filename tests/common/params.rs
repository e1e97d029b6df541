//! The 2KiB PoRep test parameters: made once with `filsnark params setup` (INSECURE, fixed
//! seed) and cached outside the repository, so reruns and other test binaries skip the work.
//! The cache is `$FILSNARK_TEST_PARAMS` if set, else `$HOME/.cache/filsnark/test-params-v1`.
//! Include with `#[path = "common/params.rs"] mod params;` (or `pub mod params;` in
//! `common/mod.rs`).
#![allow(dead_code)]
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Official file stem of the 2KiB PoRep parameters (storage-proofs-core's parameters.json).
pub const STEM_2KIB: &str = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f";

/// Seed of the cached parameters' toxic waste.
pub const SEED: u64 = 1;

/// The filsnark binary: `$FILSNARK_BIN` if set (the GPU machine runs packed test binaries far
/// from the build tree), else the one cargo built for these tests.
pub fn bin() -> PathBuf {
    match std::env::var_os("FILSNARK_BIN") {
        Some(b) if !b.is_empty() => PathBuf::from(b),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_filsnark")),
    }
}

/// The cache directory (not created).
pub fn cache_dir() -> PathBuf {
    filsnark::setup::test_params_cache().expect("HOME or FILSNARK_TEST_PARAMS must be set")
}

fn present(dir: &Path) -> (bool, bool) {
    (dir.join(format!("{STEM_2KIB}.params")).is_file(), dir.join(format!("{STEM_2KIB}.vk")).is_file())
}

/// A directory holding 2KiB PoRep `.params` and `.vk` under their official names, made with
/// `filsnark params setup --seed 1` if missing. Safe to call from parallel tests and
/// processes: an exclusive lock on `<dir>/.lock` serializes the check and the generation.
pub fn test_params_dir() -> PathBuf {
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".lock"))
        .unwrap_or_else(|e| panic!("cannot open {}/.lock: {e}", dir.display()));
    lock.lock().unwrap_or_else(|e| panic!("cannot lock {}/.lock: {e}", dir.display()));
    match present(&dir) {
        (true, true) => {}
        (false, false) => {
            let t = std::time::Instant::now();
            let out = Command::new(bin())
                .args(["params", "setup", "--proof", "porep", "--sector-size", "2KiB", "--seed", &SEED.to_string()])
                .arg("--out")
                .arg(&dir)
                .output()
                .expect("run filsnark params setup");
            assert!(
                out.status.success(),
                "filsnark params setup failed:\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            eprintln!("made 2KiB test parameters in {} ({:.1} s)", dir.display(), t.elapsed().as_secs_f64());
        }
        _ => panic!(
            "{} holds only one of {STEM_2KIB}.params / .vk; remove it (or set FILSNARK_TEST_PARAMS elsewhere)",
            dir.display()
        ),
    }
    drop(lock);
    dir
}

/// The PoSt and SnapDeals 2KiB circuits the tests need parameters for (`--proof` names).
pub const POST_SNAP_KINDS: [&str; 3] = ["window-post", "winning-post", "snap"];

/// The cache of the 2KiB WindowPoSt, WinningPoSt and SnapDeals test parameters: a sibling of
/// the PoRep cache, `<parent>/test-params-post-v1`.
pub fn post_cache_dir() -> PathBuf {
    let porep = cache_dir();
    porep.parent().map(|p| p.join("test-params-post-v1")).unwrap_or_else(|| PathBuf::from("test-params-post-v1"))
}

/// A directory holding 2KiB WindowPoSt, WinningPoSt and SnapDeals `.params` and `.vk` under
/// their official names, made once with `filsnark params setup --seed 1` (a few seconds for the
/// PoSt circuits, about a minute for SnapDeals), under the same exclusive lock as
/// [`test_params_dir`]. A kind is made again when either of its files is missing.
pub fn post_params_dir() -> PathBuf {
    let dir = post_cache_dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".lock"))
        .unwrap_or_else(|e| panic!("cannot open {}/.lock: {e}", dir.display()));
    lock.lock().unwrap_or_else(|e| panic!("cannot lock {}/.lock: {e}", dir.display()));
    for kind in POST_SNAP_KINDS {
        let stem = stem_of(kind);
        let have = |ext: &str| dir.join(format!("{stem}.{ext}")).is_file();
        if have("params") && have("vk") {
            continue;
        }
        let t = std::time::Instant::now();
        let out = Command::new(bin())
            .args(["params", "setup", "--proof", kind, "--sector-size", "2KiB", "--seed", &SEED.to_string(), "--force"])
            .arg("--out")
            .arg(&dir)
            .output()
            .expect("run filsnark params setup");
        assert!(
            out.status.success(),
            "filsnark params setup --proof {kind} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("made 2KiB {kind} test parameters in {} ({:.1} s)", dir.display(), t.elapsed().as_secs_f64());
    }
    drop(lock);
    dir
}

/// The official file stem of a 2KiB circuit (`--proof` name).
pub fn stem_of(kind: &str) -> String {
    let proof = filsnark::circuit::ProofKind::parse(kind).unwrap();
    filsnark::circuit::CircuitKind::new(proof, filsnark::input::PorepKind::S2KiB).stem().unwrap()
}
