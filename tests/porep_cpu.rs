//! PoRep C2 on the CPU against Filecoin's own code: real 2KiB sectors sealed with
//! filecoin-proofs, proved by `filsnark prove porep`, judged by `verify_seal` and by
//! `filsnark verify porep`; and the reverse, a filecoin-proofs proof judged by filsnark.
mod common;

use std::path::Path;

use common::{filsnark, init_env, path_str, seal, stderr};
use filecoin_proofs_api::seal::{seal_commit_phase2, SealCommitPhase1Output};
use filecoin_proofs_api::SectorId;

struct Sealed {
    c1: SealCommitPhase1Output,
    miner: u64,
    sector: u64,
    c1_path: std::path::PathBuf,
}

fn seal_one(dir: &Path, miner: u64, sector: u64, seed: u64) -> Sealed {
    let c1 = seal::seal_2kib(miner, sector, seed, dir).unwrap();
    let c1_path = dir.join(format!("c1-{miner}-{sector}.json"));
    std::fs::write(&c1_path, seal::lotus_wrapper(&c1, sector).unwrap()).unwrap();
    Sealed { c1, miner, sector, c1_path }
}

fn chain_accepts(s: &Sealed, miner: u64, proof: &[u8]) -> bool {
    seal::chain_accepts(&s.c1, miner, s.sector, proof).unwrap_or(false)
}

fn prove(s: &Sealed, params: &Path, out: &Path) -> Vec<u8> {
    let miner = s.miner.to_string();
    let o = filsnark(&[
        "prove",
        "porep",
        "--c1",
        path_str(&s.c1_path),
        "--miner-id",
        &miner,
        "--params-dir",
        path_str(params),
        "-o",
        path_str(out),
    ]);
    assert!(o.status.success(), "prove failed: {}", stderr(&o));
    std::fs::read(out).unwrap()
}

fn filsnark_verify(s: &Sealed, miner: u64, params: &Path, proof: &Path) -> (i32, String) {
    let miner = miner.to_string();
    let o = filsnark(&[
        "verify",
        "porep",
        "--c1",
        path_str(&s.c1_path),
        "--miner-id",
        &miner,
        "--params-dir",
        path_str(params),
        "--proof",
        path_str(proof),
    ]);
    (o.status.code().unwrap_or(-1), stderr(&o))
}

#[test]
fn filsnark_proofs_pass_verify_seal_and_bad_ones_fail_both_verifiers() {
    let params = init_env();
    let dir = tempfile::tempdir().unwrap();
    let a = seal_one(dir.path(), 1000, 1, 1);
    let b = seal_one(dir.path(), 2345, 7, 2);

    let pa = dir.path().join("a.proof");
    let pb = dir.path().join("b.proof");
    let proof_a = prove(&a, &params, &pa);
    let proof_b = prove(&b, &params, &pb);
    assert_eq!(proof_a.len(), 192);
    assert!(chain_accepts(&a, a.miner, &proof_a), "verify_seal rejected filsnark's proof for sector a");
    assert!(chain_accepts(&b, b.miner, &proof_b), "verify_seal rejected filsnark's proof for sector b");
    assert_eq!(filsnark_verify(&a, a.miner, &params, &pa).0, 0);
    assert_eq!(filsnark_verify(&b, b.miner, &params, &pb).0, 0);

    // A flipped byte in C (still decodes or not: either way it must be rejected).
    let mut flipped = proof_a.clone();
    flipped[150] ^= 0x01;
    let pf = dir.path().join("flipped.proof");
    std::fs::write(&pf, &flipped).unwrap();
    assert!(!chain_accepts(&a, a.miner, &flipped));
    assert_eq!(filsnark_verify(&a, a.miner, &params, &pf).0, 1);

    // Another sector's proof.
    assert!(!chain_accepts(&a, a.miner, &proof_b));
    let (code, err) = filsnark_verify(&a, a.miner, &params, &pb);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("INVALID"), "{err}");

    // The right proof with a wrong miner id.
    assert!(!chain_accepts(&a, 1001, &proof_a));
    assert_eq!(filsnark_verify(&a, 1001, &params, &pa).0, 1);
}

#[test]
fn filecoin_proofs_own_proof_passes_filsnark_verify() {
    let params = init_env();
    let dir = tempfile::tempdir().unwrap();
    let s = seal_one(dir.path(), 4242, 3, 3);
    let out = seal_commit_phase2(s.c1.clone(), seal::prover_id(s.miner), SectorId::from(s.sector)).unwrap();
    let p = dir.path().join("ref.proof");
    std::fs::write(&p, &out.proof).unwrap();
    let (code, err) = filsnark_verify(&s, s.miner, &params, &p);
    assert_eq!(code, 0, "{err}");
}

/// The built-in 2KiB sample proved with `--seed seed`, `env` set for the run.
fn prove_fixture(params: &Path, out: &Path, seed: &str, env: &[(&str, &str)]) -> Vec<u8> {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("params/fixtures/c1-2kib-t01000-s1.json");
    let o = std::process::Command::new(common::params::bin())
        .args(["prove", "porep", "--c1", path_str(&fixture), "--params-dir", path_str(params), "--seed", seed])
        .args(["-o", path_str(out)])
        .envs(env.iter().copied())
        .output()
        .expect("run filsnark");
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read(out).unwrap()
}

#[test]
fn same_seed_gives_the_same_proof_bytes() {
    let params = init_env();
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, seed: &str| prove_fixture(&params, &dir.path().join(name), seed, &[]);
    let x = run("x.proof", "7");
    assert_eq!(x, run("y.proof", "7"));
    assert_ne!(x, run("z.proof", "8"));
}

/// The AVX-512 IFMA kernels (H polynomial, G1 and G2 MSMs) and blst give the same proof. Where
/// the CPU has no IFMA the test is skipped and says so (and fails with FILSNARK_EXPECT_IFMA=1).
#[test]
fn avx512_and_blst_paths_give_the_same_proof_bytes() {
    if !filsnark::field::lanes::available_for_test("avx512_and_blst_paths_give_the_same_proof_bytes") {
        return;
    }
    let params = init_env();
    let dir = tempfile::tempdir().unwrap();
    let ifma = prove_fixture(&params, &dir.path().join("ifma.proof"), "9", &[]);
    let blst = prove_fixture(&params, &dir.path().join("blst.proof"), "9", &[("FILSNARK_CPU_AVX512", "0")]);
    assert_eq!(ifma, blst);
}
