//! What one FallbackPoSt sector records (inputs, aux variables, constraints), counted on a blank
//! sector with a constraint system that computes no value and no linear combination: every
//! sector of every partition of one set of public parameters allocates the same, so the span
//! is known before the sectors' windows ([`super::post_windows`]) start, and counting it runs
//! beside the vanilla checks.
use anyhow::{anyhow, Result};
use bellperson::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_post::fallback::{self, Sector};

use super::window::Span;

/// What one circuit sector records, counted on a blank sector: every sector of every partition
/// of these public parameters allocates the same (the parameters fix the R1CS), and there is no
/// prefix.
pub fn sector_span<Tree: 'static + MerkleTreeTrait>(pp: &fallback::PublicParams) -> Result<Span> {
    let mut counter = Counter(Span::default());
    (&Sector::<Tree>::blank_circuit(pp))
        .synthesize(&mut counter)
        .map_err(|e| anyhow!("counting a blank circuit sector: {e}"))?;
    Ok(counter.0)
}

/// A constraint system that only counts inputs, aux variables and constraints (the span of a
/// witness recording, which keeps no non-zeros); it runs no closure, as a blank synthesis.
struct Counter(Span);

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
