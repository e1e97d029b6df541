//! The SnapDeals partition's own synthesis: as [`super::snap_windows`] synthesizes it (the
//! crate's circuit transcribed, its challenges in parallel windows) against storage-proofs-update's
//! own `EmptySectorUpdateCircuit::synthesize`: the same witness (inputs, aux, A·z, B·z, C·z,
//! densities) on a synthetic 2KiB update, and the same R1CS (every row, column and coefficient)
//! from the blank 2KiB and 8MiB circuits (8MiB: four partitions, so partition bits, a partition
//! path and `h` = 10 of six high-bit choices). Then the native witness against the crate's
//! synthesis: whole 2KiB partitions and an 8MiB partition. The synthetic updates, the native
//! witness held to the synthesis (whole partitions, and a partition's prefix and first
//! challenges, which the compiled constraints' tests check on 512MiB, 32GiB and 64GiB) and the
//! namespace of a differing aux are `pub(crate)` for the compiled constraints' SnapDeals tests,
//! which evaluate at them.
use std::path::Path;

use bellperson::{Circuit, ConstraintSystem};
use blstrs::Scalar;
use filecoin_proofs::{SectorShape2KiB, SectorShape8MiB};
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_update::constants::TreeRHasher;
use storage_proofs_update::{EmptySectorUpdate, EmptySectorUpdateCompound};

use super::native_check::{first_difference, Difference, Locate};
use super::r1cs::{R1cs, R1csCs};
use super::snap::{measured_constraints, public_params, SnapCircuits};
use super::snap_windows::{challenge_span, synthesize_first, synthesize_windows};
use super::window::Span;
use super::window_tests::{assert_same_assignment, assert_same_r1cs};
use super::witness::{Assignment, WitnessCs};
use super::{ProofCircuits, ProofStatement};
use crate::input::{PorepKind, SnapInput};
use crate::synth::snap::synth_snap;
use crate::witness::snap::{snap_challenge, snap_prefix, SnapShape};
use crate::witness::PackedWitness;

fn circuits_2kib(seed: u64) -> SnapCircuits<SectorShape2KiB> {
    let bytes = synth_snap(PorepKind::S2KiB, seed).unwrap();
    let input = SnapInput::parse(&bytes, Path::new("synthetic snap.json")).unwrap();
    SnapCircuits::from_input(&input).unwrap()
}

#[test]
fn snap_challenges_in_windows_equal_the_crates_witness() {
    for seed in [3, 12] {
        let circuits = circuits_2kib(seed);
        let want = circuits.synthesize_partition(0, false).unwrap();
        assert_eq!(want.inputs, circuits.public_inputs(0).unwrap(), "seed {seed}: the witness's public inputs");
        assert_eq!(Some(want.num_constraints()), measured_constraints(PorepKind::S2KiB));
        let got = circuits.synthesize_partition(0, true).unwrap();
        assert_same_assignment(&got, &want, &format!("seed {seed}, the prover's windows"));
        // One group (the challenges in order after the prefix), 2, 5 and 10 groups, with the
        // counted span and with the span learned from the first group.
        let circuit = circuits.circuit(0).unwrap();
        let counted = challenge_span::<SectorShape2KiB>(&public_params(PorepKind::S2KiB)).unwrap();
        for (windows, per) in [(1, None), (2, Some(counted)), (2, None), (3, Some(counted)), (10, Some(counted))] {
            if seed != 3 && windows != 2 {
                continue;
            }
            {
                let mut cs = WitnessCs::with_capacity(0);
                synthesize_windows(&circuit, &mut cs, windows, || Ok(per)).unwrap();
                let what = format!(
                    "seed {seed}, {windows} windows, span {}",
                    if per.is_some() { "counted" } else { "learned" }
                );
                assert_same_assignment(&cs.finish(), &want, &what);
            }
        }
    }
}

#[test]
fn the_counted_challenge_span_is_what_a_challenge_records() {
    let circuits = circuits_2kib(5);
    let want = circuits.synthesize_partition(0, false).unwrap();
    let pp = public_params(PorepKind::S2KiB);
    let per = challenge_span::<SectorShape2KiB>(&pp).unwrap();
    assert_eq!((per.inputs, per.nnz), (0, [0; 3]), "a challenge has no public input");
    // The crate's whole partition: 5 inputs with ONE (its input constraints come last).
    let constraints = want.num_constraints() - want.inputs.len();
    let challenges = pp.challenge_count;
    assert!(want.aux.len() > challenges * per.aux && constraints > challenges * per.constraints);
    // A span one too large or too small is refused, naming the window.
    let circuit = circuits.circuit(0).unwrap();
    for wrong in [Span { aux: per.aux + 1, ..per }, Span { constraints: per.constraints - 1, ..per }] {
        let err = synthesize_windows(&circuit, &mut WitnessCs::with_capacity(0), 2, || Ok(Some(wrong))).unwrap_err();
        assert!(format!("{err:#}").contains("challenge window "), "{wrong:?}: {err:#}");
    }
}

fn r1cs_of<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(size: PorepKind, windows: Option<usize>) -> R1cs {
    let blank = <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::blank_circuit(
        &public_params(size),
    );
    let mut cs = <R1csCs as ConstraintSystem<Scalar>>::new();
    match windows {
        Some(w) => synthesize_windows(&blank, &mut cs, w, || Ok(None)).unwrap(),
        None => blank.synthesize(&mut cs).unwrap(),
    }
    cs.finish().unwrap()
}

#[test]
fn snap_r1cs_transcribed_and_in_windows_equals_the_crates() {
    let want = r1cs_of::<SectorShape2KiB>(PorepKind::S2KiB, None);
    for windows in [1, 2, 10] {
        let got = r1cs_of::<SectorShape2KiB>(PorepKind::S2KiB, Some(windows));
        assert_same_r1cs(&got, &want, &format!("2KiB update circuit, {windows} windows"));
    }
}

#[test]
fn snap_r1cs_8mib_transcribed_equals_the_crates() {
    let want = r1cs_of::<SectorShape8MiB>(PorepKind::S8MiB, None);
    let got = r1cs_of::<SectorShape8MiB>(PorepKind::S8MiB, Some(2));
    assert_same_r1cs(&got, &want, "8MiB update circuit");
}

/// The circuits of a synthetic update of `size`.
pub(crate) fn circuits_of<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    size: PorepKind,
    seed: u64,
) -> SnapCircuits<Tree> {
    let bytes = synth_snap(size, seed).unwrap();
    let input = SnapInput::parse(&bytes, Path::new("synthetic snap.json")).unwrap();
    SnapCircuits::from_input(&input).unwrap()
}

/// `d`, with the crate's namespace path of the aux variable where it lies.
pub(crate) fn located<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    circuits: &SnapCircuits<Tree>,
    k: usize,
    d: &Difference,
) -> String {
    let Difference::Aux { index, .. } = d else { return format!("partition {k}: {d}") };
    let mut cs = Locate::new(*index);
    circuits.circuit(k).unwrap().synthesize(&mut cs).unwrap();
    format!("partition {k}: {d}, allocated at {}", cs.found.as_deref().unwrap_or("(beyond the gadgets)"))
}

/// Whole partition `k` natively and by the crate's synthesis (in windows, which the tests above
/// hold to the crate's), held equal variable for variable; both, for the compiled constraints to
/// evaluate at the native witness and be compared with the synthesis.
pub(crate) fn native_and_synthesis<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    circuits: &SnapCircuits<Tree>,
    k: usize,
    what: &str,
) -> (PackedWitness, Assignment) {
    let native = circuits.native_witness(k).expect("SnapDeals has a native witness").unwrap();
    let want = circuits.synthesize_partition(k, true).unwrap();
    if let Some(d) = first_difference(&native, &want) {
        panic!("{what}: {}", located(circuits, k, &d));
    }
    (native, want)
}

/// Whole 2KiB partitions: the native witness is the crate's synthesis variable for variable.
#[test]
fn snap_native_witness_equals_synthesis_2kib() {
    for seed in [3, 12] {
        let circuits = circuits_2kib(seed);
        for k in 0..circuits.num_partitions() {
            native_and_synthesis(&circuits, k, &format!("2KiB seed {seed}"));
        }
    }
}

/// A whole 8MiB partition (the last of four: partition bits 11, a partition path of two levels).
#[test]
fn snap_native_witness_equals_synthesis_8mib() {
    let circuits = circuits_of::<SectorShape8MiB>(PorepKind::S8MiB, 21);
    native_and_synthesis(&circuits, 3, "8MiB");
}

/// Partition `k`'s prefix and first `n` challenges of a synthetic update of `size` (seed 21),
/// natively and by the crate's gadgets, held equal variable for variable; both. The compiled
/// constraints' test runs it on 512MiB, 32GiB and 64GiB partitions, once.
pub(crate) fn first_challenges<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    size: PorepKind,
    k: usize,
    n: usize,
) -> (PackedWitness, Assignment) {
    let circuits = circuits_of::<Tree>(size, 21);
    let shape = SnapShape::of(&public_params(size));
    let plain = circuits.plain_partition(k).unwrap();
    let (prefix, values) = snap_prefix(&shape, &plain).unwrap();
    let parts = (0..n).map(|c| snap_challenge(&shape, &plain, &values, c).unwrap()).collect();
    let native = prefix.join(parts);
    let mut cs = WitnessCs::with_capacity(0);
    synthesize_first(&circuits.circuit(k).unwrap(), &mut cs, n, rayon::current_num_threads()).unwrap();
    let want = cs.finish();
    if let Some(d) = first_difference(&native, &want) {
        panic!("{size:?}: {}", located(&circuits, k, &d));
    }
    (native, want)
}
