//! Raw `.params` points from host memory to converted points on the device, chunk after chunk,
//! with the engines busy at once. From pageable memory (the file, [`RawPoints`]) a staging thread
//! copies chunk k+2 into one of two pinned buffers while the copy engine uploads chunk k+1 (its
//! own stream) and the SMs convert chunk k and run whatever the caller enqueues after it (the
//! MSM's sort and accumulation). From page-locked memory ([`super::host_pin`]) the copy engine
//! uploads each chunk straight from it. A gathered feed ([`FeedFrom::Gathered`]) stages only the
//! points a list names, in its order: a batch addition that needs half of a section's points
//! moves half of its bytes over the bus. Used by the streamed MSM ([`super::msm`]) and by
//! residency ([`super::srs::ResidentSrs`]).
//!
//! Order of the work, per chunk k (buffers k % 2):
//! - staging thread (pageable source only): waits for pinned[k % 2]'s last upload, copies the
//!   chunk's bytes into it;
//! - [`Feed::upload`]: the copy stream waits until the compute stream has converted
//!   raw[k % 2]'s last chunk (k − 2), uploads the chunk → raw, records `uploaded`;
//! - [`Feed::convert`]: the compute stream waits for `uploaded`, converts raw → the caller's
//!   points, records `converted`, downloads the status words; [`Feed::check`] reads them.
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::convert::{converter, status_reason};
use super::kernels::{blocks_for, SrsConvert, SrsConvertArgs, SrsKernels};
use super::layout::Group;
use super::staging::staging_pool;
use super::{DeviceBuffer, DeviceSlice, Event, Gpu, GpuError, PinnedBuffer, Result, Stream};
use crate::srs::RawPoints;

/// Bytes each task of the staging copy moves.
const TASK_BYTES: usize = 1 << 20;

/// The pinned staging of one feed: two buffers of raw bytes and the status words of a chunk.
/// Kept by the caller from one feed to the next: page-locking and zeroing 2 × 256 MiB anew took
/// ~300 ms (H100, 32GiB under a 24 GiB cap, five to seven streamed MSMs a partition).
pub struct Pinned {
    stage: Vec<PinnedBuffer<u8>>,
    status: PinnedBuffer<u32>,
}

impl Pinned {
    /// Staging for chunks of `chunk` points of group G.
    pub fn new<G: Group>(gpu: &Gpu, chunk: usize) -> Result<Pinned> {
        let bytes = chunk * G::SER;
        Ok(Pinned {
            stage: vec![PinnedBuffer::new(&gpu.ctx, bytes)?, PinnedBuffer::new(&gpu.ctx, bytes)?],
            status: PinnedBuffer::new(&gpu.ctx, chunk)?,
        })
    }

    /// `kept` when it holds chunks of `chunk` points of group G, else new staging (the kept one's
    /// page-locked memory is freed before the new one is locked).
    pub fn reuse<G: Group>(kept: Option<Pinned>, gpu: &Gpu, chunk: usize) -> Result<Pinned> {
        match kept {
            Some(p) if p.fits::<G>(chunk) => Ok(p),
            kept => {
                drop(kept);
                Pinned::new::<G>(gpu, chunk)
            }
        }
    }

    /// Whether this staging holds chunks of `chunk` points of group G.
    pub fn fits<G: Group>(&self, chunk: usize) -> bool {
        self.stage.len() == 2 && self.stage.iter().all(|b| b.len() >= chunk * G::SER) && self.status.len() >= chunk
    }
}

/// Host-side seconds of a feed: the staging thread's copies and the time the caller waited for
/// them (the part of the copies that did not hide behind the device's work).
#[derive(Clone, Copy, Debug, Default)]
pub struct FeedStats {
    pub fill_s: f64,
    pub wait_s: f64,
    pub bytes: usize,
}

/// A chunk the staging thread has copied.
struct Filled {
    k: usize,
    buf: PinnedBuffer<u8>,
    secs: f64,
}

/// Where a feed's raw points are.
#[derive(Clone)]
pub enum FeedFrom<'a> {
    /// Pageable memory or the file: each chunk is copied into pinned staging first.
    Copied(RawPoints<'a>),
    /// The points `positions` of a section's raw bytes (any host memory), in that order: each
    /// chunk's points are gathered into pinned staging first.
    Gathered { bytes: &'a [u8], positions: &'a [u32] },
    /// Bytes `range` of page-locked memory: each chunk is uploaded straight from it.
    Pinned(&'a PinnedBuffer<u8>, std::ops::Range<usize>),
}

impl FeedFrom<'_> {
    /// Number of points of `ser` bytes.
    fn points(&self, ser: usize) -> usize {
        match self {
            FeedFrom::Copied(raw) => raw.len() / ser,
            FeedFrom::Gathered { positions, .. } => positions.len(),
            FeedFrom::Pinned(_, r) => r.len() / ser,
        }
    }
}

/// What the staging thread copies from.
#[derive(Clone, Copy)]
enum Fill<'a> {
    /// Consecutive bytes.
    Range(RawPoints<'a>),
    /// The points `positions` of `bytes`.
    Gather { bytes: &'a [u8], positions: &'a [u32] },
}

/// How chunks reach the copy engine.
enum Upload<'a> {
    /// From the staging thread's pinned buffers.
    Staged { filled: Receiver<Result<Filled>>, empty: Sender<PinnedBuffer<u8>> },
    /// Straight from page-locked memory, the feed's points starting at byte `at`.
    Direct { src: &'a PinnedBuffer<u8>, at: usize },
}

/// The device side of a feed (see the module documentation); made by [`with_feed`].
pub struct Feed<'a, G: Group> {
    gpu: &'a Gpu,
    conv: &'a SrsConvert,
    n: usize,
    chunk: usize,
    copy: Arc<Stream>,
    raw: [DeviceBuffer<u8>; 2],
    uploaded: [Event; 2],
    converted: [Event; 2],
    status: DeviceBuffer<u32>,
    status_host: PinnedBuffer<u32>,
    from: Upload<'a>,
    /// Staging buffers no later chunk needs (returned with the status buffer at the end).
    kept: Vec<PinnedBuffer<u8>>,
    /// Length of the chunk last converted (for `check`).
    last: (usize, usize),
    /// A gathered feed's section positions (for `check` to name a bad point by them).
    positions: Option<&'a [u32]>,
    pub stats: FeedStats,
    _g: std::marker::PhantomData<G>,
}

/// Runs `f` with a feed of the points of `from`, `chunk` points at a time. Points copied or
/// gathered from host memory go through `staging` ([`Pinned::fits`] the chunk); page-locked
/// ones need none (`staging` comes back untouched). Returns f's result, the staging
/// when every buffer came back (for the next feed), and the feed's host-side seconds.
pub fn with_feed<G: Group, R>(
    gpu: &Gpu,
    srs: &SrsKernels,
    staging: Option<Pinned>,
    from: FeedFrom<'_>,
    chunk: usize,
    f: impl FnOnce(&mut Feed<'_, G>) -> Result<R>,
) -> Result<(R, Option<Pinned>, FeedStats)> {
    let n = from.points(G::SER);
    if chunk == 0 {
        return Err(GpuError::Invalid("a feed of empty chunks".into()));
    }
    let (fill, positions) = match from {
        FeedFrom::Pinned(src, range) => {
            let status_host = PinnedBuffer::new(&gpu.ctx, chunk)?;
            let mut feed = Feed::<G>::new(gpu, srs, n, chunk, Upload::Direct { src, at: range.start }, status_host)?;
            let r = f(&mut feed)?;
            return Ok((r, staging, feed.stats));
        }
        FeedFrom::Copied(points) => (Fill::Range(points), None),
        FeedFrom::Gathered { bytes, positions } => (Fill::Gather { bytes, positions }, Some(positions)),
    };
    let pinned = staging
        .filter(|p| p.fits::<G>(chunk))
        .ok_or_else(|| GpuError::Invalid(format!("a feed of {chunk}-point chunks given smaller staging")))?;
    let chunks = n.div_ceil(chunk);
    let Pinned { stage, status: status_host } = pinned;
    let (empty_tx, empty_rx) = channel::<PinnedBuffer<u8>>();
    let (filled_tx, filled_rx) = sync_channel::<Result<Filled>>(2);
    let mut kept = Vec::new();
    for (i, b) in stage.into_iter().enumerate() {
        if i < chunks {
            empty_tx.send(b).expect("the receiver is alive");
        } else {
            kept.push(b);
        }
    }
    let ctx = gpu.ctx.clone();
    std::thread::scope(|scope| {
        scope.spawn(move || fill_chunks(&ctx, fill, G::SER, chunk, n, empty_rx, filled_tx));
        let from = Upload::Staged { filled: filled_rx, empty: empty_tx };
        let mut feed = Feed::<G>::new(gpu, srs, n, chunk, from, status_host)?;
        feed.kept = kept;
        feed.positions = positions;
        let r = f(&mut feed)?;
        // Dropping the feed closes both channels: the staging thread stops at its next step.
        let Feed { kept, status_host, stats, .. } = feed;
        let pinned = (kept.len() == 2).then_some(Pinned { stage: kept, status: status_host });
        Ok((r, pinned, stats))
    })
}

/// The staging thread: chunk after chunk, takes an empty pinned buffer (its last upload done),
/// copies the chunk's bytes into it on the staging pool (1 MiB per task, read from the file or
/// memory, or gathered point by point) and hands it over. Stops when either channel closes (the
/// feed finished or failed).
fn fill_chunks(
    ctx: &crate::gpu::Context,
    fill: Fill<'_>,
    ser: usize,
    chunk: usize,
    n: usize,
    empty: Receiver<PinnedBuffer<u8>>,
    filled: SyncSender<Result<Filled>>,
) {
    if let Err(e) = ctx.bind() {
        let _ = filled.send(Err(e));
        return;
    }
    for k in 0..n.div_ceil(chunk) {
        let Ok(mut buf) = empty.recv() else { return };
        let (s, len) = (k * chunk, chunk.min(n - k * chunk));
        let clock = Instant::now();
        let msg = match buf.host_mut(..len * ser) {
            Ok(dst) => staging_pool()
                .install(|| match fill {
                    Fill::Range(raw) => {
                        let at = s * ser;
                        dst.par_chunks_mut(TASK_BYTES)
                            .enumerate()
                            .try_for_each(|(i, d)| raw.copy_to(at + i * TASK_BYTES, d))
                    }
                    Fill::Gather { bytes, positions } => {
                        let per_task = (TASK_BYTES / ser).max(1);
                        dst.par_chunks_mut(per_task * ser)
                            .zip(positions[s..s + len].par_chunks(per_task))
                            .try_for_each(|(d, pos)| gather_points(bytes, ser, pos, d))
                    }
                })
                .map_err(GpuError::Invalid)
                .map(|()| Filled { k, buf, secs: clock.elapsed().as_secs_f64() }),
            Err(e) => Err(e),
        };
        if filled.send(msg).is_err() {
            return;
        }
    }
}

/// Copies the points `positions` of `bytes` (`ser` bytes each) into `dst`, in order; a position
/// past the bytes is an error.
fn gather_points(bytes: &[u8], ser: usize, positions: &[u32], dst: &mut [u8]) -> std::result::Result<(), String> {
    for (d, &p) in dst.chunks_exact_mut(ser).zip(positions) {
        let at = p as usize * ser;
        let src = bytes
            .get(at..at + ser)
            .ok_or_else(|| format!("point {p} gathered from a section of {} points", bytes.len() / ser))?;
        d.copy_from_slice(src);
    }
    Ok(())
}

impl<'a, G: Group> Feed<'a, G> {
    fn new(
        gpu: &'a Gpu,
        srs: &'a SrsKernels,
        n: usize,
        chunk: usize,
        from: Upload<'a>,
        status_host: PinnedBuffer<u32>,
    ) -> Result<Self> {
        let copy = Stream::new(&gpu.ctx)?;
        let raw = [DeviceBuffer::alloc(&copy, chunk * G::SER)?, DeviceBuffer::alloc(&copy, chunk * G::SER)?];
        Ok(Feed {
            gpu,
            conv: converter::<G>(srs)?,
            n,
            chunk,
            copy,
            raw,
            uploaded: [Event::untimed(&gpu.ctx)?, Event::untimed(&gpu.ctx)?],
            converted: [Event::untimed(&gpu.ctx)?, Event::untimed(&gpu.ctx)?],
            status: gpu.alloc(chunk)?,
            status_host,
            from,
            kept: Vec::new(),
            last: (0, 0),
            positions: None,
            stats: FeedStats::default(),
            _g: std::marker::PhantomData,
        })
    }

    /// Number of chunks.
    pub fn chunks(&self) -> usize {
        self.n.div_ceil(self.chunk)
    }

    /// Points s..s+len of chunk k.
    fn range(&self, k: usize) -> (usize, usize) {
        let s = k * self.chunk;
        (s, self.chunk.min(self.n - s))
    }

    /// Enqueues chunk k's upload on the copy stream, after the conversion that last read the
    /// same device buffer: from page-locked memory at once, else once the staging thread has
    /// copied it.
    pub fn upload(&mut self, k: usize) -> Result<()> {
        let (s, len) = self.range(k);
        let i = k % 2;
        self.copy.wait(&self.converted[i])?;
        self.stats.bytes += len * G::SER;
        let filled = match &self.from {
            Upload::Direct { src, at } => {
                let from = at + s * G::SER;
                self.raw[i].upload(0, src, from..from + len * G::SER)?;
                return self.uploaded[i].record(&self.copy);
            }
            Upload::Staged { filled, .. } => {
                let clock = Instant::now();
                let filled = filled
                    .recv()
                    .map_err(|_| GpuError::Invalid("the staging thread stopped before the last chunk".into()))??;
                self.stats.wait_s += clock.elapsed().as_secs_f64();
                filled
            }
        };
        if filled.k != k {
            return Err(GpuError::Invalid(format!("staged chunk {} arrived for chunk {k}", filled.k)));
        }
        self.stats.fill_s += filled.secs;
        self.raw[i].upload(0, &filled.buf, 0..len * G::SER)?;
        self.uploaded[i].record(&self.copy)?;
        // The staging thread's next write into the buffer waits for this upload (host_mut).
        match &self.from {
            Upload::Staged { empty, .. } if k + 2 < self.chunks() => empty
                .send(filled.buf)
                .map_err(|_| GpuError::Invalid("the staging thread stopped before the last chunk".into())),
            _ => {
                self.kept.push(filled.buf);
                Ok(())
            }
        }
    }

    /// Enqueues on the compute stream, after chunk k's upload: its conversion into `out` (the
    /// chunk's points from its first) and the download of its status words.
    pub fn convert(&mut self, k: usize, out: DeviceSlice<'_, u32>) -> Result<()> {
        let (s, len) = self.range(k);
        let i = k % 2;
        let stream = &self.gpu.stream;
        stream.wait(&self.uploaded[i])?;
        let block = self.conv.kernel().max_threads_per_block()?.clamp(32, 256) as u32;
        let args = SrsConvertArgs { out, in0: self.raw[i].view(), status: self.status.view(), n: len as u32 };
        self.conv.launch(stream, blocks_for(len, block), block, &args)?;
        self.converted[i].record(stream)?;
        self.status.download(stream, 0, &mut self.status_host, 0, len)?;
        self.last = (s, len);
        Ok(())
    }

    /// Waits for the status words of the chunk last converted: a bad point is an error naming
    /// its index among the feed's points (in the section, for a gathered feed).
    pub fn check(&self) -> Result<()> {
        let (s, len) = self.last;
        let status = self.status_host.host(..len)?;
        match status.iter().position(|&x| x != 0) {
            Some(i) => {
                let at = self.positions.map_or(s + i, |p| p[s + i] as usize);
                Err(GpuError::Invalid(format!("{} point {at} is invalid: {}", G::NAME, status_reason(status[i]))))
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::gather_points;

    #[test]
    fn a_gather_copies_whole_points_in_order_and_refuses_one_past_the_end() {
        let raw: Vec<u8> = (0..96 * 10).map(|b| b as u8).collect();
        let mut got = vec![0u8; 4 * 96];
        gather_points(&raw, 96, &[7, 0, 7, 9], &mut got).unwrap();
        let want: Vec<u8> = [7usize, 0, 7, 9].iter().flat_map(|&p| raw[p * 96..p * 96 + 96].to_vec()).collect();
        assert_eq!(got, want);
        let e = gather_points(&raw, 96, &[3, 10], &mut got[..192]).unwrap_err();
        assert!(e.contains("point 10") && e.contains("10 points"), "{e}");
    }
}
