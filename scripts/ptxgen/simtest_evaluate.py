"""eval_rows, gather, gather_g1/g2 and gather_bits (evaluate.py) run in the block interpreter (msm_sim.KSim)
with the real Fr code, against Python big integers: a random compiled block (head and a
template repeated for four challenges, shifted columns, every coefficient class: ±2^k with
k up to 254, table entries, inputs and aux columns, rows with no term) evaluated at a random
packed witness (bits, field elements spread over several mask words, a field element in the
last word); then a template whose prefix has a moving range (SnapDeals' challenge bits) with
offsets that are not linear in the challenge (0, 13, 6, 21: one goes back), most of its
columns in or at the edges of the range, each challenge checked against the columns moved by
its own offset. Every global access must lie in the launch contract's ranges.

  python3 scripts/ptxgen/simtest_evaluate.py [seed]
"""
import random
import sys
import time

import evaluate as ev
from ff import FR, R as RMOD, limbs
from msm_sim import KSim

RM = pow(2, 256, RMOD)


def mont(x):
    return limbs(x * RM % RMOD, 8)


def from_words(w):
    v = sum(x << (32 * i) for i, x in enumerate(w))
    return v * pow(RM, -1, RMOD) % RMOD


def coefficient(code, table):
    cls, pay = code >> 30, code & 0x3FFFFFFF
    if cls == 2:
        return table[pay]
    v = pow(2, pay & 0xFF, RMOD)
    return v if cls == 0 else (-v) % RMOD


def witness(rng, n_inputs, n_aux, fields_at=()):
    """`fields_at`: aux that are field elements (values no other aux has)."""
    inputs = [1] + [rng.randrange(RMOD) for _ in range(n_inputs - 1)]
    kinds = []
    for i in range(n_aux):
        r = rng.random()
        kinds.append("f" if r < 0.15 or i == n_aux - 1 or i in fields_at else ("1" if r < 0.6 else "0"))
    values = [rng.randrange(RMOD) if k == "f" else int(k) for k in kinds]
    nw = (n_aux + 31) // 32
    bits, fmask, frank, fields = [0] * nw, [0] * nw, [0] * nw, []
    for i, k in enumerate(kinds):
        if k == "f":
            fmask[i // 32] |= 1 << (i % 32)
            fields.append(values[i])
        elif k == "1":
            bits[i // 32] |= 1 << (i % 32)
    for w in range(1, nw):
        frank[w] = frank[w - 1] + bin(fmask[w - 1]).count("1")
    return inputs, values, bits, fmask, frank, fields


def block(rng, rows, n_inputs, n_aux, table_len, hot=None):
    """`hot` (lo, hi): half the aux columns are drawn from lo - 1 .. hi (the range and its edges)."""
    row_ptr, cols, codes = [0], [], []
    for r in range(rows):
        for _ in range(rng.choice([0, 1, 2, 3, 7])):
            if rng.random() < 0.2:
                cols.append(0x80000000 | rng.randrange(n_inputs))
            elif hot and rng.random() < 0.5:
                cols.append(rng.randrange(hot[0] - 1, hot[1] + 1))
            else:
                cols.append(rng.randrange(n_aux))
            c = rng.random()
            if c < 0.4:
                codes.append(0)  # +1
            elif c < 0.6:
                codes.append(0x40000000)  # -1
            elif c < 0.75:
                codes.append(rng.randrange(255))  # +2^k
            elif c < 0.85:
                codes.append(0x40000000 | rng.randrange(255))  # -2^k
            else:
                codes.append(0x80000000 | rng.randrange(table_len))
        row_ptr.append(len(cols))
    return row_ptr, cols, codes


def expected(row_ptr, cols, codes, table, inputs, aux, j, shift, moving):
    ifrom, iper, afrom, aper = shift
    lo, hi, offsets = moving
    out = []
    for r in range(len(row_ptr) - 1):
        acc = 0
        for t in range(row_ptr[r], row_ptr[r + 1]):
            c = cols[t]
            if c & 0x80000000:
                i = c & 0x7FFFFFFF
                v = inputs[i + j * iper if i >= ifrom else i]
            elif c >= afrom:
                v = aux[c + j * aper]
            else:
                v = aux[c + offsets[j] if lo <= c < hi else c]
            acc += v * coefficient(codes[t], table)
        out.append(acc % RMOD)
    return out


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else random.randrange(1 << 30)
    rng = random.Random(seed)
    t0 = time.time()
    fns = FR.funcs() + ev.kernels()
    S = KSim(fns)
    # shape: prefix inputs/aux, then 4 challenges of per-challenge inputs/aux
    p_in, per_in, p_aux, per_aux, ch = 3, 2, 40, 37, 4
    # the moving range of the prefix and each challenge's offset (kept in the prefix: 16 + 21 <= 40)
    lo, hi, offsets = 10, 16, [0, 13, 6, 21]
    assert hi + max(offsets) <= p_aux
    n_in, n_aux = p_in + ch * per_in, p_aux + ch * per_aux
    table = [rng.randrange(RMOD) for _ in range(5)]
    # the range's edges are field elements: a read of lo - 1 or hi moved by mistake shows
    inputs, aux, bits, fmask, frank, fields = witness(rng, n_in, n_aux, fields_at=(lo - 1, hi))
    head = block(rng, 9, p_in, p_aux, len(table))
    # template columns: the prefix's and the first challenge's variables
    tmpl = block(rng, 11, p_in + per_in, p_aux + per_aux, len(table))
    moved = block(rng, 13, p_in + per_in, p_aux + per_aux, len(table), hot=(lo, hi))
    # both edges of the range and both ends inside it occur, whatever the seed
    aux_terms = [t for t, c in enumerate(moved[1]) if not c & 0x80000000]
    for t, c in zip(aux_terms, (lo - 1, lo, hi - 1, hi)):
        moved[1][t] = c
    pow2 = S.alloc(8 * 255, sum((mont(pow(2, k, RMOD)) for k in range(255)), []))
    tab = S.alloc(8 * len(table), sum((mont(x) for x in table), []))
    inp = S.alloc(8 * n_in, sum((mont(x) for x in inputs), []))
    bw, fm, fr = (S.alloc(len(bits), bits), S.alloc(len(fmask), fmask), S.alloc(len(frank), frank))
    fl = S.alloc(8 * max(len(fields), 1), sum((mont(x) for x in fields), []))
    rows_total = 9 + ch * 11 + ch * 13
    out = S.alloc(8 * rows_total)
    common = dict(pow2=pow2, table=tab, inputs=inp, bits=bw, fmask=fm, frank=fr, fields=fl, out=out)
    zeros = (0, 0, [0] * ch)
    template_shift = (p_in, per_in, p_aux, per_aux)
    for (rp, cl, cd), first, stride, grid_y, shift, moving in (
        (head, 0, 0, 1, (0, 0, 0, 0), (0, 0, [0])),
        (tmpl, 9, 11, ch, template_shift, zeros),
        (moved, 9 + ch * 11, 13, ch, template_shift, (lo, hi, offsets)),
    ):
        rows = len(rp) - 1
        S.launch("eval_rows", (1, grid_y), 32, rowPtr=S.alloc(len(rp), rp), cols=S.alloc(len(cl), cl),
                 codes=S.alloc(len(cd), cd), rows=rows, outFirst=first, outStride=stride,
                 inputsFrom=shift[0], inputsPer=shift[1], auxFrom=shift[2], auxPer=shift[3],
                 movingLo=moving[0], movingHi=moving[1], offsets=S.alloc(len(moving[2]), moving[2]), **common)
        for j in range(grid_y):
            want = expected(rp, cl, cd, table, inputs, aux, j, shift, moving)
            for r in range(rows):
                assert out + 32 * (first + j * stride + r) in S.mem, f"eval_rows block {first} challenge {j} row {r} not written"
                got = from_words(S.words(out + 32 * (first + j * stride + r), 8))
                assert got == want[r], f"eval_rows block {first} challenge {j} row {r}: {got:#x} != {want[r]:#x}"
    # gather: field elements by a scattered index list
    z = S.alloc(8 * n_aux, sum((mont(x) for x in aux), []))
    idx = [rng.randrange(n_aux) for _ in range(50)]
    g = S.alloc(8 * len(idx))
    S.launch("gather", 1, 64, out=g, src=z, idx=S.alloc(len(idx), idx), n=len(idx))
    for k, i in enumerate(idx):
        assert from_words(S.words(g + 32 * k, 8)) == aux[i], f"gather {k}"
    # gather_g1/gather_g2: whole points (24/48 words) by a scattered index list
    for name, words in (("gather_g1", 24), ("gather_g2", 48)):
        pts = [[rng.randrange(1 << 32) for _ in range(words)] for _ in range(40)]
        src = S.alloc(words * len(pts), sum(pts, []))
        pidx = [rng.randrange(len(pts)) for _ in range(37)]
        gp = S.alloc(words * len(pidx))
        S.launch(name, 2, 32, out=gp, src=src, idx=S.alloc(len(pidx), pidx), n=len(pidx))
        for k, i in enumerate(pidx):
            assert S.words(gp + 4 * words * k, words) == pts[i], f"{name} {k}"
    # gather_bits: the aux bits by an index list whose length is not a multiple of 32, over
    # more warps than needed (the lanes past n write nothing, the last word's high bits are 0)
    for m in (1, 31, 32, 77):
        bidx = sorted(rng.sample(range(n_aux), m))
        gb = S.alloc((m + 31) // 32, [0xFFFFFFFF] * ((m + 31) // 32))
        S.launch("gather_bits", 4, 32, out=gb, src=bw, idx=S.alloc(m, bidx), n=m)
        for k in range(m):
            want = bits[bidx[k] // 32] >> (bidx[k] % 32) & 1
            assert S.words(gb + 4 * (k // 32), 1)[0] >> (k % 32) & 1 == want, f"gather_bits {m} bit {k}"
        if m % 32:
            assert S.words(gb + 4 * (m // 32), 1)[0] >> (m % 32) == 0, f"gather_bits {m}: bits past n"
    # expand_aux: every aux in order after a few leading slots (the L query), then a scattered
    # index list (the A or B query's aux after its inputs); slots before outFirst are untouched
    one = limbs(RM, 8)
    for first, eidx in ((0, None), (3, sorted(rng.sample(range(n_aux), 45)))):
        m = n_aux if eidx is None else len(eidx)
        sentinel = [0xDEADBEEF] * 8
        ex = S.alloc(8 * (first + m), sentinel * (first + m))
        extra = {"idx": 0 if eidx is None else S.alloc(m, eidx)}
        S.launch("expand_aux", 3, 64, out=ex, bits=bw, fmask=fm, frank=fr, fields=fl, n=m, outFirst=first,
                 indexed=int(eidx is not None), **extra)
        for s in range(first):
            assert S.words(ex + 32 * s, 8) == sentinel, f"expand_aux: slot {s} before outFirst written"
        for k in range(m):
            i = k if eidx is None else eidx[k]
            got = S.words(ex + 32 * (first + k), 8)
            assert from_words(got) == aux[i], f"expand_aux aux {i}: {from_words(got):#x} != {aux[i]:#x}"
            if aux[i] == 1 and not fmask[i // 32] >> (i % 32) & 1:
                assert got == one, f"expand_aux aux {i}: a one bit is not Montgomery one"
    print(f"evaluate ok: seed {seed}, {rows_total} rows, {n_aux} aux ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
