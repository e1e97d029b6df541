//! The witness recorder ([`WitnessCs`]) in windows: each challenge's aux values and A·z, B·z,
//! C·z go straight into its stretch of the partition's vectors; its inputs and the A/B
//! densities it marks (its own variables and the prefix's) are merged in challenge order.
//! Reading a variable that is neither the prefix's nor the window's own is an error: the
//! window cannot know its value.
use anyhow::{bail, Result};
use bellperson::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;

use super::window::{commit, split_spare, split_spare_after, Filling, Span, Windowed};
use super::witness::{term, WitnessCs};
use super::Density;

/// One challenge's recording.
pub struct WitnessWindow<'w> {
    index: usize,
    /// The values recorded before the windows, shared by all of them.
    prefix_inputs: &'w [Scalar],
    prefix_aux: &'w [Scalar],
    /// Where the window's variables and constraints begin, and what it has recorded.
    start: Span,
    own: Span,
    per: Span,
    inputs: Vec<Scalar>,
    aux: Filling<'w, Scalar>,
    abc: [Filling<'w, Scalar>; 3],
    a_prefix: Density,
    b_prefix: Density,
    a_own: Density,
    b_own: Density,
    /// Inputs occurring in B, by their index in the partition.
    b_inputs: Density,
    fault: Option<String>,
}

/// What a finished window leaves to merge.
pub struct ClosedWitness {
    index: usize,
    start: Span,
    inputs: Vec<Scalar>,
    a_prefix: Density,
    b_prefix: Density,
    a_own: Density,
    b_own: Density,
    b_inputs: Density,
}

fn zeros(n: usize) -> Density {
    let mut d = Density::default();
    d.grow(n);
    d
}

impl Windowed for WitnessCs {
    const EVALUATES: bool = true;
    type Window<'w> = WitnessWindow<'w>;
    type Closed = ClosedWitness;

    fn span(&self) -> Span {
        let s = &self.0;
        Span { inputs: s.inputs.len(), aux: s.aux.len(), constraints: s.a.len(), nnz: [0; 3] }
    }

    fn open(&mut self, prefix: Span, per: Span, n: usize) -> Vec<WitnessWindow<'_>> {
        let base = self.span();
        let s = &mut self.0;
        let prefix_inputs = &s.inputs[..prefix.inputs];
        let (prefix_aux, aux) = split_spare_after(&mut s.aux, prefix.aux, per.aux, n);
        let a = split_spare(&mut s.a, per.constraints, n);
        let b = split_spare(&mut s.b, per.constraints, n);
        let c = split_spare(&mut s.c, per.constraints, n);
        let stretches = aux.into_iter().zip(a).zip(b).zip(c);
        stretches
            .enumerate()
            .map(|(index, (((aux, a), b), c))| {
                let start = Span::window_start(base, per, index);
                WitnessWindow {
                    index,
                    prefix_inputs,
                    prefix_aux,
                    start,
                    own: Span::default(),
                    per,
                    inputs: Vec::with_capacity(per.inputs),
                    aux,
                    abc: [a, b, c],
                    a_prefix: zeros(prefix.aux),
                    b_prefix: zeros(prefix.aux),
                    a_own: zeros(per.aux),
                    b_own: zeros(per.aux),
                    b_inputs: zeros(start.inputs + per.inputs),
                    fault: None,
                }
            })
            .collect()
    }

    fn close(w: WitnessWindow<'_>) -> Result<ClosedWitness> {
        if let Some(f) = w.fault {
            bail!("challenge window {}: {f}", w.index);
        }
        let full = w.aux.is_full() && w.abc.iter().all(Filling::is_full) && w.inputs.len() == w.per.inputs;
        if w.own != w.per || !full {
            bail!("challenge window {} recorded {:?}, the first challenge {:?}", w.index, w.own, w.per);
        }
        let WitnessWindow { index, start, inputs, a_prefix, b_prefix, a_own, b_own, b_inputs, .. } = w;
        Ok(ClosedWitness { index, start, inputs, a_prefix, b_prefix, a_own, b_own, b_inputs })
    }

    fn join(&mut self, per: Span, closed: Vec<ClosedWitness>) -> Result<()> {
        let (base, n) = (self.span(), closed.len());
        for (j, w) in closed.iter().enumerate() {
            if w.index != j || w.start != Span::window_start(base, per, j) {
                bail!("challenge windows joined out of order");
            }
        }
        let s = &mut self.0;
        // SAFETY: `open` split these stretches off the spare capacity in this order, and
        // `close` found every one of the `n` full.
        unsafe {
            commit(&mut s.aux, n * per.aux);
            for v in [&mut s.a, &mut s.b, &mut s.c] {
                commit(v, n * per.constraints);
            }
        }
        s.a_aux_density.grow(n * per.aux);
        s.b_aux_density.grow(n * per.aux);
        s.b_input_density.grow(n * per.inputs);
        for w in closed {
            s.inputs.extend_from_slice(&w.inputs);
            s.a_aux_density.or_at(&w.a_prefix, 0);
            s.b_aux_density.or_at(&w.b_prefix, 0);
            s.a_aux_density.or_at(&w.a_own, w.start.aux);
            s.b_aux_density.or_at(&w.b_own, w.start.aux);
            s.b_input_density.or_at(&w.b_inputs, 0);
        }
        Ok(())
    }
}

/// Which of A, B, C a linear combination belongs to (the densities it marks).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    A,
    B,
    C,
}

impl WitnessWindow<'_> {
    fn stray(&mut self, var: Index) {
        if self.fault.is_none() {
            self.fault = Some(format!("reads {var:?}, which belongs to neither the prefix nor this challenge"));
        }
    }

    fn overflow(&mut self) {
        if self.fault.is_none() {
            self.fault = Some(format!("records more than the first challenge's {:?}", self.per));
        }
    }

    #[inline]
    fn input_value(&self, i: usize) -> Option<Scalar> {
        match self.prefix_inputs.get(i) {
            Some(v) => Some(*v),
            None => i.checked_sub(self.start.inputs).and_then(|k| self.inputs.get(k).copied()),
        }
    }

    /// Σ coeff·value over `lc`, marking the densities of `part`.
    #[inline]
    fn eval(&mut self, lc: &LinearCombination<Scalar>, part: Part) -> Scalar {
        let mut acc = Scalar::ZERO;
        for (&i, coeff) in lc.iter_inputs() {
            if crate::field::fr::is_zero(coeff) {
                continue;
            }
            let Some(v) = self.input_value(i) else {
                self.stray(Index::Input(i));
                continue;
            };
            acc += term(v, coeff);
            if part == Part::B {
                self.b_inputs.set(i);
            }
        }
        for (&i, coeff) in lc.iter_aux() {
            if crate::field::fr::is_zero(coeff) {
                continue;
            }
            if let Some(&v) = self.prefix_aux.get(i) {
                acc += term(v, coeff);
                match part {
                    Part::A => self.a_prefix.set(i),
                    Part::B => self.b_prefix.set(i),
                    Part::C => {}
                }
                continue;
            }
            let k = i.wrapping_sub(self.start.aux);
            let Some(v) = self.aux.get(k) else {
                self.stray(Index::Aux(i));
                continue;
            };
            acc += term(v, coeff);
            match part {
                Part::A => self.a_own.set(k),
                Part::B => self.b_own.set(k),
                Part::C => {}
            }
        }
        acc
    }
}

impl ConstraintSystem<Scalar> for WitnessWindow<'_> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        if !self.aux.push(f()?) {
            self.overflow();
        }
        self.own.aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.start.aux + self.own.aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let v = f()?;
        if self.inputs.len() < self.per.inputs {
            self.inputs.push(v);
        } else {
            self.overflow();
        }
        self.own.inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.start.inputs + self.own.inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        let va = self.eval(&a(LinearCombination::zero()), Part::A);
        let vb = self.eval(&b(LinearCombination::zero()), Part::B);
        let vc = self.eval(&c(LinearCombination::zero()), Part::C);
        let [fa, fb, fc] = &mut self.abc;
        if !(fa.push(va) & fb.push(vb) & fc.push(vc)) {
            self.overflow();
        }
        self.own.constraints += 1;
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
