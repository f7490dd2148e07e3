"""sort (argsort, msort) by rank counting, and searchsorted/bucketize by counting.

sort: element i of a row goes to position rank(i) = the count of the row's elements that sort
strictly before it, plus the equal ones (NaNs alike) before it in the row: a stable order with
NaNs last (first when descending), as eager's. The ranks are one counting reduction over the
row's pairs; the values and their indices are then stored at their ranks by a scatter, each
position written once (the ranks are a permutation: no race on a GPU). That reads each row n
times: rows longer than MAX_ROW, or more than MAX_WORK pairs in all, stay ATen calls.

searchsorted/bucketize: the insertion point of v in a sorted row is the count of the row's
boundaries b with !(b >= v) (left) or !(b > v) (right), the predicates of eager's binary
search; on a sorted row (NaNs last) both give the same answer. With a sorter, b is read
through it."""
from __future__ import annotations

import math

import torch

from .. import ir
from .. import sym as S
from ..lowering import fallback, graph, register
from ..ops import ops
from ..sizes import SymSize
from ..torch_compat import aten
from .reductions import reduce
from .scans import _strides, _used

MAX_ROW = 8192
MAX_WORK = 1 << 26


def _before(a, b, floating, descending):
    """a sorts strictly before b: smaller (larger when descending); a number before a NaN
    (after it when descending)."""
    if descending:
        first = ops.gt(a, b)
        if floating:
            first = ops.logical_or(first, ops.logical_and(ops.isnan(a), ops.logical_not(ops.isnan(b))))
    else:
        first = ops.lt(a, b)
        if floating:
            first = ops.logical_or(first, ops.logical_and(ops.isnan(b), ops.logical_not(ops.isnan(a))))
    return first


def _same(a, b, floating):
    if not floating:
        return ops.eq(a, b)
    return ops.logical_or(ops.eq(a, b), ops.logical_and(ops.isnan(a), ops.isnan(b)))


def _fresh(size, dtype, device, k):
    """A zero-filled buffer of `size` in the layout of the op's k-th result, for a scatter."""
    lazy = ir.Lazy(tuple(size), dtype, device, lambda idx: ops.constant(0, dtype))
    return graph().realize(lazy, force=True, stride=_strides(size, k))


def _sort(x, dim, descending):
    """(values, int64 indices) of x (at least 1-d, static sizes) sorted stably along dim."""
    size = tuple(x.size)
    n = len(size)
    m = size[dim]
    rest = size[:dim] + size[dim + 1:]
    nr = len(rest)
    xl = x.loader()
    floating = x.dtype.is_floating_point
    cmp_dtype = torch.int32 if x.dtype == torch.bool else x.dtype

    def at(idx_rest, i):
        v = xl(list(idx_rest[:dim]) + [i] + list(idx_rest[dim:]))
        return ops.to_dtype(v, cmp_dtype) if cmp_dtype != x.dtype else v

    def ahead(idx):   # (row..., i, j): element j sorts before element i
        i, j = idx[nr], idx[nr + 1]
        xi, xj = at(idx[:nr], i), at(idx[:nr], j)
        earlier = ops.lt(ops.index_expr(j, torch.int64), ops.index_expr(i, torch.int64))
        hit = ops.logical_or(_before(xj, xi, floating, descending),
                             ops.logical_and(earlier, _same(xj, xi, floating)))
        return ops.to_dtype(hit, torch.int64)
    rank = reduce(ir.Lazy(rest + (m, m), torch.int64, x.device, ahead), [nr + 1], False, "sum",
                  torch.int64)
    rl = rank.loader()

    def where_fn(out):
        def where(idx):   # idx: x's index; the element goes to its rank along dim
            r = list(idx[:dim]) + list(idx[dim + 1:]) + [idx[dim]]
            tgt = list(idx)
            tgt[dim] = ops.indirect_indexing(rl(r), m, check=False, wrap_negative=False)
            return S.linear(tgt, out.stride, out.offset)
        return where
    values = indices = None   # (a result nobody reads is not stored: argsort's values)
    if _used(0):
        values = _fresh(size, x.dtype, x.device, 0)
        graph().scatter_into(values, size, where_fn(values), lambda idx: xl(list(idx)), None)
    if _used(1):
        indices = _fresh(size, torch.int64, x.device, 1)
        graph().scatter_into(indices, size, where_fn(indices),
                             lambda idx: ops.index_expr(idx[dim], torch.int64), None)
    return values, indices


def _sort_or_none(x, dim, descending):
    """The sort when a kernel does it (None: the caller keeps the ATen call); a 0-d input or
    a row of one element is x itself with indices 0."""
    n = max(len(x.size), 1)
    if not -n <= dim < n or x.dtype.is_complex:
        return None
    d = dim + n if dim < 0 else dim
    size = tuple(x.size)
    if not size or size[d] <= 1 or math.prod(size) == 0:
        xl = x.loader()
        return (ir.Lazy(size, x.dtype, x.device, lambda idx: xl(list(idx))),
                ir.Lazy(size, torch.int64, x.device, lambda idx: ops.constant(0, torch.int64)))
    if size[d] > MAX_ROW or x.numel * size[d] > MAX_WORK:   # (symbolic sizes: guarded)
        return None
    return _sort(x, d, descending)


@register(aten.sort.default, aten.sort)
def sort(x, dim=-1, descending=False):
    out = _sort_or_none(x, dim, descending)
    return out if out is not None else fallback(aten.sort.default, (x, dim, descending))


@register(aten.topk.default, aten.topk)
def topk(x, k, dim=-1, largest=True, sorted=True):
    """The first k of a stable sort, descending when `largest` (NaN sorts as the largest, as
    eager's topk takes it); rows the sort leaves to ATen keep ATen's topk, and so does
    sorted=False (eager's order of the k is its own)."""
    out = _sort_or_none(x, dim, largest) if isinstance(k, (int, SymSize)) and sorted else None
    if out is None:
        return fallback(aten.topk.default, (x, k, dim, largest, sorted))
    if not x.size:
        return out
    from .views import slice_
    d = dim + len(x.size) if dim < 0 else dim
    return tuple(None if t is None else slice_(t, d, 0, k) for t in out)


@register(aten.sort.stable)
def sort_stable(x, *, stable=None, dim=-1, descending=False):
    """Both orders are stable here (eager's unstable sort may order ties otherwise)."""
    out = _sort_or_none(x, dim, descending)
    if out is not None:
        return out
    return fallback(aten.sort.stable, (x,), {"stable": stable, "dim": dim, "descending": descending})


def _search(boundaries, values, out_int32, right, sorter):
    """searchsorted's positions: boundaries 1-d (shared by every value) or of values' leading
    dims (one row per row of values)."""
    bl, vl = boundaries.loader(), values.loader()
    sl = sorter.loader() if sorter is not None else None
    nb = len(boundaries.size)
    m = boundaries.size[-1]
    size = tuple(values.size)
    nv = len(size)
    common = torch.promote_types(boundaries.dtype, values.dtype)

    def below(idx):   # (values' index..., j): boundary j lies before value idx
        vidx, j = list(idx[:nv]), idx[nv]
        row = vidx[:-1] if nb > 1 else []
        if sl is not None:
            j = ops.indirect_indexing(sl(row + [j]), m, wrap_negative=False)
        b = ops.to_dtype(bl(row + [j]), common)
        v = ops.to_dtype(vl(vidx) if nv else vl([]), common)
        past = ops.gt(b, v) if right else ops.ge(b, v)
        return ops.to_dtype(ops.logical_not(past), torch.int64)
    out = torch.int32 if out_int32 else torch.int64
    if m == 0:
        return ir.Lazy(size, out, values.device, lambda idx: ops.constant(0, out))
    count = reduce(ir.Lazy(size + (m,), torch.int64, values.device, below), [nv], False, "sum",
                   torch.int64)
    if not out_int32:
        return count
    cl = count.loader()
    return ir.Lazy(size, out, values.device, lambda idx: ops.to_dtype(cl(list(idx)), out))


def _searchable(boundaries, values):
    if any(v.dtype.is_complex or v.dtype == torch.bool for v in (boundaries, values)):
        return False
    if not boundaries.size:
        return False
    if len(boundaries.size) > 1 and tuple(boundaries.size[:-1]) != tuple(values.size[:-1]):
        return False   # (eager's error)
    return values.numel * boundaries.size[-1] <= MAX_WORK   # (symbolic sizes: guarded)


@register(aten.searchsorted.Tensor)
def searchsorted(boundaries, values, *, out_int32=False, right=False, side=None, sorter=None):
    if side is not None and (side not in ("left", "right") or (right and side == "left")):
        return fallback(aten.searchsorted.Tensor, (boundaries, values),
                        {"out_int32": out_int32, "right": right, "side": side, "sorter": sorter})
    r = right or side == "right"
    if not _searchable(boundaries, values):
        return fallback(aten.searchsorted.Tensor, (boundaries, values),
                        {"out_int32": out_int32, "right": right, "side": side, "sorter": sorter})
    return _search(boundaries, values, out_int32, r, sorter)


@register(aten.bucketize.Tensor)
def bucketize(values, boundaries, *, out_int32=False, right=False):
    """bucketize's right is searchsorted's right (boundaries 1-d)."""
    if len(boundaries.size) != 1 or not _searchable(boundaries, values):
        return fallback(aten.bucketize.Tensor, (values, boundaries),
                        {"out_int32": out_int32, "right": right})
    return _search(boundaries, values, out_int32, right, None)
