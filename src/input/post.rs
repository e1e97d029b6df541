//! post.json: the input of a WindowPoSt or WinningPoSt proof, the arguments Curio and lotus
//! hand to filecoin-ffi (docs/formats.md): the registered proof, the miner, the challenge
//! randomness, the sectors (number and comm_r, ascending) and one vanilla proof per sector as
//! filecoin-proofs serialises it. Optionally the one WindowPoSt partition to prove.
//!
//! What can be checked without the tree types is checked here (keys, encodings, canonical
//! randomness, sector order, counts, proof type); the vanilla proofs themselves are decoded and
//! checked against the challenges where the circuits are built.
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use filecoin_proofs_api::{PoStType, RegisteredPoStProof};
use serde_json::Value;

use super::fields::{base64, is_canonical, Fields};
use super::PorepKind;

/// The keys of post.json.
pub const KEYS: [&str; 6] = ["PoStProof", "MinerId", "Randomness", "Sectors", "VanillaProofs", "Partition"];

/// One challenged sector, as the verifier knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PostSector {
    pub num: u64,
    pub comm_r: [u8; 32],
}

/// What a verifier of a PoSt knows: the proof type, the miner, the randomness, the sectors,
/// and for a single WindowPoSt partition its index.
#[derive(Clone, Debug)]
pub struct PostPublic {
    pub registered: RegisteredPoStProof,
    pub miner_id: u64,
    pub randomness: [u8; 32],
    pub sectors: Vec<PostSector>,
    /// WindowPoSt only: prove this partition alone, `sectors` holding only its sectors.
    pub partition: Option<usize>,
}

/// A parsed post.json.
pub struct PostInput {
    pub path: PathBuf,
    pub size: PorepKind,
    pub public: PostPublic,
    /// One per sector, in `sectors` order: bincode of `FallbackPoStSectorProof`.
    pub vanilla: Vec<Vec<u8>>,
}

/// `window-post` or `winning-post`: the command name of a PoSt type.
pub fn command_name(t: PoStType) -> &'static str {
    match t {
        PoStType::Window => "window-post",
        PoStType::Winning => "winning-post",
    }
}

impl PostPublic {
    pub fn typ(&self) -> PoStType {
        self.registered.typ()
    }
}

impl PostInput {
    /// Reads a post.json for a proof of type `expect` (the command: window-post or winning-post).
    pub fn load(path: &Path, expect: PoStType) -> Result<Self> {
        let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read the post file", path.display()))?;
        Self::parse(&bytes, path, expect)
    }

    pub fn parse(bytes: &[u8], path: &Path, expect: PoStType) -> Result<Self> {
        let p = path.display();
        let v: Value = serde_json::from_slice(bytes).map_err(|e| anyhow!("{p}: not JSON ({e})"))?;
        let f = Fields::new(path, "", &v, &KEYS)?;
        let registered = post_proof(&f, expect)?;
        let size = PorepKind::from_sector_size(u64::from(registered.sector_size()))
            .ok_or_else(|| anyhow!("{p}: {registered:?} has an unknown sector size"))?;
        let miner_id = f.u64("MinerId")?;
        let randomness = randomness(&f)?;
        let sectors = sectors(path, f.array("Sectors")?)?;
        let proofs = f.array("VanillaProofs")?;
        if proofs.len() != sectors.len() {
            bail!(
                "{p}: Sectors has {} entries but VanillaProofs has {}: one vanilla proof per sector, in the same order",
                sectors.len(),
                proofs.len()
            );
        }
        let vanilla = proofs
            .iter()
            .enumerate()
            .map(|(i, v)| base64(path, &format!("VanillaProofs[{i}] (sector {})", sectors[i].num), v))
            .collect::<Result<Vec<_>>>()?;
        let partition = f.opt_u64("Partition")?.map(|k| k as usize);
        check_counts(registered, &sectors, partition).map_err(|e| anyhow!("{p}: {e}"))?;
        Ok(Self {
            path: path.to_path_buf(),
            size,
            public: PostPublic { registered, miner_id, randomness, sectors, partition },
            vanilla,
        })
    }
}

/// `PoStProof`: a known name, V1_2 for WindowPoSt, of the type the command proves.
fn post_proof(f: &Fields, expect: PoStType) -> Result<RegisteredPoStProof> {
    let name = f.str("PoStProof")?;
    let registered: RegisteredPoStProof = serde_json::from_value(Value::String(name.into())).map_err(|_| {
        anyhow!(
            "{} {name:?} is not a RegisteredPoStProof (e.g. StackedDrgWindow32GiBV1_2, StackedDrgWinning32GiBV1)",
            f.name("PoStProof")
        )
    })?;
    if registered.typ() != expect {
        bail!(
            "{} is {name}, a {} proof; this command proves {} (use `{}`)",
            f.name("PoStProof"),
            command_name(registered.typ()),
            command_name(expect),
            command_name(registered.typ())
        );
    }
    use RegisteredPoStProof::*;
    if let StackedDrgWindow2KiBV1
    | StackedDrgWindow8MiBV1
    | StackedDrgWindow512MiBV1
    | StackedDrgWindow32GiBV1
    | StackedDrgWindow64GiBV1 = registered
    {
        bail!(
            "{} is {name}: refused, the network accepts only V1_2 WindowPoSt proofs (the V1 challenges \
             are grindable); make the vanilla proofs with {name}_2",
            f.name("PoStProof")
        );
    }
    Ok(registered)
}

/// `Randomness`: 32 bytes that are a canonical field element.
fn randomness(f: &Fields) -> Result<[u8; 32]> {
    let r = f.hex32("Randomness")?;
    if !is_canonical(&r) {
        bail!(
            "{} is not a canonical field element (not below the BLS12-381 scalar modulus); the chain's \
             randomness is made one by clearing the top two bits of its last byte (randomness[31] &= 0x3f), \
             as lotus does before calling filecoin-ffi",
            f.name("Randomness")
        );
    }
    Ok(r)
}

/// `Sectors`: objects `{SectorNum, CommR}` in strictly ascending `SectorNum`.
fn sectors(path: &Path, list: &[Value]) -> Result<Vec<PostSector>> {
    let mut out: Vec<PostSector> = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let f = Fields::new(path, &format!("Sectors[{i}]"), v, &["SectorNum", "CommR"])?;
        let num = f.u64("SectorNum")?;
        let comm_r = f.field32("CommR")?;
        if let Some(prev) = out.last() {
            if num <= prev.num {
                bail!(
                    "{}: Sectors[{i}] is sector {num}, after sector {}: sectors must be in strictly ascending \
                     SectorNum (the verifier sorts them, so any other order fails verification)",
                    path.display(),
                    prev.num
                );
            }
        }
        out.push(PostSector { num, comm_r });
    }
    if out.is_empty() {
        bail!("{}: Sectors is empty: a PoSt proves at least one sector", path.display());
    }
    Ok(out)
}

/// How many sectors the proof type and `Partition` allow.
fn check_counts(registered: RegisteredPoStProof, sectors: &[PostSector], partition: Option<usize>) -> Result<()> {
    match registered.typ() {
        PoStType::Winning => {
            if partition.is_some() {
                bail!("Partition is for WindowPoSt only; a WinningPoSt has one partition");
            }
            if sectors.len() != 1 {
                bail!(
                    "a WinningPoSt proves exactly one sector (picking it among the eligible sectors is the \
                     caller's job), but Sectors has {}",
                    sectors.len()
                );
            }
        }
        PoStType::Window => {
            let per = registered.sector_count();
            if partition.is_some() && sectors.len() > per {
                bail!(
                    "Partition is set, so Sectors must hold that partition's sectors only, at most {per} for \
                     {registered:?}, but it has {}: too many sectors for one partition",
                    sectors.len()
                );
            }
        }
    }
    Ok(())
}

/// The partitions a WindowPoSt over `sectors` sectors has (at least one), as filecoin-proofs
/// counts them.
pub fn window_partitions(registered: RegisteredPoStProof, sectors: usize) -> usize {
    sectors.div_ceil(registered.sector_count()).max(1)
}
