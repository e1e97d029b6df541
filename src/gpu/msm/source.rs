//! The points of one MSM, chunk by chunk: a view of converted points on the device, or raw
//! .params bytes streamed from host memory through two pinned staging buffers and converted on the
//! device by the srs kernels.
use super::MsmPoints;
use crate::gpu::kernels::{blocks_for, SrsConvertArgs, SrsKernels};
use crate::gpu::layout::Group;
use crate::gpu::srs::{converter, status_reason};
use crate::gpu::{DeviceBuffer, DeviceSlice, Gpu, GpuError, PinnedBuffer, Result};
use rayon::prelude::*;

pub(super) enum Source<'a, G: Group> {
    Device { buf: &'a DeviceBuffer<u32>, first: usize },
    Host(Box<StreamedPoints<'a, G>>),
}

/// Host streaming: while the device sorts chunk k, the CPU copies chunk k+1 into the other pinned
/// buffer; its upload (and the conversion) follow chunk k's work on the stream.
pub(super) struct StreamedPoints<'a, G: Group> {
    gpu: &'a Gpu,
    srs: &'a SrsKernels,
    bytes: &'a [u8],
    pinned: [PinnedBuffer<u8>; 2],
    raw: DeviceBuffer<u8>,
    pts: DeviceBuffer<u32>,
    status: DeviceBuffer<u32>,
    status_host: PinnedBuffer<u32>,
    _g: std::marker::PhantomData<G>,
}

impl<'a, G: Group> Source<'a, G> {
    pub fn new(gpu: &'a Gpu, srs: &'a SrsKernels, points: MsmPoints<'a>, n: usize, chunk: usize) -> Result<Self> {
        match points {
            MsmPoints::Device { buf, first } => {
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
            MsmPoints::Host(bytes) => {
                if bytes.len() < n * G::SER {
                    return Err(GpuError::Invalid(format!(
                        "{n} {} points asked of {} bytes ({} points)",
                        G::NAME,
                        bytes.len(),
                        bytes.len() / G::SER
                    )));
                }
                let stage = chunk.min(n) * G::SER;
                Ok(Source::Host(Box::new(StreamedPoints {
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

    /// Host: copies the bytes of points s..s+len into staging buffer k % 2 (CPU, in parallel),
    /// once that buffer's previous upload (chunk k-2) is done.
    pub fn stage(&mut self, k: usize, s: usize, len: usize) -> Result<()> {
        if let Source::Host(h) = self {
            let bytes = h.bytes;
            let src = &bytes[s * G::SER..(s + len) * G::SER];
            let dst = h.pinned[k % 2].host_mut(..len * G::SER)?;
            crate::gpu::staging::staging_pool().install(|| {
                dst.par_chunks_mut(1 << 20).zip(src.par_chunks(1 << 20)).for_each(|(d, s)| d.copy_from_slice(s))
            });
        }
        Ok(())
    }

    /// Host: enqueues the upload of staging buffer k % 2 (chunk k: points s..s+len), the
    /// conversion and the download of its status words. Device: nothing to do.
    pub fn upload(&mut self, k: usize, len: usize) -> Result<()> {
        if let Source::Host(h) = self {
            let h = &mut **h;
            h.raw.upload(0, &h.pinned[k % 2], 0..len * G::SER)?;
            let c = converter::<G>(h.srs)?;
            let block = c.kernel().max_threads_per_block()?.clamp(32, 256) as u32;
            let args = SrsConvertArgs { out: h.pts.view(), in0: h.raw.view(), status: h.status.view(), n: len as u32 };
            c.launch(&h.gpu.stream, blocks_for(len, block), block, &args)?;
            h.status.download(&h.gpu.stream, 0, &mut h.status_host, 0, len)?;
        }
        Ok(())
    }

    /// The chunk's converted points (points s..s+len of the MSM).
    pub fn points(&self, s: usize, len: usize) -> Result<DeviceSlice<'_, u32>> {
        match self {
            Source::Device { buf, first } => buf.slice((first + s) * 2 * G::W..(first + s + len) * 2 * G::W),
            Source::Host(h) => h.pts.slice(..len * 2 * G::W),
        }
    }

    /// Host: the conversion's status words of points s..s+len (waits for their download): a
    /// bad point is an error naming its index.
    pub fn check(&self, s: usize, len: usize) -> Result<()> {
        if let Source::Host(h) = self {
            let status = h.status_host.host(..len)?;
            if let Some(i) = status.iter().position(|&x| x != 0) {
                let why = status_reason(status[i]);
                return Err(GpuError::Invalid(format!("{} point {} of the section is invalid: {why}", G::NAME, s + i)));
            }
        }
        Ok(())
    }
}
