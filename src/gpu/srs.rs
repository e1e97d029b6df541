//! .params point sections to the kernels' layout on the device.
//!
//! A section of a .params file is a run of uncompressed big-endian points
//! (G1: x||y, 96 bytes; G2: x.c1||x.c0||y.c1||y.c0, 192 bytes; flag bits in the
//! first byte, 0x40 = infinity). `convert_section` copies such bytes to the
//! device and runs `srs_g1_affine` / `srs_g2_affine` (module "srs"), which
//! write affine Montgomery points (infinity = (0,0)) and a status word per
//! point: 0 ok, 1 coordinate >= p, 2 wrong flags, 4 not on the curve.
use super::driver::{KernelArg, Module};
use super::layout::Group;
use super::{DeviceBuffer, Gpu, GpuError, Result};

/// Converts `bytes` (a whole number of points of group G) on the device.
/// Returns the device buffer of affine points (2 * G::W words each) and the
/// status words (copied back to the host).
pub fn convert_section<G: Group>(gpu: &Gpu, m: &Module, bytes: &[u8]) -> Result<(DeviceBuffer<u32>, Vec<u32>)> {
    if !bytes.len().is_multiple_of(G::SER) {
        return Err(GpuError::Invalid(format!(
            "{} section of {} bytes is not a whole number of points",
            G::NAME,
            bytes.len()
        )));
    }
    let n = bytes.len() / G::SER;
    let f = m.function(&format!("srs_{}_affine", G::NAME.to_lowercase()))?;
    let mut input = gpu.alloc::<u8>(bytes.len())?;
    // SAFETY: `bytes` outlives the copy: the status download below synchronizes the stream.
    unsafe { input.copy_from_host_async(bytes)? };
    let out = gpu.alloc::<u32>(n * 2 * G::W)?;
    let status = gpu.alloc::<u32>(n)?;
    let block = f.max_threads_per_block()?.clamp(32, 256) as u32;
    let grid = n.div_ceil(block as usize) as u32;
    let args = [out.arg(), input.arg(), status.arg(), KernelArg::U32(n as u32)];
    // SAFETY: srs_*_affine(out, in, status, n) reads n points and writes n
    // points and n status words; the device allocations are 256-byte aligned.
    unsafe { f.launch(&gpu.stream, grid, block, &args)? };
    let mut st = vec![0u32; n];
    status.copy_to_host(&mut st)?;
    drop(input);
    Ok((out, st))
}
