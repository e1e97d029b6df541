"""Fixed-base scalar multiplication for `params setup` (module generator_mul):
out[i] = s_i * G for the standard generator G of G1 (fb_g1) or G2 (fb_g2),
written as the uncompressed zcash encoding that blst_p1/p2_affine_serialize
produces: G1 96 bytes x || y, G2 192 bytes x.c1 || x.c0 || y.c1 || y.c0, each
coordinate canonical big-endian; s_i = 0 gives infinity, 0x40 then zeros.

Inputs: scalars Fr in Montgomery form (8 words, blstrs::Scalar bytes); a table
of affine Montgomery points (G1 24 words, G2 48 words, the blst_p1/p2_affine
layout) with table[k * 2^15 + d - 1] = d * 2^(16k) * G for k < 16, 1 <= d <= 2^15
(G1 48 MiB, G2 96 MiB; built on the host with blst, the CPU path's own table).

Algorithm, one thread per scalar:
  1. canonical s (fr_from_mont), cut into 16 signed 16-bit digits,
     |d| <= 2^15 (msm_sort.emit_digit, the MSM's recoding with c = 16: v > 2^15
     becomes v - 2^16 with a carry; r < 2^255 so the top digit never carries);
  2. acc = sum_k d_k * 2^(16k) * G by one XYZZ mixed addition per non-zero digit
     (table entry, y negated for a negative digit): 16 additions and no
     doublings, as every window has its own table;
  3. affine by one Fermat inversion of ZZ * ZZZ ({g1,g2}_to_affine), then
     fp_to_be per coordinate and the infinity flag.
Why this way: with per-window tables the additions are the whole scalar
multiplication (16 mixed additions, ~180 Fp multiplications for G1), and the
Fermat inversion (~460 squarings and multiplications) costs more than they do.
Batched inversion across points would cut that 3-4x, but at 32GiB the whole
G1 work (420M points, ~640 Fp mul each, ~10 s on an H200 at 27 G mul/s) is
already below the time to write the 47 GB file, so the simpler, branch-light
per-thread form was chosen. The additions handle every special case (madd
doubles when acc = q, gives infinity when acc = -q), so any scalar is exact.
G2 keeps its accumulator, the negated table entry, the digits and the window
counter in a per-thread slot of shared memory (64 threads per block): the
memory-operand g2_madd_m needs nearly all registers, so nothing stays live
across the call and the loop re-derives its state from memory.
"""
from ir import Fn
from ff import FP
from iface import Kernel
from rust import export
from msm_emit import params, gtid, elem, ld, st, ldv, stv, zeros, setp, bra
from msm_sort import emit_digit

WBITS = 16
NWIN = 256 // WBITS
HALF = 1 << (WBITS - 1)
G2_BLOCK = 64  # threads per fb_g2 block: one shared slot each
SLOTS = "fb_g2_slots"
# slot layout (bytes): XYZZ accumulator, affine operand, 16 digit words, window counter (+pad)
ACC, Q, DIG, K = 0, 96 * 4, 144 * 4, 160 * 4
SLOT_WORDS = 164
export("generator_mul", "WINDOW_BITS", WBITS, "Bits per window of the scalars.")
export("generator_mul", "WINDOWS", NWIN, "Windows per scalar, each with its own table.")
export("generator_mul", "WINDOW_ENTRIES", HALF, "Table entries per window: d = 1..=2^(WINDOW_BITS - 1).")


def iface(g, point_bytes, aff_words, max_block, doc):
    k = Kernel(f"fb_{g}", sig="GeneratorMul", field=g, doc=doc)
    n = k.u32s("n")
    pb = k.const("POINT_BYTES", point_bytes, "Bytes per encoded output point.")
    aw = k.const("TABLE_POINT_WORDS", aff_words, "u32 words per affine table entry.")
    mb = k.const("MAX_BLOCK", max_block, "Most threads per block.")
    k.buffer("out", "u8", n * pb, "writes", "The encoded points s_i * G, i < n.", align=16)
    k.buffer("scalars", "Scalar", n, "reads", "The scalars s_i, i < n (Montgomery form).", align=16)
    k.buffer("table", "u32", NWIN * HALF * aw, "reads", "Window k's entry d - 1 at k * 2^15 + d - 1: d * 2^(16k) * G.",
             align=16)
    k.block_rule(k.block_v <= mb, "at most MAX_BLOCK threads per block (fb_g2's shared slots)")
    return k


def window_digits(f, c, carry, dw):
    """Next digit of the canonical scalar c (8 regs, shifted right by 16 in place)."""
    emit_digit(f, c + [carry, dw], c, carry, WBITS)


def negate_y(f, ys, neg):
    """Each Fp coordinate in ys (12 regs each) <- -y where neg."""
    for y in ys:
        ny = f.ts(12)
        FP.emit_neg(f, ny, y)
        for i in range(12):
            f.op("selp.b32", y[i], ny[i], y[i], neg)


def encode(f, coords, inf):
    """Big-endian words (as little-endian u32 loads of the bytes) of the coordinates in
    order, with the infinity flag 0x40 in the first byte."""
    words = []
    for c in coords:
        b = f.ts(12)
        f.op("call", "fp_to_be", b, c)
        words += b
    flag = f.t()
    f.op("selp.b32", flag, 0x40, 0, inf)
    f.op("or.b32", words[0], words[0], flag)
    return words


def is_zero(f, regs):
    z = f.t()
    f.op("or.b32", z, regs[0], regs[1])
    for r in regs[2:]:
        f.op("or.b32", z, z, r)
    return setp(f, "eq", z, 0)


def neg_digit(f, dw):
    """(|d| - 1, negative?) of a non-zero digit word |d| | sign << 31."""
    m1 = f.t()
    f.op("and.b32", m1, dw, 0xFFFF)
    f.op("sub.u32", m1, m1, 1)
    return m1, setp(f, "ge", dw, 0x80000000)


def canonical(f, scalars, idx):
    s = ldv(f, elem(f, scalars, idx, 32), 8, nc=True)
    c = f.ts(8)
    f.op("call", "fr_from_mont", c, s)
    return c


def g1_kernel():
    f = iface("g1", 96, 24, 1024,
              "fb_g1(out, scalars, table, n): out[i] (96 B) = zcash encoding of s_i * G1, i < n.\n"
              "Registers: accumulator and scalar; g1_madd (Fp inlined) per non-zero digit.").fn(Fn)
    a = params(f, ["out", "scalars", "table"], ["n"])
    idx = gtid(f)
    end = f.label("end")
    bra(f, end, setp(f, "ge", idx, a["n"]))
    c = canonical(f, a["scalars"], idx)
    acc = zeros(f, 48)
    carry, dw, k, tab = f.t(), f.t(), f.t(), f.t("a")
    f.op("mov.b32", carry, 0)
    f.op("mov.b32", k, NWIN)
    f.op("mov.b64", tab, a["table"])
    top, skip = f.label("win"), f.label("skip")
    f.op("label", top)
    window_digits(f, c, carry, dw)
    bra(f, skip, setp(f, "eq", dw, 0))
    m1, neg = neg_digit(f, dw)
    q = ldv(f, elem(f, tab, m1, 96), 24, nc=True)
    negate_y(f, [q[12:]], neg)
    f.op("call", "g1_madd", acc, acc + q)
    f.op("label", skip)
    f.op("add.s64", tab, tab, HALF * 96)
    f.op("sub.u32", k, k, 1)
    bra(f, top, setp(f, "ne", k, 0))
    aff = f.ts(24)
    f.op("call", "g1_to_affine", aff, acc)
    words = encode(f, [aff[:12], aff[12:]], is_zero(f, acc[24:36]))
    stv(f, elem(f, a["out"], idx, 96), words)
    f.op("label", end)
    return f


def slot(f):
    """Generic address of this thread's shared slot."""
    base, off, tid, a = f.t("a"), f.t("a"), f.t(), f.t("a")
    f.op("mov.u64", base, SLOTS)
    f.op("cvta.shared.u64", base, base)
    f.op("mov.u32", tid, "%tid.x")
    f.op("mul.wide.u32", off, tid, 4 * SLOT_WORDS)
    f.op("add.s64", a, base, off)
    return a


def g2_kernel():
    f = iface("g2", 192, 48, G2_BLOCK,
              f"fb_g2(out, scalars, table, n): out[i] (192 B) = zcash encoding of s_i * G2, i < n.\n"
              f"Blocks of at most {G2_BLOCK} threads (one shared slot each); g2_madd_m on the slot per\n"
              "non-zero digit, the loop state re-read from the slot after every call.").fn(Fn)
    a = params(f, ["out", "scalars", "table"], ["n"])
    idx = gtid(f)
    end, top, done = f.label("end"), f.label("win"), f.label("done")
    bra(f, end, setp(f, "ge", idx, a["n"]))
    sl = slot(f)
    c = canonical(f, a["scalars"], idx)
    carry, dw = f.t(), f.t()
    f.op("mov.b32", carry, 0)
    for w in range(NWIN):
        window_digits(f, c, carry, dw)
        st(f, sl, dw, DIG + 4 * w, sp="")
    z = zeros(f, 4)
    stv(f, sl, z * 24, sp="")
    st(f, sl, z[0], K, sp="")
    # window loop: nothing is live across the call; every iteration starts from the slot
    f.op("label", top)
    a = params(f, ["table"], [])
    sl = slot(f)
    k = ld(f, sl, K, sp="")
    bra(f, done, setp(f, "eq", k, NWIN))
    k1 = f.t()
    f.op("add.u32", k1, k, 1)
    st(f, sl, k1, K, sp="")
    dw = ld(f, elem(f, sl, k, 4), DIG, sp="")
    bra(f, top, setp(f, "eq", dw, 0))
    m1, neg = neg_digit(f, dw)
    row = f.t()
    f.op("mad.lo.u32", row, k, HALF, m1)
    q = ldv(f, elem(f, a["table"], row, 192), 48, nc=True)
    negate_y(f, [q[24:36], q[36:48]], neg)
    pq = f.t("a")
    f.op("add.s64", pq, sl, Q)
    stv(f, pq, q, sp="")
    f.op("call", "g2_madd_m", [], [sl, pq])
    bra(f, top)
    f.op("label", done)
    a = params(f, ["out"], [])
    idx = gtid(f)
    acc = ldv(f, slot(f), 96, sp="")
    aff = f.ts(48)
    f.op("call", "g2_to_affine", aff, acc)
    x0, x1, y0, y1 = aff[0:12], aff[12:24], aff[24:36], aff[36:48]
    words = encode(f, [x1, x0, y1, y0], is_zero(f, acc[48:72]))
    stv(f, elem(f, a["out"], idx, 192), words)
    f.op("label", end)
    return f


def kernels():
    return [g1_kernel(), g2_kernel()]


def decls():
    return f".shared .align 16 .b32 {SLOTS}[{G2_BLOCK * SLOT_WORDS}];\n"
