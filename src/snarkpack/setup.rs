//! `params setup --proof aggregation`: an INSECURE SnarkPack SRS for tests and benchmarks, in
//! the official file's format under its official name (the powers of two secret scalars α, β
//! drawn from a seed; anyone who knows the seed can forge aggregates). A marker file beside it
//! (`<file>.insecure`) says so. The file is written under a temporary name, reopened and fully
//! decoded, then renamed: an interrupted run leaves nothing.
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{bail, Context, Result};
use blstrs::{G1Affine, G2Affine, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use super::ipp::{powers, scale, Group};
use super::srs::{SrsFile, SRS_EXT, SRS_STEM};
use crate::output::Staged;

/// What `setup_srs` made.
pub struct SrsReport {
    pub path: PathBuf,
    pub marker: PathBuf,
    pub powers: usize,
    pub bytes: u64,
}

/// The SRS path in `dir`.
pub fn srs_path(dir: &Path) -> PathBuf {
    dir.join(format!("{SRS_STEM}.{SRS_EXT}"))
}

/// The file bytes of an SRS with `powers` powers of each vector, α and β from `seed`.
pub fn srs_bytes(powers_count: usize, seed: u64) -> Vec<u8> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    rng.set_stream(0x534e_4b50); // "SNKP": apart from the Groth16 toxic waste of the same seed
    let alpha = Scalar::random(&mut rng);
    let beta = Scalar::random(&mut rng);
    let (pa, pb) = (powers(&alpha, powers_count), powers(&beta, powers_count));
    let mut out = Vec::with_capacity(4 * 4 + powers_count * (2 * 48 + 2 * 96));
    for s in [&pa, &pb] {
        out.extend_from_slice(&(powers_count as u32).to_be_bytes());
        out.extend(multiples(G1Affine::generator(), s).iter().flat_map(G1Affine::to_compressed));
    }
    for s in [&pa, &pb] {
        out.extend_from_slice(&(powers_count as u32).to_be_bytes());
        out.extend(multiples(G2Affine::generator(), s).iter().flat_map(G2Affine::to_compressed));
    }
    out
}

/// s_i·g for every s_i, on rayon's threads.
fn multiples<G: Group>(g: G, s: &[Scalar]) -> Vec<G> {
    scale(&vec![g; s.len()], s)
}

/// Writes an INSECURE SRS for up to `max_proofs` proofs (2·max_proofs powers of each vector)
/// into `dir`. Refuses the production cache and an existing file unless `force`.
pub fn setup_srs(dir: &Path, max_proofs: usize, seed: u64, force: bool) -> Result<SrsReport> {
    if max_proofs < 2 || !max_proofs.is_power_of_two() || 2 * max_proofs > super::srs::READ_LIMIT {
        bail!(
            "--max-proofs {max_proofs}: a power of two from 2 to {} (what filecoin-proofs can read)",
            super::srs::READ_LIMIT / 2
        );
    }
    let path = srs_path(dir);
    if !force {
        if same_dir(dir, Path::new(crate::srs::locate::DEFAULT_DIR)) {
            bail!(
                "refusing to write an INSECURE SnarkPack SRS into the production parameter cache {} (lotus and \
                 filecoin-proofs would use it); choose another --out, or pass --force",
                dir.display()
            );
        }
        if path.exists() {
            bail!("{} already exists; pass --force to overwrite it", path.display());
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let powers_count = 2 * max_proofs;
    let bytes = srs_bytes(powers_count, seed);
    let marker = crate::setup::marker_path(&path);
    let staged = Staged::new(&[&marker, &path])?;
    std::fs::write(staged.temp(1), &bytes).with_context(|| format!("cannot write {}", path.display()))?;
    SrsFile::open(staged.temp(1))?.prover_key(max_proofs)?;
    let note = format!(
        "INSECURE SNARKPACK SRS made by filsnark params setup, seed {seed}, date {}\n\
         {powers_count} powers of each vector (up to {max_proofs} proofs); filsnark {}\n\
         Anyone who knows the seed can forge aggregates that verify with it. Never use it in production.\n",
        crate::setup::utc_string(SystemTime::now()),
        env!("CARGO_PKG_VERSION")
    );
    std::fs::write(staged.temp(0), note).with_context(|| format!("cannot write {}", marker.display()))?;
    staged.commit()?;
    Ok(SrsReport { path, marker, powers: powers_count, bytes: bytes.len() as u64 })
}

fn same_dir(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(a) == canon(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file is what bellperson's `GenericSRS::read` reads: every point equal, in order.
    #[test]
    fn insecure_srs_reads_back_in_bellperson() {
        let bytes = srs_bytes(8, 3);
        let srs = bellperson::groth16::aggregate::GenericSRS::<blstrs::Bls12>::read(&mut &bytes[..]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.srs");
        std::fs::write(&p, &bytes).unwrap();
        let f = SrsFile::open(&p).unwrap();
        assert_eq!(f.max_proofs(), 4);
        let pk = f.prover_key(4).unwrap();
        assert_eq!(pk.g_alpha, srs.g_alpha_powers);
        assert_eq!(pk.g_beta, srs.g_beta_powers);
        assert_eq!(pk.h_alpha, srs.h_alpha_powers[..4]);
        assert_eq!(pk.h_beta, srs.h_beta_powers[..4]);
    }
}
