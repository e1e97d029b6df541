"""MSM kernels in the block-level interpreter (msm_sim.KSim).

1. msm_digit: signed c-bit digits of random and edge scalars recompose the scalar,
   |digit| <= 2^(c-1), for every c from 2 to 24.
2. The whole pipeline (classification, digits, warp-aggregated ranks, scan,
   scatter, balanced accumulation, run-reduction levels, bucket and window
   reduction), run by a Python mirror of the host code in src/gpu/msm/, over a
   toy group (integers mod 2^61-1 encoded in the point words, so the kernels'
   own y negation is exercised) for G1 and G2, with chunks, skewed buckets and
   tiny T to force many levels, the later sort groups launched as a few small blocks
   (grid-stride); and the batch addition from a bitmap.
3. msm_ranks and msm_scatter over grids from one thread per element down to one warp
   (several steps per thread): the same histogram and sorted list.
"""
import random
import sys
from ff import FR, P, R as RMOD, limbs
from ir import Sim
import msm
import msm_sort
from msm_sim import KSim

Q = (1 << 61) - 1
RR = pow(2, 256, RMOD)


def val(ws):
    return sum(w << (32 * i) for i, w in enumerate(ws))


# ---------------------------------------------------------------------------
# 1. digits

def check_digits():
    S = Sim([msm.digit_func()])
    rnd = random.Random(7)
    for c in range(2, 25):
        nwin = -(-256 // c)
        for s in [0, 1, 2, RMOD - 1, RMOD - 2, (1 << c) - 1, 1 << (c - 1), (1 << (c - 1)) + 1,
                  (1 << 254) + 12345] + [rnd.randrange(RMOD) for _ in range(20)]:
            regs, carry, tot = limbs(s, 8), 0, 0
            for w in range(nwin):
                out = S.call("msm_digit", regs + [carry, c])
                regs, carry, dw = out[:8], out[8], out[9]
                mag = dw & 0x7FFFFFFF
                assert mag <= 1 << (c - 1), (c, s, w, mag)
                assert dw == 0 or mag != 0
                tot += (-mag if dw >> 31 else mag) << (c * w)
            assert carry == 0 and val(regs) == 0 and tot == s, (c, s)
            regs, carry = limbs(s, 8), 0
            for w in range(3):  # the Python model used by the pipeline test agrees
                out, ref = S.call("msm_digit", regs + [carry, c]), py_digit(None, regs + [carry, c])
                assert out == ref
                regs, carry = out[:8], out[8]
    print("msm digits ok")


def py_digit(sim, a):
    """msm_digit in Python (same contract)."""
    s, carry, c = val(a[:8]), a[8], a[9]
    v = (s & ((1 << c) - 1)) + carry
    big = v > 1 << (c - 1)
    mag = (1 << c) - v if big else v
    dw = 0 if mag == 0 else mag | (0x80000000 if big else 0)
    return limbs(s >> c, 8) + [int(big), dw]


# ---------------------------------------------------------------------------
# 2. toy group

class Toy:
    """Point words of a toy group Z/Q. Affine (x, y): x = v, y = v (y = p - v
    after the kernel's negation), (0, 0) = 0. XYZZ: X = v, ZZ = 1, or ZZ = 0."""

    def __init__(self, W):
        self.W = W  # words per coordinate (12 for G1, 24 for G2)

    def fp(self, x):
        return limbs(x, 12) + [0] * (self.W - 12)

    def aff(self, v):
        v %= Q
        return [0] * (2 * self.W) if v == 0 else self.fp(v) + self.fp(v)

    def dec_aff(self, w):
        W = self.W
        x, y = val(w[:12]), val(w[W:W + 12])
        assert val(w[12:W]) == 0 and val(w[W + 12:]) == 0
        if x == 0 and y == 0:
            return 0
        if y == x:
            return x
        assert y == P - x, "bad toy affine point"
        return -x % Q

    def xyzz(self, v):
        v %= Q
        W = self.W
        return [0] * (4 * W) if v == 0 else self.fp(v) + [0] * W + self.fp(1) + self.fp(1)

    def dec(self, w):
        W = self.W
        return 0 if val(w[2 * W:3 * W]) == 0 else val(w[:W]) % Q

    def funcs(self):
        W = self.W
        if W == 12:
            return {
                "g1_madd": lambda s, a: self.xyzz(self.dec(a[:48]) + self.dec_aff(a[48:72])),
                "g1_add": lambda s, a: self.xyzz(self.dec(a[:48]) + self.dec(a[48:96])),
                "g1_dbl": lambda s, a: self.xyzz(2 * self.dec(a[:48])),
            }

        def rd(s, a, n):
            return [s.rd(a + 4 * i) for i in range(n)]

        def wr(s, a, ws):
            for i, x in enumerate(ws):
                s.wr(a + 4 * i, x)

        def madd(s, a):
            wr(s, a[0], self.xyzz(self.dec(rd(s, a[0], 96)) + self.dec_aff(rd(s, a[1], 48))))
            return []

        def add(s, a):
            wr(s, a[0], self.xyzz(self.dec(rd(s, a[0], 96)) + self.dec(rd(s, a[1], 96))))
            return []

        def dbl(s, a):
            wr(s, a[0], self.xyzz(2 * self.dec(rd(s, a[0], 96))))
            return []
        return {"g2_madd_m": madd, "g2_add_m": add, "g2_dbl_m": dbl}


# ---------------------------------------------------------------------------
# host mirror (src/gpu/msm/): one MSM or batch addition

B = 64  # threads per block of the element-wise kernels in this model


def scan(S, counts, k, offsets):
    ntiles = -(-k // msm.SCAN_TILE)
    sums, offs = S.alloc(ntiles), S.alloc(ntiles + 1)
    S.launch("msm_scan_tiles", ntiles, msm.SCAN_B, counts=counts, sums=sums, k=k)
    S.launch("msm_scan_top", 1, msm.SCAN_B, sums=sums, offs=offs, ntiles=ntiles)
    S.launch("msm_scan_apply", ntiles, msm.SCAN_B, counts=counts, offs=offs, out=offsets, k=k)


def window_groups(nwin, groups):
    """The windows [w0, w1) of each sort group (src/gpu/msm/pipeline.rs: window_groups)."""
    g = max(1, min(groups, max(nwin, 1)))
    return [(nwin * i // g, nwin * (i + 1) // g) for i in range(g)]


def sort_grid(ln, block, gi, slim):
    """Grid x and block of msm_ranks / msm_scatter for group gi (src/gpu/msm/pipeline.rs:
    sort_launch): one thread per element for the first group, `slim` = (blocks, threads), a
    few small blocks that loop over the elements, for the groups that run beside an
    accumulation."""
    if slim and gi >= 1:
        return slim
    return -(-ln // block), block


def run(S, G, toy, pts, n, *, scalars=None, bitmap=None, chunk, c=None, T=3, T2=2, glog1=1, groups=1, slim=None):
    g, W, XW = G.name, G.W, 4 * G.W
    batch = bitmap is not None
    nwin = 0 if batch else -(-256 // c)
    c = 1 if batch else c
    wide = max(0, min(nwin, 256 - nwin * (c - 1)))  # windows of c bits, the rest c-1 (src/gpu/msm/plan.rs)
    nb = 1 << (c - 1)
    NB = nwin * nb
    K = NB + 1
    buckets = S.alloc(K * XW)
    m = chunk
    # one chunk: the buckets are not cleared, the accumulation overwrites them and the bucket
    # sums skip the empty ones by their count (src/gpu/msm/pipeline.rs, Run::fresh); the
    # interpreter's unwritten-read check proves no stale bucket is read
    fresh = int(n <= m)
    if not fresh:
        S.fill(buckets, K * XW)
    rows = nwin + 1
    digits, ranks = S.alloc(rows * m), S.alloc(rows * m)
    cap = m * max(nwin, 1)
    srt = S.alloc(2 * cap)
    counts, offsets = S.alloc(K), S.alloc(K + 1)
    for s0 in range(0, n, m):
        ln = min(m, n - s0)
        S.fill(counts, K)
        # the digits of every window, then each group's ranks, scan and scatter (one stream on the
        # device), then each group's accumulation from its own region of the sorted list
        sorted_groups = []
        if batch:  # the batch addition's sort is one kernel (src/gpu/msm/pipeline.rs, sort_chunk)
            S.launch("msm_bitmap_sort", -(-ln // 64), 64, bitmap=bitmap + s0 // 8, sorted=srt, counter=counts,
                     n=ln)
            total = S.rd(counts)
            got = sorted((S.rd(srt + 8 * j), S.rd(srt + 8 * j + 4)) for j in range(total))
            want = sorted((0, i) for i in range(ln) if S.rd(bitmap + 4 * ((s0 + i) // 32)) >> ((s0 + i) % 32) & 1)
            assert got == want, "bitmap sort"
            sorted_groups.append((0, total))
        else:
            S.launch("msm_digits", -(-ln // 32), 32, scalars=scalars + 32 * s0, digits=digits, n=ln, c=c,
                     nwin=nwin, stride=m, wide=wide)
        for gi, (w0, w1) in enumerate([] if batch else window_groups(nwin, groups)):
            last = w1 == nwin
            gx, bx = sort_grid(ln, 32, gi, slim)
            S.launch("msm_ranks", (gx, w1 - w0 + int(last)), bx, digits=digits, ranks=ranks,
                     counts=counts, n=ln, c=c, stride=m, w0=w0)
            k0, k1 = w0 * nb, (K if last else w1 * nb)
            scan(S, counts + 4 * k0, k1 - k0, offsets + 4 * k0)
            base = w0 * m
            gx, bx = sort_grid(ln, B, gi, slim)
            S.launch("msm_scatter", (gx, w1 - w0 + int(last)), bx, digits=digits, ranks=ranks,
                     offsets=offsets, sorted=srt + 8 * base, n=ln, c=c, nwin=nwin, stride=m, w0=w0)
            total = S.rd(offsets + 4 * k1)
            assert base + total <= cap, "a group overflows its region of the sorted list"
            sorted_groups.append((base, total))
        for base, total in sorted_groups:
            if total == 0:
                continue
            n1 = -(-total // T)
            rec = [(S.alloc(n1), S.alloc(n1 * XW))]
            scratch = S.alloc(n1 * 2 * W)
            S.launch(f"msm_{g}_accumulate", -(-n1 // B), B, ids=srt + 8 * base, items=srt + 8 * base + 4,
                     points=pts + 4 * 2 * W * s0, buckets=buckets, out_ids=rec[0][0], out_pts=rec[0][1],
                     scratch=scratch, N=total, T=T, fresh=fresh)
            N, levels = n1, 0
            while N > 1:
                n2 = -(-N // T2)
                out = (S.alloc(n2), S.alloc(n2 * XW))
                S.launch(f"msm_{g}_reduce_runs", -(-n2 // B), B, ids=rec[-1][0], items=rec[-1][1], points=0,
                         buckets=buckets, out_ids=out[0], out_pts=out[1], scratch=0, N=N, T=T2)
                rec.append(out)
                N, levels = n2, levels + 1
            assert all(x == msm.NONE for x in S.words(rec[-1][0], N)), "records left after the last level"
    def ones_bucket():  # the host reads it only when it has entries (or was cleared)
        return toy.dec(S.words(buckets + 4 * NB * XW, XW)) if not fresh or S.rd(counts + 4 * NB) else 0
    if batch:
        return ones_bucket()
    # bucket reduction
    glog = min(glog1, c - 1)
    segs = nb >> glog
    nth = nwin * segs
    R_, T_ = S.alloc(nth * XW), S.alloc(nth * XW)
    S.launch(f"msm_{g}_bucket_sums", -(-nth // B), B, inR=buckets, outR=R_, outT=T_, counts=counts, nthreads=nth,
             glog=glog, slog=(c - 1) - glog, wide=wide, fresh=fresh)
    llog = glog
    while segs > 1:
        gl = min(segs.bit_length() - 1, 2)
        segs >>= gl
        nth = nwin * segs
        R2, T2_ = S.alloc(nth * XW), S.alloc(nth * XW)
        S.launch(f"msm_{g}_segment_sums", -(-nth // B), B, inR=R_, inT=T_, outR=R2, outT=T2_, nthreads=nth,
                 glog=gl, llog=llog)
        R_, T_, llog = R2, T2_, llog + gl
    # Horner over the window sums is the host's (src/gpu/msm/pipeline.rs, horner): sum_w 2^(o_w) W_w
    total, o = ones_bucket(), 0
    for w in range(nwin):
        total += toy.dec(S.words(T_ + 4 * w * XW, XW)) << o
        o += c if w < wide else c - 1
    return total % Q


def mont(s):
    return limbs(s * RR % RMOD, 8)


# ---------------------------------------------------------------------------
# 3. the sort over any grid

def sort_grids(seed):
    """msm_ranks and msm_scatter are grid-stride loops (SORT_U elements per step while they all
    lie below n, then one): the host launches them one thread per element for a chunk's first
    group and as a few 32-thread blocks for the groups sorted beside an accumulation. Every
    grid must give the same histogram and the same sorted list: at each position the same
    bucket, each bucket the same entries (their order inside a bucket follows the atomics);
    every position written once (the interpreter's race and unwritten-read checks)."""
    from collections import Counter
    rnd = random.Random(seed)
    calls = dict(fr_from_mont=lambda s, a: limbs(val(a) * pow(RR, -1, RMOD) % RMOD, 8), msm_digit=py_digit)
    S = KSim(FR.funcs() + msm.sort_fragment(), calls, {msm.SH: 0})
    c = 8
    nwin, nb = -(-256 // c), 1 << (c - 1)
    wide = max(0, min(nwin, 256 - nwin * (c - 1)))
    K, rows = nwin * nb + 1, nwin + 1
    U = msm_sort.SORT_U
    for n in (300, 45):
        pool = [0, 1, 1, 2, 3, RMOD - 1, (1 << c) - 1, 1 << (c - 1)]
        sc = [rnd.choice(pool) if rnd.random() < 0.5 else rnd.randrange(RMOD) for _ in range(n)]
        scal = S.alloc(n * 8, sum((mont(x) for x in sc), []))
        digits = S.alloc(rows * n)
        S.launch("msm_digits", -(-n // 32), 32, scalars=scal, digits=digits, n=n, c=c, nwin=nwin, stride=n,
                 wide=wide)
        table = S.words(digits, rows * n)
        for w0, w1 in ((0, 2), (nwin - 2, nwin)):  # a group, and the last one with the ones row
            last = w1 == nwin
            nrows = w1 - w0 + int(last)
            k0, k1 = w0 * nb, (K if last else w1 * nb)
            want = Counter()
            for r in range(w0, w0 + nrows):
                for i in range(n):
                    dw = table[r * n + i]
                    if dw:
                        want[(r * nb + (dw & 0x7FFFFFFF) - 1, i | (dw & 0x80000000))] += 1
            want_counts = [0] * (k1 - k0)
            for b, _ in want.elements():
                want_counts[b - k0] += 1
            # (grid x, block) of ranks and of scatter: one thread per element, then grid-stride
            # grids from 1 to 5 blocks (4 per step and then 1; ragged tails; idle warps)
            grids = [((-(-n // 32), 32), (-(-n // 64), 64))] + [(g, g) for g in ((1, 32), (2, 32), (1, 64), (3, 32),
                                                                                   (5, 32))]
            seq = None
            for gr, gs_ in grids:
                if n == 300 and gr == (1, 32):
                    assert n > U * 32, "the single warp must take steps of SORT_U elements"
                ranks, counts, offsets = S.alloc(rows * n), S.alloc(K, [0] * K), S.alloc(K + 1)
                srt = S.alloc(2 * n * nrows)
                S.launch("msm_ranks", (gr[0], nrows), gr[1], digits=digits, ranks=ranks, counts=counts, n=n, c=c,
                         stride=n, w0=w0)
                assert S.words(counts + 4 * k0, k1 - k0) == want_counts, (n, w0, gr)
                scan(S, counts + 4 * k0, k1 - k0, offsets + 4 * k0)
                S.launch("msm_scatter", (gs_[0], nrows), gs_[1], digits=digits, ranks=ranks, offsets=offsets,
                         sorted=srt, n=n, c=c, nwin=nwin, stride=n, w0=w0)
                total = S.rd(offsets + 4 * k1)
                assert total == sum(want.values())
                got = [(S.rd(srt + 8 * j), S.rd(srt + 8 * j + 4)) for j in range(total)]
                bs = [b for b, _ in got]
                assert bs == sorted(bs) and Counter(got) == want, (n, w0, gr, gs_)
                assert seq is None or bs == seq
                seq = bs
    print("msm sort grids ok")


def pipeline(G, seed):
    rnd = random.Random(seed)
    toy = Toy(G.W)
    fns = FR.funcs() + msm.sort_fragment() + msm.group_fragment(G)
    # fr_from_mont and msm_digit in Python (simtest_ff and check_digits test the generated ones):
    # the digit kernel recomputes a scalar's digits up to its window in every window block,
    # which the interpreter would take minutes to repeat
    calls = dict(toy.funcs(), fr_from_mont=lambda s, a: limbs(val(a) * pow(RR, -1, RMOD) % RMOD, 8),
                 msm_digit=py_digit)
    S = KSim(fns, calls, {msm.SH: 0, msm.SPILL: 1 << 16})
    gen_vals = [rnd.randrange(1, Q) for _ in range(8)]
    cases = []
    # (n, chunk, c, T, T2, glog1, scalar kind, sort groups, slim grid of the groups after the first)
    cases.append((100, 32, 8, 3, 2, 1, "mix", 1, None))
    cases.append((45, 64, 7, 5, 3, 2, "mix", 3, None))
    cases.append((70, 32, 6, 2, 2, 0, "skew", 43, (2, 32)))
    cases.append((230, 160, 8, 8, 4, 1, "mix", 4, (1, 32)))  # 4 elements per step, then 1 (chunk 0)
    # one chunk (buckets not cleared): few buckets used, and no scalar 1 (the ones bucket unwritten)
    cases.append((60, 64, 6, 2, 2, 0, "skew", 5, (2, 32)))
    cases.append((40, 64, 7, 3, 2, 1, "dense", 2, None))
    for n, chunk, c, T, T2, glog1, kind, groups, slim in cases:
        vals = [rnd.randrange(1, Q) for _ in range(n)]
        for i in range(0, n, 9):
            vals[i] = 0  # infinity
        for i in range(3, n, 11):
            vals[i] = gen_vals[i % 3]  # repeated points
        if kind == "mix":
            pool = [0, 1, 2, 3, RMOD - 1, (1 << c) - 1, 1 << (c - 1)]
            sc = [rnd.choice(pool) if rnd.random() < 0.5 else rnd.randrange(RMOD) for _ in range(n)]
        elif kind == "dense":
            sc = [rnd.randrange(2, RMOD) for _ in range(n)]
        else:
            sc = [rnd.choice([3, 3, 3, 1, 0, RMOD - 3]) for _ in range(n)]
        pts = S.alloc(n * 2 * G.W, sum((toy.aff(v) for v in vals), []))
        scal = S.alloc(n * 8, sum((mont(s) for s in sc), []))
        want = sum(s * v for s, v in zip(sc, vals)) % Q
        got = run(S, G, toy, pts, n, scalars=scal, chunk=chunk, c=c, T=T, T2=T2, glog1=glog1, groups=groups,
                  slim=slim)
        assert got == want, (G.name, n, chunk, c, kind, groups, slim, got, want)
        # dense count
        for grid, block in ((-(-n // B), B), (1, 32), (2, 64)):  # one step, and the grid-stride loop
            ctr = S.alloc(1, [0])
            S.launch("msm_count_dense", grid, block, scalars=scal, counter=ctr, n=n)
            assert S.rd(ctr) == sum(1 for s in sc if s not in (0, 1)), (grid, block)
    # batch addition from a bitmap: two chunks, one chunk, and one chunk with no bit set
    n = 75
    for chunk, density in ((64, 0.5), (96, 0.5), (96, 0)):
        vals = [rnd.randrange(Q) for _ in range(n)]
        bits = [rnd.random() < density for _ in range(n)]
        words = [sum(1 << j for j in range(32) if i * 32 + j < n and bits[i * 32 + j]) for i in range(-(-n // 32))]
        pts = S.alloc(n * 2 * G.W, sum((toy.aff(v) for v in vals), []))
        bm = S.alloc(len(words), words)
        got = run(S, G, toy, pts, n, bitmap=bm, chunk=chunk, T=2, T2=2)
        assert got == sum(v for v, b in zip(vals, bits) if b) % Q, ("batch", chunk, density)
    print(f"msm pipeline {G.name} ok")


if __name__ == "__main__":
    check_digits()
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    sort_grids(seed)
    pipeline(msm.G1, seed)
    pipeline(msm.G2, seed)
