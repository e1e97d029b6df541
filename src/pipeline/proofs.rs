//! Proofs through the pipeline, whatever their kind (PoRep, WindowPoSt, WinningPoSt,
//! SnapDeals): one job per partition of each proof, its witness made from the
//! [`ProofCircuits`] of its input (natively with compiled constraints where the circuit has a
//! native witness, else by the crates' gadgets), proved by a [`Backend`] with the input's
//! parameter file, verified on the CPU against the partition's public inputs, and assembled
//! into the proof once all its partitions are verified: the partition proofs in order, or for
//! NI-PoRep their SnarkPack aggregate, made by the worker that finished the last partition
//! while the others go on with the next proof's partitions. The kinds differ only in their
//! circuits and parameter files; the locks, the budget, the timings and the report are shared.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};

use super::budget::{self, Demand, MemoryPlan};
use super::{Record, Stages};
use crate::circuit::{circuits_from_c1, CircuitKind, PorepProof, ProofCircuits, ProofKind};
use crate::constraints::{evaluate, Compiled, ConstraintCache};
use crate::groth16::{randomness, PreparedVerifyingKey, Proof};
use crate::input::{is_non_interactive, C1Input, SectorIdentity};
use crate::prover::{Backend, ProveTimings, Proved, Witness};
use crate::snarkpack::seal::SectorAggregator;
use crate::srs::{self, ParamsFile};
use crate::synth::verify::Rejected;

/// How a partition's witness is made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WitnessMode {
    /// The native witness and the compiled constraints where the native witness knows the
    /// shape, else the gadgets.
    #[default]
    Native,
    /// Always the crates' gadgets (the reference).
    Gadgets,
}

impl std::str::FromStr for WitnessMode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "native" => Ok(Self::Native),
            "gadgets" => Ok(Self::Gadgets),
            _ => Err(format!("'{s}' is not a witness mode: use native or gadgets")),
        }
    }
}

/// Host time of one partition's witness.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostTimings {
    /// The native witness from the vanilla proofs, or the whole gadget synthesis.
    pub witness: Duration,
    /// A·z, B·z, C·z from the compiled constraints on the host (zero on the gadget path, which
    /// records them during synthesis, and when the backend evaluates them on the device).
    pub evaluation: Duration,
    /// Whether the native path made it.
    pub native: bool,
}

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
    /// The compiled constraints when the native witness proves this input, as compiled for
    /// the interactive shape of its sector size.
    pub compiled: Option<Arc<Compiled>>,
    /// The same with other challenge counts (NI-PoRep partitions have more), made on first use.
    resized: Mutex<Vec<Arc<Compiled>>>,
    /// NI-PoRep: what turns the partition proofs into the C2 output (their SnarkPack aggregate).
    pub ni: Option<Arc<SectorAggregator>>,
}

impl Input {
    /// An input from its circuits, proved by the gadgets: finds their parameter file by its
    /// official name (`cache` shares parameter files, mmaps and prepared keys, between inputs
    /// that use the same one).
    pub fn new(
        name: String,
        label: InputLabel,
        circuits: Box<dyn ProofCircuits>,
        params_dir: Option<&Path>,
        cache: &mut ParamsCache,
    ) -> Result<Self> {
        let path = srs::locate::find(params_dir, &circuits.params_stem(), "params")?;
        let (srs, pvk) = cache.get(&path)?;
        Ok(Input {
            name,
            label,
            circuits: Arc::from(circuits),
            srs,
            pvk,
            compiled: None,
            resized: Mutex::new(Vec::new()),
            ni: None,
        })
    }

    /// Loads the circuits of a c1.json and its parameters; with [`WitnessMode::Native`] also
    /// the compiled constraints of its shape where the native witness knows it.
    pub fn load(
        c1: &C1Input,
        sector: &SectorIdentity,
        params_dir: Option<&Path>,
        cache: &mut ParamsCache,
        witness: WitnessMode,
    ) -> Result<Self> {
        check_c1(c1, sector)?;
        let circuits = circuits_from_c1(c1, sector).map_err(|e| anyhow!("{}: {e:#}", c1.path.display()))?;
        let native = circuits.has_native_witness();
        let partitions = circuits.num_partitions();
        let label = InputLabel {
            circuit: CircuitKind::new(ProofKind::Porep, c1.kind),
            miner_id: Some(sector.miner_id),
            sector_num: Some(sector.sector_num),
            sectors: 1,
        };
        let name = c1.path.display().to_string();
        let input = Self::new(name, label, Box::new(PorepProof(circuits)), params_dir, cache)?;
        let compiled = match witness {
            WitnessMode::Native if native => Some(ConstraintCache::global().porep(c1.kind)?),
            _ => None,
        };
        let ni = if is_non_interactive(c1.output.registered_proof) {
            Some(Arc::new(SectorAggregator::ni_porep(params_dir, c1.output.comm_r, partitions)?))
        } else {
            None
        };
        Ok(Input { compiled, ni, ..input })
    }

    /// The evaluation domain of its circuit (from the parameter file).
    pub fn domain(&self) -> usize {
        budget::params_domain(&self.srs)
    }

    /// The compiled constraints for a partition whose native witness has `aux` aux variables:
    /// the compiled shape with as many challenges as the witness holds. None when no number of
    /// challenges fits (then the gadgets prove the partition).
    fn compiled_for(&self, base: &Arc<Compiled>, aux: usize) -> Result<Option<Arc<Compiled>>> {
        let Some(challenges) = base.challenges_for_aux(aux) else { return Ok(None) };
        if challenges == base.challenges {
            return Ok(Some(base.clone()));
        }
        let mut resized = self.resized.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = resized.iter().find(|c| c.challenges == challenges) {
            return Ok(Some(c.clone()));
        }
        let c = Arc::new(base.with_challenges(challenges)?);
        resized.push(c.clone());
        Ok(Some(c))
    }

    /// Partition `k`'s witness, natively when the input has compiled constraints: packed when
    /// the backend evaluates such a witness itself ([`Backend::evaluates`]), else evaluated here
    /// into an assignment.
    fn witness(&self, k: usize, backend: &dyn Backend) -> Result<(Witness, HostTimings)> {
        let clock = Instant::now();
        if let Some(base) = &self.compiled {
            if let Some(w) = self.circuits.native_witness(k) {
                let w = w?;
                let witness = clock.elapsed();
                if let Some(compiled) = self.compiled_for(base, w.aux.len())? {
                    let host = HostTimings { witness, evaluation: Duration::ZERO, native: true };
                    if backend.evaluates(&w) {
                        return Ok((Witness::Packed { witness: w, compiled }, host));
                    }
                    let clock = Instant::now();
                    let asg = evaluate(&compiled, &w)?;
                    return Ok((Witness::Assignment(asg), HostTimings { evaluation: clock.elapsed(), ..host }));
                }
            }
        }
        let asg = self.circuits.synthesize(k)?;
        Ok((
            Witness::Assignment(asg),
            HostTimings { witness: clock.elapsed(), evaluation: Duration::ZERO, native: false },
        ))
    }
}

/// Checks a c1.json in full before any work on it: the shapes of its vanilla proofs against the
/// proof type, then what `c1 verify` checks (the replica id is the sector's, every opening
/// hashes to its commitment, every label to its parents, comm_r = H(comm_c, comm_r_last)). A
/// bad c1 is refused here, in milliseconds, naming the partition, challenge and part, rather
/// than as a proof that fails its self-verification after the whole run.
pub fn check_c1(c1: &C1Input, sector: &SectorIdentity) -> Result<()> {
    let p = c1.path.display();
    match crate::synth::verify::check_c1(c1, sector) {
        Ok(()) => Ok(()),
        Err(e) if e.downcast_ref::<Rejected>().is_some() => Err(anyhow!(
            "{p}: the vanilla proofs do not hold for miner t0{} sector {}: {e:#}. Nothing was proved; \
             `filsnark c1 verify --c1 {p}` checks a c1 alone",
            sector.miner_id,
            sector.sector_num
        )),
        Err(e) => Err(e.context(format!("{p}: cannot check the vanilla proofs"))),
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
    /// How the witness was made and its host time.
    pub host: HostTimings,
    /// When each pipeline stage began and ended.
    pub record: Record,
}

/// One proof, every partition verified.
#[derive(Clone, Debug)]
pub struct ProofResult {
    pub index: usize,
    pub input: usize,
    /// The C2 output: the partition proofs concatenated, or for NI-PoRep their aggregate.
    pub bytes: Vec<u8>,
    /// The partition proofs concatenated (what an aggregate of several NI-PoRep sectors takes).
    pub circuit_proofs: Vec<u8>,
    /// NI-PoRep: the time spent aggregating the partition proofs and verifying the aggregate.
    pub aggregate: Duration,
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
    /// A stage of the work before the partitions (for progress): "loading parameters".
    fn stage(&self, _what: &str) {}
    /// The partitions to prove, before the first starts.
    fn partitions(&self, _total: usize) {}
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
    parts: Vec<Option<Proof>>,
    remaining: usize,
    /// The C2 output and the aggregation time, once every partition is verified.
    output: Option<(Vec<u8>, Duration)>,
}

struct ProofStages<'a> {
    plan: &'a Plan<'a>,
    backend: &'a dyn Backend,
    events: &'a dyn Events,
    state: Mutex<Vec<ProofState>>,
    done: Mutex<Vec<Option<(usize, ProveTimings, HostTimings)>>>,
}

impl Stages for ProofStages<'_> {
    type Job = Job;
    type Synth = (Witness, HostTimings);
    type Proved = (Proved, usize, HostTimings);

    fn synthesize(&self, job: &Job) -> Result<(Witness, HostTimings)> {
        let input = &self.plan.inputs[job.input];
        input
            .witness(job.partition, self.backend)
            .with_context(|| format!("proof {} partition {} ({})", job.proof, job.partition, input.name))
    }

    fn device(
        &self,
        device: usize,
        job: &Job,
        (witness, host): (Witness, HostTimings),
    ) -> Result<(Proved, usize, HostTimings)> {
        let input = &self.plan.inputs[job.input];
        let constraints = witness.num_constraints();
        let seed = self.plan.seed.map(|s| s.wrapping_add(job.proof as u64));
        let (r, s) = randomness(seed, job.partition);
        let proved = self
            .backend
            .prove(device, &input.srs, witness, r, s)
            .with_context(|| format!("proof {} partition {} ({})", job.proof, job.partition, input.name))?;
        Ok((proved, constraints, host))
    }

    fn name(&self, job: &Job) -> String {
        format!("proof {} partition {} ({})", job.proof, job.partition, self.plan.inputs[job.input].name)
    }

    fn finish(&self, job: &Job, (proved, constraints, host): (Proved, usize, HostTimings), rec: &Record) -> Result<()> {
        // The device lock is free by now: the assignment's memory goes back here, off it, kept
        // for the next partition's.
        let Proved { proof: p, timings, spent } = proved;
        if let Some(asg) = spent {
            asg.recycle();
        }
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
        self.done.lock().unwrap()[rec.job] = Some((constraints, timings, host));
        self.events.partition_done(job.proof, job.partition);
        let complete = {
            let mut st = self.state.lock().unwrap();
            let s = &mut st[job.proof];
            s.parts[job.partition] = Some(p);
            s.remaining -= 1;
            (s.remaining == 0).then(|| s.parts.iter().map(|p| p.unwrap()).collect::<Vec<Proof>>())
        };
        if let Some(parts) = complete {
            let (bytes, took) = c2_output(input, parts)?;
            self.state.lock().unwrap()[job.proof].output = Some((bytes.clone(), took));
            self.events.proof_done(job.proof, &bytes)?;
        }
        Ok(())
    }
}

/// A sector's C2 output from its verified partition proofs: their concatenation, or for
/// NI-PoRep their SnarkPack aggregate (verified), with the time the aggregation took.
fn c2_output(input: &Input, parts: Vec<Proof>) -> Result<(Vec<u8>, Duration)> {
    let Some(agg) = &input.ni else {
        return Ok((parts.iter().flat_map(|p| p.to_bytes()).collect(), Duration::ZERO));
    };
    let t = std::time::Instant::now();
    let inputs = (0..parts.len()).map(|k| input.circuits.public_inputs(k)).collect::<Result<Vec<_>>>()?;
    let bytes = agg.seal(parts, inputs, &input.srs.vk).with_context(|| input.name.clone())?;
    Ok((bytes, t.elapsed()))
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
        state.push(ProofState { parts: vec![None; n], remaining: n, output: None });
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
        let (constraints, prove, host) =
            d.ok_or_else(|| anyhow!("partition {} of proof {} has no result", job.partition, job.proof))?;
        partitions.push(PartitionResult {
            proof: job.proof,
            partition: job.partition,
            constraints,
            prove,
            host,
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
            let circuit_proofs =
                s.parts.iter().flat_map(|p| p.expect("every partition is proved").to_bytes()).collect();
            let (bytes, aggregate) = s.output.expect("every proof is complete");
            ProofResult { index: i, input: plan.proofs[i], bytes, circuit_proofs, aggregate, start, end }
        })
        .collect();
    Ok(RunReport { memory, devices: backend.devices(), partitions, proofs, wall: run.wall })
}
