"""Triton source for one fused group.

Pointwise groups: a 1-D kernel over x = program_id * XBLOCK + arange(XBLOCK), or, when an input
is read transposed relative to the store (a transpose, a layout change such as
channels-last <-> contiguous), a 2-D tiled kernel: the flat index splits as x = y * XN + xx with
a [YBLOCK, XBLOCK] tile, y running along the dim the transposed input is contiguous in and xx
along the store's contiguous suffix, so both loads and stores are coalesced (Triton moves the
tile between the two register layouts through shared memory).
Reduction groups over (X, R): a [XBLOCK, RBLOCK] tile; persistent (one block covers R, all
values stay in registers) when R is small, otherwise one loop over R per phase (a node
that needs a reduction result computed in the same kernel goes in a later loop). Row-wise
epilogue nodes run after the last loop. Scan groups: codegen/scan.py (ScanKernel, this class's
ops handler with a body of its own). A buffer produced in the kernel and read at the element
being computed is taken from registers (or recomputed from its inner function in a later loop);
it is stored only if someone outside the kernel reads it.

Tunables: XBLOCK (+ RBLOCK, or YBLOCK for tiles) as constexprs, num_warps and num_stages at
launch. The kernel is emitted with its metadata (`meta`: kind, extents, dtypes); its configs
(default, candidates, space) are the kernel-config point's, tuner/points/triton_kernel.py.
"""
from __future__ import annotations

import math
import os

import torch

from tuner.points.kernel_kinds import OUTER_R
from tuner.points.triton_kernel import KernelMeta

from .. import ir
from .. import sym as S
from ..ops import use
from ..scheduler import R, X, accesses, bounds, is_rowwise, node_index, split_prefix
from ..sizes import SymFloat, SymSize, or_else
from . import special_calls

Y, XX = S.sym("y"), S.sym("xx")
TL = {torch.float32: "tl.float32", torch.float16: "tl.float16", torch.bfloat16: "tl.bfloat16",
      torch.float64: "tl.float64", torch.int64: "tl.int64", torch.int32: "tl.int32",
      torch.int16: "tl.int16", torch.int8: "tl.int8", torch.uint8: "tl.uint8", torch.bool: "tl.int1"}


def compute_dtype(dt):
    return torch.float32 if dt in (torch.float16, torch.bfloat16) else dt


def next_pow2(n):
    return 1 << max(0, (int(n) - 1).bit_length())


class CSEVar:
    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def __str__(self):
        return self.name


def _const(value, dtype):
    if dtype == torch.bool:
        return f"tl.full([], {int(bool(value))}, tl.int1)"
    ct = compute_dtype(dtype)
    if ct.is_floating_point:
        v = float(value)
        lit = "float('nan')" if math.isnan(v) else ("float('inf')" if v == math.inf else
                                                       ("float('-inf')" if v == -math.inf else repr(v)))
        return f"tl.full([], {lit}, {TL[ct]})"
    return f"tl.full([], {wrap_int(value, ct)}, {TL[ct]})"


def wrap_int(value, dtype):
    """An integer scalar as eager casts it to an integer dtype: wrapped into its range (two's
    complement), as `uint8_tensor - 1` or `x % -3` on uint8 compute with 255 and 253."""
    bits = torch.iinfo(dtype).bits
    v = int(value) & ((1 << bits) - 1)
    if dtype != torch.uint8 and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


UNARY_FLOAT = {"exp": "tl.exp({0})", "exp2": "tl.exp2({0})", "log": "tl.log({0})",
               "log2": "tl.log2({0})", "sqrt": "tl.sqrt({0})", "rsqrt": "tl.rsqrt({0})",
               "sin": "tl.sin({0})", "cos": "tl.cos({0})", "erf": "tl.erf({0})",
               "floor": "tl.floor({0})", "ceil": "tl.ceil({0})", "sigmoid": "tl.sigmoid({0})",
               "reciprocal": "(1.0 / {0})", "round": "th.round_even({0})", "trunc": "th.trunc({0})",
               "tanh": "th.tanh({0})", "log1p": "th.log1p({0})", "expm1": "th.expm1({0})",
               "tan": "th.tan({0})", "asin": "th.asin({0})", "acos": "th.acos({0})",
               "atan": "th.atan({0})", "sinh": "th.sinh({0})", "cosh": "th.cosh({0})",
               "asinh": "th.asinh({0})", "acosh": "th.acosh({0})", "atanh": "th.atanh({0})",
               "log10": "th.log10({0})", "erfc": "th.erfc({0})", "lgamma": "th.lgamma({0})",
               "erfinv": "th.erfinv({0})", "digamma": "th.digamma({0})", "erfcx": "th.erfcx({0})",
               "i0": "th.bessel_i({0}, 0, False)", "i0e": "th.bessel_i({0}, 0, True)",
               "i1": "th.bessel_i({0}, 1, False)", "i1e": "th.bessel_i({0}, 1, True)",
               "isinf": "(tl.abs({0}) == float('inf'))", "isnan": "({0} != {0})", "signbit": "({0} < 0)"}
BINARY_SAME = {"add": "({0} + {1})", "sub": "({0} - {1})", "mul": "({0} * {1})",
               "truediv": "({0} / {1})", "bitwise_and": "({0} & {1})", "bitwise_or": "({0} | {1})",
               "bitwise_xor": "({0} ^ {1})", "lshift": "({0} << {1})", "rshift": "({0} >> {1})",
               "truncdiv": "({0} // {1})", "atan2": "th.atan2({0}, {1})", "hypot": "th.hypot({0}, {1})",
               "copysign": "th.copysign({0}, {1})", "pow": "th.pow({0}, {1})",
               "ipow": "th.ipow({0}, {1})", "nextafter": "th.nextafter({0}, {1})"}
UNARY_FLOAT.update(special_calls.UNARY)   # series-evaluated special functions (runtime/special.py)
BINARY_SAME.update(special_calls.BINARY)
COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
# Philox draws at (seed, offset): the uniform, normal and int64 values of lowerings/random.py
RANDOM = {"rand": ("tl.rand({0}, {1})", torch.float32), "randn": ("tl.randn({0}, {1})", torch.float32),
          "rand_int63": ("th.rand_int63({0}, {1})", torch.int64)}


class TritonKernel:
    def __init__(self, group, scheduler, max_persistent_r=8192, name="kernel"):
        self.group = group
        self.sched = scheduler
        self.space = group.space()
        self.xnumel, self.rnumel = self.space
        self.first_reduction = group.reduction()   # pointwise nodes are indexed as it reads
        self.reduction = group.kind == "reduction"
        # the body runs over [XBLOCK, RBLOCK] tiles (a reduction's, or a scan's: codegen/scan.py)
        self.rloop = group.kind in ("reduction", "scan")
        self.scatter = group.kind == "scatter"
        self.name = name
        # reduction nodes named in the source by their order in this kernel, not by their
        # graph-wide name, so identical kernels (a model's repeated layers) have identical
        # sources: one compile and one tuning decision for all of them
        self._local = {}
        self.internal = scheduler.internal(group)
        self.produced = {n.buffer.name: n for n in group.nodes
                         if n.kind in ("pointwise", "reduction", "scan")}
        # A reduction whose loads are contiguous along x (over a leading dim) uses x-major
        # tiles: wide in x, short in r, looped past OUTER_R rows.
        self.outer = self.reduction and self._outer()
        # (a data-dependent row its range does not bound: looped, which serves every length)
        limit = min(max_persistent_r, OUTER_R) if self.outer else max_persistent_r
        self.persistent = self.reduction and or_else(lambda: self.rnumel <= limit, False)
        # a persistent reduction over a row of symbolic length holds a looped body too, run
        # where the launch's RBLOCK (its size bucket's) does not cover the row: one kernel
        # serves every length, with no guard on it
        self.dual = self.persistent and isinstance(self.rnumel, SymSize)
        self.args: dict[str, str] = {}
        self.arg_kind: dict[str, str] = {}
        self.lines: list[str] = []
        self.cache: dict = {}
        self.values: dict = {}
        self.red_result: dict = {}
        self.mask_stack: list[str] = []
        self.count = 0
        self.in_epilogue = False
        self.streaming = False    # a reduction reading its inputs in one pass (set in _reduction)
        self.indirect = False
        self.int64 = or_else(self._needs_int64, True)   # (64-bit where a data-dependent size may need it)
        self.pid_base = None   # combo sub-kernels: the name of the first program of their range
        self.table_part = False   # a foreach table kernel's body: x and xmask come from its header
        self.bounds = bounds(self.space)
        # (YN, XN) for a 2-D tiled pointwise kernel, None for 1-D
        self.tile = None if (self.rloop or self.scatter) else self._tiling()
        if self.tile:
            self.bounds = dict(self.bounds, y=self.tile[0] - 1, xx=self.tile[1] - 1)

    # -- helpers ---------------------------------------------------------------------
    def _needs_int64(self):
        limit = 2 ** 31 - 1
        if self.xnumel * max(self.rnumel, 1) >= limit:
            return True
        for n in self.group.nodes:
            for name in n.reads | ({n.buffer.name} if n.buffer is not None else set()):
                b = self.sched.graph.buffers.get(name)
                if b is not None and sum((s - 1) * abs(st) for s, st in zip(b.size, b.stride)) + b.offset >= limit:
                    return True
        return False

    def _tiling(self):
        """(YN, XN) when an input is read contiguously along a dim other than the store's (the
        node's last loop dim): that dim goes last in y. The heaviest such input decides."""
        best = None
        for n in self.group.nodes:
            if n.kind != "pointwise":
                continue
            ranges, syms = n.ranges, n.symbols()
            big = [i for i, s in enumerate(ranges) if s > 1]
            if len(big) < 2:
                continue
            last = big[-1]
            if n.buffer.name not in self.internal and \
                    S.approx_stride(n.store_index(syms), syms[last]) != 1:
                continue
            for name, index in n.read_index:
                if name in self.produced:
                    continue
                strides = [S.approx_stride(index, v) for v in syms]
                if strides[last] in (0, 1, None):
                    continue
                ds = [i for i in big if i != last and strides[i] == 1]
                if not ds:
                    continue
                yn = math.prod(ranges[:ds[-1] + 1])
                buf = self.sched.graph.buffers[name]
                w = buf.numel * buf.dtype.itemsize
                if best is None or w > best[0]:
                    best = (w, yn, self.xnumel // yn)
        return None if best is None else (best[1], best[2])

    def _node_idx(self, node):
        """The node's loop indices in the kernel's variables."""
        if not self.tile or node.kind != "pointwise":
            return node_index(node, self.space, self.first_reduction)
        split = split_prefix(node.ranges, self.tile[0])
        if split is None:   # loop dims that do not split at the tile boundary: via the flat index
            return S.unflatten(Y * self.tile[1] + XX, node.ranges)
        return S.unflatten(Y, split[0]) + S.unflatten(XX, split[1])

    def _full_block(self, names):
        """Whether an index over these names already has the block's shape."""
        if self.tile:
            return {"y", "xx"} <= names
        return bool({"x", "r"} & names)

    def _outer(self):
        inner = outer = 0
        for n in self.group.nodes:
            acc = accesses(n, self.space, self.first_reduction)
            if acc is None:
                continue
            for name, index in acc[0]:
                if name in self.produced:
                    continue
                if S.approx_stride(index, R) == 1:
                    inner += 1
                elif S.approx_stride(index, X) == 1 and R in index.free_symbols:
                    outer += 1
        return outer > inner

    def arg(self, name, kind):
        if name not in self.args:
            self.args[name] = f"{'out' if kind != 'in' else 'in'}_ptr{len(self.args)}"
            self.arg_kind[name] = kind
        elif kind != "in" and self.arg_kind[name] == "in":
            self.arg_kind[name] = "inout"
        return self.args[name]

    def emit(self, line):
        self.lines.append("    " * self.indent + line)

    def cse(self, expr, dtype):
        key = (expr, dtype)
        if key in self.cache:
            return self.cache[key]
        self.count += 1
        var = CSEVar(f"t{self.count}", dtype)
        if dtype == torch.bool and _interpret():
            # the interpreter labels a comparison's result with its operands' dtype: once a
            # scalar one (0-d operands) is broadcast against a block, it holds floats and
            # `&` / `|` with a block of bools fails (th.int1 relabels it)
            expr = f"th.int1({expr})"
        self.emit(f"{var} = {expr}")
        self.cache[key] = var
        return var

    def default_mask(self, needs_r):
        """The loop mask for an access; rmask only inside the loops of a reduction or scan."""
        if not self.rloop or self.in_epilogue:
            return "xmask"
        return "xmask & rmask" if needs_r else "xmask"

    def _block_pointer(self, names) -> bool:
        """Whether a masked load over these names needs a block-shaped pointer (else narrower)."""
        return not self._full_block(names)

    def _mask_for(self, index):
        names = S.free_names(index)
        if not names:
            mask = None
        else:
            needs_r = "r" in names or any(n.startswith("t") for n in names)
            mask = self.default_mask(needs_r)
        for m in self.mask_stack:
            mask = m if mask is None else f"{mask} & {m}"
        return mask

    # -- ops handler -----------------------------------------------------------------
    def load(self, name, index):
        index = S.with_bounds(index, self.bounds)
        p = self.produced.get(name)
        if p is not None and not self.scatter:
            if p.kind in ("reduction", "scan"):   # its result in this loop (or after it)
                return self.red_result[name]
            if name in self.values:
                return self.values[name]
            # A fused producer is read at the kernel's own index, valid on every lane: its
            # value is computed without the masks of the access that first needs it, since
            # later accesses reuse it (a value first read inside `masked` and then outside it,
            # as slice_scatter reads its input at the same element, was zero off the mask).
            saved, self.mask_stack = self.mask_stack, []
            try:
                v = self.node_value(p)
            finally:
                self.mask_stack = saved
            self.values[name] = v
            return v
        buf = self.sched.graph.buffers[name]
        ptr = self.arg(ir.storage_name(buf), "in")   # a retargeted buffer lives in its input
        idx = S.texpr(index)
        if self.rloop and not self.in_epilogue and "r" not in S.free_names(index) and \
                any(n.startswith("t") for n in S.free_names(index)):
            idx = f"tl.broadcast_to({idx}, [XBLOCK, RBLOCK])"
        mask = self._mask_for(index)
        if mask is not None and self._block_pointer(S.free_names(index)):
            # An index free of the loop variables (a constant, or an indirect scalar) gives a
            # scalar pointer, and Triton refuses a block mask on a scalar pointer: give the
            # pointer the block's shape (the mask then broadcasts against it).
            idx = f"({idx}) + tl.zeros_like(x)"
        other = "" if mask is None else f", mask={mask}, other=0"
        if self.reduction and self.streaming and not self.in_epilogue \
                and "r" in S.free_names(index):
            other += ", eviction_policy='evict_first'"
        expr = f"tl.load({ptr} + {idx}{other})"
        if compute_dtype(buf.dtype) != buf.dtype:
            expr += f".to({TL[compute_dtype(buf.dtype)]})"
        return self.cse(expr, buf.dtype)

    def constant(self, value, dtype):
        if isinstance(value, SymFloat):   # a float of sizes (1 / n), in float64 as eager's
            return self.cse(f"{value.kernel_source()}.to({TL[compute_dtype(dtype)]})", dtype)
        if isinstance(value, SymSize):   # a size used as a value: its size arguments
            return self.index_expr(value.expr, dtype)
        return self.cse(_const(value, dtype), dtype)

    def index_expr(self, expr, dtype):
        expr = S.simplify(expr)
        if not S.free_names(expr):
            return self.constant(int(expr), dtype)
        return self.cse(f"({S.texpr(expr)}).to({TL[compute_dtype(dtype)]})", dtype)

    def to_dtype(self, v, dtype, implicit=False):
        if v.dtype == dtype:
            return v
        if dtype == torch.bool:
            return self.cse(f"({v} != 0)", dtype)
        ct = compute_dtype(dtype)
        if implicit and ct != dtype and v.dtype == ct:
            # an op's own result (not an explicit cast): the fp32 value stands for the
            # half/bfloat16 one until a store rounds it
            return CSEVar(v.name, dtype)
        if ct != dtype:   # half/bfloat16: rounded to it (from fp32: ints and doubles convert as eager's), fp32 after
            return self.cse(f"{v if v.dtype == torch.float32 else f'{v}.to(tl.float32)'}.to({TL[dtype]}).to(tl.float32)", dtype)
        return self.cse(f"{v}.to({TL[ct]})", dtype)

    def masked(self, mask, body, other):
        self.mask_stack.append(str(mask))
        try:
            v = body()
        finally:
            self.mask_stack.pop()
        return self.cse(f"tl.where({mask}, {v}, {_const(other, v.dtype)})", v.dtype)

    def indirect_indexing(self, v, size, check=True, wrap_negative=True):
        self.indirect = True
        ind = self.cse(f"tl.where({v} < 0, {v} + {size}, {v})", v.dtype) if wrap_negative else v
        mask = self._mask_for(S.sym("t"))
        if check:
            self.emit(f"th.assert_in_bounds({ind}, {size}, {mask or 'True'})")
        return S.sym(ind.name)

    def where(self, c, a, b):
        return self.cse(f"tl.where({c}, {a}, {b})", a.dtype)

    def neg(self, a):
        return self.cse(f"(-{a})", a.dtype)

    def abs(self, a):
        return self.cse(f"tl.abs({a})", a.dtype)

    def sign(self, a):
        z = _const(0, a.dtype)
        one = _const(1, a.dtype)
        return self.cse(f"(tl.where({a} > {z}, {one}, {z}) - tl.where({a} < {z}, {one}, {z}))", a.dtype)

    def logical_not(self, a):
        return self.cse(f"({a} == 0)", torch.bool)

    def bitwise_not(self, a):
        if a.dtype == torch.bool:
            return self.logical_not(a)
        return self.cse(f"(~{a})", a.dtype)

    def _logical(self, op, a, b):
        return self.cse(f"({self.to_dtype(a, torch.bool)} {op} {self.to_dtype(b, torch.bool)})", torch.bool)

    def logical_and(self, a, b):
        return self._logical("&", a, b)

    def logical_or(self, a, b):
        return self._logical("|", a, b)

    def logical_xor(self, a, b):
        return self._logical("^", a, b)

    def maximum(self, a, b):
        if a.dtype.is_floating_point:
            return self.cse(f"th.maximum_nan({a}, {b})", a.dtype)
        return self.cse(f"tl.maximum({a}, {b})", a.dtype)

    def minimum(self, a, b):
        if a.dtype.is_floating_point:
            return self.cse(f"th.minimum_nan({a}, {b})", a.dtype)
        return self.cse(f"tl.minimum({a}, {b})", a.dtype)

    def polygamma(self, n, a):
        scale = (1.0 if n % 2 else -1.0) * math.factorial(n)   # (-1)^(n+1) n!
        return self.cse(f"th.polygamma({a}, {int(n)}, {scale!r})", a.dtype)

    def floordiv(self, a, b):
        return self.cse(f"th.floordiv_int({a}, {b})", a.dtype)

    def remainder(self, a, b):
        fn = "th.remainder_float" if a.dtype.is_floating_point else "th.remainder_int"
        return self.cse(f"{fn}({a}, {b})", a.dtype)

    def fmod(self, a, b):
        if a.dtype.is_floating_point:
            return self.cse(f"th.fmod({a}, {b})", a.dtype)
        return self.cse(f"({a} % {b})", a.dtype)

    def __getattr__(self, name):
        if name in UNARY_FLOAT:
            fmt = UNARY_FLOAT[name]
            out_bool = name in ("isinf", "isnan", "signbit")
            return lambda a: self.cse(fmt.format(a), torch.bool if out_bool else a.dtype)
        if name in BINARY_SAME:
            fmt = BINARY_SAME[name]
            return lambda a, b: self.cse(fmt.format(a, b), a.dtype)
        if name in COMPARE:
            op = COMPARE[name]
            return lambda a, b: self.cse(f"({a} {op} {b})", torch.bool)
        if name in RANDOM:
            fmt, dt = RANDOM[name]
            return lambda seed, offset: self.cse(fmt.format(seed, offset), dt)
        raise AttributeError(name)

    # -- nodes -----------------------------------------------------------------------
    def node_value(self, node):
        idx = self._node_idx(node)
        return node.run_body(idx)

    def store(self, node, value):
        buf = node.buffer
        if self.tile:
            store_index = S.with_bounds(node.store_index(self._node_idx(node)), self.bounds)
        else:
            _, store_index = accesses(node, self.space, self.first_reduction)
        ptr = self.arg(ir.storage_name(buf), "out")   # an in-place write: its target's memory
        mask = self._mask_for(store_index) or "xmask"
        idx = S.texpr(store_index)
        names = S.free_names(store_index)
        if (not {"y", "xx"} <= names) if self.tile else ("x" not in names):
            idx = f"{idx} + 0 * x"   # a single element: give the pointer the block's shape
        self.emit(f"tl.store({ptr} + {idx}, {value}.to({TL[buf.dtype]}), {mask})")

    # -- generation ------------------------------------------------------------------
    def codegen(self):
        self.indent = 1
        with use(self):
            if self.scatter:
                self._scatter()
            elif self.reduction:
                self._reduction()
            else:
                self._pointwise()
        return self._render()

    def _header_x(self, shape):
        if self.table_part:   # ForeachKernel's header defines x and xmask from its tables
            return
        pid = "tl.program_id(0).to(tl.int64)" if self.int64 else "tl.program_id(0)"
        if self.pid_base is not None:   # a sub-kernel of a combo kernel: its own program range
            pid = f"({pid} - {self.pid_base})"
        self.emit(f"xoffset = {pid} * XBLOCK")
        self.emit(f"x = xoffset + tl.arange(0, XBLOCK){shape}")
        self.emit(f"xmask = x < {self.xnumel}")

    def _pointwise(self):
        if self.tile:
            yn, xn = self.tile
            pid = "tl.program_id(0).to(tl.int64)" if self.int64 else "tl.program_id(0)"
            self.emit(f"pid = {pid}")
            self.emit(f"xtiles = ({xn} + XBLOCK - 1) // XBLOCK")
            self.emit("xx = (pid % xtiles) * XBLOCK + tl.arange(0, XBLOCK)[None, :]")
            self.emit("y = (pid // xtiles) * YBLOCK + tl.arange(0, YBLOCK)[:, None]")
            self.emit(f"xmask = (xx < {xn}) & (y < {yn})")
            self.emit(f"x = y * {xn} + xx")
        else:
            self._header_x("")
        for n in self.group.nodes:
            if n.buffer.name in self.internal:
                continue
            v = self.values.get(n.buffer.name) or self.node_value(n)
            self.values[n.buffer.name] = v
            self.store(n, v)

    def _scatter(self):
        node = self.group.nodes[0]
        self.xnumel = node.numel
        self._header_x("")
        idx = S.unflatten(X, node.ranges)
        where = S.with_bounds(node.index_fn(idx), {"x": self.xnumel - 1})
        value = node.value_fn(idx)
        ptr = self.arg(node.buffer.name, "inout")
        where_src = S.texpr(where) if "x" in S.free_names(where) else f"{S.texpr(where)} + 0 * x"
        if node.mode and node.buffer.dtype == torch.bool:   # no byte atomics: an or (and) as stores
            keep = self.cse(f"({value} {'==' if node.mode == 'atomic_min' else '!='} 0)", torch.bool)
            self.emit(f"tl.store({ptr} + {where_src}, tl.full([XBLOCK], {int(node.mode != 'atomic_min')}, tl.int1), xmask & {keep})")
        elif node.mode:   # atomic_add, atomic_max, atomic_min
            self.emit(f"tl.{node.mode}({ptr} + {where_src}, {value}.to({TL[node.buffer.dtype]}), xmask, sem='relaxed')")
        else:
            self.emit(f"tl.store({ptr} + {where_src}, {value}.to({TL[node.buffer.dtype]}), xmask)")

    def _phases(self):
        ph = {}
        for n in self.group.nodes:
            p = 0
            reads, _ = accesses(n, self.space, self.first_reduction)
            for name, _i in reads:
                m = self.produced.get(name)
                if m is None or m is n:
                    continue
                p = max(p, ph[m.name] + (1 if m.kind == "reduction" else 0))
            ph[n.name] = p
        return ph

    def _reduction(self):
        self._header_x("[:, None]")
        self.emit("rbase = tl.arange(0, RBLOCK)[None, :]")
        if not self.dual:
            self._reduction_body()
            return
        saved = (dict(self.cache), dict(self.values))
        self.emit(f"if {self.rnumel} <= RBLOCK:")
        self.indent += 1
        self._reduction_body()
        self.indent -= 1
        self.emit("else:")
        self.indent += 1
        self.persistent = False
        (self.cache, self.values), self.red_result, self.in_epilogue = saved, {}, False
        try:
            self._reduction_body()
        finally:
            self.persistent = True
            self.indent -= 1

    def _reduction_body(self):
        """The reduction's loops (none when persistent) and its epilogue's stores."""
        ph = self._phases()
        loop_nodes = [n for n in self.group.nodes if not is_rowwise(n, self.space)]
        nloops = max((ph[n.name] for n in loop_nodes), default=0) + 1
        # One pass over r reads each input element once: its loads need not stay in L2
        # (evict_first), leaving L2 to what is reused. Several phases re-read their inputs,
        # persistent ones too (H100: x.sum(1) 0.056 -> 0.050 ms; a persistent LayerNorm with
        # evict_first on its two phases 0.095 -> 0.106 ms)
        self.streaming = nloops == 1
        if self.persistent:
            self.emit(f"r = rbase\nrmask = r < {self.rnumel}".replace("\n", "\n" + "    " * self.indent))
        for k in range(nloops):
            nodes = [n for n in loop_nodes if ph[n.name] == k]
            reds = [n for n in nodes if n.kind == "reduction"]
            for n in reds:
                self._acc_init(n)
            if not self.persistent:
                self.emit(f"for roffset in range(0, {self.rnumel}, RBLOCK):")
                self.indent += 1
                self.emit("r = roffset + rbase")
                self.emit(f"rmask = r < {self.rnumel}")
                self.cache, self.values = {}, {}
            for n in nodes:
                if n.kind == "reduction":
                    self._acc_update(n, self.node_value(n))
                elif n.buffer.name not in self.internal:
                    v = self.values.get(n.buffer.name) or self.node_value(n)
                    self.values[n.buffer.name] = v
                    self.store(n, v)
            if not self.persistent:
                self.indent -= 1
                self.cache, self.values = {}, {}
            for n in reds:
                self._acc_final(n)
        self.in_epilogue = True
        self.cache, self.values = {}, {}
        for n in self.group.nodes:
            if n.buffer.name in self.internal:
                continue
            if n.kind == "reduction":
                self.store(n, self.red_result[n.buffer.name])
            elif is_rowwise(n, self.space):
                self.store(n, self.node_value(n))

    # reductions: accumulators are [XBLOCK, RBLOCK] tiles combined lane-wise, then reduced
    def _ident(self, n):
        return ir.reduction_identity(n.reduction_type, compute_dtype(n.src_dtype))

    def _acc_dtype(self, n):
        if n.reduction_type in ("any", "all"):
            return torch.int32
        dt = compute_dtype(n.src_dtype)
        return torch.int32 if dt == torch.bool else dt

    def _lname(self, n):
        return self._local.setdefault(n.name, f"red{len(self._local)}")

    def _acc_init(self, n):
        a = f"acc_{self._lname(n)}"
        dt = self._acc_dtype(n)
        self.emit(f"{a} = tl.full([XBLOCK, RBLOCK], {_const(self._ident(n), dt).split(', ')[1]}, {TL[dt]})")
        if n.reduction_type in ("argmax", "argmin"):
            self.emit(f"{a}_i = tl.full([XBLOCK, RBLOCK], {2**62}, tl.int64)")

    def _acc_update(self, n, v):
        a, t = f"acc_{self._lname(n)}", n.reduction_type
        dt = self._acc_dtype(n)
        m = "xmask & rmask"
        v = f"tl.broadcast_to({v}.to({TL[dt]}), [XBLOCK, RBLOCK])"
        if t == "sum":
            self.emit(f"{a} = {a} + tl.where({m}, {v}, 0)")
        elif t == "prod":
            self.emit(f"{a} = {a} * tl.where({m}, {v}, 1)")
        elif t in ("max", "min"):
            fn = ("th.maximum_nan" if t == "max" else "th.minimum_nan") if dt.is_floating_point else \
                ("tl.maximum" if t == "max" else "tl.minimum")
            self.emit(f"{a} = tl.where({m}, {fn}({a}, {v}), {a})")
        elif t in ("any", "all"):
            fn = "tl.maximum" if t == "any" else "tl.minimum"
            self.emit(f"{a} = tl.where({m}, {fn}({a}, ({v} != 0).to(tl.int32)), {a})")
        else:
            cmp = ">" if t == "argmax" else "<"
            ln = self._lname(n)
            self.emit(f"v_{ln} = {v}")
            nan = f" | ((v_{ln} != v_{ln}) & ({a} == {a}))" if dt.is_floating_point else ""
            self.emit(f"better_{ln} = {m} & (({a}_i == {2**62}) | (v_{ln} {cmp} {a}){nan})")
            self.emit(f"{a}_i = tl.where(better_{ln}, tl.broadcast_to(r.to(tl.int64), [XBLOCK, RBLOCK]), {a}_i)")
            self.emit(f"{a} = tl.where(better_{ln}, v_{ln}, {a})")

    def _acc_final(self, n):
        a, t = f"acc_{self._lname(n)}", n.reduction_type
        dt = self._acc_dtype(n)
        res = f"res_{self._lname(n)}"
        fl = dt.is_floating_point
        if t == "sum":
            self.emit(f"{res} = tl.sum({a}, 1)[:, None]")
        elif t == "prod":
            self.emit(f"{res} = th.prod({a}, 1)[:, None]")
        elif t in ("max", "argmax"):
            self.emit(f"{res} = {'th.max_nan' if fl else 'tl.max'}({a}, 1)[:, None]")
        elif t in ("min", "argmin"):
            self.emit(f"{res} = {'th.min_nan' if fl else 'tl.min'}({a}, 1)[:, None]")
        elif t == "any":
            self.emit(f"{res} = tl.max({a}, 1)[:, None] != 0")
        elif t == "all":
            self.emit(f"{res} = tl.min({a}, 1)[:, None] != 0")
        out_dtype = n.buffer.dtype
        if t in ("argmax", "argmin"):
            nan = f" | (({a} != {a}) & ({res} != {res}))" if fl else ""
            self.emit(f"{res}_i = tl.min(tl.where(({a} == {res}){nan}, {a}_i, {2**62}), 1)[:, None]")
            res = f"{res}_i"
        self.red_result[n.buffer.name] = CSEVar(res, out_dtype if t not in ("any", "all") else torch.bool)
        if t not in ("argmax", "argmin", "any", "all") and compute_dtype(out_dtype) != dt:
            self.red_result[n.buffer.name] = CSEVar(f"{res}.to({TL[compute_dtype(out_dtype)]})", out_dtype)

    def _render(self):
        params = list(self.args.values())
        consts = ["XBLOCK: tl.constexpr"] + (["RBLOCK: tl.constexpr"] if self.rloop else []) + \
            (["YBLOCK: tl.constexpr"] if self.tile else [])
        deco = "@triton.jit(debug=True)" if self.indirect and not _interpret() else "@triton.jit"
        head = [deco, f"def {self.name}({', '.join(params + consts)}):"]
        return "\n".join(head + self.lines) + "\n"

    # -- metadata --------------------------------------------------------------------
    @property
    def kind(self) -> str:
        """The kernel kind the launcher and the kernel-config point know it by."""
        if self.scatter:
            return "scatter"
        if self.reduction:
            return "persistent_reduction" if self.persistent else "reduction"
        return "pointwise_tiled" if self.tile else "pointwise"

    def arg_dtypes(self) -> tuple[str, ...]:
        """The pointer arguments' dtypes, in argument order ("" where unknown)."""
        bufs = self.sched.graph.buffers
        return tuple(str(bufs[n].dtype).replace("torch.", "") if n in bufs else "" for n in self.args)

    def meta(self, source: str, bucketed: bool = False) -> KernelMeta:
        """What the launcher and the kernel-config point need (after codegen: a scatter's
        extent is set there); a tiled kernel's launch extents are its tile's (XN, YN)."""
        tile = self.tile
        return KernelMeta(self.kind, source, xnumel=tile[1] if tile else self.xnumel,
                          ynumel=tile[0] if tile else None,
                          rnumel=self.rnumel if self.reduction else None, outer=self.outer,
                          dtypes=self.arg_dtypes(), bucketed=bucketed)


def _interpret():
    return os.environ.get("TRITON_INTERPRET", "0") == "1"
