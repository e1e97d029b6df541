"""fp12.py's Fp6/Fp12 functions in the PTX simulator against the big-integer reference
fp12_ref.py, with in-place operands (r = a) and scratch; then the reference and the PTX
against blst through the fixture fp12_blst.txt (written by tests/fp12_fixture.rs)."""
import os
import random
import sys
from ir import Sim
from ff import FP, P
from ec import fp2_funcs
import fp12
from fp12_ref import (f6add, f6sub, f6v, f6mul, f12mul, f12sqr, f12conj, f12mul_by_line, line_eval,
                      precompute_lines, miller_loop_lines, words, unwords, hex_words)

S = Sim(FP.funcs() + fp2_funcs() + fp12.funcs())
A, B, R, L, PT, SC = 0, 0x1000, 0x2000, 0x3000, 0x4000, 0x8000  # byte addresses of the operands


def put(base, ws):
    for i, w in enumerate(ws):
        S.mem[base + 4 * i] = w


def get(base, n): return [S.mem[base + 4 * i] for i in range(n)]


def rf2(): return (random.randrange(P), random.randrange(P))
def rf6(): return (rf2(), rf2(), rf2())
def rf12(): return (rf6(), rf6())


def run(name, out, shape, *args):
    S.call(name, list(args))
    return unwords(get(out, {2: 24, 3: 72, 6: 72, 12: 144}[shape]), shape)


def check_fp6(n):
    for _ in range(n):
        a, b, x, y = rf6(), rf6(), rf2(), rf2()
        put(A, words(a)); put(B, words(b)); put(L, words(x)); put(L + 96, words(y))
        assert run("fp6_mul_m", R, 6, R, A, B) == f6mul(a, b), "fp6_mul"
        assert run("fp6_mul_by_xy0_m", R, 6, R, A, L, L + 96) == f6mul(a, (x, y, (0, 0))), "xy0"
        assert run("fp6_mul_by_0y0_m", R, 6, R, A, L + 96) == f6mul(a, ((0, 0), y, (0, 0))), "0y0"
        for nm, ref in (("add", f6add), ("sub", f6sub), ("add_v", lambda p, q: f6add(p, f6v(q))),
                        ("sub_v", lambda p, q: f6sub(p, f6v(q)))):
            assert run(f"fp6_{nm}_m", R, 6, R, A, B) == ref(a, b), nm
            put(R, words(b))
            assert run(f"fp6_{nm}_m", R, 6, R, A, R) == ref(a, b), nm + " in place (r = b)"
    print("fp6 ok", n)


def check_fp12(n):
    for _ in range(n):
        a, b, l = rf12(), rf12(), (rf2(), rf2(), rf2())
        x, y = random.randrange(P), random.randrange(P)
        put(A, words(a)); put(B, words(b)); put(L, words(l))
        assert run("fp12_mul_m", R, 12, R, A, B, SC) == f12mul(a, b), "fp12_mul"
        assert run("fp12_sqr_m", R, 12, R, A, SC) == f12sqr(a), "fp12_sqr"
        assert run("fp12_mul_by_line_m", R, 12, R, A, L, SC) == f12mul_by_line(a, l), "fp12_mul_by_line"
        assert run("fp12_conj_m", R, 12, R, A) == f12conj(a), "fp12_conj"
        put(PT, words((-2 * x % P, 2 * y % P)))
        assert run("line_eval_m", R, 3, R, L, PT) == line_eval(l, x, y), "line_eval"
        # in place: r = a (and b)
        put(R, words(a)); assert run("fp12_mul_m", R, 12, R, R, B, SC) == f12mul(a, b), "fp12_mul r = a"
        put(R, words(a)); assert run("fp12_mul_m", R, 12, R, R, R, SC) == f12sqr(a), "fp12_mul r = a = b"
        put(R, words(a)); assert run("fp12_sqr_m", R, 12, R, R, SC) == f12sqr(a), "fp12_sqr r = a"
        put(R, words(a)); assert run("fp12_mul_by_line_m", R, 12, R, R, L, SC) == f12mul_by_line(a, l), "line r = a"
        put(R, words(l)); assert run("line_eval_m", R, 3, R, R, PT) == line_eval(l, x, y), "line_eval r = l"
    print("fp12 ok", n)


def fixture():
    """name -> words of fp12_blst.txt (raw blst structs, hex)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fp12_blst.txt")
    out = {}
    with open(path) as fh:
        for line in fh:
            if line.strip() and not line.startswith("#"):
                k, h = line.split()
                out[k] = hex_words(h)
    return out


def check_blst():
    """The reference's tower, line formulas and loop against blst's values; the PTX on the
    same inputs against blst's words."""
    X = fixture()
    a, b = unwords(X["a"], 12), unwords(X["b"], 12)
    (x, y), q = unwords(X["p"], 2), unwords(X["q"], 3)
    assert f12mul(a, b) == unwords(X["mul"], 12), "reference fp12 mul vs blst"
    assert f12sqr(a) == unwords(X["sqr"], 12), "reference fp12 sqr vs blst"
    lines = precompute_lines(q)
    for k in (0, 1, 2, 67):
        assert lines[k] == unwords(X[f"line{k}"], 3), f"reference line {k} vs blst_precompute_lines"
    ev = line_eval(lines[1], x, y)
    assert ev == unwords(X["line1_at_p"], 3), "reference line evaluation vs blst"
    assert f12mul_by_line(a, ev) == unwords(X["mul_by_line1"], 12), "reference mul_by_xy00z0 vs blst"
    assert miller_loop_lines(lines, x, y) == unwords(X["miller_loop_lines"], 12), "reference loop vs blst"
    put(A, X["a"]); put(B, X["b"]); put(L, X["line1"]); put(PT, words((-2 * x % P, 2 * y % P)))
    S.call("fp12_mul_m", [R, A, B, SC]); assert get(R, 144) == X["mul"], "PTX fp12 mul vs blst"
    S.call("fp12_sqr_m", [R, A, SC]); assert get(R, 144) == X["sqr"], "PTX fp12 sqr vs blst"
    S.call("line_eval_m", [L, L, PT]); assert get(L, 72) == X["line1_at_p"], "PTX line evaluation vs blst"
    S.call("fp12_mul_by_line_m", [R, A, L, SC]); assert get(R, 144) == X["mul_by_line1"], "PTX line mul vs blst"
    print("fp12 vs blst ok")


if __name__ == "__main__":
    random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    check_fp6(3)
    check_fp12(2)
    check_blst()
