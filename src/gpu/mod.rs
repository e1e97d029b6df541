//! GPU backend: CUDA driver runtime, embedded PTX modules and kernel launchers.
//!
//! - [`driver`]   — safe wrapper over the CUDA driver API (cudarc, loaded at run
//!   time): devices, contexts, PTX modules with JIT logs, streams, events,
//!   the one launch primitive, one error type.
//! - [`memory`]   — device buffers and slices, pinned host memory with tracked async copies.
//! - [`kernels`]  — the kernel interface generated with the PTX (scripts/gen-ptx.py): one
//!   typed, checked launcher per kernel, one struct per module, the shared constants.
//! - [`ptx`]      — the PTX modules embedded at build time (build.rs composes
//!   them from ptx/ following ptx/MODULES).
//! - [`info`]     — the `filsnark info` report.
//! - [`selftest`] — every field/curve kernel against blst on random inputs.
//! - [`convert`]  — .params point sections to the kernels' layout on the device.
//! - [`feed`]     — raw .params points from host memory to the device, chunk by chunk, with the
//!   staging copies, the uploads and the conversion overlapped.
//! - [`srs`]      — the parameter sections kept resident on the device.
//! - [`host_pin`] — streamed sections kept in page-locked host memory, uploaded straight from it.
//! - [`layout`]   — host-side views of the kernels' data layout.
//! - [`ntt`]      — NTT over Fr and the H polynomial pipeline.
//! - [`msm`]      — Pippenger MSM over G1 and G2 with the 0/1 scalar split.
//! - [`generator_mul`] — s·G of the generators to encoded points, for `params setup`.
//! - [`pairing`]  — Miller loops of many pairs over precomputed G2 lines (SnarkPack's pairing
//!   products), offered to the aggregation as [`crate::ec::MillerLoops`].
//! - [`staging`]  — large host-to-device uploads through pinned, double-buffered staging.
//! - [`prover`], [`backend`] — one partition proof on a device; the GPUs as a prover backend.
//!
//! Without a driver or a device every entry point returns
//! [`GpuError::NoGpu`]; nothing panics, so callers fall back to the CPU.
pub mod backend;
pub mod convert;
pub mod driver;
pub mod evaluate;
pub mod expand;
pub mod feed;
pub mod generator_mul;
pub mod host_pin;
pub mod info;
pub mod kernels;
pub mod layout;
pub mod ledger;
pub mod memory;
pub mod msm;
pub mod ntt;
pub mod pairing;
pub mod prover;
pub mod ptx;
pub mod residency;
pub mod selftest;
pub mod split;
pub mod srs;
pub mod staging;

pub use driver::{
    Context, Device, DeviceBuffer, DeviceSlice, Event, GpuError, Module, PinnedBuffer, Pod, Result, Stream,
};

use std::sync::Arc;

/// A device with its context, one stream and the modules loaded on demand.
pub struct Gpu {
    pub ctx: Arc<Context>,
    pub stream: Arc<Stream>,
    /// Pinned buffers for [`Gpu::upload_with`], made on first use.
    staging: staging::UploadStagingSlot,
}

impl Gpu {
    /// Opens device `ordinal` (primary context, one non-blocking stream).
    pub fn open(ordinal: usize) -> Result<Gpu> {
        let dev = Device::get(ordinal)?;
        let ctx = Context::new(dev)?;
        let stream = Stream::new(&ctx)?;
        Ok(Gpu { ctx, stream, staging: Default::default() })
    }

    /// Another handle on the same context and stream (its own staging buffers).
    pub fn share(&self) -> Gpu {
        Gpu { ctx: self.ctx.clone(), stream: self.stream.clone(), staging: Default::default() }
    }

    /// JIT-loads the embedded module `name`.
    pub fn load(&self, name: &str) -> Result<Module> {
        let text = ptx::module(name).ok_or_else(|| GpuError::Invalid(format!("no embedded PTX module '{name}'")))?;
        Module::load(&self.ctx, name, text)
    }

    pub fn alloc<T: driver::Pod>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::alloc(&self.stream, len)
    }
}
