"""A block-level interpreter of the generated kernels, for the MSM pipeline.

ir.Sim runs one .func on one thread. KSim runs an .entry over a grid: the
threads of a block step one by one until each reaches a collective operation
(bar.sync for the block; vote/match/shfl .sync for its warp) or exits; a
collective runs when every live thread of its group waits at it (full warps
are required, as the kernels pass membermask 0xffffffff). Global memory is a
word dictionary with explicit allocations: an access outside every allocation,
or a read of a word never written, raises. Curve operations can be replaced by
Python functions (a toy group) so the combinatorial part of the pipeline
(digits, ranks, sort, runs, levels, reductions) runs fast.
"""
import bisect
import re
from ir import Sim, M32, branch_target, label_index, unguard
from iface import inside

COLLECTIVE = ("bar.sync", "vote.sync.ballot.b32", "match.any.sync.b32", "shfl.sync.idx.b32")
ADDR = re.compile(r"\[(%?\w+)\+(-?\d+)\]")


class Thread:
    def __init__(self, R):
        self.R, self.pc, self.cc, self.done, self.wait = R, 0, [0], False, None


class KSim(Sim):
    def __init__(self, fns, toy=None, symbols=None):
        super().__init__(fns)
        self.toy = toy or {}
        self.symbols = symbols or {}
        self.allocs = []  # (base, nbytes)
        self.next = 1 << 20
        self.params = {}
        self.shared = {}
        self.cur = None  # (block x, block y, thread) running now
        self.touch = {}  # word -> (thread, written) in this launch: races between threads
        self.windows = None  # byte ranges the running kernel's contract lets it touch
        self.shared_windows = []  # allocations that model shared memory (always in range)

    # --- memory -----------------------------------------------------------
    def alloc(self, nwords, init=None):
        base = self.next
        self.next += (4 * nwords + (1 << 16)) & ~0xFFF
        self.allocs.append((base, 4 * max(nwords, 1)))  # bases increase: bisect in check
        if init is not None:
            for i, w in enumerate(init):
                self.mem[base + 4 * i] = w & M32
        return base

    def fill(self, base, nwords, v=0):
        for i in range(nwords):
            self.mem[base + 4 * i] = v

    def words(self, base, n):
        return [self.mem[base + 4 * i] for i in range(n)]

    def check(self, a):
        assert a % 4 == 0, f"unaligned access {a:#x}"
        i = bisect.bisect_right(self.allocs, (a, 1 << 62)) - 1
        if i < 0 or not self.allocs[i][0] <= a < self.allocs[i][0] + self.allocs[i][1]:
            raise AssertionError(f"access outside every allocation: {a:#x}")
        if self.windows is not None and not inside(self.windows, a, 4):
            raise AssertionError(f"access outside the kernel's contract: {a:#x}")

    def race(self, a, write):
        """Global words are private to one thread within a launch (atomics aside):
        the kernels communicate only through later launches."""
        if self.cur is None:
            return
        prev = self.touch.get(a)
        if prev is not None and prev[0] != self.cur and (write or prev[1]):
            raise AssertionError(f"race on {a:#x}: threads {prev[0]} and {self.cur}")
        if prev is None or write:
            self.touch[a] = (self.cur, write or (prev is not None and prev[1]))

    def rd(self, a, atomic=False):
        self.check(a)
        if not atomic:
            self.race(a, False)
        if a not in self.mem:
            raise AssertionError(f"read of an unwritten word {a:#x}")
        return self.mem[a]

    def wr(self, a, v, atomic=False):
        self.check(a)
        if not atomic:
            self.race(a, True)
        self.mem[a] = v & M32

    def addr(self, R, s):
        m = ADDR.fullmatch(s)
        base = m.group(1)
        b = self.symbols[base] if base in self.symbols else R[base]
        return b + int(m.group(2))

    # --- calls ------------------------------------------------------------
    def call(self, name, args):
        if name in self.toy:
            return self.toy[name](self, args)
        return super().call(name, args)

    # --- ops beyond ir.Sim ------------------------------------------------
    def exec(self, R, cc, o):
        k = o[0]
        v = lambda x: self.val(R, x)  # noqa: E731
        if k.startswith("ld.param."):
            R[o[1]] = self.params[o[2].strip("[]")]
        elif k == "cvta.to.global.u64":
            R[o[1]] = v(o[2])
        elif k == "mov.u32" and isinstance(o[2], str) and o[2] in self.symbols:
            R[o[1]] = self.symbols[o[2]]
        elif k == "mov.pred":
            R[o[1]] = bool(v(o[2]))
        elif k == "mul.wide.u32":
            R[o[1]] = v(o[2]) * v(o[3])
        elif k == "min.u32":
            R[o[1]] = min(v(o[2]), v(o[3]))
        elif k == "popc.b32":
            R[o[1]] = bin(v(o[2])).count("1")
        elif k == "bfind.u32":
            x = v(o[2])
            R[o[1]] = x.bit_length() - 1 if x else M32
        elif k in ("ld.global.u32", "ld.u32"):
            R[o[1]] = self.rd(self.addr(R, o[2]))
        elif k == "ld.shared.u32":
            R[o[1]] = self.shared[self.addr(R, o[2])]
        elif k == "ld.shared.u64":
            a = self.addr(R, o[2])
            R[o[1]] = self.shared[a] | (self.shared[a + 4] << 32)
        elif k in ("st.global.u32", "st.u32"):
            self.wr(self.addr(R, o[1]), v(o[2]))
        elif k == "st.shared.u32":
            self.shared[self.addr(R, o[1])] = v(o[2]) & M32
        elif k == "st.shared.u64":
            a, x = self.addr(R, o[1]), v(o[2])
            self.shared[a], self.shared[a + 4] = x & M32, (x >> 32) & M32
        elif k in ("ld.global.v4.u32", "ld.global.nc.v4.u32"):
            a = self.addr(R, o[2])
            for j, r in enumerate(o[1].strip("{}").split(", ")):
                R[r] = self.rd(a + 4 * j)
        elif k in ("st.global.v4.u32", "st.global.v2.u32"):
            a = self.addr(R, o[1])
            for j, r in enumerate(o[2].strip("{}").split(", ")):
                self.wr(a + 4 * j, v(r))
        elif k == "ld.v4.u32":
            for j, r in enumerate(o[1]):
                R[r] = self.rd(v(o[2]) + o[3] + 4 * j)
        elif k == "st.v4.u32":
            for j, r in enumerate(o[3]):
                self.wr(v(o[1]) + o[2] + 4 * j, v(r))
        elif k == "atom.global.add.u32":
            a = self.addr(R, o[2])
            old = self.rd(a, True)
            self.wr(a, old + v(o[3]), True)
            R[o[1]] = old
        elif k == "red.global.add.u32":
            a = self.addr(R, o[1])
            self.wr(a, self.rd(a, True) + v(o[2]), True)
        else:
            super().exec(R, cc, o)

    # --- grid execution -----------------------------------------------------
    def launch(self, name, grid, block, **params):
        fn = self.fns[name]
        assert fn.entry, name
        self.params = params
        gx, gy = grid if isinstance(grid, tuple) else (grid, 1)
        # the launch as the Rust launcher would check it; then every global access must lie in
        # the ranges the contract names (the kernel's contract is sufficient)
        k = fn.iface
        assert k.geometry(params, (gx, gy), block)[:2] == ((gx, gy), block), f"{name}: not the kernel's geometry"
        self.windows = k.windows(params, self.allocs, (gx, gy), block) + self.shared_windows
        labels = label_index(fn)
        self.touch = {}
        for by in range(gy):
            for bx in range(gx):
                self.shared = {}
                ths = []
                for tx in range(block):
                    lane = tx % 32
                    R = {"%tid.x": tx, "%ntid.x": block, "%ctaid.x": bx, "%ctaid.y": by, "%nctaid.x": gx,
                         "%laneid": lane, "%lanemask_lt": (1 << lane) - 1}
                    ths.append(Thread(R))
                self.run_block(fn, labels, ths, (bx, by))
        self.cur = None
        self.windows = None

    def step(self, fn, labels, th):
        """Runs th until it exits or waits at a collective."""
        ops = fn.ops
        while th.pc < len(ops):
            guarded = ops[th.pc][0].startswith("@")
            o = unguard(th.R, ops[th.pc])
            if o is None:
                th.pc += 1
                continue
            k = o[0]
            assert not (guarded and k in COLLECTIVE), "predicated collective"
            if k in COLLECTIVE:
                th.wait = o
                return
            th.pc += 1
            if k in ("label", "comment"):
                continue
            if k == "bra":
                t = branch_target(th.R, o, labels)
                th.pc = th.pc if t is None else t
                continue
            if k == "call":
                res = self.call(o[1], [th.R[a] for a in o[3]])
                for d, x in zip(o[2], res):
                    th.R[d] = x
                continue
            self.exec(th.R, th.cc, o)
        th.done = True

    def run_block(self, fn, labels, ths, b):
        while True:
            for i, th in enumerate(ths):
                if not th.done and th.wait is None:
                    self.cur = b + (i,)
                    self.step(fn, labels, th)
            live = [th for th in ths if not th.done]
            if not live:
                return
            progressed = False
            if all(th.wait is not None and th.wait[0] == "bar.sync" for th in live):
                pcs = {th.pc for th in live}
                assert len(pcs) == 1, f"threads at different barriers {pcs}"
                for th in live:
                    th.wait = None
                    th.pc += 1
                continue
            for w0 in range(0, len(ths), 32):
                warp = ths[w0:w0 + 32]
                wl = [th for th in warp if not th.done]
                if not wl or not all(th.wait is not None and th.wait[0] != "bar.sync" for th in wl):
                    continue
                assert len(wl) == 32, "warp collective with exited lanes (membermask 0xffffffff)"
                assert len({th.pc for th in wl}) == 1, "warp diverged at a collective"
                self.warp_op(wl)
                for th in wl:
                    th.wait = None
                    th.pc += 1
                progressed = True
            assert progressed, "deadlock: threads wait at collectives that cannot complete"

    def warp_op(self, wl):
        o = wl[0].wait
        k = o[0]
        vals = lambda x: [self.val(th.R, x) for th in wl]  # noqa: E731
        if k == "vote.sync.ballot.b32":
            ps = vals(o[2])
            b = sum(1 << i for i, p in enumerate(ps) if p)
            for th in wl:
                th.R[o[1]] = b
        elif k == "match.any.sync.b32":
            xs = vals(o[2])
            for i, th in enumerate(wl):
                th.R[o[1]] = sum(1 << j for j, x in enumerate(xs) if x == xs[i])
        elif k == "shfl.sync.idx.b32":
            xs, src = vals(o[2]), vals(o[3])
            for i, th in enumerate(wl):
                th.R[o[1]] = xs[src[i] & 31]
        else:
            raise NotImplementedError(k)
