//! Device and host memory of the driver layer: stream-ordered device buffers
//! ([`DeviceBuffer`], whole or by element offset), page-locked host buffers
//! ([`PinnedBuffer`]) and page-locked registrations of existing host memory
//! ([`HostRegistration`]). Each owns its allocation and frees it on drop.
use cudarc::driver::sys;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;

use super::driver::{check, Context, GpuError, KernelArg, Result, Stream};

/// Marker for plain-old-data element types that may be copied to and from
/// the device byte for byte.
///
/// # Safety
/// Implementors must have no padding, no pointers and accept any bit pattern.
pub unsafe trait Pod: Copy + Send + Sync + 'static {}
unsafe impl Pod for u8 {}
unsafe impl Pod for u32 {}
unsafe impl Pod for u64 {}
// Four u64 limbs (`repr(transparent)` over blst_fr), no padding or pointers; a bit pattern that is
// not a reduced field element is still plain data (the buffers that hold scalars are zero-filled
// or written by the host or the kernels before anything reads them as field elements).
unsafe impl Pod for blstrs::Scalar {}

/// Device memory from the stream-ordered allocator (`cuMemAllocAsync`),
/// freed on drop with `cuMemFreeAsync` on the same stream.
pub struct DeviceBuffer<T: Pod> {
    ptr: sys::CUdeviceptr,
    len: usize,
    stream: Arc<Stream>,
    _t: PhantomData<T>,
}

impl<T: Pod> DeviceBuffer<T> {
    /// Allocates `len` elements in stream order; contents are undefined until
    /// written.
    pub fn alloc(stream: &Arc<Stream>, len: usize) -> Result<Self> {
        stream.ctx.bind()?;
        let bytes = (len * std::mem::size_of::<T>()).max(1);
        stream.ctx.ledger.reserve(bytes as u64)?;
        let mut ptr = 0;
        // SAFETY: valid out-pointer and stream.
        if let Err(e) = check(unsafe { sys::cuMemAllocAsync(&mut ptr, bytes, stream.s) }, "cuMemAllocAsync") {
            stream.ctx.ledger.release(bytes as u64);
            return Err(e);
        }
        Ok(DeviceBuffer { ptr, len, stream: stream.clone(), _t: PhantomData })
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
    /// The device address, for kernel arguments.
    pub fn arg(&self) -> KernelArg {
        KernelArg::U64(self.ptr)
    }

    /// The device address of element `offset` (at most `len`), for kernels that work on a part.
    pub fn arg_at(&self, offset: usize) -> Result<KernelArg> {
        if offset > self.len {
            return Err(GpuError::Invalid(format!("offset {offset} past a buffer of {}", self.len)));
        }
        Ok(KernelArg::U64(self.ptr + (offset * std::mem::size_of::<T>()) as u64))
    }

    /// Stream-ordered copy of `src` into elements `offset..offset + src.len()`.
    ///
    /// # Safety
    /// As [`DeviceBuffer::copy_from_host_async`].
    pub unsafe fn copy_from_host_at_async(&mut self, offset: usize, src: &[T]) -> Result<()> {
        if offset + src.len() > self.len {
            return Err(GpuError::Invalid(format!(
                "copy of {} elements at {offset} into a buffer of {}",
                src.len(),
                self.len
            )));
        }
        self.stream.ctx.bind()?;
        check(
            sys::cuMemcpyHtoDAsync_v2(
                self.ptr + (offset * std::mem::size_of::<T>()) as u64,
                src.as_ptr() as *const c_void,
                std::mem::size_of_val(src),
                self.stream.s,
            ),
            "cuMemcpyHtoDAsync",
        )
    }

    /// Stream-ordered copy of `len` elements from `src[src_offset..]` to `self[offset..]`.
    pub fn copy_from_device(
        &mut self,
        offset: usize,
        src: &DeviceBuffer<T>,
        src_offset: usize,
        len: usize,
    ) -> Result<()> {
        if offset + len > self.len || src_offset + len > src.len {
            return Err(GpuError::Invalid(format!("device copy of {len} elements out of range")));
        }
        let sz = std::mem::size_of::<T>();
        self.stream.ctx.bind()?;
        // SAFETY: both ranges are inside live allocations, checked above; stream-ordered.
        check(
            unsafe {
                sys::cuMemcpyDtoDAsync_v2(
                    self.ptr + (offset * sz) as u64,
                    src.ptr + (src_offset * sz) as u64,
                    len * sz,
                    self.stream.s,
                )
            },
            "cuMemcpyDtoDAsync",
        )
    }

    /// The stream this buffer is ordered on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// Fills every byte with `v` (stream-ordered). Used to poison outputs.
    pub fn fill_bytes(&mut self, v: u8) -> Result<()> {
        self.fill_bytes_at(0, self.len, v)
    }

    /// Fills elements `offset..offset + len` with bytes `v` (stream-ordered).
    pub fn fill_bytes_at(&mut self, offset: usize, len: usize, v: u8) -> Result<()> {
        if offset + len > self.len {
            return Err(GpuError::Invalid(format!("fill of {len} elements at {offset} in a buffer of {}", self.len)));
        }
        self.stream.ctx.bind()?;
        let size = std::mem::size_of::<T>();
        // SAFETY: the range is inside our allocation.
        check(
            unsafe { sys::cuMemsetD8Async(self.ptr + (offset * size) as u64, v, len * size, self.stream.s) },
            "cuMemsetD8Async",
        )
    }

    /// Copies `src` into the buffer and waits for the copy (pageable or
    /// pinned source).
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        // SAFETY: we synchronize before `src` can go away.
        unsafe { self.copy_from_host_async(src)? };
        self.stream.synchronize()
    }

    /// Copies the buffer's first `dst.len()` elements into `dst` and waits for the copy.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        self.copy_to_host_at(0, dst)
    }

    /// Copies elements `offset..offset + dst.len()` into `dst` and waits for the copy.
    pub fn copy_to_host_at(&self, offset: usize, dst: &mut [T]) -> Result<()> {
        // SAFETY: we synchronize before `dst` can go away.
        unsafe { self.copy_to_host_on(&self.stream, offset, dst)? };
        self.stream.synchronize()
    }

    /// Stream-ordered host-to-device copy.
    ///
    /// # Safety
    /// `src` must stay alive and unmodified until the stream has passed the
    /// copy; for an asynchronous copy it should be pinned ([`PinnedBuffer`]
    /// or [`HostRegistration`]).
    pub unsafe fn copy_from_host_async(&mut self, src: &[T]) -> Result<()> {
        if src.len() > self.len {
            return Err(GpuError::Invalid(format!("copy of {} elements into a buffer of {}", src.len(), self.len)));
        }
        self.stream.ctx.bind()?;
        check(
            sys::cuMemcpyHtoDAsync_v2(
                self.ptr,
                src.as_ptr() as *const c_void,
                std::mem::size_of_val(src),
                self.stream.s,
            ),
            "cuMemcpyHtoDAsync",
        )
    }

    /// Device-to-host copy of elements `offset..offset + dst.len()`, ordered on `stream` rather
    /// than the buffer's own (for work split over two streams).
    ///
    /// # Safety
    /// `dst` must stay alive and untouched until `stream` has passed the copy (pinned, for the
    /// copy to be asynchronous), and `stream` must be ordered after the buffer's allocation.
    pub unsafe fn copy_to_host_on(&self, stream: &Stream, offset: usize, dst: &mut [T]) -> Result<()> {
        if offset + dst.len() > self.len {
            return Err(GpuError::Invalid(format!(
                "copy of {} elements at {offset} from a buffer of {}",
                dst.len(),
                self.len
            )));
        }
        self.stream.ctx.bind()?;
        check(
            sys::cuMemcpyDtoHAsync_v2(
                dst.as_mut_ptr() as *mut c_void,
                self.ptr + (offset * std::mem::size_of::<T>()) as u64,
                std::mem::size_of_val(dst),
                stream.s,
            ),
            "cuMemcpyDtoHAsync",
        )
    }

    /// Stream-ordered device-to-host copy.
    ///
    /// # Safety
    /// `dst` must stay alive and untouched until the stream has passed the copy.
    pub unsafe fn copy_to_host_async(&self, dst: &mut [T]) -> Result<()> {
        self.copy_to_host_on(&self.stream, 0, dst)
    }
}

impl<T: Pod> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemAllocAsync on this stream, which the Arc keeps.
        unsafe {
            let _ = self.stream.ctx.bind();
            sys::cuMemFreeAsync(self.ptr, self.stream.s);
        }
        self.stream.ctx.ledger.release(self.bytes().max(1) as u64);
    }
}

/// Page-locked host memory from `cuMemHostAlloc` (portable), zero-filled.
pub struct PinnedBuffer<T: Pod> {
    ptr: *mut T,
    len: usize,
    ctx: Arc<Context>,
}

unsafe impl<T: Pod> Send for PinnedBuffer<T> {}
unsafe impl<T: Pod> Sync for PinnedBuffer<T> {}

impl<T: Pod> PinnedBuffer<T> {
    pub fn new(ctx: &Arc<Context>, len: usize) -> Result<Self> {
        ctx.bind()?;
        let bytes = (len * std::mem::size_of::<T>()).max(1);
        let mut p = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        check(unsafe { sys::cuMemHostAlloc(&mut p, bytes, sys::CU_MEMHOSTALLOC_PORTABLE) }, "cuMemHostAlloc")?;
        // SAFETY: fresh allocation of `bytes` bytes; zero is a valid T (Pod).
        unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes) };
        Ok(PinnedBuffer { ptr: p as *mut T, len, ctx: ctx.clone() })
    }
}

impl<T: Pod> std::ops::Deref for PinnedBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: ptr/len describe our initialised allocation.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}
impl<T: Pod> std::ops::DerefMut for PinnedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as above, and we hold &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<T: Pod> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc.
        unsafe {
            let _ = self.ctx.bind();
            sys::cuMemFreeHost(self.ptr as *mut c_void);
        }
    }
}

/// Page-locks an existing host buffer (`cuMemHostRegister`) for as long as
/// this value lives; the buffer is reachable through it meanwhile.
pub struct HostRegistration<'a, T: Pod> {
    buf: &'a mut [T],
    ctx: Arc<Context>,
}

impl<'a, T: Pod> HostRegistration<'a, T> {
    pub fn new(ctx: &Arc<Context>, buf: &'a mut [T]) -> Result<Self> {
        ctx.bind()?;
        if !buf.is_empty() {
            // SAFETY: the slice is valid for its length for the lifetime 'a.
            check(
                unsafe {
                    sys::cuMemHostRegister_v2(
                        buf.as_mut_ptr() as *mut c_void,
                        std::mem::size_of_val(buf),
                        sys::CU_MEMHOSTREGISTER_PORTABLE,
                    )
                },
                "cuMemHostRegister",
            )?;
        }
        Ok(HostRegistration { buf, ctx: ctx.clone() })
    }
}

impl<T: Pod> std::ops::Deref for HostRegistration<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.buf
    }
}
impl<T: Pod> std::ops::DerefMut for HostRegistration<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.buf
    }
}

impl<T: Pod> Drop for HostRegistration<'_, T> {
    fn drop(&mut self) {
        if !self.buf.is_empty() {
            // SAFETY: registered in `new`.
            unsafe {
                let _ = self.ctx.bind();
                sys::cuMemHostUnregister(self.buf.as_mut_ptr() as *mut c_void);
            }
        }
    }
}
