"""Order statistics without a sort: kthvalue, median and nanmedian as ranks. Within a row, element i
is the k-th smallest when fewer than k elements sort before it and at least k sort before it
or equal it (NaN sorting last, as eager's); the ranks are two counting reductions over the
row's pairs, the pick a max (its value) and a min (the first such index) over the row. Among
equal values (NaNs too) eager's quickselect returns some index of the value, not always the
first: the values agree, such an index may not. That reads each row n times: rows longer than MAX_ROW, or more than MAX_WORK pairs in all, stay
ATen calls."""
from __future__ import annotations

import torch

from .. import ir
from ..lowering import fallback, register
from ..ops import ops
from ..torch_compat import aten
from .reductions import reduce
from .views import unsqueeze, view

MAX_ROW = 2048
MAX_WORK = 1 << 24


def _before(a, b):
    """a sorts strictly before b: smaller, or a number before a NaN."""
    return ops.logical_or(ops.lt(a, b), ops.logical_and(ops.isnan(b), ops.logical_not(ops.isnan(a))))


def _same(a, b):
    return ops.logical_or(ops.eq(a, b), ops.logical_and(ops.isnan(a), ops.isnan(b)))


def _select(x, dim, keepdim, k_of):
    """(values, indices) of the k-th smallest along dim, k = k_of(row loader(idx) of counts)
    a 1-based int64 value per row; x at least 1-d, floating."""
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    size = tuple(x.size)
    m = size[dim]
    rest = size[:dim] + size[dim + 1:]
    xl = x.loader()

    def at(idx_rest, i):   # x's element i of the row idx_rest
        return xl(list(idx_rest[:dim]) + [i] + list(idx_rest[dim:]))

    nr = len(rest)
    pairs = rest + (m, m)   # (row..., i, j)

    def less(idx):
        return ops.to_dtype(_before(at(idx[:nr], idx[nr + 1]), at(idx[:nr], idx[nr])), torch.int64)

    def less_eq(idx):
        xj, xi = at(idx[:nr], idx[nr + 1]), at(idx[:nr], idx[nr])
        return ops.to_dtype(ops.logical_or(_before(xj, xi), _same(xj, xi)), torch.int64)
    dev = x.device
    below = reduce(ir.Lazy(pairs, torch.int64, dev, less), [nr + 1], False, "sum", torch.int64)
    upto = reduce(ir.Lazy(pairs, torch.int64, dev, less_eq), [nr + 1], False, "sum", torch.int64)
    k = k_of(at)
    bl, ul, kl = below.loader(), upto.loader(), k.loader()

    def picked(idx):   # idx: (row..., i)
        kk = kl(idx[:nr])
        return ops.logical_and(ops.lt(bl(idx), kk), ops.le(kk, ul(idx)))
    grid = rest + (m,)
    values = reduce(ir.Lazy(grid, x.dtype, dev, lambda idx: ops.where(
        picked(idx), at(idx[:nr], idx[nr]), ops.constant(float("-inf"), x.dtype))),
        [nr], False, "max", x.dtype)
    indices = reduce(ir.Lazy(grid, torch.int64, dev, lambda idx: ops.where(
        picked(idx), ops.index_expr(idx[nr], torch.int64), ops.constant(m, torch.int64))),
        [nr], False, "min", torch.int64)
    if keepdim:
        values, indices = unsqueeze(values, dim), unsqueeze(indices, dim)
    return values, indices


def _fits(x, dim):
    if not x.dtype.is_floating_point:
        return False
    m = x.size[dim] if x.size else 1
    return 0 < m <= MAX_ROW and x.numel * m <= MAX_WORK   # (symbolic sizes: guarded)


def _as_1d(x):
    load = x.loader()
    return ir.Lazy((1,), x.dtype, x.device, lambda idx: load([]))


@register(aten.kthvalue.default)
def kthvalue(x, k, dim=-1, keepdim=False):
    """The k-th smallest along dim and its index (the first, among equal values)."""
    n = max(len(x.size), 1)
    d = dim + n if dim < 0 else dim
    if not _fits(x, d if x.size else 0) or not 1 <= k <= (x.size[d] if x.size else 1):
        return fallback(aten.kthvalue.default, (x, k, dim, keepdim))   # (eager's error too)
    x1 = x if x.size else _as_1d(x)
    kk = ir.Lazy(tuple(x1.size[:d] + x1.size[d + 1:]), torch.int64, x.device,
                 lambda idx: ops.constant(k, torch.int64))
    v, i = _select(x1, d, keepdim and bool(x.size), lambda at: kk)
    return (view(v, []), view(i, [])) if not x.size else (v, i)


@register(aten.nanmedian.dim)
def nanmedian_dim(x, dim, keepdim=False):
    """The lower median of the row's numbers, NaNs left out (k = (count - 1) // 2 + 1); a
    row of NaNs only gives NaN, index 0."""
    n = max(len(x.size), 1)
    d = dim + n if dim < 0 else dim
    if not _fits(x, d if x.size else 0):
        return fallback(aten.nanmedian.dim, (x, dim, keepdim))
    x1 = x if x.size else _as_1d(x)
    v, i = _select(x1, d, keepdim and bool(x.size), lambda at: _median_rank(x1, d, at))
    return (view(v, []), view(i, [])) if not x.size else (v, i)


@register(aten.median.dim)
def median_dim(x, dim, keepdim=False):
    """The lower median along dim; NaN (and a NaN's index) where the row holds one."""
    n = max(len(x.size), 1)
    d = dim + n if dim < 0 else dim
    if not _fits(x, d if x.size else 0):
        return fallback(aten.median.dim, (x, dim, keepdim))
    x1 = x if x.size else _as_1d(x)
    v, i = _select(x1, d, keepdim and bool(x.size), lambda at: _median_rank(x1, d, at, True))
    return (view(v, []), view(i, [])) if not x.size else (v, i)


def _whole(op, nan_wins):
    def lower(x):
        """The median over all elements (the value only)."""
        flat = view(x, [-1]) if x.size else _as_1d(x)
        if not _fits(flat, 0):
            return fallback(op, (x,))
        v, _ = _select(flat, 0, False, lambda at: _median_rank(flat, 0, at, nan_wins))
        return view(v, [])
    return lower


register(aten.nanmedian.default)(_whole(aten.nanmedian.default, False))
register(aten.median.default)(_whole(aten.median.default, True))


def _median_rank(x, dim, at, nan_wins=False):
    """(numbers in the row - 1) // 2 + 1, at least 1 (a row of NaNs: its first element); with
    nan_wins (median) a row holding a NaN ranks its first NaN instead: the median is NaN."""
    size = tuple(x.size)
    nr = len(size) - 1
    count = reduce(ir.Lazy(size[:dim] + size[dim + 1:] + (size[dim],), torch.int64, x.device,
                           lambda idx: ops.to_dtype(ops.logical_not(ops.isnan(at(idx[:nr], idx[nr]))),
                                                    torch.int64)),
                   [nr], False, "sum", torch.int64)
    cl = count.loader()

    def k(idx):
        c = cl(idx)
        half = ops.floordiv(ops.sub(c, ops.constant(1, torch.int64)), ops.constant(2, torch.int64))
        k = ops.maximum(ops.add(half, ops.constant(1, torch.int64)), ops.constant(1, torch.int64))
        if nan_wins:
            n = ops.constant(size[dim], torch.int64)
            k = ops.where(ops.lt(c, n), ops.add(c, ops.constant(1, torch.int64)), k)
        return k
    return ir.Lazy(size[:dim] + size[dim + 1:], torch.int64, x.device, k)


@register(aten.mode.default, aten.mode)
def mode(x, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest among equally frequent ones) and the
    index of one of its occurrences (here the last; eager's sort may pick another among
    repeats: the values agree). A value's frequency counts the row's pairs (NaNs equal), so
    the row limits are kthvalue's."""
    n = max(len(x.size), 1)
    d = dim + n if dim < 0 else dim
    if not _fits(x, d if x.size else 0):
        return fallback(aten.mode.default, (x, dim, keepdim))
    x1 = x if x.size else _as_1d(x)
    size = tuple(x1.size)
    m = size[d]
    rest = size[:d] + size[d + 1:]
    nr = len(rest)
    xl, dev = x1.loader(), x.device

    def at(idx_rest, i):
        return xl(list(idx_rest[:d]) + [i] + list(idx_rest[d:]))
    freq = reduce(ir.Lazy(rest + (m, m), torch.int64, dev, lambda idx: ops.to_dtype(
        _same(at(idx[:nr], idx[nr + 1]), at(idx[:nr], idx[nr])), torch.int64)),
        [nr + 1], False, "sum", torch.int64)
    fl = freq.loader()
    best = reduce(ir.Lazy(rest + (m,), torch.int64, dev, fl), [nr], False, "max", torch.int64)
    bl = best.loader()

    def top(idx):   # (row..., i): element i is among the most frequent
        return ops.eq(fl(idx), bl(idx[:nr]))

    def inf():
        return ops.constant(float("inf"), x.dtype)
    # the smallest most frequent value (a NaN only when NaNs are the only most frequent)
    low = reduce(ir.Lazy(rest + (m,), x.dtype, dev, lambda idx: ops.where(
        ops.logical_and(top(idx), ops.logical_not(ops.isnan(at(idx[:nr], idx[nr])))),
        at(idx[:nr], idx[nr]), inf())), [nr], False, "min", x.dtype)
    ll = low.loader()

    def last(idx):
        v = at(idx[:nr], idx[nr])
        lo = ll(idx[:nr])
        hit = ops.logical_and(top(idx), ops.logical_or(
            ops.eq(v, lo), ops.logical_and(ops.isnan(v), ops.eq(lo, inf()))))
        return ops.where(hit, ops.index_expr(idx[nr], torch.int64), ops.constant(-1, torch.int64))
    indices = reduce(ir.Lazy(rest + (m,), torch.int64, dev, last), [nr], False, "max", torch.int64)
    il = indices.loader()

    def value(idx):   # the element at that index (-0.0 or 0.0 as eager's)
        j = ops.indirect_indexing(il(list(idx)), m, check=False, wrap_negative=False)
        return at(list(idx), j)
    values = ir.Lazy(rest, x.dtype, dev, value)
    if keepdim and x.size:
        values, indices = unsqueeze(values, d), unsqueeze(indices, d)
    if not x.size:
        return view(values, []), view(indices, [])
    return values, indices
