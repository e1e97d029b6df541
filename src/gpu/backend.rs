//! The GPUs as a [`Backend`]: one [`GpuProver`] per device, one device lock each. A device
//! failure (out of memory, a kernel error) is an error here; handing the partition to the CPU
//! instead is the caller's choice (`devices`, above both backends).
use anyhow::Result;
use blstrs::Scalar;

use super::prover::{GpuLimits, GpuProver};
use crate::circuit::Assignment;
use crate::groth16::Proof;
use crate::prover::{Backend, ProveTimings, Proved, Witness};
use crate::srs::ParamsFile;

pub struct GpuBackend {
    provers: Vec<GpuProver>,
}

impl GpuBackend {
    /// Opens the given device ordinals; `cap` limits each device's usable memory.
    pub fn open(ordinals: &[usize], limits: GpuLimits) -> super::Result<GpuBackend> {
        let provers = ordinals.iter().map(|&o| GpuProver::open(o, limits)).collect::<super::Result<Vec<_>>>()?;
        Ok(GpuBackend { provers })
    }

    pub fn provers(&self) -> &[GpuProver] {
        &self.provers
    }

    /// Proves on device `device`, borrowing the witness so that a caller can prove it
    /// elsewhere when the device fails.
    pub fn prove_borrowed(
        &self,
        device: usize,
        srs: &ParamsFile,
        witness: &Witness,
        r: Scalar,
        s: Scalar,
    ) -> Result<(Proof, ProveTimings)> {
        let prover = &self.provers[device];
        match witness {
            Witness::Assignment(asg) => prover.prove(srs, asg, r, s),
            Witness::Packed { witness, compiled } => prover.prove_packed(srs, compiled, witness, r, s),
        }
    }
}

/// What the pipeline frees after the device lock: an assignment (~17 GB at 32GiB); a packed
/// witness is small.
pub fn spent(witness: Witness) -> Option<Assignment> {
    match witness {
        Witness::Assignment(asg) => Some(asg),
        Witness::Packed { .. } => None,
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
    /// The device evaluates compiled constraints (module `evaluate`).
    fn evaluates(&self) -> bool {
        true
    }
    fn prove(&self, device: usize, srs: &ParamsFile, witness: Witness, r: Scalar, s: Scalar) -> Result<Proved> {
        let (proof, timings) = self.prove_borrowed(device, srs, &witness, r, s)?;
        Ok(Proved { proof, timings, spent: spent(witness) })
    }
    fn memory_report(&self) -> Vec<String> {
        self.provers.iter().filter_map(GpuProver::memory_report).collect()
    }
}
