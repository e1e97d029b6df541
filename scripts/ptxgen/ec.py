"""Fp2 and elliptic-curve code generators (BLS12-381 G1 over Fp, G2 over Fp2).

Fp2 = Fp[u]/(u^2+1): mul by Karatsuba (3 Fp mul), sqr as (a0+a1)(a0-a1), 2a0a1.
Inversion: Fermat (a^(p-2), left-to-right square-and-multiply over the constant
exponent); Fp2 inverse via the norm a0^2+a1^2.

Points in XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity: ZZ = 0),
affine points as (x, y) with (0, 0) = infinity (not on the curve y^2 = x^3 + b).
Formulas (a = 0), from the Explicit-Formulas Database, "xyzz" family:
  add  = add-2008-s, madd = madd-2008-s, dbl = dbl-2008-s-1.
Special cases branch (warp-uniform in practice): either input at infinity,
P = Q (doubling), P = -Q (infinity).
"""
from ir import Fn
from ff import FP, P, limbs

ONE_FP = limbs(pow(2, 384, P), 12)


class F2:
    """Field-ops facade: emits calls into fp_* or fp2_* .funcs."""

    def __init__(self, pre, n, one):
        self.pre, self.n, self.one = pre, n, one

    def call(self, f, name, out, *args):
        f.op("call", f"{self.pre}_{name}", out, sum([list(a) for a in args], []))

    def new(self, f):
        return f.ts(self.n)

    def mul(self, f, a, b):
        o = self.new(f); self.call(f, "mul", o, a, b); return o

    def sqr(self, f, a):
        o = self.new(f); self.call(f, "sqr", o, a); return o

    def add(self, f, a, b):
        o = self.new(f); self.call(f, "add", o, a, b); return o

    def sub(self, f, a, b):
        o = self.new(f); self.call(f, "sub", o, a, b); return o

    def dbl(self, f, a):
        o = self.new(f); self.call(f, "dbl", o, a); return o

    def mul_sub_mul(self, f, a, b, c, d, out=None):
        """a*b - c*d (into out, or new registers): two products and a
        subtraction (FpInline: one reduction)."""
        t = self.mul(f, c, d)
        o = out or self.new(f)
        self.call(f, "sub", o, self.mul(f, a, b), t)
        return o

    def is_zero(self, f, *xs):
        z, p = f.t(), f.t("p")
        regs = sum([list(x) for x in xs], [])
        f.op("or.b32", z, regs[0], regs[1])
        for r in regs[2:]:
            f.op("or.b32", z, z, r)
        f.op("setp.eq.u32", p, z, 0)
        return p


class F2Inline(F2):
    """Fp2 arithmetic emitted inline as calls into the fp_* .funcs (one call
    level fewer than calling fp2_* .funcs: ptxas gives every non-ABI callee
    its own registers, so nesting depth costs registers in G2)."""

    def __init__(self):
        super().__init__("fp2", 24, ONE_FP + [0] * 12)

    def call(self, f, name, out, *args):
        a = sum([list(x) for x in args], [])
        lo, hi = slice(0, 12), slice(12, 24)
        if name in ("add", "sub"):
            f.op("call", f"fp_{name}", out[lo], a[0:12] + a[24:36])
            f.op("call", f"fp_{name}", out[hi], a[12:24] + a[36:48])
        elif name in ("dbl", "neg"):
            f.op("call", f"fp_{name}", out[lo], a[lo])
            f.op("call", f"fp_{name}", out[hi], a[hi])
        elif name == "mul":
            a0, a1, b0, b1 = a[0:12], a[12:24], a[24:36], a[36:48]
            sa, sb = FPO.add(f, a0, a1), FPO.add(f, b0, b1)
            t0 = FPO.mul(f, a0, b0)
            t1 = FPO.mul(f, a1, b1)
            t2 = FPO.mul(f, sa, sb)
            f.op("call", "fp_sub", out[lo], t0 + t1)
            f.op("call", "fp_sub", out[hi], FPO.sub(f, t2, t0) + t1)
        elif name == "sqr":
            a0, a1 = a[lo], a[hi]
            s, d = FPO.add(f, a0, a1), FPO.sub(f, a0, a1)
            m = FPO.mul(f, a0, a1)
            f.op("call", "fp_mul", out[lo], s + d)
            f.op("call", "fp_dbl", out[hi], m)
        else:
            f.op("call", f"fp2_{name}", out, a)


class FpInline(F2):
    """Fp arithmetic emitted inline (the limb code of ff.py expanded in place,
    no calls): lets ptxas schedule across operations and avoids the register
    moves of the non-ABI call convention. Used for G1, whose live set fits."""

    def __init__(self):
        super().__init__("fp", 12, ONE_FP)

    def call(self, f, name, out, *args):
        a = sum([list(x) for x in args], [])
        FP = __import__("ff").FP
        if name == "mul":
            FP.emit_mul(f, out, a[:12], a[12:])
        elif name == "sqr":
            FP.emit_sqr(f, out, a)
        elif name == "add":
            FP.emit_add(f, out, a[:12], a[12:])
        elif name == "sub":
            FP.emit_sub(f, out, a[:12], a[12:])
        elif name == "dbl":
            FP.emit_add(f, out, a, a)
        elif name == "neg":
            FP.emit_neg(f, out, a)
        elif name == "mul_add_mul":
            FP.emit_mul_add_mul(f, out, a[:12], a[12:24], a[24:36], a[36:])
        else:
            f.op("call", f"fp_{name}", out, a)

    def mul_sub_mul(self, f, a, b, c, d, out=None):
        """a*b - c*d = (a*b + (p - c)*d)/R with one Montgomery reduction (lazy
        reduction, ff.Field.emit_mul_add_mul); p - c is left non-canonical
        (p for c = 0), which the sum's bound allows."""
        nc = self.new(f)
        FP.emit_neg(f, nc, c, canonical=False)
        o = out or self.new(f)
        self.call(f, "mul_add_mul", o, a, b, nc, d)
        return o


FPO = F2("fp", 12, ONE_FP)
FP2O = F2Inline()
FPI = FpInline()


def consts(f, vals):
    r = f.ts(len(vals))
    for d, v in zip(r, vals):
        f.op("mov.b32", d, v)
    return r


def movs(f, dst, src):
    for d, s in zip(dst, src):
        f.op("mov.b32", d, s)


def fp2_funcs():
    F = []
    n = 12

    def mk(name, nout, nin, doc):
        f = Fn(f"fp2_{name}", nout, nin, doc=doc)
        F.append(f)
        return f, f.outs, f.ins

    for nm in ("add", "sub"):
        f, o, i = mk(nm, 24, 48, f"fp2_{nm}: componentwise fp_{nm}")
        f.op("call", f"fp_{nm}", o[:n], i[0:n] + i[24:36])
        f.op("call", f"fp_{nm}", o[n:], i[n:24] + i[36:48])
    for nm in ("neg", "dbl"):
        f, o, i = mk(nm, 24, 24, f"fp2_{nm}: componentwise fp_{nm}")
        f.op("call", f"fp_{nm}", o[:n], i[:n])
        f.op("call", f"fp_{nm}", o[n:], i[n:])
    f, o, i = mk("mul", 24, 48, "fp2_mul: Karatsuba, u^2 = -1")
    a0, a1, b0, b1 = i[0:12], i[12:24], i[24:36], i[36:48]
    sa, sb = FPO.add(f, a0, a1), FPO.add(f, b0, b1)
    t0, t1 = FPO.mul(f, a0, b0), FPO.mul(f, a1, b1)
    t2 = FPO.mul(f, sa, sb)
    f.op("call", "fp_sub", o[:n], t0 + t1)
    t3 = FPO.sub(f, t2, t0)
    f.op("call", "fp_sub", o[n:], t3 + t1)
    f, o, i = mk("sqr", 24, 24, "fp2_sqr: (a0+a1)(a0-a1) + 2 a0 a1 u")
    a0, a1 = i[0:12], i[12:24]
    s, d = FPO.add(f, a0, a1), FPO.sub(f, a0, a1)
    f.op("call", "fp_mul", o[:n], s + d)
    m = FPO.mul(f, a0, a1)
    f.op("call", "fp_dbl", o[n:], m)
    # Fermat inversion in Fp
    f, o, i = mk("inv_fp", 12, 12, "fp_inv: a^(p-2) in Fp (Fermat; 0 -> 0), left-to-right square-and-multiply")
    f.name = "fp_inv"
    acc = f.ts(12)
    movs(f, acc, ONE_FP)
    e = P - 2
    for w in reversed(limbs(e, 12)):
        if w == 0:
            for _ in range(32):
                f.op("call", "fp_sqr", acc, acc)
            continue
        ctr, wr, bit, pb, pl = f.t(), f.t(), f.t(), f.t("p"), f.t("p")
        top = f.label("inv")
        skip = f.label("inv")
        f.op("mov.b32", ctr, 31)
        f.op("mov.b32", wr, w)
        f.op("label", top)
        f.op("call", "fp_sqr", acc, acc)
        f.op("shr.u32", bit, wr, ctr)
        f.op("and.b32", bit, bit, 1)
        f.op("setp.eq.u32", pb, bit, 0)
        f.op("bra", skip, pb, False)
        f.op("call", "fp_mul", acc, acc + i)
        f.op("label", skip)
        f.op("setp.ne.u32", pl, ctr, 0)
        f.op("sub.u32", ctr, ctr, 1)
        f.op("bra", top, pl, False)
    movs(f, o, acc)
    f, o, i = mk("inv", 24, 24, "fp2_inv: (a0 - a1 u) / (a0^2 + a1^2)")
    a0, a1 = i[0:12], i[12:24]
    nrm = FPO.add(f, FPO.sqr(f, a0), FPO.sqr(f, a1))
    ti = f.ts(12)
    f.op("call", "fp_inv", ti, nrm)
    f.op("call", "fp_mul", o[:n], a0 + ti)
    m = FPO.mul(f, a1, ti)
    f.op("call", "fp_neg", o[n:], m)
    return F


class Curve:
    def __init__(self, pre, fo, b_mont, cold=None):
        """fo: field facade of the hot functions (add, madd, dbl); cold: of the
        conversions (to_affine, to_jacobian, on_curve), default fo."""
        self.pre, self.F, self.b, self.cold = pre, fo, b_mont, cold or fo

    def funcs(self):
        F, n, pre = [], self.F.n, self.pre
        Fo = self.F

        def mk(name, nout, nin, doc):
            f = Fn(f"{pre}_{name}", nout, nin, doc=doc)
            F.append(f)
            return f, f.outs, f.ins

        def split(regs, k):
            return [regs[j * n:(j + 1) * n] for j in range(k)]

        # ---- dbl ---------------------------------------------------------
        f, o, i = mk("dbl", 4 * n, 4 * n, f"{pre}_dbl: XYZZ doubling (dbl-2008-s-1, a = 0); infinity stays infinity")
        X1, Y1, ZZ1, ZZZ1 = split(i, 4)
        oX, oY, oZZ, oZZZ = split(o, 4)
        U = Fo.dbl(f, Y1)
        V = Fo.sqr(f, U)
        W = Fo.mul(f, U, V)
        S = Fo.mul(f, X1, V)
        x2 = Fo.sqr(f, X1)
        M = Fo.add(f, Fo.dbl(f, x2), x2)
        t = Fo.sub(f, Fo.sqr(f, M), Fo.dbl(f, S))
        movs(f, oX, t)
        Y3 = Fo.mul_sub_mul(f, M, Fo.sub(f, S, t), Y1, W)
        movs(f, oY, Y3)
        Fo.call(f, "mul", oZZ, V, ZZ1)
        Fo.call(f, "mul", oZZZ, W, ZZZ1)

        # ---- madd --------------------------------------------------------
        f, o, i = mk("madd", 4 * n, 6 * n,
                     f"{pre}_madd: XYZZ + affine (madd-2008-s); affine (0,0) = infinity")
        X1, Y1, ZZ1, ZZZ1, x2, y2 = split(i, 6)
        Lend, Lp1, Lq, Lsp, Ldbl = (f.label(s) for s in ("end", "p1", "q", "sp", "dbl"))
        inf2 = Fo.is_zero(f, x2, y2)
        f.op("bra", Lp1, inf2, False)
        inf1 = Fo.is_zero(f, ZZ1)
        f.op("bra", Lq, inf1, False)
        U2 = Fo.mul(f, x2, ZZ1)
        S2 = Fo.mul(f, y2, ZZZ1)
        Pd = Fo.sub(f, U2, X1)
        Rd = Fo.sub(f, S2, Y1)
        zp = Fo.is_zero(f, Pd)
        f.op("bra", Lsp, zp, False)
        self.tail(f, o, X1, Y1, Pd, Rd, ZZ1, ZZZ1, None, None)
        f.op("bra", Lend, None, False)
        f.op("label", Lsp)
        zr = Fo.is_zero(f, Rd)
        f.op("bra", Ldbl, zr, False)
        for r in o:
            f.op("mov.b32", r, 0)
        f.op("bra", Lend, None, False)
        f.op("label", Ldbl)
        one = consts(f, Fo.one)
        f.op("call", f"{pre}_dbl", o, x2 + y2 + one + one)
        f.op("bra", Lend, None, False)
        f.op("label", Lp1)
        movs(f, o, i[:4 * n])
        f.op("bra", Lend, None, False)
        f.op("label", Lq)
        movs(f, o, x2 + y2 + Fo.one + Fo.one)
        f.op("label", Lend)

        # ---- add ---------------------------------------------------------
        f, o, i = mk("add", 4 * n, 8 * n, f"{pre}_add: XYZZ + XYZZ (add-2008-s)")
        X1, Y1, ZZ1, ZZZ1, X2, Y2, ZZ2, ZZZ2 = split(i, 8)
        Lend, Lp1, Lp2, Lsp, Ldbl = (f.label(s) for s in ("end", "p1", "p2", "sp", "dbl"))
        inf2 = Fo.is_zero(f, ZZ2)
        f.op("bra", Lp1, inf2, False)
        inf1 = Fo.is_zero(f, ZZ1)
        f.op("bra", Lp2, inf1, False)
        U1 = Fo.mul(f, X1, ZZ2)
        U2 = Fo.mul(f, X2, ZZ1)
        S1 = Fo.mul(f, Y1, ZZZ2)
        S2 = Fo.mul(f, Y2, ZZZ1)
        Pd = Fo.sub(f, U2, U1)
        Rd = Fo.sub(f, S2, S1)
        zp = Fo.is_zero(f, Pd)
        f.op("bra", Lsp, zp, False)
        self.tail(f, o, U1, S1, Pd, Rd, ZZ1, ZZZ1, ZZ2, ZZZ2)
        f.op("bra", Lend, None, False)
        f.op("label", Lsp)
        zr = Fo.is_zero(f, Rd)
        f.op("bra", Ldbl, zr, False)
        for r in o:
            f.op("mov.b32", r, 0)
        f.op("bra", Lend, None, False)
        f.op("label", Ldbl)
        f.op("call", f"{pre}_dbl", o, i[:4 * n])
        f.op("bra", Lend, None, False)
        f.op("label", Lp1)
        movs(f, o, i[:4 * n])
        f.op("bra", Lend, None, False)
        f.op("label", Lp2)
        movs(f, o, i[4 * n:])
        f.op("label", Lend)

        # ---- conversions -------------------------------------------------
        Fo = self.cold
        f, o, i = mk("to_affine", 2 * n, 4 * n,
                     f"{pre}_to_affine: XYZZ -> affine with one inversion of ZZ*ZZZ; infinity -> (0,0)")
        X, Y, ZZ, ZZZ = split(i, 4)
        Lend, Linf = f.label("end"), f.label("inf")
        f.op("bra", Linf, Fo.is_zero(f, ZZ), False)
        t = Fo.mul(f, ZZ, ZZZ)
        ti = Fo.new(f)
        Fo.call(f, "inv", ti, t)
        Fo.call(f, "mul", o[:n], Fo.mul(f, X, ZZZ), ti)
        Fo.call(f, "mul", o[n:], Fo.mul(f, Y, ZZ), ti)
        f.op("bra", Lend, None, False)
        f.op("label", Linf)
        for r in o:
            f.op("mov.b32", r, 0)
        f.op("label", Lend)
        f, o, i = mk("to_jacobian", 3 * n, 4 * n,
                     f"{pre}_to_jacobian: XYZZ -> Jacobian (X ZZ ZZZ^2, Y ZZ^3 ZZZ^2, ZZ ZZZ); infinity -> Z = 0")
        X, Y, ZZ, ZZZ = split(i, 4)
        z2 = Fo.sqr(f, ZZZ)
        Fo.call(f, "mul", o[:n], Fo.mul(f, X, ZZ), z2)
        zz3 = Fo.mul(f, Fo.sqr(f, ZZ), ZZ)
        Fo.call(f, "mul", o[n:2 * n], Fo.mul(f, Y, zz3), z2)
        Fo.call(f, "mul", o[2 * n:], ZZ, ZZZ)
        f, o, i = mk("on_curve", 1, 2 * n, f"{pre}_on_curve: affine y^2 == x^3 + b (1/0); (0,0) -> 1")
        x, y = split(i, 2)
        lhs = Fo.sqr(f, y)
        rhs = Fo.add(f, Fo.mul(f, Fo.sqr(f, x), x), consts(f, self.b))
        d = Fo.sub(f, lhs, rhs)
        pz, pi, q = Fo.is_zero(f, d), Fo.is_zero(f, x, y), f.t("p")
        f.op("or.pred", q, pz, pi)
        f.op("selp.b32", o[0], 1, 0, q)
        return F

    def tail(self, f, o, X1, Y1, Pd, Rd, ZZ1, ZZZ1, ZZ2, ZZZ2):
        """Common end of add/madd (X1/Y1 are U1/S1 for add). Ordered so that
        each input dies as early as possible (register pressure in G2)."""
        Fo, n = self.F, self.F.n
        oX, oY, oZZ, oZZZ = o[:n], o[n:2 * n], o[2 * n:3 * n], o[3 * n:]
        if ZZ2 is not None:
            ZZ1 = Fo.mul(f, ZZ1, ZZ2)
            ZZZ1 = Fo.mul(f, ZZZ1, ZZZ2)
        PP = Fo.sqr(f, Pd)
        Fo.call(f, "mul", oZZ, ZZ1, PP)
        PPP = Fo.mul(f, Pd, PP)
        Fo.call(f, "mul", oZZZ, ZZZ1, PPP)
        Q = Fo.mul(f, X1, PP)
        Fo.call(f, "sub", oX, Fo.sub(f, Fo.sqr(f, Rd), PPP), Fo.dbl(f, Q))
        Fo.mul_sub_mul(f, Rd, Fo.sub(f, Q, oX), Y1, PPP, out=oY)


B1 = limbs(4 * pow(2, 384, P) % P, 12)
G1 = Curve("g1", FPI, B1, cold=FPO)  # Fp inlined in add/madd/dbl
G1C = Curve("g1c", FPO, B1)  # same formulas calling fp_* .funcs (kept to compare)
G2 = Curve("g2", FP2O, B1 + B1)  # b' = 4(1+u)
