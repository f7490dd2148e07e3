"""Scans: cumsum, cumprod, logcumsumexp, cummax and cummin (values and int64 indices) along any
dim, as `ir.Scan` nodes (one row per element of the other dims; compiler/codegen/scan.py emits
them). The input's lazy producer is inlined into the scan's loads, so a pointwise producer costs
no kernel of its own. A 0-d input or a dim of length 1 is the input itself (cast; indices 0);
an input without elements is an empty result."""
from __future__ import annotations

import math
import operator

import torch

from .. import ir
from .. import sym as S
from ..lowering import full_value, graph, make_pointwise, register
from ..ops import ops
from ..torch_compat import aten


def _compute(dtype):
    """The dtype a scan runs in: fp32 for 16-bit floats, int32 for small integers and bools
    (exact, and no lane type narrower than Triton's int32 reductions), else the dtype."""
    if dtype in (torch.float16, torch.bfloat16):
        return torch.float32
    if dtype == torch.bool or (not dtype.is_floating_point and dtype.itemsize < 4):
        return torch.int32
    return dtype


def _accumulated(x, dtype):
    """cumsum/cumprod's result dtype: `dtype` when given, else int64 for integer and bool
    inputs (as ATen), else the input's."""
    if dtype is not None:
        return dtype
    return x.dtype if x.dtype.is_floating_point else torch.int64


def _strides(size, k=None):
    """Dense strides for an output of `size` in the memory order of eager's result (the FX
    node's value, its k-th for a tuple), so it leaves the graph without a copy; contiguous
    when that value is unknown."""
    node = graph().current
    val = node.meta.get("val") if node is not None else None
    if k is not None and isinstance(val, (tuple, list)):
        val = val[k]
    if isinstance(val, torch.Tensor) and graph().shape(val) == tuple(size):
        return S.dense_strides_in_order(size, ir.memory_order(size, graph().stride(val)))
    return S.contiguous_strides(size)


def _used(k) -> bool:
    """Whether the k-th result of the current op (cummax's values 0, indices 1) is read."""
    node = graph().current
    if node is None:
        return True
    return any(u.target is not operator.getitem or u.args[1] == k for u in node.users)


def scan(x, dim, scan_type, out_dtype, *, cast=None, src=None, index=False, pair=None, k=None):
    """A realized scan of x along dim, as a View of its output buffer (x's shape, out_dtype).
    cast: the dtype x is converted to first (cumsum's dtype argument: ATen casts the input);
    src: the dtype the scan runs in (default `_compute` of x's or cast's); index: the running
    max's/min's position; pair: the token cummax's two nodes share; k: which result of the op
    this is (its layout)."""
    size = tuple(x.size)
    n = len(size)
    dim = dim + n if dim < 0 else dim
    src = src or _compute(cast or x.dtype)
    keep = [i for i in range(n) if i != dim]
    inner = x.loader()

    def full_index(idx, ridx):
        return list(idx[:dim]) + [ridx[0]] + list(idx[dim:])

    def body(idx, ridx):
        v = inner(full_index(idx, ridx))
        if cast is not None and cast != x.dtype:
            v = ops.to_dtype(v, cast)
        if src != (cast or x.dtype):
            v = ops.to_dtype(v, src)
        return v

    g = graph()
    buf = g.new_buffer(out_dtype, x.device, size, _strides(size, k))
    g.add_node(ir.Scan(g.node_name(), buf, tuple(size[i] for i in keep), size[dim], scan_type,
                       body, src, size, full_index, index=index, pair=pair))
    return ir.View(buf, buf.size, buf.stride, 0)


def _trivial(x, dim, out_dtype, index=False):
    """The scan of a 0-d input or along a dim of length 1 or 0 (None when it needs a kernel):
    the input cast to out_dtype (positions: 0)."""
    size = tuple(x.size)
    if size and size[dim] > 1 and math.prod(size) > 0:
        return None
    if index or math.prod(size) == 0:
        return full_value(size, 0, out_dtype, x.device)
    return make_pointwise(lambda v: v, [x], out_dtype)


def _check_dim(x, dim):
    n = max(len(x.size), 1)
    if not -n <= dim < n:
        raise IndexError(f"dim {dim} out of range for a {len(x.size)}-d tensor")


def _accumulate(scan_type):
    def lower(x, dim, dtype=None):
        _check_dim(x, dim)
        out = _accumulated(x, dtype)
        triv = _trivial(x, dim, out)
        if triv is not None:
            return triv
        # integers accumulate in int64: a narrower dtype= result wraps as ATen's does
        return scan(x, dim, scan_type, out, cast=out,
                    src=None if out.is_floating_point else torch.int64)
    return lower


register(aten.cumsum.default, aten.cumsum)(_accumulate("sum"))
register(aten.cumprod.default, aten.cumprod)(_accumulate("prod"))


@register(aten.logcumsumexp.default, aten.logcumsumexp)
def logcumsumexp(x, dim):
    _check_dim(x, dim)
    if not x.dtype.is_floating_point:
        raise NotImplementedError("logcumsumexp of an integer tensor")   # ATen refuses it too
    triv = _trivial(x, dim, x.dtype)
    return triv if triv is not None else scan(x, dim, "logsumexp", x.dtype)


def _extremum(scan_type):
    def lower(x, dim):
        _check_dim(x, dim)
        triv = _trivial(x, dim, x.dtype)
        if triv is not None:
            return triv, _trivial(x, dim, torch.int64, index=True)
        pair = f"pair_{graph().node_name()}"   # one scan for both results in a kernel with both
        values = scan(x, dim, scan_type, x.dtype, pair=pair, k=0) if _used(0) else None
        indices = scan(x, dim, scan_type, torch.int64, index=True, pair=pair, k=1) if _used(1) else None
        return values, indices
    return lower


register(aten.cummax.default, aten.cummax)(_extremum("max"))
register(aten.cummin.default, aten.cummin)(_extremum("min"))
