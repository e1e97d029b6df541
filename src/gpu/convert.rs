//! .params point sections to the kernels' layout on the device.
//!
//! A section of a .params file is a run of uncompressed big-endian points
//! (G1: x||y, 96 bytes; G2: x.c1||x.c0||y.c1||y.c0, 192 bytes; flag bits in the
//! first byte, 0x40 = infinity). `srs_g1_affine` / `srs_g2_affine` (module "srs")
//! write affine Montgomery points (infinity = (0,0)) and a status word per point:
//! 0 ok, 1 coordinate >= p, 2 wrong flags, 4 not on the curve. The streamed MSMs and
//! the resident sections convert through [`super::feed`]; [`convert_section`] converts
//! bytes in one go (self-test, tests).
use super::kernels::{blocks_for, SrsConvert, SrsConvertArgs, SrsKernels};
use super::layout::Group;
use super::{DeviceBuffer, Gpu, GpuError, Result};

/// The conversion kernel of group G, checked against the host's view of G's layout.
pub fn converter<G: Group>(k: &SrsKernels) -> Result<&SrsConvert> {
    let c = if G::W == 12 { k.g1_affine() } else { k.g2_affine() };
    if c.point_bytes() as usize != G::SER || c.point_words() as usize != 2 * G::W {
        return Err(GpuError::Invalid(format!(
            "the {} conversion kernel's point layout differs from the host's",
            G::NAME
        )));
    }
    Ok(c)
}

/// Converts `len` points from `input` into `out` (from point `at` on) and their status words.
fn convert<G: Group>(
    gpu: &Gpu,
    c: &SrsConvert,
    out: &DeviceBuffer<u32>,
    at: usize,
    input: &DeviceBuffer<u8>,
    status: &DeviceBuffer<u32>,
    len: usize,
) -> Result<()> {
    let block = c.kernel().max_threads_per_block()?.clamp(32, 256) as u32;
    let args =
        SrsConvertArgs { out: out.slice(at * 2 * G::W..)?, in0: input.view(), status: status.view(), n: len as u32 };
    c.launch(&gpu.stream, blocks_for(len, block), block, &args)
}

/// Converts `bytes` (a whole number of points of group G) on the device.
/// Returns the device buffer of affine points (2 * G::W words each) and the
/// status words (copied back to the host).
pub fn convert_section<G: Group>(gpu: &Gpu, k: &SrsKernels, bytes: &[u8]) -> Result<(DeviceBuffer<u32>, Vec<u32>)> {
    if !bytes.len().is_multiple_of(G::SER) {
        return Err(GpuError::Invalid(format!(
            "{} section of {} bytes is not a whole number of points",
            G::NAME,
            bytes.len()
        )));
    }
    let n = bytes.len() / G::SER;
    let c = converter::<G>(k)?;
    let mut input = gpu.alloc::<u8>(bytes.len())?;
    input.copy_from_host(bytes)?;
    let out = gpu.alloc::<u32>(n * 2 * G::W)?;
    let status = gpu.alloc::<u32>(n)?;
    convert::<G>(gpu, c, &out, 0, &input, &status, n)?;
    let mut st = vec![0u32; n];
    status.copy_to_host(&mut st)?;
    Ok((out, st))
}

/// What a conversion status word means.
pub fn status_reason(s: u32) -> String {
    let mut why = Vec::new();
    if s & 1 != 0 {
        why.push("a coordinate is not below p");
    }
    if s & 2 != 0 {
        why.push("wrong flag bits");
    }
    if s & 4 != 0 {
        why.push("not on the curve");
    }
    if why.is_empty() {
        return format!("status {s:#x}");
    }
    why.join(", ")
}
