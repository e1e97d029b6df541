//! Bad input, one test each: every fault gives a message naming the file and what is wrong,
//! exit status 2, no proof file, and no panic.
mod common;

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use base64::Engine;
use common::{filsnark, path_str, stderr};

use common::params::STEM_2KIB;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("params/fixtures/c1-2kib-t01000-s1.json")
}

/// Runs `prove porep` and checks the failure contract; returns stderr.
fn prove_fails(c1: &Path, params: &Path, extra: &[&str], expect: &[&str]) -> String {
    let out = tempfile::tempdir().unwrap();
    let proof = out.path().join("p.proof");
    let mut args =
        vec!["prove", "porep", "--c1", path_str(c1), "--params-dir", path_str(params), "-o", path_str(&proof)];
    args.extend_from_slice(extra);
    let o = filsnark(&args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "expected exit 2, got {:?}: {err}", o.status.code());
    assert!(!err.contains("panicked"), "{err}");
    for e in expect {
        assert!(err.contains(e), "stderr lacks {e:?}: {err}");
    }
    assert!(!proof.exists(), "a proof file was left behind");
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "files left behind");
    err
}

fn wrapper_with(edit: impl FnOnce(&mut serde_json::Value, &mut serde_json::Value)) -> tempfile::NamedTempFile {
    let mut w: serde_json::Value = serde_json::from_slice(&std::fs::read(fixture()).unwrap()).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut raw: serde_json::Value =
        serde_json::from_slice(&b64.decode(w["Phase1Out"].as_str().unwrap()).unwrap()).unwrap();
    edit(&mut w, &mut raw);
    w["Phase1Out"] = b64.encode(serde_json::to_vec(&raw).unwrap()).into();
    let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    f.write_all(w.to_string().as_bytes()).unwrap();
    f
}

fn c1_file(contents: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    f.write_all(contents.as_bytes()).unwrap();
    f
}

fn no_params() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn c1_that_is_not_json() {
    let f = c1_file("this is { not json");
    prove_fails(f.path(), no_params().path(), &[], &[path_str(f.path()), "not JSON"]);
}

#[test]
fn c1_with_bad_base64() {
    let f = c1_file(r#"{"SectorNum":1,"Phase1Out":"@@@ not base64 @@@","SectorSize":2048}"#);
    prove_fails(f.path(), no_params().path(), &[], &[path_str(f.path()), "Phase1Out is not valid base64"]);
}

#[test]
fn c1_with_unknown_proof_type() {
    let f = wrapper_with(|_, raw| raw["registered_proof"] = "StackedDrg4KiBV1_1".into());
    prove_fails(f.path(), no_params().path(), &[], &[path_str(f.path()), "unknown proof type", "StackedDrg4KiBV1_1"]);
}

#[test]
fn c1_whose_sector_size_does_not_match_the_proof_type() {
    let f = wrapper_with(|w, _| w["SectorSize"] = 8_388_608u64.into());
    prove_fails(f.path(), no_params().path(), &[], &[path_str(f.path()), "SectorSize 8388608 does not match"]);
}

#[test]
fn c1_that_claims_non_interactive_porep_over_interactive_vanilla_proofs() {
    let f = wrapper_with(|_, raw| raw["registered_proof"] = "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep".into());
    prove_fails(f.path(), no_params().path(), &[], &[path_str(f.path()), "1 partitions of vanilla proofs", "has 13"]);
}

#[test]
fn c1_that_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing-c1.json");
    prove_fails(&missing, no_params().path(), &[], &["missing-c1.json", "cannot read the c1 file"]);
}

#[test]
fn c1_proved_for_the_wrong_miner() {
    prove_fails(
        &fixture(),
        no_params().path(),
        &["--miner-id", "1001"],
        &["c1-2kib-t01000-s1.json", "miner t01001", "replica id"],
    );
}

/// The fixture with challenge `i` of partition 0's vanilla proof edited by `edit`: the c1 is
/// refused before proving, naming the file, the partition, the challenge and `expect`.
fn vanilla_proof_refused(i: usize, edit: impl FnOnce(&mut serde_json::Value), expect: &str) {
    let f = wrapper_with(|_, raw| edit(&mut raw["vanilla_proofs"]["StackedDrg2KiBV1"][0][i]));
    let at = format!("vanilla_proofs partition 0 challenge {i}");
    prove_fails(f.path(), no_params().path(), &[], &[path_str(f.path()), &at, expect]);
}

fn array(v: &mut serde_json::Value) -> &mut Vec<serde_json::Value> {
    v.as_array_mut().expect("a JSON array")
}

#[test]
fn c1_with_a_challenge_missing_from_a_partition() {
    let f = wrapper_with(|_, raw| {
        array(&mut raw["vanilla_proofs"]["StackedDrg2KiBV1"][0]).pop();
    });
    let expect = "vanilla_proofs partition 0: 1 challenge proofs, the 2KiB circuit has 2 per partition";
    prove_fails(f.path(), no_params().path(), &[], &[path_str(f.path()), expect]);
}

#[test]
fn c1_with_a_base_parent_missing() {
    vanilla_proof_refused(
        1,
        |p| drop(array(&mut p["replica_column_proofs"]["drg_parents"]).pop()),
        "replica_column_proofs.drg_parents has 5 columns, the 2KiB circuit has 6",
    );
}

#[test]
fn c1_with_an_expander_parent_too_many() {
    vanilla_proof_refused(
        0,
        |p| {
            let parents = array(&mut p["replica_column_proofs"]["exp_parents"]);
            parents.push(parents[0].clone());
        },
        "replica_column_proofs.exp_parents has 9 columns, the 2KiB circuit has 8",
    );
}

#[test]
fn c1_with_a_column_of_the_wrong_length() {
    vanilla_proof_refused(
        1,
        |p| {
            let rows = array(&mut p["replica_column_proofs"]["drg_parents"][2]["column"]["rows"]);
            rows.push(rows[0].clone());
        },
        "replica_column_proofs.drg_parents[2].column.rows has 3 labels, the 2KiB circuit has 2 layers",
    );
}

#[test]
fn c1_with_a_data_path_too_short() {
    vanilla_proof_refused(
        0,
        |p| drop(array(&mut p["comm_d_proofs"]["data"]["Single"]["path"]["path"]).pop()),
        "comm_d_proofs has a path of 5 levels, the 2KiB tree's paths have 6",
    );
}

#[test]
fn c1_with_a_path_level_of_the_wrong_arity() {
    vanilla_proof_refused(
        1,
        |p| drop(array(&mut p["comm_r_last_proof"]["data"]["Single"]["path"]["path"][1]["hashes"]).pop()),
        "comm_r_last_proof level 1 has 6 siblings, the 2KiB tree has arity 8 there (7 siblings)",
    );
}

#[test]
fn c1_with_a_path_index_beyond_the_arity() {
    vanilla_proof_refused(
        0,
        |p| {
            p["replica_column_proofs"]["c_x"]["inclusion_proof"]["data"]["Single"]["path"]["path"][0]["index"] =
                9.into()
        },
        "replica_column_proofs.c_x.inclusion_proof level 0 has index 9, beyond its arity 8",
    );
}

#[test]
fn c1_without_labeling_proofs() {
    vanilla_proof_refused(
        1,
        |p| array(&mut p["labeling_proofs"]).clear(),
        "labeling_proofs has 0 entries, the 2KiB circuit has 2 layers",
    );
}

#[test]
fn c1_whose_challenges_disagree_on_comm_r_last() {
    vanilla_proof_refused(
        1,
        |p| p["comm_r_last_proof"]["data"]["Single"]["root"][0] = 7.into(),
        "comm_r_last_proof's root differs from challenge 0's",
    );
}

#[test]
fn params_missing() {
    let dir = no_params();
    prove_fails(&fixture(), dir.path(), &[], &[STEM_2KIB, "no parameter file", path_str(dir.path())]);
}

/// Writes a sparse .params file: the real 2KiB verifying key (ic of 40 points) followed by
/// sections with the given counts, `shorten` bytes short of its full length.
fn sparse_params(dir: &Path, counts: [usize; 5], shorten: u64) -> PathBuf {
    let real = common::params_dir().join(format!("{STEM_2KIB}.params"));
    let vk_len = 864 + 4 + 40 * 96;
    let mut head = vec![0u8; vk_len];
    std::io::Read::read_exact(&mut std::fs::File::open(real).unwrap(), &mut head).unwrap();
    let path = dir.join(format!("{STEM_2KIB}.params"));
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(&head).unwrap();
    let mut at = vk_len as u64;
    for (i, n) in counts.iter().enumerate() {
        f.seek(SeekFrom::Start(at)).unwrap();
        f.write_all(&(*n as u32).to_be_bytes()).unwrap();
        at += 4 + (*n as u64) * if i == 4 { 192 } else { 96 };
    }
    f.set_len(at - shorten).unwrap();
    path
}

/// The section counts of the 2KiB circuit, read from the real test parameters.
fn counts_2kib() -> [usize; 5] {
    let p = filsnark::srs::ParamsFile::open(&common::params_dir().join(format!("{STEM_2KIB}.params"))).unwrap();
    let mut c = [0; 5];
    for (i, s) in p.sections.iter().enumerate() {
        c[i] = s.count;
    }
    c
}

#[test]
fn params_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let p = sparse_params(dir.path(), counts_2kib(), 1000);
    prove_fails(&fixture(), dir.path(), &[], &[path_str(&p), "truncated in section b_g2"]);
}

#[test]
fn params_with_a_section_count_off_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = counts_2kib();
    c[1] += 1;
    let p = sparse_params(dir.path(), c, 0);
    let want = format!("section l has {} points, the circuit needs {}", c[1], c[1] - 1);
    prove_fails(&fixture(), dir.path(), &[], &[path_str(&p), &want]);
}

#[test]
fn params_of_another_sector_size() {
    // The 8MiB PoRep circuit's l section (3,842,449 aux variables; docs/facts.md) under the 2KiB name.
    let dir = tempfile::tempdir().unwrap();
    let mut c = counts_2kib();
    c[1] = 3_842_449;
    let p = sparse_params(dir.path(), c, 0);
    prove_fails(
        &fixture(),
        dir.path(),
        &[],
        &[path_str(&p), "section l has 3842449 points", "another circuit or sector size"],
    );
}

#[test]
fn params_whose_points_are_not_on_the_curve() {
    // Right counts, but every point is zero bytes (not a valid encoding of any point).
    let dir = tempfile::tempdir().unwrap();
    let p = sparse_params(dir.path(), counts_2kib(), 0);
    prove_fails(&fixture(), dir.path(), &[], &[path_str(&p), "section h point 0 is not a valid G1 point"]);
}

#[test]
fn params_info_names_a_truncated_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = sparse_params(dir.path(), counts_2kib(), 1);
    let o = filsnark(&["params", "info", path_str(&p)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(path_str(&p)) && stderr(&o).contains("truncated"), "{}", stderr(&o));
}
