//! The native witness of sectors sealed here by filecoin-proofs (2KiB, interactive and
//! synthetic PoRep) equals gadget synthesis byte for byte, inputs and aux.
mod common;

use std::path::Path;

use filecoin_proofs_api::RegisteredSealProof;
use filsnark::circuit::circuits_from_c1;
use filsnark::circuit::native_check::{describe, first_difference};
use filsnark::input::{C1Input, SectorIdentity};

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
}

#[test]
fn sealed_2kib_interactive_native_equals_synthesis() {
    native_equals_synthesis(RegisteredSealProof::StackedDrg2KiBV1_1, 5, 21);
}

#[test]
fn sealed_2kib_synthetic_native_equals_synthesis() {
    native_equals_synthesis(RegisteredSealProof::StackedDrg2KiBV1_1_Feat_SyntheticPoRep, 6, 22);
}
