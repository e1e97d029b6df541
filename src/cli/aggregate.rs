//! `aggregate porep` and `verify aggregate`: SnarkPack over the C2 proofs of an agg.json.
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use filsnark::aggregate;
use filsnark::input::AggInput;
use filsnark::output::{check_outputs, remove_temp_files_on_interrupt, write_atomic, Output};

use super::Invalid;

#[derive(Subcommand)]
pub enum AggregateCmd {
    /// Aggregate the C2 proofs of several sectors (agg.json) into one SnarkPack proof, the bytes
    /// filecoin-proofs' aggregate_seal_commit_proofs returns.
    #[command(
        after_help = "Example:\n  filsnark aggregate porep --in agg.json -o agg.bin\n\nagg.json: {\"SealProof\":\"StackedDrg32GiBV1_1\",\"Aggregation\":\"SnarkPackV2\",\"MinerId\":1000,\n  \"Sectors\":[{\"SectorNum\":7,\"CommR\":\"<64 hex>\",\"CommD\":\"<64 hex>\",\"Ticket\":\"<64 hex>\",\"Seed\":\"<64 hex>\",\"Proof\":\"<base64>\"}]}\nEvery input proof is verified first, and the aggregate before it is written. The SnarkPack SRS\nv28-fil-inner-product-v1.srs is found like the parameter files."
    )]
    Porep(AggregateArgs),
}

#[derive(Args)]
pub struct AggregateArgs {
    /// The agg.json.
    #[arg(long = "in")]
    input: PathBuf,
    /// Where to write the aggregate.
    #[arg(short, long)]
    out: PathBuf,
    /// Directory of the .vk/.params files and the SnarkPack SRS [default: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters].
    #[arg(long)]
    params_dir: Option<PathBuf>,
}

#[derive(Args)]
pub struct VerifyAggregateArgs {
    /// The agg.json of the aggregated sectors (their Proof fields are not needed).
    #[arg(long = "in")]
    input: PathBuf,
    /// The aggregate.
    #[arg(long)]
    proof: PathBuf,
    /// Directory of the .vk/.params files and the SnarkPack SRS [default: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters].
    #[arg(long)]
    params_dir: Option<PathBuf>,
}

pub fn run(cmd: AggregateCmd) -> Result<()> {
    let AggregateCmd::Porep(args) = cmd;
    check_outputs(&[Output::file("-o", &args.out)], &[("--in", &args.input)])?;
    let agg = AggInput::load(&args.input)?;
    remove_temp_files_on_interrupt();
    let r = aggregate::aggregate(&agg, args.params_dir.as_deref())?;
    write_atomic(&args.out, &r.proof)?;
    println!(
        "aggregate: {} ({} bytes, {} {} of {} sector(s) of {:?}, {} after padding), verified",
        args.out.display(),
        r.proof.len(),
        agg.version.name(),
        r.proofs,
        agg.sectors.len(),
        agg.registered,
        r.padded
    );
    println!("srs: {}", r.srs.display());
    println!("vk: {}", r.params.display());
    println!(
        "check inputs {:.3} s, load srs {:.3} s, aggregate {:.3} s (large Miller loops: {}), self-verify {:.3} s",
        r.check_inputs.as_secs_f64(),
        r.load_srs.as_secs_f64(),
        r.aggregate.as_secs_f64(),
        r.pairings,
        r.self_verify.as_secs_f64()
    );
    Ok(())
}

pub fn verify(args: VerifyAggregateArgs) -> Result<()> {
    let agg = AggInput::load(&args.input)?;
    let bytes =
        std::fs::read(&args.proof).with_context(|| format!("{}: cannot read the aggregate", args.proof.display()))?;
    match aggregate::verify(&agg, args.params_dir.as_deref(), &bytes)? {
        Ok(()) => {
            println!(
                "valid: {} for {} sector(s) of miner t0{} ({:?}, {})",
                args.proof.display(),
                agg.sectors.len(),
                agg.miner_id,
                agg.registered,
                agg.version.name()
            );
            Ok(())
        }
        Err(why) => Err(Invalid(format!("{}: {why}", args.proof.display())).into()),
    }
}
