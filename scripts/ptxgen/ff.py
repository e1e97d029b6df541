"""Prime-field code generator: BLS12-381 Fp (12 x 32-bit limbs) and Fr
(8 x 32-bit limbs), Montgomery form, little-endian limbs.

Algorithms
  add/dbl : add.cc/addc.cc chain, then branch-free final subtraction
            (sub.cc chain of the modulus, borrow -> setp -> selp).
  sub     : sub.cc chain; the borrow, widened to a mask, selects p to add back.
  neg     : p - a, forced to 0 when a == 0 (selp).
  mul     : Montgomery CIOS with the row product and the reduction interleaved
            into separate even/odd accumulators, so every carry chain runs over
            adjacent limbs and each product is a mad.lo.cc/madc.hi.cc pair
            (one IMAD.WIDE); one final subtraction (both moduli have spare
            bits, so the CIOS result is < 2p).
  mul_add_mul : (a*b + c*d)/R with one reduction (lazy reduction): the same
            CIOS with two product rows per reduction row (emit_mul is its
            one-product case); for Fp only (the top accumulator limb needs the
            spare bits), used by G1's Y3 = R(Q - X3) - Y1 PPP and the doubling.
  sqr     : the 2n-limb square (cross products once, doubled, diagonal added),
            then a Montgomery reduction of the low half (mul_by_1) plus the high
            half, with one final subtraction.
  to/from : canonical big-endian words <-> Montgomery limbs via prmt byte swap
            and a multiplication by R^2 (to) or by 1 (from).
These are the algorithms of sppark's mont_t (supranational), re-derived here.
"""
from ir import GLOBALS, Fn

P = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


def limbs(x, n):
    return [(x >> (32 * i)) & 0xFFFFFFFF for i in range(n)]


class Field:
    def __init__(self, pre, mod, n):
        self.pre, self.mod, self.n = pre, mod, n
        self.M = limbs(mod, n)
        self.m0 = (-pow(mod, -1, 1 << 32)) % (1 << 32)
        self.RR = limbs(pow(2, 64 * n, mod), n)  # R^2 mod p, R = 2^(32n)
        self.ONE = limbs(1, n)

    def const_decls(self):
        """Module-level declarations this field's code needs."""
        if not self.opaque:
            return ""
        ms = ", ".join(hex(x) for x in self.M)
        return (f".global .align 4 .u32 {self.pre}_m0 = {hex(self.m0)};\n"
                f".global .align 4 .u32 {self.pre}_mod[{self.n}] = {{{ms}}};\n")

    @property
    def opaque(self):
        """Fr's modulus starts with the limbs 1 and 0xffffffff, and m0 is
        0xffffffff. Given as immediates (or as .const, which ptxas folds),
        ptxas simplifies those products and then splits the reduction's
        mi*M[j] products into IMAD.X + IMAD.HI.X pairs instead of IMAD.WIDE
        (seen in SASS: 64 of 128 products per Fr mul; 0.88 of the ceiling on
        the H200). ptxas also folds plain loads of initialised .global words;
        only volatile loads stay opaque. So kernels (.entry) that expand Fr
        arithmetic inline load m0 and the modulus once, with ld.volatile, and
        get one IMAD.WIDE per product; the fr_* .funcs keep immediates (a
        volatile load per call would cost more than the split products)."""
        return self.m0 == 0xFFFFFFFF

    def _load(self, f, key, n, sym):
        if getattr(f, key, None) is None:
            regs, a = f.ts(n), f.t("a")
            loads = [("mov.u64", a, sym)] + [("ld.volatile.global.u32", r, f"[{a}+{4*j}]") for j, r in enumerate(regs)]
            f.ops[0:0] = loads
            setattr(f, key, regs)
        return getattr(f, key)

    def mod_operands(self, f):
        if not (self.opaque and f.entry):
            return self.M
        return self._load(f, "_mod_" + self.pre, self.n, f"{self.pre}_mod")

    def m0_operand(self, f):
        if not (self.opaque and f.entry):
            return self.m0
        return self._load(f, "_m0_" + self.pre, 1, f"{self.pre}_m0")[0]

    # --- building blocks (emit into f) -----------------------------------
    def mul_n(self, f, acc, a, bi, n):
        for j in range(0, n, 2):
            f.op("mul.lo.u32", acc[j], a[j], bi)
            f.op("mul.hi.u32", acc[j + 1], a[j], bi)

    def cmad_n(self, f, acc, a, bi, n):
        f.op("mad.lo.cc.u32", acc[0], a[0], bi, acc[0])
        f.op("madc.hi.cc.u32", acc[1], a[0], bi, acc[1])
        for j in range(2, n, 2):
            f.op("madc.lo.cc.u32", acc[j], a[j], bi, acc[j])
            f.op("madc.hi.cc.u32", acc[j + 1], a[j], bi, acc[j + 1])

    def madc_n_rshift(self, f, odd, a, bi):
        n = self.n
        for j in range(0, n - 2, 2):
            f.op("madc.lo.cc.u32", odd[j], a[j], bi, odd[j + 2])
            f.op("madc.hi.cc.u32", odd[j + 1], a[j], bi, odd[j + 3])
        f.op("madc.lo.cc.u32", odd[n - 2], a[n - 2], bi, 0)
        f.op("madc.hi.u32", odd[n - 1], a[n - 2], bi, 0)

    def mad_n_redc(self, f, even, odd, pairs, i, first):
        """One CIOS step: acc += a*b[i] for each (a, b) in pairs (the first
        row also shifts acc down one limb), then one reduction row."""
        n, M = self.n, self.mod_operands(f)
        (a, b), more = pairs[0], pairs[1:]
        if first:
            self.mul_n(f, odd, a[1:], b[i], n)
            self.mul_n(f, even, a, b[i], n)
        else:
            f.op("add.cc.u32", even[0], even[0], odd[1])
            self.madc_n_rshift(f, odd, a[1:], b[i])
            self.cmad_n(f, even, a, b[i], n)
            f.op("addc.u32", odd[n - 1], odd[n - 1], 0)
        for c, d in more:
            self.cmad_n(f, odd, c[1:], d[i], n)
            self.cmad_n(f, even, c, d[i], n)
            f.op("addc.u32", odd[n - 1], odd[n - 1], 0)
        mi = f.t()
        f.op("mul.lo.u32", mi, even[0], self.m0_operand(f))
        self.cmad_n(f, odd, M[1:], mi, n)
        self.cmad_n(f, even, M, mi, n)
        f.op("addc.u32", odd[n - 1], odd[n - 1], 0)

    def final_sub(self, f, x):
        """x < 2p (in place): x -= p unless that borrows. Branch-free."""
        n = self.n
        tmp = f.ts(n)
        b, top = f.t(), f.t("p")
        f.op("sub.cc.u32", tmp[0], x[0], self.M[0])
        for i in range(1, n):
            f.op("subc.cc.u32", tmp[i], x[i], self.M[i])
        f.op("subc.u32", b, 0, 0)
        f.op("setp.eq.u32", top, b, 0)
        for i in range(n):
            f.op("selp.b32", x[i], tmp[i], x[i], top)

    def emit_mul(self, f, out, a, b):
        """out = a*b/R mod p; a, b lists of regs (b may be immediates)."""
        self.emit_sum_of_products(f, out, [(a, b)])

    def emit_mul_add_mul(self, f, out, a, b, c, d):
        """out = (a*b + c*d)/R mod p with one reduction (lazy reduction): both
        products are added into the CIOS accumulator, two product rows per
        reduction row. a, b, c, d <= p (p itself allowed: a negation p - x
        need not be canonical)."""
        self.emit_sum_of_products(f, out, [(a, b), (c, d)])

    def emit_sum_of_products(self, f, out, pairs):
        """out = (sum of a*b over pairs)/R mod p, CIOS with even/odd accumulators.
        Bounds: the top accumulator limb (odd[n-1]) takes the high words of the
        top-limb products of every row (each < M[n-1] for operands a <= p) plus
        two carries per row, and must not overflow; the sum of products must be
        < p*R so that the result (sum + m*p)/R is < 2p (one final subtraction)."""
        n, k = self.n, len(pairs)
        assert (k + 1) * (self.M[n - 1] + 2) < 1 << 32, "top limb would overflow"
        assert k * self.mod * self.mod < self.mod << (32 * n), "result would not be < 2p"
        even, odd = f.ts(n), f.ts(n + 1)
        for i in range(0, n, 2):
            self.mad_n_redc(f, even, odd, pairs, i, i == 0)
            self.mad_n_redc(f, odd, even, pairs, i + 1, False)
        f.op("add.cc.u32", even[0], even[0], odd[1])
        for i in range(1, n - 1):
            f.op("addc.cc.u32", even[i], even[i], odd[i + 1])
        f.op("addc.u32", even[n - 1], even[n - 1], 0)
        self.final_sub(f, even)
        for i in range(n):
            f.op("mov.b32", out[i], even[i])

    def mul_by_1_row(self, f, even, odd, first):
        n, M = self.n, self.mod_operands(f)
        mi = f.t()
        if first:
            f.op("mul.lo.u32", mi, even[0], self.m0_operand(f))
            self.mul_n(f, odd, M[1:], mi, n)
            self.cmad_n(f, even, M, mi, n)
            f.op("addc.u32", odd[n - 1], odd[n - 1], 0)
        else:
            f.op("add.cc.u32", even[0], even[0], odd[1])
            f.op("mul.lo.u32", mi, even[0], self.m0_operand(f))
            self.madc_n_rshift(f, odd, M[1:], mi)
            self.cmad_n(f, even, M, mi, n)
            f.op("addc.u32", odd[n - 1], odd[n - 1], 0)

    def mad_row(self, f, odd, even, a, bi, n):
        self.cmad_n(f, odd, a[1:], bi, n - 2)
        f.op("madc.lo.cc.u32", odd[n - 2], a[n - 1], bi, 0)
        f.op("madc.hi.u32", odd[n - 1], a[n - 1], bi, 0)
        self.cmad_n(f, even, a, bi, n)
        f.op("addc.u32", odd[n - 1], odd[n - 1], 0)

    def qad_row(self, f, odd, even, a, bi, n):
        self.cmad_n(f, odd, a, bi, n - 2)
        f.op("madc.lo.cc.u32", odd[n - 2], a[n - 2], bi, 0)
        f.op("madc.hi.u32", odd[n - 1], a[n - 2], bi, 0)
        self.cmad_n(f, even, a[1:], bi, n - 2)
        f.op("addc.u32", odd[n - 1], odd[n - 1], 0)

    def emit_sqr(self, f, out, a):
        n = self.n
        even, odd = f.ts(2 * n), f.ts(2 * n - 2)
        self.mul_n(f, even[2:], a[2:], a[0], n - 2)
        self.mul_n(f, odd, a[1:], a[0], n)
        i = 0
        while i < n - 4:
            i += 1
            self.mad_row(f, even[2 * i + 2:], odd[2 * i:], a[i + 1:], a[i], n - i - 1)
            i += 1
            self.qad_row(f, odd[2 * i:], even[2 * i + 2:], a[i + 1:], a[i], n - i)
        f.op("mul.lo.u32", even[2 * n - 4], a[n - 1], a[n - 3])
        f.op("mul.hi.u32", even[2 * n - 3], a[n - 1], a[n - 3])
        f.op("mad.lo.cc.u32", odd[2 * n - 6], a[n - 2], a[n - 3], odd[2 * n - 6])
        f.op("madc.hi.cc.u32", odd[2 * n - 5], a[n - 2], a[n - 3], odd[2 * n - 5])
        f.op("addc.u32", even[2 * n - 3], even[2 * n - 3], 0)
        f.op("mul.lo.u32", odd[2 * n - 4], a[n - 1], a[n - 2])
        f.op("mul.hi.u32", odd[2 * n - 3], a[n - 1], a[n - 2])
        # merge even[2:] and odd[1:]
        f.op("add.cc.u32", even[2], even[2], odd[1])
        j = 2
        while j < 2 * n - 3:
            f.op("addc.cc.u32", even[j + 1], even[j + 1], odd[j])
            j += 1
        f.op("addc.u32", even[j + 1], odd[j], 0)
        # double
        f.op("mov.b32", even[0], 0)
        f.op("add.cc.u32", even[1], odd[0], odd[0])
        j = 2
        while j < 2 * n - 1:
            f.op("addc.cc.u32", even[j], even[j], even[j])
            j += 1
        f.op("addc.u32", even[j], 0, 0)
        # diagonal
        f.op("mad.lo.cc.u32", even[0], a[0], a[0], even[0])
        f.op("madc.hi.cc.u32", even[1], a[0], a[0], even[1])
        for i in range(1, n):
            f.op("madc.lo.cc.u32", even[2 * i], a[i], a[i], even[2 * i])
            f.op("madc.hi.cc.u32", even[2 * i + 1], a[i], a[i], even[2 * i + 1])
        # reduce: lo.mul_by_1() + hi
        lo, hi = even[:n], even[n:]
        o2 = f.ts(n)
        for i in range(0, n, 2):
            self.mul_by_1_row(f, lo, o2, i == 0)
            self.mul_by_1_row(f, o2, lo, False)
        f.op("add.cc.u32", lo[0], lo[0], o2[1])
        for i in range(1, n - 1):
            f.op("addc.cc.u32", lo[i], lo[i], o2[i + 1])
        f.op("addc.u32", lo[n - 1], lo[n - 1], 0)
        self.emit_add(f, out, lo, hi)

    def emit_add(self, f, out, a, b):
        n = self.n
        x = f.ts(n)
        f.op("add.cc.u32", x[0], a[0], b[0])
        for i in range(1, n - 1):
            f.op("addc.cc.u32", x[i], a[i], b[i])
        f.op("addc.u32", x[n - 1], a[n - 1], b[n - 1])
        self.final_sub(f, x)
        for i in range(n):
            f.op("mov.b32", out[i], x[i])

    def emit_sub(self, f, out, a, b):
        n = self.n
        x, m = f.ts(n), f.t()
        f.op("sub.cc.u32", x[0], a[0], b[0])
        for i in range(1, n):
            f.op("subc.cc.u32", x[i], a[i], b[i])
        f.op("subc.u32", m, 0, 0)  # 0 or 0xffffffff
        y = f.ts(n)
        for i in range(n):
            f.op("and.b32", y[i], m, self.M[i])
        f.op("add.cc.u32", out[0], x[0], y[0])
        for i in range(1, n - 1):
            f.op("addc.cc.u32", out[i], x[i], y[i])
        f.op("addc.u32", out[n - 1], x[n - 1], y[n - 1])

    def emit_neg(self, f, out, a, canonical=True):
        """out = p - a, or 0 for a = 0 (canonical=False: p for a = 0, no check)."""
        n = self.n
        x, z, pz = (f.ts(n), f.t(), f.t("p")) if canonical else (out, None, None)
        f.op("sub.cc.u32", x[0], self.M[0], a[0])
        for i in range(1, n - 1):
            f.op("subc.cc.u32", x[i], self.M[i], a[i])
        f.op("subc.u32", x[n - 1], self.M[n - 1], a[n - 1])
        if not canonical:
            return
        f.op("or.b32", z, a[0], a[1])
        for i in range(2, n):
            f.op("or.b32", z, z, a[i])
        f.op("setp.eq.u32", pz, z, 0)
        for i in range(n):
            f.op("selp.b32", out[i], 0, x[i], pz)

    # --- .func definitions ---------------------------------------------
    def funcs(self):
        n, p = self.n, self.pre
        F = []

        def mk(name, nout, nin, doc):
            f = Fn(f"{p}_{name}", nout, nin, doc=doc)
            F.append(f)
            return f, f.outs, f.ins

        f, o, i = mk("add", n, 2 * n, f"{p}_add: (a, b) -> a + b mod m")
        self.emit_add(f, o, i[:n], i[n:])
        f, o, i = mk("dbl", n, n, f"{p}_dbl: a -> 2a mod m")
        self.emit_add(f, o, i, i)
        f, o, i = mk("sub", n, 2 * n, f"{p}_sub: (a, b) -> a - b mod m")
        self.emit_sub(f, o, i[:n], i[n:])
        f, o, i = mk("neg", n, n, f"{p}_neg: a -> -a mod m (0 -> 0)")
        self.emit_neg(f, o, i)
        f, o, i = mk("mul", n, 2 * n, f"{p}_mul: Montgomery product a*b/2^{32*n} (CIOS, even/odd)")
        self.emit_mul(f, o, i[:n], i[n:])
        f, o, i = mk("sqr", n, n, f"{p}_sqr: Montgomery square a^2/2^{32*n} (wide square + REDC)")
        self.emit_sqr(f, o, i)
        f, o, i = mk("to_mont", n, n, f"{p}_to_mont: canonical limbs -> Montgomery (times R^2)")
        self.emit_mul(f, o, i, self.RR)
        f, o, i = mk("from_mont", n, n, f"{p}_from_mont: Montgomery -> canonical limbs (times 1)")
        self.emit_mul(f, o, i, self.ONE)
        # big-endian words (as a little-endian u32 load of the byte string)
        f, o, i = mk("from_be", n + 1, n,
                     f"{p}_from_be: {4*n} big-endian bytes (loaded as LE u32 words) -> Montgomery limbs,\n"
                     f"plus a flag word (1 if the value is not < m, else 0)")
        c = f.ts(n)
        for k in range(n):
            f.op("prmt.b32", c[k], i[n - 1 - k], 0, 0x0123)
        tmp, b = f.ts(n), f.t()
        f.op("sub.cc.u32", tmp[0], c[0], self.M[0])
        for k in range(1, n):
            f.op("subc.cc.u32", tmp[k], c[k], self.M[k])
        f.op("subc.u32", b, 0, 0)
        f.op("add.u32", o[n], b, 1)  # borrow (c < m) -> 0, else 1
        f.op("call", f"{p}_to_mont", o[:n], c)
        f, o, i = mk("to_be", n, n, f"{p}_to_be: Montgomery limbs -> {4*n} big-endian bytes as LE u32 words")
        c = f.ts(n)
        f.op("call", f"{p}_from_mont", c, i)
        for k in range(n):
            f.op("prmt.b32", o[k], c[n - 1 - k], 0, 0x0123)
        return F


FP = Field("fp", P, 12)
FR = Field("fr", R, 8)
# Fr's modulus is read from .global memory (const_decls); the simulator reads the same words.
GLOBALS.update({"fr_m0": [FR.m0], "fr_mod": FR.M})
