//! Real 2KiB WindowPoSt, WinningPoSt and SnapDeals inputs made by filecoin-proofs: sectors
//! sealed in the test, vanilla proofs from `generate_fallback_sector_challenges` +
//! `generate_single_vanilla_proof` and from `empty_sector_update_encode_into` +
//! `generate_partition_proofs`, written as post.json / snap.json (docs/formats.md).
use std::collections::BTreeMap;
use std::io::{Cursor, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use filecoin_proofs_api::post::{generate_fallback_sector_challenges, generate_single_vanilla_proof};
use filecoin_proofs_api::seal::add_piece;
use filecoin_proofs_api::update::{empty_sector_update_encode_into, generate_partition_proofs};
use filecoin_proofs_api::{
    PrivateReplicaInfo, PublicReplicaInfo, RegisteredPoStProof, RegisteredUpdateProof, SectorId, UnpaddedBytesAmount,
};
use filsnark::input::fields::{to_base64, to_hex};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::seal::{prover_id, seal_2kib};

pub const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
pub const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;
pub const UPDATE: RegisteredUpdateProof = RegisteredUpdateProof::StackedDrg2KiBV1;

/// A sealed 2KiB sector: its number, comm_r and files (as `seal_2kib` names them).
#[derive(Clone, Debug)]
pub struct Sector {
    pub num: u64,
    pub comm_r: [u8; 32],
    pub cache: PathBuf,
    pub replica: PathBuf,
}

/// Seals sectors `nums` of `miner` in `dir`.
pub fn seal_sectors(dir: &Path, miner: u64, nums: &[u64], seed: u64) -> Vec<Sector> {
    nums.iter()
        .map(|&num| {
            let c1 = seal_2kib(miner, num, seed + num, dir).unwrap();
            Sector {
                num,
                comm_r: c1.comm_r,
                cache: dir.join(format!("cache-{num}")),
                replica: dir.join(format!("sealed-{num}")),
            }
        })
        .collect()
}

/// Chain-like randomness: 32 random bytes with the top two bits cleared, as lotus does.
pub fn randomness(seed: u64) -> [u8; 32] {
    let mut r: [u8; 32] = ChaCha8Rng::seed_from_u64(seed).gen();
    r[31] &= 0x3f;
    r
}

/// filecoin-proofs' vanilla proofs of `sectors` for this randomness, in the given order.
pub fn vanilla(proof: RegisteredPoStProof, randomness: &[u8; 32], miner: u64, sectors: &[Sector]) -> Vec<Vec<u8>> {
    let ids: Vec<SectorId> = sectors.iter().map(|s| SectorId::from(s.num)).collect();
    let challenges = generate_fallback_sector_challenges(proof, randomness, &ids, prover_id(miner)).unwrap();
    sectors
        .iter()
        .map(|s| {
            let info = PrivateReplicaInfo::new(proof, s.comm_r, s.cache.clone(), s.replica.clone());
            generate_single_vanilla_proof(proof, SectorId::from(s.num), &info, &challenges[&SectorId::from(s.num)])
                .unwrap()
        })
        .collect()
}

/// A post.json.
pub fn post_json(
    proof: RegisteredPoStProof,
    miner: u64,
    randomness: &[u8; 32],
    sectors: &[Sector],
    vanilla: &[Vec<u8>],
    partition: Option<usize>,
) -> serde_json::Value {
    let mut v = serde_json::json!({
        "PoStProof": format!("{proof:?}"),
        "MinerId": miner,
        "Randomness": to_hex(randomness),
        "Sectors": sectors.iter().map(|s| serde_json::json!({"SectorNum": s.num, "CommR": to_hex(&s.comm_r)})).collect::<Vec<_>>(),
        "VanillaProofs": vanilla.iter().map(|b| to_base64(b)).collect::<Vec<_>>(),
    });
    if let Some(k) = partition {
        v["Partition"] = k.into();
    }
    v
}

/// The replicas as `verify_window_post` / `verify_winning_post` take them.
pub fn replicas(proof: RegisteredPoStProof, sectors: &[Sector]) -> BTreeMap<SectorId, PublicReplicaInfo> {
    sectors.iter().map(|s| (SectorId::from(s.num), PublicReplicaInfo::new(proof, s.comm_r))).collect()
}

/// A 2KiB sector updated with new data: its commitments and filecoin-proofs' vanilla partition
/// proofs.
#[derive(Clone)]
pub struct Updated {
    pub comm_r_old: [u8; 32],
    pub comm_r_new: [u8; 32],
    pub comm_d_new: [u8; 32],
    pub vanilla: Vec<Vec<u8>>,
}

/// Seals sector `num` in `dir`, encodes random new data into it, and makes the vanilla proofs.
pub fn update_sector(dir: &Path, miner: u64, num: u64, seed: u64) -> Result<Updated> {
    let old = &seal_sectors(dir, miner, &[num], seed)[0];
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let unpadded = UnpaddedBytesAmount::from(filecoin_proofs_api::PaddedBytesAmount(2048));
    let data: Vec<u8> = (0..u64::from(unpadded)).map(|_| rng.gen()).collect();
    let staged = dir.join(format!("update-staged-{num}"));
    let mut f = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged)?;
    let (piece, _) = add_piece(
        filecoin_proofs_api::RegisteredSealProof::StackedDrg2KiBV1_1,
        Cursor::new(&data),
        &mut f,
        unpadded,
        &[],
    )?;
    f.seek(SeekFrom::Start(0))?;
    f.flush()?;
    let (replica, cache) = (dir.join(format!("updated-{num}")), dir.join(format!("update-cache-{num}")));
    std::fs::create_dir_all(&cache)?;
    std::fs::copy(&old.replica, &replica)?;
    let enc = empty_sector_update_encode_into(UPDATE, &replica, &cache, &old.replica, &old.cache, &staged, &[piece])?;
    let proofs = generate_partition_proofs(
        UPDATE,
        old.comm_r,
        enc.comm_r_new,
        enc.comm_d_new,
        &old.replica,
        &old.cache,
        &replica,
        &cache,
    )?;
    Ok(Updated {
        comm_r_old: old.comm_r,
        comm_r_new: enc.comm_r_new,
        comm_d_new: enc.comm_d_new,
        vanilla: proofs.into_iter().map(|p| p.0).collect(),
    })
}

/// A snap.json.
pub fn snap_json(u: &Updated) -> serde_json::Value {
    serde_json::json!({
        "UpdateProof": format!("{UPDATE:?}"),
        "CommROld": to_hex(&u.comm_r_old),
        "CommRNew": to_hex(&u.comm_r_new),
        "CommDNew": to_hex(&u.comm_d_new),
        "VanillaProofs": u.vanilla.iter().map(|b| to_base64(b)).collect::<Vec<_>>(),
    })
}
