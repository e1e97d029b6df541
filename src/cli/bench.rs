//! `bench porep|window-post|winning-post|snap`: proofs through the pipeline, tables on stdout,
//! `--json` and `--timeline`; `bench kernels` and `bench cpu`.
use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use filsnark::bench::{self, BenchOptions};
use filsnark::circuit::ProofKind;
use filsnark::input::{PostInput, SnapInput};
use filsnark::job::default_concurrency;
use filsnark::output::write_atomic;
use filsnark::pipeline::budget::parse_size;
use filsnark::pipeline::proofs::{Input, ParamsCache, WitnessMode};

use super::jobs::post_type;
use super::porep::{load_c1, params_dir_for, DeviceArgs, IdentityArgs, WitnessArgs};

#[derive(Subcommand)]
pub enum BenchCmd {
    /// Prove PoRep C2 -j times through the two-lock pipeline and show where the time goes.
    #[command(
        after_help = "Examples:\n  filsnark bench porep --c1 c1.json -j 10 -c 3 --json report.json --timeline t.svg\n  filsnark bench porep --c1 a.json --c1 b.json -j 4 -c 2 --mem-budget 16GiB\n\n\
Every proof is verified. Proof i proves the (i mod n)-th --c1. --json writes the report described in\n\
docs/bench-json.md (schema filsnark-bench-porep, version 2); --timeline draws each partition's stages\n\
(witness, evaluation, queue, device, verify) over time, grouped by device."
    )]
    Porep(Box<BenchArgs>),
    /// Prove WindowPoSt -j times through the pipeline (same report, JSON and timeline as bench porep).
    #[command(
        after_help = "Example:\n  filsnark bench window-post --in post-32g.json -j 2 --json report.json --timeline t.svg"
    )]
    WindowPost(Box<JobBenchArgs>),
    /// Prove WinningPoSt -j times through the pipeline.
    #[command(after_help = "Example:\n  filsnark bench winning-post --in winning.json -j 10")]
    WinningPost(Box<JobBenchArgs>),
    /// Prove SnapDeals -j times through the pipeline.
    #[command(after_help = "Example:\n  filsnark bench snap --in snap-32g.json -j 1 --json report.json")]
    Snap(Box<JobBenchArgs>),
    /// GPU kernels: field/curve throughput next to the measured ceilings, then the prover's NTT, H pipeline,
    /// MSMs and batch addition next to their floors and sppark's times.
    #[command(
        after_help = "Example:\n  filsnark bench kernels\n  filsnark bench kernels --max-log 22    # smaller sizes, seconds instead of a minute\n\nNeeds an NVIDIA GPU; medians of timed runs after warm-up, CUDA events."
    )]
    Kernels(KernelArgs),
    /// CPU kernels: the H polynomial and the G1 MSM on AVX-512 IFMA and on blst, with the ratio.
    #[command(
        after_help = "Example:\n  filsnark bench cpu            # 2^22, the size of the 2KiB PoRep's H and H MSM (minutes)\n  filsnark bench cpu --log 16   # seconds\n\nRandom inputs; both paths must give the same values (else an error). FILSNARK_CPU_AVX512=0 turns the\nAVX-512 path off everywhere."
    )]
    Cpu(CpuArgs),
}

#[derive(Args)]
pub struct CpuArgs {
    /// Size, 2^k elements (points for the MSM)
    #[arg(long, default_value_t = 22, value_parser = clap::value_parser!(u32).range(6..=26))]
    log: u32,
}

#[derive(Args)]
pub struct KernelArgs {
    /// Largest size, 2^k elements, of the prover-kernel benchmarks (27: NTT and H 2^27, G1 MSM 2^26, G2 MSM 2^24)
    #[arg(long, default_value_t = 27, value_parser = clap::value_parser!(u32).range(10..=27))]
    max_log: u32,
    /// Only the field/curve throughput table
    #[arg(long)]
    arith_only: bool,
    /// Only the prover-kernel rows whose name contains this, e.g. "G1 MSM 2^26" (no throughput table)
    #[arg(long, conflicts_with = "arith_only")]
    only: Option<String>,
}

/// Where a bench's report goes and what it keeps: shared by every kind.
#[derive(Args)]
pub struct ReportArgs {
    /// Proofs to make.
    #[arg(short = 'j', long = "proofs", default_value_t = 1)]
    proofs: usize,
    /// Syntheses at once (host-lock permits, also capped by the memory budget) [default: half the cores]
    #[arg(short = 'c', long)]
    concurrency: Option<usize>,
    /// Host memory budget, e.g. 64GiB, 512MiB [default: 90% of MemAvailable]
    #[arg(long, value_parser = parse_size)]
    mem_budget: Option<u64>,
    /// Write the report as JSON (schema: docs/bench-json.md).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Draw the timeline of every partition's stages as SVG.
    #[arg(long)]
    timeline: Option<PathBuf>,
    /// Keep the proofs: write proof-NNN.bin files here (each verified, written atomically).
    #[arg(long)]
    out_dir: Option<PathBuf>,
    #[command(flatten)]
    devices: DeviceArgs,
    /// Make r and s reproducible: proof i uses seed + i.
    #[arg(long)]
    seed: Option<u64>,
}

impl ReportArgs {
    fn options(&self, params_dir: Option<PathBuf>, witness: WitnessMode) -> BenchOptions {
        BenchOptions {
            proofs: self.proofs,
            concurrency: self.concurrency.unwrap_or_else(default_concurrency),
            mem_budget: self.mem_budget,
            seed: self.seed,
            params_dir,
            out_dir: self.out_dir.clone(),
            progress: std::io::stderr().is_terminal(),
            witness,
        }
    }
}

#[derive(Args)]
pub struct JobBenchArgs {
    /// post.json (window-post, winning-post) or snap.json (snap); repeat to mix inputs (proofs cycle through them)
    #[arg(long = "in", required = true)]
    input: Vec<PathBuf>,
    /// Directory of the .params/.vk files [default: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters].
    #[arg(long)]
    params_dir: Option<PathBuf>,
    #[command(flatten)]
    report: ReportArgs,
}

#[derive(Args)]
pub struct BenchArgs {
    /// c1.json input; repeat to mix inputs (proofs cycle through them) [default: the built-in 2KiB sample]
    #[arg(long)]
    c1: Vec<PathBuf>,
    #[command(flatten)]
    id: IdentityArgs,
    #[command(flatten)]
    witness: WitnessArgs,
    #[command(flatten)]
    report: ReportArgs,
}

pub fn run(cmd: BenchCmd) -> Result<()> {
    let args = match cmd {
        BenchCmd::Porep(args) => args,
        BenchCmd::WindowPost(a) => return bench_job(ProofKind::WindowPost, &a),
        BenchCmd::WinningPost(a) => return bench_job(ProofKind::WinningPost, &a),
        BenchCmd::Snap(a) => return bench_job(ProofKind::Snap, &a),
        BenchCmd::Kernels(k) => {
            if k.only.is_none() {
                println!("{}", filsnark::gpu::bench::kernels()?);
            }
            if !k.arith_only {
                println!("{}", filsnark::gpu::bench::prover_kernels(k.max_log, k.only.as_deref())?);
            }
            return Ok(());
        }
        BenchCmd::Cpu(c) => {
            let rows = vec![bench::cpu::h_poly_row(c.log)?, bench::cpu::msm_g1_row(c.log)?];
            print!("{}", bench::cpu::table(&rows));
            return Ok(());
        }
    };
    let paths: Vec<Option<PathBuf>> =
        if args.c1.is_empty() { vec![None] } else { args.c1.iter().cloned().map(Some).collect() };
    let inputs = paths
        .iter()
        .map(|p| {
            let c1 = load_c1(p.as_deref())?;
            let sector = args.id.sector(&c1)?;
            Ok((c1, sector))
        })
        .collect::<Result<Vec<_>>>()?;
    let params_dir = match (args.c1.is_empty(), inputs.first()) {
        (true, Some((sample, _))) => params_dir_for(true, &args.id, sample, true)?,
        _ => args.id.params_dir.clone(),
    };
    let opts = args.report.options(params_dir, args.witness.witness);
    let loaded = bench::load_porep(&inputs, &opts)?;
    run_and_report(&loaded, &opts, &args.report)
}

/// `bench window-post|winning-post|snap`: every input read and checked, then proved.
fn bench_job(kind: ProofKind, args: &JobBenchArgs) -> Result<()> {
    let opts = args.report.options(args.params_dir.clone(), WitnessMode::Gadgets);
    let mut cache = ParamsCache::default();
    let dir = args.params_dir.as_deref();
    let loaded = args
        .input
        .iter()
        .map(|p| match post_type(kind) {
            Some(t) => filsnark::post::load(&PostInput::load(p, t)?, dir, &mut cache),
            None => filsnark::snap::load(&SnapInput::load(p)?, dir, &mut cache),
        })
        .collect::<Result<Vec<_>>>()?;
    run_and_report(&loaded, &opts, &args.report)
}

fn run_and_report(loaded: &[Input], opts: &BenchOptions, args: &ReportArgs) -> Result<()> {
    filsnark::output::remove_temp_files_on_interrupt();
    let backend = args.devices.backend()?;
    let report = bench::run(loaded, opts, backend.as_ref())?;
    if let Some(path) = &args.json {
        let json = serde_json::to_vec_pretty(&report).context("serializing the bench report")?;
        write_atomic(path, &json).with_context(|| format!("{}: cannot write the JSON report", path.display()))?;
    }
    if let Some(path) = &args.timeline {
        write_atomic(path, bench::svg::timeline(&report).as_bytes())
            .with_context(|| format!("{}: cannot write the timeline", path.display()))?;
    }
    report.print(&mut std::io::stdout().lock())?;
    for line in backend.memory_report() {
        println!("{line}");
    }
    if let Some(p) = &args.json {
        println!("json: {}", p.display());
    }
    if let Some(p) = &args.timeline {
        println!("timeline: {}", p.display());
    }
    Ok(())
}
