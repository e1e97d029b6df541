"""Multi-scalar multiplication (Pippenger) kernels, one generator for G1 and G2.

Data (all u32 words): scalars Fr in Montgomery form (8 words); affine points as
written by the srs kernels ((0,0) = infinity); XYZZ buckets (infinity: ZZ = 0,
all-zero words used).

Pipeline per chunk of m points (host: src/gpu/msm/):
  msm_count_dense  how many scalars are neither 0 nor 1 (sizes the window c).
  msm_digits       one thread per scalar: canonical form (fr_from_mont), 0/1
                   classification, the signed digits of every window in one
                   carry chain (msm_digit; the lowest `wide` windows c bits,
                   the rest c-1, 256 bits in all). Scalars equal to 1 are one
                   more pseudo-window, row nwin, with the single bucket NB:
                   the batch addition is the sum of that bucket.
  msm_bitmap_sort  the batch addition's whole sort (bitmap of selected points,
                   no digits): each set bit straight into the sorted list.
  msm_ranks        per window row (a group of rows per launch): every
                   non-zero digit takes a rank in its bucket from a
                   warp-aggregated atomic histogram (match.any: one atomic per
                   distinct bucket in a warp).
  msm_scan_*       exclusive scan of the bucket counts (tiles of 2048, block
                   Hillis-Steele scans in shared memory) -> bucket offsets.
  msm_scatter      counting-sort scatter: (bucket id, point index | sign<<31)
                   at offset[bucket] + rank, so every bucket is a contiguous run.
  msm_G_accumulate balanced bucket accumulation: thread t sums the T entries
                   [tT, tT+T) of the sorted list (mixed additions), whatever
                   buckets they belong to. A run that starts in the thread's
                   range is added into its bucket in place (the bucket persists
                   across chunks), or overwrites it when the MSM is one chunk
                   (`fresh`: the buckets are then never cleared); the first run,
                   when it started in an earlier thread's range, goes to the
                   thread's partial record instead.
  msm_G_reduce_runs the partial records form runs of the same bucket again
                   (records of one bucket are consecutive); the same scheme
                   with full additions over T2 records per thread, level after
                   level, until one thread covers all records.
  msm_G_bucket_sums, msm_G_segment_sums
                   per window sum_b (b+1) B_b (with `fresh`, a bucket whose
                   count is 0 is infinity, not read): segments of G buckets with a
                   running sum (run += B_j, tot += run from the top), then
                   segments of segments: T = sum_j T_j + L * sum_{j>=1} sum_{k>=j} R_k
                   (L = buckets per input segment, a power of two: doublings).
  (host)           Horner over windows, sum_w 2^(o_w) W_w (o_w: the widths below w),
                   plus the ones bucket: ~255 doublings in a row, which one GPU thread
                   took ~2 ms for and the CPU does in well under one.
G1 keeps points in registers and calls g1_madd/g1_add/g1_dbl (Fp inlined in
them); G2 works through memory operands (g2_*_m) on the buckets and records
in place, as its registers do not hold two points.
"""
from ir import Fn
from ff import FP
from iface import Kernel, div_ceil, ne
from rust import export
from msm_emit import elem, ld, st, ldv, stv, zero_slot, zeros, setp, bra, count_loop
# re-exported for simtest_msm: the sort part's kernels and constants
from msm_sort import NONE, SCAN_B, SCAN_TILE, SH, digit_func, sort_fragment, sort_decls  # noqa: F401

# ---------------------------------------------------------------------------
# group facades: G1 in registers (.func calls), G2 through memory operands

class G1Ops:
    name, W = "g1", 12
    generic = False
    aff_bytes, xyzz_bytes = 96, 192

    def neg_y(self, f, pt, neg):
        """pt: 24 registers (x, y); y <- -y where neg."""
        y = pt[12:]
        ny = f.ts(12)
        FP.emit_neg(f, ny, y)
        for i in range(12):
            f.op("selp.b32", y[i], ny[i], y[i], neg)


class G2Ops:
    name, W = "g2", 24
    generic = True
    aff_bytes, xyzz_bytes = 192, 384


# ---------------------------------------------------------------------------
# scalar digits


# ---------------------------------------------------------------------------
# balanced accumulation: level 1 (mixed additions of points) and the run
# reduction levels (full additions of partial records)

class Ctx:
    """Kernel parameters and the values derived from them, (re)emitted into the
    same registers. G2 calls need nearly all 255 registers (g2_add_m alone
    uses 244), so around them a kernel keeps nothing live: `spill` registers
    are parked in this thread's slot of shared memory, everything else is
    re-derived from the parameters and the thread index after the call."""

    def __init__(self, f, G, ptrs, u32s, derive=None):
        self.f, self.G, self.ptrs, self.u32s, self.derive = f, G, ptrs, u32s, derive
        self.r = {nm: f.t("a") for nm in ptrs}
        self.r.update({nm: f.t() for nm in u32s})
        self.t = f.t()
        self.spill = []
        self.emit()

    def emit(self):
        f = self.f
        for nm in self.ptrs:
            f.op("ld.param.u64", self.r[nm], f"[{nm}]")
            if not self.G.generic:
                f.op("cvta.to.global.u64", self.r[nm], self.r[nm])
        for nm in self.u32s:
            f.op("ld.param.u32", self.r[nm], f"[{nm}]")
        f.global_index(into=self.t)
        if self.derive:
            self.derive(self)

    def __getitem__(self, k):
        return self.r[k]

    def slot(self):
        f = self.f
        base, tid, a = f.t(), f.t(), f.t()
        f.op("mov.u32", base, SPILL)
        f.op("mov.u32", tid, "%tid.x")
        f.op("mad.lo.u32", a, tid, 4 * SPILL_WORDS, base)
        return a

    def call(self, name, args):
        """call name(args) (G2 memory-operand functions: no outputs)."""
        f = self.f
        if not self.G.generic:
            f.op("call", name, [], args)
            return
        a, k = self.slot(), 0
        for r in self.spill:
            if r.startswith("%p"):
                x = f.t()
                f.op("selp.b32", x, 1, 0, r)
                st(f, a, x, 4 * k, sp="shared.")
                k += 1
            elif r.startswith("%a"):
                f.op("st.shared.u64", f"[{a}+{4 * k}]", r)
                k += 2
            else:
                st(f, a, r, 4 * k, sp="shared.")
                k += 1
        assert k <= SPILL_WORDS
        f.op("call", name, [], args)
        self.emit()
        a, k = self.slot(), 0
        for r in self.spill:
            if r.startswith("%p"):
                x = ld(f, a, 4 * k, sp="shared.")
                f.op("setp.ne.u32", r, x, 0)
                k += 1
            elif r.startswith("%a"):
                f.op("ld.shared.u64", r, f"[{a}+{4 * k}]")
                k += 2
            else:
                ld(f, a, 4 * k, sp="shared.", dst=r)
                k += 1


SPILL = "msm_spill"
SPILL_WORDS = 8
EC_BLOCK = 64  # threads per block of the curve kernels (the G2 spill area holds EC_BLOCK slots)
export("msm", "EC_BLOCK", EC_BLOCK, "Most threads per block of the curve kernels (G2 keeps one spill slot per thread\n"
       "in shared memory, EC_BLOCK slots).")


def group_consts(k, G):
    """The point sizes of group G as constants of a curve kernel, and its block rule."""
    xyzz = k.const("XYZZ_WORDS", G.xyzz_bytes // 4, "u32 words per XYZZ point.")
    k.block_rule(k.block_v <= EC_BLOCK, "at most EC_BLOCK threads per block (G2's shared spill slots)")
    return xyzz


def thread_ranges(k, N, T):
    """Thread t sums items [tT, tT+T) of N: the threads past ceil(N/T) return at once, so no
    index may wrap."""
    k.require(T >= 1, "at least one item per thread")
    k.require(k.grid_x * k.block_v * T <= 1 << 32, "item indices tT stay below 2^32")


def segmented_sum(G, level1):
    """Thread t sums the items [tT, min(tT+T, N)). Level 1: ids and items are the two words
    of the sorted (bucket, entry) pairs. Runs (equal ids) starting in the
    range accumulate into their bucket in place; the first run, if it started
    before the range (ids[tT-1] == its id), into out_pts[t] with out_ids[t] = id,
    else out_ids[t] = NONE. Level 1: items are sorted entries (point index |
    sign<<31) added with madd; later levels: XYZZ records with full adds, and
    runs of id NONE are skipped. Level 1 with fresh != 0 (the only chunk, buckets
    not cleared): a run that starts in the range overwrites its bucket instead of
    adding to it, so every bucket with entries is written before it is read."""
    g = G.name
    nm = f"msm_{g}_accumulate" if level1 else f"msm_{g}_reduce_runs"
    doc = (f"{nm}: " + ("level 1 of the balanced bucket accumulation: sorted entries -> buckets / partials"
                        if level1 else "one level of the partial-record reduction: records -> buckets / partials")
           + "\n" + segmented_sum.__doc__)
    ps = ["ids", "items", "points", "buckets", "out_ids", "out_pts", "scratch"]
    us = ["N", "T"] + (["fresh"] if level1 else [])
    k = Kernel(nm, sig="MsmAccumulate" if level1 else "MsmReduceRuns", field="accumulate" if level1 else "reduce_runs",
               doc=doc)
    vs = k.u32s(*us)
    N, T = vs[0], vs[1]
    xyzz = group_consts(k, G)
    nrec = div_ceil(N, T)
    if level1:
        aff = k.const("SCRATCH_WORDS", G.aff_bytes // 4 if G.generic else 0,
                      "u32 words of scratch per thread (G2: one negated affine point; G1: none).")
        k.buffer("ids", "u32", 2 * N - 1, "reads", "Bucket ids: word 0 of the group's sorted (bucket, entry) pairs.")
        k.buffer("items", "u32", 2 * N - 1, "reads", "Entries (point index | sign << 31): word 1 of the same pairs.")
        k.buffer("points", "u32", 0, "reads", "The chunk's affine points, as the entries index them.", align=16,
                 data=True)
        k.buffer("buckets", "u32", 0, "reads and writes", "The XYZZ buckets, as the ids index them.", align=16,
                 data=True)
    else:
        k.buffer("ids", "u32", N, "reads", "The previous level's record ids (bucket, or NONE).")
        k.buffer("items", "u32", N * xyzz, "reads", "The previous level's XYZZ records.", align=16)
        k.buffer("points", "u32", 0, "unused", "Not read at these levels (any buffer).")
        k.buffer("buckets", "u32", 0, "reads and writes", "The XYZZ buckets, as the ids index them.", align=16,
                 data=True)
    k.buffer("out_ids", "u32", nrec, "writes", "Thread t's record id (bucket, or NONE).")
    k.buffer("out_pts", "u32", nrec * xyzz, "writes", "Thread t's XYZZ record.", align=16)
    if level1:
        k.buffer("scratch", "u32", nrec * aff, "writes", "Thread t's negated point (G2).", align=16)
    else:
        k.buffer("scratch", "u32", 0, "unused", "Not read at these levels (any buffer).")
    thread_ranges(k, N, T)
    if level1:
        k.trusts("ids and items hold the pairs msm_scatter or msm_bitmap_sort wrote for this chunk: every\n"
                 "bucket id below the buckets `buckets` holds, every point index below the points\n"
                 "`points` holds.")
    else:
        k.trusts("ids holds the record ids msm_*_accumulate or an earlier level wrote: each NONE or a\n"
                 "bucket below the buckets `buckets` holds.")
    f = k.fn(Fn)
    sp = "" if G.generic else "global."
    idb = 8 if level1 else 4  # level 1: ids and items interleaved, (bucket, entry) pairs
    lo, hi, g_, pos, out_id, prev = f.ts(6)
    sb, isnone = f.t("p"), f.t("p")  # current run started before the range; its id is NONE
    acc = f.t("a") if G.generic else f.ts(48)  # G2: address of the accumulator
    out_slot = f.t("a")

    def derive(c):
        f.op("mul.wide.u32", out_slot, c.t, G.xyzz_bytes)
        f.op("add.s64", out_slot, out_slot, c["out_pts"])
    a = Ctx(f, G, ps, us, derive)
    a.spill = [hi, pos, g_, out_id, sb]
    t = a.t
    end, fin = f.label("end"), f.label("fin")
    f.op("mul.lo.u32", lo, t, a["T"])
    bra(f, end, setp(f, "ge", lo, a["N"]))
    f.op("add.u32", hi, lo, a["T"])
    f.op("min.u32", hi, hi, a["N"])
    ld(f, elem(f, a["ids"], lo, idb), sp=sp, dst=g_)
    f.op("mov.b32", prev, NONE)
    p_lo = setp(f, "ne", lo, 0)
    ld(f, elem(f, a["ids"], lo, idb), off=-idb, sp=sp, pred=f"@{p_lo}", dst=prev)
    f.op("setp.eq.u32", sb, prev, g_)
    f.op("and.pred", sb, sb, p_lo)
    f.op("mov.b32", out_id, NONE)
    f.op("mov.u32", pos, lo)

    def run_acc():
        """G2: acc <- &buckets[g], or &out_pts[t] if the run started before."""
        f.op("setp.eq.u32", isnone, g_, NONE)
        if G.generic:
            f.op("mov.b64", acc, elem(f, a["buckets"], g_, G.xyzz_bytes))
            f.op("selp.b64", acc, out_slot, acc, sb)

    def start_run():
        """New run: G2 zeroes out_pts[t] if it started before (the bucket is
        accumulated in place), and with `fresh` the bucket too; G1 loads the
        bucket into acc, or infinity (started before, or `fresh`)."""
        run_acc()
        # skip: no old bucket words to keep (sb: the run goes to out_pts[t]; level 1 with
        # `fresh`: the chunk's first run into its buckets overwrites them)
        skip = sb
        if level1:
            skip = f.t("p")
            f.op("setp.ne.u32", skip, a["fresh"], 0)
            f.op("and.pred", skip, skip, setp(f, "ne", g_, NONE))
            f.op("or.pred", skip, skip, sb)
        if G.generic:
            Ld = f.label("rs")
            bra(f, Ld, skip, True)
            zero_slot(f, acc, 96)  # out_pts[t] if sb, else the bucket
            f.op("label", Ld)
        else:
            for r in acc:
                f.op("mov.b32", r, 0)
            p = f.t("p")
            f.op("or.pred", p, skip, isnone)
            ldv(f, elem(f, a["buckets"], g_, G.xyzz_bytes), 48, pred=f"@!{p}", dst=acc)

    def flush():
        """End of the current run: to out_pts[t] if it started before, else its bucket."""
        Ls = f.label("fl")
        bra(f, Ls, isnone)
        f.op("selp.b32", out_id, g_, out_id, sb)
        if not G.generic:
            Lf = f.label("fl")
            bra(f, Lf, sb)
            stv(f, elem(f, a["buckets"], g_, G.xyzz_bytes), acc)
            bra(f, Ls)
            f.op("label", Lf)
            stv(f, out_slot, acc)
        f.op("label", Ls)

    start_run()
    top = f.label("loop")
    f.op("label", top)
    if level1:
        e, pidx = f.t(), f.t()
        ld(f, elem(f, a["items"], pos, idb), sp=sp, dst=e)
        f.op("and.b32", pidx, e, 0x7FFFFFFF)
        sgn = setp(f, "gt", e, 0x7FFFFFFF)
        pp = elem(f, a["points"], pidx, G.aff_bytes)
        if G.generic:
            Lpos = f.label("pos")
            bra(f, Lpos, sgn, True)
            q = elem(f, a["scratch"], t, G.aff_bytes)
            x = ldv(f, pp, 48, sp="")
            for half in (24, 36):
                ny = f.ts(12)
                FP.emit_neg(f, ny, x[half:half + 12])
                for i in range(12):
                    f.op("mov.b32", x[half + i], ny[i])
            stv(f, q, x, sp="")
            f.op("mov.b64", pp, q)
            f.op("label", Lpos)
            f.op("call", "g2_madd_m", [], [acc, pp])
        else:
            P = ldv(f, pp, 24, nc=True)
            G1Ops().neg_y(f, P, sgn)
            f.op("call", "g1_madd", acc, acc + P)
    else:
        Lskip = f.label("skip")
        bra(f, Lskip, isnone)
        rp = elem(f, a["items"], pos, G.xyzz_bytes)
        if G.generic:
            a.call("g2_add_m", [acc, rp])
            run_acc()
        else:
            R = ldv(f, rp, 48)
            f.op("call", "g1_add", acc, acc + R)
        f.op("label", Lskip)
    f.op("add.u32", pos, pos, 1)
    bra(f, fin, setp(f, "eq", pos, hi))
    nid = ld(f, elem(f, a["ids"], pos, idb), sp=sp)
    bra(f, top, setp(f, "eq", nid, g_))
    flush()
    f.op("setp.ne.u32", sb, g_, g_)  # false
    f.op("mov.b32", g_, nid)
    start_run()
    bra(f, top)
    f.op("label", fin)
    flush()
    st(f, elem(f, a["out_ids"], t, 4), out_id, sp=sp)
    f.op("label", end)
    return f


# ---------------------------------------------------------------------------
# bucket reduction (sum_b (b+1) B_b per window) and window reduction

class Acc:
    """An XYZZ accumulator: G1 in registers, or (mem=True) in a memory slot that
    each operation loads and stores; G2 always in a memory slot, operated on in
    place by the g2_*_m functions (through ctx.call)."""

    def __init__(self, ctx, slot=None, mem=False):
        self.f, self.G, self.ctx, self.slot = ctx.f, ctx.G, ctx, slot
        self.mem = mem or self.G.generic
        if self.mem:
            zero_slot(self.f, slot(), 96 if self.G.generic else 48, "" if self.G.generic else "global.")
        else:
            self.r = zeros(self.f, 48)

    def _g1(self, name, out, ins):
        f = self.f
        if self.mem:
            a = self.slot()
            x = ldv(f, a, 48)
            f.op("call", name, x, x + ins)
            stv(f, a, x)
        else:
            f.op("call", name, self.r, self.r + ins)

    def add_mem(self, addr):
        if self.G.generic:
            self.ctx.call("g2_add_m", [self.slot(), addr()])
        else:
            self._g1("g1_add", None, ldv(self.f, addr(), 48))

    def add_acc(self, other):
        if self.G.generic:
            self.ctx.call("g2_add_m", [self.slot(), other.slot()])
        else:
            self._g1("g1_add", None, other.r)

    def dbl(self):
        if self.G.generic:
            self.ctx.call("g2_dbl_m", [self.slot()])
        else:
            self._g1("g1_dbl", None, [])

    def store(self):
        if not self.mem:
            stv(self.f, self.slot(), self.r)


def bucket_sums(G, first):
    g = G.name
    if first:
        nm = f"msm_{g}_bucket_sums"
        doc = (f"{nm}: thread t, buckets j of segment [t*2^glog, (t+1)*2^glog): run = sum_j B_j,\n"
               "tot = sum_j (j+1) B_j by a running sum from the top; outR[t] = run, outT[t] = tot.\n"
               "A window has 2^slog segments; the windows from `wide` on are c-1 bits wide, so the upper\n"
               "half of their buckets is empty: those segments write infinity without reading.\n"
               "fresh != 0: the buckets were not cleared, a bucket with counts[b] = 0 is infinity (not read).")
        ps, us = ["inR", "outR", "outT", "counts"], ["nthreads", "glog", "slog", "wide", "fresh"]
        k = Kernel(nm, sig="MsmBucketSums", field="bucket_sums", doc=doc)
        nth, glog, _, _, fresh = k.u32s(*us)
        xyzz = group_consts(k, G)
        k.buffer("inR", "u32", (nth << glog) * xyzz, "reads", "The buckets, 2^glog per thread.", align=16)
        k.buffer("outR", "u32", nth * xyzz, "writes", "Each thread's segment sum.", align=16)
        k.buffer("outT", "u32", nth * xyzz, "writes", "Each thread's weighted segment sum.", align=16)
        k.buffer("counts", "u32", nth << glog, "reads", "The buckets' entry counts (read with fresh only).",
                 when=ne(fresh, 0))
    else:
        nm = f"msm_{g}_segment_sums"
        doc = (f"{nm}: thread t combines segments j of [t*2^glog, (t+1)*2^glog), each of L = 2^llog buckets\n"
               "with (R_j, T_j) = (sum, weighted sum): outR = sum_j R_j,\n"
               "outT = sum_j T_j + L * sum_{j>=1} sum_{k>=j} R_k (running sum, then llog doublings).")
        ps, us = ["inR", "inT", "outR", "outT"], ["nthreads", "glog", "llog"]
        k = Kernel(nm, sig="MsmSegmentSums", field="segment_sums", doc=doc)
        nth, glog, _ = k.u32s(*us)
        xyzz = group_consts(k, G)
        k.buffer("inR", "u32", (nth << glog) * xyzz, "reads", "The previous level's sums, 2^glog per thread.",
                 align=16)
        k.buffer("inT", "u32", (nth << glog) * xyzz, "reads", "The previous level's weighted sums.", align=16)
        k.buffer("outR", "u32", nth * xyzz, "writes", "Each thread's sum.", align=16)
        k.buffer("outT", "u32", nth * xyzz, "writes", "Each thread's weighted sum.", align=16)
    k.require(glog <= 31, "segments of at most 2^31 buckets")
    k.require(nth << glog <= 1 << 32, "bucket indices fit 32 bits")
    f = k.fn(Fn)
    base = f.t()

    def derive(c):
        f.op("shl.b32", base, c.t, c["glog"])
    a = Ctx(f, G, ps, us, derive)
    t = a.t
    end = f.label("end")
    bra(f, end, setp(f, "ge", t, a["nthreads"]))
    at = lambda nm, i: (lambda: elem(f, a[nm], i, G.xyzz_bytes))  # noqa: E731
    if first:
        skip_empty_segment(f, a, at, end)
    j = f.t()
    a.spill = [j]
    run, tot = Acc(a, at("outR", t)), Acc(a, at("outT", t), mem=True)
    f.op("shl.b32", j, 1, a["glog"])
    f.op("sub.u32", j, j, 1)

    def idx(d):
        i = f.t()
        f.op("add.u32", i, base, j)
        if d:
            f.op("sub.u32", i, i, d)
        return i

    def add_bucket(i):
        """run += B_i; at the first level with `fresh`, only where bucket i has entries."""
        if not first:
            run.add_mem(lambda: elem(f, a["inR"], i, G.xyzz_bytes))
            return
        skip, cnt = f.label("eb"), f.t()
        f.op("mov.b32", cnt, 1)
        p = setp(f, "ne", a["fresh"], 0)
        ld(f, elem(f, a["counts"], i, 4), pred=f"@{p}", sp="" if G.generic else "global.", dst=cnt)
        bra(f, skip, setp(f, "eq", cnt, 0))
        run.add_mem(lambda: elem(f, a["inR"], i, G.xyzz_bytes))
        f.op("label", skip)

    def step():
        add_bucket(idx(0))
        tot.add_acc(run)
    count_loop(f, j, step)
    add_bucket(base)
    if first:
        tot.add_acc(run)
        run.store()
    else:
        run.store()
        f.op("mov.u32", j, a["llog"])
        count_loop(f, j, tot.dbl)
        f.op("shl.b32", j, 1, a["glog"])
        count_loop(f, j, lambda: tot.add_mem(lambda: elem(f, a["inT"], idx(1), G.xyzz_bytes)))
    tot.store()
    f.op("label", end)
    return f


def skip_empty_segment(f, a, at, end):
    """Thread t's segment is in window w = t >> slog, local index t & (2^slog - 1); where
    w >= wide and the index is in the upper half (slog >= 1), it is empty: infinity out, done."""
    w, loc, half = f.ts(3)
    f.op("shr.u32", w, a.t, a["slog"])
    f.op("shl.b32", half, 1, a["slog"])
    f.op("sub.u32", loc, half, 1)
    f.op("and.b32", loc, loc, a.t)
    f.op("shr.u32", half, half, 1)
    narrow, upper, split, empty = setp(f, "ge", w, a["wide"]), setp(f, "ge", loc, half), setp(f, "ne", half, 0), f.t("p")
    f.op("and.pred", empty, narrow, upper)
    f.op("and.pred", empty, empty, split)
    keep = f.label("keep")
    bra(f, keep, empty, True)
    words, sp = a.G.xyzz_bytes // 4, "" if a.G.generic else "global."
    zero_slot(f, at("outR", a.t)(), words, sp)
    zero_slot(f, at("outT", a.t)(), words, sp)
    bra(f, end)
    f.op("label", keep)


def group_fragment(G):
    return [segmented_sum(G, True), segmented_sum(G, False), bucket_sums(G, True), bucket_sums(G, False)]


def group_decls(G):
    return f".shared .align 8 .b32 {SPILL}[{EC_BLOCK * SPILL_WORDS}];\n" if G.generic else ""


G1 = G1Ops()
G2 = G2Ops()


def write_fragments(write):
    """Writes ptx/msm/*.ptxi through gen-ptx.py's write(rel, doc, fns, decls)."""
    head = __doc__.split("Pipeline")[0]
    write("msm/sort.ptxi", "MSM, group-independent part: scalar classification, signed digits, counting sort\n"
          "by bucket (warp-aggregated histogram, exclusive scan, scatter).\n" + __doc__, sort_fragment(), sort_decls())
    for G in (G1, G2):
        write(f"msm/{G.name}.ptxi", f"MSM over {G.name.upper()}: balanced bucket accumulation, run reduction, bucket and\n"
              "window reduction.\n" + head, group_fragment(G), group_decls(G))
