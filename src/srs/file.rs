//! One `.params` file, memory-mapped: the verifying key decoded, the five sections located
//! (offset and count) without reading their points, and every count checked against the file
//! length and, on request, against a circuit's shape.
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{anyhow, bail, Context, Result};
use blstrs::{G1Affine, G2Affine};
use memmap2::Mmap;

use super::points::{G1_BYTES, G2_BYTES};
use super::raw::RawPoints;
use crate::ec::{G1, G2};

/// The five point sections of a `.params` file, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionKind {
    H,
    L,
    A,
    BG1,
    BG2,
}

impl SectionKind {
    pub const ALL: [SectionKind; 5] = [Self::H, Self::L, Self::A, Self::BG1, Self::BG2];

    pub fn name(self) -> &'static str {
        match self {
            Self::H => "h",
            Self::L => "l",
            Self::A => "a",
            Self::BG1 => "b_g1",
            Self::BG2 => "b_g2",
        }
    }

    pub fn point_bytes(self) -> usize {
        if self == Self::BG2 {
            G2_BYTES
        } else {
            G1_BYTES
        }
    }
}

/// Where a section's points lie in the file.
#[derive(Clone, Copy, Debug)]
pub struct Section {
    pub kind: SectionKind,
    /// Byte offset of the first point (after the u32 count).
    pub offset: usize,
    pub count: usize,
}

/// The Groth16 verifying key.
#[derive(Clone, Debug)]
pub struct VerifyingKey {
    pub alpha_g1: G1Affine,
    pub beta_g1: G1Affine,
    pub beta_g2: G2Affine,
    pub gamma_g2: G2Affine,
    pub delta_g1: G1Affine,
    pub delta_g2: G2Affine,
    pub ic: Vec<G1Affine>,
}

/// The counts a circuit needs from its parameters (bellperson's shape rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Public inputs including ONE.
    pub inputs: usize,
    pub aux: usize,
    /// Evaluation domain size (power of two ≥ constraints + inputs).
    pub domain: usize,
    /// Aux variables occurring in A.
    pub a_aux: usize,
    /// Inputs and aux variables occurring in B.
    pub b_inputs: usize,
    pub b_aux: usize,
}

impl Shape {
    pub fn expected(&self, kind: SectionKind) -> usize {
        match kind {
            SectionKind::H => self.domain - 1,
            SectionKind::L => self.aux,
            SectionKind::A => self.inputs + self.a_aux,
            SectionKind::BG1 | SectionKind::BG2 => self.b_inputs + self.b_aux,
        }
    }
}

pub struct ParamsFile {
    pub path: PathBuf,
    map: Mmap,
    /// The open file behind the map: streamed points are copied out with positioned reads
    /// ([`RawPoints`]) when `FILSNARK_PARAMS_READ=file`.
    file: File,
    read_file: bool,
    pub vk: VerifyingKey,
    pub sections: [Section; 5],
    /// Outcome of the sampled point check, done once per open file.
    sampled: OnceLock<std::result::Result<(), String>>,
}

/// Points fully checked (on the curve, in the subgroup) per section by [`ParamsFile::check_shape`].
const SAMPLES_PER_SECTION: usize = 64;

const VK_FIXED: usize = 3 * G1_BYTES + 3 * G2_BYTES;

fn read_u32(map: &[u8], at: usize) -> Option<usize> {
    map.get(at..at + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

fn g1(bytes: &[u8], what: &str) -> Result<G1Affine> {
    let arr: &[u8; G1_BYTES] = bytes.try_into().unwrap();
    Option::from(G1Affine::from_uncompressed(arr)).ok_or_else(|| anyhow!("{what} is not a valid G1 point"))
}

fn g2(bytes: &[u8], what: &str) -> Result<G2Affine> {
    let arr: &[u8; G2_BYTES] = bytes.try_into().unwrap();
    Option::from(G2Affine::from_uncompressed(arr)).ok_or_else(|| anyhow!("{what} is not a valid G2 point"))
}

/// Parses a verifying key (the start of a `.params` file, or a whole `.vk` file); returns it
/// and the number of bytes it took.
pub fn parse_vk(bytes: &[u8], path: &Path) -> Result<(VerifyingKey, usize)> {
    let p = path.display();
    if bytes.len() < VK_FIXED + 4 {
        bail!("{p}: truncated: {} bytes, shorter than a verifying key ({} bytes at least)", bytes.len(), VK_FIXED + 4);
    }
    let mut at = 0;
    let mut next = |n: usize| {
        let s = &bytes[at..at + n];
        at += n;
        s
    };
    let named = |e: anyhow::Error| anyhow!("{p}: {e}: the file is corrupt or not a parameter file");
    let alpha_g1 = g1(next(G1_BYTES), "the verifying key's alpha_g1 (byte 0)").map_err(named)?;
    let beta_g1 = g1(next(G1_BYTES), "the verifying key's beta_g1 (byte 96)").map_err(named)?;
    let beta_g2 = g2(next(G2_BYTES), "the verifying key's beta_g2 (byte 192)").map_err(named)?;
    let gamma_g2 = g2(next(G2_BYTES), "the verifying key's gamma_g2 (byte 384)").map_err(named)?;
    let delta_g1 = g1(next(G1_BYTES), "the verifying key's delta_g1 (byte 576)").map_err(named)?;
    let delta_g2 = g2(next(G2_BYTES), "the verifying key's delta_g2 (byte 672)").map_err(named)?;
    let n = read_u32(bytes, VK_FIXED).unwrap();
    let end = VK_FIXED + 4 + n * G1_BYTES;
    if bytes.len() < end {
        bail!("{p}: truncated in section ic: {n} points need {end} bytes, the file has {}", bytes.len());
    }
    let ic = (0..n)
        .map(|i| {
            let o = VK_FIXED + 4 + i * G1_BYTES;
            g1(&bytes[o..o + G1_BYTES], &format!("the verifying key's ic[{i}] (byte {o})"))
        })
        .collect::<Result<Vec<_>>>()
        .map_err(named)?;
    Ok((VerifyingKey { alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, ic }, end))
}

/// Reads a `.vk` file.
pub fn read_vk_file(path: &Path) -> Result<VerifyingKey> {
    super::locate::check_regular(path, "verifying key file")?;
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read the verifying key", path.display()))?;
    let (vk, used) = parse_vk(&bytes, path)?;
    if used != bytes.len() {
        bail!("{}: {} bytes after the verifying key; not a .vk file", path.display(), bytes.len() - used);
    }
    Ok(vk)
}

/// `FILSNARK_PARAMS_READ`: `map` (the default) copies streamed points through the mapping,
/// `file` with positioned reads of the file. `file` avoids faulting every page in again at each
/// streamed MSM; it becomes the default once measured on a device (docs/tuning.md).
fn read_file_setting() -> std::result::Result<bool, String> {
    match std::env::var("FILSNARK_PARAMS_READ").as_deref() {
        Err(_) | Ok("map") => Ok(false),
        Ok("file") => Ok(true),
        Ok(v) => Err(format!("FILSNARK_PARAMS_READ={v}: expected map or file")),
    }
}

impl ParamsFile {
    /// Maps the file and locates its sections; reads no section points.
    pub fn open(path: &Path) -> Result<Self> {
        let p = path.display();
        super::locate::check_regular(path, "parameter file")?;
        let file = File::open(path).with_context(|| format!("{p}: cannot open the parameter file"))?;
        // SAFETY: a read-only mapping, read only as bytes. The one assumption is the one every
        // prover makes of its parameter files: nobody truncates or rewrites the file while it is
        // mapped (setup writes under a temporary name and renames, never in place).
        let map = unsafe { Mmap::map(&file) }.with_context(|| format!("{p}: cannot mmap the parameter file"))?;
        let (vk, mut at) = parse_vk(&map, path)?;
        let mut sections = [Section { kind: SectionKind::H, offset: 0, count: 0 }; 5];
        for (slot, kind) in sections.iter_mut().zip(SectionKind::ALL) {
            let count = read_u32(&map, at).ok_or_else(|| {
                anyhow!("{p}: truncated: the file ends ({} bytes) before section {}", map.len(), kind.name())
            })?;
            let offset = at + 4;
            let end = offset + count * kind.point_bytes();
            if end > map.len() {
                bail!(
                    "{p}: truncated in section {}: {count} points need {} bytes from offset {offset}, the file has {}",
                    kind.name(),
                    count * kind.point_bytes(),
                    map.len() - offset
                );
            }
            *slot = Section { kind, offset, count };
            at = end;
        }
        if at != map.len() {
            bail!(
                "{p}: {} unexpected bytes after section b_g2 (file {} bytes, sections end at {at})",
                map.len() - at,
                map.len()
            );
        }
        let read_file = read_file_setting().map_err(|e| anyhow!(e))?;
        Ok(Self { path: path.to_path_buf(), map, file, read_file, vk, sections, sampled: OnceLock::new() })
    }

    pub fn section(&self, kind: SectionKind) -> &Section {
        &self.sections[kind as usize]
    }

    /// The open file behind the map (for mappings of a section of its own, such as a page-locked one).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The file offset of a section's first point.
    pub fn section_offset(&self, kind: SectionKind) -> usize {
        self.section(kind).offset
    }

    /// The raw bytes of a section's points.
    pub fn raw(&self, kind: SectionKind) -> &[u8] {
        let s = self.section(kind);
        &self.map[s.offset..s.offset + s.count * kind.point_bytes()]
    }

    /// A section's raw points as the streamed MSMs and the resident upload copy them: through the
    /// map or, with `FILSNARK_PARAMS_READ=file`, read from the file ([`Self::file_points`]).
    pub fn raw_points(&self, kind: SectionKind) -> RawPoints<'_> {
        if self.read_file {
            self.file_points(kind)
        } else {
            RawPoints::memory(self.raw(kind))
        }
    }

    /// A section's raw points, copied out with positioned reads of the file (no page of the map
    /// touched).
    pub fn file_points(&self, kind: SectionKind) -> RawPoints<'_> {
        RawPoints::mapped(self.raw(kind), &self.file, &self.path, self.section(kind).offset as u64)
    }

    /// Drops this process's pages of `len` bytes at `offset` of a section (once they are on the
    /// device): they leave the process's resident set and stay in the page cache, and a later
    /// read faults them in again with the same bytes. Advice only; a refusal is ignored.
    pub fn release_pages(&self, kind: SectionKind, offset: usize, len: usize) {
        let at = self.section(kind).offset + offset;
        // SAFETY: the map is a read-only shared mapping of a file: after MADV_DONTNEED a read of
        // these pages maps the file's page-cache pages again, so every reference into the map
        // (raw() slices included) keeps seeing the same bytes.
        let _ = unsafe { self.map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, at, len) };
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Checks every count against a circuit's shape (naming the file, the section, the
    /// expected and the found count on a mismatch), then, once per open file, a spread of
    /// points of every section in full: a corrupt or foreign file fails here, not as a proof
    /// that does not verify.
    pub fn check_shape(&self, shape: &Shape) -> Result<()> {
        self.check_counts(shape)?;
        self.sampled.get_or_init(|| self.check_sample()).clone().map_err(|e| anyhow!(e))
    }

    /// Fully checks SAMPLES_PER_SECTION evenly spread points of each section.
    fn check_sample(&self) -> std::result::Result<(), String> {
        for s in &self.sections {
            let stride = (s.count / SAMPLES_PER_SECTION).max(1);
            let raw = self.raw(s.kind);
            let bad = match s.kind {
                SectionKind::BG2 => super::points::check_sample::<G2>(raw, stride),
                _ => super::points::check_sample::<G1>(raw, stride),
            };
            if let Some(i) = bad {
                return Err(format!(
                    "{}: section {} point {i} is not a valid {} point (on the curve, in the subgroup): the file is \
                     corrupt or not a parameter file",
                    self.path.display(),
                    s.kind.name(),
                    if s.kind == SectionKind::BG2 { "G2" } else { "G1" }
                ));
            }
        }
        Ok(())
    }

    fn check_counts(&self, shape: &Shape) -> Result<()> {
        let p = self.path.display();
        if self.vk.ic.len() != shape.inputs {
            bail!(
                "{p}: section ic has {} points, the circuit needs {} (one per public input)",
                self.vk.ic.len(),
                shape.inputs
            );
        }
        for s in &self.sections {
            let want = shape.expected(s.kind);
            if s.count != want {
                bail!(
                    "{p}: section {} has {} points, the circuit needs {want}: these parameters are for another \
                     circuit or sector size",
                    s.kind.name(),
                    s.count
                );
            }
        }
        Ok(())
    }
}
