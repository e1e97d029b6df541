//! Output files appear under their final names only when complete: each is written to a temp
//! name beside it (`.NAME.tmp-PID`), synced, and renamed into place; a failure, a panic or a
//! signal (SIGINT, SIGTERM: [`interrupt`]) removes the temp files, so a failed run leaves no
//! partial file and keeps an older file of the same name. Used by every command that writes
//! proofs, reports, c1.json files and parameters. [`check_outputs`] checks before a command's
//! work that its outputs can be written and replace no input; [`panics`] turns a panic into an
//! error.
pub mod interrupt;
pub mod panics;

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

/// Where a command will write, checked before it starts its work: `flag` names the option for
/// messages (`-o`, `--json`); `dir` marks a directory of outputs (`--out-dir`), made if missing.
pub struct Output<'a> {
    pub flag: &'a str,
    pub path: &'a Path,
    pub dir: bool,
}

impl<'a> Output<'a> {
    pub fn file(flag: &'a str, path: &'a Path) -> Self {
        Output { flag, path, dir: false }
    }
    pub fn dir(flag: &'a str, path: &'a Path) -> Self {
        Output { flag, path, dir: true }
    }
}

/// Checks before any work that every output can be written and replaces no input: a file
/// output is not a directory, its directory exists and takes a new file (a probe file with the
/// temp name [`write_atomic`] uses, made and removed), and it is neither an input
/// (`inputs`: flag and path; the same file under another name or a link counts) nor another
/// output. A directory output exists as a directory or can be made, and takes a new file.
pub fn check_outputs(outputs: &[Output], inputs: &[(&str, &Path)]) -> Result<()> {
    for (i, o) in outputs.iter().enumerate() {
        let p = o.path.display();
        for (flag, input) in inputs {
            if same_file(o.path, input) {
                anyhow::bail!(
                    "{} {p} is also the input {flag} {}: writing there would replace it; give another path",
                    o.flag,
                    input.display()
                );
            }
        }
        for other in &outputs[..i] {
            if same_file(o.path, other.path) {
                anyhow::bail!("{} and {} are both {p}: give each output its own path", other.flag, o.flag);
            }
        }
        if o.dir {
            check_dir_output(o)?;
        } else {
            check_file_output(o)?;
        }
    }
    Ok(())
}

fn check_file_output(o: &Output) -> Result<()> {
    let p = o.path.display();
    if o.path.is_dir() {
        anyhow::bail!("{} {p} is a directory; give the path of a file to write", o.flag);
    }
    let dir = o.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        let why = if dir.exists() { "is not a directory" } else { "does not exist" };
        anyhow::bail!("{} {p}: the directory {} {why}; create it first or give another path", o.flag, dir.display());
    }
    probe(o.flag, o.path)
}

fn check_dir_output(o: &Output) -> Result<()> {
    let p = o.path.display();
    if o.path.exists() && !o.path.is_dir() {
        anyhow::bail!("{} {p} exists and is not a directory", o.flag);
    }
    if o.path.is_dir() {
        return probe(o.flag, &o.path.join("probe"));
    }
    // Not there yet: the run creates it (and not before the work starts, so that a refused run
    // leaves nothing behind); its nearest existing ancestor must be a directory we can write.
    let mut up = o.path.parent();
    while let Some(d) = up.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        up = d.parent();
    }
    let ancestor = up.filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !ancestor.is_dir() {
        anyhow::bail!("{} {p}: {} is not a directory", o.flag, ancestor.display());
    }
    probe(o.flag, &ancestor.join("probe"))
}

/// Creates and removes the temp file a write of `path` would use.
fn probe(flag: &str, path: &Path) -> Result<()> {
    let tmp = temp_path(path)?;
    let dir = tmp.parent().unwrap_or(Path::new(".")).display().to_string();
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
        Ok(_) => {
            let _ = std::fs::remove_file(&tmp);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(anyhow!("{flag} {}: cannot create a file in {dir} ({e})", path.display())),
    }
}

/// Whether two paths name the same file: the same device and inode when both exist (links
/// and other spellings included), else the same path once made absolute and cleaned of `.`.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        (Err(_), Err(_)) => absolute(a) == absolute(b),
        _ => false,
    }
}

fn absolute(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    abs.components().filter(|c| !matches!(c, std::path::Component::CurDir)).collect()
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

    #[test]
    fn outputs_are_checked_before_the_work() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("c1.json");
        std::fs::write(&input, b"{}").unwrap();
        let out = dir.path().join("p.proof");
        let err =
            |outputs: &[Output], inputs: &[(&str, &Path)]| check_outputs(outputs, inputs).unwrap_err().to_string();
        check_outputs(&[Output::file("-o", &out)], &[("--c1", &input)]).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the probe file was left behind");
        // The input itself, under its own name, another spelling, and a hard link.
        let e = err(&[Output::file("-o", &input)], &[("--c1", &input)]);
        assert!(e.contains("is also the input --c1") && e.contains("replace it"), "{e}");
        let spelled = dir.path().join(".").join("c1.json");
        assert!(err(&[Output::file("-o", &spelled)], &[("--c1", &input)]).contains("is also the input"));
        let link = dir.path().join("link.json");
        std::fs::hard_link(&input, &link).unwrap();
        assert!(err(&[Output::file("-o", &link)], &[("--c1", &input)]).contains("is also the input"));
        // Two outputs on one path, a directory, a missing directory, a file as the directory.
        let e = err(&[Output::file("-o", &out), Output::file("--circuit-proofs", &out)], &[]);
        assert!(e.contains("-o and --circuit-proofs are both"), "{e}");
        assert!(err(&[Output::file("--json", dir.path())], &[]).contains("is a directory"));
        let e = err(&[Output::file("--timeline", &dir.path().join("nope/t.svg"))], &[]);
        assert!(e.contains("does not exist"), "{e}");
        let e = err(&[Output::file("-o", &input.join("x"))], &[]);
        assert!(e.contains("is not a directory"), "{e}");
        let e = err(&[Output::dir("--out-dir", &input)], &[]);
        assert!(e.contains("--out-dir") && e.contains("not a directory"), "{e}");
        let e = err(&[Output::dir("--out-dir", &input.join("x/y"))], &[]);
        assert!(e.contains("--out-dir") && e.contains("not a directory"), "{e}");
        // A directory still to make is checked through its nearest ancestor and not made here:
        // the run makes it once the work starts.
        let later = dir.path().join("proofs/2026");
        check_outputs(&[Output::dir("--out-dir", &later)], &[]).unwrap();
        assert!(!dir.path().join("proofs").exists());
        let made = dir.path().join("made");
        std::fs::create_dir(&made).unwrap();
        check_outputs(&[Output::dir("--out-dir", &made)], &[]).unwrap();
        assert!(std::fs::read_dir(&made).unwrap().count() == 0, "the probe is removed");
    }
}
