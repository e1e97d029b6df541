//! SnarkPack against filecoin-proofs on real 2KiB sectors:
//! - interactive sectors proved by filsnark, aggregated in twos, threes and eights (V1 and V2) by
//!   `filsnark aggregate porep` and by `aggregate_seal_commit_proofs`: the same bytes, accepted
//!   by `verify_aggregate_seal_commit_proofs` and by `filsnark verify aggregate`, a flipped byte
//!   rejected by both;
//! - an NI-PoRep sector: `filsnark prove porep` gives the bytes `seal_commit_phase2` gives for
//!   the same partition proofs, `verify_seal` and `filsnark verify porep` accept them, and the
//!   native witness and the gadgets give the same bytes for the same `--seed`;
//! - every bad agg.json of issue 23: exit 2, a message naming the file and the fault, no file.
mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use base64::Engine;
use common::{agg, filsnark, path_str, seal, stderr};
use filecoin_proofs_api::seal::{
    aggregate_seal_commit_proofs, get_seal_inputs, verify_aggregate_seal_commit_proofs, SealCommitPhase1Output,
    SealCommitPhase2Output,
};
use filecoin_proofs_api::{RegisteredAggregationProof, RegisteredSealProof, SectorId};

const MINER: u64 = 1000;

struct Sector {
    c1: SealCommitPhase1Output,
    num: u64,
    /// Its C2 output made by filsnark (for NI-PoRep: the partition proofs).
    proof: Vec<u8>,
}

struct Fixture {
    dir: tempfile::TempDir,
    params: PathBuf,
    sectors: Vec<Sector>,
}

/// Eight interactive sectors of miner t01000, proved by `filsnark bench porep` in one run.
fn interactive() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let params = agg::init_env();
        let dir = tempfile::tempdir().unwrap();
        let mut args = vec!["bench".to_string(), "porep".into(), "-j".into(), "8".into(), "--seed".into(), "5".into()];
        let mut c1s = Vec::new();
        for num in 1..=8u64 {
            let c1 = seal::seal_2kib(MINER, num, 100 + num, dir.path()).unwrap();
            let path = dir.path().join(format!("c1-{num}.json"));
            std::fs::write(&path, seal::lotus_wrapper(&c1, num).unwrap()).unwrap();
            args.extend(["--c1".into(), path.to_str().unwrap().into()]);
            c1s.push((c1, num));
        }
        let out = dir.path().join("proofs");
        args.extend(["--params-dir".into(), path_str(&params).into(), "--out-dir".into(), path_str(&out).into()]);
        let o = filsnark(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(o.status.success(), "bench porep failed: {}", stderr(&o));
        let sectors = c1s
            .into_iter()
            .enumerate()
            .map(|(i, (c1, num))| Sector {
                c1,
                num,
                proof: std::fs::read(out.join(format!("proof-{i:03}.bin"))).unwrap(),
            })
            .collect();
        Fixture { dir, params, sectors }
    })
}

fn hex(b: &[u8; 32]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn sector_json(s: &Sector) -> serde_json::Value {
    serde_json::json!({
        "SectorNum": s.num,
        "CommR": hex(&s.c1.comm_r),
        "CommD": hex(&s.c1.comm_d),
        "Ticket": hex(&s.c1.ticket),
        "Seed": hex(&s.c1.seed),
        "Proof": base64::engine::general_purpose::STANDARD.encode(&s.proof),
    })
}

fn agg_json(proof: RegisteredSealProof, version: &str, sectors: Vec<serde_json::Value>) -> serde_json::Value {
    serde_json::json!({
        "SealProof": serde_json::to_value(proof).unwrap(),
        "Aggregation": version,
        "MinerId": MINER,
        "Sectors": sectors,
    })
}

fn write(dir: &Path, name: &str, v: &serde_json::Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

fn registered_aggregation(version: &str) -> RegisteredAggregationProof {
    match version {
        "SnarkPackV1" => RegisteredAggregationProof::SnarkPackV1,
        _ => RegisteredAggregationProof::SnarkPackV2,
    }
}

/// filecoin-proofs' aggregate of the sectors' C2 outputs.
fn theirs(proof: RegisteredSealProof, version: &str, sectors: &[&Sector]) -> Vec<u8> {
    let comm_rs: Vec<[u8; 32]> = sectors.iter().map(|s| s.c1.comm_r).collect();
    let seeds: Vec<[u8; 32]> = sectors.iter().map(|s| s.c1.seed).collect();
    let outputs: Vec<SealCommitPhase2Output> =
        sectors.iter().map(|s| SealCommitPhase2Output { proof: s.proof.clone() }).collect();
    aggregate_seal_commit_proofs(proof, registered_aggregation(version), &comm_rs, &seeds, &outputs).unwrap()
}

/// filecoin-proofs' verdict on an aggregate of the sectors.
fn they_accept(proof: RegisteredSealProof, version: &str, sectors: &[&Sector], aggregate: &[u8]) -> bool {
    let comm_rs: Vec<[u8; 32]> = sectors.iter().map(|s| s.c1.comm_r).collect();
    let seeds: Vec<[u8; 32]> = sectors.iter().map(|s| s.c1.seed).collect();
    let inputs = sectors
        .iter()
        .flat_map(|s| {
            let c = &s.c1;
            get_seal_inputs(proof, c.comm_r, c.comm_d, seal::prover_id(MINER), SectorId::from(s.num), c.ticket, c.seed)
                .unwrap()
        })
        .collect();
    verify_aggregate_seal_commit_proofs(
        proof,
        registered_aggregation(version),
        aggregate.to_vec(),
        &comm_rs,
        &seeds,
        inputs,
    )
    .unwrap_or(false)
}

fn our_verify(params: &Path, agg: &Path, proof: &Path) -> (i32, String) {
    let o = filsnark(&[
        "verify",
        "aggregate",
        "--in",
        path_str(agg),
        "--proof",
        path_str(proof),
        "--params-dir",
        path_str(params),
    ]);
    (o.status.code().unwrap_or(-1), stderr(&o))
}

#[test]
fn aggregates_of_2_3_and_8_interactive_proofs_match_filecoin_proofs() {
    let f = interactive();
    let proof = RegisteredSealProof::StackedDrg2KiBV1_1;
    for (count, version) in
        [(2, "SnarkPackV1"), (2, "SnarkPackV2"), (3, "SnarkPackV2"), (8, "SnarkPackV1"), (8, "SnarkPackV2")]
    {
        let sectors: Vec<&Sector> = f.sectors[..count].iter().collect();
        let json = agg_json(proof, version, sectors.iter().map(|s| sector_json(s)).collect());
        let agg_path = write(f.dir.path(), &format!("agg-{count}-{version}.json"), &json);
        let out = f.dir.path().join(format!("agg-{count}-{version}.bin"));
        let o = filsnark(&[
            "aggregate",
            "porep",
            "--in",
            path_str(&agg_path),
            "-o",
            path_str(&out),
            "--params-dir",
            path_str(&f.params),
        ]);
        assert!(o.status.success(), "aggregate porep failed: {}", stderr(&o));
        let ours = std::fs::read(&out).unwrap();
        let reference = theirs(proof, version, &sectors);
        assert!(ours == reference, "{count} proofs, {version}: filsnark's aggregate differs from filecoin-proofs'");
        assert!(they_accept(proof, version, &sectors, &ours), "{count} {version}: rejected by filecoin-proofs");

        // filsnark's verifier on filecoin-proofs' aggregate, and on one flipped byte of it.
        let theirs_path = f.dir.path().join(format!("ref-{count}-{version}.bin"));
        std::fs::write(&theirs_path, &reference).unwrap();
        let (code, err) = our_verify(&f.params, &agg_path, &theirs_path);
        assert_eq!(code, 0, "{err}");
        let mut flipped = reference.clone();
        flipped[reference.len() / 3] ^= 0x01;
        std::fs::write(&theirs_path, &flipped).unwrap();
        let (code, err) = our_verify(&f.params, &agg_path, &theirs_path);
        assert_eq!(code, 1, "a flipped byte was not rejected: {err}");
        assert!(err.contains("INVALID"), "{err}");
        assert!(!they_accept(proof, version, &sectors, &flipped));
    }
}

#[test]
fn ni_porep_c2_matches_seal_commit_phase2_and_passes_verify_seal() {
    let params = agg::init_env();
    let dir = tempfile::tempdir().unwrap();
    let proof = RegisteredSealProof::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep;
    let num = 21;
    let c1 = seal::seal_2kib_as(proof, MINER, num, 77, dir.path()).unwrap();
    let c1_path = dir.path().join("ni.json");
    std::fs::write(&c1_path, seal::lotus_wrapper(&c1, num).unwrap()).unwrap();
    // Proved twice with the same --seed: the native witness (the interactive shape's compiled
    // template repeated to the NI challenge count) and the gadgets give the same bytes.
    let prove = |witness: &str| {
        let (out, parts) =
            (dir.path().join(format!("ni-{witness}.proof")), dir.path().join(format!("ni-{witness}.parts")));
        let o = filsnark(&[
            "prove",
            "porep",
            "--c1",
            path_str(&c1_path),
            "--params-dir",
            path_str(&params),
            "--seed",
            "9",
            "--witness",
            witness,
            "-o",
            path_str(&out),
            "--circuit-proofs",
            path_str(&parts),
        ]);
        assert!(o.status.success(), "prove porep (NI, --witness {witness}) failed: {}", stderr(&o));
        (out, parts, String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let (out, parts, table) = prove("native");
    let (gadgets_out, gadgets_parts, gadgets_table) = prove("gadgets");
    assert_eq!(rows_with_witness(&table, "native"), 13, "not every partition went native:\n{table}");
    assert_eq!(rows_with_witness(&gadgets_table, "gadgets"), 13, "{gadgets_table}");
    let ours = std::fs::read(&out).unwrap();
    assert!(std::fs::read(&parts).unwrap() == std::fs::read(&gadgets_parts).unwrap(), "partition proofs differ");
    assert!(ours == std::fs::read(&gadgets_out).unwrap(), "NI-PoRep C2 output differs between native and gadgets");
    let sector = Sector { c1: c1.clone(), num, proof: std::fs::read(&parts).unwrap() };
    assert_eq!(sector.proof.len(), 13 * 192, "13 partition proofs");
    assert_eq!(ours.len(), 14_164, "a SnarkPack aggregate of 16 proofs");

    // What seal_commit_phase2 returns for these partition proofs.
    assert!(ours == theirs(proof, "SnarkPackV2", &[&sector]), "differs from filecoin-proofs' NI-PoRep C2 output");
    assert!(seal::chain_accepts(&c1, MINER, num, &ours).unwrap(), "verify_seal rejected filsnark's NI-PoRep proof");
    let verify = |p: &Path| {
        let o = filsnark(&[
            "verify",
            "porep",
            "--c1",
            path_str(&c1_path),
            "--params-dir",
            path_str(&params),
            "--proof",
            path_str(p),
        ]);
        (o.status.code(), stderr(&o))
    };
    assert_eq!(verify(&out).0, Some(0));
    let mut flipped = ours.clone();
    flipped[9_000] ^= 0x20;
    let fp = dir.path().join("flipped.proof");
    std::fs::write(&fp, &flipped).unwrap();
    assert!(!seal::chain_accepts(&c1, MINER, num, &flipped).unwrap_or(false));
    assert_eq!(verify(&fp).0, Some(1));

    // One NI sector through agg.json (its circuit proofs): the same bytes again.
    let json = agg_json(proof, "SnarkPackV2", vec![sector_json(&sector)]);
    let agg_path = write(dir.path(), "agg-ni.json", &json);
    let agg_out = dir.path().join("agg-ni.bin");
    let o = filsnark(&[
        "aggregate",
        "porep",
        "--in",
        path_str(&agg_path),
        "-o",
        path_str(&agg_out),
        "--params-dir",
        path_str(&params),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(&agg_out).unwrap() == ours);
}

/// The rows of prove's partition table (part, constraints, witness, …) whose witness column
/// says `witness`.
fn rows_with_witness(table: &str, witness: &str) -> usize {
    table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.len() > 2 && f[0].parse::<usize>().is_ok() && f[2] == witness)
        .count()
}

/// Runs `aggregate porep` on `json` and checks the failure contract; returns stderr.
fn aggregate_fails(json: &serde_json::Value, params: &Path, expect: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let agg_path = write(dir.path(), "agg.json", json);
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("agg.bin");
    let o = filsnark(&[
        "aggregate",
        "porep",
        "--in",
        path_str(&agg_path),
        "-o",
        path_str(&out),
        "--params-dir",
        path_str(params),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "expected exit 2: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("agg.json"), "the file is not named: {err}");
    for e in expect {
        assert!(err.contains(e), "stderr lacks {e:?}: {err}");
    }
    assert_eq!(std::fs::read_dir(out_dir.path()).unwrap().count(), 0, "files left behind");
    err
}

/// A sector entry with made-up values (for checks that come before any proof is read).
fn made_up(num: u64) -> serde_json::Value {
    let h = |b: u8| hex(&[b; 32]);
    serde_json::json!({"SectorNum": num, "CommR": h(1), "CommD": h(2), "Ticket": h(3), "Seed": h(4), "Proof": "AAAA"})
}

#[test]
fn bad_agg_a_proof_that_does_not_verify_names_the_sector() {
    let f = interactive();
    let mut second = sector_json(&f.sectors[1]);
    second["Proof"] = sector_json(&f.sectors[2])["Proof"].clone();
    let json =
        agg_json(RegisteredSealProof::StackedDrg2KiBV1_1, "SnarkPackV2", vec![sector_json(&f.sectors[0]), second]);
    aggregate_fails(&json, &f.params, &["Sectors[1] (sector 2) partition 0", "does not verify"]);
}

#[test]
fn bad_agg_mixed_seal_proof_types() {
    let params = agg::init_env();
    let b64 = |n: usize| serde_json::Value::from(base64::engine::general_purpose::STANDARD.encode(vec![0u8; n]));
    let (mut one, mut other) = (made_up(8), made_up(9));
    one["Proof"] = b64(192);
    other["Proof"] = b64(10 * 192);
    let json = agg_json(RegisteredSealProof::StackedDrg2KiBV1_1, "SnarkPackV2", vec![one, other]);
    aggregate_fails(&json, &params, &["Sectors[1] (sector 9)", "10 partition proofs", "another seal proof type"]);
}

#[test]
fn bad_agg_duplicate_sectors() {
    let params = agg::init_env();
    let json =
        agg_json(RegisteredSealProof::StackedDrg2KiBV1_1, "SnarkPackV2", vec![made_up(4), made_up(5), made_up(4)]);
    aggregate_fails(&json, &params, &["Sectors[0] and Sectors[2] are both sector 4"]);
}

#[test]
fn bad_agg_more_proofs_than_the_srs_supports() {
    let params = agg::init_env();
    let sectors = (0..agg::SRS_MAX_PROOFS as u64 + 1).map(made_up).collect();
    let json = agg_json(RegisteredSealProof::StackedDrg2KiBV1_1, "SnarkPackV2", sectors);
    aggregate_fails(&json, &params, &[agg::SRS_FILE, "supports at most 16 proofs", "17 sectors"]);
}

#[test]
fn bad_agg_more_proofs_than_filecoin_proofs_aggregates() {
    let params = agg::init_env();
    let sectors = (0..65_537).map(made_up).collect();
    let json = agg_json(RegisteredSealProof::StackedDrg2KiBV1_1, "SnarkPackV2", sectors);
    aggregate_fails(&json, &params, &["65537 proofs pad to 131072", "more than the 65536"]);
}

#[test]
fn bad_agg_no_sectors() {
    let params = agg::init_env();
    let json = agg_json(RegisteredSealProof::StackedDrg2KiBV1_1, "SnarkPackV2", vec![]);
    aggregate_fails(&json, &params, &["Sectors is empty"]);
}

#[test]
fn bad_agg_more_ni_porep_sectors_than_fip_0092_allows() {
    let params = agg::init_env();
    let sectors = (0..66).map(made_up).collect();
    let json = agg_json(RegisteredSealProof::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, "SnarkPackV2", sectors);
    aggregate_fails(&json, &params, &["66 NI-PoRep sectors", "1 to 65", "FIP-0092"]);
}

#[test]
fn bad_agg_fields_are_named() {
    let params = agg::init_env();
    let mut json = agg_json(RegisteredSealProof::StackedDrg2KiBV1_1, "SnarkPackV2", vec![made_up(1), made_up(2)]);
    json["Sectors"][1]["CommR"] = "12ab".into();
    aggregate_fails(&json, &params, &["Sectors[1]", "sector 2", "CommR", "64 hex"]);
    let mut json = agg_json(RegisteredSealProof::StackedDrg2KiBV1_1, "SnarkPackV3", vec![made_up(1)]);
    aggregate_fails(&json, &params, &["Aggregation", "SnarkPackV3"]);
    json["Aggregation"] = "SnarkPackV2".into();
    json["Sectors"][0]["Sead"] = "00".into();
    aggregate_fails(&json, &params, &["unknown field `Sead`"]);
}
