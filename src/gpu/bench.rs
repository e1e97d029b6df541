//! Kernel throughput (`filsnark bench kernels`): Fr mul, Fp mul, Fp sqr, the
//! FP64-pipe Fp mul, G1 and G2 mixed addition, each next to its measured
//! ceiling on the H200 (FACTS.md). Each kernel runs `iters` dependent
//! operations per thread on register-resident operands; the grid is a whole
//! number of full waves at the kernel's occupancy; timing with CUDA events
//! after a warm-up, median of repeats.
use super::driver::{KernelArg, Module};
use super::layout::{Group, G1, G2};
use super::selftest::{affine, random_points};
use super::{Event, Gpu, Result};
use cudarc::driver::sys;
use rand::{RngCore, SeedableRng};
use std::fmt;

/// One benchmarked kernel.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: &'static str,
    pub kernel: &'static str,
    /// Operations per second (median run).
    pub ops_per_s: f64,
    /// Ceiling measured on this H200 with sppark-style code (FACTS.md), ops/s.
    pub ceiling: Option<f64>,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub threads: u64,
    pub iters: u32,
    pub regs: i32,
    pub local_bytes: i32,
}

#[derive(Debug, Clone)]
pub struct Report {
    pub device: String,
    pub sms: i32,
    pub max_clock_mhz: i32,
    pub repeats: usize,
    pub rows: Vec<Row>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Kernel throughput on {} ({} SMs, max SM clock {} MHz), median of {} timed runs after warm-up",
            self.device, self.sms, self.max_clock_mhz, self.repeats
        )?;
        writeln!(
            f,
            "{:<24} {:>10} {:>10} {:>7} {:>10} {:>9} {:>5} {:>6}",
            "kernel", "G op/s", "ceiling", "ratio", "median ms", "spread %", "regs", "local"
        )?;
        for r in &self.rows {
            let (c, ratio) = match r.ceiling {
                Some(c) => (format!("{:.2}", c / 1e9), format!("{:.2}", r.ops_per_s / c)),
                None => ("-".into(), "-".into()),
            };
            writeln!(
                f,
                "{:<24} {:>10.3} {:>10} {:>7} {:>10.3} {:>9.1} {:>5} {:>6}",
                r.name,
                r.ops_per_s / 1e9,
                c,
                ratio,
                r.median_ms,
                100.0 * (r.max_ms - r.min_ms) / r.median_ms,
                r.regs,
                r.local_bytes
            )?;
        }
        Ok(())
    }
}

/// Runs every throughput kernel on device 0.
pub fn kernels() -> Result<Report> {
    kernels_with(7, 100.0)
}

/// `repeats` timed runs per kernel, each sized to about `target_ms`.
pub fn kernels_with(repeats: usize, target_ms: f64) -> Result<Report> {
    let gpu = Gpu::open(0)?;
    let dev = gpu.ctx.device;
    let m = gpu.load("bench")?;
    let sms = dev.sm_count()?;
    let mut rows = Vec::new();
    let specs: [(&str, &str, usize, Option<f64>); 9] = [
        ("Fr mul (IMAD)", "bench_fr_mul", 8, Some(60.0e9)),
        ("Fr mul (.func call)", "bench_fr_mul_call", 8, Some(60.0e9)),
        ("Fp mul (IMAD)", "bench_fp_mul", 12, Some(27.3e9)),
        ("Fp mul (.func call)", "bench_fp_mul_call", 12, Some(27.3e9)),
        ("Fp sqr (IMAD)", "bench_fp_sqr", 12, Some(34.6e9)),
        ("Fp mul (FP64 DFMA)", "bench_fp52_mul", 12, Some(27.3e9)),
        ("G1 XYZZ mixed add", "bench_g1_madd", 0, Some(2.62e9)),
        ("G1 mixed add (fp calls)", "bench_g1c_madd", 0, Some(2.62e9)),
        ("G2 XYZZ mixed add", "bench_g2_madd", 0, None),
    ];
    for (name, kernel, words, ceiling) in specs {
        rows.push(bench_one(&gpu, &m, sms, name, kernel, words, ceiling, repeats, target_ms)?);
    }
    Ok(Report { device: dev.name()?, sms, max_clock_mhz: dev.clock_khz()? / 1000, repeats, rows })
}

#[allow(clippy::too_many_arguments)]
fn bench_one(
    gpu: &Gpu,
    m: &Module,
    sms: i32,
    name: &'static str,
    kernel: &'static str,
    words: usize,
    ceiling: Option<f64>,
    repeats: usize,
    target_ms: f64,
) -> Result<Row> {
    let f = m.function(kernel)?;
    let block = f.max_threads_per_block()?.clamp(32, 256);
    let mut blocks_per_sm = 0i32;
    // SAFETY: plain query on a valid function handle.
    super::driver::check(
        unsafe { sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut blocks_per_sm, f_handle(&f), block, 0) },
        "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    )?;
    let grid = (sms * blocks_per_sm.max(1) * 4) as u32; // four full waves
    let threads = grid as u64 * block as u64;
    let n = threads as usize;
    let seed = rand::rngs::OsRng.next_u64();
    // inputs: random field elements (as Montgomery words) or affine points
    let (a, b, out_words): (Vec<u32>, Vec<u32>, usize) = if words > 0 {
        let mut r = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        let mut gen = || -> Vec<u32> {
            let mut v = vec![0u32; n * words];
            r.fill_bytes(bytemuck_u32(&mut v));
            // keep each element below the modulus: clear the top bits of the top limb
            for c in v.chunks_mut(words) {
                c[words - 1] &= if words == 8 { 0x0fff_ffff } else { 0x00ff_ffff };
            }
            v
        };
        (gen(), gen(), words)
    } else if kernel.contains("g1") {
        let p = affine::<G1>(&random_points::<G1>(n, seed, 1));
        let q = affine::<G1>(&random_points::<G1>(n, seed, 2));
        (p.iter().flat_map(G1::aff_words).collect(), q.iter().flat_map(G1::aff_words).collect(), 4 * G1::W)
    } else {
        let p = affine::<G2>(&random_points::<G2>(n, seed, 1));
        let q = affine::<G2>(&random_points::<G2>(n, seed, 2));
        (p.iter().flat_map(G2::aff_words).collect(), q.iter().flat_map(G2::aff_words).collect(), 4 * G2::W)
    };
    let da = gpu.upload(&a)?;
    let db = gpu.upload(&b)?;
    let out = gpu.alloc::<u32>(n * out_words)?;
    let run = |iters: u32| -> Result<f64> {
        let (e0, e1) = (Event::new(&gpu.ctx)?, Event::new(&gpu.ctx)?);
        let args = [out.arg(), da.arg(), db.arg(), KernelArg::U32(iters)];
        e0.record(&gpu.stream)?;
        // SAFETY: bench_*(out, in0, in1, iters): one thread per element of
        // the buffers sized above (n = grid * block).
        unsafe { f.launch(&gpu.stream, grid, block as u32, &args)? };
        e1.record(&gpu.stream)?;
        Ok(e0.elapsed_ms(&e1)? as f64)
    };
    // warm-up and sizing
    let mut iters = 16u32;
    let mut t = run(iters)?;
    while t < target_ms / 8.0 && iters < (1 << 24) {
        iters *= 4;
        t = run(iters)?;
    }
    iters = ((iters as f64 * target_ms / t).max(1.0)) as u32;
    run(iters)?;
    let mut ts = (0..repeats).map(|_| run(iters)).collect::<Result<Vec<f64>>>()?;
    ts.sort_by(|x, y| x.partial_cmp(y).unwrap());
    let med = ts[ts.len() / 2];
    Ok(Row {
        name,
        kernel,
        ops_per_s: threads as f64 * iters as f64 / (med * 1e-3),
        ceiling,
        median_ms: med,
        min_ms: ts[0],
        max_ms: *ts.last().unwrap(),
        threads,
        iters,
        regs: f.num_regs()?,
        local_bytes: f.local_bytes()?,
    })
}

fn bytemuck_u32(v: &mut [u32]) -> &mut [u8] {
    // SAFETY: u32 has no padding and any byte pattern is valid.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, std::mem::size_of_val(v)) }
}

fn f_handle(f: &super::driver::Function<'_>) -> sys::CUfunction {
    f.raw()
}

/// One prover kernel (NTT, H pipeline, MSM, batch addition) at one size, in milliseconds.
#[derive(Debug, Clone)]
pub struct StageRow {
    pub name: String,
    pub median_ms: f64,
    /// The floor from FACTS.md (derived from the measured ceilings), ms.
    pub floor_ms: Option<f64>,
    /// sppark on the same H200 (FACTS.md), ms.
    pub sppark_ms: Option<f64>,
}

/// `filsnark bench kernels --prover`: the prover's kernels at the sizes issue 5 names, each next
/// to its floor and to sppark's time on the same machine.
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

/// Runs the prover-kernel benchmarks on device 0. `max_log` bounds the sizes (27 = issue 5's
/// list: NTT and H at 2^27, G1 MSM 2^26, G2 MSM 2^24, batch addition 2^27); `only` keeps the rows
/// whose name contains it.
pub fn prover_kernels(max_log: u32, only: Option<&str>) -> Result<StageReport> {
    let gpu = Gpu::open(0)?;
    let device = super::Device::get(0)?.name()?;
    let mut rows = Vec::new();
    let mut row = |name: String, ms: &dyn Fn() -> Result<f64>, floor: Option<f64>, sppark: Option<f64>| -> Result<()> {
        if only.is_none_or(|o| name.contains(o)) {
            rows.push(StageRow { name, median_ms: ms()?, floor_ms: floor, sppark_ms: sppark });
        }
        Ok(())
    };
    let cap = |k: u32| k.min(max_log);
    for k in [24, 27].map(cap) {
        let (floor, sp) = if k == 27 {
            (Some(30.0), Some(42.3))
        } else if k == 24 {
            (None, Some(4.4))
        } else {
            (None, None)
        };
        row(format!("NTT 2^{k} forward"), &|| super::ntt::bench_ntt(&gpu, k), floor, sp)?;
    }
    let k = cap(27);
    row(
        format!("H pipeline 2^{k} (7 NTTs + pointwise)"),
        &|| super::ntt::bench_h(&gpu, k),
        (k == 27).then_some(250.0),
        None,
    )?;
    for k in [20, 24, 26].map(cap) {
        let sp = match k {
            20 => Some(21.0),
            24 => Some(154.8),
            26 => Some(558.0),
            _ => None,
        };
        let floor = (k == 26).then_some(320.0);
        row(format!("G1 MSM 2^{k} dense"), &|| super::msm::bench_msm_g1(&gpu, k), floor, sp)?;
    }
    let k = cap(24);
    row(format!("G2 MSM 2^{k} dense"), &|| super::msm::bench_msm_g2(&gpu, k), None, (k == 24).then_some(446.0))?;
    // Floor: 2^26 selected XYZZ mixed additions at the measured 2.62 G/s.
    let k = cap(27);
    let floor = (1u64 << (k - 1)) as f64 / 2.62e9 * 1e3;
    row(format!("G1 batch add 2^{k}, half selected"), &|| super::msm::bench_batch_add(&gpu, k), Some(floor), None)?;
    Ok(StageReport { device, rows })
}
