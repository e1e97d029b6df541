"""Fp6 and Fp12 arithmetic with memory operands (generic addresses), blst's tower:
  Fp2 = Fp[u]/(u^2 + 1), Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u, Fp12 = Fp6[w]/(w^2 - v).
Layout as blst_fp12 stores it: Fp12 = c0, c1 (Fp6, 288 bytes each); Fp6 = c0, c1, c2 (Fp2,
96 bytes each); Fp2 = c0, c1 (Fp, 12 little-endian 32-bit Montgomery limbs, R = 2^384):
576 bytes, 16-byte aligned. Every result is canonical (< p), so it equals blst's bit for bit
whatever the formula.

An Fp12 is 144 registers, so each function loads an Fp2 when it needs it and stores each
result Fp2 when it is final; Fp2 arithmetic is emitted inline as calls into the fp_* .funcs.
  fp6_add_m / fp6_sub_m (r, a, b)    r = a +- b componentwise (r may be a or b)
  fp6_add_v_m / fp6_sub_v_m (r, a, b) r = a +- v*b, v*(b0, b1, b2) = (xi*b2, b0, b1) (r may be a or b)
  fp6_mul_m (r, a, b)                 Karatsuba over Fp2: 6 Fp2 products (r distinct from a, b)
  fp6_mul_by_xy0_m (r, a, x, y)       a * (x + y v): 5 Fp2 products (r distinct from a)
  fp6_mul_by_0y0_m (r, a, y)          a * (y v): 3 Fp2 products (r distinct from a)
  fp12_mul_m (r, a, b, s)             Karatsuba over Fp6: a0 b0 + v a1 b1, (a0+a1)(b0+b1) - a0 b0 - a1 b1
  fp12_sqr_m (r, a, s)                a0^2 + v a1^2 = (a0+a1)(a0+v a1) - a0 a1 - v a0 a1, 2 a0 a1
  fp12_mul_by_line_m (r, a, l, s)     a * (l0 + l1 v + l2 v w), blst's mul_by_xy00z0 (13 Fp2 products)
  fp12_conj_m (r, a)                  (a0, -a1)
  line_eval_m (r, l, p)               blst's line_by_Px2: (l0, l1 * p.x, l2 * p.y) for p = (-2x, 2y) of a
                                      G1 point (Fp scalars times each Fp half of l1, l2)
The fp12_* functions take s, a 1,152-byte scratch (4 Fp6) distinct from everything else, and
read all of their inputs before writing r, so r may equal a (and b).
"""
from ir import Fn
from ec import FP2O as F, FPO

W = 24  # words per Fp2
FP2_B, FP6_B = 96, 288  # bytes
SCRATCH_BYTES = 4 * FP6_B


def ld(f, base, off):
    """The Fp2 at byte offset `off` of `base` into 24 registers."""
    r = f.ts(W)
    for k in range(0, W, 4):
        f.op("ld.v4.u32", r[k:k + 4], base, off + 4 * k)
    return r


def st(f, base, off, regs):
    for k in range(0, W, 4):
        f.op("st.v4.u32", base, off + 4 * k, regs[k:k + 4])


def ptr(f, base, off):
    """base + off in a new address register."""
    a = f.t("a")
    f.op("add.u64", a, base, off)
    return a


def mul_xi(f, a):
    """a * (1 + u) = (a0 - a1) + (a0 + a1) u."""
    return FPO.sub(f, a[:12], a[12:]) + FPO.add(f, a[:12], a[12:])


def mk(Fs, name, nin, doc):
    f = Fn(name, 0, nin, doc=doc, ty="b64")
    Fs.append(f)
    return f, f.ins


def fp6_funcs():
    Fs = []
    for nm in ("add", "sub"):
        f, (r, a, b) = mk(Fs, f"fp6_{nm}_m", 3, f"fp6_{nm}_m(r, a, b): *r = *a {'+-'[nm == 'sub']} *b in Fp6")
        for k in range(3):
            o = k * FP2_B
            st(f, r, o, getattr(F, nm)(f, ld(f, a, o), ld(f, b, o)))
        f, (r, a, b) = mk(Fs, f"fp6_{nm}_v_m", 3, f"fp6_{nm}_v_m(r, a, b): *r = *a {'+-'[nm == 'sub']} v * *b in Fp6")
        vb = [mul_xi(f, ld(f, b, 2 * FP2_B)), ld(f, b, 0), ld(f, b, FP2_B)]
        for k in range(3):
            o = k * FP2_B
            st(f, r, o, getattr(F, nm)(f, ld(f, a, o), vb[k]))

    f, (r, a, b) = mk(Fs, "fp6_mul_m", 3, "fp6_mul_m(r, a, b): *r = *a * *b in Fp6 (Karatsuba; r distinct from a, b)")
    A = lambda k: ld(f, a, k * FP2_B)
    B = lambda k: ld(f, b, k * FP2_B)
    t0, t1, t2 = F.mul(f, A(0), B(0)), F.mul(f, A(1), B(1)), F.mul(f, A(2), B(2))
    # r2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 = a0 b2 + a2 b0 + a1 b1
    m = F.mul(f, F.add(f, A(0), A(2)), F.add(f, B(0), B(2)))
    st(f, r, 2 * FP2_B, F.add(f, F.sub(f, F.sub(f, m, t0), t2), t1))
    # r1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2 = a0 b1 + a1 b0 + xi a2 b2
    m = F.mul(f, F.add(f, A(0), A(1)), F.add(f, B(0), B(1)))
    st(f, r, FP2_B, F.add(f, F.sub(f, F.sub(f, m, t0), t1), mul_xi(f, t2)))
    # r0 = xi ((a1 + a2)(b1 + b2) - t1 - t2) + t0 = xi (a1 b2 + a2 b1) + a0 b0
    m = F.mul(f, F.add(f, A(1), A(2)), F.add(f, B(1), B(2)))
    st(f, r, 0, F.add(f, mul_xi(f, F.sub(f, F.sub(f, m, t1), t2)), t0))

    f, (r, a, x, y) = mk(Fs, "fp6_mul_by_xy0_m", 4,
                         "fp6_mul_by_xy0_m(r, a, x, y): *r = *a * (*x + *y v) in Fp6 (x, y in Fp2; r distinct from a)")
    A = lambda k: ld(f, a, k * FP2_B)
    t0, t1 = F.mul(f, A(0), ld(f, x, 0)), F.mul(f, A(1), ld(f, y, 0))
    st(f, r, 2 * FP2_B, F.add(f, F.mul(f, A(2), ld(f, x, 0)), t1))  # a2 x + a1 y
    m = F.mul(f, F.add(f, A(0), A(1)), F.add(f, ld(f, x, 0), ld(f, y, 0)))
    st(f, r, FP2_B, F.sub(f, F.sub(f, m, t0), t1))  # a0 y + a1 x
    st(f, r, 0, F.add(f, mul_xi(f, F.mul(f, A(2), ld(f, y, 0))), t0))  # xi a2 y + a0 x

    f, (r, a, y) = mk(Fs, "fp6_mul_by_0y0_m", 3,
                      "fp6_mul_by_0y0_m(r, a, y): *r = *a * (*y v) in Fp6 (y in Fp2; r distinct from a)")
    yv = ld(f, y, 0)
    st(f, r, 0, mul_xi(f, F.mul(f, ld(f, a, 2 * FP2_B), yv)))  # xi a2 y
    st(f, r, FP2_B, F.mul(f, ld(f, a, 0), yv))  # a0 y
    st(f, r, 2 * FP2_B, F.mul(f, ld(f, a, FP2_B), yv))  # a1 y
    return Fs


def call(f, name, *ptrs):
    f.op("call", name, [], list(ptrs))


def fp12_funcs():
    Fs = []
    f, (r, a, b, s) = mk(Fs, "fp12_mul_m", 4, "fp12_mul_m(r, a, b, s): *r = *a * *b in Fp12 (s: scratch)")
    a1, b1, r1 = ptr(f, a, FP6_B), ptr(f, b, FP6_B), ptr(f, r, FP6_B)
    S = [s] + [ptr(f, s, k * FP6_B) for k in (1, 2, 3)]
    call(f, "fp6_add_m", S[0], a, a1)
    call(f, "fp6_add_m", S[1], b, b1)
    call(f, "fp6_mul_m", S[2], a, b)
    call(f, "fp6_mul_m", S[3], a1, b1)
    call(f, "fp6_mul_m", r1, S[0], S[1])  # (a0 + a1)(b0 + b1) - a0 b0 - a1 b1
    call(f, "fp6_sub_m", r1, r1, S[2])
    call(f, "fp6_sub_m", r1, r1, S[3])
    call(f, "fp6_add_v_m", r, S[2], S[3])  # a0 b0 + v a1 b1

    f, (r, a, s) = mk(Fs, "fp12_sqr_m", 3, "fp12_sqr_m(r, a, s): *r = *a ^ 2 in Fp12 (s: scratch)")
    a1, r1 = ptr(f, a, FP6_B), ptr(f, r, FP6_B)
    S = [s] + [ptr(f, s, k * FP6_B) for k in (1, 2)]
    call(f, "fp6_add_m", S[0], a, a1)
    call(f, "fp6_add_v_m", S[1], a, a1)
    call(f, "fp6_mul_m", S[2], a, a1)
    call(f, "fp6_mul_m", r, S[0], S[1])  # (a0 + a1)(a0 + v a1) - a0 a1 - v a0 a1 = a0^2 + v a1^2
    call(f, "fp6_sub_m", r, r, S[2])
    call(f, "fp6_sub_v_m", r, r, S[2])
    call(f, "fp6_add_m", r1, S[2], S[2])  # 2 a0 a1

    f, (r, a, l, s) = mk(Fs, "fp12_mul_by_line_m", 4,
                         "fp12_mul_by_line_m(r, a, l, s): *r = *a * (l0 + l1 v + l2 v w) in Fp12, l = (l0, l1, l2) Fp2\n"
                         "at *l (blst's mul_by_xy00z0; s: scratch, l distinct from r)")
    a1, r1 = ptr(f, a, FP6_B), ptr(f, r, FP6_B)
    l1, l2 = ptr(f, l, FP2_B), ptr(f, l, 2 * FP2_B)
    S = [s] + [ptr(f, s, k * FP6_B) for k in (1, 2, 3)]
    call(f, "fp6_mul_by_xy0_m", S[0], a, l, l1)  # a0 (l0 + l1 v)
    call(f, "fp6_mul_by_0y0_m", S[1], a1, l2)  # a1 (l2 v)
    call(f, "fp6_add_m", S[2], a, a1)
    st(f, S[3], 0, F.add(f, ld(f, l, FP2_B), ld(f, l, 2 * FP2_B)))  # l1 + l2
    call(f, "fp6_mul_by_xy0_m", r1, S[2], l, S[3])  # (a0 + a1)(l0 + (l1 + l2) v) - S0 - S1
    call(f, "fp6_sub_m", r1, r1, S[0])
    call(f, "fp6_sub_m", r1, r1, S[1])
    call(f, "fp6_add_v_m", r, S[0], S[1])  # S0 + v S1

    f, (r, a) = mk(Fs, "fp12_conj_m", 2, "fp12_conj_m(r, a): *r = (a0, -a1), the conjugate (Frobenius^6)")
    for k in range(6):
        o = k * FP2_B // 2
        x = f.ts(12)
        for j in range(0, 12, 4):
            f.op("ld.v4.u32", x[j:j + 4], a, o + 4 * j)
        for j in range(0, 12, 4):
            f.op("st.v4.u32", r, o + 4 * j, x[j:j + 4])
    for k in range(6):
        o = FP6_B + k * FP2_B // 2
        x = f.ts(12)
        for j in range(0, 12, 4):
            f.op("ld.v4.u32", x[j:j + 4], a, o + 4 * j)
        y = FPO.new(f)
        f.op("call", "fp_neg", y, x)
        for j in range(0, 12, 4):
            f.op("st.v4.u32", r, o + 4 * j, y[j:j + 4])

    f, (r, l, p) = mk(Fs, "line_eval_m", 3,
                      "line_eval_m(r, l, p): *r = (l0, l1 * p.x, l2 * p.y), blst's line_by_Px2, for p = (-2x, 2y)\n"
                      "of a G1 point (2 Fp at *p); r may equal l")
    px, py = f.ts(12), f.ts(12)
    for j in range(0, 12, 4):
        f.op("ld.v4.u32", px[j:j + 4], p, 4 * j)
        f.op("ld.v4.u32", py[j:j + 4], p, 48 + 4 * j)
    st(f, r, 0, ld(f, l, 0))
    for k, sc in ((1, px), (2, py)):
        c = ld(f, l, k * FP2_B)
        st(f, r, k * FP2_B, FPO.mul(f, c[:12], sc) + FPO.mul(f, c[12:], sc))
    return Fs


def funcs():
    return fp6_funcs() + fp12_funcs()


# ---- self-test kernels (module selftest): out[i] = op(in0[i][, in1[i]]), checked against blst ----
BLOCK = 32  # threads per block: one shared slot each
SLOT_BYTES = SCRATCH_BYTES + 3 * FP2_B + FP2_B  # scratch, an evaluated line, (-2x, 2y)
SLOTS = "fp12_slots"


class MaxBlock(Fn):
    """A kernel of at most BLOCK threads per block (.maxntid): the shared slots bound it."""

    def ptx(self):
        return super().ptx().replace(")\n{", f")\n.maxntid {BLOCK}, 1, 1\n{{", 1)


def slot(f, slots=SLOTS, slot_bytes=SLOT_BYTES):
    """Generic address of this thread's shared slot in the array `slots` of `slot_bytes` a thread
    (the self-tests' by default; module miller has its own)."""
    base, off, tid, a = f.t("a"), f.t("a"), f.t(), f.t("a")
    f.op("mov.u64", base, slots)
    f.op("cvta.shared.u64", base, base)
    f.op("mov.u32", tid, "%tid.x")
    f.op("mul.wide.u32", off, tid, slot_bytes)
    f.op("add.s64", a, base, off)
    return a


def selftest_kernel(name, in_words, doc, body):
    from kernels import elementwise_iface, prologue, addr
    k = elementwise_iface(name, doc + f"\n(blocks of at most {BLOCK} threads: one shared slot of {SLOT_BYTES} B each)",
                          in_words, 144)
    f = k.fn(MaxBlock)
    ptrs = ["out"] + [f"in{j}" for j in range(len(in_words))]
    regs, idx, end = prologue(f, ptrs, generic=True)
    args = [addr(f, regs[p], idx, 4 * w) for p, w in zip(ptrs, [144] + in_words)]
    body(f, slot(f), *args)
    f.op("label", end)
    return f


def line_at_point(f, s, l):
    """The line at l (3 Fp2) evaluated at the affine G1 point after it (x, y) into the slot's
    line; returns the line's address."""
    x, y = f.ts(12), f.ts(12)
    for j in range(0, 12, 4):
        f.op("ld.v4.u32", x[j:j + 4], l, 3 * FP2_B + 4 * j)
        f.op("ld.v4.u32", y[j:j + 4], l, 3 * FP2_B + 48 + 4 * j)
    p = ptr(f, s, SCRATCH_BYTES + 3 * FP2_B)
    mx = FPO.new(f)
    FPO.call(f, "neg", mx, FPO.dbl(f, x))
    for j, v in ((0, mx), (48, FPO.dbl(f, y))):
        for k in range(0, 12, 4):
            f.op("st.v4.u32", p, j + 4 * k, v[k:k + 4])
    le = ptr(f, s, SCRATCH_BYTES)
    call(f, "line_eval_m", le, l, p)
    return le


def selftest_kernels():
    return [
        selftest_kernel("k_fp12_mul", [144, 144], "out[i] = fp12_mul_m(in0[i], in1[i])",
                        lambda f, s, o, a, b: call(f, "fp12_mul_m", o, a, b, s)),
        selftest_kernel("k_fp12_sqr", [144], "out[i] = fp12_sqr_m(in0[i])",
                        lambda f, s, o, a: call(f, "fp12_sqr_m", o, a, s)),
        selftest_kernel("k_fp12_mul_by_line", [144, 96],
                        "out[i] = fp12_mul_by_line_m(in0[i], line_eval_m(l, (-2x, 2y))), in1[i] = l (3 Fp2, blst's\n"
                        "precomputed line) then the affine G1 point (x, y)",
                        lambda f, s, o, a, l: call(f, "fp12_mul_by_line_m", o, a, line_at_point(f, s, l), s)),
    ]


def decls():
    return f".shared .align 16 .b8 {SLOTS}[{BLOCK * SLOT_BYTES}];\n"
