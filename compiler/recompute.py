"""Multi-user lazy values and window inputs: recompute them in each consumer or store them
once. A cost model (`_Cost`, an ops handler) measures a value's inner function; `_consumers`
counts the kernels it would be recomputed in."""
from __future__ import annotations

import torch
import torch.fx

from . import ir, lowering
from . import sym as S
from .codegen import special_calls
from .op_tables import ATEN_CALLS, GATHERS, INDEXED_ONCE, REDUCTIONS, SHAPE_ONLY, VIEWS
from .ops import use
from .sizes import Undecided, hint

_aten = torch.ops.aten

# Recomputing a multi-user lazy value in each consumer instead of storing it (`_recompute`).
# A memory-bound kernel has spare arithmetic: a value of a few ops per element (GELU, a
# BatchNorm affine, a cast, a scale-and-shift) costs less to recompute than a store and one load
# per consumer. Past these limits it is stored, as every multi-user value was before.
RECOMPUTE_MAX_OPS = 24      # distinct ops of the inlined tree (kernels CSE repeats; constants,
                            # casts and index arithmetic not counted): recomputed per consumer;
                            # an eval BatchNorm affine is 9, + tanh-GELU 18, erf-GELU 5
RECOMPUTE_MAX_CALLS = 96    # op calls of the tree expanded (a value inlined into values inlined
                            # again: the lowering walks the whole tree once per use, so nested
                            # recomputed values multiply compile time before any kernel sees them)
RECOMPUTE_MAX_READS = 6     # distinct buffers read (a BatchNorm affine reads 5: x, mean, var,
                            # weight, bias): each is a pointer and a load per consumer kernel
# Ops that are slow on a GPU (a libdevice series or loop, not a single instruction): never
# recomputed. tanh, erf, exp, rsqrt and the like are one or a few instructions.
RECOMPUTE_EXPENSIVE = frozenset({"pow", "ipow", "lgamma", "digamma", "polygamma", "erfinv", "atan2",
                                 "hypot", "fmod", "remainder", "nextafter", "acosh", "asinh",
                                 "atanh", "erfcx", "i0", "i0e", "i1", "i1e",
                                 *special_calls.UNARY, *special_calls.BINARY})


# A window op (max/avg pooling) unrolls its window: a lazy input (its single-user producer,
# inlined) is evaluated at every tap, kh * kw times per output element; where windows overlap,
# each input element is computed once per window that reads it (3x3 stride 2: 2.25 times on
# average, stride 1: 9). Storing the producer first computes it once, at the cost of one write
# and one read of each element and a kernel. On an H100 (~3 TB/s of HBM, ~30 T FP32
# instructions/s: ~10 instructions per byte) a bf16 element's write + read is 4 bytes, ~1.3 ps:
# the time of ~40 instructions. `GraphLowering.window_input` weighs the producer's work per
# tap, the part that depends on the element read (`_Cost.work` added by a second tap: a
# BatchNorm's per-channel scale, its rsqrt included, is shared by the taps; casts and index
# arithmetic, such as a pad's bounds checks, are free): 1 per op, TRANSCENDENTAL_WORK for a
# special function (an ex2 or rcp on the special-function unit, which runs at 1/8 of the FP32
# rate, plus a polynomial: libdevice's tanhf is ~20 instructions, sigmoid an exp and a
# division), unbounded for an op in RECOMPUTE_EXPENSIVE or a gather. The producer is stored
# when taps x work exceeds WINDOW_RECOMPUTE_MAX. In a 3x3 window a tanh-GELU (8 ops + tanh)
# weighs 162, an erf-GELU 126, SiLU (a multiply + sigmoid) 99: nine special-function
# evaluations per output against ~40 instructions' worth of traffic per stored element. A
# BatchNorm affine + ReLU (ResNet's stem: 5 ops a tap) weighs 45, an add 9 to 18, a cast 0:
# they stay inlined, saving the write and read of a full activation, since a memory-bound
# window kernel's spare ALU time absorbs them; the limit, 64, is that slack, ~1.5 stores'
# worth. Windows that never read an element twice (2x2 stride 2) keep any producer inlined.
# Caveat: per output a stride-2 window stores ~4 input elements (16 bytes in bf16, 32 in
# fp32), so a peak-throughput count puts a tanh-GELU or SiLU there near break-even; storing
# relies on the unrolled window's own per-tap index and mask work making the fused kernel
# compute bound, while the producer's own kernel hides its ALU work under its memory traffic.
# Not yet timed on the GPU.
WINDOW_RECOMPUTE_MAX = 64
TRANSCENDENTAL_WORK = 10
TRANSCENDENTAL = frozenset({"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
                            "rsqrt", "tanh", "sigmoid", "erf", "erfc", "sin", "cos", "tan",
                            "asin", "acos", "atan", "sinh", "cosh",
                            # a Philox draw (10 rounds of multiplies): weighed as a special function
                            "rand", "randn", "rand_int63"})


_IND = S.sym("ind")   # what _Cost's indirect_indexing returns


class _Cost:
    """An ops handler that measures an inner function for recomputation: distinct ops (as a
    kernel's CSE would emit them), op calls (the tree expanded), buffers read, whether it
    gathers (loads through an indirect index) or uses an expensive op (`blocked`), the weighted `work`
    of its distinct ops (WINDOW_RECOMPUTE_MAX): none for index arithmetic (ops on indices and
    constants alone), TRANSCENDENTAL_WORK for a special function, unbounded for an expensive
    op or a gather, 1 for any other op."""

    def __init__(self):
        self.ops: set = set()
        self.reads: set = set()
        self.calls = 0
        self.blocked = False
        self.work = 0.0
        self._ids: dict = {}
        self._index: set = set()   # tokens computed from indices and constants alone

    def _token(self, key):
        t = self._ids.get(key)
        if t is None:
            t = self._ids[key] = ("v", len(self._ids))
        return t

    def load(self, name, index):
        self.reads.add(name)
        if _IND in getattr(index, "free_symbols", ()):
            # a gather: its reads are not of the element being computed
            self.blocked, self.work = True, float("inf")
        return self._token(("load", name, index))

    def constant(self, value, dtype):
        t = self._token(("constant", value, dtype))
        self._index.add(t)
        return t

    def index_expr(self, expr, dtype):
        t = self._token(("index", expr, dtype))
        self._index.add(t)
        return t

    def to_dtype(self, v, dtype, implicit=False):
        if implicit:
            return v
        t = self._token(("to_dtype", v, dtype))
        if v in self._index:
            self._index.add(t)
        return t

    def indirect_indexing(self, value, size, check=True, wrap_negative=True):
        # an index read from a tensor: a gather when a load goes through it (`load`); only
        # compared (scatter's one-hot, _scatter_one_per_row) it is a cheap op
        self._op("indirect", (value,))
        return _IND

    def masked(self, mask, body, other):
        return self._op("masked", (mask, body(), other))

    def _op(self, name, args):
        self.calls += 1
        if name in RECOMPUTE_EXPENSIVE:
            self.blocked = True
        key = (name,) + tuple(a if isinstance(a, (tuple, int, float, bool, str, type(None)))
                              else repr(a) for a in args)
        t = self._token(key)
        tokens = [a for a in args if isinstance(a, tuple) and len(a) == 2 and a[0] == "v"]
        index_only = all(a in self._index for a in tokens)
        if index_only:
            self._index.add(t)
        if key not in self.ops:
            self.ops.add(key)
            if name in RECOMPUTE_EXPENSIVE:
                self.work = float("inf")
            elif not index_only:
                self.work += TRANSCENDENTAL_WORK if name in TRANSCENDENTAL else 1
        return t

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *a, **k: self._op(name, a)



class Recompute:
    """GraphLowering's store-or-recompute methods (use its stats, buffers, aliases and the
    written-in-place queries of MutationTracking)."""

    def _recompute(self, n, value) -> bool:
        """Whether a lazy value with several FX users stays lazy, each consumer recomputing
        it, instead of being stored once and read back by each (see RECOMPUTE_MAX_OPS).
        Consumers are counted as the kernels they can end in (`_consumers`): users that are
        single-user pointwise chains into one node count once."""
        try:
            sinks = self._consumers(n, value.numel)
        except Undecided:   # a consumer's data-dependent size (unknown yet): stored, as always safe
            return False
        if sinks is None or n in self._written_fx():
            return False
        cost = _Cost()
        try:
            with use(cost):
                value.loader()([S.sym(f"q{i}") for i in range(len(value.size))])
        except Exception:   # a loader that cannot run symbolically: store it
            return False
        if cost.blocked or cost.calls > RECOMPUTE_MAX_CALLS or len(cost.ops) > RECOMPUTE_MAX_OPS \
                or len(cost.reads) > RECOMPUTE_MAX_READS:
            return False
        reads = set(cost.reads)
        reads = reads.union(*(self.alias_roots.get(r, set()) for r in reads))
        if reads & self.written_buffers():
            return False   # it must read the contents from before a later in-place write
        # memory passes over the value's size (in its bytes): recomputing reads the sources
        # once per consumer kernel (k * passes); storing reads them once and writes the value,
        # at best in the kernel of a consumer it fuses with, the other k - 1 reading it back
        # (passes + k), else in a kernel of its own that every consumer reads (passes + 1 + k:
        # MaxViT's residual adds before a layout-changing copy). Recompute when that reads no
        # more than the best case: a tie (two full-size sources, two consumers) still saves
        # the store and its kernel whenever the store would not fuse
        want = hint(value.numel) * value.dtype.itemsize   # (sizes at their hints: a cost)
        passes = 0.0
        for name in cost.reads:
            buf = self.buffers.get(name)
            if buf is None:
                return False
            passes += min(hint(buf.numel), hint(value.numel)) * buf.dtype.itemsize / max(want, 1)
        k = len(sinks)
        return k * passes <= passes + k

    def window_input(self, value, dims, taps):
        """The input of a window op (pooling) as it should read it: a lazy value whose work at
        each of the window's `taps` (input elements read per output, kh * kw) costs more than
        storing it (WINDOW_RECOMPUTE_MAX) is stored first, anything else is returned as is
        (inlined into every tap). `dims`: the dims the window slides over. `taps` of 1 or
        less: no element is read by two windows (each is computed once anyway)."""
        if not isinstance(value, ir.Lazy) or taps <= 1:
            return value
        work = self._tap_work(value, dims)
        if work is None or taps * work <= WINDOW_RECOMPUTE_MAX:
            return value
        self.stats.window_stored += 1
        return self.realize(value)

    @staticmethod
    def _tap_work(value, dims):
        """`_Cost.work` of evaluating `value` at one more tap: at an element whose `dims`
        differ from one already evaluated, so that the part shared by the taps (computed from
        the other dims: a BatchNorm's per-channel scale) is counted once, not per tap. None
        when its loader cannot run symbolically."""
        cost = _Cost()
        idx = [S.sym(f"q{i}") for i in range(len(value.size))]
        moved = [S.sym(f"t{i}") if i in dims else q for i, q in enumerate(idx)]
        try:
            with use(cost):
                ld = value.loader()
                ld(idx)
                first = cost.work
                ld(moved)
        except Exception:
            return None
        return cost.work - first

    def _consumers(self, n, numel):
        """The FX nodes the lazy value of `n` ends in: each user, followed while it is a
        pointwise op, a view, a pad or a cat with a single user (such a value stays lazy and
        inlines into its one user, so the chain is one consumer) into a pointwise op, view, pad
        or cat; a chain ends in a reduction, a node with several users, or a member whose one
        user stores it (an ATen call, a matmul or convolution, the output). None when the value
        must be stored anyway (a user of `n` itself stores it), when some consumer reads
        elements more than once (gathers, pooling windows: after a pad too, where a 3x3 max
        pool would recompute the value 9 times), or when a member broadcasts it (more elements
        than the chain had: each element would be recomputed many times; a pad or cat grows
        the chain without reading an element twice)."""
        def kind(u, limit):
            if u.op == "output" or lowering.lookup(u.target) is None or u.target in ATEN_CALLS:
                return "stores"
            if u.op != "call_function":
                return None
            t = u.target
            val = u.meta.get("val")
            if not isinstance(val, torch.Tensor):
                return None
            if t in INDEXED_ONCE:
                return "chain"     # larger than its input, but each element is read once
            if self.numel(val) > limit:
                return None
            if t in GATHERS:
                # one element read per output element, no more outputs than the chain has
                # elements: a cross-entropy's pick of the target's log-probability recomputes
                # 1 element a row instead of storing the fp32 log-softmax of every logit
                return "chain" if _integer_indices(u) else None
            if t in REDUCTIONS:
                return "end"
            if t in VIEWS or t is _aten._to_copy.default or \
                    (isinstance(t, torch._ops.OpOverload) and torch.Tag.pointwise in t.tags):
                return "chain"
            return None

        sinks = set()
        for u in n.users:
            if u.op == "call_function" and u.target in SHAPE_ONLY:
                continue           # reads the size, not the data
            k = kind(u, numel)
            view = k == "chain" and u.target in VIEWS   # u holds the value itself
            size = numel           # the chain's elements so far: a pad or cat adds some
            while k == "chain" and len(u.users) == 1:
                if u.target in INDEXED_ONCE:
                    size = max(size, self.numel(u.meta["val"]))
                w = next(iter(u.users))
                kw = kind(w, size)
                if kw is None:
                    return None
                if kw == "stores":
                    if view:
                        return None   # the value itself is stored: once, for every consumer
                    break          # u, computed from it, is stored by its one user: one consumer
                u, k = w, kw
                view = view and w.target in VIEWS
            if k not in ("chain", "end"):
                return None
            sinks.add(_reduction_key(u))
        return sinks


def _integer_indices(node) -> bool:
    """Whether a gather's indices are integer tensors (a boolean mask selects a data-dependent
    number of elements)."""
    idx = node.args[1] if node.target is _aten.index.Tensor else node.args[2:3]
    vals = [i.meta.get("val") for i in idx if isinstance(i, torch.fx.Node)]
    return bool(vals) and all(isinstance(v, torch.Tensor) and not v.is_floating_point()
                              and v.dtype not in (torch.bool, torch.uint8) for v in vals)


def _reduction_key(node):
    """A consumer's identity for counting kernels: reductions of equal-shaped inputs over the
    same dims (a LayerNorm's sum and var, a softmax's max and sum) run in one kernel (the
    scheduler fuses reductions of one iteration space that read the same data), so they
    count once; any other node is itself."""
    if node.target not in REDUCTIONS or not node.args or not isinstance(node.args[0], torch.fx.Node):
        return node
    val = node.args[0].meta.get("val")
    if not isinstance(val, torch.Tensor):
        return node
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", node.kwargs.get("dims"))
    nd = val.dim()
    if dims is None or dims == []:
        dims = tuple(range(nd))
    elif isinstance(dims, int):
        dims = (dims % max(nd, 1),)
    elif isinstance(dims, (list, tuple)) and all(isinstance(d, int) for d in dims):
        dims = tuple(sorted({d % max(nd, 1) for d in dims}))
    else:
        return node
    # (a symbolic size keyed by its expression: SymInts do not hash)
    return ("reduction", tuple(n.node.expr if isinstance(n, torch.SymInt) else n for n in val.shape), dims)

