//! Times the CPU kernels at Filecoin sizes: Fr multiplication, NTT 2^k, dense G1 MSM 2^k.
//! Usage: cargo run --release --example cpu_kernels -- [LOG_NTT] [LOG_MSM]
use std::time::Instant;

use blstrs::Scalar;
use ff::Field;
use filsnark::cpu::ntt::EvaluationDomain;
use rand::SeedableRng;

fn main() {
    let args: Vec<u32> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let log_ntt = args.first().copied().unwrap_or(22);
    let log_msm = args.get(1).copied().unwrap_or(20);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);

    let x: Vec<Scalar> = (0..1 << 20).map(|_| Scalar::random(&mut rng)).collect();
    let t = Instant::now();
    let mut acc = Scalar::ONE;
    for _ in 0..8 {
        for v in &x {
            acc *= v;
        }
    }
    let dt = t.elapsed().as_secs_f64();
    println!("fr mul (1 thread, dependent chain): {:.1} ns  [{acc:?}]", dt / (8.0 * x.len() as f64) * 1e9);
    let mut y = x.clone();
    let t = Instant::now();
    for _ in 0..8 {
        for (a, b) in y.iter_mut().zip(&x) {
            *a *= b;
        }
    }
    let dt = t.elapsed().as_secs_f64();
    println!("fr mul (1 thread, independent): {:.1} ns", dt / (8.0 * x.len() as f64) * 1e9);

    let d = EvaluationDomain::new(log_ntt);
    let mut v: Vec<Scalar> = (0..d.n).map(|_| Scalar::random(&mut rng)).collect();
    let t = Instant::now();
    filsnark::cpu::ntt::bit_reverse(&mut v, log_ntt);
    println!("bit_reverse 2^{log_ntt}: {:.3} s", t.elapsed().as_secs_f64());
    for _ in 0..2 {
        let t = Instant::now();
        d.ntt(&mut v);
        println!("ntt 2^{log_ntt}: {:.3} s", t.elapsed().as_secs_f64());
    }

    let n = 1usize << log_msm;
    // Distinct points P_i = P_0 + i·G, as in an SRS (no repeats).
    let pts: Vec<filsnark::ec::P1Affine> = {
        use group::{Curve, Group};
        let mut acc = blstrs::G1Projective::random(&mut rng);
        let g = blstrs::G1Projective::generator();
        let proj: Vec<blstrs::G1Projective> = (0..n)
            .map(|_| {
                acc += g;
                acc
            })
            .collect();
        let mut aff = vec![blstrs::G1Affine::default(); n];
        blstrs::G1Projective::batch_normalize(&proj, &mut aff);
        let raw: Vec<u8> = aff.iter().flat_map(|p| p.to_uncompressed()).collect();
        filsnark::srs::points::all::<filsnark::ec::G1>(&raw)
    };
    let scalars: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
    let split = filsnark::cpu::msm::Split::dense(scalars.iter().map(filsnark::ec::scalar_bytes).collect());
    let t = Instant::now();
    let _ = filsnark::cpu::msm::msm_g1(&pts, &split.scalars);
    println!("msm g1 2^{log_msm} (blst): {:.3} s", t.elapsed().as_secs_f64());
}
