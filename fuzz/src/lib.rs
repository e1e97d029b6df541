//! What the coverage-guided fuzz targets of `fuzz_targets/` share: a broken property made a
//! crash libFuzzer saves and reports, and the scratch file of the targets whose reader opens a
//! path. The checks themselves are `filsnark::fuzzing`, the ones the seeded fuzzer of
//! tests/ runs.
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use filsnark::fuzzing::Verdict;

/// Panics (a crash to libFuzzer) on a broken property; an accepted or well-refused input is
/// fine.
pub fn judge(verdict: Verdict) {
    if let Err(broken) = verdict {
        panic!("broken property: {broken}");
    }
}

static SCRATCH: OnceLock<PathBuf> = OnceLock::new();

extern "C" {
    fn atexit(f: extern "C" fn()) -> i32;
}

extern "C" fn remove_scratch() {
    if let Some(dir) = SCRATCH.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Writes `bytes` to this process's scratch file `name` (in memory where the system has a
/// tmpfs) and returns its path. The directory is made once per process, reused by every
/// execution, and removed when libFuzzer exits.
pub fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = SCRATCH.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let tmp = if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() };
        let dir = tmp.expect("a scratch directory").keep();
        // SAFETY: registers a plain function with the C library; it only removes a directory.
        unsafe { atexit(remove_scratch) };
        dir
    });
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write the scratch file");
    path
}
