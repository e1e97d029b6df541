//! The points of one MSM, chunk by chunk: a view of converted points on the device, or raw
//! .params bytes streamed from host memory through two pinned staging buffers and converted on the
//! device by the srs kernels.
use super::Points;
use crate::gpu::driver::{DeviceBuffer, KernelArg, Module, PinnedBuffer};
use crate::gpu::layout::Group;
use crate::gpu::{Gpu, GpuError, Result};
use rayon::prelude::*;

pub(super) enum Source<'a, G: Group> {
    Device { buf: &'a DeviceBuffer<u32>, first: usize },
    Host(Box<Staging<'a, G>>),
}

/// Host streaming: while the device sorts chunk k, the CPU copies chunk k+1 into the other pinned
/// buffer; its upload (and the conversion) follow chunk k's work on the stream.
pub(super) struct Staging<'a, G: Group> {
    gpu: &'a Gpu,
    srs: &'a Module,
    bytes: &'a [u8],
    pinned: [PinnedBuffer<u8>; 2],
    raw: DeviceBuffer<u8>,
    pts: DeviceBuffer<u32>,
    status: DeviceBuffer<u32>,
    status_host: PinnedBuffer<u32>,
    _g: std::marker::PhantomData<G>,
}

impl<'a, G: Group> Source<'a, G> {
    pub fn new(gpu: &'a Gpu, srs: &'a Module, points: Points<'a>, n: usize, chunk: usize) -> Result<Self> {
        match points {
            Points::Device { buf, first } => {
                if buf.len() < (first + n) * 2 * G::W {
                    return Err(GpuError::Invalid(format!(
                        "{} points {first}..{} asked of a buffer of {} points",
                        G::NAME,
                        first + n,
                        buf.len() / (2 * G::W)
                    )));
                }
                Ok(Source::Device { buf, first })
            }
            Points::Host(bytes) => {
                if bytes.len() < n * G::SER {
                    return Err(GpuError::Invalid(format!(
                        "{n} {} points asked of {} bytes ({} points)",
                        G::NAME,
                        bytes.len(),
                        bytes.len() / G::SER
                    )));
                }
                let stage = chunk.min(n) * G::SER;
                Ok(Source::Host(Box::new(Staging {
                    gpu,
                    srs,
                    bytes,
                    pinned: [PinnedBuffer::new(&gpu.ctx, stage)?, PinnedBuffer::new(&gpu.ctx, stage)?],
                    raw: gpu.alloc(stage)?,
                    pts: gpu.alloc(chunk.min(n) * 2 * G::W)?,
                    status: gpu.alloc(chunk.min(n))?,
                    status_host: PinnedBuffer::new(&gpu.ctx, chunk.min(n))?,
                    _g: std::marker::PhantomData,
                })))
            }
        }
    }

    /// Host: copies the bytes of points s..s+len into staging buffer k % 2 (CPU, in parallel). The
    /// buffer's previous upload (chunk k-2) is complete: the chunk loop waited for chunk k-1's sort,
    /// which follows it on the stream.
    pub fn stage(&mut self, k: usize, s: usize, len: usize) -> Result<()> {
        if let Source::Host(h) = self {
            let bytes = h.bytes;
            let src = &bytes[s * G::SER..(s + len) * G::SER];
            let dst = &mut h.pinned[k % 2][..len * G::SER];
            crate::gpu::staging::staging_pool().install(|| {
                dst.par_chunks_mut(1 << 20).zip(src.par_chunks(1 << 20)).for_each(|(d, s)| d.copy_from_slice(s))
            });
        }
        Ok(())
    }

    /// The device address of the chunk's converted points; Host: enqueues the upload of staging
    /// buffer k % 2, the conversion and the download of its status words.
    pub fn upload(&mut self, k: usize, s: usize, len: usize) -> Result<KernelArg> {
        match self {
            Source::Device { buf, first } => buf.arg_at((*first + s) * 2 * G::W),
            Source::Host(h) => {
                let h = &mut **h;
                // SAFETY: the pinned buffer lives in `h` and is not written again before the stream
                // has passed this copy (see `stage`).
                unsafe { h.raw.copy_from_host_async(&h.pinned[k % 2][..len * G::SER])? };
                let f = h.srs.function(&format!("srs_{}_affine", G::NAME.to_lowercase()))?;
                let block = f.max_threads_per_block()?.clamp(32, 256) as u32;
                let args = [h.pts.arg(), h.raw.arg(), h.status.arg(), KernelArg::U32(len as u32)];
                // SAFETY: srs_G_affine(out, in, status, n) reads len raw points from `raw` and writes
                // len affine points and status words, all within the buffers sized for a chunk.
                unsafe { f.launch(&h.gpu.stream, len.div_ceil(block as usize) as u32, block, &args)? };
                // SAFETY: status_host lives in `h`; it is read (check) only after a later sync.
                unsafe { h.status.copy_to_host_async(&mut h.status_host[..len])? };
                Ok(h.pts.arg())
            }
        }
    }

    /// Host: the conversion's status words of points s..s+len (call after a sync that follows the
    /// upload): a bad point is an error naming its index.
    pub fn check(&self, s: usize, len: usize) -> Result<()> {
        if let Source::Host(h) = self {
            if let Some(i) = h.status_host[..len].iter().position(|&x| x != 0) {
                let st = h.status_host[i];
                let why = [(1, "a coordinate is not below p"), (2, "wrong flag bits"), (4, "not on the curve")]
                    .iter()
                    .filter(|(b, _)| st & b != 0)
                    .map(|(_, w)| *w)
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(GpuError::Invalid(format!("{} point {} of the section is invalid: {why}", G::NAME, s + i)));
            }
        }
        Ok(())
    }
}
