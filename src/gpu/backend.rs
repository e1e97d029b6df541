//! The GPUs as a [`Backend`]: one [`GpuProver`] per device, one device lock each. A device
//! failure (out of memory, a kernel error) is an error here; handing the partition to the CPU
//! instead is the caller's choice (`devices`, above both backends).
use anyhow::Result;
use blstrs::Scalar;

use super::prover::{GpuLimits, GpuProver};
use super::{split, GpuError};
use crate::circuit::Assignment;
use crate::groth16::Proof;
use crate::prover::{Backend, ProveTimings, Proved, Witness};
use crate::srs::ParamsFile;
use crate::witness::PackedWitness;

pub struct GpuBackend {
    provers: Vec<GpuProver>,
    field_witness: FieldWitness,
}

/// Where a packed witness that is mostly field elements (PoSt's) is evaluated:
/// `FILSNARK_FIELD_WITNESS` (docs/tuning.md). A witness of bits always goes to the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldWitness {
    /// Evaluated on the host's cores and proved as an assignment (the measured default: 32GiB
    /// WindowPoSt, 11.73 s/proof on the H100 at `-j 4`).
    Host,
    /// Evaluated on the device, its queries' scalars expanded there (`super::expand`): the host
    /// keeps only the witness. Not yet run on a GPU; it becomes the default if it measures faster.
    Device,
}

impl FieldWitness {
    pub const VAR: &'static str = "FILSNARK_FIELD_WITNESS";

    /// `FILSNARK_FIELD_WITNESS`: `host` (unset) or `device`.
    pub fn from_env() -> std::result::Result<FieldWitness, String> {
        Self::parse(std::env::var(Self::VAR).ok().as_deref())
    }

    fn parse(v: Option<&str>) -> std::result::Result<FieldWitness, String> {
        match v {
            None | Some("host") => Ok(FieldWitness::Host),
            Some("device") => Ok(FieldWitness::Device),
            Some(other) => Err(format!("{}={other}: use host or device", Self::VAR)),
        }
    }
}

impl GpuBackend {
    /// Opens the given device ordinals; `limits` caps each device's usable memory and the host
    /// memory it page-locks. `FILSNARK_FIELD_WITNESS` is read here.
    pub fn open(ordinals: &[usize], limits: GpuLimits) -> super::Result<GpuBackend> {
        let field_witness = FieldWitness::from_env().map_err(GpuError::Invalid)?;
        let provers = ordinals.iter().map(|&o| GpuProver::open(o, limits)).collect::<super::Result<Vec<_>>>()?;
        Ok(GpuBackend { provers, field_witness })
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

/// What the pipeline recycles after the device lock: an assignment (~17 GB at 32GiB). A packed
/// witness's values go back at once (a push onto a list: nothing is unmapped under the lock).
pub fn spent(witness: Witness) -> Option<Assignment> {
    match witness {
        Witness::Assignment(asg) => Some(asg),
        Witness::Packed { witness, .. } => {
            witness.recycle();
            None
        }
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
    /// A witness of bits (PoRep's, SnapDeals') always: its queries are split into the ones'
    /// batch addition and a short MSM ([`split`]). One that is mostly field elements (PoSt's
    /// Poseidon states and path picks) only under `FILSNARK_FIELD_WITNESS=device`; by default
    /// the host evaluates it, which the H100 measured (32GiB WindowPoSt, e9a1632: device phase
    /// 5.3 s against 8.4 s for the split, whose gathered points overran the memory plan).
    fn evaluates(&self, witness: &PackedWitness) -> bool {
        split::suits(witness) || self.field_witness == FieldWitness::Device
    }
    fn prove(&self, device: usize, srs: &ParamsFile, witness: Witness, r: Scalar, s: Scalar) -> Result<Proved> {
        let (proof, timings) = self.prove_borrowed(device, srs, &witness, r, s)?;
        Ok(Proved { proof, timings, spent: spent(witness) })
    }
    fn memory_report(&self) -> Vec<String> {
        self.provers.iter().filter_map(GpuProver::memory_report).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_witness_knob_parses_or_names_itself() {
        assert_eq!(FieldWitness::parse(None), Ok(FieldWitness::Host));
        assert_eq!(FieldWitness::parse(Some("host")), Ok(FieldWitness::Host));
        assert_eq!(FieldWitness::parse(Some("device")), Ok(FieldWitness::Device));
        assert_eq!(FieldWitness::parse(Some("gpu")), Err("FILSNARK_FIELD_WITNESS=gpu: use host or device".into()));
    }
}
