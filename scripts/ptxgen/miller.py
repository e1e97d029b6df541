"""Miller loops over precomputed G2 lines (module miller): for each group of pairs
(P_i, Q_i), P_i an affine G1 point and Q_i a G2 point given by blst's 68 precomputed
lines, the product of the pairs' Miller loop values, prod_i f_{Q_i}(P_i), in Fp12,
conjugated as blst's loops conjugate it (z < 0): the value blst's
miller_loop_lines / the host's MillerProduct::of_lines give for the same pairs, bit for
bit. The host multiplies the groups' values and runs one final exponentiation.

Inputs: `lines`, n G2 points' tables of 68 lines (blst_precompute_lines: 3 Fp2 each,
288 bytes, blst_fp6 layout); `points`, nvec vectors of n affine G1 points (blst_p1_affine:
x, y, 96 bytes), vector v's point i paired with line table i. Group g of vector v holds
the pairs per*g .. min(per*(g+1), n) - 1; out[v * groups + g] is its Fp12 (576 bytes,
blst_fp12 layout). A G1 point at infinity (x = y = 0, as blst stores it) is skipped; a
G2 point at infinity is given by the host as 68 lines (1, 0, 0), which multiply f by 1.

Algorithm, one thread per group (blst's loop over |z| = 0xd201000000010000 with the
squarings of f shared by the group's pairs, as blst's n-pair loop shares them):
  f = 1
  for k in 0..68: if line k is a doubling other than line 0, f = f^2;
                  for each pair i of the group with P_i finite:
                      f = f * line_k(Q_i) evaluated at P_i   (line_eval_m, fp12_mul_by_line_m)
  out = conj(f)
Line k follows a squaring unless k is 0 or an addition line (1, 4, 8, 18, 51).
f lives in the output slot in global memory (the thread's own 576 bytes); the Fp12
scratch (1,152 bytes), the evaluated line and the point (-2x, 2y) live in a per-thread
slot of shared memory: 1,536 bytes, blocks of 32 threads, 48 KiB per block. Nothing
stays in registers across the calls but the loop counters and addresses, so the kernel
needs no local memory. Cost per pair: 68 line multiplications (13 Fp2 products each)
and 4 Fp products per line evaluation; per group 63 Fp12 squarings (18 Fp2 products).
"""
from ir import Fn
from iface import Kernel, div_ceil, eq
from ec import FPO, ONE_FP
from fp12 import FP2_B, SCRATCH_BYTES, call, ptr
from msm_emit import params, elem, ldv, stv, setp, bra
from rust import export

LINES = 68
LINE_B = 3 * FP2_B  # bytes per line (3 Fp2)
LINE_WORDS = LINE_B // 4
FP12_WORDS = 144
POINT_WORDS = 24
ADDITIONS = (1, 4, 8, 18, 51)
NO_SQUARE = sum(1 << k for k in (0,) + ADDITIONS)  # lines that do not follow a squaring of f
BLOCK = 32  # threads per block: one shared slot each
SLOT_BYTES = SCRATCH_BYTES + LINE_B + 4 * POINT_WORDS  # scratch, evaluated line, (-2x, 2y)
SLOTS = "miller_slots"
export("miller", "LINES", LINES, "Precomputed lines per G2 point (blst_precompute_lines).")
export("miller", "LINE_WORDS", LINE_WORDS, "u32 words per line: 3 Fp2 (blst_fp6 layout).")
export("miller", "BLOCK", BLOCK, "Threads per block of miller_loop_lines (one shared slot each).")


def iface():
    k = Kernel("miller_loop_lines", sig="MillerLoopLines", field="loop_lines", doc=f"""
miller_loop_lines(out, lines, points, n, nvec, per, groups): out[v * groups + g] = conj(prod of
the Miller loops of the pairs (points[v * n + i], lines of point i)), i in group g's range
per*g .. min(per*(g+1), n) (blst's loop over precomputed lines, squarings shared by the group).
Blocks of {BLOCK} threads (one {SLOT_BYTES}-byte shared slot each), one thread per group, grid y = vector.""")
    n, nvec, per, groups = k.u32s("n", "nvec", "per", "groups")
    k.buffer("out", "u32", nvec * groups * FP12_WORDS, "writes",
             "One Fp12 per group (blst_fp12 layout), vector by vector; also the loop's accumulator.", align=16)
    k.buffer("lines", "u32", n * (LINES * LINE_WORDS), "reads",
             "The 68 precomputed lines of each G2 point i < n (blst_fp6 layout each).", align=16)
    k.buffer("points", "u32", nvec * n * POINT_WORDS, "reads",
             "nvec vectors of n affine G1 points (blst_p1_affine layout); (0, 0) is infinity.", align=16)
    k.launch(grid_x=div_ceil(groups, BLOCK), grid_y=nvec, block=BLOCK)
    k.require(per >= 1, "at least one pair per group")
    k.require(eq(groups, div_ceil(n, per)), "groups = ceil(n / per)")
    k.require(nvec * n <= 1 << 32, "pair indices fit 32 bits")
    k.require(nvec * groups <= 1 << 32, "group indices fit 32 bits")
    return k


class MaxBlock(Fn):
    """A kernel of at most BLOCK threads per block (.maxntid): the shared slots bound it."""

    def ptx(self):
        return super().ptx().replace(")\n{", f")\n.maxntid {BLOCK}, 1, 1\n{{", 1)


def slot(f):
    """Generic address of this thread's shared slot."""
    base, off, tid, a = f.t("a"), f.t("a"), f.t(), f.t("a")
    f.op("mov.u64", base, SLOTS)
    f.op("cvta.shared.u64", base, base)
    f.op("mov.u32", tid, "%tid.x")
    f.op("mul.wide.u32", off, tid, SLOT_BYTES)
    f.op("add.s64", a, base, off)
    return a


def set_one(f, out):
    """*out = 1 in Fp12: the Montgomery one in the first Fp, zeros after it."""
    one, z = f.ts(12), f.ts(4)
    for x, w in zip(one + z, ONE_FP + [0] * 4):
        f.op("mov.b32", x, w)
    stv(f, out, one, sp="")
    stv(f, ptr(f, out, 48), z * ((FP12_WORDS - 12) // 4), sp="")


def point_scalars(f, p, dst):
    """(-2x, 2y) of the affine G1 point at p into dst; returns a predicate true for infinity
    (x = y = 0)."""
    xy = ldv(f, p, POINT_WORDS, sp="")
    mx = FPO.new(f)
    FPO.call(f, "neg", mx, FPO.dbl(f, xy[:12]))
    stv(f, dst, mx + FPO.dbl(f, xy[12:]), sp="")
    return FPO.is_zero(f, xy)


def kernel():
    f = iface().fn(MaxBlock)
    a = params(f, ["out", "lines", "points"], ["n", "per", "groups"], generic=True)
    g, v = f.global_index(), f.t()
    f.op("mov.u32", v, "%ctaid.y")
    end = f.label("end")
    bra(f, end, setp(f, "ge", g, a["groups"]))
    # the group's pairs: first .. first + cnt - 1
    first, cnt, vfirst = f.t(), f.t(), f.t()
    f.op("mul.lo.u32", first, g, a["per"])
    f.op("sub.u32", cnt, a["n"], first)
    f.op("min.u32", cnt, cnt, a["per"])
    f.op("mad.lo.u32", vfirst, v, a["n"], first)
    og = f.t()
    f.op("mad.lo.u32", og, v, a["groups"], g)
    acc = elem(f, a["out"], og, 4 * FP12_WORDS)  # f, in the output slot
    tables = elem(f, a["lines"], first, LINES * LINE_B)  # the first pair's line table
    pts = elem(f, a["points"], vfirst, 4 * POINT_WORDS)  # the first pair's G1 point
    s = slot(f)
    line, pxy = ptr(f, s, SCRATCH_BYTES), ptr(f, s, SCRATCH_BYTES + LINE_B)
    set_one(f, acc)
    mask = f.t("d")
    f.op("mov.u64", mask, NO_SQUARE)
    k = f.t()
    f.op("mov.u32", k, 0)
    top, muls, pair, skip, next_k = (f.label(x) for x in ("line", "muls", "pair", "skip", "next"))
    f.op("label", top)
    # a doubling line (not line 0) first squares f
    bit = f.t("d")
    f.op("shr.u64", bit, mask, k)
    f.op("and.b64", bit, bit, 1)
    sq = f.t("p")
    f.op("setp.ne.u64", sq, bit, 0)
    bra(f, muls, sq)
    call(f, "fp12_sqr_m", acc, acc, s)
    f.op("label", muls)
    # f *= line k of each pair's table, evaluated at its G1 point
    j, lk = f.t(), f.t("a")
    f.op("mov.u32", j, 0)
    f.op("mul.wide.u32", lk, k, LINE_B)
    f.op("add.s64", lk, lk, tables)
    f.op("label", pair)
    pj = elem(f, pts, j, 4 * POINT_WORDS)
    inf = point_scalars(f, pj, pxy)
    bra(f, skip, inf)
    lj = elem(f, lk, j, LINES * LINE_B)
    call(f, "line_eval_m", line, lj, pxy)
    call(f, "fp12_mul_by_line_m", acc, acc, line, s)
    f.op("label", skip)
    f.op("add.u32", j, j, 1)
    bra(f, pair, setp(f, "lt", j, cnt))
    f.op("label", next_k)
    f.op("add.u32", k, k, 1)
    bra(f, top, setp(f, "lt", k, LINES))
    # z < 0: the loop's value is conjugated
    call(f, "fp12_conj_m", acc, acc)
    f.op("label", end)
    return f


def kernels():
    return [kernel()]


def decls():
    return f".shared .align 16 .b8 {SLOTS}[{BLOCK * SLOT_BYTES}];\n"
