//! Host-to-device uploads of large vectors through two pinned staging buffers: the cores fill
//! one buffer in parallel (from a slice, or from any source that can write a range of its
//! elements, such as a query's scalars gathered by density) while the copy engine moves the
//! other. A pageable copy of the same vector runs at the pace of the driver's one-thread
//! staging copy; a 32GiB partition uploads ~25 GB (a, b, c, aux and the two query vectors).
//! The fills run on a pool of their own: the global rayon pool is busy with other partitions'
//! synthesis (tasks of seconds), behind which a fill would wait while the GPU idles.
use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;

use super::{DeviceBuffer, Gpu, PinnedBuffer, Pod, Result};

/// Bytes per staging buffer.
const STAGE_BYTES: usize = 64 << 20;
/// Bytes each parallel fill task writes.
const TASK_BYTES: usize = 1 << 20;

/// Threads of the staging pool: enough to outrun the copy engine (~50 GB/s over PCIe 5).
const STAGING_THREADS: usize = 8;

/// The pool that fills staging buffers (also the streamed points' staging, `msm::source`).
pub fn staging_pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads(STAGING_THREADS.min(cores))
            .thread_name(|i| format!("filsnark-staging-{i}"))
            .build()
            .expect("the staging thread pool")
    })
}

/// The two pinned buffers of [`Gpu::upload_into`] (each waits for its last copy before the
/// cores write it again).
pub struct UploadStaging {
    bufs: [PinnedBuffer<u8>; 2],
}

/// A device's upload staging, made on first use (128 MiB of pinned memory) and kept.
#[derive(Default)]
pub struct UploadStagingSlot(Mutex<Option<UploadStaging>>);

impl Gpu {
    /// A device buffer of `n` elements written by `fill(first, dst)`, which must write elements
    /// `first..first + dst.len()` into `dst`; it is called on many threads at once for disjoint
    /// ranges. The copies are stream-ordered: kernels launched afterwards on the stream see the
    /// data, and `fill`'s source is no longer read when this returns.
    pub fn upload_with<T: Pod>(&self, n: usize, fill: impl Fn(usize, &mut [T]) + Sync) -> Result<DeviceBuffer<T>> {
        let mut buf = self.alloc(n)?;
        self.upload_into(&mut buf, 0, n, fill)?;
        Ok(buf)
    }

    /// As [`Gpu::upload_with`] into elements `at..at + n` of an existing buffer.
    pub fn upload_into<T: Pod>(
        &self,
        dst: &mut DeviceBuffer<T>,
        at: usize,
        n: usize,
        fill: impl Fn(usize, &mut [T]) + Sync,
    ) -> Result<()> {
        let mut slot = self.staging.0.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(UploadStaging {
                bufs: [PinnedBuffer::new(&self.ctx, STAGE_BYTES)?, PinnedBuffer::new(&self.ctx, STAGE_BYTES)?],
            });
        }
        let st = slot.as_mut().expect("made above");
        let size = std::mem::size_of::<T>().max(1);
        let (chunk, task) = ((STAGE_BYTES / size).max(1), (TASK_BYTES / size).max(1));
        for (k, first) in (0..n).step_by(chunk).enumerate() {
            let len = chunk.min(n - first);
            let buf = &mut st.bufs[k % 2];
            // waits for this buffer's previous copy before the cores overwrite it
            let stage = buf.host_mut_as::<T>(len)?;
            staging_pool()
                .install(|| stage.par_chunks_mut(task).enumerate().for_each(|(i, d)| fill(first + i * task, d)));
            dst.upload(at + first, buf, 0..len * std::mem::size_of::<T>())?;
        }
        Ok(())
    }

    /// Allocates a device buffer holding a copy of `src` (staged, see [`Gpu::upload_with`]).
    pub fn upload<T: Pod>(&self, src: &[T]) -> Result<DeviceBuffer<T>> {
        let mut buf = self.alloc(src.len())?;
        self.upload_slice_into(&mut buf, 0, src)?;
        Ok(buf)
    }

    /// Copies `src` into elements `at..at + src.len()` of `dst` (staged).
    pub fn upload_slice_into<T: Pod>(&self, dst: &mut DeviceBuffer<T>, at: usize, src: &[T]) -> Result<()> {
        self.upload_into(dst, at, src.len(), |first, d: &mut [T]| d.copy_from_slice(&src[first..first + d.len()]))
    }
}
