//! Fixed-base scalar multiplication of the standard generators on the device (module
//! "generator_mul", ptx/setup/generator_mul.ptxi): Fr scalars in, uncompressed zcash-encoded
//! affine points out, byte for byte what the CPU tables of [`crate::ec::generator_table`] write.
//!
//! The device holds the window tables of G1 and G2 (48 and 96 MiB: the CPU path's own blst
//! tables, uploaded once), one chunk of scalars and one chunk of encoded points; the host holds
//! two pinned chunks of each. [`GeneratorMul::stream`] runs the device on chunk k + 1 (upload,
//! kernel, download, all ordered on one stream) while the caller's sink handles chunk k (a file
//! write, in `params setup`), so memory stays bounded whatever the count.
use std::sync::Mutex;

use blstrs::Scalar;
use rayon::prelude::*;

use super::kernels::generator_mul::{WINDOWS, WINDOW_BITS, WINDOW_ENTRIES};
use super::kernels::{blocks_for, GeneratorMul as Launcher, GeneratorMulArgs, GeneratorMulKernels};
use super::layout::{fp2_words, fp_words};
use super::{DeviceBuffer, Gpu, GpuError, PinnedBuffer, Result};
use crate::ec::generator_table::{g1_generator, g2_generator, G1Table, G2Table, Generator, HALF, NWIN, WBITS};

// The kernels read the CPU path's tables as they are: the same windows.
const _: () = assert!(WBITS == WINDOW_BITS as usize && NWIN == WINDOWS as usize && HALF == WINDOW_ENTRIES as usize);

/// Threads per block of both kernels (fb_g2 allows at most 64: one shared-memory slot each).
const BLOCK: u32 = 64;
/// G1 points per chunk by default (384 MiB of encoded points; G2 chunks hold half as many).
pub const DEFAULT_CHUNK: usize = 1 << 22;

/// Host and device buffers of the chunk pipeline, two of each host kind (double buffering).
struct ChunkBuffers {
    scalars: [PinnedBuffer<Scalar>; 2],
    points: [PinnedBuffer<u8>; 2],
    dev_scalars: DeviceBuffer<Scalar>,
    dev_points: DeviceBuffer<u8>,
}

/// The device tables and the chunk pipeline; see the module documentation.
pub struct GeneratorMul {
    gpu: Gpu,
    kernels: GeneratorMulKernels,
    /// G1 then G2 tables: `[k·2^15 + d − 1]` = d·2^(16k)·G, affine Montgomery words.
    tables: [DeviceBuffer<u32>; 2],
    /// G1 points per chunk.
    chunk: usize,
    buffers: Mutex<ChunkBuffers>,
}

/// Device words of a table of affine points, `words` per point.
fn table_words<A: Sync>(entries: &[A], words: usize, to_words: impl Fn(&A, &mut [u32]) + Sync) -> Vec<u32> {
    let mut w = vec![0u32; entries.len() * words];
    w.par_chunks_mut(words).zip(entries.par_iter()).for_each(|(o, a)| to_words(a, o));
    w
}

impl GeneratorMul {
    /// Builds the window tables with blst and uploads them; chunks of [`DEFAULT_CHUNK`].
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let (g1, g2) = rayon::join(|| G1Table::new(&g1_generator()), || G2Table::new(&g2_generator()));
        Self::with_tables(gpu, &g1, &g2, DEFAULT_CHUNK)
    }

    /// Uploads existing tables (of the standard generators) and sets up chunks of `chunk` G1
    /// points (`chunk / 2` G2 points): 2·chunk·(96 + 32) bytes of pinned host memory, half that
    /// on the device besides the 144 MiB of tables. Loads module "generator_mul" (JIT).
    pub fn with_tables(gpu: &Gpu, g1: &G1Table, g2: &G2Table, chunk: usize) -> Result<Self> {
        let chunk = chunk.max(2);
        let expect = NWIN * HALF;
        if g1.entries().len() != expect || g2.entries().len() != expect {
            return Err(GpuError::Invalid(format!("fixed-base tables of {expect} entries expected")));
        }
        let kernels = GeneratorMulKernels::load(gpu)?;
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
        let buffers = ChunkBuffers {
            scalars: [PinnedBuffer::new(&gpu.ctx, chunk)?, PinnedBuffer::new(&gpu.ctx, chunk)?],
            points: [PinnedBuffer::new(&gpu.ctx, bytes)?, PinnedBuffer::new(&gpu.ctx, bytes)?],
            dev_scalars: gpu.alloc(chunk)?,
            dev_points: gpu.alloc(bytes)?,
        };
        let gpu = gpu.share();
        gpu.stream.synchronize()?;
        Ok(GeneratorMul { gpu, kernels, tables, chunk, buffers: Mutex::new(buffers) })
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

    /// s_i·G into `out` for a slice of any length (chunked through [`GeneratorMul::stream`]).
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
        let mut bufs = self.buffers.lock().map_err(|_| anyhow::anyhow!("generator_mul buffers poisoned"))?;
        self.pipeline(&mut bufs, g, count, fill, sink)
    }

    fn pipeline(
        &self,
        bufs: &mut ChunkBuffers,
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
            // host_mut waits for buffer b's last upload (the chunk before the previous one)
            fill(at, bufs.scalars[b].host_mut(..n)?);
            self.enqueue(bufs, g, b, n)?;
            if let Some((pb, pn)) = pending.take() {
                sink(bufs.points[pb].host(..pn * size)?)?;
            }
            pending = Some((b, n));
            at += n;
            k += 1;
        }
        if let Some((pb, pn)) = pending {
            sink(bufs.points[pb].host(..pn * size)?)?;
        }
        Ok(())
    }

    /// Stream-ordered: scalars of buffer b up, kernel, points down into buffer b.
    fn enqueue(&self, bufs: &mut ChunkBuffers, g: Generator, b: usize, n: usize) -> Result<()> {
        let size = g.point_bytes();
        let ChunkBuffers { scalars, points, dev_scalars, dev_points } = bufs;
        dev_scalars.upload(0, &scalars[b], 0..n)?;
        // Poison: a point the kernel failed to write cannot pass for the previous chunk's.
        dev_points.fill_bytes(0xa5)?;
        let (kernel, table): (&Launcher, _) = match g {
            Generator::G1 => (self.kernels.g1(), &self.tables[0]),
            Generator::G2 => (self.kernels.g2(), &self.tables[1]),
        };
        if kernel.point_bytes() as usize != size {
            return Err(GpuError::Invalid(format!(
                "{g:?}: the kernel writes {} bytes per point",
                kernel.point_bytes()
            )));
        }
        let args =
            GeneratorMulArgs { out: dev_points.view(), scalars: dev_scalars.view(), table: table.view(), n: n as u32 };
        kernel.launch(&self.gpu.stream, blocks_for(n, BLOCK), BLOCK, &args)?;
        dev_points.download(&self.gpu.stream, 0, &mut points[b], 0, n * size)
    }
}
