//! A·z, B·z, C·z on the CPU from the compiled constraints and a packed witness, in parallel
//! over rows (rayon). Template rows read challenge `j`'s columns: its own variables shifted by
//! `j·per`, the prefix's moving range by `offsets[j]` ([`super::template::shift`]).
//!
//! A row's terms are summed in two accumulators: an integer one for the terms that are a
//! power of two times a bit (or times ONE) — the SHA-256 rows, nearly all of the circuit — so
//! they cost an add, not a field multiply; and a field one for the rest (field-element
//! variables, table coefficients, exponents above 62). The integer sum becomes a field element
//! once per row. Field arithmetic is exact, so the order of the terms does not matter: the
//! result is the gadget synthesis's, byte for byte.
use std::mem::MaybeUninit;
use std::sync::OnceLock;

use anyhow::{bail, ensure, Result};
use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use super::coeff::{pow2_values, CLASS_SHIFT, NEG_POW2, PAYLOAD_MASK, POS_POW2};
use super::compiled::{Block, Compiled, Csr};
use super::limbs::{self, Fr4};
use crate::circuit::r1cs::INPUT_FLAG;
use crate::circuit::Assignment;
use crate::hostmem::SCALARS;
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
    let (mut a, mut b, mut c) = (SCALARS.take(n), SCALARS.take(n), SCALARS.take(n));
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

/// Evaluates rows `first..first + out.len()` into `out` (A, B, C), in stretches that lie in
/// one block and challenge.
fn rows(compiled: &Compiled, z: &Z, first: usize, out: [&mut [MaybeUninit<Scalar>]; 3]) {
    let circuit = compiled.circuit_constraints();
    let (prefix, per) = (&compiled.prefix, &compiled.per);
    let [mut oa, mut ob, mut oc] = out;
    let mut r = first;
    while !oa.is_empty() {
        let (block, row, shift, n) = if r < prefix.constraints {
            (&compiled.head, r, Shift::NONE, prefix.constraints - r)
        } else if r < circuit {
            let t = r - prefix.constraints;
            let (j, row) = (t / per.constraints, t % per.constraints);
            let moving = &compiled.moving;
            let shift = Shift {
                inputs_from: prefix.inputs as u32,
                inputs_by: (j * per.inputs) as u32,
                aux_from: prefix.aux as u32,
                aux_by: (j * per.aux) as u32,
                moving_lo: moving.lo as u32,
                moving_len: (moving.hi - moving.lo.min(moving.hi)) as u32,
                moving_by: moving.offset(j),
            };
            (&compiled.template, row, shift, per.constraints - row)
        } else {
            input_rows(z, r - circuit, [oa, ob, oc]);
            return;
        };
        let n = n.min(oa.len());
        let (a, rest_a) = std::mem::take(&mut oa).split_at_mut(n);
        let (b, rest_b) = std::mem::take(&mut ob).split_at_mut(n);
        let (c, rest_c) = std::mem::take(&mut oc).split_at_mut(n);
        block_rows(block, row, shift, z, &compiled.table, [a, b, c]);
        (oa, ob, oc) = (rest_a, rest_b, rest_c);
        r += n;
    }
}

/// Rows `row..` of a block, shifted by `shift`, into `out` (A, B, C).
fn block_rows(block: &Block, row: usize, shift: Shift, z: &Z, table: &[Scalar], out: [&mut [MaybeUninit<Scalar>]; 3]) {
    let [oa, ob, oc] = out;
    let [ma, mb, mc] = &block.m;
    for (row, ((a, b), c)) in (row..).zip(oa.iter_mut().zip(ob.iter_mut()).zip(oc.iter_mut())) {
        a.write(row_value(ma, row, shift, z, table));
        b.write(row_value(mb, row, shift, z, table));
        c.write(row_value(mc, row, shift, z, table));
    }
}

/// The `input_i · 0 = 0` rows from input `i` on: A·z = input_i, B·z = C·z = 0.
fn input_rows(z: &Z, i: usize, out: [&mut [MaybeUninit<Scalar>]; 3]) {
    let [oa, ob, oc] = out;
    for (v, ((a, b), c)) in z.inputs[i..].iter().zip(oa.iter_mut().zip(ob.iter_mut()).zip(oc.iter_mut())) {
        a.write(*v);
        b.write(Scalar::ZERO);
        c.write(Scalar::ZERO);
    }
}

/// How a block's columns map to the circuit's: columns at or past `*_from` move by `*_by`,
/// aux columns in `moving_lo .. moving_lo + moving_len` (below `aux_from`) by `moving_by`.
#[derive(Clone, Copy)]
struct Shift {
    inputs_from: u32,
    inputs_by: u32,
    aux_from: u32,
    aux_by: u32,
    moving_lo: u32,
    moving_len: u32,
    moving_by: u32,
}

impl Shift {
    const NONE: Shift =
        Shift { inputs_from: 0, inputs_by: 0, aux_from: 0, aux_by: 0, moving_lo: 0, moving_len: 0, moving_by: 0 };
}

/// Σ coefficient · z over one row.
#[inline(always)]
fn row_value(csr: &Csr, row: usize, s: Shift, z: &Z, table: &[Scalar]) -> Scalar {
    let mut acc = Acc { small: 0, big: None };
    for k in csr.terms(row) {
        let (col, code) = (csr.cols[k], csr.codes[k]);
        let value = if col & INPUT_FLAG == 0 {
            let i = if col >= s.aux_from {
                col + s.aux_by
            } else if col.wrapping_sub(s.moving_lo) < s.moving_len {
                col + s.moving_by
            } else {
                col
            };
            z.aux(i as usize)
        } else {
            let i = col & !INPUT_FLAG;
            let i = if i >= s.inputs_from { i + s.inputs_by } else { i };
            z.input(i as usize)
        };
        match value {
            Value::Zero => {}
            Value::One => acc.add_coefficient(code, table),
            Value::Field(v) => acc.add_big(times_coefficient(v, code, table)),
        }
    }
    let small = small_to_fr(acc.small, z.smalls);
    limbs::scalar(match acc.big {
        None => small,
        Some(big) if acc.small == 0 => big,
        Some(big) => limbs::add(&big, &small),
    })
}

/// A row's sum: an integer part and, only once a term needs it, a field part (most rows
/// never touch the field).
struct Acc {
    small: i128,
    big: Option<Fr4>,
}

impl Acc {
    #[inline(always)]
    fn add_big(&mut self, x: Fr4) {
        self.big = Some(match self.big {
            None => x,
            Some(b) => limbs::add(&b, &x),
        });
    }

    /// Adds 1 · coefficient: to the integer part when it is ±2^k with k ≤ 62.
    #[inline(always)]
    fn add_coefficient(&mut self, code: u32, table: &[Scalar]) {
        let (class, payload) = (code >> CLASS_SHIFT, code & PAYLOAD_MASK);
        match class {
            POS_POW2 if payload <= 62 => self.small += 1i128 << payload,
            NEG_POW2 if payload <= 62 => self.small -= 1i128 << payload,
            POS_POW2 => self.add_big(limbs::of(&pow2_values()[payload as usize])),
            NEG_POW2 => self.add_big(limbs::neg(&limbs::of(&pow2_values()[payload as usize]))),
            _ => self.add_big(limbs::of(&table[payload as usize])),
        }
    }
}

/// v · coefficient.
#[inline(always)]
fn times_coefficient(v: &Scalar, code: u32, table: &[Scalar]) -> Fr4 {
    let (class, payload) = (code >> CLASS_SHIFT, code & PAYLOAD_MASK);
    let v4 = limbs::of(v);
    let pow = |k: u32| match k {
        0 => v4,
        1 => limbs::add(&v4, &v4),
        _ => limbs::of(&(*v * pow2_values()[k as usize])),
    };
    match class {
        POS_POW2 => pow(payload),
        NEG_POW2 => limbs::neg(&pow(payload)),
        _ => limbs::of(&(*v * table[payload as usize])),
    }
}

/// Row sums below this (in absolute value) come from a table: most rows of the SHA-256
/// gadgets sum to a few bits.
const SMALL: usize = 1 << 12;

/// 0, 1, …, SMALL − 1 as field elements.
fn small_values() -> &'static [Scalar] {
    static SMALLS: OnceLock<Vec<Scalar>> = OnceLock::new();
    SMALLS.get_or_init(|| (0..SMALL as u64).map(u64_to_fr).collect())
}

/// v as a field element (Montgomery form: v·R² reduced once).
#[inline(always)]
fn u64_to_fr(v: u64) -> Scalar {
    let mut out = blst::blst_fr::default();
    let limbs = [v, 0, 0, 0];
    // SAFETY: blst reads four limbs from `limbs` and writes `out`.
    unsafe { blst::blst_fr_from_uint64(&mut out, limbs.as_ptr()) };
    Scalar::from(out)
}

/// An integer (|v| < 2^127) as a field element.
#[inline(always)]
fn small_to_fr(v: i128, smalls: &[Scalar]) -> Fr4 {
    let m = v.unsigned_abs();
    let x = if m < SMALL as u128 {
        limbs::of(&smalls[m as usize])
    } else {
        let (lo, hi) = (m as u64, (m >> 64) as u64);
        let mut x = u64_to_fr(lo);
        if hi != 0 {
            x += u64_to_fr(hi) * pow2_values()[64];
        }
        limbs::of(&x)
    };
    if v < 0 {
        limbs::neg(&x)
    } else {
        x
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
    /// Per 64 aux: the field mask and the value bits side by side (one cache line serves
    /// both).
    words: Vec<[u64; 2]>,
    fields: &'a [Scalar],
    /// Field elements before each word of the mask.
    field_rank: Vec<u32>,
    len: usize,
    smalls: &'static [Scalar],
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
        if !w.inputs.first().is_some_and(crate::field::fr::is_one) {
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
        let words = mask.iter().zip(aux.bit_words()).map(|(&m, &b)| [m, b]).collect();
        Ok(Z { inputs: &w.inputs, words, fields: aux.fields(), field_rank, len: aux.len(), smalls: small_values() })
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
        let [m, bits] = self.words[w];
        if m >> b & 1 == 1 {
            let below = (m & ((1u64 << b) - 1)).count_ones();
            Value::Field(&self.fields[(self.field_rank[w] + below) as usize])
        } else if bits >> b & 1 == 1 {
            Value::One
        } else {
            Value::Zero
        }
    }

    /// Every aux value as a scalar, in order.
    fn aux_scalars(&self) -> Vec<Scalar> {
        const WORDS: usize = 1 << 10;
        let mut out = SCALARS.take(self.len);
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
