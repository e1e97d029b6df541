//! A Groth16 proof (A ∈ G1, B ∈ G2, C ∈ G1) and its encoding: compressed A (48 B) ‖ B (96 B) ‖
//! C (48 B), as bellperson and the Filecoin chain write it. A seal proof is the partition
//! proofs concatenated in partition order.
use anyhow::{anyhow, bail, Result};
use blstrs::{G1Affine, G2Affine};

pub const PROOF_BYTES: usize = 192;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub a: G1Affine,
    pub b: G2Affine,
    pub c: G1Affine,
}

impl Proof {
    pub fn to_bytes(&self) -> [u8; PROOF_BYTES] {
        let mut out = [0u8; PROOF_BYTES];
        out[..48].copy_from_slice(&self.a.to_compressed());
        out[48..144].copy_from_slice(&self.b.to_compressed());
        out[144..].copy_from_slice(&self.c.to_compressed());
        out
    }

    /// Decodes one proof; every point must be on the curve and in its subgroup.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != PROOF_BYTES {
            bail!("a proof is {PROOF_BYTES} bytes, found {}", bytes.len());
        }
        let a = Option::from(G1Affine::from_compressed(bytes[..48].try_into().unwrap()))
            .ok_or_else(|| anyhow!("A is not a valid compressed G1 point"))?;
        let b = Option::from(G2Affine::from_compressed(bytes[48..144].try_into().unwrap()))
            .ok_or_else(|| anyhow!("B is not a valid compressed G2 point"))?;
        let c = Option::from(G1Affine::from_compressed(bytes[144..].try_into().unwrap()))
            .ok_or_else(|| anyhow!("C is not a valid compressed G1 point"))?;
        Ok(Proof { a, b, c })
    }

    /// Splits a seal proof into its `partitions` proofs.
    pub fn split_seal(bytes: &[u8], partitions: usize) -> Result<Vec<Proof>> {
        if bytes.len() != partitions * PROOF_BYTES {
            bail!(
                "a seal proof of {partitions} partition(s) is {} bytes, found {}",
                partitions * PROOF_BYTES,
                bytes.len()
            );
        }
        bytes
            .chunks(PROOF_BYTES)
            .enumerate()
            .map(|(k, c)| Proof::from_bytes(c).map_err(|e| anyhow!("partition {k}: {e}")))
            .collect()
    }
}
