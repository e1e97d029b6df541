//! WindowPoSt, WinningPoSt and SnapDeals on the CPU against Filecoin's own code: 2KiB sectors
//! sealed (and updated) in the test, vanilla proofs made by filecoin-proofs, proved by
//! `filsnark prove`, judged by `verify_window_post`, `verify_winning_post` and
//! `verify_empty_sector_update_proof` and by `filsnark verify`; filecoin-proofs' own proofs
//! judged by `filsnark verify`; a flipped byte rejected by both.
mod common;

use std::path::Path;

use common::post::{self as fixtures, Sector, WINDOW, WINNING};
use common::{filsnark, init_post_env, path_str, seal::prover_id, stderr};
use filecoin_proofs_api::post::{
    generate_window_post_with_vanilla, generate_winning_post_with_vanilla, verify_window_post, verify_winning_post,
};
use filecoin_proofs_api::update::{generate_empty_sector_update_proof_with_vanilla, verify_empty_sector_update_proof};
use filecoin_proofs_api::PartitionProofBytes;

const MINER: u64 = 1000;

fn write_json(dir: &Path, name: &str, v: &serde_json::Value) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec_pretty(v).unwrap()).unwrap();
    p
}

/// `filsnark prove KIND --in input -o out [--seed S]`; the proof bytes.
fn prove(kind: &str, params: &Path, input: &Path, out: &Path, seed: Option<&str>) -> Vec<u8> {
    prove_with(kind, params, input, out, seed, &[])
}

/// [`prove`] with more arguments.
fn prove_with(kind: &str, params: &Path, input: &Path, out: &Path, seed: Option<&str>, more: &[&str]) -> Vec<u8> {
    let mut args = vec!["prove", kind, "--in", path_str(input), "--params-dir", path_str(params), "-o", path_str(out)];
    if let Some(s) = seed {
        args.extend(["--seed", s]);
    }
    args.extend(more);
    let o = filsnark(&args);
    assert!(o.status.success(), "prove {kind} failed: {}", stderr(&o));
    no_progress(&stderr(&o));
    std::fs::read(out).unwrap()
}

/// Progress is drawn only on a terminal: the tests' stderr is a pipe, so none of it may
/// appear there (no carriage returns, no spinner or bar text).
fn no_progress(err: &str) {
    for drawn in ["\r", "loading the parameters", "partitions proved", "\u{1b}["] {
        assert!(!err.contains(drawn), "progress ({drawn:?}) on a stderr that is not a terminal: {err}");
    }
}

/// `filsnark verify KIND`: the exit code and stderr.
fn verify(kind: &str, params: &Path, input: &Path, proof: &[u8], dir: &Path) -> (i32, String) {
    let p = dir.join(format!("verify-{kind}.proof"));
    std::fs::write(&p, proof).unwrap();
    let o =
        filsnark(&["verify", kind, "--in", path_str(input), "--params-dir", path_str(params), "--proof", path_str(&p)]);
    (o.status.code().unwrap_or(-1), stderr(&o))
}

fn window_ok(r: &[u8; 32], sectors: &[Sector], proof: &[u8]) -> bool {
    verify_window_post(r, &[(WINDOW, proof)], &fixtures::replicas(WINDOW, sectors), prover_id(MINER)).unwrap_or(false)
}

fn flipped(proof: &[u8], at: usize) -> Vec<u8> {
    let mut f = proof.to_vec();
    f[at] ^= 0x01;
    f
}

#[test]
fn window_post_both_ways_and_single_partitions() {
    let params = init_post_env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Three sectors: two partitions of two at 2KiB, the second padded as filecoin-proofs pads it.
    let sectors = fixtures::seal_sectors(d, MINER, &[3, 5, 9], 10);
    let r = fixtures::randomness(1);
    let vanilla = fixtures::vanilla(WINDOW, &r, MINER, &sectors);
    let input = write_json(d, "post.json", &fixtures::post_json(WINDOW, MINER, &r, &sectors, &vanilla, None));

    let ours = prove("window-post", &params, &input, &d.join("ours.proof"), None);
    assert_eq!(ours.len(), 2 * 192);
    assert!(window_ok(&r, &sectors, &ours), "verify_window_post rejected filsnark's proof");
    assert_eq!(verify("window-post", &params, &input, &ours, d).0, 0);

    // A flipped byte in the second partition's C.
    let bad = flipped(&ours, 192 + 150);
    assert!(!window_ok(&r, &sectors, &bad));
    let (code, err) = verify("window-post", &params, &input, &bad, d);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("INVALID"), "{err}");
    // Other randomness: the same proof does not verify.
    assert!(!window_ok(&fixtures::randomness(2), &sectors, &ours));

    // filecoin-proofs' own proof passes filsnark's verifier.
    let theirs = generate_window_post_with_vanilla(WINDOW, &r, prover_id(MINER), &vanilla).unwrap();
    assert_eq!(verify("window-post", &params, &input, &theirs[0].1, d).0, 0);

    // Each partition on its own (`Partition`), merged as Curio merges them.
    let part0 = fixtures::post_json(WINDOW, MINER, &r, &sectors[..2], &vanilla[..2], Some(0));
    let part1 = fixtures::post_json(WINDOW, MINER, &r, &sectors[2..], &vanilla[2..], Some(1));
    let p0 = prove("window-post", &params, &write_json(d, "p0.json", &part0), &d.join("p0.proof"), None);
    let p1_in = write_json(d, "p1.json", &part1);
    let p1 = prove("window-post", &params, &p1_in, &d.join("p1.proof"), None);
    assert_eq!((p0.len(), p1.len()), (192, 192));
    let merged = [p0, p1.clone()].concat();
    assert!(window_ok(&r, &sectors, &merged), "verify_window_post rejected the merged single-partition proofs");
    assert_eq!(verify("window-post", &params, &p1_in, &p1, d).0, 0);
}

#[test]
fn winning_post_both_ways() {
    let params = init_post_env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sectors = fixtures::seal_sectors(d, MINER, &[7], 20);
    let r = fixtures::randomness(3);
    let vanilla = fixtures::vanilla(WINNING, &r, MINER, &sectors);
    let input = write_json(d, "winning.json", &fixtures::post_json(WINNING, MINER, &r, &sectors, &vanilla, None));
    let accepts = |proof: &[u8]| {
        verify_winning_post(&r, proof, &fixtures::replicas(WINNING, &sectors), prover_id(MINER)).unwrap_or(false)
    };

    let ours = prove("winning-post", &params, &input, &d.join("ours.proof"), None);
    assert_eq!(ours.len(), 192);
    assert!(accepts(&ours), "verify_winning_post rejected filsnark's proof");
    assert_eq!(verify("winning-post", &params, &input, &ours, d).0, 0);

    let bad = flipped(&ours, 10);
    assert!(!accepts(&bad));
    assert_eq!(verify("winning-post", &params, &input, &bad, d).0, 1);

    let theirs = generate_winning_post_with_vanilla(WINNING, &r, prover_id(MINER), &vanilla).unwrap();
    assert!(accepts(&theirs[0].1));
    assert_eq!(verify("winning-post", &params, &input, &theirs[0].1, d).0, 0);
}

#[test]
fn snap_both_ways() {
    let params = init_post_env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let u = fixtures::update_sector(d, MINER, 11, 30).unwrap();
    let input = write_json(d, "snap.json", &fixtures::snap_json(&u));
    let accepts = |proof: &[u8]| {
        verify_empty_sector_update_proof(fixtures::UPDATE, proof, u.comm_r_old, u.comm_r_new, u.comm_d_new)
            .unwrap_or(false)
    };

    let ours = prove("snap", &params, &input, &d.join("ours.proof"), None);
    assert_eq!(ours.len(), 192);
    assert!(accepts(&ours), "verify_empty_sector_update_proof rejected filsnark's proof");
    assert_eq!(verify("snap", &params, &input, &ours, d).0, 0);

    let bad = flipped(&ours, 100);
    assert!(!accepts(&bad));
    assert_eq!(verify("snap", &params, &input, &bad, d).0, 1);

    let vanilla = u.vanilla.iter().cloned().map(PartitionProofBytes).collect();
    let theirs = generate_empty_sector_update_proof_with_vanilla(
        fixtures::UPDATE,
        vanilla,
        u.comm_r_old,
        u.comm_r_new,
        u.comm_d_new,
    )
    .unwrap();
    assert!(accepts(&theirs.0));
    assert_eq!(verify("snap", &params, &input, &theirs.0, d).0, 0);
}

#[test]
fn same_seed_gives_the_same_post_bytes() {
    let params = init_post_env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sectors = fixtures::seal_sectors(d, MINER, &[1, 2], 40);
    let r = fixtures::randomness(4);
    let vanilla = fixtures::vanilla(WINDOW, &r, MINER, &sectors);
    let input = write_json(d, "post.json", &fixtures::post_json(WINDOW, MINER, &r, &sectors, &vanilla, None));
    let x = prove("window-post", &params, &input, &d.join("x"), Some("7"));
    assert_eq!(x, prove("window-post", &params, &input, &d.join("y"), Some("7")));
    // The native witness (the default) and the crate's gadgets give the same proof.
    let gadgets = prove_with("window-post", &params, &input, &d.join("g"), Some("7"), &["--witness", "gadgets"]);
    assert_eq!(x, gadgets, "native and gadget witnesses give different WindowPoSt proofs");
    assert_ne!(x, prove("window-post", &params, &input, &d.join("z"), Some("8")));
    assert!(window_ok(&r, &sectors, &x));
}

/// `post synth` and `snap synth` inputs (no sealing) prove, and filecoin-proofs' verifiers
/// accept the proofs for the synthetic sectors' public data.
#[test]
fn synthetic_inputs_pass_filecoin_proofs_verifiers() {
    let params = init_post_env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let post = d.join("post.json");
    let o = filsnark(&[
        "post",
        "synth",
        "--proof",
        "window-post",
        "--sector-size",
        "2KiB",
        "--sectors",
        "3",
        "--seed",
        "9",
        "-o",
        path_str(&post),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let proof = prove("window-post", &params, &post, &d.join("post.proof"), None);
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&post).unwrap()).unwrap();
    let hex32 = |v: &serde_json::Value| filsnark::input::fields::hex32(v.as_str().unwrap()).unwrap();
    let r = hex32(&j["Randomness"]);
    let sectors: Vec<Sector> = j["Sectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| Sector {
            num: s["SectorNum"].as_u64().unwrap(),
            comm_r: hex32(&s["CommR"]),
            cache: d.into(),
            replica: d.into(),
        })
        .collect();
    assert!(window_ok(&r, &sectors, &proof), "verify_window_post rejected the synthetic input's proof");

    let snap = d.join("snap.json");
    let o = filsnark(&["snap", "synth", "--sector-size", "2KiB", "--seed", "9", "-o", path_str(&snap)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let proof = prove("snap", &params, &snap, &d.join("snap.proof"), None);
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&snap).unwrap()).unwrap();
    let ok = verify_empty_sector_update_proof(
        fixtures::UPDATE,
        &proof,
        hex32(&j["CommROld"]),
        hex32(&j["CommRNew"]),
        hex32(&j["CommDNew"]),
    )
    .unwrap();
    assert!(ok, "verify_empty_sector_update_proof rejected the synthetic input's proof");
}

/// `bench snap` on a synthetic input, stderr a pipe: two proofs verified and reported (JSON
/// too), one log line per partition and proof instead of the progress bar.
#[test]
fn bench_snap_logs_lines_without_a_terminal() {
    let params = init_post_env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let snap = d.join("snap.json");
    let o = filsnark(&["snap", "synth", "--sector-size", "2KiB", "--seed", "3", "-o", path_str(&snap)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json = d.join("report.json");
    let o = filsnark(&[
        "bench",
        "snap",
        "--in",
        path_str(&snap),
        "--params-dir",
        path_str(&params),
        "-j",
        "2",
        "--json",
        path_str(&json),
    ]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(o.status.success(), "bench snap failed: {err}");
    assert!(out.contains("all 2 proof(s) verified"), "{out}");
    no_progress(&err);
    assert!(err.contains("proof 0 partition 0 done") && err.contains("verified (2/2)"), "no log lines: {err}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["proofs"].as_array().unwrap().len(), 2);
}
