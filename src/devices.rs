//! `--device` to a [`Backend`]: the CPU, the GPUs, or (`auto`) the GPUs with the CPU behind
//! them. This sits above both backends; neither knows the other.
use anyhow::Result;
use blstrs::Scalar;

use crate::circuit::Assignment;
use crate::cpu::backend::CpuBackend;
use crate::gpu::backend::GpuBackend;
use crate::prover::{Backend, DeviceChoice, Proved};
use crate::srs::ParamsFile;

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
    fn prove(&self, device: usize, srs: &ParamsFile, asg: Assignment, r: Scalar, s: Scalar) -> Result<Proved> {
        match self.gpus.prove_borrowed(device, srs, &asg, r, s) {
            Ok((proof, timings)) => Ok(Proved { proof, timings, spent: Some(asg) }),
            Err(e) => {
                eprintln!("warning: {e:#}; proving this partition on the CPU instead");
                self.cpu.prove(0, srs, asg, r, s)
            }
        }
    }
}

/// The backend for a `--device` choice; `gpu_mem_cap` caps each GPU's usable memory (to test
/// the streaming path as on a smaller card). `--device auto` without a GPU says so on stderr
/// and returns the CPU.
pub fn select(choice: &DeviceChoice, gpu_mem_cap: Option<u64>) -> Result<Box<dyn Backend>> {
    let count = || crate::gpu::driver::device_count();
    match choice {
        DeviceChoice::Cpu => Ok(Box::new(CpuBackend::new())),
        DeviceChoice::Auto => {
            let opened = count().and_then(|n| GpuBackend::open(&(0..n).collect::<Vec<_>>(), gpu_mem_cap));
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
            Ok(Box::new(GpuBackend::open(&ordinals, gpu_mem_cap).map_err(|e| anyhow::anyhow!("--device: {e}"))?))
        }
    }
}
