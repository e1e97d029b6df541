//! The native witness against gadget synthesis, byte for byte (inputs and aux): the shipped
//! 2KiB c1, synthetic 2KiB, 8MiB and 512MiB c1s, and single challenges of a synthetic 32GiB
//! partition (prefix + one challenge, the circuit the window machinery synthesizes).
use std::path::Path;
use std::time::Instant;

use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SectorShape512MiB, SectorShape64GiB, SectorShape8MiB};
use storage_proofs_core::merkle::MerkleTreeTrait;

use super::native_check::{describe, first_difference, Difference};
use super::porep::{porep_circuits, PorepCircuits};
use super::witness::WitnessCs;
use super::{CircuitsDyn, Statement};
use crate::input::{C1Input, PorepKind, SectorIdentity};
use crate::synth::{synth_c1, SynthOptions};
use crate::witness::{porep, PackedAux, PackedWitness};

fn synthetic<Tree: 'static + MerkleTreeTrait>(kind: PorepKind, sector_num: u64, seed: u64) -> PorepCircuits<Tree> {
    let opts = SynthOptions { kind, miner_id: 1000, sector_num, seed };
    let c1 = C1Input::parse(&synth_c1(&opts).unwrap().wrapper, Path::new("<test c1>")).unwrap();
    porep_circuits::<Tree>(&c1, &SectorIdentity { miner_id: 1000, sector_num }).unwrap()
}

/// Every partition's native witness equals its synthesis; on a difference, the panic names
/// the aux index and the gadget namespace that allocates it.
fn assert_partitions_equal(circuits: &dyn CircuitsDyn, what: &str) {
    for k in 0..circuits.num_partitions() {
        let t = Instant::now();
        let native = circuits.native_witness(k).expect("a native shape").unwrap();
        let native_time = t.elapsed();
        let t = Instant::now();
        let want = circuits.synthesize(k).unwrap();
        let gadget_time = t.elapsed();
        if let Some(d) = first_difference(&native, &want) {
            panic!("{what}: {}", describe(circuits, k, None, &d));
        }
        eprintln!(
            "{what} partition {k}: {} aux ({} bits) equal; native {native_time:.2?}, synthesis {gadget_time:.2?}",
            native.aux.len(),
            native.aux.count_bits()
        );
    }
}

#[test]
fn fixture_2kib_native_equals_synthesis() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("params/fixtures/c1-2kib-t01000-s1.json");
    let c1 = C1Input::load(&path).unwrap();
    let circuits = porep_circuits::<SectorShape2KiB>(&c1, &SectorIdentity { miner_id: 1000, sector_num: 1 }).unwrap();
    assert_partitions_equal(&circuits, "2KiB fixture");
}

#[test]
fn synthetic_2kib_and_8mib_native_equal_synthesis() {
    assert_partitions_equal(&synthetic::<SectorShape2KiB>(PorepKind::S2KiB, 7, 42), "synthetic 2KiB");
    assert_partitions_equal(&synthetic::<SectorShape8MiB>(PorepKind::S8MiB, 3, 5), "synthetic 8MiB");
}

#[test]
fn synthetic_512mib_native_equals_synthesis() {
    assert_partitions_equal(&synthetic::<SectorShape512MiB>(PorepKind::S512MiB, 2, 9), "synthetic 512MiB");
}

/// Prefix and challenge `j` of partition `k`: natively, and synthesized as the circuit of a
/// partition with that one challenge.
fn window_equal<Tree: 'static + MerkleTreeTrait>(circuits: &PorepCircuits<Tree>, k: usize, j: usize) -> PackedWitness
where
    PorepCircuits<Tree>: Sync,
{
    let roots = circuits.partition_roots(k).unwrap();
    let t = Instant::now();
    let mut native = porep::prefix(&roots);
    let ch = porep::challenge(&circuits.shape, &roots, &circuits.native[k][j]);
    let native_time = t.elapsed();
    native.aux.append(&ch.aux);
    native.inputs.extend(ch.inputs);

    let t = Instant::now();
    let mut cs = WitnessCs::with_capacity(native.aux.len() + 8192);
    circuits.synthesize_range_into(k, j..j + 1, &mut cs).unwrap();
    let want = cs.finish();
    let gadget_time = t.elapsed();
    if let Some(d) = first_difference(&native, &want) {
        panic!("{}: {}", circuits.kind().name(), describe(circuits, k, Some(j..j + 1), &d));
    }
    eprintln!(
        "{} partition {k} challenge {j}: {} aux equal; native {native_time:.2?}, synthesis {gadget_time:.2?}",
        circuits.kind().name(),
        native.aux.len()
    );
    PackedWitness { inputs: native.inputs, aux: ch.aux }
}

/// Challenges 0, 1 and the last of partition 9 of a synthetic 32GiB c1; each challenge has
/// the booleans and field elements the gadgets' code gives (7,137,252 and 94,377).
#[test]
fn synthetic_32gib_windows_native_equal_synthesis() {
    let circuits = synthetic::<SectorShape32GiB>(PorepKind::S32GiB, 1, 1);
    let t = Instant::now();
    let whole = circuits.native_witness(9).unwrap().unwrap();
    eprintln!("32GiB partition 9 natively in {:.2?} ({} threads)", t.elapsed(), rayon::current_num_threads());
    assert_eq!((whole.inputs.len(), whole.aux.len(), whole.aux.count_bits()), (328, 130_169_893, 128_470_791));
    let last = circuits.native[9].len() - 1;
    for j in [0, 1, last] {
        let w = window_equal(&circuits, 9, j);
        assert_eq!((w.aux.count_bits(), w.aux.fields().len()), (7_137_252, 94_377), "challenge {j}");
        let at = 571 + j * w.aux.len();
        assert!(whole.aux.iter().skip(at).take(w.aux.len()).eq(w.aux.iter()), "challenge {j} in the partition");
        assert_eq!(whole.inputs[4 + 18 * j..4 + 18 * (j + 1)], w.inputs[4..], "challenge {j}'s inputs");
    }
}

/// A planted difference is reported at its aux index with the gadget that allocates it: a
/// replica id bit of the prefix, and a variable of a label's SHA-256 in challenge 1.
#[test]
fn a_difference_is_located_at_its_gadget() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("params/fixtures/c1-2kib-t01000-s1.json");
    let c1 = C1Input::load(&path).unwrap();
    let circuits = porep_circuits::<SectorShape2KiB>(&c1, &SectorIdentity { miner_id: 1000, sector_num: 1 }).unwrap();
    let want = circuits.synthesize(0).unwrap();
    let challenge_1 = 571 + 1_342_551;
    for (index, expect) in [(100, "replica_id_bits"), (challenge_1 + 600_000, "challenge_1/labeling_")] {
        let mut aux = circuits.native_witness(0).unwrap().unwrap().aux.to_scalars();
        aux[index] += blstrs::Scalar::from(2u64);
        let planted = PackedWitness { inputs: want.inputs.clone(), aux: PackedAux::from_scalars(&aux) };
        let d = first_difference(&planted, &want).expect("a difference");
        assert!(matches!(d, Difference::Aux { index: i, .. } if i == index), "{d}");
        let text = describe(&circuits, 0, None, &d);
        assert!(text.contains(&format!("aux {index} differs")) && text.contains(expect), "{text}");
        eprintln!("{text}");
    }
}

/// 64GiB adds an arity-2 top level to trees R and C: challenge 0 of partition 0.
#[test]
fn synthetic_64gib_window_native_equals_synthesis() {
    let circuits = synthetic::<SectorShape64GiB>(PorepKind::S64GiB, 4, 2);
    assert_eq!(circuits.shape.tree_arities.last(), Some(&2));
    window_equal(&circuits, 0, 0);
}

/// CPU time of the calling thread (Linux: `/proc/thread-self/schedstat`, nanoseconds on CPU).
fn thread_cpu() -> std::time::Duration {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    std::time::Duration::from_nanos(s.split_whitespace().next().unwrap().parse().unwrap())
}

/// CPU time of the whole process, all threads (Linux: `/proc/self/stat`, clock ticks of 10 ms).
fn process_cpu() -> std::time::Duration {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = s.rsplit(')').next().unwrap().split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    std::time::Duration::from_millis(ticks * 10)
}

/// Native witness against gadget synthesis in CPU time: partition 0 of the 2KiB fixture
/// (`FILSNARK_TIME_SIZE=2KiB`, default) or one challenge and a whole partition of a synthetic
/// 32GiB c1 (`32GiB`), `FILSNARK_TIME_RUNS` native runs (default 20).
/// `cargo test --release --lib time_native -- --ignored --nocapture`
#[test]
#[ignore]
fn time_native() {
    let runs: u32 = std::env::var("FILSNARK_TIME_RUNS").map_or(20, |s| s.parse().unwrap());
    let size = std::env::var("FILSNARK_TIME_SIZE").unwrap_or_else(|_| "2KiB".into());
    let threads = rayon::current_num_threads();
    if size == "32GiB" {
        let circuits = synthetic::<SectorShape32GiB>(PorepKind::S32GiB, 1, 1);
        let t = thread_cpu();
        let plain = crate::witness::vanilla::partition_proofs(&circuits.vanilla).unwrap();
        crate::witness::check_partitions(&circuits.shape, &plain).unwrap();
        eprintln!("32GiB: reading and checking all vanilla proofs at load: {:.2?} CPU", thread_cpu() - t);
        let roots = circuits.partition_roots(0).unwrap();
        let (p, t) = (&circuits.native[0][0], thread_cpu());
        for _ in 0..runs {
            porep::challenge(&circuits.shape, &roots, p);
        }
        let native = (thread_cpu() - t) / runs;
        let t = thread_cpu();
        let mut cs = WitnessCs::with_capacity(7_300_000);
        circuits.synthesize_range_into(0, 0..1, &mut cs).unwrap();
        let gadget = thread_cpu() - t;
        let (wall, cpu) = (Instant::now(), process_cpu());
        for _ in 0..runs {
            circuits.native_witness(0).unwrap().unwrap();
        }
        let (wall, cpu) = (wall.elapsed() / runs, (process_cpu() - cpu) / runs);
        eprintln!(
            "32GiB one challenge, CPU time of one thread: native {native:.2?}, synthesis (prefix + challenge) \
             {gadget:.2?}; whole partition natively: {wall:.2?} wall, {cpu:.2?} CPU on {threads} threads"
        );
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("params/fixtures/c1-2kib-t01000-s1.json");
    let c1 = C1Input::load(&path).unwrap();
    let circuits = porep_circuits::<SectorShape2KiB>(&c1, &SectorIdentity { miner_id: 1000, sector_num: 1 }).unwrap();
    let (wall, cpu) = (Instant::now(), process_cpu());
    for _ in 0..runs {
        circuits.native_witness(0).unwrap().unwrap();
    }
    let (native_wall, native_cpu) = (wall.elapsed() / runs, (process_cpu() - cpu) / runs);
    let (wall, cpu) = (Instant::now(), process_cpu());
    circuits.synthesize(0).unwrap();
    let (par_wall, par_cpu) = (wall.elapsed(), process_cpu() - cpu);
    let t = thread_cpu();
    circuits.synthesize_sequential(0).unwrap();
    let seq = thread_cpu() - t;
    eprintln!(
        "2KiB partition on {threads} threads: native {native_wall:.2?} wall / {native_cpu:.2?} CPU; synthesis in \
         windows {par_wall:.2?} wall / {par_cpu:.2?} CPU; sequential synthesis {seq:.2?} CPU"
    );
}
