//! The SnarkPack SRS file, `v28-fil-inner-product-v1.srs` (bellperson's `GenericSRS`), found
//! like the `.params` files, mmapped, and decoded only as far as a proof count needs.
//!
//! Layout: four vectors, each a u32 big-endian count followed by compressed points:
//! g^{α^i} (G1, 48 B), g^{β^i} (G1), h^{α^i} (G2, 96 B), h^{β^i} (G2), i = 0, 1, …. Aggregating
//! n proofs (n a power of two) takes the first 2n of each vector; verifying takes the first two.
//! filecoin-proofs reads at most 32,769 powers of each vector, so it aggregates at most 16,384
//! proofs whatever the file holds; so does filsnark.
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use blstrs::{G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;
use memmap2::Mmap;
use rayon::prelude::*;

use super::commit::{Key, VKey, WKey};

/// The official file stem and extension.
pub const SRS_STEM: &str = "v28-fil-inner-product-v1";
pub const SRS_EXT: &str = "srs";
/// The longest vector a valid file has (bellperson's MAX_SRS_SIZE).
pub const MAX_VECTOR: usize = (2 << 19) + 1;
/// How many powers of each vector filecoin-proofs reads.
pub const READ_LIMIT: usize = (2 << 14) + 1;

/// The four vectors, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vector {
    GAlpha,
    GBeta,
    HAlpha,
    HBeta,
}

impl Vector {
    pub const ALL: [Vector; 4] = [Vector::GAlpha, Vector::GBeta, Vector::HAlpha, Vector::HBeta];

    pub fn name(self) -> &'static str {
        match self {
            Vector::GAlpha => "g_alpha_powers",
            Vector::GBeta => "g_beta_powers",
            Vector::HAlpha => "h_alpha_powers",
            Vector::HBeta => "h_beta_powers",
        }
    }

    pub fn point_bytes(self) -> usize {
        match self {
            Vector::GAlpha | Vector::GBeta => 48,
            Vector::HAlpha | Vector::HBeta => 96,
        }
    }
}

/// Where a vector's points are in the file.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    pub count: usize,
    pub offset: usize,
}

/// An opened SRS file: its header walked and checked, no point decoded yet.
pub struct SrsFile {
    pub path: PathBuf,
    map: Mmap,
    spans: [Span; 4],
}

/// What the prover needs for n proofs: 2n powers of g (α and β) and n powers of h.
pub struct ProverKey {
    pub n: usize,
    pub g_alpha: Vec<G1Affine>,
    pub g_beta: Vec<G1Affine>,
    pub h_alpha: Vec<G2Affine>,
    pub h_beta: Vec<G2Affine>,
}

impl ProverKey {
    /// The commitment key of A and C: h^{α^i}, h^{β^i}, i < n.
    pub fn vkey(&self) -> VKey {
        Key { a: self.h_alpha.clone(), b: self.h_beta.clone() }
    }

    /// The commitment key of B: g^{α^i}, g^{β^i}, n ≤ i < 2n.
    pub fn wkey(&self) -> WKey {
        Key { a: self.g_alpha[self.n..].to_vec(), b: self.g_beta[self.n..].to_vec() }
    }
}

/// What the verifier needs: the generators and the first power of each vector.
#[derive(Clone, Debug)]
pub struct VerifierKey {
    pub n: usize,
    pub g: G1Affine,
    pub h: G2Affine,
    pub g_alpha: G1Affine,
    pub g_beta: G1Affine,
    pub h_alpha: G2Affine,
    pub h_beta: G2Affine,
}

/// The SRS path in the parameter directory (`--params-dir`, else the usual places).
pub fn locate(params_dir: Option<&Path>) -> Result<PathBuf> {
    crate::srs::locate::find(params_dir, SRS_STEM, SRS_EXT)
}

impl SrsFile {
    pub fn open(path: &Path) -> Result<Self> {
        let p = path.display();
        let file = std::fs::File::open(path).with_context(|| format!("{p}: cannot open the SnarkPack SRS"))?;
        // SAFETY: read-only map of a file nobody should modify while we run (as for .params).
        let map = unsafe { Mmap::map(&file) }.with_context(|| format!("{p}: cannot mmap the SnarkPack SRS"))?;
        let spans = walk(&map).map_err(|e| anyhow!("{p}: {e}"))?;
        Ok(SrsFile { path: path.to_path_buf(), map, spans })
    }

    pub fn span(&self, v: Vector) -> Span {
        self.spans[v as usize]
    }

    /// The most proofs (a power of two) this file lets filecoin-proofs aggregate; 0 if none.
    pub fn max_proofs(&self) -> usize {
        let powers = self.spans.iter().map(|s| s.count).min().unwrap_or(0).min(READ_LIMIT);
        if powers < 4 {
            return 0;
        }
        let half = powers / 2;
        1 << (usize::BITS - 1 - half.leading_zeros())
    }

    /// An error unless `n` (a power of two, at least 2) proofs fit this file.
    pub fn check_capacity(&self, n: usize) -> Result<()> {
        if n < 2 || !n.is_power_of_two() {
            bail!("SnarkPack aggregates a power of two proofs, at least 2; asked for {n}");
        }
        let max = self.max_proofs();
        if n > max {
            let counts: Vec<String> =
                Vector::ALL.iter().map(|v| format!("{} {}", v.name(), self.span(*v).count)).collect();
            bail!(
                "{}: this SnarkPack SRS supports at most {max} proofs ({}; {n} proofs need 2×{n} powers of \
                 each, and filecoin-proofs reads at most {READ_LIMIT})",
                self.path.display(),
                counts.join(", ")
            );
        }
        Ok(())
    }

    fn g1s(&self, v: Vector, range: std::ops::Range<usize>) -> Result<Vec<G1Affine>> {
        decode(self, v, range, |b| Option::from(G1Affine::from_compressed(b.try_into().unwrap())))
    }

    fn g2s(&self, v: Vector, range: std::ops::Range<usize>) -> Result<Vec<G2Affine>> {
        decode(self, v, range, |b| Option::from(G2Affine::from_compressed(b.try_into().unwrap())))
    }

    /// The prover's powers for `n` proofs, every point decoded and checked.
    pub fn prover_key(&self, n: usize) -> Result<ProverKey> {
        self.check_capacity(n)?;
        let ((g_alpha, g_beta), (h_alpha, h_beta)) = rayon::join(
            || rayon::join(|| self.g1s(Vector::GAlpha, 0..2 * n), || self.g1s(Vector::GBeta, 0..2 * n)),
            || rayon::join(|| self.g2s(Vector::HAlpha, 0..n), || self.g2s(Vector::HBeta, 0..n)),
        );
        Ok(ProverKey { n, g_alpha: g_alpha?, g_beta: g_beta?, h_alpha: h_alpha?, h_beta: h_beta? })
    }

    /// The verifier's points for an aggregate of `n` proofs.
    pub fn verifier_key(&self, n: usize) -> Result<VerifierKey> {
        self.check_capacity(n)?;
        let ga = self.g1s(Vector::GAlpha, 0..2)?;
        let gb = self.g1s(Vector::GBeta, 0..2)?;
        let ha = self.g2s(Vector::HAlpha, 0..2)?;
        let hb = self.g2s(Vector::HBeta, 0..2)?;
        if ga[0] != gb[0] || ha[0] != hb[0] {
            bail!(
                "{}: corrupt SnarkPack SRS: the α and β vectors do not start at the same generator",
                self.path.display()
            );
        }
        Ok(VerifierKey { n, g: ga[0], h: ha[0], g_alpha: ga[1], g_beta: gb[1], h_alpha: ha[1], h_beta: hb[1] })
    }
}

/// The four vectors' counts and offsets; an error names what is wrong.
fn walk(bytes: &[u8]) -> Result<[Span; 4]> {
    let mut offset = 0usize;
    let mut spans = [Span { count: 0, offset: 0 }; 4];
    for v in Vector::ALL {
        let Some(head) = bytes.get(offset..offset + 4) else {
            bail!(
                "truncated SnarkPack SRS: {} bytes, the count of {} would start at byte {offset}",
                bytes.len(),
                v.name()
            );
        };
        let count = u32::from_be_bytes(head.try_into().unwrap()) as usize;
        if count > MAX_VECTOR {
            bail!(
                "corrupt SnarkPack SRS: {} claims {count} points, more than the {MAX_VECTOR} a valid file has",
                v.name()
            );
        }
        offset += 4;
        let end = offset + count * v.point_bytes();
        if end > bytes.len() {
            bail!(
                "truncated SnarkPack SRS: {} has {count} points of {} bytes ending at byte {end}, the file has {}",
                v.name(),
                v.point_bytes(),
                bytes.len()
            );
        }
        spans[v as usize] = Span { count, offset };
        offset = end;
    }
    Ok(spans)
}

/// Points `range` of vector `v`, decoded in parallel; the first bad one is named.
fn decode<G: PrimeCurveAffine + Send>(
    f: &SrsFile,
    v: Vector,
    range: std::ops::Range<usize>,
    parse: impl Fn(&[u8]) -> Option<G> + Sync,
) -> Result<Vec<G>> {
    let span = f.span(v);
    let size = v.point_bytes();
    let points: Vec<Option<G>> = range
        .clone()
        .into_par_iter()
        .map(|i| {
            let at = span.offset + i * size;
            parse(&f.map[at..at + size]).filter(|p| !bool::from(p.is_identity()))
        })
        .collect();
    if let Some(i) = points.iter().position(Option::is_none) {
        bail!(
            "{}: corrupt SnarkPack SRS: {} point {} (at byte {}) is not a valid compressed {} point of the \
             prime-order subgroup",
            f.path.display(),
            v.name(),
            range.start + i,
            span.offset + (range.start + i) * size,
            if size == 48 { "G1" } else { "G2" }
        );
    }
    Ok(points.into_iter().map(Option::unwrap).collect())
}
