import random, sys
from ir import Fn, Sim
from ff import FP, FR, limbs

def val(l): return sum(x << (32*i) for i, x in enumerate(l))

def check_field(F, N=200):
    fns = F.funcs(); S = Sim(fns); n = F.n; m = F.mod; Rm = pow(2, 32*n, m); Ri = pow(Rm, -1, m)
    edge = [0, 1, m-1, m-2, 2, (1 << (32*n - 1)) % m]
    vals = edge + [random.randrange(m) for _ in range(N)]
    for a in vals:
        b = random.choice(vals)
        A, B = limbs(a, n), limbs(b, n)
        c = lambda nm, *args: val(S.call(f"{F.pre}_{nm}", sum(args, [])))
        assert c("add", A, B) == (a+b) % m, "add"
        assert c("sub", A, B) == (a-b) % m, "sub"
        assert c("neg", A) == (-a) % m, "neg"
        assert c("dbl", A) == (2*a) % m, "dbl"
        assert c("mul", A, B) == a*b*Ri % m, ("mul", a, b)
        assert c("sqr", A) == a*a*Ri % m, ("sqr", a)
        assert c("to_mont", A) == a*Rm % m
        assert c("from_mont", A) == a*Ri % m
        w = [int.from_bytes(a.to_bytes(4*n, 'big')[4*k:4*k+4], 'little') for k in range(n)]
        r = S.call(f"{F.pre}_from_be", w)
        assert val(r[:n]) == a*Rm % m and r[n] == 0
        r = S.call(f"{F.pre}_to_be", limbs(a*Rm % m, n))
        assert b"".join(x.to_bytes(4, 'little') for x in r) == a.to_bytes(4*n, 'big')
    # non-canonical flag
    w = [int.from_bytes(m.to_bytes(4*n, 'big')[4*k:4*k+4], 'little') for k in range(n)]
    assert S.call(f"{F.pre}_from_be", w)[n] == 1
    print(F.pre, "ok", len(vals))

def carry_values(F, k):
    """Values < m whose halves carry out of h limbs when added (a0 + a1 >= 2^32h,
    the carry bit of sa/sb), the largest such pair of halves first."""
    h = F.n // 2; H = 1 << (32 * h); top = F.mod >> (32 * h)
    vs = [(H - 1) + (top - 1) * H, (H - top + 1) + (top - 1) * H]
    for _ in range(k):
        a1 = random.randrange(1, top)
        vs.append(random.randrange(H - a1, H) + a1 * H)
    assert all(v < F.mod and (v % H) + v // H >= H for v in vs)
    return vs


def check_karatsuba(F, N=300):
    """emit_mul_karatsuba (generic in n, also for a field that does not use it)
    and mul_wide over the whole 32-bit range, against Python big integers."""
    n, h, m = F.n, F.n // 2, F.mod; Ri = pow(2, -32 * n, m)
    f = Fn("kmul", n, 2 * n); F.emit_mul_karatsuba(f, f.outs, f.ins[:n], f.ins[n:])
    g = Fn("ksqr", n, n); F.emit_mul_karatsuba(g, g.outs, g.ins, g.ins)  # a is b
    w = Fn("wide", 0, 2 * h)
    w.outs = F.mul_wide(w, w.ins[:h], w.ins[h:])  # the product's registers, read back by the simulator
    S = Sim([f, g, w])
    edge = [0, 1, 2, m - 1, m - 2, m - 1 - (1 << (32 * h)), (1 << (32 * h)) - 1, 1 << (32 * h)]
    carry = carry_values(F, 40)
    vals = edge + carry + [random.randrange(m) for _ in range(N)]
    pairs = [(a, b) for a in edge + carry[:4] for b in edge + carry[:4]]
    pairs += [(random.choice(carry), random.choice(carry)) for _ in range(N)]  # both sums carry
    pairs += [(random.choice(vals), random.choice(vals)) for _ in range(N)]
    for a, b in pairs:
        r = val(S.call("kmul", limbs(a, n) + limbs(b, n)))
        assert r == a * b * Ri % m, ("karatsuba mul", F.pre, hex(a), hex(b))
    for a in vals:
        assert val(S.call("ksqr", limbs(a, n))) == a * a * Ri % m, ("karatsuba a*a", F.pre, hex(a))
    full = (1 << (32 * h)) - 1
    for a, b in [(full, full), (full, 1), (0, full)] + [(random.randrange(full + 1), random.randrange(full + 1))
                                                         for _ in range(N)]:
        assert val(S.call("wide", limbs(a, h) + limbs(b, h))) == a * b, ("mul_wide", F.pre, hex(a), hex(b))
    print(F.pre, "karatsuba ok", len(pairs) + len(vals))


random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
check_field(FR); check_field(FP)  # the .funcs (their mul is CIOS)
check_karatsuba(FR); check_karatsuba(FP)  # what FpInline and bench_fp_mul expand
