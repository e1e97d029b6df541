//! The compiled constraints kept on disk and in memory, keyed by shape and versions.
//!
//! A shape is compiled once per machine: the file `<stem>.<key hash>.constraints` in the
//! cache directory (`$FILSNARK_CACHE_DIR`, else `~/.cache/filsnark/constraints`) holds it under
//! its [`CacheKey`] — the sector size, the parameter file stem, the versions of the crates whose
//! gadgets define the constraints (storage-proofs-porep, bellperson) and the file format's. It
//! is written atomically (a temporary file in the same directory, then a rename), and checked
//! when loaded (header and key, sizes, SHA-256 of the body, then its structure). A missing,
//! corrupt or foreign file is compiled again and replaced, and the cache says so once. When the
//! directory cannot be written the cache says so once and keeps the constraints in memory.
//! Storing a shape removes that shape's files of an older file format (same stem), which no
//! later filsnark reads: a SnapDeals file of format 1 held 4.3 GB.
//! Within a process every shape is loaded or compiled once and shared.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::Result;
use sha2::{Digest, Sha256};

use super::compiled::Compiled;
use super::format::{self, FORMAT_VERSION};
use crate::circuit::post_windows::post_stem;
use crate::input::PorepKind;
use filecoin_proofs_api::{PoStType, RegisteredPoStProof};

/// The versions of the crates whose gadgets define the circuits, as filsnark is built with
/// them (pinned exactly in Cargo.toml; a test holds these to Cargo.lock).
pub const STORAGE_PROOFS_POREP_VERSION: &str = "19.1.0";
pub const STORAGE_PROOFS_POST_VERSION: &str = "19.1.0";
pub const STORAGE_PROOFS_UPDATE_VERSION: &str = "19.1.0";
pub const BELLPERSON_VERSION: &str = "0.27.0";

/// What a compiled shape is stored under.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    /// "porep 32GiB", "window-post 32GiB", …
    pub shape: String,
    /// The official parameter file stem.
    pub stem: String,
    /// The crate whose circuit this is, with its version ("storage-proofs-porep 19.1.0").
    pub circuit_crate: String,
}

impl CacheKey {
    pub fn porep(kind: PorepKind, stem: String) -> Self {
        let circuit_crate = format!("storage-proofs-porep {STORAGE_PROOFS_POREP_VERSION}");
        CacheKey { shape: format!("porep {}", kind.name()), stem, circuit_crate }
    }

    /// A PoSt shape: `shape` names the proof and sector size ("window-post 32GiB").
    pub fn post(shape: String, stem: String) -> Self {
        CacheKey { shape, stem, circuit_crate: format!("storage-proofs-post {STORAGE_PROOFS_POST_VERSION}") }
    }

    /// A SnapDeals shape ("snap 32GiB").
    pub fn snap(shape: String, stem: String) -> Self {
        CacheKey { shape, stem, circuit_crate: format!("storage-proofs-update {STORAGE_PROOFS_UPDATE_VERSION}") }
    }

    /// The key as stored in the file's header.
    pub fn text(&self) -> String {
        format!(
            "{} | {} | {} | bellperson {BELLPERSON_VERSION} | filsnark compiled format {FORMAT_VERSION}",
            self.shape, self.stem, self.circuit_crate
        )
    }

    /// The file's name: the stem for people, a hash of the whole key so that builds with other
    /// versions keep their own files.
    pub fn file_name(&self) -> String {
        let h = Sha256::digest(self.text().as_bytes());
        let hex: String = h[..8].iter().map(|b| format!("{b:02x}")).collect();
        format!("{}.{hex}.constraints", self.stem)
    }
}

/// Where notices go (stderr by default; tests collect them).
pub type Notify = Box<dyn Fn(&str) + Send + Sync>;

/// One slot per key: the lock serializes compiling a shape within the process.
type Slot = Arc<Mutex<Option<Arc<Compiled>>>>;

/// The cache: a directory (or none: memory only) and what this process already holds.
pub struct ConstraintCache {
    dir: Option<PathBuf>,
    slots: Mutex<HashMap<CacheKey, Slot>>,
    unwritable_said: Mutex<bool>,
    notify: Notify,
}

/// `$FILSNARK_CACHE_DIR` if set, else `$HOME/.cache/filsnark/constraints`; None without either.
pub fn default_dir() -> Option<PathBuf> {
    match std::env::var_os("FILSNARK_CACHE_DIR") {
        Some(d) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/filsnark/constraints")),
    }
}

impl ConstraintCache {
    /// A cache in `dir` (None: memory only), its notices on stderr.
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self::with_notify(dir, Box::new(|m| eprintln!("filsnark: {m}")))
    }

    pub fn with_notify(dir: Option<PathBuf>, notify: Notify) -> Self {
        ConstraintCache { dir, slots: Mutex::new(HashMap::new()), unwritable_said: Mutex::new(false), notify }
    }

    /// The process's cache, in [`default_dir`].
    pub fn global() -> &'static ConstraintCache {
        static GLOBAL: OnceLock<ConstraintCache> = OnceLock::new();
        GLOBAL.get_or_init(|| ConstraintCache::new(default_dir()))
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The compiled PoRep constraints of `kind` (one partition).
    pub fn porep(&self, kind: PorepKind) -> Result<Arc<Compiled>> {
        let key = CacheKey::porep(kind, crate::circuit::porep_windows::porep_params_stem(kind)?);
        self.get(&key, || super::compile_porep(kind, &*self.notify))
    }

    /// The compiled constraints of one partition of a registered PoSt.
    pub fn post(&self, registered: RegisteredPoStProof) -> Result<Arc<Compiled>> {
        let kind = PorepKind::from_sector_size(u64::from(registered.sector_size()))
            .ok_or_else(|| anyhow::anyhow!("{registered:?}: no sector size filsnark knows"))?;
        let proof = match registered.as_v1_config().typ {
            PoStType::Window => "window-post",
            PoStType::Winning => "winning-post",
        };
        let key = CacheKey::post(format!("{proof} {}", kind.name()), post_stem(registered)?);
        self.get(&key, || super::compile_post(registered, &*self.notify))
    }

    /// The compiled constraints of one SnapDeals partition of `size`.
    pub fn snap(&self, size: PorepKind) -> Result<Arc<Compiled>> {
        let key = CacheKey::snap(format!("snap {}", size.name()), crate::circuit::snap::snap_stem(size));
        self.get(&key, || super::compile_snap(size))
    }

    /// The compiled constraints under `key`: from memory, else from the directory, else from
    /// `compile` (then stored).
    pub fn get(&self, key: &CacheKey, compile: impl FnOnce() -> Result<Compiled>) -> Result<Arc<Compiled>> {
        let slot = self.slots.lock().unwrap().entry(key.clone()).or_default().clone();
        let mut held = slot.lock().unwrap();
        if let Some(c) = held.as_ref() {
            return Ok(c.clone());
        }
        let compiled = match self.load(key) {
            Some(c) => c,
            None => {
                let c = compile()?;
                self.store(key, &c);
                c
            }
        };
        let c = Arc::new(compiled);
        *held = Some(c.clone());
        Ok(c)
    }

    /// The file of `key`, if it loads; says why not unless it is simply missing.
    fn load(&self, key: &CacheKey) -> Option<Compiled> {
        let dir = self.dir.as_ref()?;
        let path = dir.join(key.file_name());
        if !path.exists() {
            (self.notify)(&format!("compiling the {} constraints (once; kept in {})", key.shape, dir.display()));
            return None;
        }
        match format::read(&path, &key.text()) {
            Ok(c) => Some(c),
            Err(e) => {
                // The error names the file.
                (self.notify)(&format!("{e:#}; compiling the {} constraints again", key.shape));
                None
            }
        }
    }

    /// Writes the file of `key` atomically; says once per cache when it cannot.
    fn store(&self, key: &CacheKey, c: &Compiled) {
        let Some(dir) = self.dir.as_ref() else { return };
        if *self.unwritable_said.lock().unwrap() {
            return;
        }
        match write_atomically(dir, key, c) {
            Ok(()) => self.prune_older_formats(dir, key),
            Err(e) => self.say_unwritable(dir, e),
        }
    }

    /// Removes the files of `key`'s stem whose header names an older format version, saying
    /// which and how large.
    fn prune_older_formats(&self, dir: &Path, key: &CacheKey) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mine = key.file_name();
        let prefix = format!("{}.", key.stem);
        for path in entries.flatten().map(|e| e.path()) {
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
            if name == mine || !name.starts_with(&prefix) || !name.ends_with(".constraints") {
                continue;
            }
            let Some(version) = format::version_of(&path).filter(|v| *v < FORMAT_VERSION) else { continue };
            let bytes = path.metadata().map(|m| m.len()).unwrap_or(0);
            if std::fs::remove_file(&path).is_ok() {
                (self.notify)(&format!(
                    "removed {} ({:.1} MB): the {} constraints in format {version}, which this filsnark no longer reads",
                    path.display(),
                    bytes as f64 / 1e6,
                    key.shape
                ));
            }
        }
    }

    fn say_unwritable(&self, dir: &Path, e: anyhow::Error) {
        let mut said = self.unwritable_said.lock().unwrap();
        if !*said {
            *said = true;
            (self.notify)(&format!(
                "cannot write compiled constraints to {} ({e:#}): keeping them in memory only",
                dir.display()
            ));
        }
    }
}

fn write_atomically(dir: &Path, key: &CacheKey, c: &Compiled) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(key.file_name());
    let tmp = dir.join(format!(".{}.tmp.{}", key.file_name(), std::process::id()));
    let written = format::write(&tmp, &key.text(), c).and_then(|()| Ok(std::fs::rename(&tmp, &path)?));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
