//! The FallbackPoSt partition's own synthesis: sector by sector in parallel against the crate's
//! circuit synthesized in one go (witness and R1CS), on synthetic 2KiB WindowPoSt (three
//! partitions, the last padded) and WinningPoSt inputs; the native witness against the crate's
//! synthesis (whole 2KiB partitions); the synthetic 32GiB inputs' shape; and the measured sector
//! spans against the count. The synthetic inputs and the native witness held to the synthesis
//! (whole partitions, and the first sectors of a partition, which the compiled constraints' test
//! checks on 32GiB and 64GiB, once for both) are `pub(crate)` for the compiled constraints' PoSt
//! tests, which evaluate at them.
use std::path::Path;

use bellperson::Circuit;
use filecoin_proofs::SectorShape2KiB;
use filecoin_proofs_api::RegisteredPoStProof;
use storage_proofs_core::merkle::MerkleTreeTrait;

use super::native_check::first_difference;
use super::post::PostCircuits;
use super::post_windows::record_post;
use super::window_tests::{assert_same_assignment, assert_same_r1cs};
use super::witness::{Assignment, WitnessCs};
use super::{ProofCircuits, ProofStatement};
use crate::input::PostInput;
use crate::synth::post::{synth_post, PostSynthOptions};
use crate::witness::post::post_partition;
use crate::witness::PackedWitness;

/// A synthetic PoSt input of `sectors` sectors.
pub(crate) fn synthetic(registered: RegisteredPoStProof, sectors: usize, seed: u64) -> PostInput {
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

/// Partition `k` natively and by the crate's synthesis (in windows, which the test above holds to
/// the sequential one), held equal variable for variable; both, for the compiled constraints to
/// evaluate at the native witness and be compared with the synthesis.
pub(crate) fn native_and_synthesis<Tree: 'static + MerkleTreeTrait>(
    circuits: &PostCircuits<Tree>,
    k: usize,
    what: &str,
) -> (PackedWitness, Assignment) {
    let native = circuits.native_witness(k).expect("PoSt has a native witness").unwrap();
    let want = circuits.synthesize(k).unwrap();
    if let Some(d) = first_difference(&native, &want) {
        panic!("{what}: {d}");
    }
    (native, want)
}

/// Whole 2KiB partitions (WindowPoSt padded, WinningPoSt): the native witness is the crate's
/// synthesis variable for variable.
#[test]
fn post_native_witness_equals_synthesis() {
    use RegisteredPoStProof::*;
    for (registered, sectors) in [(StackedDrgWindow2KiBV1_2, 5), (StackedDrgWinning2KiBV1, 1)] {
        let input = synthetic(registered, sectors, 12);
        let circuits = PostCircuits::<SectorShape2KiB>::from_input(&input).unwrap();
        for k in 0..circuits.num_partitions() {
            native_and_synthesis(&circuits, k, &format!("{registered:?} partition {k}"));
        }
    }
}

/// The crate's synthesis of the first `n` circuit sectors of partition 0.
fn gadget_sectors<Tree: 'static + MerkleTreeTrait>(circuits: &PostCircuits<Tree>, n: usize) -> Assignment {
    let circuit = circuits.circuit(0).unwrap();
    let mut cs = WitnessCs::with_capacity(0);
    for sector in &circuit.sectors[..n] {
        sector.synthesize(&mut cs).unwrap();
    }
    cs.finish()
}

/// The first `n` circuit sectors of partition 0 of a synthetic input of `sectors` sectors (seed
/// 13), natively and by the crate's synthesis, held equal variable for variable; both. The
/// compiled constraints' test runs it on 32GiB (trees 8-8-0) and 64GiB (8-8-2) partitions, once.
pub(crate) fn first_sectors<Tree: 'static + MerkleTreeTrait>(
    registered: RegisteredPoStProof,
    sectors: usize,
    n: usize,
) -> (PackedWitness, Assignment) {
    let input = synthetic(registered, sectors, 13);
    let circuits = PostCircuits::<Tree>::from_input(&input).unwrap();
    let native = post_partition(&circuits.plain_sectors(0).unwrap()[..n]);
    let want = gadget_sectors(&circuits, n);
    if let Some(d) = first_difference(&native, &want) {
        panic!("{registered:?}: {d}");
    }
    (native, want)
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

/// Every registered PoSt's measured sector span is what counting a blank sector gives.
#[test]
fn measured_sector_spans_match_the_count() {
    use super::post::public_params;
    use super::post_span::{count_sector_span, measured_sector_span};
    use crate::input::proof_type::with_shape;
    use crate::input::PorepKind;
    use storage_proofs_core::merkle::MerkleTreeTrait;

    /// The mismatch, if any: the registered proof and the counted entry.
    fn check<Tree: 'static + MerkleTreeTrait>(registered: RegisteredPoStProof) -> Option<String> {
        let pp = public_params::<Tree>(&registered.as_v1_config()).unwrap();
        let counted = count_sector_span::<Tree>(&pp).unwrap();
        (measured_sector_span(pp.sector_size, pp.challenge_count) != Some(counted))
            .then(|| format!("{registered:?}: counted ({}, {}, {counted:?})", pp.sector_size, pp.challenge_count))
    }
    let mut wrong = Vec::new();
    use RegisteredPoStProof::*;
    for registered in [
        StackedDrgWinning2KiBV1,
        StackedDrgWinning8MiBV1,
        StackedDrgWinning512MiBV1,
        StackedDrgWinning32GiBV1,
        StackedDrgWinning64GiBV1,
        StackedDrgWindow2KiBV1,
        StackedDrgWindow8MiBV1,
        StackedDrgWindow512MiBV1,
        StackedDrgWindow32GiBV1,
        StackedDrgWindow64GiBV1,
        StackedDrgWindow2KiBV1_2,
        StackedDrgWindow8MiBV1_2,
        StackedDrgWindow512MiBV1_2,
        StackedDrgWindow32GiBV1_2,
        StackedDrgWindow64GiBV1_2,
    ] {
        let size = PorepKind::from_sector_size(u64::from(registered.sector_size())).unwrap();
        wrong.extend(with_shape!(size, check, registered));
    }
    assert!(wrong.is_empty(), "measured sector spans that differ from the count:\n{}", wrong.join("\n"));
}
