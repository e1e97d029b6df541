"""NTT over Fr: one kernel per radix 2^r (r = 1..9), each running one pass of a
multi-pass, self-sorting (natural order in, natural order out) transform.

Decomposition (decimation in frequency, N = 2^L = R_0 R_1 ... R_{P-1}):
  the input index is n = (n_0, n_1, ..., n_{P-1}), n_0 the most significant
  digit, the output index k = (k_{P-1}, ..., k_1, k_0), k_0 the least
  significant. Pass p reads the layout (n_p, n_{p+1}.., n_{P-1}, k_{p-1}.., k_0)
  and writes (n_{p+1}.., n_{P-1}, k_p, k_{p-1}.., k_0): with S = N/R_p and
  K = R_0...R_{p-1}, the column f < S (f = f_hi*K + f_lo) is read at
  n_p*S + f, transformed by an R_p-point DFT over n_p, multiplied by the twist
  w_N^(f_hi*k_p*K) (w_{N/K} to the f_hi*k_p: the four-step factor of the
  remaining sub-problem) and written at f_hi*R_p*K + k_p*K + f_lo. After the
  last pass the layout is (k_{P-1}, ..., k_0): natural order, no bit reversal.
  Pass 0 reads and every pass p >= 1 writes runs of G consecutive columns
  (coalesced); pass 0 writes runs of R_0 consecutive k_0 (store mode B).

One block = G consecutive columns x R = 2^r elements (G*R <= 1024), 8 elements
per thread (R/8 threads per column; fewer when R < 8):
  1. cooperative load, 16-byte units, global -> shared memory (layout E);
  2. rounds of radix-8 (three radix-2 DIF stages in registers), stage bits
     [lo, lo+3) for lo = r-3, r-6, ... > 0, one barrier each: shared -> regs ->
     shared in place; twiddles w_{2^(b+1)}^j from the table tw[x] = w_512^x;
  3. the last round, stage bits [0, s0), s0 = r - 3*rounds, with compile-time
     twiddle indices (x = 0 skipped); results go to shared memory at layout F,
     local output index k = bitrev_r(e) (DIF leaves the R-point DFT in
     bit-reversed order, which is undone here for free);
  4. store loop, one element per iteration: the factor P1[i1] (* P2[i2]) is
     applied: twist (i1, i2) = (E >> lg_b, E mod 2^lg_b), E = (f_hi*k)*K, with
     P1 = w_N^(j*2^lg_b) and P2 = w_N^j (two-level table; P2 is skipped when K >=
     2^lg_b), or coset scale (i1, i2) = (k, f), P1[k] = c*g^(k*K), P2[f] = g^f;
     optionally the H step v <- (A[pos]*B[pos] - v)*Z; then the global store.
The inverse transform is the same kernels with the w^-1 tables (1/n folded into
the tables by the host).
Builds: ntt_r1..ntt_r9 ask for three 128-thread blocks per SM (<= 168 registers;
154 used at r = 9) and store two elements per loop iteration; ntt_r7o..ntt_r9o ask
for four (<= 128 registers, one element per iteration). On the H200 the four-block
build is the faster (2^27 forward 35.0 ms against 37.7 ms) and the host's default.
DIF butterfly: (x, y) -> (x + y, (x - y)*w), Fr Montgomery arithmetic inlined
from ff.py (Fr modulus and m0 loaded once with ld.volatile.global).

Shared memory (dynamic, G*R*32 + 64 bytes): element slot P holds its low 16
bytes at P*16 and its high 16 bytes at G*R*16 + 64 + P*16 (two planes; the 64
offsets plane 1 by four banks so the 16-byte unit copies are conflict-free).
  layout E (rounds):     E = e*G + c,   slot E ^ ((E >> 3) & 7)
  layout F (store loop): F = c*R + k,   slot F ^ key(F),
    key = ((c << (3 - min(lg_g, 3))) ^ x) & 7, x = F's bits r-4, r-5, r-6 (those
    >= 3) in reverse order: conflict-free for the last round's writes and the
    store loop's reads in both store modes (checked in the simulator below).
Flags: 1 factor, 2 second table, 4 factor = coset scale (else twist),
8 store mode B (consecutive threads take consecutive k), 16 H combine.
"""
import random
import sys

from ir import Fn, Sim, M32, M64, branch_target, label_index, unguard
from ff import FR as FR_FUNCS, Field
from iface import Kernel, all_of, emin, flag, inside, where
from rust import export


class FrPartlyOpaque(Field):
    """Fr arithmetic for these kernels: m0 (0xffffffff) and the modulus limbs that
    ptxas would simplify as immediates (limb 0 = 1, limb 1 = 0xffffffff) are loaded
    once per kernel with ld.volatile.global (ff.py's lesson: kept opaque, every
    product stays one IMAD.WIDE); limbs 2..7 stay immediates, which saves six
    registers over loading the whole modulus (the NTT kernels sit at 128)."""

    def mod_operands(self, f):
        if not f.entry:
            return self.M
        return self._load(f, "_mod2_" + self.pre, 2, f"{self.pre}_mod") + self.M[2:]


FR = FrPartlyOpaque("fr", FR_FUNCS.mod, 8)

MAXR = 9
SMEM = "ntt_smem"
F_FACTOR, F_TWO, F_SCALE, F_MODEB, F_COMBINE = 1, 2, 4, 8, 16
PTRS = ("src", "dst", "tw", "p1", "p2", "pa", "pb", "pz")
U32S = ("lg_s", "lg_k", "lg_g", "lg_b", "flags")
MAX_THREADS = 128
MIN_BLOCKS = 3
BLOCK_ELEMENTS_LOG = 10  # a block holds at most 2^10 elements (G columns of R)
MAX_LOG_N = 30  # index arithmetic in 16-byte units of 2^L elements: 2^(L+1) < 2^32
export("ntt", "MAX_RADIX_LOG", MAXR, "Largest radix of one pass, log2 (ntt_r1..ntt_r9).")
export("ntt", "TWIDDLES", 1 << (MAXR - 1), "Elements of the radix twiddle table tw[x] = w_512^x.")
export("ntt", "BLOCK_ELEMENTS_LOG", BLOCK_ELEMENTS_LOG, "Most elements one block holds, log2.")
export("ntt", "MAX_THREADS", MAX_THREADS, "Most threads per block (the kernels' .maxntid).")
export("ntt", "MAX_LOG_N", MAX_LOG_N, "Largest transform, log2.")
for nm, v, d in (("FACTOR", F_FACTOR, "The store loop multiplies by p1 (and p2)."),
                 ("TWO", F_TWO, "The factor is p1[i1] * p2[i2] (two-level table)."),
                 ("SCALE", F_SCALE, "The factor is the coset scale (i1, i2) = (k, f), else the twist."),
                 ("MODE_B", F_MODEB, "Store mode B: consecutive threads take consecutive k."),
                 ("COMBINE", F_COMBINE, "The H step v <- (pa * pb - v) * pz before the store.")):
    export("ntt", f"FLAG_{nm}", v, d)


def pass_iface(name, r, blocks, doc):
    """Pass of radix 2^r over 2^(lg_s + r) elements; the launcher derives the geometry."""
    k = Kernel(name, sig="NttPass", field=name, doc=doc)
    lg_s, lg_k, lg_g, lg_b, flags = k.u32s(*U32S)
    R = k.const("R", r, "Radix of the pass, log2.")
    k.const("BLOCKS_PER_SM", blocks, "Blocks per SM the launch bounds ask for (.minnctapersm).")
    n = 8 << (lg_s + R)
    k.launch(grid_x=1 << (lg_s - lg_g), block=1 << (lg_g + R - emin(3, R)), shared=(32 << (lg_g + R)) + 64)
    k.require(lg_g <= lg_s, "whole blocks of columns")
    k.require(lg_g <= 7, "at most 128 columns per block")
    k.require(lg_g + R <= BLOCK_ELEMENTS_LOG, "at most 2^10 elements per block")
    k.require(lg_k <= lg_s, "the passes before cover at most the columns")
    k.require(lg_b <= lg_s + R, "the twist table's split lies inside the transform")
    k.require(lg_s + R <= MAX_LOG_N, "at most 2^30 elements")
    fac, scale = flag(flags, F_FACTOR), flag(flags, F_SCALE)
    k.buffer("src", "u32", n, "reads", "The input, 2^(lg_s + r) elements of 8 words.", align=16)
    k.buffer("dst", "u32", n, "writes", "The output, same size.", align=16)
    k.buffer("tw", "u32", 8 << (MAXR - 1), "reads", "The radix twiddles w_512^x, x < 256.", align=16)
    k.buffer("p1", "u32", where(scale, 8 << R, 8 << (lg_s + R - lg_b)), "reads",
             "The coset scale c*g^(k*K) (k < 2^r), or the twist's first table w^(j*2^lg_b).", when=fac, align=16)
    k.buffer("p2", "u32", where(scale, 8 << lg_s, 8 << lg_b), "reads",
             "The coset scale g^f (f < 2^lg_s), or the twist's second table w^j (j < 2^lg_b).",
             when=all_of(fac, flag(flags, F_TWO)), align=16)
    comb = flag(flags, F_COMBINE)
    k.buffer("pa", "u32", n, "reads", "A of the H step.", when=comb, align=16)
    k.buffer("pb", "u32", n, "reads", "B of the H step.", when=comb, align=16)
    k.buffer("pz", "u32", 8, "reads", "Z^-1 of the H step (one element).", when=comb, align=16)
    return k


def rev(x, bits):
    return int(format(x, f"0{bits}b")[::-1], 2) if bits else 0


class Gen:
    """Small helpers emitting u32/u64 index arithmetic and vector memory ops
    into one Fn. Memory ops print as PTX and carry their meaning for BlockSim."""

    def __init__(self, f):
        self.f = f

    def op(self, *o):
        self.f.op(*o)

    def b(self, opc, a, c):
        d = self.f.t()
        self.f.op(opc, d, a, c)
        return d

    def shl(self, a, c):
        return self.b("shl.b32", a, c)

    def shr(self, a, c):
        return self.b("shr.u32", a, c)

    def and_(self, a, c):
        return self.b("and.b32", a, c)

    def or_(self, a, c):
        return self.b("or.b32", a, c)

    def xor(self, a, c):
        return self.b("xor.b32", a, c)

    def add(self, a, c):
        return self.b("add.u32", a, c)

    def sub(self, a, c):
        return self.b("sub.u32", a, c)

    def mov(self, a):
        d = self.f.t()
        self.f.op("mov.u32", d, a)
        return d

    def mad(self, a, c, e):
        d = self.f.t()
        self.f.op("mad.lo.u32", d, a, c, e)
        return d

    def selp(self, a, c, p):
        d = self.f.t()
        self.f.op("selp.b32", d, a, c, p)
        return d

    def pred(self, cmp, a, c):
        p = self.f.t("p")
        self.f.op(f"setp.{cmp}.u32", p, a, c)
        return p

    def flag(self, flags, bit):
        return self.pred("ne", self.and_(flags, bit), 0)

    def addr64(self, base, idx, scale):
        """base + idx*scale (64-bit)."""
        o, a = self.f.t("a"), self.f.t("a")
        self.f.op("mul.wide.u32", o, idx, scale)
        self.f.op("add.s64", a, base, o)
        return a

    def mem(self, kind, regs, addr, off=0):
        """kind: ld.global.nc, ld.global, st.global, ld.shared, st.shared (v4.u32)."""
        rs = "{" + ", ".join(regs) + "}"
        a = f"[{addr}+{off}]"
        text = f"{kind}.v4.u32 {a}, {rs};" if kind.startswith("st") else f"{kind}.v4.u32 {rs}, {a};"
        self.f.op("raw", text, ("mem", kind, list(regs), addr, off))

    def bar(self):
        self.f.op("bar.sync", 0)

    def brev(self, a):
        return self.b1("brev.b32", a)

    def b1(self, opc, a):
        d = self.f.t()
        self.f.op(opc, d, a)
        return d


def swz_e(g, E):
    """Slot of layout-E index E: E ^ ((E >> 3) & 7)."""
    return g.xor(E, g.and_(g.shr(E, 3), 7))


def element_ld(g, sbase, off1, slot):
    a0 = g.add(sbase, g.shl(slot, 4))
    a1 = g.add(a0, off1)
    v = g.f.ts(8)
    g.mem("ld.shared", v[:4], a0)
    g.mem("ld.shared", v[4:], a1)
    return v


def element_st(g, sbase, off1, slot, v):
    a0 = g.add(sbase, g.shl(slot, 4))
    a1 = g.add(a0, off1)
    g.mem("st.shared", v[:4], a0)
    g.mem("st.shared", v[4:], a1)


def butterfly(f, v, q, q2, w):
    """DIF: (v[q], v[q2]) <- (x + y, (x - y)*w); w None means 1. Renames registers."""
    x, y = v[q], v[q2]
    d, s = f.ts(8), f.ts(8)
    FR.emit_sub(f, d, x, y)
    FR.emit_add(f, s, x, y)
    if w is not None:
        m = f.ts(8)
        FR.emit_mul(f, m, d, w)
        d = m
    v[q], v[q2] = s, d


def pass_kernel(r, blocks=MIN_BLOCKS):
    """The pass kernel of radix 2^r; blocks = the blocks per SM its launch bounds ask for
    (3: at most 168 registers; 4: at most 128, name suffix "o")."""
    R = 1 << r
    Et = min(8, R)
    loop_los = list(range(r - 3, 0, -3))
    s0 = r - 3 * len(loop_los)
    f = pass_iface(f"ntt_r{r}" + ("o" if blocks != MIN_BLOCKS else ""), r, blocks,
                   f"ntt_r{r}: one pass of radix 2^{r} (see the header): {len(loop_los)} runtime radix-8 rounds, "
                   f"a last round of {s0} stage(s), the store loop").fn(KernelFn)
    f.blocks = blocks
    g = Gen(f)
    P = {}
    for n in PTRS:
        a = f.t("a")
        f.op("ld.param.u64", a, f"[{n}]")
        f.op("cvta.to.global.u64", a, a)
        P[n] = a
    for n in U32S:
        P[n] = f.t()
        f.op("ld.param.u32", P[n], f"[{n}]")
    lg_s, lg_k, lg_g, lg_b, flags = (P[n] for n in U32S)
    tid, ctaid, ntid = g.mov("%tid.x"), g.mov("%ctaid.x"), g.mov("%ntid.x")
    one = g.mov(1)
    gm = g.sub(g.shl(one, lg_g), 1)  # G - 1
    c = g.and_(tid, gm)
    t = g.shr(tid, lg_g)
    f0 = g.shl(ctaid, lg_g)
    gr16 = g.shl(one, g.add(lg_g, r + 4))  # G*R*16
    off1 = g.add(gr16, 64)
    sbase = g.mov(SMEM)

    # 1. cooperative load: unit U = 2*E + half, E = n*G + c
    units = []
    for i in range(2 * Et):
        U = g.mad(ntid, i, tid)
        half, E = g.and_(U, 1), g.shr(U, 1)
        gidx = g.add(g.add(g.shl(g.shr(E, lg_g), lg_s), f0), g.and_(E, gm))
        ga = g.addr64(P["src"], g.add(g.shl(gidx, 1), half), 16)
        d = f.ts(4)
        g.mem("ld.global.nc", d, ga)
        units.append((half, E, d))
    for half, E, d in units:
        sa = g.add(g.add(sbase, g.shl(swz_e(g, E), 4)), g.b("mul.lo.u32", half, off1))
        g.mem("st.shared", d, sa)
    g.bar()

    # 2. runtime radix-8 rounds
    if loop_los:
        # a single round is straight-line code with lo known (fewer live registers)
        looped = len(loop_los) > 1
        j, lo = (g.mov(0), g.mov(r - 3)) if looped else (None, r - 3)
        top = f.label("round")
        f.op("label", top)
        tl = g.and_(t, g.sub(g.shl(one, lo), 1))
        base = g.or_(tl, g.shl(g.shr(t, lo), g.add(lo, 3) if looped else lo + 3))
        E0 = g.or_(g.shl(base, lg_g), c)
        qs = g.shl(one, g.add(lg_g, lo))
        slots = [swz_e(g, g.mad(qs, q, E0)) for q in range(8)]
        v = [element_ld(g, sbase, off1, s) for s in slots]
        for d in (2, 1, 0):
            sh = g.sub(g.mov(8 - d), lo) if looped else 8 - d - lo
            twa = g.addr64(P["tw"], g.shl(tl, sh), 32)
            ws = {}
            for q in range(8):
                if (q >> d) & 1:
                    continue
                x = (q % (1 << d)) << (8 - d)
                if x not in ws:
                    w = f.ts(8)
                    g.mem("ld.global.nc", w[:4], twa, 32 * x)
                    g.mem("ld.global.nc", w[4:], twa, 32 * x + 16)
                    ws[x] = w
                butterfly(f, v, q, q + (1 << d), ws[x])
        for s, x in zip(slots, v):
            element_st(g, sbase, off1, s, x)
        g.bar()
        if looped:
            f.op("add.u32", j, j, 1)
            f.op("sub.u32", lo, lo, 3)
            f.op("bra", top, g.pred("lt", j, len(loop_los)), False)

    # 3. last round: e = 8t + q (E = e*G + c), stage bits [0, s0)
    E0 = g.or_(g.shl(t, g.add(lg_g, 3)), c)
    qs = g.shl(one, lg_g)
    v = [element_ld(g, sbase, off1, swz_e(g, g.mad(qs, q, E0))) for q in range(Et)]
    ws = {}
    for b in range(s0 - 1, -1, -1):
        for q in range(Et):
            if (q >> b) & 1:
                continue
            x = (q % (1 << b)) << (8 - b)
            if x and x not in ws:
                w = f.ts(8)
                g.mem("ld.global.nc", w[:4], P["tw"], 32 * x)
                g.mem("ld.global.nc", w[4:], P["tw"], 32 * x + 16)
                ws[x] = w
            butterfly(f, v, q, q + (1 << b), ws.get(x))
    g.bar()
    # to layout F: k = bitrev_r(8t + q)
    csh = g.sub(g.mov(3), g.b("min.u32", lg_g, 3))
    kt = g.shr(g.brev(t), 32 - (r - 3)) if r > 3 else None
    for q in range(Et):
        if r >= 3:
            kq = rev(q, 3) << (r - 3)
            k = g.add(kt, kq) if kt else g.mov(kq)
        else:
            k = g.mov(rev(q, r))
        F = g.or_(g.shl(c, r), k)
        element_st(g, sbase, off1, swz_f(g, r, F, csh), v[q])
    g.bar()

    # 4. store loop, two elements per iteration (their table loads overlap; one in the
    #    four-blocks variant, which has no registers to spare)
    U = min(2 if blocks == MIN_BLOCKS else 1, Et)
    i = g.mov(0)
    top = f.label("store")
    f.op("label", top)
    # (flags and masks recomputed per iteration: fewer registers live across the loop)
    pB, pFac, pTwo, pSc, pComb = (g.flag(flags, b) for b in (F_MODEB, F_FACTOR, F_TWO, F_SCALE, F_COMBINE))
    kmask = g.sub(g.shl(one, lg_k), 1)
    rk = g.add(lg_k, r)
    el = []
    for jj in range(U):
        u = g.mad(g.add(i, jj), ntid, tid)
        c_ = g.selp(g.shr(u, r), g.and_(u, gm), pB)
        k = g.selp(g.and_(u, R - 1), g.shr(u, lg_g), pB)
        v = element_ld(g, sbase, off1, swz_f(g, r, g.or_(g.shl(c_, r), k), csh))
        fcol = g.or_(f0, c_)
        fhi, flo = g.shr(fcol, lg_k), g.and_(fcol, kmask)
        pos = g.or_(g.or_(g.shl(fhi, rk), g.shl(k, lg_k)), flo)
        el.append((k, fcol, fhi, pos, v))
    skip = f.label("nofactor")
    f.op("bra", skip, pFac, True)
    bmask = g.sub(g.shl(one, lg_b), 1)
    ws, i2s = [], []
    for k, fcol, fhi, pos, v in el:
        E = g.shl(g.b("mul.lo.u32", fhi, k), lg_k)
        i1 = g.selp(k, g.shr(E, lg_b), pSc)
        i2s.append(g.selp(fcol, g.and_(E, bmask), pSc))
        w = f.ts(8)
        a1 = g.addr64(P["p1"], i1, 32)
        g.mem("ld.global.nc", w[:4], a1)
        g.mem("ld.global.nc", w[4:], a1, 16)
        ws.append(w)
    one_tab = f.label("onetable")
    f.op("bra", one_tab, pTwo, True)
    w2s = []
    for i2 in i2s:
        w2 = f.ts(8)
        a2 = g.addr64(P["p2"], i2, 32)
        g.mem("ld.global.nc", w2[:4], a2)
        g.mem("ld.global.nc", w2[4:], a2, 16)
        w2s.append(w2)
    for w, w2 in zip(ws, w2s):
        FR.emit_mul(f, w, w, w2)
    f.op("label", one_tab)
    for (k, fcol, fhi, pos, v), w in zip(el, ws):
        FR.emit_mul(f, v, v, w)
    f.op("label", skip)
    nocomb = f.label("nocombine")
    f.op("bra", nocomb, pComb, True)
    Z = f.ts(8)
    g.mem("ld.global.nc", Z[:4], P["pz"])
    g.mem("ld.global.nc", Z[4:], P["pz"], 16)
    AB = []
    for k, fcol, fhi, pos, v in el:
        A, B = f.ts(8), f.ts(8)
        aa, ab_ = g.addr64(P["pa"], pos, 32), g.addr64(P["pb"], pos, 32)
        g.mem("ld.global", A[:4], aa)
        g.mem("ld.global", A[4:], aa, 16)
        g.mem("ld.global", B[:4], ab_)
        g.mem("ld.global", B[4:], ab_, 16)
        AB.append((A, B))
    for (k, fcol, fhi, pos, v), (A, B) in zip(el, AB):
        ab = f.ts(8)
        FR.emit_mul(f, ab, A, B)
        FR.emit_sub(f, ab, ab, v)
        FR.emit_mul(f, v, ab, Z)
    f.op("label", nocomb)
    for k, fcol, fhi, pos, v in el:
        da = g.addr64(P["dst"], pos, 32)
        g.mem("st.global", v[:4], da)
        g.mem("st.global", v[4:], da, 16)
    f.op("add.u32", i, i, U)
    f.op("bra", top, g.pred("lt", i, Et), False)
    return f


def swz_f(g, r, F, csh):
    """Slot of layout-F index F (see the header); no swizzle when r < 3."""
    if r < 3:
        return F
    x = 0
    nx = max(0, min(3, r - 6))
    if nx:
        x = g.and_(g.shr(g.brev(F), 35 - r), (1 << nx) - 1)
    key = g.shl(g.shr(F, r), csh)
    if nx:
        key = g.xor(key, x)
    return g.xor(F, g.and_(key, 7))


OCC4_R = (7, 8, 9)  # radices that also get the four-blocks-per-SM variant (no spills at 128)


def kernels():
    return [pass_kernel(r) for r in range(1, MAXR + 1)] + [pass_kernel(r, 4) for r in OCC4_R]


def decls():
    return f".extern .shared .align 16 .b8 {SMEM}[];\n"


class KernelFn(Fn):
    """An .entry printed with launch bounds: at most 128 threads (1024 elements), three
    blocks per SM, so ptxas keeps it within 168 registers (at 128 it spilled)."""

    blocks = MIN_BLOCKS

    def ptx(self):
        return super().ptx().replace(")\n{", f")\n.maxntid {MAX_THREADS}, 1, 1\n.minnctapersm {self.blocks}\n{{", 1)


# ----------------------------------------------------------------------------
# Multi-thread simulation of whole blocks (threads run in turn between barriers)
# ----------------------------------------------------------------------------
class BlockSim(Sim):
    def __init__(self, fns):
        super().__init__(fns)
        self.gmem = {}
        self.bufs = []
        self.next = 1 << 40
        self.shared_log = None

    def alloc(self, words):
        base = self.next
        self.next += (words * 4 + 4095) // 4096 * 4096 + 4096
        self.bufs.append((base, words * 4))
        return base

    def write(self, base, words):
        for i, w in enumerate(words):
            self.gmem[base + 4 * i] = w

    def read(self, base, n):
        return [self.gmem[base + 4 * i] for i in range(n)]

    def launch(self, name, grid, block, shared, params, only=None):
        """Runs the grid's blocks (the first `only` of them when given)."""
        fn = self.fns[name]
        # the launch as the Rust launcher checks it: the geometry is the kernel's own, and every
        # global access below lies in the ranges its contract names
        assert fn.iface.geometry(params) == ((grid, 1), block, shared), f"{name}: not the kernel's geometry"
        self.windows = fn.iface.windows(params, self.bufs)
        for bx in range(grid if only is None else only):
            smem = {}
            threads = []
            for tx in range(block):
                R = {"%tid.x": tx, "%ctaid.x": bx, "%ntid.x": block}
                threads.append(self.run_thread(fn, R, params, smem, shared, tx, bx))
            alive = threads
            while alive:
                nxt = []
                for th in alive:
                    try:
                        next(th)
                        nxt.append(th)
                    except StopIteration:
                        pass
                assert len(nxt) in (0, len(alive)), "threads disagree on barriers"
                alive = nxt

    def run_thread(self, fn, R, params, smem, shared, tx, bx):
        name = fn.name
        labels = label_index(fn)
        cc = [0]
        pc = 0
        ops = fn.ops
        count = {}
        while pc < len(ops):
            o = unguard(R, ops[pc])
            here = pc
            pc += 1
            if o is None:
                continue
            k = o[0]
            if k in ("label", "comment"):
                continue
            if k == "bra":
                t = branch_target(R, o, labels)
                pc = pc if t is None else t
                continue
            if k == "bar.sync":
                yield
                continue
            if k == "raw":
                _, kind, regs, addr, off = o[2]
                a = self.val(R, addr) + off
                if kind.endswith("shared"):
                    assert 0 <= a and a + 16 <= shared, ("shared out of range", a, shared)
                    if self.shared_log is not None:
                        n = count.get(here, 0)
                        count[here] = n + 1
                        self.shared_log.setdefault((bx, here, n), {})[tx] = a
                    mem = smem
                else:
                    assert any(b <= a and a + 16 <= b + s for b, s in self.bufs), ("global out of range", hex(a))
                    assert inside(self.windows, a, 16), ("global access outside the contract", name, hex(a))
                    mem = self.gmem
                if kind.startswith("ld"):
                    for j, rg in enumerate(regs):
                        R[rg] = mem[a + 4 * j]
                else:
                    for j, rg in enumerate(regs):
                        mem[a + 4 * j] = R[rg]
                continue
            if k.startswith("ld.param"):
                R[o[1]] = params[o[2].strip("[]")]
                continue
            if k == "cvta.to.global.u64":
                R[o[1]] = R[o[2]]
                continue
            if k == "mul.wide.u32":
                R[o[1]] = (self.val(R, o[2]) * self.val(R, o[3])) & M64
                continue
            if k == "brev.b32":
                R[o[1]] = rev(self.val(R, o[2]), 32)
                continue
            if k == "min.u32":
                R[o[1]] = min(self.val(R, o[2]), self.val(R, o[3]))
                continue
            if k == "mov.u32" and o[2] == SMEM:
                R[o[1]] = 0
                continue
            self.exec(R, cc, o)


# ----------------------------------------------------------------------------
# Host-side planning and tables, mirrored by src/gpu/ntt.rs
# ----------------------------------------------------------------------------
MOD = FR.mod
RM = pow(2, 256, MOD)
GEN = 7


def plan(L, max_r=MAXR):
    P = max(1, -(-L // max_r))
    base, extra = divmod(L, P)
    return [base + 1 if i < extra else base for i in range(P)]


def root(L):
    return pow(GEN, (MOD - 1) >> L, MOD)


def mont(x):
    return [(x * RM % MOD) >> (32 * i) & M32 for i in range(8)]


def unmont(w):
    return sum(x << (32 * i) for i, x in enumerate(w)) * pow(RM, -1, MOD) % MOD


def words(vals):
    return [x for v in vals for x in mont(v)]


EB_LOG = 10  # elements per block (128 threads x 8)


def pass_params(L, rs, p, eb_log=EB_LOG):
    """Radix bits, log K and log G of pass p (G columns per block: G*R <= 2^eb_log
    elements and at most 128 threads)."""
    r = rs[p]
    lg_k = sum(rs[:p])
    lg_g = max(0, min(L - r, eb_log - r, 7))
    return r, lg_k, lg_g


def sim_ntt(S, L, x, inverse=False, coset=None, combine=None, rs=None, eb_log=6, suffix=""):
    """Runs the generated kernels on x (canonical ints) in the simulator; returns
    the output (canonical ints). coset: g for the output scale g^i (inverse
    transforms include 1/n); combine: (A, B, z) for v <- (A*B - v)*z at the end."""
    N = 1 << L
    rs = rs or plan(L)
    w = root(L)
    if inverse:
        w = pow(w, -1, MOD)
    w512 = pow(root(32), 1 << 23, MOD) if not inverse else pow(pow(root(32), 1 << 23, MOD), -1, MOD)
    ninv = pow(N, -1, MOD) if inverse else 1
    B = rs[0]
    tw = S.alloc(256 * 8)
    S.write(tw, words([pow(w512, j, MOD) for j in range(256)]))
    thi = S.alloc((N >> B) * 8)
    S.write(thi, words([pow(w, j << B, MOD) for j in range(N >> B)]))
    tlo = S.alloc((1 << B) * 8)
    lo_c = ninv if len(rs) > 1 else 1
    S.write(tlo, words([pow(w, j, MOD) * lo_c % MOD for j in range(1 << B)]))
    Kl = N >> rs[-1]
    shi = slo = 0
    if coset is not None or (inverse and len(rs) == 1):
        gg = coset if coset is not None else 1
        c0 = ninv if len(rs) == 1 else 1
        shi = S.alloc((1 << rs[-1]) * 8)
        S.write(shi, words([pow(gg, k * Kl, MOD) * c0 % MOD for k in range(1 << rs[-1])]))
        slo = S.alloc(Kl * 8)
        S.write(slo, words([pow(gg, fc, MOD) for fc in range(Kl)]))
    pa = pb = pz = 0
    if combine:
        pa, pb, pz = S.alloc(N * 8), S.alloc(N * 8), S.alloc(8)
        S.write(pa, words(combine[0]))
        S.write(pb, words(combine[1]))
        S.write(pz, mont(combine[2]))
    bufs = [S.alloc(N * 8), S.alloc(N * 8)]
    S.write(bufs[0], words(x))
    for p, r in enumerate(rs):
        r, lg_k, lg_g = pass_params(L, rs, p, eb_log)
        last = p == len(rs) - 1
        flags = 0
        p1 = p2 = 0
        if not last:
            flags |= F_FACTOR
            p1 = thi
            if lg_k < B:
                flags |= F_TWO
                p2 = tlo
        elif shi:
            flags |= F_FACTOR | F_TWO | F_SCALE
            p1, p2 = shi, slo
        if lg_k < lg_g:
            flags |= F_MODEB
        if last and combine:
            flags |= F_COMBINE
        S.write(bufs[1], [0xDEADBEEF] * (N * 8))  # poison
        Et = min(8, 1 << r)
        params = dict(src=bufs[0], dst=bufs[1], tw=tw, p1=p1, p2=p2, pa=pa, pb=pb, pz=pz,
                      lg_s=L - r, lg_k=lg_k, lg_g=lg_g, lg_b=B, flags=flags)
        G = 1 << lg_g
        S.launch(f"ntt_r{r}{suffix if r in OCC4_R else ''}", (N >> r) // G, G * (1 << r) // Et, G * (32 << r) + 64, params)
        bufs.reverse()
    out = S.read(bufs[0], N * 8)
    return [unmont(out[8 * i:8 * i + 8]) for i in range(N)]


def dft(x, w):
    N = len(x)
    return [sum(x[n] * pow(w, n * k, MOD) for n in range(N)) % MOD for k in range(N)]


def bank_report(log):
    """Worst shared-memory conflict degree over all 16-byte warp accesses
    (8-lane phases; distinct addresses in one 16-byte bank group conflict)."""
    worst = {}
    for (bx, pc, n), lanes in log.items():
        for w0 in range(0, max(lanes) + 1, 32):
            for ph in range(w0, w0 + 32, 8):
                addrs = {lanes[t] for t in range(ph, ph + 8) if t in lanes}
                groups = {}
                for a in addrs:
                    groups.setdefault((a // 16) % 8, set()).add(a)
                deg = max((len(s) for s in groups.values()), default=1)
                worst[pc] = max(worst.get(pc, 1), deg)
    return worst


def selfcheck(seed=1):
    random.seed(seed)
    fns = kernels()
    S = BlockSim(fns)
    cases = [  # (L, radix plan, elements per block log, inverse, coset)
        (1, [1], 6, False, None), (2, [2], 6, True, None), (3, [3], 6, False, None),
        (4, [4], 6, True, None), (5, [5], 6, False, None), (6, [6], 6, False, 7),
        (7, [7], 9, False, None), (8, [8], 9, True, None), (9, [9], 9, False, None),
        (7, [4, 3], 6, True, 7), (8, [3, 3, 2], 5, False, None), (8, [3, 3, 2], 5, True, None),
        (9, [5, 4], 7, False, None), (6, [2, 2, 2], 4, True, pow(7, -1, MOD)),
    ]
    for L, rs, eb, inv, coset in cases:
        N = 1 << L
        x = [random.randrange(MOD) for _ in range(N)]
        got = sim_ntt(S, L, x, inv, coset, rs=rs, eb_log=eb)
        w = root(L)
        if inv:
            y = [v * pow(N, -1, MOD) % MOD for v in dft(x, pow(w, -1, MOD))]
        else:
            y = dft(x, w)
        if coset is not None:
            y = [v * pow(coset, i, MOD) % MOD for i, v in enumerate(y)]
        assert got == y, ("ntt mismatch", L, rs, inv, coset)
        S.gmem.clear()
        S.bufs.clear()
        print(f"ntt sim ok: L={L} passes={rs} G*R=2^{eb} inverse={inv} coset={coset is not None}")
    # the four-blocks-per-SM builds (radix 2^7..2^9; one-element store loop)
    for L, rs, inv, coset in ((9, [9], False, 7), (8, [8], True, None), (7, [7], False, None)):
        N = 1 << L
        x = [random.randrange(MOD) for _ in range(N)]
        got = sim_ntt(S, L, x, inv, coset, rs=rs, eb_log=9, suffix="o")
        w = pow(root(L), -1, MOD) if inv else root(L)
        y = [v * (pow(N, -1, MOD) if inv else 1) * pow(coset or 1, i, MOD) % MOD for i, v in enumerate(dft(x, w))]
        assert got == y, ("ntt mismatch, four-blocks build", L)
        S.gmem.clear()
        S.bufs.clear()
        print(f"ntt sim ok: L={L} four-blocks build inverse={inv} coset={coset is not None}")
    # H step fused into the last pass: v <- (A*B - v)*z
    L, N = 6, 64
    x = [random.randrange(MOD) for _ in range(N)]
    A = [random.randrange(MOD) for _ in range(N)]
    Bv = [random.randrange(MOD) for _ in range(N)]
    z = random.randrange(MOD)
    got = sim_ntt(S, L, x, combine=(A, Bv, z), rs=[3, 3], eb_log=5)
    y = dft(x, root(L))
    assert got == [(a * b - v) * z % MOD for a, b, v in zip(A, Bv, y)], "combine mismatch"
    print("ntt sim ok: H combine")
    # shared-memory bank conflicts at the production shape (r = 9 and 8, 1024 elements per block)
    for r in (9, 8):
        for flags, mode in ((F_FACTOR | F_TWO | F_MODEB, "B"), (F_FACTOR, "A")):
            S1 = BlockSim([fn for fn in fns if fn.name == f"ntt_r{r}"])
            S1.shared_log = {}
            run_one_block(S1, r + 4, r, flags)
            bad = {pc: d for pc, d in bank_report(S1.shared_log).items() if d > 1}
            assert not bad, (f"bank conflicts in ntt_r{r}, store mode {mode}", bad)
            print(f"ntt_r{r}: shared memory conflict-free, G*R = {1 << EB_LOG}, store mode {mode}")


def run_one_block(S, L, r, flags):
    """One block of a pass with radix 2^r over 2^L random elements (tables random too)."""
    lg_g = pass_params(L, [r, L - r], 0)[2]
    N = 1 << L
    tw, thi, tlo = S.alloc(256 * 8), S.alloc((N >> r) * 8), S.alloc((1 << r) * 8)
    src, dst = S.alloc(N * 8), S.alloc(N * 8)
    for b, n in ((tw, 256), (thi, N >> r), (tlo, 1 << r), (src, N)):
        S.write(b, words([random.randrange(MOD) for _ in range(n)]))
    params = dict(src=src, dst=dst, tw=tw, p1=thi, p2=tlo, pa=0, pb=0, pz=0,
                  lg_s=L - r, lg_k=0, lg_g=lg_g, lg_b=r, flags=flags)
    G = 1 << lg_g
    S.launch(f"ntt_r{r}", (N >> r) // G, G * (1 << r) // 8, G * (32 << r) + 64, params, only=1)


if __name__ == "__main__":
    selfcheck(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
