//! One Groth16 partition proof on a GPU: H by the device NTT pipeline, the five queries by
//! device MSMs (the 0/1 scalar split inside them), assembly on the CPU. Same inputs, same r and
//! s, same proof bytes as [`crate::cpu::prover`]: every value computed is a canonical field
//! element or group point, so only correctness, not the order of operations, decides the bytes.
//!
//! Memory plan per process and device: the SRS sections are converted once and stay resident
//! when they fit in the usable device memory (free memory, or `--gpu-mem-cap` if lower) next to
//! one partition's working set; otherwise every MSM streams its points from the mmapped file.
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{Context as _, Result};
use blstrs::Scalar;

use super::kernels::SrsKernels;
use super::layout::scalar_words;
use super::msm::{Msm, MsmPoints, MsmTuning};
use super::ntt::Ntt;
use super::srs::{resident_bytes, ResidentSrs};
use super::{DeviceBuffer, Gpu, GpuError};
use crate::circuit::witness::QueryScalars;
use crate::circuit::Assignment;
use crate::groth16::prove::{assemble, shape_of, QueryResults};
use crate::groth16::Proof;
use crate::prover::ProveTimings;
use crate::srs::{ParamsFile, SectionKind};

/// The prover of one device: its context, kernels, and the resident SRS when there is one.
pub struct GpuProver {
    pub ordinal: usize,
    pub name: String,
    gpu: Gpu,
    ntt: Ntt,
    msm: Msm,
    srs_kernels: SrsKernels,
    /// Usable device bytes (`--gpu-mem-cap`), None: all free memory.
    cap: Option<u64>,
    /// The parameter file placed last and its resident points (None: streamed).
    resident: Mutex<Option<(PathBuf, Option<Arc<ResidentSrs>>)>>,
}

/// Device bytes one partition needs beside the SRS: the H pipeline's three vectors plus the h
/// scalars, and the MSM's digits, buckets and staging (bounded by its chunking).
pub fn working_bytes(domain: usize) -> u64 {
    domain as u64 * 32 * 4 + (2u64 << 30)
}

impl GpuProver {
    /// Opens device `ordinal` and JIT-loads the NTT, MSM and SRS modules; the MSM's tuning
    /// comes from the environment (`FILSNARK_MSM_*`, docs/tuning.md), read here once.
    pub fn open(ordinal: usize, cap: Option<u64>) -> super::Result<GpuProver> {
        let tuning = MsmTuning::from_env().map_err(GpuError::Invalid)?;
        let gpu = Gpu::open(ordinal)?;
        let name = super::Device::get(ordinal)?.name()?;
        let ntt = Ntt::new(&gpu)?;
        let msm = Msm::with_tuning(&gpu, tuning)?;
        let srs_kernels = SrsKernels::load(&gpu)?;
        Ok(GpuProver { ordinal, name, gpu, ntt, msm, srs_kernels, cap, resident: Mutex::new(None) })
    }

    /// "GPU 0 (NVIDIA H200)", for messages.
    pub fn label(&self) -> String {
        format!("GPU {} ({})", self.ordinal, self.name)
    }

    /// Device bytes this process may still allocate: free memory, and under `--gpu-mem-cap`
    /// the cap less what is already allocated on the device (as if the card were that small).
    fn budget_bytes(&self) -> super::Result<u64> {
        let (free, total) = self.gpu.ctx.mem_info()?;
        let (free, used) = (free as u64, (total - free) as u64);
        Ok(self.cap.map_or(free, |c| c.saturating_sub(used).min(free)))
    }

    /// Decides where `srs`'s points live, converting them to the device the first time they
    /// fit, and says so on stderr once per file. A second parameter file replaces the first
    /// (one resident SRS per device). Some: the resident points; None: stream from the mmap.
    pub fn placement(&self, srs: &ParamsFile, domain: usize) -> Result<Option<Arc<ResidentSrs>>> {
        let mut slot = self.resident.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((path, res)) = slot.as_ref() {
            if *path == srs.path {
                return Ok(res.clone());
            }
        }
        *slot = None;
        let budget = self.budget_bytes().with_context(|| self.label())?;
        let (need, work) = (resident_bytes(srs), working_bytes(domain));
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        if need + work > budget {
            eprintln!(
                "{}: parameters streamed from host memory for every MSM ({:.2} GiB of points + {:.2} GiB working > {:.2} GiB usable)",
                self.label(),
                gib(need),
                gib(work),
                gib(budget)
            );
            *slot = Some((srs.path.clone(), None));
            return Ok(None);
        }
        let clock = Instant::now();
        let r = Arc::new(
            ResidentSrs::load(&self.gpu, &self.srs_kernels, srs)
                .with_context(|| format!("{}: converting the parameters to the device", self.label()))?,
        );
        eprintln!(
            "{}: parameters resident on the device ({:.2} GiB, converted in {:.2} s)",
            self.label(),
            gib(need),
            clock.elapsed().as_secs_f64()
        );
        *slot = Some((srs.path.clone(), Some(r.clone())));
        Ok(Some(r))
    }

    /// Proves one synthesized partition with randomness (r, s). The assignment is borrowed so
    /// that a caller can fall back to the CPU with it when the device fails.
    pub fn prove(&self, srs: &ParamsFile, asg: &Assignment, r: Scalar, s: Scalar) -> Result<(Proof, ProveTimings)> {
        let shape = shape_of(asg);
        srs.check_shape(&shape)?;
        let resident = self.placement(srs, shape.domain)?;
        let points = |kind: SectionKind| match &resident {
            Some(res) => MsmPoints::Device { buf: res.section(kind), first: 0 },
            None => MsmPoints::Host(srs.raw(kind)),
        };
        let label = self.label();
        let gpu = &self.gpu;
        let mut t = ProveTimings::default();

        let clock = Instant::now();
        let h = self.ntt.h_poly(gpu, &asg.a, &asg.b, &asg.c).with_context(|| format!("{label}: H"))?;
        t.h_ntt = clock.elapsed();

        let clock = Instant::now();
        let h = self
            .msm
            .msm_g1_first(gpu, points(SectionKind::H), &h, shape.domain - 1, 0)
            .with_context(|| format!("{label}: H MSM"))?;
        t.h_msm = clock.elapsed();

        let clock = Instant::now();
        let aux = self.upload(&asg.aux)?;
        let l = self.msm.msm_g1(gpu, points(SectionKind::L), &aux, 0).with_context(|| format!("{label}: L MSM"))?;
        drop(aux);
        t.l_msm = clock.elapsed();

        let clock = Instant::now();
        let a_dev = self.upload_query(&asg.a_query())?;
        let a = self.msm.msm_g1(gpu, points(SectionKind::A), &a_dev, 0).with_context(|| format!("{label}: A MSM"))?;
        drop(a_dev);
        t.a_msm = clock.elapsed();

        let clock = Instant::now();
        let b_dev = self.upload_query(&asg.b_query())?;
        let b_g1 =
            self.msm.msm_g1(gpu, points(SectionKind::BG1), &b_dev, 0).with_context(|| format!("{label}: B G1 MSM"))?;
        t.b_g1_msm = clock.elapsed();
        let clock = Instant::now();
        let b_g2 =
            self.msm.msm_g2(gpu, points(SectionKind::BG2), &b_dev, 0).with_context(|| format!("{label}: B G2 MSM"))?;
        t.b_g2_msm = clock.elapsed();

        Ok((assemble(&srs.vk, &QueryResults::from_blst(&h, &l, &a, &b_g1, &b_g2), r, s), t))
    }

    /// Copies scalars to the device (8 words each, Montgomery form, as blstrs holds them).
    fn upload(&self, v: &[Scalar]) -> Result<DeviceBuffer<u32>> {
        self.gpu.upload(scalar_words(v)).with_context(|| format!("{}: uploading scalars", self.label()))
    }

    /// Gathers a query's scalars into the staging buffers on all cores and uploads them.
    fn upload_query(&self, q: &QueryScalars) -> Result<DeviceBuffer<u32>> {
        self.gpu
            .upload_with(q.len() * 8, |first, dst: &mut [u32]| {
                // Staging chunks and tasks are whole scalars (powers of two of at least 8 words).
                debug_assert!(first.is_multiple_of(8) && dst.len().is_multiple_of(8));
                for (d, s) in dst.chunks_exact_mut(8).zip(q.iter_from(first / 8)) {
                    d.copy_from_slice(scalar_words(std::slice::from_ref(s)));
                }
            })
            .with_context(|| format!("{}: uploading query scalars", self.label()))
    }
}
