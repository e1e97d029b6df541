//! The compiled SnapDeals constraints against the crate's synthesis: the challenges read their own
//! prefix bits, so they repeat challenge 0 only through the template's moving range, whose
//! offsets (not linear in the challenge) are derived from a whole blank partition and checked
//! for every challenge, a wrong offset being a mismatch ([`compile_snap`]); the compiled
//! constraints evaluated at the native witness give the synthesis's A·z, B·z, C·z and densities
//! on whole 2KiB partitions, an 8MiB partition, and the prefix and first challenges of 512MiB,
//! 32GiB (into its second digest) and 64GiB partitions (the blank partition cut the same way and
//! compiled to a template). `time_snap_native` (ignored) times and checks a whole partition of
//! every size but 64GiB. The synthetic updates, and the native witness and synthesis held equal,
//! come from the circuit's tests.
use blstrs::Scalar;
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SectorShape512MiB, SectorShape64GiB, SectorShape8MiB};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_update::constants::TreeRHasher;

use super::template::{check_repeats, derive_moving};
use super::{compile_snap, evaluate, Compiled, Mismatch};
use crate::circuit::native_check::first_difference;
use crate::circuit::snap::SnapCircuits;
use crate::circuit::snap_sample::{record_snap_partition, record_snap_sample};
use crate::circuit::snap_tests::{circuits_of, first_challenges, located, native_and_synthesis};
use crate::circuit::window_tests::assert_same_assignment;
use crate::circuit::{Assignment, Density, ProofCircuits, ProofStatement};
use crate::input::PorepKind;

/// Whole partition `k` natively against the crate's synthesis (in windows, which the circuit's
/// tests hold to the crate's), and the compiled constraints evaluated at the native witness.
fn check_partition<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    circuits: &SnapCircuits<Tree>,
    compiled: &Compiled,
    k: usize,
    what: &str,
) {
    let (native, want) = native_and_synthesis(circuits, k, what);
    assert_same_assignment(&evaluate(compiled, &native).unwrap(), &want, &format!("{what} partition {k}"));
}

/// Whole 2KiB partitions: the native witness is the crate's synthesis variable for variable, and
/// the compiled constraints evaluated at it give the synthesis's A·z, B·z, C·z and densities.
#[test]
fn snap_native_witness_and_compiled_constraints_equal_synthesis_2kib() {
    let c = compile_snap(PorepKind::S2KiB).unwrap();
    for seed in [3, 12] {
        let circuits = circuits_of::<SectorShape2KiB>(PorepKind::S2KiB, seed);
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

/// Aux of one digest of the prefix: its index, Poseidon's allocations for arity 2 (311) and its
/// 255 bits.
const DIGEST_AUX: usize = 1 + 311 + 255;

/// A whole blank 8MiB partition (10 challenges of 16 bits, 15 to a digest of the prefix):
/// challenge 1 reads other prefix columns than challenge 0 (its own bits), so no plain template
/// repeats; the moving range derived from the recording is challenge 0's 16 bits and challenge
/// `j`'s offset its place in the digests, `(j / 15)·567 + (j % 15)·16` (the circuit's layout,
/// found independently of it; the 32GiB test below crosses a digest); every challenge repeats
/// challenge 0 through it, one offset off by one is a mismatch that names the challenge and
/// its offset; and [`compile_snap`] is the prefix in the head and challenge 0 as the template,
/// over all 10 challenges, which expands row by row to the recording.
#[test]
fn snap_challenges_share_a_template_through_the_moving_range() {
    let size = PorepKind::S8MiB;
    let s = record_snap_partition(size).unwrap();
    let n = s.challenges;
    assert_eq!((n, s.partition_challenges), (10, 10));
    let e = Compiled::from_sample(&s.r1cs, s.prefix, s.per, n, n, s.stem.clone()).unwrap_err();
    let m = e.downcast_ref::<Mismatch>().unwrap_or_else(|| panic!("not a mismatch: {e:#}"));
    assert_eq!(m.challenge, 1, "{m}");
    let moving = derive_moving(&s.r1cs, &s.prefix, &s.per, n).unwrap();
    let (bits, per_digest) = (16, 15);
    assert_eq!(moving.hi - moving.lo, bits, "{moving:?}");
    assert_eq!(moving.offsets.len(), n);
    for (j, &off) in moving.offsets.iter().enumerate() {
        assert_eq!(off as usize, j / per_digest * DIGEST_AUX + j % per_digest * bits, "challenge {j}");
    }
    check_repeats(&s.r1cs, &s.prefix, &s.per, &moving, n).expect("every challenge repeats through the range");
    let mut bad = moving.clone();
    bad.offsets[7] += 1;
    let m = check_repeats(&s.r1cs, &s.prefix, &s.per, &bad, n).unwrap_err();
    assert_eq!(m.challenge, 7, "{m}");
    let range = format!("lies in the moving range {}..{}, challenge 7's offset 113)", moving.lo, moving.hi);
    assert!(
        m.to_string().starts_with("challenge 7 does not repeat challenge 0: its row ") && m.what.contains(&range),
        "{m}"
    );
    let c = compile_snap(size).unwrap();
    assert_eq!(c.moving, moving);
    assert_eq!(c.challenges, n);
    let spans = |x: &crate::circuit::window::Span| (x.inputs, x.aux, x.constraints);
    assert_eq!((spans(&c.prefix), spans(&c.per)), (spans(&s.prefix), spans(&s.per)), "the prefix and one challenge");
    assert_eq!((c.head.rows, c.template.rows), (s.prefix.constraints, s.per.constraints));
    super::tests::assert_expands_to(&c, &s.r1cs, "8MiB snap");
}

/// Partition `k`'s prefix and first `n` challenges of a synthetic update of `size`: natively
/// equal to the crate's gadgets, and the blank partition cut the same way and compiled to a
/// template (its moving range and offsets derived from and checked against the `n` recorded
/// challenges) evaluates at the native witness to what the gadgets record. Returns that
/// compiled cut.
fn check_first_challenges<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    size: PorepKind,
    k: usize,
    n: usize,
) -> Compiled {
    let (native, want) = first_challenges::<Tree>(size, k, n);
    let s = record_snap_sample(size, n).unwrap();
    let c = Compiled::from_moving_sample(&s.r1cs, s.prefix, s.per, n, n, s.stem).unwrap();
    assert_eq!((c.head.rows, c.template.rows), (s.prefix.constraints, s.per.constraints), "{size:?}");
    assert_same_assignment(&evaluate(&c, &native).unwrap(), &want, &format!("{size:?} partition {k}, {n} challenges"));
    c
}

/// The prefix and first challenges of a 512MiB partition (16 partitions, 86 challenges), of a
/// 32GiB one (trees R 8-8-0; 26 bits a challenge, 9 to a digest: the tenth challenge reads the
/// second digest, where the offsets stop being linear) and of a 64GiB one (8-8-2).
#[test]
fn snap_native_witness_of_512mib_32gib_and_64gib_challenges_equals_synthesis() {
    let c = check_first_challenges::<SectorShape512MiB>(PorepKind::S512MiB, 5, 2);
    assert_eq!((c.moving.hi - c.moving.lo, &c.moving.offsets[..]), (20, &[0, 20][..]));
    let c = check_first_challenges::<SectorShape32GiB>(PorepKind::S32GiB, 9, 10);
    let want: Vec<u32> = (0..10).map(|j| (j / 9 * DIGEST_AUX + j % 9 * 26) as u32).collect();
    assert_eq!((c.moving.hi - c.moving.lo, &c.moving.offsets), (26, &want));
    let c = check_first_challenges::<SectorShape64GiB>(PorepKind::S64GiB, 15, 1);
    assert!(c.moving.is_empty(), "one challenge: nothing moves");
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
    densities: [Density; 3],
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
    // The gadget synthesis in windows (`ProofCircuits::synthesize`).
    let (want, gadget_wall, gadget_cpu) = clock(|| circuits.synthesize(k).unwrap());
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
         ({} MiB: head {} rows, template {} rows for {} challenges, moving range {}..{})",
        size.name(),
        rayon::current_num_threads(),
        native.aux.len(),
        native.aux.fields().len(),
        c.bytes() >> 20,
        c.head.rows,
        c.template.rows,
        c.challenges,
        c.moving.lo,
        c.moving.hi
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
