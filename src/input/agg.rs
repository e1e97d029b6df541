//! agg.json: the sectors whose C2 proofs one SnarkPack aggregate holds (a ProveCommitAggregate
//! message, or several NI-PoRep sectors), docs/aggregation.md:
//!
//! ```json
//! { "SealProof": "StackedDrg2KiBV1_1", "Aggregation": "SnarkPackV2", "MinerId": 1000,
//!   "Sectors": [ { "SectorNum": 7, "CommR": "<64 hex>", "CommD": "<64 hex>",
//!                  "Ticket": "<64 hex>", "Seed": "<64 hex>", "Proof": "<base64>" } ] }
//! ```
//! Unknown keys are an error; every fault names the file, the sector and the field.
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use base64::Engine;
use filecoin_proofs_api::RegisteredSealProof;
use serde::Deserialize;

use super::proof_type::{check_supported, is_non_interactive};

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct RawFile {
    seal_proof: String,
    aggregation: String,
    miner_id: u64,
    sectors: Vec<RawSector>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct RawSector {
    sector_num: u64,
    comm_r: String,
    comm_d: String,
    ticket: String,
    seed: String,
    proof: Option<String>,
}

/// One sector of an agg.json.
#[derive(Clone, Debug)]
pub struct AggSector {
    pub sector_num: u64,
    pub comm_r: [u8; 32],
    pub comm_d: [u8; 32],
    pub ticket: [u8; 32],
    pub seed: [u8; 32],
    /// Its C2 output: partition proofs, 192 bytes each (for NI-PoRep, the circuit proofs,
    /// not the single-sector aggregate). Only `aggregate` needs it.
    pub proof: Option<Vec<u8>>,
}

/// A parsed agg.json.
#[derive(Clone, Debug)]
pub struct AggInput {
    pub path: PathBuf,
    pub registered: RegisteredSealProof,
    /// SnarkPack version 1 or 2.
    pub version: crate::snarkpack::Version,
    pub miner_id: u64,
    pub sectors: Vec<AggSector>,
}

impl AggInput {
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read the agg file", path.display()))?;
        Self::parse(&bytes, path)
    }

    pub fn parse(bytes: &[u8], path: &Path) -> Result<Self> {
        let p = path.display();
        let raw: RawFile = serde_json::from_slice(bytes).map_err(|e| anyhow!("{p}: not a valid agg.json ({e})"))?;
        let registered: RegisteredSealProof = serde_json::from_value(raw.seal_proof.clone().into())
            .map_err(|_| anyhow!("{p}: SealProof: unknown seal proof type {:?}", raw.seal_proof))?;
        check_supported(registered).map_err(|e| anyhow!("{p}: SealProof: {e}"))?;
        let version = match raw.aggregation.as_str() {
            "SnarkPackV1" => crate::snarkpack::Version::V1,
            "SnarkPackV2" => crate::snarkpack::Version::V2,
            other => bail!("{p}: Aggregation: {other:?} is not SnarkPackV1 or SnarkPackV2"),
        };
        let sectors = raw
            .sectors
            .into_iter()
            .enumerate()
            .map(|(i, s)| parse_sector(s).map_err(|e| anyhow!("{p}: Sectors[{i}]: {e}")))
            .collect::<Result<Vec<_>>>()?;
        let agg = AggInput { path: path.to_path_buf(), registered, version, miner_id: raw.miner_id, sectors };
        agg.check_distinct()?;
        Ok(agg)
    }

    /// Whether these are NI-PoRep sectors.
    pub fn non_interactive(&self) -> bool {
        is_non_interactive(self.registered)
    }

    /// "Sectors[i] (sector N)", for messages.
    pub fn name(&self, i: usize) -> String {
        format!("{}: Sectors[{i}] (sector {})", self.path.display(), self.sectors[i].sector_num)
    }

    fn check_distinct(&self) -> Result<()> {
        let mut seen: HashMap<u64, usize> = HashMap::new();
        for (i, s) in self.sectors.iter().enumerate() {
            if let Some(j) = seen.insert(s.sector_num, i) {
                bail!(
                    "{}: Sectors[{j}] and Sectors[{i}] are both sector {}: a sector can be in an aggregate once",
                    self.path.display(),
                    s.sector_num
                );
            }
        }
        Ok(())
    }
}

fn parse_sector(s: RawSector) -> Result<AggSector> {
    let proof = match s.proof {
        None => None,
        Some(b) => Some(
            base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .map_err(|e| anyhow!("sector {}: Proof is not valid base64 ({e})", s.sector_num))?,
        ),
    };
    let hex = |field: &str, v: &str| hex32(v).map_err(|e| anyhow!("sector {}: {field}: {e}", s.sector_num));
    Ok(AggSector {
        sector_num: s.sector_num,
        comm_r: hex("CommR", &s.comm_r)?,
        comm_d: hex("CommD", &s.comm_d)?,
        ticket: hex("Ticket", &s.ticket)?,
        seed: hex("Seed", &s.seed)?,
        proof,
    })
}

/// 32 bytes from 64 hex characters.
pub fn hex32(s: &str) -> Result<[u8; 32]> {
    let b = s.as_bytes();
    if b.len() != 64 {
        bail!("expected 64 hex characters, found {} characters", b.len());
    }
    let digit = |c: u8| -> Result<u8> {
        (c as char).to_digit(16).map(|d| d as u8).ok_or_else(|| anyhow!("{:?} is not a hex digit", c as char))
    };
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = digit(b[2 * i])? << 4 | digit(b[2 * i + 1])?;
    }
    Ok(out)
}

/// 64 lowercase hex characters.
pub fn to_hex(b: &[u8; 32]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_bad_digits_are_named() {
        let b: [u8; 32] = std::array::from_fn(|i| (i * 37) as u8);
        assert_eq!(hex32(&to_hex(&b)).unwrap(), b);
        assert_eq!(hex32(&to_hex(&b).to_uppercase()).unwrap(), b);
        assert!(hex32("00").unwrap_err().to_string().contains("64 hex"));
        let mut bad = to_hex(&b);
        bad.replace_range(10..11, "g");
        assert!(hex32(&bad).unwrap_err().to_string().contains("'g'"));
    }
}
