//! The queries of a packed witness as full scalars on the device, for an ordinary MSM each.
//!
//! The split ([`super::split`]) suits a witness of bits: each query is a batch addition of its
//! ones plus a short MSM whose points are gathered. A PoSt partition is the opposite (nearly
//! every aux of a 32GiB WindowPoSt partition is a field element: Poseidon states and path
//! picks), so the split's dense part is the whole query and its gathered points a second copy
//! of the section. Here the device writes each query's scalars from the packed witness
//! (`expand_aux`: a field element's value, 1 or 0 for a bit), after the inputs the host
//! places first, and the query is one MSM over the section as for an assignment, with no host
//! evaluation and no upload beyond the packed witness.
use blstrs::Scalar;

use super::evaluate::{DeviceShape, DeviceWitness};
use super::kernels::{EvaluateKernels, ExpandAuxArgs};
use super::layout::scalar_words;
use super::{DeviceBuffer, Gpu, Result};

/// Threads per block of `expand_aux`.
const BLOCK: u32 = 256;

/// The L query's scalars: every aux variable, in order.
pub fn l_scalars(gpu: &Gpu, k: &EvaluateKernels, w: &DeviceWitness) -> Result<DeviceBuffer<u32>> {
    expand(gpu, k, w, &[], None, w.aux_len())
}

/// The A query's scalars: every input, then the aux variables that occur in A.
pub fn a_scalars(gpu: &Gpu, k: &EvaluateKernels, s: &DeviceShape, w: &DeviceWitness) -> Result<DeviceBuffer<u32>> {
    expand(gpu, k, w, w.inputs(), Some(s.a_aux()), s.a_density().0.count())
}

/// The B queries' scalars: the inputs, then the aux variables, that occur in B.
pub fn b_scalars(gpu: &Gpu, k: &EvaluateKernels, s: &DeviceShape, w: &DeviceWitness) -> Result<DeviceBuffer<u32>> {
    let inputs: Vec<Scalar> = s.b_inputs().iter().map(|&i| w.inputs()[i]).collect();
    expand(gpu, k, w, &inputs, Some(s.b_aux()), s.b_density().0.count())
}

/// `inputs`, then `n` aux values: those an index list names, or aux 0..n without one.
fn expand(
    gpu: &Gpu,
    k: &EvaluateKernels,
    w: &DeviceWitness,
    inputs: &[Scalar],
    index: Option<&DeviceBuffer<u32>>,
    n: usize,
) -> Result<DeviceBuffer<u32>> {
    let first = inputs.len();
    let mut out = gpu.alloc::<u32>((first + n).max(1) * 8)?;
    if first > 0 {
        gpu.upload_slice_into(&mut out, 0, scalar_words(inputs))?;
    }
    if n > 0 {
        let [bits, fmask, frank, fields] = w.parts();
        let args = ExpandAuxArgs {
            out: out.view(),
            bits: bits.view(),
            fmask: fmask.view(),
            frank: frank.view(),
            fields: fields.view(),
            idx: index.map(|i| i.view()),
            n: n as u32,
            out_first: first as u32,
            indexed: index.is_some() as u32,
        };
        // SAFETY: without an index list n is the witness's aux count (l_scalars); an index list
        // holds the set positions of one of the shape's densities over its aux variables
        // (DeviceShape::upload), n of them, and the witness was checked against the shape's
        // aux count and its frank computed from its fmask (DeviceWitness::upload).
        unsafe { k.expand_aux().launch(&gpu.stream, n.div_ceil(BLOCK as usize) as u32, BLOCK, &args)? };
    }
    Ok(out)
}
