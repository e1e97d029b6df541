//! Where parameter files live: `--params-dir`, else `FIL_PROOFS_PARAMETER_CACHE`, else the
//! lotus default `/var/tmp/filecoin-proof-parameters`; files carry their official names.
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

pub const DEFAULT_DIR: &str = "/var/tmp/filecoin-proof-parameters";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamsDirSource {
    Flag,
    Env,
    Default,
}

/// The directory to look in, and why it was chosen.
pub fn params_dir(flag: Option<&Path>) -> (PathBuf, ParamsDirSource) {
    if let Some(d) = flag {
        return (d.to_path_buf(), ParamsDirSource::Flag);
    }
    match std::env::var_os("FIL_PROOFS_PARAMETER_CACHE") {
        Some(d) if !d.is_empty() => (PathBuf::from(d), ParamsDirSource::Env),
        _ => (PathBuf::from(DEFAULT_DIR), ParamsDirSource::Default),
    }
}

/// The path of `<stem>.<ext>` in the parameter directory, or an error that says where we
/// looked and how to get the file.
pub fn find(flag: Option<&Path>, stem: &str, ext: &str) -> Result<PathBuf> {
    let (dir, source) = params_dir(flag);
    let path = dir.join(format!("{stem}.{ext}"));
    if path.is_file() {
        return Ok(path);
    }
    let why = match source {
        ParamsDirSource::Flag => "given by --params-dir",
        ParamsDirSource::Env => "from FIL_PROOFS_PARAMETER_CACHE",
        ParamsDirSource::Default => "the default; set --params-dir or FIL_PROOFS_PARAMETER_CACHE",
    };
    bail!(
        "no parameter file {stem}.{ext} in {} ({why}). Fetch the official files (e.g. `lotus fetch-params`) \
         or make insecure test parameters with `filsnark params setup`",
        dir.display()
    )
}
