//! PoRep C2 from end to end: a c1.json in, a verified seal proof out (`prove`), and the check
//! of a seal proof against its sector (`verify`). Every partition proof is verified before the
//! file is written, and the write is atomic (temp file + rename): a failed run leaves no proof.
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use crate::circuit::{statement, SealPublic, Statement};
use crate::cpu::backend::CpuBackend;
use crate::groth16::{PreparedVerifyingKey, Proof};
use crate::input::{is_non_interactive, C1Input, SectorIdentity};
use crate::pipeline::budget::MemoryPlan;
use crate::pipeline::porep::{self as pp, Events, HostTimings, Input, NoEvents, ParamsCache, WitnessMode};
use crate::prover::{Backend, ProveTimings};
use crate::snarkpack::{self, seal, SrsFile};
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
    /// The C2 output (for NI-PoRep, the SnarkPack aggregate of the partition proofs).
    pub proof: Vec<u8>,
    /// The partition proofs concatenated (equal to `proof` for interactive PoRep).
    pub circuit_proofs: Vec<u8>,
    /// NI-PoRep: aggregating the partition proofs and verifying the aggregate.
    pub aggregate: Duration,
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
    prove_with_events(c1, opts, backend, &NoEvents)
}

/// [`prove_with`], telling `events` the stages and each partition done (progress).
pub fn prove_with_events(
    c1: &C1Input,
    opts: &ProveOptions,
    backend: &dyn Backend,
    events: &dyn Events,
) -> Result<ProveReport> {
    let start = Instant::now();
    let mut cache = ParamsCache::default();
    events.stage(&format!("checking {} and loading the parameters", c1.path.display()));
    let input = Input::load(c1, &opts.sector, opts.params_dir.as_deref(), &mut cache, opts.witness)?;
    events.partitions(input.circuits.num_partitions());
    let params = input.srs.path.clone();
    let inputs = [input];
    let plan = pp::Plan {
        inputs: &inputs,
        proofs: &[0],
        seed: opts.seed,
        concurrency: opts.concurrency.unwrap_or_else(default_concurrency),
        mem_budget: opts.mem_budget,
    };
    let run = pp::prove(&plan, backend, events)?;
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
    let made = run.proofs.into_iter().next().ok_or_else(|| anyhow!("no proof made"))?;
    Ok(ProveReport {
        params,
        partitions,
        proof: made.bytes,
        circuit_proofs: made.circuit_proofs,
        aggregate: made.aggregate,
        total: start.elapsed(),
        memory: run.memory,
    })
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

/// Verifies a seal proof (partition proofs concatenated; for NI-PoRep their SnarkPack
/// aggregate) for the sector of a c1.json. Ok(Err(reason)) when the proof is invalid.
pub fn verify(
    c1: &C1Input,
    sector: &SectorIdentity,
    params_dir: Option<&Path>,
    proof_bytes: &[u8],
) -> Result<std::result::Result<(), String>> {
    let st = statement(&SealPublic::of(c1), sector)?;
    let (vk, _) = load_vk(params_dir, &st.params_stem())?;
    if is_non_interactive(c1.output.registered_proof) {
        return verify_ni(c1, st.as_ref(), &vk, params_dir, proof_bytes);
    }
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

/// An NI-PoRep C2 output: the SnarkPack V2 aggregate of the sector's partition proofs.
fn verify_ni(
    c1: &C1Input,
    st: &dyn Statement,
    vk: &VerifyingKey,
    params_dir: Option<&Path>,
    proof_bytes: &[u8],
) -> Result<std::result::Result<(), String>> {
    let n = st.num_partitions();
    let srs = SrsFile::open(&snarkpack::srs::locate(params_dir)?)?;
    let svk = srs.verifier_key(seal::target_len(n))?;
    let inputs = (0..n).map(|k| st.public_inputs(k)).collect::<Result<Vec<_>>>()?;
    let include = seal::transcript_include(true, &[(c1.output.seed, c1.output.comm_r)]);
    seal::verify_seal(&svk, vk, inputs, &include, proof_bytes, snarkpack::Version::V2)
}
