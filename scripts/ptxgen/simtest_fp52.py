import random
from ir import Sim
from ff import FP, P, limbs
from fp52 import funcs
S = Sim(FP.funcs() + funcs())
def val(l): return sum(x << (32*i) for i, x in enumerate(l))
random.seed(3)
for a, b in [(0, 0), (1, 1), (P-1, P-1), (2*P-1, 2*P-1)] + [(random.randrange(2*P), random.randrange(2*P)) for _ in range(300)]:
    A = S.call("fp52_from32", limbs(a, 12)); B = S.call("fp52_from32", limbs(b, 12))
    assert sum(x << (52*k) for k, x in enumerate(A)) == a
    r = S.call("fp52_mul", A + B)
    rv = sum(x << (52*k) for k, x in enumerate(r))
    assert rv < 2*P and all(0 <= x < 2**52 for x in r)
    assert rv % P == a*b*pow(2, -416, P) % P
    w = S.call("fp52_to32", r)
    assert val(w) == rv % P
print("fp52 ok")
