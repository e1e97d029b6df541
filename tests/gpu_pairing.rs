//! SnarkPack's pairing products on the GPU (module "miller"): the kernel's Miller loops against
//! blst's for random pairs, and whole aggregates made with the GPU's loops against the CPU's,
//! byte for byte. The GPU tests are #[ignore]d (run them on a device with --include-ignored;
//! scripts/gpu-run.sh runs every packed gpu_* binary); without a GPU the non-ignored test checks
//! the clean "no GPU" answer (FILSNARK_EXPECT_GPU=1 makes a missing GPU a failure).
use std::time::Instant;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use filsnark::ec::{g1_affines_as_blst, g2_affines_as_blst, G2Lines, MillerProduct};
use filsnark::gpu::pairing::GpuMillerLoops;
use filsnark::groth16::Proof;
use filsnark::snarkpack::seal::{aggregate_seal, aggregate_seal_on};
use filsnark::snarkpack::setup::srs_bytes;
use filsnark::snarkpack::{Pairings, SrsFile, Version};
use group::{prime::PrimeCurveAffine, Curve, Group};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

fn device() -> GpuMillerLoops {
    GpuMillerLoops::open(0).expect("a GPU with module miller").always()
}

#[test]
fn no_gpu_is_reported_cleanly() {
    if let Err(e) = GpuMillerLoops::open(0) {
        assert!(e.is_no_gpu() && std::env::var("FILSNARK_EXPECT_GPU").is_err(), "{e}");
    }
}

fn g1s(n: usize, seed: u64) -> Vec<G1Affine> {
    (0..n)
        .into_par_iter()
        .map(|i| G1Projective::random(ChaCha20Rng::seed_from_u64(seed ^ ((i as u64) << 20))).to_affine())
        .collect()
}

fn g2s(n: usize, seed: u64) -> Vec<G2Affine> {
    (0..n)
        .into_par_iter()
        .map(|i| G2Projective::random(ChaCha20Rng::seed_from_u64(seed ^ ((i as u64) << 20))).to_affine())
        .collect()
}

/// The GPU's Miller products of random pairs equal blst's loops over the same lines, Fp12 for
/// Fp12: several G1 vectors over one G2 vector, lengths from 1 to past the device's resident
/// threads (groups of several pairs), points at infinity on either side.
#[test]
#[ignore]
fn gpu_miller_loops_match_blst() {
    let d = device();
    for (n, nvec) in [(1usize, 1usize), (5, 3), (33, 2), (1000, 3), (40_000, 2)] {
        let q = {
            let mut q = g2s(n, 7 + n as u64);
            if n > 3 {
                q[3] = G2Affine::identity();
            }
            q
        };
        let ps: Vec<Vec<G1Affine>> = (0..nvec)
            .map(|v| {
                let mut p = g1s(n, 100 * v as u64 + n as u64);
                if n > 3 && v == 0 {
                    p[1] = G1Affine::identity();
                }
                p
            })
            .collect();
        let raw: Vec<&[filsnark::ec::P1Affine]> = ps.iter().map(|p| g1_affines_as_blst(p)).collect();
        let t = Instant::now();
        let got = d.miller_loops(&raw, g2_affines_as_blst(&q)).expect("GPU Miller loops");
        let gpu_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let lines: Vec<G2Lines> = g2_affines_as_blst(&q).par_iter().map(G2Lines::of).collect();
        let want: Vec<MillerProduct> = raw
            .iter()
            .map(|p| {
                p.par_chunks(64)
                    .zip(lines.par_chunks(64))
                    .map(|(p, l)| MillerProduct::of_lines(p, l))
                    .reduce(MillerProduct::one, |a, b| a.mul(&b))
            })
            .collect();
        let cpu_s = t.elapsed().as_secs_f64();
        assert_eq!(got, want, "{nvec} x {n} pairs");
        println!("{nvec} x {n} pairs: GPU {gpu_s:.3} s (lines on the CPU included), CPU {cpu_s:.3} s, equal");
    }
    println!("{:?}", d.times());
}

/// Random Groth16-shaped proofs (aggregation does not check them; its cost depends on the count).
fn random_proofs(count: usize, seed: u64) -> Vec<Proof> {
    (0..count)
        .into_par_iter()
        .map(|i| {
            let mut r = ChaCha20Rng::seed_from_u64(seed ^ ((i as u64) << 24));
            Proof {
                a: G1Projective::random(&mut r).to_affine(),
                b: G2Projective::random(&mut r).to_affine(),
                c: G1Projective::random(&mut r).to_affine(),
            }
        })
        .collect()
}

/// Aggregates of 64 and 819 proofs (1,024 after padding), V1 and V2: the bytes with the GPU's
/// Miller loops (every product on the device) equal the CPU's.
#[test]
#[ignore]
fn gpu_aggregates_match_the_cpu() {
    let d = device();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test.srs");
    std::fs::write(&path, srs_bytes(2 * 1024, 11)).unwrap();
    let srs = SrsFile::open(&path).unwrap();
    let include = Scalar::random(ChaCha20Rng::seed_from_u64(3)).to_bytes_le();
    for (count, version) in [(64usize, Version::V2), (64, Version::V1), (819, Version::V2)] {
        let proofs = random_proofs(count, count as u64);
        let pk = srs.prover_key(count.next_power_of_two()).unwrap();
        let t = Instant::now();
        let cpu = aggregate_seal(&pk, &include, proofs.clone(), version).unwrap();
        let cpu_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let gpu = aggregate_seal_on(&pk, &include, proofs, version, Pairings::on(&d)).unwrap();
        let gpu_s = t.elapsed().as_secs_f64();
        assert_eq!(gpu, cpu, "{count} proofs, {version:?}: the GPU's aggregate differs");
        println!(
            "{count} proofs, {version:?}: identical ({} bytes); CPU {cpu_s:.3} s, GPU pairings {gpu_s:.3} s",
            cpu.len()
        );
    }
    println!("{:?}", d.times());
}
