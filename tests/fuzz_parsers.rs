//! Fuzzing every parser and validator that reads a file (the engine is `fuzz/mod.rs`): c1.json
//! in both forms and the full pre-proving check of what parses, agg.json with the public inputs
//! of its sectors, `.params` files (verifying key and sections, counts and sampled points), `.vk`
//! files, the SnarkPack SRS, and proof files (seal proofs and SnarkPack aggregates).
//!
//! Properties beyond "no panic": an error names the file it is about, and a proof that decodes
//! encodes back to the same bytes. CI runs each target's default count (a few seconds in all);
//! `FILSNARK_FUZZ_EXECS` and `FILSNARK_FUZZ_SECS` make a long run.
mod fuzz;

use std::path::Path;

use base64::Engine;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Gt, Scalar};
use filsnark::circuit::{statement, SealPublic};
use filsnark::groth16::{Proof, PROOF_BYTES};
use filsnark::input::{AggInput, C1Input, SectorIdentity};
use filsnark::snarkpack::proof::Gipa;
use filsnark::snarkpack::{AggregateProof, SrsFile};
use filsnark::srs::file::parse_vk;
use filsnark::srs::{ParamsFile, SectionKind, Shape};
use fuzz::{mutate_bytes, mutate_json, run, Rand, Scratch};
use group::{Curve, Group};
use rand::Rng;
use serde_json::Value;

/// A verifying key's fixed part: α, β, δ in G1 and β, γ, δ in G2, uncompressed.
const VK_FIXED: usize = 3 * 96 + 3 * 192;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// Err unless `e` (with its causes) names `path`.
fn names(path: &Path, e: &anyhow::Error) -> Result<(), String> {
    let msg = format!("{e:#}");
    if msg.contains(&path.display().to_string()) {
        Ok(())
    } else {
        Err(format!("the error does not name the file {}: {msg}", path.display()))
    }
}

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
    let sector = SectorIdentity { miner_id: 1000, sector_num: 1 };
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
        |bytes| {
            let c1 = match C1Input::parse(bytes, path) {
                Ok(c1) => c1,
                Err(e) => return names(path, &e).map(|()| false),
            };
            let sector = SectorIdentity { sector_num: c1.sector_num.unwrap_or(1), ..sector.clone() };
            match filsnark::pipeline::proofs::check_c1(&c1, &sector) {
                Ok(()) => Ok(true),
                Err(e) => names(path, &e).map(|()| false),
            }
        },
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
        |bytes| {
            let agg = match AggInput::parse(bytes, path) {
                Ok(a) => a,
                Err(e) => return names(path, &e).map(|()| false),
            };
            let partitions = usize::from(agg.registered.partitions());
            for s in &agg.sectors {
                let public = SealPublic {
                    registered: agg.registered,
                    comm_r: s.comm_r,
                    comm_d: s.comm_d,
                    ticket: s.ticket,
                    seed: s.seed,
                };
                let st = statement(&public, &SectorIdentity { miner_id: agg.miner_id, sector_num: s.sector_num })
                    .map_err(|e| format!("a parsed agg.json's statement failed: {e:#}"))?;
                for k in 0..partitions {
                    st.public_inputs(k).map_err(|e| format!("public inputs of partition {k}: {e:#}"))?;
                }
                if let Some(p) = &s.proof {
                    let _ = Proof::split_seal(p, partitions);
                }
            }
            Ok(true)
        },
    );
}

/// A small `.params` file: a verifying key with two public inputs and five short sections of
/// valid points, with the shape its counts fit.
fn params_file() -> (Vec<u8>, Shape) {
    let shape = Shape { inputs: 2, aux: 3, domain: 4, a_aux: 2, b_inputs: 1, b_aux: 2 };
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
            let f = match ParamsFile::open(&scratch.path) {
                Ok(f) => f,
                Err(e) => return names(&scratch.path, &e).map(|()| false),
            };
            match f.check_shape(&shape) {
                Ok(()) => Ok(true),
                Err(e) => names(&scratch.path, &e).map(|()| false),
            }
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
        |bytes| match parse_vk(bytes, path) {
            Ok((vk, used)) if used > bytes.len() || VK_FIXED + 4 + vk.ic.len() * 96 != used => {
                Err(format!("parse_vk says it used {used} bytes of {} for {} ic points", bytes.len(), vk.ic.len()))
            }
            Ok(_) => Ok(true),
            Err(e) => names(path, &e).map(|()| false),
        },
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
            let f = match SrsFile::open(&scratch.path) {
                Ok(f) => f,
                Err(e) => return names(&scratch.path, &e).map(|()| false),
            };
            let n = f.max_proofs();
            if n < 2 {
                return Ok(false);
            }
            let keys = f.verifier_key(n).and_then(|_| f.prover_key(n));
            match keys {
                Ok(_) => Ok(true),
                Err(e) => names(&scratch.path, &e).map(|()| false),
            }
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
        |bytes| {
            let partitions = (bytes.len() / PROOF_BYTES).max(1);
            match Proof::split_seal(bytes, partitions) {
                Ok(proofs) => {
                    let again: Vec<u8> = proofs.iter().flat_map(|p| p.to_bytes()).collect();
                    if again != bytes {
                        return Err("a decoded seal proof encodes to other bytes".into());
                    }
                    Ok(true)
                }
                Err(_) => Ok(false),
            }
        },
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
        |bytes| match AggregateProof::from_bytes(bytes) {
            Ok(p) => match p.to_bytes() {
                Ok(again) if again == bytes => Ok(true),
                Ok(_) => Err("a decoded aggregate encodes to other bytes".into()),
                Err(e) => Err(format!("a decoded aggregate does not encode: {e:#}")),
            },
            Err(_) => Ok(false),
        },
    );
}

/// The generators are sound: their unmutated inputs are accepted, so the fuzzing starts from
/// inputs that reach every check.
#[test]
fn fuzz_seeds_are_accepted() {
    let raw = c1_raw();
    let c1 = C1Input::parse(&serde_json::to_vec(&raw).unwrap(), Path::new("seed.json")).unwrap();
    filsnark::pipeline::proofs::check_c1(&c1, &SectorIdentity { miner_id: 1000, sector_num: 1 }).unwrap();
    AggInput::parse(&serde_json::to_vec(&agg_json()).unwrap(), Path::new("agg.json")).unwrap();
    let (params, shape) = params_file();
    let s = Scratch::new("seed.params");
    s.write(&params);
    ParamsFile::open(&s.path).unwrap().check_shape(&shape).unwrap();
    let s = Scratch::new("seed.srs");
    s.write(&srs_file());
    let srs = SrsFile::open(&s.path).unwrap();
    assert_eq!(srs.max_proofs(), 2);
    srs.verifier_key(2).unwrap();
    srs.prover_key(2).unwrap();
    assert_eq!(Proof::split_seal(&seal_proof(10), 10).unwrap().len(), 10);
    let agg = aggregate_proof();
    assert_eq!(AggregateProof::from_bytes(&agg).unwrap().to_bytes().unwrap(), agg);
}
