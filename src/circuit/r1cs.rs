//! The circuit's rank-1 constraint system, recorded once from a blank synthesis: the A, B and C
//! matrices in compressed sparse row form (one row per constraint), with the Groth16 generator's
//! `input_i · 0 = 0` constraints appended, as bellperson's `KeypairAssembly` sees them.
//!
//! Kept lean for 32GiB partitions (309M / 130M / 283M non-zeros in A / B / C): a non-zero costs
//! 8 bytes — a `u32` column (inputs and aux told apart by [`INPUT_FLAG`]) and a `u32` index into
//! a table of the distinct coefficients (index 0 is ONE, which most terms use). Zero
//! coefficients are not stored: they add nothing to any evaluation. Row pointers are `u32`, so
//! a matrix holds at most 2^32 − 1 non-zeros (checked).
use std::collections::HashMap;

use anyhow::{bail, Result};
use bellperson::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;

use super::window::{Span, Windowed};

/// Set in a column index that names a public input; clear for an aux variable.
pub const INPUT_FLAG: u32 = 1 << 31;

/// Index of ONE in [`R1cs::coeffs`].
pub const ONE_ID: u32 = 0;

/// A column: a public input (`input` < inputs, including ONE at 0) or an aux variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Col {
    Input(usize),
    Aux(usize),
}

#[inline]
pub fn decode_col(c: u32) -> Col {
    if c & INPUT_FLAG != 0 {
        Col::Input((c & !INPUT_FLAG) as usize)
    } else {
        Col::Aux(c as usize)
    }
}

/// One sparse matrix in CSR form: row r's terms are `cols[row_ptr[r]..row_ptr[r+1]]` with
/// coefficients `coeffs[coeff_ids[..]]` of the owning [`R1cs`].
#[derive(Clone, Debug, Default)]
pub struct Matrix {
    pub row_ptr: Vec<u32>,
    pub cols: Vec<u32>,
    pub coeff_ids: Vec<u32>,
}

impl Matrix {
    fn with_capacity(rows: usize, nnz: usize) -> Self {
        let mut row_ptr = Vec::with_capacity(rows + 1);
        row_ptr.push(0);
        Matrix { row_ptr, cols: Vec::with_capacity(nnz), coeff_ids: Vec::with_capacity(nnz) }
    }

    pub fn rows(&self) -> usize {
        self.row_ptr.len() - 1
    }

    pub fn nnz(&self) -> usize {
        self.cols.len()
    }

    /// The terms (column, coefficient id) of row `r`.
    #[inline]
    pub fn row(&self, r: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let (s, e) = (self.row_ptr[r] as usize, self.row_ptr[r + 1] as usize);
        self.cols[s..e].iter().copied().zip(self.coeff_ids[s..e].iter().copied())
    }

    /// Bytes held (capacity not counted).
    pub fn bytes(&self) -> usize {
        4 * (self.row_ptr.len() + self.cols.len() + self.coeff_ids.len())
    }

    fn shrink(&mut self) {
        self.row_ptr.shrink_to_fit();
        self.cols.shrink_to_fit();
        self.coeff_ids.shrink_to_fit();
    }
}

/// A recorded R1CS: `num_constraints` rows (circuit constraints, then one `input_i · 0 = 0`
/// row per input), `num_inputs` (with ONE) + `num_aux` columns.
#[derive(Clone, Debug)]
pub struct R1cs {
    pub num_inputs: usize,
    pub num_aux: usize,
    pub num_constraints: usize,
    pub a: Matrix,
    pub b: Matrix,
    pub c: Matrix,
    /// Distinct coefficients; `coeffs[ONE_ID]` = ONE.
    pub coeffs: Vec<Scalar>,
}

impl R1cs {
    pub fn num_vars(&self) -> usize {
        self.num_inputs + self.num_aux
    }

    /// Rows of the circuit proper (without the appended input constraints).
    pub fn circuit_constraints(&self) -> usize {
        self.num_constraints - self.num_inputs
    }

    /// Bytes held by the matrices and the coefficient table.
    pub fn bytes(&self) -> usize {
        self.a.bytes() + self.b.bytes() + self.c.bytes() + 32 * self.coeffs.len()
    }

    /// M·z for an assignment z = (inputs, aux): one value per row, in parallel over rows
    /// (sparse mat-vec; for a recorded circuit this replaces evaluating the linear
    /// combinations during synthesis).
    pub fn mul_vec(&self, m: &Matrix, inputs: &[Scalar], aux: &[Scalar]) -> Vec<Scalar> {
        use rayon::prelude::*;
        let mut out = vec![Scalar::ZERO; m.rows()];
        out.par_iter_mut().with_min_len(1 << 12).enumerate().for_each(|(r, o)| *o = self.eval_row(m, r, inputs, aux));
        out
    }

    /// Evaluates row `r` of `m` at an assignment.
    pub fn eval_row(&self, m: &Matrix, r: usize, inputs: &[Scalar], aux: &[Scalar]) -> Scalar {
        m.row(r).fold(Scalar::ZERO, |acc, (c, id)| {
            let v = match decode_col(c) {
                Col::Input(i) => inputs[i],
                Col::Aux(i) => aux[i],
            };
            if id == ONE_ID {
                acc + v
            } else {
                acc + v * self.coeffs[id as usize]
            }
        })
    }
}

/// The recording constraint system. [`R1csCs::new`] allocates ONE (input 0); run the circuit,
/// then [`R1csCs::finish`].
pub struct R1csCs {
    pub(super) r: R1cs,
    /// Montgomery limbs of a coefficient → its id.
    pub(super) ids: HashMap<[u64; 4], u32>,
    overflow: bool,
}

fn limbs(s: &Scalar) -> [u64; 4] {
    blst::blst_fr::from(*s).l
}

impl R1csCs {
    /// `constraints`, `nnz_a`…: expected sizes, to allocate once (0 if unknown).
    pub fn with_capacity(constraints: usize, nnz: [usize; 3]) -> Self {
        let mut ids = HashMap::new();
        ids.insert(limbs(&Scalar::ONE), ONE_ID);
        R1csCs {
            r: R1cs {
                num_inputs: 1,
                num_aux: 0,
                num_constraints: 0,
                a: Matrix::with_capacity(constraints, nnz[0]),
                b: Matrix::with_capacity(constraints, nnz[1]),
                c: Matrix::with_capacity(constraints, nnz[2]),
                coeffs: vec![Scalar::ONE],
            },
            ids,
            overflow: false,
        }
    }

    /// Appends the `input_i · 0 = 0` constraints and returns the R1CS.
    pub fn finish(mut self) -> Result<R1cs> {
        for i in 0..self.r.num_inputs {
            let m = &mut self.r.a;
            m.cols.push(i as u32 | INPUT_FLAG);
            m.coeff_ids.push(ONE_ID);
            self.close_row();
        }
        if self.overflow || self.r.num_aux >= INPUT_FLAG as usize || self.r.num_inputs >= INPUT_FLAG as usize {
            bail!("the circuit is too large for a u32-indexed R1CS");
        }
        let mut r = self.r;
        for m in [&mut r.a, &mut r.b, &mut r.c] {
            m.shrink();
        }
        Ok(r)
    }

    fn close_row(&mut self) {
        for m in [&mut self.r.a, &mut self.r.b, &mut self.r.c] {
            let n = m.cols.len();
            if n > u32::MAX as usize {
                self.overflow = true;
            }
            m.row_ptr.push(n as u32);
        }
        self.r.num_constraints += 1;
    }

    #[inline]
    pub(super) fn coeff_id(ids: &mut HashMap<[u64; 4], u32>, coeffs: &mut Vec<Scalar>, c: &Scalar) -> u32 {
        if crate::field::fr::is_one(c) {
            return ONE_ID;
        }
        *ids.entry(limbs(c)).or_insert_with(|| {
            coeffs.push(*c);
            (coeffs.len() - 1) as u32
        })
    }

    fn record(&mut self, which: usize, lc: &LinearCombination<Scalar>) {
        let R1cs { a, b, c, coeffs, .. } = &mut self.r;
        let m = [a, b, c].into_iter().nth(which).unwrap();
        for (&i, coeff) in lc.iter_inputs() {
            if crate::field::fr::is_zero(coeff) {
                continue;
            }
            m.cols.push(i as u32 | INPUT_FLAG);
            m.coeff_ids.push(Self::coeff_id(&mut self.ids, coeffs, coeff));
        }
        for (&i, coeff) in lc.iter_aux() {
            if crate::field::fr::is_zero(coeff) {
                continue;
            }
            m.cols.push(i as u32);
            m.coeff_ids.push(Self::coeff_id(&mut self.ids, coeffs, coeff));
        }
    }
}

/// The R1CS of a blank partition cut to a number of challenges of our choosing (PoRep's
/// challenges, a PoSt partition's sectors, SnapDeals' challenges), with where its parts lie:
/// what the compiled constraints are made from.
pub struct Sample {
    /// Prefix, then `challenges` challenges, then the `input_i · 0 = 0` rows.
    pub r1cs: R1cs,
    pub challenges: usize,
    /// What the prefix records (its inputs include ONE).
    pub prefix: Span,
    /// What one challenge records.
    pub per: Span,
    /// Challenges in a real partition of this shape.
    pub partition_challenges: usize,
    /// The official parameter file stem of the shape.
    pub stem: String,
}

impl Sample {
    /// The sample `cs` recorded: a prefix, then `challenges` challenges of `per` each.
    pub fn new(cs: R1csCs, challenges: usize, per: Span, partition_challenges: usize, stem: String) -> Result<Self> {
        let whole = cs.span();
        let prefix = Span {
            inputs: whole.inputs - challenges * per.inputs,
            aux: whole.aux - challenges * per.aux,
            constraints: whole.constraints - challenges * per.constraints,
            nnz: [0, 1, 2].map(|m| whole.nnz[m] - challenges * per.nnz[m]),
        };
        Ok(Sample { r1cs: cs.finish()?, challenges, prefix, per, partition_challenges, stem })
    }
}

impl ConstraintSystem<Scalar> for R1csCs {
    type Root = Self;

    fn new() -> Self {
        Self::with_capacity(0, [0; 3])
    }

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.r.num_aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.r.num_aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.r.num_inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.r.num_inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        self.record(0, &a(LinearCombination::zero()));
        self.record(1, &b(LinearCombination::zero()));
        self.record(2, &c(LinearCombination::zero()));
        self.close_row();
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

    #[test]
    fn records_rows_coefficients_and_input_constraints() {
        let mut cs = R1csCs::new();
        let x = cs.alloc(|| "x", || Ok(Scalar::from(3u64))).unwrap();
        let y = cs.alloc_input(|| "y", || Ok(Scalar::from(9u64))).unwrap();
        let two = Scalar::from(2u64);
        // x · x = y ; (2x + 0·y) · ONE = 2x
        cs.enforce(|| "sq", |lc| lc + x, |lc| lc + x, |lc| lc + y);
        cs.enforce(|| "dbl", |lc| lc + (two, x) + (Scalar::ZERO, y), |lc| lc + R1csCs::one(), |lc| lc + (two, x));
        let r = cs.finish().unwrap();
        assert_eq!((r.num_inputs, r.num_aux, r.num_constraints), (2, 1, 4));
        assert_eq!((r.a.nnz(), r.b.nnz(), r.c.nnz()), (4, 2, 2));
        assert_eq!(r.coeffs.len(), 2);
        assert_eq!(r.a.row(1).collect::<Vec<_>>(), vec![(0, 1)]);
        assert_eq!(r.a.row(2).collect::<Vec<_>>(), vec![(INPUT_FLAG, ONE_ID)]);
        assert_eq!(r.a.row(3).collect::<Vec<_>>(), vec![(1 | INPUT_FLAG, ONE_ID)]);
        assert_eq!(r.b.row(2).count(), 0);
        let (inputs, aux) = ([Scalar::ONE, Scalar::from(9u64)], [Scalar::from(3u64)]);
        for row in 0..2 {
            let a = r.eval_row(&r.a, row, &inputs, &aux);
            let b = r.eval_row(&r.b, row, &inputs, &aux);
            assert_eq!(a * b, r.eval_row(&r.c, row, &inputs, &aux));
        }
        let (a, b, c) =
            (r.mul_vec(&r.a, &inputs, &aux), r.mul_vec(&r.b, &inputs, &aux), r.mul_vec(&r.c, &inputs, &aux));
        assert_eq!(a.len(), 4);
        for row in 0..4 {
            assert_eq!(a[row] * b[row], c[row], "row {row}");
        }
        assert_eq!(a[3], Scalar::from(9u64));
        assert_eq!(decode_col(1 | INPUT_FLAG), Col::Input(1));
        assert_eq!(decode_col(5), Col::Aux(5));
    }
}
