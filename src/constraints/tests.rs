//! The compiled constraints against the crates' own gadgets: the template check on a toy
//! circuit (repeating and not) and on a perturbed PoRep recording; the compiled PoRep shapes
//! expanded row by row against the full recording; evaluation at packed witnesses against
//! gadget synthesis (2KiB fixture, synthetic 8MiB and 512MiB, windows of a 32GiB partition).
use std::path::Path;
use std::sync::{Arc, Mutex};

use bellperson::{ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;

use super::coeff;
use super::*;
use crate::circuit::porep_windows::{record_porep, record_porep_sample};
use crate::circuit::r1cs::{R1cs, R1csCs};
use crate::circuit::window::{synthesize_windows, ChallengeCircuit, Span, Windowed};
use crate::circuit::window_tests::assert_same_assignment;
use crate::circuit::witness::WitnessCs;
use crate::circuit::{circuits_from_c1, Assignment, CircuitsDyn};
use crate::input::SectorIdentity;
use crate::input::{C1Input, PorepKind};
use crate::synth::{synth_c1, SynthOptions};
use crate::witness::{PackedAux, PackedWitness};

/// Prefix: inputs x, aux y, w with x·y = w. Challenge i: aux z, t, u, v and input p;
/// z boolean; (2^40·z + 3·y − t)·1 = 0; (t + p + 2^100·z)·(w − z + x) = u; (u·v)·(7·y) = −u;
/// `perturb`: challenge 2's second row uses 5 instead of 3.
struct Toy {
    n: usize,
    perturb: bool,
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
        let (p40, p100) = (coeff::pow2_values()[40], coeff::pow2_values()[100]);
        for i in range {
            let zv = f(i as u64 % 2);
            let s = if self.perturb && i == 2 { f(5) } else { f(3) };
            let z = cs.alloc(|| "z", || Ok(zv))?;
            let t = cs.alloc(|| "t", || Ok(p40 * zv + s * f(5)))?;
            let p = cs.alloc_input(|| "p", || Ok(f(100 + i as u64)))?;
            let u = cs.alloc(|| "u", || Ok(f(1 + i as u64)))?;
            let v = cs.alloc(|| "v", || Ok(f(9)))?;
            cs.enforce(|| "bool", |lc| lc + z, |lc| lc + CS::one() - z, |lc| lc);
            cs.enforce(|| "t", |lc| lc + (p40, z) + (s, y) - t, |lc| lc + CS::one(), |lc| lc);
            cs.enforce(|| "u", |lc| lc + t + p + (p100, z), |lc| lc + w - z + x, |lc| lc + u);
            cs.enforce(|| "uv", |lc| lc + u, |lc| lc + (f(7), y) + v, |lc| lc - u);
        }
        Ok(())
    }
}

fn record_toy(toy: &Toy) -> (R1cs, Span, Span) {
    let mut cs = R1csCs::with_capacity(0, [0; 3]);
    let per = synthesize_windows(toy, &mut cs, None).unwrap();
    let whole = cs.span();
    let prefix = Span {
        inputs: whole.inputs - toy.n * per.inputs,
        aux: whole.aux - toy.n * per.aux,
        constraints: whole.constraints - toy.n * per.constraints,
        nnz: [0; 3],
    };
    (cs.finish().unwrap(), prefix, per)
}

fn toy_witness(toy: &Toy) -> Assignment {
    let mut cs = WitnessCs::with_capacity(0);
    toy.synthesize_range(&mut cs, 0..toy.n).unwrap();
    cs.finish()
}

pub(super) fn packed(asg: &Assignment) -> PackedWitness {
    PackedWitness { inputs: asg.inputs.clone(), aux: PackedAux::from_scalars(&asg.aux) }
}

/// Row by row, the compiled circuit's terms (columns and coefficient values) are the
/// recording's.
pub(super) fn assert_expands_to(c: &Compiled, r1cs: &R1cs, what: &str) {
    assert_eq!(
        (c.num_inputs(), c.num_aux(), c.num_constraints()),
        (r1cs.num_inputs, r1cs.num_aux, r1cs.num_constraints),
        "{what}: sizes"
    );
    assert_eq!(c.nnz(), [r1cs.a.nnz() - r1cs.num_inputs, r1cs.b.nnz(), r1cs.c.nnz()], "{what}: non-zeros");
    for (m, matrix) in [&r1cs.a, &r1cs.b, &r1cs.c].into_iter().enumerate() {
        for r in 0..c.circuit_constraints() {
            let got = c.row_terms(m, r).map(|(col, code)| (col, coeff::value(code, &c.table)));
            let want = matrix.row(r).map(|(col, id)| (col, r1cs.coeffs[id as usize]));
            assert!(got.eq(want), "{what}: row {r} of matrix {m}");
        }
    }
}

#[test]
fn toy_compiles_to_a_template_and_evaluates_as_synthesis() {
    let toy = Toy { n: 5, perturb: false };
    let (r1cs, prefix, per) = record_toy(&toy);
    assert_eq!(per, Span { inputs: 1, aux: 4, constraints: 4, nnz: [8, 8, 2] });
    let c = Compiled::from_sample(&r1cs, prefix, per, toy.n, toy.n, "toy".into()).unwrap();
    assert_eq!((c.head.rows, c.template.rows, c.table.len()), (1, 4, 2), "3 and 7 in the table, ±2^k not");
    assert_expands_to(&c, &r1cs, "toy");
    let want = toy_witness(&toy);
    assert_same_assignment(&evaluate(&c, &packed(&want)).unwrap(), &want, "toy");
    // The same template, compiled from 3 challenges, serves a circuit of 5.
    let (r3, p3, q3) = record_toy(&Toy { n: 3, perturb: false });
    let c3 = Compiled::from_sample(&r3, p3, q3, 3, 5, "toy".into()).unwrap();
    assert_same_assignment(&evaluate(&c3, &packed(&want)).unwrap(), &want, "toy from 3 challenges");
    let abc = evaluate_abc(&c3.with_challenges(5).unwrap(), &packed(&want)).unwrap();
    assert!(abc.a == want.a && abc.b == want.b && abc.c == want.c);
}

#[test]
fn a_challenge_that_does_not_repeat_is_found() {
    let toy = Toy { n: 4, perturb: true };
    let (r1cs, prefix, per) = record_toy(&toy);
    let err = Compiled::from_sample(&r1cs, prefix, per, toy.n, toy.n, "toy".into()).unwrap_err();
    let m = err.downcast_ref::<Mismatch>().expect("a mismatch");
    assert_eq!((m.challenge, m.matrix, m.row), (2, 0, 1), "{m}");
    assert!(format!("{err}").contains("challenge 2 does not repeat challenge 0: its row 1 of A"), "{err}");
    // Kept whole, it still evaluates as synthesis.
    let full = Compiled::full(&r1cs, "toy".into()).unwrap();
    assert_eq!((full.challenges, full.template.rows), (0, 0));
    let want = toy_witness(&toy);
    assert_same_assignment(&evaluate(&full, &packed(&want)).unwrap(), &want, "perturbed toy, whole");
}

/// The 2KiB recording, perturbed in each of the ways a repeat can fail, is refused.
#[test]
fn perturbed_porep_recording_is_not_a_template() {
    let s = record_porep_sample(PorepKind::S2KiB, SAMPLED).unwrap();
    let first = s.prefix.constraints + 2 * s.per.constraints;
    let b = &s.r1cs.b;
    let row = (first + 1000..).find(|&r| b.row_ptr[r + 1] > b.row_ptr[r]).unwrap();
    let at = |r: &R1cs| r.b.row_ptr[row] as usize;
    let compile = |r: &R1cs| Compiled::from_sample(r, s.prefix, s.per, SAMPLED, 2, s.stem.clone());
    compile(&s.r1cs).expect("the unperturbed recording repeats");
    let mut col = s.r1cs.clone();
    let k = at(&col);
    col.b.cols[k] += 1;
    let mut id = s.r1cs.clone();
    let k = at(&id);
    id.b.coeff_ids[k] = if id.b.coeff_ids[k] == 0 { 1 } else { 0 };
    let mut moved = s.r1cs.clone();
    moved.b.row_ptr[row] += 1; // a term moves to the row before
    for (r, how) in [(&col, "column"), (&id, "coefficient"), (&moved, "row length")] {
        let err = compile(r).unwrap_err();
        let m = err.downcast_ref::<Mismatch>().unwrap_or_else(|| panic!("{how}: {err:#}"));
        assert_eq!((m.challenge, m.matrix), (2, 1), "{how}: {m}");
        let want = if how == "row length" { row - first - 1 } else { row - first };
        assert_eq!(m.row, want, "{how}: {m}");
    }
}

/// Compiled shapes, one per kind per test process.
pub(super) fn compiled(kind: PorepKind) -> Arc<Compiled> {
    static SHAPES: Mutex<Vec<(PorepKind, Arc<Compiled>)>> = Mutex::new(Vec::new());
    let mut shapes = SHAPES.lock().unwrap();
    if let Some((_, c)) = shapes.iter().find(|(k, _)| *k == kind) {
        return c.clone();
    }
    let c = Arc::new(compile_porep(kind, &|m| panic!("{m}")).unwrap());
    shapes.push((kind, c.clone()));
    c
}

fn fixture_circuits() -> Box<dyn CircuitsDyn> {
    let c1 =
        C1Input::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("params/fixtures/c1-2kib-t01000-s1.json")).unwrap();
    circuits_from_c1(&c1, &SectorIdentity { miner_id: 1000, sector_num: 1 }).unwrap()
}

fn synthetic_circuits(kind: PorepKind) -> Box<dyn CircuitsDyn> {
    let opts = SynthOptions { kind, miner_id: 1000, sector_num: 5, seed: 9 };
    let c1 = C1Input::parse(&synth_c1(&opts).unwrap().wrapper, Path::new("<synthetic c1>")).unwrap();
    circuits_from_c1(&c1, &SectorIdentity { miner_id: 1000, sector_num: 5 }).unwrap()
}

/// The compiled shape is the full recording, and every partition evaluates as synthesis.
fn check_small(kind: PorepKind, circuits: &dyn CircuitsDyn) {
    let c = compiled(kind);
    assert_eq!(c.challenges, 2);
    assert_eq!(c.stem, circuits.params_stem());
    let (full, _) = record_porep(kind, true).unwrap();
    assert_expands_to(&c, &full, kind.name());
    drop(full);
    for k in 0..circuits.num_partitions() {
        let want = circuits.synthesize(k).unwrap();
        assert_same_assignment(
            &evaluate(&c, &packed(&want)).unwrap(),
            &want,
            &format!("{} partition {k}", kind.name()),
        );
    }
}

#[test]
fn porep_2kib_fixture_evaluates_as_synthesis() {
    check_small(PorepKind::S2KiB, &*fixture_circuits());
}

#[test]
fn porep_8mib_evaluates_as_synthesis() {
    check_small(PorepKind::S8MiB, &*synthetic_circuits(PorepKind::S8MiB));
}

#[test]
fn porep_512mib_evaluates_as_synthesis() {
    let circuits = synthetic_circuits(PorepKind::S512MiB);
    check_small(PorepKind::S512MiB, &*circuits);
    reused_vectors_evaluate_as_synthesis(PorepKind::S512MiB, &*circuits);
}

/// A partition evaluated into the vectors a spent assignment gave back (`hostmem::SCALARS`),
/// each overwritten with ONE first, evaluates as synthesis: every slot is written anew. The
/// 512MiB vectors (141 MB) are large enough to be kept.
fn reused_vectors_evaluate_as_synthesis(kind: PorepKind, circuits: &dyn CircuitsDyn) {
    let c = compiled(kind);
    let want = circuits.synthesize(0).unwrap();
    let w = packed(&want);
    let mut spent = evaluate(&c, &w).unwrap();
    let mut given = Vec::new();
    for v in [&mut spent.aux, &mut spent.a, &mut spent.b, &mut spent.c] {
        v.fill(Scalar::ONE);
        given.push(v.as_ptr());
    }
    spent.recycle();
    let again = evaluate(&c, &w).unwrap();
    let reused = [&again.aux, &again.a, &again.b, &again.c].iter().filter(|v| given.contains(&v.as_ptr())).count();
    assert!(reused > 0, "no kept vector was reused");
    assert_same_assignment(&again, &want, &format!("{} partition 0, reused vectors", kind.name()));
}

/// Partition 9 of a synthetic 32GiB c1 cut to its challenges 0, 1 and 17 (the last):
/// the compiled shape with 3 challenges evaluates as the gadgets synthesize that window.
#[test]
fn porep_32gib_windows_evaluate_as_synthesis() {
    let c = compiled(PorepKind::S32GiB);
    assert_eq!((c.challenges, c.per.aux, c.per.constraints), (18, 7_231_629, 7_237_665));
    let circuits = synthetic_circuits(PorepKind::S32GiB);
    let window = c.with_challenges(3).unwrap();
    let want = circuits.synthesize_challenges(9, &[0, 1, 17]).unwrap();
    assert_same_assignment(
        &evaluate(&window, &packed(&want)).unwrap(),
        &want,
        "32GiB partition 9, challenges 0, 1, 17",
    );
}

#[test]
fn a_witness_of_another_shape_is_refused() {
    let toy = Toy { n: 3, perturb: false };
    let (r1cs, prefix, per) = record_toy(&toy);
    let c = Compiled::from_sample(&r1cs, prefix, per, 3, 3, "toy".into()).unwrap();
    let mut w = packed(&toy_witness(&toy));
    w.aux.push_bit(false);
    let err = evaluate(&c, &w).err().unwrap();
    assert!(
        format!("{err}")
            .contains("the witness has 5 inputs and 15 aux; the compiled circuit (toy, 3 challenges) takes 5 and 14"),
        "{err}"
    );
    let mut w = packed(&toy_witness(&toy));
    w.inputs[0] = Scalar::from(2u64);
    assert!(format!("{}", evaluate(&c, &w).err().unwrap()).contains("public input 0 is not ONE"));
}

/// Times compiling a shape and evaluating it against gadget synthesis, on one core (core-
/// seconds) and on all: `FILSNARK_TIME_SIZE` (2KiB, 8MiB, 512MiB, 32GiB; 32GiB times the
/// window of challenges 0, 1, 17 of partition 9 and scales it to 18 challenges).
/// `cargo test --release --lib constraints::tests::time_compiled -- --ignored --nocapture`
#[test]
#[ignore]
fn time_compiled() {
    use std::time::Instant;
    let kind = PorepKind::parse(&std::env::var("FILSNARK_TIME_SIZE").unwrap_or_else(|_| "2KiB".into())).unwrap();
    let t = Instant::now();
    let c = compile_porep(kind, &|m| eprintln!("{m}")).unwrap();
    eprintln!("{}: compiled in {:.1?}", kind.name(), t.elapsed());
    let full_csr = 8 * c.nnz().iter().sum::<usize>() + 12 * (c.circuit_constraints() + 1) + 32 * (c.table.len() + 1);
    let cuzk = 36 * c.nnz().iter().sum::<usize>() + 12 * (c.circuit_constraints() + 1);
    eprintln!(
        "  head {} rows, template {} rows, nnz per partition {:?}, table {} coefficients; {} bytes compiled \
         (head {}, template {}, table {}); u32 CSR of the whole partition {full_csr}; CSR with a 32-byte scalar per \
         entry {cuzk}",
        c.head.rows,
        c.template.rows,
        c.nnz(),
        c.table.len(),
        c.bytes(),
        c.head.bytes(),
        c.template.bytes(),
        32 * c.table.len()
    );
    let t = Instant::now();
    let circuits = if kind == PorepKind::S2KiB { fixture_circuits() } else { synthetic_circuits(kind) };
    eprintln!("  c1 in {:.1?}", t.elapsed());
    let (window, k, sel): (Compiled, usize, Vec<usize>) = match kind {
        PorepKind::S32GiB | PorepKind::S64GiB => (c.with_challenges(3).unwrap(), 9, vec![0, 1, 17]),
        _ => (c.clone(), 0, (0..c.challenges).collect()),
    };
    let scale = c.challenges as f64 / sel.len() as f64;
    for threads in [1, rayon::current_num_threads()] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let t = Instant::now();
            let want = circuits.synthesize_challenges(k, &sel).unwrap();
            let synth = t.elapsed().as_secs_f64();
            let w = packed(&want);
            let t = Instant::now();
            let abc = evaluate_abc(&window, &w).unwrap();
            let eval_abc = t.elapsed().as_secs_f64();
            drop(abc);
            let t = Instant::now();
            let got = evaluate(&window, &w).unwrap();
            let eval = t.elapsed().as_secs_f64();
            assert_same_assignment(&got, &want, kind.name());
            eprintln!(
                "  {threads} thread(s), {} challenges: gadget synthesis {synth:.2} s, A·z B·z C·z {eval_abc:.2} s, \
                 with aux scalars and densities {eval:.2} s; per partition ×{scale:.0}: synthesis {:.1} s, \
                 evaluation {:.2} s ({:.0}× less)",
                sel.len(),
                synth * scale,
                eval * scale,
                synth / eval
            );
        });
    }
}
