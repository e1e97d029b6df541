"""G2 point arithmetic with memory operands (generic addresses).

A G2 XYZZ point is 4 Fp2 = 96 registers; with the operands of a mixed add,
the temporaries and a callee's registers the live set exceeds 255, and ptxas
spills. These functions therefore read each coordinate from memory when it is
needed and store each result coordinate as soon as it is final, so at most
~6 Fp2 values are live. The accumulator is updated in place:
  g2_madd_m(pa, pq): *pa = *pa + *pq   (XYZZ += affine, madd-2008-s)
  g2_add_m(pa, pb) : *pa = *pa + *pb   (XYZZ += XYZZ, add-2008-s)
  g2_dbl_m(pa)     : *pa = 2 * *pa     (dbl-2008-s-1)
Layout: XYZZ = X, Y, ZZ, ZZZ; affine = x, y; each Fp2 = c0, c1 (2 x 48 bytes,
Montgomery limbs); 16-byte aligned. Fp2 arithmetic is emitted inline as calls
into the fp_* .funcs.
"""
from ir import Fn
from ec import FP2O as F, ONE_FP

W = 24  # words per Fp2


def ld(f, base, slot):
    r = f.ts(W)
    for k in range(0, W, 4):
        f.op("ld.v4.u32", r[k:k + 4], base, 96 * slot + 4 * k)
    return r


def st(f, base, slot, regs):
    for k in range(0, W, 4):
        f.op("st.v4.u32", base, 96 * slot + 4 * k, regs[k:k + 4])


def zero(f):
    z = f.ts(W)
    for r in z:
        f.op("mov.b32", r, 0)
    return z


def one(f):
    o = f.ts(W)
    for r, v in zip(o, ONE_FP + [0] * 12):
        f.op("mov.b32", r, v)
    return o


def funcs():
    Fs = []

    def mk(name, nin, doc):
        f = Fn(name, 0, nin, doc=doc, ty="b64")
        Fs.append(f)
        return f, f.ins

    # ---- dbl ---------------------------------------------------------------
    f, (pa,) = mk("g2_dbl_m", 1, "g2_dbl_m(pa): *pa = 2 * *pa (XYZZ, in place)")
    X1 = ld(f, pa, 0)
    x2 = F.sqr(f, X1)
    M = F.add(f, F.dbl(f, x2), x2)
    Y1 = ld(f, pa, 1)
    U = F.dbl(f, Y1)
    V = F.sqr(f, U)
    Wv = F.mul(f, U, V)
    S = F.mul(f, X1, V)
    X3 = F.sub(f, F.sqr(f, M), F.dbl(f, S))
    st(f, pa, 0, X3)
    Y3 = F.sub(f, F.mul(f, M, F.sub(f, S, X3)), F.mul(f, Wv, Y1))
    st(f, pa, 1, Y3)
    st(f, pa, 2, F.mul(f, V, ld(f, pa, 2)))
    st(f, pa, 3, F.mul(f, Wv, ld(f, pa, 3)))

    # ---- madd ----------------------------------------------------------------
    f, (pa, pq) = mk("g2_madd_m", 2, "g2_madd_m(pa, pq): *pa = *pa + *pq (XYZZ += affine; (0,0) = infinity)")
    end, sp, dbl = f.label("end"), f.label("sp"), f.label("dbl")
    x2, y2 = ld(f, pq, 0), ld(f, pq, 1)
    f.op("bra", end, F.is_zero(f, x2, y2), False)
    ZZ1 = ld(f, pa, 2)
    notinf = f.label("ni")
    f.op("bra", notinf, F.is_zero(f, ZZ1), True)
    st(f, pa, 0, x2)
    st(f, pa, 1, y2)
    o = one(f)
    st(f, pa, 2, o)
    st(f, pa, 3, o)
    f.op("bra", end, None, False)
    f.op("label", notinf)
    U2 = F.mul(f, x2, ZZ1)
    S2 = F.mul(f, y2, ld(f, pa, 3))
    Pd = F.sub(f, U2, ld(f, pa, 0))
    Rd = F.sub(f, S2, ld(f, pa, 1))
    f.op("bra", sp, F.is_zero(f, Pd), False)
    PP = F.sqr(f, Pd)
    st(f, pa, 2, F.mul(f, ld(f, pa, 2), PP))
    PPP = F.mul(f, Pd, PP)
    st(f, pa, 3, F.mul(f, ld(f, pa, 3), PPP))
    Q = F.mul(f, ld(f, pa, 0), PP)
    X3 = F.sub(f, F.sub(f, F.sqr(f, Rd), PPP), F.dbl(f, Q))
    t = F.mul(f, ld(f, pa, 1), PPP)
    st(f, pa, 0, X3)
    st(f, pa, 1, F.sub(f, F.mul(f, Rd, F.sub(f, Q, X3)), t))
    f.op("bra", end, None, False)
    f.op("label", sp)  # P == 0: same x
    f.op("bra", dbl, F.is_zero(f, Rd), False)
    z = zero(f)
    for s in range(4):
        st(f, pa, s, z)
    f.op("bra", end, None, False)
    f.op("label", dbl)  # P == Q: acc <- (x2, y2, 1, 1), doubled
    st(f, pa, 0, ld(f, pq, 0))
    st(f, pa, 1, ld(f, pq, 1))
    o = one(f)
    st(f, pa, 2, o)
    st(f, pa, 3, o)
    f.op("call", "g2_dbl_m", [], [pa])
    f.op("label", end)

    # ---- add -----------------------------------------------------------------
    f, (pa, pb) = mk("g2_add_m", 2, "g2_add_m(pa, pb): *pa = *pa + *pb (XYZZ += XYZZ)")
    end, sp, dbl, notinf = f.label("end"), f.label("sp"), f.label("dbl"), f.label("ni")
    ZZ2 = ld(f, pb, 2)
    f.op("bra", end, F.is_zero(f, ZZ2), False)
    ZZ1 = ld(f, pa, 2)
    f.op("bra", notinf, F.is_zero(f, ZZ1), True)
    for s in range(4):
        st(f, pa, s, ld(f, pb, s))
    f.op("bra", end, None, False)
    f.op("label", notinf)
    U1 = F.mul(f, ld(f, pa, 0), ZZ2)
    U2 = F.mul(f, ld(f, pb, 0), ZZ1)
    Pd = F.sub(f, U2, U1)
    S1 = F.mul(f, ld(f, pa, 1), ld(f, pb, 3))
    S2 = F.mul(f, ld(f, pb, 1), ld(f, pa, 3))
    Rd = F.sub(f, S2, S1)
    f.op("bra", sp, F.is_zero(f, Pd), False)
    PP = F.sqr(f, Pd)
    st(f, pa, 2, F.mul(f, F.mul(f, ld(f, pa, 2), ld(f, pb, 2)), PP))
    PPP = F.mul(f, Pd, PP)
    st(f, pa, 3, F.mul(f, F.mul(f, ld(f, pa, 3), ld(f, pb, 3)), PPP))
    Q = F.mul(f, U1, PP)
    X3 = F.sub(f, F.sub(f, F.sqr(f, Rd), PPP), F.dbl(f, Q))
    st(f, pa, 0, X3)
    st(f, pa, 1, F.sub(f, F.mul(f, Rd, F.sub(f, Q, X3)), F.mul(f, S1, PPP)))
    f.op("bra", end, None, False)
    f.op("label", sp)
    f.op("bra", dbl, F.is_zero(f, Rd), False)
    z = zero(f)
    for s in range(4):
        st(f, pa, s, z)
    f.op("bra", end, None, False)
    f.op("label", dbl)
    f.op("call", "g2_dbl_m", [], [pa])
    f.op("label", end)
    return Fs
