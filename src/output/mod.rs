//! Output files appear under their final names only when complete: each is written to a temp
//! name beside it (`.NAME.tmp-PID`), synced, and renamed into place; a failure, a panic or a
//! signal (SIGINT, SIGTERM: [`interrupt`]) removes the temp files, so a failed run leaves no
//! partial file and keeps an older file of the same name. Used by every command that writes
//! proofs, reports, c1.json files and parameters.
pub mod interrupt;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

/// Files written under temp names, renamed into place by [`Staged::commit`]; dropped without
/// it, they are removed.
pub struct Staged {
    files: Vec<(PathBuf, PathBuf)>,
    done: bool,
    /// Registrations with the signal handler, which removes the temp files.
    _on_interrupt: Vec<interrupt::Pending>,
}

impl Staged {
    /// Temp names for `finals`, in the same order (see [`Staged::temp`]).
    pub fn new(finals: &[&Path]) -> Result<Self> {
        let files = finals.iter().map(|f| Ok((temp_path(f)?, f.to_path_buf()))).collect::<Result<Vec<_>>>()?;
        let guards = files.iter().map(|(tmp, _)| interrupt::register(tmp)).collect();
        Ok(Staged { files, done: false, _on_interrupt: guards })
    }

    /// Where to write the `i`-th file until it is committed.
    pub fn temp(&self, i: usize) -> &Path {
        &self.files[i].0
    }

    /// Renames every temp file to its final name, in order.
    pub fn commit(mut self) -> Result<()> {
        for (tmp, dst) in &self.files {
            std::fs::rename(tmp, dst)
                .with_context(|| format!("cannot rename {} to {}", tmp.display(), dst.display()))?;
        }
        self.done = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            for (tmp, _) in &self.files {
                let _ = std::fs::remove_file(tmp);
            }
        }
    }
}

/// `.NAME.tmp-PID` beside `path`.
fn temp_path(path: &Path) -> Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| anyhow!("{}: not a file path", path.display()))?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Ok(dir.join(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id())))
}

/// Writes `bytes` to `path` atomically: a temp file beside it, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let staged = Staged::new(&[path])?;
    let res = (|| -> Result<()> {
        let mut f = std::fs::File::create(staged.temp(0))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        Ok(())
    })();
    res.and_then(|()| staged.commit()).with_context(|| format!("{}: cannot write the file", path.display()))
}

/// Makes SIGINT and SIGTERM remove the temp files of writes in progress before the process
/// exits (status 128 + signal, 130 for Ctrl-C). Call once from a command that writes files; a
/// second call does nothing.
pub fn remove_temp_files_on_interrupt() {
    interrupt::install();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staged_file_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.bin"), dir.path().join("b.bin"));
        std::fs::write(&a, b"old").unwrap();
        {
            let s = Staged::new(&[&a, &b]).unwrap();
            std::fs::write(s.temp(0), b"new").unwrap();
            std::fs::write(s.temp(1), b"new").unwrap();
            // dropped without commit: the temp files go, the old file stays
        }
        assert_eq!(std::fs::read(&a).unwrap(), b"old");
        assert!(!b.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "temp files left behind");
        write_atomic(&b, b"proof").unwrap();
        assert_eq!(std::fs::read(&b).unwrap(), b"proof");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        assert!(write_atomic(&dir.path().join("no-such-dir/x"), b"x").is_err());
    }
}
