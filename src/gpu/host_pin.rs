//! Streamed parameter sections kept in page-locked host memory: the copy engine uploads their
//! chunks straight from it, with no copy by the cores into staging buffers first.
//!
//! A section that does not fit on the device streams at every MSM. From pageable memory (the
//! mapped file) each chunk is first copied into pinned staging by the cores, 17–24 GB/s on the
//! H200 host, and the batch additions of the sparse queries wait for that copy. Page-locked once,
//! the section goes to the device at the copy engine's rate. The memory plan
//! ([`super::residency::choose_pinned`]) picks which streamed sections are pinned within a host
//! budget (`--pin-host-mem`, off by default until a device has measured it; the L, A and B G2
//! sections of the 32GiB PoRep parameters take 29 GiB); they are pinned once per process and
//! shared by every device.
//!
//! A section is pinned in place where the driver can lock the file's pages (a read-only
//! registration of a mapping of the file: no copy, no memory beside the page cache), else copied
//! once into anonymous memory that is then locked.
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use super::{Context, PinnedBuffer};
use crate::srs::{ParamsFile, SectionKind};

/// One pinned section.
struct PinnedSection {
    path: PathBuf,
    kind: SectionKind,
    buf: Arc<PinnedBuffer<u8>>,
}

/// The sections pinned in this process (every device's prover shares them).
fn pinned() -> &'static Mutex<Vec<PinnedSection>> {
    static PINNED: OnceLock<Mutex<Vec<PinnedSection>>> = OnceLock::new();
    PINNED.get_or_init(|| Mutex::new(Vec::new()))
}

/// How a section came to be pinned, for the plan's line on stderr.
pub struct PinReport {
    pub kind: SectionKind,
    pub bytes: u64,
    pub in_place: bool,
    pub seconds: f64,
}

/// Whether sections are page-locked in place (the file's pages) before trying a copy:
/// `FILSNARK_PIN_COPY=1` copies them into huge pages instead (docs/tuning.md).
fn in_place_first() -> bool {
    std::env::var("FILSNARK_PIN_COPY").map_or(true, |v| v != "1")
}

/// The raw points of section `kind` of `srs` in page-locked memory: pinned before by this process,
/// or now (in place, else copied). Pinned sections of other files are let go first.
pub fn pin(
    ctx: &Arc<Context>,
    srs: &ParamsFile,
    kind: SectionKind,
) -> Result<(Arc<PinnedBuffer<u8>>, Option<PinReport>), String> {
    let mut all = pinned().lock().unwrap_or_else(|e| e.into_inner());
    all.retain(|p| p.path == srs.path);
    if let Some(p) = all.iter().find(|p| p.kind == kind) {
        return Ok((p.buf.clone(), None));
    }
    let clock = Instant::now();
    let raw = srs.raw(kind);
    let offset = srs.section_offset(kind) as u64;
    let placed =
        if in_place_first() { PinnedBuffer::register_file(ctx, srs.file(), offset, raw.len()).ok() } else { None };
    let (buf, in_place) = match placed {
        Some(b) => (b, true),
        None => {
            let copy = PinnedBuffer::register_filled(ctx, raw.len(), |at, dst| {
                dst.copy_from_slice(&raw[at..at + dst.len()]);
                Ok(())
            });
            let copy = copy.map_err(|e| format!("{}: section {}: {e}", srs.path.display(), kind.name()))?;
            // The copy holds the bytes; the map's pages leave the process's RSS.
            srs.release_pages(kind, 0, raw.len());
            (copy, false)
        }
    };
    let buf = Arc::new(buf);
    all.push(PinnedSection { path: srs.path.clone(), kind, buf: buf.clone() });
    let report = PinReport { kind, bytes: raw.len() as u64, in_place, seconds: clock.elapsed().as_secs_f64() };
    Ok((buf, Some(report)))
}

/// "l, a pinned in host memory (24.5 GiB: l in place in 1.20 s, a copied in 3.10 s)".
pub fn describe(reports: &[PinReport]) -> String {
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    let total: u64 = reports.iter().map(|r| r.bytes).sum();
    let names = reports.iter().map(|r| r.kind.name()).collect::<Vec<_>>().join(", ");
    let each = reports
        .iter()
        .map(|r| format!("{} {} in {:.2} s", r.kind.name(), if r.in_place { "in place" } else { "copied" }, r.seconds))
        .collect::<Vec<_>>()
        .join(", ");
    format!("{names} pinned in host memory ({:.1} GiB: {each})", gib(total))
}
