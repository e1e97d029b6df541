//! Fixed-base scalar multiplication of the standard generators on the device (module
//! "fixed_base", ptx/setup/fixed_base.ptxi): Fr scalars in, uncompressed zcash-encoded affine
//! points out, byte for byte what the CPU tables of [`crate::ec::generator_table`] write.
//!
//! The device holds the window tables of G1 and G2 (48 and 96 MiB: the CPU path's own blst
//! tables, uploaded once), one chunk of scalars and one chunk of encoded points; the host holds
//! two pinned chunks of each. [`FixedBaseGpu::stream`] runs the device on chunk k + 1 (upload,
//! kernel, download, all ordered on one stream) while the caller's sink handles chunk k (a file
//! write, in `params setup`), so memory stays bounded whatever the count.
use std::sync::Mutex;

use blstrs::Scalar;
use rayon::prelude::*;

use super::driver::KernelArg;
use super::layout::{fp2_words, fp_words};
use super::{DeviceBuffer, Event, Gpu, GpuError, Module, PinnedBuffer, Result};
use crate::ec::generator_table::{g1_generator, g2_generator, G1Table, G2Table, Generator, HALF, NWIN};

/// Threads per block of both kernels (fb_g2 has one shared-memory slot for each of 64 threads).
const BLOCK: usize = 64;
/// G1 points per chunk by default (384 MiB of encoded points; G2 chunks hold half as many).
pub const DEFAULT_CHUNK: usize = 1 << 22;

/// Host and device buffers of the chunk pipeline, two of each host kind (double buffering).
struct Staging {
    scalars: [PinnedBuffer<Scalar>; 2],
    points: [PinnedBuffer<u8>; 2],
    done: [Event; 2],
    dev_scalars: DeviceBuffer<Scalar>,
    dev_points: DeviceBuffer<u8>,
}

/// The device tables and the chunk pipeline; see the module documentation.
pub struct FixedBaseGpu {
    gpu: Gpu,
    module: Module,
    /// G1 then G2 tables: `[k·2^15 + d − 1]` = d·2^(16k)·G, affine Montgomery words.
    tables: [DeviceBuffer<u32>; 2],
    /// G1 points per chunk.
    chunk: usize,
    staging: Mutex<Staging>,
}

/// Device words of a table of affine points, `words` per point.
fn table_words<A: Sync>(entries: &[A], words: usize, to_words: impl Fn(&A, &mut [u32]) + Sync) -> Vec<u32> {
    let mut w = vec![0u32; entries.len() * words];
    w.par_chunks_mut(words).zip(entries.par_iter()).for_each(|(o, a)| to_words(a, o));
    w
}

impl FixedBaseGpu {
    /// Builds the window tables with blst and uploads them; chunks of [`DEFAULT_CHUNK`].
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let (g1, g2) = rayon::join(|| G1Table::new(&g1_generator()), || G2Table::new(&g2_generator()));
        Self::with_tables(gpu, &g1, &g2, DEFAULT_CHUNK)
    }

    /// Uploads existing tables (of the standard generators) and sets up chunks of `chunk` G1
    /// points (`chunk / 2` G2 points): 2·chunk·(96 + 32) bytes of pinned host memory, half that
    /// on the device besides the 144 MiB of tables. Loads module "fixed_base" (JIT).
    pub fn with_tables(gpu: &Gpu, g1: &G1Table, g2: &G2Table, chunk: usize) -> Result<Self> {
        let chunk = chunk.max(2);
        let expect = NWIN * HALF;
        if g1.entries().len() != expect || g2.entries().len() != expect {
            return Err(GpuError::Invalid(format!("fixed-base tables of {expect} entries expected")));
        }
        let module = gpu.load("fixed_base")?;
        let w1 = table_words(g1.entries(), 24, |a, o| {
            o[..12].copy_from_slice(&fp_words(&a.x));
            o[12..].copy_from_slice(&fp_words(&a.y));
        });
        let w2 = table_words(g2.entries(), 48, |a, o| {
            o[..24].copy_from_slice(&fp2_words(&a.x));
            o[24..].copy_from_slice(&fp2_words(&a.y));
        });
        let tables = [gpu.upload(&w1)?, gpu.upload(&w2)?];
        let bytes = chunk * Generator::G1.point_bytes();
        let staging = Staging {
            scalars: [PinnedBuffer::new(&gpu.ctx, chunk)?, PinnedBuffer::new(&gpu.ctx, chunk)?],
            points: [PinnedBuffer::new(&gpu.ctx, bytes)?, PinnedBuffer::new(&gpu.ctx, bytes)?],
            done: [Event::new(&gpu.ctx)?, Event::new(&gpu.ctx)?],
            dev_scalars: gpu.alloc(chunk)?,
            dev_points: gpu.alloc(bytes)?,
        };
        let gpu = gpu.share();
        gpu.stream.synchronize()?;
        Ok(FixedBaseGpu { gpu, module, tables, chunk, staging: Mutex::new(staging) })
    }

    /// Points of group `g` per chunk.
    pub fn chunk_points(&self, g: Generator) -> usize {
        match g {
            Generator::G1 => self.chunk,
            Generator::G2 => self.chunk / 2,
        }
    }

    /// s_i·G1 into `out[96·i..]` (uncompressed zcash encoding); `out.len()` = 96·`scalars.len()`.
    pub fn g1_to_bytes(&self, scalars: &[Scalar], out: &mut [u8]) -> anyhow::Result<()> {
        self.to_bytes(Generator::G1, scalars, out)
    }

    /// s_i·G2 into `out[192·i..]`; `out.len()` = 192·`scalars.len()`.
    pub fn g2_to_bytes(&self, scalars: &[Scalar], out: &mut [u8]) -> anyhow::Result<()> {
        self.to_bytes(Generator::G2, scalars, out)
    }

    /// s_i·G into `out` for a slice of any length (chunked through [`FixedBaseGpu::stream`]).
    pub fn to_bytes(&self, g: Generator, scalars: &[Scalar], out: &mut [u8]) -> anyhow::Result<()> {
        let size = g.point_bytes();
        if out.len() != scalars.len() * size {
            anyhow::bail!("{} output bytes for {} points of {size} bytes", out.len(), scalars.len());
        }
        let mut at = 0;
        self.stream(g, scalars.len(), &mut |i, s| s.copy_from_slice(&scalars[i..i + s.len()]), &mut |b| {
            out[at..at + b.len()].copy_from_slice(b);
            at += b.len();
            Ok(())
        })
    }

    /// `count` points s_i·G: `fill(i, s)` writes scalars i.. into `s` (one chunk), and `sink`
    /// receives the encoded points of each chunk in order. The device computes chunk k + 1 while
    /// `sink` handles chunk k.
    pub fn stream(
        &self,
        g: Generator,
        count: usize,
        fill: &mut dyn FnMut(usize, &mut [Scalar]),
        sink: &mut dyn FnMut(&[u8]) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut st = self.staging.lock().map_err(|_| anyhow::anyhow!("fixed-base staging poisoned"))?;
        let result = self.pipeline(&mut st, g, count, fill, sink);
        if result.is_err() {
            // No copy may still be in flight into or out of the pinned buffers.
            let _ = self.gpu.stream.synchronize();
        }
        result
    }

    fn pipeline(
        &self,
        st: &mut Staging,
        g: Generator,
        count: usize,
        fill: &mut dyn FnMut(usize, &mut [Scalar]),
        sink: &mut dyn FnMut(&[u8]) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let per = self.chunk_points(g);
        let size = g.point_bytes();
        // (buffer, points) of the chunk on the device whose bytes the sink has not had yet.
        let mut pending: Option<(usize, usize)> = None;
        let (mut at, mut k) = (0, 0);
        while at < count {
            let n = per.min(count - at);
            let b = k % 2;
            // Buffer b's last upload and download finished: its event was waited for before the
            // previous chunk's sink, one iteration ago.
            fill(at, &mut st.scalars[b][..n]);
            self.enqueue(st, g, b, n)?;
            if let Some((pb, pn)) = pending.take() {
                st.done[pb].synchronize()?;
                sink(&st.points[pb][..pn * size])?;
            }
            pending = Some((b, n));
            at += n;
            k += 1;
        }
        if let Some((pb, pn)) = pending {
            st.done[pb].synchronize()?;
            sink(&st.points[pb][..pn * size])?;
        }
        Ok(())
    }

    /// Stream-ordered: scalars of buffer b up, kernel, points down into buffer b, event b.
    fn enqueue(&self, st: &mut Staging, g: Generator, b: usize, n: usize) -> Result<()> {
        let size = g.point_bytes();
        let Staging { scalars, points, done, dev_scalars, dev_points } = st;
        // SAFETY: scalars[b] is pinned and is not written again before event b completes
        // (`pipeline` waits for it before the next fill of buffer b).
        unsafe { dev_scalars.copy_from_host_async(&scalars[b][..n])? };
        // Poison: a point the kernel failed to write cannot pass for the previous chunk's.
        dev_points.fill_bytes(0xa5)?;
        let (name, table) = match g {
            Generator::G1 => ("fb_g1", &self.tables[0]),
            Generator::G2 => ("fb_g2", &self.tables[1]),
        };
        let f = self.module.function(name)?;
        let args = [dev_points.arg(), dev_scalars.arg(), table.arg(), KernelArg::U32(n as u32)];
        // SAFETY: fb_g1/fb_g2(out, scalars, table, n) read n scalars (8 words each) and table
        // entries (indices below NWIN·HALF, the table's length), and write n points of `size`
        // bytes: dev_scalars holds `chunk` ≥ n scalars and dev_points chunk·96 ≥ n·size bytes
        // (G2 chunks are chunk/2 points). Blocks of 64 threads, as fb_g2's shared slots require.
        unsafe { f.launch(&self.gpu.stream, n.div_ceil(BLOCK) as u32, BLOCK as u32, &args)? };
        // SAFETY: points[b] is pinned and read (by the sink) only after event b completes; it is
        // not read or written meanwhile.
        unsafe { dev_points.copy_to_host_async(&mut points[b][..n * size])? };
        done[b].record(&self.gpu.stream)
    }
}

impl Drop for FixedBaseGpu {
    fn drop(&mut self) {
        // The pinned buffers must outlive every copy the stream may still run.
        let _ = self.gpu.stream.synchronize();
    }
}
