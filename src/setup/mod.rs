//! `params setup`: fast, INSECURE Groth16 parameters for Filecoin circuits, for tests and
//! benchmarks, byte-for-byte in the official `.params` / `.vk` format under the official names.
//!
//! The math is bellperson 0.27's `generate_parameters` (groth16/generator.rs), with the
//! standard generators of G1 and G2 as bases:
//! - the circuit's R1CS comes from a blank synthesis ([`crate::circuit::r1cs`]), with one
//!   `input_i · 0 = 0` constraint per input appended; the domain is the next power of two n;
//! - the Lagrange basis at τ is an inverse NTT of the powers of τ ([`qap::lagrange_at`]);
//!   u_j, v_j, w_j (τ) are column sums of A, B, C against it ([`qap::eval_columns`]);
//! - h_i = τ^i·Z(τ)/δ for i < n − 1, Z(τ) = τ^n − 1;
//!   ic_i = (β·u_i + α·v_i + w_i)/γ for inputs, l_j = (β·u_j + α·v_j + w_j)/δ for aux
//!   (every l_j must be non-zero: bellperson refuses unconstrained variables);
//!   a = u·G1, b_g1 = v·G1, b_g2 = v·G2 over inputs then aux, points at infinity (scalar 0)
//!   dropped;
//! - vk = α·G1, β·G1, β·G2, γ·G2, δ·G1, δ·G2 and ic.
//!
//! The toxic waste is drawn from ChaCha20 seeded with a u64, in the order τ, α, β, γ, δ, so a
//! seed reproduces the files exactly. Points come from fixed-base window tables
//! ([`crate::ec::generator_table`]); each section is computed and written in chunks (scalars → points →
//! bytes → file), so memory holds the R1CS, a few scalar vectors and one or two chunks of
//! points, never a whole section of points.
//!
//! The Lagrange basis and the points run on the CPU or, with `--device gpu|auto`, on a GPU
//! ([`engine`]: the GPU NTT and module "generator_mul" over the same tables, the device computing
//! the next chunk while this one is written); both give the same bytes for a seed.
//!
//! Output safety: files are written under temporary names in the target directory and renamed
//! into place at the end (marker, then `.vk`, then `.params`), so an interrupted run leaves
//! nothing under an official name; existing files are never replaced without `force`, and the
//! default production cache (`/var/tmp/filecoin-proof-parameters`) is refused without `force`.
pub mod engine;
pub mod qap;

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{anyhow, bail, Context, Result};
use blstrs::{G1Affine, G2Affine, Scalar};
use ff::{Field, PrimeField};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rayon::prelude::*;

use crate::circuit::r1cs::{Matrix, R1cs};
use crate::circuit::{CircuitKind, ProofKind};
use crate::ec::generator_table::{G1Table, G2Table, Generator};
use crate::input::PorepKind;
use crate::output::Staged;
use crate::prover::DeviceChoice;
use crate::srs::file::{SectionKind, Shape, VerifyingKey};
use crate::srs::locate::DEFAULT_DIR;
use crate::srs::write::{vk_bytes, ParamsWriter};
use crate::srs::ParamsFile;
use engine::{CpuTables, FixedBase, SetupDevice};

/// The secret trapdoor of a Groth16 setup. Whoever knows it can forge proofs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToxicWaste {
    pub tau: Scalar,
    pub alpha: Scalar,
    pub beta: Scalar,
    pub gamma: Scalar,
    pub delta: Scalar,
}

impl ToxicWaste {
    /// τ, α, β, γ, δ drawn in that order from ChaCha20 seeded with `seed` (`seed_from_u64`);
    /// a zero draw is redrawn.
    pub fn from_seed(seed: u64) -> Self {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        let mut draw = || loop {
            let s = Scalar::random(&mut rng);
            if !bool::from(s.is_zero()) {
                return s;
            }
        };
        ToxicWaste { tau: draw(), alpha: draw(), beta: draw(), gamma: draw(), delta: draw() }
    }
}

/// What `params setup` was asked to do.
#[derive(Clone, Debug)]
pub struct SetupOptions {
    pub kind: PorepKind,
    pub out_dir: PathBuf,
    pub seed: u64,
    /// Overwrite existing files and allow the production cache directory.
    pub force: bool,
    /// Progress bars on stderr (the CLI sets it when stderr is a terminal).
    pub progress: bool,
    /// A line on stderr as each phase ends, with its time and the peak RSS so far.
    pub log: bool,
    /// Where the Lagrange basis and the points are computed (`--device`).
    pub device: DeviceChoice,
}

/// What a setup made, and how long each phase took.
#[derive(Clone, Debug)]
pub struct SetupReport {
    pub stem: String,
    /// "CPU" or "GPU 0 (NVIDIA H200)".
    pub device: String,
    pub params: PathBuf,
    pub vk: PathBuf,
    pub marker: PathBuf,
    pub shape: Shape,
    pub constraints: usize,
    pub nnz: [usize; 3],
    pub params_bytes: u64,
    pub phases: Vec<(&'static str, Duration)>,
    pub total: Duration,
}

/// The file name suffix of the insecure-parameters marker written beside a `.params` file.
pub const MARKER_SUFFIX: &str = ".insecure";

/// Where insecure test parameters for the built-in sample (and the tests) are cached:
/// `$FILSNARK_TEST_PARAMS` if set, else `$HOME/.cache/filsnark/test-params-v1`; None without either.
pub fn test_params_cache() -> Option<PathBuf> {
    match std::env::var_os("FILSNARK_TEST_PARAMS") {
        Some(d) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/filsnark/test-params-v1")),
    }
}

/// The marker of a `.params` file: `<file>.insecure`.
pub fn marker_path(params: &Path) -> PathBuf {
    let mut s = params.as_os_str().to_owned();
    s.push(MARKER_SUFFIX);
    PathBuf::from(s)
}

/// The official file stem of the PoRep parameters of a sector size (no synthesis).
pub fn porep_stem(kind: PorepKind) -> Result<String> {
    crate::circuit::porep::porep_stem(kind)
}

/// Records the R1CS of one PoRep partition from a blank synthesis, its challenges on all
/// cores; returns it and the official file stem.
pub fn record_porep(kind: PorepKind) -> Result<(R1cs, String)> {
    crate::circuit::porep_windows::record_porep(kind, true)
}

fn normalize(p: &Path) -> PathBuf {
    if let Ok(c) = p.canonicalize() {
        return c;
    }
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf())
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The official file names in `dir`: `.params`, `.vk`, and the marker.
pub fn output_paths(dir: &Path, stem: &str) -> [PathBuf; 3] {
    let params = dir.join(format!("{stem}.params"));
    let vk = dir.join(format!("{stem}.vk"));
    let marker = marker_path(&params);
    [params, vk, marker]
}

/// Refuses the production cache without `force`, and existing files without `force`.
pub fn check_destination(dir: &Path, stem: &str, force: bool) -> Result<()> {
    if force {
        return Ok(());
    }
    if normalize(dir) == normalize(Path::new(DEFAULT_DIR)) {
        bail!(
            "refusing to write INSECURE test parameters into the production parameter cache {} \
             (lotus and filecoin-proofs would use them); choose another --out, or pass --force",
            dir.display()
        );
    }
    for p in output_paths(dir, stem) {
        if p.exists() {
            bail!("{} already exists; pass --force to overwrite it", p.display());
        }
    }
    Ok(())
}

/// UTC date and time of `t`, ISO 8601.
pub fn utc_string(t: SystemTime) -> String {
    let secs = t.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem / 60 % 60, rem % 60)
}

fn bar(progress: bool, len: usize, name: &str) -> ProgressBar {
    if !progress || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{prefix:>6} [{bar:40}] {pos}/{len} points {per_sec} eta {eta}")
            .unwrap()
            .progress_chars("=> "),
    );
    pb.set_prefix(name.to_string());
    pb
}

/// Peak resident memory of this process so far (VmHWM), in MiB; 0 where unknown.
pub fn peak_rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<u64>().ok()))
        })
        .map_or(0, |kb| kb / 1024)
}

/// Records a finished phase; with `log`, also says so on stderr (time and peak RSS so far).
fn phase_done(phases: &mut Vec<(&'static str, Duration)>, name: &'static str, t: Instant, log: bool) {
    let d = t.elapsed();
    if log {
        eprintln!("setup: {name:<24} {:>9.3} s   peak RSS {} MiB", d.as_secs_f64(), peak_rss_mib());
    }
    phases.push((name, d));
}

/// Scalars → encoded points → writer, chunk by chunk as `fb` streams them.
fn write_section<W: Write>(
    w: &mut ParamsWriter<W>,
    kind: SectionKind,
    count: usize,
    progress: bool,
    mut fill: impl FnMut(usize, &mut [Scalar]),
    fb: &dyn FixedBase,
    g: Generator,
) -> Result<()> {
    w.begin(kind, count)?;
    let pb = bar(progress, count, kind.name());
    let size = kind.point_bytes();
    fb.stream(g, count, &mut fill, &mut |b| {
        w.points(b)?;
        pb.inc((b.len() / size) as u64);
        Ok(())
    })?;
    pb.finish_and_clear();
    Ok(())
}

fn g1_affine(t: &G1Table, s: &Scalar) -> G1Affine {
    let mut b = [0u8; 96];
    t.mul_to_bytes(std::slice::from_ref(s), &mut b);
    Option::from(G1Affine::from_uncompressed(&b)).expect("a valid G1 point")
}

fn g2_affine(t: &G2Table, s: &Scalar) -> G2Affine {
    let mut b = [0u8; 192];
    t.mul_to_bytes(std::slice::from_ref(s), &mut b);
    Option::from(G2Affine::from_uncompressed(&b)).expect("a valid G2 point")
}

/// Everything [`generate`] measured.
pub struct Generated {
    pub vk: VerifyingKey,
    pub shape: Shape,
    pub phases: Vec<(&'static str, Duration)>,
}

/// Computes the parameters of `r1cs` for `toxic` and streams the `.params` content to `out`,
/// on the CPU. Consumes the R1CS (it is dropped as soon as the QAP is evaluated, to bound memory).
pub fn generate<W: Write>(r1cs: R1cs, toxic: &ToxicWaste, out: W, progress: bool, log: bool) -> Result<(Generated, W)> {
    generate_on(r1cs, toxic, out, &SetupDevice::Cpu, progress, log)
}

/// [`generate`] on `device`: the same bytes, the Lagrange basis and the points computed there.
pub fn generate_on<W: Write>(
    r1cs: R1cs,
    toxic: &ToxicWaste,
    out: W,
    device: &SetupDevice,
    progress: bool,
    log: bool,
) -> Result<(Generated, W)> {
    let mut phases = Vec::new();
    let ToxicWaste { tau, alpha, beta, gamma, delta } = *toxic;
    let (ni, na, m) = (r1cs.num_inputs, r1cs.num_aux, r1cs.num_constraints);
    let n = m.next_power_of_two();
    let log_n = n.trailing_zeros();
    if log_n > Scalar::S {
        bail!("{m} constraints need a domain of 2^{log_n}, beyond Fr's 2-adicity");
    }
    let z = tau.pow_vartime([n as u64]) - Scalar::ONE;
    if bool::from(z.is_zero()) {
        bail!("τ is a root of unity of the domain; choose another seed");
    }
    let gamma_inv = Option::<Scalar>::from(gamma.invert()).ok_or_else(|| anyhow!("γ = 0"))?;
    let delta_inv = Option::<Scalar>::from(delta.invert()).ok_or_else(|| anyhow!("δ = 0"))?;

    let t = Instant::now();
    let lag = device.lagrange_at(tau, log_n)?;
    phase_done(&mut phases, "lagrange (intt)", t, log);

    let t = Instant::now();
    // Each matrix is freed as soon as its sums are known, to lower the peak (32GiB: ~2.5 GB each).
    let mut r1cs = r1cs;
    let mut eval = |take: fn(&mut R1cs) -> &mut Matrix| {
        let m = std::mem::take(take(&mut r1cs));
        qap::eval_columns(&r1cs, &m, &lag, Scalar::ONE)
    };
    let mut u = eval(|r| &mut r.a);
    let mut v = eval(|r| &mut r.b);
    let mut e = eval(|r| &mut r.c);
    drop(lag);
    drop(r1cs);
    // e_j = (β·u_j + α·v_j + w_j) / (γ for inputs, δ for aux).
    e.par_iter_mut().zip(u.par_iter().zip(v.par_iter())).with_min_len(1 << 12).enumerate().for_each(
        |(j, (e, (u, v)))| {
            *e = (beta * u + alpha * v + *e) * if j < ni { gamma_inv } else { delta_inv };
        },
    );
    if let Some(j) = e[ni..].par_iter().position_any(|s| bool::from(s.is_zero())) {
        bail!("aux variable {j} is unconstrained (bellperson refuses such circuits: its l point would be zero)");
    }
    phase_done(&mut phases, "qap at tau", t, log);

    let t = Instant::now();
    let tables = CpuTables::new();
    let gpu_fb = device.fixed_base_gpu(&tables)?;
    let fb: &dyn FixedBase = match &gpu_fb {
        Some(g) => g,
        None => &tables,
    };
    let (g1, g2) = (&tables.g1, &tables.g2);
    phase_done(&mut phases, "window tables", t, log);

    let vk = VerifyingKey {
        alpha_g1: g1_affine(g1, &alpha),
        beta_g1: g1_affine(g1, &beta),
        beta_g2: g2_affine(g2, &beta),
        gamma_g2: g2_affine(g2, &gamma),
        delta_g1: g1_affine(g1, &delta),
        delta_g2: g2_affine(g2, &delta),
        ic: e[..ni].iter().map(|s| g1_affine(g1, s)).collect(),
    };
    let mut w = ParamsWriter::new(out, &vk)?;

    let t = Instant::now();
    let h_coeff = z * delta_inv;
    write_section(
        &mut w,
        SectionKind::H,
        n - 1,
        progress,
        |at, s| {
            let piece = 1 << 12;
            s.par_chunks_mut(piece).enumerate().for_each(|(c, part)| {
                let mut acc = h_coeff * tau.pow_vartime([(at + c * piece) as u64]);
                for x in part {
                    *x = acc;
                    acc *= tau;
                }
            });
        },
        fb,
        Generator::G1,
    )?;
    phase_done(&mut phases, "h", t, log);

    let t = Instant::now();
    write_section(
        &mut w,
        SectionKind::L,
        na,
        progress,
        |at, s| s.copy_from_slice(&e[ni + at..ni + at + s.len()]),
        fb,
        Generator::G1,
    )?;
    drop(e);
    phase_done(&mut phases, "l", t, log);

    let nonzero = |s: &Scalar| !bool::from(s.is_zero());
    let a_inputs = u[..ni].iter().filter(|s| nonzero(s)).count();
    u.retain(nonzero);
    let t = Instant::now();
    write_section(
        &mut w,
        SectionKind::A,
        u.len(),
        progress,
        |at, s| s.copy_from_slice(&u[at..at + s.len()]),
        fb,
        Generator::G1,
    )?;
    phase_done(&mut phases, "a", t, log);
    let a_aux = u.len() - a_inputs;
    drop(u);

    let b_inputs = v[..ni].iter().filter(|s| nonzero(s)).count();
    v.retain(nonzero);
    let t = Instant::now();
    write_section(
        &mut w,
        SectionKind::BG1,
        v.len(),
        progress,
        |at, s| s.copy_from_slice(&v[at..at + s.len()]),
        fb,
        Generator::G1,
    )?;
    phase_done(&mut phases, "b_g1", t, log);
    let t = Instant::now();
    write_section(
        &mut w,
        SectionKind::BG2,
        v.len(),
        progress,
        |at, s| s.copy_from_slice(&v[at..at + s.len()]),
        fb,
        Generator::G2,
    )?;
    phase_done(&mut phases, "b_g2", t, log);
    let shape = Shape { inputs: ni, aux: na, domain: n, a_aux, b_inputs, b_aux: v.len() - b_inputs };
    // ParamsFile's Shape counts the inputs of `a` in full (they always occur, via the input
    // constraints); check that this holds.
    if a_inputs != ni {
        bail!("internal: {} of {ni} inputs have u(τ) = 0", ni - a_inputs);
    }
    let out = w.finish()?;
    Ok((Generated { vk, shape, phases }, out))
}

/// Makes the PoRep parameters of `opts.kind` in `opts.out_dir`: synthesis, generation,
/// `.params`, `.vk` and the insecure marker, staged under temporary names and renamed at the
/// end.
pub fn setup_porep(opts: &SetupOptions) -> Result<SetupReport> {
    setup_circuit(opts, ProofKind::Porep)
}

/// Makes the parameters of the `proof` circuit of sector size `opts.kind`, as
/// [`setup_porep`] does for PoRep: WindowPoSt, WinningPoSt and SnapDeals parameters under their
/// official names.
pub fn setup_circuit(opts: &SetupOptions, proof: ProofKind) -> Result<SetupReport> {
    let circuit = CircuitKind::new(proof, opts.kind);
    let start = Instant::now();
    // First, so that a missing GPU fails before anything is written.
    let device = SetupDevice::open(&opts.device)?;
    if opts.log {
        eprintln!("setup: computing on {}", device.describe());
    }
    let stem = circuit.stem()?;
    check_destination(&opts.out_dir, &stem, opts.force)?;
    std::fs::create_dir_all(&opts.out_dir).with_context(|| format!("cannot create {}", opts.out_dir.display()))?;
    let [params, vk_path, marker] = output_paths(&opts.out_dir, &stem);
    let staged = Staged::new(&[&marker, &vk_path, &params])?;

    let mut phases = Vec::new();
    let t = Instant::now();
    let (r1cs, synth_stem) = circuit.record(true)?;
    if synth_stem != stem {
        bail!("internal: stem {synth_stem} from synthesis differs from {stem}");
    }
    phase_done(&mut phases, "synthesis (blank, R1CS)", t, opts.log);
    let constraints = r1cs.num_constraints;
    let nnz = [r1cs.a.nnz(), r1cs.b.nnz(), r1cs.c.nnz()];

    let toxic = ToxicWaste::from_seed(opts.seed);
    let tmp_params = staged.temp(2);
    let file = File::create(tmp_params).with_context(|| format!("cannot create {}", tmp_params.display()))?;
    let (gen, out) =
        generate_on(r1cs, &toxic, BufWriter::with_capacity(8 << 20, file), &device, opts.progress, opts.log)
            .with_context(|| format!("generating {stem}.params"))?;
    phases.extend(gen.phases);

    let t = Instant::now();
    let file = out.into_inner().map_err(|e| anyhow!("writing {}: {}", tmp_params.display(), e.error()))?;
    file.sync_all().with_context(|| format!("cannot sync {}", tmp_params.display()))?;
    drop(file);
    let check = ParamsFile::open(tmp_params)?;
    check.check_shape(&gen.shape)?;
    let params_bytes = check.len() as u64;
    drop(check);
    std::fs::write(staged.temp(1), vk_bytes(&gen.vk)?)
        .with_context(|| format!("cannot write {}", vk_path.display()))?;
    let note = format!(
        "INSECURE TEST PARAMETERS made by filsnark params setup, seed {}, date {}\n\
         proof: {} ({}); filsnark {}\n\
         Anyone who knows the seed can forge proofs that verify with these parameters. Never use \
         them in production.\n",
        opts.seed,
        utc_string(SystemTime::now()),
        circuit.name(),
        stem,
        env!("CARGO_PKG_VERSION")
    );
    std::fs::write(staged.temp(0), note).with_context(|| format!("cannot write {}", marker.display()))?;
    // Re-check right before the renames: a file may have appeared during the run.
    check_destination(&opts.out_dir, &stem, opts.force)?;
    staged.commit()?;
    phase_done(&mut phases, "sync, check, rename", t, opts.log);

    Ok(SetupReport {
        stem,
        device: device.describe(),
        params,
        vk: vk_path,
        marker,
        shape: gen.shape,
        constraints,
        nnz,
        params_bytes,
        phases,
        total: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::r1cs::R1csCs;

    #[test]
    fn utc_dates() {
        assert_eq!(utc_string(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_798_200_000);
        assert_eq!(utc_string(t), "2026-12-25T12:00:00Z");
    }

    #[test]
    fn destination_checks() {
        let stem = "v28-test";
        let tmp = tempfile::tempdir().unwrap();
        assert!(check_destination(tmp.path(), stem, false).is_ok());
        let prod = Path::new(DEFAULT_DIR);
        let e = check_destination(prod, stem, false).unwrap_err().to_string();
        assert!(e.contains("production parameter cache"), "{e}");
        assert!(check_destination(&prod.join("x/.."), stem, false).is_err());
        assert!(check_destination(prod, stem, true).is_ok());
        std::fs::write(tmp.path().join("v28-test.vk"), b"").unwrap();
        let e = check_destination(tmp.path(), stem, false).unwrap_err().to_string();
        assert!(e.contains("already exists"), "{e}");
        assert!(check_destination(tmp.path(), stem, true).is_ok());
        assert_eq!(marker_path(Path::new("/a/b.params")), PathBuf::from("/a/b.params.insecure"));
    }

    /// A small circuit with the features that matter to the format: an input, coefficients
    /// other than 1, variables in A only, in B only, ONE in B.
    struct Toy(usize);

    impl bellperson::Circuit<Scalar> for Toy {
        fn synthesize<CS: bellperson::ConstraintSystem<Scalar>>(
            self,
            cs: &mut CS,
        ) -> Result<(), bellperson::SynthesisError> {
            let x = cs.alloc_input(|| "x", || Ok(Scalar::from(3u64)))?;
            let mut prev = cs.alloc(|| "a0", || Ok(Scalar::ONE))?;
            for i in 0..self.0 {
                let v = cs.alloc(|| format!("v{i}"), || Ok(Scalar::ONE))?;
                let c = Scalar::from((i * 7 + 2) as u64);
                match i % 3 {
                    0 => cs.enforce(|| "", |lc| lc + prev + (c, x), |lc| lc + v, |lc| lc + v + prev),
                    1 => cs.enforce(|| "", |lc| lc + (c, v), |lc| lc + CS::one(), |lc| lc + prev),
                    _ => cs.enforce(|| "", |lc| lc + x, |lc| lc + prev + v, |lc| lc + (c, v)),
                }
                prev = v;
            }
            Ok(())
        }
    }

    /// Byte for byte what bellperson's own generator writes for the same toxic waste (with
    /// the standard generators as its g1, g2).
    #[test]
    fn matches_bellperson_generator_byte_for_byte() {
        use bellperson::Circuit;
        use group::Group;
        for n in [5usize, 300, 1100] {
            let toxic = ToxicWaste::from_seed(n as u64);
            let theirs = bellperson::groth16::generate_parameters::<blstrs::Bls12, _>(
                Toy(n),
                blstrs::G1Projective::generator(),
                blstrs::G2Projective::generator(),
                toxic.alpha,
                toxic.beta,
                toxic.gamma,
                toxic.delta,
                toxic.tau,
            )
            .unwrap();
            let mut want = Vec::new();
            theirs.write(&mut want).unwrap();
            let mut cs = <R1csCs as bellperson::ConstraintSystem<Scalar>>::new();
            Toy(n).synthesize(&mut cs).unwrap();
            let (gen, ours) = generate(cs.finish().unwrap(), &toxic, Vec::new(), false, false).unwrap();
            assert_eq!(ours.len(), want.len(), "n = {n}: file sizes");
            assert!(ours == want, "n = {n}: bytes differ from bellperson's");
            let mut vk = Vec::new();
            theirs.vk.write(&mut vk).unwrap();
            assert_eq!(vk_bytes(&gen.vk).unwrap(), vk);
        }
    }

    #[test]
    fn toxic_waste_is_reproducible() {
        assert_eq!(ToxicWaste::from_seed(5), ToxicWaste::from_seed(5));
        assert_ne!(ToxicWaste::from_seed(5).tau, ToxicWaste::from_seed(6).tau);
    }
}
