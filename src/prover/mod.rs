//! The backend-neutral prover layer: what proving one synthesized partition means, whoever does
//! it. The pipeline depends on this layer; the CPU (`cpu`) and the GPUs
//! (`gpu`) implement it; this layer knows neither.
//! - [`Backend`] — proves partitions on one or more devices.
//! - [`Witness`] — what a partition is proved from: an assignment, or a packed native witness
//!   with its compiled constraints for a backend that evaluates them itself.
//! - [`Proved`] — a backend's result: the proof, its stage timings, the spent assignment.
//! - [`ProveTimings`] — wall time of each stage of one partition proof.
//! - [`DeviceChoice`] — `--device`: where partitions are proved.
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use blstrs::Scalar;

use crate::circuit::Assignment;
use crate::constraints::{evaluate, Compiled};
use crate::groth16::Proof;
use crate::srs::ParamsFile;
use crate::witness::PackedWitness;

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
    /// Whether the backend evaluates compiled constraints itself for this packed native witness:
    /// the pipeline then hands it the witness packed ([`Witness::Packed`]) instead of evaluating
    /// it on the host.
    fn evaluates(&self, _witness: &PackedWitness) -> bool {
        false
    }
    /// Proves one partition with randomness (r, s) on device `device`.
    fn prove(&self, device: usize, srs: &ParamsFile, witness: Witness, r: Scalar, s: Scalar) -> Result<Proved>;
    /// Lines on each device's memory plan and what was measured under it, for the end of a run.
    fn memory_report(&self) -> Vec<String> {
        Vec::new()
    }
}

/// What one partition is proved from.
pub enum Witness {
    /// An assignment: A·z, B·z, C·z and every variable, evaluated on the host.
    Assignment(Assignment),
    /// The native witness, packed (bits stay bits), with its shape's compiled constraints.
    Packed { witness: PackedWitness, compiled: Arc<Compiled> },
}

impl Witness {
    /// Rows of A·z, B·z, C·z (the circuit's and one per input).
    pub fn num_constraints(&self) -> usize {
        match self {
            Witness::Assignment(a) => a.num_constraints(),
            Witness::Packed { compiled, .. } => compiled.num_constraints(),
        }
    }

    /// The assignment, evaluating the compiled constraints on the host's cores when packed.
    pub fn into_assignment(self) -> Result<Assignment> {
        match self {
            Witness::Assignment(a) => Ok(a),
            Witness::Packed { witness, compiled } => evaluate(&compiled, &witness),
        }
    }
}

/// A backend's result: the proof, its timings, and the assignment when the backend only read
/// it, for the pipeline to free after the device lock (at 32GiB it is ~17 GB, a second of
/// unmapping that would otherwise hold the device).
pub struct Proved {
    pub proof: Proof,
    pub timings: ProveTimings,
    pub spent: Option<Assignment>,
}

/// Wall time of each stage of one partition proof.
#[derive(Clone, Debug, Default)]
pub struct ProveTimings {
    /// A·z, B·z, C·z on the device (witness-only proving); zero when the host evaluated them.
    pub evaluation: Duration,
    pub h_ntt: Duration,
    pub h_msm: Duration,
    pub l_msm: Duration,
    pub a_msm: Duration,
    pub b_g1_msm: Duration,
    pub b_g2_msm: Duration,
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
