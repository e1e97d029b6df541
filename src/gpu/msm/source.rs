//! The points of one MSM, chunk by chunk: a view of converted points on the device, or raw
//! .params bytes streamed from host memory through two pinned staging buffers and converted on the
//! device by the srs kernels.
use super::MsmPoints;
use crate::gpu::kernels::{blocks_for, SrsConvertArgs, SrsKernels};
use crate::gpu::layout::Group;
use crate::gpu::srs::{converter, status_reason};
use crate::gpu::{DeviceBuffer, DeviceSlice, Gpu, GpuError, PinnedBuffer, Result};
use rayon::prelude::*;
use std::sync::Mutex;

/// The pinned host memory of one streamed MSM: two staging buffers for the raw points and the
/// conversion's status words.
pub(super) struct Pinned {
    stage: [PinnedBuffer<u8>; 2],
    status: PinnedBuffer<u32>,
}

/// Pinned staging kept from one streamed MSM to the next (2 x 256 MiB once a section streams),
/// held by [`super::Msm`]: page-locking and zeroing it anew took ~300 ms per MSM, five to seven
/// times a partition when every section streams (H100, 32GiB under a 24 GiB cap).
#[derive(Default)]
pub(super) struct PinnedCache(Mutex<Option<Pinned>>);

impl PinnedCache {
    /// The kept buffers when they hold `stage` bytes and `status` words, else new ones.
    fn take(&self, gpu: &Gpu, stage: usize, status: usize) -> Result<Pinned> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        match kept {
            Some(p) if p.stage[0].len() >= stage && p.status.len() >= status => Ok(p),
            _ => Ok(Pinned {
                stage: [PinnedBuffer::new(&gpu.ctx, stage)?, PinnedBuffer::new(&gpu.ctx, stage)?],
                status: PinnedBuffer::new(&gpu.ctx, status)?,
            }),
        }
    }

    pub fn put(&self, p: Pinned) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
    }
}

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
    pinned: Pinned,
    raw: DeviceBuffer<u8>,
    pts: DeviceBuffer<u32>,
    status: DeviceBuffer<u32>,
    _g: std::marker::PhantomData<G>,
}

impl<'a, G: Group> Source<'a, G> {
    pub fn new(
        gpu: &'a Gpu,
        srs: &'a SrsKernels,
        pinned: &PinnedCache,
        points: MsmPoints<'a>,
        n: usize,
        chunk: usize,
    ) -> Result<Self> {
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
                    pinned: pinned.take(gpu, stage, chunk.min(n))?,
                    raw: gpu.alloc(stage)?,
                    pts: gpu.alloc(chunk.min(n) * 2 * G::W)?,
                    status: gpu.alloc(chunk.min(n))?,
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
            let dst = h.pinned.stage[k % 2].host_mut(..len * G::SER)?;
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
            h.raw.upload(0, &h.pinned.stage[k % 2], 0..len * G::SER)?;
            let c = converter::<G>(h.srs)?;
            let block = c.kernel().max_threads_per_block()?.clamp(32, 256) as u32;
            let args = SrsConvertArgs { out: h.pts.view(), in0: h.raw.view(), status: h.status.view(), n: len as u32 };
            c.launch(&h.gpu.stream, blocks_for(len, block), block, &args)?;
            h.status.download(&h.gpu.stream, 0, &mut h.pinned.status, 0, len)?;
        }
        Ok(())
    }

    /// The pinned staging of a streamed source, for the next MSM.
    pub fn into_pinned(self) -> Option<Pinned> {
        match self {
            Source::Host(h) => Some(h.pinned),
            Source::Device { .. } => None,
        }
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
            let status = h.pinned.status.host(..len)?;
            if let Some(i) = status.iter().position(|&x| x != 0) {
                let why = status_reason(status[i]);
                return Err(GpuError::Invalid(format!("{} point {} of the section is invalid: {why}", G::NAME, s + i)));
            }
        }
        Ok(())
    }
}
