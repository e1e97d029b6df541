//! `filsnark bench witness`: one PoRep or PoSt partition's host stage both ways — the native
//! witness and the compiled constraints' evaluation against the crates' gadget synthesis — in
//! wall time and in CPU time (core-seconds, every thread of the process), with the two
//! assignments checked equal. The compiled shape is loaded (or compiled and cached) before the
//! clocks start. With several runs, each run after the first reuses the memory the one before
//! gave back ([`crate::hostmem::SCALARS`]), as the pipeline's later partitions do.
use std::fmt::Write;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Result};

use std::sync::Arc;

use crate::circuit::{circuits_from_c1, Assignment, PorepProof, ProofCircuits};
use crate::constraints::{evaluate, Compiled, ConstraintCache};
use crate::input::{C1Input, PostInput, SectorIdentity};

/// What one run measured, in seconds.
pub struct WitnessTimes {
    pub aux: usize,
    pub constraints: usize,
    /// Native witness, per run: wall, CPU.
    pub native: Vec<(f64, f64)>,
    /// Evaluation of A·z, B·z, C·z, per run: wall, CPU.
    pub evaluation: Vec<(f64, f64)>,
    /// Gadget synthesis: wall, CPU (None when skipped).
    pub gadgets: Option<(f64, f64)>,
}

/// CPU time of this process so far (user + system, all threads), from /proc/self/stat.
fn process_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at ") ".
    let rest = stat.rsplit_once(") ").map_or("", |(_, r)| r);
    let f: Vec<u64> = rest.split(' ').map(|v| v.parse().unwrap_or(0)).collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after ") ", in ticks of 10 ms.
    let ticks = f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<((f64, f64), T)> {
    let (wall, cpu) = (Instant::now(), process_cpu());
    let out = f()?;
    Ok(((wall.elapsed().as_secs_f64(), (process_cpu() - cpu).as_secs_f64()), out))
}

/// Measures partition `partition` of `c1`; `gadgets` also runs the gadget synthesis and checks
/// that both paths give the same assignment.
pub fn run(c1: &C1Input, sector: &SectorIdentity, partition: usize, runs: u32, gadgets: bool) -> Result<WitnessTimes> {
    let circuits = circuits_from_c1(c1, sector)?;
    ensure!(
        partition < circuits.num_partitions(),
        "--partition {partition}: this {} sector has {} partition(s)",
        c1.kind.name(),
        circuits.num_partitions()
    );
    if !circuits.has_native_witness() {
        bail!("the native witness does not know the {} shape of {}", c1.kind.name(), c1.path.display());
    }
    let base = ConstraintCache::global().porep(c1.kind)?;
    measure(&PorepProof(circuits), base, partition, runs, gadgets)
}

/// Measures partition `partition` of a post.json (its vanilla proofs checked first, untimed).
pub fn run_post(input: &PostInput, partition: usize, runs: u32, gadgets: bool) -> Result<WitnessTimes> {
    let circuits = crate::post::check(input)?;
    ensure!(
        partition < circuits.num_partitions(),
        "--partition {partition}: {} has {} partition(s)",
        input.path.display(),
        circuits.num_partitions()
    );
    let base = ConstraintCache::global().post(input.public.registered)?;
    measure(circuits.as_ref(), base, partition, runs, gadgets)
}

fn measure(
    circuits: &dyn ProofCircuits,
    base: Arc<Compiled>,
    partition: usize,
    runs: u32,
    gadgets: bool,
) -> Result<WitnessTimes> {
    let (mut native, mut evaluation) = (Vec::new(), Vec::new());
    let mut last: Option<Assignment> = None;
    for _ in 0..runs {
        if let Some(asg) = last.take() {
            asg.recycle();
        }
        let (t, w) = timed(|| circuits.native_witness(partition).expect("a native shape"))?;
        native.push(t);
        let compiled = match base.challenges_for_aux(w.aux.len()) {
            Some(n) if n != base.challenges => Arc::new(base.with_challenges(n)?),
            _ => base.clone(),
        };
        let (t, asg) = timed(|| evaluate(&compiled, &w))?;
        evaluation.push(t);
        // The witness is freed, not kept: as in the pipeline (hostmem::SCALARS says why).
        drop(w);
        last = Some(asg);
    }
    let asg = last.expect("at least one run");
    let (aux, constraints) = (asg.aux.len(), asg.num_constraints());
    let gadgets = if gadgets {
        let (t, reference) = timed(|| circuits.synthesize(partition))?;
        same(&asg, &reference)?;
        Some(t)
    } else {
        None
    };
    Ok(WitnessTimes { aux, constraints, native, evaluation, gadgets })
}

/// The two paths' assignments, compared field by field.
fn same(native: &Assignment, gadgets: &Assignment) -> Result<()> {
    let checks = [
        ("inputs", native.inputs == gadgets.inputs),
        ("aux", native.aux == gadgets.aux),
        ("A·z", native.a == gadgets.a),
        ("B·z", native.b == gadgets.b),
        ("C·z", native.c == gadgets.c),
        ("A density", native.a_aux_density == gadgets.a_aux_density),
        (
            "B densities",
            native.b_input_density == gadgets.b_input_density && native.b_aux_density == gadgets.b_aux_density,
        ),
    ];
    match checks.iter().find(|(_, ok)| !ok) {
        Some((what, _)) => bail!("the native witness and the gadget synthesis differ in {what}"),
        None => Ok(()),
    }
}

/// The report as a table.
pub fn table(t: &WitnessTimes) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "partition: {} constraints, {} aux", t.constraints, t.aux);
    let _ = writeln!(s, "{:<32} {:>9} {:>12}", "stage", "wall s", "core-s");
    let row = |s: &mut String, name: &str, (w, c): (f64, f64)| {
        let _ = writeln!(s, "{name:<32} {w:>9.3} {c:>12.2}");
    };
    let runs = t.native.len();
    for (k, (&native, &evaluation)) in t.native.iter().zip(&t.evaluation).enumerate() {
        let run = if runs > 1 { format!(", run {}", k + 1) } else { String::new() };
        row(&mut s, &format!("native witness{run}"), native);
        row(&mut s, &format!("evaluation (A·z B·z C·z){run}"), evaluation);
        row(&mut s, &format!("native total{run}"), (native.0 + evaluation.0, native.1 + evaluation.1));
    }
    // The gadgets are compared with the last run.
    let (native, evaluation) = (t.native[runs - 1], t.evaluation[runs - 1]);
    let total = (native.0 + evaluation.0, native.1 + evaluation.1);
    if let Some(g) = t.gadgets {
        row(&mut s, "gadget synthesis", g);
        let _ = writeln!(
            s,
            "same assignment both ways; native is {:.1}x faster in wall time and uses {:.1}x less CPU",
            g.0 / total.0.max(1e-9),
            g.1 / total.1.max(1e-3)
        );
    }
    s
}
