"""Multi-scalar multiplication (Pippenger) kernels, one generator for G1 and G2.

Data (all u32 words): scalars Fr in Montgomery form (8 words); affine points as
written by the srs kernels ((0,0) = infinity); XYZZ buckets (infinity: ZZ = 0,
all-zero words used).

Pipeline per chunk of m points (host: src/gpu/msm/):
  msm_count_dense  how many scalars are neither 0 nor 1 (sizes the window c).
  msm_digits       one thread per scalar: canonical form (fr_from_mont), 0/1
                   classification, signed c-bit digits (msm_digit); every
                   non-zero digit takes a rank in its bucket from a
                   warp-aggregated atomic histogram (match.any: one atomic per
                   distinct bucket in a warp). Scalars equal to 1 are one more
                   pseudo-window, row nwin, with the single bucket NB: the
                   batch addition is the sum of that bucket.
  msm_scan_*       exclusive scan of the bucket counts (tiles of 2048, block
                   Hillis-Steele scans in shared memory) -> bucket offsets.
  msm_scatter      counting-sort scatter: (bucket id, point index | sign<<31)
                   at offset[bucket] + rank, so every bucket is a contiguous run.
  msm_G_accumulate balanced bucket accumulation: thread t sums the T entries
                   [tT, tT+T) of the sorted list (mixed additions), whatever
                   buckets they belong to. A run that starts in the thread's
                   range is added into its bucket in place (the bucket persists
                   across chunks); the first run, when it started in an earlier
                   thread's range, goes to the thread's partial record instead.
  msm_G_reduce_runs the partial records form runs of the same bucket again
                   (records of one bucket are consecutive); the same scheme
                   with full additions over T2 records per thread, level after
                   level, until one thread covers all records.
  msm_G_bucket_sums, msm_G_segment_sums
                   per window sum_b (b+1) B_b: segments of G buckets with a
                   running sum (run += B_j, tot += run from the top), then
                   segments of segments: T = sum_j T_j + L * sum_{j>=1} sum_{k>=j} R_k
                   (L = buckets per input segment, a power of two: doublings).
  msm_G_windows    Horner over windows, sum_w 2^(c w) W_w, plus the ones bucket.
G1 keeps points in registers and calls g1_madd/g1_add/g1_dbl (Fp inlined in
them); G2 works through memory operands (g2_*_m) on the buckets and records
in place, as its registers do not hold two points.
"""
from ir import Fn
from ff import FP

NONE = 0xFFFFFFFF
SCAN_B = 256  # threads per scan block
SCAN_E = 8  # elements per thread in a scan tile
SCAN_TILE = SCAN_B * SCAN_E


# ---------------------------------------------------------------------------
# emission helpers (every op prints as PTX and runs in msm_sim.KSim)

def params(f, ptrs, u32s, generic=False):
    r = {}
    for nm in ptrs:
        a = f.t("a")
        f.op("ld.param.u64", a, f"[{nm}]")
        if not generic:
            f.op("cvta.to.global.u64", a, a)
        r[nm] = a
    for nm in u32s:
        x = f.t()
        f.op("ld.param.u32", x, f"[{nm}]")
        r[nm] = x
    return r


def gtid(f):
    ctaid, ntid, tid, idx = f.ts(4)
    f.op("mov.u32", ctaid, "%ctaid.x")
    f.op("mov.u32", ntid, "%ntid.x")
    f.op("mov.u32", tid, "%tid.x")
    f.op("mad.lo.u32", idx, ctaid, ntid, tid)
    return idx


def elem(f, base, idx, nbytes):
    """Address of element idx (u32 register) of nbytes each."""
    off, a = f.t("a"), f.t("a")
    f.op("mul.wide.u32", off, idx, nbytes)
    f.op("add.s64", a, base, off)
    return a


def ld(f, addr, off=0, sp="global.", pred=None, dst=None):
    d = dst or f.t()
    o = (f"ld.{sp}u32", d, f"[{addr}+{off}]")
    f.op(*((pred,) + o if pred else o))
    return d


def st(f, addr, val, off=0, sp="global.", pred=None):
    o = (f"st.{sp}u32", f"[{addr}+{off}]", val)
    f.op(*((pred,) + o if pred else o))


def ldv(f, addr, n, sp="global.", pred=None, dst=None, nc=False):
    """n words from addr (16-byte aligned) by v4 loads; sp "" = generic (ir's ld.v4.u32 form)."""
    r = dst or f.ts(n)
    for k in range(0, n, 4):
        if sp == "":
            o = ("ld.v4.u32", r[k:k + 4], addr, 4 * k)
        else:
            o = (f"ld.{sp}{'nc.' if nc else ''}v4.u32", "{" + ", ".join(r[k:k + 4]) + "}", f"[{addr}+{4 * k}]")
        f.op(*((pred,) + o if pred else o))
    return r


def stv(f, addr, regs, sp="global.", pred=None):
    for k in range(0, len(regs), 4):
        if sp == "":
            o = ("st.v4.u32", addr, 4 * k, regs[k:k + 4])
        else:
            o = (f"st.{sp}v4.u32", f"[{addr}+{4 * k}]", "{" + ", ".join(regs[k:k + 4]) + "}")
        f.op(*((pred,) + o if pred else o))


def zero_slot(f, addr, n, sp=""):
    """n words at addr set to 0 (an XYZZ point at infinity)."""
    z = zeros(f, 4)
    stv(f, addr, z * (n // 4), sp=sp)


def zeros(f, n):
    r = f.ts(n)
    for x in r:
        f.op("mov.b32", x, 0)
    return r


def setp(f, cmp, a, b):
    p = f.t("p")
    f.op(f"setp.{cmp}.u32", p, a, b)
    return p


def bra(f, lab, p=None, neg=False):
    f.op("bra", lab, p, neg)


def count_loop(f, ctr, body):
    """for ctr in (ctr .. 1], counting down; body(ctr) runs with ctr >= 1."""
    top, done = f.label("cl"), f.label("cl")
    bra(f, done, setp(f, "eq", ctr, 0))
    f.op("label", top)
    body()
    f.op("sub.u32", ctr, ctr, 1)
    bra(f, top, setp(f, "ne", ctr, 0))
    f.op("label", done)


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

def digit_func():
    """msm_digit(s0..s7, carry, c) -> (s >> c, carry', digit word).
    v = (s mod 2^c) + carry; v > 2^(c-1) -> digit v - 2^c (negative), carry 1.
    Digit word: |d| | sign << 31, or 0 when d = 0. Requires 1 <= c <= 31."""
    f = Fn("msm_digit", 10, 10, doc=digit_func.__doc__)
    s, carry, c = f.ins[:8], f.ins[8], f.ins[9]
    o = f.outs
    one_c, mask, half, v, neg, mag, sg, dw = f.ts(8)
    f.op("shl.b32", one_c, 1, c)
    f.op("sub.u32", mask, one_c, 1)
    f.op("shr.u32", half, one_c, 1)
    f.op("and.b32", v, s[0], mask)
    f.op("add.u32", v, v, carry)
    big = setp(f, "gt", v, half)
    f.op("sub.u32", neg, one_c, v)
    f.op("selp.b32", mag, neg, v, big)
    f.op("selp.b32", o[8], 1, 0, big)
    f.op("selp.b32", sg, 0x80000000, 0, big)
    f.op("or.b32", dw, mag, sg)
    z = setp(f, "eq", mag, 0)
    f.op("selp.b32", o[9], 0, dw, z)
    for i in range(7):
        f.op("shf.r.clamp.b32", o[i], s[i], s[i + 1], c)
    f.op("shr.u32", o[7], s[7], c)
    return f


def classify(f, s, valid):
    """Canonical s (8 regs); returns (dense, one) predicates for valid lanes."""
    z, o, pz, po = f.t(), f.t(), None, None
    f.op("or.b32", z, s[0], s[1])
    for r in s[2:]:
        f.op("or.b32", z, z, r)
    f.op("or.b32", o, s[1], s[2])
    for r in s[3:]:
        f.op("or.b32", o, o, r)
    pz = setp(f, "eq", z, 0)
    p_hi = setp(f, "eq", o, 0)
    p_lo = setp(f, "eq", s[0], 1)
    po = f.t("p")
    f.op("and.pred", po, p_hi, p_lo)
    dense, one, t = f.t("p"), f.t("p"), f.t("p")
    f.op("or.pred", t, pz, po)
    f.op("not.pred", t, t)
    f.op("and.pred", dense, t, valid)
    f.op("and.pred", one, po, valid)
    return dense, one


def load_canonical(f, scalars, idx, valid):
    s = zeros(f, 8)
    ldv(f, elem(f, scalars, idx, 32), 8, pred=f"@{valid}", dst=s)
    c = f.ts(8)
    f.op("call", "fr_from_mont", c, s)
    return c


def count_dense_kernel():
    f = Fn("msm_count_dense", entry=True, params=[("scalars", "u64"), ("counter", "u64"), ("n", "u32")],
           doc="msm_count_dense: *counter += number of scalars (Fr, Montgomery) i < n that are neither 0 nor 1.\n"
               "Warp ballot, one atomic per warp; every lane runs the ballot (no early exit).")
    a = params(f, ["scalars", "counter"], ["n"])
    idx = gtid(f)
    valid = setp(f, "lt", idx, a["n"])
    s = load_canonical(f, a["scalars"], idx, valid)
    dense, _ = classify(f, s, valid)
    b, cnt, lane = f.t(), f.t(), f.t()
    f.op("vote.sync.ballot.b32", b, dense, 0xFFFFFFFF)
    f.op("popc.b32", cnt, b)
    f.op("mov.u32", lane, "%laneid")
    p0, pn, p = setp(f, "eq", lane, 0), setp(f, "ne", cnt, 0), f.t("p")
    f.op("and.pred", p, p0, pn)
    f.op(f"@{p}", "red.global.add.u32", f"[{a['counter']}+0]", cnt)
    return f


def agg_rank(f, key, counts, lane, lt):
    """Rank of this lane's key among equal keys, from a warp-aggregated
    histogram: lanes with the same key (match.any) elect the highest lane,
    which adds the group size to counts[key] and broadcasts the old value.
    key = NONE: no atomic (rank undefined). All 32 lanes must run this."""
    mask, leader, cnt, base, below, rank, a = f.t(), f.t(), f.t(), f.t(), f.t(), f.t(), None
    f.op("match.any.sync.b32", mask, key, 0xFFFFFFFF)
    f.op("bfind.u32", leader, mask)
    f.op("popc.b32", cnt, mask)
    f.op("mov.b32", base, 0)
    pl, pv, p = setp(f, "eq", lane, leader), setp(f, "ne", key, NONE), f.t("p")
    f.op("and.pred", p, pl, pv)
    a = elem(f, counts, key, 4)
    f.op(f"@{p}", "atom.global.add.u32", base, f"[{a}+0]", cnt)
    f.op("shfl.sync.idx.b32", base, base, leader, 0x1F, 0xFFFFFFFF)
    f.op("and.b32", below, mask, lt)
    f.op("popc.b32", below, below)
    f.op("add.u32", rank, base, below)
    return rank


def digits_kernel():
    f = Fn("msm_digits", entry=True,
           params=[("scalars", "u64"), ("bitmap", "u64"), ("digits", "u64"), ("ranks", "u64"), ("counts", "u64"),
                   ("n", "u32"), ("c", "u32"), ("nwin", "u32"), ("stride", "u32")],
           doc="msm_digits: grid (x: scalar i < n, y: window w < max(nwin, 1)): digits[w*stride+i] = signed\n"
               "c-bit digit w of scalar i (|d| | sign<<31, 0 = skip; zero for scalars 0 and 1),\n"
               "ranks[w*stride+i] = its rank in bucket w*2^(c-1)+|d|-1 (counts[] is the histogram); grid row 0\n"
               "also writes row nwin: 1 for the scalars equal to 1 (bucket nwin*2^(c-1)).\n"
               "nwin = 0: batch-addition mode, row 0 = bit i of bitmap (no scalars).")
    a = params(f, ["scalars", "bitmap", "digits", "ranks", "counts"], ["n", "c", "nwin", "stride"])
    idx = gtid(f)
    lane, lt = f.t(), f.t()
    f.op("mov.u32", lane, "%laneid")
    f.op("mov.u32", lt, "%lanemask_lt")
    valid = setp(f, "lt", idx, a["n"])
    batch = setp(f, "eq", a["nwin"], 0)
    dense, one = f.t("p"), f.t("p")
    s = f.ts(8)
    Lbm, Lcls = f.label("bm"), f.label("cls")
    bra(f, Lbm, batch)
    c8 = load_canonical(f, a["scalars"], idx, valid)
    for d, x in zip(s, c8):
        f.op("mov.b32", d, x)
    dn, on = classify(f, s, valid)
    f.op("mov.pred", dense, dn)
    f.op("mov.pred", one, on)
    bra(f, Lcls)
    f.op("label", Lbm)
    w, bit, sh = f.t(), f.t(), f.t()
    f.op("mov.b32", w, 0)
    f.op("shr.u32", sh, idx, 5)
    ld(f, elem(f, a["bitmap"], sh, 4), pred=f"@{valid}", dst=w)
    f.op("and.b32", sh, idx, 31)
    f.op("shr.u32", bit, w, sh)
    f.op("and.b32", bit, bit, 1)
    pb = setp(f, "eq", bit, 1)
    f.op("and.pred", one, pb, valid)
    f.op("setp.ne.u32", dense, idx, idx)  # false
    for r in s:
        f.op("mov.b32", r, 0)
    f.op("label", Lcls)
    # ones row (row nwin, bucket NB = nwin << (c-1)): blocks of grid row 0
    wsel = f.t()
    f.op("mov.u32", wsel, "%ctaid.y")
    cm1, nbk, key, flag = f.t(), f.t(), f.t(), f.t()
    f.op("sub.u32", cm1, a["c"], 1)
    Lwin = f.label("win")
    bra(f, Lwin, setp(f, "ne", wsel, 0))
    f.op("shl.b32", nbk, a["nwin"], cm1)
    f.op("selp.b32", key, nbk, NONE, one)
    rank = agg_rank(f, key, a["counts"], lane, lt)
    row = f.t()
    f.op("mad.lo.u32", row, a["nwin"], a["stride"], idx)
    f.op("selp.b32", flag, 1, 0, one)
    st(f, elem(f, a["digits"], row, 4), flag, pred=f"@{valid}")
    st(f, elem(f, a["ranks"], row, 4), rank, pred=f"@{one}")
    f.op("label", Lwin)
    end = f.label("end")
    bra(f, end, batch)
    # window wsel = grid row: the digits below it give its carry. The blocks run row by row,
    # so the histogram atomics of one window at a time stay in L2.
    carry, wi, rowi = f.t(), f.t(), f.t()
    f.op("mov.b32", carry, 0)
    f.op("mov.b32", wi, 0)
    top, found = f.label("win"), f.label("win")
    res = f.ts(10)
    f.op("label", top)
    f.op("call", "msm_digit", res, s + [carry, a["c"]])
    for d, x in zip(s, res[:8]):
        f.op("mov.b32", d, x)
    f.op("mov.b32", carry, res[8])
    bra(f, found, setp(f, "eq", wi, wsel))
    f.op("add.u32", wi, wi, 1)
    bra(f, top)
    f.op("label", found)
    dw = f.t()
    f.op("selp.b32", dw, res[9], 0, dense)
    mag, k = f.t(), f.t()
    f.op("and.b32", mag, dw, 0x7FFFFFFF)
    f.op("shl.b32", k, wi, cm1)
    f.op("add.u32", k, k, mag)
    f.op("sub.u32", k, k, 1)
    nz = setp(f, "ne", dw, 0)
    f.op("selp.b32", k, k, NONE, nz)
    r = agg_rank(f, k, a["counts"], lane, lt)
    f.op("mad.lo.u32", rowi, wi, a["stride"], idx)
    st(f, elem(f, a["digits"], rowi, 4), dw, pred=f"@{valid}")
    st(f, elem(f, a["ranks"], rowi, 4), r, pred=f"@{nz}")
    f.op("label", end)
    return f


# ---------------------------------------------------------------------------
# exclusive scan of the bucket counts

SH = "msm_scan_sh"


def block_scan(f, v, t):
    """Exclusive prefix of v over the block's threads (SCAN_B), and the block total
    (Hillis-Steele in shared memory: read, barrier, write, barrier)."""
    sh = f.t()
    f.op("mov.u32", sh, SH)
    me = f.t()
    f.op("mad.lo.u32", me, t, 4, sh)
    st(f, me, v, sp="shared.")
    f.op("bar.sync", 0)
    acc = f.t()
    f.op("mov.b32", acc, v)
    d = 1
    while d < SCAN_B:
        x = f.t()
        f.op("mov.b32", x, 0)
        p = setp(f, "ge", t, d)
        ld(f, me, -4 * d, sp="shared.", pred=f"@{p}", dst=x)
        f.op("bar.sync", 0)
        f.op("add.u32", acc, acc, x)
        st(f, me, acc, sp="shared.")
        f.op("bar.sync", 0)
        d *= 2
    total, excl = f.t(), f.t()
    ld(f, sh, 4 * (SCAN_B - 1), sp="shared.", dst=total)
    f.op("sub.u32", excl, acc, v)
    return excl, total


def scan_kernels():
    K = []
    # tiles: sum of each tile of SCAN_TILE elements
    f = Fn("msm_scan_tiles", entry=True, params=[("counts", "u64"), ("sums", "u64"), ("k", "u32")],
           doc=f"msm_scan_tiles: sums[b] = sum of counts[b*{SCAN_TILE} .. +{SCAN_TILE}) (< k); blocks of {SCAN_B}")
    a = params(f, ["counts", "sums"], ["k"])
    b, t, base, s = f.ts(4)
    f.op("mov.u32", b, "%ctaid.x")
    f.op("mov.u32", t, "%tid.x")
    f.op("mad.lo.u32", base, b, SCAN_TILE, 0)
    f.op("mad.lo.u32", base, t, SCAN_E, base)
    f.op("mov.b32", s, 0)
    for j in range(SCAN_E):
        i, x = f.t(), f.t()
        f.op("add.u32", i, base, j)
        f.op("mov.b32", x, 0)
        ld(f, elem(f, a["counts"], i, 4), pred=f"@{setp(f, 'lt', i, a['k'])}", dst=x)
        f.op("add.u32", s, s, x)
    _, total = block_scan(f, s, t)
    st(f, elem(f, a["sums"], b, 4), total, pred=f"@{setp(f, 'eq', t, 0)}")
    K.append(f)
    # top: one block scans the tile sums
    f = Fn("msm_scan_top", entry=True, params=[("sums", "u64"), ("offs", "u64"), ("ntiles", "u32")],
           doc=f"msm_scan_top: offs[0..ntiles] = exclusive scan of sums[0..ntiles) (offs[ntiles] = total);\n"
               f"one block of {SCAN_B} threads, each a contiguous run of ceil(ntiles/{SCAN_B}) entries")
    a = params(f, ["sums", "offs"], ["ntiles"])
    t, per, lo, hi, s, i, x = f.ts(7)
    f.op("mov.u32", t, "%tid.x")
    f.op("add.u32", per, a["ntiles"], SCAN_B - 1)
    f.op("shr.u32", per, per, SCAN_B.bit_length() - 1)
    f.op("mul.lo.u32", lo, t, per)
    f.op("add.u32", hi, lo, per)
    f.op("min.u32", hi, hi, a["ntiles"])
    f.op("min.u32", lo, lo, hi)
    f.op("mov.b32", s, 0)

    def run_loop(body):
        top, done = f.label("st"), f.label("st")
        f.op("mov.b32", i, lo)
        bra(f, done, setp(f, "ge", i, hi))
        f.op("label", top)
        body()
        f.op("add.u32", i, i, 1)
        bra(f, top, setp(f, "lt", i, hi))
        f.op("label", done)

    def add_one():
        ld(f, elem(f, a["sums"], i, 4), dst=x)
        f.op("add.u32", s, s, x)
    run_loop(add_one)
    excl, total = block_scan(f, s, t)

    def write_one():
        ld(f, elem(f, a["sums"], i, 4), dst=x)
        st(f, elem(f, a["offs"], i, 4), excl)
        f.op("add.u32", excl, excl, x)
    run_loop(write_one)
    st(f, elem(f, a["offs"], a["ntiles"], 4), total, pred=f"@{setp(f, 'eq', t, 0)}")
    K.append(f)
    # apply: each tile rescanned, plus its offset
    f = Fn("msm_scan_apply", entry=True, params=[("counts", "u64"), ("offs", "u64"), ("out", "u64"), ("k", "u32")],
           doc=f"msm_scan_apply: out[i] = offs[tile] + exclusive scan of counts within the tile (i < k);\n"
               f"out[k] = offs[ntiles] (the total), written by block 0")
    a = params(f, ["counts", "offs", "out"], ["k"])
    b, t, base, s, nt = f.ts(5)
    f.op("mov.u32", b, "%ctaid.x")
    f.op("mov.u32", t, "%tid.x")
    f.op("mov.u32", nt, "%nctaid.x")
    f.op("mad.lo.u32", base, b, SCAN_TILE, 0)
    f.op("mad.lo.u32", base, t, SCAN_E, base)
    f.op("mov.b32", s, 0)
    xs, ps = [], []
    for j in range(SCAN_E):
        i, x = f.t(), f.t()
        f.op("add.u32", i, base, j)
        f.op("mov.b32", x, 0)
        p = setp(f, "lt", i, a["k"])
        ld(f, elem(f, a["counts"], i, 4), pred=f"@{p}", dst=x)
        f.op("add.u32", s, s, x)
        xs.append((i, x, p))
    excl, _ = block_scan(f, s, t)
    off = ld(f, elem(f, a["offs"], b, 4))
    f.op("add.u32", excl, excl, off)
    for i, x, p in xs:
        st(f, elem(f, a["out"], i, 4), excl, pred=f"@{p}")
        f.op("add.u32", excl, excl, x)
    p0, pb, pt = setp(f, "eq", b, 0), f.t("p"), setp(f, "eq", t, 0)
    f.op("and.pred", pb, p0, pt)
    tot = f.t()
    f.op("mov.b32", tot, 0)
    ld(f, elem(f, a["offs"], nt, 4), pred=f"@{pb}", dst=tot)
    st(f, elem(f, a["out"], a["k"], 4), tot, pred=f"@{pb}")
    K.append(f)
    return K


def scatter_kernel():
    f = Fn("msm_scatter", entry=True,
           params=[("digits", "u64"), ("ranks", "u64"), ("offsets", "u64"), ("sorted", "u64"),
                   ("n", "u32"), ("c", "u32"), ("nwin", "u32"), ("stride", "u32")],
           doc="msm_scatter: grid (x: point i < n, y: row 0..nwin): for a non-zero digit word dw,\n"
               "bucket b = row*2^(c-1) + |d| - 1 (row nwin: the ones bucket nwin*2^(c-1)),\n"
               "pos = offsets[b] + rank; sorted[pos] = (b, i | sign<<31), one 8-byte store (the\n"
               "stores are random: one sector each). Blocks run row by row, so the offsets read\n"
               "are those of one window at a time (L2-resident).")
    a = params(f, ["digits", "ranks", "offsets", "sorted"], ["n", "c", "nwin", "stride"])
    idx = gtid(f)
    rowy, row = f.t(), f.t()
    f.op("mov.u32", rowy, "%ctaid.y")
    end = f.label("end")
    bra(f, end, setp(f, "ge", idx, a["n"]))
    f.op("mad.lo.u32", row, rowy, a["stride"], idx)
    dw = ld(f, elem(f, a["digits"], row, 4))
    bra(f, end, setp(f, "eq", dw, 0))
    # (row nwin holds digit words 1, so the same formula gives the ones bucket nwin*2^(c-1))
    cm1, k, mag, sg, e = f.ts(5)
    f.op("sub.u32", cm1, a["c"], 1)
    f.op("and.b32", mag, dw, 0x7FFFFFFF)
    f.op("shl.b32", k, rowy, cm1)
    f.op("add.u32", k, k, mag)
    f.op("sub.u32", k, k, 1)
    rk = ld(f, elem(f, a["ranks"], row, 4))
    off = ld(f, elem(f, a["offsets"], k, 4))
    pos = f.t()
    f.op("add.u32", pos, off, rk)
    f.op("and.b32", sg, dw, 0x80000000)
    f.op("or.b32", e, idx, sg)
    f.op("st.global.v2.u32", f"[{elem(f, a['sorted'], pos, 8)}+0]", "{" + f"{k}, {e}" + "}")
    f.op("label", end)
    return f


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
        ctaid, ntid, tid = f.ts(3)
        f.op("mov.u32", ctaid, "%ctaid.x")
        f.op("mov.u32", ntid, "%ntid.x")
        f.op("mov.u32", tid, "%tid.x")
        f.op("mad.lo.u32", self.t, ctaid, ntid, tid)
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


def segmented_sum(G, level1):
    """Thread t sums the items [tT, min(tT+T, N)). Level 1: ids and items are the two words
    of the sorted (bucket, entry) pairs. Runs (equal ids) starting in the
    range accumulate into their bucket in place; the first run, if it started
    before the range (ids[tT-1] == its id), into out_pts[t] with out_ids[t] = id,
    else out_ids[t] = NONE. Level 1: items are sorted entries (point index |
    sign<<31) added with madd; later levels: XYZZ records with full adds, and
    runs of id NONE are skipped."""
    g = G.name
    nm = f"msm_{g}_accumulate" if level1 else f"msm_{g}_reduce_runs"
    doc = (f"{nm}: " + ("level 1 of the balanced bucket accumulation: sorted entries -> buckets / partials"
                        if level1 else "one level of the partial-record reduction: records -> buckets / partials")
           + "\n" + segmented_sum.__doc__)
    ps = ["ids", "items", "points", "buckets", "out_ids", "out_pts", "scratch"]
    f = Fn(nm, entry=True, params=[(p, "u64") for p in ps] + [("N", "u32"), ("T", "u32")], doc=doc)
    sp = "" if G.generic else "global."
    idb = 8 if level1 else 4  # level 1: ids and items interleaved, (bucket, entry) pairs
    lo, hi, g_, pos, out_id, prev = f.ts(6)
    sb, isnone = f.t("p"), f.t("p")  # current run started before the range; its id is NONE
    acc = f.t("a") if G.generic else f.ts(48)  # G2: address of the accumulator
    out_slot = f.t("a")

    def derive(c):
        f.op("mul.wide.u32", out_slot, c.t, G.xyzz_bytes)
        f.op("add.s64", out_slot, out_slot, c["out_pts"])
    a = Ctx(f, G, ps, ["N", "T"], derive)
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
        accumulated in place); G1 loads the bucket (or infinity) into acc."""
        run_acc()
        if G.generic:
            Ld = f.label("rs")
            bra(f, Ld, sb, True)
            zero_slot(f, out_slot, 96)
            f.op("label", Ld)
        else:
            for r in acc:
                f.op("mov.b32", r, 0)
            p = f.t("p")
            f.op("or.pred", p, sb, isnone)
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
               "tot = sum_j (j+1) B_j by a running sum from the top; outR[t] = run, outT[t] = tot.")
        ps, us = ["inR", "outR", "outT"], ["nthreads", "glog"]
    else:
        nm = f"msm_{g}_segment_sums"
        doc = (f"{nm}: thread t combines segments j of [t*2^glog, (t+1)*2^glog), each of L = 2^llog buckets\n"
               "with (R_j, T_j) = (sum, weighted sum): outR = sum_j R_j,\n"
               "outT = sum_j T_j + L * sum_{j>=1} sum_{k>=j} R_k (running sum, then llog doublings).")
        ps, us = ["inR", "inT", "outR", "outT"], ["nthreads", "glog", "llog"]
    f = Fn(nm, entry=True, params=[(p, "u64") for p in ps] + [(u, "u32") for u in us], doc=doc)
    base = f.t()

    def derive(c):
        f.op("shl.b32", base, c.t, c["glog"])
    a = Ctx(f, G, ps, us, derive)
    t = a.t
    end = f.label("end")
    bra(f, end, setp(f, "ge", t, a["nthreads"]))
    j = f.t()
    a.spill = [j]
    at = lambda nm, i: (lambda: elem(f, a[nm], i, G.xyzz_bytes))  # noqa: E731
    run, tot = Acc(a, at("outR", t)), Acc(a, at("outT", t), mem=True)
    f.op("shl.b32", j, 1, a["glog"])
    f.op("sub.u32", j, j, 1)

    def idx(d):
        i = f.t()
        f.op("add.u32", i, base, j)
        if d:
            f.op("sub.u32", i, i, d)
        return i

    def step():
        run.add_mem(lambda: elem(f, a["inR"], idx(0), G.xyzz_bytes))
        tot.add_acc(run)
    count_loop(f, j, step)
    run.add_mem(at("inR", base))
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


def windows_kernel(G):
    g = G.name
    nm = f"msm_{g}_windows"
    f = Fn(nm, entry=True, params=[("W", "u64"), ("ones", "u64"), ("out", "u64"), ("nwin", "u32"), ("c", "u32")],
           doc=f"{nm}: one thread: out = sum_w 2^(c*w) W[w] (Horner from the top window) + *ones")
    a = Ctx(f, G, ["W", "ones", "out"], ["nwin", "c"])
    end = f.label("end")
    bra(f, end, setp(f, "ne", a.t, 0))
    res = Acc(a, lambda: a["out"])
    w, k = f.t(), f.t()
    a.spill = [w, k]
    f.op("mov.u32", w, a["nwin"])
    f.op("mov.u32", k, 0)

    def step():
        i = f.t()
        f.op("sub.u32", i, w, 1)
        res.add_mem(lambda: elem(f, a["W"], i, G.xyzz_bytes))
        Ld = f.label("w")
        f.op("sub.u32", i, w, 1)
        bra(f, Ld, setp(f, "eq", i, 0))
        f.op("mov.u32", k, a["c"])
        count_loop(f, k, res.dbl)
        f.op("label", Ld)
    count_loop(f, w, step)
    res.add_mem(lambda: a["ones"])
    res.store()
    f.op("label", end)
    return f


def sort_fragment():
    """Group-independent kernels (digits, scan, scatter) and their .func."""
    return [digit_func(), count_dense_kernel(), digits_kernel()] + scan_kernels() + [scatter_kernel()]


def sort_decls():
    return f".shared .align 4 .b32 {SH}[{SCAN_B}];\n"


def group_fragment(G):
    return [segmented_sum(G, True), segmented_sum(G, False), bucket_sums(G, True), bucket_sums(G, False),
            windows_kernel(G)]


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
