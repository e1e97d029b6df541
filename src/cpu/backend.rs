//! The CPU as a [`Backend`]: [`prover::prove`](super::prover::prove) on the machine's cores.
use anyhow::Result;
use blstrs::Scalar;

use crate::prover::{Backend, Proved, Witness};
use crate::srs::ParamsFile;

/// The CPU prover. Its "device" is the machine's cores (the rayon pool): one device, since two
/// CPU proofs at once would only share the same cores. More devices can be asked for with
/// [`CpuBackend::with_devices`] (tests of the scheduling).
pub struct CpuBackend {
    devices: usize,
}

impl CpuBackend {
    pub fn new() -> Self {
        CpuBackend { devices: 1 }
    }
    pub fn with_devices(devices: usize) -> Self {
        CpuBackend { devices: devices.max(1) }
    }
}

impl Default for CpuBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn devices(&self) -> Vec<String> {
        if self.devices == 1 {
            vec!["cpu".into()]
        } else {
            (0..self.devices).map(|i| format!("cpu{i}")).collect()
        }
    }
    /// The H step and the H MSM: per domain point a 32-byte scalar copy for the MSM, the h
    /// coefficient (32 B) and a decoded affine G1 point (96 B), plus a quarter for slack.
    fn working_bytes(&self, domain: usize) -> u64 {
        let b = domain as u64 * (32 + 32 + 96);
        b + b / 4
    }
    /// A packed witness is evaluated here first, on the same cores, inside the device phase.
    fn prove(&self, _device: usize, srs: &ParamsFile, witness: Witness, r: Scalar, s: Scalar) -> Result<Proved> {
        let clock = std::time::Instant::now();
        let packed = matches!(witness, Witness::Packed { .. });
        let asg = witness.into_assignment()?;
        let evaluation = if packed { clock.elapsed() } else { std::time::Duration::ZERO };
        let (proof, mut timings) = super::prover::prove(srs, asg, r, s)?;
        timings.evaluation = evaluation;
        Ok(Proved { proof, timings, spent: None })
    }
}
