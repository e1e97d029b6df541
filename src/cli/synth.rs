//! `post synth` and `snap synth`: a post.json or snap.json whose vanilla proofs are valid,
//! without sealing a sector (benchmarks at real scale).
use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use filsnark::circuit::{CircuitKind, ProofKind};
use filsnark::input::PorepKind;
use filsnark::output::write_atomic;
use filsnark::synth::post::{synth_post, PostSynthOptions};

#[derive(Subcommand)]
pub enum PostCmd {
    /// Make a post.json whose vanilla proofs are valid, without sealing: sparse sector trees.
    #[command(
        after_help = "Examples:\n  filsnark post synth --proof window-post --sector-size 32GiB --sectors 2349 -o post-32g.json   # one full partition\n  filsnark post synth --proof winning-post --sector-size 32GiB -o winning-32g.json\n\nThe output is checked with filsnark's post.json reader and vanilla checks before it is written."
    )]
    Synth(PostSynthArgs),
}

#[derive(Subcommand)]
pub enum SnapCmd {
    /// Make a snap.json whose vanilla partition proofs are valid, without sealing or encoding a sector.
    #[command(
        after_help = "Example:\n  filsnark snap synth --sector-size 32GiB -o snap-32g.json\n\nThe output is checked with the crate's vanilla verifier before it is written."
    )]
    Synth(SnapSynthArgs),
}

#[derive(Args)]
pub struct PostSynthArgs {
    /// window-post or winning-post.
    #[arg(long, value_parser = ["window-post", "winning-post"])]
    proof: String,
    /// 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
    #[arg(long, value_parser = PorepKind::parse)]
    sector_size: PorepKind,
    /// Sectors (WinningPoSt: 1) [default: one full WindowPoSt partition, e.g. 2349 at 32GiB].
    #[arg(long)]
    sectors: Option<usize>,
    /// Number of the first sector; the others follow in order.
    #[arg(long, default_value_t = 1)]
    first_sector: u64,
    /// Mark the file as this single WindowPoSt partition.
    #[arg(long)]
    partition: Option<usize>,
    /// Miner actor id (t0<ID>).
    #[arg(long, default_value_t = 1000)]
    miner_id: u64,
    /// Seed of the randomness, comm_c and tree leaves: the same flags give the same file.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where to write the post.json.
    #[arg(short = 'o', long)]
    out: PathBuf,
}

#[derive(Args)]
pub struct SnapSynthArgs {
    /// 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
    #[arg(long, value_parser = PorepKind::parse)]
    sector_size: PorepKind,
    /// Seed of the sector values and comm_c: the same flags give the same file.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where to write the snap.json.
    #[arg(short = 'o', long)]
    out: PathBuf,
}

pub fn post(cmd: PostCmd) -> Result<()> {
    let PostCmd::Synth(a) = cmd;
    let proof = ProofKind::parse(&a.proof)?;
    let registered = CircuitKind::new(proof, a.sector_size).registered_post().expect("a PoSt kind");
    let sectors = match (proof, a.sectors) {
        (ProofKind::WinningPost, Some(n)) if n != 1 => bail!("--sectors {n}: a WinningPoSt proves exactly one sector"),
        (_, Some(n)) => n,
        (ProofKind::WinningPost, None) => 1,
        (_, None) => registered.sector_count(),
    };
    let t = std::time::Instant::now();
    let opts = PostSynthOptions {
        registered,
        miner_id: a.miner_id,
        sectors,
        first_sector: a.first_sector,
        partition: a.partition,
        seed: a.seed,
    };
    let bytes = synth_post(&opts)?;
    write_atomic(&a.out, &bytes)?;
    println!(
        "{}: {registered:?}, miner t0{}, {sectors} sector(s), {} bytes, checked ({:.1} s)",
        a.out.display(),
        a.miner_id,
        bytes.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

pub fn snap(cmd: SnapCmd) -> Result<()> {
    let SnapCmd::Synth(a) = cmd;
    let t = std::time::Instant::now();
    let bytes = filsnark::synth::snap::synth_snap(a.sector_size, a.seed)?;
    write_atomic(&a.out, &bytes)?;
    println!(
        "{}: {} sector update, {} bytes, checked ({:.1} s)",
        a.out.display(),
        a.sector_size.name(),
        bytes.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
