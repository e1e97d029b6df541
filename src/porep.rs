//! PoRep C2 from end to end: a c1.json in, a verified seal proof out (`prove`), and the check
//! of a seal proof against its sector (`verify`). Every partition proof is verified before the
//! file is written, and the write is atomic (temp file + rename): a failed run leaves no proof.
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;

use crate::circuit::{statement, SealPublic};
use crate::cpu::backend::CpuBackend;
use crate::groth16::{PreparedVerifyingKey, Proof};
use crate::input::C1Input;
use crate::input::SectorIdentity;
use crate::pipeline::proofs::{Input, ParamsCache};
use crate::prover::Backend;

pub use crate::job::{default_concurrency, load_vk, PartitionReport, ProveReport};

pub struct ProveOptions {
    pub sector: SectorIdentity,
    pub params_dir: Option<PathBuf>,
    pub seed: Option<u64>,
    /// Syntheses at once (`-c`); None: [`default_concurrency`].
    pub concurrency: Option<usize>,
    /// Host memory budget in bytes; None: 90% of MemAvailable.
    pub mem_budget: Option<u64>,
}

/// Proves every partition of a c1.json through the pipeline on the CPU backend and verifies
/// each partition proof.
pub fn prove(c1: &C1Input, opts: &ProveOptions) -> Result<ProveReport> {
    prove_with(c1, opts, &CpuBackend::new())
}

/// [`prove`] on a given backend.
pub fn prove_with(c1: &C1Input, opts: &ProveOptions, backend: &dyn Backend) -> Result<ProveReport> {
    let start = Instant::now();
    let input = Input::load(c1, &opts.sector, opts.params_dir.as_deref(), &mut ParamsCache::default())?;
    let job = crate::job::JobOptions {
        params_dir: opts.params_dir.clone(),
        seed: opts.seed,
        concurrency: opts.concurrency,
        mem_budget: opts.mem_budget,
    };
    crate::job::prove_input(input, &job, backend, start)
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
