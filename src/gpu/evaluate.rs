//! Witness-only proving on the device: a shape's compiled constraints stay resident
//! ([`DeviceShape`]), each partition uploads only its packed witness (bits, a field mask and the
//! few field elements: tens of MB at 32GiB instead of ~25 GB of scalars), and module "evaluate"
//! computes A·z, B·z, C·z there; the queries' MSMs over the witness are split in [`super::split`].
//!
//! Every index the kernels follow comes from data checked here before it is uploaded: the
//! compiled blocks (row pointers, columns shifted for the last challenge and, in the prefix's
//! moving range, by the largest offset, coefficient codes), the offset table (one per
//! challenge) and the queries' index lists; a packed witness is checked against the shape's
//! counts.
use blstrs::Scalar;

use super::kernels::{EvalRowsArgs, EvaluateKernels, Grid};
use super::layout::scalar_words;
use super::{DeviceBuffer, Gpu, GpuError, Result};
use crate::circuit::Density;
use crate::constraints::coeff::pow2_values;
use crate::constraints::{Block, Compiled, Csr};
use crate::witness::PackedWitness;

/// Threads per block of the evaluation kernels.
const BLOCK: u32 = 256;

/// One matrix of a block on the device.
struct DeviceCsr {
    rows: usize,
    row_ptr: DeviceBuffer<u32>,
    cols: DeviceBuffer<u32>,
    codes: DeviceBuffer<u32>,
}

/// A compiled shape on the device, with the queries' index lists over the aux variables.
pub struct DeviceShape {
    /// Which shape: its parameter stem and challenge count.
    pub key: (String, usize),
    head: [DeviceCsr; 3],
    template: Option<[DeviceCsr; 3]>,
    /// Per challenge, the offset of the prefix's moving range (zeros without one); at least
    /// one element.
    offsets: DeviceBuffer<u32>,
    table: DeviceBuffer<u32>,
    pow2: DeviceBuffer<u32>,
    /// Aux variables of the A query (the inputs come first, from the host).
    a_aux: DeviceBuffer<u32>,
    /// Aux variables of the B queries.
    b_aux: DeviceBuffer<u32>,
    /// Inputs of the B queries.
    b_inputs: Vec<usize>,
    /// The A and B densities over the aux variables with their per-word ranks, on the host:
    /// where a field element sits in a split query ([`super::split`]).
    a_density: (Density, Vec<usize>),
    b_density: (Density, Vec<usize>),
    counts: Counts,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counts {
    inputs: usize,
    aux: usize,
    rows: usize,
    a_aux: usize,
    b_aux: usize,
}

/// The three matrices of the constraints, in the order of [`DeviceShape`]'s blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matrix {
    A = 0,
    B = 1,
    C = 2,
}

/// The coefficient classes of a code (the layout of src/constraints).
const CLASS_SHIFT: u32 = 30;
const PAYLOAD: u32 = (1 << CLASS_SHIFT) - 1;
const INPUT: u32 = 1 << 31;

/// How a block's columns are shifted at most: inputs at or past `inputs_from` by up to
/// `inputs_by`, aux at or past `aux_from` by up to `aux_by`, aux in `moving` (below
/// `aux_from`) by up to `moving_by`.
#[derive(Clone, Copy, Debug, Default)]
struct MaxShift {
    inputs_from: usize,
    inputs_by: usize,
    aux_from: usize,
    aux_by: usize,
    moving: (usize, usize),
    moving_by: usize,
}

/// Checks one matrix's terms: row pointers non-decreasing up to the term count, columns (after
/// the last challenge's shift, or the largest offset in the moving range) below the counts,
/// codes that name a power of two or a table entry.
fn check_csr(m: &Csr, shift: MaxShift, counts: Counts, table: usize, what: &str) -> std::result::Result<(), String> {
    let MaxShift { inputs_from: ifrom, inputs_by: iper, aux_from: afrom, aux_by: aper, moving: (lo, hi), moving_by } =
        shift;
    if m.row_ptr.first() != Some(&0) || m.row_ptr.last().map(|&e| e as usize) != Some(m.cols.len()) {
        return Err(format!("{what}: row pointers do not span the terms"));
    }
    if m.row_ptr.windows(2).any(|w| w[0] > w[1]) || m.codes.len() != m.cols.len() {
        return Err(format!("{what}: row pointers decrease or codes and columns differ in number"));
    }
    for (&col, &code) in m.cols.iter().zip(&m.codes) {
        let ok_col = if col & INPUT != 0 {
            let i = (col & !INPUT) as usize;
            (if i >= ifrom { i + iper } else { i }) < counts.inputs
        } else {
            let i = col as usize;
            let moved = if i >= afrom {
                i + aper
            } else if lo <= i && i < hi {
                i + moving_by
            } else {
                i
            };
            moved < counts.aux
        };
        let (class, pay) = (code >> CLASS_SHIFT, (code & PAYLOAD) as usize);
        let ok_code = match class {
            0 | 1 => pay < pow2_values().len(),
            2 => pay < table,
            _ => false,
        };
        if !ok_col || !ok_code {
            return Err(format!("{what}: term column {col:#x} code {code:#x} out of range"));
        }
    }
    Ok(())
}

fn upload_csr(gpu: &Gpu, m: &Csr, rows: usize) -> Result<DeviceCsr> {
    // Empty buffers still get one element so every argument is a valid address.
    let up = |v: &[u32]| if v.is_empty() { gpu.upload(&[0u32]) } else { gpu.upload(v) };
    Ok(DeviceCsr { rows, row_ptr: up(&m.row_ptr)?, cols: up(&m.cols)?, codes: up(&m.codes)? })
}

fn aux_index(d: &crate::circuit::Density) -> Vec<u32> {
    d.iter_set().map(|i| i as u32).collect()
}

impl DeviceShape {
    /// Checks a compiled shape and uploads it with its query index lists.
    pub fn upload(gpu: &Gpu, c: &Compiled) -> Result<DeviceShape> {
        let counts = Counts {
            inputs: c.num_inputs(),
            aux: c.num_aux(),
            rows: c.circuit_constraints(),
            a_aux: c.densities().a_aux.count(),
            b_aux: c.densities().b_aux.count(),
        };
        if counts.aux >= u32::MAX as usize || counts.inputs >= (INPUT as usize) {
            return Err(GpuError::Invalid(format!("compiled shape {}: too many variables for 32-bit columns", c.stem)));
        }
        let last = c.challenges.saturating_sub(1);
        let invalid = |e: String| GpuError::Invalid(format!("compiled shape {}: {e}", c.stem));
        let moving = &c.moving;
        if !moving.is_empty() && (moving.offsets.len() < c.challenges || moving.hi > c.prefix.aux) {
            return Err(invalid(format!(
                "a moving range {}..{} with offsets for {} of {} challenges",
                moving.lo,
                moving.hi,
                moving.offsets.len(),
                c.challenges
            )));
        }
        let t_shift = MaxShift {
            inputs_from: c.prefix.inputs,
            inputs_by: last * c.per.inputs,
            aux_from: c.prefix.aux,
            aux_by: last * c.per.aux,
            moving: (moving.lo, moving.hi),
            moving_by: moving.max_offset(c.challenges) as usize,
        };
        let check = |b: &Block, shift: MaxShift, name: &str| {
            b.m.iter()
                .zip(["A", "B", "C"])
                .try_for_each(|(m, n)| check_csr(m, shift, counts, c.table.len(), &format!("{name} {n}")))
        };
        check(&c.head, MaxShift::default(), "head").map_err(invalid)?;
        let has_template = c.challenges > 0 && c.template.rows > 0;
        if has_template {
            check(&c.template, t_shift, "template").map_err(invalid)?;
        }
        // One offset per challenge the template launch covers (grid.y), zeros without a range.
        let offsets: Vec<u32> =
            (0..c.challenges.max(1)).map(|j| if j < c.challenges { moving.offset(j) } else { 0 }).collect();
        let head = [0, 1, 2].map(|m| upload_csr(gpu, &c.head.m[m], c.head.rows));
        let [ha, hb, hc] = head;
        let template = if has_template {
            let [ta, tb, tc] = [0, 1, 2].map(|m| upload_csr(gpu, &c.template.m[m], c.template.rows));
            Some([ta?, tb?, tc?])
        } else {
            None
        };
        let table = if c.table.is_empty() { gpu.upload(&[0u32; 8])? } else { gpu.upload(scalar_words(&c.table))? };
        let d = c.densities();
        let nonempty = |v: Vec<u32>| if v.is_empty() { vec![0] } else { v };
        Ok(DeviceShape {
            key: (c.stem.clone(), c.challenges),
            head: [ha?, hb?, hc?],
            template,
            offsets: gpu.upload(&offsets)?,
            table,
            pow2: gpu.upload(scalar_words(pow2_values()))?,
            a_aux: gpu.upload(&nonempty(aux_index(&d.a_aux)))?,
            b_aux: gpu.upload(&nonempty(aux_index(&d.b_aux)))?,
            b_inputs: d.b_input.iter_set().collect(),
            a_density: (d.a_aux.clone(), d.a_aux.ranks()),
            b_density: (d.b_aux.clone(), d.b_aux.ranks()),
            counts,
        })
    }

    /// The aux variables of the A query, as a device index list (its ones bitmap's order).
    pub(super) fn a_aux(&self) -> &DeviceBuffer<u32> {
        &self.a_aux
    }
    pub(super) fn b_aux(&self) -> &DeviceBuffer<u32> {
        &self.b_aux
    }
    pub(super) fn b_inputs(&self) -> &[usize] {
        &self.b_inputs
    }
    /// The A query's aux density and its ranks ([`Density::ranks`]).
    pub(super) fn a_density(&self) -> (&Density, &[usize]) {
        (&self.a_density.0, &self.a_density.1)
    }
    pub(super) fn b_density(&self) -> (&Density, &[usize]) {
        (&self.b_density.0, &self.b_density.1)
    }

    /// Device bytes the shape holds.
    pub fn bytes(&self) -> u64 {
        let csr = |m: &DeviceCsr| (m.row_ptr.bytes() + m.cols.bytes() + m.codes.bytes()) as u64;
        let t: u64 = self.template.iter().flatten().map(csr).sum();
        self.head.iter().map(csr).sum::<u64>()
            + t
            + (self.offsets.bytes() + self.table.bytes() + self.pow2.bytes()) as u64
            + (self.a_aux.bytes() + self.b_aux.bytes()) as u64
    }
}

/// A packed witness on the device.
pub struct DeviceWitness {
    inputs: Vec<Scalar>,
    aux: usize,
    bits: DeviceBuffer<u32>,
    fmask: DeviceBuffer<u32>,
    frank: DeviceBuffer<u32>,
    fields: DeviceBuffer<u32>,
    inputs_dev: DeviceBuffer<u32>,
}

/// u64 bit words as the kernels' u32 words (low half first).
fn u32_words(words: &[u64]) -> Vec<u32> {
    let mut v: Vec<u32> = words.iter().flat_map(|w| [*w as u32, (*w >> 32) as u32]).collect();
    if v.is_empty() {
        v.push(0);
    }
    v
}

impl DeviceWitness {
    /// Checks a packed witness against the shape's counts and uploads it.
    pub fn upload(gpu: &Gpu, shape: &DeviceShape, w: &PackedWitness) -> Result<DeviceWitness> {
        let n = shape.counts;
        let mask = u32_words(w.aux.field_mask_words());
        let set: usize = mask.iter().map(|m| m.count_ones() as usize).sum();
        if w.inputs.len() != n.inputs || w.aux.len() != n.aux || set != w.aux.fields().len() {
            return Err(GpuError::Invalid(format!(
                "a packed witness of {} inputs and {} aux ({} field elements, {set} marked) for a shape of {} and {}",
                w.inputs.len(),
                w.aux.len(),
                w.aux.fields().len(),
                n.inputs,
                n.aux
            )));
        }
        let mut frank = Vec::with_capacity(mask.len());
        let mut below = 0u32;
        for m in &mask {
            frank.push(below);
            below += m.count_ones();
        }
        let fields =
            if w.aux.fields().is_empty() { gpu.upload(&[0u32; 8])? } else { gpu.upload(scalar_words(w.aux.fields()))? };
        Ok(DeviceWitness {
            inputs: w.inputs.clone(),
            aux: n.aux,
            bits: gpu.upload(&u32_words(w.aux.bit_words()))?,
            fmask: gpu.upload(&mask)?,
            frank: gpu.upload(&frank)?,
            fields,
            inputs_dev: gpu.upload(scalar_words(&w.inputs))?,
        })
    }
}

impl DeviceWitness {
    pub(super) fn inputs(&self) -> &[Scalar] {
        &self.inputs
    }
    pub(super) fn aux_len(&self) -> usize {
        self.aux
    }
    /// Bit i: the value of aux i when it is a bit (0 for a field element).
    pub(super) fn bits(&self) -> &DeviceBuffer<u32> {
        &self.bits
    }
    /// The field elements' values in aux order, 8 Montgomery words each.
    pub(super) fn fields(&self) -> &DeviceBuffer<u32> {
        &self.fields
    }
    /// The aux as the kernels read it: value bits, field mask, the mask's ranks, field values.
    pub(super) fn parts(&self) -> [&DeviceBuffer<u32>; 4] {
        [&self.bits, &self.fmask, &self.frank, &self.fields]
    }
}

fn grid_for(rows: usize) -> u32 {
    rows.div_ceil(BLOCK as usize) as u32
}

/// M·z of the whole circuit for one matrix M into a new buffer of `domain` elements: see
/// [`evaluate_into`].
pub fn evaluate(
    gpu: &Gpu,
    k: &EvaluateKernels,
    shape: &DeviceShape,
    c: &Compiled,
    w: &DeviceWitness,
    domain: usize,
    m: Matrix,
) -> Result<DeviceBuffer<u32>> {
    let mut out = gpu.alloc::<u32>(domain * 8)?;
    evaluate_into(gpu, k, shape, c, w, &mut out, m)?;
    Ok(out)
}

/// M·z of the whole circuit for one matrix M (A, B or C) into `out` (its length in elements is
/// the domain): the head's rows, the template's for every challenge, then `input_i · 0 = 0`'s
/// (A·z = input i, B·z = C·z = 0), zero to the end of the domain. Stream-ordered.
pub fn evaluate_into(
    gpu: &Gpu,
    k: &EvaluateKernels,
    shape: &DeviceShape,
    c: &Compiled,
    w: &DeviceWitness,
    out: &mut DeviceBuffer<u32>,
    m: Matrix,
) -> Result<()> {
    let n = shape.counts;
    let domain = out.len() / 8;
    if n.rows + n.inputs > domain {
        return Err(GpuError::Invalid(format!("{} rows do not fit a domain of {domain}", n.rows + n.inputs)));
    }
    out.fill_bytes_at(n.rows * 8, (domain - n.rows) * 8, 0)?;
    if m == Matrix::A {
        gpu.upload_slice_into(out, n.rows * 8, scalar_words(&w.inputs))?;
    }
    let (per, moving) = (&c.per, &c.moving);
    // (block, first row, row stride, challenges, shift: inputs from/per, aux from/per, moving lo/hi)
    let launches =
        [(&shape.head, 0usize, 0usize, 1usize, [0usize; 6])].into_iter().chain(shape.template.as_ref().map(|t| {
            (
                t,
                c.prefix.constraints,
                per.constraints,
                c.challenges,
                [c.prefix.inputs, per.inputs, c.prefix.aux, per.aux, moving.lo, moving.hi],
            )
        }));
    for (block, first, stride, challenges, shift) in launches {
        let csr = &block[m as usize];
        if csr.rows == 0 {
            continue;
        }
        let args = EvalRowsArgs {
            out: out.view(),
            row_ptr: csr.row_ptr.view(),
            cols: csr.cols.view(),
            codes: csr.codes.view(),
            pow2: shape.pow2.view(),
            table: shape.table.view(),
            inputs: w.inputs_dev.view(),
            bits: w.bits.view(),
            fmask: w.fmask.view(),
            frank: w.frank.view(),
            fields: w.fields.view(),
            offsets: shape.offsets.view(),
            rows: csr.rows as u32,
            out_first: first as u32,
            out_stride: stride as u32,
            inputs_from: shift[0] as u32,
            inputs_per: shift[1] as u32,
            aux_from: shift[2] as u32,
            aux_per: shift[3] as u32,
            moving_lo: shift[4] as u32,
            moving_hi: shift[5] as u32,
        };
        let grid = Grid { x: grid_for(csr.rows), y: challenges as u32 };
        // SAFETY: the block was checked against the shape's counts when it was uploaded
        // (DeviceShape::upload: row pointers, shifted columns, the moving range moved by its
        // largest offset, codes), and the witness against the same counts
        // (DeviceWitness::upload), with frank computed from fmask; the offsets cover the
        // challenges (the launcher checks grid.y of them).
        unsafe { k.rows().launch(&gpu.stream, grid, BLOCK, &args)? };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A template's aux column in the prefix's moving range is checked where the largest offset
    /// puts it; one outside the range stays, one of the challenge moves by the last challenge's
    /// shift.
    #[test]
    fn a_moving_column_is_checked_at_the_largest_offset() {
        // aux 5 (in the range 4..8), aux 12 (prefix, outside it), aux 25 (the challenge's)
        let m = Csr { row_ptr: vec![0, 3], cols: vec![5, 12, 25], codes: vec![0, 0, 0] };
        let counts = Counts { inputs: 1, aux: 40, rows: 1, a_aux: 0, b_aux: 0 };
        let shift = |moving_by, aux_by| MaxShift {
            inputs_from: 1,
            aux_from: 20,
            aux_by,
            moving: (4, 8),
            moving_by,
            ..MaxShift::default()
        };
        assert_eq!(check_csr(&m, shift(34, 14), counts, 0, "template A"), Ok(()));
        assert_eq!(
            check_csr(&m, shift(35, 14), counts, 0, "template A"),
            Err("template A: term column 0x5 code 0x0 out of range".into())
        );
        assert_eq!(
            check_csr(&m, shift(34, 15), counts, 0, "template A"),
            Err("template A: term column 0x19 code 0x0 out of range".into())
        );
        // Without a range aux 5 stays where it is, whatever the offset.
        let still = MaxShift { moving: (0, 0), ..shift(1000, 14) };
        assert_eq!(check_csr(&m, still, counts, 0, "template A"), Ok(()));
    }
}
