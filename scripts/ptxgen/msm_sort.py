"""MSM, group-independent kernels: scalar classification, signed digits with
warp-aggregated bucket ranks, exclusive scan of the bucket counts, counting-sort
scatter (see msm.py for the whole pipeline)."""
from ir import Fn
from ff import FR, limbs
from iface import FREE, Kernel, div_ceil, eq, where
from msm_emit import params, gtid, elem, ld, st, ldv, zeros, setp, bra
from rust import export

NONE = 0xFFFFFFFF
SCAN_B = 256  # threads per scan block
SCAN_E = 8  # elements per thread in a scan tile
SCAN_TILE = SCAN_B * SCAN_E
SORT_U = 4  # elements per step of the grid-stride loops of msm_ranks and msm_scatter
export("msm", "SCAN_BLOCK", SCAN_B, "Threads per block of the scan kernels (fixed by their launchers).")
export("msm", "SCAN_TILE", SCAN_TILE, "Bucket counts per scan tile: msm_scan_tiles and msm_scan_apply run one block per tile.")

# Digit words and the buckets they name (see digits_kernel): rows 0..nwin-1 hold signed digits
# |d| <= 2^(c-1) of bucket row*2^(c-1) + |d| - 1, row nwin the scalars equal to 1 (bucket
# nwin*2^(c-1)): a row's buckets lie below (row + 1)*2^(c-1).
DIGIT_TRUST = ("every non-zero digit word of the rows read was written by msm_digits with the same c "
               "(|d| <= 2^(c-1), the ones row 1)")


def warp_blocks(k):
    k.block_rule(eq(k.block_v & 31, 0), "blocks are whole warps (full-mask warp collectives)")


def digit_func():
    """msm_digit(s0..s7, carry, c) -> (s >> c, carry', digit word).
    v = (s mod 2^c) + carry; v > 2^(c-1) -> digit v - 2^c (negative), carry 1.
    Digit word: |d| | sign << 31, or 0 when d = 0. Requires 1 <= c <= 31."""
    f = Fn("msm_digit", 10, 10, doc=digit_func.__doc__)
    emit_digit(f, f.outs, f.ins[:8], f.ins[8], f.ins[9])
    return f


def emit_digit(f, o, s, carry, c):
    """The body of msm_digit, emitted into f (c a register or an immediate): o[0..7] = s >> c,
    o[8] = carry', o[9] = digit word (see digit_func). Also used inline by the fixed-base kernels."""
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


ONE = limbs(1, 8)  # the scalar 1, canonical
ONE_MONT = limbs((1 << 256) % FR.mod, 8)  # the scalar 1 in Montgomery form (0 is 0 in both)


def classify(f, s, valid, one_words=ONE):
    """s (8 regs) against 0 and against the scalar 1 written as `one_words` (ONE for canonical
    words, ONE_MONT for Montgomery words < r, which need no conversion); returns the (dense, one)
    predicates for valid lanes: dense = neither 0 nor 1."""
    z, d = f.t(), f.t()
    f.op("or.b32", z, s[0], s[1])
    for r in s[2:]:
        f.op("or.b32", z, z, r)
    f.op("xor.b32", d, s[0], one_words[0])
    for r, w in zip(s[1:], one_words[1:]):
        x = r
        if w:
            x = f.t()
            f.op("xor.b32", x, r, w)
        f.op("or.b32", d, d, x)
    pz, po = setp(f, "eq", z, 0), setp(f, "eq", d, 0)
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
    k = Kernel("msm_count_dense", sig="MsmCountDense", field="count_dense",
               doc="msm_count_dense: *counter += number of scalars (Fr, Montgomery) i < n that are neither 0 nor 1.\n"
                   "Compared in Montgomery form (no conversion: a pure read of the scalars). Grid-stride loop\n"
                   "(blocks of a multiple of 32 threads; any grid), a warp ballot per step, one atomic per warp\n"
                   "at the end: one per 32 scalars (2^21 on one word at 2^26) serialised in L2 for ~2 ms.")
    n = k.u32s("n")
    k.buffer("scalars", "u32", 8 * n, "reads", "The scalars i < n, 8 Montgomery words each.", align=16)
    k.buffer("counter", "u32", 1, "atomics on", "The count, added to.")
    warp_blocks(k)
    k.require(n + k.grid_x * k.block_v <= 1 << 32, "the grid-stride index stays below 2^32")
    f = k.fn(Fn)
    a = params(f, ["scalars", "counter"], ["n"])
    idx = gtid(f)
    lane, nct, ntid, stride, base, acc, b, cnt = f.ts(8)
    f.op("mov.u32", lane, "%laneid")
    f.op("mov.u32", nct, "%nctaid.x")
    f.op("mov.u32", ntid, "%ntid.x")
    f.op("mul.lo.u32", stride, nct, ntid)
    f.op("sub.u32", base, idx, lane)  # the warp's first scalar: the loop is warp-uniform
    f.op("mov.b32", acc, 0)
    top, done = f.label("cd"), f.label("cd")
    bra(f, done, setp(f, "ge", base, a["n"]))
    f.op("label", top)
    valid = setp(f, "lt", idx, a["n"])
    s = zeros(f, 8)
    ldv(f, elem(f, a["scalars"], idx, 32), 8, pred=f"@{valid}", dst=s)
    dense, _ = classify(f, s, valid, ONE_MONT)
    f.op("vote.sync.ballot.b32", b, dense, 0xFFFFFFFF)
    f.op("popc.b32", cnt, b)
    f.op("add.u32", acc, acc, cnt)
    f.op("add.u32", idx, idx, stride)
    f.op("add.u32", base, base, stride)
    bra(f, top, setp(f, "lt", base, a["n"]))
    f.op("label", done)
    p0, pn, p = setp(f, "eq", lane, 0), setp(f, "ne", acc, 0), f.t("p")
    f.op("and.pred", p, p0, pn)
    f.op(f"@{p}", "red.global.add.u32", f"[{a['counter']}+0]", acc)
    return f


def agg_rank(f, key, counts, lane, lt):
    """Rank of this lane's key among equal keys, from a warp-aggregated
    histogram: lanes with the same key (match.any) elect the highest lane,
    which adds the group size to counts[key] and broadcasts the old value.
    key = NONE: no atomic (rank undefined). All 32 lanes must run this."""
    return agg_ranks(f, [key], counts, lane, lt)[0]


def agg_ranks(f, keys, counts, lane, lt):
    """agg_rank of several keys per lane, phase by phase (every match, then every
    atomic, then every broadcast) so that the atomics of the keys are in flight together.
    Keys of different slots take separate atomics (ranks stay distinct whatever the order)."""
    ms = []
    for key in keys:
        mask = f.t()
        f.op("match.any.sync.b32", mask, key, 0xFFFFFFFF)
        ms.append(mask)
    bases = []
    for key, mask in zip(keys, ms):
        leader, cnt, base = f.t(), f.t(), f.t()
        f.op("bfind.u32", leader, mask)
        f.op("popc.b32", cnt, mask)
        f.op("mov.b32", base, 0)
        pl, pv, p = setp(f, "eq", lane, leader), setp(f, "ne", key, NONE), f.t("p")
        f.op("and.pred", p, pl, pv)
        a = elem(f, counts, key, 4)
        f.op(f"@{p}", "atom.global.add.u32", base, f"[{a}+0]", cnt)
        bases.append((base, leader))
    ranks = []
    for mask, (base, leader) in zip(ms, bases):
        below, rank = f.t(), f.t()
        f.op("shfl.sync.idx.b32", base, base, leader, 0x1F, 0xFFFFFFFF)
        f.op("and.b32", below, mask, lt)
        f.op("popc.b32", below, below)
        f.op("add.u32", rank, base, below)
        ranks.append(rank)
    return ranks


def grid_stride(f, n, u):
    """(gs, lim): the grid's threads along x (nctaid.x * ntid.x) and the bound below which an
    element i may start a u-element step (i, i + gs, .., i + (u-1)gs all < n): lim = n - (u-1)gs,
    or 0 when that is not positive. Needs (u-1)gs < 2^32 (the host launches at most n threads)."""
    nct, ntid, gs, t, lim = f.ts(5)
    f.op("mov.u32", nct, "%nctaid.x")
    f.op("mov.u32", ntid, "%ntid.x")
    f.op("mul.lo.u32", gs, nct, ntid)
    f.op("mul.lo.u32", t, gs, u - 1)
    f.op("sub.u32", lim, n, t)
    f.op("selp.b32", lim, lim, 0, setp(f, "gt", n, t))
    return gs, lim


def strided_loops(f, idx, gs, lim, n, u, body, cursor=None):
    """Grid-stride loop over the elements idx, idx + gs, ... < n: steps of u elements
    (idx + j*gs, j < u, all below n: body(list of u element registers)) while cursor < lim, then
    steps of one (body([idx])) while cursor < n. cursor (default idx) is the register the
    bounds test: idx itself, or the warp's first element for a warp-uniform loop (collectives
    in the body; body then guards its lanes past n). Advances idx (and cursor) in place."""
    cur = cursor or idx
    step = f.t()
    f.op("mul.lo.u32", step, gs, u)

    def loop(k, bound, stp):
        top, done = f.label("gs"), f.label("gs")
        bra(f, done, setp(f, "ge", cur, bound))
        f.op("label", top)
        els = [idx]
        for _ in range(1, k):
            e = f.t()
            f.op("add.u32", e, els[-1], gs)
            els.append(e)
        body(els)
        f.op("add.u32", idx, idx, stp)
        if cursor:
            f.op("add.u32", cursor, cursor, stp)
        bra(f, top, setp(f, "lt", cur, bound))
        f.op("label", done)
    if u > 1:
        loop(u, lim, step)
    loop(1, n, gs)


def digits_kernel():
    k = Kernel("msm_digits", sig="MsmDigits", field="digits",
               doc="msm_digits: one thread per scalar i < n: digits[w*stride+i] = signed digit w of scalar i\n"
                   "for every window w < nwin (|d| | sign<<31, 0 = skip; zero for scalars 0 and 1), windows\n"
                   "w < wide of c bits and the rest of c-1 (|d| <= 2^(c-1) either way); row nwin: 1 for the\n"
                   "scalars equal to 1 (the ones bucket nwin*2^(c-1)). One canonical conversion and one\n"
                   "carry chain per scalar.")
    n, c, nwin, stride, wide = k.u32s("n", "c", "nwin", "stride", "wide")
    k.buffer("scalars", "u32", 8 * n, "reads", "The scalars i < n, 8 Montgomery words each.", align=16)
    k.buffer("digits", "u32", nwin * stride + n, "writes", "Rows 0..=nwin of n digit words, `stride` apart.")
    k.require(nwin * stride + n <= 1 << 32, "digit indices fit 32 bits")
    f = k.fn(Fn)
    a = params(f, ["scalars", "digits"], ["n", "c", "nwin", "stride", "wide"])
    idx = gtid(f)
    valid = setp(f, "lt", idx, a["n"])
    end = f.label("end")
    bra(f, end, valid, True)
    s = load_canonical(f, a["scalars"], idx, valid)
    dense, one = classify(f, s, valid)
    flag, row = f.t(), f.t()
    f.op("selp.b32", flag, 1, 0, one)
    f.op("mad.lo.u32", row, a["nwin"], a["stride"], idx)
    st(f, elem(f, a["digits"], row, 4), flag)
    # windows 0..nwin-1, each from the carry of the one below
    carry, w, cw, narrow = f.t(), f.t(), f.t(), f.t()
    f.op("mov.b32", carry, 0)
    f.op("mov.b32", w, 0)
    f.op("sub.u32", narrow, a["c"], 1)
    top = f.label("win")
    res = f.ts(10)
    f.op("label", top)
    f.op("selp.b32", cw, a["c"], narrow, setp(f, "lt", w, a["wide"]))
    f.op("call", "msm_digit", res, s + [carry, cw])
    for d, x in zip(s, res[:8]):
        f.op("mov.b32", d, x)
    f.op("mov.b32", carry, res[8])
    dw = f.t()
    f.op("selp.b32", dw, res[9], 0, dense)
    f.op("mad.lo.u32", row, w, a["stride"], idx)
    st(f, elem(f, a["digits"], row, 4), dw)
    f.op("add.u32", w, w, 1)
    bra(f, top, setp(f, "lt", w, a["nwin"]))
    f.op("label", end)
    return f


def bitmap_sort_kernel():
    k = Kernel("msm_bitmap_sort", sig="MsmBitmapSort", field="bitmap_sort",
               doc="msm_bitmap_sort: the batch addition's whole sort. Thread i < n (lane = i mod 32, blocks of a\n"
                   "multiple of 32 threads): if bit i of bitmap is set, sorted[base + rank] = (0, i), where\n"
                   "the warp's set bits take `base` from one atomic add of their count to *counter and\n"
                   "rank = set bits below the lane (bucket 0 is the ones bucket when nwin = 0; the order\n"
                   "inside the bucket does not change its sum). Every lane runs the ballot (no early exit).")
    n = k.u32s("n")
    k.buffer("bitmap", "u32", div_ceil(n, 32), "reads", "Bit i of word i/32 selects point i < n.")
    k.buffer("sorted", "u32", 2 * n, "writes", "The (0, i) pairs of the set bits, from pair *counter on.", align=8,
             data=True)
    k.buffer("counter", "u32", 1, "atomics on", "The pairs written so far, added to.")
    warp_blocks(k)
    k.trusts("*counter plus the set bits among the first n is at most n: the counter starts at 0 for\n"
             "the chunk (the pairs written land in sorted[..2n]).")
    f = k.fn(Fn)
    a = params(f, ["bitmap", "sorted", "counter"], ["n"])
    idx = gtid(f)
    lane, lt, word, sh, bit, b, cnt, base, below, pos = f.ts(10)
    f.op("mov.u32", lane, "%laneid")
    f.op("mov.u32", lt, "%lanemask_lt")
    valid = setp(f, "lt", idx, a["n"])
    f.op("mov.b32", word, 0)
    f.op("shr.u32", sh, idx, 5)
    ld(f, elem(f, a["bitmap"], sh, 4), pred=f"@{valid}", dst=word)
    f.op("shr.u32", bit, word, lane)
    f.op("and.b32", bit, bit, 1)
    on = f.t("p")
    f.op("and.pred", on, setp(f, "ne", bit, 0), valid)
    f.op("vote.sync.ballot.b32", b, on, 0xFFFFFFFF)
    f.op("popc.b32", cnt, b)
    f.op("mov.b32", base, 0)
    p0, pn, p = setp(f, "eq", lane, 0), setp(f, "ne", cnt, 0), f.t("p")
    f.op("and.pred", p, p0, pn)
    f.op(f"@{p}", "atom.global.add.u32", base, f"[{a['counter']}+0]", cnt)
    f.op("shfl.sync.idx.b32", base, base, 0, 0x1F, 0xFFFFFFFF)
    f.op("and.b32", below, b, lt)
    f.op("popc.b32", below, below)
    f.op("add.u32", pos, base, below)
    zero = f.t()
    f.op("mov.b32", zero, 0)
    f.op(f"@{on}", "st.global.v2.u32", f"[{elem(f, a['sorted'], pos, 8)}+0]", "{" + f"{zero}, {idx}" + "}")
    return f


def ranks_kernel():
    k = Kernel("msm_ranks", sig="MsmRanks", field="ranks", doc="msm_ranks: grid (x: scalars i < n, grid-stride; y: row - w0 for the rows of this launch):\n"
               "for a non-zero digit word dw of row `row`, ranks[row*stride+i] = its rank among the\n"
               "digits of bucket row*2^(c-1) + |d| - 1 (row nwin: the ones bucket), from the\n"
               "histogram counts[]. Any grid x of blocks of a multiple of 32 threads, n and the grid's\n"
               "threads below 2^30: a warp-uniform loop (match/shfl need all 32 lanes; lanes past n take\n"
               f"no rank), {SORT_U} elements per lane and step while the warp's first lane of each is below\n"
               "n (their digit loads and atomics in flight together), then one; a grid of n threads\n"
               "or more does one step of one (the one-thread-per-element form). Blocks run row by row:\n"
               "one window's counters at a time in L2.")
    n, c, stride, w0 = k.u32s("n", "c", "stride", "w0")
    rows = w0 + k.grid_y
    k.launch(grid_y=FREE)
    k.buffer("digits", "u32", (rows - 1) * stride + n, "reads", "Digit rows w0..w0+grid_y, `stride` apart.")
    k.buffer("ranks", "u32", (rows - 1) * stride + n, "writes", "The rank of each non-zero digit, same layout.")
    k.buffer("counts", "u32", ((rows - 1) << (c - 1)) + 1, "atomics on",
             "The bucket histogram: every bucket the rows' digits name (a window row's 2^(c-1), the ones\n"
             "row's one; the kernel has no nwin to tell them apart, so the check covers the last row's\n"
             "first bucket and the rest is the caller's).", data=True)
    warp_blocks(k)
    k.require(k.grid_y >= 1, "at least one row")
    k.require(c >= 1, "windows of at least one bit")
    k.require(n + 4 * k.grid_x * k.block_v <= 1 << 32, "the grid-stride index stays below 2^32")
    k.require(rows * stride <= 1 << 32, "digit indices fit 32 bits")
    k.trusts(DIGIT_TRUST + ", and counts holds every bucket of the rows: 2^(c-1) per window row,\n"
             "one for the ones row.")
    f = k.fn(Fn)
    a = params(f, ["digits", "ranks", "counts"], ["n", "c", "stride", "w0"])
    idx = gtid(f)
    lane, lt, row, rowoff, cm1, kb, base = f.ts(7)
    f.op("mov.u32", lane, "%laneid")
    f.op("mov.u32", lt, "%lanemask_lt")
    f.op("mov.u32", row, "%ctaid.y")
    f.op("add.u32", row, row, a["w0"])
    f.op("mul.lo.u32", rowoff, row, a["stride"])
    f.op("sub.u32", cm1, a["c"], 1)
    f.op("shl.b32", kb, row, cm1)
    f.op("sub.u32", kb, kb, 1)  # bucket of digit word dw: kb + |d|
    f.op("sub.u32", base, idx, lane)  # the warp's first element: the loop is warp-uniform
    gs, lim = grid_stride(f, a["n"], SORT_U)

    def body(els):
        ats, dws, nzs, keys = [], [], [], []
        for i in els:
            valid = setp(f, "lt", i, a["n"])
            at, dw = f.t(), f.t()
            f.op("add.u32", at, rowoff, i)
            f.op("mov.b32", dw, 0)
            ld(f, elem(f, a["digits"], at, 4), pred=f"@{valid}", dst=dw)
            ats.append(at)
            dws.append(dw)
        for dw in dws:
            mag, k = f.t(), f.t()
            f.op("and.b32", mag, dw, 0x7FFFFFFF)
            f.op("add.u32", k, kb, mag)
            nz = setp(f, "ne", dw, 0)
            f.op("selp.b32", k, k, NONE, nz)
            nzs.append(nz)
            keys.append(k)
        rs = agg_ranks(f, keys, a["counts"], lane, lt)
        for at, r, nz in zip(ats, rs, nzs):
            st(f, elem(f, a["ranks"], at, 4), r, pred=f"@{nz}")
    strided_loops(f, idx, gs, lim, a["n"], SORT_U, body, cursor=base)
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
    d = Kernel("msm_scan_tiles", sig="MsmScanTiles", field="scan_tiles",
               doc=f"msm_scan_tiles: sums[b] = sum of counts[b*{SCAN_TILE} .. +{SCAN_TILE}) (< k); blocks of {SCAN_B}")
    kk = d.u32s("k")
    d.buffer("counts", "u32", kk, "reads", "The counts to scan.")
    d.buffer("sums", "u32", div_ceil(kk, SCAN_TILE), "writes", "One sum per tile.")
    d.launch(grid_x=div_ceil(kk, SCAN_TILE), block=SCAN_B)
    d.require(kk >= 1, "something to scan")
    f = d.fn(Fn)
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
    d = Kernel("msm_scan_top", sig="MsmScanTop", field="scan_top",
               doc=f"msm_scan_top: offs[0..ntiles] = exclusive scan of sums[0..ntiles) (offs[ntiles] = total);\n"
                   f"one block of {SCAN_B} threads, each a contiguous run of ceil(ntiles/{SCAN_B}) entries")
    nt = d.u32s("ntiles")
    d.buffer("sums", "u32", nt, "reads", "The tile sums.")
    d.buffer("offs", "u32", nt + 1, "writes", "Their exclusive scan and the total.")
    d.launch(grid_x=1, block=SCAN_B)
    f = d.fn(Fn)
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
    d = Kernel("msm_scan_apply", sig="MsmScanApply", field="scan_apply",
               doc=f"msm_scan_apply: out[i] = offs[tile] + exclusive scan of counts within the tile (i < k);\n"
                   f"out[k] = offs[ntiles] (the total), written by block 0")
    kk = d.u32s("k")
    d.buffer("counts", "u32", kk, "reads", "The counts to scan.")
    d.buffer("offs", "u32", div_ceil(kk, SCAN_TILE) + 1, "reads", "The tiles' offsets and the total (msm_scan_top).")
    d.buffer("out", "u32", kk + 1, "writes", "The exclusive scan of the counts and the total.")
    d.launch(grid_x=div_ceil(kk, SCAN_TILE), block=SCAN_B)
    d.require(kk >= 1, "something to scan")
    f = d.fn(Fn)
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
    k = Kernel("msm_scatter", sig="MsmScatter", field="scatter", doc="msm_scatter: grid (x: points i < n, grid-stride; y: row - w0 for the rows w0 <= row <= nwin\n"
               "of this launch): for a non-zero digit word dw,\n"
               "bucket b = row*2^(c-1) + |d| - 1 (row nwin: the ones bucket nwin*2^(c-1)),\n"
               "pos = offsets[b] + rank; sorted[pos] = (b, i | sign<<31), one 8-byte store (the\n"
               "stores are random: one sector each). Any grid x, n and the grid's threads below 2^30:\n"
               f"{SORT_U} elements per step while all {SORT_U} are below n (their loads in flight together),\n"
               "then one per step; a grid of n threads or more does one step of one. Blocks run row\n"
               "by row, so the offsets read are those of one window at a time (L2-resident).")
    n, c, nwin, stride, w0 = k.u32s("n", "c", "nwin", "stride", "w0")
    rows = w0 + k.grid_y
    k.launch(grid_y=FREE)
    k.buffer("digits", "u32", (rows - 1) * stride + n, "reads", "Digit rows w0..w0+grid_y, `stride` apart.")
    k.buffer("ranks", "u32", (rows - 1) * stride + n, "reads", "The ranks msm_ranks wrote, same layout.")
    k.buffer("offsets", "u32", where(rows > nwin, (nwin << (c - 1)) + 1, rows << (c - 1)), "reads",
             "Each bucket's first pair in `sorted` (msm_scan_apply): 2^(c-1) per window row, one for\n"
             "the ones row.", data=True)
    k.buffer("sorted", "u32", 0, "writes", "The group's region of (bucket, entry) pairs, at offsets[b] + rank.",
             align=8, data=True)
    k.require(k.grid_y >= 1, "at least one row")
    k.require(rows <= nwin + 1, "the rows are windows or the ones row")
    k.require(c >= 1, "windows of at least one bit")
    k.require(n + 4 * k.grid_x * k.block_v <= 1 << 32, "the grid-stride index stays below 2^32")
    k.require(rows * stride <= 1 << 32, "digit indices fit 32 bits")
    k.trusts(DIGIT_TRUST + ", ranks holds msm_ranks' ranks of those digits and offsets the exclusive\n"
             "scan of the histogram they were ranked in, and `sorted` holds the pairs that scan counts.")
    f = k.fn(Fn)
    a = params(f, ["digits", "ranks", "offsets", "sorted"], ["n", "c", "nwin", "stride", "w0"])
    idx = gtid(f)
    rowy, rowoff, cm1, kb = f.ts(4)
    f.op("mov.u32", rowy, "%ctaid.y")
    f.op("add.u32", rowy, rowy, a["w0"])
    f.op("mul.lo.u32", rowoff, rowy, a["stride"])
    # (row nwin holds digit words 1, so the same formula gives the ones bucket nwin*2^(c-1))
    f.op("sub.u32", cm1, a["c"], 1)
    f.op("shl.b32", kb, rowy, cm1)
    f.op("sub.u32", kb, kb, 1)  # bucket of digit word dw: kb + |d|
    gs, lim = grid_stride(f, a["n"], SORT_U)

    def body(els):  # every element below n
        ats, dws, loads = [], [], []
        for i in els:
            at = f.t()
            f.op("add.u32", at, rowoff, i)
            ats.append(at)
            dws.append(ld(f, elem(f, a["digits"], at, 4)))
        for at, dw in zip(ats, dws):
            nz = setp(f, "ne", dw, 0)
            mag, k, rk, off = f.ts(4)
            f.op("and.b32", mag, dw, 0x7FFFFFFF)
            f.op("add.u32", k, kb, mag)
            f.op("mov.b32", rk, 0)
            f.op("mov.b32", off, 0)
            ld(f, elem(f, a["ranks"], at, 4), pred=f"@{nz}", dst=rk)
            ld(f, elem(f, a["offsets"], k, 4), pred=f"@{nz}", dst=off)
            loads.append((nz, k, rk, off))
        for i, dw, (nz, k, rk, off) in zip(els, dws, loads):
            pos, sg, e = f.ts(3)
            f.op("add.u32", pos, off, rk)
            f.op("and.b32", sg, dw, 0x80000000)
            f.op("or.b32", e, i, sg)
            f.op(f"@{nz}", "st.global.v2.u32", f"[{elem(f, a['sorted'], pos, 8)}+0]", "{" + f"{k}, {e}" + "}")
    strided_loops(f, idx, gs, lim, a["n"], SORT_U, body)
    return f


def sort_fragment():
    """Group-independent kernels (digits, scan, scatter) and their .func."""
    return ([digit_func(), count_dense_kernel(), digits_kernel(), bitmap_sort_kernel(), ranks_kernel()]
            + scan_kernels() + [scatter_kernel()])


def sort_decls():
    return f".shared .align 4 .b32 {SH}[{SCAN_B}];\n"
