//! GPU NTT and H-polynomial tests against the CPU reference (`filsnark::cpu::ntt`,
//! `filsnark::cpu::h_poly`). They need a CUDA device, so they are #[ignore]d; run them
//! on the GPU machine with `--include-ignored`. Inputs are fresh random values each run
//! (the seed is printed); outputs are poisoned before the kernels write them.
//! The non-ignored test checks that a machine without a GPU gets a clean "no GPU".
use blstrs::Scalar;
use ff::Field;
use filsnark::cpu::h_poly::h_poly;
use filsnark::cpu::ntt::EvaluationDomain;
use filsnark::gpu::ntt::{plan, scalar_words, HBuffers, Ntt, Occupancy, WORDS};
use filsnark::gpu::{DeviceBuffer, Gpu};
use rand::{RngCore, SeedableRng};
use rayon::prelude::*;

#[test]
fn ntt_without_gpu_is_reported_cleanly() {
    match Gpu::open(0) {
        Err(e) => assert!(e.is_no_gpu() && std::env::var("FILSNARK_EXPECT_GPU").is_err(), "{e}"),
        Ok(gpu) => {
            Ntt::new(&gpu).expect("module ntt loads where there is a GPU");
        }
    }
    // the plan is what the kernels support: radices 1..=9 summing to log_n
    for l in 1..=30 {
        let p = plan(l);
        assert_eq!(p.iter().sum::<u32>(), l);
        assert!(p.iter().all(|&r| (1..=9).contains(&r)), "{l}: {p:?}");
        assert!(p.windows(2).all(|w| w[0] >= w[1]));
    }
}

/// Largest log size the small-size tests use (FILSNARK_NTT_MAX_LOG, default 20; smaller
/// under compute-sanitizer).
fn max_log() -> u32 {
    std::env::var("FILSNARK_NTT_MAX_LOG").ok().and_then(|s| s.parse().ok()).unwrap_or(20)
}

/// The Ntt under test: FILSNARK_NTT_OCC=3 selects the three-blocks-per-SM kernels, else the
/// default four-blocks build.
fn new_ntt(gpu: &Gpu) -> Ntt {
    let occ = match std::env::var("FILSNARK_NTT_OCC").as_deref() {
        Ok("3") => Occupancy::Three,
        _ => Occupancy::Four,
    };
    println!("kernels: {occ:?} blocks per SM");
    Ntt::with_occupancy(gpu, occ).unwrap()
}

fn seed() -> u64 {
    let s = rand::rngs::OsRng.next_u64();
    println!("seed {s}");
    s
}

fn random(n: usize, seed: u64, tag: u64) -> Vec<Scalar> {
    (0..n)
        .into_par_iter()
        .chunks(1 << 12)
        .flat_map_iter(|idx| {
            let mut r = rand_chacha::ChaCha20Rng::seed_from_u64(seed ^ tag.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            r.set_stream(idx[0] as u64);
            idx.into_iter().map(move |_| Scalar::random(&mut r)).collect::<Vec<_>>()
        })
        .collect()
}

fn download(b: &DeviceBuffer<u32>) -> Vec<u32> {
    let mut h = vec![0u32; b.len()];
    b.copy_to_host(&mut h).expect("download");
    h
}

/// Index of the first differing element, if any.
fn first_diff(got: &[u32], want: &[Scalar]) -> Option<usize> {
    let w = scalar_words(want);
    (0..want.len()).find(|&i| got[i * WORDS..(i + 1) * WORDS] != w[i * WORDS..(i + 1) * WORDS])
}

fn check_ntt(gpu: &Gpu, ntt: &Ntt, log_n: u32, inverse: bool, seed: u64) {
    let n = 1usize << log_n;
    let x = random(n, seed, (log_n as u64) << 1 | inverse as u64);
    let mut want = x.clone();
    let d = EvaluationDomain::new(log_n);
    if inverse {
        d.intt(&mut want)
    } else {
        d.ntt(&mut want)
    }
    let mut buf = gpu.upload(scalar_words(&x)).unwrap();
    let mut tmp = gpu.alloc::<u32>(n * WORDS).unwrap();
    tmp.fill_bytes(0xA5).unwrap();
    ntt.ntt_with(gpu, &mut buf, &mut tmp, log_n, inverse).unwrap();
    let got = download(&buf);
    if let Some(i) = first_diff(&got, &want) {
        panic!("NTT 2^{log_n} inverse={inverse}: element {i} of {n} differs from the CPU (seed {seed})");
    }
}

#[test]
#[ignore]
fn gpu_ntt_matches_cpu_2_1_to_2_20() {
    let gpu = Gpu::open(0).unwrap();
    let ntt = new_ntt(&gpu);
    let s = seed();
    for log_n in 1..=max_log() {
        for inverse in [false, true] {
            check_ntt(&gpu, &ntt, log_n, inverse, s);
        }
        println!("2^{log_n}: forward and inverse equal to the CPU ({:?})", plan(log_n));
    }
}

#[test]
#[ignore]
fn gpu_ntt_matches_cpu_large() {
    let gpu = Gpu::open(0).unwrap();
    let ntt = new_ntt(&gpu);
    let s = seed();
    for log_n in [24, 25] {
        check_ntt(&gpu, &ntt, log_n, false, s);
        check_ntt(&gpu, &ntt, log_n, true, s);
        println!("2^{log_n}: forward and inverse equal to the CPU ({:?})", plan(log_n));
    }
}

#[test]
#[ignore]
fn gpu_ntt_round_trip_2_27() {
    // 2^27 on the CPU is slow: check forward then inverse gives the input back, and a few
    // forward outputs by direct evaluation.
    let gpu = Gpu::open(0).unwrap();
    let ntt = new_ntt(&gpu);
    let s = seed();
    let log_n = 27;
    let n = 1usize << log_n;
    let x = random(n, s, 99);
    let mut buf = gpu.upload(scalar_words(&x)).unwrap();
    ntt.ntt(&gpu, &mut buf, log_n, false).unwrap();
    let fwd = download(&buf);
    let w = filsnark::field::root_of_unity(log_n);
    for i in [0usize, 1, 12345, n / 2 + 7, n - 1] {
        let at = w.pow_vartime([i as u64]);
        let e = x.par_chunks(1 << 16).enumerate().map(|(c, ch)| {
            let mut acc = Scalar::ZERO;
            let mut p = at.pow_vartime([(c << 16) as u64]);
            for v in ch {
                acc += *v * p;
                p *= at;
            }
            acc
        });
        let want = e.reduce(|| Scalar::ZERO, |a, b| a + b);
        assert_eq!(&fwd[i * WORDS..(i + 1) * WORDS], scalar_words(&[want]), "2^27 forward element {i} (seed {s})");
    }
    ntt.ntt(&gpu, &mut buf, log_n, true).unwrap();
    let back = download(&buf);
    assert!(first_diff(&back, &x).is_none(), "2^27 inverse(forward(x)) != x (seed {s})");
    println!("2^27: forward spot checks and round trip ok");
}

#[test]
#[ignore]
fn gpu_h_poly_matches_cpu() {
    let gpu = Gpu::open(0).unwrap();
    let ntt = new_ntt(&gpu);
    let s = seed();
    let lens = [1usize, 2, 3, 4, 5, 17, 100, 512, 1000, 1 << 10, (1 << 12) - 7, (1 << 16) + 3, 300_001, 1 << 20];
    for (k, &len) in lens.iter().enumerate().filter(|(_, &l)| l <= 1 << max_log()) {
        let (a, b, c) =
            (random(len, s, 3 * k as u64), random(len, s, 3 * k as u64 + 1), random(len, s, 3 * k as u64 + 2));
        let want = h_poly(a.clone(), b.clone(), c.clone());
        let n = len.next_power_of_two();
        assert_eq!(want.len(), n - 1);
        for buffers in [HBuffers::Four, HBuffers::Three] {
            let got = download(&ntt.h_poly(&gpu, &a, &b, &c, buffers).unwrap());
            assert_eq!(got.len(), n * WORDS);
            if let Some(i) = first_diff(&got, &want) {
                panic!("h_poly len {len} (n {n}, {buffers:?}): coefficient {i} differs from the CPU (seed {s})");
            }
            assert!(got[(n - 1) * WORDS..].iter().all(|&w| w == 0), "h_poly len {len}: last element not zero");
        }
        println!("h_poly len {len} (n = {n}): {} coefficients equal to the CPU, fused and in three buffers", n - 1);
    }
}
