//! snap.json: the input of a SnapDeals (empty sector update) proof (docs/formats.md): the
//! registered update proof, the old and new replica commitments, the new data commitment, and
//! one vanilla partition proof per partition as filecoin-proofs serialises it.
//!
//! The partition count is the update circuit's (1 at 2KiB, 4 at 8MiB, 16 at 512MiB and above),
//! not `RegisteredUpdateProof::partitions()` (that is PoRep's count in filecoin-proofs-api 19.1.0).
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use filecoin_proofs_api::RegisteredUpdateProof;
use serde_json::Value;

use super::fields::{base64, Fields};
use super::PorepKind;

/// The keys of snap.json.
pub const KEYS: [&str; 5] = ["UpdateProof", "CommROld", "CommRNew", "CommDNew", "VanillaProofs"];

/// What a verifier of a SnapDeals proof knows.
#[derive(Clone, Debug)]
pub struct SnapPublic {
    pub registered: RegisteredUpdateProof,
    pub comm_r_old: [u8; 32],
    pub comm_r_new: [u8; 32],
    pub comm_d_new: [u8; 32],
}

/// A parsed snap.json.
pub struct SnapInput {
    pub path: PathBuf,
    pub size: PorepKind,
    pub public: SnapPublic,
    /// One per partition: bincode of storage-proofs-update's `PartitionProof`.
    pub vanilla: Vec<Vec<u8>>,
}

/// Partitions of the update circuit for a sector size.
pub fn update_partitions(size: PorepKind) -> usize {
    storage_proofs_update::constants::partition_count((size.sector_size() / 32) as usize)
}

/// The registered update proof of a sector size.
pub fn registered_update(size: PorepKind) -> RegisteredUpdateProof {
    use RegisteredUpdateProof::*;
    match size {
        PorepKind::S2KiB => StackedDrg2KiBV1,
        PorepKind::S8MiB => StackedDrg8MiBV1,
        PorepKind::S512MiB => StackedDrg512MiBV1,
        PorepKind::S32GiB => StackedDrg32GiBV1,
        PorepKind::S64GiB => StackedDrg64GiBV1,
    }
}

impl SnapInput {
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read the snap file", path.display()))?;
        Self::parse(&bytes, path)
    }

    pub fn parse(bytes: &[u8], path: &Path) -> Result<Self> {
        let p = path.display();
        let v: Value = serde_json::from_slice(bytes).map_err(|e| anyhow!("{p}: not JSON ({e})"))?;
        let f = Fields::new(path, "", &v, &KEYS)?;
        let name = f.str("UpdateProof")?;
        let registered: RegisteredUpdateProof = serde_json::from_value(Value::String(name.into())).map_err(|_| {
            anyhow!("{} {name:?} is not a RegisteredUpdateProof (e.g. StackedDrg32GiBV1)", f.name("UpdateProof"))
        })?;
        let size = PorepKind::from_sector_size(u64::from(registered.sector_size()))
            .ok_or_else(|| anyhow!("{p}: {registered:?} has an unknown sector size"))?;
        let public = SnapPublic {
            registered,
            comm_r_old: f.field32("CommROld")?,
            comm_r_new: f.field32("CommRNew")?,
            comm_d_new: f.field32("CommDNew")?,
        };
        let proofs = f.array("VanillaProofs")?;
        let want = update_partitions(size);
        if proofs.len() != want {
            bail!(
                "{p}: VanillaProofs has {} entries, but a {} sector update has {want} partition(s): one vanilla \
                 partition proof each, in partition order",
                proofs.len(),
                size.name()
            );
        }
        let vanilla = proofs
            .iter()
            .enumerate()
            .map(|(k, v)| base64(path, &format!("VanillaProofs[{k}] (partition {k})"), v))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { path: path.to_path_buf(), size, public, vanilla })
    }
}
