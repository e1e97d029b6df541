//! The native witness against gadget synthesis: where the two first differ, and which gadget
//! allocates the variable there ([`Locate`]: a constraint system that follows the namespaces
//! during a synthesis and notes the path of one aux variable).
use std::fmt;
use std::ops::Range;

use bellperson::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;

use super::witness::Assignment;
use super::CircuitsDyn;
use crate::witness::PackedWitness;

/// The first place a native witness and a synthesized assignment disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    InputCount { native: usize, gadget: usize },
    Input { index: usize, native: Scalar, gadget: Scalar },
    AuxCount { native: usize, gadget: usize },
    Aux { index: usize, native: Scalar, gadget: Scalar },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::InputCount { native, gadget } => {
                write!(f, "{native} public inputs natively, {gadget} from the gadgets")
            }
            Difference::Input { index, native, gadget } => {
                write!(f, "public input {index} differs: native {native:?}, gadget {gadget:?}")
            }
            Difference::AuxCount { native, gadget } => write!(f, "{native} aux natively, {gadget} from the gadgets"),
            Difference::Aux { index, native, gadget } => {
                write!(f, "aux {index} differs: native {native:?}, gadget {gadget:?}")
            }
        }
    }
}

/// The first difference of `native` from `gadget`: inputs first, then aux in order (an aux
/// count that differs is reported after the common part agreed).
pub fn first_difference(native: &PackedWitness, gadget: &Assignment) -> Option<Difference> {
    let input = native.inputs.iter().zip(&gadget.inputs).position(|(n, g)| n != g);
    if let Some(index) = input {
        return Some(Difference::Input { index, native: native.inputs[index], gadget: gadget.inputs[index] });
    }
    if native.inputs.len() != gadget.inputs.len() {
        return Some(Difference::InputCount { native: native.inputs.len(), gadget: gadget.inputs.len() });
    }
    let aux = native.aux.iter().zip(&gadget.aux).enumerate().find(|(_, (n, g))| n != *g);
    if let Some((index, (n, g))) = aux {
        return Some(Difference::Aux { index, native: n, gadget: *g });
    }
    if native.aux.len() != gadget.aux.len() {
        return Some(Difference::AuxCount { native: native.aux.len(), gadget: gadget.aux.len() });
    }
    None
}

/// `d` with the gadget namespace that allocates the differing aux variable, found by
/// synthesizing partition `k`'s prefix and `challenges` (all if `None`) again; the path's
/// `challenge_i` counts from the first of them.
pub fn describe(circuits: &dyn CircuitsDyn, k: usize, challenges: Option<Range<usize>>, d: &Difference) -> String {
    let which = match &challenges {
        Some(r) => format!("partition {k}, challenges {r:?}"),
        None => format!("partition {k}"),
    };
    let Difference::Aux { index, .. } = d else { return format!("{which}: {d}") };
    match circuits.aux_namespace(k, challenges, *index) {
        Ok(Some(path)) => format!("{which}: {d}, allocated at {path}"),
        Ok(None) => format!("{which}: {d}, beyond the gadgets' allocations"),
        Err(e) => format!("{which}: {d} (locating it failed: {e:#})"),
    }
}

/// A constraint system that runs a synthesis only to note the namespace path of the
/// allocation of aux `target`.
pub struct Locate {
    target: usize,
    allocated: usize,
    stack: Vec<String>,
    pub found: Option<String>,
}

impl Locate {
    pub fn new(target: usize) -> Self {
        Locate { target, allocated: 0, stack: Vec::new(), found: None }
    }
}

impl ConstraintSystem<Scalar> for Locate {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        f()?;
        if self.allocated == self.target {
            let mut path = self.stack.join("/");
            path.push('/');
            path.push_str(&annotation().into());
            self.found = Some(path);
        }
        self.allocated += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.allocated - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        f()?;
        Ok(Variable::new_unchecked(Index::Input(0)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
    }

    fn push_namespace<NR, N>(&mut self, name: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        self.stack.push(name().into());
    }

    fn pop_namespace(&mut self) {
        self.stack.pop();
    }

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}
