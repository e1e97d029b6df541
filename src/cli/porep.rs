//! `prove porep` and `verify porep`, and the subcommand lists of `prove` and `verify` (the
//! other kinds are in [`super::jobs`]).
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use filsnark::circuit::ProofKind;
use filsnark::input::SectorIdentity;
use filsnark::input::{parse_miner_id, C1Input};
use filsnark::output::{check_outputs, Output};
use filsnark::pipeline::budget::parse_size;
use filsnark::porep::{self, ProveOptions};
use filsnark::prover::DeviceChoice;

use super::devices::DeviceArgs;
use super::jobs::{self, JobProveArgs, JobVerifyArgs};
use super::witness::WitnessArgs;
use super::Invalid;

/// The 2KiB sample sealed for miner t01000, sector 1, that ships inside the binary.
const SAMPLE_C1: &[u8] = include_bytes!("../../params/fixtures/c1-2kib-t01000-s1.json");
const SAMPLE_NAME: &str = "<built-in 2KiB sample, miner t01000 sector 1>";

#[derive(Subcommand)]
pub enum ProveCmd {
    /// PoRep commit phase 2: c1.json → seal proof (192 bytes per partition; for NI-PoRep their SnarkPack aggregate).
    #[command(
        after_help = "Examples:\n  filsnark prove porep --c1 /data/c1.json -o /data/proof.bin --miner-id 1000\n  filsnark prove porep --c1 /data/c1.json --device cpu --seed 7    # same bytes as --device gpu --seed 7\n\nWithout --c1 it proves the 2KiB sample built into filsnark."
    )]
    Porep(ProveArgs),
    /// WindowPoSt: post.json → the proof generate_window_post_with_vanilla returns (192 bytes per partition).
    #[command(
        after_help = "Examples:\n  filsnark prove window-post --in post.json -o post.proof\n  filsnark prove window-post --in part1.json -o part1.proof    # \"Partition\": 1 in the file: one partition only\n\nThe input format is in docs/formats.md."
    )]
    WindowPost(JobProveArgs),
    /// WinningPoSt: post.json (one sector) → the proof generate_winning_post_with_vanilla returns (192 bytes).
    #[command(after_help = "Example:\n  filsnark prove winning-post --in winning.json -o winning.proof")]
    WinningPost(JobProveArgs),
    /// SnapDeals: snap.json → the empty sector update proof (192 bytes per partition).
    #[command(after_help = "Example:\n  filsnark prove snap --in snap.json -o snap.proof")]
    Snap(JobProveArgs),
}

#[derive(Subcommand)]
pub enum VerifyCmd {
    /// Verify a PoRep seal proof against the sector of a c1.json.
    #[command(
        after_help = "Example:\n  filsnark verify porep --c1 /data/c1.json --proof /data/proof.bin --miner-id 1000"
    )]
    Porep(VerifyArgs),
    /// Verify a WindowPoSt proof against the sectors and randomness of a post.json (as verify_window_post).
    #[command(after_help = "Example:\n  filsnark verify window-post --in post.json --proof post.proof")]
    WindowPost(JobVerifyArgs),
    /// Verify a WinningPoSt proof against the sector and randomness of a post.json (as verify_winning_post).
    #[command(after_help = "Example:\n  filsnark verify winning-post --in winning.json --proof winning.proof")]
    WinningPost(JobVerifyArgs),
    /// Verify a SnapDeals proof against the commitments of a snap.json (as verify_empty_sector_update_proof).
    #[command(after_help = "Example:\n  filsnark verify snap --in snap.json --proof snap.proof")]
    Snap(JobVerifyArgs),
    /// Verify a SnarkPack aggregate against the sectors of an agg.json.
    #[command(after_help = "Example:\n  filsnark verify aggregate --in agg.json --proof agg.bin")]
    Aggregate(super::aggregate::VerifyAggregateArgs),
}

/// Who sealed the sector and where the parameters are: shared by prove, verify and bench.
#[derive(Args)]
pub struct IdentityArgs {
    /// Miner actor id the sector was sealed for: 1000, t01000 or f01000.
    #[arg(long, default_value = "1000", value_parser = parse_miner_id)]
    pub miner_id: u64,
    /// Sector number [default: SectorNum of the c1 wrapper].
    #[arg(long)]
    pub sector_num: Option<u64>,
    /// Directory of the .params/.vk files [default: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters].
    #[arg(long)]
    pub params_dir: Option<PathBuf>,
}

impl IdentityArgs {
    /// The sector identity for a c1: the flags, else the wrapper's sector number.
    pub fn sector(&self, c1: &C1Input) -> Result<SectorIdentity> {
        Ok(SectorIdentity { miner_id: self.miner_id, sector_num: c1.sector_num(self.sector_num)? })
    }
}

#[derive(Args)]
pub struct SectorArgs {
    /// c1.json: the lotus-bench/Curio wrapper or a raw SealCommitPhase1Output [default: the built-in 2KiB sample]
    #[arg(long)]
    c1: Option<PathBuf>,
    #[command(flatten)]
    id: IdentityArgs,
}

#[derive(Args)]
pub struct ProveArgs {
    #[command(flatten)]
    sector: SectorArgs,
    /// Where to write the proof [default: <c1 name>.proof in the current directory].
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Make r and s reproducible from this seed (for tests and CPU/GPU comparisons).
    #[arg(long)]
    seed: Option<u64>,
    /// Also write the partition proofs, concatenated, here (filecoin-proofs'
    /// seal_commit_phase2_circuit_proofs: what an aggregate of several NI-PoRep sectors takes).
    #[arg(long)]
    circuit_proofs: Option<PathBuf>,
    /// Syntheses at once (host-lock permits, also capped by the memory budget) [default: half the cores]
    #[arg(short = 'c', long)]
    concurrency: Option<usize>,
    /// Host memory budget, e.g. 64GiB, 512MiB or 64GB (KiB/MiB/GiB/TiB and K/M/G/T are powers of 1024,
    /// KB/MB/GB/TB powers of 1000) [default: 90% of MemAvailable]
    #[arg(long, value_parser = parse_size)]
    mem_budget: Option<u64>,
    #[command(flatten)]
    devices: DeviceArgs,
    #[command(flatten)]
    witness: WitnessArgs,
}

#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    sector: SectorArgs,
    /// The seal proof file.
    #[arg(long)]
    proof: PathBuf,
}

/// Loads a c1.json, or the built-in sample when `path` is None.
pub(super) fn load_c1(path: Option<&Path>) -> Result<C1Input> {
    match path {
        Some(p) => C1Input::load(p),
        None => C1Input::parse(SAMPLE_C1, Path::new(SAMPLE_NAME)),
    }
}

impl SectorArgs {
    /// The parameter directory to use ([`params_dir_for`]).
    fn params_dir(&self, c1: &C1Input, make: bool) -> Result<Option<PathBuf>> {
        params_dir_for(self.c1.is_none(), &self.id, c1, make)
    }

    fn load(&self) -> Result<(C1Input, SectorIdentity)> {
        let c1 = load_c1(self.c1.as_deref())?;
        let sector = self.id.sector(&c1)?;
        Ok((c1, sector))
    }
}

/// The parameter directory for `c1` (the built-in sample when `sample`): --params-dir, else the
/// usual places; for the sample without --params-dir and without 2KiB parameters in the usual
/// places, insecure test parameters in the user's cache, made there once when `make` is set.
pub(super) fn params_dir_for(sample: bool, id: &IdentityArgs, c1: &C1Input, make: bool) -> Result<Option<PathBuf>> {
    if !sample || id.params_dir.is_some() {
        return Ok(id.params_dir.clone());
    }
    let stem = filsnark::setup::porep_stem(c1.kind)?;
    if filsnark::srs::locate::find(None, &stem, "params").is_ok() {
        return Ok(None);
    }
    let Some(cache) = filsnark::setup::test_params_cache() else {
        return Ok(None);
    };
    if !cache.join(format!("{stem}.params")).is_file() {
        if !make {
            return Ok(None);
        }
        eprintln!(
            "no 2KiB parameters found; making INSECURE test parameters for the built-in sample in {} (once, about a minute)",
            cache.display()
        );
        filsnark::setup::setup_porep(&filsnark::setup::SetupOptions {
            kind: c1.kind,
            out_dir: cache.clone(),
            seed: 1,
            force: false,
            progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
            log: false,
            device: DeviceChoice::Cpu,
        })?;
    }
    eprintln!("using insecure test parameters in {} for the built-in sample", cache.display());
    Ok(Some(cache))
}

fn default_out(c1: Option<&Path>) -> PathBuf {
    let stem = c1.and_then(|p| p.file_stem()).map(|s| s.to_string_lossy().into_owned());
    PathBuf::from(format!("{}.proof", stem.unwrap_or_else(|| "sample-2kib".into())))
}

pub fn prove(cmd: ProveCmd) -> Result<()> {
    let args = match cmd {
        ProveCmd::Porep(args) => args,
        ProveCmd::WindowPost(a) => return jobs::prove(ProofKind::WindowPost, a),
        ProveCmd::WinningPost(a) => return jobs::prove(ProofKind::WinningPost, a),
        ProveCmd::Snap(a) => return jobs::prove(ProofKind::Snap, a),
    };
    let out = args.out.clone().unwrap_or_else(|| default_out(args.sector.c1.as_deref()));
    let mut outputs = vec![Output::file("-o", &out)];
    if let Some(p) = &args.circuit_proofs {
        outputs.push(Output::file("--circuit-proofs", p));
    }
    let inputs: Vec<(&str, &Path)> = args.sector.c1.iter().map(|p| ("--c1", p.as_path())).collect();
    check_outputs(&outputs, &inputs)?;
    let (c1, sector) = args.sector.load()?;
    let backend = args.devices.backend()?;
    filsnark::output::remove_temp_files_on_interrupt();
    let opts = ProveOptions {
        sector: sector.clone(),
        params_dir: args.sector.params_dir(&c1, true)?,
        seed: args.seed,
        concurrency: args.concurrency,
        mem_budget: args.mem_budget,
        witness: args.witness.witness,
    };
    let report =
        super::progress::with_progress(|events| porep::prove_with_events(&c1, &opts, backend.as_ref(), events))?;
    filsnark::output::write_atomic(&out, &report.proof)?;
    if let Some(path) = &args.circuit_proofs {
        filsnark::output::write_atomic(path, &report.circuit_proofs)?;
        println!("circuit proofs: {} ({} bytes)", path.display(), report.circuit_proofs.len());
    }
    if report.proof != report.circuit_proofs {
        println!(
            "NI-PoRep: SnarkPack V2 aggregate of the partition proofs, made and verified in {:.3} s",
            report.aggregate.as_secs_f64()
        );
    }
    println!(
        "proof: {} ({} bytes, {} partition(s), {} sector, miner t0{} sector {}), verified",
        out.display(),
        report.proof.len(),
        report.partitions.len(),
        c1.kind.name(),
        sector.miner_id,
        sector.sector_num
    );
    jobs::print_report(&report, backend.as_ref());
    Ok(())
}

pub fn verify(cmd: VerifyCmd) -> Result<()> {
    let args = match cmd {
        VerifyCmd::Porep(args) => args,
        VerifyCmd::WindowPost(a) => return jobs::verify(ProofKind::WindowPost, a),
        VerifyCmd::WinningPost(a) => return jobs::verify(ProofKind::WinningPost, a),
        VerifyCmd::Snap(a) => return jobs::verify(ProofKind::Snap, a),
        VerifyCmd::Aggregate(args) => return super::aggregate::verify(args),
    };
    let (c1, sector) = args.sector.load()?;
    let bytes =
        std::fs::read(&args.proof).with_context(|| format!("{}: cannot read the proof", args.proof.display()))?;
    let params_dir = args.sector.params_dir(&c1, false)?;
    match porep::verify(&c1, &sector, params_dir.as_deref(), &bytes)? {
        Ok(()) => {
            println!(
                "valid: {} for miner t0{} sector {} ({})",
                args.proof.display(),
                sector.miner_id,
                sector.sector_num,
                c1.kind.name()
            );
            Ok(())
        }
        Err(why) => Err(Invalid(format!("{}: {why}", args.proof.display())).into()),
    }
}
