//! `filsnark bench porep|window-post|winning-post|snap`: several proofs through the pipeline at
//! once, and where the time went.
//!
//! [`run`] proves `-j` proofs (cycling through the given inputs, all of one kind) with `-c`
//! syntheses at once
//! within the memory budget, verifies every partition of every proof (the pipeline does), and
//! returns a [`report::BenchReport`]: per proof wall time, per partition host wait, synthesis,
//! queue wait, device and verify times, throughput, device busy fraction and peak RSS. The
//! report serializes to the JSON documented in `docs/bench-json.md` (schema
//! [`report::SCHEMA`], version [`report::SCHEMA_VERSION`]), prints as tables
//! ([`report::BenchReport::print`]) and draws as an SVG timeline ([`svg::timeline`]).
//! [`cpu`] is `bench cpu`: the CPU kernels on both arithmetic paths. [`kernels`] and [`stages`]
//! are the GPU benchmarks: kernel throughput (`bench kernels`) and the prover's stages alone
//! (`bench kernels`, `bench ntt`, `bench msm`, `bench setup-points`).
pub mod cpu;
pub mod kernels;
pub mod report;
pub mod stages;
pub mod svg;
pub mod witness;

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Result};

use crate::input::C1Input;
use crate::input::SectorIdentity;
use crate::pipeline::proofs::{self as pp, Events, Input, ParamsCache, WitnessMode};
use crate::prover::Backend;
use report::BenchReport;

pub struct BenchOptions {
    /// `-j`: proofs to make; proof `i` proves input `i mod inputs`.
    pub proofs: usize,
    /// `-c`: syntheses at once.
    pub concurrency: usize,
    /// Bytes; None: 90% of MemAvailable.
    pub mem_budget: Option<u64>,
    pub seed: Option<u64>,
    pub params_dir: Option<PathBuf>,
    /// Write each verified proof as `proof-NNN.bin` here (atomically).
    pub out_dir: Option<PathBuf>,
    /// One line on stderr per partition proved and per proof verified, where no progress is
    /// drawn (stderr is not a terminal), so a log of a run cut short shows how far it came.
    pub log: bool,
    /// How partitions get their witness.
    pub witness: WitnessMode,
}

/// What a bench does as work completes: the caller's progress hears of everything, verified
/// proofs are written to `out_dir`, and with `log` each event is also a line on stderr.
struct BenchEvents<'a> {
    progress: &'a dyn Events,
    log: bool,
    proofs_done: std::sync::atomic::AtomicUsize,
    proofs: usize,
    out_dir: Option<PathBuf>,
    started: std::time::Instant,
}

impl Events for BenchEvents<'_> {
    fn partition_done(&self, proof: usize, partition: usize) {
        self.progress.partition_done(proof, partition);
        if self.log {
            eprintln!("{:9.3} s  proof {proof} partition {partition} done", self.started.elapsed().as_secs_f64());
        }
    }
    fn proof_done(&self, proof: usize, bytes: &[u8]) -> Result<()> {
        if let Some(dir) = &self.out_dir {
            crate::output::write_atomic(&dir.join(proof_file_name(proof)), bytes)?;
        }
        let n = self.proofs_done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        if self.log {
            eprintln!("{:9.3} s  proof {proof} verified ({n}/{})", self.started.elapsed().as_secs_f64(), self.proofs);
        }
        self.progress.proof_done(proof, bytes)
    }
}

/// Name of proof `i`'s file under `--out-dir`.
pub fn proof_file_name(i: usize) -> String {
    format!("proof-{i:03}.bin")
}

/// Loads c1 files (each with the sector it was sealed for) for [`run`], telling `progress`
/// which one is being checked.
pub fn load_porep(
    inputs: &[(C1Input, SectorIdentity)],
    opts: &BenchOptions,
    progress: &dyn Events,
) -> Result<Vec<Input>> {
    let mut cache = ParamsCache::default();
    inputs
        .iter()
        .map(|(c1, sector)| {
            crate::job::loading_stage(progress, &c1.path);
            Input::load(c1, sector, opts.params_dir.as_deref(), &mut cache, opts.witness)
        })
        .collect()
}

/// Runs the benchmark over loaded inputs, all of one proof kind; `progress` hears of the
/// partitions to prove, each partition done and each proof verified.
pub fn run(loaded: &[Input], opts: &BenchOptions, backend: &dyn Backend, progress: &dyn Events) -> Result<BenchReport> {
    if loaded.is_empty() {
        bail!("bench needs at least one input");
    }
    if loaded.iter().any(|i| i.label.circuit.proof != loaded[0].label.circuit.proof) {
        bail!("bench inputs must all be of one proof kind");
    }
    if opts.proofs == 0 {
        bail!("-j/--proofs must be at least 1");
    }
    let started = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0);
    let proofs: Vec<usize> = (0..opts.proofs).map(|i| i % loaded.len()).collect();
    let plan = pp::Plan {
        inputs: loaded,
        proofs: &proofs,
        seed: opts.seed,
        concurrency: opts.concurrency,
        mem_budget: opts.mem_budget,
    };
    // Check the budget before making progress bars or directories.
    plan.memory(backend)?;
    if let Some(dir) = &opts.out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("{}: cannot create the output directory: {e}", dir.display()))?;
    }
    let total: usize = proofs.iter().map(|&i| loaded[i].circuits.num_partitions()).sum();
    progress.partitions(total);
    let events = BenchEvents {
        progress,
        log: opts.log,
        proofs_done: Default::default(),
        proofs: opts.proofs,
        out_dir: opts.out_dir.clone(),
        started: std::time::Instant::now(),
    };
    let res = pp::prove(&plan, backend, &events);
    let run = res?;
    Ok(BenchReport::new(started, loaded, &run, opts, backend))
}

/// Peak resident set size of this process (VmHWM in /proc/self/status), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line["VmHWM:".len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}
