//! `filsnark c1 synth` against Filecoin's own code: synthetic c1.json files must pass
//! storage-proofs-porep's vanilla verifier (called here directly, not through filsnark), a
//! synthetic 2KiB c1 must prove with `filsnark prove porep` to a proof `verify_seal` accepts,
//! and tampered files must be rejected.
mod common;

use std::path::{Path, PathBuf};

use base64::Engine;
use common::{filsnark, init_env, path_str, seal, seal::prover_id, stderr};
use filecoin_hashers::{poseidon::PoseidonDomain, sha256::Sha256Domain, sha256::Sha256Hasher, Domain};
use filecoin_proofs::{parameters::public_params, SectorShape2KiB, SectorShape8MiB};
use filecoin_proofs_api::seal::SealCommitPhase1Output;
use serde_json::Value;
use storage_proofs_core::{merkle::MerkleTreeTrait, proof::ProofScheme};
use storage_proofs_porep::stacked::{generate_replica_id, Proof, PublicInputs, StackedDrg, Tau};

fn synth(dir: &Path, size: &str, miner: u64, sector: u64, seed: u64) -> PathBuf {
    let out = dir.join(format!("c1-{size}-{miner}-{sector}-{seed}.json"));
    let o = filsnark(&[
        "c1",
        "synth",
        "--sector-size",
        size,
        "--miner-id",
        &miner.to_string(),
        "--sector-num",
        &sector.to_string(),
        "--seed",
        &seed.to_string(),
        "-o",
        path_str(&out),
    ]);
    assert!(o.status.success(), "c1 synth {size} failed: {}", stderr(&o));
    out
}

/// The lotus wrapper's JSON and the SealCommitPhase1Output inside it.
fn read_wrapper(path: &Path) -> (Value, Value) {
    let wrapper: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let raw = base64::engine::general_purpose::STANDARD.decode(wrapper["Phase1Out"].as_str().unwrap()).unwrap();
    (wrapper, serde_json::from_slice(&raw).unwrap())
}

fn write_wrapper(path: &Path, mut wrapper: Value, inner: &Value) {
    let b64 = base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(inner).unwrap());
    wrapper["Phase1Out"] = Value::String(b64);
    std::fs::write(path, serde_json::to_vec(&wrapper).unwrap()).unwrap();
}

/// storage-proofs-porep's `verify_all_partitions` over the public inputs a chain verifier
/// derives for (miner, sector); also asserts the c1's replica id is the derived one.
fn vanilla_accepts<Tree: 'static + MerkleTreeTrait<Hasher = filecoin_proofs::DefaultTreeHasher>>(
    c1: &SealCommitPhase1Output,
    miner: u64,
    sector: u64,
) -> bool {
    let config = c1.registered_proof.as_v1_config();
    let replica_id =
        generate_replica_id::<Tree::Hasher, _>(&prover_id(miner), sector, &c1.ticket, c1.comm_d, &config.porep_id);
    if replica_id != c1.replica_id {
        return false;
    }
    let pp = public_params::<Tree>(&config).unwrap();
    let tau = Tau {
        comm_d: Sha256Domain::try_from_bytes(&c1.comm_d).unwrap(),
        comm_r: PoseidonDomain::try_from_bytes(&c1.comm_r).unwrap(),
    };
    let pub_in = PublicInputs { replica_id, tau: Some(tau), k: None, seed: Some(c1.seed) };
    let proofs: Vec<Vec<Proof<Tree, Sha256Hasher>>> = c1.vanilla_proofs.clone().try_into().unwrap();
    StackedDrg::<Tree, Sha256Hasher>::verify_all_partitions(&pp, &pub_in, &proofs).unwrap()
}

fn load_c1(path: &Path) -> SealCommitPhase1Output {
    serde_json::from_value(read_wrapper(path).1).unwrap()
}

fn c1_verify(path: &Path, miner: u64) -> (i32, String) {
    let o = filsnark(&["c1", "verify", "--c1", path_str(path), "--miner-id", &miner.to_string()]);
    (o.status.code().unwrap_or(-1), stderr(&o))
}

#[test]
fn synthetic_2kib_c1_proves_and_passes_verify_seal() {
    let params = init_env();
    let dir = tempfile::tempdir().unwrap();
    let (miner, sector) = (4321, 5);
    let path = synth(dir.path(), "2KiB", miner, sector, 11);
    let (wrapper, _) = read_wrapper(&path);
    assert_eq!(wrapper["SectorNum"], sector);
    assert_eq!(wrapper["SectorSize"], 2048);
    let c1 = load_c1(&path);
    assert!(vanilla_accepts::<SectorShape2KiB>(&c1, miner, sector), "vanilla verifier rejects the 2KiB synthesis");
    assert!(!vanilla_accepts::<SectorShape2KiB>(&c1, miner + 1, sector));

    let proof_path = dir.path().join("proof.bin");
    let miner_arg = miner.to_string();
    let mut args = vec!["prove", "porep", "--c1", path_str(&path), "--miner-id", &miner_arg];
    args.extend(["--params-dir", path_str(&params), "-o", path_str(&proof_path)]);
    args.extend(["--device", "cpu"]);
    let o = filsnark(&args);
    assert!(o.status.success(), "prove failed: {}", stderr(&o));
    let proof = std::fs::read(&proof_path).unwrap();
    assert_eq!(proof.len(), 192);
    let chain_accepts = |sector: u64| seal::chain_accepts(&c1, miner, sector, &proof).unwrap_or(false);
    assert!(chain_accepts(sector), "verify_seal rejects the proof of a synthetic 2KiB c1");
    assert!(!chain_accepts(sector + 1), "verify_seal accepts the proof for another sector");
}

#[test]
fn synthetic_8mib_c1_passes_the_vanilla_verifier() {
    let dir = tempfile::tempdir().unwrap();
    let path = synth(dir.path(), "8MiB", 1000, 77, 3);
    let c1 = load_c1(&path);
    assert_eq!(c1.registered_proof, filecoin_proofs_api::RegisteredSealProof::StackedDrg8MiBV1_1);
    assert!(vanilla_accepts::<SectorShape8MiB>(&c1, 1000, 77), "vanilla verifier rejects the 8MiB synthesis");
    assert_eq!(c1_verify(&path, 1000).0, 0);
    let (code, err) = c1_verify(&path, 1001);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("replica id"), "{err}");
}

/// The 8MiB parameters are not made in tests, so instead of a proof: the circuit, built from
/// the synthetic c1 by filsnark exactly as for proving, is satisfied (A·z ∘ B·z = C·z for
/// every constraint) and its public inputs are the verifier's.
#[test]
fn synthetic_8mib_witness_satisfies_the_circuit() {
    let dir = tempfile::tempdir().unwrap();
    let path = synth(dir.path(), "8MiB", 2000, 3, 4);
    let c1 = filsnark::input::C1Input::load(&path).unwrap();
    let sector = filsnark::input::SectorIdentity { miner_id: 2000, sector_num: 3 };
    let circuits = filsnark::circuit::circuits_from_c1(&c1, &sector).unwrap();
    let w = circuits.synthesize(0).unwrap();
    assert_eq!(w.inputs, circuits.public_inputs(0).unwrap(), "public inputs differ from the verifier's");
    let bad = (0..w.num_constraints()).find(|&i| w.a[i] * w.b[i] != w.c[i]);
    assert_eq!(bad, None, "constraint unsatisfied (of {})", w.num_constraints());
    assert!(w.num_constraints() > 3_000_000);
}

/// Applies `edit` to a copy of the synthetic c1's inner JSON, writes it, and returns
/// (accepted by storage-proofs directly, `c1 verify` exit status and stderr).
fn tampered(src: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> (bool, i32, String) {
    let (wrapper, mut inner) = read_wrapper(src);
    edit(&mut inner);
    let path = src.with_file_name(name);
    write_wrapper(&path, wrapper, &inner);
    let c1 = load_c1(&path);
    let accepted = vanilla_accepts::<SectorShape2KiB>(&c1, 1000, 1);
    let (code, err) = c1_verify(&path, 1000);
    (accepted, code, err)
}

/// The first challenge's vanilla proof in a 2KiB c1.
fn proof0(v: &mut Value) -> &mut Value {
    &mut v["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]
}

fn flip(v: &mut Value) {
    *v = Value::from(v.as_u64().unwrap() ^ 1);
}

#[test]
fn tampered_synthetic_c1_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = synth(dir.path(), "2KiB", 1000, 1, 5);
    assert!(vanilla_accepts::<SectorShape2KiB>(&load_c1(&path), 1000, 1));
    assert_eq!(c1_verify(&path, 1000).0, 0);

    // A label of the challenged node's column (layer 1): its column hash leaves tree C.
    let (ok, code, err) = tampered(&path, "col.json", |v| {
        flip(&mut proof0(v)["replica_column_proofs"]["c_x"]["column"]["rows"][0][0]);
    });
    assert!(!ok && code == 1, "flipped column label accepted: {code} {err}");
    assert!(err.contains("tree C"), "{err}");

    // A parent label inside the layer-2 labeling proof: the label no longer hashes.
    let (ok, code, err) = tampered(&path, "lab.json", |v| {
        flip(&mut proof0(v)["labeling_proofs"][1]["parents"][0][5]);
    });
    assert!(!ok && code == 1, "flipped labeling parent accepted: {code} {err}");
    assert!(err.contains("layer 2"), "{err}");

    // The data node in tree D: comm_d's path breaks.
    let (ok, code, err) = tampered(&path, "data.json", |v| {
        flip(&mut proof0(v)["comm_d_proofs"]["data"]["Single"]["leaf"][0]);
    });
    assert!(!ok && code == 1, "flipped data node accepted: {code} {err}");
    assert!(err.contains("tree D"), "{err}");

    // A sibling on the tree D path. storage-proofs' vanilla verifier compares the opening's
    // stored root and index but does not hash the path (the circuit does), so this one only
    // filsnark's check, which adds the circuit's checks, catches.
    let (ok, code, err) = tampered(&path, "sib.json", |v| {
        flip(&mut proof0(v)["comm_d_proofs"]["data"]["Single"]["path"]["path"][0]["hashes"][0][0]);
    });
    assert!(ok, "storage-proofs 19.1.0 now hashes the tree D path: update the comment above");
    assert_eq!(code, 1, "flipped tree D sibling accepted: {err}");
    assert!(err.contains("circuit would not") && err.contains("tree D"), "{err}");

    // comm_r of the statement.
    let (ok, code, err) = tampered(&path, "commr.json", |v| flip(&mut v["comm_r"][3]));
    assert!(!ok && code == 1, "flipped comm_r accepted: {code} {err}");
    assert!(err.contains("comm_r"), "{err}");
}

#[test]
fn same_seed_same_bytes_and_bad_flags_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let a = std::fs::read(synth(dir.path(), "2KiB", 1000, 1, 9)).unwrap();
    let b = std::fs::read(synth(&dir.path().join("."), "2KiB", 1000, 1, 9)).unwrap();
    let c = std::fs::read(synth(dir.path(), "2KiB", 1000, 1, 10)).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);

    let out = dir.path().join("never.json");
    let o = filsnark(&["c1", "synth", "--sector-size", "4KiB", "-o", path_str(&out)]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("4KiB"), "{}", stderr(&o));
    assert!(!out.exists());
    let o =
        filsnark(&["c1", "synth", "--sector-size", "2KiB", "-o", path_str(&dir.path().join("no/such/dir/c1.json"))]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(leftovers.iter().all(|n| !n.to_string_lossy().contains(".tmp-")), "{leftovers:?}");
}
