"""Python big-integer reference of blst's pairing tower and its loop over precomputed lines
(the model the fp12.py PTX is checked against, itself tied to blst by the fixture
fp12_blst.txt). Elements are canonical integers (not Montgomery): Fp2 = (c0, c1),
Fp6 = (c0, c1, c2) of Fp2, Fp12 = (c0, c1) of Fp6; words() / unwords() convert to and from
blst's memory layout (Montgomery limbs, little-endian 32-bit words)."""
from ff import P, limbs

RM = pow(2, 384, P)
RI = pow(RM, -1, P)


# ---- Fp2 = Fp[u]/(u^2 + 1) ----------------------------------------------------------------
def f2add(a, b): return ((a[0] + b[0]) % P, (a[1] + b[1]) % P)
def f2sub(a, b): return ((a[0] - b[0]) % P, (a[1] - b[1]) % P)
def f2neg(a): return (-a[0] % P, -a[1] % P)
def f2mul(a, b): return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)
def f2sqr(a): return f2mul(a, a)
def f2xi(a): return ((a[0] - a[1]) % P, (a[0] + a[1]) % P)  # times xi = 1 + u
def f2scale(a, k): return (a[0] * k % P, a[1] * k % P)


F2ZERO, F2ONE = (0, 0), (1, 0)


# ---- Fp6 = Fp2[v]/(v^3 - xi) ----------------------------------------------------------------
def f6add(a, b): return tuple(f2add(x, y) for x, y in zip(a, b))
def f6sub(a, b): return tuple(f2sub(x, y) for x, y in zip(a, b))
def f6neg(a): return tuple(f2neg(x) for x in a)
def f6v(a): return (f2xi(a[2]), a[0], a[1])  # times v


def f6mul(a, b):
    """Schoolbook: c_k = sum of a_i b_j over i + j = k, v^3 = xi for i + j >= 3."""
    c = [F2ZERO] * 5
    for i in range(3):
        for j in range(3):
            c[i + j] = f2add(c[i + j], f2mul(a[i], b[j]))
    return (f2add(c[0], f2xi(c[3])), f2add(c[1], f2xi(c[4])), c[2])


# ---- Fp12 = Fp6[w]/(w^2 - v) ----------------------------------------------------------------
F6ZERO = (F2ZERO,) * 3
F12ONE = ((F2ONE, F2ZERO, F2ZERO), F6ZERO)


def f12mul(a, b):
    return (f6add(f6mul(a[0], b[0]), f6v(f6mul(a[1], b[1]))),
            f6add(f6mul(a[0], b[1]), f6mul(a[1], b[0])))


def f12sqr(a): return f12mul(a, a)
def f12conj(a): return (a[0], f6neg(a[1]))


def line_as_f12(l):
    """The sparse element "xy00z0" of an evaluated line (l0, l1, l2): l0 + l1 v + l2 v w."""
    return ((l[0], l[1], F2ZERO), (F2ZERO, l[2], F2ZERO))


def f12mul_by_line(a, l): return f12mul(a, line_as_f12(l))


def line_eval(l, x, y):
    """blst's line_by_Px2 at the G1 point (x, y): (l0, l1 * (-2x), l2 * 2y)."""
    return (l[0], f2scale(l[1], -2 * x), f2scale(l[2], 2 * y))


# ---- blst's precomputed lines (Jacobian T, formulas of pairing.c's line_dbl / line_add) ------
def line_dbl(T):
    X, Y, Z = T
    A, B, ZZ = f2sqr(X), f2sqr(Y), f2sqr(Z)
    C = f2sqr(B)
    D = f2scale(f2sub(f2sub(f2sqr(f2add(X, B)), A), C), 2)
    E = f2scale(A, 3)
    Fv = f2sqr(E)
    X3 = f2sub(Fv, f2scale(D, 2))
    Z3 = f2sub(f2sub(f2sqr(f2add(Y, Z)), B), ZZ)
    Y3 = f2sub(f2mul(f2sub(D, X3), E), f2scale(C, 8))
    l0 = f2sub(f2sub(f2sub(f2sqr(f2add(E, X)), A), Fv), f2scale(B, 4))  # 6 X^3 - 4 Y^2
    return (l0, f2mul(E, ZZ), f2mul(Z3, ZZ)), (X3, Y3, Z3)


def line_add(T, Q):
    X1, Y1, Z1 = T
    Z1Z1 = f2sqr(Z1)
    U2 = f2mul(Q[0], Z1Z1)
    S2 = f2mul(f2mul(Q[1], Z1), Z1Z1)
    H = f2sub(U2, X1)
    HH = f2sqr(H)
    I = f2scale(HH, 4)
    J = f2mul(H, I)
    r = f2scale(f2sub(S2, Y1), 2)
    V = f2mul(X1, I)
    X3 = f2sub(f2sub(f2sqr(r), J), f2scale(V, 2))
    Y3 = f2sub(f2mul(f2sub(V, X3), r), f2scale(f2mul(J, Y1), 2))
    Z3 = f2sub(f2sub(f2sqr(f2add(Z1, H)), Z1Z1), HH)
    l0 = f2scale(f2sub(f2mul(r, Q[0]), f2mul(Q[1], Z3)), 2)
    return (l0, r, Z3), (X3, Y3, Z3)


# |z| = 0xd201000000010000 after its leading bit: (index of an addition line, doublings after it)
ADD_THEN_DOUBLINGS = [(1, 2), (4, 3), (8, 9), (18, 32), (51, 16)]
LINES = 68


def precompute_lines(Q):
    """blst_precompute_lines: the 68 lines of the loop for the affine G2 point Q."""
    T = (Q[0], Q[1], F2ONE)
    l, T = line_dbl(T)
    out = [l]
    for _, n in ADD_THEN_DOUBLINGS:
        l, T = line_add(T, Q)
        out.append(l)
        for _ in range(n):
            l, T = line_dbl(T)
            out.append(l)
    assert len(out) == LINES
    return out


def miller_loop_lines(lines, x, y):
    """blst_miller_loop_lines at the G1 point (x, y): f = line 0, then per addition line one
    multiplication and per doubling line a squaring of f and a multiplication; conjugated."""
    f = f12mul_by_line(F12ONE, line_eval(lines[0], x, y))
    for add, n in ADD_THEN_DOUBLINGS:
        f = f12mul_by_line(f, line_eval(lines[add], x, y))
        for k in range(add + 1, add + n + 1):
            f = f12mul_by_line(f12sqr(f), line_eval(lines[k], x, y))
    return f12conj(f)


# ---- blst's memory layout -------------------------------------------------------------------
def flat(x):
    """The Fp coefficients of an Fp2/Fp6/Fp12 (nested tuples) in memory order."""
    return [x] if isinstance(x, int) else [c for e in x for c in flat(e)]


def words(x):
    return [w for c in flat(x) for w in limbs(c * RM % P, 12)]


def unflat(cs, shape):
    """cs (Fp coefficients) into the nested shape: 2 = Fp2, 6 = Fp6, 12 = Fp12, 3 = line (3 Fp2)."""
    f2 = [(cs[i], cs[i + 1]) for i in range(0, len(cs), 2)]
    if shape == 2:
        return f2[0]
    if shape == 3:
        return tuple(f2)
    f6 = [tuple(f2[i:i + 3]) for i in range(0, len(f2), 3)]
    return f6[0] if shape == 6 else tuple(f6)


def unwords(ws, shape):
    cs = [sum(w << (32 * i) for i, w in enumerate(ws[k:k + 12])) * RI % P for k in range(0, len(ws), 12)]
    return unflat(cs, shape)


def hex_words(h):
    b = bytes.fromhex(h)
    return [int.from_bytes(b[i:i + 4], "little") for i in range(0, len(b), 4)]
