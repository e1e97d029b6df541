//! PoRep C2 from end to end: a c1.json in, a verified seal proof out (`prove`), and the check
//! of a seal proof against its sector (`verify`). Every partition proof is verified before the
//! file is written, and the write is atomic (temp file + rename): a failed run leaves no proof.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};

use crate::circuit::{circuits_from_c1, statement, SealPublic, SectorIdentity};
use crate::cpu::prover::ProveTimings;
use crate::groth16::{randomness, PreparedVerifyingKey, Proof};
use crate::input::C1Input;
use crate::srs::{self, ParamsFile, VerifyingKey};

pub struct ProveOptions {
    pub sector: SectorIdentity,
    pub params_dir: Option<PathBuf>,
    pub seed: Option<u64>,
}

/// What one `prove` did, per partition and in total.
pub struct ProveReport {
    pub params: PathBuf,
    pub partitions: Vec<PartitionReport>,
    pub proof: Vec<u8>,
    pub total: Duration,
}

pub struct PartitionReport {
    pub synthesis: Duration,
    pub constraints: usize,
    pub prove: ProveTimings,
    pub verify: Duration,
}

/// Proves every partition of a c1.json on the CPU and verifies each proof.
pub fn prove(c1: &C1Input, opts: &ProveOptions) -> Result<ProveReport> {
    let start = Instant::now();
    let circuits = circuits_from_c1(c1, &opts.sector).map_err(|e| anyhow!("{}: {e:#}", c1.path.display()))?;
    let params_path = srs::locate::find(opts.params_dir.as_deref(), &circuits.params_stem(), "params")?;
    let srs = ParamsFile::open(&params_path)?;
    let pvk = PreparedVerifyingKey::new(&srs.vk);
    let mut partitions = Vec::new();
    let mut proof = Vec::with_capacity(circuits.num_partitions() * crate::groth16::PROOF_BYTES);
    for k in 0..circuits.num_partitions() {
        let clock = Instant::now();
        let asg = circuits.synthesize(k)?;
        let synthesis = clock.elapsed();
        let constraints = asg.num_constraints();
        let (r, s) = randomness(opts.seed, k);
        let (p, timings) = crate::cpu::prover::prove(&srs, asg, r, s)?;
        let clock = Instant::now();
        let inputs = circuits.public_inputs(k)?;
        if !pvk.verify(&p, &inputs)? {
            bail!(
                "partition {k}: the proof made with {} failed self-verification; no proof written. The \
                 parameter file does not match the circuit (wrong or corrupt parameters?)",
                params_path.display()
            );
        }
        partitions.push(PartitionReport { synthesis, constraints, prove: timings, verify: clock.elapsed() });
        proof.extend_from_slice(&p.to_bytes());
    }
    Ok(ProveReport { params: params_path, partitions, proof, total: start.elapsed() })
}

/// Loads the verifying key for a statement: the `.vk` file, else the `.params` header.
pub fn load_vk(params_dir: Option<&Path>, stem: &str) -> Result<(VerifyingKey, PathBuf)> {
    match srs::locate::find(params_dir, stem, "vk") {
        Ok(p) => Ok((srs::file::read_vk_file(&p)?, p)),
        Err(vk_err) => match srs::locate::find(params_dir, stem, "params") {
            Ok(p) => Ok((ParamsFile::open(&p)?.vk, p)),
            Err(_) => Err(vk_err),
        },
    }
}

/// Verifies a seal proof (partition proofs concatenated) for the sector of a c1.json.
/// Ok(Err(reason)) when the proof is well-formed but invalid.
pub fn verify(
    c1: &C1Input,
    sector: &SectorIdentity,
    params_dir: Option<&Path>,
    proof_bytes: &[u8],
) -> Result<std::result::Result<(), String>> {
    let st = statement(&SealPublic::of(c1), sector)?;
    let (vk, _) = load_vk(params_dir, &st.params_stem())?;
    let pvk = PreparedVerifyingKey::new(&vk);
    let proofs = match Proof::split_seal(proof_bytes, st.num_partitions()) {
        Ok(p) => p,
        Err(e) => return Ok(Err(format!("{e}"))),
    };
    for (k, p) in proofs.iter().enumerate() {
        if !pvk.verify(p, &st.public_inputs(k)?)? {
            return Ok(Err(format!(
                "partition {k} does not verify for miner t0{} sector {}",
                sector.miner_id, sector.sector_num
            )));
        }
    }
    Ok(Ok(()))
}

/// Writes `bytes` to `path` atomically: a temp file beside it, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| anyhow!("{}: not a file path", path.display()))?;
    let tmp = dir.join(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id()));
    let res = (|| -> Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    })();
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    res.with_context(|| format!("{}: cannot write the proof", path.display()))
}
