//! One MSM on the device: the chunk loop and the kernel launches (kernels and their launchers:
//! scripts/ptxgen/msm.py, msm_sort.py; `gpu::kernels::MsmKernels`).
use super::plan::{self, MsmPlan, RUN_T, SLIM_BLOCK};
use super::source::{self, PinnedCache, Source};
use super::tuning::MsmTuning;
use super::{MsmPoints, Weights};
use crate::gpu::feed::{self, FeedFrom, FeedStats};
use crate::gpu::kernels::msm::{EC_BLOCK, SCAN_TILE};
use crate::gpu::kernels::{
    blocks_for, Grid, MsmAccumulateArgs, MsmBitmapSortArgs, MsmBucketSumsArgs, MsmCountDenseArgs, MsmDigitsArgs,
    MsmKernels, MsmRanksArgs, MsmReduceRunsArgs, MsmScanApplyArgs, MsmScanTilesArgs, MsmScanTopArgs, MsmScatterArgs,
    MsmSegmentSumsArgs, SrsKernels,
};
use crate::gpu::layout::Group;
use crate::gpu::{DeviceBuffer, DeviceSlice, Event, Gpu, GpuError, PinnedBuffer, Result, Stream};
use std::sync::{Arc, Mutex};

/// Threads per block of the element-wise kernels (digits, dense count, the sort at full width).
const BLOCK: u32 = 256;
/// Default chunk when the points are on the device: all of them up to 2^26 (streamed from the
/// host, a staging buffer's worth: [`MsmTuning::stage_bytes`]).
const DEVICE_CHUNK: usize = 1 << 26;
/// Priority of the sort's stream: the most urgent, so that a freed SM slot goes to the sort's
/// next block first and group g+1 is ready before group g's accumulation ends (G1 2^26 on the
/// H200: 404.5 ms against 408.9 at the default priority). Clamped to the device's range.
const SORT_PRIORITY: i32 = -5;

/// The kernels of one MSM: its group's module and the .params conversion (streamed points).
#[derive(Clone, Copy)]
pub(super) struct Kernels<'a> {
    pub msm: &'a MsmKernels,
    pub srs: &'a SrsKernels,
}

/// Σ w_i·P_i for i < n: the whole pipeline, chunk by chunk.
#[allow(clippy::too_many_arguments)]
pub(super) fn msm<G: Group>(
    gpu: &Gpu,
    kernels: Kernels,
    sms: u32,
    tuning: MsmTuning,
    cache: &Cache,
    pinned: &PinnedCache,
    points: MsmPoints,
    w: Weights,
    n: usize,
    chunk: usize,
) -> Result<G::Jac> {
    let mut phases = Phases::new(gpu, tuning.phases)?;
    let dense = match w {
        Weights::Scalars(s) => Some(count_dense(gpu, kernels.msm, sms, s, n)?),
        Weights::Bitmap(_) => None,
    };
    let host = !matches!(points, MsmPoints::Device { .. });
    let default = if host { tuning.stage_bytes() / G::SER } else { DEVICE_CHUNK };
    let mut plan = MsmPlan::new(n, dense, if chunk == 0 { default } else { chunk }, tuning);
    if chunk == 0 {
        // The workspace fits what the device has free and, under a memory plan, what the plan
        // leaves: a chunk sized by the free memory alone takes the room of the next stage.
        let (free, _) = gpu.ctx.mem_info()?;
        let room = gpu.ctx.ledger.headroom().map_or(free, |h| (h as usize).min(free));
        plan = plan.fit((room + cache.bytes()) / 10 * 8, 4 * G::W, sms);
    }
    let new_run = || match Run::<G>::new(gpu, kernels.msm, plan, sms, cache.take(gpu)) {
        // Cached buffers of other sizes were held while the new ones were allocated; they are
        // freed now (Run::new dropped them), so the workspace is allocated afresh.
        Err(e) if e.is_out_of_memory() => Run::<G>::new(gpu, kernels.msm, plan, sms, Vec::new()),
        r => r,
    };
    let len = plan.chunk.min(n);
    // A streamed MSM: the points fed chunk by chunk, converted on the device.
    let mut fed_msm = |from, staging| {
        let (run, kept, stats) = feed::with_feed::<G, _>(gpu, kernels.srs, staging, from, len, |feed| {
            let mut src = Source::Host { pts: gpu.alloc(len * 2 * G::W)?, feed };
            let mut run = new_run()?;
            phases.mark("setup")?;
            accumulate_chunks(&mut run, &mut src, w, n, &mut phases)?;
            Ok(run)
        })?;
        if let Some(p) = kept {
            pinned.put(p);
        }
        Ok::<_, GpuError>((run, Some(stats)))
    };
    let (mut run, fed) = match points {
        MsmPoints::Device { buf, first } => {
            let mut src = source::device_points::<G>(buf, first, n)?;
            let mut run = new_run()?;
            phases.mark("setup")?;
            accumulate_chunks(&mut run, &mut src, w, n, &mut phases)?;
            (run, None)
        }
        MsmPoints::Host(raw) => {
            let from = FeedFrom::Copied(source::host_points::<G>(raw, n)?);
            fed_msm(from, Some(pinned.take::<G>(gpu, len)?))?
        }
        MsmPoints::Pinned { bytes, first } => fed_msm(source::pinned_points::<G>(bytes, first, n)?, None)?,
        MsmPoints::Gathered { bytes, positions } => {
            let from = FeedFrom::Gathered { bytes, positions: &positions[..n] };
            fed_msm(from, Some(pinned.take::<G>(gpu, len)?))?
        }
    };
    let r = match w {
        Weights::Bitmap(_) => run.read_point(run.plan.ones()),
        Weights::Scalars(_) => run.reduce_windows(),
    }?;
    phases.mark("reduce")?;
    phases.report(G::NAME, &plan, fed)?;
    cache.put(run.into_buffers());
    Ok(r)
}

/// The chunk loop: each chunk's points (converted from the host's bytes, or on the device
/// already), its sort window group by window group, each group's accumulation into the buckets
/// and the join of the buckets split between threads. The next chunk's upload is enqueued right
/// after this chunk's conversion, before the host waits for the sort, so the copy engine does not
/// idle through the conversion and sort (a 0/1 batch addition streamed under a cap is bound by
/// the copy; enqueued after the accumulations instead, L and A took 3-5% longer on the H100).
fn accumulate_chunks<G: Group>(
    run: &mut Run<'_, G>,
    src: &mut Source<'_, '_, G>,
    w: Weights,
    n: usize,
    phases: &mut Phases,
) -> Result<()> {
    let plan = run.plan;
    src.upload(0)?;
    for k in 0..plan.chunks() {
        let s = k * plan.chunk;
        let len = plan.chunk.min(n - s);
        src.convert(k)?;
        if k + 1 < plan.chunks() {
            src.upload(k + 1)?;
        }
        phases.mark("points")?;
        let groups = run.sort_chunk(w, s, len)?;
        let mut records = 0;
        for g in 0..groups {
            let (base, total) = run.wait_sorted(g)?;
            phases.mark("sort")?;
            if g == 0 {
                src.check()?; // the conversion's status words of this chunk
            }
            records += run.accumulate_buckets(src.points(s, len)?, base, total, records, g)?;
            phases.mark("accumulate")?;
        }
        run.join_accumulations()?;
        phases.mark("accumulate")?;
        run.join_split_buckets(records)?;
        phases.mark("join")?;
    }
    Ok(())
}

/// Number of scalars that are neither 0 nor 1 (sizes the window).
fn count_dense(gpu: &Gpu, k: &MsmKernels, sms: u32, scalars: &DeviceBuffer<u32>, n: usize) -> Result<usize> {
    let mut counter = gpu.alloc::<u32>(1)?;
    counter.fill_bytes(0)?;
    let args = MsmCountDenseArgs { scalars: scalars.view(), counter: counter.view(), n: n as u32 };
    // grid-stride: 8 blocks per SM are enough to read at full bandwidth
    let grid = n.div_ceil(BLOCK as usize).clamp(1, 8 * sms as usize) as u32;
    k.count_dense().launch(&gpu.stream, grid, BLOCK, &args)?;
    let mut c = [0u32];
    counter.copy_to_host(&mut c)?;
    Ok(c[0] as usize)
}

/// Device buffers kept from one MSM to the next: the stream-ordered pool hands freed memory back
/// to the driver at each synchronisation, and mapping the ~20 GB of a 2^26 MSM again costs about
/// 1 ms per GB. Held by [`super::Msm`] until it is dropped or [`super::Msm::release_memory`].
#[derive(Default)]
pub(super) struct Cache(Mutex<Vec<DeviceBuffer<u32>>>);

impl Cache {
    /// The cached buffers usable on this GPU's stream (the others are freed).
    fn take(&self, gpu: &Gpu) -> Vec<DeviceBuffer<u32>> {
        let mut v = std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()));
        v.retain(|b| Arc::ptr_eq(b.stream(), &gpu.stream));
        v
    }
    fn bytes(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|b| b.bytes()).sum()
    }
    fn put(&self, v: Vec<DeviceBuffer<u32>>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = v;
    }
    pub fn clear(&self) {
        self.put(Vec::new());
    }
}

/// The smallest spare buffer of at least `len` words, or a new one.
fn take(gpu: &Gpu, spare: &mut Vec<DeviceBuffer<u32>>, len: usize) -> Result<DeviceBuffer<u32>> {
    let best = spare.iter().enumerate().filter(|(_, b)| b.len() >= len).min_by_key(|(_, b)| b.len()).map(|(i, _)| i);
    match best {
        Some(i) => Ok(spare.swap_remove(i)),
        None => gpu.alloc(len),
    }
}

/// The sort's own stream, the group totals it copies back to the host and an event per group;
/// and the second accumulation stream with its event.
/// Dropped first in [`Run`]: it waits for its streams.
struct Sorter {
    stream: Arc<Stream>,
    ready: Event,
    sorted: Vec<Event>,
    totals: PinnedBuffer<u32>,
    groups: Vec<(u32, u32)>,
    /// Odd groups accumulate here, so that one window's accumulation fills the SM slots that the
    /// last wave of the one before leaves free (kernels of one stream run one after the other).
    acc: Option<(Arc<Stream>, Event)>,
    /// Blocks per SM of the slim ranks and scatter launches of the groups after the first; see
    /// [`Run::sort_launch`].
    slim: u32,
}

impl Sorter {
    fn new(gpu: &Gpu, plan: &MsmPlan) -> Result<Sorter> {
        let groups = plan.window_groups();
        let acc = if groups.len() > 1 { Some((Stream::new(&gpu.ctx)?, Event::new(&gpu.ctx)?)) } else { None };
        Ok(Sorter {
            stream: Stream::with_priority(&gpu.ctx, SORT_PRIORITY)?,
            ready: Event::new(&gpu.ctx)?,
            sorted: groups.iter().map(|_| Event::new(&gpu.ctx)).collect::<Result<_>>()?,
            totals: PinnedBuffer::new(&gpu.ctx, groups.len())?,
            groups,
            acc,
            slim: plan.tuning.slim_blocks_per_sm,
        })
    }
}

impl Drop for Sorter {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        if let Some((s, _)) = &self.acc {
            let _ = s.synchronize();
        }
    }
}

/// The device state of one MSM: buckets (persistent across chunks) and the chunk workspace.
pub(super) struct Run<'a, G: Group> {
    sorter: Sorter,
    gpu: &'a Gpu,
    k: &'a MsmKernels,
    pub plan: MsmPlan,
    sms: u32,
    buckets: DeviceBuffer<u32>,
    digits: DeviceBuffer<u32>,
    ranks: DeviceBuffer<u32>,
    counts: DeviceBuffer<u32>,
    offsets: DeviceBuffer<u32>,
    tile_sums: DeviceBuffer<u32>,
    tile_offs: DeviceBuffer<u32>,
    /// The sorted (bucket, entry) pairs; entry = point index | sign << 31.
    sorted: DeviceBuffer<u32>,
    /// Partial records of the accumulation levels (ids, XYZZ points), ping-pong.
    rec: [(DeviceBuffer<u32>, DeviceBuffer<u32>); 2],
    /// G2: one negated affine point per accumulation thread.
    scratch: DeviceBuffer<u32>,
    total: DeviceBuffer<u32>,
    /// Buffers of the bucket reduction (kept for the cache).
    extra: Vec<DeviceBuffer<u32>>,
    /// One chunk, buckets not cleared: a bucket without entries (`counts` = 0) holds stale words
    /// and is read as infinity (see [`Run::new`]).
    fresh: bool,
    _g: std::marker::PhantomData<G>,
}

impl<'a, G: Group> Run<'a, G> {
    fn new(
        gpu: &'a Gpu,
        k: &'a MsmKernels,
        plan: MsmPlan,
        sms: u32,
        mut spare: Vec<DeviceBuffer<u32>>,
    ) -> Result<Self> {
        let xyzz = 4 * G::W;
        if k.accumulate().xyzz_words() as usize != xyzz {
            return Err(GpuError::Invalid(format!(
                "the {} MSM kernels' point layout differs from the host's",
                G::NAME
            )));
        }
        let t1 = plan.records(sms);
        let t2 = t1.div_ceil(RUN_T) + 1;
        let ntiles = plan.buckets().div_ceil(SCAN_TILE as usize);
        let mut t = |len: usize| take(gpu, &mut spare, len);
        let mut buckets = t(plan.buckets() * xyzz)?;
        // One chunk: the accumulation overwrites every bucket with entries and the bucket sums
        // skip the others by their count, so the buckets are not cleared (2^26: 3.2 GB of writes
        // the first sort waited for). Several chunks add into the buckets: cleared to infinity.
        let fresh = plan.chunks() == 1;
        if !fresh {
            for (k0, k1) in plan.live_buckets(sms) {
                buckets.fill_bytes_at(k0 * xyzz, (k1 - k0) * xyzz, 0)?; // infinity (ZZ = 0)
            }
        }
        let run = Run {
            fresh,
            sorter: Sorter::new(gpu, &plan)?,
            gpu,
            k,
            plan,
            sms,
            buckets,
            digits: t(plan.digit_words())?,
            ranks: t(plan.digit_words())?,
            counts: t(plan.buckets())?,
            offsets: t(plan.buckets() + 1)?,
            tile_sums: t(ntiles)?,
            tile_offs: t(ntiles + 1)?,
            sorted: t(2 * plan.entries())?,
            rec: [(t(t1)?, t(t1 * xyzz)?), (t(t2)?, t(t2 * xyzz)?)],
            scratch: t(if G::W == 24 { t1 * 2 * G::W } else { 4 })?,
            total: t(1)?,
            extra: Vec::new(),
            _g: std::marker::PhantomData,
        };
        drop(spare); // cached buffers this plan has no use for
        Ok(run)
    }

    /// Every buffer this MSM used, for the cache.
    fn into_buffers(self) -> Vec<DeviceBuffer<u32>> {
        let [(a, b), (c, d)] = self.rec;
        let mut v = vec![
            self.buckets,
            self.digits,
            self.ranks,
            self.counts,
            self.offsets,
            self.tile_sums,
            self.tile_offs,
            self.sorted,
            a,
            b,
            c,
            d,
            self.scratch,
            self.total,
        ];
        v.extend(self.extra);
        v
    }

    /// Enqueues the sort of the chunk, window group after window group, on the sort stream (after
    /// the MSM stream's work so far: the previous chunk's accumulation reads the same buffers).
    /// Returns the number of groups; [`Run::wait_sorted`] hands each one to the MSM stream.
    pub fn sort_chunk(&mut self, w: Weights, s: usize, len: usize) -> Result<usize> {
        self.counts.fill_bytes(0)?;
        self.sorter.ready.record(&self.gpu.stream)?;
        self.sorter.stream.wait(&self.sorter.ready)?;
        let scalars = match w {
            Weights::Scalars(b) => b,
            Weights::Bitmap(b) => return self.sort_bitmap(b, s, len),
        };
        self.signed_digits(scalars, s, len)?;
        for g in 0..self.sorter.groups.len() {
            self.rank_digits(len, g)?;
            self.sort_by_bucket(len, g)?;
        }
        Ok(self.sorter.groups.len())
    }

    /// Buckets [k0, k1) of group g: its windows', and the ones bucket for the last group.
    fn group_buckets(&self, g: usize) -> (usize, usize) {
        let (w0, w1) = self.sorter.groups[g];
        let p = self.plan;
        let k1 = if w1 == p.nwin { p.buckets() } else { w1 as usize * p.nb() };
        (w0 as usize * p.nb(), k1)
    }

    /// Group g's first row and its number of rows (the last group also has the ones row, nwin).
    fn group_rows(&self, g: usize) -> (u32, u32) {
        let (w0, w1) = self.sorter.groups[g];
        (w0, w1 - w0 + u32::from(w1 == self.plan.nwin))
    }

    /// First entry of group g's region of the sorted list: each window has at most `chunk`
    /// non-zero digits, and a scalar equal to 1 has none, so the last group's windows leave room
    /// for the ones.
    fn group_base(&self, g: usize) -> usize {
        self.sorter.groups[g].0 as usize * self.plan.chunk
    }

    /// The batch addition's sort (one group, the ones bucket alone): each set bit of the chunk's
    /// bitmap straight into the sorted list, its count into the group total. Returns 1 (groups).
    fn sort_bitmap(&mut self, bitmap: &DeviceBuffer<u32>, s: usize, len: usize) -> Result<usize> {
        let args = MsmBitmapSortArgs {
            bitmap: bitmap.slice(s / 32..)?,
            sorted: self.sorted.view(),
            counter: self.counts.slice(..1)?,
            n: len as u32,
        };
        let st = &self.sorter.stream;
        // SAFETY: the counter is counts[0], zeroed for this chunk by sort_chunk before the sort
        // stream waited for the MSM stream, so it ends at the set bits among the chunk's len.
        unsafe { self.k.bitmap_sort().launch(st, blocks_for(len, BLOCK), BLOCK, &args)? };
        self.counts.download(st, 0, &mut self.sorter.totals, 0, 1)?;
        self.sorter.sorted[0].record(st)?;
        Ok(1)
    }

    /// Signed digits of every window of the chunk's scalars, and the ones row.
    fn signed_digits(&self, scalars: &DeviceBuffer<u32>, s: usize, len: usize) -> Result<()> {
        let p = self.plan;
        let args = MsmDigitsArgs {
            scalars: scalars.slice(8 * s..)?,
            digits: self.digits.view(),
            n: len as u32,
            c: p.c,
            nwin: p.nwin,
            stride: p.chunk as u32,
            wide: p.wide,
        };
        self.k.digits().launch(&self.sorter.stream, blocks_for(len, BLOCK), BLOCK, &args)
    }

    /// Grid and block of group g's msm_ranks and msm_scatter over `len` elements of each of its
    /// `rows` rows (grid y). Both kernels are grid-stride loops, so any grid x gives the same
    /// result. Group 0 has the device to itself: one thread per element, blocks of BLOCK. Every
    /// later group is sorted while the group before accumulates (high-priority stream), and a
    /// sort block of more than one warp of 32 registers takes the place of one of the 7
    /// accumulation blocks of its SM (they leave 1024 registers free) for as long as it is
    /// resident (2^26: accumulation 342 ms beside the full-grid sorts, 325 alone). So these are
    /// slim: blocks of one warp (SLIM_BLOCK), `slim_blocks_per_sm` per SM (default 1) shared
    /// among the rows, each thread looping over its elements.
    fn sort_launch(&self, len: usize, g: usize, rows: u32) -> (Grid, u32) {
        if g >= 1 {
            (Grid::new(plan::slim_grid_x(len, rows, self.sms, self.sorter.slim), rows), SLIM_BLOCK)
        } else {
            (Grid::new(blocks_for(len, BLOCK), rows), BLOCK)
        }
    }

    /// Ranks of group g's digits in the bucket histogram (its rows, and the ones row for the last).
    fn rank_digits(&self, len: usize, g: usize) -> Result<()> {
        let p = self.plan;
        let (w0, rows) = self.group_rows(g);
        let args = MsmRanksArgs {
            digits: self.digits.view(),
            ranks: self.ranks.view(),
            counts: self.counts.view(),
            n: len as u32,
            c: p.c,
            stride: p.chunk as u32,
            w0,
        };
        let (grid, block) = self.sort_launch(len, g, rows);
        // SAFETY: the digit rows w0.. were written by msm_digits with this plan's c (signed_digits,
        // earlier on this stream), and counts holds buckets() counters: every window's buckets and
        // the ones bucket.
        unsafe { self.k.ranks().launch(&self.sorter.stream, grid, block, &args) }
    }

    /// Counting sort of group g's digits by bucket: exclusive scan of its buckets' histogram,
    /// scatter into its region of the sorted list, its total copied back, its event recorded.
    fn sort_by_bucket(&mut self, len: usize, g: usize) -> Result<()> {
        let p = self.plan;
        let (w0, rows) = self.group_rows(g);
        let (k0, k1) = self.group_buckets(g);
        let k = (k1 - k0) as u32;
        let st = &self.sorter.stream;
        let tiles = MsmScanTilesArgs { counts: self.counts.slice(k0..k1)?, sums: self.tile_sums.view(), k };
        self.k.scan_tiles().launch(st, &tiles)?;
        let ntiles = k.div_ceil(SCAN_TILE);
        let top = MsmScanTopArgs { sums: self.tile_sums.view(), offs: self.tile_offs.view(), ntiles };
        self.k.scan_top().launch(st, &top)?;
        let apply = MsmScanApplyArgs {
            counts: self.counts.slice(k0..k1)?,
            offs: self.tile_offs.view(),
            out: self.offsets.slice(k0..)?,
            k,
        };
        self.k.scan_apply().launch(st, &apply)?;
        let scatter = MsmScatterArgs {
            digits: self.digits.view(),
            ranks: self.ranks.view(),
            offsets: self.offsets.view(),
            sorted: self.sorted.slice(2 * self.group_base(g)..)?,
            n: len as u32,
            c: p.c,
            nwin: p.nwin,
            stride: p.chunk as u32,
            w0,
        };
        let (grid, block) = self.sort_launch(len, g, rows);
        // SAFETY: the digits are msm_digits' for this plan's c, the ranks msm_ranks' of them in
        // counts (this chunk's histogram), and offsets[k0..=k1] the exclusive scan of the group's
        // counts (just above), so the group's pairs land in its region: at most chunk per window,
        // (w1 - w0)·chunk pairs from group_base, the last region running to entries().
        unsafe { self.k.scatter().launch(st, grid, block, &scatter)? };
        self.offsets.download(st, k1, &mut self.sorter.totals, g, 1)?;
        self.sorter.sorted[g].record(st)
    }

    /// The stream that accumulates group g: the MSM stream, or for odd g the second one if any.
    fn acc_stream(&self, g: usize) -> &Arc<Stream> {
        match &self.sorter.acc {
            Some((s, _)) if g % 2 == 1 => s,
            _ => &self.gpu.stream,
        }
    }

    /// Waits (host) for group g's sort and orders its accumulation stream after it: the group's
    /// first sorted entry and its number of entries.
    pub fn wait_sorted(&self, g: usize) -> Result<(usize, usize)> {
        let ev = &self.sorter.sorted[g];
        ev.synchronize()?;
        self.acc_stream(g).wait(ev)?;
        Ok((self.group_base(g), self.sorter.totals.host(g..g + 1)?[0] as usize))
    }

    /// Orders the MSM stream after the second accumulation stream's work so far.
    pub fn join_accumulations(&self) -> Result<()> {
        if let Some((s, ev)) = &self.sorter.acc {
            ev.record(s)?;
            self.gpu.stream.wait(ev)?;
        }
        Ok(())
    }

    /// Adds a group's sorted entries into the buckets, T entries per thread whatever the bucket
    /// sizes: a bucket that starts in a thread's range is added in place; the piece of a bucket
    /// that started in an earlier range goes to the thread's partial record. Returns the number
    /// of partial records (one per thread), written from record `rec` on.
    pub fn accumulate_buckets(
        &mut self,
        points: DeviceSlice<'_, u32>,
        base: usize,
        total: usize,
        rec: usize,
        g: usize,
    ) -> Result<usize> {
        if total == 0 {
            return Ok(0);
        }
        let t = plan::entries_per_thread(total, self.plan.threads(self.sms));
        let nrec = total.div_ceil(t);
        let args = MsmAccumulateArgs {
            ids: self.sorted.slice(2 * base..)?,
            items: self.sorted.slice(2 * base + 1..)?,
            points,
            buckets: self.buckets.view(),
            out_ids: self.rec[0].0.slice(rec..)?,
            out_pts: self.rec[0].1.slice(rec * 4 * G::W..)?,
            scratch: self.scratch.slice(if G::W == 24 { rec * 2 * G::W } else { 0 }..)?,
            n: total as u32,
            t: t as u32,
            fresh: self.fresh as u32,
        };
        // SAFETY: the pairs from `base` are group g's, written by msm_scatter (or msm_bitmap_sort)
        // for this chunk before the sort event this stream waited for (wait_sorted): bucket ids
        // below buckets(), entries naming the chunk's points, which `points` holds. With fresh, a
        // run that starts in a thread's range overwrites its bucket. Groups touch disjoint
        // buckets, records and scratch slots, so two groups may run at once on two streams; the
        // join waits for the second (join_accumulations).
        let stream = self.acc_stream(g);
        unsafe { self.k.accumulate().launch(stream, blocks_for(nrec, EC_BLOCK), EC_BLOCK, &args)? };
        Ok(nrec)
    }

    /// Adds the partial records into their buckets: levels of the same scheme over the records
    /// (RUN_T per thread, full additions) until one thread covers them all.
    pub fn join_split_buckets(&mut self, mut nrec: usize) -> Result<()> {
        let mut cur = 0;
        while nrec > 1 {
            let next = nrec.div_ceil(RUN_T);
            let (src, dst) = (&self.rec[cur], &self.rec[1 - cur]);
            let args = MsmReduceRunsArgs {
                ids: src.0.view(),
                items: src.1.view(),
                points: self.buckets.view(),
                buckets: self.buckets.view(),
                out_ids: dst.0.view(),
                out_pts: dst.1.view(),
                scratch: self.scratch.view(),
                n: nrec as u32,
                t: RUN_T as u32,
            };
            // SAFETY: the record ids are those the accumulation or the level before wrote: NONE
            // or a bucket below buckets(). (rec[1] holds ceil(max_threads/RUN_T) + 1 >= next
            // records, rec[0] every later level: checked by the launcher.)
            unsafe { self.k.reduce_runs().launch(&self.gpu.stream, blocks_for(next, EC_BLOCK), EC_BLOCK, &args)? };
            nrec = next;
            cur = 1 - cur;
        }
        Ok(())
    }

    /// Σ_w 2^(o_w) Σ_b (b+1)·B_{w,b} + (ones bucket): the bucket sums on the device, Horner over the
    /// window sums on the host (o_w: the window widths below w).
    pub fn reduce_windows(&mut self) -> Result<G::Jac> {
        let p = self.plan;
        let xyzz = 4 * G::W;
        let glog = p.first_segment_log(self.sms);
        let mut segs = p.nb() >> glog;
        let mut nth = p.nwin as usize * segs;
        let gpu = self.gpu;
        let mut a = (gpu.alloc::<u32>(nth * xyzz)?, gpu.alloc::<u32>(nth * xyzz)?);
        let mut b = (gpu.alloc::<u32>(nth * xyzz)?, gpu.alloc::<u32>(nth * xyzz)?);
        // the narrow windows (from `wide` on) leave the upper half of their buckets empty (and
        // uncleared): the kernel skips those segments, see MsmPlan::skips_narrow_upper
        let wide = if p.skips_narrow_upper(self.sms) { p.wide } else { p.nwin };
        let args = MsmBucketSumsArgs {
            in_r: self.buckets.view(),
            out_r: a.0.view(),
            out_t: a.1.view(),
            counts: Some(self.counts.view()),
            nthreads: nth as u32,
            glog,
            slog: segs.trailing_zeros(),
            wide,
            fresh: self.fresh as u32,
        };
        self.k.bucket_sums().launch(&gpu.stream, blocks_for(nth, EC_BLOCK), EC_BLOCK, &args)?;
        let mut llog = glog;
        while segs > 1 {
            let gl = segs.trailing_zeros().min(5);
            segs >>= gl;
            nth = p.nwin as usize * segs;
            let args = MsmSegmentSumsArgs {
                in_r: a.0.view(),
                in_t: a.1.view(),
                out_r: b.0.view(),
                out_t: b.1.view(),
                nthreads: nth as u32,
                glog: gl,
                llog,
            };
            self.k.segment_sums().launch(&gpu.stream, blocks_for(nth, EC_BLOCK), EC_BLOCK, &args)?;
            std::mem::swap(&mut a, &mut b);
            llog += gl;
        }
        // one segment per window is left: the window sums, then the ones bucket, to the host
        let nw = p.nwin as usize * xyzz;
        let mut w = vec![0u32; nw];
        a.1.copy_to_host_at(0, &mut w)?;
        self.extra.extend([a.0, a.1, b.0, b.1]);
        let mut points: Vec<G::Jac> = w.chunks(xyzz).map(G::from_xyzz_words).collect();
        points.push(self.read_point(p.ones())?);
        Ok(horner::<G>(&points, &p))
    }

    /// Bucket `i` (the batch addition's result is the ones bucket).
    pub fn read_point(&self, i: usize) -> Result<G::Jac> {
        let xyzz = 4 * G::W;
        let mut w = vec![0u32; xyzz];
        let mut count = [1u32];
        if self.fresh {
            self.counts.copy_to_host_at(i, &mut count)?;
        }
        if count[0] != 0 {
            self.buckets.copy_to_host_at(i * xyzz, &mut w)?;
        }
        Ok(G::from_xyzz_words(&w)) // all zero: infinity
    }
}

/// Σ_w 2^(o_w)·W_w + ones from `sums` = [W_0 .. W_{nwin-1}, ones], o_w the widths of the windows
/// below w: Horner from the top window. About 255 doublings in a row: on one GPU thread they
/// took ~2 ms (G1), on the CPU well under one.
fn horner<G: Group>(sums: &[G::Jac], p: &MsmPlan) -> G::Jac {
    let nwin = p.nwin as usize;
    let mut acc = sums[nwin - 1];
    for w in (0..nwin - 1).rev() {
        let width = if (w as u32) < p.wide { p.c } else { p.c - 1 };
        for _ in 0..width {
            acc = G::double(&acc);
        }
        acc = G::add(&acc, &sums[w]);
    }
    G::add(&acc, &sums[nwin])
}

/// Device time between phase marks (CUDA events), printed to stderr with MsmTuning::phases.
struct Phases {
    on: bool,
    ctx: std::sync::Arc<crate::gpu::Context>,
    stream: std::sync::Arc<crate::gpu::Stream>,
    marks: Vec<(&'static str, Event)>,
}

impl Phases {
    fn new(gpu: &Gpu, on: bool) -> Result<Phases> {
        let mut p = Phases { on, ctx: gpu.ctx.clone(), stream: gpu.stream.clone(), marks: Vec::new() };
        p.mark("start")?;
        Ok(p)
    }

    fn mark(&mut self, name: &'static str) -> Result<()> {
        if self.on {
            let e = Event::new(&self.ctx)?;
            e.record(&self.stream)?;
            self.marks.push((name, e));
        }
        Ok(())
    }

    fn report(&self, group: &str, plan: &MsmPlan, fed: Option<FeedStats>) -> Result<()> {
        if !self.on {
            return Ok(());
        }
        let mut sums: Vec<(&str, f64)> = Vec::new();
        for w in self.marks.windows(2) {
            let ms = w[0].1.elapsed_ms(&w[1].1)? as f64;
            match sums.iter_mut().find(|s| s.0 == w[1].0) {
                Some(s) => s.1 += ms,
                None => sums.push((w[1].0, ms)),
            }
        }
        let total: f64 = sums.iter().map(|s| s.1).sum();
        let mut parts: Vec<String> = sums.iter().map(|(n, ms)| format!("{n} {ms:.2}")).collect();
        if let Some(f) = fed.filter(|f| f.fill_s > 0.0) {
            // host side: the staging thread's copies and how long the chunk loop waited for them
            // (none when the points are page-locked already)
            let rate = f.bytes as f64 / f.fill_s.max(1e-9) / 1e9;
            parts.push(format!("(host copies {:.2} at {rate:.1} GB/s, waited {:.2})", f.fill_s * 1e3, f.wait_s * 1e3));
        }
        eprintln!(
            "msm {group} n={} c={} nwin={} chunks={}: {} ms = {}",
            plan.n,
            plan.c,
            plan.nwin,
            plan.chunks(),
            format_args!("{total:.2}"),
            parts.join(", ")
        );
        Ok(())
    }
}
