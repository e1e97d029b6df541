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
    match std::fs::symlink_metadata(&path) {
        Ok(_) => {
            check_regular(&path, "parameter file")?;
            return Ok(path);
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            bail!("{}: cannot read the parameter file ({e})", path.display())
        }
        Err(_) => {}
    }
    if !dir.is_dir() {
        let what = if dir.exists() { "is not a directory" } else { "does not exist" };
        bail!("the parameter directory {} {what}; give --params-dir the directory of the .params files", dir.display());
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

/// An error unless `path` is a regular file, or a symbolic link that leads to one: a directory,
/// a FIFO (whose open would wait for a writer), a socket or device, a dangling link or a loop
/// of links each get their own message naming `what` the file should be.
pub fn check_regular(path: &Path, what: &str) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let p = path.display();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        // ELOOP: too many levels of symbolic links.
        Err(e) if e.raw_os_error() == Some(40) => bail!("{p}: a loop of symbolic links, not a {what}"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match std::fs::read_link(path) {
            Ok(target) => bail!("{p}: a symbolic link to {}, which does not exist", target.display()),
            Err(_) => bail!("{p}: no such {what}"),
        },
        Err(e) => bail!("{p}: cannot read the {what} ({e})"),
    };
    let t = meta.file_type();
    let kind = if t.is_file() {
        return Ok(());
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    };
    bail!("{p} is {kind}, not a {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_a_regular_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let stem = "v28-x";
        let named = |ext: &str| d.join(format!("{stem}.{ext}"));
        let err = |ext: &str| find(Some(d), stem, ext).unwrap_err().to_string();
        std::fs::create_dir(named("params")).unwrap();
        assert!(err("params").contains("is a directory, not a parameter file"), "{}", err("params"));
        std::process::Command::new("mkfifo").arg(named("vk")).status().unwrap();
        assert!(err("vk").contains("is a FIFO (named pipe), not a parameter file"), "{}", err("vk"));
        std::os::unix::fs::symlink(named("a"), named("b")).unwrap();
        std::os::unix::fs::symlink(named("b"), named("a")).unwrap();
        assert!(err("a").contains("a loop of symbolic links"), "{}", err("a"));
        std::os::unix::fs::symlink(d.join("gone"), named("srs")).unwrap();
        assert!(err("srs").contains("a symbolic link to") && err("srs").contains("does not exist"));
        std::fs::write(d.join("real"), b"x").unwrap();
        std::os::unix::fs::symlink(d.join("real"), named("ok")).unwrap();
        assert_eq!(find(Some(d), stem, "ok").unwrap(), named("ok"));
        assert!(err("none").contains("no parameter file v28-x.none in"));
        let e = find(Some(&d.join("missing")), stem, "params").unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
    }
}
