//! Synthesis of one circuit on many cores, for circuits made of a short *prefix* followed by
//! *challenges* that each use only the prefix's variables and their own (the PoRep partition:
//! replica id and commitments, then one sub-circuit per challenge).
//!
//! The recording constraint system ([`Windowed`]: the witness or the R1CS recorder) first takes
//! the prefix as usual. Every challenge allocates, inputizes and enforces the same numbers of
//! times ([`Span`]), so challenge `j` owns a fixed stretch of every recorded vector; a *window*
//! records it straight into that stretch of the partition's preallocated vectors (no copy, no
//! second set of vectors), numbering its variables from where challenge `j` begins. Windows run
//! on rayon; [`Windowed::join`] merges what cannot be written in place (densities, inputs, new
//! coefficients) in challenge order, so the result is the sequential recording, bit for bit.
//!
//! A window cannot start in the middle of a circuit: it synthesizes the prefix plus its own
//! challenge, and [`Replaying`] hands the prefix's allocations back their variables (they are
//! numbered exactly as in the first run) and drops the prefix's constraints.
use std::mem::MaybeUninit;
use std::ops::Range;

use anyhow::{anyhow, bail, Result};
use bellperson::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use rayon::prelude::*;

/// What a stretch of the circuit records: public inputs (the prefix's count includes ONE),
/// aux variables, constraints, and non-zeros of A, B, C (0 for recorders that keep none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub inputs: usize,
    pub aux: usize,
    pub constraints: usize,
    pub nnz: [usize; 3],
}

impl Span {
    /// `self − earlier`: what was recorded after `earlier`.
    pub fn since(self, earlier: Span) -> Span {
        Span {
            inputs: self.inputs - earlier.inputs,
            aux: self.aux - earlier.aux,
            constraints: self.constraints - earlier.constraints,
            nnz: [0, 1, 2].map(|m| self.nnz[m] - earlier.nnz[m]),
        }
    }

    /// Where window `j` of `per`-sized windows begins when they follow `base`.
    pub fn window_start(base: Span, per: Span, j: usize) -> Span {
        Span {
            inputs: base.inputs + j * per.inputs,
            aux: base.aux + j * per.aux,
            constraints: base.constraints + j * per.constraints,
            nnz: [0, 1, 2].map(|m| base.nnz[m] + j * per.nnz[m]),
        }
    }
}

/// A stretch of a vector's spare capacity, written front to back by one window.
pub struct Filling<'w, T> {
    slots: &'w mut [MaybeUninit<T>],
    len: usize,
}

impl<'w, T: Copy> Filling<'w, T> {
    /// Appends `value`; false (and nothing written) when the stretch is full.
    #[inline]
    pub fn push(&mut self, value: T) -> bool {
        match self.slots.get_mut(self.len) {
            Some(slot) => {
                slot.write(value);
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// The `i`-th value written, if written.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        // SAFETY: slots [0, len) were written by `push`.
        (i < self.len).then(|| unsafe { self.slots[i].assume_init() })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn is_full(&self) -> bool {
        self.len == self.slots.len()
    }
}

/// Splits the spare capacity of `v` after its `len` into `n` stretches of `per` (reserving
/// first if needed). Once every stretch is full, [`commit`] extends `v` over them.
pub fn split_spare<T>(v: &mut Vec<T>, per: usize, n: usize) -> Vec<Filling<'_, T>> {
    v.reserve_exact(per * n);
    let spare = &mut v.spare_capacity_mut()[..per * n];
    if per == 0 {
        return (0..n).map(|_| Filling { slots: &mut [], len: 0 }).collect();
    }
    spare.chunks_mut(per).map(|slots| Filling { slots, len: 0 }).collect()
}

/// As [`split_spare`], and the first `keep` values of `v` (those before the windows, which they
/// read but never write) shared by every window instead of copied into each.
pub fn split_spare_after<T>(v: &mut Vec<T>, keep: usize, per: usize, n: usize) -> (&[T], Vec<Filling<'_, T>>) {
    assert!(keep <= v.len());
    v.reserve_exact(per * n);
    let len = v.len();
    let ptr = v.as_mut_ptr();
    // SAFETY: both slices come from one raw pointer of the exclusively borrowed vector (as_mut_ptr
    // materialises no reference), [0, keep) lies within its initialised values and
    // [len, len + per·n) within its spare capacity (reserved above), so they are disjoint; the
    // vector cannot reallocate or change while the returned borrows live.
    let (init, spare) = unsafe {
        (
            std::slice::from_raw_parts(ptr, keep),
            std::slice::from_raw_parts_mut(ptr.add(len).cast::<MaybeUninit<T>>(), per * n),
        )
    };
    if per == 0 {
        return (init, (0..n).map(|_| Filling { slots: &mut [], len: 0 }).collect());
    }
    (init, spare.chunks_mut(per).map(|slots| Filling { slots, len: 0 }).collect())
}

/// Extends `v` over `added` values of its spare capacity.
///
/// # Safety
/// The first `added` slots of `v`'s spare capacity must have been written: here, the stretches
/// [`split_spare`] gave out, every one reported full by [`Filling::is_full`].
pub unsafe fn commit<T>(v: &mut Vec<T>, added: usize) {
    assert!(v.len() + added <= v.capacity());
    v.set_len(v.len() + added);
}

/// A recorder whose challenges can be recorded in parallel windows.
pub trait Windowed: ConstraintSystem<Scalar, Root = Self> {
    /// Whether replayed prefix allocations run their value closures (the witness recorder:
    /// gadgets learn their values from them) or not (the shape recorder).
    const EVALUATES: bool;
    type Window<'w>: ConstraintSystem<Scalar> + Send
    where
        Self: 'w;
    /// What a finished window leaves to merge; it no longer borrows the vectors.
    type Closed: Send;

    /// What has been recorded so far.
    fn span(&self) -> Span;
    /// `n` windows of `per` after what has been recorded so far; each may read the first
    /// `prefix` variables besides its own.
    fn open(&mut self, prefix: Span, per: Span, n: usize) -> Vec<Self::Window<'_>>;
    /// Checks that the window recorded exactly its stretch.
    fn close(window: Self::Window<'_>) -> Result<Self::Closed>;
    /// Takes the windows' stretches into the recording, in order, and merges the rest.
    fn join(&mut self, per: Span, closed: Vec<Self::Closed>) -> Result<()>;
}

/// A circuit made of a prefix and challenges.
pub trait ChallengeCircuit: Sync {
    fn num_challenges(&self) -> usize;
    /// Synthesizes the prefix followed by the challenges in `range` (none: the prefix alone).
    fn synthesize_range<CS: ConstraintSystem<Scalar>>(
        &self,
        cs: &mut CS,
        range: Range<usize>,
    ) -> Result<(), SynthesisError>;
}

/// Records `circuit` into `cs` as a sequential synthesis would, its challenges in parallel.
/// `per`: the span of one challenge if known; else challenge 0 is recorded first to learn it.
/// Returns the span of one challenge.
pub fn synthesize_windows<C: ChallengeCircuit, W: Windowed>(
    circuit: &C,
    cs: &mut W,
    per: Option<Span>,
) -> Result<Span> {
    circuit.synthesize_range(cs, 0..0).map_err(|e| anyhow!("synthesis of the prefix failed: {e}"))?;
    let prefix = cs.span();
    let n = circuit.num_challenges();
    let (first, per) = match per {
        Some(per) => (0, per),
        None if n == 0 => return Ok(Span::default()),
        None => {
            replay_and_record::<C, W, W>(circuit, cs, prefix, 0)?;
            (1, cs.span().since(prefix))
        }
    };
    let windows = cs.open(prefix, per, n - first);
    let closed = windows
        .into_par_iter()
        .enumerate()
        .map(|(j, mut w)| {
            replay_and_record::<C, W, W::Window<'_>>(circuit, &mut w, prefix, first + j)?;
            W::close(w)
        })
        .collect::<Result<Vec<_>>>()?;
    cs.join(per, closed)?;
    Ok(per)
}

/// Synthesizes the prefix (replayed) and challenge `i` (recorded) into `cs`.
fn replay_and_record<C: ChallengeCircuit, W: Windowed, CS: ConstraintSystem<Scalar>>(
    circuit: &C,
    cs: &mut CS,
    prefix: Span,
    i: usize,
) -> Result<()> {
    let mut r = Replaying {
        inner: cs,
        prefix,
        seen: Span { inputs: 1, ..Span::default() },
        evaluates: W::EVALUATES,
        fault: None,
    };
    circuit.synthesize_range(&mut r, i..i + 1).map_err(|e| anyhow!("synthesis of challenge {i} failed: {e}"))?;
    match r.fault {
        Some(f) => bail!("challenge {i}: {f}"),
        None => Ok(()),
    }
}

/// Wraps a recorder: the first `prefix` allocations, inputs and constraints are the prefix's,
/// already recorded, and get their variables back; the rest goes to `inner`.
pub struct Replaying<'a, CS> {
    inner: &'a mut CS,
    prefix: Span,
    seen: Span,
    evaluates: bool,
    fault: Option<String>,
}

impl<CS> Replaying<'_, CS> {
    fn in_prefix(&self) -> bool {
        self.seen.aux < self.prefix.aux
            || self.seen.inputs < self.prefix.inputs
            || self.seen.constraints < self.prefix.constraints
    }

    /// Called on the first operations past the prefix: by then all of the prefix must have
    /// been replayed (it ends before the challenge begins).
    fn leave_prefix(&mut self) {
        if self.in_prefix() && self.fault.is_none() {
            self.fault = Some(format!(
                "the prefix interleaves with the challenge (replayed {:?} of {:?})",
                self.seen, self.prefix
            ));
        }
    }
}

impl<CS: ConstraintSystem<Scalar>> ConstraintSystem<Scalar> for Replaying<'_, CS> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        if self.seen.aux < self.prefix.aux {
            if self.evaluates {
                f()?;
            }
            self.seen.aux += 1;
            return Ok(Variable::new_unchecked(Index::Aux(self.seen.aux - 1)));
        }
        self.leave_prefix();
        self.inner.alloc(annotation, f)
    }

    fn alloc_input<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        if self.seen.inputs < self.prefix.inputs {
            if self.evaluates {
                f()?;
            }
            self.seen.inputs += 1;
            return Ok(Variable::new_unchecked(Index::Input(self.seen.inputs - 1)));
        }
        self.leave_prefix();
        self.inner.alloc_input(annotation, f)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, annotation: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        if self.seen.constraints < self.prefix.constraints {
            self.seen.constraints += 1;
            return;
        }
        self.leave_prefix();
        self.inner.enforce(annotation, a, b, c)
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}

/// A constraint system that only counts inputs, aux variables and constraints (the span of a
/// witness recording, which keeps no non-zeros); it runs no closure, as a blank synthesis. What a
/// blank prefix or challenge is counted with before the windows start (PoSt sectors, SnapDeals
/// challenges).
pub struct Counter(pub Span);

impl ConstraintSystem<Scalar> for Counter {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.0.aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.0.inputs)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        self.0.constraints += 1;
    }

    fn push_namespace<NR: Into<String>, N: FnOnce() -> NR>(&mut self, _: N) {}

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}
