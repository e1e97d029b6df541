//! PoRep C2 from end to end: a c1.json in, a verified seal proof out (`prove`), and the check
//! of a seal proof against its sector (`verify`). Every partition proof is verified before the
//! file is written, and the write is atomic (temp file + rename): a failed run leaves no proof.
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use crate::circuit::{statement, SealPublic};
use crate::cpu::backend::CpuBackend;
use crate::groth16::{PreparedVerifyingKey, Proof};
use crate::input::C1Input;
use crate::input::SectorIdentity;
use crate::pipeline::budget::MemoryPlan;
use crate::pipeline::porep::{self as pp, HostTimings, Input, NoEvents, ParamsCache, WitnessMode};
use crate::prover::{Backend, ProveTimings};
use crate::srs::{self, ParamsFile, VerifyingKey};

pub struct ProveOptions {
    pub sector: SectorIdentity,
    pub params_dir: Option<PathBuf>,
    pub seed: Option<u64>,
    /// Syntheses at once (`-c`); None: [`default_concurrency`].
    pub concurrency: Option<usize>,
    /// Host memory budget in bytes; None: 90% of MemAvailable.
    pub mem_budget: Option<u64>,
    pub witness: WitnessMode,
}

/// Default `-c`: half the cores (at least 1). Synthesis runs one thread per partition; the
/// other half of the cores keeps feeding the device phase, and more concurrent syntheses than
/// memory bandwidth can feed only slow each other down (docs/ARCHITECTURE.md).
pub fn default_concurrency() -> usize {
    std::thread::available_parallelism().map(|n| n.get() / 2).unwrap_or(1).max(1)
}

/// What one `prove` did, per partition and in total.
pub struct ProveReport {
    pub params: PathBuf,
    pub partitions: Vec<PartitionReport>,
    pub proof: Vec<u8>,
    pub total: Duration,
    pub memory: MemoryPlan,
}

pub struct PartitionReport {
    /// The whole host stage (witness and evaluation).
    pub synthesis: Duration,
    pub host: HostTimings,
    pub constraints: usize,
    pub prove: ProveTimings,
    /// Waiting for a device after synthesis.
    pub queue_wait: Duration,
    /// The whole device phase.
    pub device: Duration,
    pub verify: Duration,
}

/// Proves every partition of a c1.json through the pipeline on the CPU backend and verifies
/// each partition proof.
pub fn prove(c1: &C1Input, opts: &ProveOptions) -> Result<ProveReport> {
    prove_with(c1, opts, &CpuBackend::new())
}

/// [`prove`] on a given backend.
pub fn prove_with(c1: &C1Input, opts: &ProveOptions, backend: &dyn Backend) -> Result<ProveReport> {
    let start = Instant::now();
    let mut cache = ParamsCache::default();
    let input = Input::load(c1, &opts.sector, opts.params_dir.as_deref(), &mut cache, opts.witness)?;
    let params = input.srs.path.clone();
    let inputs = [input];
    let plan = pp::Plan {
        inputs: &inputs,
        proofs: &[0],
        seed: opts.seed,
        concurrency: opts.concurrency.unwrap_or_else(default_concurrency),
        mem_budget: opts.mem_budget,
    };
    let run = pp::prove(&plan, backend, &NoEvents)?;
    let partitions = run
        .partitions
        .iter()
        .map(|p| PartitionReport {
            synthesis: p.record.synthesis(),
            host: p.host,
            constraints: p.constraints,
            prove: p.prove.clone(),
            queue_wait: p.record.queue_wait(),
            device: p.record.device_time(),
            verify: p.record.verify(),
        })
        .collect();
    let proof = run.proofs.into_iter().next().ok_or_else(|| anyhow!("no proof made"))?.bytes;
    Ok(ProveReport { params, partitions, proof, total: start.elapsed(), memory: run.memory })
}

/// Loads the verifying key for a statement: the `.vk` file, else the `.params` header.
pub fn load_vk(params_dir: Option<&Path>, stem: &str) -> Result<(VerifyingKey, PathBuf)> {
    match srs::locate::find(params_dir, stem, "vk") {
        Ok(p) => Ok((srs::file::read_vk_file(&p)?, p)),
        Err(vk_err) => match srs::locate::find(params_dir, stem, "params") {
            Ok(p) => Ok((ParamsFile::open(&p)?.vk, p)),
            Err(_) => Err(vk_err),
        },
    }
}

/// Verifies a seal proof (partition proofs concatenated) for the sector of a c1.json.
/// Ok(Err(reason)) when the proof is well-formed but invalid.
pub fn verify(
    c1: &C1Input,
    sector: &SectorIdentity,
    params_dir: Option<&Path>,
    proof_bytes: &[u8],
) -> Result<std::result::Result<(), String>> {
    let st = statement(&SealPublic::of(c1), sector)?;
    let (vk, _) = load_vk(params_dir, &st.params_stem())?;
    let pvk = PreparedVerifyingKey::new(&vk);
    let proofs = match Proof::split_seal(proof_bytes, st.num_partitions()) {
        Ok(p) => p,
        Err(e) => return Ok(Err(format!("{e}"))),
    };
    for (k, p) in proofs.iter().enumerate() {
        if !pvk.verify(p, &st.public_inputs(k)?)? {
            return Ok(Err(format!(
                "partition {k} does not verify for miner t0{} sector {}",
                sector.miner_id, sector.sector_num
            )));
        }
    }
    Ok(Ok(()))
}
