//! The GPU prover against the CPU prover: the same proof bytes for the same r and s, on real
//! 2KiB PoRep sectors (judged by `verify_seal`) and on test circuits of 2^16 and more
//! constraints with random witnesses (judged by our verifier), with the parameters resident on
//! the device and streamed from host memory, and with the constraints evaluated on the device
//! from the native witness (the default) or on the host by the gadgets. They need a CUDA device, so they are #[ignore]d;
//! the GPU machine runs them with `--include-ignored`. FILSNARK_GPU_TEST_MIN_LOG and _MAX_LOG
//! (default 16 and 20) bound the test circuits' sizes, 2^k constraints, in steps of 4x;
//! FILSNARK_GPU_TEST_WITNESSES (default 2) is the number of random witnesses per size.
mod common;

use std::path::Path;

use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use common::{filsnark, init_env, path_str, seal, stderr};
use ff::Field;
use filsnark::circuit::r1cs::R1csCs;
use filsnark::circuit::witness::WitnessCs;
use filsnark::gpu::prover::{GpuLimits, GpuProver};
use filsnark::gpu::Gpu;
use filsnark::groth16::PreparedVerifyingKey;
use filsnark::setup::engine::SetupDevice;
use filsnark::setup::{generate_on, ToxicWaste};
use filsnark::srs::ParamsFile;
use rand::SeedableRng;

/// A chain of `n` constraints (x + 1)·y = z, z feeding the next x, with y drawn as 0, 1 or a
/// random element (so the A, B and C columns and the 0/1 scalar split all get work), and the
/// last z made public.
struct Chain {
    n: usize,
    seed: u64,
}

impl Circuit<Scalar> for Chain {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed);
        let mut x_val = Scalar::random(&mut rng);
        let mut x = cs.alloc(|| "x0", || Ok(x_val))?;
        for i in 0..self.n {
            let y_val = match i % 5 {
                0 => Scalar::ZERO,
                1 | 2 => Scalar::ONE,
                _ => Scalar::random(&mut rng),
            };
            let z_val = (x_val + Scalar::ONE) * y_val;
            let y = cs.alloc(|| "y", || Ok(y_val))?;
            let z = cs.alloc(|| "z", || Ok(z_val))?;
            cs.enforce(|| "c", |lc| lc + x + CS::one(), |lc| lc + y, |lc| lc + z);
            x = z;
            x_val = z_val;
        }
        let out = cs.alloc_input(|| "out", || Ok(x_val))?;
        cs.enforce(|| "out", |lc| lc + x, |lc| lc + CS::one(), |lc| lc + out);
        Ok(())
    }
}

fn env_log(name: &str, default: u32) -> u32 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Makes parameters for a Chain of 2^log_n − 8 constraints (a domain of 2^log_n) in `dir`, on
/// GPU 0 (the same bytes as the CPU's, tests/gpu_setup.rs; minutes faster at 2^24).
fn chain_params(dir: &Path, log_n: u32) -> ParamsFile {
    let n = (1usize << log_n) - 8;
    let mut cs = <R1csCs as ConstraintSystem<Scalar>>::new();
    Chain { n, seed: 0 }.synthesize(&mut cs).unwrap();
    let path = dir.join(format!("chain-{log_n}.params"));
    let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let device = SetupDevice::Gpu(Gpu::open(0).expect("a GPU"));
    generate_on(cs.finish().unwrap(), &ToxicWaste::from_seed(log_n as u64), file, &device, false, false).unwrap();
    ParamsFile::open(&path).unwrap()
}

#[test]
#[ignore]
fn test_circuits_same_bytes_on_gpu_and_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let resident = GpuProver::open(0, GpuLimits::default()).expect("a GPU");
    // A cap below the parameters forces every MSM to stream its points from host memory.
    let streamed = GpuProver::open(0, GpuLimits { mem_cap: Some(3 << 30), host_pin: 0 }).expect("a GPU");
    // The same, with every streamed section page-locked in host memory and uploaded from there.
    let pinned = GpuProver::open(0, GpuLimits { mem_cap: Some(3 << 30), host_pin: 1 << 40 }).expect("a GPU");
    for log_n in (env_log("FILSNARK_GPU_TEST_MIN_LOG", 16)..=env_log("FILSNARK_GPU_TEST_MAX_LOG", 20)).step_by(2) {
        let srs = chain_params(dir.path(), log_n);
        let pvk = PreparedVerifyingKey::new(&srs.vk);
        for seed in 1..=env_log("FILSNARK_GPU_TEST_WITNESSES", 2) as u64 {
            let mut cs = WitnessCs::with_capacity(1 << log_n);
            Chain { n: (1 << log_n) - 8, seed }.synthesize(&mut cs).unwrap();
            let asg = cs.finish();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(100 + seed);
            let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
            let (cpu, _) = filsnark::cpu::prover::prove(&srs, asg.clone(), r, s).unwrap();
            let (gpu, t) = resident.prove(&srs, &asg, r, s).unwrap();
            assert_eq!(gpu.to_bytes(), cpu.to_bytes(), "2^{log_n}, witness {seed}: GPU and CPU proofs differ");
            assert!(pvk.verify(&gpu, &asg.inputs).unwrap(), "2^{log_n}: the GPU proof does not verify");
            println!("2^{log_n} witness {seed}: identical, verified; GPU {t:?}");
            if log_n <= 18 {
                let (st, _) = streamed.prove(&srs, &asg, r, s).unwrap();
                assert_eq!(st.to_bytes(), cpu.to_bytes(), "2^{log_n}: streamed GPU proof differs");
                let (pn, _) = pinned.prove(&srs, &asg, r, s).unwrap();
                assert_eq!(pn.to_bytes(), cpu.to_bytes(), "2^{log_n}: GPU proof from pinned sections differs");
            }
        }
    }
}

#[test]
#[ignore]
fn porep_2kib_same_bytes_on_gpu_and_cpu_and_chain_accepts() {
    let params = init_env();
    let dir = tempfile::tempdir().unwrap();
    let (miner, sector) = (1000u64, 3u64);
    let c1 = seal::seal_2kib(miner, sector, 11, dir.path()).unwrap();
    let c1_path = dir.path().join("c1.json");
    std::fs::write(&c1_path, seal::lotus_wrapper(&c1, sector).unwrap()).unwrap();
    let prove = |device: &[&str], name: &str| {
        let out = dir.path().join(name);
        let mut args = vec!["prove", "porep", "--c1", path_str(&c1_path), "--params-dir", path_str(&params)];
        args.extend_from_slice(&["--seed", "42", "-o", path_str(&out)]);
        args.extend_from_slice(device);
        let o = filsnark(&args);
        assert!(o.status.success(), "prove {device:?} failed: {}", stderr(&o));
        (std::fs::read(&out).unwrap(), String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o))
    };
    let (cpu, _) = prove(&["--device", "cpu"], "cpu.proof");
    // The native witness by default: its constraints evaluated on the device.
    let (gpu, log) = prove(&["--device", "gpu"], "gpu.proof");
    assert!(log.contains("resident"), "expected the parameters resident on the device:\n{log}");
    // The gadgets' assignment, evaluated on the host and uploaded.
    let (gadgets, _) = prove(&["--device", "gpu", "--witness", "gadgets"], "gadgets.proof");
    assert_eq!(gadgets, cpu, "GPU (gadget assignment) and CPU proofs differ for the same seed");
    let (streamed, log) =
        prove(&["--device", "0", "--gpu-mem-cap", "2560MiB", "--pin-host-mem", "0"], "streamed.proof");
    assert!(log.contains("streamed"), "expected streamed parameters under a 2.5 GiB cap:\n{log}");
    assert!(!log.contains("pinned in host memory"), "--pin-host-mem 0 pins nothing:\n{log}");
    let (pinned, log) = prove(&["--device", "0", "--gpu-mem-cap", "2560MiB", "--pin-host-mem", "1GiB"], "pinned.proof");
    assert!(log.contains("pinned in host memory"), "expected streamed sections page-locked:\n{log}");
    assert_eq!(pinned, cpu, "GPU proof from page-locked sections and CPU proof differ for the same seed");
    assert_eq!(gpu, cpu, "GPU and CPU proofs differ for the same seed");
    assert_eq!(streamed, cpu, "streamed GPU and CPU proofs differ for the same seed");
    let accepted = seal::chain_accepts(&c1, miner, sector, &gpu).unwrap();
    assert!(accepted, "verify_seal rejects the GPU proof");
}

/// A real device failure: another allocation fills the GPU's memory, so the prover's own
/// allocations fail with CUDA's out-of-memory error. `--device gpu` (no fallback) reports it
/// naming the device; `--device auto` (fallback) proves the partition on the CPU, to the same
/// bytes; once the memory is free again the GPU proves as before.
#[test]
#[ignore]
fn device_out_of_memory_falls_back_to_cpu_under_auto_only() {
    use filsnark::devices::GpusWithCpuFallback;
    use filsnark::gpu::backend::GpuBackend;
    use filsnark::prover::{Backend, Witness};
    let dir = tempfile::tempdir().unwrap();
    let log_n = 16;
    let srs = chain_params(dir.path(), log_n);
    let mut cs = WitnessCs::with_capacity(1 << log_n);
    Chain { n: (1 << log_n) - 8, seed: 7 }.synthesize(&mut cs).unwrap();
    let asg = cs.finish();
    let (r, s) = (Scalar::from(3u64), Scalar::from(5u64));
    let (cpu, _) = filsnark::cpu::prover::prove(&srs, asg.clone(), r, s).unwrap();
    let auto = GpusWithCpuFallback::new(GpuBackend::open(&[0], GpuLimits::default()).expect("a GPU"));
    let strict = GpuBackend::open(&[0], GpuLimits::default()).expect("a GPU");

    let hog = filsnark::gpu::Gpu::open(0).unwrap();
    let mut held = Vec::new();
    for block in [1usize << 30, 64 << 20, 1 << 20] {
        while let Ok(b) = hog.alloc::<u8>(block) {
            held.push(b);
        }
    }
    let (free, total) = hog.ctx.mem_info().unwrap();
    println!("device filled: {} MiB of {} MiB free", free >> 20, total >> 20);

    let err = match strict.prove(0, &srs, Witness::Assignment(asg.clone()), r, s) {
        Ok(_) => panic!("a full device must fail"),
        Err(e) => format!("{e:#}"),
    };
    println!("--device gpu: {err}");
    assert!(err.contains("GPU 0"), "the error does not name the device: {err}");
    assert!(err.to_lowercase().contains("out of memory"), "not an out-of-memory error: {err}");
    let fell_back =
        auto.prove(0, &srs, Witness::Assignment(asg.clone()), r, s).expect("--device auto falls back to the CPU");
    assert!(fell_back.spent.is_none(), "the fallback did not prove on the CPU (it consumes the assignment)");
    assert_eq!(fell_back.proof.to_bytes(), cpu.to_bytes(), "the fallback proof differs from the CPU proof");

    drop(held);
    // The frees are stream-ordered: the memory is the device's again once the stream has passed them.
    hog.stream.synchronize().unwrap();
    let gpu =
        strict.prove(0, &srs, Witness::Assignment(asg.clone()), r, s).expect("the GPU proves once memory is free");
    assert_eq!(gpu.proof.to_bytes(), cpu.to_bytes(), "GPU proof after the failure differs");
}

#[test]
fn missing_gpu_is_a_clear_error_for_device_gpu() {
    if filsnark::gpu::driver::device_count().is_ok() {
        return; // there is a GPU: this check is for machines without one
    }
    // The output goes to a directory that exists, so the only thing wrong is the device.
    let dir = std::env::temp_dir().join(format!("filsnark-nogpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("never.proof");
    let o = filsnark(&["prove", "porep", "--device", "gpu", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--device") && stderr(&o).contains("no GPU"), "{}", stderr(&o));
    assert!(!out.exists(), "a failed run left {}", out.display());
    std::fs::remove_dir_all(&dir).ok();
}
