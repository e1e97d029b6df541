//! The GPUs as a pipeline [`Backend`]: one [`GpuProver`] per device, one device lock each.
//! When the device fails (out of memory, a kernel error) and the user did not insist on the GPU,
//! the partition is proved on the CPU instead, with a warning naming the device and the kernel.
use anyhow::Result;
use blstrs::Scalar;

use super::prover::GpuProver;
use crate::circuit::Assignment;
use crate::pipeline::backend::{Backend, Proved};
use crate::srs::ParamsFile;

pub struct GpuBackend {
    provers: Vec<GpuProver>,
    /// Prove on the CPU when a device fails (`--device auto`).
    fallback: bool,
}

impl GpuBackend {
    /// Opens the given device ordinals; `cap` limits each device's usable memory.
    pub fn open(ordinals: &[usize], cap: Option<u64>, fallback: bool) -> super::Result<GpuBackend> {
        let provers = ordinals.iter().map(|&o| GpuProver::open(o, cap)).collect::<super::Result<Vec<_>>>()?;
        Ok(GpuBackend { provers, fallback })
    }

    pub fn provers(&self) -> &[GpuProver] {
        &self.provers
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }
    /// "GPU 0 (NVIDIA H200)"; a GPU listed twice gets "#1", "#2" (one lock per prover).
    fn devices(&self) -> Vec<String> {
        let shared = |o: usize| self.provers.iter().filter(|p| p.ordinal == o).count() > 1;
        let mut seen = std::collections::HashMap::new();
        self.provers
            .iter()
            .map(|p| {
                let k = seen.entry(p.ordinal).or_insert(0);
                *k += 1;
                if shared(p.ordinal) {
                    format!("{} #{k}", p.label())
                } else {
                    p.label()
                }
            })
            .collect()
    }
    /// Host memory of the device phase: the pinned staging of uploads (the A and B scalars are
    /// gathered straight into it) and of streamed points; none grows with the domain.
    fn working_bytes(&self, _domain: usize) -> u64 {
        (128u64 << 20) + (512u64 << 20)
    }
    fn prove(&self, device: usize, srs: &ParamsFile, asg: Assignment, r: Scalar, s: Scalar) -> Result<Proved> {
        let p = &self.provers[device];
        match p.prove(srs, &asg, r, s) {
            Ok((proof, timings)) => Ok(Proved { proof, timings, spent: Some(asg) }),
            Err(e) if self.fallback => {
                eprintln!("warning: {e:#}; proving this partition on the CPU instead");
                let (proof, timings) = crate::cpu::prover::prove(srs, asg, r, s)?;
                Ok(Proved { proof, timings, spent: None })
            }
            Err(e) => Err(e),
        }
    }
}
