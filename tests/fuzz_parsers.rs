//! Fuzzing every parser and validator that reads a file (the engine is `fuzz/mod.rs`): c1.json
//! in both forms and the full pre-proving check of what parses, agg.json with the public inputs
//! of its sectors, `.params` files (verifying key and sections, counts and sampled points), `.vk`
//! files, the SnarkPack SRS, and proof files (seal proofs and SnarkPack aggregates).
//!
//! What runs on one input is `filsnark::fuzzing`, the checks the coverage-guided fuzzer
//! of fuzz/ runs too; this file holds the generators and mutations. Properties beyond "no
//! panic": an error names the file it is about, and a proof that decodes encodes back to the
//! same bytes. CI runs each target's default count (a few seconds in all);
//! `FILSNARK_FUZZ_EXECS` and `FILSNARK_FUZZ_SECS` make a long run. The ignored `write_corpus`
//! writes the seeds as the coverage-guided fuzzer's corpus (`scripts/fuzz-corpus.sh`).
mod fuzz;

use std::path::Path;

use base64::Engine;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Gt, Scalar};
use filsnark::fuzzing::{self, PARAMS_SHAPE, VK_FIXED};
use filsnark::groth16::{Proof, PROOF_BYTES};
use filsnark::snarkpack::proof::Gipa;
use filsnark::snarkpack::AggregateProof;
use filsnark::srs::{SectionKind, Shape};
use fuzz::{mutate_bytes, mutate_json, run, Rand, Scratch};
use group::{Curve, Group};
use rand::Rng;
use serde_json::Value;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

fn g1(k: u64) -> G1Affine {
    (G1Projective::generator() * Scalar::from(k)).to_affine()
}

fn g2(k: u64) -> G2Affine {
    (G2Projective::generator() * Scalar::from(k)).to_affine()
}

/// The c1.json of the 2KiB fixture sector (t01000, sector 1), raw.
fn c1_raw() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("params/fixtures/c1-2kib-t01000-s1.json");
    let w: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    serde_json::from_slice(&B64.decode(w["Phase1Out"].as_str().unwrap()).unwrap()).unwrap()
}

/// A c1.json in one of its two forms, from a raw output: the wrapper (sometimes with its own
/// fields mutated) or the raw JSON.
fn c1_bytes(rng: &mut Rand, raw: &Value) -> Vec<u8> {
    if rng.gen_bool(0.5) {
        return serde_json::to_vec(raw).unwrap();
    }
    let mut w = serde_json::json!({
        "SectorNum": 1, "Phase1Out": B64.encode(serde_json::to_vec(raw).unwrap()), "SectorSize": 2048
    });
    if rng.gen_bool(0.2) {
        let key = ["SectorNum", "SectorSize"][rng.gen_range(0..2)];
        mutate_json(rng, &mut w[key]);
    }
    serde_json::to_vec(&w).unwrap()
}

#[test]
fn fuzz_c1() {
    let raw = c1_raw();
    let path = Path::new("fuzz/c1.json");
    run(
        "c1",
        3000,
        |rng, _| {
            let mut v = raw.clone();
            let structural = rng.gen_bool(0.8);
            if structural {
                mutate_json(rng, &mut v);
            }
            let mut bytes = c1_bytes(rng, &v);
            if !structural {
                mutate_bytes(rng, &mut bytes);
            }
            bytes
        },
        |bytes| fuzzing::c1(bytes, path),
    );
}

/// An agg.json of two 2KiB sectors with valid-looking values and proofs.
fn agg_json() -> Value {
    let hex = |b: u8| hex_of(&[b; 32]);
    let proof = |k: u64| {
        let p = Proof { a: g1(k), b: g2(k + 1), c: g1(k + 2) };
        B64.encode(p.to_bytes())
    };
    serde_json::json!({
        "SealProof": "StackedDrg2KiBV1_1", "Aggregation": "SnarkPackV2", "MinerId": "t01000",
        "Sectors": [
            {"SectorNum": 1, "CommR": hex(1), "CommD": hex(2), "Ticket": hex(3), "Seed": hex(4), "Proof": proof(1)},
            {"SectorNum": 2, "CommR": hex(5), "CommD": hex(6), "Ticket": hex(7), "Seed": hex(8), "Proof": proof(9)}
        ]
    })
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn fuzz_agg() {
    let base = agg_json();
    let path = Path::new("fuzz/agg.json");
    run(
        "agg",
        100_000,
        |rng, _| {
            let mut v = base.clone();
            if rng.gen_bool(0.3) {
                v["SealProof"] =
                    ["StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "StackedDrg32GiBV1_1", "StackedDrg8MiBV1"]
                        [rng.gen_range(0..3)]
                    .into();
            }
            let structural = rng.gen_bool(0.7);
            if structural {
                mutate_json(rng, &mut v);
            }
            let mut bytes = serde_json::to_vec(&v).unwrap();
            if !structural {
                mutate_bytes(rng, &mut bytes);
            }
            bytes
        },
        |bytes| fuzzing::agg(bytes, path),
    );
}

/// A small `.params` file: a verifying key with two public inputs and five short sections of
/// valid points, with the shape its counts fit.
fn params_file() -> (Vec<u8>, Shape) {
    let shape = PARAMS_SHAPE;
    let mut f = Vec::new();
    for (i, is_g2) in [false, false, true, true, false, true].into_iter().enumerate() {
        if is_g2 {
            f.extend_from_slice(&g2(i as u64 + 2).to_uncompressed());
        } else {
            f.extend_from_slice(&g1(i as u64 + 2).to_uncompressed());
        }
    }
    f.extend_from_slice(&(shape.inputs as u32).to_be_bytes());
    for i in 0..shape.inputs {
        f.extend_from_slice(&g1(10 + i as u64).to_uncompressed());
    }
    for kind in SectionKind::ALL {
        let n = shape.expected(kind);
        f.extend_from_slice(&(n as u32).to_be_bytes());
        for i in 0..n {
            match kind {
                SectionKind::BG2 => f.extend_from_slice(&g2(20 + i as u64).to_uncompressed()),
                _ => f.extend_from_slice(&g1(20 + i as u64).to_uncompressed()),
            }
        }
    }
    (f, shape)
}

#[test]
fn fuzz_params() {
    let (base, shape) = params_file();
    let scratch = Scratch::new("fuzz.params");
    run(
        "params",
        15_000,
        |rng, _| {
            let mut b = base.clone();
            mutate_bytes(rng, &mut b);
            b
        },
        |bytes| {
            scratch.write(bytes);
            fuzzing::params(&scratch.path, &shape)
        },
    );
}

#[test]
fn fuzz_vk() {
    let (params, _) = params_file();
    let base = params[..VK_FIXED + 4 + 2 * 96].to_vec();
    let path = Path::new("fuzz/v28-x.vk");
    run(
        "vk",
        30_000,
        |rng, _| {
            let mut b = base.clone();
            mutate_bytes(rng, &mut b);
            b
        },
        |bytes| fuzzing::vk(bytes, path),
    );
}

/// A SnarkPack SRS of four powers per vector, from the generators (so the α and β vectors
/// start at the same point, as the verifier checks).
fn srs_file() -> Vec<u8> {
    let mut f = Vec::new();
    for (v, (base, g2s)) in [(1u64, false), (5, false), (1, true), (5, true)].into_iter().enumerate() {
        f.extend_from_slice(&4u32.to_be_bytes());
        for i in 0..4u64 {
            let k = if i == 0 { 1 } else { base + v as u64 * 10 + i };
            if g2s {
                f.extend_from_slice(&g2(k).to_compressed());
            } else {
                f.extend_from_slice(&g1(k).to_compressed());
            }
        }
    }
    f
}

#[test]
fn fuzz_snarkpack_srs() {
    let base = srs_file();
    let scratch = Scratch::new("v28-fil-inner-product-v1.srs");
    run(
        "srs",
        12_000,
        |rng, _| {
            let mut b = base.clone();
            mutate_bytes(rng, &mut b);
            b
        },
        |bytes| {
            scratch.write(bytes);
            fuzzing::srs(&scratch.path)
        },
    );
}

/// A seal proof of `partitions` partition proofs.
fn seal_proof(partitions: u64) -> Vec<u8> {
    (0..partitions).flat_map(|k| Proof { a: g1(k + 1), b: g2(k + 2), c: g1(k + 3) }.to_bytes()).collect()
}

#[test]
fn fuzz_seal_proof_file() {
    let base = seal_proof(10);
    run(
        "seal-proof",
        40_000,
        |rng, _| {
            let mut b = if rng.gen_bool(0.5) { base.clone() } else { base[..PROOF_BYTES].to_vec() };
            mutate_bytes(rng, &mut b);
            b
        },
        fuzzing::seal_proof,
    );
}

/// An aggregate of 4 proofs (two GIPA rounds) made of valid group elements.
fn aggregate_proof() -> Vec<u8> {
    let gt = |k: u64| Gt::generator() * Scalar::from(k);
    let comm = |k: u64| (gt(k), gt(k + 1));
    let rounds = 2;
    let gipa = Gipa {
        nproofs: 4,
        comms_ab: (0..rounds).map(|r| (comm(10 + r), comm(20 + r))).collect(),
        comms_c: (0..rounds).map(|r| (comm(30 + r), comm(40 + r))).collect(),
        z_ab: (0..rounds).map(|r| (gt(50 + r), gt(60 + r))).collect(),
        z_c: (0..rounds).map(|r| (g1(70 + r), g1(80 + r))).collect(),
        final_a: g1(2),
        final_b: g2(3),
        final_c: g1(4),
        final_vkey: (g2(5), g2(6)),
        final_wkey: (g1(7), g1(8)),
    };
    let agg = AggregateProof {
        com_ab: comm(1),
        com_c: comm(3),
        ip_ab: gt(5),
        agg_c: g1(6),
        gipa,
        vkey_opening: (g2(9), g2(10)),
        wkey_opening: (g1(11), g1(12)),
    };
    agg.to_bytes().unwrap()
}

#[test]
fn fuzz_aggregate_proof_file() {
    let base = aggregate_proof();
    run(
        "aggregate-proof",
        6000,
        |rng, _| {
            let mut b = base.clone();
            mutate_bytes(rng, &mut b);
            b
        },
        fuzzing::aggregate_proof,
    );
}

/// The seeds of every target, as (target, name, bytes): the generators' valid inputs, each in
/// the forms the mutators start from (c1.json raw and wrapped; agg.json of each family of seal
/// proof; a seal proof of one and of ten partitions).
fn seeds() -> Vec<(&'static str, String, Vec<u8>)> {
    let raw = c1_raw();
    let wrapper = serde_json::json!({
        "SectorNum": 1, "Phase1Out": B64.encode(serde_json::to_vec(&raw).unwrap()), "SectorSize": 2048
    });
    let mut out = vec![
        ("c1", "raw.json".to_string(), serde_json::to_vec(&raw).unwrap()),
        ("c1", "wrapper.json".to_string(), serde_json::to_vec(&wrapper).unwrap()),
    ];
    for seal in ["StackedDrg2KiBV1_1", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "StackedDrg32GiBV1_1"] {
        let mut v = agg_json();
        v["SealProof"] = seal.into();
        out.push(("agg", format!("{seal}.json"), serde_json::to_vec(&v).unwrap()));
    }
    let (params, _) = params_file();
    out.push(("vk", "seed.vk".into(), params[..VK_FIXED + 4 + 2 * 96].to_vec()));
    out.push(("params", "seed.params".into(), params));
    out.push(("srs", "seed.srs".into(), srs_file()));
    out.push(("seal_proof", "1-partition.bin".into(), seal_proof(1)));
    out.push(("seal_proof", "10-partitions.bin".into(), seal_proof(10)));
    out.push(("aggregate_proof", "4-proofs.bin".into(), aggregate_proof()));
    out
}

/// The verdict of `target`'s check on `bytes` (a file written for the readers of a path).
fn judge(target: &str, bytes: &[u8]) -> fuzzing::Verdict {
    let path = Path::new("seed");
    let file = || {
        let s = Scratch::new("seed");
        s.write(bytes);
        s
    };
    match target {
        "c1" => fuzzing::c1(bytes, path),
        "agg" => fuzzing::agg(bytes, path),
        "params" => fuzzing::params(&file().path, &PARAMS_SHAPE),
        "vk" => fuzzing::vk(bytes, path),
        "srs" => fuzzing::srs(&file().path),
        "seal_proof" => fuzzing::seal_proof(bytes),
        "aggregate_proof" => fuzzing::aggregate_proof(bytes),
        _ => unreachable!("no target {target}"),
    }
}

/// The generators are sound: their unmutated inputs are accepted, so the fuzzing starts from
/// inputs that reach every check.
#[test]
fn fuzz_seeds_are_accepted() {
    for (target, name, bytes) in seeds() {
        assert_eq!(judge(target, &bytes), Ok(true), "{target} seed {name}");
    }
    assert_eq!(Proof::split_seal(&seal_proof(10), 10).unwrap().len(), 10);
}

/// Writes the seeds as the corpus of the coverage-guided fuzzer (`scripts/fuzz-corpus.sh`).
#[test]
#[ignore = "writes fuzz/corpus; run by scripts/fuzz-corpus.sh"]
fn write_corpus() {
    for (target, name, bytes) in seeds() {
        fuzz::write_seed(target, &name, &bytes);
    }
}
