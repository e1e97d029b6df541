//! The compiled form of one circuit shape: the prefix's rows in full (the *head*), one
//! challenge's rows (the *template*) that every challenge repeats with its own variables (and,
//! for SnapDeals, its own place in a moving range of prefix columns: [`Moving`]), the
//! coefficient table, and the densities the prover needs (structural: computed here, once).
//! A shape whose challenges do not repeat is kept whole in the head, with no template.
use std::ops::Range;

use anyhow::{anyhow, bail, ensure, Result};
use blstrs::Scalar;

use super::coeff::{self, Encoder};
use super::template::{check_repeats, derive_moving, shift, Mismatch, Moving};
use crate::circuit::r1cs::{Matrix, R1cs, INPUT_FLAG};
use crate::circuit::window::Span;
use crate::circuit::Density;

/// One matrix's rows in CSR form: row `r`'s terms are `cols[row_ptr[r]..row_ptr[r + 1]]`
/// with coefficient codes ([`coeff`]) `codes[..]` at the same positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Csr {
    pub row_ptr: Vec<u32>,
    pub cols: Vec<u32>,
    pub codes: Vec<u32>,
}

impl Csr {
    /// Rows `rows` of a recorded matrix, coefficient ids turned into codes.
    fn from_matrix(matrix: &Matrix, rows: Range<usize>, code_of_id: &[u32]) -> Csr {
        let (s, e) = (matrix.row_ptr[rows.start] as usize, matrix.row_ptr[rows.end] as usize);
        let base = s as u32;
        Csr {
            row_ptr: matrix.row_ptr[rows.start..=rows.end].iter().map(|p| p - base).collect(),
            cols: matrix.cols[s..e].to_vec(),
            codes: matrix.coeff_ids[s..e].iter().map(|&id| code_of_id[id as usize]).collect(),
        }
    }

    pub fn rows(&self) -> usize {
        self.row_ptr.len().saturating_sub(1)
    }

    pub fn nnz(&self) -> usize {
        self.cols.len()
    }

    /// The positions of row `r`'s terms.
    #[inline(always)]
    pub fn terms(&self, r: usize) -> Range<usize> {
        self.row_ptr[r] as usize..self.row_ptr[r + 1] as usize
    }

    fn bytes(&self) -> usize {
        4 * (self.row_ptr.len() + self.cols.len() + self.codes.len())
    }
}

/// Rows of A, B and C.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    pub rows: usize,
    /// A, B, C.
    pub m: [Csr; 3],
}

impl Block {
    fn from_r1cs(r1cs: &R1cs, rows: Range<usize>, code_of_id: &[u32]) -> Block {
        let n = rows.len();
        let m = [&r1cs.a, &r1cs.b, &r1cs.c].map(|x| Csr::from_matrix(x, rows.clone(), code_of_id));
        Block { rows: n, m }
    }

    /// No rows.
    pub fn empty() -> Block {
        let csr = || Csr { row_ptr: vec![0], ..Csr::default() };
        Block { rows: 0, m: [csr(), csr(), csr()] }
    }

    pub fn nnz(&self) -> [usize; 3] {
        [0, 1, 2].map(|m| self.m[m].nnz())
    }

    pub fn bytes(&self) -> usize {
        self.m.iter().map(Csr::bytes).sum()
    }
}

/// The densities of a circuit: which variables occur in A or B (bellperson's semantics; every
/// input counts as occurring in A).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Densities {
    pub a_aux: Density,
    pub b_input: Density,
    pub b_aux: Density,
}

/// A compiled circuit shape (see the module doc of [`super`] for the layout).
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    /// The official parameter file stem of the shape.
    pub stem: String,
    /// The prefix's inputs (with ONE), aux, constraints and non-zeros.
    pub prefix: Span,
    /// One challenge's inputs, aux, constraints and non-zeros (all zero without a template).
    pub per: Span,
    /// Challenges of the circuit.
    pub challenges: usize,
    /// The prefix's rows.
    pub head: Block,
    /// Challenge 0's rows; challenge `j` repeats them through [`shift`].
    pub template: Block,
    /// The prefix's aux columns that move per challenge, with each challenge's offset (empty
    /// but for SnapDeals).
    pub moving: Moving,
    /// The coefficients that are not ±2^k.
    pub table: Vec<Scalar>,
    densities: Densities,
}

/// Where a circuit row comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Row of the head.
    Head(usize),
    /// Row of the template, for challenge `j`.
    Template { row: usize, j: usize },
}

impl Compiled {
    /// Checks the parts against each other and computes the densities.
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        stem: String,
        prefix: Span,
        per: Span,
        challenges: usize,
        head: Block,
        template: Block,
        moving: Moving,
        table: Vec<Scalar>,
    ) -> Result<Compiled> {
        check_block(&head, "head", &prefix, Span::default(), &table)?;
        check_block(&template, "template", &prefix, per, &table)?;
        ensure!(head.rows == prefix.constraints, "the head has {} rows, the prefix {}", head.rows, prefix.constraints);
        ensure!(
            template.rows == per.constraints,
            "the template has {} rows, a challenge {}",
            template.rows,
            per.constraints
        );
        ensure!(moving.is_empty() || per.constraints > 0, "a moving range of prefix columns without a template");
        moving.check(prefix.aux, challenges).map_err(|e| anyhow!("the moving prefix columns: {e}"))?;
        let prefix = Span { nnz: head.nnz(), ..prefix };
        let per = Span { nnz: template.nnz(), ..per };
        let densities = Densities::default();
        let mut c = Compiled { stem, prefix, per, challenges, head, template, moving, table, densities };
        c.check_sizes()?;
        c.densities = c.compute_densities();
        Ok(c)
    }

    /// Compiles a recorded R1CS whose first `prefix` is the prefix and whose `sampled`
    /// challenges follow, each `per`, for a circuit of `challenges` challenges: fails with a
    /// [`Mismatch`] (see [`anyhow::Error::downcast_ref`]) when the challenges do not repeat.
    pub fn from_sample(
        r1cs: &R1cs,
        prefix: Span,
        per: Span,
        sampled: usize,
        challenges: usize,
        stem: String,
    ) -> Result<Compiled> {
        Self::from_recording(r1cs, prefix, per, sampled, challenges, stem, |_| Ok(Moving::none()))
    }

    /// [`from_sample`](Self::from_sample) for a circuit whose challenges read prefix columns
    /// of their own (SnapDeals): the moving range and every sampled challenge's offset are
    /// derived from the recording ([`derive_moving`]), then every term of every sampled
    /// challenge is checked against them. Offsets are known only for the sampled challenges:
    /// with a moving range, `challenges` may not exceed `sampled`.
    pub fn from_moving_sample(
        r1cs: &R1cs,
        prefix: Span,
        per: Span,
        sampled: usize,
        challenges: usize,
        stem: String,
    ) -> Result<Compiled> {
        let derive = |n| derive_moving(r1cs, &prefix, &per, n).map_err(anyhow::Error::new);
        Self::from_recording(r1cs, prefix, per, sampled, challenges, stem, derive)
    }

    fn from_recording(
        r1cs: &R1cs,
        prefix: Span,
        per: Span,
        sampled: usize,
        challenges: usize,
        stem: String,
        moving: impl FnOnce(usize) -> Result<Moving>,
    ) -> Result<Compiled> {
        let rows = prefix.constraints + sampled * per.constraints;
        ensure!(sampled >= 1, "compiling a template needs at least one sampled challenge");
        ensure!(
            r1cs.circuit_constraints() == rows && r1cs.num_aux == prefix.aux + sampled * per.aux,
            "the recording has {} rows and {} aux; prefix and {sampled} challenges make {rows} and {}",
            r1cs.circuit_constraints(),
            r1cs.num_aux,
            prefix.aux + sampled * per.aux
        );
        let moving = moving(sampled)?;
        check_repeats(r1cs, &prefix, &per, &moving, sampled).map_err(anyhow::Error::new)?;
        let (code_of_id, table) = encode_table(r1cs)?;
        let head = Block::from_r1cs(r1cs, 0..prefix.constraints, &code_of_id);
        let template = Block::from_r1cs(r1cs, prefix.constraints..prefix.constraints + per.constraints, &code_of_id);
        Self::from_parts(stem, prefix, per, challenges, head, template, moving, table)
    }

    /// The whole R1CS in the head, no template: the form for circuits whose challenges do not
    /// repeat.
    pub fn full(r1cs: &R1cs, stem: String) -> Result<Compiled> {
        let (code_of_id, table) = encode_table(r1cs)?;
        let rows = r1cs.circuit_constraints();
        let prefix = Span { inputs: r1cs.num_inputs, aux: r1cs.num_aux, constraints: rows, nnz: [0; 3] };
        let head = Block::from_r1cs(r1cs, 0..rows, &code_of_id);
        Self::from_parts(stem, prefix, Span::default(), 0, head, Block::empty(), Moving::none(), table)
    }

    /// How many challenges a circuit of this shape with `aux` aux variables has: None when no
    /// whole number of template repeats gives `aux` (or there is no template).
    pub fn challenges_for_aux(&self, aux: usize) -> Option<usize> {
        let extra = aux.checked_sub(self.prefix.aux)?;
        (self.per.aux > 0 && extra % self.per.aux == 0).then(|| extra / self.per.aux)
    }

    /// The same shape with `challenges` challenges (a window of a partition: its prefix and
    /// some of its challenges; with a moving range, no more challenges than it has offsets).
    pub fn with_challenges(&self, challenges: usize) -> Result<Compiled> {
        ensure!(challenges == 0 || self.per.constraints > 0, "this compiled circuit has no template to repeat");
        self.moving.check(self.prefix.aux, challenges).map_err(|e| anyhow!("the moving prefix columns: {e}"))?;
        let mut c = Compiled { challenges, densities: Densities::default(), ..self.clone() };
        c.check_sizes()?;
        c.densities = c.compute_densities();
        Ok(c)
    }

    pub fn num_inputs(&self) -> usize {
        self.prefix.inputs + self.challenges * self.per.inputs
    }

    pub fn num_aux(&self) -> usize {
        self.prefix.aux + self.challenges * self.per.aux
    }

    /// Rows of the circuit proper (without the `input_i · 0 = 0` rows).
    pub fn circuit_constraints(&self) -> usize {
        self.prefix.constraints + self.challenges * self.per.constraints
    }

    /// Rows of A·z, B·z, C·z: the circuit's, then one per input.
    pub fn num_constraints(&self) -> usize {
        self.circuit_constraints() + self.num_inputs()
    }

    /// Non-zeros of A, B, C over the whole circuit (the input rows' ONE-per-input in A not
    /// counted).
    pub fn nnz(&self) -> [usize; 3] {
        [0, 1, 2].map(|m| self.prefix.nnz[m] + self.challenges * self.per.nnz[m])
    }

    pub fn densities(&self) -> &Densities {
        &self.densities
    }

    /// Bytes of the head, the template, the offsets and the table.
    pub fn bytes(&self) -> usize {
        self.head.bytes() + self.template.bytes() + self.moving.bytes() + 32 * self.table.len()
    }

    /// Where circuit row `r` comes from.
    #[inline]
    pub fn source(&self, r: usize) -> Source {
        if r < self.prefix.constraints {
            Source::Head(r)
        } else {
            let t = r - self.prefix.constraints;
            Source::Template { row: t % self.per.constraints, j: t / self.per.constraints }
        }
    }

    /// Row `r`'s terms of matrix `m` (0, 1, 2 for A, B, C) as (column, code), columns as the
    /// whole circuit numbers them.
    pub fn row_terms(&self, m: usize, r: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let (csr, row, j) = match self.source(r) {
            Source::Head(row) => (&self.head.m[m], row, 0),
            Source::Template { row, j } => (&self.template.m[m], row, j),
        };
        csr.terms(row).map(move |k| (shift(csr.cols[k], &self.prefix, &self.per, &self.moving, j), csr.codes[k]))
    }

    fn check_sizes(&self) -> Result<()> {
        let fits = |n: usize| n < INPUT_FLAG as usize;
        if !(fits(self.num_inputs()) && fits(self.num_aux()) && fits(self.num_constraints())) {
            bail!(
                "{} inputs, {} aux and {} constraints do not fit 31-bit indices",
                self.num_inputs(),
                self.num_aux(),
                self.num_constraints()
            );
        }
        Ok(())
    }

    fn compute_densities(&self) -> Densities {
        let mut d = Densities::default();
        d.a_aux.grow(self.num_aux());
        d.b_aux.grow(self.num_aux());
        d.b_input.grow(self.num_inputs());
        let (prefix, per) = (&self.prefix, &self.per);
        mark(&self.head.m[0], None, &mut d.a_aux);
        mark(&self.head.m[1], Some(&mut d.b_input), &mut d.b_aux);
        if self.challenges == 0 {
            return d;
        }
        // The template's marks for challenge 0, then its own aux's marks again for the rest;
        // a moving prefix column is marked at every challenge's place.
        let mut own = [Density::default(), Density::default()];
        let moving = &self.moving;
        for (dm, m) in own.iter_mut().zip([0, 1]) {
            dm.grow(per.aux);
            let mut local = Density::default();
            local.grow(prefix.aux + per.aux);
            let inputs = (m == 1).then_some(&mut d.b_input);
            mark_template(&self.template.m[m], inputs, &mut local, prefix, per, self.challenges);
            let target = if m == 0 { &mut d.a_aux } else { &mut d.b_aux };
            for i in 0..prefix.aux {
                if !local.get(i) {
                    continue;
                }
                if moving.moves(i) {
                    for j in 0..self.challenges {
                        target.set(i + moving.offsets[j] as usize);
                    }
                } else {
                    target.set(i);
                }
            }
            for i in 0..per.aux {
                if local.get(prefix.aux + i) {
                    dm.set(i);
                }
            }
        }
        for j in 0..self.challenges {
            d.a_aux.or_at(&own[0], prefix.aux + j * per.aux);
            d.b_aux.or_at(&own[1], prefix.aux + j * per.aux);
        }
        d
    }
}

/// Marks the columns of the head's `csr` (as they are) in the densities.
fn mark(csr: &Csr, mut inputs: Option<&mut Density>, aux: &mut Density) {
    for &col in &csr.cols {
        if col & INPUT_FLAG == 0 {
            aux.set(col as usize);
        } else if let Some(d) = inputs.as_deref_mut() {
            d.set((col & !INPUT_FLAG) as usize);
        }
    }
}

/// Marks the template's aux columns as challenge 0 numbers them in `local`, and its input
/// columns for every one of `challenges` challenges in `inputs`.
fn mark_template(
    csr: &Csr,
    mut inputs: Option<&mut Density>,
    local: &mut Density,
    prefix: &Span,
    per: &Span,
    challenges: usize,
) {
    for &col in &csr.cols {
        if col & INPUT_FLAG == 0 {
            local.set(col as usize);
        } else if let Some(d) = inputs.as_deref_mut() {
            for j in 0..challenges {
                d.set((shift(col, prefix, per, &Moving::none(), j) & !INPUT_FLAG) as usize);
            }
        }
    }
}

/// The code of every coefficient id of a recording, and the table of the non-powers.
fn encode_table(r1cs: &R1cs) -> Result<(Vec<u32>, Vec<Scalar>)> {
    let mut enc = Encoder::default();
    let codes = r1cs.coeffs.iter().map(|c| enc.encode(c)).collect::<Result<Vec<u32>>>()?;
    Ok((codes, enc.into_table()))
}

/// Checks a block's CSR arrays, that its columns lie in the prefix or in challenge 0 (`per`
/// zero: the prefix alone), and its codes.
fn check_block(block: &Block, what: &str, prefix: &Span, per: Span, table: &[Scalar]) -> Result<()> {
    let (inputs, aux) = (prefix.inputs + per.inputs, prefix.aux + per.aux);
    for (m, csr) in block.m.iter().enumerate() {
        let name = ["A", "B", "C"][m];
        let err = |msg: String| anyhow!("{what} {name}: {msg}");
        if csr.row_ptr.len() != block.rows + 1 || csr.row_ptr[0] != 0 {
            return Err(err(format!(
                "{} row pointers for {} rows, first {:?}",
                csr.row_ptr.len(),
                block.rows,
                csr.row_ptr.first()
            )));
        }
        if let Some(r) = csr.row_ptr.windows(2).position(|w| w[1] < w[0]) {
            return Err(err(format!("row pointer {} decreases", r + 1)));
        }
        if csr.row_ptr[block.rows] as usize != csr.cols.len() || csr.cols.len() != csr.codes.len() {
            return Err(err(format!(
                "{} columns and {} codes for {} terms",
                csr.cols.len(),
                csr.codes.len(),
                csr.row_ptr[block.rows]
            )));
        }
        for (k, &col) in csr.cols.iter().enumerate() {
            let (i, n, kind) = match col & INPUT_FLAG {
                0 => (col as usize, aux, "aux"),
                _ => ((col & !INPUT_FLAG) as usize, inputs, "input"),
            };
            if i >= n {
                return Err(err(format!("term {k} names {kind} {i}, past the {n} it may read")));
            }
        }
        for (k, &code) in csr.codes.iter().enumerate() {
            coeff::check_code(code, table.len()).map_err(|e| err(format!("term {k}: {e}")))?;
        }
    }
    Ok(())
}

impl std::error::Error for Mismatch {}
