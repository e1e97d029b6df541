"""Miller loops over precomputed G2 lines (module miller): miller_lines computes the lines
(blst_precompute_lines) of each G2 point; miller_loop_lines, for each group of pairs
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

miller_lines, one thread per G2 point Q: T = (Qx, Qy, 1) in Jacobian coordinates; per line k,
an addition step (k in 1, 4, 8, 18, 51) or a doubling step of T, each giving its line, with
blst's formulas (pairing.c's line_dbl and line_add, which fp12_ref.py transcribes):
  doubling: A = X^2, B = Y^2, ZZ = Z^2, C = B^2, D = 2((X + B)^2 - A - C), E = 3A, F = E^2,
            X3 = F - 2D, Z3 = (Y + Z)^2 - B - ZZ, Y3 = (D - X3) E - 8C;
            line (6X^3 - 4Y^2 = (E + X)^2 - A - F - 4B, E ZZ, Z3 ZZ)
  addition: Z1Z1 = Z^2, U2 = Qx Z1Z1, S2 = Qy Z Z1Z1, H = U2 - X, HH = H^2, I = 4HH, J = H I,
            r = 2(S2 - Y), V = X I, X3 = r^2 - J - 2V, Y3 = (V - X3) r - 2 J Y,
            Z3 = (Z + H)^2 - Z1Z1 - HH; line (2(r Qx - Qy Z3), r, Z3)
Every Fp2 value lives in the thread's shared slot (named places, loaded around each Fp2
operation), the lines go straight to the table; Q = (0, 0), infinity, gets 68 lines (1, 0, 0).
Cost per point: 62 doublings of 10 Fp2 products and squarings, 5 additions of 14.
"""
from iface import Kernel, div_ceil, eq
from ec import FPO, FP2O, ONE_FP
from fp12 import BLOCK, FP2_B, SCRATCH_BYTES, MaxBlock, call, ptr, slot as fp12_slot
from msm_emit import params, elem, ldv, stv, setp, bra
from rust import export

LINES = 68
LINE_B = 3 * FP2_B  # bytes per line (3 Fp2)
LINE_WORDS = LINE_B // 4
FP12_WORDS = 144
POINT_WORDS = 24
ADDITIONS = (1, 4, 8, 18, 51)
NO_SQUARE = sum(1 << k for k in (0,) + ADDITIONS)  # lines that do not follow a squaring of f
ADD_LINES = sum(1 << k for k in ADDITIONS)  # lines of an addition step of T
SLOT_BYTES = SCRATCH_BYTES + LINE_B + 4 * POINT_WORDS  # scratch, evaluated line, (-2x, 2y)
SLOTS = "miller_slots"
export("miller", "LINES", LINES, "Precomputed lines per G2 point (blst_precompute_lines).")
export("miller", "LINE_WORDS", LINE_WORDS, "u32 words per line: 3 Fp2 (blst_fp6 layout).")
export("miller", "BLOCK", BLOCK, "Threads per block of both kernels (one shared slot each).")
# miller_lines' Fp2 places in the slot (96 bytes each): T, then the steps' values
PLACES = ["X", "Y", "Z", "A", "B", "ZZ", "C", "D", "E", "F", "X3", "Y3", "t", "u", "v"]
assert len(PLACES) * FP2_B <= SLOT_BYTES


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


def slot(f):
    """Generic address of this thread's shared slot."""
    return fp12_slot(f, SLOTS, SLOT_BYTES)


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


def lines_iface():
    k = Kernel("miller_lines", sig="MillerLines", field="lines", doc=f"""
miller_lines(lines, q, n): lines[i] = the 68 Miller loop lines of the affine G2 point q[i], i < n
(blst_precompute_lines; 68 lines (1, 0, 0) for q[i] = (0, 0), infinity).
Blocks of {BLOCK} threads (one {SLOT_BYTES}-byte shared slot each), one thread per point.""")
    n = k.u32s("n")
    k.buffer("lines", "u32", n * (LINES * LINE_WORDS), "writes",
             "The 68 lines of each point i < n (blst_fp6 layout each), as miller_loop_lines reads them.", align=16)
    k.buffer("q", "u32", n * (2 * POINT_WORDS), "reads",
             "The affine G2 points i < n (blst_p2_affine layout); (0, 0) is infinity.", align=16)
    k.launch(grid_x=div_ceil(n, BLOCK), block=BLOCK)
    return k


class Places:
    """Named Fp2 values in the thread's slot; each operation loads its operands into registers,
    calls the Fp2 code (FP2O: calls into the fp_* .funcs) and stores its result."""

    def __init__(self, f, slot, q, line):
        self.f = f
        self.at = {nm: (slot, FP2_B * i) for i, nm in enumerate(PLACES)}
        self.at.update({"Qx": (q, 0), "Qy": (q, FP2_B), "l0": (line, 0), "l1": (line, FP2_B), "l2": (line, 2 * FP2_B)})

    def ld(self, nm):
        base, off = self.at[nm]
        return ldv(self.f, ptr(self.f, base, off) if off else base, 24, sp="")

    def st(self, nm, regs):
        base, off = self.at[nm]
        stv(self.f, ptr(self.f, base, off) if off else base, regs, sp="")

    def copy(self, dst, src):
        self.st(dst, self.ld(src))

    def __call__(self, dst, op, *srcs):
        """dst = op(srcs): add, sub, mul (two operands), sqr, dbl (one)."""
        out = FP2O.new(self.f)
        FP2O.call(self.f, op, out, *[self.ld(s) for s in srcs])
        self.st(dst, out)


def doubling(e):
    """T = 2T and its line into l0, l1, l2 (blst's line_dbl)."""
    e("A", "sqr", "X"); e("B", "sqr", "Y"); e("ZZ", "sqr", "Z"); e("C", "sqr", "B")
    e("t", "add", "X", "B"); e("t", "sqr", "t"); e("t", "sub", "t", "A"); e("t", "sub", "t", "C")
    e("D", "dbl", "t")
    e("E", "dbl", "A"); e("E", "add", "E", "A")
    e("F", "sqr", "E")
    e("X3", "dbl", "D"); e("X3", "sub", "F", "X3")
    e("t", "add", "Y", "Z"); e("t", "sqr", "t"); e("t", "sub", "t", "B"); e("Z", "sub", "t", "ZZ")  # Z3
    e("t", "sub", "D", "X3"); e("t", "mul", "t", "E")
    e("u", "dbl", "C"); e("u", "dbl", "u"); e("u", "dbl", "u"); e("Y", "sub", "t", "u")  # Y3
    e("t", "add", "E", "X"); e("t", "sqr", "t"); e("t", "sub", "t", "A"); e("t", "sub", "t", "F")
    e("u", "dbl", "B"); e("u", "dbl", "u"); e("l0", "sub", "t", "u")
    e("l1", "mul", "E", "ZZ")
    e("l2", "mul", "Z", "ZZ")
    e.copy("X", "X3")


def addition(e):
    """T = T + Q and its line into l0, l1, l2 (blst's line_add; the names of the doubling's
    places are reused: A = Z1Z1, B = U2 then H, C = S2 then r, D = HH, E = I, F = J, ZZ = V)."""
    e("A", "sqr", "Z")
    e("B", "mul", "Qx", "A")
    e("C", "mul", "Qy", "Z"); e("C", "mul", "C", "A")
    e("B", "sub", "B", "X")  # H
    e("D", "sqr", "B")  # HH
    e("E", "dbl", "D"); e("E", "dbl", "E")  # I
    e("F", "mul", "B", "E")  # J
    e("C", "sub", "C", "Y"); e("C", "dbl", "C")  # r
    e("ZZ", "mul", "X", "E")  # V
    e("X3", "sqr", "C"); e("X3", "sub", "X3", "F"); e("t", "dbl", "ZZ"); e("X3", "sub", "X3", "t")
    e("t", "sub", "ZZ", "X3"); e("t", "mul", "t", "C")
    e("u", "mul", "F", "Y"); e("u", "dbl", "u"); e("Y", "sub", "t", "u")  # Y3
    e("t", "add", "Z", "B"); e("t", "sqr", "t"); e("t", "sub", "t", "A"); e("Z", "sub", "t", "D")  # Z3
    e("t", "mul", "C", "Qx"); e("u", "mul", "Qy", "Z"); e("t", "sub", "t", "u"); e("l0", "dbl", "t")
    e.copy("l1", "C")  # r
    e.copy("l2", "Z")  # Z3
    e.copy("X", "X3")


def lines_kernel():
    f = lines_iface().fn(MaxBlock)
    a = params(f, ["lines", "q"], ["n"], generic=True)
    i = f.global_index()
    end = f.label("end")
    bra(f, end, setp(f, "ge", i, a["n"]))
    table = elem(f, a["lines"], i, LINES * LINE_B)
    q = elem(f, a["q"], i, 8 * POINT_WORDS)
    s = slot(f)
    k = f.t()
    f.op("mov.u32", k, 0)
    qw = ldv(f, q, 2 * POINT_WORDS, sp="")
    top, step_done, inf_top, done = (f.label(x) for x in ("line", "stepped", "one", "done"))
    bra(f, inf_top, FPO.is_zero(f, qw))
    # T = (Qx, Qy, 1)
    e0 = Places(f, s, q, table)
    e0.st("X", qw[:24])
    e0.st("Y", qw[24:])
    z = f.ts(12)
    for x in z:
        f.op("mov.b32", x, 0)
    one = f.ts(12)
    for x, w in zip(one, ONE_FP):
        f.op("mov.b32", x, w)
    e0.st("Z", one + z)
    mask = f.t("d")
    f.op("mov.u64", mask, ADD_LINES)
    f.op("label", top)
    line = elem(f, table, k, LINE_B)
    e = Places(f, s, q, line)
    bit = f.t("d")
    f.op("shr.u64", bit, mask, k)
    f.op("and.b64", bit, bit, 1)
    add = f.t("p")
    f.op("setp.ne.u64", add, bit, 0)
    dbl_lab = f.label("dbl")
    bra(f, dbl_lab, add, True)
    addition(e)
    bra(f, step_done)
    f.op("label", dbl_lab)
    doubling(e)
    f.op("label", step_done)
    f.op("add.u32", k, k, 1)
    bra(f, top, setp(f, "lt", k, LINES))
    bra(f, done)
    # Q at infinity: 68 lines (1, 0, 0)
    f.op("label", inf_top)
    ow = one_words(f)
    for kk in range(LINES):
        stv(f, ptr(f, table, kk * LINE_B) if kk else table, ow, sp="")
    f.op("label", done)
    f.op("label", end)
    return f


def one_words(f):
    """The line (1, 0, 0) as 72 words in registers."""
    r = f.ts(LINE_WORDS)
    for x, w in zip(r, ONE_FP + [0] * (LINE_WORDS - 12)):
        f.op("mov.b32", x, w)
    return r


def kernels():
    return [lines_kernel(), kernel()]


def decls():
    return f".shared .align 16 .b8 {SLOTS}[{BLOCK * SLOT_BYTES}];\n"
