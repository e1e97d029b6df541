//! SnapDeals (empty sector update) from end to end: a snap.json in, a verified proof out
//! (`prove`: the bytes of `generate_empty_sector_update_proof_with_vanilla`), and the check of
//! a proof against the commitments (`verify`, as `verify_empty_sector_update_proof` judges it).
use std::path::Path;

use anyhow::{anyhow, Result};

use crate::circuit::snap::{circuits_from_snap, snap_statement};
use crate::circuit::{CircuitKind, ProofCircuits, ProofKind};
use crate::constraints::ConstraintCache;
use crate::input::vanilla::check_snap_elements;
use crate::input::{SnapInput, SnapPublic};
use crate::job::{load_and_prove, verify_proof, JobOptions, ProveReport};
use crate::pipeline::proofs::{Events, Input, InputLabel, NoEvents, ParamsCache, WitnessMode};
use crate::prover::Backend;

/// The check of a snap.json that needs no parameters (every vanilla proof decoded and
/// checked against the public data, first its nodes and Merkle path levels), and its
/// circuits; errors name the file.
pub fn check(input: &SnapInput) -> Result<Box<dyn ProofCircuits>> {
    check_snap_elements(input)?;
    circuits_from_snap(input).map_err(|e| anyhow!("{}: {e:#}", input.path.display()))
}

/// A snap.json ready for the pipeline: its vanilla proofs checked, its circuits and parameters.
/// With [`WitnessMode::Native`] the partitions get the native witness and the compiled
/// constraints of the circuit (compiled once per machine and cached).
pub fn load(
    input: &SnapInput,
    params_dir: Option<&Path>,
    cache: &mut ParamsCache,
    witness: WitnessMode,
) -> Result<Input> {
    let circuits = check(input)?;
    let label = InputLabel {
        circuit: CircuitKind::new(ProofKind::Snap, input.size),
        miner_id: None,
        sector_num: None,
        sectors: 1,
    };
    let mut loaded = Input::new(input.path.display().to_string(), label, circuits, params_dir, cache)?;
    if witness == WitnessMode::Native {
        loaded.compiled = Some(ConstraintCache::global().snap(input.size)?);
    }
    Ok(loaded)
}

/// Proves a snap.json on `backend`; every partition proof is verified.
pub fn prove_with(input: &SnapInput, opts: &JobOptions, backend: &dyn Backend) -> Result<ProveReport> {
    prove_with_events(input, opts, backend, &NoEvents)
}

/// [`prove_with`], telling `events` the stages and each partition done (progress).
pub fn prove_with_events(
    input: &SnapInput,
    opts: &JobOptions,
    backend: &dyn Backend,
    events: &dyn Events,
) -> Result<ProveReport> {
    let dir = opts.params_dir.as_deref();
    load_and_prove(&input.path, |cache| load(input, dir, cache, opts.witness), opts, backend, events)
}

/// Verifies a SnapDeals proof for the commitments of a snap.json. Ok(Err(reason)) when the
/// proof is well-formed but invalid.
pub fn verify(
    public: &SnapPublic,
    params_dir: Option<&Path>,
    proof_bytes: &[u8],
) -> Result<std::result::Result<(), String>> {
    let st = snap_statement(public)?;
    verify_proof(st.as_ref(), params_dir, proof_bytes, "for these CommROld, CommRNew and CommDNew")
}
