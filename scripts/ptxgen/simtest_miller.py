"""miller_lines and miller_loop_lines (miller.py) run whole in the block interpreter
(msm_sim.KSim) against the big-integer reference fp12_ref.py (itself tied to blst by the fixture
fp12_blst.txt). miller_lines: blst's lines 0, 1, 2 and 67 of the fixture's point, all PTX, then
random points (two blocks, one at infinity) against the reference's 68 lines. miller_loop_lines:

  1. blst's own pair from the fixture, every instruction in PTX (the Fp code included): the
     kernel's output words must equal blst_miller_loop_lines' bytes;
  2. random pairs of curve points in groups of 1 to 3, over two vectors and several blocks,
     with a G1 point at infinity and a G2 point at infinity (lines (1, 0, 0)): the Fp .funcs
     run as Python big integers (their PTX is checked by simtest_ff.py), everything above
     them (Fp2 inline, Fp6, Fp12, lines, the kernel's loops and addresses) as PTX.
The contract windows, unwritten reads and races between threads are checked by KSim.

  python3 scripts/ptxgen/simtest_miller.py [seed]
"""
import random
import sys
import time

import fp12
import miller
from ec import fp2_funcs
from ff import FP, P, limbs
from fp12_ref import F12ONE, f12mul, miller_loop_lines, precompute_lines, words, unwords, RM
from msm_sim import KSim
from simtest_fp12 import fixture
from simtest_generator_mul import Fp, Fp2, G1, G2, mult

RI = pow(RM, -1, P)
ONE_LINE = ((1, 0), (0, 0), (0, 0))  # a G2 point at infinity: f times 1 at every line


class MillerSim(KSim):
    """KSim with each block's shared slots modelled as its own global allocation."""

    def exec(self, R, cc, o):
        if o[0] == "mov.u64" and o[2] == miller.SLOTS:
            block = R["%ctaid.y"] * R["%nctaid.x"] + R["%ctaid.x"]
            R[o[1]] = self.symbols[miller.SLOTS] + block * miller.BLOCK * miller.SLOT_BYTES
        elif o[0] == "cvta.shared.u64":
            R[o[1]] = self.val(R, o[2])
        else:
            super().exec(R, cc, o)


def toy_fp():
    """The fp_* .funcs as Python big integers on Montgomery limbs."""
    val = lambda ws: sum(w << (32 * i) for i, w in enumerate(ws)) * RI % P  # noqa: E731
    out = lambda x: limbs(x % P * RM % P, 12)  # noqa: E731
    two = lambda op: lambda S, a: out(op(val(a[:12]), val(a[12:])))  # noqa: E731
    one = lambda op: lambda S, a: out(op(val(a)))  # noqa: E731
    return {"fp_add": two(lambda x, y: x + y), "fp_sub": two(lambda x, y: x - y), "fp_mul": two(lambda x, y: x * y),
            "fp_neg": one(lambda x: -x), "fp_dbl": one(lambda x: 2 * x), "fp_sqr": one(lambda x: x * x)}


def sim(toy):
    fns = FP.funcs() + fp2_funcs() + fp12.funcs() + miller.kernels()
    S = MillerSim(fns, toy=toy, symbols={})
    return S


def launch(S, tables, pts, per):
    """Runs the kernel on line tables (one list of 68 lines per G2 point) and nvec vectors of
    G1 points ((x, y) or None for infinity); returns each group's Fp12."""
    n, nvec = len(tables), len(pts)
    groups = -(-n // per)
    lw = [w for t in tables for line in t for w in words(line)]
    pw = [w for v in pts for p in v for w in (words(p) if p else [0] * 24)]
    lines, points = S.alloc(len(lw), lw), S.alloc(len(pw), pw)
    out = S.alloc(nvec * groups * 144)
    gx = -(-groups // miller.BLOCK)
    S.symbols[miller.SLOTS] = S.alloc(gx * nvec * miller.BLOCK * miller.SLOT_BYTES // 4)
    slots = S.symbols[miller.SLOTS]
    S.shared_windows = [(slots, slots + gx * nvec * miller.BLOCK * miller.SLOT_BYTES)]
    S.launch("miller_loop_lines", (gx, nvec), miller.BLOCK, out=out, lines=lines, points=points, n=n, nvec=nvec,
             per=per, groups=groups)
    return [S.words(out + 576 * g, 144) for g in range(nvec * groups)]


def reference(tables, pts, per):
    """The groups' values: products of the reference loop per pair (infinities skipped)."""
    out = []
    for v in pts:
        for g in range(0, len(tables), per):
            f = F12ONE
            for t, p in zip(tables[g:g + per], v[g:g + per]):
                if p is not None and t is not None:
                    f = f12mul(f, miller_loop_lines(t, *p))
            out.append(f)
    return out


def run_lines(S, qs):
    """miller_lines on the G2 points qs ((x, y) of Fp2, or None for infinity): their tables."""
    n = len(qs)
    qw = [w for q in qs for w in (words(q) if q else [0] * 48)]
    q = S.alloc(len(qw), qw)
    lines = S.alloc(n * miller.LINES * miller.LINE_WORDS)
    gx = -(-n // miller.BLOCK)
    S.symbols[miller.SLOTS] = S.alloc(gx * miller.BLOCK * miller.SLOT_BYTES // 4)
    slots = S.symbols[miller.SLOTS]
    S.shared_windows = [(slots, slots + gx * miller.BLOCK * miller.SLOT_BYTES)]
    S.launch("miller_lines", gx, miller.BLOCK, lines=lines, q=q, n=n)
    tw = miller.LINES * miller.LINE_WORDS
    return [[unwords(S.words(lines + 4 * (i * tw + k * 72), 72), 3) for k in range(miller.LINES)] for i in range(n)]


def check_lines():
    X = fixture()
    q = unwords(X["q"], 3)[:2]
    t = time.time()
    (got,) = run_lines(sim({}), [q])
    for k in (0, 1, 2, 67):
        assert got[k] == unwords(X[f"line{k}"], 3), f"miller_lines (all PTX) line {k} vs blst_precompute_lines"
    assert got == precompute_lines(q), "miller_lines (all PTX) vs the reference"
    print(f"miller_lines vs blst ok: lines 0, 1, 2, 67 and the reference's 68, all PTX ({time.time() - t:.0f} s)")
    qs = [mult(Fp2, G2, random.randrange(1, 1 << 64)) for _ in range(35)]
    qs[33] = None
    t = time.time()
    got = run_lines(sim(toy_fp()), qs)
    for i, q in enumerate(qs):
        assert got[i] == (precompute_lines(q) if q else [ONE_LINE] * miller.LINES), f"miller_lines point {i}"
    print(f"miller_lines ok: {len(qs)} points, two blocks, one at infinity ({time.time() - t:.0f} s)")


def check_blst():
    X = fixture()
    p, q = unwords(X["p"], 2), unwords(X["q"], 3)
    t = time.time()
    got = launch(sim({}), [precompute_lines(q)], [[p]], 1)
    assert got == [X["miller_loop_lines"]], "kernel (all PTX) vs blst_miller_loop_lines"
    print(f"miller_loop_lines vs blst ok: one pair, all PTX ({time.time() - t:.0f} s)")


def check_random(n, per, nvec=2):
    rnd = lambda: random.randrange(1, 1 << 64)  # noqa: E731
    qs = [mult(Fp2, G2, rnd()) for _ in range(n)]
    pts = [[mult(Fp, G1, rnd()) for _ in range(n)] for _ in range(nvec)]
    tables = [precompute_lines(q) for q in qs]
    pts[0][min(2, n - 1)] = None  # G1 at infinity
    tables[n - 1] = None  # G2 at infinity: lines (1, 0, 0) for the kernel
    dev_tables = [t if t is not None else [ONE_LINE] * miller.LINES for t in tables]
    t = time.time()
    got = launch(sim(toy_fp()), dev_tables, pts, per)
    want = reference(tables, pts, per)
    assert len(got) == len(want)
    for g, (a, b) in enumerate(zip(got, want)):
        assert unwords(a, 12) == b, f"group {g} (n = {n}, per = {per})"
    print(f"miller_loop_lines ok: {nvec} x {n} pairs, {per} per group, {len(got)} groups ({time.time() - t:.0f} s)")


random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
check_lines()
check_random(5, 2)
check_random(34, 1, nvec=1)
check_random(7, 3)
check_blst()
