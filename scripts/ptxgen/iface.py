"""The kernel interface, described once per .entry: its parameters (device buffers with
their element type, then u32 scalars), the launch geometry it needs and the memory
contract that makes a launch safe. From one description come

  - the PTX `.entry` parameter list (Kernel.ptx_params, printed by ir.Fn), and
  - the Rust launcher in src/gpu/kernels/generated.rs (rust.py): an argument struct
    with one named field per parameter, and a launch method that checks every
    buffer's length and the geometry against the contract before the launch.

Contract expressions are small integer expressions over the kernel's u32 parameters,
its per-kernel constants and the launch geometry (grid_x, grid_y, block). They evaluate
here (Expr.eval, used by the simulators) and render as Rust (Expr.rust) with the same
semantics: unbounded-in-practice unsigned arithmetic (u128 in Rust), subtraction that
stops at 0, saturation at 2^128 - 1. A buffer's `need` is the number of elements from the
start of the slice passed that the kernel may read or write; a kernel whose addresses
depend on values it reads from device memory (indices written by an earlier kernel)
declares that with `trusts`: its launcher is an `unsafe fn` whose caller vouches for the
data, as no length check on the host can.
"""

U128_MAX = (1 << 128) - 1

# Rust element types of device buffers: name -> bytes per element.
ELEMENTS = {"u8": 1, "u32": 4, "Scalar": 32}


def lift(x):
    return x if isinstance(x, Expr) else Lit(x)


class Expr:
    def __add__(self, o):
        return Op("add", self, lift(o))

    def __radd__(self, o):
        return Op("add", lift(o), self)

    def __sub__(self, o):
        return Op("sub", self, lift(o))

    def __rsub__(self, o):
        return Op("sub", lift(o), self)

    def __mul__(self, o):
        return Op("mul", self, lift(o))

    def __rmul__(self, o):
        return Op("mul", lift(o), self)

    def __lshift__(self, o):
        return Op("shl", self, lift(o))

    def __rlshift__(self, o):
        return Op("shl", lift(o), self)

    def __and__(self, o):
        return Op("and", self, lift(o))

    def __le__(self, o):
        return Cmp("<=", self, lift(o))

    def __lt__(self, o):
        return Cmp("<", self, lift(o))

    def __ge__(self, o):
        return Cmp(">=", self, lift(o))

    def __gt__(self, o):
        return Cmp(">", self, lift(o))

    __hash__ = object.__hash__


class Lit(Expr):
    def __init__(self, v):
        assert isinstance(v, int) and v >= 0, v
        self.v = v

    def eval(self, env):
        return self.v

    def rust(self):
        return str(self.v)


class Var(Expr):
    """A u32 parameter, a per-kernel constant or a geometry value (grid_x, grid_y, block)."""

    def __init__(self, name, kind):
        self.name, self.kind = name, kind

    def eval(self, env):
        return env[self.name]

    def rust(self):
        return rust_name(self.name)


def rust_name(name):
    """The Rust spelling of a PTX parameter or constant name: snake case (inR -> in_r, N -> n)."""
    if name.isupper():
        return name.lower()
    return "".join(("_" + c.lower()) if c.isupper() and i and name[i - 1].islower() else c.lower()
                   for i, c in enumerate(name))


def _sat(v):
    return min(max(v, 0), U128_MAX)


OPS = {
    "add": (lambda a, b: _sat(a + b), "add"),
    "sub": (lambda a, b: _sat(a - b), "sub"),
    "mul": (lambda a, b: _sat(a * b), "mul"),
    "shl": (lambda a, b: _sat(a << min(b, 128)), "shl"),
    "and": (lambda a, b: a & b, "and"),
    "min": (min, "min"),
    "div_ceil": (lambda a, b: -(-a // b) if b else U128_MAX, "div_ceil"),
}


class Op(Expr):
    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b

    def eval(self, env):
        return OPS[self.op][0](self.a.eval(env), self.b.eval(env))

    def rust(self):
        return f"{OPS[self.op][1]}({self.a.rust()}, {self.b.rust()})"


class Where(Expr):
    """`a` where `cond` holds, else `b`."""

    def __init__(self, cond, a, b):
        self.cond, self.a, self.b = cond, a, b

    def eval(self, env):
        return self.a.eval(env) if self.cond.eval(env) else self.b.eval(env)

    def rust(self):
        return f"if {self.cond.rust()} {{ {self.a.rust()} }} else {{ {self.b.rust()} }}"


def where(cond, a, b):
    return Where(cond, lift(a), lift(b))


def emin(a, b):
    return Op("min", lift(a), lift(b))


def div_ceil(a, b):
    return Op("div_ceil", lift(a), lift(b))


class Cond:
    pass


class Cmp(Cond):
    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b

    def eval(self, env):
        a, b = self.a.eval(env), self.b.eval(env)
        return {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b, "==": a == b, "!=": a != b}[self.op]

    def rust(self):
        return f"{self.a.rust()} {self.op} {self.b.rust()}"

    def text(self):
        return f"{text(self.a)} {self.op} {text(self.b)}"


def eq(a, b):
    return Cmp("==", lift(a), lift(b))


def ne(a, b):
    return Cmp("!=", lift(a), lift(b))


def flag(x, bit):
    """Bit `bit` of x is set."""
    return ne(x & bit, 0)


class Logic(Cond):
    def __init__(self, op, *cs):
        self.op, self.cs = op, cs

    def eval(self, env):
        v = [c.eval(env) for c in self.cs]
        return all(v) if self.op == "&&" else any(v) if self.op == "||" else not v[0]

    def rust(self):
        if self.op == "!":
            return f"!({self.cs[0].rust()})"
        return f" {self.op} ".join(f"({c.rust()})" for c in self.cs)

    def text(self):
        if self.op == "!":
            return f"not ({self.cs[0].text()})"
        word = " and " if self.op == "&&" else " or "
        return word.join(f"({c.text()})" for c in self.cs)


def all_of(*cs):
    return Logic("&&", *cs)


def any_of(*cs):
    return Logic("||", *cs)


def negate(c):
    return Logic("!", c)


def text(e):
    """Human-readable form of an expression (docs and SAFETY comments)."""
    if isinstance(e, Lit):
        return str(e.v)
    if isinstance(e, Var):
        return rust_name(e.name)
    if isinstance(e, Where):
        return f"({text(e.a)} if {e.cond.text()} else {text(e.b)})"
    sym = {"add": "+", "sub": "-", "mul": "*", "shl": "<<", "and": "&"}
    if e.op in sym:
        return f"({text(e.a)} {sym[e.op]} {text(e.b)})"
    return f"{e.op}({text(e.a)}, {text(e.b)})"


def plain(e):
    """text() without the outermost parentheses."""
    t = text(e)
    return t[1:-1] if t.startswith("(") and t.endswith(")") and isinstance(e, Op) and e.op in (
        "add", "sub", "mul", "shl", "and") else t


class Buffer:
    def __init__(self, name, elem, need, access, doc, when, align, data):
        assert elem in ELEMENTS, elem
        assert access in ("reads", "writes", "reads and writes", "atomics on", "unused"), access
        self.name, self.elem, self.need, self.access, self.doc, self.when = name, elem, lift(need), access, doc, when
        # bytes the slice's address must be a multiple of (16 where the kernel uses v4 loads)
        self.align = max(align, ELEMENTS[elem])
        # the kernel indexes it with values it reads from device memory: `need` is what the host
        # can check, the rest is the caller's (the kernel's `trusts`)
        self.data = data


FREE = "free"


class Kernel:
    """One .entry's interface. Build it, then make the Fn with `fn(...)`:

        k = Kernel("msm_digits", sig="MsmDigits", field="digits", doc=...)
        n, c, nwin, stride, wide = k.u32s("n", "c", "nwin", "stride", "wide")
        k.buffer("scalars", "u32", 8 * n, "reads", "the scalars i < n, 8 Montgomery words each")
        ...
        f = k.fn(Fn)

    PTX parameters: the buffers in declaration order, then the u32 scalars (`.u64` and
    `.u32`). `sig` names the Rust launcher type: kernels that share it (the G1 and G2 builds
    of one MSM step, the NTT's radices) must declare the same parameters and contract,
    differing only in the values of their constants. `field` names the kernel in its
    module's Rust struct.
    """

    def __init__(self, name, sig, field, doc):
        self.name, self.sig, self.field, self.doc = name, sig, field, doc.strip()
        self.bufs, self.scalars, self.consts = [], [], {}
        self.vars = {}
        self.grid = (FREE, Lit(1))  # x, y: FREE or an Expr (1-D grids unless launch() says otherwise)
        self.block = FREE
        self.block_rules = []  # (Cond, why) on the free block
        self.shared = Lit(0)
        self.requires = []  # (Cond, why)
        self.trust = None
        self.grid_x, self.grid_y, self.block_v = Var("grid_x", "geom"), Var("grid_y", "geom"), Var("block", "geom")

    # --- declaration -----------------------------------------------------
    def u32s(self, *names):
        vs = []
        for n in names:
            assert n not in self.vars and n.lower() not in {x.lower() for x in self.vars}, n
            v = Var(n, "u32")
            self.vars[n] = v
            self.scalars.append(n)
            vs.append(v)
        return vs if len(vs) > 1 else vs[0]

    def const(self, name, value, doc):
        """A per-kernel constant (the radix of an NTT pass, a group's point size): a field of
        the Rust launcher, set when the module is loaded."""
        v = Var(name, "const")
        self.consts[name] = (value, doc)
        self.vars[name] = v
        return v

    def buffer(self, name, elem, need, access, doc, when=None, align=0, data=False):
        """A device buffer of `elem` of which the kernel touches `need` elements from the
        slice's start; `when` (a Cond): the kernel reads it only then, else the Rust field
        is an Option and None passes a null pointer; `align`: bytes the address must be a
        multiple of (vector loads), at least the element's size; `data`: the kernel indexes it
        with values read from device memory (the kernel must declare `trusts`)."""
        assert name not in self.vars
        self.bufs.append(Buffer(name, elem, need, access, doc, when, align, data))
        self.vars[name] = None

    def launch(self, grid_x=FREE, grid_y=1, block=FREE, shared=0):
        self.grid = (grid_x if grid_x is FREE else lift(grid_x), grid_y if grid_y is FREE else lift(grid_y))
        self.block = block if block is FREE else lift(block)
        self.shared = lift(shared)

    def block_rule(self, cond, why):
        assert self.block is FREE
        self.block_rules.append((cond, why))

    def require(self, cond, why):
        self.requires.append((cond, why))

    def trusts(self, why):
        self.trust = why.strip()

    # --- uses --------------------------------------------------------------
    def ptx_params(self):
        return [(b.name, "u64") for b in self.bufs] + [(s, "u32") for s in self.scalars]

    def fn(self, cls, **kw):
        f = cls(self.name, entry=True, params=self.ptx_params(), doc=self.doc, **kw)
        f.iface = self
        return f

    def env(self, params, grid=None, block=None):
        """The expression environment of a launch: the u32 parameters, the constants and
        the geometry (derived where the kernel fixes it)."""
        env = {n: params[n] for n in self.scalars}
        env.update({n: v for n, (v, _) in self.consts.items()})
        gx, gy = grid if isinstance(grid, tuple) else (grid, 1)
        env["grid_x"] = gx if self.grid[0] is FREE else self.grid[0].eval(env)
        env["grid_y"] = gy if self.grid[1] is FREE else self.grid[1].eval(env)
        env["block"] = block if self.block is FREE else self.block.eval(env)
        return env

    def geometry(self, params, grid=None, block=None):
        """(grid (x, y), block, shared bytes) of a launch, with the kernel's own values where
        it fixes them."""
        env = self.env(params, grid, block)
        return (env["grid_x"], env["grid_y"]), env["block"], self.shared.eval(env)

    def check(self, params, sizes, grid=None, block=None):
        """The contract of one launch in the simulator: `sizes` maps each buffer to the
        elements available from its address (None for a null pointer). Returns the ranges
        of elements (name -> need) the kernel may touch; raises when a check fails, as the
        Rust launcher would."""
        env = self.env(params, grid, block)
        for c, why in self.requires + self.block_rules:
            assert c.eval(env), f"{self.name}: {why} ({c.text()})"
        assert env["grid_x"] * env["block"] <= 1 << 32, f"{self.name}: more x threads than 2^32"
        out = {}
        for b in self.bufs:
            if b.access == "unused":
                continue
            active = b.when is None or b.when.eval(env)
            if sizes.get(b.name) is None:
                assert not active and b.when is not None, f"{self.name}: {b.name} is required"
                continue
            need = b.need.eval(env) if active else 0
            assert sizes[b.name] >= need, f"{self.name}: {b.name} holds {sizes[b.name]} < {need}"
            out[b.name] = need
        return out

    def windows(self, params, allocs, grid=None, block=None):
        """The byte ranges a launch in a simulator may touch under the contract, checked as the
        Rust launcher checks it: `params` maps each parameter to its value (a buffer to its
        address, 0 for null), `allocs` lists the simulator's allocations as (base, bytes). A
        buffer the kernel indexes with device data (`data`) may be touched
        anywhere from its address to the end of its allocation (data-indexed buffers)."""
        assert self.trust or not any(b.data for b in self.bufs), f"{self.name}: data-indexed buffers need trusts"
        def rest(addr):
            for base, nbytes in allocs:
                if base <= addr < base + nbytes:
                    return base + nbytes - addr
            return 0
        sizes = {}
        for b in self.bufs:
            addr = params[b.name]
            if addr:
                assert addr % b.align == 0, f"{self.name}: {b.name} at {addr:#x} not aligned to {b.align}"
            sizes[b.name] = rest(addr) // ELEMENTS[b.elem] if addr else None
        need = self.check(params, sizes, grid, block)
        out = []
        for b in self.bufs:
            addr = params[b.name]
            if b.name not in need or not addr:
                continue
            nbytes = need[b.name] * ELEMENTS[b.elem]
            if b.data:
                nbytes = rest(addr)
            out.append((addr, addr + nbytes))
        return out


def inside(windows, a, nbytes):
    """Whether bytes [a, a + nbytes) lie in one contract window."""
    return any(lo <= a and a + nbytes <= hi for lo, hi in windows)
