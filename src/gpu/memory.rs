//! Device and host memory of the driver layer: stream-ordered device buffers
//! ([`DeviceBuffer`]) and the slices of them that kernels take ([`DeviceSlice`]), and
//! page-locked host buffers ([`PinnedBuffer`]) for asynchronous copies: allocated by the driver,
//! or host memory of our own registered with it (a read-only mapping of a file, or anonymous
//! memory filled once). Each owns its allocation and frees it on drop.
//!
//! Two rules make every operation here safe to call:
//! - A device buffer is freed in stream order on its own stream, after the work of every other
//!   stream that used it: a launch or copy on another stream records that stream in the
//!   buffer, and the drop makes its own stream wait for each of them first.
//! - An asynchronous copy to or from a pinned buffer records an event for the range it
//!   touches; the host reaches that range only through [`PinnedBuffer::host`] and
//!   [`PinnedBuffer::host_mut`], which wait for the copies in flight on it first, and the drop
//!   waits for all of them.
use cudarc::driver::sys;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ops::{Bound, Range, RangeBounds};
use std::sync::{Arc, Mutex};

use super::driver::{check, Arg, Context, Event, GpuError, Result, Stream};

/// Marker for plain-old-data element types that may be copied to and from
/// the device byte for byte.
///
/// # Safety
/// Implementors must have no padding, no pointers and accept any bit pattern.
pub unsafe trait Pod: Copy + Send + Sync + 'static {}
// SAFETY: integers: no padding, every bit pattern valid.
unsafe impl Pod for u8 {}
// SAFETY: as above.
unsafe impl Pod for u32 {}
// SAFETY: as above.
unsafe impl Pod for u64 {}
// SAFETY: four u64 limbs (`repr(transparent)` over blst_fr), no padding or pointers; a bit pattern
// that is not a reduced field element is still plain data (the buffers that hold scalars are
// zero-filled or written by the host or the kernels before anything reads them as field elements).
unsafe impl Pod for blstrs::Scalar {}

/// Device memory from the stream-ordered allocator (`cuMemAllocAsync`),
/// freed on drop with `cuMemFreeAsync` on the same stream, after the other streams that used it.
pub struct DeviceBuffer<T: Pod> {
    ptr: sys::CUdeviceptr,
    len: usize,
    stream: Arc<Stream>,
    /// Streams other than `stream` that launched or copied with this buffer.
    others: Mutex<Vec<Arc<Stream>>>,
    _t: PhantomData<T>,
}

/// Elements `offset..offset + len` of a device buffer, borrowed: what the kernel launchers take.
pub struct DeviceSlice<'a, T: Pod> {
    buf: &'a DeviceBuffer<T>,
    offset: usize,
    len: usize,
}

impl<T: Pod> Clone for DeviceSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Pod> Copy for DeviceSlice<'_, T> {}

impl<T: Pod> DeviceSlice<'_, T> {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device address of the first element.
    pub fn address(&self) -> u64 {
        self.buf.ptr + (self.offset * std::mem::size_of::<T>()) as u64
    }
    /// The kernel argument (the address), noting that `stream` uses the buffer.
    pub fn arg(&self, stream: &Arc<Stream>) -> Arg {
        self.buf.used_on(stream);
        Arg::U64(self.address())
    }
}

impl Arg {
    /// A null pointer for None (a buffer the kernel does not read with these arguments).
    pub fn optional<T: Pod>(s: &Option<DeviceSlice<'_, T>>, stream: &Arc<Stream>) -> Arg {
        s.as_ref().map_or(Arg::U64(0), |s| s.arg(stream))
    }
}

/// `range` of a container of `len` elements, checked.
fn bounds(range: impl RangeBounds<usize>, len: usize) -> Result<Range<usize>> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s + 1,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e + 1,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(GpuError::Invalid(format!("range {start}..{end} of {len} elements")));
    }
    Ok(start..end)
}

impl<T: Pod> DeviceBuffer<T> {
    /// Allocates `len` elements in stream order; contents are undefined until
    /// written.
    pub fn alloc(stream: &Arc<Stream>, len: usize) -> Result<Self> {
        stream.ctx.bind()?;
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| GpuError::Invalid(format!("{len} elements overflow")))?
            .max(1);
        stream.ctx.ledger.reserve(bytes as u64)?;
        let mut ptr = 0;
        // SAFETY: valid out-pointer and stream.
        if let Err(e) = check(unsafe { sys::cuMemAllocAsync(&mut ptr, bytes, stream.s) }, "cuMemAllocAsync") {
            stream.ctx.ledger.release(bytes as u64);
            return Err(e);
        }
        Ok(DeviceBuffer { ptr, len, stream: stream.clone(), others: Mutex::new(Vec::new()), _t: PhantomData })
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// The whole buffer as a slice.
    pub fn view(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { buf: self, offset: 0, len: self.len }
    }

    /// Elements `range` as a slice.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        let r = bounds(range, self.len)?;
        Ok(DeviceSlice { buf: self, offset: r.start, len: r.len() })
    }

    /// The stream this buffer is ordered on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// Notes that `stream` has work with this buffer, so that the free waits for it.
    fn used_on(&self, stream: &Arc<Stream>) {
        if Arc::ptr_eq(stream, &self.stream) {
            return;
        }
        let mut others = self.others.lock().unwrap_or_else(|e| e.into_inner());
        if !others.iter().any(|s| Arc::ptr_eq(s, stream)) {
            others.push(stream.clone());
        }
    }

    fn byte_range(&self, offset: usize, len: usize, what: &str) -> Result<(u64, usize)> {
        if offset.checked_add(len).is_none_or(|end| end > self.len) {
            return Err(GpuError::Invalid(format!("{what} of {len} elements at {offset} in a buffer of {}", self.len)));
        }
        let size = std::mem::size_of::<T>();
        Ok((self.ptr + (offset * size) as u64, len * size))
    }

    /// Stream-ordered copy of `len` elements from `src[src_offset..]` to `self[offset..]`.
    pub fn copy_from_device(
        &mut self,
        offset: usize,
        src: &DeviceBuffer<T>,
        src_offset: usize,
        len: usize,
    ) -> Result<()> {
        let (dst, bytes) = self.byte_range(offset, len, "device copy")?;
        let (from, _) = src.byte_range(src_offset, len, "device copy")?;
        src.used_on(&self.stream);
        self.stream.ctx.bind()?;
        // SAFETY: both ranges are inside live allocations (checked above); stream-ordered, and
        // `src` now waits for this stream before its free.
        check(unsafe { sys::cuMemcpyDtoDAsync_v2(dst, from, bytes, self.stream.s) }, "cuMemcpyDtoDAsync")
    }

    /// Fills every byte with `v` (stream-ordered). Used to poison outputs.
    pub fn fill_bytes(&mut self, v: u8) -> Result<()> {
        self.fill_bytes_at(0, self.len, v)
    }

    /// Fills elements `offset..offset + len` with bytes `v` (stream-ordered).
    pub fn fill_bytes_at(&mut self, offset: usize, len: usize, v: u8) -> Result<()> {
        let (dst, bytes) = self.byte_range(offset, len, "fill")?;
        self.stream.ctx.bind()?;
        // SAFETY: the range is inside our allocation (checked above).
        check(unsafe { sys::cuMemsetD8Async(dst, v, bytes, self.stream.s) }, "cuMemsetD8Async")
    }

    /// Copies `src` into the buffer's first `src.len()` elements and waits for the copy (any
    /// host memory: the copy is complete when this returns).
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        let (dst, bytes) = self.byte_range(0, src.len(), "copy")?;
        self.stream.ctx.bind()?;
        // SAFETY: the device range is inside our allocation; `src` is borrowed until the stream
        // has passed the copy (synchronized below).
        check(
            unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src.as_ptr() as *const c_void, bytes, self.stream.s) },
            "cuMemcpyHtoDAsync",
        )?;
        self.stream.synchronize()
    }

    /// Copies the buffer's first `dst.len()` elements into `dst` and waits for the copy.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        self.copy_to_host_at(0, dst)
    }

    /// Copies elements `offset..offset + dst.len()` into `dst` and waits for the copy.
    pub fn copy_to_host_at(&self, offset: usize, dst: &mut [T]) -> Result<()> {
        let (from, bytes) = self.byte_range(offset, dst.len(), "copy")?;
        self.stream.ctx.bind()?;
        // SAFETY: the device range is inside our allocation; `dst` is borrowed mutably until the
        // stream has passed the copy (synchronized below).
        check(
            unsafe { sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr() as *mut c_void, from, bytes, self.stream.s) },
            "cuMemcpyDtoHAsync",
        )?;
        self.stream.synchronize()
    }

    /// Stream-ordered copy of `src[range]` (pinned; elements of any plain type, a whole number
    /// of this buffer's elements in bytes) into this buffer from element `at` on. The host
    /// cannot write that range of `src` until the copy is done ([`PinnedBuffer::host_mut`]
    /// waits for it).
    pub fn upload<U: Pod>(&mut self, at: usize, src: &PinnedBuffer<U>, range: Range<usize>) -> Result<()> {
        let r = bounds(range, src.len)?;
        let src_bytes = r.len() * std::mem::size_of::<U>();
        if !src_bytes.is_multiple_of(std::mem::size_of::<T>()) {
            return Err(GpuError::Invalid(format!(
                "upload of {src_bytes} bytes into elements of {}",
                std::mem::size_of::<T>()
            )));
        }
        let (dst, bytes) = self.byte_range(at, src_bytes / std::mem::size_of::<T>(), "upload")?;
        self.stream.ctx.bind()?;
        // SAFETY: the device range is inside our allocation; the host range is inside the pinned
        // allocation, which is neither written nor freed before the event recorded next has
        // completed (PinnedBuffer::host_mut and the drop wait for it).
        check(
            unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src.ptr.add(r.start) as *const c_void, bytes, self.stream.s) },
            "cuMemcpyHtoDAsync",
        )?;
        src.pending(r, &self.stream)
    }

    /// Copy of `len` elements from `offset` into `dst[at..]` (pinned), ordered on `stream`
    /// (this buffer's, or another one that is ordered after the buffer's writes). The host
    /// reads the range through [`PinnedBuffer::host`], which waits for the copy.
    pub fn download(
        &self,
        stream: &Arc<Stream>,
        offset: usize,
        dst: &mut PinnedBuffer<T>,
        at: usize,
        len: usize,
    ) -> Result<()> {
        let r = bounds(at..at.saturating_add(len), dst.len)?;
        let (from, bytes) = self.byte_range(offset, len, "download")?;
        self.used_on(stream);
        stream.ctx.bind()?;
        // SAFETY: the device range is inside our allocation, which waits for `stream` before its
        // free; the host range is inside the pinned allocation, borrowed mutably here and read or
        // freed only after the event recorded next has completed (host, host_mut, drop).
        check(
            unsafe { sys::cuMemcpyDtoHAsync_v2(dst.ptr.add(r.start) as *mut c_void, from, bytes, stream.s) },
            "cuMemcpyDtoHAsync",
        )?;
        dst.pending(r, stream)
    }
}

impl<T: Pod> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        let _ = self.stream.ctx.bind();
        let others = std::mem::take(self.others.get_mut().unwrap_or_else(|e| e.into_inner()));
        for s in others {
            // the free below is ordered after `s`'s work so far; without an event, wait for it
            let ordered = Event::untimed(&self.stream.ctx).and_then(|e| {
                e.record(&s)?;
                self.stream.wait(&e)
            });
            if ordered.is_err() {
                let _ = s.synchronize();
            }
        }
        // SAFETY: allocated by cuMemAllocAsync on this stream, which the Arc keeps; every other
        // stream that used the buffer is waited for above.
        unsafe {
            sys::cuMemFreeAsync(self.ptr, self.stream.s);
        }
        self.stream.ctx.ledger.release(self.bytes().max(1) as u64);
    }
}

/// Page-locked host memory for asynchronous copies ([`DeviceBuffer::upload`],
/// [`DeviceBuffer::download`]): from `cuMemHostAlloc` (portable), zero-filled, or registered
/// with `cuMemHostRegister` ([`PinnedBuffer::register_file`], [`PinnedBuffer::register_filled`]).
pub struct PinnedBuffer<T: Pod> {
    ptr: *mut T,
    len: usize,
    ctx: Arc<Context>,
    /// The copies in flight: the element range each touches and the event after it.
    copies: Mutex<Vec<(Range<usize>, Event)>>,
    backing: Backing,
}

/// Where a pinned buffer's memory comes from, and so how it is given back.
enum Backing {
    /// `cuMemHostAlloc`: freed with `cuMemFreeHost`.
    Driver,
    /// A mapping of ours (`_map`, a memmap2 map), page-locked from `base` (page aligned) with
    /// `cuMemHostRegister`: unregistered, then unmapped. `writable` is false for a read-only
    /// file mapping.
    Registered { base: *mut c_void, _map: Box<dyn std::any::Any + Send + Sync>, writable: bool },
}

// SAFETY: the buffer owns its allocation; the host reaches it only through &self / &mut self
// (host, host_mut), and the copy list is behind a mutex.
unsafe impl<T: Pod> Send for PinnedBuffer<T> {}
// SAFETY: as above.
unsafe impl<T: Pod> Sync for PinnedBuffer<T> {}

impl<T: Pod> PinnedBuffer<T> {
    pub fn new(ctx: &Arc<Context>, len: usize) -> Result<Self> {
        ctx.bind()?;
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| GpuError::Invalid(format!("{len} elements overflow")))?
            .max(1);
        let mut p = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        check(unsafe { sys::cuMemHostAlloc(&mut p, bytes, sys::CU_MEMHOSTALLOC_PORTABLE) }, "cuMemHostAlloc")?;
        // SAFETY: fresh allocation of `bytes` bytes; zero is a valid T (Pod).
        unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes) };
        Ok(PinnedBuffer {
            ptr: p as *mut T,
            len,
            ctx: ctx.clone(),
            copies: Mutex::new(Vec::new()),
            backing: Backing::Driver,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Records a copy touching `range`, just enqueued on `stream`, and forgets the copies already
    /// done (a buffer uploaded from again and again keeps no list of old events).
    fn pending(&self, range: Range<usize>, stream: &Stream) -> Result<()> {
        let e = Event::untimed(&self.ctx)?;
        let recorded = e.record(stream);
        let mut copies = self.copies.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(err) = recorded {
            // no event: the copy must be over before the host may touch the buffer again
            drop(copies);
            let _ = stream.synchronize();
            return Err(err);
        }
        copies.retain(|(_, e)| !matches!(e.done(), Ok(true)));
        copies.push((range, e));
        Ok(())
    }

    /// Waits for the copies in flight that touch `range`, and forgets those and any finished one.
    fn settle(&self, range: &Range<usize>) -> Result<()> {
        let mut copies = self.copies.lock().unwrap_or_else(|e| e.into_inner());
        let mut result = Ok(());
        let mut left = Vec::new();
        for (r, e) in copies.drain(..) {
            if r.start < range.end && range.start < r.end {
                if let Err(err) = e.synchronize() {
                    result = result.and(Err(err));
                    left.push((r, e));
                }
            } else if !matches!(e.done(), Ok(true)) {
                left.push((r, e));
            }
        }
        *copies = left;
        result
    }

    /// Elements `range`, once every copy into or out of them has completed.
    pub fn host(&self, range: impl RangeBounds<usize>) -> Result<&[T]> {
        let r = bounds(range, self.len)?;
        self.settle(&r)?;
        // SAFETY: in bounds, initialised (zero-filled at allocation), and no copy writes these
        // elements now: those in flight were waited for, and a new download needs &mut self.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.add(r.start), r.len()) })
    }

    /// Elements `range` for writing, once every copy into or out of them has completed.
    pub fn host_mut(&mut self, range: impl RangeBounds<usize>) -> Result<&mut [T]> {
        self.writable()?;
        let r = bounds(range, self.len)?;
        self.settle(&r)?;
        // SAFETY: in bounds and initialised; no copy reads or writes these elements now (those in
        // flight were waited for, new ones need a borrow of self), and we hold &mut self.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.len()) })
    }

    /// The first `len` elements of type U of the buffer for writing (a byte buffer filled as
    /// scalars, say), once every copy into or out of those bytes has completed.
    pub fn host_mut_as<U: Pod>(&mut self, len: usize) -> Result<&mut [U]> {
        let bytes = len
            .checked_mul(std::mem::size_of::<U>())
            .filter(|&b| b <= self.len * std::mem::size_of::<T>())
            .ok_or_else(|| GpuError::Invalid(format!("{len} elements past a pinned buffer of {}", self.len)))?;
        if !(self.ptr as usize).is_multiple_of(std::mem::align_of::<U>()) {
            return Err(GpuError::Invalid("pinned buffer not aligned for the element type".into()));
        }
        self.writable()?;
        let r = 0..bytes.div_ceil(std::mem::size_of::<T>());
        self.settle(&r)?;
        // SAFETY: in bounds and aligned (checked above; pinned memory is page aligned),
        // initialised, any bit pattern is a valid U (Pod), no copy touches these bytes now (waited
        // for above, new ones need a borrow of self), and we hold &mut self for the slice's life.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut U, len) })
    }
}

impl<T: Pod> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        let copies = std::mem::take(self.copies.get_mut().unwrap_or_else(|e| e.into_inner()));
        for (_, e) in &copies {
            if e.synchronize().is_err() {
                let _ = self.ctx.synchronize();
            }
        }
        let _ = self.ctx.bind();
        match &self.backing {
            // SAFETY: allocated by cuMemHostAlloc; no copy is in flight (waited for above).
            Backing::Driver => unsafe {
                sys::cuMemFreeHost(self.ptr as *mut c_void);
            },
            // SAFETY: registered at `base` by the constructor; no copy is in flight. The mapping
            // is unmapped after this, when the field drops.
            Backing::Registered { base, .. } => unsafe {
                sys::cuMemHostUnregister(*base);
            },
        }
    }
}

impl<T: Pod> PinnedBuffer<T> {
    /// An error for host writes into a read-only registration.
    fn writable(&self) -> Result<()> {
        match self.backing {
            Backing::Registered { writable: false, .. } => {
                Err(GpuError::Invalid("a read-only file mapping cannot be written".into()))
            }
            _ => Ok(()),
        }
    }
}

/// Bytes of a page (registrations start and end on page boundaries).
const PAGE: usize = 4096;

impl PinnedBuffer<u8> {
    /// Bytes `offset..offset + len` of `file`, mapped read-only and page-locked in place
    /// (`CU_MEMHOSTREGISTER_READ_ONLY`): the copy engine reads the file's page-cache pages with
    /// no copy into other memory. They stay in memory while the buffer lives. Fails where the
    /// driver or the kernel cannot lock file pages; [`PinnedBuffer::register_filled`] can.
    pub fn register_file(ctx: &Arc<Context>, file: &std::fs::File, offset: u64, len: usize) -> Result<Self> {
        // SAFETY: a read-only shared mapping; the bytes are only read (by the device, and by the
        // host through `host`), and the parameter files are not written while a prover reads them.
        let map = unsafe { memmap2::MmapOptions::new().offset(offset).len(len.max(1)).map(file) }
            .map_err(|e| GpuError::Invalid(format!("cannot map {len} bytes at {offset}: {e}")))?;
        let ptr = map.as_ptr() as *mut u8;
        Self::register(ctx, ptr, len, Box::new(map), false, sys::CU_MEMHOSTREGISTER_READ_ONLY)
    }

    /// `len` bytes of anonymous memory (huge pages where the kernel gives them) written by
    /// `fill(offset, dst)` on many threads at once for disjoint 4 MiB ranges, then page-locked.
    pub fn register_filled(
        ctx: &Arc<Context>,
        len: usize,
        fill: impl Fn(usize, &mut [u8]) -> std::result::Result<(), String> + Sync,
    ) -> Result<Self> {
        use rayon::prelude::*;
        let mut map = memmap2::MmapMut::map_anon(len.max(1))
            .map_err(|e| GpuError::Invalid(format!("cannot map {len} bytes of host memory: {e}")))?;
        crate::hostmem::advise_huge(map.as_mut_ptr(), len);
        super::staging::staging_pool()
            .install(|| map[..len].par_chunks_mut(4 << 20).enumerate().try_for_each(|(i, d)| fill(i * (4 << 20), d)))
            .map_err(GpuError::Invalid)?;
        let ptr = map.as_mut_ptr();
        Self::register(ctx, ptr, len, Box::new(map), true, 0)
    }

    fn register(
        ctx: &Arc<Context>,
        ptr: *mut u8,
        len: usize,
        map: Box<dyn std::any::Any + Send + Sync>,
        writable: bool,
        flags: u32,
    ) -> Result<Self> {
        ctx.bind()?;
        // The whole pages under the bytes: both mappings start on a page and cover whole pages.
        let base = (ptr as usize / PAGE * PAGE) as *mut c_void;
        let end = (ptr as usize + len.max(1)).div_ceil(PAGE) * PAGE;
        // SAFETY: [base, end) lies in `map`, which the buffer owns and unmaps only after
        // unregistering it (Drop).
        check(
            unsafe { sys::cuMemHostRegister_v2(base, end - base as usize, sys::CU_MEMHOSTREGISTER_PORTABLE | flags) },
            "cuMemHostRegister",
        )?;
        let backing = Backing::Registered { base, _map: map, writable };
        Ok(PinnedBuffer { ptr, len, ctx: ctx.clone(), copies: Mutex::new(Vec::new()), backing })
    }
}
