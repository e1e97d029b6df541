//! One Groth16 partition proof on a GPU: H by the device NTT pipeline, the five queries by
//! device MSMs (the 0/1 scalar split inside them), assembly on the CPU. Same inputs, same r and
//! s, same proof bytes as the CPU prover (`cpu::prover`): every value computed is a canonical field
//! element or group point, so only correctness, not the order of operations, decides the bytes.
//!
//! Memory plan per process and device ([`super::residency`]): the sections that fit beside one
//! partition's working set in the usable device memory (free memory, or `--gpu-mem-cap` if
//! lower) are converted once and stay resident, most time saved per byte first; the others
//! stream from the mmapped file at every MSM, those that save most per byte from page-locked host
//! memory within `--pin-host-mem` ([`super::host_pin`]). Every allocation is counted against the
//! plan ([`super::ledger`]); a partition that runs out of memory is proved again under a smaller
//! plan.
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{Context as _, Result};
use blstrs::Scalar;

use super::evaluate::{self as device_eval, DeviceShape, DeviceWitness, Matrix};
use super::expand;
use super::host_pin;
use super::kernels::{EvaluateKernels, SrsKernels};
use super::layout::scalar_words;
use super::layout::{G1, G2};
use super::msm::{Msm, MsmPoints, MsmTuning};
use super::ntt::{HBuffers, Ntt};
use super::residency::{self, Residency, Section};
use super::split;
use super::srs::ResidentSrs;
use super::{DeviceBuffer, Gpu, GpuError, PinnedBuffer};
use crate::circuit::witness::QueryScalars;
use crate::circuit::Assignment;
use crate::constraints::Compiled;
use crate::ec::{P1, P2};
use crate::groth16::prove::{assemble, shape_of, QueryResults};
use crate::groth16::Proof;
use crate::prover::ProveTimings;
use crate::srs::{ParamsFile, SectionKind, Shape};
use crate::witness::PackedWitness;

/// The prover of one device: its context, kernels, and its memory plan with the resident
/// sections of the parameter file placed last.
pub struct GpuProver {
    pub ordinal: usize,
    pub name: String,
    gpu: Gpu,
    ntt: Ntt,
    msm: Msm,
    srs_kernels: SrsKernels,
    eval_kernels: EvaluateKernels,
    /// The compiled shape resident for witness-only proving (the last one used).
    shape: Mutex<Option<DeviceShape>>,
    limits: GpuLimits,
    placement: Mutex<Placement>,
}

/// What a GPU prover may use.
#[derive(Clone, Copy, Debug, Default)]
pub struct GpuLimits {
    /// Usable device bytes (`--gpu-mem-cap`); None: all free memory.
    pub mem_cap: Option<u64>,
    /// Bytes of host memory to page-lock for streamed sections (`--pin-host-mem`); 0: none.
    pub host_pin: u64,
}

/// The memory plan for one parameter file and what was measured under it.
#[derive(Default)]
struct Placement {
    path: Option<PathBuf>,
    sections: Vec<Section>,
    plan: Option<Residency>,
    resident: Option<ResidentSrs>,
    /// Streamed sections held in page-locked host memory, with their bytes.
    pinned: Vec<(SectionKind, Arc<PinnedBuffer<u8>>)>,
    /// The largest working set measured so far (device bytes beside the resident sections).
    measured_working: u64,
    /// The largest per-stage working sets measured, in [`STAGES`] order.
    stage_peaks: [u64; 6],
    /// Partitions proved under this plan.
    partitions: usize,
    /// Device bytes of a partition's packed witness (0 for assignments).
    packed: u64,
}

/// The stages of one partition, as the memory report names them.
const STAGES: [&str; 6] = ["H", "H MSM", "L MSM", "A MSM", "B G1 MSM", "B G2 MSM"];

impl GpuProver {
    /// Opens device `ordinal` and JIT-loads the NTT, MSM and SRS modules; the MSM's tuning
    /// comes from the environment (`FILSNARK_MSM_*`, docs/tuning.md), read here once.
    pub fn open(ordinal: usize, limits: GpuLimits) -> super::Result<GpuProver> {
        let tuning = MsmTuning::from_env().map_err(GpuError::Invalid)?;
        let gpu = Gpu::open(ordinal)?;
        let name = super::Device::get(ordinal)?.name()?;
        let ntt = Ntt::new(&gpu)?;
        let msm = Msm::with_tuning(&gpu, tuning)?;
        let srs_kernels = SrsKernels::load(&gpu)?;
        let eval_kernels = EvaluateKernels::load(&gpu)?;
        Ok(GpuProver {
            ordinal,
            name,
            gpu,
            ntt,
            msm,
            srs_kernels,
            eval_kernels,
            shape: Mutex::new(None),
            limits,
            placement: Mutex::new(Placement::default()),
        })
    }

    /// "GPU 0 (NVIDIA H200)", for messages.
    pub fn label(&self) -> String {
        format!("GPU {} ({})", self.ordinal, self.name)
    }

    /// Device bytes this prover may use in all: what it holds now plus what the device has free,
    /// and under `--gpu-mem-cap` the cap less what others hold (as if the card were that small).
    fn capacity(&self) -> super::Result<u64> {
        let (free, total) = self.gpu.ctx.mem_info()?;
        let ours = self.gpu.ctx.ledger.in_use();
        let (free, used) = (free as u64, (total - free) as u64);
        let others = used.saturating_sub(ours);
        Ok(self.limits.mem_cap.map_or(free + ours, |c| c.saturating_sub(others).min(free + ours)))
    }

    /// Makes the memory plan for `srs` the first time it is met: chooses the resident sections,
    /// converts them to the device, sets the allocation limit, and says so on stderr. A second
    /// parameter file replaces the first (one plan per device).
    /// `packed`: the device bytes of the first partition's packed witness (0 for an assignment);
    /// every partition of a shape has as many.
    fn place(&self, p: &mut Placement, srs: &ParamsFile, domain: usize, packed: u64) -> Result<()> {
        if p.path.as_ref() == Some(&srs.path) {
            return Ok(());
        }
        *p = Placement::default();
        self.gpu.ctx.ledger.set_limit(None);
        self.msm.release_memory();
        let sizes = SectionKind::ALL.map(|k| srs.raw(k).len() as u64);
        p.sections = residency::sections(sizes);
        let capacity = self.capacity().with_context(|| self.label())?;
        let working = residency::with_margin(residency::working_set(domain as u64, packed));
        let plan = residency::plan(capacity, working, &p.sections).ok_or_else(|| {
            anyhow::anyhow!(
                "{}: out of memory: one partition needs about {:.1} GiB of device memory, {:.1} GiB are usable",
                self.label(),
                gib(working),
                gib(capacity)
            )
        })?;
        self.apply(p, srs, plan)?;
        p.path = Some(srs.path.clone());
        p.packed = packed;
        Ok(())
    }

    /// Converts the plan's resident sections that are not on the device yet, frees those it
    /// streams, and limits this prover's allocations to the plan.
    fn apply(&self, p: &mut Placement, srs: &ParamsFile, plan: Residency) -> Result<()> {
        if let Some(res) = p.resident.as_mut() {
            for &k in &plan.streamed {
                res.evict(k);
            }
        }
        self.gpu.ctx.ledger.set_limit(Some(plan.limit()));
        if p.resident.is_none() && !plan.resident.is_empty() {
            let clock = Instant::now();
            let r = ResidentSrs::load(&self.gpu, &self.srs_kernels, srs, &plan.resident)
                .with_context(|| format!("{}: converting the parameters to the device", self.label()))?;
            eprintln!(
                "{}: memory plan: {} (converted in {:.2} s)",
                self.label(),
                plan.describe(),
                clock.elapsed().as_secs_f64()
            );
            p.resident = Some(r);
        } else {
            eprintln!("{}: memory plan: {}", self.label(), plan.describe());
        }
        self.pin_streamed(p, srs, &plan);
        p.plan = Some(plan);
        Ok(())
    }

    /// Page-locks the streamed sections the host budget holds, most saved per byte first, and
    /// says so. A section the driver cannot lock keeps streaming through staging (a warning).
    fn pin_streamed(&self, p: &mut Placement, srs: &ParamsFile, plan: &Residency) {
        let kinds = residency::choose_pinned(&plan.streamed, &p.sections, self.limits.host_pin);
        p.pinned.clear();
        let mut reports = Vec::new();
        for kind in kinds {
            match host_pin::pin(&self.gpu.ctx, srs, kind) {
                Ok((buf, report)) => {
                    p.pinned.push((kind, buf));
                    reports.extend(report);
                }
                Err(e) => {
                    eprintln!("warning: {}: {e}; the section streams through pinned staging", self.label());
                    break;
                }
            }
        }
        if !reports.is_empty() {
            eprintln!("{}: {}", self.label(), host_pin::describe(&reports));
        }
    }

    /// One line on the plan and the device memory measured under it: the most the prover held
    /// at once against what the plan allows, and the working set of each stage.
    pub fn memory_report(&self) -> Option<String> {
        let p = self.placement.lock().unwrap_or_else(|e| e.into_inner());
        let plan = p.plan.as_ref()?;
        let stages =
            STAGES.iter().zip(p.stage_peaks).map(|(n, b)| format!("{n} {:.1}", gib(b))).collect::<Vec<_>>().join(", ");
        let pinned = p.pinned.iter().map(|(k, _)| k.name()).collect::<Vec<_>>().join(", ");
        let pinned = if pinned.is_empty() { pinned } else { format!("; {pinned} page-locked in host memory") };
        Some(format!(
            "{}: device memory over {} partition(s): peak {:.1} GiB held against the plan's {:.1} GiB ({}{pinned}); working set {:.1} GiB measured against {:.1} GiB planned (GiB per stage: {stages})",
            self.label(),
            p.partitions,
            gib(plan.resident_bytes + p.measured_working),
            gib(plan.limit()),
            plan.describe(),
            gib(p.measured_working),
            gib(plan.working_estimate),
        ))
    }

    /// Proves one synthesized partition with randomness (r, s). The assignment is borrowed so
    /// that a caller can fall back to the CPU with it when the device fails. A partition that
    /// runs out of device memory is proved again under a smaller plan (one section fewer
    /// resident), until nothing is left to stream.
    pub fn prove(&self, srs: &ParamsFile, asg: &Assignment, r: Scalar, s: Scalar) -> Result<(Proof, ProveTimings)> {
        self.prove_source(srs, &shape_of(asg), Source::Assignment(asg), r, s)
    }

    /// Proves one partition from its packed witness: A·z, B·z, C·z and the queries' scalars are
    /// computed on the device from the shape's compiled constraints, kept resident.
    pub fn prove_packed(
        &self,
        srs: &ParamsFile,
        compiled: &Compiled,
        witness: &PackedWitness,
        r: Scalar,
        s: Scalar,
    ) -> Result<(Proof, ProveTimings)> {
        let d = compiled.densities();
        let shape = Shape {
            inputs: compiled.num_inputs(),
            aux: compiled.num_aux(),
            domain: compiled.num_constraints().next_power_of_two(),
            a_aux: d.a_aux.count(),
            b_inputs: d.b_input.count(),
            b_aux: d.b_aux.count(),
        };
        self.prove_source(srs, &shape, Source::Packed { compiled, witness }, r, s)
    }

    fn prove_source(
        &self,
        srs: &ParamsFile,
        shape: &Shape,
        src: Source,
        r: Scalar,
        s: Scalar,
    ) -> Result<(Proof, ProveTimings)> {
        srs.check_shape(shape)?;
        // The packed witness and the compiled constraints' head (with the template's offset
        // table) the device holds at the H stage. A head is its prefix: small for PoRep, mostly
        // the apex tree's SHA-256 hashes for SnapDeals (its challenges share a template through
        // the moving range: the whole compiled shape is 361 MiB at 32GiB, was 4.3 GB); the
        // one-challenge template is within what the H stage measured.
        let packed = match &src {
            Source::Packed { witness, compiled } => {
                let w = &witness.aux;
                residency::packed_witness(w.len() as u64, w.fields().len() as u64, witness.inputs.len() as u64)
                    + (compiled.head.bytes() + compiled.moving.bytes()) as u64
            }
            Source::Assignment(_) => 0,
        };
        let mut p = self.placement.lock().unwrap_or_else(|e| e.into_inner());
        self.place(&mut p, srs, shape.domain, packed)?;
        loop {
            let mut peaks = [0u64; 6];
            match self.prove_once(&p, srs, shape.domain, &src, r, s, &mut peaks) {
                Ok(done) => {
                    p.partitions += 1;
                    for (m, v) in p.stage_peaks.iter_mut().zip(peaks) {
                        *m = (*m).max(v);
                    }
                    p.measured_working = p.measured_working.max(peaks.into_iter().max().unwrap_or(0));
                    return Ok(done);
                }
                Err(e) if out_of_memory(&e) => {
                    self.msm.release_memory();
                    *self.shape.lock().unwrap_or_else(|e| e.into_inner()) = None;
                    let plan = p.plan.as_ref().expect("placed");
                    let Some(smaller) = plan.without_cheapest(&p.sections) else { return Err(e) };
                    eprintln!("{}: {e:#}; proving the partition again on the GPU under a smaller plan", self.label());
                    self.apply(&mut p, srs, smaller)?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// One attempt at [`GpuProver::prove`] under the plan in `p`; `peaks` gets each stage's
    /// working set (device bytes held beside the resident sections).
    #[allow(clippy::too_many_arguments)]
    fn prove_once(
        &self,
        p: &Placement,
        srs: &ParamsFile,
        domain: usize,
        src: &Source,
        r: Scalar,
        s: Scalar,
        peaks: &mut [u64; 6],
    ) -> Result<(Proof, ProveTimings)> {
        let resident = p.plan.as_ref().map_or(0, |plan| plan.resident_bytes);
        let ledger = &self.gpu.ctx.ledger;
        let pinned = |kind: SectionKind| p.pinned.iter().find(|(k, _)| *k == kind).map(|(_, b)| &**b);
        let points = |kind: SectionKind| match (p.resident.as_ref().and_then(|res| res.section(kind)), pinned(kind)) {
            (Some(buf), _) => MsmPoints::Device { buf, first: 0 },
            (None, Some(bytes)) => MsmPoints::Pinned { bytes, first: 0 },
            (None, None) => MsmPoints::Host(srs.raw_points(kind)),
        };
        // A section streamed through staging leaves the process's RSS once its MSM is done.
        let streamed = |kind: SectionKind| {
            if p.resident.as_ref().and_then(|res| res.section(kind)).is_none() && pinned(kind).is_none() {
                srs.release_pages(kind, 0, srs.raw(kind).len());
            }
        };
        let label = self.label();
        let gpu = &self.gpu;
        let mut t = ProveTimings::default();
        let mut stage = |i: usize| {
            peaks[i] = ledger.peak().saturating_sub(resident);
            ledger.mark();
        };

        // The MSM workspace kept from the last partition (up to ~20 GiB when every section is
        // resident and the chunks are large) gives way to the H stage when the plan has no room
        // for both.
        if ledger.headroom().is_some_and(|h| h < residency::h_stage_fused(domain as u64, p.packed)) {
            self.msm.release_memory();
        }
        let buffers = residency::h_buffers(ledger.headroom(), domain as u64, p.packed);
        ledger.mark();
        let mut shape_slot = self.shape.lock().unwrap_or_else(|e| e.into_inner());
        let packed = match src {
            Source::Packed { compiled, witness } => {
                let clock = Instant::now();
                let key = (compiled.stem.clone(), compiled.challenges);
                if shape_slot.as_ref().map(|s| &s.key) != Some(&key) {
                    *shape_slot = None;
                    *shape_slot = Some(
                        DeviceShape::upload(gpu, compiled)
                            .with_context(|| format!("{label}: uploading the compiled constraints"))?,
                    );
                }
                let ds = shape_slot.as_ref().expect("uploaded");
                let dw = DeviceWitness::upload(gpu, ds, witness)
                    .with_context(|| format!("{label}: uploading the witness"))?;
                let eval = |m| {
                    device_eval::evaluate(gpu, &self.eval_kernels, ds, compiled, &dw, domain, m)
                        .with_context(|| format!("{label}: evaluating the constraints ({m:?})"))
                };
                let (a, b) = (eval(Matrix::A)?, eval(Matrix::B)?);
                // the three-buffer pipeline evaluates C·z into a buffer it frees (its time is H's)
                let c = if buffers == HBuffers::Four { Some(eval(Matrix::C)?) } else { None };
                gpu.stream.synchronize()?;
                t.evaluation = clock.elapsed();
                Some((ds, dw, a, b, c))
            }
            Source::Assignment(_) => None,
        };
        let clock = Instant::now();
        let log_n = domain.trailing_zeros();
        let (h_dev, packed) = match (src, packed) {
            (Source::Assignment(asg), _) => {
                (self.ntt.h_poly(gpu, &asg.a, &asg.b, &asg.c, buffers).with_context(|| format!("{label}: H"))?, None)
            }
            (Source::Packed { compiled, .. }, Some((ds, dw, a, b, c))) => {
                let h = match c {
                    Some(c) => self.ntt.h_poly_fused(gpu, a, b, c, log_n),
                    None => self.ntt.h_poly_three(gpu, a, b, log_n, |c| {
                        device_eval::evaluate_into(gpu, &self.eval_kernels, ds, compiled, &dw, c, Matrix::C)
                    }),
                };
                (h.with_context(|| format!("{label}: H"))?, Some((ds, dw)))
            }
            (Source::Packed { .. }, None) => unreachable!("a packed source is evaluated above"),
        };
        t.h_ntt = clock.elapsed();
        stage(0);

        let clock = Instant::now();
        let h = self
            .msm
            .msm_g1_first(gpu, points(SectionKind::H), &h_dev, domain - 1, 0)
            .with_context(|| format!("{label}: H MSM"))?;
        t.h_msm = clock.elapsed();
        streamed(SectionKind::H);
        stage(1);

        drop(h_dev);
        let mut st = QueryStages { points: &points, streamed: &streamed, stage: &mut stage, t: &mut t, label: &label };
        let (l, a, b_g1, b_g2) = match (src, &packed) {
            (Source::Assignment(asg), _) => self.queries_from_assignment(asg, &mut st)?,
            (Source::Packed { witness, .. }, Some((ds, dw))) if split::suits(witness) => {
                self.split_queries(ds, dw, witness, &mut st)?
            }
            (Source::Packed { .. }, Some((ds, dw))) => self.expanded_queries(ds, dw, &mut st)?,
            _ => unreachable!("a packed source is evaluated above"),
        };
        Ok((assemble(&srs.vk, &QueryResults::from_blst(&h, &l, &a, &b_g1, &b_g2), r, s), t))
    }

    /// L, A and B from an assignment evaluated on the host: its scalars uploaded, each query an
    /// MSM over every point (the 0/1 split inside the MSM).
    fn queries_from_assignment(&self, asg: &Assignment, st: &mut QueryStages) -> Result<(P1, P1, P1, P2)> {
        self.query_msms(
            st,
            || self.upload(&asg.aux),
            || self.upload_query(&asg.a_query()),
            || self.upload_query(&asg.b_query()),
        )
    }

    /// L, A and B of a packed witness that is mostly field elements: each query's scalars
    /// expanded on the device from the packed witness ([`expand`]), then one MSM over every
    /// point, as for an assignment.
    fn expanded_queries(&self, ds: &DeviceShape, dw: &DeviceWitness, st: &mut QueryStages) -> Result<(P1, P1, P1, P2)> {
        let (gpu, k) = (&self.gpu, &self.eval_kernels);
        let expanded = |what: &str, r: super::Result<DeviceBuffer<u32>>| {
            r.with_context(|| format!("{}: expanding the {what} query's scalars", self.label()))
        };
        self.query_msms(
            st,
            || expanded("L", expand::l_scalars(gpu, k, dw)),
            || expanded("A", expand::a_scalars(gpu, k, ds, dw)),
            || expanded("B", expand::b_scalars(gpu, k, ds, dw)),
        )
    }

    /// The query MSMs over scalars the closures put on the device: L and A, then B's, which
    /// serve both the G1 and the G2 MSM.
    fn query_msms(
        &self,
        st: &mut QueryStages,
        l: impl FnOnce() -> Result<DeviceBuffer<u32>>,
        a: impl FnOnce() -> Result<DeviceBuffer<u32>>,
        b: impl FnOnce() -> Result<DeviceBuffer<u32>>,
    ) -> Result<(P1, P1, P1, P2)> {
        let (gpu, msm) = (&self.gpu, &self.msm);
        let l = st.run(SectionKind::L, |pts| Ok(msm.msm_g1(gpu, pts, &l()?, 0)?))?;
        let a = st.run(SectionKind::A, |pts| Ok(msm.msm_g1(gpu, pts, &a()?, 0)?))?;
        let mut kept = None;
        let b_g1 = st.run(SectionKind::BG1, |pts| Ok(msm.msm_g1(gpu, pts, kept.insert(b()?), 0)?))?;
        let b = kept.expect("made by the B G1 stage");
        let b_g2 = st.run(SectionKind::BG2, |pts| Ok(msm.msm_g2(gpu, pts, &b, 0)?))?;
        Ok((l, a, b_g1, b_g2))
    }

    /// L, A and B of a packed witness evaluated on the device, each query split into the batch
    /// addition of its one bits and an MSM over its inputs and field elements ([`split`]).
    fn split_queries(
        &self,
        ds: &DeviceShape,
        dw: &DeviceWitness,
        witness: &PackedWitness,
        st: &mut QueryStages,
    ) -> Result<(P1, P1, P1, P2)> {
        let (gpu, msm, k) = (&self.gpu, &self.msm, &self.eval_kernels);
        let fields = split::field_positions(witness);
        let l = st.run(SectionKind::L, |pts| Ok(split::l_query(gpu, k, dw, &fields)?.sum::<G1>(gpu, msm, k, pts)?))?;
        let a =
            st.run(SectionKind::A, |pts| Ok(split::a_query(gpu, k, ds, dw, &fields)?.sum::<G1>(gpu, msm, k, pts)?))?;
        let mut q = None;
        let b_g1 = st.run(SectionKind::BG1, |pts| {
            Ok(q.insert(split::b_query(gpu, k, ds, dw, &fields)?).sum::<G1>(gpu, msm, k, pts)?)
        })?;
        let q = q.expect("made by the B G1 stage");
        let b_g2 = st.run(SectionKind::BG2, |pts| Ok(q.sum::<G2>(gpu, msm, k, pts)?))?;
        Ok((l, a, b_g1, b_g2))
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

/// The query stages of one partition (L, A, B G1, B G2): each timed into its ProveTimings field,
/// its section's file pages released when it streamed, its working set recorded.
struct QueryStages<'a, 's> {
    points: &'a dyn Fn(SectionKind) -> MsmPoints<'s>,
    streamed: &'a dyn Fn(SectionKind),
    stage: &'a mut dyn FnMut(usize),
    t: &'a mut ProveTimings,
    label: &'a str,
}

impl<'s> QueryStages<'_, 's> {
    /// Runs `msm` (the query's uploads or gathers included) over the points of `kind`.
    fn run<R>(&mut self, kind: SectionKind, msm: impl FnOnce(MsmPoints<'s>) -> Result<R>) -> Result<R> {
        let clock = Instant::now();
        let (i, slot) = match kind {
            SectionKind::L => (2, &mut self.t.l_msm),
            SectionKind::A => (3, &mut self.t.a_msm),
            SectionKind::BG1 => (4, &mut self.t.b_g1_msm),
            SectionKind::BG2 => (5, &mut self.t.b_g2_msm),
            SectionKind::H => unreachable!("the H MSM is not a query stage"),
        };
        let r = msm((self.points)(kind)).with_context(|| format!("{}: {}", self.label, STAGES[i]))?;
        *slot = clock.elapsed();
        (self.streamed)(kind);
        (self.stage)(i);
        Ok(r)
    }
}

/// What a partition is proved from.
enum Source<'a> {
    /// An assignment evaluated on the host.
    Assignment(&'a Assignment),
    /// A packed witness and its shape's compiled constraints, evaluated on the device.
    Packed { compiled: &'a Compiled, witness: &'a PackedWitness },
}

fn gib(b: u64) -> f64 {
    b as f64 / (1u64 << 30) as f64
}

/// Whether a prove failed for want of device memory (the driver's out-of-memory error or an
/// allocation past the plan), anywhere in its chain of causes.
fn out_of_memory(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<GpuError>().is_some_and(GpuError::is_out_of_memory))
}
