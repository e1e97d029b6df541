//! PoRep C2 from end to end: a c1.json in, a verified seal proof out (`prove`), and the check
//! of a seal proof against its sector (`verify`). Every partition proof is verified before the
//! file is written, and the write is atomic (temp file + rename): a failed run leaves no proof.
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;

use crate::circuit::{statement, SealPublic, Statement};
use crate::cpu::backend::CpuBackend;
use crate::groth16::{PreparedVerifyingKey, Proof};
use crate::input::{is_non_interactive, C1Input, SectorIdentity};
use crate::pipeline::proofs::{Events, Input, NoEvents, ParamsCache, WitnessMode};
use crate::prover::Backend;
use crate::snarkpack::{self, seal, SrsFile};
use crate::srs::VerifyingKey;

pub use crate::job::{default_concurrency, load_vk, PartitionReport, ProveReport};

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
    let job = crate::job::JobOptions {
        params_dir: opts.params_dir.clone(),
        seed: opts.seed,
        concurrency: opts.concurrency,
        mem_budget: opts.mem_budget,
        witness: opts.witness,
    };
    crate::job::prove_input(input, &job, backend, start, events)
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
