"""Kernel (.entry) generators: element-wise self-test kernels, throughput
benchmarks and the .params section converter. They only load, call the
shared .func layer and store; the arithmetic lives in ff/ and ec/."""
from ir import Fn
from ec import ONE_FP
from iface import Kernel


def elementwise_iface(name, doc, in_words, out_words, out_access="writes"):
    """out[i] = op(in0[i][, in1[i]]) for i < n: any grid and block."""
    k = Kernel(name, sig="ElementwiseBinary" if len(in_words) == 2 else "ElementwiseUnary", field=name[2:], doc=doc)
    n = k.u32s("n")
    ow = k.const("OUT_WORDS", out_words, "u32 words per output element.")
    k.buffer("out", "u32", n * ow, out_access, "One output element per i < n.", align=16)
    for j, w in enumerate(in_words):
        c = k.const(f"IN{j}_WORDS", w, f"u32 words per element of in{j}.")
        k.buffer(f"in{j}", "u32", n * c, "reads", f"Operand {j}: one element per i < n.", align=16)
    return k


def throughput_iface(name, doc, in_words, in1_words, out_words):
    """One thread per element of the buffers, no bound: the grid sizes them."""
    k = Kernel(name, sig="Throughput", field=name[len("bench_"):], doc=doc)
    k.u32s("iters")
    threads = k.grid_x * k.block_v
    for nm, w, what in (("out", out_words, "One result per thread."), ("in0", in_words, "One operand per thread."),
                        ("in1", in1_words, "One operand per thread (none for a unary operation).")):
        c = k.const(f"{nm.upper()}_WORDS", w, f"u32 words per thread of {nm}.")
        k.buffer(nm, "u32", threads * c, "writes" if nm == "out" else "reads", what, align=16)
    return k


def prologue(f, ptrs, with_n=True, generic=False):
    """Load pointer params into %a regs, compute the global thread index.
    generic=True keeps generic addresses (for .funcs with memory operands)."""
    regs = f.global_pointers(ptrs, generic)
    idx = f.global_index()
    end = f.label("end")
    if with_n:
        n, p = f.t(), f.t("p")
        f.op("ld.param.u32", n, "[n]")
        f.op("setp.ge.u32", p, idx, n)
        f.op("bra", end, p, False)
    return regs, idx, end


def addr(f, base, idx, stride):
    off, a = f.t("a"), f.t("a")
    f.op("mul.wide.u32", off, idx, stride)
    f.op("add.s64", a, base, off)
    return a


def load(f, a, nwords, sp="global."):
    r = f.ts(nwords)
    for k in range(0, nwords, 4):
        f.op("raw", f"ld.{sp}v4.u32 {{{', '.join(r[k:k+4])}}}, [{a}+{4*k}];")
    return r


def store(f, a, regs, sp="global."):
    for k in range(0, len(regs), 4):
        f.op("raw", f"st.{sp}v4.u32 [{a}+{4*k}], {{{', '.join(regs[k:k+4])}}};")


def g2_inplace(name, func, nin, in1_words, doc):
    """out[i] = in0[i] (XYZZ copy), then func(&out[i][, &in1[i]]) in place."""
    ptrs = ["out", "in0"] + (["in1"] if nin == 2 else [])
    f = elementwise_iface(name, doc, [96, in1_words][:nin], 96).fn(Fn)
    regs, idx, end = prologue(f, ptrs, generic=True)
    po = addr(f, regs["out"], idx, 384)
    src = addr(f, regs["in0"], idx, 384)
    for k in range(0, 96, 24):
        r = f.ts(24)
        for j in range(0, 24, 4):
            f.op("raw", f"ld.v4.u32 {{{', '.join(r[j:j+4])}}}, [{src}+{4*(k+j)}];")
        for j in range(0, 24, 4):
            f.op("raw", f"st.v4.u32 [{po}+{4*(k+j)}], {{{', '.join(r[j:j+4])}}};")
    args = [po] + ([addr(f, regs["in1"], idx, 4 * in1_words)] if nin == 2 else [])
    f.op("call", func, [], args)
    f.op("label", end)
    return f


def elementwise(name, func, nout_func, in_words, out_words, doc):
    ptrs = ["out"] + [f"in{k}" for k in range(len(in_words))]
    f = elementwise_iface(name, doc, in_words, out_words).fn(Fn)
    regs, idx, end = prologue(f, ptrs)
    args = []
    for k, w in enumerate(in_words):
        args += load(f, addr(f, regs[f"in{k}"], idx, 4 * w), w)
    res = f.ts(nout_func)
    f.op("call", func, res, args)
    store(f, addr(f, regs["out"], idx, 4 * out_words), res[:out_words])
    f.op("label", end)
    return f


def selftest_kernels():
    K = []
    for pre, n in (("fr", 8), ("fp", 12)):
        for op in ("add", "sub", "mul"):
            K.append(elementwise(f"k_{pre}_{op}", f"{pre}_{op}", n, [n, n], n, f"out[i] = {pre}_{op}(in0[i], in1[i])"))
        for op in ("neg", "dbl", "sqr", "to_mont", "from_mont", "to_be"):
            K.append(elementwise(f"k_{pre}_{op}", f"{pre}_{op}", n, [n], n, f"out[i] = {pre}_{op}(in0[i])"))
        K.append(elementwise(f"k_{pre}_from_be", f"{pre}_from_be", n + 1, [n], n, f"out[i] = {pre}_from_be(in0[i]) (limbs only)"))
    for op in ("add", "sub", "mul"):
        K.append(elementwise(f"k_fp2_{op}", f"fp2_{op}", 24, [24, 24], 24, f"out[i] = fp2_{op}(in0[i], in1[i])"))
    for op in ("neg", "dbl", "sqr", "inv"):
        K.append(elementwise(f"k_fp2_{op}", f"fp2_{op}", 24, [24], 24, f"out[i] = fp2_{op}(in0[i])"))
    K.append(elementwise("k_fp_inv", "fp_inv", 12, [12], 12, "out[i] = fp_inv(in0[i])"))
    # FP64 multiply: 32-bit limbs in and out, converted on the device
    f = elementwise_iface("k_fp52_mul", "out[i] = fp52_to32(fp52_mul(fp52_from32(in0[i]), fp52_from32(in1[i]))) = "
                          "a*b/2^416 mod p", [12, 12], 12).fn(Fn)
    regs, idx, end = prologue(f, ["out", "in0", "in1"])
    a = load(f, addr(f, regs["in0"], idx, 48), 12)
    b = load(f, addr(f, regs["in1"], idx, 48), 12)
    a52, b52, r52, r = f.ts(8, "f"), f.ts(8, "f"), f.ts(8, "f"), f.ts(12)
    f.op("call", "fp52_from32", a52, a)
    f.op("call", "fp52_from32", b52, b)
    f.op("call", "fp52_mul", r52, a52 + b52)
    f.op("call", "fp52_to32", r, r52)
    store(f, addr(f, regs["out"], idx, 48), r)
    f.op("label", end)
    K.append(f)
    return K


def ec_kernels():
    K = []
    for g, n in (("g1", 12), ("g2", 24)):
        if g == "g1":
            K.append(elementwise("k_g1_add", "g1_add", 48, [48, 48], 48, "XYZZ out = g1_add(in0, in1)"))
            K.append(elementwise("k_g1_madd", "g1_madd", 48, [48, 24], 48, "XYZZ out = g1_madd(XYZZ in0, affine in1)"))
            K.append(elementwise("k_g1_dbl", "g1_dbl", 48, [48], 48, "XYZZ out = g1_dbl(in0)"))
        else:
            K.append(g2_inplace("k_g2_add", "g2_add_m", 2, 96, "XYZZ out = in0; g2_add_m(&out, &in1)"))
            K.append(g2_inplace("k_g2_madd", "g2_madd_m", 2, 48, "XYZZ out = in0; g2_madd_m(&out, &in1 affine)"))
            K.append(g2_inplace("k_g2_dbl", "g2_dbl_m", 1, 0, "XYZZ out = in0; g2_dbl_m(&out)"))
        K.append(elementwise(f"k_{g}_to_affine", f"{g}_to_affine", 2 * n, [4 * n], 2 * n, f"affine out = {g}_to_affine(in0)"))
        K.append(elementwise(f"k_{g}_to_jacobian", f"{g}_to_jacobian", 3 * n, [4 * n], 3 * n, f"Jacobian out = {g}_to_jacobian(in0)"))
    return K


def srs_kernels():
    """G1: 96-byte x||y; G2: 192-byte x.c1||x.c0||y.c1||y.c0 (zcash order),
    big-endian, flags in the top 3 bits of the first byte (0x80 compressed,
    0x40 infinity, 0x20 sign). Output: affine Montgomery points (x, y), with
    (0,0) for infinity; status[i] = 0 ok, bit0 coordinate >= p, bit1 wrong
    flags, bit2 not on the curve."""
    K = []
    for g, nfp in (("g1", 1), ("g2", 2)):
        nw = 24 * nfp
        k = Kernel(f"srs_{g}_affine", sig="SrsConvert", field=f"{g}_affine",
                   doc=f"srs_{g}_affine: .params {g.upper()} points ({4*nw} B big-endian, uncompressed) -> affine Montgomery;\n"
                       "input 16-byte aligned; status[i]: 0 ok, 1 coordinate >= p, 2 bad flags, 4 off the curve")
        n = k.u32s("n")
        words = k.const("POINT_WORDS", nw, "u32 words per converted (affine Montgomery) point.")
        nbytes = k.const("POINT_BYTES", 4 * nw, "Bytes per encoded point of the section.")
        k.buffer("out", "u32", n * words, "writes", "The converted points i < n.", align=16)
        k.buffer("in0", "u8", n * nbytes, "reads", "The encoded points i < n (.params section bytes).", align=16)
        k.buffer("status", "u32", n, "writes", "One status word per point: 0 ok, else the reason bits.")
        f = k.fn(Fn)
        regs, idx, end = prologue(f, ["out", "in0", "status"])
        w = load(f, addr(f, regs["in0"], idx, 4 * nw), nw)
        flags, inf, st, pinf, pbad, t = f.t(), f.t(), f.t(), f.t("p"), f.t("p"), f.t()
        f.op("and.b32", flags, w[0], 0xE0)  # first byte = low byte of the first LE word
        f.op("and.b32", inf, flags, 0x40)
        f.op("setp.ne.u32", pinf, inf, 0)
        f.op("and.b32", t, flags, 0xA0)  # compressed or sign flag set: not uncompressed
        f.op("setp.ne.u32", pbad, t, 0)
        f.op("selp.b32", st, 2, 0, pbad)
        f.op("and.b32", w[0], w[0], 0xFFFFFF1F)
        # coordinates in memory order: G1 x, y; G2 x.c1, x.c0, y.c1, y.c0
        parts = []
        for k in range(2 * nfp):
            r = f.ts(13)
            f.op("call", "fp_from_be", r, w[12 * k:12 * k + 12])
            f.op("or.b32", st, st, r[12])
            parts.append(r[:12])
        if nfp == 2:
            parts = [parts[1], parts[0], parts[3], parts[2]]
        xy = sum(parts, [])
        oc = f.t()
        f.op("call", f"{g}_on_curve", [oc], xy)
        f.op("xor.b32", oc, oc, 1)
        f.op("shl.b32", oc, oc, 2)
        f.op("or.b32", st, st, oc)
        for r in xy:
            f.op("selp.b32", r, 0, r, pinf)
        f.op("selp.b32", st, 0, st, pinf)  # infinity: coordinates ignored
        f.op("raw", f"st.global.u32 [{addr(f, regs['status'], idx, 4)}], {st};")
        store(f, addr(f, regs["out"], idx, 4 * nw), xy)
        f.op("label", end)
        K.append(f)
    return K


def bench_kernels():
    """Throughput kernels: each thread runs `iters` dependent operations on
    register-resident operands, then stores the result (so nothing is dead)."""
    K = []

    def chain(name, func, n, unary, doc):
        """func: a .func name (called) or a callable emitting the op inline."""
        f = throughput_iface(name, doc, n, 0 if unary else n, n).fn(Fn)
        regs, idx, end = prologue(f, ["out", "in0", "in1"], with_n=False)
        a = load(f, addr(f, regs["in0"], idx, 4 * n), n)
        b = [] if unary else load(f, addr(f, regs["in1"], idx, 4 * n), n)
        if callable(func):
            loop_body(f, lambda: func(f, a, a, b) if b else func(f, a, a))
        else:
            loop_body(f, lambda: f.op("call", func, a, a + b))
        store(f, addr(f, regs["out"], idx, 4 * n), a)
        f.op("label", end)
        K.append(f)

    def loop_body(f, body):
        it, ctr, p, top = f.t(), f.t(), f.t("p"), f.label("loop")
        f.op("ld.param.u32", it, "[iters]")
        f.op("mov.b32", ctr, 0)
        f.op("label", top)
        body()
        f.op("add.u32", ctr, ctr, 1)
        f.op("setp.lt.u32", p, ctr, it)
        f.op("bra", top, p, False)

    from ff import FP, FR
    import fp52
    chain("bench_fr_mul", FR.emit_mul, 8, False, "a <- a*b, iters times (Fr Montgomery mul, inlined)")
    chain("bench_fp_mul", FP.emit_mul, 12, False, "a <- a*b, iters times (Fp Montgomery mul, inlined)")
    chain("bench_fp_sqr", FP.emit_sqr, 12, True, "a <- a^2, iters times (Fp Montgomery sqr, inlined)")
    chain("bench_fr_mul_call", "fr_mul", 8, False, "a <- fr_mul(a, b) (.func call), iters times")
    chain("bench_fp_mul_call", "fp_mul", 12, False, "a <- fp_mul(a, b) (.func call), iters times")
    # FP64 variant
    f = throughput_iface("bench_fp52_mul", "a <- a*b/2^416 on the FP64 pipe (inlined), iters times", 12, 12, 12).fn(Fn)
    regs, idx, end = prologue(f, ["out", "in0", "in1"], with_n=False)
    a = load(f, addr(f, regs["in0"], idx, 48), 12)
    b = load(f, addr(f, regs["in1"], idx, 48), 12)
    a52, b52, r = f.ts(8, "f"), f.ts(8, "f"), f.ts(12)
    f.op("call", "fp52_from32", a52, a)
    f.op("call", "fp52_from32", b52, b)
    loop_body(f, lambda: fp52.emit_mul(f, a52, a52, b52))
    f.op("call", "fp52_to32", r, a52)
    store(f, addr(f, regs["out"], idx, 48), r)
    f.op("label", end)
    K.append(f)
    f = throughput_iface("bench_g2_madd", "acc <- g2_madd_m(&acc, &q), iters times; acc (in out[i], global memory) "
                         "starts at affine in0[i], q = in1[i]", 48, 48, 96).fn(Fn)
    regs, idx, end = prologue(f, ["out", "in0", "in1"], with_n=False, generic=True)
    po, pq = addr(f, regs["out"], idx, 384), addr(f, regs["in1"], idx, 192)
    p0 = load(f, addr(f, regs["in0"], idx, 192), 48, "")
    one = f.ts(24)
    for d, v in zip(one, ONE_FP + [0] * 12):
        f.op("mov.b32", d, v)
    store(f, po, p0 + one + one, "")
    loop_body(f, lambda: f.op("call", "g2_madd_m", [], [po, pq]))
    f.op("label", end)
    K.append(f)
    for g, n in (("g1", 12), ("g1c", 12)):
        f = throughput_iface(f"bench_{g}_madd", f"acc <- {g}_madd(acc, q), iters times; acc starts at affine in0[i], "
                             "q = in1[i]", 2 * n, 2 * n, 4 * n).fn(Fn)
        regs, idx, end = prologue(f, ["out", "in0", "in1"], with_n=False)
        p0 = load(f, addr(f, regs["in0"], idx, 8 * n), 2 * n)
        q = load(f, addr(f, regs["in1"], idx, 8 * n), 2 * n)
        one = f.ts(n)
        for d, v in zip(one, ONE_FP + [0] * (n - 12)):
            f.op("mov.b32", d, v)
        acc = f.ts(4 * n)
        for d, s in zip(acc, p0 + one + one):
            f.op("mov.b32", d, s)
        loop_body(f, lambda: f.op("call", f"{g}_madd", acc, acc + q))
        store(f, addr(f, regs["out"], idx, 16 * n), acc)
        f.op("label", end)
        K.append(f)
    return K
