//! Command-line interface: `prove`, `verify`, `aggregate`, `bench`, `params`, `info`. People read stdout (tables,
//! summaries); errors go to stderr as `filsnark: error: …` naming the file or device and the
//! fault. Exit status: 0 success, 1 a proof that does not verify, 2 any other error.
mod aggregate;
mod bench;
mod c1;
mod devices;
mod hints;
mod jobs;
mod params;
mod porep;
mod progress;
mod synth;
mod witness;

use clap::{CommandFactory, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "filsnark",
    version,
    about = "Filecoin Groth16 prover: PoRep C2 (interactive and NI), WindowPoSt, WinningPoSt, SnapDeals and SnarkPack aggregation from lotus/Curio inputs",
    after_help = "Examples:\n  filsnark prove porep                       # prove the 2KiB sample that ships inside filsnark\n  filsnark prove porep --c1 c1.json -o proof.bin --miner-id 1000\n  filsnark verify porep --c1 c1.json --proof proof.bin --miner-id 1000\n  filsnark prove window-post --in post.json -o post.proof\n  filsnark prove snap --in snap.json -o snap.proof\n  filsnark aggregate porep --in agg.json -o agg.bin\n  filsnark verify aggregate --in agg.json --proof agg.bin\n  filsnark bench porep --c1 c1.json -j 10 -c 3 --json report.json --timeline t.svg\n  filsnark params info /var/tmp/filecoin-proof-parameters/v28-…params\n\nExit status: 0 success, 1 proof invalid, 2 error."
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
    /// Aggregate proofs (SnarkPack).
    #[command(subcommand)]
    Aggregate(aggregate::AggregateCmd),
    /// Prove many times through the pipeline and show where the time goes.
    #[command(subcommand)]
    Bench(bench::BenchCmd),
    /// Synthesize or check c1.json files (commit phase 1 outputs).
    #[command(subcommand)]
    C1(c1::C1Cmd),
    /// Synthesize post.json files (WindowPoSt, WinningPoSt inputs) without sealing.
    #[command(subcommand)]
    Post(synth::PostCmd),
    /// Synthesize snap.json files (SnapDeals inputs) without sealing.
    #[command(subcommand)]
    Snap(synth::SnapCmd),
    /// Inspect parameter files.
    #[command(subcommand)]
    Params(params::ParamsCmd),
    /// Show the GPU driver, devices and PTX modules.
    Info,
    /// Check the GPU arithmetic against blst on fresh random inputs (developers).
    #[command(subcommand, hide = true)]
    Selftest(SelftestCmd),
}

#[derive(Subcommand)]
enum SelftestCmd {
    /// Every PTX field and curve operation on N random inputs plus edge cases, against blst.
    Gpu {
        /// Elements per operation.
        #[arg(long, default_value_t = 1 << 20)]
        n: usize,
        /// Reproduce a run: its seed in hex.
        #[arg(long)]
        seed: Option<String>,
    },
    /// Panic on purpose, in the command itself or in a pipeline worker: what a bug looks like to
    /// the user (one error line, exit status 2).
    Panic {
        /// Panic inside a pipeline worker instead of the command.
        #[arg(long)]
        in_worker: bool,
    },
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return refused(e),
    };
    let res = match cli.cmd {
        Cmd::Prove(c) => porep::prove(c),
        Cmd::Verify(c) => porep::verify(c),
        Cmd::Aggregate(c) => aggregate::run(c),
        Cmd::Bench(c) => bench::run(c),
        Cmd::C1(c) => c1::run(c),
        Cmd::Post(c) => synth::post(c),
        Cmd::Snap(c) => synth::snap(c),
        Cmd::Params(c) => params::run(c),
        Cmd::Info => info(),
        Cmd::Selftest(SelftestCmd::Gpu { n, seed }) => selftest_gpu(n, seed),
        Cmd::Selftest(SelftestCmd::Panic { in_worker }) => selftest_panic(in_worker),
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

/// Prints clap's refusal of the command line (or the help and version it was asked for), with a
/// hint when a flag was given at the wrong level; the exit status is clap's (2 for an error).
fn refused(e: clap::Error) -> i32 {
    let _ = e.print();
    if let Some(hint) = hints::misplaced_flag(&Cli::command(), &e) {
        eprintln!("\nhint: {hint}");
    }
    e.exit_code()
}

fn selftest_gpu(n: usize, seed: Option<String>) -> anyhow::Result<()> {
    let report = match seed {
        Some(s) => {
            let seed = u64::from_str_radix(s.trim_start_matches("0x"), 16)
                .map_err(|e| anyhow::anyhow!("--seed {s:?} is not hexadecimal: {e}"))?;
            filsnark::gpu::selftest::run_seeded(n, seed)?
        }
        None => filsnark::gpu::selftest::run(n)?,
    };
    println!("{report}");
    if report.ok() {
        Ok(())
    } else {
        Err(Invalid("a GPU result differs from blst".into()).into())
    }
}

fn selftest_panic(in_worker: bool) -> anyhow::Result<()> {
    if in_worker {
        filsnark::pipeline::panic_in_a_worker()
    } else {
        panic!("selftest panic in the command")
    }
}

fn info() -> anyhow::Result<()> {
    println!("filsnark {}", env!("CARGO_PKG_VERSION"));
    println!("CPU threads: {}", rayon::current_num_threads());
    print!("{}", filsnark::gpu::info::info_report());
    Ok(())
}
