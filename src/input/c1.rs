//! c1.json: the output of PoRep commit phase 1, in the two forms users send it.
//! - the lotus-bench / Curio wrapper `{"SectorNum":N,"Phase1Out":"<base64 JSON>","SectorSize":bytes}`
//! - the raw `SealCommitPhase1Output` JSON of filecoin-proofs-api.
//!
//! Every fault names the file and what is wrong with it.
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use base64::Engine;
use filecoin_proofs_api::seal::SealCommitPhase1Output;
use filecoin_proofs_api::RegisteredSealProof;
use serde::Deserialize;
use serde_json::Value;

use super::field::check_c1_elements;
use super::proof_type::{check_supported, PorepKind};

/// A parsed c1.json.
pub struct C1Input {
    pub path: PathBuf,
    /// `SectorNum` of the wrapper, when the file had one.
    pub sector_num: Option<u64>,
    pub kind: PorepKind,
    pub output: SealCommitPhase1Output,
}

impl C1Input {
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read the c1 file", path.display()))?;
        Self::parse(&bytes, path)
    }

    pub fn parse(bytes: &[u8], path: &Path) -> Result<Self> {
        let p = path.display();
        let v: Value = serde_json::from_slice(bytes).map_err(|e| anyhow!("{p}: not JSON ({e})"))?;
        let obj = v.as_object().ok_or_else(|| anyhow!("{p}: expected a JSON object, found {}", kind_of(&v)))?;

        let (raw, sector_num, sector_size) = if let Some(b64) = obj.get("Phase1Out") {
            let b64 = b64.as_str().ok_or_else(|| anyhow!("{p}: Phase1Out must be a base64 string"))?;
            let raw = base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .map_err(|e| anyhow!("{p}: Phase1Out is not valid base64 ({e})"))?;
            let raw: Value = serde_json::from_slice(&raw)
                .map_err(|e| anyhow!("{p}: Phase1Out decodes to bytes that are not JSON ({e})"))?;
            let num = match obj.get("SectorNum") {
                None => None,
                Some(n) => Some(
                    n.as_u64().ok_or_else(|| anyhow!("{p}: SectorNum must be a non-negative integer, found {n}"))?,
                ),
            };
            let size = match obj.get("SectorSize") {
                None => None,
                Some(n) => Some(n.as_u64().ok_or_else(|| anyhow!("{p}: SectorSize must be a byte count, found {n}"))?),
            };
            (raw, num, size)
        } else if obj.contains_key("registered_proof") {
            (v, None, None)
        } else {
            bail!(
                "{p}: neither a lotus/Curio c1 wrapper (no \"Phase1Out\") nor a raw SealCommitPhase1Output \
                 (no \"registered_proof\")"
            );
        };

        let proof_name =
            raw.get("registered_proof").ok_or_else(|| anyhow!("{p}: the C1 output has no \"registered_proof\""))?;
        let registered: RegisteredSealProof = serde_json::from_value(proof_name.clone())
            .map_err(|_| anyhow!("{p}: unknown proof type {proof_name} in \"registered_proof\""))?;
        check_supported(registered).map_err(|e| anyhow!("{p}: {e}"))?;
        let kind = PorepKind::from_sector_size(u64::from(registered.sector_size()))
            .ok_or_else(|| anyhow!("{p}: {registered:?} has an unknown sector size"))?;
        if let Some(size) = sector_size {
            if size != kind.sector_size() {
                bail!(
                    "{p}: SectorSize {size} does not match the proof type {registered:?}, which is for {} sectors ({} bytes)",
                    kind.name(),
                    kind.sector_size()
                );
            }
        }
        let output = SealCommitPhase1Output::deserialize(&raw)
            .map_err(|e| anyhow!("{p}: malformed SealCommitPhase1Output ({e})"))?;
        check_c1_elements(&raw).map_err(|e| anyhow!("{p}: {e}"))?;
        check_vanilla_shape(&output, kind).map_err(|e| anyhow!("{p}: {e}"))?;
        Ok(Self { path: path.to_path_buf(), sector_num, kind, output })
    }

    /// The sector number to use: the flag wins, else the wrapper's, else an error.
    pub fn sector_num(&self, flag: Option<u64>) -> Result<u64> {
        flag.or(self.sector_num).ok_or_else(|| {
            anyhow!("{}: a raw C1 output carries no sector number; pass --sector-num", self.path.display())
        })
    }
}

fn check_vanilla_shape(out: &SealCommitPhase1Output, kind: PorepKind) -> Result<()> {
    use filecoin_proofs_api::seal::VanillaSealProof as V;
    let (size, partitions) = match &out.vanilla_proofs {
        V::StackedDrg2KiBV1(p) => (PorepKind::S2KiB, p.len()),
        V::StackedDrg8MiBV1(p) => (PorepKind::S8MiB, p.len()),
        V::StackedDrg512MiBV1(p) => (PorepKind::S512MiB, p.len()),
        V::StackedDrg32GiBV1(p) => (PorepKind::S32GiB, p.len()),
        V::StackedDrg64GiBV1(p) => (PorepKind::S64GiB, p.len()),
    };
    if size != kind {
        bail!("vanilla proofs are for {} sectors but the proof type is for {}", size.name(), kind.name());
    }
    let expected = usize::from(out.registered_proof.partitions());
    if partitions != expected {
        bail!("{partitions} partitions of vanilla proofs, but {:?} has {expected}", out.registered_proof);
    }
    Ok(())
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
