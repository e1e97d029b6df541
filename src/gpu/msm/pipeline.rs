//! One MSM on the device: the chunk loop and the kernel launches (kernels: scripts/ptxgen/msm.py).
use super::plan::{self, Plan, RUN_T, SLIM_BLOCK};
use super::source::Source;
use super::{Points, Weights};
use crate::gpu::driver::{DeviceBuffer, KernelArg, Module};
use crate::gpu::layout::Group;
use crate::gpu::{Event, Gpu, PinnedBuffer, Result, Stream};
use std::sync::{Arc, Mutex};

/// Threads per block: element-wise kernels and scans; curve kernels (the G2 spill area in shared
/// memory holds 64 threads, msm.py's EC_BLOCK).
const BLOCK: u32 = 256;
const EC_BLOCK: u32 = 64;
/// Scan tile (msm.py's SCAN_TILE).
const SCAN_TILE: usize = 2048;
/// Default chunk: all points when they are on the device (up to 2^26), 256 MiB of raw bytes per
/// staging buffer when they are streamed from the host.
const DEVICE_CHUNK: usize = 1 << 26;
const HOST_STAGE_BYTES: usize = 256 << 20;

/// Σ w_i·P_i for i < n: the whole pipeline, chunk by chunk.
#[allow(clippy::too_many_arguments)]
pub(super) fn msm<G: Group>(
    gpu: &Gpu,
    m: &Module,
    srs: &Module,
    sms: u32,
    cache: &Cache,
    points: Points,
    w: Weights,
    n: usize,
    chunk: usize,
) -> Result<G::Jac> {
    let mut phases = Phases::new(gpu)?;
    let dense = match w {
        Weights::Scalars(s) => Some(count_dense(gpu, m, sms, s, n)?),
        Weights::Bitmap(_) => None,
    };
    let host = matches!(points, Points::Host(_));
    let default = if host { HOST_STAGE_BYTES / G::SER } else { DEVICE_CHUNK };
    let mut plan = Plan::new(n, dense, if chunk == 0 { default } else { chunk });
    if chunk == 0 {
        let (free, _) = gpu.ctx.mem_info()?;
        plan = plan.fit((free + cache.bytes()) / 10 * 8, 4 * G::W, sms);
    }
    let mut src = Source::<G>::new(gpu, srs, points, n, plan.chunk)?;
    let mut run = Run::<G>::new(gpu, m, plan, sms, cache.take(gpu))?;
    phases.mark("setup")?;
    src.stage(0, 0, plan.chunk.min(n))?;
    for k in 0..plan.chunks() {
        let s = k * plan.chunk;
        let len = plan.chunk.min(n - s);
        let pts = src.upload(k, s, len)?;
        phases.mark("points")?;
        let groups = run.sort_chunk(w, s, len)?;
        if k + 1 < plan.chunks() {
            let s1 = s + plan.chunk;
            src.stage(k + 1, s1, plan.chunk.min(n - s1))?; // the CPU copies while the device sorts
        }
        let mut records = 0;
        for g in 0..groups {
            let (base, total) = run.wait_sorted(g)?;
            phases.mark("sort")?;
            if g == 0 && host {
                gpu.stream.synchronize()?; // the conversion's status words of this chunk
                src.check(s, len)?;
            }
            records += run.accumulate_buckets(pts, base, total, records, g)?;
            phases.mark("accumulate")?;
        }
        run.join_accumulations()?;
        phases.mark("accumulate")?;
        run.join_split_buckets(records)?;
        phases.mark("join")?;
    }
    let r = match w {
        Weights::Bitmap(_) => run.read_point(run.plan.ones()),
        Weights::Scalars(_) => run.reduce_windows(),
    }?;
    phases.mark("reduce")?;
    phases.report(G::NAME, &plan)?;
    cache.put(run.into_buffers());
    Ok(r)
}

/// Grid of the curve kernels for `threads` threads.
fn ec_grid(threads: usize) -> (u32, u32) {
    (threads.div_ceil(EC_BLOCK as usize) as u32, 1)
}

/// Number of scalars that are neither 0 nor 1 (sizes the window).
fn count_dense(gpu: &Gpu, m: &Module, sms: u32, scalars: &DeviceBuffer<u32>, n: usize) -> Result<usize> {
    let mut counter = gpu.alloc::<u32>(1)?;
    counter.fill_bytes(0)?;
    let f = m.function("msm_count_dense")?;
    let args = [scalars.arg(), counter.arg(), KernelArg::U32(n as u32)];
    // SAFETY: msm_count_dense(scalars, counter, n) reads n scalars of 8 words (n = len/8 checked by
    // the caller) and adds to one counter word; both buffers outlive the synchronous read below.
    // (grid-stride: 8 blocks per SM are enough to read at full bandwidth)
    let grid = n.div_ceil(BLOCK as usize).clamp(1, 8 * sms as usize) as u32;
    unsafe { f.launch(&gpu.stream, grid, BLOCK, &args)? };
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
/// Dropped first in [`Run`]: it waits for its streams, so no kernel outlives the buffers.
struct Sorter {
    stream: Arc<Stream>,
    ready: Event,
    sorted: Vec<Event>,
    totals: PinnedBuffer<u32>,
    groups: Vec<(u32, u32)>,
    /// Odd groups accumulate here, so that one window's accumulation fills the SM slots that the
    /// last wave of the one before leaves free (kernels of one stream run one after the other).
    acc: Option<(Arc<Stream>, Event)>,
    /// Blocks per SM of the slim ranks and scatter launches of the groups after the first (None:
    /// one thread per element for every group); see [`Run::sort_launch`].
    slim: Option<u32>,
}

impl Sorter {
    fn new(gpu: &Gpu, plan: &Plan) -> Result<Sorter> {
        // the most urgent priority by default: a freed SM slot goes to the sort's next block first,
        // so group g+1 is ready before group g's accumulation ends (G1 2^26: 404.5 ms against
        // 408.9 at the default priority); FILSNARK_MSM_SORT_PRIORITY overrides.
        let level = std::env::var("FILSNARK_MSM_SORT_PRIORITY").ok().and_then(|v| v.parse().ok()).unwrap_or(-5);
        let groups = plan.window_groups();
        let streams = std::env::var("FILSNARK_MSM_ACC_STREAMS").ok().and_then(|v| v.parse().ok()).unwrap_or(2u32);
        let acc =
            if streams >= 2 && groups.len() > 1 { Some((Stream::new(&gpu.ctx)?, Event::new(&gpu.ctx)?)) } else { None };
        Ok(Sorter {
            stream: Stream::with_priority(&gpu.ctx, level)?,
            ready: Event::new(&gpu.ctx)?,
            sorted: groups.iter().map(|_| Event::new(&gpu.ctx)).collect::<Result<_>>()?,
            totals: PinnedBuffer::new(&gpu.ctx, groups.len())?,
            groups,
            acc,
            slim: plan::slim_blocks_per_sm(),
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
    m: &'a Module,
    pub plan: Plan,
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
    fn new(gpu: &'a Gpu, m: &'a Module, plan: Plan, sms: u32, mut spare: Vec<DeviceBuffer<u32>>) -> Result<Self> {
        let xyzz = 4 * G::W;
        let t1 = plan.records(sms);
        let t2 = t1.div_ceil(RUN_T) + 1;
        let ntiles = plan.buckets().div_ceil(SCAN_TILE);
        let mut t = |len: usize| take(gpu, &mut spare, len);
        let mut buckets = t(plan.buckets() * xyzz)?;
        // One chunk: the accumulation overwrites every bucket with entries and the bucket sums
        // skip the others by their count, so the buckets are not cleared (2^26: 3.2 GB of writes
        // the first sort waited for). Several chunks add into the buckets: cleared to infinity.
        let fresh = plan.chunks() == 1 && std::env::var("FILSNARK_MSM_FRESH").map_or(true, |v| v.trim() != "0");
        if !fresh {
            for (k0, k1) in plan.live_buckets(sms) {
                buckets.fill_bytes_at(k0 * xyzz, (k1 - k0) * xyzz, 0)?; // infinity (ZZ = 0)
            }
        }
        let run = Run {
            fresh,
            sorter: Sorter::new(gpu, &plan)?,
            gpu,
            m,
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

    fn kernel(&self, what: &str) -> String {
        format!("msm_{}_{what}", G::NAME.to_lowercase())
    }

    /// Launches `name` on `stream` (the MSM stream or the sort's).
    ///
    /// # Safety
    /// `args` must match the kernel's parameter list (msm.py), and every buffer they name must be
    /// large enough for the threads launched and live until the stream has passed the launch.
    unsafe fn launch_on(
        &self,
        stream: &Stream,
        name: &str,
        grid: (u32, u32),
        block: u32,
        args: &[KernelArg],
    ) -> Result<()> {
        let f = self.m.function(name)?;
        f.launch_ex(stream, grid, block, 0, args)
    }

    /// Launches `name` on the MSM stream.
    ///
    /// # Safety
    /// As [`Run::launch_on`].
    unsafe fn launch(&self, name: &str, grid: (u32, u32), block: u32, args: &[KernelArg]) -> Result<()> {
        self.launch_on(&self.gpu.stream, name, grid, block, args)
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
        let args = [bitmap.arg_at(s / 32)?, self.sorted.arg(), self.counts.arg(), KernelArg::U32(len as u32)];
        let st = &self.sorter.stream;
        // SAFETY: msm_bitmap_sort(bitmap, sorted, counter, n): thread i < len reads bitmap word
        // (s+i)/32 (s is a multiple of 32; bitmap.len() >= n/32 checked by the caller) and writes
        // at most one pair of words below 2·len into sorted (entries() >= chunk >= len pairs) and
        // adds to counts[0]. BLOCK is a multiple of 32 (lanes are bits of one word). The totals
        // slot lives in the sorter until it is dropped, after the stream.
        unsafe {
            self.launch_on(st, "msm_bitmap_sort", (len.div_ceil(BLOCK as usize) as u32, 1), BLOCK, &args)?;
            self.counts.copy_to_host_on(st, 0, &mut self.sorter.totals[0..1])?;
        }
        self.sorter.sorted[0].record(st)?;
        Ok(1)
    }

    /// Signed digits of every window of the chunk's scalars, and the ones row.
    fn signed_digits(&self, scalars: &DeviceBuffer<u32>, s: usize, len: usize) -> Result<()> {
        let p = self.plan;
        let args = [
            scalars.arg_at(8 * s)?,
            self.digits.arg(),
            KernelArg::U32(len as u32),
            KernelArg::U32(p.c),
            KernelArg::U32(p.nwin),
            KernelArg::U32(p.chunk as u32),
            KernelArg::U32(p.wide),
        ];
        let grid = (len.div_ceil(BLOCK as usize) as u32, 1);
        // SAFETY: msm_digits(scalars, digits, n, c, nwin, stride, wide): thread i < len reads scalar
        // s+i (8 words, in range: n = scalars.len()/8) and writes rows 0..=nwin of digits at stride
        // chunk >= len. The buffers were allocated on the MSM stream, which the sort stream waits
        // for (sort_chunk).
        unsafe { self.launch_on(&self.sorter.stream, "msm_digits", grid, BLOCK, &args) }
    }

    /// Grid and block of group g's msm_ranks and msm_scatter over `len` elements of each of its
    /// `rows` rows (grid y). Both kernels are grid-stride loops, so any grid x gives the same
    /// result. Group 0 has the device to itself: one thread per element, blocks of BLOCK. Every
    /// later group is sorted while the group before accumulates (high-priority stream), and a
    /// sort block of more than one warp of 32 registers takes the place of one of the 7
    /// accumulation blocks of its SM (they leave 1024 registers free) for as long as it is
    /// resident (2^26: accumulation 342 ms beside the full-grid sorts, 325 alone). So these are
    /// slim: blocks of one warp (SLIM_BLOCK), FILSNARK_MSM_SLIM_BLOCKS per SM (default 1) shared
    /// among the rows, each thread looping over its elements; FILSNARK_MSM_SORT_SLIM=0 launches
    /// every group full.
    fn sort_launch(&self, len: usize, g: usize, rows: u32) -> ((u32, u32), u32) {
        match self.sorter.slim {
            Some(per_sm) if g >= 1 => ((plan::slim_grid_x(len, rows, self.sms, per_sm), rows), SLIM_BLOCK),
            _ => ((len.div_ceil(BLOCK as usize) as u32, rows), BLOCK),
        }
    }

    /// Ranks of group g's digits in the bucket histogram (its rows, and the ones row for the last).
    fn rank_digits(&self, len: usize, g: usize) -> Result<()> {
        let p = self.plan;
        let (w0, rows) = self.group_rows(g);
        let args = [
            self.digits.arg(),
            self.ranks.arg(),
            self.counts.arg(),
            KernelArg::U32(len as u32),
            KernelArg::U32(p.c),
            KernelArg::U32(p.chunk as u32),
            KernelArg::U32(w0),
        ];
        let (grid, block) = self.sort_launch(len, g, rows);
        // SAFETY: msm_ranks(digits, ranks, counts, n, c, stride, w0), grid row y is row w0+y <= nwin:
        // its threads (grid-stride, any grid x; blocks of BLOCK or SLIM_BLOCK, multiples of 32)
        // read and write the elements i < len of that row of digits and ranks, each once (stride
        // chunk >= len, rows() rows; len and the grid's threads < 2^30), and add to counts[] below
        // buckets().
        unsafe { self.launch_on(&self.sorter.stream, "msm_ranks", grid, block, &args) }
    }

    /// Counting sort of group g's digits by bucket: exclusive scan of its buckets' histogram,
    /// scatter into its region of the sorted list, its total copied back, its event recorded.
    fn sort_by_bucket(&mut self, len: usize, g: usize) -> Result<()> {
        let p = self.plan;
        let (w0, rows) = self.group_rows(g);
        let (k0, k1) = self.group_buckets(g);
        let k = k1 - k0;
        let ntiles = k.div_ceil(SCAN_TILE) as u32;
        let tiles = [self.counts.arg_at(k0)?, self.tile_sums.arg(), KernelArg::U32(k as u32)];
        let top = [self.tile_sums.arg(), self.tile_offs.arg(), KernelArg::U32(ntiles)];
        let apply = [self.counts.arg_at(k0)?, self.tile_offs.arg(), self.offsets.arg_at(k0)?, KernelArg::U32(k as u32)];
        let scatter = [
            self.digits.arg(),
            self.ranks.arg(),
            self.offsets.arg(),
            self.sorted.arg_at(2 * self.group_base(g))?,
            KernelArg::U32(len as u32),
            KernelArg::U32(p.c),
            KernelArg::U32(p.nwin),
            KernelArg::U32(p.chunk as u32),
            KernelArg::U32(w0),
        ];
        let (grid, block) = self.sort_launch(len, g, rows);
        let st = &self.sorter.stream;
        // SAFETY: the scan kernels read counts[k0..k1) and write tile_sums[0..ntiles),
        // tile_offs[0..=ntiles], offsets[k0..=k1] (group-relative), all inside buffers sized for
        // every bucket; msm_scatter (grid-stride over the elements i < len, any grid x) reads the
        // digit rows w0..w1 (and the ones row for the last group) written by msm_digits and the
        // ranks written by msm_ranks, and writes each non-zero digit once, as a pair of words at
        // offsets[b] + rank of the group's region, which holds (w1 - w0) * chunk pairs (the last
        // region runs to entries()). The totals slot g lives in the sorter until it is dropped,
        // after the stream.
        unsafe {
            self.launch_on(st, "msm_scan_tiles", (ntiles, 1), BLOCK, &tiles)?;
            self.launch_on(st, "msm_scan_top", (1, 1), BLOCK, &top)?;
            self.launch_on(st, "msm_scan_apply", (ntiles, 1), BLOCK, &apply)?;
            self.launch_on(st, "msm_scatter", grid, block, &scatter)?;
            self.offsets.copy_to_host_on(st, k1, &mut self.sorter.totals[g..g + 1])?;
        }
        self.sorter.sorted[g].record(st)
    }

    /// The stream that accumulates group g: the MSM stream, or for odd g the second one if any.
    fn acc_stream(&self, g: usize) -> &Stream {
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
        Ok((self.group_base(g), self.sorter.totals[g] as usize))
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
        points: KernelArg,
        base: usize,
        total: usize,
        rec: usize,
        g: usize,
    ) -> Result<usize> {
        if total == 0 {
            return Ok(0);
        }
        let t = plan::entries_per_thread(total, self.sms);
        let nrec = total.div_ceil(t);
        let args = [
            self.sorted.arg_at(2 * base)?,
            self.sorted.arg_at(2 * base + 1)?,
            points,
            self.buckets.arg(),
            self.rec[0].0.arg_at(rec)?,
            self.rec[0].1.arg_at(rec * 4 * G::W)?,
            self.scratch.arg_at(if G::W == 24 { rec * 2 * G::W } else { 0 })?,
            KernelArg::U32(total as u32),
            KernelArg::U32(t as u32),
            KernelArg::U32(self.fresh as u32),
        ];
        // SAFETY: msm_G_accumulate(ids, items, points, buckets, out_ids, out_pts, scratch, N, T,
        // fresh): with fresh, a run that starts in a thread's range overwrites its bucket. ids
        // and items are the two words of the sorted pairs (stride 8 bytes) from the group's first
        // pair `base`; thread j < ceil(N/T) reads pairs [jT, jT+T) of the group (base + N <=
        // entries(): the group's region), the points
        // they name (chunk-local indices < len, inside the chunk's points), buckets below buckets(),
        // and writes record rec+j of rec[0] and its scratch slot (capacity records(): every group's
        // ceil(N/T) <= max(threads_target, N/256) + 1 side by side). Groups touch disjoint buckets,
        // records and scratch slots, so two groups may run at once on two streams; the second
        // stream waited for this group's sort, which waited for the MSM stream's work (the points'
        // upload, the previous chunk's join), and the join waits for it (join_accumulations).
        let name = self.kernel("accumulate");
        unsafe { self.launch_on(self.acc_stream(g), &name, ec_grid(nrec), EC_BLOCK, &args)? };
        Ok(nrec)
    }

    /// Adds the partial records into their buckets: levels of the same scheme over the records
    /// (RUN_T per thread, full additions) until one thread covers them all.
    pub fn join_split_buckets(&mut self, mut nrec: usize) -> Result<()> {
        let mut cur = 0;
        while nrec > 1 {
            let next = nrec.div_ceil(RUN_T);
            let (src, dst) = (&self.rec[cur], &self.rec[1 - cur]);
            let args = [
                src.0.arg(),
                src.1.arg(),
                self.buckets.arg(),
                self.buckets.arg(),
                dst.0.arg(),
                dst.1.arg(),
                self.scratch.arg(),
                KernelArg::U32(nrec as u32),
                KernelArg::U32(RUN_T as u32),
            ];
            // SAFETY: msm_G_reduce_runs reads records [0, nrec) of src and writes records [0, next) of
            // dst (rec[1] holds ceil(max_threads/RUN_T) + 1 >= next, rec[0] holds every later level);
            // `points` is unused at these levels.
            unsafe { self.launch(&self.kernel("reduce_runs"), ec_grid(next), EC_BLOCK, &args)? };
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
        let glog = plan::first_segment_log(p.nwin, p.c, self.sms);
        let mut segs = p.nb() >> glog;
        let mut nth = p.nwin as usize * segs;
        let gpu = self.gpu;
        let mut a = (gpu.alloc::<u32>(nth * xyzz)?, gpu.alloc::<u32>(nth * xyzz)?);
        let mut b = (gpu.alloc::<u32>(nth * xyzz)?, gpu.alloc::<u32>(nth * xyzz)?);
        // the narrow windows (from `wide` on) leave the upper half of their buckets empty (and
        // uncleared): the kernel skips those segments, see Plan::skips_narrow_upper
        let wide = if p.skips_narrow_upper(self.sms) { p.wide } else { p.nwin };
        let slog = segs.trailing_zeros();
        let args = [
            self.buckets.arg(),
            a.0.arg(),
            a.1.arg(),
            self.counts.arg(),
            KernelArg::U32(nth as u32),
            KernelArg::U32(glog),
            KernelArg::U32(slog),
            KernelArg::U32(wide),
            KernelArg::U32(self.fresh as u32),
        ];
        // SAFETY: msm_G_bucket_sums(inR, outR, outT, counts, nthreads, glog, slog, wide, fresh):
        // thread t < nth reads buckets [t·2^glog, (t+1)·2^glog) (nth·2^glog = nwin·nb buckets,
        // 2^slog segments per window) unless its segment is one the narrow windows leave empty
        // (with fresh: only those whose count in counts[0..buckets()) is not 0), and writes slot t
        // of outR and outT.
        unsafe { self.launch(&self.kernel("bucket_sums"), ec_grid(nth), EC_BLOCK, &args)? };
        let mut llog = glog;
        while segs > 1 {
            let gl = segs.trailing_zeros().min(5);
            segs >>= gl;
            nth = p.nwin as usize * segs;
            let args = [
                a.0.arg(),
                a.1.arg(),
                b.0.arg(),
                b.1.arg(),
                KernelArg::U32(nth as u32),
                KernelArg::U32(gl),
                KernelArg::U32(llog),
            ];
            // SAFETY: msm_G_segment_sums: thread t < nth reads segments [t·2^gl, (t+1)·2^gl) of the
            // previous level (nth·2^gl of them) and writes slot t of outR and outT (both hold the
            // first level's count, the largest).
            unsafe { self.launch(&self.kernel("segment_sums"), ec_grid(nth), EC_BLOCK, &args)? };
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
fn horner<G: Group>(sums: &[G::Jac], p: &Plan) -> G::Jac {
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

/// Device time between phase marks (CUDA events), printed to stderr when FILSNARK_MSM_PHASES is set.
struct Phases {
    on: bool,
    ctx: std::sync::Arc<crate::gpu::Context>,
    stream: std::sync::Arc<crate::gpu::Stream>,
    marks: Vec<(&'static str, Event)>,
}

impl Phases {
    fn new(gpu: &Gpu) -> Result<Phases> {
        let mut p = Phases {
            on: std::env::var_os("FILSNARK_MSM_PHASES").is_some(),
            ctx: gpu.ctx.clone(),
            stream: gpu.stream.clone(),
            marks: Vec::new(),
        };
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

    fn report(&self, group: &str, plan: &Plan) -> Result<()> {
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
        let parts: Vec<String> = sums.iter().map(|(n, ms)| format!("{n} {ms:.2}")).collect();
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
