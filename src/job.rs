//! One proof job from end to end, whatever its kind: an [`Input`] through the pipeline on a
//! backend, every partition proof verified before anything is written ([`prove_input`]); the
//! check of a proof against what its verifier knows ([`verify_proof`]); the atomic write of
//! the output is [`crate::output`]'s. `porep`, `post` and `snap` build their inputs and
//! statements and call these.
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use crate::circuit::ProofStatement;
use crate::groth16::{PreparedVerifyingKey, Proof};
use crate::pipeline::budget::MemoryPlan;
use crate::pipeline::proofs::{self as pp, Events, HostTimings, Input, ParamsCache};
use crate::prover::{Backend, ProveTimings};
use crate::srs::{self, ParamsFile, VerifyingKey};

/// How to run one job, for every kind.
#[derive(Clone, Debug, Default)]
pub struct JobOptions {
    pub params_dir: Option<PathBuf>,
    pub seed: Option<u64>,
    /// Syntheses at once (`-c`); None: [`default_concurrency`].
    pub concurrency: Option<usize>,
    /// Host memory budget in bytes; None: 90% of MemAvailable.
    pub mem_budget: Option<u64>,
    /// How partitions get their witness (native where the circuit has one, or the gadgets).
    pub witness: pp::WitnessMode,
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
    /// The output (for NI-PoRep, the SnarkPack aggregate of the partition proofs).
    pub proof: Vec<u8>,
    /// The partition proofs concatenated (equal to `proof` for every other kind).
    pub circuit_proofs: Vec<u8>,
    /// NI-PoRep: aggregating the partition proofs and verifying the aggregate.
    pub aggregate: Duration,
    pub total: Duration,
    pub memory: MemoryPlan,
}

pub struct PartitionReport {
    /// The whole host stage (witness and evaluation).
    pub synthesis: Duration,
    /// How the witness was made (native or gadgets) and its parts.
    pub host: HostTimings,
    pub constraints: usize,
    pub prove: ProveTimings,
    /// Waiting for a device after synthesis.
    pub queue_wait: Duration,
    /// The whole device phase.
    pub device: Duration,
    pub verify: Duration,
}

/// Proves every partition of `input` through the pipeline on `backend`; every partition proof
/// is verified. `start` is when the job began (loading included in the total); `events` hears
/// of each partition done (progress).
pub fn prove_input(
    input: Input,
    opts: &JobOptions,
    backend: &dyn Backend,
    start: Instant,
    events: &dyn Events,
) -> Result<ProveReport> {
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

/// Loads an input with `load` and proves it as [`prove_input`] does, telling `events` the
/// stages first (`what` is checked and the parameters load) and then the partitions (the
/// progress every `prove` shows).
pub fn load_and_prove(
    what: &Path,
    load: impl FnOnce(&mut ParamsCache) -> Result<Input>,
    opts: &JobOptions,
    backend: &dyn Backend,
    events: &dyn Events,
) -> Result<ProveReport> {
    let start = Instant::now();
    loading_stage(events, what);
    let input = load(&mut ParamsCache::default())?;
    events.partitions(input.circuits.num_partitions());
    prove_input(input, opts, backend, start, events)
}

/// Tells `events` that `what` is being checked and its parameters loaded (a progress stage).
pub fn loading_stage(events: &dyn Events, what: &Path) {
    events.stage(&format!("checking {} and loading the parameters", what.display()));
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

/// Verifies a proof (partition proofs concatenated) against its statement. Ok(Err(reason))
/// when the proof is well-formed but invalid, or has the wrong length; `whose` ends the
/// reason ("for miner t01000 …").
pub fn verify_proof(
    st: &dyn ProofStatement,
    params_dir: Option<&Path>,
    proof_bytes: &[u8],
    whose: &str,
) -> Result<std::result::Result<(), String>> {
    let (vk, _) = load_vk(params_dir, &st.params_stem())?;
    let pvk = PreparedVerifyingKey::new(&vk);
    let proofs = match Proof::split_seal(proof_bytes, st.num_partitions()) {
        Ok(p) => p,
        Err(e) => return Ok(Err(format!("{e}"))),
    };
    for (k, p) in proofs.iter().enumerate() {
        if !pvk.verify(p, &st.public_inputs(k)?)? {
            return Ok(Err(format!("partition {k} does not verify {whose}")));
        }
    }
    Ok(Ok(()))
}
