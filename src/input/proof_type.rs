//! Registered seal proofs: which sector size and circuit a c1.json asks for, which of them
//! filsnark proves, and which are non-interactive.
use anyhow::{bail, Result};
use filecoin_proofs_api::RegisteredSealProof;

/// Runs `$f::<Tree>(args…)` with the tree shape of a sector size (8-0-0 for 2KiB, 8MiB and
/// 512MiB, 8-8-0 for 32GiB, 8-8-2 for 64GiB: the shapes sealing, PoSt and SnapDeals share).
macro_rules! with_shape {
    ($size:expr, $f:ident, $($arg:expr),* $(,)?) => {{
        use filecoin_proofs::{
            SectorShape2KiB, SectorShape32GiB, SectorShape512MiB, SectorShape64GiB, SectorShape8MiB,
        };
        match $size {
            $crate::input::PorepKind::S2KiB => $f::<SectorShape2KiB>($($arg),*),
            $crate::input::PorepKind::S8MiB => $f::<SectorShape8MiB>($($arg),*),
            $crate::input::PorepKind::S512MiB => $f::<SectorShape512MiB>($($arg),*),
            $crate::input::PorepKind::S32GiB => $f::<SectorShape32GiB>($($arg),*),
            $crate::input::PorepKind::S64GiB => $f::<SectorShape64GiB>($($arg),*),
        }
    }};
}
pub(crate) use with_shape;

/// The five PoRep sector sizes, each with its own tree shape (8-0-0, 8-8-0, 8-8-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PorepKind {
    S2KiB,
    S8MiB,
    S512MiB,
    S32GiB,
    S64GiB,
}

impl PorepKind {
    pub fn from_sector_size(bytes: u64) -> Option<Self> {
        Some(match bytes {
            2048 => Self::S2KiB,
            8_388_608 => Self::S8MiB,
            536_870_912 => Self::S512MiB,
            34_359_738_368 => Self::S32GiB,
            68_719_476_736 => Self::S64GiB,
            _ => return None,
        })
    }

    /// Parses "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" (case-insensitive) or a byte count.
    pub fn parse(s: &str) -> Result<Self> {
        let t = s.trim().to_ascii_lowercase();
        let bytes = match t.as_str() {
            "2kib" | "2k" => 2048,
            "8mib" | "8m" => 8 << 20,
            "512mib" | "512m" => 512 << 20,
            "32gib" | "32g" => 32u64 << 30,
            "64gib" | "64g" => 64u64 << 30,
            _ => t.parse::<u64>().unwrap_or(0),
        };
        match Self::from_sector_size(bytes) {
            Some(k) => Ok(k),
            None => bail!("unknown sector size {s:?}: expected one of 2KiB, 8MiB, 512MiB, 32GiB, 64GiB"),
        }
    }

    pub fn sector_size(self) -> u64 {
        match self {
            Self::S2KiB => 2048,
            Self::S8MiB => 8 << 20,
            Self::S512MiB => 512 << 20,
            Self::S32GiB => 32 << 30,
            Self::S64GiB => 64 << 30,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::S2KiB => "2KiB",
            Self::S8MiB => "8MiB",
            Self::S512MiB => "512MiB",
            Self::S32GiB => "32GiB",
            Self::S64GiB => "64GiB",
        }
    }

    /// The interactive (V1_1) registered proof of this size: the one whose circuit and
    /// parameter files every PoRep variant of the size shares.
    pub fn registered_v1_1(self) -> RegisteredSealProof {
        use RegisteredSealProof::*;
        match self {
            Self::S2KiB => StackedDrg2KiBV1_1,
            Self::S8MiB => StackedDrg8MiBV1_1,
            Self::S512MiB => StackedDrg512MiBV1_1,
            Self::S32GiB => StackedDrg32GiBV1_1,
            Self::S64GiB => StackedDrg64GiBV1_1,
        }
    }
}

/// Refuses the registered proofs filsnark cannot prove, with the reason.
pub fn check_supported(p: RegisteredSealProof) -> Result<()> {
    use RegisteredSealProof::*;
    match p {
        StackedDrg2KiBV1 | StackedDrg8MiBV1 | StackedDrg512MiBV1 | StackedDrg32GiBV1 | StackedDrg64GiBV1 => bail!(
            "{p:?} is the retired V1 PoRep (before network version 7); re-run C1 with a V1_1 \
             proof type"
        ),
        _ => Ok(()),
    }
}

/// Non-interactive PoRep: challenges from comm_r instead of a chain seed, and a C2 output that
/// is the SnarkPack aggregate of its partition proofs.
pub fn is_non_interactive(p: RegisteredSealProof) -> bool {
    use RegisteredSealProof::*;
    matches!(
        p,
        StackedDrg2KiBV1_2_Feat_NonInteractivePoRep
            | StackedDrg8MiBV1_2_Feat_NonInteractivePoRep
            | StackedDrg512MiBV1_2_Feat_NonInteractivePoRep
            | StackedDrg32GiBV1_2_Feat_NonInteractivePoRep
            | StackedDrg64GiBV1_2_Feat_NonInteractivePoRep
    )
}

/// The sector a proof is about, as lotus names it.
#[derive(Clone, Debug)]
pub struct SectorIdentity {
    pub miner_id: u64,
    pub sector_num: u64,
}

/// A miner actor id as people write it: `1000`, or the ID address `t01000` (testnet) /
/// `f01000` (mainnet). Other address kinds (t1…, t2…, t3…) are not actor ids.
pub fn parse_miner_id(s: &str) -> Result<u64> {
    let t = s.trim();
    let digits = t.strip_prefix("t0").or_else(|| t.strip_prefix("f0")).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        bail!("{s:?} is not a miner actor id: write it as 1000, t01000 or f01000");
    }
    digits.parse::<u64>().map_err(|_| anyhow::anyhow!("miner id {s:?} is larger than the largest actor id (2^64 − 1)"))
}

/// The prover id lotus derives from a miner actor id (t0NNNN): the unsigned varint of the
/// id, zero padded to 32 bytes (the payload of the ID address).
pub fn prover_id(miner_id: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut v = miner_id;
    for byte in out.iter_mut() {
        let low = (v & 0x7f) as u8;
        v >>= 7;
        *byte = if v == 0 { low } else { low | 0x80 };
        if v == 0 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prover_id_is_the_uvarint_of_the_miner() {
        assert_eq!(&prover_id(1000)[..3], &[0xe8, 0x07, 0x00]);
        assert_eq!(&prover_id(5)[..2], &[5, 0]);
        assert_eq!(&prover_id(300)[..3], &[0xac, 0x02, 0]);
    }

    #[test]
    fn miner_ids_parse_with_or_without_the_address_prefix() {
        assert_eq!(parse_miner_id("1000").unwrap(), 1000);
        assert_eq!(parse_miner_id("t01000").unwrap(), 1000);
        assert_eq!(parse_miner_id("f01000").unwrap(), 1000);
        assert_eq!(parse_miner_id("t00").unwrap(), 0);
        assert_eq!(parse_miner_id("18446744073709551615").unwrap(), u64::MAX);
        for bad in ["", "t0", "t1abc", "f3xyz", "-5", "10 00", "0x10", "t0+5"] {
            assert!(parse_miner_id(bad).unwrap_err().to_string().contains("not a miner actor id"), "{bad}");
        }
        assert!(parse_miner_id("t018446744073709551616").unwrap_err().to_string().contains("larger"));
    }

    #[test]
    fn sizes_parse_and_round_trip() {
        for k in [PorepKind::S2KiB, PorepKind::S8MiB, PorepKind::S512MiB, PorepKind::S32GiB, PorepKind::S64GiB] {
            assert_eq!(PorepKind::parse(k.name()).unwrap(), k);
            assert_eq!(PorepKind::from_sector_size(k.sector_size()), Some(k));
            assert_eq!(u64::from(k.registered_v1_1().sector_size()), k.sector_size());
        }
        assert!(PorepKind::parse("4KiB").is_err());
    }
}
