import random, sys
from ir import Sim
from ff import FP, P, limbs
from ec import fp2_funcs, G1, G2
Rm = pow(2, 384, P); Ri = pow(Rm, -1, P)
def val(l): return sum(x << (32*i) for i, x in enumerate(l))
def M(x): return limbs(x * Rm % P, 12)
def U(l): return val(l) * Ri % P
from ec import G1C
S = Sim(FP.funcs() + fp2_funcs() + G1.funcs() + G1C.funcs())
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
# fp2
for _ in range(20):
    a0, a1, b0, b1 = (random.randrange(P) for _ in range(4))
    r = S.call("fp2_mul", M(a0)+M(a1)+M(b0)+M(b1))
    assert U(r[:12]) == (a0*b0 - a1*b1) % P and U(r[12:]) == (a0*b1 + a1*b0) % P
    r = S.call("fp2_sqr", M(a0)+M(a1))
    assert U(r[:12]) == (a0*a0 - a1*a1) % P and U(r[12:]) == (2*a0*a1) % P
r = S.call("fp_inv", M(a0)); assert U(r) * a0 % P == 1
r = S.call("fp2_inv", M(a0)+M(a1)); c0, c1 = U(r[:12]), U(r[12:])
assert (a0*c0 - a1*c1) % P == 1 and (a0*c1 + a1*c0) % P == 0
print("fp2 ok")
def rnd_pt():
    while True:
        x = random.randrange(P); v = (x**3 + 4) % P; y = pow(v, (P+1)//4, P)
        if y*y % P == v: return (x, y)
def aff_add(p, q):
    if p is None: return q
    if q is None: return p
    (x1, y1), (x2, y2) = p, q
    if x1 == x2:
        if (y1 + y2) % P == 0: return None
        l = 3*x1*x1 * pow(2*y1, -1, P) % P
    else:
        l = (y2-y1) * pow(x2-x1, -1, P) % P
    x3 = (l*l - x1 - x2) % P
    return (x3, (l*(x1-x3) - y1) % P)
def xyzz(p):
    if p is None: return M(0)*4
    z = random.randrange(1, P)
    return M(p[0]*z*z % P) + M(p[1]*z**3 % P) + M(z*z % P) + M(z**3 % P)
def from_xyzz(r):
    X, Y, ZZ, ZZZ = (U(r[12*k:12*k+12]) for k in range(4))
    if ZZ == 0: return None
    return (X * pow(ZZ, -1, P) % P, Y * pow(ZZZ, -1, P) % P)
def aff(p): return M(0)*2 if p is None else M(p[0]) + M(p[1])
def neg(p): return (p[0], (-p[1]) % P)
pts = [rnd_pt() for _ in range(6)]
cases = [(pts[0], pts[1]), (pts[2], pts[2]), (pts[3], neg(pts[3])), (None, pts[4]), (pts[5], None), (None, None)]
for p, q in cases:
    assert from_xyzz(S.call("g1_add", xyzz(p) + xyzz(q))) == aff_add(p, q)
    assert from_xyzz(S.call("g1_madd", xyzz(p) + aff(q))) == aff_add(p, q), (p, q)
    assert from_xyzz(S.call("g1_dbl", xyzz(p))) == aff_add(p, p)
    r = S.call("g1_to_affine", xyzz(p))
    assert r == aff(p)
    r = S.call("g1_to_jacobian", xyzz(p)); X, Y, Z = (U(r[12*k:12*k+12]) for k in range(3))
    if p is None: assert Z == 0
    else: assert X == p[0]*Z*Z % P and Y == p[1]*Z**3 % P
    assert S.call("g1_on_curve", aff(p)) == [1]
    assert from_xyzz(S.call("g1c_madd", xyzz(p) + aff(q))) == aff_add(p, q)
assert S.call("g1_on_curve", M(1) + M(2)) == [0]
# generic add/madd/dbl (random Z): Y3 = R*(Q - X3) - Y1*PPP and the doubling's
# M*(S - X3) - W*Y1 go through FpInline.mul_sub_mul (one lazy reduction)
for _ in range(20):
    p, q = rnd_pt(), rnd_pt()
    assert from_xyzz(S.call("g1_add", xyzz(p) + xyzz(q))) == aff_add(p, q)
    assert from_xyzz(S.call("g1_madd", xyzz(p) + aff(q))) == aff_add(p, q)
    assert from_xyzz(S.call("g1_dbl", xyzz(p))) == aff_add(p, p)
print("g1 ok")
