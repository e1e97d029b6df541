//! The native witness of sectors sealed here by filecoin-proofs (2KiB, interactive and
//! synthetic PoRep) equals gadget synthesis byte for byte, inputs and aux; a backend handed the
//! packed witness with the compiled constraints proves the same bytes as from the assignment.
mod common;

use std::path::Path;

use filecoin_proofs_api::RegisteredSealProof;
use filsnark::circuit::circuits_from_c1;
use filsnark::circuit::native_check::{describe, first_difference};
use filsnark::constraints::ConstraintCache;
use filsnark::cpu::backend::CpuBackend;
use filsnark::input::{C1Input, SectorIdentity};
use filsnark::prover::{Backend, Witness};
use filsnark::srs::ParamsFile;

fn native_equals_synthesis(proof: RegisteredSealProof, sector_num: u64, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let c1 = common::seal::seal_2kib_as(proof, 1000, sector_num, seed, dir.path()).unwrap();
    assert_eq!(c1.registered_proof, proof);
    let wrapper = common::seal::lotus_wrapper(&c1, sector_num).unwrap();
    let c1 = C1Input::parse(wrapper.as_bytes(), Path::new("<sealed c1>")).unwrap();
    let circuits = circuits_from_c1(&c1, &SectorIdentity { miner_id: 1000, sector_num }).unwrap();
    for k in 0..circuits.num_partitions() {
        let native = circuits.native_witness(k).expect("2KiB is a native shape").unwrap();
        let want = circuits.synthesize(k).unwrap();
        if let Some(d) = first_difference(&native, &want) {
            panic!("{proof:?}: {}", describe(circuits.as_ref(), k, None, &d));
        }
        assert_eq!(native.inputs, circuits.public_inputs(k).unwrap(), "{proof:?}: the verifier's public inputs");
    }
    packed_proves_like_the_assignment(&c1, circuits.as_ref());
}

/// Partition 0 proved by the CPU backend from the packed witness (what it gets when a GPU fails
/// under `--device auto`) and from the gadgets' assignment: the same bytes for the same r, s.
fn packed_proves_like_the_assignment(c1: &C1Input, circuits: &dyn filsnark::circuit::CircuitsDyn) {
    let params = common::init_env();
    let srs = ParamsFile::open(&params.join(format!("{}.params", circuits.params_stem()))).unwrap();
    let compiled = ConstraintCache::global().porep(c1.kind).unwrap();
    let (r, s) = filsnark::groth16::randomness(Some(3), 0);
    let cpu = CpuBackend::new();
    let witness = circuits.native_witness(0).unwrap().unwrap();
    assert!(!cpu.evaluates(&witness), "the CPU backend leaves evaluation to the host stage");
    let packed = Witness::Packed { witness, compiled };
    let from_packed = cpu.prove(0, &srs, packed, r, s).unwrap();
    let from_gadgets = cpu.prove(0, &srs, Witness::Assignment(circuits.synthesize(0).unwrap()), r, s).unwrap();
    assert_eq!(from_packed.proof.to_bytes(), from_gadgets.proof.to_bytes(), "packed and gadget proofs differ");
    assert!(from_packed.timings.evaluation > std::time::Duration::ZERO, "the packed witness was not evaluated");
}

#[test]
fn sealed_2kib_interactive_native_equals_synthesis() {
    native_equals_synthesis(RegisteredSealProof::StackedDrg2KiBV1_1, 5, 21);
}

#[test]
fn sealed_2kib_synthetic_native_equals_synthesis() {
    native_equals_synthesis(RegisteredSealProof::StackedDrg2KiBV1_1_Feat_SyntheticPoRep, 6, 22);
}
