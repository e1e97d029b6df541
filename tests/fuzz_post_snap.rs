//! Fuzzing post.json (WindowPoSt and WinningPoSt) and snap.json (SnapDeals): the reader, then
//! the whole check `prove` and `bench` run before any parameter is looked for (each vanilla
//! proof decoded and checked against its sector, the challenges and the commitments). The
//! engine is `fuzz/mod.rs`; the valid inputs come from `filsnark post synth` / `snap synth`'s
//! generators at 2KiB (no sealing, milliseconds).
//!
//! What runs on one input is `filsnark::fuzzing` (`post`, `snap`), the checks the
//! coverage-guided fuzzer of fuzz/ runs too; the ignored `write_corpus` writes the seeds as its
//! corpus (`scripts/fuzz-corpus.sh`). Properties beyond "no panic": an error names the file it
//! is about; an accepted input has the partitions its proof type says and public inputs for
//! each; an accepted post.json is also accepted by filecoin-proofs' own partitioning and
//! vanilla verifier. Besides the JSON mutators, a vanilla proof is decoded and its bincode bytes
//! mutated (lengths included), so mutations reach the Merkle-proof checks. CI runs each target's
//! default count (a few seconds in all); `FILSNARK_FUZZ_EXECS` and `FILSNARK_FUZZ_SECS` make a
//! long run.
mod fuzz;

use std::path::Path;

use filecoin_proofs_api::{PoStType, RegisteredPoStProof};
use filsnark::fuzzing;
use filsnark::input::fields::to_base64;
use filsnark::input::PorepKind;
use filsnark::synth::post::{synth_post, PostSynthOptions};
use filsnark::synth::snap::synth_snap;
use fuzz::{mutate_bytes, mutate_json, mutate_le_lengths, run, Rand};
use rand::Rng;
use serde_json::Value;

const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;

/// A synthetic 2KiB post.json (seeded), as JSON.
fn post_json(registered: RegisteredPoStProof, sectors: usize, first: u64, partition: Option<usize>) -> Value {
    let opts = PostSynthOptions { registered, miner_id: 1000, sectors, first_sector: first, partition, seed: 7 };
    serde_json::from_slice(&synth_post(&opts).expect("a synthetic post.json")).unwrap()
}

/// The WindowPoSt seeds: three sectors (two partitions, the second padded), and the second
/// partition's sector alone with `Partition` 1.
fn window_seeds() -> Vec<Value> {
    vec![post_json(WINDOW, 3, 3, None), post_json(WINDOW, 1, 9, Some(1))]
}

fn winning_seeds() -> Vec<Value> {
    vec![post_json(WINNING, 1, 7, None)]
}

fn snap_seeds() -> Vec<Value> {
    vec![serde_json::from_slice(&synth_snap(PorepKind::S2KiB, 7).expect("a synthetic snap.json")).unwrap()]
}

/// One mutated input from a seed: JSON-structure mutations, a vanilla proof's bincode bytes
/// mutated, another proof type of the same family swapped in, or raw byte mutations.
fn mutant(rng: &mut Rand, seeds: &[Value], type_key: &str, types: &[&str]) -> Vec<u8> {
    let mut v = seeds[rng.gen_range(0..seeds.len())].clone();
    if rng.gen_bool(0.15) {
        v[type_key] = types[rng.gen_range(0..types.len())].into();
    }
    match rng.gen_range(0..10) {
        0..=4 => mutate_json(rng, &mut v),
        5..=7 => mutate_vanilla(rng, &mut v),
        _ => {
            let mut bytes = serde_json::to_vec(&v).unwrap();
            mutate_bytes(rng, &mut bytes);
            return bytes;
        }
    }
    serde_json::to_vec(&v).unwrap()
}

/// Decodes one `VanillaProofs` entry, mutates its bytes (bit flips, runs, little-endian
/// lengths and indices) and encodes it back.
fn mutate_vanilla(rng: &mut Rand, v: &mut Value) {
    let Some(proofs) = v["VanillaProofs"].as_array_mut().filter(|a| !a.is_empty()) else { return };
    let i = rng.gen_range(0..proofs.len());
    let Some(mut bytes) = proofs[i].as_str().and_then(base64_decode) else { return };
    if rng.gen_bool(0.5) {
        mutate_le_lengths(rng, &mut bytes);
    } else {
        mutate_bytes(rng, &mut bytes);
    }
    proofs[i] = to_base64(&bytes).into();
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(s).ok()
}

const WINDOW_TYPES: [&str; 4] =
    ["StackedDrgWindow2KiBV1_2", "StackedDrgWindow8MiBV1_2", "StackedDrgWindow2KiBV1", "StackedDrgWinning2KiBV1"];
const WINNING_TYPES: [&str; 3] = ["StackedDrgWinning2KiBV1", "StackedDrgWinning8MiBV1", "StackedDrgWindow2KiBV1_2"];
const SNAP_TYPES: [&str; 3] = ["StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg32GiBV1"];

#[test]
fn fuzz_window_post() {
    let seeds = window_seeds();
    let path = Path::new("fuzz/window-post.json");
    run(
        "window-post",
        6000,
        |rng, _| mutant(rng, &seeds, "PoStProof", &WINDOW_TYPES),
        |bytes| fuzzing::post(bytes, path, PoStType::Window),
    );
}

#[test]
fn fuzz_winning_post() {
    let seeds = winning_seeds();
    let path = Path::new("fuzz/winning-post.json");
    run(
        "winning-post",
        3000,
        |rng, _| mutant(rng, &seeds, "PoStProof", &WINNING_TYPES),
        |bytes| fuzzing::post(bytes, path, PoStType::Winning),
    );
}

#[test]
fn fuzz_snap() {
    let seeds = snap_seeds();
    let path = Path::new("fuzz/snap.json");
    run("snap", 10_000, |rng, _| mutant(rng, &seeds, "UpdateProof", &SNAP_TYPES), |bytes| fuzzing::snap(bytes, path));
}

/// The seeds are sound: each is accepted whole, by filsnark and (post.json) by filecoin-proofs,
/// so the fuzzing starts from inputs that reach every check.
#[test]
fn fuzz_seeds_are_accepted() {
    let path = Path::new("seed.json");
    for (target, i, s) in seeds() {
        let bytes = serde_json::to_vec(&s).unwrap();
        let verdict = match target {
            "window_post" => fuzzing::post(&bytes, path, PoStType::Window),
            "winning_post" => fuzzing::post(&bytes, path, PoStType::Winning),
            _ => fuzzing::snap(&bytes, path),
        };
        assert_eq!(verdict, Ok(true), "{target} seed {i}");
    }
}

/// Every target's seeds, as (target, index, JSON).
fn seeds() -> Vec<(&'static str, usize, Value)> {
    let all = [("window_post", window_seeds()), ("winning_post", winning_seeds()), ("snap", snap_seeds())];
    all.into_iter().flat_map(|(t, seeds)| seeds.into_iter().enumerate().map(move |(i, s)| (t, i, s))).collect()
}

/// Writes the seeds as the corpus of the coverage-guided fuzzer (`scripts/fuzz-corpus.sh`).
#[test]
#[ignore = "writes fuzz/corpus; run by scripts/fuzz-corpus.sh"]
fn write_corpus() {
    for (target, i, s) in seeds() {
        fuzz::write_seed(target, &format!("seed{i}.json"), &serde_json::to_vec(&s).unwrap());
    }
}
