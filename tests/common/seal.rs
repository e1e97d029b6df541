//! Seals small sectors with filecoin-proofs so tests (and the example that makes the
//! shipped fixture) have real C1 outputs: add_piece → PC1 → PC2 → C1, all in a temp dir.
use std::io::{Cursor, Seek, SeekFrom, Write};
use std::path::Path;

use anyhow::Result;
use base64::Engine;
use filecoin_proofs_api::seal::{
    add_piece, generate_synth_proofs, seal_commit_phase1, seal_pre_commit_phase1, seal_pre_commit_phase2, verify_seal,
    SealCommitPhase1Output,
};
use filecoin_proofs_api::{RegisteredSealProof, SectorId, UnpaddedBytesAmount};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The prover id lotus derives from a miner actor id (filsnark's own, unit-tested there).
pub use filsnark::input::prover_id;

/// Seals one 2KiB sector of random data and returns its C1 output.
pub fn seal_2kib(miner_id: u64, sector_num: u64, seed: u64, dir: &Path) -> Result<SealCommitPhase1Output> {
    seal_2kib_as(RegisteredSealProof::StackedDrg2KiBV1_1, miner_id, sector_num, seed, dir)
}

/// Seals one 2KiB sector of random data with a given PoRep variant (interactive, synthetic:
/// its challenges drawn from the synthetic proofs made after PC2, non-interactive) and returns
/// its C1 output.
pub fn seal_2kib_as(
    proof: RegisteredSealProof,
    miner_id: u64,
    sector_num: u64,
    seed: u64,
    dir: &Path,
) -> Result<SealCommitPhase1Output> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sector_size = u64::from(proof.sector_size());
    let unpadded = UnpaddedBytesAmount::from(filecoin_proofs_api::PaddedBytesAmount(sector_size));
    let data: Vec<u8> = (0..u64::from(unpadded)).map(|_| rng.gen()).collect();

    let staged = dir.join(format!("staged-{sector_num}"));
    let sealed = dir.join(format!("sealed-{sector_num}"));
    let cache = dir.join(format!("cache-{sector_num}"));
    std::fs::create_dir_all(&cache)?;
    let mut staged_file =
        std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged)?;
    let (piece, _) = add_piece(proof, Cursor::new(&data), &mut staged_file, unpadded, &[])?;
    staged_file.seek(SeekFrom::Start(0))?;
    staged_file.flush()?;
    std::fs::File::create(&sealed)?;

    let pid = prover_id(miner_id);
    let sector_id = SectorId::from(sector_num);
    let ticket: [u8; 32] = rng.gen();
    let mut seed_bytes: [u8; 32] = rng.gen();
    seed_bytes[31] &= 0x3f;
    let pieces = vec![piece];
    let p1 = seal_pre_commit_phase1(proof, &cache, &staged, &sealed, pid, sector_id, ticket, &pieces)?;
    let p2 = seal_pre_commit_phase2(p1, &cache, &sealed)?;
    if proof == RegisteredSealProof::StackedDrg2KiBV1_1_Feat_SyntheticPoRep {
        generate_synth_proofs(&cache, &sealed, pid, sector_id, ticket, p2.clone(), &pieces)?;
    }
    let c1 = seal_commit_phase1(&cache, &sealed, pid, sector_id, ticket, seed_bytes, p2, &pieces)?;
    Ok(c1)
}

/// The lotus-bench / Curio wrapper around a C1 output.
pub fn lotus_wrapper(c1: &SealCommitPhase1Output, sector_num: u64) -> Result<String> {
    let raw = serde_json::to_vec(c1)?;
    let b64 = base64::engine::general_purpose::STANDARD.encode(raw);
    Ok(serde_json::json!({
        "SectorNum": sector_num,
        "Phase1Out": b64,
        "SectorSize": u64::from(c1.registered_proof.sector_size()),
    })
    .to_string())
}

/// The C1 output and the sector number inside a lotus-bench / Curio wrapper.
pub fn from_lotus_wrapper(bytes: &[u8]) -> Result<(SealCommitPhase1Output, u64)> {
    let v: serde_json::Value = serde_json::from_slice(bytes)?;
    let sector = v["SectorNum"].as_u64().unwrap_or(1);
    let phase1 = v["Phase1Out"].as_str().ok_or_else(|| anyhow::anyhow!("no Phase1Out in the c1 wrapper"))?;
    let raw = base64::engine::general_purpose::STANDARD.decode(phase1)?;
    Ok((serde_json::from_slice(&raw)?, sector))
}

/// filecoin-proofs' `verify_seal`: does the chain accept `proof` for this C1 output, miner and
/// sector?
pub fn chain_accepts(c1: &SealCommitPhase1Output, miner_id: u64, sector_num: u64, proof: &[u8]) -> Result<bool> {
    verify_seal(
        c1.registered_proof,
        c1.comm_r,
        c1.comm_d,
        prover_id(miner_id),
        SectorId::from(sector_num),
        c1.ticket,
        c1.seed,
        proof,
    )
}
