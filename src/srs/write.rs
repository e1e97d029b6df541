//! Writing the official `.params` / `.vk` format (bellperson `Parameters::write` and
//! `VerifyingKey::write`), streamed: the verifying key, then each of the five sections as a
//! u32 big-endian count followed by its points, fed in chunks of already encoded points so a
//! 47 GB file never has to be in memory. The writer checks that every section gets exactly the
//! points its count announced, in file order.
use std::io::Write;

use anyhow::{bail, ensure, Context, Result};

use super::file::{SectionKind, VerifyingKey};

/// The verifying key as bellperson writes it (also the whole content of a `.vk` file).
pub fn vk_bytes(vk: &VerifyingKey) -> Result<Vec<u8>> {
    let n = u32::try_from(vk.ic.len()).context("too many ic points for a u32 count")?;
    let mut out = Vec::with_capacity(864 + 4 + 96 * vk.ic.len());
    out.extend_from_slice(&vk.alpha_g1.to_uncompressed());
    out.extend_from_slice(&vk.beta_g1.to_uncompressed());
    out.extend_from_slice(&vk.beta_g2.to_uncompressed());
    out.extend_from_slice(&vk.gamma_g2.to_uncompressed());
    out.extend_from_slice(&vk.delta_g1.to_uncompressed());
    out.extend_from_slice(&vk.delta_g2.to_uncompressed());
    out.extend_from_slice(&n.to_be_bytes());
    for p in &vk.ic {
        out.extend_from_slice(&p.to_uncompressed());
    }
    Ok(out)
}

/// Streams a `.params` file: [`ParamsWriter::new`] writes the verifying key; then for each
/// section in order h, l, a, b_g1, b_g2: [`ParamsWriter::begin`] with its count and
/// [`ParamsWriter::points`] with the encoded points; [`ParamsWriter::finish`] checks that all
/// five are complete.
pub struct ParamsWriter<W: Write> {
    w: W,
    /// Index into `SectionKind::ALL` of the next section to begin.
    next: usize,
    /// Points still owed to the current section.
    owed: usize,
    current: Option<SectionKind>,
    written: u64,
}

impl<W: Write> ParamsWriter<W> {
    pub fn new(mut w: W, vk: &VerifyingKey) -> Result<Self> {
        let bytes = vk_bytes(vk)?;
        w.write_all(&bytes)?;
        Ok(Self { w, next: 0, owed: 0, current: None, written: bytes.len() as u64 })
    }

    /// Starts section `kind` with `count` points; sections must come in file order.
    pub fn begin(&mut self, kind: SectionKind, count: usize) -> Result<()> {
        if let Some(cur) = self.current {
            ensure!(self.owed == 0, "section {} is missing {} points", cur.name(), self.owed);
        }
        let want = SectionKind::ALL.get(self.next).copied();
        if want != Some(kind) {
            bail!("section {} written out of order (expected {:?})", kind.name(), want.map(|k| k.name()));
        }
        let n = u32::try_from(count)
            .with_context(|| format!("section {}: {count} points overflow the u32 count", kind.name()))?;
        self.w.write_all(&n.to_be_bytes())?;
        self.written += 4;
        self.next += 1;
        self.owed = count;
        self.current = Some(kind);
        Ok(())
    }

    /// Appends encoded points (a whole number of them) to the current section.
    pub fn points(&mut self, bytes: &[u8]) -> Result<()> {
        let kind = self.current.context("points written before any section began")?;
        let size = kind.point_bytes();
        ensure!(
            bytes.len().is_multiple_of(size),
            "section {}: {} bytes are not whole points",
            kind.name(),
            bytes.len()
        );
        let n = bytes.len() / size;
        ensure!(n <= self.owed, "section {}: {} points more than its count", kind.name(), n - self.owed);
        self.w.write_all(bytes)?;
        self.owed -= n;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Checks that every section is complete and returns the inner writer, flushed.
    pub fn finish(mut self) -> Result<W> {
        ensure!(self.next == SectionKind::ALL.len(), "only {} of 5 sections written", self.next);
        ensure!(self.owed == 0, "section b_g2 is missing {} points", self.owed);
        self.w.flush()?;
        Ok(self.w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::srs::ParamsFile;
    use group::{Curve, Group};

    #[test]
    fn round_trips_through_params_file() {
        let g1 = blstrs::G1Projective::generator();
        let g2 = blstrs::G2Projective::generator();
        let s = |k: u64| blstrs::Scalar::from(k);
        let vk = VerifyingKey {
            alpha_g1: (g1 * s(2)).to_affine(),
            beta_g1: (g1 * s(3)).to_affine(),
            beta_g2: (g2 * s(3)).to_affine(),
            gamma_g2: (g2 * s(5)).to_affine(),
            delta_g1: (g1 * s(7)).to_affine(),
            delta_g2: (g2 * s(7)).to_affine(),
            ic: vec![(g1 * s(11)).to_affine(), (g1 * s(13)).to_affine()],
        };
        let mut w = ParamsWriter::new(Vec::new(), &vk).unwrap();
        assert!(w.begin(SectionKind::L, 0).is_err());
        for (i, kind) in SectionKind::ALL.into_iter().enumerate() {
            w.begin(kind, i).unwrap();
            for k in 0..i {
                if kind == SectionKind::BG2 {
                    w.points(&(g2 * s(k as u64 + 1)).to_affine().to_uncompressed()).unwrap();
                } else {
                    w.points(&(g1 * s(k as u64 + 1)).to_affine().to_uncompressed()).unwrap();
                }
            }
        }
        let bytes = w.finish().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.params");
        std::fs::write(&path, &bytes).unwrap();
        let p = ParamsFile::open(&path).unwrap();
        assert_eq!(p.vk.ic.len(), 2);
        assert_eq!(p.vk.delta_g2, vk.delta_g2);
        for (i, kind) in SectionKind::ALL.into_iter().enumerate() {
            assert_eq!(p.section(kind).count, i);
        }
        assert_eq!(&bytes[..vk_bytes(&vk).unwrap().len()], &vk_bytes(&vk).unwrap()[..]);
    }
}
