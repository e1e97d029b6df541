//! GPU self-test: every field and curve kernel against blst on fresh random
//! inputs (plus edge cases at the front of each array: 0, 1, 2, p-1, p-2;
//! infinity, P+P, P+(-P)), outputs poisoned before each launch.
//!
//! `run(n)` checks n elements per operation (use n >= 1<<20 for the record).
use super::driver::{DeviceBuffer, HostRegistration, KernelArg, Module, PinnedBuffer};
use super::layout::{self, Group, G1, G2};
use super::{srs, Gpu, GpuError, Result};
use crate::ec::{Fp, Fp2, Fr, MontField};
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
    let ff = gpu.load("selftest")?;
    field_checks(&gpu, &ff, n, seed, &mut checks)?;
    drop(ff);
    let ec = gpu.load("ec_test")?;
    curve_checks::<G1>(&gpu, &ec, n, seed, &mut checks)?;
    curve_checks::<G2>(&gpu, &ec, n, seed, &mut checks)?;
    drop(ec);
    let sm = gpu.load("srs")?;
    srs_check::<G1>(&gpu, &sm, n, seed, &mut checks)?;
    srs_check::<G2>(&gpu, &sm, n, seed, &mut checks)?;
    Ok(Report { device, seed, n, checks, seconds: t0.elapsed().as_secs_f64() })
}

// ---------------------------------------------------------------------------
// plumbing

/// Launches an element-wise kernel `kernel(out, in0, .., n)`; returns the
/// output words and the kernel time. The output is poisoned first.
pub(crate) fn launch_ew(
    gpu: &Gpu,
    m: &Module,
    kernel: &str,
    ins: &[&[u32]],
    out_words: usize,
    n: usize,
) -> Result<(Vec<u32>, f64)> {
    let f = m.function(kernel)?;
    let bufs = ins.iter().map(|x| gpu.upload(x)).collect::<Result<Vec<DeviceBuffer<u32>>>>()?;
    let mut out = gpu.alloc::<u32>(n * out_words)?;
    out.fill_bytes(0xA5)?;
    let block = f.max_threads_per_block()?.clamp(32, 256) as u32;
    let grid = n.div_ceil(block as usize) as u32;
    let mut args = vec![out.arg()];
    args.extend(bufs.iter().map(|b| b.arg()));
    args.push(KernelArg::U32(n as u32));
    let (e0, e1) = (super::Event::new(&gpu.ctx)?, super::Event::new(&gpu.ctx)?);
    e0.record(&gpu.stream)?;
    // SAFETY: every element-wise kernel takes (out, in0.., n) with the word
    // counts given here; buffers live until the synchronizing copy below.
    unsafe { f.launch(&gpu.stream, grid, block, &args)? };
    e1.record(&gpu.stream)?;
    let mut host = vec![0u32; n * out_words];
    {
        // exercise page-locking of an existing buffer for the download
        let mut reg = HostRegistration::new(&gpu.ctx, &mut host)?;
        // SAFETY: `reg` outlives the copy: we synchronize right after.
        unsafe { out.copy_to_host_async(&mut reg)? };
        gpu.stream.synchronize()?;
    }
    let ms = e0.elapsed_ms(&e1)? as f64;
    Ok((host, ms))
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

fn flat<const K: usize>(v: &[[u32; K]]) -> Vec<u32> {
    v.iter().flatten().copied().collect()
}

// ---------------------------------------------------------------------------
// fields

fn fp_rand(r: &mut ChaCha20Rng) -> Fp {
    let mut b = [0u8; 48];
    r.fill_bytes(&mut b);
    b[0] &= 0x1f;
    Fp::from_be_bytes(&b)
}

fn fr_rand(r: &mut ChaCha20Rng) -> Fr {
    let mut b = [0u8; 32];
    r.fill_bytes(&mut b);
    b[0] &= 0x7f;
    Fr::from_be_bytes(&b)
}

/// Operations of one prime field, as blst computes them.
struct Field<T> {
    pre: &'static str,
    words: usize,
    w: fn(&T) -> Vec<u32>,
    rand: fn(&mut ChaCha20Rng) -> T,
    edges: Vec<T>,
    add: fn(&T, &T) -> T,
    sub: fn(&T, &T) -> T,
    mul: fn(&T, &T) -> T,
    neg: fn(&T) -> T,
    sqr: fn(&T) -> T,
    canon: fn(&T) -> Vec<u32>,
    be: fn(&T) -> Vec<u8>,
}

/// A field's checks from its [`MontField`] operations: edges 0, 1, 2, −1, −2.
fn mont_field<T: MontField>(
    pre: &'static str,
    words: usize,
    w: fn(&T) -> Vec<u32>,
    rand: fn(&mut ChaCha20Rng) -> T,
) -> Field<T> {
    let one = T::from_u64(1);
    Field {
        pre,
        words,
        w,
        rand,
        edges: vec![T::from_u64(0), one, T::from_u64(2), one.neg(), T::from_u64(2).neg()],
        add: T::add,
        sub: T::sub,
        mul: T::mul,
        neg: T::neg,
        sqr: T::sqr,
        canon: |a| layout::u64s_to_words(&a.canonical_limbs()),
        be: |a| {
            let mut b = vec![0u8; T::BE_BYTES];
            a.to_be_bytes(&mut b);
            b
        },
    }
}

fn fp_field() -> Field<Fp> {
    mont_field("fp", 12, |x| layout::fp_words(x).to_vec(), fp_rand)
}

fn fr_field() -> Field<Fr> {
    mont_field("fr", 8, |x| layout::fr_words(x).to_vec(), fr_rand)
}

/// a: edges pairwise with b at the front (E*E pairs), then random.
fn operands<T: Copy + Send + Sync>(fd: &Field<T>, n: usize, seed: u64, tag: u64) -> (Vec<T>, Vec<T>) {
    let e = &fd.edges;
    let mut a = par_gen(n, seed, tag, fd.rand);
    let mut b = par_gen(n, seed, tag + 1, fd.rand);
    for i in 0..(e.len() * e.len()).min(n) {
        a[i] = e[i / e.len()];
        b[i] = e[i % e.len()];
    }
    (a, b)
}

fn check_field<T: Copy + Send + Sync>(
    gpu: &Gpu,
    m: &Module,
    fd: &Field<T>,
    n: usize,
    seed: u64,
    out: &mut Vec<Check>,
) -> Result<()> {
    let (a, b) = operands(fd, n, seed, 10 + fd.words as u64);
    let wd = fd.words;
    let aw: Vec<u32> = a.par_iter().flat_map_iter(|x| (fd.w)(x)).collect();
    let bw: Vec<u32> = b.par_iter().flat_map_iter(|x| (fd.w)(x)).collect();
    type Bin<T> = fn(&T, &T) -> T;
    let bins: [(&str, Bin<T>); 3] = [("add", fd.add), ("sub", fd.sub), ("mul", fd.mul)];
    for (op, f) in bins {
        let (got, ms) = launch_ew(gpu, m, &format!("k_{}_{op}", fd.pre), &[&aw, &bw], wd, n)?;
        out.push(compare(&format!("{}_{op}", fd.pre), &got, wd, n, ms, |i| (fd.w)(&f(&a[i], &b[i]))));
    }
    let dbl = |x: &T| (fd.add)(x, x);
    type Un<'a, T> = &'a (dyn Fn(&T) -> T + Sync);
    let uns: [(&str, Un<T>); 3] = [("neg", &fd.neg), ("dbl", &dbl), ("sqr", &fd.sqr)];
    for (op, f) in uns {
        let (got, ms) = launch_ew(gpu, m, &format!("k_{}_{op}", fd.pre), &[&aw], wd, n)?;
        out.push(compare(&format!("{}_{op}", fd.pre), &got, wd, n, ms, |i| (fd.w)(&f(&a[i]))));
    }
    // conversions: canonical limbs <-> Montgomery, big-endian bytes <-> Montgomery
    let canon: Vec<u32> = a.par_iter().flat_map_iter(|x| (fd.canon)(x)).collect();
    let be: Vec<u32> = a.par_iter().flat_map_iter(|x| layout::be_bytes_to_words(&(fd.be)(x))).collect();
    let (got, ms) = launch_ew(gpu, m, &format!("k_{}_to_mont", fd.pre), &[&canon], wd, n)?;
    out.push(compare(&format!("{}_to_mont", fd.pre), &got, wd, n, ms, |i| aw[i * wd..(i + 1) * wd].to_vec()));
    let (got, ms) = launch_ew(gpu, m, &format!("k_{}_from_mont", fd.pre), &[&aw], wd, n)?;
    out.push(compare(&format!("{}_from_mont", fd.pre), &got, wd, n, ms, |i| canon[i * wd..(i + 1) * wd].to_vec()));
    let (got, ms) = launch_ew(gpu, m, &format!("k_{}_from_be", fd.pre), &[&be], wd, n)?;
    out.push(compare(&format!("{}_from_be", fd.pre), &got, wd, n, ms, |i| aw[i * wd..(i + 1) * wd].to_vec()));
    let (got, ms) = launch_ew(gpu, m, &format!("k_{}_to_be", fd.pre), &[&aw], wd, n)?;
    out.push(compare(&format!("{}_to_be", fd.pre), &got, wd, n, ms, |i| be[i * wd..(i + 1) * wd].to_vec()));
    Ok(())
}

fn field_checks(gpu: &Gpu, m: &Module, n: usize, seed: u64, out: &mut Vec<Check>) -> Result<()> {
    check_field(gpu, m, &fr_field(), n, seed, out)?;
    let fp = fp_field();
    check_field(gpu, m, &fp, n, seed, out)?;

    // Fp inversion
    let (a, b) = operands(&fp, n, seed, 40);
    let aw = flat(&a.par_iter().map(layout::fp_words).collect::<Vec<_>>());
    let bw = flat(&b.par_iter().map(layout::fp_words).collect::<Vec<_>>());
    let (got, ms) = launch_ew(gpu, m, "k_fp_inv", &[&aw], 12, n)?;
    out.push(compare("fp_inv", &got, 12, n, ms, |i| layout::fp_words(&a[i].inv()).to_vec()));

    // FP64 multiply: r = a*b/2^416 mod p = blst_mul(a, b) * 2^-32, i.e. times the raw value 2^352
    let mut w352 = Fp::default();
    w352.l[5] = 1 << 32;
    let (got, ms) = launch_ew(gpu, m, "k_fp52_mul", &[&aw, &bw], 12, n)?;
    out.push(compare("fp52_mul (FP64 pipe)", &got, 12, n, ms, |i| {
        layout::fp_words(&a[i].mul(&b[i]).mul(&w352)).to_vec()
    }));

    // Fp2: pairs of Fp operands
    let (c, d) = operands(&fp, n, seed, 50);
    let x: Vec<Fp2> = (0..n).map(|i| Fp2 { fp: [a[i], c[i]] }).collect();
    let y: Vec<Fp2> = (0..n).map(|i| Fp2 { fp: [b[i], d[i]] }).collect();
    let xw = flat(&x.par_iter().map(layout::fp2_words).collect::<Vec<_>>());
    let yw = flat(&y.par_iter().map(layout::fp2_words).collect::<Vec<_>>());
    let w2 = |v: Fp2| layout::fp2_words(&v).to_vec();
    type B2 = fn(&Fp2, &Fp2) -> Fp2;
    let bins: [(&str, B2); 3] = [("add", Fp2::add), ("sub", Fp2::sub), ("mul", Fp2::mul)];
    for (op, f) in bins {
        let (got, ms) = launch_ew(gpu, m, &format!("k_fp2_{op}"), &[&xw, &yw], 24, n)?;
        out.push(compare(&format!("fp2_{op}"), &got, 24, n, ms, |i| w2(f(&x[i], &y[i]))));
    }
    type U2 = fn(&Fp2) -> Fp2;
    let uns: [(&str, U2); 4] = [("neg", Fp2::neg), ("dbl", |a| a.add(a)), ("sqr", Fp2::sqr), ("inv", Fp2::inv)];
    for (op, f) in uns {
        let (got, ms) = launch_ew(gpu, m, &format!("k_fp2_{op}"), &[&xw], 24, n)?;
        out.push(compare(&format!("fp2_{op}"), &got, 24, n, ms, |i| w2(f(&x[i]))));
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

fn curve_checks<G: Group>(gpu: &Gpu, m: &Module, n: usize, seed: u64, out: &mut Vec<Check>) -> Result<()> {
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

fn srs_check<G: Group>(gpu: &Gpu, m: &Module, n: usize, seed: u64, out: &mut Vec<Check>) -> Result<()> {
    let mut p = random_points::<G>(n, seed, 300 + G::W as u64);
    p[0] = G::Jac::default();
    let pa = affine::<G>(&p);
    let sz = G::SER;
    let mut bytes = PinnedBuffer::<u8>::new(&gpu.ctx, n * sz)?;
    bytes.par_chunks_mut(sz).zip(pa.par_iter()).for_each(|(b, a)| G::serialize(a, b));
    // planted bad encodings: x >= p, compressed flag, point off the curve
    bytes[sz..sz + G::SER / 2].fill(0xff);
    bytes[sz] = 0x1f;
    bytes[2 * sz] |= 0x80;
    bytes[3 * sz + sz - 1] ^= 1;
    let planted = [1usize, 2, 3];
    let t0 = Instant::now();
    let (dev, status) = srs::convert_section::<G>(gpu, m, &bytes)?;
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
