"""Constraint evaluation on the device (module "evaluate"): a circuit's A*z, B*z, C*z from its
compiled constraints and a packed witness, and the gathers of the split queries' MSMs (their
ones bitmaps, field elements and points). Only the packed witness crosses PCIe; the compiled
shape stays resident.

The packed witness (src/witness/packed.rs): z = (inputs, aux). Aux variable i is a field element
when bit i of `fmask` is set: its value is fields[rank], rank = frank[i/32] + the set bits of
fmask word i/32 below bit i; otherwise its value is bit i of `bits`. Bit i of a u32 word array is bit i%32 of
word i/32 (the host's u64 words, little-endian, read as u32 pairs). `frank[w]`: set bits of fmask
in words below w. Field elements (inputs, fields, the coefficient tables, the outputs) are 8
little-endian u32 words in Montgomery form.

The compiled constraints (src/constraints/mod.rs): a block (head or template) is, per matrix, a
CSR of u32 row pointers, columns and coefficient codes. Column bit 31 set: public input
col & 0x7fffffff, else aux col. Template rows are repeated for every challenge j with columns
shifted: an input i >= inputs_from becomes i + j*inputs_per, an aux i >= aux_from becomes
i + j*aux_per, an aux i in the prefix's moving range moving_lo <= i < moving_hi (below aux_from;
SnapDeals' challenge bits, empty otherwise) becomes i + offsets[j]. A code's top two bits:
0 +2^k, 1 -2^k (k = the low 8 bits), 2 table[code & 0x3fffffff].

eval_rows: one thread per row of one block's matrix, grid.y = the challenges it repeats for
(1 for the head, with an empty moving range); offsets[j] is read once per thread;
out[out_first + j*out_stride + row] = sum over the row's terms of
coefficient * z[column]: a bit of 1 adds the coefficient (no multiplication), a field element
is multiplied by it (fr_mul), a negative class subtracts.
gather: out[k] = src[idx[k]], k < n (a split query's field elements from the witness's);
gather_g1, gather_g2: the same for converted affine points (the dense part of a split MSM).
gather_bits: bit k of out = bit idx[k] of src (a query's ones bitmap from the aux bits).
expand_aux: out[out_first + k] = the value of aux idx[k] (or aux k) as a full Montgomery scalar:
a query's scalars for an ordinary MSM, where a witness is mostly field elements (PoSt) and the
split's dense part would be nearly the whole query."""
from ff import R as FR_MOD, limbs
from ir import Fn
from iface import FREE, Kernel, div_ceil, eq, ne
from kernels import addr

# 1 in Montgomery form (2^256 mod r): the value of a one bit.
FR_ONE = limbs(pow(2, 256, FR_MOD), 8)

def _prologue(f, ptrs):
    return f.global_pointers(ptrs), f.global_index()


def load(f, a, nwords):
    """nwords u32 at address a (16-byte aligned), as vector loads the simulator runs."""
    r = f.ts(nwords)
    for k in range(0, nwords, 4):
        f.op("ld.global.v4.u32", "{" + ", ".join(r[k:k + 4]) + "}", f"[{a}+{4 * k}]")
    return r


def store(f, a, regs):
    for k in range(0, len(regs), 4):
        f.op("st.global.v4.u32", f"[{a}+{4 * k}]", "{" + ", ".join(regs[k:k + 4]) + "}")


def _word(f, base, i):
    """base[i] (u32)."""
    r = f.t()
    f.op("ld.global.u32", r, f"[{addr(f, base, i, 4)}+0]")
    return r


def _aux_lookup(f, regs, i, vaddr, field_label, zero_label):
    """Branches to field_label with the value's address in `vaddr` when aux i is a field
    element, to zero_label when it is a zero bit; falls through when it is a one bit."""
    w, b, m, bit, p = f.t(), f.t(), f.t(), f.t(), f.t("p")
    f.op("shr.u32", w, i, 5)
    f.op("and.b32", b, i, 31)
    one = f.t()
    f.op("mov.u32", one, 1)
    f.op("shl.b32", bit, one, b)
    f.op("ld.global.u32", m, f"[{addr(f, regs['fmask'], w, 4)}+0]")
    t = f.t()
    f.op("and.b32", t, m, bit)
    f.op("setp.ne.u32", p, t, 0)
    below, cnt, rank = f.t(), f.t(), f.t()
    f.op("sub.u32", below, bit, 1)
    f.op("and.b32", below, m, below)
    f.op("popc.b32", cnt, below)
    fr = f.t()
    # frank and fields are read only for field elements
    field_only = f.label("aux_bit")
    f.op("bra", field_only, p, True)
    f.op("ld.global.u32", fr, f"[{addr(f, regs['frank'], w, 4)}+0]")
    f.op("add.u32", rank, fr, cnt)
    a = addr(f, regs["fields"], rank, 32)
    f.op("mov.b64", vaddr, a)
    f.op("bra", field_label, None, False)
    f.op("label", field_only)
    bw = f.t()
    f.op("ld.global.u32", bw, f"[{addr(f, regs['bits'], w, 4)}+0]")
    f.op("and.b32", bw, bw, bit)
    q = f.t("p")
    f.op("setp.eq.u32", q, bw, 0)
    f.op("bra", zero_label, q, False)


def eval_rows():
    k = Kernel("eval_rows", sig="EvalRows", field="rows",
               doc="eval_rows: A*z, B*z or C*z of one block's rows (the head, or the template for\n"
                   "grid.y challenges) from the compiled constraints and a packed witness.")
    rows, out_first, out_stride, inputs_from, inputs_per, aux_from, aux_per, moving_lo, moving_hi = k.u32s(
        "rows", "outFirst", "outStride", "inputsFrom", "inputsPer", "auxFrom", "auxPer", "movingLo", "movingHi")
    k.buffer("out", "u32", 8 * (out_first + out_stride * (k.grid_y - 1) + rows), "writes",
             "Row sums: element out_first + j*out_stride + row for challenge j < grid.y, row < rows.", align=16)
    k.buffer("rowPtr", "u32", rows + 1, "reads", "The block's row pointers (rows + 1).")
    k.buffer("cols", "u32", 0, "reads", "Per term: the column (bit 31: a public input).", data=True)
    k.buffer("codes", "u32", 0, "reads", "Per term: the coefficient code.", data=True)
    k.buffer("pow2", "u32", 8 * 255, "reads", "2^k for k < 255, Montgomery form.", align=16)
    k.buffer("table", "u32", 0, "reads", "The coefficients that are not +-2^k.", align=16, data=True)
    k.buffer("inputs", "u32", 0, "reads", "The public inputs (input 0 is one).", align=16, data=True)
    k.buffer("bits", "u32", 0, "reads", "Aux value bits.", data=True)
    k.buffer("fmask", "u32", 0, "reads", "Aux field-element mask.", data=True)
    k.buffer("frank", "u32", 0, "reads", "Per fmask word: the set bits of the words below it.", data=True)
    k.buffer("fields", "u32", 0, "reads", "The field elements' values, in aux order.", align=16, data=True)
    k.buffer("offsets", "u32", k.grid_y, "reads",
             "Per challenge j < grid.y: the offset of the prefix's moving range (offsets[0] = 0).")
    k.launch(grid_y=FREE)
    k.require(out_first + out_stride * (k.grid_y - 1) + rows <= 1 << 32, "row indices fit 32 bits")
    k.require(moving_lo <= moving_hi, "the moving range is a range")
    k.require(moving_hi <= aux_from, "the moving range lies in the prefix, below the shifted aux")
    k.trusts("rowPtr, cols and codes are a compiled block checked on the host when it was uploaded\n"
             "(row pointers non-decreasing up to the term count; every column, shifted for the last\n"
             "challenge or, in the moving range, by the largest offset, below the input and aux counts\n"
             "of the witness; every code's index below pow2's or the table's length), and bits, fmask,\n"
             "frank, fields and inputs hold a packed witness of those counts (frank from fmask).")
    f = k.fn(Fn)
    ptrs = ["out", "rowPtr", "cols", "codes", "pow2", "table", "inputs", "bits", "fmask", "frank", "fields", "offsets"]
    regs, row = _prologue(f, ptrs)
    end = f.label("end")
    n, p = f.t(), f.t("p")
    f.op("ld.param.u32", n, "[rows]")
    f.op("setp.ge.u32", p, row, n)
    f.op("bra", end, p, False)
    j, ish, ash, ifrom, afrom, t = f.t(), f.t(), f.t(), f.t(), f.t(), f.t()
    f.op("mov.u32", j, "%ctaid.y")
    f.op("ld.param.u32", t, "[inputsPer]")
    f.op("mul.lo.u32", ish, j, t)
    f.op("ld.param.u32", t, "[auxPer]")
    f.op("mul.lo.u32", ash, j, t)
    f.op("ld.param.u32", ifrom, "[inputsFrom]")
    f.op("ld.param.u32", afrom, "[auxFrom]")
    # the moving range as (lo, length) and this challenge's offset
    mlo, mlen, moff = f.t(), f.t(), f.t()
    f.op("ld.param.u32", mlo, "[movingLo]")
    f.op("ld.param.u32", mlen, "[movingHi]")
    f.op("sub.u32", mlen, mlen, mlo)
    f.op("ld.global.u32", moff, f"[{addr(f, regs['offsets'], j, 4)}+0]")
    kk, hi, r1 = f.t(), f.t(), f.t()
    f.op("ld.global.u32", kk, f"[{addr(f, regs['rowPtr'], row, 4)}+0]")
    f.op("add.u32", r1, row, 1)
    f.op("ld.global.u32", hi, f"[{addr(f, regs['rowPtr'], r1, 4)}+0]")
    acc = f.ts(8)
    for a in acc:
        f.op("mov.u32", a, 0)
    loop, nxt, done = f.label("term"), f.label("next"), f.label("done")
    field, one, accum = f.label("field"), f.label("one"), f.label("accum")
    f.op("label", loop)
    q = f.t("p")
    f.op("setp.ge.u32", q, kk, hi)
    f.op("bra", done, q, False)
    col, code, cls, pay = f.t(), f.t(), f.t(), f.t()
    f.op("ld.global.u32", col, f"[{addr(f, regs['cols'], kk, 4)}+0]")
    f.op("ld.global.u32", code, f"[{addr(f, regs['codes'], kk, 4)}+0]")
    f.op("shr.u32", cls, code, 30)
    f.op("and.b32", pay, code, 0x3FFFFFFF)
    # the coefficient's address: table[pay] for class 2, else pow2[pay & 0xff]
    p2, k8, ci, caddr = f.t("p"), f.t(), f.t(), f.t("a")
    f.op("setp.eq.u32", p2, cls, 2)
    f.op("and.b32", k8, pay, 0xFF)
    f.op("selp.b32", ci, pay, k8, p2)
    ta = addr(f, regs["table"], ci, 32)
    pa = addr(f, regs["pow2"], ci, 32)
    f.op("selp.b64", caddr, ta, pa, p2)
    # the column's value
    vaddr, inp, i = f.t("a"), f.t("p"), f.t()
    f.op("and.b32", t, col, 0x80000000)
    f.op("setp.ne.u32", inp, t, 0)
    aux = f.label("aux")
    f.op("bra", aux, inp, True)
    f.op("and.b32", i, col, 0x7FFFFFFF)
    ps = f.t("p")
    f.op("setp.ge.u32", ps, i, ifrom)
    f.op("@" + ps, "add.u32", i, i, ish)
    f.op("mov.b64", vaddr, addr(f, regs["inputs"], i, 32))
    f.op("bra", field, None, False)
    f.op("label", aux)
    f.op("setp.ge.u32", ps, col, afrom)
    f.op("mov.u32", i, col)
    f.op("@" + ps, "add.u32", i, i, ash)
    # col - lo < hi - lo (unsigned): col in the moving range (below aux_from: not shifted above)
    pm, d = f.t("p"), f.t()
    f.op("sub.u32", d, col, mlo)
    f.op("setp.lt.u32", pm, d, mlen)
    f.op("@" + pm, "add.u32", i, i, moff)
    _aux_lookup(f, regs, i, vaddr, field, nxt)
    f.op("bra", one, None, False)
    # field element: term = value * coefficient
    f.op("label", field)
    v = load(f, vaddr, 8)
    c = load(f, caddr, 8)
    term = f.ts(8)
    f.op("call", "fr_mul", term, v + c)
    f.op("bra", accum, None, False)
    # one bit: term = coefficient
    f.op("label", one)
    c1 = load(f, caddr, 8)
    for dst, src in zip(term, c1):
        f.op("mov.b32", dst, src)
    f.op("label", accum)
    neg = f.t("p")
    f.op("setp.eq.u32", neg, cls, 1)
    sub_l, add_done = f.label("sub"), f.label("added")
    f.op("bra", sub_l, neg, False)
    f.op("call", "fr_add", acc, acc + term)
    f.op("bra", add_done, None, False)
    f.op("label", sub_l)
    f.op("call", "fr_sub", acc, acc + term)
    f.op("label", add_done)
    f.op("label", nxt)
    f.op("add.u32", kk, kk, 1)
    f.op("bra", loop, None, False)
    f.op("label", done)
    o, stride, first = f.t(), f.t(), f.t()
    f.op("ld.param.u32", stride, "[outStride]")
    f.op("ld.param.u32", first, "[outFirst]")
    f.op("mad.lo.u32", o, j, stride, first)
    f.op("add.u32", o, o, row)
    store(f, addr(f, regs["out"], o, 32), acc)
    f.op("label", end)
    return f


def gather(name="gather", words=8, what="8-word field elements"):
    """out[k] = src[idx[k]] for elements of `words` u32: the scalars of a query (8), the
    converted affine points of a G1 (24) or G2 (48) section for the dense part of a split MSM."""
    k = Kernel(name, sig="Gather", field=name, doc=f"{name}: out[k] = src[idx[k]] for k < n ({what}).")
    n = k.u32s("n")
    ew = k.const("ELEM_WORDS", words, "u32 words per gathered element.")
    k.buffer("out", "u32", ew * n, "writes", "The gathered elements k < n.", align=16)
    k.buffer("src", "u32", 0, "reads", "The elements idx indexes.", align=16, data=True)
    k.buffer("idx", "u32", n, "reads", "Indices into src.")
    k.trusts("every idx[k], k < n, is below src's length in elements (checked on the host when the\n"
             "index list was built).")
    f = k.fn(Fn)
    regs, i = _prologue(f, ["out", "src", "idx"])
    end = f.label("end")
    nn, p = f.t(), f.t("p")
    f.op("ld.param.u32", nn, "[n]")
    f.op("setp.ge.u32", p, i, nn)
    f.op("bra", end, p, False)
    s = _word(f, regs["idx"], i)
    store(f, addr(f, regs["out"], i, 4 * words), load(f, addr(f, regs["src"], s, 4 * words), words))
    f.op("label", end)
    return f


def gather_bits():
    k = Kernel("gather_bits", sig="GatherBits", field="gather_bits",
               doc="gather_bits: bit k of out = bit idx[k] of src for k < n, 0 past n (a query's ones\n"
                   "bitmap from the aux bits by the shape's index list). Thread k; lane 0 of each warp\n"
                   "writes the warp's word from a ballot (blocks of whole warps, every lane runs it).")
    n = k.u32s("n")
    k.buffer("out", "u32", div_ceil(n, 32), "writes", "The gathered bits k < n, 32 per word.")
    k.buffer("src", "u32", 0, "reads", "The bitmap idx indexes.", data=True)
    k.buffer("idx", "u32", n, "reads", "Bit indices into src.")
    k.block_rule(eq(k.block_v & 31, 0), "blocks are whole warps (full-mask warp collectives)")
    k.trusts("every idx[k], k < n, is below 32 times src's length in words (checked on the host when\n"
             "the index list was built).")
    f = k.fn(Fn)
    regs, i = _prologue(f, ["out", "src", "idx"])
    nn, valid, on = f.t(), f.t("p"), f.t("p")
    f.op("ld.param.u32", nn, "[n]")
    f.op("setp.lt.u32", valid, i, nn)
    j, w, v, sh, ballot, lane = f.t(), f.t(), f.t(), f.t(), f.t(), f.t()
    f.op("mov.u32", j, 0)
    f.op("@" + valid, "ld.global.u32", j, f"[{addr(f, regs['idx'], i, 4)}+0]")
    f.op("shr.u32", w, j, 5)
    f.op("mov.u32", v, 0)
    f.op("@" + valid, "ld.global.u32", v, f"[{addr(f, regs['src'], w, 4)}+0]")
    f.op("and.b32", sh, j, 31)
    f.op("shr.u32", v, v, sh)
    f.op("and.b32", v, v, 1)
    set_ = f.t("p")
    f.op("setp.ne.u32", set_, v, 0)
    f.op("and.pred", on, set_, valid)
    f.op("vote.sync.ballot.b32", ballot, on, 0xFFFFFFFF)
    f.op("mov.u32", lane, "%laneid")
    first, write = f.t("p"), f.t("p")
    f.op("setp.eq.u32", first, lane, 0)
    f.op("and.pred", write, first, valid)
    word = f.t()
    f.op("shr.u32", word, i, 5)
    f.op("@" + write, "st.global.u32", f"[{addr(f, regs['out'], word, 4)}+0]", ballot)
    return f


def expand_aux():
    k = Kernel("expand_aux", sig="ExpandAux", field="expand_aux",
               doc="expand_aux: out[outFirst + k] = aux idx[k] (indexed != 0) or aux k (else) of a packed\n"
                   "witness as an 8-word Montgomery scalar, k < n: a field element's value, 1 or 0 for a bit.")
    n, out_first, indexed = k.u32s("n", "outFirst", "indexed")
    k.buffer("out", "u32", 8 * (out_first + n), "writes", "The scalars out_first..out_first + n.", align=16)
    k.buffer("bits", "u32", 0, "reads", "Aux value bits.", data=True)
    k.buffer("fmask", "u32", 0, "reads", "Aux field-element mask.", data=True)
    k.buffer("frank", "u32", 0, "reads", "Per fmask word: the set bits of the words below it.", data=True)
    k.buffer("fields", "u32", 0, "reads", "The field elements' values, in aux order.", align=16, data=True)
    k.buffer("idx", "u32", n, "reads", "The aux variables to expand (a query's index list).", when=ne(indexed, 0))
    k.require(out_first + n <= 1 << 32, "scalar indices fit 32 bits")
    k.trusts("every aux variable read (idx[k], or k without an index list), k < n, is below the aux\n"
             "count of the packed witness that bits, fmask, frank and fields hold (frank from fmask):\n"
             "the index lists are the shape's densities, checked against the witness's counts.")
    f = k.fn(Fn)
    regs, t = _prologue(f, ["out", "bits", "fmask", "frank", "fields", "idx"])
    end = f.label("end")
    nn, p = f.t(), f.t("p")
    f.op("ld.param.u32", nn, "[n]")
    f.op("setp.ge.u32", p, t, nn)
    f.op("bra", end, p, False)
    # the aux variable: idx[t] or t
    i, ix, pi = f.t(), f.t(), f.t("p")
    f.op("mov.u32", i, t)
    f.op("ld.param.u32", ix, "[indexed]")
    f.op("setp.ne.u32", pi, ix, 0)
    f.op("@" + pi, "ld.global.u32", i, f"[{addr(f, regs['idx'], t, 4)}+0]")
    val = f.ts(8)
    vaddr = f.t("a")
    field, zero, store_l = f.label("field"), f.label("zero"), f.label("store")
    _aux_lookup(f, regs, i, vaddr, field, zero)
    for dst, w in zip(val, FR_ONE):
        f.op("mov.u32", dst, w)
    f.op("bra", store_l, None, False)
    f.op("label", zero)
    for dst in val:
        f.op("mov.u32", dst, 0)
    f.op("bra", store_l, None, False)
    f.op("label", field)
    for dst, src in zip(val, load(f, vaddr, 8)):
        f.op("mov.b32", dst, src)
    f.op("label", store_l)
    o, first = f.t(), f.t()
    f.op("ld.param.u32", first, "[outFirst]")
    f.op("add.u32", o, first, t)
    store(f, addr(f, regs["out"], o, 32), val)
    f.op("label", end)
    return f


def kernels():
    return [eval_rows(), gather(), gather("gather_g1", 24, "converted affine G1 points"),
            gather("gather_g2", 48, "converted affine G2 points"), gather_bits(), expand_aux()]
