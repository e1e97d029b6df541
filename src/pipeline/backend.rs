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
    fn prove(&self, device: usize, srs: &ParamsFile, asg: Assignment, r: Scalar, s: Scalar) -> Result<Proved>;
}

/// A backend's result: the proof, its timings, and the assignment when the backend only read
/// it, for the pipeline to free after the device lock (at 32GiB it is ~17 GB, a second of
/// unmapping that would otherwise hold the device).
pub struct Proved {
    pub proof: Proof,
    pub timings: ProveTimings,
    pub spent: Option<Assignment>,
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
    fn prove(&self, _device: usize, srs: &ParamsFile, asg: Assignment, r: Scalar, s: Scalar) -> Result<Proved> {
        let (proof, timings) = crate::cpu::prover::prove(srs, asg, r, s)?;
        Ok(Proved { proof, timings, spent: None })
    }
}

/// `--device`: where partitions are proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// Every GPU when there is one (falling back to the CPU when a device fails), else the CPU.
    Auto,
    Cpu,
    /// Every GPU; no GPU, or a GPU failure, is an error.
    Gpu,
    /// These GPUs by ordinal (`0,1`); failures are errors, as for `Gpu`. An ordinal may repeat
    /// (`0,0`): two provers, each with its own device lock and stream, share that GPU, which runs
    /// the multi-device path on a one-GPU machine.
    Ordinals(Vec<usize>),
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "auto" => Ok(Self::Auto),
            "cpu" => Ok(Self::Cpu),
            "gpu" => Ok(Self::Gpu),
            _ => {
                let mut v = Vec::new();
                for part in s.split(',') {
                    let i = part.trim().parse::<usize>().map_err(|_| {
                        format!("'{s}' is not a device: use auto, cpu, gpu or GPU ordinals such as 0 or 0,1")
                    })?;
                    v.push(i);
                }
                Ok(Self::Ordinals(v))
            }
        }
    }
}

/// The backend for a `--device` choice; `gpu_mem_cap` caps each GPU's usable memory (to test
/// the streaming path as on a smaller card). `--device auto` without a GPU says so on stderr
/// and returns the CPU.
pub fn select(choice: &DeviceChoice, gpu_mem_cap: Option<u64>) -> Result<Box<dyn Backend>> {
    use crate::gpu::backend::GpuBackend;
    let count = || crate::gpu::driver::device_count();
    match choice {
        DeviceChoice::Cpu => Ok(Box::new(Cpu::new())),
        DeviceChoice::Auto => {
            let opened = count().and_then(|n| GpuBackend::open(&(0..n).collect::<Vec<_>>(), gpu_mem_cap, true));
            match opened {
                Ok(b) => Ok(Box::new(b)),
                Err(e) if e.is_no_gpu() => {
                    eprintln!("{e}; proving on the CPU");
                    Ok(Box::new(Cpu::new()))
                }
                Err(e) => {
                    eprintln!("warning: the GPU cannot be used ({e}); proving on the CPU");
                    Ok(Box::new(Cpu::new()))
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
            Ok(Box::new(GpuBackend::open(&ordinals, gpu_mem_cap, false).map_err(|e| anyhow::anyhow!("--device: {e}"))?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_choices_parse() {
        assert_eq!("auto".parse::<DeviceChoice>(), Ok(DeviceChoice::Auto));
        assert_eq!("cpu".parse::<DeviceChoice>(), Ok(DeviceChoice::Cpu));
        assert_eq!("gpu".parse::<DeviceChoice>(), Ok(DeviceChoice::Gpu));
        assert_eq!("0,1".parse::<DeviceChoice>(), Ok(DeviceChoice::Ordinals(vec![0, 1])));
        assert_eq!("0,0".parse::<DeviceChoice>(), Ok(DeviceChoice::Ordinals(vec![0, 0])));
        assert!("fast".parse::<DeviceChoice>().unwrap_err().contains("not a device"));
    }
}
