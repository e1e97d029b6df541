//! The points of one MSM, chunk by chunk: a view of converted points on the device, or raw
//! .params bytes fed from host memory ([`crate::gpu::feed`]: staged by a thread of their own
//! unless they are page-locked, uploaded on a copy stream, converted on the device) into one
//! chunk buffer.
use crate::gpu::feed::{Feed, FeedFrom, Pinned};
use crate::gpu::layout::Group;
use crate::gpu::{DeviceBuffer, DeviceSlice, Gpu, GpuError, PinnedBuffer, Result};
use crate::srs::RawPoints;
use std::sync::Mutex;

/// Pinned staging kept from one streamed MSM to the next (2 x 256 MiB once a section streams),
/// held by [`super::Msm`].
#[derive(Default)]
pub(super) struct PinnedCache(Mutex<Option<Pinned>>);

impl PinnedCache {
    /// The kept staging when it holds chunks of `chunk` points of group G, else a new one.
    pub fn take<G: Group>(&self, gpu: &Gpu, chunk: usize) -> Result<Pinned> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        Pinned::reuse::<G>(kept, gpu, chunk)
    }

    pub fn put(&self, p: Pinned) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
    }
}

pub(super) enum Source<'f, 'a, G: Group> {
    Device { buf: &'a DeviceBuffer<u32>, first: usize },
    Host { feed: &'f mut Feed<'a, G>, pts: DeviceBuffer<u32> },
}

/// Points first..first+n of a converted section, checked against the buffer's length.
pub(super) fn device_points<'f, 'a, G: Group>(
    buf: &'a DeviceBuffer<u32>,
    first: usize,
    n: usize,
) -> Result<Source<'f, 'a, G>> {
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

/// The first n raw points, checked against their length.
pub(super) fn host_points<G: Group>(raw: RawPoints<'_>, n: usize) -> Result<RawPoints<'_>> {
    if raw.len() < n * G::SER {
        return Err(GpuError::Invalid(format!(
            "{n} {} points asked of {} bytes ({} points)",
            G::NAME,
            raw.len(),
            raw.len() / G::SER
        )));
    }
    Ok(raw.slice(0..n * G::SER))
}

/// Points first..first+n of a section's raw bytes in page-locked memory, checked against its length.
pub(super) fn pinned_points<G: Group>(bytes: &PinnedBuffer<u8>, first: usize, n: usize) -> Result<FeedFrom<'_>> {
    if bytes.len() < (first + n) * G::SER {
        return Err(GpuError::Invalid(format!(
            "{} points {first}..{} asked of {} pinned bytes ({} points)",
            G::NAME,
            first + n,
            bytes.len(),
            bytes.len() / G::SER
        )));
    }
    Ok(FeedFrom::Pinned(bytes, first * G::SER..(first + n) * G::SER))
}

impl<G: Group> Source<'_, '_, G> {
    /// Host: waits for chunk k's staging and enqueues its upload (copy stream).
    pub fn upload(&mut self, k: usize) -> Result<()> {
        match self {
            Source::Host { feed, .. } => feed.upload(k),
            Source::Device { .. } => Ok(()),
        }
    }

    /// Host: enqueues chunk k's conversion into the chunk buffer, after its upload.
    pub fn convert(&mut self, k: usize) -> Result<()> {
        match self {
            Source::Host { feed, pts } => feed.convert(k, pts.view()),
            Source::Device { .. } => Ok(()),
        }
    }

    /// The chunk's converted points (points s..s+len of the MSM).
    pub fn points(&self, s: usize, len: usize) -> Result<DeviceSlice<'_, u32>> {
        match self {
            Source::Device { buf, first } => buf.slice((first + s) * 2 * G::W..(first + s + len) * 2 * G::W),
            Source::Host { pts, .. } => pts.slice(..len * 2 * G::W),
        }
    }

    /// Host: the conversion's status words of the chunk last converted (waits for their
    /// download): a bad point is an error naming its index in the section.
    pub fn check(&self) -> Result<()> {
        match self {
            Source::Host { feed, .. } => feed.check(),
            Source::Device { .. } => Ok(()),
        }
    }
}
