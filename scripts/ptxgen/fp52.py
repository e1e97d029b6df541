"""Fp381 Montgomery multiplication on the FP64 pipe (a first measurement of
running the limb products on the double-precision units beside the integer
ones; after Emmart, Zheng & Weems, "Faster modular exponentiation
using double precision floating point arithmetic on the GPU", ARITH 2018).

Representation: 8 limbs of 52 bits, each held exactly in a double; R = 2^416;
values kept < 2p (4p < R, so a CIOS-style reduction maps [0,2p)^2 -> [0,2p)).

Each 52x52-bit product a*b = hi*2^52 + lo costs three FP64 operations:
    t = fma.rz(a, b, 2^104)           -> bits(t) = bits(2^104) + hi
    s = (2^104 + 2^52) - t            (exact)
    l = fma.rn(a, b, s)               -> l = 2^52 + lo, bits(l) = bits(2^52) + lo
The raw bit patterns are summed into 64-bit integer column accumulators; the
constant exponent offsets have zero low 52 bits, so the Montgomery digit
q = (col mod 2^52) * (-p^-1) mod 2^52 is read from the raw column, and the
offsets are subtracted (one immediate per column) only before a carry shift.
Product scanning for a*b (64 products), then 8 sequential reduction rows
(64 products), then carry normalisation: 384 FP64 ops + 256 64-bit adds.
"""
from ir import Fn, dimm
from ff import FP, P, limbs

C1, C2 = 1 << 104, 1 << 52
BITS_C1 = (1023 + 104) << 52
BITS_C2 = (1023 + 52) << 52
MASK52 = (1 << 52) - 1
PINV52 = (-pow(P, -1, 1 << 52)) % (1 << 52)
P52 = [(P >> (52 * j)) & MASK52 for j in range(8)]
M64 = (1 << 64) - 1


def product(f, col, cnt, k, a, b):
    """col[k] += lo(a*b), col[k+1] += hi(a*b) (raw bit patterns)."""
    t, s, l = f.t("f"), f.t("f"), f.t("f")
    tb, lb = f.t("d"), f.t("d")
    f.op("fma.rz.f64", t, a, b, dimm(C1))
    f.op("sub.rn.f64", s, dimm(C1 + C2), t)
    f.op("fma.rn.f64", l, a, b, s)
    f.op("mov.b64.from_f64", tb, t)
    f.op("mov.b64.from_f64", lb, l)
    f.op("add.s64", col[k], col[k], lb)
    f.op("add.s64", col[k + 1], col[k + 1], tb)
    cnt[k][1] += 1
    cnt[k + 1][0] += 1


def to_f64(f, out, x):
    """out (f64) = x (u64 < 2^52), exactly: bits(2^52 + x) - 2^52."""
    t, u = f.t("d"), f.t("f")
    f.op("or.b64", t, x, BITS_C2)
    f.op("mov.b64.to_f64", u, t)
    f.op("sub.rn.f64", out, u, dimm(C2))


def emit_mul(f, out, a, b):
    """out = a*b/2^416 mod p (< 2p), all lists of 8 f64 registers; out may alias a."""
    col = f.ts(17, "d")
    cnt = [[0, 0] for _ in range(17)]  # (#hi, #lo) raw terms per column
    for c in col:
        f.op("mov.b64", c, 0)
    for k in range(15):  # product scanning by column
        for i in range(8):
            j = k - i
            if 0 <= j < 8:
                product(f, col, cnt, k, a[i], b[j])
    for i in range(8):  # reduction rows
        lo, q, qd = f.t("d"), f.t("d"), f.t("f")
        f.op("and.b64", lo, col[i], MASK52)
        f.op("mul.lo.u64", q, lo, PINV52)
        f.op("and.b64", q, q, MASK52)
        to_f64(f, qd, q)
        for j in range(8):
            product(f, col, cnt, i + j, qd, dimm(P52[j]))
        corr = (cnt[i][0] * BITS_C1 + cnt[i][1] * BITS_C2) & M64
        c = f.t("d")
        f.op("sub.s64", c, col[i], corr)
        f.op("shr.u64", c, c, 52)
        f.op("add.s64", col[i + 1], col[i + 1], c)
    carry = None
    for k in range(8):
        v = f.t("d")
        corr = (cnt[8 + k][0] * BITS_C1 + cnt[8 + k][1] * BITS_C2) & M64
        f.op("sub.s64", v, col[8 + k], corr)
        if carry is not None:
            f.op("add.s64", v, v, carry)
        r = f.t("d")
        f.op("and.b64", r, v, MASK52)
        carry = f.t("d")
        f.op("shr.u64", carry, v, 52)
        to_f64(f, out[k], r)


def funcs():
    F = []
    f = Fn("fp52_mul", 8, 16, ty="f64",
           doc="fp52_mul: a*b/2^416 mod p on 8x52-bit limbs held in doubles (FP64 FMA pipe);\n"
               "inputs and output < 2p")
    F.append(f)
    emit_mul(f, f.outs, f.ins[:8], f.ins[8:])

    # conversions between the 12x32-bit and the 8x52-bit representations
    f = Fn("fp52_from32", 8, 12, doc="fp52_from32: 12x32-bit limbs (< 2p) -> 8x52-bit limbs in doubles")
    F.append(f)
    f.out_ty = "f64"
    z = f.t()
    f.op("mov.b32", z, 0)
    w = f.ins + [z, z]
    for k in range(8):
        o = 52 * k
        wi, sh = o // 32, o % 32
        lo64, hi, x = f.t("d"), f.t("d"), f.t("d")
        f.op("mov.b64.pack", lo64, w[wi], w[wi + 1])
        f.op("shr.u64", x, lo64, sh)
        if sh > 12:  # 52 bits span into a third word
            t3 = f.t("d")
            f.op("mov.b64.pack", t3, w[wi + 2], z)
            f.op("shl.b64", hi, t3, 64 - sh)
            f.op("or.b64", x, x, hi)
        f.op("and.b64", x, x, MASK52)
        to_f64(f, f.outs[k], x)
    f2 = Fn("fp52_to32", 12, 8, doc="fp52_to32: 8x52-bit limbs in doubles (value < 2p) -> 12x32-bit limbs < p")
    F.append(f2)
    f = f2
    f.in_ty = "f64"
    r = []
    for k in range(8):
        t, x = f.t("f"), f.t("d")
        f.op("add.rn.f64", t, f.ins[k], dimm(C2))
        f.op("mov.b64.from_f64", x, t)
        f.op("and.b64", x, x, MASK52)
        r.append(x)
    words = f.ts(12)
    for m in range(12):
        acc = None
        for k in range(8):
            lo, hi = 52 * k, 52 * k + 52
            if hi <= 32 * m or lo >= 32 * m + 32:
                continue
            x = f.t("d")
            if lo >= 32 * m:
                f.op("shl.b64", x, r[k], lo - 32 * m)
            else:
                f.op("shr.u64", x, r[k], 32 * m - lo)
            if acc is None:
                acc = x
            else:
                f.op("or.b64", acc, acc, x)
        junk = f.t()
        f.op("mov.b64.unpack", words[m], junk, acc)
    FP.final_sub(f, words)
    for m in range(12):
        f.op("mov.b32", f.outs[m], words[m])
    return F
