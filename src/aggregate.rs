//! `aggregate porep` and `verify aggregate`: the C2 proofs of the sectors of an agg.json in one
//! SnarkPack aggregate, as filecoin-proofs' `aggregate_seal_commit_proofs` makes it (identical
//! bytes: the aggregation draws no randomness), and its check, as
//! `verify_aggregate_seal_commit_proofs` does it.
//!
//! Before aggregating, every input is checked, cheapest first: counts (filecoin-proofs' limits),
//! distinct sectors, proof lengths (a proof of another seal proof type has another partition
//! count), the SRS's capacity, then every partition proof against its sector's public inputs.
//! The aggregate is verified before it is returned.
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use blstrs::Scalar;
use rayon::prelude::*;

use crate::circuit::{statement, SealPublic, Statement};
use crate::ec::MillerLoops;
use crate::groth16::{PreparedVerifyingKey, Proof, PROOF_BYTES};
use crate::input::{AggInput, SectorIdentity};
use crate::porep::load_vk;
use crate::snarkpack::seal::{self, aggregate_seal_on, check_count, target_len, transcript_include, verify_seal};
use crate::snarkpack::Pairings;
use crate::snarkpack::SrsFile;
use crate::srs::VerifyingKey;

/// What one `aggregate` did.
pub struct AggregateReport {
    pub proof: Vec<u8>,
    /// Partition proofs aggregated, before padding.
    pub proofs: usize,
    /// After padding to a power of two.
    pub padded: usize,
    pub srs: PathBuf,
    pub params: PathBuf,
    /// Checking every input proof.
    pub check_inputs: Duration,
    /// Reading the SRS points the prover needs.
    pub load_srs: Duration,
    pub aggregate: Duration,
    pub self_verify: Duration,
    /// Where the large pairing products' Miller loops ran: "CPU" or the GPU's label.
    pub pairings: String,
}

/// The sectors' statements and what both commands need.
struct Job<'a> {
    agg: &'a AggInput,
    statements: Vec<Box<dyn Statement>>,
    partitions: usize,
    vk: VerifyingKey,
    params: PathBuf,
    srs: SrsFile,
}

/// The statement of sector `i` of an agg.json: its seal's public values for its miner.
pub fn sector_statement(agg: &AggInput, i: usize) -> Result<Box<dyn Statement>> {
    let s = &agg.sectors[i];
    let public =
        SealPublic { registered: agg.registered, comm_r: s.comm_r, comm_d: s.comm_d, ticket: s.ticket, seed: s.seed };
    statement(&public, &SectorIdentity { miner_id: agg.miner_id, sector_num: s.sector_num })
}

impl<'a> Job<'a> {
    fn load(agg: &'a AggInput, params_dir: Option<&Path>) -> Result<Self> {
        check_counts(agg)?;
        let partitions = usize::from(agg.registered.partitions());
        check_count(agg.sectors.len() * partitions).map_err(|e| anyhow!("{}: {e}", agg.path.display()))?;
        let srs = SrsFile::open(&crate::snarkpack::srs::locate(params_dir)?)?;
        srs.check_capacity(target_len(agg.sectors.len() * partitions)).map_err(|e| {
            anyhow!("{} ({} sectors of {partitions} partition(s)): {e}", agg.path.display(), agg.sectors.len())
        })?;
        let statements = (0..agg.sectors.len())
            .into_par_iter()
            .map(|i| sector_statement(agg, i).map_err(|e| anyhow!("{}: {e:#}", agg.name(i))))
            .collect::<Result<Vec<_>>>()?;
        let (vk, params) = load_vk(params_dir, &statements[0].params_stem())?;
        Ok(Job { agg, statements, partitions, vk, params, srs })
    }

    /// Every partition's public inputs (with the leading ONE), sector by sector.
    fn inputs(&self) -> Result<Vec<Vec<Scalar>>> {
        let per_sector = self
            .statements
            .par_iter()
            .enumerate()
            .map(|(i, st)| {
                (0..self.partitions)
                    .map(|k| st.public_inputs(k))
                    .collect::<Result<Vec<_>>>()
                    .map_err(|e| anyhow!("{}: {e:#}", self.agg.name(i)))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(per_sector.into_iter().flatten().collect())
    }

    fn include(&self) -> [u8; 32] {
        let pairs: Vec<_> = self.agg.sectors.iter().map(|s| (s.seed, s.comm_r)).collect();
        transcript_include(self.agg.non_interactive(), &pairs)
    }
}

/// filecoin-proofs' count rules that depend on the kind of PoRep.
fn check_counts(agg: &AggInput) -> Result<()> {
    let p = agg.path.display();
    if agg.sectors.is_empty() {
        bail!("{p}: Sectors is empty: nothing to aggregate");
    }
    if agg.non_interactive() && agg.sectors.len() > seal::NI_MAX_SECTORS {
        bail!(
            "{p}: {} NI-PoRep sectors; an NI-PoRep aggregate holds 1 to {} sectors (FIP-0092), filecoin-proofs \
             refuses more",
            agg.sectors.len(),
            seal::NI_MAX_SECTORS
        );
    }
    Ok(())
}

/// Every sector's proof split into its partition proofs; a length that fits another partition
/// count is named as another seal proof type.
fn split_proofs(agg: &AggInput, partitions: usize) -> Result<Vec<Vec<u8>>> {
    let want = partitions * PROOF_BYTES;
    agg.sectors
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let Some(bytes) = &s.proof else {
                bail!("{}: no Proof (aggregating needs each sector's C2 proof)", agg.name(i));
            };
            if bytes.len() != want {
                let kind = if bytes.len() % PROOF_BYTES == 0 && !bytes.is_empty() {
                    format!(
                        "{} partition proofs: a proof of another seal proof type, which cannot be aggregated with \
                         {:?} proofs",
                        bytes.len() / PROOF_BYTES,
                        agg.registered
                    )
                } else {
                    format!("not a whole number of {PROOF_BYTES}-byte partition proofs")
                };
                bail!(
                    "{}: Proof is {} bytes, {kind}; {:?} proofs are {want} bytes ({partitions} partition(s))",
                    agg.name(i),
                    bytes.len(),
                    agg.registered
                );
            }
            Ok(bytes.clone())
        })
        .collect()
}

/// Decodes and verifies every partition proof; the first that fails is named by sector.
fn check_proofs(job: &Job, raw: &[Vec<u8>], inputs: &[Vec<Scalar>]) -> Result<Vec<Proof>> {
    let pvk = PreparedVerifyingKey::new(&job.vk);
    let n = job.partitions;
    (0..raw.len() * n)
        .into_par_iter()
        .map(|j| {
            let (i, k) = (j / n, j % n);
            let who = || format!("{} partition {k}", job.agg.name(i));
            let p = Proof::from_bytes(&raw[i][k * PROOF_BYTES..(k + 1) * PROOF_BYTES])
                .map_err(|e| anyhow!("{}: {e}", who()))?;
            if !pvk.verify(&p, &inputs[j])? {
                bail!(
                    "{}: the proof does not verify for miner t0{} (check CommR, CommD, Ticket, Seed and MinerId, and \
                     that the proof is this sector's)",
                    who(),
                    job.agg.miner_id
                );
            }
            Ok(p)
        })
        .collect()
}

/// Aggregates the sectors' proofs of `agg` after checking every input.
pub fn aggregate(agg: &AggInput, params_dir: Option<&Path>) -> Result<AggregateReport> {
    let t = Instant::now();
    let job = Job::load(agg, params_dir)?;
    let raw = split_proofs(agg, job.partitions)?;
    let inputs = job.inputs()?;
    let proofs = check_proofs(&job, &raw, &inputs)?;
    let check_inputs = t.elapsed();

    let t = Instant::now();
    let padded = target_len(proofs.len());
    let pk = job.srs.prover_key(padded)?;
    let svk = job.srs.verifier_key(padded)?;
    let load_srs = t.elapsed();

    let device = crate::devices::pairing_device();
    let on = device.as_ref().map_or(Pairings::CPU, |d| Pairings::on(d as &dyn MillerLoops));
    let pairings = device.as_ref().map_or("CPU".to_string(), |d| d.label());
    let t = Instant::now();
    let include = job.include();
    let count = proofs.len();
    let bytes = aggregate_seal_on(&pk, &include, proofs, agg.version, on)?;
    let aggregate = t.elapsed();

    let t = Instant::now();
    if let Err(why) = verify_seal(&svk, &job.vk, inputs, &include, &bytes, agg.version)? {
        bail!("the aggregate failed self-verification ({why}); no proof written");
    }
    Ok(AggregateReport {
        proof: bytes,
        proofs: count,
        padded,
        srs: job.srs.path.clone(),
        params: job.params.clone(),
        check_inputs,
        load_srs,
        aggregate,
        self_verify: t.elapsed(),
        pairings,
    })
}

/// Checks an aggregate against the sectors of `agg` (their Proof fields are not needed).
/// Ok(Err(reason)) when it does not verify.
pub fn verify(agg: &AggInput, params_dir: Option<&Path>, bytes: &[u8]) -> Result<std::result::Result<(), String>> {
    let job = Job::load(agg, params_dir)?;
    let inputs = job.inputs()?;
    let svk = job.srs.verifier_key(target_len(inputs.len()))?;
    verify_seal(&svk, &job.vk, inputs, &job.include(), bytes, agg.version)
        .with_context(|| format!("{}", agg.path.display()))
}
