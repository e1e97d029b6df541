//! GPU MSM against blst, on fresh random inputs (the seed is printed). The GPU tests are
//! #[ignore]d (run them on the GPU machine with --include-ignored); the plain test checks that a
//! machine without a GPU gets a clean "no GPU" answer.
//!
//! Inputs: scalars mixing 0, 1, 2, small values, r-1 and random ones; points including infinity,
//! repeated points with equal scalars (P + P in a bucket) and P, -P pairs (P - P).
use blst::*;
use blstrs::Scalar;
use ff::Field;
use filsnark::cpu::msm::{msm_g1, msm_g2};
use filsnark::ec::{scalar_bytes, Curve};
use filsnark::gpu::kernels::SrsKernels;
use filsnark::gpu::layout::{fr_words, Group, G1, G2};
use filsnark::gpu::msm::{Msm, MsmPoints, MsmTuning};
use filsnark::gpu::selftest::{affine, random_points};
use filsnark::gpu::{convert, DeviceBuffer, Gpu, Result};
use filsnark::srs::RawPoints;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

#[test]
fn no_gpu_is_reported_cleanly() {
    match Gpu::open(0) {
        Err(e) => assert!(e.is_no_gpu() || std::env::var("FILSNARK_EXPECT_GPU").is_ok(), "{e}"),
        Ok(gpu) => {
            if let Err(e) = Msm::new(&gpu) {
                panic!("a GPU is present but the MSM modules do not load: {e}");
            }
        }
    }
}

fn rng(tag: &str) -> ChaCha20Rng {
    let seed = rand::rngs::OsRng.next_u64();
    println!("{tag}: seed {seed:#x}");
    ChaCha20Rng::seed_from_u64(seed)
}

fn setup() -> (Gpu, Msm) {
    let gpu = Gpu::open(0).expect("no GPU");
    let msm = Msm::new(&gpu).expect("MSM modules");
    (gpu, msm)
}

/// A group with the calls the tests need.
trait TestGroup: Group {
    fn gpu_msm(m: &Msm, gpu: &Gpu, p: MsmPoints, s: &DeviceBuffer<u32>, chunk: usize) -> Result<Self::Jac>;
    fn cpu_msm(p: &[Self::Aff], s: &[blst_scalar]) -> Self::Jac;
}

impl TestGroup for G1 {
    fn gpu_msm(m: &Msm, gpu: &Gpu, p: MsmPoints, s: &DeviceBuffer<u32>, chunk: usize) -> Result<blst_p1> {
        m.msm_g1(gpu, p, s, chunk)
    }
    fn cpu_msm(p: &[blst_p1_affine], s: &[blst_scalar]) -> blst_p1 {
        msm_g1(p, s)
    }
}

impl TestGroup for G2 {
    fn gpu_msm(m: &Msm, gpu: &Gpu, p: MsmPoints, s: &DeviceBuffer<u32>, chunk: usize) -> Result<blst_p2> {
        m.msm_g2(gpu, p, s, chunk)
    }
    fn cpu_msm(p: &[blst_p2_affine], s: &[blst_scalar]) -> blst_p2 {
        msm_g2(p, s)
    }
}

fn is_inf<G: Group>(p: &G::Aff) -> bool {
    G::aff_words(p).iter().all(|&w| w == 0)
}

/// n points: random, with infinity at every 97th index, runs of one repeated point, P/-P pairs.
fn points<G: Group>(n: usize, r: &mut ChaCha20Rng) -> Vec<G::Aff> {
    let mut j = random_points::<G>(n, r.next_u64(), 1);
    for i in 0..n {
        match i % 97 {
            5 => j[i] = G::Jac::default(),
            10..=13 if i >= 10 => j[i] = j[i - (i % 97) + 9],
            20 if i >= 1 => j[i] = G::neg(&j[i - 1]),
            _ => {}
        }
    }
    affine::<G>(&j)
}

/// n scalars: 0, 1, 2, small, r-1, random; equal scalars on the repeated points and P/-P pairs.
fn scalars(n: usize, r: &mut ChaCha20Rng) -> Vec<Scalar> {
    let mut s: Vec<Scalar> = (0..n)
        .map(|_| match r.gen_range(0..10) {
            0 | 1 => Scalar::ZERO,
            2 | 3 => Scalar::ONE,
            4 => Scalar::from(r.gen_range(2..1000u64)),
            5 => -Scalar::ONE,
            6 => Scalar::from(2u64),
            _ => Scalar::random(&mut *r),
        })
        .collect();
    for i in 0..n {
        if matches!(i % 97, 10..=13 | 20) && i >= 10 {
            s[i] = s[i - 1];
        }
    }
    s
}

fn upload_scalars(gpu: &Gpu, s: &[Scalar]) -> DeviceBuffer<u32> {
    let w: Vec<u32> = s.iter().flat_map(|x| fr_words(&blst_fr::from(*x))).collect();
    gpu.upload(&w).unwrap()
}

fn upload_points<G: Group>(gpu: &Gpu, p: &[G::Aff]) -> DeviceBuffer<u32> {
    let w: Vec<u32> = p.iter().flat_map(G::aff_words).collect();
    gpu.upload(&w).unwrap()
}

fn reference<G: TestGroup>(p: &[G::Aff], s: &[Scalar]) -> G::Jac {
    let (pp, ss): (Vec<G::Aff>, Vec<blst_scalar>) =
        p.iter().zip(s).filter(|(p, _)| !is_inf::<G>(p)).map(|(p, s)| (*p, scalar_bytes(s))).unzip();
    if pp.is_empty() {
        return G::Jac::default();
    }
    G::cpu_msm(&pp, &ss)
}

fn serialized<G: Group>(p: &[G::Aff]) -> Vec<u8> {
    let mut b = vec![0u8; p.len() * G::SER];
    for (a, o) in p.iter().zip(b.chunks_mut(G::SER)) {
        G::serialize(a, o);
    }
    b
}

fn check_sizes<G: TestGroup>(sizes: &[usize]) {
    let (gpu, msm) = setup();
    let mut r = rng(G::NAME);
    for &n in sizes {
        let p = points::<G>(n, &mut r);
        let s = scalars(n, &mut r);
        let (dp, ds) = (upload_points::<G>(&gpu, &p), upload_scalars(&gpu, &s));
        let got = G::gpu_msm(&msm, &gpu, MsmPoints::Device { buf: &dp, first: 0 }, &ds, 0).unwrap();
        assert!(G::eq(&got, &reference::<G>(&p, &s)), "{} MSM of {n} points differs from blst", G::NAME);
        println!("{} n = {n}: ok", G::NAME);
    }
}

#[test]
#[ignore]
fn g1_msm_matches_blst() {
    check_sizes::<G1>(&[1, 2, 3, 31, 33, 1000, 4097, 65_537, 1 << 20]);
}

#[test]
#[ignore]
fn g2_msm_matches_blst() {
    check_sizes::<G2>(&[1, 3, 100, 4097, 65_537, 1 << 20]);
}

/// The sort in window groups on its own stream (MsmTuning::groups: one group per window down
/// to one for all) and a forced window with narrow windows (c = 13: 20 windows, 16 of 13 bits
/// and 4 of 12) give the sum blst gives, on the device and streamed in chunks.
#[test]
#[ignore]
fn window_groups_match_blst() {
    let gpu = Gpu::open(0).expect("no GPU");
    let mut r = rng("groups");
    let n = 70_001;
    let p = points::<G1>(n, &mut r);
    let s = scalars(n, &mut r);
    let want = reference::<G1>(&p, &s);
    let (dp, ds) = (upload_points::<G1>(&gpu, &p), upload_scalars(&gpu, &s));
    for (groups, window, chunk) in
        [(1, Some(13), 0), (3, Some(13), 0), (20, Some(13), 0), (7, None, 20_000), (64, None, 0)]
    {
        let tuning = MsmTuning { groups: Some(groups), window, ..MsmTuning::default() };
        let msm = Msm::with_tuning(&gpu, tuning).expect("MSM modules");
        let got = G1::gpu_msm(&msm, &gpu, MsmPoints::Device { buf: &dp, first: 0 }, &ds, chunk).unwrap();
        assert!(G1::eq(&got, &want), "groups {groups}, window {window:?}, chunk {chunk}: differs from blst");
    }
}

/// Small sizes only (the compute-sanitizer pass).
#[test]
#[ignore]
fn small_msm_matches_blst() {
    check_sizes::<G1>(&[1, 33, 3000]);
    check_sizes::<G2>(&[2, 700]);
    check_batch::<G1>(5000, 1000);
}

/// Streaming from host bytes in chunks of 1000 points, chunked device points, and one pass over
/// the whole device buffer give the same sum as blst; a corrupted point is reported by index.
fn check_streams<G: TestGroup>(n: usize) {
    let (gpu, msm) = setup();
    let mut r = rng(G::NAME);
    let p = points::<G>(n, &mut r);
    let s = scalars(n, &mut r);
    let bytes = serialized::<G>(&p);
    let ds = upload_scalars(&gpu, &s);
    let sm = SrsKernels::load(&gpu).unwrap();
    let (dp, status) = convert::convert_section::<G>(&gpu, &sm, &bytes).unwrap();
    assert!(status.iter().all(|&x| x == 0));
    let want = reference::<G>(&p, &s);
    let host = G::gpu_msm(&msm, &gpu, MsmPoints::Host(RawPoints::memory(&bytes)), &ds, 1000).unwrap();
    let dev = G::gpu_msm(&msm, &gpu, MsmPoints::Device { buf: &dp, first: 0 }, &ds, 0).unwrap();
    let chunked = G::gpu_msm(&msm, &gpu, MsmPoints::Device { buf: &dp, first: 0 }, &ds, 1000).unwrap();
    assert!(G::eq(&dev, &want), "{} device path differs from blst", G::NAME);
    assert!(G::eq(&host, &want), "{} host (streamed) path differs from blst", G::NAME);
    assert!(G::eq(&chunked, &want), "{} chunked device path differs from blst", G::NAME);
    // a sub-range through `first`
    let ds2 = upload_scalars(&gpu, &s[7..]);
    let sub = G::gpu_msm(&msm, &gpu, MsmPoints::Device { buf: &dp, first: 7 }, &ds2, 0).unwrap();
    assert!(G::eq(&sub, &reference::<G>(&p[7..], &s[7..])), "{} points from `first`", G::NAME);
    let mut bad = bytes.clone();
    let k = n / 2 + 3;
    bad[(k + 1) * G::SER - 1] ^= 1;
    let Err(e) = G::gpu_msm(&msm, &gpu, MsmPoints::Host(RawPoints::memory(&bad)), &ds, 1000) else {
        panic!("corrupt point accepted")
    };
    assert!(e.to_string().contains(&format!("point {k} ")), "{e}");
    println!("{} streams ok; bad point: {e}", G::NAME);
}

#[test]
#[ignore]
fn host_stream_equals_device_g1() {
    check_streams::<G1>(10_007);
}

#[test]
#[ignore]
fn host_stream_equals_device_g2() {
    check_streams::<G2>(3_001);
}

fn check_batch<G: TestGroup>(n: usize, chunk: usize) {
    let (gpu, msm) = setup();
    let mut r = rng("batch");
    let p = points::<G>(n, &mut r);
    let bits: Vec<bool> = (0..n).map(|_| r.gen_bool(0.5)).collect();
    let mut words = vec![0u32; n.div_ceil(32)];
    for (i, _) in bits.iter().enumerate().filter(|b| *b.1) {
        words[i / 32] |= 1 << (i % 32);
    }
    // the reference: an MSM with scalars 1 and 0
    let ones: Vec<Scalar> = bits.iter().map(|&b| if b { Scalar::ONE } else { Scalar::ZERO }).collect();
    let want = reference::<G>(&p, &ones);
    let bm = gpu.upload(&words).unwrap();
    let dp = upload_points::<G>(&gpu, &p);
    let bytes = serialized::<G>(&p);
    let dev = if G::W == 12 {
        let g = msm.batch_add_g1(&gpu, MsmPoints::Device { buf: &dp, first: 0 }, &bm, n).unwrap();
        G::from_jac_words(&G1::jac_words(&g))
    } else {
        let g = msm.batch_add_g2(&gpu, MsmPoints::Device { buf: &dp, first: 0 }, &bm, n).unwrap();
        G::from_jac_words(&G2::jac_words(&g))
    };
    assert!(G::eq(&dev, &want), "{} batch addition of {n} points differs from blst", G::NAME);
    if G::W == 12 {
        let h = msm.batch_add_g1_chunked(&gpu, MsmPoints::Host(RawPoints::memory(&bytes)), &bm, n, chunk).unwrap();
        assert!(G::eq(&G::from_jac_words(&G1::jac_words(&h)), &want), "streamed batch addition differs");
    }
    // the same bits as scalars through the MSM (no dense scalar: the ones bucket alone)
    let ds = upload_scalars(&gpu, &ones);
    let m = G::gpu_msm(&msm, &gpu, MsmPoints::Device { buf: &dp, first: 0 }, &ds, 0).unwrap();
    assert!(G::eq(&m, &want), "{} MSM with 0/1 scalars differs", G::NAME);
    println!("{} batch addition n = {n}: ok", G::NAME);
}

#[test]
#[ignore]
fn batch_add_matches_blst() {
    check_batch::<G1>(100_003, 1000);
    check_batch::<G1>(1 << 20, 0);
    check_batch::<G2>(20_001, 0);
}

/// One huge bucket (all scalars 3, points in equal pairs): the run reduction goes several levels
/// deep and P + P happens inside the bucket.
fn check_skewed<G: TestGroup>(n: usize) {
    let (gpu, msm) = setup();
    let mut r = rng("skewed");
    let half = affine::<G>(&random_points::<G>(n / 2 + 1, r.next_u64(), 3));
    let p: Vec<G::Aff> = (0..n).map(|i| half[i / 2]).collect();
    let s: Vec<Scalar> = (0..n)
        .map(|i| match i % 50 {
            0 => Scalar::ZERO,
            1 => Scalar::ONE,
            2 => -Scalar::from(3u64),
            _ => Scalar::from(3u64),
        })
        .collect();
    let (dp, ds) = (upload_points::<G>(&gpu, &p), upload_scalars(&gpu, &s));
    let got = G::gpu_msm(&msm, &gpu, MsmPoints::Device { buf: &dp, first: 0 }, &ds, 0).unwrap();
    assert!(G::eq(&got, &reference::<G>(&p, &s)), "{} skewed MSM differs from blst", G::NAME);
    let zero = upload_scalars(&gpu, &vec![Scalar::ZERO; n]);
    let z = G::gpu_msm(&msm, &gpu, MsmPoints::Device { buf: &dp, first: 0 }, &zero, 0).unwrap();
    assert!(G::eq(&z, &G::Jac::default()), "all-zero scalars must give infinity");
    println!("{} skewed n = {n}: ok", G::NAME);
}

#[test]
#[ignore]
fn skewed_buckets_match_blst() {
    check_skewed::<G1>(300_000);
    check_skewed::<G2>(50_000);
}
