//! The parameter sections that stay on the device ([`ResidentSrs`]): converted once through
//! a feed ([`super::feed`]) and kept for the life of the process, as the memory plan
//! ([`super::residency`]) chooses.
use std::path::PathBuf;

use anyhow::anyhow;

use super::feed::{self, FeedFrom, Pinned};
use super::kernels::SrsKernels;
use super::layout::{Group, G1, G2};
use super::{DeviceBuffer, Gpu};
use crate::srs::{ParamsFile, RawPoints, SectionKind};

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
    // Full 256 MiB chunks: the staging made for the G1 sections (converted first) holds G2's too.
    let staging = Pinned::reuse::<G>(pinned.take(), gpu, RESIDENT_CHUNK_BYTES / G::SER).map_err(|e| e.to_string())?;
    let from = FeedFrom::Copied(raw.slice(0..n * G::SER));
    let fed = feed::with_feed::<G, _>(gpu, k, Some(staging), from, chunk, |feed| {
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
