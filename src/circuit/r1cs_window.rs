//! The R1CS recorder ([`R1csCs`]) in windows: each challenge's rows of A, B and C (row
//! pointers, columns, coefficient ids) go straight into its stretch of the matrices. A window
//! numbers new coefficients after the table it started from; [`Windowed::join`] adds them to
//! the partition's table in challenge order — the order a sequential recording meets them —
//! and renumbers the window's ids where they differ.
use std::collections::HashMap;

use anyhow::{bail, Result};
use bellperson::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;

use super::r1cs::{R1csCs, INPUT_FLAG};
use super::window::{commit, split_spare, Filling, Span, Windowed};

/// One challenge's rows.
pub struct R1csWindow<'w> {
    index: usize,
    start: Span,
    own: Span,
    per: Span,
    row_ptr: [Filling<'w, u32>; 3],
    cols: [Filling<'w, u32>; 3],
    coeff_ids: [Filling<'w, u32>; 3],
    /// The partition's coefficient table when the windows opened, then this window's new ones.
    coeffs: Vec<Scalar>,
    ids: HashMap<[u64; 4], u32>,
    base_coeffs: usize,
    fault: Option<String>,
}

/// What a finished window leaves to merge: the coefficients it met first.
pub struct ClosedR1cs {
    index: usize,
    start: Span,
    base_coeffs: usize,
    new_coeffs: Vec<Scalar>,
}

impl Windowed for R1csCs {
    const EVALUATES: bool = false;
    type Window<'w> = R1csWindow<'w>;
    type Closed = ClosedR1cs;

    fn span(&self) -> Span {
        let r = &self.r;
        Span {
            inputs: r.num_inputs,
            aux: r.num_aux,
            constraints: r.num_constraints,
            nnz: [r.a.nnz(), r.b.nnz(), r.c.nnz()],
        }
    }

    fn open(&mut self, _prefix: Span, per: Span, n: usize) -> Vec<R1csWindow<'_>> {
        let base = self.span();
        let r = &mut self.r;
        let (coeffs, ids) = (&r.coeffs, &self.ids);
        let mut stretches: Vec<_> = [&mut r.a, &mut r.b, &mut r.c]
            .into_iter()
            .enumerate()
            .map(|(m, x)| {
                let rows = split_spare(&mut x.row_ptr, per.constraints, n).into_iter();
                let cols = split_spare(&mut x.cols, per.nnz[m], n).into_iter();
                rows.zip(cols).zip(split_spare(&mut x.coeff_ids, per.nnz[m], n))
            })
            .collect();
        (0..n)
            .map(|index| {
                let [a, b, c] = [0, 1, 2].map(|m| stretches[m].next().expect("one stretch per window"));
                let (((ra, ca), ia), ((rb, cb), ib), ((rc, cc), ic)) = (a, b, c);
                R1csWindow {
                    index,
                    start: Span::window_start(base, per, index),
                    own: Span::default(),
                    per,
                    row_ptr: [ra, rb, rc],
                    cols: [ca, cb, cc],
                    coeff_ids: [ia, ib, ic],
                    coeffs: coeffs.clone(),
                    ids: ids.clone(),
                    base_coeffs: coeffs.len(),
                    fault: None,
                }
            })
            .collect()
    }

    fn close(w: R1csWindow<'_>) -> Result<ClosedR1cs> {
        if let Some(f) = w.fault {
            bail!("challenge window {}: {f}", w.index);
        }
        let full = [&w.row_ptr, &w.cols, &w.coeff_ids].iter().all(|f| f.iter().all(Filling::is_full));
        if w.own != w.per || !full {
            bail!("challenge window {} recorded {:?}, the first challenge {:?}", w.index, w.own, w.per);
        }
        let new_coeffs = w.coeffs[w.base_coeffs..].to_vec();
        Ok(ClosedR1cs { index: w.index, start: w.start, base_coeffs: w.base_coeffs, new_coeffs })
    }

    fn join(&mut self, per: Span, closed: Vec<ClosedR1cs>) -> Result<()> {
        let (base, n) = (self.span(), closed.len());
        for (j, w) in closed.iter().enumerate() {
            if w.index != j || w.start != Span::window_start(base, per, j) || w.base_coeffs != self.r.coeffs.len() {
                bail!("challenge windows joined out of order");
            }
        }
        let r = &mut self.r;
        for (m, x) in [&mut r.a, &mut r.b, &mut r.c].into_iter().enumerate() {
            // SAFETY: `open` split these stretches off the spare capacity in this order, and
            // `close` found every one of the `n` full.
            unsafe {
                commit(&mut x.row_ptr, n * per.constraints);
                commit(&mut x.cols, n * per.nnz[m]);
                commit(&mut x.coeff_ids, n * per.nnz[m]);
            }
        }
        r.num_inputs += n * per.inputs;
        r.num_aux += n * per.aux;
        r.num_constraints += n * per.constraints;
        for w in closed {
            self.merge_coefficients(&w, per);
        }
        Ok(())
    }
}

impl R1csCs {
    /// Adds a window's new coefficients to the table and renumbers its ids where the table's
    /// numbering differs from the window's (an earlier window met some of them first).
    fn merge_coefficients(&mut self, w: &ClosedR1cs, per: Span) {
        let r = &mut self.r;
        let global: Vec<u32> = w.new_coeffs.iter().map(|c| Self::coeff_id(&mut self.ids, &mut r.coeffs, c)).collect();
        if global.iter().enumerate().all(|(k, &g)| g as usize == w.base_coeffs + k) {
            return;
        }
        for (m, x) in [&mut r.a, &mut r.b, &mut r.c].into_iter().enumerate() {
            let ids = &mut x.coeff_ids[w.start.nnz[m]..w.start.nnz[m] + per.nnz[m]];
            for id in ids.iter_mut().filter(|id| **id as usize >= w.base_coeffs) {
                *id = global[*id as usize - w.base_coeffs];
            }
        }
    }
}

impl R1csWindow<'_> {
    fn fault(&mut self, what: String) {
        if self.fault.is_none() {
            self.fault = Some(what);
        }
    }

    fn record(&mut self, m: usize, lc: &LinearCombination<Scalar>) {
        let inputs = lc.iter_inputs().map(|(&i, c)| (i as u32 | INPUT_FLAG, c));
        let terms = inputs.chain(lc.iter_aux().map(|(&i, c)| (i as u32, c)));
        for (col, coeff) in terms {
            if crate::field::fr::is_zero(coeff) {
                continue;
            }
            let id = R1csCs::coeff_id(&mut self.ids, &mut self.coeffs, coeff);
            if !(self.cols[m].push(col) & self.coeff_ids[m].push(id)) {
                self.fault(format!("records more than the first challenge's {:?}", self.per));
            }
            self.own.nnz[m] += 1;
        }
    }

    fn close_row(&mut self) {
        for m in 0..3 {
            let end = self.start.nnz[m] + self.own.nnz[m];
            if end > u32::MAX as usize {
                self.fault("the circuit is too large for a u32-indexed R1CS".into());
            }
            if !self.row_ptr[m].push(end as u32) {
                self.fault(format!("records more than the first challenge's {:?}", self.per));
            }
        }
        self.own.constraints += 1;
    }
}

impl ConstraintSystem<Scalar> for R1csWindow<'_> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.own.aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.start.aux + self.own.aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
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
