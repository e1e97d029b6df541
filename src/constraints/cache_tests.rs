//! The on-disk cache: a missing file is compiled and stored, a stored one loads as it was
//! written, a corrupt (flipped byte, truncated) or foreign (another shape's) file is compiled
//! again and replaced, an unwritable directory is said once and the cache works in memory; and
//! the versions in the key are the ones Cargo.lock builds; storing a shape removes its files of
//! older formats and nothing else.
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Result;

use super::cache::{
    CacheKey, ConstraintCache, BELLPERSON_VERSION, STORAGE_PROOFS_POREP_VERSION, STORAGE_PROOFS_POST_VERSION,
    STORAGE_PROOFS_UPDATE_VERSION,
};
use super::compiled::Compiled;
use super::tests::compiled;
use crate::input::PorepKind;

fn key(kind: PorepKind) -> CacheKey {
    CacheKey::porep(kind, crate::circuit::porep_windows::porep_params_stem(kind).unwrap())
}

/// A cache in `dir` whose notices are kept.
fn cache(dir: &Path) -> (ConstraintCache, Arc<Mutex<Vec<String>>>) {
    let said = Arc::new(Mutex::new(Vec::new()));
    let s = said.clone();
    (ConstraintCache::with_notify(Some(dir.to_path_buf()), Box::new(move |m| s.lock().unwrap().push(m.into()))), said)
}

/// The 2KiB shape (compiled once per test process), counting how often it is asked for.
struct Compiler(AtomicUsize);

impl Compiler {
    fn new() -> Self {
        Compiler(AtomicUsize::new(0))
    }

    fn compile(&self) -> Result<Compiled> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok((*compiled(PorepKind::S2KiB)).clone())
    }

    fn calls(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

fn file(dir: &Path, kind: PorepKind) -> PathBuf {
    dir.join(key(kind).file_name())
}

/// Stores the 2KiB shape in `dir` and returns its file.
fn stored(dir: &Path) -> PathBuf {
    let (c, _) = cache(dir);
    c.get(&key(PorepKind::S2KiB), || Compiler::new().compile()).unwrap();
    file(dir, PorepKind::S2KiB)
}

/// A fresh cache over `dir` meets a bad file: it says what is wrong once, compiles again,
/// replaces the file, and the next cache loads it without compiling.
fn recovers(dir: &Path, kind: PorepKind, want_notice: &str) {
    let (c, said) = cache(dir);
    let compiler = Compiler::new();
    let got = c.get(&key(kind), || compiler.compile()).unwrap();
    assert_eq!(*got, *compiled(PorepKind::S2KiB));
    assert_eq!(compiler.calls(), 1);
    let said = said.lock().unwrap();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains(want_notice) && said[0].contains(&file(dir, kind).display().to_string()), "{said:?}");
    let (again, said) = cache(dir);
    let compiler = Compiler::new();
    again.get(&key(kind), || compiler.compile()).unwrap();
    assert_eq!((compiler.calls(), said.lock().unwrap().len()), (0, 0), "the rewritten file loads");
}

#[test]
fn missing_file_is_compiled_stored_and_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("nested/constraints");
    let (c, said) = cache(&dir);
    let compiler = Compiler::new();
    let first = c.get(&key(PorepKind::S2KiB), || compiler.compile()).unwrap();
    let again = c.get(&key(PorepKind::S2KiB), || compiler.compile()).unwrap();
    assert!(Arc::ptr_eq(&first, &again), "held in memory");
    assert_eq!(compiler.calls(), 1);
    assert_eq!(
        *said.lock().unwrap(),
        [format!("compiling the porep 2KiB constraints (once; kept in {})", dir.display())]
    );
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, [std::ffi::OsString::from(key(PorepKind::S2KiB).file_name())], "no temporary file left");
    let (other, said) = cache(&dir);
    let loaded = other.get(&key(PorepKind::S2KiB), || compiler.compile()).unwrap();
    assert_eq!(compiler.calls(), 1, "loaded, not compiled");
    assert!(said.lock().unwrap().is_empty());
    assert_eq!(*loaded, *first);
}

#[test]
fn a_flipped_byte_anywhere_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let path = stored(dir.path());
    let good = std::fs::read(&path).unwrap();
    let n = good.len();
    let body = 16 + key(PorepKind::S2KiB).text().len() + 8;
    // In the key, the stem, the counts, the template, its last codes, the checksum.
    for (at, notice) in [
        (20, "holds another shape or version"),
        (body + 10, "does not match"),
        (body + 4 + key(PorepKind::S2KiB).stem.len() + 9, "does not match"),
        (n / 2, "does not match"),
        (n - 40, "does not match"),
        (n - 1, "does not match"),
    ] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        std::fs::write(&path, &bad).unwrap();
        recovers(dir.path(), PorepKind::S2KiB, notice);
        assert_eq!(std::fs::read(&path).unwrap(), good, "byte {at}: the file is whole again");
    }
}

#[test]
fn a_truncated_or_extended_file_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let path = stored(dir.path());
    let good = std::fs::read(&path).unwrap();
    for (len, notice) in [
        (0, "shorter than a header"),
        (10, "shorter than a header"),
        (good.len() - 1, "bytes where the header announces"),
    ] {
        std::fs::write(&path, &good[..len]).unwrap();
        recovers(dir.path(), PorepKind::S2KiB, notice);
    }
    let mut longer = good.clone();
    longer.push(0);
    std::fs::write(&path, &longer).unwrap();
    recovers(dir.path(), PorepKind::S2KiB, "bytes where the header announces");
    std::fs::write(&path, b"not a cache file at all, just some text of some length").unwrap();
    recovers(dir.path(), PorepKind::S2KiB, "not a compiled-constraints file");
}

#[test]
fn another_shapes_file_is_not_taken() {
    let dir = tempfile::tempdir().unwrap();
    let path = stored(dir.path());
    std::fs::copy(&path, file(dir.path(), PorepKind::S8MiB)).unwrap();
    recovers(dir.path(), PorepKind::S8MiB, "holds another shape or version");
}

#[test]
fn an_unwritable_directory_is_said_once_and_memory_serves() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, b"x").unwrap();
    let (c, said) = cache(&blocker.join("constraints"));
    let compiler = Compiler::new();
    for kind in [PorepKind::S2KiB, PorepKind::S8MiB, PorepKind::S2KiB] {
        let got = c.get(&key(kind), || compiler.compile()).unwrap();
        assert_eq!(*got, *compiled(PorepKind::S2KiB));
    }
    assert_eq!(compiler.calls(), 2, "each shape compiled once, then from memory");
    let said = said.lock().unwrap();
    let unwritable: Vec<_> = said.iter().filter(|m| m.contains("cannot write compiled constraints")).collect();
    assert_eq!(unwritable.len(), 1, "{said:?}");
    assert!(unwritable[0].contains("keeping them in memory only"), "{said:?}");
}

#[test]
fn a_failed_compile_is_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let (c, _) = cache(dir.path());
    let err = c.get(&key(PorepKind::S2KiB), || anyhow::bail!("no")).unwrap_err();
    assert_eq!(format!("{err}"), "no");
    let compiler = Compiler::new();
    c.get(&key(PorepKind::S2KiB), || compiler.compile()).unwrap();
    assert_eq!(compiler.calls(), 1);
}

#[test]
fn keys_name_shape_stem_and_versions() {
    let (k2, k8) = (key(PorepKind::S2KiB), key(PorepKind::S8MiB));
    assert_ne!(k2.file_name(), k8.file_name());
    assert!(k2.file_name().starts_with("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-"));
    let text = k2.text();
    for part in
        ["porep 2KiB", &k2.stem, "storage-proofs-porep 19.1.0", "bellperson 0.27.0", "filsnark compiled format 2"]
    {
        assert!(text.contains(part), "{text}");
    }
    // The versions named are the ones built.
    let lock = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).unwrap();
    for (name, version) in [
        ("storage-proofs-porep", STORAGE_PROOFS_POREP_VERSION),
        ("storage-proofs-post", STORAGE_PROOFS_POST_VERSION),
        ("storage-proofs-update", STORAGE_PROOFS_UPDATE_VERSION),
        ("bellperson", BELLPERSON_VERSION),
    ] {
        let entry = format!("name = \"{name}\"\nversion = \"{version}\"\n");
        assert!(lock.contains(&entry), "Cargo.lock does not build {name} {version}");
    }
}

#[test]
fn storing_a_shape_removes_its_files_of_older_formats_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let header = |version: u32| [&super::format::MAGIC[..], &version.to_le_bytes(), &[0u8; 64]].concat();
    let stem = key(PorepKind::S2KiB).stem;
    let old = d.join(format!("{stem}.0123456789abcdef.constraints"));
    let current_other_build = d.join(format!("{stem}.fedcba9876543210.constraints"));
    let other_shape = d.join(format!("{}.0123456789abcdef.constraints", key(PorepKind::S8MiB).stem));
    let not_ours = d.join(format!("{stem}.notes.txt"));
    std::fs::write(&old, header(1)).unwrap();
    std::fs::write(&current_other_build, header(super::format::FORMAT_VERSION)).unwrap();
    std::fs::write(&other_shape, header(1)).unwrap();
    std::fs::write(&not_ours, header(1)).unwrap();

    let (c, said) = cache(d);
    c.get(&key(PorepKind::S2KiB), || Compiler::new().compile()).unwrap();
    assert!(!old.exists(), "the shape's format-1 file is removed");
    for kept in [&current_other_build, &other_shape, &not_ours, &file(d, PorepKind::S2KiB)] {
        assert!(kept.exists(), "{} is kept", kept.display());
    }
    let said = said.lock().unwrap();
    assert!(
        said.iter().any(|m| m.contains("removed") && m.contains(&old.display().to_string()) && m.contains("format 1")),
        "{said:?}"
    );
}
