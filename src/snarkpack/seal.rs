//! How Filecoin uses SnarkPack for PoRep, as filecoin-proofs' `aggregate_seal_commit_proofs`,
//! `verify_aggregate_seal_commit_proofs` and NI-PoRep's `seal_commit_phase2` do:
//! - the partition proofs of all sectors, in order, are padded to the next power of two (at
//!   least 2) by repeating the last one; the verifier pads the public inputs the same way;
//! - the transcript input is SHA-256 over seed ‖ comm_r of each sector in order (interactive
//!   PoRep), or over the comm_rs alone (NI-PoRep, whose challenges use no seed);
//! - at most 65,536 proofs after padding; an NI-PoRep aggregate of several sectors holds 1 to
//!   65 of them (FIP-0092).
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use blstrs::Scalar;
use sha2::{Digest, Sha256};

use super::ipp::Pairings;
use super::proof::AggregateProof;
use super::prove::aggregate_on;
use super::srs::{ProverKey, SrsFile, VerifierKey};
use super::{verify, Version};
use crate::groth16::Proof;
use crate::srs::VerifyingKey;

/// filecoin-proofs' SRS_MAX_PROOFS_TO_AGGREGATE: the most proofs after padding.
pub const MAX_PROOFS: usize = 65_536;
/// FIP-0092: the most NI-PoRep sectors in one aggregate.
pub const NI_MAX_SECTORS: usize = 65;

/// The number of proofs an aggregate of `count` proofs holds after padding.
pub fn target_len(count: usize) -> usize {
    if count <= 1 {
        2
    } else {
        count.next_power_of_two()
    }
}

/// The transcript input: SHA-256 of seed ‖ comm_r per sector (comm_r alone for NI-PoRep).
pub fn transcript_include(non_interactive: bool, sectors: &[([u8; 32], [u8; 32])]) -> [u8; 32] {
    let mut h = Sha256::new();
    for (seed, comm_r) in sectors {
        if !non_interactive {
            h.update(seed);
        }
        h.update(comm_r);
    }
    h.finalize().into()
}

/// An error unless `count` proofs can be aggregated.
pub fn check_count(count: usize) -> Result<()> {
    if count == 0 {
        bail!("nothing to aggregate: no proofs");
    }
    let target = target_len(count);
    if target > MAX_PROOFS {
        bail!("{count} proofs pad to {target}, more than the {MAX_PROOFS} filecoin-proofs aggregates");
    }
    Ok(())
}

/// `v` padded to `target` entries by repeating its last.
pub fn pad<T: Clone>(mut v: Vec<T>, target: usize) -> Vec<T> {
    if let Some(last) = v.last().cloned() {
        v.resize(target, last);
    }
    v
}

/// The aggregate of `proofs` (padded here) as bytes. `pk` must be for the padded count.
pub fn aggregate_seal(pk: &ProverKey, include: &[u8], proofs: Vec<Proof>, version: Version) -> Result<Vec<u8>> {
    aggregate_seal_on(pk, include, proofs, version, Pairings::CPU)
}

/// [`aggregate_seal`] with the pairing products' Miller loops where `on` says (the same bytes).
pub fn aggregate_seal_on(
    pk: &ProverKey,
    include: &[u8],
    proofs: Vec<Proof>,
    version: Version,
    on: Pairings<'_>,
) -> Result<Vec<u8>> {
    check_count(proofs.len())?;
    let target = target_len(proofs.len());
    aggregate_on(pk, include, &pad(proofs, target), version, on)?.to_bytes()
}

/// Checks an aggregate's bytes against the public inputs of its proofs (unpadded, each with
/// the leading ONE). Ok(Err(why)) when the bytes are malformed or do not verify.
pub fn verify_seal(
    vk: &VerifierKey,
    gvk: &VerifyingKey,
    inputs: Vec<Vec<Scalar>>,
    include: &[u8],
    bytes: &[u8],
    version: Version,
) -> Result<std::result::Result<(), String>> {
    check_count(inputs.len())?;
    let proof = match AggregateProof::from_bytes(bytes) {
        Ok(p) => p,
        Err(e) => return Ok(Err(format!("malformed aggregate: {e:#}"))),
    };
    let target = target_len(inputs.len());
    if proof.gipa.nproofs as usize != target {
        return Ok(Err(format!(
            "the aggregate holds {} proofs; {} proofs pad to {target}",
            proof.gipa.nproofs,
            inputs.len()
        )));
    }
    verify(vk, gvk, &pad(inputs, target), include, &proof, version)
}

/// Turns the verified partition proofs of one NI-PoRep sector into its C2 output, as
/// `seal_commit_phase2` does: SnarkPack V2 over the padded proofs, transcript input SHA-256 of
/// comm_r. The aggregate is verified before it is returned.
pub struct SectorAggregator {
    pub srs_path: PathBuf,
    pk: ProverKey,
    vk: VerifierKey,
    include: [u8; 32],
}

impl SectorAggregator {
    /// The aggregator of a sector with `partitions` partitions and this comm_r; the SRS is
    /// found like the parameter files.
    pub fn ni_porep(params_dir: Option<&Path>, comm_r: [u8; 32], partitions: usize) -> Result<Self> {
        let srs_path = super::srs::locate(params_dir)?;
        let srs = SrsFile::open(&srs_path)?;
        let n = target_len(partitions);
        let (pk, vk) = (srs.prover_key(n)?, srs.verifier_key(n)?);
        Ok(SectorAggregator { srs_path, pk, vk, include: transcript_include(true, &[([0; 32], comm_r)]) })
    }

    /// The aggregate of `proofs`, checked against `inputs` (one vector per proof, with the
    /// leading ONE) under the circuit's key `gvk`.
    pub fn seal(&self, proofs: Vec<Proof>, inputs: Vec<Vec<Scalar>>, gvk: &VerifyingKey) -> Result<Vec<u8>> {
        let bytes = aggregate_seal(&self.pk, &self.include, proofs, Version::V2)?;
        if let Err(why) = verify_seal(&self.vk, gvk, inputs, &self.include, &bytes, Version::V2)? {
            bail!(
                "the NI-PoRep aggregate made with {} failed self-verification ({why}); no proof written",
                self.srs_path.display()
            );
        }
        Ok(bytes)
    }
}
