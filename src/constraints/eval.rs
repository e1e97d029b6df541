//! A·z, B·z, C·z on the CPU from the compiled constraints and a packed witness, in parallel
//! over rows (rayon).
//!
//! A row's terms are summed in two accumulators: an integer one for the terms that are a
//! power of two times a bit (or times ONE) — the SHA-256 rows, nearly all of the circuit — so
//! they cost an add, not a field multiply; and a field one for the rest (field-element
//! variables, table coefficients, exponents above 62). The integer sum becomes a field element
//! once per row. Field arithmetic is exact, so the order of the terms does not matter: the
//! result is the gadget synthesis's, byte for byte.
use std::mem::MaybeUninit;

use anyhow::{bail, ensure, Result};
use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use super::coeff::{pow2_values, CLASS_SHIFT, NEG_POW2, PAYLOAD_MASK, POS_POW2};
use super::compiled::{Compiled, Csr};
use crate::circuit::r1cs::INPUT_FLAG;
use crate::circuit::Assignment;
use crate::witness::PackedWitness;

/// A·z, B·z, C·z, one per constraint (the `input_i · 0 = 0` rows last).
pub struct Abc {
    pub a: Vec<Scalar>,
    pub b: Vec<Scalar>,
    pub c: Vec<Scalar>,
}

/// Everything gadget synthesis records for this witness: inputs, aux as scalars, A·z, B·z,
/// C·z and the densities — the same [`Assignment`], byte for byte.
pub fn evaluate(compiled: &Compiled, w: &PackedWitness) -> Result<Assignment> {
    let Abc { a, b, c } = evaluate_abc(compiled, w)?;
    let z = Z::new(compiled, w)?;
    let d = compiled.densities();
    Ok(Assignment {
        inputs: w.inputs.clone(),
        aux: z.aux_scalars(),
        a,
        b,
        c,
        a_aux_density: d.a_aux.clone(),
        b_input_density: d.b_input.clone(),
        b_aux_density: d.b_aux.clone(),
    })
}

/// Rows evaluated by one task.
const CHUNK: usize = 1 << 13;

/// A·z, B·z, C·z alone.
pub fn evaluate_abc(compiled: &Compiled, w: &PackedWitness) -> Result<Abc> {
    let z = Z::new(compiled, w)?;
    let n = compiled.num_constraints();
    let (mut a, mut b, mut c) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    {
        let (sa, sb, sc) =
            (&mut a.spare_capacity_mut()[..n], &mut b.spare_capacity_mut()[..n], &mut c.spare_capacity_mut()[..n]);
        sa.par_chunks_mut(CHUNK).zip(sb.par_chunks_mut(CHUNK)).zip(sc.par_chunks_mut(CHUNK)).enumerate().for_each(
            |(k, ((oa, ob), oc))| {
                let out = [oa, ob, oc];
                rows(compiled, &z, k * CHUNK, out);
            },
        );
    }
    // SAFETY: the chunks cover the first n slots of each vector and `rows` writes every slot
    // of its chunk.
    unsafe {
        a.set_len(n);
        b.set_len(n);
        c.set_len(n);
    }
    Ok(Abc { a, b, c })
}

/// Evaluates rows `first..first + out.len()` into `out` (A, B, C).
fn rows(compiled: &Compiled, z: &Z, first: usize, out: [&mut [MaybeUninit<Scalar>]; 3]) {
    let len = out[0].len();
    let circuit = compiled.circuit_constraints();
    let (prefix, per) = (&compiled.prefix, &compiled.per);
    for i in 0..len {
        let r = first + i;
        let (block, row, shift) = if r < prefix.constraints {
            (&compiled.head, r, Shift::NONE)
        } else if r < circuit {
            let t = r - prefix.constraints;
            let j = t / per.constraints;
            let shift = Shift {
                inputs_from: prefix.inputs as u32,
                inputs_by: (j * per.inputs) as u32,
                aux_from: prefix.aux as u32,
                aux_by: (j * per.aux) as u32,
            };
            (&compiled.template, t - j * per.constraints, shift)
        } else {
            // input_i · 0 = 0
            out[0][i].write(z.inputs[r - circuit]);
            out[1][i].write(Scalar::ZERO);
            out[2][i].write(Scalar::ZERO);
            continue;
        };
        for m in 0..3 {
            out[m][i].write(row_value(&block.m[m], row, shift, z, &compiled.table));
        }
    }
}

/// How a block's columns map to the circuit's: columns at or past `*_from` move by `*_by`.
#[derive(Clone, Copy)]
struct Shift {
    inputs_from: u32,
    inputs_by: u32,
    aux_from: u32,
    aux_by: u32,
}

impl Shift {
    const NONE: Shift = Shift { inputs_from: 0, inputs_by: 0, aux_from: 0, aux_by: 0 };
}

/// Σ coefficient · z over one row.
#[inline(always)]
fn row_value(csr: &Csr, row: usize, s: Shift, z: &Z, table: &[Scalar]) -> Scalar {
    let mut small: i128 = 0;
    let mut big = Scalar::ZERO;
    for k in csr.terms(row) {
        let (col, code) = (csr.cols[k], csr.codes[k]);
        let value = if col & INPUT_FLAG == 0 {
            let i = if col >= s.aux_from { col + s.aux_by } else { col };
            z.aux(i as usize)
        } else {
            let i = col & !INPUT_FLAG;
            let i = if i >= s.inputs_from { i + s.inputs_by } else { i };
            z.input(i as usize)
        };
        match value {
            Value::Zero => {}
            Value::One => add_coefficient(&mut small, &mut big, code, table),
            Value::Field(v) => big += times_coefficient(v, code, table),
        }
    }
    big + small_to_fr(small)
}

/// Adds 1 · coefficient: to the integer sum when it is ±2^k with k ≤ 62.
#[inline(always)]
fn add_coefficient(small: &mut i128, big: &mut Scalar, code: u32, table: &[Scalar]) {
    let (class, payload) = (code >> CLASS_SHIFT, code & PAYLOAD_MASK);
    match class {
        POS_POW2 if payload <= 62 => *small += 1i128 << payload,
        NEG_POW2 if payload <= 62 => *small -= 1i128 << payload,
        POS_POW2 => *big += pow2_values()[payload as usize],
        NEG_POW2 => *big -= pow2_values()[payload as usize],
        _ => *big += table[payload as usize],
    }
}

/// v · coefficient.
#[inline(always)]
fn times_coefficient(v: &Scalar, code: u32, table: &[Scalar]) -> Scalar {
    let (class, payload) = (code >> CLASS_SHIFT, code & PAYLOAD_MASK);
    let pow = |k: u32| match k {
        0 => *v,
        1 => v.double(),
        _ => *v * pow2_values()[k as usize],
    };
    match class {
        POS_POW2 => pow(payload),
        NEG_POW2 => -pow(payload),
        _ => *v * table[payload as usize],
    }
}

/// An integer (|v| < 2^127) as a field element.
#[inline(always)]
fn small_to_fr(v: i128) -> Scalar {
    match v {
        0 => Scalar::ZERO,
        1 => Scalar::ONE,
        _ => {
            let m = v.unsigned_abs();
            let (lo, hi) = (m as u64, (m >> 64) as u64);
            let mut x = Scalar::from(lo);
            if hi != 0 {
                x += Scalar::from(hi) * pow2_values()[64];
            }
            if v < 0 {
                -x
            } else {
                x
            }
        }
    }
}

/// A variable's value as the evaluation sees it.
enum Value<'a> {
    Zero,
    One,
    Field(&'a Scalar),
}

/// The assignment z = (inputs, aux) read from a packed witness.
struct Z<'a> {
    inputs: &'a [Scalar],
    bits: &'a [u64],
    mask: &'a [u64],
    fields: &'a [Scalar],
    /// Field elements before each word of the mask.
    field_rank: Vec<u32>,
    len: usize,
}

impl<'a> Z<'a> {
    fn new(compiled: &Compiled, w: &'a PackedWitness) -> Result<Self> {
        let aux = &w.aux;
        ensure!(
            w.inputs.len() == compiled.num_inputs() && aux.len() == compiled.num_aux(),
            "the witness has {} inputs and {} aux; the compiled circuit ({}, {} challenges) takes {} and {}",
            w.inputs.len(),
            aux.len(),
            compiled.stem,
            compiled.challenges,
            compiled.num_inputs(),
            compiled.num_aux()
        );
        if !w.inputs.first().is_some_and(crate::fr::is_one) {
            bail!("the witness's public input 0 is not ONE");
        }
        let mask = aux.field_mask_words();
        let mut field_rank = Vec::with_capacity(mask.len());
        let mut before = 0u64;
        for word in mask {
            field_rank.push(before as u32);
            before += u64::from(word.count_ones());
        }
        ensure!(
            before as usize == aux.fields().len(),
            "the witness's field mask marks {before} field elements, it holds {}",
            aux.fields().len()
        );
        ensure!(before < u64::from(u32::MAX), "more than 2^32 field elements");
        Ok(Z { inputs: &w.inputs, bits: aux.bit_words(), mask, fields: aux.fields(), field_rank, len: aux.len() })
    }

    #[inline(always)]
    fn input(&self, i: usize) -> Value<'a> {
        if i == 0 {
            Value::One
        } else {
            Value::Field(&self.inputs[i])
        }
    }

    #[inline(always)]
    fn aux(&self, i: usize) -> Value<'a> {
        let (w, b) = (i / 64, i % 64);
        let m = self.mask[w];
        if m >> b & 1 == 1 {
            let below = (m & ((1u64 << b) - 1)).count_ones();
            Value::Field(&self.fields[(self.field_rank[w] + below) as usize])
        } else if self.bits[w] >> b & 1 == 1 {
            Value::One
        } else {
            Value::Zero
        }
    }

    /// Every aux value as a scalar, in order.
    fn aux_scalars(&self) -> Vec<Scalar> {
        const WORDS: usize = 1 << 10;
        let mut out = Vec::with_capacity(self.len);
        out.spare_capacity_mut()[..self.len].par_chunks_mut(64 * WORDS).enumerate().for_each(|(k, chunk)| {
            for (i, slot) in chunk.iter_mut().enumerate() {
                let v = match self.aux(k * 64 * WORDS + i) {
                    Value::Zero => Scalar::ZERO,
                    Value::One => Scalar::ONE,
                    Value::Field(v) => *v,
                };
                slot.write(v);
            }
        });
        // SAFETY: the chunks cover the first `len` slots, each written.
        unsafe { out.set_len(self.len) };
        out
    }
}
