//! WindowPoSt and WinningPoSt from end to end: a post.json in, a verified proof out (`prove`:
//! the bytes `generate_window_post_with_vanilla`, `generate_single_window_post_with_vanilla` or
//! `generate_winning_post_with_vanilla` return), and the check of a proof against the sectors
//! and randomness (`verify`, as `verify_window_post` / `verify_winning_post` judge it).
use std::path::Path;

use anyhow::{anyhow, Result};

use crate::circuit::post::{circuits_from_post, post_statement};
use crate::circuit::post_windows::post_stem;
use crate::circuit::{CircuitKind, ProofCircuits, ProofKind};
use crate::constraints::ConstraintCache;
use crate::input::post::command_name;
use crate::input::vanilla::check_post_elements;
use crate::input::{PostInput, PostPublic};
use crate::job::{load_and_prove, verify_proof, JobOptions, ProveReport};
use crate::pipeline::proofs::{Events, Input, InputLabel, NoEvents, ParamsCache, WitnessMode};
use crate::prover::Backend;
use crate::srs::{locate, ParamsFile, SectionKind, Shape};
use filecoin_proofs_api::PoStType;

/// The proof kind of a PoSt type.
pub fn proof_kind(t: PoStType) -> ProofKind {
    match t {
        PoStType::Window => ProofKind::WindowPost,
        PoStType::Winning => ProofKind::WinningPost,
    }
}

/// The check of a post.json that needs no parameters (every vanilla proof decoded and
/// checked against the public data, first its nodes and Merkle path levels), and its
/// circuits; errors name the file.
pub fn check(input: &PostInput) -> Result<Box<dyn ProofCircuits>> {
    check_post_elements(input)?;
    circuits_from_post(input).map_err(|e| anyhow!("{}: {e:#}", input.path.display()))
}

/// A post.json ready for the pipeline: its vanilla proofs checked, its circuits and parameters.
/// The parameters are opened (the prepared verifying key, their sampled point check) beside
/// the checks; an input error still comes first.
/// With [`WitnessMode::Native`] the partitions get the native witness and the compiled
/// constraints of the circuit (compiled once per machine and cached).
pub fn load(
    input: &PostInput,
    params_dir: Option<&Path>,
    cache: &mut ParamsCache,
    witness: WitnessMode,
) -> Result<Input> {
    let open = || {
        let stem = post_stem(input.public.registered)?;
        let (srs, _) = locate::find(params_dir, &stem, "params").and_then(|path| cache.get(&path))?;
        sample_points_now(&srs);
        anyhow::Ok(())
    };
    let (circuits, opened) = rayon::join(|| check(input), open);
    let circuits = circuits?;
    opened?;
    let p = &input.public;
    let label = InputLabel {
        circuit: CircuitKind::new(proof_kind(p.typ()), input.size),
        miner_id: Some(p.miner_id),
        sector_num: None,
        sectors: p.sectors.len(),
    };
    let mut input = Input::new(input.path.display().to_string(), label, circuits, params_dir, cache)?;
    if witness == WitnessMode::Native {
        input.compiled = Some(ConstraintCache::global().post(p.registered)?);
    }
    Ok(input)
}

/// Runs the parameters' sampled point check now, beside the vanilla checks, rather than at the
/// start of the first partition's proof, where it held both cores for some 10 ms of a 2KiB
/// WindowPoSt. [`ParamsFile::check_shape`] makes it once per open file, after checking the
/// counts against a circuit's shape; asked here with a shape read off the file's own counts, it
/// checks the sample alone and keeps the outcome, good or bad, for the proof's own
/// `check_shape`, which reports it where it always did (after the counts it checks against the
/// circuit). A file whose counts fit no shape (B's two halves of different lengths) is left
/// for that call too.
fn sample_points_now(srs: &ParamsFile) {
    let count = |kind| srs.section(kind).count;
    let inputs = srs.vk.ic.len();
    let own = Shape {
        inputs,
        aux: count(SectionKind::L),
        domain: count(SectionKind::H) + 1,
        a_aux: count(SectionKind::A).saturating_sub(inputs),
        b_inputs: 0,
        b_aux: count(SectionKind::BG1),
    };
    let _ = srs.check_shape(&own);
}

/// Proves a post.json on `backend`; every partition proof is verified.
pub fn prove_with(input: &PostInput, opts: &JobOptions, backend: &dyn Backend) -> Result<ProveReport> {
    prove_with_events(input, opts, backend, &NoEvents)
}

/// [`prove_with`], telling `events` the stages and each partition done (progress).
pub fn prove_with_events(
    input: &PostInput,
    opts: &JobOptions,
    backend: &dyn Backend,
    events: &dyn Events,
) -> Result<ProveReport> {
    let dir = opts.params_dir.as_deref();
    load_and_prove(&input.path, |cache| load(input, dir, cache, opts.witness), opts, backend, events)
}

/// Verifies a PoSt proof (partition proofs concatenated) for the sectors and randomness of a
/// post.json. Ok(Err(reason)) when the proof is well-formed but invalid.
pub fn verify(
    public: &PostPublic,
    params_dir: Option<&Path>,
    proof_bytes: &[u8],
) -> Result<std::result::Result<(), String>> {
    let st = post_statement(public)?;
    let whose = format!(
        "as the {} of miner t0{} over {} sector(s) for this randomness",
        command_name(public.typ()),
        public.miner_id,
        public.sectors.len()
    );
    verify_proof(st.as_ref(), params_dir, proof_bytes, &whose)
}
