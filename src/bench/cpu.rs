//! `filsnark bench cpu`: the CPU prover's kernels on random inputs, each on the AVX-512 IFMA
//! path and on blst's, with the ratio: the H polynomial (seven transforms over Fr) and the G1
//! MSM (the H MSM's shape: dense random scalars). Wall time of one run (AVX-512: after one
//! warm-up), all cores (rayon).
use std::fmt::Write;
use std::time::Instant;

use anyhow::{bail, Result};
use blstrs::Scalar;
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::cpu::h_poly::h_poly_blst;
use crate::ec::sample::random_progression;
use crate::ec::scalar::as_bytes;
use crate::ec::{scalar_bytes, Curve, ScalarBytes, G1};

/// One kernel's seconds on each path.
pub struct Row {
    pub name: String,
    pub avx512: Option<f64>,
    pub blst: f64,
}

fn seconds<T>(f: impl FnMut() -> T) -> (f64, T) {
    let mut f = f;
    let clock = Instant::now();
    let out = f();
    (clock.elapsed().as_secs_f64(), out)
}

fn random_scalars(n: usize, seed: u64) -> Vec<Scalar> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| Scalar::random(&mut rng)).collect()
}

/// H of 2^log_n evaluations: both paths, checked equal.
pub fn h_poly_row(log_n: u32) -> Result<Row> {
    let n = 1usize << log_n;
    let abc = [random_scalars(n - 1, 1), random_scalars(n - 1, 2), random_scalars(n - 1, 3)];
    let run_blst = || h_poly_blst(abc[0].clone(), abc[1].clone(), abc[2].clone());
    let (blst, want) = seconds(run_blst);
    let mut avx512 = None;
    #[cfg(target_arch = "x86_64")]
    {
        use crate::cpu::avx512::ntt;
        use crate::field::lanes::available;
        if available() {
            let d = ntt::LaneDomain::new(log_n);
            let run = || ntt::h_poly(&d, abc[0].clone(), abc[1].clone(), abc[2].clone());
            run();
            let (t, got) = seconds(run);
            if got != want {
                bail!("bench cpu: the AVX-512 H polynomial differs from blst's at 2^{log_n}");
            }
            avx512 = Some(t);
        }
    }
    Ok(Row { name: format!("H polynomial 2^{log_n}"), avx512, blst })
}

/// Σ k_i·P_i over 2^log_n random G1 points and scalars: both paths, checked equal.
pub fn msm_g1_row(log_n: u32) -> Result<Row> {
    let n = 1usize << log_n;
    let points = random_progression::<G1>(n, &mut ChaCha8Rng::seed_from_u64(7));
    let scalars: Vec<ScalarBytes> = random_scalars(n, 4).iter().map(scalar_bytes).collect();
    let (blst, want) = seconds(|| G1::msm(&points, as_bytes(&scalars), 255));
    let mut avx512 = None;
    #[cfg(target_arch = "x86_64")]
    {
        use crate::cpu::avx512::msm;
        use crate::field::lanes::available;
        if available() {
            let run = || msm::msm_g1(&points, &scalars);
            run();
            let (t, got) = seconds(run);
            if !G1::eq(&got, &want) {
                bail!("bench cpu: the AVX-512 G1 MSM differs from blst's at 2^{log_n}");
            }
            avx512 = Some(t);
        }
    }
    Ok(Row { name: format!("G1 MSM 2^{log_n}"), avx512, blst })
}

/// The table printed by `bench cpu`.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let threads = rayon::current_num_threads();
    let _ = writeln!(s, "CPU kernels ({threads} threads; seconds, one run after a warm-up)");
    let _ = writeln!(s, "{:<24} {:>10} {:>10} {:>8}", "kernel", "AVX-512", "blst", "ratio");
    for r in rows {
        let (a, ratio) = match r.avx512 {
            Some(a) => (format!("{a:.3}"), format!("{:.2}x", r.blst / a)),
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(s, "{:<24} {:>10} {:>10.3} {:>8}", r.name, a, r.blst, ratio);
    }
    #[cfg(target_arch = "x86_64")]
    if !crate::field::lanes::available() {
        let _ = writeln!(s, "(no AVX-512 IFMA here, or FILSNARK_CPU_AVX512=0: blst only)");
    }
    s
}
