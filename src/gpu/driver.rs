//! A small safe layer over the CUDA driver API (cudarc's raw `sys` bindings,
//! loaded at run time).
//!
//! Every driver call goes through [`check`], which turns a `CUresult` into a
//! [`GpuError`] naming the CUDA error code, the call and (for launches) the
//! kernel. Before the first call, [`init`] checks that `libcuda` can be
//! loaded at all: with no driver or no device every entry point returns
//! [`GpuError::NoGpu`] instead of panicking, so the CPU path can run.
//!
//! Each handle (context, module, stream, event; device and pinned memory live in
//! [`super::memory`]) is a
//! type that owns it and releases it on drop. The owning types hold an
//! `Arc<Context>` and make that context current before calling the driver, so
//! they can be used from any thread.

use cudarc::driver::sys;
use std::ffi::{c_void, CStr, CString};
use std::fmt;
use std::sync::{Arc, OnceLock};

pub use super::memory::{DeviceBuffer, DeviceSlice, PinnedBuffer, Pod};

/// The one error type of the GPU backend.
#[derive(Debug, Clone)]
pub enum GpuError {
    /// No CUDA driver library, or no CUDA device: run on the CPU instead.
    NoGpu(String),
    /// A driver call failed.
    Cuda {
        /// `CUDA_ERROR_*` name and numeric code.
        code: i32,
        name: String,
        /// What the driver says the code means.
        description: String,
        /// The driver call, e.g. `cuLaunchKernel`.
        call: &'static str,
        /// The kernel or module involved, if any.
        kernel: Option<String>,
    },
    /// A PTX module did not JIT-compile; `log` is the JIT error log.
    ModuleLoad { module: String, code: i32, name: String, log: String },
    /// An allocation the device-memory plan did not reserve ([`super::ledger::Ledger`]).
    OutOfPlan { requested: u64, in_use: u64, limit: u64 },
    /// Anything else detected by our own checks (sizes, arguments).
    Invalid(String),
}

impl GpuError {
    /// True when the device ran out of memory, or an allocation passed the memory plan: a
    /// smaller plan may succeed where this one failed.
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, GpuError::OutOfPlan { .. })
            || matches!(self, GpuError::Cuda { name, .. } if name == "CUDA_ERROR_OUT_OF_MEMORY")
    }

    /// True when the error only means "there is no GPU here".
    pub fn is_no_gpu(&self) -> bool {
        matches!(self, GpuError::NoGpu(_))
    }
    fn with_kernel(mut self, k: &str) -> Self {
        if let GpuError::Cuda { kernel, .. } = &mut self {
            *kernel = Some(k.to_string());
        }
        self
    }
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoGpu(why) => write!(f, "no GPU: {why}"),
            GpuError::Cuda { code, name, description, call, kernel } => {
                write!(f, "CUDA error {name} ({code}) in {call}")?;
                if let Some(k) = kernel {
                    write!(f, " [kernel {k}]")?;
                }
                write!(f, ": {description}")
            }
            GpuError::ModuleLoad { module, code, name, log } => {
                write!(f, "PTX module '{module}' failed to load: {name} ({code})\nJIT log:\n{log}")
            }
            GpuError::OutOfPlan { requested, in_use, limit } => {
                let mib = |b: &u64| *b as f64 / (1u64 << 20) as f64;
                write!(
                    f,
                    "the device memory plan allows {:.0} MiB and {:.0} MiB are in use: an allocation of {:.0} MiB \
                     was refused (CUDA_ERROR_OUT_OF_MEMORY avoided)",
                    mib(limit),
                    mib(in_use),
                    mib(requested)
                )
            }
            GpuError::Invalid(s) => write!(f, "GPU backend: {s}"),
        }
    }
}

impl std::error::Error for GpuError {}

pub type Result<T> = std::result::Result<T, GpuError>;

fn err_strings(r: sys::CUresult) -> (String, String) {
    let mut p: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: the driver library is loaded (we only get here after init), and
    // the returned strings are static.
    let name = unsafe {
        if sys::cuGetErrorName(r, &mut p) == sys::CUresult::CUDA_SUCCESS && !p.is_null() {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        } else {
            format!("{r:?}")
        }
    };
    // SAFETY: as above.
    let desc = unsafe {
        p = std::ptr::null();
        if sys::cuGetErrorString(r, &mut p) == sys::CUresult::CUDA_SUCCESS && !p.is_null() {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        } else {
            String::new()
        }
    };
    (name, desc)
}

/// Turns a driver result into `Result`, naming the call.
pub fn check(r: sys::CUresult, call: &'static str) -> Result<()> {
    if r == sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let (name, description) = err_strings(r);
    if r == sys::CUresult::CUDA_ERROR_NO_DEVICE {
        return Err(GpuError::NoGpu(format!("{call}: {name}: {description}")));
    }
    Err(GpuError::Cuda { code: r as i32, name, description, call, kernel: None })
}

/// Oldest driver the GPU path runs on (cuDriverGetVersion encoding: 12080 = 12.8).
pub const MIN_DRIVER: i32 = 12080;

static INIT: OnceLock<std::result::Result<(), GpuError>> = OnceLock::new();

/// Loads the driver library and calls `cuInit` once. Every other entry point
/// calls this first.
pub fn init() -> Result<()> {
    INIT.get_or_init(|| {
        // SAFETY: only probes whether the shared library can be opened.
        if !unsafe { sys::is_culib_present() } {
            return Err(GpuError::NoGpu("the CUDA driver library (libcuda.so) was not found".into()));
        }
        // SAFETY: the library is present; cuInit has no pointer arguments.
        let r = unsafe { sys::cuInit(0) };
        match check(r, "cuInit") {
            Err(GpuError::Cuda { name, description, .. }) => {
                return Err(GpuError::NoGpu(format!("cuInit failed: {name}: {description}")))
            }
            Err(e) => return Err(e),
            Ok(()) => {}
        }
        // cudarc resolves each symbol on first use and panics if the driver
        // lacks it; the newest entry point used here (cuEventElapsedTime_v2)
        // came with CUDA 12.8, so older drivers are treated as "no GPU".
        let mut v = 0;
        // SAFETY: v is a valid out-pointer; the symbol exists in every driver.
        check(unsafe { sys::cuDriverGetVersion(&mut v) }, "cuDriverGetVersion")?;
        if v < MIN_DRIVER {
            return Err(GpuError::NoGpu(format!(
                "the CUDA driver supports CUDA {}.{}; the GPU path needs {}.{} or newer",
                v / 1000,
                (v % 1000) / 10,
                MIN_DRIVER / 1000,
                (MIN_DRIVER % 1000) / 10
            )));
        }
        Ok(())
    })
    .clone()
}

/// Driver version as reported by `cuDriverGetVersion` (e.g. 13000 = CUDA 13.0).
pub fn driver_version() -> Result<i32> {
    init()?;
    let mut v = 0;
    // SAFETY: v is a valid out-pointer.
    check(unsafe { sys::cuDriverGetVersion(&mut v) }, "cuDriverGetVersion")?;
    Ok(v)
}

/// Number of CUDA devices (0 is reported as `NoGpu`).
pub fn device_count() -> Result<usize> {
    init()?;
    let mut n = 0;
    // SAFETY: n is a valid out-pointer.
    check(unsafe { sys::cuDeviceGetCount(&mut n) }, "cuDeviceGetCount")?;
    if n <= 0 {
        return Err(GpuError::NoGpu("the driver reports no CUDA device".into()));
    }
    Ok(n as usize)
}

/// A CUDA device (ordinal and driver handle).
#[derive(Debug, Clone, Copy)]
pub struct Device {
    pub ordinal: usize,
    handle: sys::CUdevice,
}

impl Device {
    pub fn get(ordinal: usize) -> Result<Device> {
        let n = device_count()?;
        if ordinal >= n {
            return Err(GpuError::Invalid(format!("device {ordinal} requested, {n} present")));
        }
        let mut h = 0;
        // SAFETY: valid out-pointer, ordinal checked.
        check(unsafe { sys::cuDeviceGet(&mut h, ordinal as i32) }, "cuDeviceGet")?;
        Ok(Device { ordinal, handle: h })
    }

    pub fn all() -> Result<Vec<Device>> {
        (0..device_count()?).map(Device::get).collect()
    }

    pub fn name(&self) -> Result<String> {
        let mut buf = [0 as std::ffi::c_char; 256];
        // SAFETY: buffer and its length are valid.
        check(unsafe { sys::cuDeviceGetName(buf.as_mut_ptr(), 256, self.handle) }, "cuDeviceGetName")?;
        // SAFETY: the driver NUL-terminates within the buffer.
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned())
    }

    pub fn total_memory(&self) -> Result<usize> {
        let mut b = 0usize;
        // SAFETY: valid out-pointer.
        check(unsafe { sys::cuDeviceTotalMem_v2(&mut b, self.handle) }, "cuDeviceTotalMem")?;
        Ok(b)
    }

    pub fn attribute(&self, a: sys::CUdevice_attribute) -> Result<i32> {
        let mut v = 0;
        // SAFETY: valid out-pointer.
        check(unsafe { sys::cuDeviceGetAttribute(&mut v, a, self.handle) }, "cuDeviceGetAttribute")?;
        Ok(v)
    }

    pub fn compute_capability(&self) -> Result<(i32, i32)> {
        use sys::CUdevice_attribute::*;
        Ok((
            self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        ))
    }

    pub fn sm_count(&self) -> Result<i32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
    }

    /// SM clock in kHz as the driver reports it (the maximum, not the current clock).
    pub fn clock_khz(&self) -> Result<i32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)
    }
}

/// The device's primary context, retained for the lifetime of this value.
#[derive(Debug)]
pub struct Context {
    ctx: sys::CUcontext,
    pub device: Device,
    /// Every device buffer allocated in this context, counted.
    pub ledger: super::ledger::Ledger,
}

// SAFETY: a CUDA context may be used from any thread once made current there;
// every method below makes it current first.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

impl Context {
    pub fn new(device: Device) -> Result<Arc<Context>> {
        let mut ctx = std::ptr::null_mut();
        // SAFETY: valid out-pointer and device handle.
        check(unsafe { sys::cuDevicePrimaryCtxRetain(&mut ctx, device.handle) }, "cuDevicePrimaryCtxRetain")?;
        let c = Context { ctx, device, ledger: Default::default() };
        c.bind()?;
        Ok(Arc::new(c))
    }

    /// Makes this context current on the calling thread.
    pub fn bind(&self) -> Result<()> {
        // SAFETY: ctx is a retained primary context.
        check(unsafe { sys::cuCtxSetCurrent(self.ctx) }, "cuCtxSetCurrent")
    }

    /// (free, total) device memory in bytes.
    pub fn mem_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        let (mut f, mut t) = (0usize, 0usize);
        // SAFETY: valid out-pointers, context current.
        check(unsafe { sys::cuMemGetInfo_v2(&mut f, &mut t) }, "cuMemGetInfo")?;
        Ok((f, t))
    }

    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        // SAFETY: context current.
        check(unsafe { sys::cuCtxSynchronize() }, "cuCtxSynchronize")
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: balances the retain in `new`.
        unsafe {
            sys::cuDevicePrimaryCtxRelease_v2(self.device.handle);
        }
    }
}

/// A loaded PTX module (JIT-compiled by the driver).
pub struct Module {
    module: sys::CUmodule,
    pub name: String,
    /// The JIT info log (may be empty).
    pub info_log: String,
    /// Wall time of cuModuleLoadDataEx in milliseconds.
    pub load_ms: f64,
    ctx: Arc<Context>,
}

// SAFETY: module handles are context-global; we bind the context before use.
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

fn log_string(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim_end().to_string()
}

impl Module {
    /// JIT-compiles `ptx` with `cuModuleLoadDataEx`, collecting the info and
    /// error logs. A failure names the module and carries the error log.
    pub fn load(ctx: &Arc<Context>, name: &str, ptx: &str) -> Result<Module> {
        ctx.bind()?;
        let image = CString::new(ptx).map_err(|_| GpuError::Invalid(format!("module {name}: NUL byte in PTX")))?;
        const LOG: usize = 1 << 16;
        let mut info = vec![0u8; LOG];
        let mut error = vec![0u8; LOG];
        use sys::CUjit_option::*;
        let mut opts = [
            CU_JIT_INFO_LOG_BUFFER,
            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            CU_JIT_ERROR_LOG_BUFFER,
            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            CU_JIT_LOG_VERBOSE,
        ];
        // the driver reads size and flag options as integers in pointer-sized slots
        #[allow(clippy::manual_dangling_ptr)]
        let mut vals: [*mut c_void; 5] = [
            info.as_mut_ptr() as *mut c_void,
            LOG as *mut c_void,
            error.as_mut_ptr() as *mut c_void,
            LOG as *mut c_void,
            1usize as *mut c_void,
        ];
        let mut module = std::ptr::null_mut();
        let t0 = std::time::Instant::now();
        // SAFETY: image is NUL-terminated; option values point at buffers of
        // the sizes given, which outlive the call.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                image.as_ptr() as *const c_void,
                opts.len() as u32,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
            )
        };
        let load_ms = t0.elapsed().as_secs_f64() * 1e3;
        if r != sys::CUresult::CUDA_SUCCESS {
            let (ename, _) = err_strings(r);
            let mut log = log_string(&error);
            let il = log_string(&info);
            if !il.is_empty() {
                log = format!("{log}\n{il}");
            }
            return Err(GpuError::ModuleLoad { module: name.to_string(), code: r as i32, name: ename, log });
        }
        Ok(Module { module, name: name.to_string(), info_log: log_string(&info), load_ms, ctx: ctx.clone() })
    }

    /// The kernel `name` of this module. The handle is valid while the module is loaded: the
    /// generated module structs own both (see `gpu::kernels`).
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        Kernel::get(self, name)
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: module loaded by us, context kept alive by the Arc.
        unsafe {
            let _ = self.ctx.bind();
            sys::cuModuleUnload(self.module);
        }
    }
}

/// A kernel of a loaded module: attribute queries, and the one launch primitive under the
/// generated launchers.
pub struct Kernel {
    f: sys::CUfunction,
    name: Box<str>,
}

// SAFETY: a function handle is context-global data of the driver; launches bind the stream's
// context first.
unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

impl Kernel {
    /// Resolves kernel `name` of `module`.
    pub fn get(module: &Module, name: &str) -> Result<Kernel> {
        module.ctx.bind()?;
        let cname = CString::new(name).map_err(|_| GpuError::Invalid("kernel name".into()))?;
        let mut f = std::ptr::null_mut();
        // SAFETY: valid module, NUL-terminated name, valid out-pointer.
        check(unsafe { sys::cuModuleGetFunction(&mut f, module.module, cname.as_ptr()) }, "cuModuleGetFunction")
            .map_err(|e| e.with_kernel(&format!("{}::{}", module.name, name)))?;
        Ok(Kernel { f, name: name.into() })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn attribute(&self, a: sys::CUfunction_attribute) -> Result<i32> {
        let mut v = 0;
        // SAFETY: valid function handle and out-pointer.
        check(unsafe { sys::cuFuncGetAttribute(&mut v, a, self.f) }, "cuFuncGetAttribute")
            .map_err(|e| e.with_kernel(&self.name))?;
        Ok(v)
    }
    /// Registers per thread.
    pub fn num_regs(&self) -> Result<i32> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
    }
    /// Local memory per thread in bytes (spills and stack).
    pub fn local_bytes(&self) -> Result<i32> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
    }
    pub fn max_threads_per_block(&self) -> Result<i32> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    }

    /// Blocks of `block` threads (and `shared` bytes of dynamic shared memory) one SM holds at once.
    pub fn max_active_blocks_per_sm(&self, block: u32, shared: u32) -> Result<i32> {
        let mut blocks = 0;
        // SAFETY: valid function handle and out-pointer; the query reads nothing else.
        check(
            unsafe {
                sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut blocks, self.f, block as i32, shared as usize)
            },
            "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        )
        .map_err(|e| e.with_kernel(&self.name))?;
        Ok(blocks)
    }

    /// Launches the kernel on `stream`.
    ///
    /// # Safety
    /// `args` match the kernel's `.entry` parameters in number, order and width; every device
    /// address among them stays allocated, and is large enough for everything the kernel reads
    /// and writes through it with these arguments and this geometry, until `stream` has passed
    /// the launch. The generated launchers (`gpu::kernels`) check this against each kernel's
    /// contract before they call here.
    pub unsafe fn launch(&self, stream: &Stream, geometry: Geometry, args: &[Arg]) -> Result<()> {
        stream.ctx.bind()?;
        let mut ptrs: Vec<*mut c_void> = args.iter().map(Arg::as_ptr).collect();
        let Geometry { grid, block, shared } = geometry;
        check(
            sys::cuLaunchKernel(
                self.f,
                grid.0,
                grid.1,
                1,
                block,
                1,
                1,
                shared,
                stream.s,
                ptrs.as_mut_ptr(),
                std::ptr::null_mut(),
            ),
            "cuLaunchKernel",
        )
        .map_err(|e| e.with_kernel(&self.name))
    }
}

/// The geometry of one launch: a 2-D grid of 1-D blocks and the dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub grid: (u32, u32),
    pub block: u32,
    pub shared: u32,
}

impl Geometry {
    /// A geometry from the values a launcher computed (wide, so that nothing wrapped): every
    /// dimension in 1..=u32::MAX, the shared bytes below 2^32.
    pub fn new(kernel: &str, grid_x: u128, grid_y: u128, block: u128, shared: u128) -> Result<Geometry> {
        let dim = |what: &str, v: u128, min: u128| {
            if v < min || v > u128::from(u32::MAX) {
                return Err(GpuError::Invalid(format!("kernel {kernel}: {what} {v} out of range")));
            }
            Ok(v as u32)
        };
        Ok(Geometry {
            grid: (dim("grid x", grid_x, 1)?, dim("grid y", grid_y, 1)?),
            block: dim("block", block, 1)?,
            shared: dim("shared memory", shared, 0)?,
        })
    }
}

/// One kernel argument, held by value until the launch call returns: a device address (`.u64`
/// parameter) or a `.u32` scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    U64(u64),
    U32(u32),
}

impl Arg {
    fn as_ptr(&self) -> *mut c_void {
        match self {
            Arg::U64(v) => v as *const u64 as *mut c_void,
            Arg::U32(v) => v as *const u32 as *mut c_void,
        }
    }
}

/// A non-blocking CUDA stream.
pub struct Stream {
    pub(super) s: sys::CUstream,
    pub(super) ctx: Arc<Context>,
}

// SAFETY: streams may be used from any thread with the context current.
unsafe impl Send for Stream {}
unsafe impl Sync for Stream {}

impl Stream {
    pub fn new(ctx: &Arc<Context>) -> Result<Arc<Stream>> {
        ctx.bind()?;
        let mut s = std::ptr::null_mut();
        // SAFETY: valid out-pointer, context current.
        check(
            unsafe { sys::cuStreamCreate(&mut s, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) },
            "cuStreamCreate",
        )?;
        Ok(Arc::new(Stream { s, ctx: ctx.clone() }))
    }

    /// A non-blocking stream of priority `level`: 0 is the default, negative is more urgent
    /// (clamped to the device's range, which is [-5, 0] on recent GPUs). The block scheduler
    /// dispatches a waiting block of a more urgent stream first when an SM frees room.
    pub fn with_priority(ctx: &Arc<Context>, level: i32) -> Result<Arc<Stream>> {
        ctx.bind()?;
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: valid out-pointers, context current.
        check(unsafe { sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) }, "cuCtxGetStreamPriorityRange")?;
        let level = level.clamp(greatest.min(least), greatest.max(least));
        let mut s = std::ptr::null_mut();
        let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32;
        // SAFETY: valid out-pointer, context current.
        check(unsafe { sys::cuStreamCreateWithPriority(&mut s, flags, level) }, "cuStreamCreateWithPriority")?;
        Ok(Arc::new(Stream { s, ctx: ctx.clone() }))
    }

    pub fn synchronize(&self) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: valid stream.
        check(unsafe { sys::cuStreamSynchronize(self.s) }, "cuStreamSynchronize")
    }

    /// Work queued on this stream after this call waits for `event` (as last recorded).
    pub fn wait(&self, event: &Event) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: valid stream and event of the same context.
        check(unsafe { sys::cuStreamWaitEvent(self.s, event.e, 0) }, "cuStreamWaitEvent")
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: stream created by us; destroy defers until its work is done.
        unsafe {
            let _ = self.ctx.bind();
            sys::cuStreamDestroy_v2(self.s);
        }
    }
}

/// A CUDA event (timing enabled).
pub struct Event {
    e: sys::CUevent,
    ctx: Arc<Context>,
}

// SAFETY: an event handle may be recorded and waited for from any thread; every method binds the
// context first.
unsafe impl Send for Event {}

impl Event {
    pub fn new(ctx: &Arc<Context>) -> Result<Event> {
        Self::with_flags(ctx, sys::CUevent_flags::CU_EVENT_DEFAULT as u32)
    }

    /// An event without timing (cheaper to record and wait for): completion only.
    pub fn untimed(ctx: &Arc<Context>) -> Result<Event> {
        Self::with_flags(ctx, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32)
    }

    fn with_flags(ctx: &Arc<Context>, flags: u32) -> Result<Event> {
        ctx.bind()?;
        let mut e = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        check(unsafe { sys::cuEventCreate(&mut e, flags) }, "cuEventCreate")?;
        Ok(Event { e, ctx: ctx.clone() })
    }

    /// Whether the work before the event's last record has completed (without waiting).
    pub fn done(&self) -> Result<bool> {
        // SAFETY: valid event.
        let r = unsafe { sys::cuEventQuery(self.e) };
        if r == sys::CUresult::CUDA_ERROR_NOT_READY {
            return Ok(false);
        }
        check(r, "cuEventQuery").map(|()| true)
    }
    pub fn record(&self, stream: &Stream) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: valid event and stream of the same context.
        check(unsafe { sys::cuEventRecord(self.e, stream.s) }, "cuEventRecord")
    }
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: valid event.
        check(unsafe { sys::cuEventSynchronize(self.e) }, "cuEventSynchronize")
    }
    /// Milliseconds from `self` to `end` (both recorded and completed).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        end.synchronize()?;
        let mut ms = 0f32;
        // SAFETY: valid events and out-pointer.
        check(unsafe { sys::cuEventElapsedTime_v2(&mut ms, self.e, end.e) }, "cuEventElapsedTime")?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: event created by us.
        unsafe {
            let _ = self.ctx.bind();
            sys::cuEventDestroy_v2(self.e);
        }
    }
}
