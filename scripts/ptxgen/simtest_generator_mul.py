"""fb_g1 / fb_g2 (generator_mul.py) run whole in the block interpreter (msm_sim.KSim) with the
real field and curve code, against Python big-integer scalar multiplication and the
zcash encoding: edge scalars (0, 1, r-1, digits at the signed boundary, carry chains)
and random ones. Only the table entries the recoding reads are written; a read of any
other entry fails ("read of an unwritten word"), which also checks the digits.

  python3 scripts/ptxgen/simtest_generator_mul.py [seed]
"""
import random
import sys
import time

import ec
import ec_mem
import generator_mul as fb
from ff import FP, FR, P, R as RMOD, limbs
from msm_sim import KSim

RP = pow(2, 384, P)
G1 = (0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
      0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1)
G2 = ((0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
       0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
      (0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
       0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE))


class Fp:
    """Fp arithmetic on ints (G1's coordinate field)."""
    zero = 0
    add = staticmethod(lambda a, b: (a + b) % P)
    sub = staticmethod(lambda a, b: (a - b) % P)
    mul = staticmethod(lambda a, b: a * b % P)
    inv = staticmethod(lambda a: pow(a, -1, P))
    small = staticmethod(lambda k: k % P)
    words = staticmethod(lambda a: limbs(a * RP % P, 12))
    be = staticmethod(lambda a: a.to_bytes(48, "big"))


class Fp2:
    """Fp2 = Fp[u]/(u^2 + 1) on (c0, c1) pairs (G2's coordinate field)."""
    zero = (0, 0)
    add = staticmethod(lambda a, b: ((a[0] + b[0]) % P, (a[1] + b[1]) % P))
    sub = staticmethod(lambda a, b: ((a[0] - b[0]) % P, (a[1] - b[1]) % P))
    mul = staticmethod(lambda a, b: ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P))
    small = staticmethod(lambda k: (k % P, 0))

    @staticmethod
    def inv(a):
        n = pow(a[0] * a[0] + a[1] * a[1], -1, P)
        return (a[0] * n % P, -a[1] * n % P)

    words = staticmethod(lambda a: Fp.words(a[0]) + Fp.words(a[1]))
    be = staticmethod(lambda a: Fp.be(a[1]) + Fp.be(a[0]))  # zcash order: c1 then c0


def on_curve(F, pt, b):
    x, y = pt
    return F.mul(y, y) == F.add(F.mul(F.mul(x, x), x), b)


def add(F, p, q):
    """Affine addition (None = infinity)."""
    if p is None:
        return q
    if q is None:
        return p
    if p[0] == q[0]:
        if F.add(p[1], q[1]) == F.zero:
            return None
        lam = F.mul(F.mul(F.small(3), F.mul(p[0], p[0])), F.inv(F.add(p[1], p[1])))
    else:
        lam = F.mul(F.sub(q[1], p[1]), F.inv(F.sub(q[0], p[0])))
    x3 = F.sub(F.sub(F.mul(lam, lam), p[0]), q[0])
    return (x3, F.sub(F.mul(lam, F.sub(p[0], x3)), p[1]))


def mult(F, g, s):
    acc, base = None, g
    while s:
        if s & 1:
            acc = add(F, acc, base)
        base = add(F, base, base)
        s >>= 1
    return acc


def encoding(F, pt, nbytes):
    if pt is None:
        return bytes([0x40]) + bytes(nbytes - 1)
    return F.be(pt[0]) + F.be(pt[1])


def digits(s):
    """(window, |d|) of the non-zero signed digits, as the kernels recode."""
    out, carry = [], 0
    for k in range(fb.NWIN):
        v = ((s >> (fb.WBITS * k)) & 0xFFFF) + carry
        d, carry = (v - (1 << fb.WBITS), 1) if v > fb.HALF else (v, 0)
        if d:
            out.append((k, abs(d)))
    assert carry == 0
    return out


class FbSim(KSim):
    """KSim with the shared slots of fb_g2 modelled as a global allocation at the symbol's
    address (one block per launch, so no two threads share a slot)."""

    def exec(self, R, cc, o):
        if o[0] == "mov.u64" and o[2] in self.symbols:
            R[o[1]] = self.symbols[o[2]]
        elif o[0] == "cvta.shared.u64":
            R[o[1]] = self.val(R, o[2])
        else:
            super().exec(R, cc, o)


def run(S, kernel, F, g, scalars, aff_words):
    nbytes = 4 * aff_words
    table = S.alloc(fb.NWIN * fb.HALF * aff_words)
    for s in scalars:
        for k, m in digits(s):
            pt = mult(F, g, m << (fb.WBITS * k))
            words = F.words(pt[0]) + F.words(pt[1])
            base = table + 4 * aff_words * (k * fb.HALF + m - 1)
            for i, w in enumerate(words):
                S.mem[base + 4 * i] = w
    sc = S.alloc(8 * len(scalars), sum((limbs(s * pow(2, 256, RMOD) % RMOD, 8) for s in scalars), []))
    out = S.alloc(len(scalars) * nbytes // 4)
    t = time.time()
    S.launch(kernel, 1, len(scalars), out=out, scalars=sc, table=table, n=len(scalars) - 1)
    for i, s in enumerate(scalars[:-1]):
        got = b"".join(w.to_bytes(4, "little") for w in S.words(out + i * nbytes, nbytes // 4))
        want = encoding(F, mult(F, g, s), nbytes)
        assert got == want, f"{kernel}: scalar {s:#x}\n got {got.hex()}\nwant {want.hex()}"
    # the thread past n wrote nothing
    assert out + (len(scalars) - 1) * nbytes not in S.mem, f"{kernel}: thread i >= n wrote"
    print(f"{kernel} ok: {len(scalars) - 1} scalars ({time.time() - t:.0f} s)")


def main():
    random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
    assert on_curve(Fp, G1, 4) and on_curve(Fp2, G2, (4, 4))
    assert mult(Fp, G1, RMOD) is None and mult(Fp2, G2, RMOD) is None
    pattern = lambda lo, top: sum(lo << (16 * k) for k in range(15)) + (top << 240)  # noqa: E731
    edge = [0, 1, RMOD - 1, 0x8000, 0xFFFF, 0x17FFF, pattern(0x8000, 0x7000), pattern(0x8001, 0x7000),
            pattern(0xFFFF, 0x7000), RMOD - 0x8000]
    assert all(s < RMOD for s in edge)
    fns = (FR.funcs() + FP.funcs() + ec.fp2_funcs() + ec.G1.funcs() + ec.G2.funcs() + ec_mem.funcs()
           + fb.kernels())
    S = FbSim(fns, symbols={})
    S.symbols[fb.SLOTS] = S.alloc(fb.G2_BLOCK * fb.SLOT_WORDS)
    slots = S.symbols[fb.SLOTS]
    S.shared_windows = [(slots, slots + 4 * fb.G2_BLOCK * fb.SLOT_WORDS)]  # shared memory, not a parameter
    # the last scalar of each launch is past n (its thread must exit at once)
    run(S, "fb_g1", Fp, G1, edge + [random.randrange(RMOD) for _ in range(3)] + [5], 24)
    run(S, "fb_g2", Fp2, G2, edge[:7] + [random.randrange(RMOD)] + [5], 48)


if __name__ == "__main__":
    main()
