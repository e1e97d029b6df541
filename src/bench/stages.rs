//! The prover's GPU stages timed alone (`filsnark bench kernels` second table, `bench ntt`,
//! `bench msm`, `bench setup-points`): the NTT, the H pipeline, the G1/G2 MSMs and the batch
//! addition with their data already on the device, and the params-setup point generation host to
//! host. Device times are CUDA events around the whole call (host syncs included), the median of
//! repeats after a warm-up; floors and sppark's times are those measured on an H200 (ptx/NOTES.md).
//!
//! MSM inputs: 2^14 random points (random multiples of the generator) tiled on the device to n,
//! so a bucket rarely holds the same point twice in a row; scalars uniform below 2^254 (< r) as
//! Montgomery words; the batch addition selects each point with probability 1/2.
use std::fmt;
use std::time::Instant;

use blstrs::Scalar;
use ff::Field;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

use crate::gpu::generator_mul::{GeneratorMul, DEFAULT_CHUNK};
use crate::gpu::layout::{scalar_words, Group, G1, G2};
use crate::gpu::msm::{Msm, MsmPoints};
use crate::gpu::ntt::{HBuffers, Ntt, WORDS};
use crate::gpu::selftest::{affine, random_points};
use crate::gpu::{DeviceBuffer, Event, Gpu, Result};

/// `count` random Fr elements on the device: 2^16 random ones from the host, repeated.
pub fn random_device(gpu: &Gpu, count: usize, seed: u64) -> Result<DeviceBuffer<u32>> {
    let chunk = count.min(1 << 16);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let host: Vec<Scalar> = (0..chunk).map(|_| Scalar::random(&mut rng)).collect();
    let src = gpu.upload(scalar_words(&host))?;
    let mut d = gpu.alloc::<u32>(count * WORDS)?;
    for start in (0..count).step_by(chunk) {
        d.copy_from_device(start * WORDS, &src, 0, chunk * WORDS)?;
    }
    gpu.stream.synchronize()?;
    Ok(d)
}

/// Median of `repeats` timings (ms, CUDA events) of `run` after one warm-up.
fn median_ms(gpu: &Gpu, repeats: usize, mut run: impl FnMut() -> Result<()>) -> Result<f64> {
    run()?;
    gpu.stream.synchronize()?;
    let mut ts = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let (e0, e1) = (Event::new(&gpu.ctx)?, Event::new(&gpu.ctx)?);
        e0.record(&gpu.stream)?;
        run()?;
        e1.record(&gpu.stream)?;
        ts.push(e0.elapsed_ms(&e1)? as f64);
    }
    ts.sort_by(|x, y| x.total_cmp(y));
    Ok(ts[ts.len() / 2])
}

/// Median ms of a forward NTT of 2^log_n random elements already on the device.
pub fn ntt_ms(gpu: &Gpu, ntt: &Ntt, log_n: u32) -> Result<f64> {
    let n = 1usize << log_n;
    let mut data = random_device(gpu, n, 1)?;
    let mut tmp = gpu.alloc::<u32>(n * WORDS)?;
    ntt.prepare(gpu, log_n)?;
    median_ms(gpu, 9, || ntt.ntt_with(gpu, &mut data, &mut tmp, log_n, false))
}

/// One forward NTT of 2^log_n random elements and nothing else (for a profiler such as ncu).
pub fn ntt_once(gpu: &Gpu, ntt: &Ntt, log_n: u32) -> Result<()> {
    let mut data = random_device(gpu, 1 << log_n, 5)?;
    ntt.ntt(gpu, &mut data, log_n, false)?;
    gpu.stream.synchronize()
}

/// Median ms of the whole H pipeline at 2^log_n, fused or in three buffers. Each run takes
/// freshly allocated (stream-ordered, from the pool) buffers as its inputs: the pipelines
/// consume them, and their time does not depend on the values. C's evaluation, which the
/// three-buffer pipeline runs inside, is not part of it here.
pub fn h_ms(gpu: &Gpu, ntt: &Ntt, log_n: u32, buffers: HBuffers) -> Result<f64> {
    let n = 1usize << log_n;
    ntt.prepare(gpu, log_n)?;
    let alloc = || gpu.alloc::<u32>(n * WORDS);
    median_ms(gpu, 5, || {
        let (a, b) = (alloc()?, alloc()?);
        let h = match buffers {
            HBuffers::Four => ntt.h_poly_fused(gpu, a, b, alloc()?, log_n)?,
            HBuffers::Three => ntt.h_poly_three(gpu, a, b, log_n, |_| Ok(()))?,
        };
        drop(h);
        Ok(())
    })
}

/// n affine points (2·W words each): 2^14 random points tiled by device copies.
fn tiled_points<G: Group>(gpu: &Gpu, n: usize, seed: u64) -> Result<DeviceBuffer<u32>> {
    let k = n.min(1 << 14);
    let base: Vec<u32> = affine::<G>(&random_points::<G>(k, seed, 1)).iter().flat_map(G::aff_words).collect();
    let w = 2 * G::W;
    let mut buf = gpu.alloc::<u32>(n * w)?;
    buf.copy_from_host(&base)?;
    let mut have = k;
    while have < n {
        let len = have.min(n - have);
        let mut src = gpu.alloc::<u32>(len * w)?;
        src.copy_from_device(0, &buf, 0, len * w)?;
        buf.copy_from_device(have * w, &src, 0, len * w)?;
        have += len;
    }
    gpu.stream.synchronize()?;
    Ok(buf)
}

fn random_words(n: usize, seed: u64) -> Vec<u32> {
    let mut v = vec![0u32; n];
    v.par_chunks_mut(1 << 16).enumerate().for_each(|(i, c)| {
        let mut r = ChaCha20Rng::seed_from_u64(seed ^ rand::random::<u64>());
        r.set_stream(i as u64);
        for x in c.iter_mut() {
            *x = r.next_u32();
        }
    });
    v
}

/// n random scalars below 2^254 as Montgomery words, on the device.
fn random_scalars(gpu: &Gpu, n: usize, seed: u64) -> Result<DeviceBuffer<u32>> {
    let mut words = random_words(8 * n, seed);
    words.par_chunks_mut(8).for_each(|s| s[7] &= 0x3fff_ffff);
    gpu.upload(&words)
}

/// Which MSM `msm_ms` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsmKind {
    G1,
    G2,
    /// The G1 batch addition, half the points selected.
    BatchAdd,
}

/// Median ms of a dense MSM (or the batch addition) of 2^log_n points on the device.
pub fn msm_ms(gpu: &Gpu, msm: &Msm, kind: MsmKind, log_n: u32) -> Result<f64> {
    let n = 1usize << log_n;
    let repeats = if log_n >= 25 { 5 } else { 7 };
    match kind {
        MsmKind::G1 => {
            let (pts, s) = (tiled_points::<G1>(gpu, n, 13)?, random_scalars(gpu, n, 14)?);
            let points = || MsmPoints::Device { buf: &pts, first: 0 };
            median_ms(gpu, repeats, || msm.msm_g1(gpu, points(), &s, 0).map(drop))
        }
        MsmKind::G2 => {
            let (pts, s) = (tiled_points::<G2>(gpu, n, 13)?, random_scalars(gpu, n, 14)?);
            let points = || MsmPoints::Device { buf: &pts, first: 0 };
            median_ms(gpu, repeats, || msm.msm_g2(gpu, points(), &s, 0).map(drop))
        }
        MsmKind::BatchAdd => {
            let pts = tiled_points::<G1>(gpu, n, 11)?;
            let bitmap = gpu.upload(&random_words(n.div_ceil(32), 12))?;
            let points = || MsmPoints::Device { buf: &pts, first: 0 };
            median_ms(gpu, 7, || msm.batch_add_g1(gpu, points(), &bitmap, n).map(drop))
        }
    }
}

/// `bench setup-points`: params setup's fixed-base multiplication of the generators on the GPU,
/// host to host (scalars in, encoded points out), at the default chunk.
#[derive(Debug, Clone)]
pub struct SetupPoints {
    pub device: String,
    pub g1_per_s: f64,
    pub g2_per_s: f64,
}

impl fmt::Display for SetupPoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Generator multiples on {} (params setup), host to host:", self.device)?;
        writeln!(f, "G1 {:.1} M points/s, G2 {:.1} M points/s", self.g1_per_s / 1e6, self.g2_per_s / 1e6)?;
        write!(
            f,
            "32GiB projection: ~420M G1 points {:.1} s, ~33M G2 points {:.1} s",
            420e6 / self.g1_per_s,
            33e6 / self.g2_per_s
        )
    }
}

/// Times `chunks` default chunks of G1 points and as many points of G2 (after a warm-up chunk).
pub fn setup_points(chunks: usize) -> Result<SetupPoints> {
    let gpu = Gpu::open(0)?;
    let device = gpu.ctx.device.name()?;
    let gm = GeneratorMul::new(&gpu)?;
    let mut rng = ChaCha20Rng::seed_from_u64(rand::random());
    let scalars: Vec<Scalar> = (0..chunks.max(1) * DEFAULT_CHUNK).map(|_| Scalar::random(&mut rng)).collect();
    let mut out = vec![0u8; scalars.len() * 96];
    let gpu_err = |e: anyhow::Error| crate::gpu::GpuError::Invalid(format!("{e:#}"));
    gm.g1_to_bytes(&scalars[..DEFAULT_CHUNK.min(scalars.len())], &mut out[..DEFAULT_CHUNK.min(scalars.len()) * 96])
        .map_err(gpu_err)?;
    let t = Instant::now();
    gm.g1_to_bytes(&scalars, &mut out).map_err(gpu_err)?;
    let g1_per_s = scalars.len() as f64 / t.elapsed().as_secs_f64();
    let n2 = scalars.len() / 4;
    let mut out2 = vec![0u8; n2 * 192];
    let t = Instant::now();
    gm.g2_to_bytes(&scalars[..n2], &mut out2).map_err(gpu_err)?;
    let g2_per_s = n2 as f64 / t.elapsed().as_secs_f64();
    Ok(SetupPoints { device, g1_per_s, g2_per_s })
}

/// One prover kernel (NTT, H pipeline, MSM, batch addition) at one size, in milliseconds.
#[derive(Debug, Clone)]
pub struct StageRow {
    pub name: String,
    pub median_ms: f64,
    /// The floor derived from the measured ceilings, ms.
    pub floor_ms: Option<f64>,
    /// sppark on the same H200, ms.
    pub sppark_ms: Option<f64>,
}

/// The prover's kernels at the sizes of a 32GiB partition, each next to its floor and to
/// sppark's time on the same machine.
#[derive(Debug, Clone)]
pub struct StageReport {
    pub device: String,
    pub rows: Vec<StageRow>,
}

impl fmt::Display for StageReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Prover kernels on {} (median ms, data already on the device)", self.device)?;
        writeln!(
            f,
            "{:<34} {:>10} {:>9} {:>8} {:>9} {:>8}",
            "stage", "median ms", "floor", "x floor", "sppark", "x sppark"
        )?;
        let cell = |v: Option<f64>, t: f64| match v {
            Some(v) => (format!("{v:.1}"), format!("{:.2}", t / v)),
            None => ("-".into(), "-".into()),
        };
        for r in &self.rows {
            let (fl, fr) = cell(r.floor_ms, r.median_ms);
            let (sp, sr) = cell(r.sppark_ms, r.median_ms);
            writeln!(f, "{:<34} {:>10.2} {:>9} {:>8} {:>9} {:>8}", r.name, r.median_ms, fl, fr, sp, sr)?;
        }
        Ok(())
    }
}

/// Runs the prover-kernel benchmarks on device 0. `max_log` bounds the sizes (27: NTT and H at
/// 2^27, G1 MSM 2^26, G2 MSM 2^24, batch addition 2^27); `only` keeps the rows whose name
/// contains it.
pub fn prover_kernels(max_log: u32, only: Option<&str>) -> Result<StageReport> {
    let gpu = Gpu::open(0)?;
    let device = gpu.ctx.device.name()?;
    let (ntt, msm) = (Ntt::new(&gpu)?, Msm::new(&gpu)?);
    let mut rows = Vec::new();
    let mut row = |name: String, ms: &dyn Fn() -> Result<f64>, floor: Option<f64>, sppark: Option<f64>| -> Result<()> {
        if only.is_none_or(|o| name.contains(o)) {
            rows.push(StageRow { name, median_ms: ms()?, floor_ms: floor, sppark_ms: sppark });
        }
        Ok(())
    };
    let cap = |k: u32| k.min(max_log);
    for k in [24, 27].map(cap) {
        let (floor, sp) = match k {
            27 => (Some(30.0), Some(42.3)),
            24 => (None, Some(4.4)),
            _ => (None, None),
        };
        row(format!("NTT 2^{k} forward"), &|| ntt_ms(&gpu, &ntt, k), floor, sp)?;
    }
    let k = cap(27);
    let floor = (k == 27).then_some(250.0);
    row(format!("H pipeline 2^{k}, fused (7 NTTs)"), &|| h_ms(&gpu, &ntt, k, HBuffers::Four), floor, None)?;
    row(format!("H pipeline 2^{k}, three buffers"), &|| h_ms(&gpu, &ntt, k, HBuffers::Three), floor, None)?;
    for k in [20, 24, 26].map(cap) {
        let sp = match k {
            20 => Some(21.0),
            24 => Some(154.8),
            26 => Some(558.0),
            _ => None,
        };
        let floor = (k == 26).then_some(320.0);
        row(format!("G1 MSM 2^{k} dense"), &|| msm_ms(&gpu, &msm, MsmKind::G1, k), floor, sp)?;
    }
    let k = cap(24);
    row(format!("G2 MSM 2^{k} dense"), &|| msm_ms(&gpu, &msm, MsmKind::G2, k), None, (k == 24).then_some(446.0))?;
    // Floor: 2^26 selected XYZZ mixed additions at the measured 2.62 G/s.
    let k = cap(27);
    let floor = (1u64 << (k - 1)) as f64 / 2.62e9 * 1e3;
    row(format!("G1 batch add 2^{k}, half selected"), &|| msm_ms(&gpu, &msm, MsmKind::BatchAdd, k), Some(floor), None)?;
    Ok(StageReport { device, rows })
}
