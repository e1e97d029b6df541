//! Bad post.json and snap.json, one case each (issue 24, item 5): every fault gives a message
//! naming the file, the field and the sector (or partition), exit status 2, no proof file, and
//! no panic. The inputs start from real 2KiB sectors and filecoin-proofs' vanilla proofs.
mod common;

use std::path::Path;
use std::sync::OnceLock;

use common::post::{self as fixtures, Sector, Updated, WINDOW, WINNING};
use common::{filsnark, path_str, stderr};
use serde_json::Value;

const MINER: u64 = 1000;

struct Fixtures {
    _dir: tempfile::TempDir,
    sectors: Vec<Sector>,
    randomness: [u8; 32],
    vanilla: Vec<Vec<u8>>,
    /// The same sectors' vanilla proofs for other randomness.
    vanilla_other: Vec<Vec<u8>>,
    winning_vanilla: Vec<Vec<u8>>,
    update: Updated,
    other_update: Updated,
}

/// Sectors 3, 5, 9 (two WindowPoSt partitions) and two updated sectors, made once.
fn fx() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let sectors = fixtures::seal_sectors(dir.path(), MINER, &[3, 5, 9], 50);
        let randomness = fixtures::randomness(5);
        let vanilla = fixtures::vanilla(WINDOW, &randomness, MINER, &sectors);
        let vanilla_other = fixtures::vanilla(WINDOW, &fixtures::randomness(6), MINER, &sectors);
        let winning_vanilla = fixtures::vanilla(WINNING, &randomness, MINER, &sectors[..1]);
        let update = fixtures::update_sector(dir.path(), MINER, 21, 60).unwrap();
        let other_update = fixtures::update_sector(dir.path(), MINER, 22, 70).unwrap();
        Fixtures { _dir: dir, sectors, randomness, vanilla, vanilla_other, winning_vanilla, update, other_update }
    })
}

fn window_json() -> Value {
    let f = fx();
    fixtures::post_json(WINDOW, MINER, &f.randomness, &f.sectors, &f.vanilla, None)
}

/// Runs `prove KIND` on `json` and checks the failure contract; returns stderr.
fn refused(kind: &str, json: &Value, expect: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.json");
    std::fs::write(&input, serde_json::to_vec(json).unwrap()).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let proof = out.join("p.proof");
    let params = tempfile::tempdir().unwrap();
    let o = filsnark(&[
        "prove",
        kind,
        "--in",
        path_str(&input),
        "--params-dir",
        path_str(params.path()),
        "-o",
        path_str(&proof),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "expected exit 2, got {:?}: {err}", o.status.code());
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("input.json"), "the message does not name the file: {err}");
    for e in expect {
        assert!(err.contains(e), "stderr lacks {e:?}: {err}");
    }
    assert!(!proof.exists(), "a proof file was left behind");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0, "files left behind");
    eprintln!("{err}");
    err
}

#[test]
fn unknown_keys_are_refused() {
    let mut j = window_json();
    j["Randomnes"] = j["Randomness"].clone();
    refused("window-post", &j, &["unknown key \"Randomnes\""]);
    let mut j = window_json();
    j["Sectors"][1]["Commr"] = Value::from("00");
    refused("window-post", &j, &["Sectors[1]", "unknown key \"Commr\""]);
    let mut j = fixtures::snap_json(&fx().update);
    j["CommDOld"] = Value::from("00");
    refused("snap", &j, &["unknown key \"CommDOld\""]);
}

#[test]
fn vanilla_proofs_for_other_randomness() {
    let f = fx();
    let j = fixtures::post_json(WINDOW, MINER, &f.randomness, &f.sectors, &f.vanilla_other, None);
    refused("window-post", &j, &["VanillaProofs[0] (sector 3)", "Randomness challenges leaf", "other randomness"]);
}

#[test]
fn vanilla_proof_of_another_sector() {
    let f = fx();
    let swapped = vec![f.vanilla[1].clone(), f.vanilla[0].clone(), f.vanilla[2].clone()];
    let j = fixtures::post_json(WINDOW, MINER, &f.randomness, &f.sectors, &swapped, None);
    refused("window-post", &j, &["VanillaProofs[0] (sector 3)", "vanilla proof of sector 5"]);
    // Sector 3's number with sector 5's CommR.
    let mut j = window_json();
    j["Sectors"][0]["CommR"] = j["Sectors"][1]["CommR"].clone();
    refused("window-post", &j, &["VanillaProofs[0] (sector 3)", "comm_r differs from the sector's CommR"]);
    // A snap.json whose vanilla proof belongs to another sector's update.
    let mut j = fixtures::snap_json(&f.update);
    j["VanillaProofs"] = fixtures::snap_json(&f.other_update)["VanillaProofs"].clone();
    refused("snap", &j, &["VanillaProofs[0] (partition 0)", "CommROld", "another sector"]);
}

#[test]
fn randomness_that_is_not_a_field_element() {
    let mut j = window_json();
    let mut r = fx().randomness;
    r[31] |= 0xc0;
    j["Randomness"] = filsnark::input::fields::to_hex(&r).into();
    refused("window-post", &j, &["Randomness is not a canonical field element", "randomness[31] &= 0x3f"]);
    let mut j = window_json();
    j["Randomness"] = "abc".into();
    refused("window-post", &j, &["Randomness must be 64 hex characters"]);
}

#[test]
fn sectors_out_of_order() {
    let f = fx();
    let order = [1, 0, 2];
    let sectors: Vec<Sector> = order.iter().map(|&i| f.sectors[i].clone()).collect();
    let vanilla: Vec<Vec<u8>> = order.iter().map(|&i| f.vanilla[i].clone()).collect();
    let j = fixtures::post_json(WINDOW, MINER, &f.randomness, &sectors, &vanilla, None);
    refused("window-post", &j, &["Sectors[1] is sector 3, after sector 5", "ascending"]);
}

#[test]
fn sectors_and_vanilla_proofs_disagree() {
    let mut j = window_json();
    j["VanillaProofs"].as_array_mut().unwrap().pop();
    refused("window-post", &j, &["Sectors has 3 entries but VanillaProofs has 2"]);
    let mut j = fixtures::snap_json(&fx().update);
    let p = j["VanillaProofs"][0].clone();
    j["VanillaProofs"].as_array_mut().unwrap().push(p);
    refused("snap", &j, &["VanillaProofs has 2 entries", "1 partition(s)"]);
}

#[test]
fn too_many_sectors_for_the_partition_count() {
    let mut j = window_json();
    j["Partition"] = 0.into();
    refused("window-post", &j, &["Partition", "at most 2", "too many sectors"]);
    let f = fx();
    let vanilla = vec![f.winning_vanilla[0].clone(); 2];
    let j = fixtures::post_json(WINNING, MINER, &f.randomness, &f.sectors[..2], &vanilla, None);
    refused("winning-post", &j, &["exactly one sector", "Sectors has 2"]);
}

#[test]
fn window_v1_is_refused() {
    let mut j = window_json();
    j["PoStProof"] = "StackedDrgWindow2KiBV1".into();
    refused("window-post", &j, &["PoStProof is StackedDrgWindow2KiBV1", "refused", "V1_2"]);
}

#[test]
fn wrong_proof_type_for_the_command() {
    let f = fx();
    let j = fixtures::post_json(WINNING, MINER, &f.randomness, &f.sectors[..1], &f.winning_vanilla, None);
    refused("window-post", &j, &["PoStProof is StackedDrgWinning2KiBV1", "use `winning-post`"]);
    refused("winning-post", &window_json(), &["use `window-post`"]);
    let mut j = fixtures::snap_json(&f.update);
    j["UpdateProof"] = "StackedDrgWindow2KiBV1_2".into();
    refused("snap", &j, &["UpdateProof \"StackedDrgWindow2KiBV1_2\" is not a RegisteredUpdateProof"]);
    let mut j = fixtures::snap_json(&f.update);
    j["CommROld"] = "zz".into();
    refused("snap", &j, &["CommROld must be 64 hex characters"]);
}

#[test]
fn a_snap_of_the_right_sector_for_another_update() {
    // The old sector's proof for other new data: CommRNew no longer matches.
    let f = fx();
    let mut j = fixtures::snap_json(&f.update);
    j["CommRNew"] = filsnark::input::fields::to_hex(&f.other_update.comm_r_new).into();
    refused("snap", &j, &["VanillaProofs[0] (partition 0)", "CommRNew"]);
}

#[test]
fn a_path_that_is_not_a_file() {
    let o = filsnark(&["prove", "window-post", "--in", "/nonexistent/post.json", "-o", "/tmp/never.proof"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/post.json: cannot read the post file"), "{}", stderr(&o));
    assert!(!Path::new("/tmp/never.proof").exists(), "a proof was written");
}

/// A 2KiB PoSt vanilla proof edited in its serde form (as JSON), encoded back with bincode.
fn edited(vanilla: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    type SectorProof = filecoin_proofs::FallbackPoStSectorProof<filecoin_proofs::SectorShape2KiB>;
    let proof: SectorProof = bincode::deserialize(vanilla).unwrap();
    let mut v = serde_json::to_value(&proof).unwrap();
    edit(&mut v);
    bincode::serialize(&serde_json::from_value::<SectorProof>(v).unwrap()).unwrap()
}

/// The path levels (`{hashes, index}`) of inclusion proof `n` of a PoSt vanilla proof.
fn levels(v: &mut Value, n: usize) -> &mut Vec<Value> {
    let p = &mut v["vanilla_proof"]["sectors"][0]["inclusion_proofs"][n]["data"]["Single"]["path"]["path"];
    p.as_array_mut().expect("a 2KiB inclusion proof is a single-tree path")
}

/// 32 × 0xff: above the scalar modulus (the crates' Poseidon hasher panicked on such a node,
/// found by tests/fuzz_post_snap.rs).
fn not_a_field_element() -> Value {
    Value::from(vec![0xffu64; 32])
}

#[test]
fn a_merkle_path_position_past_its_group() {
    // Position 8 + p at level 0 and one less at level 1 give the same leaf index, so the
    // challenge check passes and the crates' Merkle verifier inserted past the group: a panic.
    let f = fx();
    let mut vanilla = f.vanilla.clone();
    vanilla[0] = edited(&vanilla[0], |v| {
        let n = (0..10).find(|&n| levels(v, n)[1]["index"].as_u64().unwrap() > 0).unwrap();
        let l = levels(v, n);
        l[0]["index"] = (l[0]["index"].as_u64().unwrap() + 8).into();
        l[1]["index"] = (l[1]["index"].as_u64().unwrap() - 1).into();
    });
    let j = fixtures::post_json(WINDOW, MINER, &f.randomness, &f.sectors, &vanilla, None);
    refused(
        "window-post",
        &j,
        &[
            "VanillaProofs[0] (sector 3): sector proof 0: inclusion proof",
            "path level 0 holds 7 sibling(s)",
            "groups 8",
        ],
    );
}

#[test]
fn a_vanilla_node_that_is_not_a_field_element() {
    let f = fx();
    let mut vanilla = f.vanilla.clone();
    vanilla[1] = edited(&vanilla[1], |v| levels(v, 2)[0]["hashes"][1] = not_a_field_element());
    let j = fixtures::post_json(WINDOW, MINER, &f.randomness, &f.sectors, &vanilla, None);
    refused(
        "window-post",
        &j,
        &["VanillaProofs[1] (sector 5): sector proof 0: inclusion proof 2: path level 0, sibling 1 is not a field element"],
    );
    let winning =
        vec![edited(&f.winning_vanilla[0], |v| v["vanilla_proof"]["sectors"][0]["comm_c"] = not_a_field_element())];
    let j = fixtures::post_json(WINNING, MINER, &f.randomness, &f.sectors[..1], &winning, None);
    refused("winning-post", &j, &["VanillaProofs[0] (sector 3): sector proof 0: comm_c is not a field element"]);
    // A snap partition proof starts with its comm_c.
    let mut u = f.update.clone();
    u.vanilla[0][..32].copy_from_slice(&[0xff; 32]);
    refused("snap", &fixtures::snap_json(&u), &["VanillaProofs[0] (partition 0): comm_c is not a field element"]);
}
