//! SnarkPack aggregation of COUNT proofs by filsnark and by filecoin-proofs'
//! `aggregate_seal_commit_proofs`, on the same inputs, SRS and machine: times and byte identity.
//! The proofs are random group elements of 2KiB interactive sectors with random comm_r and seed
//! (aggregation does not verify its inputs; its cost depends only on the count), padded like
//! filecoin-proofs pads them: 819 sectors of 2KiB pad to 1,024 proofs; 8,190 (819 32GiB sectors of
//! 10 partitions) to 8,192.
//!
//! On a host with a GPU, filsnark also aggregates with the pairing products' Miller loops on the
//! GPU (module miller) for each threshold of `AGG_SWEEP` (products of fewer pairs stay on the
//! CPU; default: the library's `MIN_PAIRS`, then 0, every product) and prints the times beside
//! the CPU's; the bytes must agree. `AGG_SWEEP="0 64 128 256 512 1024 2048"` sweeps;
//! `FILSNARK_AGG_GPU=0` skips the GPU. Each row is printed as soon as it is measured, so a run cut
//! short keeps what it measured.
//!
//! Usage: cargo run --release --example aggregate_bench -- PARAMS_2KIB_DIR COUNT [SnarkPackV1|SnarkPackV2]
//! PARAMS_2KIB_DIR holds the 2KiB .vk (filecoin-proofs reads it); an INSECURE SRS for the padded
//! count is made in a temp directory beside links to it.
use std::time::Instant;

use anyhow::{bail, Result};
use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use filecoin_proofs_api::seal::{aggregate_seal_commit_proofs, SealCommitPhase2Output};
use filecoin_proofs_api::{RegisteredAggregationProof, RegisteredSealProof};
use filsnark::ec::MillerLoops;
use filsnark::gpu::pairing::{GpuMillerLoops, MIN_PAIRS};
use filsnark::groth16::Proof;
use filsnark::snarkpack::seal::{aggregate_seal, aggregate_seal_on, target_len, transcript_include};
use filsnark::snarkpack::{setup, Pairings, SrsFile, Version};
use group::{Curve, Group};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

const STEM_2KIB: &str = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        bail!("usage: aggregate_bench PARAMS_2KIB_DIR COUNT [SnarkPackV1|SnarkPackV2]");
    }
    let params = std::path::PathBuf::from(&args[1]);
    let count: usize = args[2].parse()?;
    let (version, reg) = match args.get(3).map(String::as_str) {
        Some("SnarkPackV1") => (Version::V1, RegisteredAggregationProof::SnarkPackV1),
        _ => (Version::V2, RegisteredAggregationProof::SnarkPackV2),
    };
    let n = target_len(count);
    let dir = tempfile::tempdir()?;
    for ext in ["vk", "params"] {
        std::os::unix::fs::symlink(
            params.join(format!("{STEM_2KIB}.{ext}")),
            dir.path().join(format!("{STEM_2KIB}.{ext}")),
        )?;
    }
    let t = Instant::now();
    setup::setup_srs(dir.path(), n, 7, false)?;
    eprintln!("INSECURE SRS for {n} proofs made in {:.1} s", t.elapsed().as_secs_f64());
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", dir.path());

    let mut rng = ChaCha20Rng::seed_from_u64(count as u64);
    let seeds: Vec<u64> = (0..count).map(|_| rng.gen()).collect();
    let proofs: Vec<Proof> = seeds
        .par_iter()
        .map(|s| {
            let mut r = ChaCha20Rng::seed_from_u64(*s);
            Proof {
                a: G1Projective::random(&mut r).to_affine(),
                b: G2Projective::random(&mut r).to_affine(),
                c: G1Projective::random(&mut r).to_affine(),
            }
        })
        .collect();
    let comm_rs: Vec<[u8; 32]> = (0..count).map(|_| Scalar::random(&mut rng).to_bytes_le()).collect();
    let chain_seeds: Vec<[u8; 32]> = (0..count).map(|_| Scalar::random(&mut rng).to_bytes_le()).collect();

    // filsnark: open the SRS, decode the prover's points, aggregate.
    let t = Instant::now();
    let srs = SrsFile::open(&dir.path().join("v28-fil-inner-product-v1.srs"))?;
    let pk = srs.prover_key(n)?;
    let load = t.elapsed();
    let pairs: Vec<_> = chain_seeds.iter().copied().zip(comm_rs.iter().copied()).collect();
    let include = transcript_include(false, &pairs);
    let mut runs = Vec::with_capacity(RUNS);
    let mut ours = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let bytes = aggregate_seal(&pk, &include, proofs.clone(), version)?;
        runs.push(t.elapsed());
        if !ours.is_empty() && bytes != ours {
            bail!("two CPU aggregates of the same proofs differ");
        }
        ours = bytes;
    }
    runs.sort();
    let agg = runs[RUNS / 2];
    println!("{count} proofs ({n} after padding), {}, {} threads", version.name(), rayon::current_num_threads());
    println!("{:<44} {:>10}", "", "seconds");
    println!("{:<44} {:>10.3}", "filsnark: SRS points for n", load.as_secs_f64());
    println!("{:<44} {:>10.3}", "filsnark: aggregate (CPU pairings, median of 3)", agg.as_secs_f64());
    gpu_aggregates(&pk, &include, &proofs, version, &ours)?;

    // filecoin-proofs: the first call reads the SRS and builds its tables; the second reuses them.
    let outputs: Vec<SealCommitPhase2Output> =
        proofs.iter().map(|p| SealCommitPhase2Output { proof: p.to_bytes().to_vec() }).collect();
    let proof_type = RegisteredSealProof::StackedDrg2KiBV1_1;
    let t = Instant::now();
    let theirs = aggregate_seal_commit_proofs(proof_type, reg, &comm_rs, &chain_seeds, &outputs)?;
    let first = t.elapsed();
    let t = Instant::now();
    let again = aggregate_seal_commit_proofs(proof_type, reg, &comm_rs, &chain_seeds, &outputs)?;
    let second = t.elapsed();

    println!("{:<44} {:>10.3}", "filecoin-proofs: first call (SRS, tables)", first.as_secs_f64());
    println!("{:<44} {:>10.3}", "filecoin-proofs: second call (cached SRS)", second.as_secs_f64());
    println!(
        "speed-up: {:.2}x first call (with SRS loading), {:.2}x aggregation alone",
        first.as_secs_f64() / (load + agg).as_secs_f64(),
        second.as_secs_f64() / agg.as_secs_f64()
    );
    if ours != theirs || theirs != again {
        bail!("the aggregates differ ({} vs {} bytes)", ours.len(), theirs.len());
    }
    println!("identical bytes: {} bytes", ours.len());
    Ok(())
}

/// Runs per threshold (the median is reported).
const RUNS: usize = 3;

/// The thresholds to time: `AGG_SWEEP` (smallest products, in pairs, sent to the device; 0
/// sends every product), else the library's default and 0.
fn sweep() -> Result<Vec<usize>> {
    match std::env::var("AGG_SWEEP") {
        Err(_) => Ok(vec![MIN_PAIRS, 0]),
        Ok(v) => v
            .split_whitespace()
            .map(|s| s.parse().map_err(|_| anyhow::anyhow!("AGG_SWEEP={v}: '{s}' is not a count of pairs")))
            .collect(),
    }
}

/// The aggregate with the Miller loops on GPU 0 for each threshold of [`sweep`] (products of
/// fewer pairs stay on the CPU), the median of [`RUNS`] runs, printed as each is measured after
/// checking every run's bytes against the CPU's. Nothing without a GPU (or with
/// FILSNARK_AGG_GPU=0).
fn gpu_aggregates(
    pk: &filsnark::snarkpack::ProverKey,
    include: &[u8],
    proofs: &[Proof],
    version: Version,
    cpu: &[u8],
) -> Result<()> {
    if std::env::var("FILSNARK_AGG_GPU").is_ok_and(|v| v == "0") {
        return Ok(());
    }
    let open = || match GpuMillerLoops::open(0) {
        Ok(d) => Ok(Some(d)),
        Err(e) if e.is_no_gpu() => Ok(None),
        Err(e) => Err(anyhow::anyhow!("GPU 0: {e}")),
    };
    if open()?.is_none() {
        eprintln!("no GPU: CPU pairings only");
        return Ok(());
    }
    for min in sweep()? {
        let d = open()?.expect("opened once").with_min_pairs(min);
        let what = format!("GPU pairings of >= {min} pairs (median of {RUNS})");
        let mut secs = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let t = Instant::now();
            let bytes = aggregate_seal_on(pk, include, proofs.to_vec(), version, Pairings::on(&d))?;
            secs.push(t.elapsed().as_secs_f64());
            if bytes != cpu {
                bail!("the aggregate with {what} differs from the CPU's");
            }
        }
        secs.sort_by(f64::total_cmp);
        let tm = d.times();
        eprintln!(
            "{what}: {:.3} s (runs {secs:.3?}); {} device calls, {} pairs, host part {:.3} s, device (uploads, \
             kernels, download) {:.3} s, summed over the runs' concurrent calls",
            secs[RUNS / 2],
            tm.calls,
            tm.pairs,
            tm.host,
            tm.device
        );
        println!("{:<44} {:>10.3}", format!("filsnark: aggregate ({what}, {})", d.label()), secs[RUNS / 2]);
    }
    Ok(())
}
