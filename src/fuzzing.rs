//! The checks every fuzz target runs on one input, shared by the seeded fuzzer in tests/
//! (`tests/fuzz_parsers.rs`, `tests/fuzz_post_snap.rs`) and the coverage-guided one in fuzz/
//! (cargo-fuzz, libFuzzer), so that both judge an input the same way.
//!
//! Each function takes one input (its bytes, or the path of a file holding them for the readers
//! that open a path) and says what happened: `Ok(true)` accepted, `Ok(false)` refused with an
//! error that names the file, `Err` a broken property (an error that does not name the file, a
//! proof that does not encode back to its bytes, an accepted input without the partitions its
//! proof type says). A panic is a failure too; the harness catches or reports it.
use std::path::Path;

use filecoin_proofs_api::PoStType;

use crate::aggregate::sector_statement;
use crate::circuit::ProofStatement;
use crate::groth16::{Proof, PROOF_BYTES};
use crate::input::post::window_partitions;
use crate::input::snap::update_partitions;
use crate::input::{AggInput, C1Input, PorepKind, PostInput, SectorIdentity, SnapInput};
use crate::snarkpack::{AggregateProof, SrsFile};
use crate::srs::file::parse_vk;
use crate::srs::{ParamsFile, Shape};

/// What one input did: accepted (`true`) or refused well (`false`), or a broken property.
pub type Verdict = Result<bool, String>;

/// A verifying key's fixed part: α, β, δ in G1 and β, γ, δ in G2, uncompressed.
pub const VK_FIXED: usize = 3 * 96 + 3 * 192;

/// The shape the `.params` seed's counts fit (two public inputs, five short sections).
pub const PARAMS_SHAPE: Shape = Shape { inputs: 2, aux: 3, domain: 4, a_aux: 2, b_inputs: 1, b_aux: 2 };

/// Err unless `e` (with its causes) names `path`.
pub fn names(path: &Path, e: &anyhow::Error) -> Result<(), String> {
    let msg = format!("{e:#}");
    if msg.contains(&path.display().to_string()) {
        Ok(())
    } else {
        Err(format!("the error does not name the file {}: {msg}", path.display()))
    }
}

/// `Ok(false)` for an error that names `path`.
fn refused(path: &Path, e: &anyhow::Error) -> Verdict {
    names(path, e).map(|()| false)
}

/// c1.json (wrapper or raw) read as from `path`, then the full pre-proving check of what parses
/// (`check_c1`, for miner t01000 and the sector number the wrapper names, else 1).
pub fn c1(bytes: &[u8], path: &Path) -> Verdict {
    let c1 = match C1Input::parse(bytes, path) {
        Ok(c1) => c1,
        Err(e) => return refused(path, &e),
    };
    let sector = SectorIdentity { miner_id: 1000, sector_num: c1.sector_num.unwrap_or(1) };
    match crate::pipeline::proofs::check_c1(&c1, &sector) {
        Ok(()) => Ok(true),
        Err(e) => refused(path, &e),
    }
}

/// agg.json read as from `path`; every sector of what parses has a statement and public inputs
/// for each partition, and its proof goes through `split_seal` (whose verdict is not judged).
pub fn agg(bytes: &[u8], path: &Path) -> Verdict {
    let agg = match AggInput::parse(bytes, path) {
        Ok(a) => a,
        Err(e) => return refused(path, &e),
    };
    let partitions = usize::from(agg.registered.partitions());
    for (i, s) in agg.sectors.iter().enumerate() {
        let st = sector_statement(&agg, i).map_err(|e| format!("a parsed agg.json's statement failed: {e:#}"))?;
        for k in 0..partitions {
            st.public_inputs(k).map_err(|e| format!("public inputs of partition {k}: {e:#}"))?;
        }
        if let Some(p) = &s.proof {
            let _ = Proof::split_seal(p, partitions);
        }
    }
    Ok(true)
}

/// The `.params` file at `path`: `ParamsFile::open`, then `check_shape` against `shape` (counts
/// and sampled points).
pub fn params(path: &Path, shape: &Shape) -> Verdict {
    let f = match ParamsFile::open(path) {
        Ok(f) => f,
        Err(e) => return refused(path, &e),
    };
    match f.check_shape(shape) {
        Ok(()) => Ok(true),
        Err(e) => refused(path, &e),
    }
}

/// A `.vk` file's bytes read as from `path`; an accepted key used no more bytes than there are,
/// exactly its fixed part, the count and its ic points.
pub fn vk(bytes: &[u8], path: &Path) -> Verdict {
    match parse_vk(bytes, path) {
        Ok((vk, used)) if used > bytes.len() || VK_FIXED + 4 + vk.ic.len() * 96 != used => {
            Err(format!("parse_vk says it used {used} bytes of {} for {} ic points", bytes.len(), vk.ic.len()))
        }
        Ok(_) => Ok(true),
        Err(e) => refused(path, &e),
    }
}

/// The SnarkPack SRS file at `path`: `SrsFile::open`, then the verifier and prover keys for as
/// many proofs as it holds (from two).
pub fn srs(path: &Path) -> Verdict {
    let f = match SrsFile::open(path) {
        Ok(f) => f,
        Err(e) => return refused(path, &e),
    };
    let n = f.max_proofs();
    if n < 2 {
        return Ok(false);
    }
    match f.verifier_key(n).and_then(|_| f.prover_key(n)) {
        Ok(_) => Ok(true),
        Err(e) => refused(path, &e),
    }
}

/// A seal proof file of as many partition proofs as its length holds (at least one):
/// `Proof::split_seal`; what decodes encodes back to the same bytes.
pub fn seal_proof(bytes: &[u8]) -> Verdict {
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
}

/// A SnarkPack aggregate proof file: `AggregateProof::from_bytes`; what decodes encodes back to
/// the same bytes.
pub fn aggregate_proof(bytes: &[u8]) -> Verdict {
    match AggregateProof::from_bytes(bytes) {
        Ok(p) => match p.to_bytes() {
            Ok(again) if again == bytes => Ok(true),
            Ok(_) => Err("a decoded aggregate encodes to other bytes".into()),
            Err(e) => Err(format!("a decoded aggregate does not encode: {e:#}")),
        },
        Err(_) => Ok(false),
    }
}

/// post.json of the PoSt kind `expect`, read as from `path`, then everything `prove` checks
/// before the parameters (`post::check`); an accepted input has the partitions its proof type
/// says, public inputs for each, and (2KiB) is accepted by filecoin-proofs' own partitioning
/// and vanilla verifier.
pub fn post(bytes: &[u8], path: &Path, expect: PoStType) -> Verdict {
    let input = match PostInput::parse(bytes, path, expect) {
        Ok(i) => i,
        Err(e) => return refused(path, &e),
    };
    let circuits = match crate::post::check(&input) {
        Ok(c) => c,
        Err(e) => return refused(path, &e),
    };
    let p = &input.public;
    let want = match (p.typ(), p.partition) {
        (PoStType::Window, None) => window_partitions(p.registered, p.sectors.len()),
        _ => 1,
    };
    every_partition(circuits.as_ref(), want)?;
    if input.size == PorepKind::S2KiB {
        crate::synth::post::crates_accept(&input)
            .map_err(|e| format!("filsnark accepts a post.json that filecoin-proofs rejects: {e:#}"))?;
    }
    Ok(true)
}

/// snap.json read as from `path`, then everything `prove` checks before the parameters
/// (`snap::check`); an accepted input has the partitions its sector size says, public inputs
/// for each.
pub fn snap(bytes: &[u8], path: &Path) -> Verdict {
    let input = match SnapInput::parse(bytes, path) {
        Ok(i) => i,
        Err(e) => return refused(path, &e),
    };
    match crate::snap::check(&input) {
        Ok(c) => every_partition(c.as_ref(), update_partitions(input.size)).map(|()| true),
        Err(e) => refused(path, &e),
    }
}

/// An accepted input has `want` partitions, each with its public inputs.
pub fn every_partition(st: &dyn ProofStatement, want: usize) -> Result<(), String> {
    if st.num_partitions() != want {
        return Err(format!("an accepted input has {} partitions, not {want}", st.num_partitions()));
    }
    for k in 0..want {
        st.public_inputs(k).map_err(|e| format!("an accepted input's public inputs of partition {k}: {e:#}"))?;
    }
    Ok(())
}
