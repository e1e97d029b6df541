//! `prove|verify window-post|winning-post|snap`: PoSt and SnapDeals proofs from a post.json or
//! snap.json (docs/formats.md), with the terminal's progress, and the table every `prove` prints.
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use filecoin_proofs_api::PoStType;
use filsnark::circuit::ProofKind;
use filsnark::input::{PostInput, SnapInput};
use filsnark::job::{JobOptions, ProveReport};
use filsnark::output::{check_outputs, write_atomic, Output};
use filsnark::pipeline::budget::{parse_size, Bytes};
use filsnark::prover::Backend;

use super::devices::DeviceArgs;
use super::progress::with_progress;
use super::witness::WitnessArgs;
use super::Invalid;

#[derive(Args)]
pub struct JobProveArgs {
    /// The input: a post.json (window-post, winning-post) or snap.json (snap), see docs/formats.md.
    #[arg(long = "in")]
    input: PathBuf,
    /// Where to write the proof.
    #[arg(short, long)]
    out: PathBuf,
    /// Directory of the .params/.vk files [default: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters].
    #[arg(long)]
    params_dir: Option<PathBuf>,
    /// Make r and s reproducible from this seed (for tests and CPU/GPU comparisons).
    #[arg(long)]
    seed: Option<u64>,
    /// Syntheses at once (host-lock permits, also capped by the memory budget) [default: half the cores]
    #[arg(short = 'c', long)]
    concurrency: Option<usize>,
    /// Host memory budget, e.g. 64GiB, 512MiB [default: 90% of MemAvailable]
    #[arg(long, value_parser = parse_size)]
    mem_budget: Option<u64>,
    #[command(flatten)]
    witness: WitnessArgs,
    #[command(flatten)]
    devices: DeviceArgs,
}

#[derive(Args)]
pub struct JobVerifyArgs {
    /// The input the proof was made from: a post.json or snap.json (its vanilla proofs are not read).
    #[arg(long = "in")]
    input: PathBuf,
    /// The proof file.
    #[arg(long)]
    proof: PathBuf,
    /// Directory of the .vk/.params files [default: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters].
    #[arg(long)]
    params_dir: Option<PathBuf>,
}

/// The PoSt type a command proves.
pub fn post_type(kind: ProofKind) -> Option<PoStType> {
    match kind {
        ProofKind::WindowPost => Some(PoStType::Window),
        ProofKind::WinningPost => Some(PoStType::Winning),
        _ => None,
    }
}

pub fn prove(kind: ProofKind, args: JobProveArgs) -> Result<()> {
    let opts = JobOptions {
        params_dir: args.params_dir.clone(),
        seed: args.seed,
        concurrency: args.concurrency,
        mem_budget: args.mem_budget,
        witness: args.witness.witness,
    };
    // Outputs and inputs are checked before a device is opened: bad input fails fast.
    check_outputs(&[Output::file("-o", &args.out)], &[("--in", args.input.as_path())])?;
    let (report, what, backend) = match post_type(kind) {
        Some(t) => {
            let input = PostInput::load(&args.input, t)?;
            let backend = args.devices.backend()?;
            filsnark::output::remove_temp_files_on_interrupt();
            let p = &input.public;
            let what = format!(
                "{:?}, miner t0{}, {} sector(s){}",
                p.registered,
                p.miner_id,
                p.sectors.len(),
                p.partition.map(|k| format!(", partition {k}")).unwrap_or_default()
            );
            let report =
                with_progress(|events| filsnark::post::prove_with_events(&input, &opts, backend.as_ref(), events))?;
            (report, what, backend)
        }
        None => {
            let input = SnapInput::load(&args.input)?;
            let backend = args.devices.backend()?;
            filsnark::output::remove_temp_files_on_interrupt();
            let report =
                with_progress(|events| filsnark::snap::prove_with_events(&input, &opts, backend.as_ref(), events))?;
            (report, format!("{:?}", input.public.registered), backend)
        }
    };
    write_atomic(&args.out, &report.proof)?;
    println!(
        "proof: {} ({} bytes, {} partition(s), {what}), verified",
        args.out.display(),
        report.proof.len(),
        report.partitions.len()
    );
    print_report(&report, backend.as_ref());
    Ok(())
}

pub fn verify(kind: ProofKind, args: JobVerifyArgs) -> Result<()> {
    let bytes =
        std::fs::read(&args.proof).with_context(|| format!("{}: cannot read the proof", args.proof.display()))?;
    let dir = args.params_dir.as_deref();
    let verdict = match post_type(kind) {
        Some(t) => filsnark::post::verify(&PostInput::load(&args.input, t)?.public, dir, &bytes)?,
        None => filsnark::snap::verify(&SnapInput::load(&args.input)?.public, dir, &bytes)?,
    };
    match verdict {
        Ok(()) => {
            println!("valid: {} ({} for {})", args.proof.display(), kind.name(), display(&args.input));
            Ok(())
        }
        Err(why) => Err(Invalid(format!("{}: {why}", args.proof.display())).into()),
    }
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

/// The table `prove` prints: parameters, device, memory, one line per partition, the total.
pub fn print_report(report: &ProveReport, backend: &dyn Backend) {
    println!("params: {}", report.params.display());
    println!("device: {}", backend.devices().join(", "));
    for line in backend.memory_report() {
        println!("{line}");
    }
    println!(
        "{:>4} {:>12} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "part",
        "constraints",
        "witness",
        "witness s",
        "eval s",
        "queue",
        "H ntt",
        "H msm",
        "L msm",
        "A msm",
        "B1 msm",
        "B2 msm",
        "verify"
    );
    for (k, p) in report.partitions.iter().enumerate() {
        let t = &p.prove;
        println!(
            "{:>4} {:>12} {:>8} {:>9.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
            k,
            p.constraints,
            if p.host.native { "native" } else { "gadgets" },
            p.host.witness.as_secs_f64(),
            (p.host.evaluation + t.evaluation).as_secs_f64(),
            p.queue_wait.as_secs_f64(),
            t.h_ntt.as_secs_f64(),
            t.h_msm.as_secs_f64(),
            t.l_msm.as_secs_f64(),
            t.a_msm.as_secs_f64(),
            t.b_g1_msm.as_secs_f64(),
            t.b_g2_msm.as_secs_f64(),
            p.verify.as_secs_f64()
        );
    }
    let m = &report.memory;
    println!(
        "total: {:.3} s (-c {}: {} host permit(s), {} partition(s) in flight, memory budget {})",
        report.total.as_secs_f64(),
        m.concurrency,
        m.host,
        m.in_flight,
        Bytes(m.budget)
    );
}
