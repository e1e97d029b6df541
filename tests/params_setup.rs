//! `filsnark params setup`: the parameters it makes are accepted byte for byte by
//! filecoin-proofs (its own C2 proves with them and `verify_seal` accepts the proof) and by
//! filsnark's own prover and verifier; and it refuses the production cache and existing files.
//! The 2KiB parameters are made once and cached (see common/params.rs).
//! Run: `cargo test --release --test params_setup`.
use std::path::Path;
use std::process::{Command, Output};

use filecoin_proofs_api::seal::{seal_commit_phase2, verify_seal, SealCommitPhase1Output};
use filecoin_proofs_api::SectorId;

#[path = "common/params.rs"]
mod params;
#[path = "common/seal.rs"]
#[allow(dead_code)]
mod seal;

use params::{test_params_dir, STEM_2KIB};

fn filsnark(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_filsnark")).args(args).output().expect("run filsnark")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// filecoin-proofs' own C2, on a freshly sealed 2KiB sector, with our parameters; its proof
/// passes filecoin-proofs' `verify_seal`, and a corrupted one does not.
#[test]
fn filecoin_proofs_c2_proves_and_verifies_with_setup_params() {
    let dir = test_params_dir();
    // storage-proofs reads this once into a lazy static: set it before any filecoin-proofs call.
    // This is the only test of this binary that calls filecoin-proofs in-process.
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
    let work = tempfile::tempdir().unwrap();
    let (miner, sector) = (1234u64, 7u64);
    let c1: SealCommitPhase1Output = seal::seal_2kib(miner, sector, 42, work.path()).expect("seal a 2KiB sector");
    let (registered, comm_r, comm_d, ticket, seed) = (c1.registered_proof, c1.comm_r, c1.comm_d, c1.ticket, c1.seed);
    let prover = seal::prover_id(miner);
    let t = std::time::Instant::now();
    let out = seal_commit_phase2(c1, prover, SectorId::from(sector)).expect("filecoin-proofs C2 with setup params");
    eprintln!("filecoin-proofs C2: {:.1} s", t.elapsed().as_secs_f64());
    assert_eq!(out.proof.len(), 192);
    let ok = verify_seal(registered, comm_r, comm_d, prover, SectorId::from(sector), ticket, seed, &out.proof).unwrap();
    assert!(ok, "verify_seal rejected a C2 proof made with filsnark setup parameters");
    let mut bad = out.proof.clone();
    bad[100] ^= 1;
    let rejected =
        !verify_seal(registered, comm_r, comm_d, prover, SectorId::from(sector), ticket, seed, &bad).unwrap_or(false);
    assert!(rejected, "verify_seal accepted a corrupted proof");
}

/// filsnark's prover (on the shipped 2KiB fixture, miner t01000 sector 1) with the setup
/// parameters, then filsnark's verifier; `params info` shows the insecure marker.
#[test]
fn filsnark_prove_and_verify_with_setup_params() {
    let dir = test_params_dir();
    let params = dir.join(format!("{STEM_2KIB}.params"));
    let vk = std::fs::read(dir.join(format!("{STEM_2KIB}.vk"))).unwrap();
    let head = std::fs::read(&params).unwrap();
    assert_eq!(&head[..vk.len()], &vk[..], "the .vk file is not the head of the .params file");
    assert_eq!(head.len(), 1_114_707_768, "2KiB .params size (docs/facts.md)");
    drop(head);

    let info = filsnark(&["params", "info", s(&params)]);
    assert!(info.status.success(), "{}", text(&info));
    assert!(text(&info).contains("INSECURE TEST PARAMETERS made by filsnark params setup, seed"), "{}", text(&info));

    let work = tempfile::tempdir().unwrap();
    let proof = work.path().join("proof.bin");
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/params/fixtures/c1-2kib-t01000-s1.json");
    let p =
        filsnark(&["prove", "porep", "--c1", fixture, "--miner-id", "1000", "--params-dir", s(&dir), "-o", s(&proof)]);
    assert!(p.status.success(), "filsnark prove failed:\n{}", text(&p));
    assert_eq!(std::fs::metadata(&proof).unwrap().len(), 192);
    let v = filsnark(&[
        "verify",
        "porep",
        "--c1",
        fixture,
        "--miner-id",
        "1000",
        "--params-dir",
        s(&dir),
        "--proof",
        s(&proof),
    ]);
    assert!(v.status.success(), "filsnark verify failed:\n{}", text(&v));
}

fn setup_into(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["params", "setup", "--proof", "porep", "--sector-size", "2KiB", "--seed", "3", "--out", s(dir)];
    args.extend_from_slice(extra);
    filsnark(&args)
}

/// Points read from the file with positioned reads (`FILSNARK_PARAMS_READ=file`, the streamed
/// MSMs' staging) are the mapped bytes, in every section, at its start, middle and end.
#[test]
fn file_reads_of_every_section_are_the_mapped_bytes() {
    let p = filsnark::srs::ParamsFile::open(&test_params_dir().join(format!("{STEM_2KIB}.params"))).unwrap();
    for kind in filsnark::srs::SectionKind::ALL {
        let (mapped, file) = (p.raw(kind), p.file_points(kind));
        assert!(file.reads_file() && file.len() == mapped.len() && !mapped.is_empty());
        let len = (1 << 20).min(mapped.len());
        for at in [0, (mapped.len() - len) / 2, mapped.len() - len] {
            let mut got = vec![0u8; len];
            file.copy_to(at, &mut got).unwrap();
            assert!(got == mapped[at..at + len], "section {} bytes {at}..{}", kind.name(), at + len);
        }
    }
}

#[test]
fn setup_refuses_the_production_cache_without_force() {
    let prod = Path::new("/var/tmp/filecoin-proof-parameters");
    let existed = prod.exists();
    let o = setup_into(prod, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("production parameter cache"), "{}", text(&o));
    assert_eq!(prod.exists(), existed, "the refusal must not create the directory");
    // The same directory spelt differently is refused too.
    let o = setup_into(Path::new("/var/tmp/./filecoin-proof-parameters/"), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

#[test]
fn setup_refuses_to_overwrite_without_force() {
    let work = tempfile::tempdir().unwrap();
    for ext in ["params", "vk", "params.insecure"] {
        let existing = work.path().join(format!("{STEM_2KIB}.{ext}"));
        std::fs::write(&existing, b"keep me").unwrap();
        let o = setup_into(work.path(), &[]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains("already exists; pass --force"), "{}", text(&o));
        assert_eq!(std::fs::read(&existing).unwrap(), b"keep me");
        std::fs::remove_file(&existing).unwrap();
    }
    // Nothing else was left behind (no temporary files).
    assert_eq!(std::fs::read_dir(work.path()).unwrap().count(), 0);
}

#[test]
fn setup_rejects_unknown_sizes() {
    let work = tempfile::tempdir().unwrap();
    let o = filsnark(&["params", "setup", "--sector-size", "4KiB", "--out", s(work.path())]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("unknown sector size"), "{}", text(&o));
}

/// A run killed while it writes leaves nothing under an official name (only a hidden
/// temporary file).
#[test]
fn killed_setup_leaves_no_official_files() {
    let work = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_filsnark"))
        .args(["params", "setup", "--sector-size", "2KiB", "--seed", "9", "--out", s(work.path())])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let names = |dir: &Path| -> Vec<String> {
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
    };
    let t = std::time::Instant::now();
    while !names(work.path()).iter().any(|n| n.contains(".tmp-")) {
        assert!(t.elapsed().as_secs() < 300, "setup never started writing");
        assert!(child.try_wait().unwrap().is_none(), "setup ended early");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    child.kill().unwrap();
    child.wait().unwrap();
    let left = names(work.path());
    assert!(left.iter().all(|n| n.starts_with('.') && n.contains(".tmp-")), "left behind: {left:?}");
}

/// Ctrl-C while it writes: exit status 130 and nothing left at all, not even temp files.
#[test]
fn interrupted_setup_leaves_nothing() {
    let work = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_filsnark"))
        .args(["params", "setup", "--sector-size", "2KiB", "--seed", "10", "--out", s(work.path())])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let count = |dir: &Path| std::fs::read_dir(dir).unwrap().count();
    let t = std::time::Instant::now();
    while count(work.path()) == 0 {
        assert!(t.elapsed().as_secs() < 300, "setup never started writing");
        assert!(child.try_wait().unwrap().is_none(), "setup ended early");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "exit status after SIGINT");
    assert_eq!(count(work.path()), 0, "files left behind after SIGINT");
}
