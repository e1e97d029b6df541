"""Tiny IR for hand-scheduled PTX: every instruction is a tuple that prints as
PTX and can be executed by `Sim` (a Python interpreter of exactly the PTX subset
we emit), so the generated field/curve code is checked against Python big
integers before any device time is spent.

Register conventions inside one .func / .entry:
  %iN  .b32 inputs      %oN .b32 outputs   %tN .b32 temporaries
  %pN  .pred            %dN .b64           %fN .f64       %aN .b64 addresses
"""
import struct

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1

# The .global u32 arrays the emitted code reads by name (a field's modulus words), as `Sim` sees
# them: name -> words. Filled by the code that declares them (ff.Field.const_decls' fields).
GLOBALS = {}


class Fn:
    """One PTX function (.func with multiple returns, which ptxas compiles
    without the ABI, or a kernel .entry)."""

    def __init__(self, name, n_out=0, n_in=0, entry=False, params=(), doc="",
                 ty="b32"):
        self.name, self.entry, self.doc = name, entry, doc
        self.out_ty = self.in_ty = ty
        self.outs = [f"%o{i}" for i in range(n_out)]
        self.ins = [f"%i{i}" for i in range(n_in)]
        self.params = list(params)  # entry params: (name, type)
        self.ops = []
        self.cnt = {"t": 0, "p": 0, "d": 0, "f": 0, "a": 0}
        self.nlabel = 0

    def t(self, k="t"):
        n = self.cnt[k]
        self.cnt[k] += 1
        return f"%{k}{n}"

    def ts(self, n, k="t"):
        return [self.t(k) for _ in range(n)]

    def global_index(self, into=None):
        """The thread's index along x of the grid, ctaid.x * ntid.x + tid.x (u32), in `into`
        or a new temporary."""
        ctaid, ntid, tid = self.ts(3)
        idx = into or self.t()
        self.op("mov.u32", ctaid, "%ctaid.x")
        self.op("mov.u32", ntid, "%ntid.x")
        self.op("mov.u32", tid, "%tid.x")
        self.op("mad.lo.u32", idx, ctaid, ntid, tid)
        return idx

    def global_pointers(self, names, generic=False):
        """The .u64 entry parameters `names` loaded into address registers, converted to global
        addresses unless `generic` (kept generic for .funcs that take memory operands)."""
        regs = {}
        for nm in names:
            r = self.t("a")
            self.op("ld.param.u64", r, f"[{nm}]")
            if not generic:
                self.op("cvta.to.global.u64", r, r)
            regs[nm] = r
        return regs

    def label(self, hint="L"):
        self.nlabel += 1
        return f"${hint}_{self.nlabel}"

    def op(self, *ins):
        self.ops.append(ins)

    # --- printing -------------------------------------------------------
    def ptx(self):
        L = []
        if self.doc:
            for d in self.doc.strip().splitlines():
                L.append("// " + d)
        if not self.entry and not self.outs:
            ins = ", ".join(f".reg .{self.in_ty} {i}" for i in self.ins)
            L.append(f".func {self.name}({ins})")
        elif self.entry:
            ps = ",\n    ".join(f".param .{ty} {n}" for n, ty in self.params)
            L.append(f".visible .entry {self.name}(\n    {ps})")
        else:
            outs = ", ".join(f".reg .{self.out_ty} {o}" for o in self.outs)
            ins = ", ".join(f".reg .{self.in_ty} {i}" for i in self.ins)
            L.append(f".func ({outs})\n{self.name}({ins})")
        L.append("{")
        decl = {"t": ".b32", "p": ".pred", "d": ".b64", "f": ".f64", "a": ".b64"}
        for k, ty in decl.items():
            if self.cnt[k]:
                L.append(f"    .reg {ty} %{k}<{self.cnt[k]}>;")
        for o in self.ops:
            L.append(fmt(o))
        L.append("    ret;" if not self.entry else "    ret;")
        L.append("}")
        return "\n".join(L) + "\n"


def imm(x):
    return x if isinstance(x, str) else (hex(x) if x >= 10 else str(x))


def fmt(o):
    k = o[0]
    if k == "label":
        return f"{o[1]}:"
    if k == "comment":
        return f"    // {o[1]}"
    if k == "bra":  # ("bra", label, pred or None, negate)
        _, lab, p, neg = o
        g = f"@{'!' if neg else ''}{p} " if p else ""
        return f"    {g}bra{'' if p else '.uni'} {lab};"
    if k == "call":  # ("call", name, outs, ins)
        outs = f"({', '.join(o[2])}), " if o[2] else ""
        return f"    call.uni {outs}{o[1]}, ({', '.join(o[3])});"
    if k == "ld.v4.u32":  # (k, [4 regs], base, offset)
        return f"    ld.v4.u32 {{{', '.join(o[1])}}}, [{o[2]}+{o[3]}];"
    if k == "st.v4.u32":  # (k, base, offset, [4 regs])
        return f"    st.v4.u32 [{o[1]}+{o[2]}], {{{', '.join(o[3])}}};"
    if k == "raw":
        return "    " + o[1]
    if k.startswith("@"):  # predicated: ("@%p0", inner...)
        return f"    {k} " + fmt(o[1:]).strip()
    if k == "mov.b64.from_f64" or k == "mov.b64.to_f64":
        return f"    mov.b64 {o[1]}, {o[2]};"
    if k == "mov.b64.pack":
        return f"    mov.b64 {o[1]}, {{{o[2]}, {o[3]}}};"
    if k == "mov.b64.unpack":
        return f"    mov.b64 {{{o[1]}, {o[2]}}}, {o[3]};"
    return f"    {k} " + ", ".join(imm(x) for x in o[1:]) + ";"


def dimm(v):
    """PTX double immediate of an exactly representable integer-valued double."""
    return "0d%016X" % struct.unpack("<Q", struct.pack("<d", float(v)))[0]


# ----------------------------------------------------------------------------
# Simulator
# ----------------------------------------------------------------------------
def _round(v, bits=53, mode="rn"):
    """Round integer v to a double (integer-valued), return the integer."""
    if v == 0:
        return 0
    s = -1 if v < 0 else 1
    a = abs(v)
    sh = a.bit_length() - bits
    if sh <= 0:
        return v
    q, r = a >> sh, a & ((1 << sh) - 1)
    if mode == "rn":
        half = 1 << (sh - 1)
        if r > half or (r == half and (q & 1)):
            q += 1
    elif mode != "rz":
        raise ValueError(mode)
    return s * (q << sh)


def dbits(v):
    f = float(v)
    assert int(f) == v, "double register holds a non-representable value"
    return struct.unpack("<Q", struct.pack("<d", f))[0]


def bitsd(b):
    f = struct.unpack("<d", struct.pack("<Q", b & M64))[0]
    assert f == int(f), f"non-integer double {f}"
    return int(f)


def parse_dimm(s):
    return bitsd(int(s[2:], 16))


def label_index(fn):
    """Label name -> op index, for branches."""
    return {o[1]: i for i, o in enumerate(fn.ops) if o[0] == "label"}


def unguard(R, o):
    """The op without its guard predicate ("@%p" / "@!%p"), or None when the guard is false."""
    k = o[0]
    if not k.startswith("@"):
        return o
    p = k[1:]
    if bool(R[p.lstrip("!")]) == p.startswith("!"):
        return None
    return o[1:]


def branch_target(R, o, labels):
    """For a "bra" op: the index to continue at, or None to fall through."""
    _, lab, p, neg = o
    return labels[lab] if p is None or bool(R[p]) != neg else None


class Sim:
    def __init__(self, fns):
        self.fns = {f.name: f for f in fns}
        self.mem = {}  # word address -> u32

    def val(self, R, x):
        if isinstance(x, int):
            return x
        if x.startswith("0d"):
            return parse_dimm(x)
        if x.startswith("0x"):
            return int(x, 16)
        if x.lstrip("-").isdigit():
            return int(x)
        return R[x]

    def call(self, name, args):
        fn = self.fns[name]
        R = dict(zip(fn.ins, args))
        labels = label_index(fn)
        cc = [0]
        pc = 0
        ops = fn.ops
        while pc < len(ops):
            o = unguard(R, ops[pc])
            pc += 1
            if o is None:
                continue
            k = o[0]
            if k in ("label", "comment"):
                continue
            if k == "bra":
                t = branch_target(R, o, labels)
                pc = pc if t is None else t
                continue
            if k == "call":
                res = self.call(o[1], [R[a] for a in o[3]])
                for d, v in zip(o[2], res):
                    R[d] = v
                continue
            self.exec(R, cc, o)
        return [R[o] for o in fn.outs]

    def exec(self, R, cc, o):
        k = o[0]
        v = lambda x: self.val(R, x)
        d = o[1]
        if k == "mov.u64" and o[2] in ("fr_m0", "fr_mod"):
            R[d] = (o[2], 0)
            return
        if k == "ld.volatile.global.u32" and o[2].startswith("["):
            base, off = o[2].strip("[]").split("+")
            R[d] = GLOBALS[R[base][0]][int(off) // 4]
            return
        if k == "ld.v4.u32":
            for j, r in enumerate(o[1]):
                R[r] = self.mem[v(o[2]) + o[3] + 4 * j]
            return
        if k == "st.v4.u32":
            for j, r in enumerate(o[3]):
                self.mem[v(o[1]) + o[2] + 4 * j] = R[r]
            return
        if k in ("add.cc.u32", "addc.cc.u32", "addc.u32", "add.u32"):
            r = v(o[2]) + v(o[3]) + (cc[0] if k.startswith("addc") else 0)
            if ".cc" in k:
                cc[0] = r >> 32
            R[d] = r & M32
        elif k in ("sub.cc.u32", "subc.cc.u32", "subc.u32", "sub.u32"):
            r = v(o[2]) - v(o[3]) - (cc[0] if k.startswith("subc") else 0)
            if ".cc" in k:
                cc[0] = 1 if r < 0 else 0
            R[d] = r & M32
        elif k in ("mul.lo.u32", "mul.hi.u32"):
            r = v(o[2]) * v(o[3])
            R[d] = (r >> 32 if ".hi" in k else r) & M32
        elif k.startswith("mad") and k.endswith("u32"):
            prod = v(o[2]) * v(o[3])
            part = (prod >> 32) if ".hi" in k else prod & M32
            r = part + v(o[4]) + (cc[0] if k.startswith("madc") else 0)
            if ".cc" in k:
                cc[0] = r >> 32
            R[d] = r & M32
        elif k in ("mov.b32", "mov.u32", "mov.b64", "mov.u64", "mov.f64"):
            R[d] = v(o[2])
        elif k == "selp.b32" or k == "selp.b64":
            R[d] = v(o[2]) if R[o[4]] else v(o[3])
        elif k.startswith("setp."):
            _, cmp, ty = k.split(".")
            a, b = v(o[2]), v(o[3])
            R[d] = {"eq": a == b, "ne": a != b, "lt": a < b, "ge": a >= b,
                    "gt": a > b, "le": a <= b}[cmp]
        elif k in ("or.b32", "and.b32", "xor.b32", "or.b64", "and.b64"):
            a, b = v(o[2]), v(o[3])
            R[d] = {"or": a | b, "and": a & b, "xor": a ^ b}[k.split(".")[0]]
        elif k == "and.pred" or k == "or.pred":
            R[d] = (R[o[2]] and R[o[3]]) if k == "and.pred" else (R[o[2]] or R[o[3]])
        elif k == "not.pred":
            R[d] = not R[o[2]]
        elif k == "prmt.b32":
            assert v(o[4]) == 0x0123 and v(o[3]) == 0
            x = v(o[2])
            R[d] = int.from_bytes(x.to_bytes(4, "little"), "big")
        elif k == "shr.u32":
            R[d] = v(o[2]) >> v(o[3])
        elif k == "shl.b32":
            R[d] = (v(o[2]) << v(o[3])) & M32
        elif k == "shf.r.clamp.b32":  # d = (b:a) >> c, low word
            R[d] = (((v(o[3]) << 32) | v(o[2])) >> v(o[4])) & M32
        elif k == "shf.l.clamp.b32":  # d = (b:a) << c, high word
            R[d] = ((((v(o[3]) << 32) | v(o[2])) << v(o[4])) >> 32) & M32
        elif k in ("add.s64", "add.u64"):
            R[d] = (v(o[2]) + v(o[3])) & M64
        elif k in ("sub.s64", "sub.u64"):
            R[d] = (v(o[2]) - v(o[3])) & M64
        elif k == "shr.u64":
            R[d] = v(o[2]) >> v(o[3])
        elif k == "shl.b64":
            R[d] = (v(o[2]) << v(o[3])) & M64
        elif k == "mul.lo.u64":
            R[d] = (v(o[2]) * v(o[3])) & M64
        elif k == "mov.b64.from_f64":  # printed as mov.b64 d, %fN
            R[d] = dbits(v(o[2]))
        elif k == "mov.b64.to_f64":
            R[d] = bitsd(v(o[2]))
        elif k == "mov.b64.pack":  # d = {lo, hi}
            R[d] = v(o[2]) | (v(o[3]) << 32)
        elif k == "mov.b64.unpack":  # {lo, hi} = d ; o = (k, lo, hi, src)
            x = v(o[3])
            R[o[1]], R[o[2]] = x & M32, x >> 32
        elif k in ("fma.rz.f64", "fma.rn.f64"):
            R[d] = _round(v(o[2]) * v(o[3]) + v(o[4]), mode=k.split(".")[1])
        elif k in ("add.rn.f64", "sub.rn.f64"):
            x = v(o[2]) + v(o[3]) if k.startswith("add") else v(o[2]) - v(o[3])
            R[d] = _round(x)
        else:
            raise NotImplementedError(k)
