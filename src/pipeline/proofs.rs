//! Proofs through the pipeline, whatever their kind (PoRep, WindowPoSt, WinningPoSt,
//! SnapDeals): one job per partition of each proof, synthesized from the [`ProofCircuits`] of
//! its input, proved by a [`Backend`] with the input's parameter file, verified on the CPU
//! against the partition's public inputs, and assembled into the proof (partition proofs in
//! order) once all its partitions are verified. The kinds differ only in their circuits and
//! parameter files; the locks, the budget, the timings and the report are the same.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};

use super::budget::{self, Demand, MemoryPlan};
use super::{Record, Stages};
use crate::circuit::{circuits_from_c1, Assignment, CircuitKind, PorepProof, ProofCircuits, ProofKind};
use crate::groth16::{randomness, PreparedVerifyingKey, PROOF_BYTES};
use crate::input::{C1Input, SectorIdentity};
use crate::prover::{Backend, ProveTimings, Proved};
use crate::srs::{self, ParamsFile};

/// What a report says about an input: its circuit and, where it has them, the miner and the
/// sector it is about.
#[derive(Clone, Debug)]
pub struct InputLabel {
    pub circuit: CircuitKind,
    pub miner_id: Option<u64>,
    /// The sector of a PoRep (a PoSt names many, a SnapDeals input none).
    pub sector_num: Option<u64>,
    /// Sectors the proof covers (1 for PoRep and SnapDeals).
    pub sectors: usize,
}

/// One proof's input ready to prove: its circuits, parameters and prepared verifying key.
pub struct Input {
    /// For reports: the input file's path or the sample's name.
    pub name: String,
    pub label: InputLabel,
    pub circuits: Arc<dyn ProofCircuits>,
    pub srs: Arc<ParamsFile>,
    pub pvk: Arc<PreparedVerifyingKey>,
}

impl Input {
    /// An input from its circuits: finds their parameter file by its official name (`cache`
    /// shares parameter files, mmaps and prepared keys, between inputs that use the same one).
    pub fn new(
        name: String,
        label: InputLabel,
        circuits: Box<dyn ProofCircuits>,
        params_dir: Option<&Path>,
        cache: &mut ParamsCache,
    ) -> Result<Self> {
        let path = srs::locate::find(params_dir, &circuits.params_stem(), "params")?;
        let (srs, pvk) = cache.get(&path)?;
        Ok(Input { name, label, circuits: Arc::from(circuits), srs, pvk })
    }

    /// Loads the circuits of a c1.json and its parameters.
    pub fn load(
        c1: &C1Input,
        sector: &SectorIdentity,
        params_dir: Option<&Path>,
        cache: &mut ParamsCache,
    ) -> Result<Self> {
        let circuits = circuits_from_c1(c1, sector).map_err(|e| anyhow!("{}: {e:#}", c1.path.display()))?;
        let label = InputLabel {
            circuit: CircuitKind::new(ProofKind::Porep, c1.kind),
            miner_id: Some(sector.miner_id),
            sector_num: Some(sector.sector_num),
            sectors: 1,
        };
        Self::new(c1.path.display().to_string(), label, Box::new(PorepProof(circuits)), params_dir, cache)
    }

    /// The evaluation domain of its circuit (from the parameter file).
    pub fn domain(&self) -> usize {
        budget::params_domain(&self.srs)
    }
}

/// Parameter files opened so far, by path.
#[derive(Default)]
pub struct ParamsCache(HashMap<PathBuf, (Arc<ParamsFile>, Arc<PreparedVerifyingKey>)>);

impl ParamsCache {
    pub fn get(&mut self, path: &Path) -> Result<(Arc<ParamsFile>, Arc<PreparedVerifyingKey>)> {
        if let Some((s, p)) = self.0.get(path) {
            return Ok((s.clone(), p.clone()));
        }
        let srs = Arc::new(ParamsFile::open(path)?);
        let pvk = Arc::new(PreparedVerifyingKey::new(&srs.vk));
        self.0.insert(path.to_path_buf(), (srs.clone(), pvk.clone()));
        Ok((srs, pvk))
    }
}

/// What to prove: proof `i` proves `inputs[proofs[i]]`.
pub struct Plan<'a> {
    pub inputs: &'a [Input],
    pub proofs: &'a [usize],
    /// Reproducible (r, s): proof `i` uses seed `seed + i` (so one proof is exactly `prove --seed`).
    pub seed: Option<u64>,
    pub concurrency: usize,
    /// None: 90% of MemAvailable.
    pub mem_budget: Option<u64>,
}

impl Plan<'_> {
    /// The memory plan for these proofs on this backend (an error when the budget is too small).
    pub fn memory(&self, backend: &dyn Backend) -> Result<MemoryPlan> {
        if self.proofs.is_empty() {
            bail!("nothing to prove: at least one proof is needed");
        }
        let widest = self.inputs.iter().max_by_key(|i| i.domain()).ok_or_else(|| anyhow!("no inputs"))?;
        let domain = widest.domain();
        let mut seen = std::collections::HashSet::new();
        let params_bytes =
            self.inputs.iter().filter(|i| seen.insert(i.srs.path.clone())).map(|i| i.srs.len() as u64).sum();
        let jobs = self.proofs.iter().map(|&i| self.inputs[i].circuits.num_partitions()).sum();
        MemoryPlan::new(
            self.mem_budget,
            &Demand {
                domain,
                circuit: widest.label.circuit.name(),
                params_bytes,
                devices: backend.devices().len(),
                device_bytes: backend.working_bytes(domain),
                concurrency: self.concurrency,
                jobs,
            },
        )
    }
}

/// One partition as proved.
#[derive(Clone, Debug)]
pub struct PartitionResult {
    pub proof: usize,
    pub partition: usize,
    pub constraints: usize,
    /// Stage times inside the device phase.
    pub prove: ProveTimings,
    /// When each pipeline stage began and ended.
    pub record: Record,
}

/// One proof, every partition verified.
#[derive(Clone, Debug)]
pub struct ProofResult {
    pub index: usize,
    pub input: usize,
    pub bytes: Vec<u8>,
    /// From the start of its first partition's synthesis…
    pub start: Duration,
    /// …to the end of its last partition's verification.
    pub end: Duration,
}

impl ProofResult {
    pub fn wall(&self) -> Duration {
        self.end.saturating_sub(self.start)
    }
}

/// Everything a run did.
pub struct RunReport {
    pub memory: MemoryPlan,
    pub devices: Vec<String>,
    /// In job order: proof 0's partitions, then proof 1's, …
    pub partitions: Vec<PartitionResult>,
    pub proofs: Vec<ProofResult>,
    pub wall: Duration,
}

/// Callbacks as work completes (progress bars, writing proofs as soon as they are made).
pub trait Events: Sync {
    fn partition_done(&self, _proof: usize, _partition: usize) {}
    /// A whole proof, every partition verified. An error stops the run.
    fn proof_done(&self, _proof: usize, _bytes: &[u8]) -> Result<()> {
        Ok(())
    }
}

/// No callbacks.
pub struct NoEvents;
impl Events for NoEvents {}

struct Job {
    proof: usize,
    input: usize,
    partition: usize,
}

struct ProofState {
    parts: Vec<Option<[u8; PROOF_BYTES]>>,
    remaining: usize,
}

struct ProofStages<'a> {
    plan: &'a Plan<'a>,
    backend: &'a dyn Backend,
    events: &'a dyn Events,
    state: Mutex<Vec<ProofState>>,
    done: Mutex<Vec<Option<(usize, ProveTimings)>>>,
}

impl Stages for ProofStages<'_> {
    type Job = Job;
    type Synth = Assignment;
    type Proved = (Proved, usize);

    fn synthesize(&self, job: &Job) -> Result<Assignment> {
        let input = &self.plan.inputs[job.input];
        input
            .circuits
            .synthesize(job.partition)
            .with_context(|| format!("proof {} partition {} ({})", job.proof, job.partition, input.name))
    }

    fn device(&self, device: usize, job: &Job, asg: Assignment) -> Result<(Proved, usize)> {
        let input = &self.plan.inputs[job.input];
        let constraints = asg.num_constraints();
        let seed = self.plan.seed.map(|s| s.wrapping_add(job.proof as u64));
        let (r, s) = randomness(seed, job.partition);
        let proved = self
            .backend
            .prove(device, &input.srs, asg, r, s)
            .with_context(|| format!("proof {} partition {} ({})", job.proof, job.partition, input.name))?;
        Ok((proved, constraints))
    }

    fn finish(&self, job: &Job, (proved, constraints): (Proved, usize), rec: &Record) -> Result<()> {
        // The device lock is free by now: the assignment's memory goes back here, off it.
        let Proved { proof: p, timings, spent } = proved;
        drop(spent);
        let input = &self.plan.inputs[job.input];
        let inputs = input.circuits.public_inputs(job.partition)?;
        if !input.pvk.verify(&p, &inputs)? {
            bail!(
                "partition {}: the proof made with {} failed self-verification; no proof written. The \
                 parameter file does not match the circuit (wrong or corrupt parameters?)",
                job.partition,
                input.srs.path.display()
            );
        }
        self.done.lock().unwrap()[rec.job] = Some((constraints, timings));
        self.events.partition_done(job.proof, job.partition);
        let complete = {
            let mut st = self.state.lock().unwrap();
            let s = &mut st[job.proof];
            s.parts[job.partition] = Some(p.to_bytes());
            s.remaining -= 1;
            (s.remaining == 0).then(|| s.parts.iter().flat_map(|b| b.unwrap()).collect::<Vec<u8>>())
        };
        if let Some(bytes) = complete {
            self.events.proof_done(job.proof, &bytes)?;
        }
        Ok(())
    }
}

/// Proves every proof of `plan` through the pipeline; every partition is verified.
pub fn prove(plan: &Plan, backend: &dyn Backend, events: &dyn Events) -> Result<RunReport> {
    let memory = plan.memory(backend)?;
    let mut jobs = Vec::new();
    let mut state = Vec::new();
    for (proof, &input) in plan.proofs.iter().enumerate() {
        let n = plan.inputs[input].circuits.num_partitions();
        for partition in 0..n {
            jobs.push(Job { proof, input, partition });
        }
        state.push(ProofState { parts: vec![None; n], remaining: n });
    }
    let stages = ProofStages {
        plan,
        backend,
        events,
        state: Mutex::new(state),
        done: Mutex::new((0..jobs.len()).map(|_| None).collect()),
    };
    let run = super::run(&stages, &jobs, memory.limits())?;
    let done = stages.done.into_inner().unwrap();
    let state = stages.state.into_inner().unwrap();

    let mut partitions = Vec::with_capacity(jobs.len());
    for ((job, rec), d) in jobs.iter().zip(run.records).zip(done) {
        let (constraints, prove) =
            d.ok_or_else(|| anyhow!("partition {} of proof {} has no result", job.partition, job.proof))?;
        partitions.push(PartitionResult {
            proof: job.proof,
            partition: job.partition,
            constraints,
            prove,
            record: rec,
        });
    }
    let proofs = state
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let mine = partitions.iter().filter(|p| p.proof == i);
            let start = mine.clone().map(|p| p.record.synth_start).min().unwrap_or_default();
            let end = mine.map(|p| p.record.done).max().unwrap_or_default();
            let bytes = s.parts.into_iter().flat_map(|b| b.expect("every partition is proved")).collect();
            ProofResult { index: i, input: plan.proofs[i], bytes, start, end }
        })
        .collect();
    Ok(RunReport { memory, devices: backend.devices(), partitions, proofs, wall: run.wall })
}
