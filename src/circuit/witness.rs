//! Witness synthesis: a `ConstraintSystem` that evaluates each constraint's A, B and C linear
//! combinations at the assignment as the circuit enforces it, the way a Groth16 prover needs
//! them (bellperson's `ProvingAssignment` semantics: one extra `input_i · 0 = 0` constraint per
//! input; inputs have full density in A; a variable is dense in A or B when it occurs there with
//! a non-zero coefficient).
use bellperson::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;

use super::Density;
use crate::hostmem::SCALARS;

/// Everything the prover needs from one synthesized circuit.
#[derive(Clone)]
pub struct Assignment {
    /// Public inputs, `inputs[0]` = ONE.
    pub inputs: Vec<Scalar>,
    pub aux: Vec<Scalar>,
    /// A·z, B·z, C·z, one per constraint (the input constraints last).
    pub a: Vec<Scalar>,
    pub b: Vec<Scalar>,
    pub c: Vec<Scalar>,
    pub a_aux_density: Density,
    pub b_input_density: Density,
    pub b_aux_density: Density,
}

impl Assignment {
    pub fn num_constraints(&self) -> usize {
        self.a.len()
    }

    /// Gives the large vectors' memory back for the next partition ([`SCALARS`]).
    pub fn recycle(self) {
        for v in [self.aux, self.a, self.b, self.c] {
            SCALARS.give(v);
        }
    }

    /// The scalars of the `a` query, in point order: every input, then the aux variables that
    /// occur in A.
    pub fn a_query(&self) -> QueryScalars<'_> {
        QueryScalars::new(self.inputs.iter().collect(), &self.aux, &self.a_aux_density)
    }

    /// The scalars of the `b_g1` and `b_g2` queries, in point order: the inputs, then the aux
    /// variables, that occur in B.
    pub fn b_query(&self) -> QueryScalars<'_> {
        let inputs = self.b_input_density.iter_set().map(|i| &self.inputs[i]).collect();
        QueryScalars::new(inputs, &self.aux, &self.b_aux_density)
    }
}

/// One query's scalars in point order (its inputs, then the aux variables its density
/// selects), readable from any position without walking the ones before: chunks of a query
/// can be gathered on separate cores (the GPU prover stages them for upload that way).
pub struct QueryScalars<'a> {
    inputs: Vec<&'a Scalar>,
    aux: &'a [Scalar],
    density: &'a Density,
    ranks: Vec<usize>,
    len: usize,
}

impl<'a> QueryScalars<'a> {
    fn new(inputs: Vec<&'a Scalar>, aux: &'a [Scalar], density: &'a Density) -> Self {
        let ranks = density.ranks();
        let len = inputs.len() + density.count();
        QueryScalars { inputs, aux, density, ranks, len }
    }

    /// Number of scalars (= points of the query).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The scalars from position `first` on, in point order.
    pub fn iter_from(&self, first: usize) -> impl Iterator<Item = &'a Scalar> + '_ {
        let head = self.inputs.get(first..).unwrap_or(&[]).iter().copied();
        let k = first.saturating_sub(self.inputs.len());
        head.chain(self.density.iter_set_from(&self.ranks, k).map(|i| &self.aux[i]))
    }
}

/// The recording constraint system. Create with [`WitnessCs::new`], run the circuit, then
/// [`WitnessCs::finish`].
pub struct WitnessCs(pub(super) Assignment);

impl WitnessCs {
    /// `capacity`: expected constraints, to allocate once (0 if unknown).
    pub fn with_capacity(capacity: usize) -> Self {
        let mut cs = WitnessCs(Assignment {
            inputs: Vec::with_capacity(64),
            aux: Vec::with_capacity(capacity),
            a: Vec::with_capacity(capacity),
            b: Vec::with_capacity(capacity),
            c: Vec::with_capacity(capacity),
            a_aux_density: Density::with_capacity(capacity),
            b_input_density: Density::with_capacity(64),
            b_aux_density: Density::with_capacity(capacity),
        });
        cs.0.inputs.push(Scalar::ONE);
        cs.0.b_input_density.push();
        cs
    }

    /// Appends the `input_i · 0 = 0` constraints and returns the assignment.
    pub fn finish(mut self) -> Assignment {
        let s = &mut self.0;
        for i in 0..s.inputs.len() {
            s.a.push(s.inputs[i]);
            s.b.push(Scalar::ZERO);
            s.c.push(Scalar::ZERO);
        }
        self.0
    }
}

/// Σ coeff·value over a linear combination, marking occurring variables in the densities.
#[inline]
fn eval(
    lc: &LinearCombination<Scalar>,
    inputs: &[Scalar],
    aux: &[Scalar],
    mut input_density: Option<&mut Density>,
    mut aux_density: Option<&mut Density>,
) -> Scalar {
    let mut acc = Scalar::ZERO;
    for (&i, coeff) in lc.iter_inputs() {
        if crate::field::fr::is_zero(coeff) {
            continue;
        }
        acc += term(inputs[i], coeff);
        if let Some(d) = input_density.as_deref_mut() {
            d.set(i);
        }
    }
    for (&i, coeff) in lc.iter_aux() {
        if crate::field::fr::is_zero(coeff) {
            continue;
        }
        acc += term(aux[i], coeff);
        if let Some(d) = aux_density.as_deref_mut() {
            d.set(i);
        }
    }
    acc
}

#[inline]
pub(super) fn term(value: Scalar, coeff: &Scalar) -> Scalar {
    if crate::field::fr::is_one(coeff) {
        value
    } else if crate::field::fr::is_zero(&value) {
        Scalar::ZERO
    } else {
        value * coeff
    }
}

impl ConstraintSystem<Scalar> for WitnessCs {
    type Root = Self;

    fn new() -> Self {
        Self::with_capacity(0)
    }

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.aux.push(f()?);
        self.0.a_aux_density.push();
        self.0.b_aux_density.push();
        Ok(Variable::new_unchecked(Index::Aux(self.0.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.0.inputs.push(f()?);
        self.0.b_input_density.push();
        Ok(Variable::new_unchecked(Index::Input(self.0.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        let s = &mut self.0;
        let va = eval(&a(LinearCombination::zero()), &s.inputs, &s.aux, None, Some(&mut s.a_aux_density));
        let vb = eval(
            &b(LinearCombination::zero()),
            &s.inputs,
            &s.aux,
            Some(&mut s.b_input_density),
            Some(&mut s.b_aux_density),
        );
        let vc = eval(&c(LinearCombination::zero()), &s.inputs, &s.aux, None, None);
        s.a.push(va);
        s.b.push(vb);
        s.c.push(vc);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A query read from any position is the tail of the query's definition: its inputs, then
    /// the aux variables its density marks, in order.
    #[test]
    fn query_scalars_from_any_position() {
        let n = 300;
        let scalar = |i: u64| Scalar::from(i * 7 + 1);
        let mut asg = Assignment {
            inputs: (0..5).map(scalar).collect(),
            aux: (100..100 + n as u64).map(scalar).collect(),
            a: vec![],
            b: vec![],
            c: vec![],
            a_aux_density: Density::default(),
            b_input_density: Density::default(),
            b_aux_density: Density::default(),
        };
        asg.a_aux_density.grow(n);
        asg.b_aux_density.grow(n);
        asg.b_input_density.grow(5);
        for i in (0..n).filter(|i| i % 3 != 0 || i % 64 == 0) {
            asg.a_aux_density.set(i);
        }
        for i in (70..n).filter(|i| i % 5 == 1) {
            asg.b_aux_density.set(i);
        }
        asg.b_input_density.set(0);
        asg.b_input_density.set(3);
        fn marked<'a>(d: &Density, v: &'a [Scalar]) -> Vec<&'a Scalar> {
            (0..d.len()).filter(|&i| d.get(i)).map(|i| &v[i]).collect()
        }
        let a: Vec<&Scalar> = asg.inputs.iter().chain(marked(&asg.a_aux_density, &asg.aux)).collect();
        let mut b = marked(&asg.b_input_density, &asg.inputs);
        b.extend(marked(&asg.b_aux_density, &asg.aux));
        for (q, all) in [(asg.a_query(), a), (asg.b_query(), b)] {
            assert_eq!(q.len(), all.len());
            for first in 0..=all.len() {
                assert!(q.iter_from(first).eq(all[first..].iter().copied()), "from {first}");
            }
        }
    }
}
