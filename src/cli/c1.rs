//! `c1 synth` (a valid c1.json without sealing a sector) and `c1 verify` (storage-proofs'
//! vanilla verifier over a c1.json).
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};
use filsnark::input::SectorIdentity;
use filsnark::input::{C1Input, PorepKind};
use filsnark::synth::{self, SynthOptions};

use super::Invalid;

#[derive(Subcommand)]
pub enum C1Cmd {
    /// Make a c1.json (lotus-bench wrapper) whose vanilla proofs are valid, without sealing a sector.
    #[command(
        after_help = "Example:\n  filsnark c1 synth --sector-size 32GiB --miner-id 1000 --sector-num 1 --seed 7 -o c1-32g.json\n  filsnark prove porep --c1 c1-32g.json --miner-id 1000\n\nOnly the challenged nodes and their parents get real labels; the trees are sparse, so every size\ntakes seconds. The output is checked with storage-proofs' vanilla verifier before it is written."
    )]
    Synth(SynthArgs),
    /// Check the vanilla proofs of a c1.json with storage-proofs' verifier.
    #[command(after_help = "Example:\n  filsnark c1 verify --c1 c1.json --miner-id 1000")]
    Verify(VerifyArgs),
}

#[derive(Args)]
pub struct SynthArgs {
    /// 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
    #[arg(long, value_parser = parse_kind)]
    sector_size: PorepKind,
    /// Miner actor id (t0<ID>) the sector is for.
    #[arg(long, default_value_t = 1000)]
    miner_id: u64,
    /// Sector number.
    #[arg(long, default_value_t = 1)]
    sector_num: u64,
    /// Seed of the sector's data, ticket and interactive seed: the same flags give the same file.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where to write the c1.json.
    #[arg(short = 'o', long)]
    out: PathBuf,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// c1.json: the lotus-bench/Curio wrapper or a raw SealCommitPhase1Output.
    #[arg(long)]
    c1: PathBuf,
    /// Miner actor id (t0<ID>) the sector was sealed for.
    #[arg(long, default_value_t = 1000)]
    miner_id: u64,
    /// Sector number [default: SectorNum of the c1 wrapper].
    #[arg(long)]
    sector_num: Option<u64>,
}

fn parse_kind(s: &str) -> Result<PorepKind> {
    PorepKind::parse(s)
}

pub fn run(cmd: C1Cmd) -> Result<()> {
    match cmd {
        C1Cmd::Synth(a) => synth_cmd(a),
        C1Cmd::Verify(a) => verify_cmd(a),
    }
}

fn synth_cmd(a: SynthArgs) -> Result<()> {
    filsnark::output::remove_temp_files_on_interrupt();
    let opts = SynthOptions { kind: a.sector_size, miner_id: a.miner_id, sector_num: a.sector_num, seed: a.seed };
    let s = synth::synth_c1(&opts)?;
    filsnark::output::write_atomic(&a.out, &s.wrapper)?;
    let st = &s.stats;
    println!(
        "{}: synthetic {} c1 for miner t0{} sector {} (seed {})",
        a.out.display(),
        a.sector_size.name(),
        a.miner_id,
        a.sector_num,
        a.seed
    );
    println!(
        "  {:?}: {} partitions, {} challenges ({} distinct nodes), {} columns opened",
        s.output.registered_proof, st.partitions, st.challenges, st.challenged_nodes, st.opened_columns
    );
    println!("  comm_d {}  comm_r {}", hex(&s.output.comm_d), hex(&s.output.comm_r));
    println!(
        "  synthesis {:.2} s, vanilla verification {:.2} s (storage-proofs-porep accepts), {} bytes",
        st.synthesis.as_secs_f64(),
        st.verification.as_secs_f64(),
        s.wrapper.len()
    );
    Ok(())
}

fn verify_cmd(a: VerifyArgs) -> Result<()> {
    let c1 = C1Input::load(&a.c1)?;
    let sector = SectorIdentity { miner_id: a.miner_id, sector_num: c1.sector_num(a.sector_num)? };
    match synth::verify::verify_c1(&c1, &sector) {
        Ok(()) => {
            println!(
                "{}: vanilla proofs valid for miner t0{} sector {}",
                a.c1.display(),
                a.miner_id,
                sector.sector_num
            );
            Ok(())
        }
        Err(e) if e.downcast_ref::<synth::verify::Rejected>().is_some() => {
            Err(Invalid(format!("{}: {e:#}", a.c1.display())).into())
        }
        Err(e) => Err(e.context(format!("{}: cannot check the vanilla proofs", a.c1.display()))),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
