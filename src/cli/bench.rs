//! `bench porep|window-post|winning-post|snap`: proofs through the pipeline with the terminal's
//! progress, tables on stdout, `--json` and `--timeline`; `bench witness`, `bench cpu` and the GPU stage benches
//! (`kernels`, `ntt`, `msm`, `setup-points`).
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use filecoin_proofs_api::PoStType;
use filsnark::bench::{self, BenchOptions};
use filsnark::circuit::ProofKind;
use filsnark::input::{PostInput, SnapInput};
use filsnark::job::default_concurrency;
use filsnark::job::loading_stage;
use filsnark::output::{check_outputs, write_atomic, Output};
use filsnark::pipeline::budget::parse_size;
use filsnark::pipeline::proofs::{Events, Input, ParamsCache, WitnessMode};

use super::devices::DeviceArgs;
use super::jobs::post_type;
use super::porep::{load_c1, params_dir_for, IdentityArgs};
use super::progress::ProveProgress;
use super::witness::WitnessArgs;

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
    /// GPU NTT: forward transforms and the H pipeline, median ms next to the floors.
    #[command(
        after_help = "Examples:\n  filsnark bench ntt --log 20 --log 24 --log 27\n  filsnark bench ntt --log 24 --once   # one forward transform, for a profiler (ncu)\n\nNeeds an NVIDIA GPU; random data already on the device."
    )]
    Ntt(NttArgs),
    /// GPU MSM: dense G1/G2 MSMs or the batch addition, median ms; `--window` sweeps the window.
    #[command(
        after_help = "Examples:\n  filsnark bench msm --log 20 --log 24 --log 26\n  filsnark bench msm --g2 --log 24\n  filsnark bench msm --log 26 --window 20 --window 21 --window 23   # windows around the cost model's 22\n  filsnark bench msm --batch --log 27\n\nFILSNARK_MSM_* tune the MSM (docs/tuning.md). Needs an NVIDIA GPU; points and scalars already on the device."
    )]
    Msm(MsmArgs),
    /// GPU params setup: generator multiples per second, host to host, and the 32GiB projection.
    #[command(name = "setup-points", after_help = "Example:\n  filsnark bench setup-points\n\nNeeds an NVIDIA GPU.")]
    SetupPoints(SetupPointsArgs),
    /// CPU kernels: the H polynomial and the G1 MSM on AVX-512 IFMA and on blst, with the ratio.
    #[command(
        after_help = "Example:\n  filsnark bench cpu            # 2^22, the size of the 2KiB PoRep's H and H MSM (minutes)\n  filsnark bench cpu --log 16   # seconds\n\nRandom inputs; both paths must give the same values (else an error). FILSNARK_CPU_AVX512=0 turns the\nAVX-512 path off everywhere."
    )]
    Cpu(CpuArgs),
    /// One PoRep or PoSt partition's host stage both ways: the native witness and the compiled
    /// constraints' evaluation against the crates' gadget synthesis, wall time and core-seconds, checked equal.
    #[command(
        after_help = "Examples:\n  filsnark bench witness                         # the built-in 2KiB sample\n  filsnark bench witness --c1 c1-32gib.json --partition 9\n  filsnark bench witness --c1 c1-32gib.json --skip-gadgets   # the native path only\n  filsnark bench witness --window-post post-32gib.json       # a WindowPoSt partition\n  filsnark bench witness --window-post post-32gib.json --skip-gadgets --runs 3\n\nA 32GiB partition's assignment takes ~17 GB of host memory, twice that with the gadget comparison.\nThe shape's compiled constraints are loaded (or compiled and cached) before the clocks start."
    )]
    Witness(WitnessBenchArgs),
}

#[derive(Args)]
pub struct WitnessBenchArgs {
    /// c1.json input [default: the built-in 2KiB sample]
    #[arg(long)]
    c1: Option<PathBuf>,
    /// A post.json of a WindowPoSt instead of a c1.json
    #[arg(long, conflicts_with_all = ["c1", "winning_post"])]
    window_post: Option<PathBuf>,
    /// A post.json of a WinningPoSt instead of a c1.json
    #[arg(long, conflicts_with = "c1")]
    winning_post: Option<PathBuf>,
    #[command(flatten)]
    id: IdentityArgs,
    /// Which partition
    #[arg(long, default_value_t = 0)]
    partition: usize,
    /// Time only the native path (no gadget synthesis, no comparison)
    #[arg(long)]
    skip_gadgets: bool,
    /// Make the native witness and evaluate it this many times; from the second run on into the
    /// memory the run before gave back, as the pipeline's later partitions do
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    runs: u32,
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

#[derive(Args)]
pub struct NttArgs {
    /// Sizes, 2^k elements (repeat) [default: 20, 24, 27]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=27))]
    log: Vec<u32>,
    /// One forward transform of each size and no timing (for a profiler)
    #[arg(long)]
    once: bool,
}

#[derive(Args)]
pub struct MsmArgs {
    /// Sizes, 2^k points (repeat) [default: 20, 24, 26]
    #[arg(long, value_parser = clap::value_parser!(u32).range(10..=27))]
    log: Vec<u32>,
    /// G2 instead of G1
    #[arg(long, conflicts_with = "batch")]
    g2: bool,
    /// The G1 batch addition (half the points selected) instead of a dense MSM
    #[arg(long)]
    batch: bool,
    /// Window bits to force, one run per value (repeat) [default: the cost model's]
    #[arg(long, value_parser = clap::value_parser!(u32).range(4..=24), conflicts_with = "batch")]
    window: Vec<u32>,
}

#[derive(Args)]
pub struct SetupPointsArgs {
    /// Chunks of 2^22 G1 points to time (G2: a quarter as many points)
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=64))]
    chunks: u64,
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
    /// Host memory budget, e.g. 64GiB, 512MiB or 64GB (KiB/MiB/GiB/TiB and K/M/G/T are powers of 1024,
    /// KB/MB/GB/TB powers of 1000) [default: 90% of MemAvailable]
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
    /// Checks before the run that every output path is writable and none is an input.
    fn check_outputs(&self, inputs: &[(&str, &std::path::Path)]) -> Result<()> {
        let mut outputs = Vec::new();
        if let Some(p) = &self.json {
            outputs.push(Output::file("--json", p));
        }
        if let Some(p) = &self.timeline {
            outputs.push(Output::file("--timeline", p));
        }
        if let Some(p) = &self.out_dir {
            outputs.push(Output::dir("--out-dir", p));
        }
        check_outputs(&outputs, inputs)
    }

    fn options(&self, params_dir: Option<PathBuf>, witness: WitnessMode) -> BenchOptions {
        BenchOptions {
            proofs: self.proofs,
            concurrency: self.concurrency.unwrap_or_else(default_concurrency),
            mem_budget: self.mem_budget,
            seed: self.seed,
            params_dir,
            out_dir: self.out_dir.clone(),
            log: false,
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
    witness: WitnessArgs,
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
                println!("{}", bench::kernels::kernels()?);
            }
            if !k.arith_only {
                println!("{}", bench::stages::prover_kernels(k.max_log, k.only.as_deref())?);
            }
            return Ok(());
        }
        BenchCmd::Witness(w) => {
            let post = match (&w.window_post, &w.winning_post) {
                (Some(p), _) => Some(PostInput::load(p, PoStType::Window)?),
                (_, Some(p)) => Some(PostInput::load(p, PoStType::Winning)?),
                _ => None,
            };
            if let Some(input) = post {
                print!(
                    "{}",
                    bench::witness::table(&bench::witness::run_post(&input, w.partition, w.runs, !w.skip_gadgets)?)
                );
                return Ok(());
            }
            let c1 = load_c1(w.c1.as_deref())?;
            let sector = w.id.sector(&c1)?;
            let times = bench::witness::run(&c1, &sector, w.partition, w.runs, !w.skip_gadgets)?;
            print!("{}", bench::witness::table(&times));
            return Ok(());
        }
        BenchCmd::Ntt(a) => return ntt(a),
        BenchCmd::Msm(a) => return msm(a),
        BenchCmd::SetupPoints(a) => {
            println!("{}", bench::stages::setup_points(a.chunks as usize)?);
            return Ok(());
        }
        BenchCmd::Cpu(c) => {
            let rows = vec![bench::cpu::h_poly_row(c.log)?, bench::cpu::msm_g1_row(c.log)?];
            print!("{}", bench::cpu::table(&rows));
            return Ok(());
        }
    };
    let c1s: Vec<(&str, &std::path::Path)> = args.c1.iter().map(|p| ("--c1", p.as_path())).collect();
    args.report.check_outputs(&c1s)?;
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
    run_and_report(opts, &args.report, |opts, progress| bench::load_porep(&inputs, opts, progress))
}

/// `bench window-post|winning-post|snap`: every input read and checked, then proved.
fn bench_job(kind: ProofKind, args: &JobBenchArgs) -> Result<()> {
    let ins: Vec<(&str, &std::path::Path)> = args.input.iter().map(|p| ("--in", p.as_path())).collect();
    args.report.check_outputs(&ins)?;
    let opts = args.report.options(args.params_dir.clone(), args.witness.witness);
    let dir = args.params_dir.as_deref();
    run_and_report(opts, &args.report, |opts, progress| {
        let mut cache = ParamsCache::default();
        args.input
            .iter()
            .map(|p| {
                loading_stage(progress, p);
                match post_type(kind) {
                    Some(t) => filsnark::post::load(&PostInput::load(p, t)?, dir, &mut cache, opts.witness),
                    None => filsnark::snap::load(&SnapInput::load(p)?, dir, &mut cache, opts.witness),
                }
            })
            .collect()
    })
}

/// Loads the inputs with `load` and runs the bench, with the terminal's progress (cleared
/// before the report) or, where stderr is not a terminal, one line per event; then writes
/// and prints the report.
fn run_and_report(
    opts: BenchOptions,
    args: &ReportArgs,
    load: impl FnOnce(&BenchOptions, &dyn Events) -> Result<Vec<Input>>,
) -> Result<()> {
    let progress = ProveProgress::of_proofs(opts.proofs);
    let opts = BenchOptions { log: !progress.is_drawn(), ..opts };
    let run = || {
        let loaded = load(&opts, &progress)?;
        filsnark::output::remove_temp_files_on_interrupt();
        let backend = args.devices.backend()?;
        let report = bench::run(&loaded, &opts, backend.as_ref(), &progress)?;
        Ok::<_, anyhow::Error>((report, backend))
    };
    let ran = run();
    progress.finish();
    let (report, backend) = ran?;
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

fn ntt(a: NttArgs) -> Result<()> {
    use filsnark::bench::stages::{h_ms, ntt_ms, ntt_once};
    use filsnark::gpu::ntt::HBuffers;
    let gpu = filsnark::gpu::Gpu::open(0)?;
    let ntt = filsnark::gpu::ntt::Ntt::new(&gpu)?;
    let logs = if a.log.is_empty() { vec![20, 24, 27] } else { a.log };
    println!("NTT on {} (median ms; floors scaled from 30 ms forward and 250 ms H at 2^27)", gpu.ctx.device.name()?);
    for k in logs {
        if a.once {
            ntt_once(&gpu, &ntt, k)?;
            println!("NTT 2^{k}: one forward transform");
            continue;
        }
        let scale = (k as f64 / 27.0) * (1u64 << k) as f64 / (1u64 << 27) as f64;
        println!("NTT 2^{k} forward: {:.2} ms (floor ~{:.1})", ntt_ms(&gpu, &ntt, k)?, 30.0 * scale);
        for (buffers, what) in [(HBuffers::Four, "fused"), (HBuffers::Three, "three buffers")] {
            println!("H pipeline 2^{k}, {what}: {:.2} ms (floor ~{:.1})", h_ms(&gpu, &ntt, k, buffers)?, 250.0 * scale);
        }
    }
    Ok(())
}

fn msm(a: MsmArgs) -> Result<()> {
    use filsnark::bench::stages::{msm_ms, MsmKind};
    use filsnark::gpu::msm::{Msm, MsmTuning};
    let gpu = filsnark::gpu::Gpu::open(0)?;
    let tuning = MsmTuning::from_env().map_err(anyhow::Error::msg)?;
    let kind = if a.batch {
        MsmKind::BatchAdd
    } else if a.g2 {
        MsmKind::G2
    } else {
        MsmKind::G1
    };
    let logs = if a.log.is_empty() { vec![20, 24, 26] } else { a.log };
    let windows: Vec<Option<u32>> =
        if a.window.is_empty() { vec![tuning.window] } else { a.window.into_iter().map(Some).collect() };
    println!("{kind:?} MSM on {} (median ms)", gpu.ctx.device.name()?);
    for w in windows {
        let msm = Msm::with_tuning(&gpu, MsmTuning { window: w, ..tuning })?;
        for &k in &logs {
            let label = w.map(|c| format!(", window {c}")).unwrap_or_default();
            println!("2^{k}{label}: {:.2} ms", msm_ms(&gpu, &msm, kind, k)?);
        }
    }
    Ok(())
}
