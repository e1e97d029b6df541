//! The SnapDeals partition as [`super::snap_windows`] synthesizes it (the crate's circuit
//! transcribed, its challenges in parallel windows) against storage-proofs-update's own
//! `EmptySectorUpdateCircuit::synthesize`: the same witness (inputs, aux, A·z, B·z, C·z,
//! densities) on a synthetic 2KiB update, and the same R1CS (every row, column and coefficient)
//! from the blank 2KiB and 8MiB circuits (8MiB: four partitions, so partition bits, a partition
//! path and `h` = 10 of six high-bit choices). Then the native witness against the crate's
//! synthesis and the compiled constraints evaluated at it against the synthesis's A·z, B·z,
//! C·z and densities: whole 2KiB partitions, an 8MiB partition, and the prefix and first
//! challenges of 512MiB, 32GiB and 64GiB partitions (`time_snap_native`, ignored, checks whole
//! partitions of every size but 64GiB).
use std::path::Path;

use bellperson::{Circuit, ConstraintSystem};
use blstrs::Scalar;
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SectorShape512MiB, SectorShape64GiB, SectorShape8MiB};
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_update::constants::TreeRHasher;
use storage_proofs_update::{EmptySectorUpdate, EmptySectorUpdateCompound};

use super::native_check::{first_difference, Difference, Locate};
use super::r1cs::{R1cs, R1csCs};
use super::snap::{measured_constraints, public_params, SnapCircuits};
use super::snap_sample::record_snap_sample;
use super::snap_windows::{challenge_span, synthesize_first, synthesize_windows};
use super::window::Span;
use super::window_tests::{assert_same_assignment, assert_same_r1cs};
use super::witness::{Assignment, WitnessCs};
use super::{ProofCircuits, ProofStatement};
use crate::constraints::{compile_snap, evaluate, Compiled, Mismatch, SAMPLED};
use crate::input::{PorepKind, SnapInput};
use crate::synth::snap::synth_snap;
use crate::witness::snap::{snap_challenge, snap_prefix, SnapShape};

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

fn circuits_of<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    size: PorepKind,
    seed: u64,
) -> SnapCircuits<Tree> {
    let bytes = synth_snap(size, seed).unwrap();
    let input = SnapInput::parse(&bytes, Path::new("synthetic snap.json")).unwrap();
    SnapCircuits::from_input(&input).unwrap()
}

/// `d`, with the crate's namespace path of the aux variable where it lies.
fn located<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    circuits: &SnapCircuits<Tree>,
    k: usize,
    d: &Difference,
) -> String {
    let Difference::Aux { index, .. } = d else { return format!("partition {k}: {d}") };
    let mut cs = Locate::new(*index);
    circuits.circuit(k).unwrap().synthesize(&mut cs).unwrap();
    format!("partition {k}: {d}, allocated at {}", cs.found.as_deref().unwrap_or("(beyond the gadgets)"))
}

/// Whole partition `k` natively against the crate's synthesis (in windows, which the tests above
/// hold to the crate's), and the compiled constraints evaluated at the native witness.
fn check_partition<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    circuits: &SnapCircuits<Tree>,
    compiled: &Compiled,
    k: usize,
    what: &str,
) {
    let native = circuits.native_witness(k).expect("SnapDeals has a native witness").unwrap();
    let want = circuits.synthesize_partition(k, true).unwrap();
    if let Some(d) = first_difference(&native, &want) {
        panic!("{what}: {}", located(circuits, k, &d));
    }
    assert_same_assignment(&evaluate(compiled, &native).unwrap(), &want, &format!("{what} partition {k}"));
}

/// Whole 2KiB partitions: the native witness is the crate's synthesis variable for variable, and
/// the compiled constraints evaluated at it give the synthesis's A·z, B·z, C·z and densities.
#[test]
fn snap_native_witness_and_compiled_constraints_equal_synthesis_2kib() {
    let c = compile_snap(PorepKind::S2KiB).unwrap();
    for seed in [3, 12] {
        let circuits = circuits_2kib(seed);
        for k in 0..circuits.num_partitions() {
            check_partition(&circuits, &c, k, &format!("2KiB seed {seed}"));
        }
    }
}

/// A whole 8MiB partition (the last of four: partition bits 11, a partition path of two levels).
#[test]
fn snap_native_witness_and_compiled_constraints_equal_synthesis_8mib() {
    let circuits = circuits_of::<SectorShape8MiB>(PorepKind::S8MiB, 21);
    check_partition(&circuits, &compile_snap(PorepKind::S8MiB).unwrap(), 3, "8MiB");
}

/// Challenge 1 reads other prefix columns than challenge 0 (its own bits of the digest), so the
/// challenges cannot share a template, and the compiled shape is the partition up to its last
/// challenge with that challenge after it.
#[test]
fn snap_challenges_read_their_own_prefix_bits_so_the_partition_compiles_whole() {
    let s = record_snap_sample(PorepKind::S2KiB, SAMPLED).unwrap();
    let e = Compiled::from_sample(&s.r1cs, s.prefix, s.per, s.challenges, s.partition_challenges, s.stem.clone())
        .unwrap_err();
    let m = e.downcast_ref::<Mismatch>().unwrap_or_else(|| panic!("not a mismatch: {e:#}"));
    assert_eq!(m.challenge, 1, "{m}");
    let c = compile_snap(PorepKind::S2KiB).unwrap();
    assert_eq!(c.challenges, 1);
    assert_eq!(c.per, s.per, "the template is one challenge");
    assert_eq!(c.prefix.aux, s.prefix.aux + (s.partition_challenges - 1) * s.per.aux);
    assert_eq!(c.circuit_constraints(), s.prefix.constraints + s.partition_challenges * s.per.constraints);
    assert_eq!(c.num_constraints(), measured_constraints(PorepKind::S2KiB).unwrap());
}

/// Partition `k`'s prefix and first `n` challenges of a synthetic update of `size`: natively
/// equal to the crate's gadgets, and the blank partition cut the same way and compiled whole
/// evaluates at the native witness to what the gadgets record.
fn check_first_challenges<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(size: PorepKind, k: usize, n: usize) {
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
    let s = record_snap_sample(size, n).unwrap();
    let c = Compiled::full(&s.r1cs, s.stem).unwrap();
    assert_same_assignment(&evaluate(&c, &native).unwrap(), &want, &format!("{size:?} partition {k}, {n} challenges"));
}

/// The prefix and first challenges of a 512MiB partition (16 partitions, 86 challenges), of a
/// 32GiB one (trees R 8-8-0) and of a 64GiB one (8-8-2).
#[test]
fn snap_native_witness_of_512mib_32gib_and_64gib_challenges_equals_synthesis() {
    check_first_challenges::<SectorShape512MiB>(PorepKind::S512MiB, 5, 2);
    check_first_challenges::<SectorShape32GiB>(PorepKind::S32GiB, 9, 2);
    check_first_challenges::<SectorShape64GiB>(PorepKind::S64GiB, 15, 1);
}

/// CPU time of the whole process, all threads (Linux: `/proc/self/stat`, clock ticks of 10 ms).
fn process_cpu() -> std::time::Duration {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = s.rsplit(')').next().unwrap().split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    std::time::Duration::from_millis(ticks * 10)
}

/// An assignment's inputs and densities, and digests of its aux and of A·z, B·z, C·z.
#[derive(PartialEq)]
struct Fingerprint {
    inputs: Vec<Scalar>,
    digests: Vec<[u8; 32]>,
    densities: [super::Density; 3],
}

impl Fingerprint {
    fn of(a: &Assignment) -> Self {
        use ff::PrimeField;
        use rayon::prelude::*;
        use sha2::{Digest, Sha256};
        let digest = |v: &[Scalar]| -> [u8; 32] {
            let parts: Vec<[u8; 32]> = v
                .par_chunks(1 << 20)
                .map(|c| c.iter().fold(Sha256::new(), |h, x| h.chain_update(x.to_repr())).finalize().into())
                .collect();
            parts.iter().fold(Sha256::new(), |h, p| h.chain_update(p)).finalize().into()
        };
        Fingerprint {
            inputs: a.inputs.clone(),
            digests: [&a.aux, &a.a, &a.b, &a.c].map(|v| digest(v)).to_vec(),
            densities: [a.a_aux_density.clone(), a.b_input_density.clone(), a.b_aux_density.clone()],
        }
    }
}

/// Times the native witness (`runs` times), the gadget synthesis and the compiled constraints'
/// evaluation of the last partition of a synthetic update, checking that they agree.
fn time_partition<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(size: PorepKind, runs: u32) {
    use std::time::Instant;
    let circuits = circuits_of::<Tree>(size, 21);
    let k = circuits.num_partitions() - 1;
    fn clock<T>(f: impl FnOnce() -> T) -> (T, std::time::Duration, std::time::Duration) {
        let (wall, cpu) = (Instant::now(), process_cpu());
        let out = f();
        (out, wall.elapsed(), process_cpu() - cpu)
    }
    let (native, wall, cpu) = clock(|| (0..runs).fold(None, |_, _| Some(circuits.native_witness(k).unwrap().unwrap())));
    let (native, native_wall, native_cpu) = (native.unwrap(), wall / runs, cpu / runs);
    let (want, gadget_wall, gadget_cpu) = clock(|| circuits.synthesize_partition(k, true).unwrap());
    if let Some(d) = first_difference(&native, &want) {
        panic!("{size:?}: {}", located(&circuits, k, &d));
    }
    // One assignment at a time: a 32GiB partition's is over 10 GB.
    let want = {
        let print = Fingerprint::of(&want);
        drop(want);
        print
    };
    let (c, compile_wall, _) = clock(|| compile_snap(size).unwrap());
    let (got, eval_wall, eval_cpu) = clock(|| evaluate(&c, &native).unwrap());
    assert!(Fingerprint::of(&got) == want, "{size:?}: the compiled constraints evaluate to another assignment");
    eprintln!(
        "{} partition {k} on {} threads: native witness {native_wall:.2?} wall / {native_cpu:.2?} CPU ({} aux, {} \
         field elements), compiled constraints evaluated on the CPU {eval_wall:.2?} / {eval_cpu:.2?}; gadget \
         synthesis in windows {gadget_wall:.2?} / {gadget_cpu:.2?}; compiling the shape {compile_wall:.2?} wall \
         ({} MB)",
        size.name(),
        rayon::current_num_threads(),
        native.aux.len(),
        native.aux.fields().len(),
        c.bytes() >> 20
    );
}

/// Native witness against gadget synthesis for the last partition of a synthetic update
/// (`FILSNARK_TIME_SIZE` 2KiB, the default, 8MiB, 512MiB or 32GiB; `FILSNARK_TIME_RUNS` native
/// runs, default 5), with the compiled constraints' CPU evaluation; the whole partition is
/// checked too (native = gadgets, evaluation = synthesis), which CI does only below 32GiB.
/// `cargo test --release --lib time_snap_native -- --ignored --nocapture`
#[test]
#[ignore]
fn time_snap_native() {
    let runs: u32 = std::env::var("FILSNARK_TIME_RUNS").map_or(5, |s| s.parse().unwrap());
    match std::env::var("FILSNARK_TIME_SIZE").as_deref().unwrap_or("2KiB") {
        "8MiB" => time_partition::<SectorShape8MiB>(PorepKind::S8MiB, runs),
        "512MiB" => time_partition::<SectorShape512MiB>(PorepKind::S512MiB, runs),
        "32GiB" => time_partition::<SectorShape32GiB>(PorepKind::S32GiB, runs),
        _ => time_partition::<SectorShape2KiB>(PorepKind::S2KiB, runs),
    }
}
