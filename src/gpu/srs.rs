//! .params point sections to the kernels' layout on the device.
//!
//! A section of a .params file is a run of uncompressed big-endian points
//! (G1: x||y, 96 bytes; G2: x.c1||x.c0||y.c1||y.c0, 192 bytes; flag bits in the
//! first byte, 0x40 = infinity). `convert_section` copies such bytes to the
//! device and runs `srs_g1_affine` / `srs_g2_affine` (module "srs"), which
//! write affine Montgomery points (infinity = (0,0)) and a status word per
//! point: 0 ok, 1 coordinate >= p, 2 wrong flags, 4 not on the curve.
use std::path::PathBuf;

use anyhow::anyhow;

use super::feed::{self, Pinned};
use super::kernels::{blocks_for, SrsConvert, SrsConvertArgs, SrsKernels};
use super::layout::{Group, G1, G2};
use super::{DeviceBuffer, Gpu, GpuError, Result};
use crate::srs::{ParamsFile, RawPoints, SectionKind};

/// The conversion kernel of group G, checked against the host's view of G's layout.
pub fn converter<G: Group>(k: &SrsKernels) -> Result<&SrsConvert> {
    let c = if G::W == 12 { k.g1_affine() } else { k.g2_affine() };
    if c.point_bytes() as usize != G::SER || c.point_words() as usize != 2 * G::W {
        return Err(GpuError::Invalid(format!(
            "the {} conversion kernel's point layout differs from the host's",
            G::NAME
        )));
    }
    Ok(c)
}

/// Converts `len` points from `input` into `out` (from point `at` on) and their status words.
fn convert<G: Group>(
    gpu: &Gpu,
    c: &SrsConvert,
    out: &DeviceBuffer<u32>,
    at: usize,
    input: &DeviceBuffer<u8>,
    status: &DeviceBuffer<u32>,
    len: usize,
) -> Result<()> {
    let block = c.kernel().max_threads_per_block()?.clamp(32, 256) as u32;
    let args =
        SrsConvertArgs { out: out.slice(at * 2 * G::W..)?, in0: input.view(), status: status.view(), n: len as u32 };
    c.launch(&gpu.stream, blocks_for(len, block), block, &args)
}

/// Converts `bytes` (a whole number of points of group G) on the device.
/// Returns the device buffer of affine points (2 * G::W words each) and the
/// status words (copied back to the host).
pub fn convert_section<G: Group>(gpu: &Gpu, k: &SrsKernels, bytes: &[u8]) -> Result<(DeviceBuffer<u32>, Vec<u32>)> {
    if !bytes.len().is_multiple_of(G::SER) {
        return Err(GpuError::Invalid(format!(
            "{} section of {} bytes is not a whole number of points",
            G::NAME,
            bytes.len()
        )));
    }
    let n = bytes.len() / G::SER;
    let c = converter::<G>(k)?;
    let mut input = gpu.alloc::<u8>(bytes.len())?;
    input.copy_from_host(bytes)?;
    let out = gpu.alloc::<u32>(n * 2 * G::W)?;
    let status = gpu.alloc::<u32>(n)?;
    convert::<G>(gpu, c, &out, 0, &input, &status, n)?;
    let mut st = vec![0u32; n];
    status.copy_to_host(&mut st)?;
    Ok((out, st))
}

/// Raw bytes per chunk when a section is made resident (each of two pinned and two device
/// staging buffers): 2.8M G1 or 1.4M G2 points.
const RESIDENT_CHUNK_BYTES: usize = 256 << 20;

/// Device bytes the five sections of `srs` take once converted (the same as their raw size:
/// 24 words per G1 point, 48 per G2 point).
pub fn resident_bytes(srs: &ParamsFile) -> u64 {
    SectionKind::ALL.iter().map(|&k| srs.raw(k).len() as u64).sum()
}

/// The point sections of one `.params` file that the memory plan keeps on the device
/// ([`super::residency`]), converted once and kept for the life of the process.
pub struct ResidentSrs {
    pub path: PathBuf,
    sections: Vec<Option<DeviceBuffer<u32>>>,
}

impl ResidentSrs {
    /// Converts the sections `kinds` of `srs` chunk by chunk (module "srs") and checks every
    /// point's status; a bad point is an error naming the file, the section and the point.
    pub fn load(gpu: &Gpu, k: &SrsKernels, srs: &ParamsFile, kinds: &[SectionKind]) -> anyhow::Result<ResidentSrs> {
        let mut sections = Vec::with_capacity(5);
        // One pinned staging for every section (256 MiB chunks hold whole points of both groups).
        let mut pinned = None;
        for kind in SectionKind::ALL {
            if !kinds.contains(&kind) {
                sections.push(None);
                continue;
            }
            // Each uploaded chunk's file pages leave the process's RSS (the device holds them).
            let release = |at: usize, len: usize| srs.release_pages(kind, at, len);
            let buf = if kind == SectionKind::BG2 {
                convert_resident::<G2>(gpu, k, srs.raw_points(kind), &mut pinned, &release)
            } else {
                convert_resident::<G1>(gpu, k, srs.raw_points(kind), &mut pinned, &release)
            };
            let buf = buf.map_err(|e| anyhow!("{}: section {}: {e}", srs.path.display(), kind.name()))?;
            sections.push(Some(buf));
        }
        Ok(ResidentSrs { path: srs.path.clone(), sections })
    }

    /// The converted points of one section, if it is resident.
    pub fn section(&self, kind: SectionKind) -> Option<&DeviceBuffer<u32>> {
        self.sections[kind as usize].as_ref()
    }

    /// Frees one section's points (the plan streams it from now on).
    pub fn evict(&mut self, kind: SectionKind) {
        self.sections[kind as usize] = None;
    }
}

/// Converts a whole section into one device buffer, `RESIDENT_CHUNK` points per chunk through
/// a feed ([`super::feed`]: the host copies, the uploads and the conversions overlap); the
/// status words of each chunk are checked while the next one uploads, and `release(offset, len)`
/// is told each chunk's bytes once they are on the device. `pinned`: the staging, made on first
/// use and kept for the next section.
fn convert_resident<G: Group>(
    gpu: &Gpu,
    k: &SrsKernels,
    raw: RawPoints<'_>,
    pinned: &mut Option<Pinned>,
    release: &dyn Fn(usize, usize),
) -> std::result::Result<DeviceBuffer<u32>, String> {
    let n = raw.len() / G::SER;
    let out = gpu.alloc::<u32>(n * 2 * G::W).map_err(|e| e.to_string())?;
    if n == 0 {
        return Ok(out);
    }
    let chunk = (RESIDENT_CHUNK_BYTES / G::SER).min(n);
    let staging = match pinned.take() {
        Some(p) if p.fits::<G>(chunk) => p,
        _ => Pinned::new::<G1>(gpu, RESIDENT_CHUNK_BYTES / G1::SER).map_err(|e| e.to_string())?,
    };
    let fed = feed::with_feed::<G, _>(gpu, k, staging, raw.slice(0..n * G::SER), chunk, |feed| {
        feed.upload(0)?;
        for i in 0..feed.chunks() {
            let first = i * chunk;
            let len = chunk.min(n - first);
            feed.convert(i, out.slice(first * 2 * G::W..(first + len) * 2 * G::W)?)?;
            if i + 1 < feed.chunks() {
                feed.upload(i + 1)?;
            }
            feed.check()?;
            release(first * G::SER, len * G::SER);
        }
        Ok(())
    });
    let ((), kept, _) = fed.map_err(|e| e.to_string())?;
    *pinned = kept;
    Ok(out)
}

/// What a conversion status word means.
pub fn status_reason(s: u32) -> String {
    let mut why = Vec::new();
    if s & 1 != 0 {
        why.push("a coordinate is not below p");
    }
    if s & 2 != 0 {
        why.push("wrong flag bits");
    }
    if s & 4 != 0 {
        why.push("not on the curve");
    }
    if why.is_empty() {
        return format!("status {s:#x}");
    }
    why.join(", ")
}
