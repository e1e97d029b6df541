//! Hostile inputs, by class (docs/hostile-inputs.md): values that would panic inside the
//! Filecoin crates, a c1 that is inconsistent (refused before any proving, not blamed on the
//! parameters), verifying keys with bad points (the file named), outputs that would replace an
//! input or cannot be written (refused before the work), numbers that overflow, weak messages
//! (parameter paths that are not files, miner id spellings, units), a flag at the wrong level,
//! and a panic inside a worker. Every failure is exit 2 with one `filsnark: error:` line, no
//! panic report and no output file.
mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine;
use common::params::STEM_2KIB;
use common::{path_str, stderr};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// An edit of a c1's raw JSON, and of a file's bytes.
type JsonEdit = fn(&mut serde_json::Value);
type BytesEdit = fn(&mut Vec<u8>);

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("params/fixtures/c1-2kib-t01000-s1.json")
}

/// Runs filsnark as a user would (no RUST_BACKTRACE, which asks for Rust's own panic report).
fn filsnark(args: &[&str]) -> std::process::Output {
    std::process::Command::new(common::params::bin()).args(args).env_remove("RUST_BACKTRACE").output().unwrap()
}

/// Runs filsnark; checks exit 2, no panic report, and that stderr has each of `expect`.
fn fails(args: &[&str], expect: &[&str]) -> String {
    exits(2, args, expect)
}

/// `c1 verify`'s verdict on a c1 whose proofs do not hold: exit 1, INVALID, and `expect`.
fn invalid(args: &[&str], expect: &[&str]) -> String {
    let err = exits(1, args, expect);
    assert!(err.starts_with("filsnark: INVALID: "), "{err}");
    err
}

fn exits(code: i32, args: &[&str], expect: &[&str]) -> String {
    let o = filsnark(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{args:?}: expected exit {code}, got {:?}: {err}", o.status.code());
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE=1` env"), "{args:?}: {err}");
    for e in expect {
        assert!(err.contains(e), "{args:?}: stderr lacks {e:?}: {err}");
    }
    err
}

/// The fixture's wrapper with its raw output edited, in a temp dir with nothing else.
fn c1_with(edit: impl FnOnce(&mut serde_json::Value)) -> (tempfile::TempDir, PathBuf) {
    let mut w: serde_json::Value = serde_json::from_slice(&std::fs::read(fixture()).unwrap()).unwrap();
    let mut raw: serde_json::Value =
        serde_json::from_slice(&B64.decode(w["Phase1Out"].as_str().unwrap()).unwrap()).unwrap();
    edit(&mut raw);
    w["Phase1Out"] = B64.encode(serde_json::to_vec(&raw).unwrap()).into();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c1.json");
    std::fs::write(&path, w.to_string()).unwrap();
    (dir, path)
}

fn proof0(raw: &mut serde_json::Value) -> &mut serde_json::Value {
    &mut raw["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]
}

/// The three commands that read a c1 all refuse it with the same message, before any work.
fn c1_refused_everywhere(c1: &Path, expect: &[&str]) {
    let dir = c1.parent().unwrap();
    let out = dir.join("p.proof");
    let proof = dir.join("in.proof");
    std::fs::write(&proof, [0u8; 192]).unwrap();
    let params = path_str(dir);
    let c = path_str(c1);
    let mut want = vec![c];
    want.extend_from_slice(expect);
    fails(&["prove", "porep", "--c1", c, "--params-dir", params, "-o", path_str(&out)], &want);
    fails(&["c1", "verify", "--c1", c], &want);
    fails(&["verify", "porep", "--c1", c, "--proof", path_str(&proof), "--params-dir", params], &want);
    assert!(!out.exists(), "a proof was written");
}

// Class 1: values that are not field elements, and shapes that tripped the crates' asserts.

#[test]
fn non_canonical_commitments_and_ids_are_named() {
    for field in ["replica_id", "comm_r", "comm_d"] {
        let (_d, c1) = c1_with(|raw| raw[field] = serde_json::Value::from(vec![255u8; 32]));
        c1_refused_everywhere(&c1, &[&format!("{field} is not a field element")]);
    }
}

#[test]
fn non_canonical_tree_values_are_named_by_their_place() {
    let (_d, c1) = c1_with(|raw| proof0(raw)["comm_d_proofs"]["data"]["Single"]["leaf"] = vec![255u8; 32].into());
    c1_refused_everywhere(
        &c1,
        &["vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data.Single.leaf is not a field element"],
    );
    let (_d, c1) = c1_with(|raw| {
        proof0(raw)["replica_column_proofs"]["drg_parents"][3]["column"]["rows"][1] = vec![0xffu8; 32].into()
    });
    c1_refused_everywhere(&c1, &["replica_column_proofs.drg_parents[3].column.rows[1] is not a field element"]);
    let (_d, c1) = c1_with(|raw| {
        let mut top = vec![0u8; 32];
        top[31] = 0x74; // above the modulus' top byte (0x73)
        proof0(raw)["comm_r_last_proof"]["data"]["Single"]["path"]["path"][0]["hashes"][2] = top.into()
    });
    c1_refused_everywhere(&c1, &["comm_r_last_proof.data.Single.path.path[0].hashes[2] is not a field element"]);
}

#[test]
fn wrong_shapes_are_refused_by_c1_verify_too() {
    let (_d, c1) = c1_with(|raw| {
        proof0(raw)["replica_column_proofs"]["drg_parents"].as_array_mut().unwrap().pop();
    });
    invalid(&["c1", "verify", "--c1", path_str(&c1)], &["partition 0 challenge 0", "drg_parents has 5 columns"]);
    let (_d, c1) = c1_with(|raw| {
        proof0(raw)["comm_r_last_proof"]["data"]["Single"]["path"]["path"][0]["hashes"].as_array_mut().unwrap().pop();
    });
    invalid(&["c1", "verify", "--c1", path_str(&c1)], &["comm_r_last_proof level 0 has 6 siblings"]);
    let (_d, c1) = c1_with(|raw| {
        proof0(raw)["comm_d_proofs"]["data"]["Single"]["path"]["path"].as_array_mut().unwrap().push(serde_json::json!(
            {"hashes": [vec![1u8; 32]], "index": 0}
        ));
    });
    invalid(&["c1", "verify", "--c1", path_str(&c1)], &["comm_d_proofs has a path of 7 levels"]);
}

#[test]
fn a_panic_is_an_error_naming_the_job() {
    fails(&["selftest", "panic"], &["filsnark: error: internal error (selftest panic in the command", "please report"]);
    fails(
        &["selftest", "panic", "--in-worker"],
        &["selftest job 0: synthesis stopped on an internal error (selftest panic in a pipeline worker"],
    );
}

// Class 2: an inconsistent c1 is refused before proving, with what `c1 verify` finds.

#[test]
fn an_inconsistent_c1_is_refused_before_proving() {
    let cases: [(&str, JsonEdit); 3] = [
        ("Poseidon(comm_c, comm_r_last) is not comm_r", |raw| raw["comm_r"][0] = 1.into()),
        ("the tree D opening (comm_d_proofs) is not a path", |raw| {
            proof0(raw)["comm_d_proofs"]["data"]["Single"]["leaf"][0] = 3.into()
        }),
        ("challenge", |raw| raw["seed"][0] = 9.into()),
    ];
    for (expect, edit) in cases {
        let (dir, c1) = c1_with(edit);
        let out = dir.path().join("p.proof");
        // No parameters in the directory: the c1 is judged before they are looked for.
        let err = fails(
            &["prove", "porep", "--c1", path_str(&c1), "--params-dir", path_str(dir.path()), "-o", path_str(&out)],
            &[path_str(&c1), "the vanilla proofs do not hold", "partition 0", expect, "Nothing was proved"],
        );
        assert!(!err.contains("parameter"), "{err}");
        invalid(&["c1", "verify", "--c1", path_str(&c1)], &[expect]);
    }
}

// Class 3: a verifying key with a bad point names the file.

fn vk_file(dir: &Path, edit: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let real = common::params_dir().join(format!("{STEM_2KIB}.params"));
    let mut head = vec![0u8; 864 + 4 + 40 * 96];
    std::io::Read::read_exact(&mut std::fs::File::open(real).unwrap(), &mut head).unwrap();
    edit(&mut head);
    let path = dir.join(format!("{STEM_2KIB}.vk"));
    std::fs::write(&path, head).unwrap();
    path
}

#[test]
fn verifying_key_faults_name_the_file() {
    let cases: [(&str, BytesEdit); 4] = [
        ("the verifying key's alpha_g1 (byte 0) is not a valid G1 point", |b| b[10] ^= 1),
        ("the verifying key's gamma_g2 (byte 384) is not a valid G2 point", |b| b[400] ^= 1),
        ("the verifying key's ic[1] (byte 964) is not a valid G1 point", |b| b[970] ^= 1),
        ("bytes after the verifying key", |b| b.extend_from_slice(&[0; 7])),
    ];
    for (expect, edit) in cases {
        let dir = tempfile::tempdir().unwrap();
        let vk = vk_file(dir.path(), edit);
        let proof = dir.path().join("p.proof");
        std::fs::write(&proof, [0u8; 192]).unwrap();
        let fx = fixture();
        let args = ["verify", "porep", "--c1", path_str(&fx), "--proof", path_str(&proof)];
        fails(&[&args[..], &["--params-dir", path_str(dir.path())]].concat(), &[path_str(&vk), expect]);
    }
}

// Class 4: outputs are checked before the work, and never replace an input.

#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let c1 = dir.path().join("c1.json");
    std::fs::copy(fixture(), &c1).unwrap();
    let before = std::fs::read(&c1).unwrap();
    let c = path_str(&c1);
    fails(&["prove", "porep", "--c1", c, "-o", c], &["-o", "is also the input --c1", "give another path"]);
    let link = dir.path().join("same.json");
    std::fs::hard_link(&c1, &link).unwrap();
    fails(&["prove", "porep", "--c1", c, "-o", path_str(&link)], &["is also the input --c1"]);
    let spelled = format!("{}/./c1.json", dir.path().display());
    fails(&["bench", "porep", "--c1", c, "--json", &spelled], &["--json", "is also the input --c1"]);
    fails(
        &["bench", "porep", "--c1", c, "--json", "r.json", "--timeline", "r.json"],
        &["--json and --timeline are both"],
    );
    assert_eq!(std::fs::read(&c1).unwrap(), before, "the input was changed");
}

#[test]
fn outputs_that_cannot_be_written_are_refused_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let fx = fixture();
    let c = path_str(&fx);
    let missing = dir.path().join("no/such/dir/p.proof");
    fails(&["prove", "porep", "--c1", c, "-o", path_str(&missing)], &["-o", "does not exist"]);
    fails(&["prove", "porep", "--c1", c, "-o", path_str(dir.path())], &["is a directory"]);
    let file = dir.path().join("f");
    std::fs::write(&file, b"x").unwrap();
    fails(&["bench", "porep", "--c1", c, "--out-dir", path_str(&file)], &["--out-dir", "not a directory"]);
    fails(
        &["bench", "porep", "--c1", c, "--timeline", path_str(&file.join("t.svg"))],
        &["--timeline", "is not a directory"],
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "files left behind");
}

// Class 5: numbers that do not fit are errors; one unit convention.

#[test]
fn numbers_that_overflow_are_errors() {
    let fx = fixture();
    let c = path_str(&fx);
    for budget in ["18446744073709551616", "16777216TiB", "99999999999999999999GB"] {
        fails(&["prove", "porep", "--c1", c, "--mem-budget", budget], &["--mem-budget", "largest size"]);
    }
    fails(&["prove", "porep", "--c1", c, "--mem-budget", "10 XB"], &["is not a size", "8GiB"]);
    fails(&["c1", "verify", "--c1", c, "--miner-id", "t018446744073709551616"], &["larger than the largest actor id"]);
    fails(&["c1", "verify", "--c1", c, "--sector-num", "18446744073709551616"], &["--sector-num"]);
}

// Class 6: messages.

#[test]
fn miner_ids_take_the_address_prefix() {
    let fx = fixture();
    let c = path_str(&fx);
    for id in ["1000", "t01000", "f01000"] {
        let o = filsnark(&["c1", "verify", "--c1", c, "--miner-id", id]);
        assert_eq!(o.status.code(), Some(0), "--miner-id {id}: {}", stderr(&o));
    }
    fails(&["c1", "verify", "--c1", c, "--miner-id", "t1abc"], &["not a miner actor id", "t01000"]);
    invalid(&["c1", "verify", "--c1", c, "--miner-id", "t01001"], &["replica id", "t01001"]);
}

#[test]
fn parameter_paths_that_are_not_files_get_their_own_message() {
    let fx = fixture();
    let c = path_str(&fx);
    let run = |dir: &Path, expect: &str| {
        let out = dir.join("p.proof");
        fails(
            &["prove", "porep", "--c1", c, "--params-dir", path_str(dir), "-o", path_str(&out)],
            &[STEM_2KIB, expect],
        );
    };
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(format!("{STEM_2KIB}.params"))).unwrap();
    run(d.path(), "is a directory, not a parameter file");
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join(format!("{STEM_2KIB}.params"));
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    run(d.path(), "is a FIFO (named pipe), not a parameter file");
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join(format!("{STEM_2KIB}.params")), d.path().join("other"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    run(d.path(), "a loop of symbolic links");
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("missing");
    let out = d.path().join("p.proof");
    fails(
        &["prove", "porep", "--c1", c, "--params-dir", path_str(&missing), "-o", path_str(&out)],
        &["the parameter directory", path_str(&missing), "does not exist"],
    );
}

#[test]
fn a_flag_at_the_wrong_level_names_the_subcommands_that_take_it() {
    let err = fails(&["--c1", "c1.json", "-c", "15", "-j", "10"], &["unexpected argument '--c1'"]);
    assert!(err.contains("hint: --c1 belongs to `prove porep`, `verify porep`, `bench porep`"), "{err}");
    assert!(err.contains("`c1 verify`: put it after the subcommand, e.g. `filsnark prove porep --c1 …`"), "{err}");
    let err = fails(&["prove", "porep", "--json", "r.json"], &["unexpected argument '--json'"]);
    assert!(err.contains("hint: --json belongs to `bench porep`"), "{err}");
    let err = fails(&["-j", "10"], &[]);
    assert!(err.contains("hint: -j belongs to `bench porep`"), "{err}");
    let err = fails(&["prove", "porep", "--no-such-flag"], &[]);
    assert!(!err.contains("hint: --no-such-flag"), "{err}");
}

#[test]
fn agg_json_values_are_checked_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, v: serde_json::Value| {
        let p = dir.path().join(name);
        std::fs::File::create(&p).unwrap().write_all(v.to_string().as_bytes()).unwrap();
        p
    };
    let hex = |b: u8| (0..32).map(|_| format!("{b:02x}")).collect::<String>();
    let sector = |comm_r: String| serde_json::json!({"SectorNum": 1, "CommR": comm_r, "CommD": hex(2), "Ticket": hex(3), "Seed": hex(4)});
    let agg = |miner: serde_json::Value, s: serde_json::Value| serde_json::json!({"SealProof": "StackedDrg2KiBV1_1", "Aggregation": "SnarkPackV2", "MinerId": miner, "Sectors": [s]});
    let proof = dir.path().join("agg.proof");
    std::fs::write(&proof, [0u8; 64]).unwrap();
    let check = |p: &Path, expect: &[&str]| {
        let mut want = vec![path_str(p)];
        want.extend_from_slice(expect);
        fails(&["verify", "aggregate", "--in", path_str(p), "--proof", path_str(&proof)], &want);
    };
    check(&write("a.json", agg(1000.into(), sector(hex(0xff)))), &["Sectors[0]", "CommR is not a field element"]);
    check(&write("b.json", agg("t1abc".into(), sector(hex(1)))), &["MinerId", "not a miner actor id"]);
    check(&write("c.json", agg((-5).into(), sector(hex(1)))), &["MinerId"]);
    let d = write("e.json", agg(1000.into(), sector(hex(1))));
    fails(&["aggregate", "porep", "--in", path_str(&d), "-o", path_str(&d)], &["is also the input --in"]);
}
