"""Tables of FX targets the graph lowering and its passes classify ops by: reductions, views,
ops that read only sizes, lowered ops that call ATen, the dtypes generated kernels hold, size
arithmetic on plain ints; and `view_base`, the node a view op aliases."""
from __future__ import annotations

import math
import operator

import sympy
import torch
import torch.fx

from .size_exprs import rounded
from .sizes import SymFloat, SymSize, sym_float

# FX targets a lazy value's consumer chain may pass through or end in (recompute.py,
# `_consumers`): reductions read each element of their input once per output row; a pad or a
# cat reads each element of an input at most once (a chain member, though its output is
# larger); views change the index only.
_aten, _prims = torch.ops.aten, torch.ops.prims
REDUCTIONS = frozenset({
    _aten.sum.dim_IntList, _aten.sum.default, _aten.mean.dim, _aten.mean.default,
    _aten.amax.default, _aten.amin.default, _aten.prod.default, _aten.prod.dim_int,
    _aten.var.correction, _aten.var.dim, _aten.var_mean.correction, _prims.sum.default,
    _prims.var.default, _prims.amax.default, _prims.amin.default,
    _aten.any.dim, _aten.any.default, _aten.all.dim, _aten.all.default})
INDEXED_ONCE = frozenset({_aten.constant_pad_nd.default, _aten.cat.default})
# gathers: each output element reads one element of the input (the lowering loads it through
# an indirect index), so a value inlined into one is computed once per output element
GATHERS = frozenset({_aten.gather.default, _aten.index_select.default, _aten.index.Tensor})
SHAPE_ONLY = frozenset({_aten.full_like.default, _aten.zeros_like.default,
                        _aten.ones_like.default, _aten.empty_like.default,
                        _aten.sym_size.int, _aten.sym_size.default, _aten.sym_stride.int,
                        _aten.sym_stride.default, _aten.sym_numel.default,
                        _aten.sym_storage_offset.default})
# lowered ops that call ATen on their stored inputs (a convolution's input is stored)
ATEN_CALLS = frozenset({_aten.mm.default, _aten.bmm.default, _aten.addmm.default,
                        _aten.convolution.default})
VIEWS = frozenset({
    _aten.view.default, _aten._unsafe_view.default, _aten.reshape.default,
    _aten.permute.default, _aten.transpose.int, _aten.t.default, _aten.unsqueeze.default,
    _aten.squeeze.dim, _aten.squeeze.dims, _aten.squeeze.default, _aten.expand.default,
    _aten.slice.Tensor, _aten.select.int, _aten.alias.default, _aten.detach.default,
    _prims.squeeze.default})
# every lowered op that only views its input (lowerings/views.py): it launches nothing, and
# writing through it writes the input; a split's or unbind's items come through getitem
VIEW_LOWERINGS = VIEWS | frozenset({
    torch.ops.prims.squeeze.default, torch.ops.prims.transpose.default,
    torch.ops.prims.broadcast_in_dim.default, torch.ops.prims.reshape.default,
    _aten.view.dtype, _aten.as_strided.default, _aten.diagonal.default, _aten.split.Tensor,
    _aten.split_with_sizes.default, _aten.unbind.int})


def view_base(node):
    """The FX node a view op's output aliases (its self argument), else None."""
    t = node.target
    if node.op != "call_function" or not node.args:
        return None
    if t is operator.getitem:
        return node.args[0] if isinstance(node.args[0], torch.fx.Node) else None
    if isinstance(t, torch._ops.OpOverload) and t._schema.returns:
        alias = t._schema.returns[0].alias_info
        if alias is not None and not alias.is_write and isinstance(node.args[0], torch.fx.Node):
            return node.args[0]
    return None


# the dtypes of 0-d constants inlined into kernels, and of every tensor an op lowered to our IR
# may read or return (complex ones run in ATen)
INLINE_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                 torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool)
# dtypes a scatter cannot accumulate into by atomics (none on bytes or halfwords on a GPU; bool
# sums, maxima and minima are stores: codegen/triton.py): ATen runs those ops
NO_ATOMICS = (torch.int16, torch.int8, torch.uint8)
# dtypes Triton adds into atomically but has no atomic max or min for (scatter_reduce's and
# index_reduce's amax/amin on them would fail to compile: ATen runs those ops)
NO_MINMAX_ATOMICS = (torch.float16, torch.bfloat16)


def _sym_size(x, dim=None):
    return tuple(x.size) if dim is None else x.size[dim]


def _sym_stride(x, dim=None):
    return tuple(x.stride) if dim is None else x.stride[dim]


# Size arithmetic that a graph may carry on plain Python ints (every size is concrete here).
PYTHON_SCALAR_FNS = {
    operator.add: operator.add, operator.sub: operator.sub, operator.mul: operator.mul,
    operator.floordiv: operator.floordiv, operator.truediv: operator.truediv,
    operator.mod: operator.mod, operator.neg: operator.neg, operator.pow: operator.pow,
    abs: abs, operator.abs: abs,
    operator.eq: operator.eq, operator.ne: operator.ne, operator.lt: operator.lt,
    operator.le: operator.le, operator.gt: operator.gt, operator.ge: operator.ge,
    torch.ops.aten.sym_size.int: _sym_size, torch.ops.aten.sym_size.default: _sym_size,
    torch.ops.aten.sym_stride.int: _sym_stride, torch.ops.aten.sym_stride.default: _sym_stride,
    torch.ops.aten.sym_numel.default: lambda x: x.numel,
    torch.ops.aten.sym_storage_offset.default: lambda x: x.offset,
}
for _name in ("sym_not", "sym_ite"):   # (sym_min/max, sym_int and sym_sqrt: ours, below)
    _fn = getattr(torch, _name, None)
    if _fn is not None:
        PYTHON_SCALAR_FNS[_fn] = _fn


def _sym_minmax(fn, kind):
    """torch.sym_min / sym_max with our sizes: the Min/Max of their expressions, which `wrap`
    folds where the ranges (or, guarded, the hints) order them (as_strided's backward takes
    sym_min(0, offset)); torch's own function knows only its SymInts and raised on ours."""
    def minmax(a, b):
        s = next((v for v in (a, b) if isinstance(v, SymSize)), None)
        if s is None or not all(isinstance(v, int) or type(v) is SymSize for v in (a, b)):
            return fn(a, b)
        e = [v.expr if isinstance(v, SymSize) else sympy.Integer(v) for v in (a, b)]
        return s.sv.wrap((sympy.Min if kind == "min" else sympy.Max)(*e))
    return minmax


for _name in ("min", "max"):
    _fn = getattr(torch, f"sym_{_name}", None)
    if _fn is not None:
        PYTHON_SCALAR_FNS[_fn] = _sym_minmax(_fn, _name)

if hasattr(torch, "sym_float"):   # float(size): a symbolic size stays symbolic (SymFloat)
    PYTHON_SCALAR_FNS[torch.sym_float] = sym_float


def _rounded(kind):
    """math.floor / ceil / trunc of a graph's value: of a float of sizes, size_exprs.rounded
    (Unsupported where it cannot keep it: the graph compiles per shape)."""
    def round_(x):
        if not isinstance(x, SymFloat):
            return x if isinstance(x, SymSize) else getattr(math, kind)(x)
        return x.sv.wrap(rounded(kind, x.expr, x.sv))
    return round_


for _name in ("floor", "ceil", "trunc"):   # (interpolate's output size: trunc(s * 0.5))
    PYTHON_SCALAR_FNS[getattr(math, _name)] = _rounded(_name)
if hasattr(torch, "sym_int"):   # int() of a float: toward zero
    PYTHON_SCALAR_FNS[torch.sym_int] = _rounded("trunc")
for _fn in (getattr(torch, "sym_sqrt", None), getattr(torch, "_sym_sqrt", None), math.sqrt):
    if _fn is not None:   # (SDPA's scale, 1 / sqrt(head size): a SymFloat of a size)
        PYTHON_SCALAR_FNS[_fn] = lambda a: sym_float(a) ** 0.5 if isinstance(a, SymSize) else math.sqrt(a)

if hasattr(torch, "sym_sum"):   # a sum of sizes (dynamo writes a KV cache's length so)
    PYTHON_SCALAR_FNS[torch.sym_sum] = lambda xs: sum(xs[1:], xs[0]) if xs else 0
