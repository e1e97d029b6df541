//! Pairing products' Miller loops on the device (module "miller", ptx/kernels/miller.ptxi):
//! SnarkPack's products Π e(p_i, q_i), several G1 vectors over one G2 vector at a time.
//!
//! The host uploads the G2 vector and the G1 vectors paired with it (96 and 192 bytes a point);
//! `miller_lines` computes each G2 point's 68 Miller-loop lines on the device, once for all the
//! G1 vectors (blst's `precompute_lines`, the G2 half of the work: 19,584 bytes a point that
//! never cross PCIe), and `miller_loop_lines` evaluates them at the G1 points and runs the loop,
//! one thread per group of `per` pairs (the group shares the squarings of f), writing each
//! group's Fp12.
//! The host multiplies a vector's group values into its Miller product; one final
//! exponentiation per product follows on the CPU. Each value is exactly the Fp12 that
//! [`MillerProduct::of_lines`] gives for the same pairs, so the aggregate's bytes do not depend on
//! where the loops ran.
//!
//! Each call has its own stream and buffers: calls from several threads (SnarkPack's products
//! run side by side) overlap on the device and never wait on a lock, and none holds anything
//! while rayon runs (a lock held across rayon work can deadlock when a waiting thread steals a
//! job that takes the same lock).
use std::time::Instant;

use blst::blst_fp12;
use rayon::prelude::*;

use super::kernels::miller::{BLOCK, LINES, LINE_WORDS};
use super::kernels::{MillerKernels, MillerLinesArgs, MillerLoopLinesArgs};
use super::layout::{fp2_words, fp_from_words, fp_words};
use super::{DeviceBuffer, Gpu, GpuError, Result, Stream};
use crate::ec::pairing::LINES as BLST_LINES;
use crate::ec::{Curve, MillerLoops, MillerProduct, P1Affine, P2Affine, G1, G2};

// The kernel walks blst's line table as it is.
const _: () = assert!(LINES as usize == BLST_LINES && LINE_WORDS == 72);

/// u32 words of one G2 point's line table, of an affine G1 and G2 point, of an Fp12.
const TABLE_WORDS: usize = LINES as usize * LINE_WORDS as usize;
const POINT_WORDS: usize = 24;
const G2_WORDS: usize = 48;
const FP12_WORDS: usize = 144;

/// Pairs per call below which the CPU loops are used (the device's fixed costs: a thread's whole
/// loop takes milliseconds, and the points cross PCIe). Swept on an H100 host (examples/
/// aggregate_bench.rs, medians of 3, docs/measurements.md): 64 was fastest for 819 proofs
/// (0.397 s; 0.505 s at 512, 0.433 s with every product on the device, 0.677 s on the 16
/// cores) and for 8,190 (1.668 s; 128: 1.672, 512: 2.109, every product: 1.760).
pub const MIN_PAIRS: usize = 64;

/// Timings of the last calls, for the benchmark (seconds, summed over calls).
#[derive(Clone, Copy, Debug, Default)]
pub struct MillerTimes {
    pub calls: usize,
    pub pairs: usize,
    /// The points as the kernels read them, and the products of the groups' values.
    pub host: f64,
    /// Uploads, both kernels, the download.
    pub device: f64,
}

/// The Miller-loop kernel on one device.
pub struct GpuMillerLoops {
    gpu: Gpu,
    kernels: MillerKernels,
    /// Threads the device holds at once running the kernel (SMs × blocks per SM × BLOCK).
    resident: usize,
    label: String,
    min_pairs: usize,
    times: std::sync::Mutex<MillerTimes>,
}

impl GpuMillerLoops {
    /// Opens device `ordinal` and loads module "miller" (JIT).
    pub fn open(ordinal: usize) -> Result<Self> {
        let gpu = Gpu::open(ordinal)?;
        let kernels = MillerKernels::load(&gpu)?;
        let per_sm = kernels.loop_lines().kernel().max_active_blocks_per_sm(BLOCK, 0)?.max(1) as usize;
        let sms = gpu.ctx.device.sm_count()?.max(1) as usize;
        let label = format!("GPU {ordinal} ({})", gpu.ctx.device.name()?);
        let resident = sms * per_sm * BLOCK as usize;
        Ok(GpuMillerLoops { gpu, kernels, resident, label, min_pairs: MIN_PAIRS, times: Default::default() })
    }

    /// Sends every product to the device whatever its size (tests, benchmarks).
    pub fn always(self) -> Self {
        self.with_min_pairs(0)
    }

    /// Sends products of at least `pairs` pairs to the device (benchmarks choose [`MIN_PAIRS`]).
    pub fn with_min_pairs(mut self, pairs: usize) -> Self {
        self.min_pairs = pairs;
        self
    }

    /// What the calls so far took.
    pub fn times(&self) -> MillerTimes {
        *self.times.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// For each G1 vector of `ps`, the product of its pairs' Miller loops with `q`.
    pub fn miller_loops(&self, ps: &[&[P1Affine]], q: &[P2Affine]) -> Result<Vec<MillerProduct>> {
        let per_group = |n: usize, nvec: usize| (n * nvec).div_ceil(self.resident).clamp(1, n);
        let (values, times) = products(ps, q, per_group, |job| self.launch(job))?;
        let mut tm = self.times.lock().unwrap_or_else(|e| e.into_inner());
        tm.calls += 1;
        tm.pairs += ps.len() * q.len();
        tm.host += times.0;
        tm.device += times.1;
        Ok(values)
    }

    /// Uploads, runs both kernels on a stream of this call's own, and returns the groups' Fp12
    /// words.
    fn launch(&self, job: &Job) -> Result<Vec<u32>> {
        let Job { q, points, n, nvec, per, groups } = *job;
        let stream = Stream::new(&self.gpu.ctx)?;
        let u32_of = |x: usize, what: &str| {
            u32::try_from(x).map_err(|_| GpuError::Invalid(format!("{x} {what}: more than the kernel indexes")))
        };
        let mut dev_q = DeviceBuffer::<u32>::alloc(&stream, q.len())?;
        dev_q.copy_from_host(q)?;
        let dev_lines = DeviceBuffer::<u32>::alloc(&stream, n * TABLE_WORDS)?;
        let lines = MillerLinesArgs { lines: dev_lines.view(), q: dev_q.view(), n: u32_of(n, "G2 points")? };
        self.kernels.lines().launch(&stream, &lines)?;
        let mut dev_points = DeviceBuffer::<u32>::alloc(&stream, points.len())?;
        dev_points.copy_from_host(points)?;
        let out = DeviceBuffer::<u32>::alloc(&stream, nvec * groups * FP12_WORDS)?;
        let args = MillerLoopLinesArgs {
            out: out.view(),
            lines: dev_lines.view(),
            points: dev_points.view(),
            n: u32_of(n, "pairs")?,
            nvec: u32_of(nvec, "vectors")?,
            per: u32_of(per, "pairs per group")?,
            groups: u32_of(groups, "groups")?,
        };
        self.kernels.loop_lines().launch(&stream, &args)?;
        let mut host = vec![0u32; out.len()];
        out.copy_to_host(&mut host)?;
        Ok(host)
    }
}

impl MillerLoops for GpuMillerLoops {
    fn label(&self) -> String {
        self.label.clone()
    }
    fn pays(&self, pairs: usize) -> bool {
        pairs >= self.min_pairs
    }
    fn sharing_g2(&self, ps: &[&[P1Affine]], q: &[P2Affine]) -> anyhow::Result<Vec<MillerProduct>> {
        self.miller_loops(ps, q).map_err(|e| anyhow::anyhow!("{}: Miller loops (module miller): {e}", self.label))
    }
}

/// One call's inputs: `nvec` vectors of `n` G1 points over `n` G2 points, groups of `per` pairs
/// (`groups` per vector).
struct Job<'a> {
    q: &'a [u32],
    points: &'a [u32],
    n: usize,
    nvec: usize,
    per: usize,
    groups: usize,
}

/// The host's part of a call: the points as words, one `run` of the kernels on them, the groups'
/// values multiplied per vector. `per_group(n, nvec)` sizes the groups. Also returns the seconds
/// spent on the host's part and in `run`.
fn products(
    ps: &[&[P1Affine]],
    q: &[P2Affine],
    per_group: impl Fn(usize, usize) -> usize,
    run: impl FnOnce(&Job) -> Result<Vec<u32>>,
) -> Result<(Vec<MillerProduct>, (f64, f64))> {
    if let Some(p) = ps.iter().find(|p| p.len() != q.len()) {
        return Err(GpuError::Invalid(format!("{} G1 points paired with {} G2 points", p.len(), q.len())));
    }
    let (n, nvec) = (q.len(), ps.len());
    if n == 0 || nvec == 0 {
        return Ok((vec![MillerProduct::one(); nvec], (0.0, 0.0)));
    }
    let t = Instant::now();
    let (qw, points) = rayon::join(|| g2_words(q), || point_words(ps));
    let mut host_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let per = per_group(n, nvec);
    let groups = n.div_ceil(per);
    let values = run(&Job { q: &qw, points: &points, n, nvec, per, groups })?;
    let run_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let products = values
        .par_chunks(groups * FP12_WORDS)
        .map(|v| v.chunks(FP12_WORDS).map(fp12_from_words).fold(MillerProduct::one(), |f, g| f.mul(&g)))
        .collect();
    host_s += t.elapsed().as_secs_f64();
    Ok((products, (host_s, run_s)))
}

/// The G2 points (x, y) as blst holds them; infinity is (0, 0), which `miller_lines` gives 68
/// lines (1, 0, 0) that multiply f by 1.
fn g2_words(q: &[P2Affine]) -> Vec<u32> {
    let mut w = vec![0u32; q.len() * G2_WORDS];
    w.par_chunks_mut(G2_WORDS).zip(q.par_iter()).for_each(|(o, q)| {
        if !G2::affine_is_inf(q) {
            o[..24].copy_from_slice(&fp2_words(&q.x));
            o[24..].copy_from_slice(&fp2_words(&q.y));
        }
    });
    w
}

/// The G1 vectors one after the other, each point (x, y) as blst holds it; infinity is (0, 0).
fn point_words(ps: &[&[P1Affine]]) -> Vec<u32> {
    let all: Vec<&P1Affine> = ps.iter().flat_map(|p| p.iter()).collect();
    let mut w = vec![0u32; all.len() * POINT_WORDS];
    w.par_chunks_mut(POINT_WORDS).zip(all.par_iter()).for_each(|(o, p)| {
        if !G1::affine_is_inf(p) {
            o[..12].copy_from_slice(&fp_words(&p.x));
            o[12..].copy_from_slice(&fp_words(&p.y));
        }
    });
    w
}

fn fp12_from_words(w: &[u32]) -> MillerProduct {
    let mut f = blst_fp12::default();
    let fps = f.fp6.iter_mut().flat_map(|c| c.fp2.iter_mut()).flat_map(|c| c.fp.iter_mut());
    for (fp, ws) in fps.zip(w.chunks(12)) {
        *fp = fp_from_words(ws);
    }
    MillerProduct::from_blst(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ec::pairing::line_at;
    use crate::ec::sample::random_progression;
    use crate::ec::G2Lines;
    use crate::gpu::layout::fp2_from_words;
    use blst::blst_fp6;
    use rand::SeedableRng;

    /// The line (1, 0, 0): the sparse Fp12 element 1.
    fn identity_line() -> blst_fp6 {
        let mut l = blst_fp6::default();
        l.fp2[0] = MillerProduct::one().as_blst().fp6[0].fp2[0];
        l
    }

    fn line_words(l: &blst_fp6, out: &mut [u32]) {
        for (fp, o) in l.fp2.iter().flat_map(|c| c.fp.iter()).zip(out.chunks_mut(12)) {
            o.copy_from_slice(&fp_words(fp));
        }
    }

    /// What miller_lines computes, with blst from the same words (the kernel is checked against
    /// blst's lines in scripts/ptxgen/simtest_miller.py): each point's 68 lines, or 68 lines
    /// (1, 0, 0) for (0, 0).
    fn lines_model(q: &[u32]) -> Vec<u32> {
        let mut w = vec![0u32; q.len() / G2_WORDS * TABLE_WORDS];
        w.par_chunks_mut(TABLE_WORDS).zip(q.par_chunks(G2_WORDS)).for_each(|(out, qw)| {
            let q = P2Affine { x: fp2_from_words(&qw[..24]), y: fp2_from_words(&qw[24..]) };
            let lines = G2Lines::of(&q);
            let table = lines.lines().copied().unwrap_or([identity_line(); LINES as usize]);
            table.iter().zip(out.chunks_mut(LINE_WORDS as usize)).for_each(|(l, o)| line_words(l, o));
        });
        w
    }

    fn fp12_words(f: &blst_fp12) -> Vec<u32> {
        f.fp6.iter().flat_map(|c| c.fp2.iter()).flat_map(|c| c.fp.iter()).flat_map(fp_words).collect()
    }

    fn line_from_words(w: &[u32]) -> blst_fp6 {
        let mut l = blst_fp6::default();
        for (fp, ws) in l.fp2.iter_mut().flat_map(|c| c.fp.iter_mut()).zip(w.chunks(12)) {
            *fp = fp_from_words(ws);
        }
        l
    }

    /// What the kernels compute, on the CPU with blst and from the same words (the loop
    /// scripts/ptxgen/simtest_miller.py checks the PTX of): the lines, then per group f = 1;
    /// per line a squaring unless it is line 0 or an addition line, then f times the line of
    /// each pair of the group whose G1 point is not (0, 0), evaluated at it; conjugated.
    fn kernel_model(job: &Job) -> Result<Vec<u32>> {
        let lines = lines_model(job.q);
        let mut out = vec![0u32; job.nvec * job.groups * FP12_WORDS];
        out.par_chunks_mut(FP12_WORDS).enumerate().for_each(|(og, o)| {
            let (v, g) = (og / job.groups, og % job.groups);
            let mut f = *MillerProduct::one().as_blst();
            for k in 0..LINES as usize {
                if ![0, 1, 4, 8, 18, 51].contains(&k) {
                    // SAFETY: blst reads and writes one element through valid references.
                    unsafe { blst::blst_fp12_sqr(&mut f, &f) };
                }
                for i in g * job.per..((g + 1) * job.per).min(job.n) {
                    let pw = &job.points[(v * job.n + i) * POINT_WORDS..][..POINT_WORDS];
                    if pw.iter().all(|&w| w == 0) {
                        continue;
                    }
                    let p = P1Affine { x: fp_from_words(&pw[..12]), y: fp_from_words(&pw[12..]) };
                    let line = line_from_words(&lines[i * TABLE_WORDS + k * LINE_WORDS as usize..][..72]);
                    // SAFETY: blst reads f and the sparse line and writes f through valid references.
                    unsafe { blst::blst_fp12_mul_by_xy00z0(&mut f, &f, &line_at(&line, &p)) };
                }
            }
            // SAFETY: blst conjugates one element in place.
            unsafe { blst::blst_fp12_conjugate(&mut f) };
            o.copy_from_slice(&fp12_words(&f));
        });
        Ok(out)
    }

    /// The host's part (line tables, points, groups, the product of the groups' values) with
    /// the kernel's model in place of the device, against blst's loops over the same pairs:
    /// equal Fp12 values for groups of 1, 2, 3 and all pairs, with points at infinity on
    /// either side.
    #[test]
    fn host_side_with_the_kernel_model_matches_blst() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        let n = 11;
        let mut q = random_progression::<G2>(n, &mut rng);
        q[4] = P2Affine::default();
        let mut ps: Vec<Vec<P1Affine>> = (0..3).map(|_| random_progression::<G1>(n, &mut rng)).collect();
        ps[1][7] = P1Affine::default();
        assert!(G2::affine_is_inf(&q[4]) && G1::affine_is_inf(&ps[1][7]));
        let raw: Vec<&[P1Affine]> = ps.iter().map(|p| p.as_slice()).collect();
        let lines: Vec<G2Lines> = q.iter().map(G2Lines::of).collect();
        let want: Vec<MillerProduct> = raw.iter().map(|p| MillerProduct::of_lines(p, &lines)).collect();
        for per in [1, 2, 3, n] {
            let (got, _) = products(&raw, &q, |_, _| per, kernel_model).unwrap();
            assert_eq!(got, want, "{per} pairs per group");
        }
        let (none, _) = products(&[], &q, |_, _| 1, kernel_model).unwrap();
        assert!(none.is_empty());
    }

    /// The words the kernel reads are blst's structs (limbs in order, little-endian halves).
    #[test]
    fn layouts_round_trip() {
        let f = MillerProduct::one();
        let w = fp12_words(f.as_blst());
        assert_eq!(fp12_from_words(&w), f);
        let mut lw = [0u32; 72];
        line_words(&identity_line(), &mut lw);
        assert_eq!(&lw[..12], &w[..12]);
        assert!(lw[12..].iter().all(|&x| x == 0));
        assert_eq!(line_from_words(&lw), identity_line());
    }
}
