//! Kernel throughput (`filsnark bench kernels`, first table): Fr mul, Fp mul, Fp sqr, the
//! FP64-pipe Fp mul, G1 and G2 mixed addition, each next to the ceiling measured on an H200 with
//! sppark-style code (ptx/NOTES.md). Each kernel runs `iters` dependent operations per thread on
//! register-resident operands; the grid is a whole number of full waves at the kernel's
//! occupancy; timing with CUDA events after a warm-up, median of repeats.
use std::fmt;

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::gpu::kernels::{Throughput, ThroughputArgs, ThroughputKernels};
use crate::gpu::layout::{Group, G1, G2};
use crate::gpu::selftest::{affine, random_points};
use crate::gpu::{Event, Gpu, Result};

/// One benchmarked kernel.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: &'static str,
    pub kernel: String,
    /// Operations per second (median run).
    pub ops_per_s: f64,
    /// Ceiling measured on an H200 with sppark-style code, ops/s.
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

/// What a throughput kernel's operands are.
#[derive(Clone, Copy)]
enum Operands {
    /// Field elements of the kernel's word count (below the modulus).
    Field,
    /// Affine points of a group.
    G1,
    G2,
}

/// Runs every throughput kernel on device 0.
pub fn kernels() -> Result<Report> {
    kernels_with(7, 100.0)
}

/// `repeats` timed runs per kernel, each sized to about `target_ms`.
pub fn kernels_with(repeats: usize, target_ms: f64) -> Result<Report> {
    let gpu = Gpu::open(0)?;
    let dev = gpu.ctx.device;
    let k = ThroughputKernels::load(&gpu)?;
    let sms = dev.sm_count()?;
    let specs: [(&str, &Throughput, Operands, Option<f64>); 9] = [
        ("Fr mul (IMAD)", k.fr_mul(), Operands::Field, Some(60.0e9)),
        ("Fr mul (.func call)", k.fr_mul_call(), Operands::Field, Some(60.0e9)),
        ("Fp mul (IMAD)", k.fp_mul(), Operands::Field, Some(27.3e9)),
        ("Fp mul (.func call)", k.fp_mul_call(), Operands::Field, Some(27.3e9)),
        ("Fp sqr (IMAD)", k.fp_sqr(), Operands::Field, Some(34.6e9)),
        ("Fp mul (FP64 DFMA)", k.fp52_mul(), Operands::Field, Some(27.3e9)),
        ("G1 XYZZ mixed add", k.g1_madd(), Operands::G1, Some(2.62e9)),
        ("G1 mixed add (fp calls)", k.g1c_madd(), Operands::G1, Some(2.62e9)),
        ("G2 XYZZ mixed add", k.g2_madd(), Operands::G2, None),
    ];
    let mut rows = Vec::new();
    for (name, kernel, operands, ceiling) in specs {
        rows.push(bench_one(&gpu, sms, name, kernel, operands, ceiling, repeats, target_ms)?);
    }
    Ok(Report { device: dev.name()?, sms, max_clock_mhz: dev.clock_khz()? / 1000, repeats, rows })
}

/// `n` elements of `words` u32 words: random field elements (top limb masked below the modulus),
/// or affine points of `G`.
fn operands(kind: Operands, n: usize, words: usize, seed: u64, tag: u64) -> Vec<u32> {
    match kind {
        Operands::Field => {
            let mut r = ChaCha20Rng::seed_from_u64(seed ^ tag);
            let mut v: Vec<u32> = (0..n * words).map(|_| r.next_u32()).collect();
            for c in v.chunks_mut(words) {
                c[words - 1] &= if words == 8 { 0x0fff_ffff } else { 0x00ff_ffff };
            }
            v
        }
        Operands::G1 => affine::<G1>(&random_points::<G1>(n, seed, tag)).iter().flat_map(G1::aff_words).collect(),
        Operands::G2 => affine::<G2>(&random_points::<G2>(n, seed, tag)).iter().flat_map(G2::aff_words).collect(),
    }
}

#[allow(clippy::too_many_arguments)]
fn bench_one(
    gpu: &Gpu,
    sms: i32,
    name: &'static str,
    k: &Throughput,
    kind: Operands,
    ceiling: Option<f64>,
    repeats: usize,
    target_ms: f64,
) -> Result<Row> {
    let f = k.kernel();
    let block = f.max_threads_per_block()?.clamp(32, 256) as u32;
    let blocks_per_sm = f.max_active_blocks_per_sm(block, 0)?;
    let grid = (sms * blocks_per_sm.max(1) * 4) as u32; // four full waves
    let threads = grid as u64 * block as u64;
    let n = threads as usize;
    let seed = rand::rngs::OsRng.next_u64();
    let a = operands(kind, n, k.in0_words() as usize, seed, 1);
    // a unary kernel reads no second operand: any buffer will do
    let b = operands(kind, n, (k.in1_words() as usize).max(1), seed, 2);
    let (da, db) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let out = gpu.alloc::<u32>(n * k.out_words() as usize)?;
    let run = |iters: u32| -> Result<f64> {
        let (e0, e1) = (Event::new(&gpu.ctx)?, Event::new(&gpu.ctx)?);
        let args = ThroughputArgs { out: out.view(), in0: da.view(), in1: db.view(), iters };
        e0.record(&gpu.stream)?;
        k.launch(&gpu.stream, grid, block, &args)?;
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
    ts.sort_by(|x, y| x.total_cmp(y));
    let med = ts[ts.len() / 2];
    Ok(Row {
        name,
        kernel: f.name().to_string(),
        ops_per_s: threads as f64 * iters as f64 / (med * 1e-3),
        ceiling,
        median_ms: med,
        min_ms: ts[0],
        max_ms: *ts.last().unwrap_or(&med),
        threads,
        iters,
        regs: f.num_regs()?,
        local_bytes: f.local_bytes()?,
    })
}
