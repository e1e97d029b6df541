"""Emission helpers for the MSM kernels (msm.py, msm_sort.py): parameter loads,
addresses, loads/stores (global, shared, generic), predicates, counted loops. Every op
prints as PTX and runs in msm_sim.KSim."""

def params(f, ptrs, u32s, generic=False):
    """The entry's pointer parameters `ptrs` (Fn.global_pointers) and u32 parameters `u32s`, by name."""
    r = f.global_pointers(ptrs, generic)
    for nm in u32s:
        x = f.t()
        f.op("ld.param.u32", x, f"[{nm}]")
        r[nm] = x
    return r


def gtid(f):
    return f.global_index()


def elem(f, base, idx, nbytes):
    """Address of element idx (u32 register) of nbytes each."""
    off, a = f.t("a"), f.t("a")
    f.op("mul.wide.u32", off, idx, nbytes)
    f.op("add.s64", a, base, off)
    return a


def ld(f, addr, off=0, sp="global.", pred=None, dst=None):
    d = dst or f.t()
    o = (f"ld.{sp}u32", d, f"[{addr}+{off}]")
    f.op(*((pred,) + o if pred else o))
    return d


def st(f, addr, val, off=0, sp="global.", pred=None):
    o = (f"st.{sp}u32", f"[{addr}+{off}]", val)
    f.op(*((pred,) + o if pred else o))


def ldv(f, addr, n, sp="global.", pred=None, dst=None, nc=False):
    """n words from addr (16-byte aligned) by v4 loads; sp "" = generic (ir's ld.v4.u32 form)."""
    r = dst or f.ts(n)
    for k in range(0, n, 4):
        if sp == "":
            o = ("ld.v4.u32", r[k:k + 4], addr, 4 * k)
        else:
            o = (f"ld.{sp}{'nc.' if nc else ''}v4.u32", "{" + ", ".join(r[k:k + 4]) + "}", f"[{addr}+{4 * k}]")
        f.op(*((pred,) + o if pred else o))
    return r


def stv(f, addr, regs, sp="global.", pred=None):
    for k in range(0, len(regs), 4):
        if sp == "":
            o = ("st.v4.u32", addr, 4 * k, regs[k:k + 4])
        else:
            o = (f"st.{sp}v4.u32", f"[{addr}+{4 * k}]", "{" + ", ".join(regs[k:k + 4]) + "}")
        f.op(*((pred,) + o if pred else o))


def zero_slot(f, addr, n, sp=""):
    """n words at addr set to 0 (an XYZZ point at infinity)."""
    z = zeros(f, 4)
    stv(f, addr, z * (n // 4), sp=sp)


def zeros(f, n):
    r = f.ts(n)
    for x in r:
        f.op("mov.b32", x, 0)
    return r


def setp(f, cmp, a, b):
    p = f.t("p")
    f.op(f"setp.{cmp}.u32", p, a, b)
    return p


def bra(f, lab, p=None, neg=False):
    f.op("bra", lab, p, neg)


def count_loop(f, ctr, body):
    """for ctr in (ctr .. 1], counting down; body(ctr) runs with ctr >= 1."""
    top, done = f.label("cl"), f.label("cl")
    bra(f, done, setp(f, "eq", ctr, 0))
    f.op("label", top)
    body()
    f.op("sub.u32", ctr, ctr, 1)
    bra(f, top, setp(f, "ne", ctr, 0))
    f.op("label", done)
