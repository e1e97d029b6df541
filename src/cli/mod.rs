//! Command-line interface: `prove`, `verify`, `bench`, `params`, `info`. People read stdout (tables,
//! summaries); errors go to stderr as `filsnark: error: …` naming the file or device and the
//! fault. Exit status: 0 success, 1 a proof that does not verify, 2 any other error.
mod bench;
mod params;
mod porep;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "filsnark",
    version,
    about = "Filecoin Groth16 prover: PoRep C2 from a lotus/Curio c1.json",
    after_help = "Examples:\n  filsnark prove porep                       # prove the 2KiB sample that ships inside filsnark\n  filsnark prove porep --c1 c1.json -o proof.bin --miner-id 1000\n  filsnark verify porep --c1 c1.json --proof proof.bin --miner-id 1000\n  filsnark bench porep --c1 c1.json -j 10 -c 3 --json report.json --timeline t.svg\n  filsnark params info /var/tmp/filecoin-proof-parameters/v28-…params\n\nExit status: 0 success, 1 proof invalid, 2 error."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Make a proof.
    #[command(subcommand)]
    Prove(porep::ProveCmd),
    /// Check a proof.
    #[command(subcommand)]
    Verify(porep::VerifyCmd),
    /// Prove many times through the pipeline and show where the time goes.
    #[command(subcommand)]
    Bench(bench::BenchCmd),
    /// Inspect parameter files.
    #[command(subcommand)]
    Params(params::ParamsCmd),
    /// Show the GPU driver, devices and PTX modules.
    Info,
}

/// An error that is a verdict (the proof is invalid), not a failure to run.
#[derive(Debug)]
pub struct Invalid(pub String);

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
impl std::error::Error for Invalid {}

pub fn run() -> i32 {
    let cli = Cli::parse();
    let res = match cli.cmd {
        Cmd::Prove(c) => porep::prove(c),
        Cmd::Verify(c) => porep::verify(c),
        Cmd::Bench(c) => bench::run(c),
        Cmd::Params(c) => params::run(c),
        Cmd::Info => info(),
    };
    match res {
        Ok(()) => 0,
        Err(e) if e.downcast_ref::<Invalid>().is_some() => {
            eprintln!("filsnark: INVALID: {e:#}");
            1
        }
        Err(e) => {
            eprintln!("filsnark: error: {e:#}");
            2
        }
    }
}

fn info() -> anyhow::Result<()> {
    println!("filsnark {}", env!("CARGO_PKG_VERSION"));
    println!("CPU threads: {}", rayon::current_num_threads());
    print!("{}", filsnark::gpu::info::info_report());
    Ok(())
}
