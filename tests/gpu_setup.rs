//! `params setup` on the GPU: the fixed-base kernels (module "generator_mul") against the CPU's blst
//! tables, and whole setups with `--device gpu` against `--device cpu` (same seed, the files
//! must be identical). The GPU tests are #[ignore]d (run them on the GPU machine with
//! --include-ignored); the plain test checks that `--device gpu` without a GPU fails clearly
//! and writes nothing.
//!
//! FILSNARK_GPU_SETUP_SIZES (default "2KiB,8MiB") chooses the sector sizes of the file test.
use std::io::Read;
use std::path::Path;
use std::process::Output;
use std::time::Instant;

use blstrs::Scalar;
use ff::{Field, PrimeField};
use filsnark::gpu::generator_mul::{GeneratorMul, DEFAULT_CHUNK};
use filsnark::gpu::Gpu;
use filsnark::setup::engine::CpuTables;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

mod common;
use common::{filsnark, path_str, stderr};

/// Scalars from little-endian canonical bytes.
fn from_le(b: [u8; 32]) -> Scalar {
    Option::from(Scalar::from_repr(b)).expect("a canonical scalar")
}

/// 16 little-endian u16 limbs: `lo` in the lower 15, `top` in the top one.
fn limbs(lo: u16, top: u16) -> Scalar {
    let mut b = [0u8; 32];
    for k in 0..16 {
        let v = if k == 15 { top } else { lo };
        b[2 * k..2 * k + 2].copy_from_slice(&v.to_le_bytes());
    }
    from_le(b)
}

/// 0, 1, r − 1, small values, single windows at the signed-digit boundary, every digit at the
/// boundary (0x8000, carries from 0x8001 and 0xffff), powers of two, r − 2^15.
fn edge_scalars() -> Vec<Scalar> {
    let mut v = vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE, -Scalar::from(0x8000u64)];
    v.extend((2..64u64).map(Scalar::from));
    v.extend([0x7fffu64, 0x8000, 0x8001, 0xffff, 0x1_0000, 0x1_7fff, 0x1_8000].map(Scalar::from));
    v.extend([limbs(0x8000, 0x7000), limbs(0x8001, 0x7000), limbs(0xffff, 0x7000), limbs(0x7fff, 0x73ed)]);
    let two = Scalar::from(2u64);
    v.extend((0..255).map(|k| two.pow_vartime([k as u64])));
    v
}

/// The edge scalars exist (canonical) and the CPU tables, the reference, agree with blstrs on them.
#[test]
fn edge_scalars_on_the_cpu_tables() {
    use group::{prime::PrimeCurveAffine, Curve};
    let s = edge_scalars();
    let t = CpuTables::new();
    let (mut b1, mut b2) = (vec![0u8; s.len() * 96], vec![0u8; s.len() * 192]);
    t.g1.mul_to_bytes(&s, &mut b1);
    t.g2.mul_to_bytes(&s, &mut b2);
    for (i, x) in s.iter().enumerate() {
        let p1 = (blstrs::G1Affine::generator() * x).to_affine().to_uncompressed();
        let p2 = (blstrs::G2Affine::generator() * x).to_affine().to_uncompressed();
        assert_eq!(&b1[i * 96..(i + 1) * 96], &p1[..], "G1, edge scalar {i}");
        assert_eq!(&b2[i * 192..(i + 1) * 192], &p2[..], "G2, edge scalar {i}");
    }
}

fn seeded(tag: &str) -> ChaCha20Rng {
    let seed = rand::rngs::OsRng.next_u64();
    println!("{tag}: seed {seed:#x}");
    ChaCha20Rng::seed_from_u64(seed)
}

/// The first point where two encodings differ, for the failure message.
fn first_difference(got: &[u8], want: &[u8], size: usize, scalars: &[Scalar]) -> Option<String> {
    let i = got.chunks(size).zip(want.chunks(size)).position(|(g, w)| g != w)?;
    Some(format!(
        "point {i} (scalar {:?}) differs:\n got {}\nwant {}",
        scalars[i],
        hex(&got[i * size..(i + 1) * size]),
        hex(&want[i * size..(i + 1) * size])
    ))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
#[ignore]
fn generator_mul_gpu_matches_cpu_tables() {
    let gpu = Gpu::open(0).expect("a GPU");
    let tables = CpuTables::new();
    let mut rng = seeded("fixed_base");
    let mut scalars = edge_scalars();
    scalars.extend((0..1 << 20).map(|_| Scalar::random(&mut rng)));
    let mut want1 = vec![0u8; scalars.len() * 96];
    let mut want2 = vec![0u8; scalars.len() * 192];
    let t = Instant::now();
    tables.g1.mul_to_bytes(&scalars, &mut want1);
    tables.g2.mul_to_bytes(&scalars, &mut want2);
    println!("CPU tables: {} points of G1 and of G2 in {:.2} s", scalars.len(), t.elapsed().as_secs_f64());
    // The default chunk, and a small odd one so that many chunks go through the double buffer.
    for chunk in [DEFAULT_CHUNK, 12_345] {
        let fb = GeneratorMul::with_tables(&gpu, &tables.g1, &tables.g2, chunk).expect("generator_mul module");
        let mut got1 = vec![0x5au8; want1.len()];
        let mut got2 = vec![0x5au8; want2.len()];
        let t = Instant::now();
        fb.g1_to_bytes(&scalars, &mut got1).unwrap();
        let t1 = t.elapsed().as_secs_f64();
        let t = Instant::now();
        fb.g2_to_bytes(&scalars, &mut got2).unwrap();
        let t2 = t.elapsed().as_secs_f64();
        println!("GPU, chunk {chunk}: G1 {t1:.3} s, G2 {t2:.3} s for {} points each", scalars.len());
        if let Some(d) = first_difference(&got1, &want1, 96, &scalars) {
            panic!("G1, chunk {chunk}: {d}");
        }
        if let Some(d) = first_difference(&got2, &want2, 192, &scalars) {
            panic!("G2, chunk {chunk}: {d}");
        }
    }
    // Lengths that are not a multiple of anything, including 0 and 1.
    let fb = GeneratorMul::with_tables(&gpu, &tables.g1, &tables.g2, 4).unwrap();
    for n in [0usize, 1, 2, 3, 7] {
        let mut got = vec![0u8; n * 96];
        fb.g1_to_bytes(&scalars[..n], &mut got).unwrap();
        assert_eq!(got, want1[..n * 96], "G1, {n} points through chunks of 4");
        let mut got = vec![0u8; n * 192];
        fb.g2_to_bytes(&scalars[..n], &mut got).unwrap();
        assert_eq!(got, want2[..n * 192], "G2, {n} points through chunks of 2");
    }
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(o))
}

/// Byte-for-byte equality of two files, read in blocks (they may be gigabytes).
fn same_file(a: &Path, b: &Path) -> Result<(), String> {
    let (la, lb) = (std::fs::metadata(a).unwrap().len(), std::fs::metadata(b).unwrap().len());
    if la != lb {
        return Err(format!("{} is {la} bytes, {} is {lb}", a.display(), b.display()));
    }
    let (mut fa, mut fb) = (std::fs::File::open(a).unwrap(), std::fs::File::open(b).unwrap());
    let (mut ba, mut bb) = (vec![0u8; 16 << 20], vec![0u8; 16 << 20]);
    let mut at = 0u64;
    loop {
        let n = fa.read(&mut ba).unwrap();
        if n == 0 {
            return Ok(());
        }
        fb.read_exact(&mut bb[..n]).unwrap();
        if let Some(i) = ba[..n].iter().zip(&bb[..n]).position(|(x, y)| x != y) {
            return Err(format!("{} and {} differ at byte {}", a.display(), b.display(), at + i as u64));
        }
        at += n as u64;
    }
}

fn setup(size: &str, device: &str, out: &Path) -> Output {
    let t = Instant::now();
    let o = filsnark(&[
        "params",
        "setup",
        "--proof",
        "porep",
        "--sector-size",
        size,
        "--seed",
        "7",
        "--device",
        device,
        "--out",
        path_str(out),
    ]);
    println!("== params setup {size} --device {device}: {:.1} s\n{}", t.elapsed().as_secs_f64(), text(&o));
    assert!(o.status.success(), "params setup {size} --device {device} failed");
    o
}

#[test]
#[ignore]
fn params_setup_gpu_files_equal_cpu_files() {
    let sizes = std::env::var("FILSNARK_GPU_SETUP_SIZES").unwrap_or_else(|_| "2KiB,8MiB".into());
    for size in sizes.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let dir = tempfile::tempdir().unwrap();
        let (gpu_dir, cpu_dir) = (dir.path().join("gpu"), dir.path().join("cpu"));
        let o = setup(size, "gpu", &gpu_dir);
        assert!(String::from_utf8_lossy(&o.stdout).contains("device: GPU"), "--device gpu did not use the GPU");
        setup(size, "cpu", &cpu_dir);
        let mut names: Vec<_> = std::fs::read_dir(&cpu_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        let compared = names.iter().filter(|n| !n.to_string_lossy().ends_with(".insecure")).count();
        assert_eq!(compared, 2, "{size}: expected a .params and a .vk, found {names:?}");
        for name in names.iter().filter(|n| !n.to_string_lossy().ends_with(".insecure")) {
            same_file(&gpu_dir.join(name), &cpu_dir.join(name)).unwrap_or_else(|e| panic!("{size}: {e}"));
            println!("{size}: {} identical", name.to_string_lossy());
        }
    }
}

#[test]
fn params_setup_device_gpu_without_gpu_fails_cleanly() {
    match Gpu::open(0) {
        Ok(_) => {
            println!("a GPU is present: nothing to check here");
            return;
        }
        Err(e) => assert!(std::env::var("FILSNARK_EXPECT_GPU").is_err(), "FILSNARK_EXPECT_GPU is set: {e}"),
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never");
    let o = filsnark(&[
        "params",
        "setup",
        "--sector-size",
        "2KiB",
        "--seed",
        "1",
        "--device",
        "gpu",
        "--out",
        path_str(&out),
    ]);
    let err = stderr(&o);
    assert!(!o.status.success(), "succeeded without a GPU:\n{}", text(&o));
    assert!(err.contains("--device") && err.contains("no GPU") && err.contains("--device cpu"), "{err}");
    assert!(!out.exists(), "{} was created", out.display());
}
