//! Parallel recording ([`super::window`]) against sequential recording: a toy circuit whose
//! challenges meet new coefficients in an order that needs renumbering and mark densities at
//! offsets off word boundaries, then the PoRep partitions of synthetic c1s and the PoRep R1CS.
//! Its comparison of two assignments, field by field, is `pub(crate)`: the compiled constraints'
//! PoSt and SnapDeals tests compare their evaluation with the synthesis by it.
use bellperson::{ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use filecoin_proofs::{SectorShape2KiB, SectorShape8MiB};
use storage_proofs_core::merkle::MerkleTreeTrait;

use super::porep::{porep_circuits, PorepCircuits};
use super::porep_windows::{measured_span, record_porep};
use super::r1cs::{R1cs, R1csCs};
use super::window::{synthesize_windows, ChallengeCircuit, Span};
use super::witness::{Assignment, WitnessCs};
use super::{CircuitsDyn, Statement};
use crate::input::SectorIdentity;
use crate::input::{C1Input, PorepKind};
use crate::synth::{synth_c1, SynthOptions};

/// Prefix: input x, aux y, w with x·y = w. Challenge i: aux z, t, u and input p;
/// (c·z + s·y)·1 = t and (t + p)·(w + c·z + e·x) = u, with c = i + 2 new in every challenge,
/// s alternating 7 and 8 (met first by challenges 0 and 1), and e zero in every third
/// challenge when `vary` (so B's input density differs between challenges).
struct Toy {
    n: usize,
    vary: bool,
}

impl ChallengeCircuit for Toy {
    fn num_challenges(&self) -> usize {
        self.n
    }

    fn synthesize_range<CS: ConstraintSystem<Scalar>>(
        &self,
        cs: &mut CS,
        range: std::ops::Range<usize>,
    ) -> Result<(), SynthesisError> {
        let f = |v: u64| Scalar::from(v);
        let x = cs.alloc_input(|| "x", || Ok(f(3)))?;
        let y = cs.alloc(|| "y", || Ok(f(5)))?;
        let w = cs.alloc(|| "w", || Ok(f(15)))?;
        cs.enforce(|| "xy", |lc| lc + x, |lc| lc + y, |lc| lc + w);
        for i in range {
            let i = i as u64;
            let (c, s) = (f(i + 2), f(7 + i % 2));
            let e = if self.vary && i.is_multiple_of(3) { f(0) } else { f(1) };
            let z = cs.alloc(|| "z", || Ok(f(11 * i + 1)))?;
            let t = cs.alloc(|| "t", || Ok(c * f(11 * i + 1) + s * f(5)))?;
            let p = cs.alloc_input(|| "p", || Ok(f(i)))?;
            let u = cs.alloc(|| "u", || Ok(f(i * i)))?;
            cs.enforce(|| "t", |lc| lc + (c, z) + (s, y), |lc| lc + CS::one(), |lc| lc + t);
            cs.enforce(|| "u", |lc| lc + t + p, |lc| lc + w + (c, z) + (e, x), |lc| lc + u);
        }
        Ok(())
    }
}

pub(crate) fn assert_same_assignment(got: &Assignment, want: &Assignment, what: &str) {
    assert_eq!(got.inputs, want.inputs, "{what}: inputs");
    assert_eq!(got.aux.len(), want.aux.len(), "{what}: aux count");
    assert!(got.aux == want.aux, "{what}: aux values");
    for (x, y, m) in [(&got.a, &want.a, "A·z"), (&got.b, &want.b, "B·z"), (&got.c, &want.c, "C·z")] {
        assert_eq!(x.len(), y.len(), "{what}: {m} length");
        if let Some(r) = (0..x.len()).find(|&r| x[r] != y[r]) {
            panic!("{what}: {m} differs first at row {r} of {}", x.len());
        }
    }
    assert_eq!(got.a_aux_density, want.a_aux_density, "{what}: A aux density");
    assert_eq!(got.b_aux_density, want.b_aux_density, "{what}: B aux density");
    assert_eq!(got.b_input_density, want.b_input_density, "{what}: B input density");
}

pub(super) fn assert_same_r1cs(got: &R1cs, want: &R1cs, what: &str) {
    let counts = |r: &R1cs| (r.num_inputs, r.num_aux, r.num_constraints);
    assert_eq!(counts(got), counts(want), "{what}: inputs, aux, constraints");
    assert_eq!(got.coeffs, want.coeffs, "{what}: coefficient table");
    for (x, y, m) in [(&got.a, &want.a, "A"), (&got.b, &want.b, "B"), (&got.c, &want.c, "C")] {
        assert!(x.row_ptr == y.row_ptr, "{what}: {m} row pointers");
        assert!(x.cols == y.cols, "{what}: {m} columns");
        assert!(x.coeff_ids == y.coeff_ids, "{what}: {m} coefficient ids");
    }
}

fn toy_witness(toy: &Toy, per: Option<Span>) -> (Assignment, Span) {
    let mut cs = WitnessCs::with_capacity(0);
    let per = synthesize_windows(toy, &mut cs, per).unwrap();
    (cs.finish(), per)
}

#[test]
fn toy_witness_in_windows_equals_sequential() {
    let toy = Toy { n: 37, vary: true };
    let mut seq = WitnessCs::with_capacity(0);
    toy.synthesize_range(&mut seq, 0..toy.n).unwrap();
    let want = seq.finish();
    let (learned, per) = toy_witness(&toy, None);
    assert_eq!(per, Span { inputs: 1, aux: 3, constraints: 2, nnz: [0; 3] });
    assert_same_assignment(&learned, &want, "challenge 0 first");
    let (known, _) = toy_witness(&toy, Some(per));
    assert_same_assignment(&known, &want, "span known");
    assert_ne!(want.b_input_density.count(), want.b_input_density.len(), "the toy varies B's inputs");
    for wrong in [Span { aux: 4, ..per }, Span { aux: 2, ..per }, Span { inputs: 0, ..per }] {
        let err = synthesize_windows(&toy, &mut WitnessCs::with_capacity(0), Some(wrong)).unwrap_err();
        assert!(format!("{err:#}").contains("challenge window "), "{wrong:?}: {err:#}");
    }
}

#[test]
fn toy_r1cs_in_windows_equals_sequential() {
    let toy = Toy { n: 37, vary: false };
    let mut seq = R1csCs::with_capacity(0, [0; 3]);
    toy.synthesize_range(&mut seq, 0..toy.n).unwrap();
    let want = seq.finish().unwrap();
    for known in [None, Some(Span { inputs: 1, aux: 3, constraints: 2, nnz: [4, 4, 2] })] {
        let mut cs = R1csCs::with_capacity(0, [0; 3]);
        let per = synthesize_windows(&toy, &mut cs, known).unwrap();
        assert_eq!(per.nnz, [4, 4, 2]);
        assert_same_r1cs(&cs.finish().unwrap(), &want, "toy R1CS");
    }
    assert_eq!(want.coeffs.len(), 1 + 37, "ONE and c = 2..=38 (s = 7, 8 among them)");
}

#[test]
fn a_window_that_records_more_than_the_first_challenge_fails() {
    struct Grows;
    impl ChallengeCircuit for Grows {
        fn num_challenges(&self) -> usize {
            3
        }
        fn synthesize_range<CS: ConstraintSystem<Scalar>>(
            &self,
            cs: &mut CS,
            range: std::ops::Range<usize>,
        ) -> Result<(), SynthesisError> {
            for i in range {
                for _ in 0..=i {
                    cs.alloc(|| "v", || Ok(Scalar::from(1)))?;
                }
            }
            Ok(())
        }
    }
    let err = synthesize_windows(&Grows, &mut WitnessCs::with_capacity(0), None).unwrap_err();
    assert!(format!("{err:#}").contains("more than the first challenge"), "{err:#}");
}

fn synthetic_circuits<Tree: 'static + MerkleTreeTrait>(
    kind: PorepKind,
    sector_num: u64,
    seed: u64,
) -> PorepCircuits<Tree> {
    let opts = SynthOptions { kind, miner_id: 1000, sector_num, seed };
    let c1 = C1Input::parse(&synth_c1(&opts).unwrap().wrapper, std::path::Path::new("<test c1>")).unwrap();
    porep_circuits::<Tree>(&c1, &SectorIdentity { miner_id: 1000, sector_num }).unwrap()
}

/// Every partition, learning the challenge span and with it known, against the sequential
/// synthesis of the crate's own circuit.
fn check_partitions<Tree: 'static + MerkleTreeTrait>(circuits: &PorepCircuits<Tree>, what: &str)
where
    PorepCircuits<Tree>: Sync,
{
    for k in 0..circuits.num_partitions() {
        let want = circuits.synthesize_sequential(k).unwrap();
        let (learned, per) = circuits.synthesize_in_windows(k, None).unwrap();
        assert_eq!(Some(per), measured_span(circuits.kind()), "{what}: the table of challenge spans");
        assert_same_assignment(&learned, &want, &format!("{what} partition {k}, challenge 0 first"));
        drop(learned);
        let (known, _) = circuits.synthesize_in_windows(k, Some(per)).unwrap();
        assert_same_assignment(&known, &want, &format!("{what} partition {k}, span known"));
        drop(known);
        assert_same_assignment(&circuits.synthesize(k).unwrap(), &want, &format!("{what} partition {k}"));
    }
}

#[test]
fn porep_2kib_witness_in_windows_equals_sequential() {
    for (sector, seed) in [(1, 1), (7, 42)] {
        let circuits = synthetic_circuits::<SectorShape2KiB>(PorepKind::S2KiB, sector, seed);
        check_partitions(&circuits, &format!("2KiB sector {sector}"));
    }
}

#[test]
fn porep_8mib_witness_in_windows_equals_sequential() {
    let circuits = synthetic_circuits::<SectorShape8MiB>(PorepKind::S8MiB, 3, 5);
    check_partitions(&circuits, "8MiB sector 3");
}

#[test]
fn porep_2kib_r1cs_in_windows_equals_sequential() {
    let (want, stem) = record_porep(PorepKind::S2KiB, false).unwrap();
    let (got, got_stem) = record_porep(PorepKind::S2KiB, true).unwrap();
    assert_eq!(got_stem, stem);
    assert_same_r1cs(&got, &want, "2KiB R1CS");
}

/// Times sequential against parallel witness synthesis of partition 0 of a synthetic c1:
/// `FILSNARK_TIME_SIZE` (2KiB, 8MiB, 512MiB, 32GiB), keeping only the first
/// `FILSNARK_TIME_CHALLENGES` challenges if set (a 32GiB partition does not fit a small host).
/// `cargo test --release --lib time_windows -- --ignored --nocapture`
#[test]
#[ignore]
fn time_windows() {
    use filecoin_proofs::{SectorShape32GiB, SectorShape512MiB};
    let size = std::env::var("FILSNARK_TIME_SIZE").unwrap_or_else(|_| "2KiB".into());
    let keep = std::env::var("FILSNARK_TIME_CHALLENGES").ok().map(|s| s.parse::<usize>().unwrap());
    let kind = PorepKind::parse(&size).unwrap();
    match kind {
        PorepKind::S2KiB => time_kind::<SectorShape2KiB>(kind, keep),
        PorepKind::S8MiB => time_kind::<SectorShape8MiB>(kind, keep),
        PorepKind::S512MiB => time_kind::<SectorShape512MiB>(kind, keep),
        PorepKind::S32GiB => time_kind::<SectorShape32GiB>(kind, keep),
        PorepKind::S64GiB => unimplemented!(),
    }
}

fn time_kind<Tree: 'static + MerkleTreeTrait>(kind: PorepKind, keep: Option<usize>)
where
    PorepCircuits<Tree>: Sync,
{
    use std::time::Instant;
    let t = Instant::now();
    let mut circuits = synthetic_circuits::<Tree>(kind, 1, 1);
    eprintln!("{}: synthetic c1 in {:.1?}", kind.name(), t.elapsed());
    if let Some(n) = keep {
        circuits.vanilla[0].truncate(n);
    }
    let n = circuits.vanilla[0].len();
    let t = Instant::now();
    let want = circuits.synthesize_sequential(0).unwrap();
    let seq = t.elapsed();
    let t = Instant::now();
    let (got, per) = circuits.synthesize_in_windows(0, None).unwrap();
    let learned = t.elapsed();
    drop(got);
    let t = Instant::now();
    let (got, _) = circuits.synthesize_in_windows(0, Some(per)).unwrap();
    let known = t.elapsed();
    assert_same_assignment(&got, &want, kind.name());
    eprintln!(
        "{}: {n} challenges, {} constraints, {} threads: sequential {seq:.2?}, windows {learned:.2?} \
         (challenge 0 first), {known:.2?} (span known); one challenge {per:?}",
        kind.name(),
        got.num_constraints(),
        rayon::current_num_threads()
    );
}

/// Times the sequential against the parallel R1CS recording of `FILSNARK_TIME_SIZE` and
/// checks they agree. `cargo test --release --lib time_record -- --ignored --nocapture`
#[test]
#[ignore]
fn time_record() {
    use std::time::Instant;
    let size = std::env::var("FILSNARK_TIME_SIZE").unwrap_or_else(|_| "2KiB".into());
    let kind = PorepKind::parse(&size).unwrap();
    let t = Instant::now();
    let (got, _) = record_porep(kind, true).unwrap();
    let par = t.elapsed();
    let t = Instant::now();
    let (want, _) = record_porep(kind, false).unwrap();
    let seq = t.elapsed();
    assert_same_r1cs(&got, &want, kind.name());
    eprintln!(
        "{}: R1CS of {} constraints, {} threads: sequential {seq:.2?}, windows {par:.2?}",
        kind.name(),
        got.num_constraints,
        rayon::current_num_threads()
    );
}
