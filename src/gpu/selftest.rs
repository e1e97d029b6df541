//! GPU self-test: every field and curve kernel, and the pairing's Miller loops, against
//! blstrs/blst on fresh random inputs (plus edge cases at the front of each array: 0, 1, 2,
//! p-1, p-2; infinity, P+P, P+(-P)), outputs poisoned before each launch.
//!
//! `run(n)` checks n elements per operation (use n >= 1<<20 for the record).
use super::kernels::{
    blocks_for, CurveTestKernels, ElementwiseBinary, ElementwiseBinaryArgs, ElementwiseUnary, ElementwiseUnaryArgs,
    SelftestKernels, SrsKernels,
};
use super::layout::{self, Group, G1, G2};
use super::{convert, DeviceBuffer, Gpu, GpuError, Result};
use crate::ec::pairing::line_at;
use crate::ec::{self, MontField as _};
use blstrs::{Fp, Fp2, Scalar};
use ff::Field as _;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use std::fmt;
use std::time::Instant;

/// One checked operation.
#[derive(Debug, Clone)]
pub struct Check {
    pub name: String,
    pub n: usize,
    pub mismatches: usize,
    pub first_bad: Option<usize>,
    /// Kernel time (CUDA events), milliseconds.
    pub gpu_ms: f64,
}

/// The whole self-test.
#[derive(Debug, Clone)]
pub struct Report {
    pub device: String,
    pub seed: u64,
    pub n: usize,
    pub checks: Vec<Check>,
    pub seconds: f64,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.checks.iter().all(|c| c.mismatches == 0)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "GPU self-test on {} (seed {:#x}, n = {} per operation)", self.device, self.seed, self.n)?;
        writeln!(f, "{:<22} {:>9} {:>10} {:>10}  result", "operation", "n", "mismatch", "kernel ms")?;
        for c in &self.checks {
            let r = match c.first_bad {
                None => "ok".to_string(),
                Some(i) => format!("FAIL (first at index {i})"),
            };
            writeln!(f, "{:<22} {:>9} {:>10} {:>10.3}  {r}", c.name, c.n, c.mismatches, c.gpu_ms)?;
        }
        let bad = self.checks.iter().filter(|c| c.mismatches > 0).count();
        write!(
            f,
            "{}: {} of {} checks passed in {:.1} s",
            if bad == 0 { "PASS" } else { "FAIL" },
            self.checks.len() - bad,
            self.checks.len(),
            self.seconds
        )
    }
}

/// Runs every check on device 0 with a fresh random seed.
pub fn run(n: usize) -> Result<Report> {
    let mut s = [0u8; 8];
    rand::rngs::OsRng.fill_bytes(&mut s);
    run_seeded(n, u64::from_le_bytes(s))
}

/// Runs every check with the given seed (printed in the report, to reproduce).
pub fn run_seeded(n: usize, seed: u64) -> Result<Report> {
    let n = n.max(64);
    let t0 = Instant::now();
    let gpu = Gpu::open(0)?;
    let device = gpu.ctx.device.name()?;
    let mut checks = Vec::new();
    let ff = SelftestKernels::load(&gpu)?;
    field_checks(&gpu, &ff, n, seed, &mut checks)?;
    drop(ff);
    let ec = CurveTestKernels::load(&gpu)?;
    curve_checks::<G1>(&gpu, &ec, n, seed, &mut checks)?;
    curve_checks::<G2>(&gpu, &ec, n, seed, &mut checks)?;
    drop(ec);
    let sm = SrsKernels::load(&gpu)?;
    srs_check::<G1>(&gpu, &sm, n, seed, &mut checks)?;
    srs_check::<G2>(&gpu, &sm, n, seed, &mut checks)?;
    drop(sm);
    miller_checks(n, seed, &mut checks)?;
    Ok(Report { device, seed, n, checks, seconds: t0.elapsed().as_secs_f64() })
}

// ---------------------------------------------------------------------------
// plumbing

/// The element-wise kernels of a self-test module, by PTX name.
trait Elementwise {
    fn unary(&self, kernel: &str) -> Option<&ElementwiseUnary>;
    fn binary(&self, kernel: &str) -> Option<&ElementwiseBinary>;
}

impl Elementwise for SelftestKernels {
    fn unary(&self, kernel: &str) -> Option<&ElementwiseUnary> {
        self.elementwise_unary_named(kernel)
    }
    fn binary(&self, kernel: &str) -> Option<&ElementwiseBinary> {
        self.elementwise_binary_named(kernel)
    }
}

impl Elementwise for CurveTestKernels {
    fn unary(&self, kernel: &str) -> Option<&ElementwiseUnary> {
        self.elementwise_unary_named(kernel)
    }
    fn binary(&self, kernel: &str) -> Option<&ElementwiseBinary> {
        self.elementwise_binary_named(kernel)
    }
}

/// Launches the element-wise kernel `kernel` (out[i] = op(in0[i], ..) for i < n, `out_words`
/// words per output); returns the output words and the kernel time. The output is poisoned
/// first.
fn launch_ew(
    gpu: &Gpu,
    m: &impl Elementwise,
    kernel: &str,
    ins: &[&[u32]],
    out_words: usize,
    n: usize,
) -> Result<(Vec<u32>, f64)> {
    let bufs = ins.iter().map(|x| gpu.upload(x)).collect::<Result<Vec<DeviceBuffer<u32>>>>()?;
    let mut out = gpu.alloc::<u32>(n * out_words)?;
    out.fill_bytes(0xA5)?;
    let missing = || GpuError::Invalid(format!("no element-wise kernel {kernel} with {} operands", ins.len()));
    let (e0, e1) = (super::Event::new(&gpu.ctx)?, super::Event::new(&gpu.ctx)?);
    let stream = &gpu.stream;
    match bufs.as_slice() {
        [a] => {
            let k = m.unary(kernel).ok_or_else(missing)?;
            check_out_words(kernel, k.out_words(), out_words)?;
            let block = k.kernel().max_threads_per_block()?.clamp(32, 256) as u32;
            let args = ElementwiseUnaryArgs { out: out.view(), in0: a.view(), n: n as u32 };
            e0.record(stream)?;
            k.launch(stream, blocks_for(n, block), block, &args)?;
        }
        [a, b] => {
            let k = m.binary(kernel).ok_or_else(missing)?;
            check_out_words(kernel, k.out_words(), out_words)?;
            let block = k.kernel().max_threads_per_block()?.clamp(32, 256) as u32;
            let args = ElementwiseBinaryArgs { out: out.view(), in0: a.view(), in1: b.view(), n: n as u32 };
            e0.record(stream)?;
            k.launch(stream, blocks_for(n, block), block, &args)?;
        }
        _ => return Err(missing()),
    }
    e1.record(stream)?;
    let mut host = vec![0u32; n * out_words];
    out.copy_to_host(&mut host)?;
    let ms = e0.elapsed_ms(&e1)? as f64;
    Ok((host, ms))
}

/// The kernel writes the output words the check expects.
fn check_out_words(kernel: &str, kernel_words: u32, expect: usize) -> Result<()> {
    if kernel_words as usize != expect {
        return Err(GpuError::Invalid(format!("{kernel} writes {kernel_words} words per element, {expect} expected")));
    }
    Ok(())
}

fn rng(seed: u64, tag: u64, chunk: u64) -> ChaCha20Rng {
    let mut r = ChaCha20Rng::seed_from_u64(seed ^ tag.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    r.set_stream(chunk);
    r
}

const CHUNK: usize = 4096;

/// n values from `gen`, in parallel, each chunk with its own ChaCha stream.
fn par_gen<T: Send>(n: usize, seed: u64, tag: u64, gen: impl Fn(&mut ChaCha20Rng) -> T + Sync) -> Vec<T> {
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut r = rng(seed, tag, c as u64);
            let len = CHUNK.min(n - c * CHUNK);
            (0..len).map(|_| gen(&mut r)).collect::<Vec<_>>()
        })
        .collect()
}

/// Compares GPU output words (w per element) with the expected words.
fn compare(name: &str, got: &[u32], w: usize, n: usize, ms: f64, expect: impl Fn(usize) -> Vec<u32> + Sync) -> Check {
    let bad: Vec<usize> = (0..n).into_par_iter().filter(|&i| got[i * w..(i + 1) * w] != expect(i)[..]).collect();
    Check { name: name.into(), n, mismatches: bad.len(), first_bad: bad.iter().min().copied(), gpu_ms: ms }
}

// ---------------------------------------------------------------------------
// fields

/// A prime field as the self-test sees it: blstrs's arithmetic (blst underneath), and the
/// words the kernels read and write.
trait TestField: ff::Field + From<u64> + Copy + Send + Sync {
    /// The kernels' name prefix.
    const PRE: &'static str;
    /// u32 words per element.
    const WORDS: usize;
    /// Montgomery form, little-endian u32 words.
    fn mont_words(&self) -> Vec<u32>;
    /// The canonical integer, little-endian bytes.
    fn le_bytes(&self) -> Vec<u8>;
    /// The canonical integer, big-endian bytes.
    fn be_bytes(&self) -> Vec<u8>;
}

impl TestField for Scalar {
    const PRE: &'static str = "fr";
    const WORDS: usize = 8;
    fn mont_words(&self) -> Vec<u32> {
        layout::fr_words(&ec::Fr::from(*self)).to_vec()
    }
    fn le_bytes(&self) -> Vec<u8> {
        self.to_bytes_le().to_vec()
    }
    fn be_bytes(&self) -> Vec<u8> {
        self.to_bytes_be().to_vec()
    }
}

impl TestField for Fp {
    const PRE: &'static str = "fp";
    const WORDS: usize = 12;
    fn mont_words(&self) -> Vec<u32> {
        layout::fp_words(&ec::Fp::from(*self)).to_vec()
    }
    fn le_bytes(&self) -> Vec<u8> {
        self.to_bytes_le().to_vec()
    }
    fn be_bytes(&self) -> Vec<u8> {
        self.to_bytes_be().to_vec()
    }
}

/// 0, 1, 2, p-1, p-2.
fn edges<T: TestField>() -> [T; 5] {
    [T::ZERO, T::ONE, T::from(2), -T::ONE, -T::from(2)]
}

/// a: edges pairwise with b at the front (E*E pairs), then random.
fn operands<T: TestField>(n: usize, seed: u64, tag: u64) -> (Vec<T>, Vec<T>) {
    let e = edges::<T>();
    let mut a = par_gen(n, seed, tag, |r| T::random(r));
    let mut b = par_gen(n, seed, tag + 1, |r| T::random(r));
    for i in 0..(e.len() * e.len()).min(n) {
        a[i] = e[i / e.len()];
        b[i] = e[i % e.len()];
    }
    (a, b)
}

fn words_of<T: Sync>(v: &[T], f: impl Fn(&T) -> Vec<u32> + Sync + Send) -> Vec<u32> {
    v.par_iter().flat_map_iter(f).collect()
}

fn check_field<T: TestField>(gpu: &Gpu, m: &SelftestKernels, n: usize, seed: u64, out: &mut Vec<Check>) -> Result<()> {
    let (a, b) = operands::<T>(n, seed, 10 + T::WORDS as u64);
    let (pre, wd) = (T::PRE, T::WORDS);
    let (aw, bw) = (words_of(&a, T::mont_words), words_of(&b, T::mont_words));
    type Bin<T> = fn(&T, &T) -> T;
    let bins: [(&str, Bin<T>); 3] = [("add", |x, y| *x + y), ("sub", |x, y| *x - y), ("mul", |x, y| *x * y)];
    for (op, f) in bins {
        let (got, ms) = launch_ew(gpu, m, &format!("k_{pre}_{op}"), &[&aw, &bw], wd, n)?;
        out.push(compare(&format!("{pre}_{op}"), &got, wd, n, ms, |i| f(&a[i], &b[i]).mont_words()));
    }
    type Un<T> = fn(&T) -> T;
    let uns: [(&str, Un<T>); 3] = [("neg", |x| -*x), ("dbl", |x| x.double()), ("sqr", |x| x.square())];
    for (op, f) in uns {
        let (got, ms) = launch_ew(gpu, m, &format!("k_{pre}_{op}"), &[&aw], wd, n)?;
        out.push(compare(&format!("{pre}_{op}"), &got, wd, n, ms, |i| f(&a[i]).mont_words()));
    }
    // conversions: canonical limbs <-> Montgomery, big-endian bytes <-> Montgomery
    let canon = words_of(&a, |x| layout::be_bytes_to_words(&x.le_bytes()));
    let be = words_of(&a, |x| layout::be_bytes_to_words(&x.be_bytes()));
    let at = |v: &[u32], i: usize| v[i * wd..(i + 1) * wd].to_vec();
    let (got, ms) = launch_ew(gpu, m, &format!("k_{pre}_to_mont"), &[&canon], wd, n)?;
    out.push(compare(&format!("{pre}_to_mont"), &got, wd, n, ms, |i| at(&aw, i)));
    let (got, ms) = launch_ew(gpu, m, &format!("k_{pre}_from_mont"), &[&aw], wd, n)?;
    out.push(compare(&format!("{pre}_from_mont"), &got, wd, n, ms, |i| at(&canon, i)));
    let (got, ms) = launch_ew(gpu, m, &format!("k_{pre}_from_be"), &[&be], wd, n)?;
    out.push(compare(&format!("{pre}_from_be"), &got, wd, n, ms, |i| at(&aw, i)));
    let (got, ms) = launch_ew(gpu, m, &format!("k_{pre}_to_be"), &[&aw], wd, n)?;
    out.push(compare(&format!("{pre}_to_be"), &got, wd, n, ms, |i| at(&be, i)));
    Ok(())
}

/// 2^-32 in Fp: the Montgomery element whose raw limbs are 2^352 (2^352 / R, R = 2^384).
fn two_pow_minus_32() -> Fp {
    Fp::from_raw_unchecked([0, 0, 0, 0, 0, 1 << 32])
}

/// The inverse as blst computes it: 0 for 0.
fn inverse<T: ff::Field>(x: &T) -> T {
    x.invert().unwrap_or(T::ZERO)
}

fn fp2_words(x: &Fp2) -> Vec<u32> {
    layout::fp2_words(&ec::Fp2::from(*x)).to_vec()
}

fn field_checks(gpu: &Gpu, m: &SelftestKernels, n: usize, seed: u64, out: &mut Vec<Check>) -> Result<()> {
    check_field::<Scalar>(gpu, m, n, seed, out)?;
    check_field::<Fp>(gpu, m, n, seed, out)?;

    // Fp inversion
    let (a, b) = operands::<Fp>(n, seed, 40);
    let (aw, bw) = (words_of(&a, Fp::mont_words), words_of(&b, Fp::mont_words));
    let (got, ms) = launch_ew(gpu, m, "k_fp_inv", &[&aw], 12, n)?;
    out.push(compare("fp_inv", &got, 12, n, ms, |i| inverse(&a[i]).mont_words()));

    // FP64 multiply: r = a*b/2^416 mod p = (a*b)*2^-32
    let w352 = two_pow_minus_32();
    let (got, ms) = launch_ew(gpu, m, "k_fp52_mul", &[&aw, &bw], 12, n)?;
    out.push(compare("fp52_mul (FP64 pipe)", &got, 12, n, ms, |i| (a[i] * b[i] * w352).mont_words()));

    // Fp2: pairs of Fp operands
    let (c, d) = operands::<Fp>(n, seed, 50);
    let x: Vec<Fp2> = (0..n).map(|i| Fp2::new(a[i], c[i])).collect();
    let y: Vec<Fp2> = (0..n).map(|i| Fp2::new(b[i], d[i])).collect();
    let (xw, yw) = (words_of(&x, fp2_words), words_of(&y, fp2_words));
    type B2 = fn(&Fp2, &Fp2) -> Fp2;
    let bins: [(&str, B2); 3] = [("add", |p, q| *p + q), ("sub", |p, q| *p - q), ("mul", |p, q| *p * q)];
    for (op, f) in bins {
        let (got, ms) = launch_ew(gpu, m, &format!("k_fp2_{op}"), &[&xw, &yw], 24, n)?;
        out.push(compare(&format!("fp2_{op}"), &got, 24, n, ms, |i| fp2_words(&f(&x[i], &y[i]))));
    }
    type U2 = fn(&Fp2) -> Fp2;
    let uns: [(&str, U2); 4] = [("neg", |p| -*p), ("dbl", |p| p.double()), ("sqr", |p| p.square()), ("inv", inverse)];
    for (op, f) in uns {
        let (got, ms) = launch_ew(gpu, m, &format!("k_fp2_{op}"), &[&xw], 24, n)?;
        out.push(compare(&format!("fp2_{op}"), &got, 24, n, ms, |i| fp2_words(&f(&x[i]))));
    }
    fp12_checks(gpu, m, n, seed, out)
}

fn fp12_words(x: &blst::blst_fp12) -> Vec<u32> {
    let fps = x.fp6.iter().flat_map(|c| c.fp2).flat_map(|c| c.fp);
    fps.flat_map(|c| c.l).flat_map(|l| [l as u32, (l >> 32) as u32]).collect()
}

fn fp_words(x: &blst::blst_fp) -> [u32; 12] {
    std::array::from_fn(|k| (x.l[k / 2] >> (32 * (k % 2))) as u32)
}

/// Fp12 product and square, and the product by a precomputed line evaluated at a G1 point (the
/// pairing's Miller loop step), against blst.
fn fp12_checks(gpu: &Gpu, m: &SelftestKernels, n: usize, seed: u64, out: &mut Vec<Check>) -> Result<()> {
    use blst::{blst_fp12, blst_fp6};
    let a: Vec<blst_fp12> = par_gen(n, seed, 60, |r| blstrs::Fp12::random(r).into());
    let b: Vec<blst_fp12> = par_gen(n, seed, 61, |r| blstrs::Fp12::random(r).into());
    let (aw, bw) = (words_of(&a, fp12_words), words_of(&b, fp12_words));
    let (got, ms) = launch_ew(gpu, m, "k_fp12_mul", &[&aw, &bw], 144, n)?;
    out.push(compare("fp12_mul", &got, 144, n, ms, |i| {
        let mut r = blst_fp12::default();
        // SAFETY: blst reads two elements and writes one through valid references.
        unsafe { blst::blst_fp12_mul(&mut r, &a[i], &b[i]) };
        fp12_words(&r)
    }));
    let (got, ms) = launch_ew(gpu, m, "k_fp12_sqr", &[&aw], 144, n)?;
    out.push(compare("fp12_sqr", &got, 144, n, ms, |i| {
        let mut r = blst_fp12::default();
        // SAFETY: blst reads one element and writes one through valid references.
        unsafe { blst::blst_fp12_sqr(&mut r, &a[i]) };
        fp12_words(&r)
    }));
    // lines of 16 G2 points, each element taking one of them at a random G1 point
    let q = affine::<G2>(&random_points::<G2>(16, seed, 62));
    let mut lines = vec![blst_fp6::default(); 16 * 68];
    for (k, q) in q.iter().enumerate() {
        // SAFETY: blst writes 68 lines into the slice and reads one point.
        unsafe { blst::blst_precompute_lines(lines[68 * k..].as_mut_ptr(), q) };
    }
    let p = affine::<G1>(&random_points::<G1>(n, seed, 63));
    let line = |i: usize| &lines[(i * 7 + i / 68) % lines.len()];
    let lw: Vec<u32> = (0..n)
        .into_par_iter()
        .flat_map_iter(|i| {
            let l = line(i).fp2.iter().flat_map(|c| c.fp).flat_map(|c| fp_words(&c));
            l.chain(fp_words(&p[i].x)).chain(fp_words(&p[i].y)).collect::<Vec<u32>>()
        })
        .collect();
    let (got, ms) = launch_ew(gpu, m, "k_fp12_mul_by_line", &[&aw, &lw], 144, n)?;
    out.push(compare("fp12_mul_by_line", &got, 144, n, ms, |i| {
        let mut r = blst_fp12::default();
        // SAFETY: blst reads an element and a sparse line and writes one element.
        unsafe { blst::blst_fp12_mul_by_xy00z0(&mut r, &a[i], &line_at(line(i), &p[i])) };
        fp12_words(&r)
    }));
    Ok(())
}

/// Pairing products' Miller loops (module miller: the lines on the device, then the loops)
/// against blst's loops over the same pairs, Fp12 for Fp12: two G1 vectors over one G2 vector of
/// 1, 3, 33 and min(n, 2^13) points, with points at infinity on both sides. The time is the
/// whole call's (host part, copies and both kernels).
fn miller_checks(n: usize, seed: u64, out: &mut Vec<Check>) -> Result<()> {
    use crate::ec::{G2Lines, MillerProduct};
    let d = super::pairing::GpuMillerLoops::open(0)?.always();
    let m = n.min(1 << 13);
    let mut q = affine::<G2>(&random_points::<G2>(m, seed, 70));
    let mut p: Vec<Vec<ec::P1Affine>> = (0..2).map(|v| affine::<G1>(&random_points::<G1>(m, seed, 71 + v))).collect();
    q[m / 2] = ec::P2Affine::default();
    p[0][m / 3] = ec::P1Affine::default();
    for len in [1, 3, 33, m] {
        let (ps, qs) = ([&p[0][..len], &p[1][..len]], &q[..len]);
        let t = Instant::now();
        let got = d.miller_loops(&ps, qs)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let lines: Vec<G2Lines> = qs.par_iter().map(G2Lines::of).collect();
        let want = ps.map(|p| {
            p.par_chunks(64)
                .zip(lines.par_chunks(64))
                .map(|(p, l)| MillerProduct::of_lines(p, l))
                .reduce(MillerProduct::one, |a, b| a.mul(&b))
        });
        let bad: Vec<usize> = (0..2).filter(|&v| got[v] != want[v]).collect();
        let name = format!("miller_loops 2x{len}");
        out.push(Check { name, n: 2 * len, mismatches: bad.len(), first_bad: bad.first().copied(), gpu_ms: ms });
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// curves

/// n random points in Jacobian coordinates with varied Z: per chunk, a random
/// multiple of the generator, then repeated addition of another one.
pub fn random_points<G: Group>(n: usize, seed: u64, tag: u64) -> Vec<G::Jac> {
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut r = rng(seed, tag, c as u64);
            let mut s = [0u8; 32];
            r.fill_bytes(&mut s);
            let mut p = G::mult(&G::generator(), &s, 255);
            r.fill_bytes(&mut s);
            let step = G::mult(&G::generator(), &s, 255);
            let len = CHUNK.min(n - c * CHUNK);
            (0..len)
                .map(|_| {
                    p = G::add(&p, &step);
                    p
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn is_inf<G: Group>(p: &G::Jac) -> bool {
    G::xyz(p).2.is_zero()
}

/// Affine points with infinity as (0, 0).
pub fn affine<G: Group>(ps: &[G::Jac]) -> Vec<G::Aff> {
    // batch inversion must not see Z = 0: substitute the generator, zero after
    let mut a: Vec<G::Aff> = ps
        .par_chunks(CHUNK)
        .flat_map_iter(|c| {
            let c: Vec<G::Jac> = c.iter().map(|p| if is_inf::<G>(p) { G::generator() } else { *p }).collect();
            G::batch_to_affine_vec(&c)
        })
        .collect();
    for (i, p) in ps.iter().enumerate() {
        if is_inf::<G>(p) {
            a[i] = G::Aff::default();
        }
    }
    a
}

fn curve_checks<G: Group>(gpu: &Gpu, m: &CurveTestKernels, n: usize, seed: u64, out: &mut Vec<Check>) -> Result<()> {
    let g = G::NAME.to_lowercase();
    let w = G::W;
    let mut p = random_points::<G>(n, seed, 100 + w as u64);
    let mut q = random_points::<G>(n, seed, 200 + w as u64);
    // edge cases: inf + Q, P + inf, inf + inf, P + P (other Z), P + (-P), P + P (same Z)
    let inf = G::Jac::default();
    p[0] = inf;
    q[1] = inf;
    p[2] = inf;
    q[2] = inf;
    q[3] = G::add(&G::double(&p[3]), &G::neg(&p[3]));
    q[4] = G::neg(&p[4]);
    q[5] = p[5];
    let qa = affine::<G>(&q);
    let pw: Vec<u32> = p.par_iter().flat_map_iter(G::xyzz_words).collect();
    let qw: Vec<u32> = q.par_iter().flat_map_iter(G::xyzz_words).collect();
    let qaw: Vec<u32> = qa.par_iter().flat_map_iter(G::aff_words).collect();
    let same = |name: &str, got: &[u32], ms: f64, exp: &(dyn Fn(usize) -> G::Jac + Sync)| {
        let bad: Vec<usize> = (0..n)
            .into_par_iter()
            .filter(|&i| !G::eq(&G::from_xyzz_words(&got[i * 4 * w..(i + 1) * 4 * w]), &exp(i)))
            .collect();
        Check { name: name.into(), n, mismatches: bad.len(), first_bad: bad.iter().min().copied(), gpu_ms: ms }
    };
    let (got, ms) = launch_ew(gpu, m, &format!("k_{g}_add"), &[&pw, &qw], 4 * w, n)?;
    out.push(same(&format!("{g}_add (XYZZ)"), &got, ms, &|i| G::add(&p[i], &q[i])));
    let (got, ms) = launch_ew(gpu, m, &format!("k_{g}_madd"), &[&pw, &qaw], 4 * w, n)?;
    out.push(same(&format!("{g}_madd (XYZZ+aff)"), &got, ms, &|i| G::add_affine(&p[i], &qa[i])));
    let (got, ms) = launch_ew(gpu, m, &format!("k_{g}_dbl"), &[&pw], 4 * w, n)?;
    out.push(same(&format!("{g}_dbl (XYZZ)"), &got, ms, &|i| G::double(&p[i])));
    let pa = affine::<G>(&p);
    let (got, ms) = launch_ew(gpu, m, &format!("k_{g}_to_affine"), &[&pw], 2 * w, n)?;
    out.push(compare(&format!("{g}_to_affine"), &got, 2 * w, n, ms, |i| G::aff_words(&pa[i])));
    let (got, ms) = launch_ew(gpu, m, &format!("k_{g}_to_jacobian"), &[&pw], 3 * w, n)?;
    let bad: Vec<usize> = (0..n)
        .into_par_iter()
        .filter(|&i| !G::eq(&G::from_jac_words(&got[i * 3 * w..(i + 1) * 3 * w]), &p[i]))
        .collect();
    out.push(Check {
        name: format!("{g}_to_jacobian"),
        n,
        mismatches: bad.len(),
        first_bad: bad.iter().min().copied(),
        gpu_ms: ms,
    });
    Ok(())
}

// ---------------------------------------------------------------------------
// .params sections

fn srs_check<G: Group>(gpu: &Gpu, m: &SrsKernels, n: usize, seed: u64, out: &mut Vec<Check>) -> Result<()> {
    let mut p = random_points::<G>(n, seed, 300 + G::W as u64);
    p[0] = G::Jac::default();
    let pa = affine::<G>(&p);
    let sz = G::SER;
    let mut bytes = vec![0u8; n * sz];
    bytes.par_chunks_mut(sz).zip(pa.par_iter()).for_each(|(b, a)| G::serialize(a, b));
    // planted bad encodings: x >= p, compressed flag, point off the curve
    bytes[sz..sz + G::SER / 2].fill(0xff);
    bytes[sz] = 0x1f;
    bytes[2 * sz] |= 0x80;
    bytes[3 * sz + sz - 1] ^= 1;
    let planted = [1usize, 2, 3];
    let t0 = Instant::now();
    let (dev, status) = convert::convert_section::<G>(gpu, m, &bytes)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let mut got = vec![0u32; dev.len()];
    dev.copy_to_host(&mut got)?;
    let w = 2 * G::W;
    let bad: Vec<usize> = (0..n)
        .into_par_iter()
        .filter(|&i| {
            if planted.contains(&i) {
                status[i] == 0
            } else {
                status[i] != 0 || got[i * w..(i + 1) * w] != G::aff_words(&pa[i])[..]
            }
        })
        .collect();
    out.push(Check {
        name: format!("srs_{}_affine", G::NAME.to_lowercase()),
        n,
        mismatches: bad.len(),
        first_bad: bad.iter().min().copied(),
        gpu_ms: ms,
    });
    if n < 4 {
        return Err(GpuError::Invalid("n too small".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp52_factor_is_two_pow_minus_32() {
        assert_eq!(two_pow_minus_32() * Fp::from(1u64 << 32), Fp::ONE);
    }

    #[test]
    fn field_words_match_the_layout() {
        // the Montgomery words of 1 are 2^256 mod r (low words 0xfffffffe, 1); its canonical
        // words are [1, 0, ..]
        let one = Scalar::ONE;
        assert_eq!(one.mont_words()[..2], [0xffff_fffe, 1]);
        assert_eq!(layout::be_bytes_to_words(&one.le_bytes())[..2], [1, 0]);
        let e = edges::<Fp>();
        assert_eq!(e[3] + Fp::ONE, Fp::ZERO);
        assert_eq!(e[4] + Fp::from(2), Fp::ZERO);
        let (a, b) = operands::<Fp>(100, 7, 1);
        assert_eq!((a[6], b[6]), (Fp::ONE, Fp::ONE));
        assert_ne!(a[99], a[98]);
    }
}
