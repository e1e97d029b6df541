//! The directory the aggregation tests point filecoin-proofs and filsnark at: the 2KiB PoRep
//! test parameters (symbolic links into their cache) beside an INSECURE SnarkPack SRS for up to
//! 16 proofs (`filsnark params setup --proof aggregation --seed 1`), both under their official
//! names, since filecoin-proofs reads them from one FIL_PROOFS_PARAMETER_CACHE. Made once in
//! `$HOME/.cache/filsnark/test-agg-v1` (or `$FILSNARK_TEST_AGG`) under an exclusive lock on
//! `<dir>/.lock`, so parallel tests and processes share it.
#![allow(dead_code)]
use std::fs::File;
use std::path::PathBuf;
use std::process::Command;

use super::params::{bin, test_params_dir, STEM_2KIB};

/// The official SRS file name.
pub const SRS_FILE: &str = "v28-fil-inner-product-v1.srs";
/// The most proofs the test SRS aggregates.
pub const SRS_MAX_PROOFS: usize = 16;

pub fn cache_dir() -> PathBuf {
    match std::env::var_os("FILSNARK_TEST_AGG") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(std::env::var_os("HOME").expect("HOME must be set")).join(".cache/filsnark/test-agg-v1"),
    }
}

/// The directory, complete (made if missing).
pub fn test_agg_dir() -> PathBuf {
    let params = test_params_dir();
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let lock = File::options().create(true).truncate(false).write(true).open(dir.join(".lock")).unwrap();
    lock.lock().unwrap_or_else(|e| panic!("cannot lock {}/.lock: {e}", dir.display()));
    for ext in ["params", "vk"] {
        let name = format!("{STEM_2KIB}.{ext}");
        if std::fs::symlink_metadata(dir.join(&name)).is_err() {
            std::os::unix::fs::symlink(params.join(&name), dir.join(&name)).unwrap();
        }
    }
    if !dir.join(SRS_FILE).is_file() {
        let out = Command::new(bin())
            .args(["params", "setup", "--proof", "aggregation", "--seed", "1"])
            .args(["--max-proofs", &SRS_MAX_PROOFS.to_string(), "--out"])
            .arg(&dir)
            .output()
            .expect("run filsnark params setup");
        assert!(
            out.status.success(),
            "params setup --proof aggregation failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    drop(lock);
    dir
}

/// Points filecoin-proofs at the directory; call before any filecoin-proofs function.
pub fn init_env() -> PathBuf {
    let dir = test_agg_dir();
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
    dir
}
