//! `--device` to a [`Backend`]: the CPU, the GPUs, or (`auto`) the GPUs with the CPU behind
//! them. This sits above both backends; neither knows the other. Also the device SnarkPack's
//! pairing products run on ([`pairing_device`]).
use anyhow::Result;
use blstrs::Scalar;

use crate::cpu::backend::CpuBackend;
use crate::gpu::backend::{spent, GpuBackend};
use crate::gpu::pairing::GpuMillerLoops;
use crate::gpu::prover::GpuLimits;
use crate::prover::{Backend, DeviceChoice, Proved, Witness};
use crate::srs::ParamsFile;
use crate::witness::PackedWitness;

/// The GPUs, with the CPU proving any partition a GPU fails on (out of memory, a kernel error),
/// after a warning that names the device and what failed.
pub struct GpusWithCpuFallback {
    gpus: GpuBackend,
    cpu: CpuBackend,
}

impl GpusWithCpuFallback {
    pub fn new(gpus: GpuBackend) -> Self {
        GpusWithCpuFallback { gpus, cpu: CpuBackend::new() }
    }
}

impl Backend for GpusWithCpuFallback {
    fn name(&self) -> &'static str {
        self.gpus.name()
    }
    fn devices(&self) -> Vec<String> {
        self.gpus.devices()
    }
    fn working_bytes(&self, domain: usize) -> u64 {
        self.gpus.working_bytes(domain)
    }
    fn memory_report(&self) -> Vec<String> {
        self.gpus.memory_report()
    }
    fn evaluates(&self, witness: &PackedWitness) -> bool {
        self.gpus.evaluates(witness)
    }
    /// A packed witness the GPU failed on is evaluated on the CPU as part of its proof.
    fn prove(&self, device: usize, srs: &ParamsFile, witness: Witness, r: Scalar, s: Scalar) -> Result<Proved> {
        match self.gpus.prove_borrowed(device, srs, &witness, r, s) {
            Ok((proof, timings)) => Ok(Proved { proof, timings, spent: spent(witness) }),
            Err(e) => {
                eprintln!("warning: {e:#}; proving this partition on the CPU instead");
                self.cpu.prove(0, srs, witness, r, s)
            }
        }
    }
}

/// The backend for a `--device` choice; `limits` caps each GPU's usable memory (to test the
/// streaming path as on a smaller card) and the host memory page-locked for streamed sections. `--device auto` without a GPU says so on stderr
/// and returns the CPU.
pub fn select(choice: &DeviceChoice, limits: GpuLimits) -> Result<Box<dyn Backend>> {
    let count = || crate::gpu::driver::device_count();
    match choice {
        DeviceChoice::Cpu => Ok(Box::new(CpuBackend::new())),
        DeviceChoice::Auto => {
            let opened = count().and_then(|n| GpuBackend::open(&(0..n).collect::<Vec<_>>(), limits));
            match opened {
                Ok(b) => Ok(Box::new(GpusWithCpuFallback::new(b))),
                Err(e) if e.is_no_gpu() => {
                    eprintln!("{e}; proving on the CPU");
                    Ok(Box::new(CpuBackend::new()))
                }
                Err(e) => {
                    eprintln!("warning: the GPU cannot be used ({e}); proving on the CPU");
                    Ok(Box::new(CpuBackend::new()))
                }
            }
        }
        DeviceChoice::Gpu | DeviceChoice::Ordinals(_) => {
            let n = count().map_err(|e| anyhow::anyhow!("--device: {e} (--device cpu proves without one)"))?;
            let ordinals = match choice {
                DeviceChoice::Ordinals(v) => v.clone(),
                _ => (0..n).collect(),
            };
            if let Some(bad) = ordinals.iter().find(|&&i| i >= n) {
                anyhow::bail!(
                    "--device: GPU {bad} does not exist: this machine has {n} CUDA device(s), numbered 0 to {}",
                    n - 1
                );
            }
            Ok(Box::new(GpuBackend::open(&ordinals, limits).map_err(|e| anyhow::anyhow!("--device: {e}"))?))
        }
    }
}

/// The device for SnarkPack's pairing products: GPU 0 when the driver has one and module
/// "miller" loads, else None (the CPU), with a warning when a GPU is there but cannot be used.
/// `FILSNARK_AGG_GPU=0` keeps them on the CPU.
pub fn pairing_device() -> Option<GpuMillerLoops> {
    if std::env::var("FILSNARK_AGG_GPU").is_ok_and(|v| v == "0") {
        return None;
    }
    match GpuMillerLoops::open(0) {
        Ok(d) => Some(d),
        Err(e) if e.is_no_gpu() => None,
        Err(e) => {
            eprintln!("warning: the GPU cannot be used for the aggregation's pairings ({e}); pairing on the CPU");
            None
        }
    }
}
