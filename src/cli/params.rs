//! `params info`: what a parameter or SRS file holds; `params setup`: make insecure test
//! parameters (a circuit's .params/.vk, or the SnarkPack SRS).
use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Subcommand;
use filsnark::circuit::{CircuitKind, ProofKind};
use filsnark::input::PorepKind;
use filsnark::prover::DeviceChoice;
use filsnark::setup::{self, marker_path, SetupOptions};
use filsnark::srs::{ParamsFile, SectionKind};

#[derive(Subcommand)]
pub enum ParamsCmd {
    /// Print a .params file's verifying key summary and section counts.
    #[command(
        after_help = "Example:\n  filsnark params info /var/tmp/filecoin-proof-parameters/v28-stacked-proof-of-replication-…params"
    )]
    Info {
        /// The .params file.
        file: PathBuf,
    },
    /// Make INSECURE test parameters under the official file names: a circuit's .params, .vk and
    /// a .params.insecure marker (--proof porep|window-post|winning-post|snap), or the SnarkPack SRS and its marker (--proof
    /// aggregation). Anyone who knows the seed can forge proofs: tests and benchmarks only.
    #[command(
        after_help = "Examples:\n  filsnark params setup --proof porep --sector-size 2KiB --out ~/.cache/filsnark/test-params --seed 1\n  filsnark params setup --proof window-post --sector-size 32GiB --out /data/test-params --device gpu\n  filsnark params setup --proof aggregation --max-proofs 1024 --out ~/.cache/filsnark/test-params\n  FIL_PROOFS_PARAMETER_CACHE=~/.cache/filsnark/test-params filsnark prove porep\n\nRefuses the production cache /var/tmp/filecoin-proof-parameters and existing files unless --force."
    )]
    Setup {
        /// porep, window-post, winning-post, snap: that circuit's .params/.vk; aggregation: the SnarkPack SRS
        /// (v28-fil-inner-product-v1.srs).
        #[arg(long, default_value = "porep", value_parser = ["porep", "window-post", "winning-post", "snap", "aggregation"])]
        proof: String,
        /// Sector size (every circuit): 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
        #[arg(long, required_if_eq_any([("proof", "porep"), ("proof", "window-post"), ("proof", "winning-post"), ("proof", "snap")]))]
        sector_size: Option<String>,
        /// The most proofs the SRS will aggregate (aggregation): a power of two up to 16384.
        #[arg(long, default_value_t = 1024)]
        max_proofs: usize,
        /// Directory to write the files into (created if missing).
        #[arg(long, required_unless_present = "r1cs_only")]
        out: Option<PathBuf>,
        /// Seed of the toxic waste (ChaCha20); the same seed makes the same files [default: random, printed].
        #[arg(long)]
        seed: Option<u64>,
        /// Overwrite existing files, and allow the production cache directory.
        #[arg(long)]
        force: bool,
        /// Only record the circuit's R1CS and print its size and memory; write nothing.
        #[arg(long)]
        r1cs_only: bool,
        /// Where to compute the points: auto (GPU 0 if one opens, else the CPU), cpu, gpu (a GPU or an
        /// error), or one GPU ordinal; every choice writes the same bytes for a seed
        #[arg(long, default_value = "auto")]
        device: DeviceChoice,
    },
}

pub fn run(cmd: ParamsCmd) -> Result<()> {
    match cmd {
        ParamsCmd::Info { file } => info(file),
        ParamsCmd::Setup { proof, sector_size, max_proofs, out, seed, force, r1cs_only, device } => {
            if let Some(dir) = &out {
                filsnark::output::check_outputs(&[filsnark::output::Output::dir("--out", dir)], &[])?;
            }
            if proof == "aggregation" {
                let out = out.ok_or_else(|| anyhow::anyhow!("--out is required"))?;
                return setup_srs(&out, max_proofs, seed, force);
            }
            let proof = ProofKind::parse(&proof)?;
            let Some(sector_size) = sector_size else {
                bail!("--sector-size is required for --proof {}", proof.name())
            };
            let kind = PorepKind::parse(&sector_size)?;
            let circuit = CircuitKind::new(proof, kind);
            if r1cs_only {
                let t = std::time::Instant::now();
                let (r, stem) = circuit.record(true)?;
                println!("{stem}: R1CS of one {} partition", circuit.name());
                println!(
                    "constraints {} (with {} input constraints), inputs {}, aux {}, domain 2^{}",
                    r.num_constraints,
                    r.num_inputs,
                    r.num_inputs,
                    r.num_aux,
                    r.num_constraints.next_power_of_two().trailing_zeros()
                );
                println!(
                    "non-zeros A/B/C {}/{}/{}, distinct coefficients {}, {:.1} MiB",
                    r.a.nnz(),
                    r.b.nnz(),
                    r.c.nnz(),
                    r.coeffs.len(),
                    r.bytes() as f64 / (1 << 20) as f64
                );
                println!("recorded in {:.1} s", t.elapsed().as_secs_f64());
                return Ok(());
            }
            let seed = seed.unwrap_or_else(rand::random);
            println!("INSECURE test parameters: {}, seed {seed}", circuit.name());
            let out = out.expect("clap requires --out");
            let progress = std::io::stderr().is_terminal();
            let opts = SetupOptions { kind, out_dir: out, seed, force, progress, log: true, device };
            filsnark::output::remove_temp_files_on_interrupt();
            let r = setup::setup_circuit(&opts, proof)?;
            let s = &r.shape;
            println!(
                "circuit: {} constraints (with {} input constraints), {} inputs, {} aux, domain 2^{}, non-zeros A/B/C {}/{}/{}",
                r.constraints,
                s.inputs,
                s.inputs,
                s.aux,
                s.domain.trailing_zeros(),
                r.nnz[0],
                r.nnz[1],
                r.nnz[2]
            );
            println!(
                "points: h {} l {} a {} b_g1 {} b_g2 {}",
                s.domain - 1,
                s.aux,
                s.inputs + s.a_aux,
                s.b_inputs + s.b_aux,
                s.b_inputs + s.b_aux
            );
            println!("device: {}", r.device);
            for (name, d) in &r.phases {
                println!("  {name:<24} {:>9.3} s", d.as_secs_f64());
            }
            println!("params: {} ({} bytes)", r.params.display(), r.params_bytes);
            println!("vk:     {}", r.vk.display());
            println!("marker: {}", r.marker.display());
            println!("total: {:.3} s", r.total.as_secs_f64());
            Ok(())
        }
    }
}

fn setup_srs(out: &std::path::Path, max_proofs: usize, seed: Option<u64>, force: bool) -> Result<()> {
    let seed = seed.unwrap_or_else(rand::random);
    println!("INSECURE SnarkPack SRS: up to {max_proofs} proofs, seed {seed}");
    filsnark::output::remove_temp_files_on_interrupt();
    let t = std::time::Instant::now();
    let r = filsnark::snarkpack::setup::setup_srs(out, max_proofs, seed, force)?;
    println!("srs: {} ({} bytes, {} powers of each vector)", r.path.display(), r.bytes, r.powers);
    println!("marker: {}", r.marker.display());
    println!("total: {:.3} s", t.elapsed().as_secs_f64());
    Ok(())
}

fn info(file: PathBuf) -> Result<()> {
    if file.extension().is_some_and(|e| e == "srs") {
        return srs_info(file);
    }
    let p = ParamsFile::open(&file)?;
    println!("file: {}", file.display());
    if let Ok(note) = std::fs::read_to_string(marker_path(&file)) {
        println!("{}", note.lines().next().unwrap_or("INSECURE TEST PARAMETERS"));
    }
    println!("size: {} bytes", p.len());
    println!("public inputs (ic): {}", p.vk.ic.len());
    println!("{:<6} {:>14} {:>16} {:>8}", "section", "points", "offset", "bytes/pt");
    for kind in SectionKind::ALL {
        let s = p.section(kind);
        println!("{:<6} {:>14} {:>16} {:>8}", kind.name(), s.count, s.offset, kind.point_bytes());
    }
    let h = p.section(SectionKind::H).count;
    println!("domain: 2^{} (h = domain - 1)", (h + 1).next_power_of_two().trailing_zeros());
    Ok(())
}

fn srs_info(file: PathBuf) -> Result<()> {
    use filsnark::snarkpack::srs::{SrsFile, Vector};
    let f = SrsFile::open(&file)?;
    println!("file: {}", file.display());
    if let Ok(note) = std::fs::read_to_string(marker_path(&file)) {
        println!("{}", note.lines().next().unwrap_or("INSECURE SNARKPACK SRS"));
    }
    println!("{:<16} {:>10} {:>12} {:>8}", "vector", "points", "offset", "bytes/pt");
    for v in Vector::ALL {
        let s = f.span(v);
        println!("{:<16} {:>10} {:>12} {:>8}", v.name(), s.count, s.offset, v.point_bytes());
    }
    println!("aggregates up to {} proofs", f.max_proofs());
    Ok(())
}
