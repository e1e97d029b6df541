//! The device phase of a partition behind one interface, so the pipeline does not care what
//! proves: today the CPU ([`Cpu`], blst + rayon), later the GPU through the same call.
use anyhow::Result;
use blstrs::Scalar;

use crate::circuit::Assignment;
use crate::cpu::prover::ProveTimings;
use crate::groth16::Proof;
use crate::srs::ParamsFile;

/// Something that proves synthesized partitions on one or more devices. The pipeline holds
/// device `d`'s lock around every `prove(d, …)`, so a backend never sees two calls for the same
/// device at once; calls for different devices run concurrently.
pub trait Backend: Send + Sync {
    /// Short name for reports: `cpu`, `gpu`.
    fn name(&self) -> &'static str;
    /// One name per device; the pipeline makes one device lock for each.
    fn devices(&self) -> Vec<String>;
    /// Host memory one device's phase uses on top of the partition it proves, for a domain of
    /// `domain` points (its share of the memory budget, per device).
    fn working_bytes(&self, domain: usize) -> u64;
    /// Proves one synthesized partition with randomness (r, s) on device `device`.
    fn prove(
        &self,
        device: usize,
        srs: &ParamsFile,
        asg: Assignment,
        r: Scalar,
        s: Scalar,
    ) -> Result<(Proof, ProveTimings)>;
}

/// The CPU prover ([`crate::cpu::prover`]). Its "device" is the machine's cores (the rayon
/// pool): one device, since two CPU proofs at once would only share the same cores. More
/// devices can be asked for with [`Cpu::with_devices`] (tests of the scheduling).
pub struct Cpu {
    devices: usize,
}

impl Cpu {
    pub fn new() -> Self {
        Cpu { devices: 1 }
    }
    pub fn with_devices(devices: usize) -> Self {
        Cpu { devices: devices.max(1) }
    }
}

impl Default for Cpu {
    fn default() -> Self {
        Self::new()
    }
}

impl Backend for Cpu {
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
    fn prove(
        &self,
        _device: usize,
        srs: &ParamsFile,
        asg: Assignment,
        r: Scalar,
        s: Scalar,
    ) -> Result<(Proof, ProveTimings)> {
        crate::cpu::prover::prove(srs, asg, r, s)
    }
}
