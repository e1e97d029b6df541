//! MSM benchmarks: median device time (CUDA events around the whole call, host syncs included)
//! over repeats after a warm-up, points and scalars already on the device.
//!
//! Points: 2^14 random points (random multiples of the generator, see selftest::random_points)
//! tiled on the device to n; a bucket then rarely holds the same point twice in a row, so the
//! additions are those of independent points. Scalars: uniform random below 2^254 (< r), as
//! Montgomery words. Batch addition: a random bitmap (each bit set with probability 1/2).
use super::{Msm, Points, Weights};
use crate::gpu::layout::{Group, G1, G2};
use crate::gpu::selftest::{affine, random_points};
use crate::gpu::{DeviceBuffer, Event, Gpu, Result};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

/// Dense G1 MSM of 2^log_n points: median milliseconds.
pub fn bench_msm_g1(gpu: &Gpu, log_n: u32) -> Result<f64> {
    bench_msm::<G1>(gpu, log_n)
}

/// Dense G2 MSM of 2^log_n points: median milliseconds.
pub fn bench_msm_g2(gpu: &Gpu, log_n: u32) -> Result<f64> {
    bench_msm::<G2>(gpu, log_n)
}

/// Batch addition of 2^log_n G1 points with a random half selected: median milliseconds.
pub fn bench_batch_add(gpu: &Gpu, log_n: u32) -> Result<f64> {
    let msm = Msm::new(gpu)?;
    let n = 1usize << log_n;
    let pts = tiled_points::<G1>(gpu, n, 11)?;
    let words = random_words(n.div_ceil(32), 12);
    let bitmap = gpu.upload(&words)?;
    median_ms(gpu, 7, || msm.run::<G1>(gpu, device(&pts), Weights::Bitmap(&bitmap), n, 0).map(drop))
}

fn bench_msm<G: Group>(gpu: &Gpu, log_n: u32) -> Result<f64> {
    let msm = Msm::new(gpu)?;
    let n = 1usize << log_n;
    let pts = tiled_points::<G>(gpu, n, 13)?;
    let mut words = random_words(8 * n, 14);
    words.par_chunks_mut(8).for_each(|s| s[7] &= 0x3fff_ffff);
    let scalars = gpu.upload(&words)?;
    drop(words);
    let repeats = if log_n >= 25 { 5 } else { 7 };
    median_ms(gpu, repeats, || msm.run::<G>(gpu, device(&pts), Weights::Scalars(&scalars), n, 0).map(drop))
}

fn device(buf: &DeviceBuffer<u32>) -> Points<'_> {
    Points::Device { buf, first: 0 }
}

/// One warm-up call, then `repeats` timed calls; the median in milliseconds.
fn median_ms(gpu: &Gpu, repeats: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    let mut ts = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let (e0, e1) = (Event::new(&gpu.ctx)?, Event::new(&gpu.ctx)?);
        e0.record(&gpu.stream)?;
        f()?;
        e1.record(&gpu.stream)?;
        ts.push(e0.elapsed_ms(&e1)? as f64);
    }
    ts.sort_by(|a, b| a.total_cmp(b));
    Ok(ts[ts.len() / 2])
}

/// n affine points (2·W words each): 2^14 random points tiled by device copies.
fn tiled_points<G: Group>(gpu: &Gpu, n: usize, seed: u64) -> Result<DeviceBuffer<u32>> {
    let k = n.min(1 << 14);
    let base: Vec<u32> = affine::<G>(&random_points::<G>(k, seed, 1)).iter().flat_map(G::aff_words).collect();
    let w = 2 * G::W;
    let mut buf = gpu.alloc::<u32>(n * w)?;
    // SAFETY: `base` outlives the copy: the stream is synchronized below.
    unsafe { buf.copy_from_host_async(&base)? };
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
