"""Pointwise steps of the H pipeline in three buffers (module "ntt").

The fused H step of the ntt_r* kernels computes v <- (A*B - v)*Z^-1 in the last pass of C's
forward transform, so A and B on the coset, C and the transform's scratch are live at once: four
buffers of 2^L elements (16 GiB at 2^27). These two kernels let the host keep three: once A and B
are on the coset their product takes the scratch buffer and frees both, C is evaluated into one of
them and transformed with the other as scratch, and the H step follows as its own pass.

  h_mul:        dst[i] = x[i] * y[i]           (A*B on the coset)
  h_sub_scale:  dst[i] = (x[i] - y[i]) * s[0]  ((A*B - C) * Z^-1 on the coset)

One thread per element i < n, any grid and block; Fr elements are 8 little-endian u32 words in
Montgomery form, the arithmetic is ntt.py's (the same Fr code as the transform's passes). The
buffers do not overlap: each kernel reads two and writes a third.

  python3 scripts/ptxgen/ntt_pointwise.py [seed]   (runs the kernels in the simulator)
"""
import random
import sys

from ir import Fn
from iface import Kernel
from evaluate import load, store
from kernels import addr
from msm_sim import KSim
from ntt import FR, MOD, mont, unmont
from ff import FR as FR_FUNCS


def pointwise_iface(name, sig, doc, scaled):
    k = Kernel(name, sig=sig, field=name, doc=doc)
    n = k.u32s("n")
    k.buffer("dst", "u32", 8 * n, "writes", "The result, one element per i < n.", align=16)
    k.buffer("x", "u32", 8 * n, "reads", "The first operand, one element per i < n.", align=16)
    k.buffer("y", "u32", 8 * n, "reads", "The second operand, one element per i < n.", align=16)
    if scaled:
        k.buffer("s", "u32", 8, "reads", "The scale (one element).", align=16)
    return k


def pointwise_kernel(name, sig, doc, scaled):
    f = pointwise_iface(name, sig, doc, scaled).fn(Fn)
    ptrs = ["dst", "x", "y"] + (["s"] if scaled else [])
    regs = f.global_pointers(ptrs)
    i = f.global_index()
    end = f.label("end")
    n, past = f.t(), f.t("p")
    f.op("ld.param.u32", n, "[n]")
    f.op("setp.ge.u32", past, i, n)
    f.op("bra", end, past, False)
    x = load(f, addr(f, regs["x"], i, 32), 8)
    y = load(f, addr(f, regs["y"], i, 32), 8)
    if scaled:
        s = load(f, regs["s"], 8)
        FR.emit_sub(f, x, x, y)
        FR.emit_mul(f, x, x, s)
    else:
        FR.emit_mul(f, x, x, y)
    store(f, addr(f, regs["dst"], i, 32), x)
    f.op("label", end)
    return f


def kernels():
    return [
        pointwise_kernel("h_mul", "HMul", "h_mul: dst[i] = x[i] * y[i] for i < n (A*B on the coset).", False),
        pointwise_kernel("h_sub_scale", "HSubScale",
                         "h_sub_scale: dst[i] = (x[i] - y[i]) * s[0] for i < n ((A*B - C) * Z^-1 on the coset).", True),
    ]


def words(vals):
    return [w for v in vals for w in mont(v)]


def selfcheck(seed=1):
    rng = random.Random(seed)
    S = KSim(FR_FUNCS.funcs() + kernels())
    # n not a multiple of the block, edge values (0, 1, p - 1) among random ones
    n = 45
    xs = [0, 1, MOD - 1] + [rng.randrange(MOD) for _ in range(n - 3)]
    ys = [MOD - 1, 0, MOD - 1] + [rng.randrange(MOD) for _ in range(n - 3)]
    s = rng.randrange(MOD)
    x, y = S.alloc(8 * n, words(xs)), S.alloc(8 * n, words(ys))
    sc = S.alloc(8, mont(s))
    for name, want, extra in (
        ("h_mul", [a * b % MOD for a, b in zip(xs, ys)], {}),
        ("h_sub_scale", [(a - b) * s % MOD for a, b in zip(xs, ys)], {"s": sc}),
    ):
        dst = S.alloc(8 * n)
        S.launch(name, 2, 32, dst=dst, x=x, y=y, n=n, **extra)
        got = [unmont(S.words(dst + 32 * i, 8)) for i in range(n)]
        assert got == want, f"{name}: wrong result"
        print(f"{name} sim ok: n = {n}, two blocks of 32 threads")


if __name__ == "__main__":
    selfcheck(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
