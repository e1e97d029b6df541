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

def check_mul_add_mul(F, N=300):
    """Field.emit_mul_add_mul (a*b + c*d with one reduction; operands <= m, so
    m itself, the non-canonical p - 0 of emit_neg(canonical=False), is included)
    and the non-canonical negation, against Python ints."""
    n, m = F.n, F.mod; Ri = pow(pow(2, 32*n, m), -1, m)
    f = Fn(f"{F.pre}_mul_add_mul", n, 4 * n)
    F.emit_mul_add_mul(f, f.outs, *(f.ins[k*n:(k+1)*n] for k in range(4)))
    g = Fn(f"{F.pre}_neg_nc", n, n)
    F.emit_neg(g, g.outs, g.ins, canonical=False)
    S = Sim([f, g])
    edge = [0, 1, m-1, m, m-2, 2, (1 << (32*n - 1)) % m]
    cases = [(a, a, a, a) for a in edge] + [tuple(random.choice(edge) for _ in range(4)) for _ in range(N)]
    cases += [tuple(random.randrange(m + 1) for _ in range(4)) for _ in range(N)]
    cases += [(m-1, m-1, m, m-1), (m, m, m, m), (m-1, m, m-1, m)]
    for a, b, c, d in cases:
        r = val(S.call(f.name, limbs(a, n) + limbs(b, n) + limbs(c, n) + limbs(d, n)))
        assert r == (a*b + c*d) * Ri % m, ("mul_add_mul", a, b, c, d)
        assert val(S.call(g.name, limbs(a, n))) == (m - a if a < m else 0), ("neg_nc", a)
    print(F.pre, "mul_add_mul ok", len(cases))

random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
check_field(FR); check_field(FP)
check_mul_add_mul(FP)
