//! Shared test support: sealing real 2KiB sectors, the cached test parameters, and running the
//! `filsnark` binary.
#![allow(dead_code)]
pub mod agg;
pub mod params;
pub mod post;
pub mod seal;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Directory with 2KiB PoRep parameters under their official names (made once, cached).
pub fn params_dir() -> PathBuf {
    params::test_params_dir()
}

/// Points filecoin-proofs (which reads FIL_PROOFS_PARAMETER_CACHE once) at the test parameters.
/// Call before any filecoin-proofs function.
pub fn init_env() -> PathBuf {
    let dir = params_dir();
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
    dir
}

/// Points filecoin-proofs at the 2KiB WindowPoSt, WinningPoSt and SnapDeals test parameters
/// (made once, cached). Call before any filecoin-proofs function; a test binary uses either
/// this or [`init_env`], since filecoin-proofs reads the variable once.
pub fn init_post_env() -> PathBuf {
    let dir = params::post_params_dir();
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
    dir
}

pub fn filsnark(args: &[&str]) -> Output {
    Command::new(params::bin()).args(args).output().expect("run filsnark")
}

/// `filsnark` with environment variables set for it alone.
pub fn filsnark_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(params::bin()).args(args).envs(env.iter().copied()).output().expect("run filsnark")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}
