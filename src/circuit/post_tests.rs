//! The FallbackPoSt partition synthesized sector by sector in parallel against the crate's
//! circuit synthesized in one go (witness and R1CS), on synthetic 2KiB WindowPoSt (three
//! partitions, the last padded) and WinningPoSt inputs; and the synthetic 32GiB inputs' shape.
use std::path::Path;

use filecoin_proofs::SectorShape2KiB;
use filecoin_proofs_api::RegisteredPoStProof;

use super::post::PostCircuits;
use super::post_windows::record_post;
use super::window_tests::{assert_same_assignment, assert_same_r1cs};
use super::ProofStatement;
use crate::input::PostInput;
use crate::synth::post::{synth_post, PostSynthOptions};

fn synthetic(registered: RegisteredPoStProof, sectors: usize, seed: u64) -> PostInput {
    let opts = PostSynthOptions { registered, miner_id: 1000, sectors, first_sector: 3, partition: None, seed };
    let bytes = synth_post(&opts).unwrap();
    PostInput::parse(&bytes, Path::new("synthetic post.json"), registered.typ()).unwrap()
}

#[test]
fn post_sectors_in_windows_equal_the_sequential_witness() {
    use RegisteredPoStProof::*;
    for (registered, sectors, partitions) in [(StackedDrgWindow2KiBV1_2, 5, 3), (StackedDrgWinning2KiBV1, 1, 1)] {
        let input = synthetic(registered, sectors, 11);
        let circuits = PostCircuits::<SectorShape2KiB>::from_input(&input).unwrap();
        assert_eq!(circuits.num_partitions(), partitions);
        for k in 0..partitions {
            let what = format!("{registered:?} partition {k}");
            let want = circuits.synthesize_partition(k, false).unwrap();
            let got = circuits.synthesize_partition(k, true).unwrap();
            assert_same_assignment(&got, &want, &what);
            assert_eq!(want.inputs, circuits.public_inputs(k).unwrap(), "{what}: the witness's public inputs");
        }
    }
}

#[test]
fn post_r1cs_in_windows_equals_sequential() {
    for registered in [RegisteredPoStProof::StackedDrgWindow2KiBV1_2, RegisteredPoStProof::StackedDrgWinning2KiBV1] {
        let (want, stem) = record_post(registered, false).unwrap();
        let (got, got_stem) = record_post(registered, true).unwrap();
        assert_eq!(stem, got_stem);
        assert_same_r1cs(&got, &want, &format!("{registered:?}"));
    }
}

/// A full 32GiB WindowPoSt partition's input: 2,349 sectors of 10 challenges, checked.
#[test]
fn a_full_32gib_window_partition_synthesizes() {
    let input = synthetic(RegisteredPoStProof::StackedDrgWindow32GiBV1_2, 2349, 1);
    assert_eq!(input.public.sectors.len(), 2349);
    let circuits = PostCircuits::<filecoin_proofs::SectorShape32GiB>::from_input(&input).unwrap();
    assert_eq!(circuits.num_partitions(), 1);
    assert_eq!(circuits.public_inputs(0).unwrap().len(), 1 + 2349 * 11);
}
