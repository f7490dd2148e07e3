"""Indexing with indirect loads (embedding, gather, index_select, index) and scatters
(index_put, scatter, scatter_add) as mutations of a fresh copy. Every indirect index is
wrapped for negatives and bounds-checked in the kernel (a clear IndexError, never a wild read)."""
from __future__ import annotations

import torch

from .. import ir
from .. import sym as S
from ..lowering import broadcast_shapes, fallback, graph, loader_for, register
from ..ops import ops
from ..torch_compat import aten
from .views import view


def _indirect(loader, idx, size, wrap_negative=True):
    return ops.indirect_indexing(loader(idx), size, wrap_negative=wrap_negative)


@register(aten.embedding)
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    wl = weight.loader()
    il = indices.loader()
    nd = len(indices.size)

    def inner(idx):
        row = _indirect(il, idx[:nd], weight.size[0], wrap_negative=False)   # eager raises
        return wl([row] + list(idx[nd:]))
    return ir.Lazy(tuple(indices.size) + tuple(weight.size[1:]), weight.dtype, weight.device, inner)


@register(aten.gather)
def gather(x, dim, index, sparse_grad=False):
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    xl, il = x.loader(), index.loader()

    def inner(idx):
        src = list(idx)
        src[dim] = _indirect(il, idx, x.size[dim], wrap_negative=False) if n else 0   # as eager
        return xl(src)
    return ir.Lazy(tuple(index.size), x.dtype, x.device, inner)


@register(aten.index_select)
def index_select(x, dim, index):
    """x's slices at `index` along dim; a 0-d or one-element 1-d index. A 0-d x is taken
    as one element along dim (the result is 0-d, the index must be 0). A negative index is
    out of range, as in eager (not counted from the end)."""
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    xl, il = x.loader(), index.loader()
    at = (lambda idx: [idx[dim]]) if index.size else (lambda idx: [])
    if n == 0:
        def scalar(idx):
            _indirect(il, [0] if index.size else [], 1, wrap_negative=False)   # bounds check
            return xl([])
        return ir.Lazy((), x.dtype, x.device, scalar)
    size = list(x.size)
    size[dim] = index.numel if index.size else 1

    def inner(idx):
        src = list(idx)
        src[dim] = _indirect(il, at(idx), x.size[dim], wrap_negative=False)
        return xl(src)
    return ir.Lazy(tuple(size), x.dtype, x.device, inner)


def _index_plan(x, indices):
    """Result shape and a function idx -> source index of x (advanced indexing rules)."""
    indices = list(indices) + [None] * (len(x.size) - len(indices))
    pos = [i for i, t in enumerate(indices) if t is not None]
    bshape = broadcast_shapes(*[indices[i].size for i in pos])
    adjacent = pos == list(range(pos[0], pos[-1] + 1))
    loaders = {i: loader_for(indices[i], bshape) for i in pos}
    rest = [i for i in range(len(x.size)) if i not in pos]
    nb = len(bshape)
    if adjacent:
        before = [i for i in rest if i < pos[0]]
        after = [i for i in rest if i > pos[-1]]
        size = [x.size[i] for i in before] + list(bshape) + [x.size[i] for i in after]

        def src(idx):
            out = [0] * len(x.size)
            for j, i in enumerate(before):
                out[i] = idx[j]
            bidx = idx[len(before):len(before) + nb]
            for i in pos:
                out[i] = _indirect(loaders[i], bidx, x.size[i])
            for j, i in enumerate(after):
                out[i] = idx[len(before) + nb + j]
            return out
    else:
        size = list(bshape) + [x.size[i] for i in rest]

        def src(idx):
            out = [0] * len(x.size)
            bidx = idx[:nb]
            for i in pos:
                out[i] = _indirect(loaders[i], bidx, x.size[i])
            for j, i in enumerate(rest):
                out[i] = idx[nb + j]
            return out
    return tuple(size), src


def _has_bool(indices):
    return any(t is not None and t.dtype in (torch.bool, torch.uint8) for t in indices)


def _mask_index(x, indices):
    """x[mask] in a symbolic compile (one bool mask, only Nones before it): the mask's nonzero
    as an ATen call, whose row count is the data-dependent size of the result (defined as read
    from its output: compiler/sizes.py), then the selected elements gathered by a kernel.
    None where it does not apply (the ATen call then computes the whole index)."""
    g = graph()
    pos = [i for i, t in enumerate(indices) if t is not None]
    val = g.current.meta.get("val") if g.current is not None else None
    if g.sizes is None or len(pos) != 1 or indices[pos[0]].dtype != torch.bool \
            or not isinstance(val, torch.Tensor) or getattr(val, "fake_mode", None) is None:
        return None
    k, mask = pos[0], indices[pos[0]]
    m = len(mask.size)
    with val.fake_mode:   # nonzero's result: (count, mask dims), count the result's size k
        meta = torch.empty_strided((val.shape[k], m), (m, 1), dtype=torch.int64, device=val.device)
    rows = g.extern(aten.nonzero.default, (mask,), {}, meta)
    rl = rows.loader()
    size = tuple(x.size[:k]) + (rows.size[0],) + tuple(x.size[k + m:])
    xl = x.loader()

    def inner(idx):
        j = idx[k]
        at = [ops.indirect_indexing(rl([j, c]), x.size[k + c], wrap_negative=False) for c in range(m)]
        return xl(list(idx[:k]) + at + list(idx[k + 1:]))
    return ir.Lazy(size, x.dtype, x.device, inner)


@register(aten.index.Tensor, aten.index)
def index(x, indices):
    if _has_bool(indices) or all(t is None for t in indices):
        masked = _mask_index(x, indices) if _has_bool(indices) else None
        if masked is not None:
            return masked
        return fallback(aten.index.Tensor, (x, indices))
    size, src = _index_plan(x, indices)
    xl = x.loader()
    return ir.Lazy(size, x.dtype, x.device, lambda idx: xl(src(list(idx))))


def _fresh_copy(x):
    g = graph()
    return g.realize(ir.Lazy(tuple(x.size), x.dtype, x.device, loader_for(x, x.size)), force=True)


def _masked_put(x, indices, values, accumulate):
    """x[mask] = values (or +=) with one bool mask over x's leading dims and values that
    broadcast to one selected element's trailing dims (`x[mask] = 0`, a row per selection): a
    select, no data-dependent count. None where it does not apply (values of one row per
    selected element: eager's call)."""
    if len(indices) != 1 or indices[0] is None or indices[0].dtype != torch.bool:
        return None
    mask, k = indices[0], len(indices[0].size)
    trailing = tuple(x.size[k:])
    vsize = tuple(values.size) if isinstance(values, ir.TensorValue) else ()
    if tuple(mask.size) != tuple(x.size[:k]) or len(vsize) > len(trailing) or any(
            v not in (1, t) for v, t in zip(vsize[::-1], trailing[::-1])):
        return None
    ml, xl, vl = mask.loader(), x.loader(), loader_for(values, trailing, x.dtype)

    def inner(idx):
        v, old = vl(list(idx[k:])), xl(list(idx))
        return ops.where(ml(list(idx[:k])), ops.add(old, v) if accumulate else v, old)
    return ir.Lazy(tuple(x.size), x.dtype, x.device, inner)


@register(aten.index_put.default, aten.index_put)
def index_put(x, indices, values, accumulate=False):
    if _has_bool(indices):
        got = _masked_put(x, indices, values, accumulate)
        return got if got is not None else fallback(aten.index_put.default, (x, indices, values, accumulate))
    out = _fresh_copy(x)
    return _index_put_into(out, indices, values, accumulate)


@register(aten.index_put_.default, aten.index_put_)
def index_put_(x, indices, values, accumulate=False):
    if _has_bool(indices) or not isinstance(x, ir.View):
        return fallback(aten.index_put_.default, (x, indices, values, accumulate))
    return _index_put_into(x, indices, values, accumulate)


def _index_put_into(out, indices, values, accumulate):
    size, src = _index_plan(out, indices)
    vl = loader_for(values, size, out.dtype)
    return graph().scatter_into(out, size, lambda idx: S.linear(src(list(idx)), out.stride, out.offset),
                                vl, "atomic_add" if accumulate else None)


def _value_loader(src, dtype):
    """What a scatter writes at an index of its iteration: src there (a tensor: read at those
    positions, never broadcast) in x's dtype, or the number src."""
    if isinstance(src, ir.TensorValue):
        sl = src.loader()
        return lambda idx: ops.to_dtype(sl(idx), dtype)
    return lambda idx: ops.constant(src, dtype)


def _scatter(x, dim, index, src, mode):
    out = _fresh_copy(x)
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    il = index.loader()
    vl = _value_loader(src, x.dtype)   # (src may be larger than index)

    def where(idx):
        tgt = list(idx)
        tgt[dim] = _indirect(il, idx, x.size[dim])
        return S.linear(tgt, out.stride, out.offset)
    return graph().scatter_into(out, tuple(index.size), where, vl, mode)


@register(aten.scatter.src, aten.scatter.value)
def scatter(x, dim, index, src, reduce=None):
    if reduce is not None:
        return fallback(aten.scatter.src if isinstance(src, ir.TensorValue) else aten.scatter.value,
                        (x, dim, index, src), {"reduce": reduce})
    if not x.size:   # a 0-d x (its index 0-d or of one element): one element of one
        one = lambda t: view(t, [1]) if isinstance(t, ir.TensorValue) else t  # noqa: E731
        return view(scatter(one(x), 0, one(index), one(src)), [])
    if _one_per_row(x, dim, index):
        return _scatter_one_per_row(x, dim, index, src)
    return _scatter(x, dim, index, src, None)


def _one_per_row(x, dim, index) -> bool:
    """index picks one position along dim in every row of x (size 1 there, x's sizes elsewhere):
    nll_loss's backward, a one-hot."""
    n = len(x.size)
    if n == 0 or len(index.size) != n:
        return False
    dim = dim + n if dim < 0 else dim
    return index.size[dim] == 1 and all(index.size[d] == x.size[d] for d in range(n) if d != dim)


def _scatter_one_per_row(x, dim, index, src):
    """scatter writing one element per row, as a pointwise: src where the position is the
    row's index, else x. No copy of x is stored first (nll_loss's backward wrote a buffer of
    the logits' size, float32, before any kernel read it)."""
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    xl, il = x.loader(), index.loader()
    vl = _value_loader(src, x.dtype)

    def inner(idx):
        at = list(idx)
        at[dim] = 0
        pos = _indirect(il, at, x.size[dim])   # (bounds-checked, negatives wrapped as _scatter)
        hit = ops.eq(ops.index_expr(idx[dim], torch.int64), ops.index_expr(pos, torch.int64))
        return ops.where(hit, vl(at), xl(idx))
    return ir.Lazy(tuple(x.size), x.dtype, x.device, inner)


@register(aten.scatter.reduce, aten.scatter.value_reduce)
def scatter_with_reduce(x, dim, index, src, *, reduce):
    """scatter's reduce="add" / "multiply": scatter_reduce's sum / prod with x included (a
    number src as a tensor of index's shape)."""
    if not isinstance(src, ir.TensorValue):
        value = src
        src = ir.Lazy(tuple(index.size), x.dtype, x.device, lambda idx: ops.constant(value, x.dtype))
    if reduce not in ("add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    return scatter_reduce(x, dim, index, src, "sum" if reduce == "add" else "prod", True)


@register(aten.scatter_add.default, aten.scatter_add)
def scatter_add(x, dim, index, src):
    return _scatter(x, dim, index, src, "atomic_add")


_SCATTER_REDUCE = {"sum": "atomic_add", "mean": "atomic_add", "amax": "atomic_max",
                   "amin": "atomic_min"}


@register(aten.scatter_reduce.two)
def scatter_reduce(x, dim, index, src, reduce, include_self=True):
    """x with src reduced into it at index along dim by atomics (sum, mean, amax, amin), prod
    (no atomic) as a product over index's positions (_prod_into); a bool sum or max is an or,
    a min an and (codegen stores those without atomics); bool prod and mean stay ATen calls."""
    if reduce == "prod" and x.dtype != torch.bool and isinstance(src, ir.TensorValue) \
            and len(index.size) == len(x.size) \
            and _prod_small(x, index.size[dim] if index.size else 1):
        return _scatter_prod(x, dim, index, src, include_self)
    if reduce not in _SCATTER_REDUCE or (x.dtype == torch.bool and reduce == "mean"):
        return fallback(aten.scatter_reduce.two, (x, dim, index, src, reduce),
                        {"include_self": include_self})
    return _reduce_into(x, src, reduce, include_self,
                        lambda v, s, mode: _scatter(v, dim, index, s, mode))


@register(aten.index_reduce.default)
def index_reduce(x, dim, index, source, reduce, include_self=True):
    """x with source's slices reduced into x's slices at index along dim (index_add with
    another reduction), by atomics as scatter_reduce, prod as its product; bool stays an ATen
    call."""
    if reduce == "prod" and x.dtype != torch.bool and len(index.size) <= 1 \
            and _prod_small(x, index.numel):
        return _index_prod(x, dim, index, source, include_self)
    if reduce not in _SCATTER_REDUCE or x.dtype == torch.bool:
        return fallback(aten.index_reduce.default, (x, dim, index, source, reduce),
                        {"include_self": include_self})
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    return _reduce_into(x, source, reduce, include_self,
                        lambda v, s, mode: _index_into(v, dim, index, s, tuple(source.size), mode))


def _reduce_into(x, src, reduce, include_self, into):
    """scatter_reduce's and index_reduce's reduction; into(value, s, mode) is a copy of value
    with s (a tensor or a number) stored or reduced (mode) at the op's positions. Without
    include_self every receiving position first takes the reduction's identity; mean divides
    by the count of values (plus x's own), a position receiving none keeping x's value."""
    mode = _SCATTER_REDUCE[reduce]
    if not include_self:
        start = 0 if reduce in ("sum", "mean") else ir.reduction_identity(
            "max" if reduce == "amax" else "min", x.dtype)
        x = into(x, start, None)
    out = into(x, src, mode)
    if reduce != "mean":
        return out
    ones = ir.Lazy(tuple(x.size), x.dtype, x.device,
                   lambda idx: ops.constant(1 if include_self else 0, x.dtype))
    count = into(ones, 1, "atomic_add")
    ol, cl = out.loader(), count.loader()

    def mean(idx):
        c = ops.maximum(cl(idx), ops.constant(1, x.dtype))
        if x.dtype.is_floating_point:
            return ops.truediv(ol(idx), c)
        return ops.floordiv(ol(idx), c)
    return ir.Lazy(tuple(x.size), x.dtype, x.device, mean)


def _index_into(x, dim, index, src, size, mode):
    """A copy of x with src (a tensor of `size`, or a number) stored or reduced (mode) into x's
    slices at index along dim: src's slice j goes to x's slice index[j]."""
    out = _fresh_copy(x)
    il = index.loader()
    value = _value_loader(src, x.dtype)

    def where(idx):
        if not x.size:   # a 0-d x is one element along dim: the index must be 0 (checked)
            _indirect(il, [0] if index.size else [], 1)
            return S.linear([], out.stride, out.offset)
        tgt = list(idx)
        tgt[dim] = _indirect(il, [idx[dim]] if index.size else [], x.size[dim])
        return S.linear(tgt, out.stride, out.offset)
    return graph().scatter_into(out, size, where, value, mode)


@register(aten.as_strided_scatter.default)
def as_strided_scatter(x, src, size, stride, storage_offset=None):
    """A copy of x with src (broadcast to size) stored at the as_strided view of the copy's
    storage, as eager's clone, as_strided and copy_. The strides address the copy's storage,
    which is contiguous: x of another layout stays an ATen call."""
    xv = graph().realize(x)
    if tuple(xv.stride) != S.contiguous_strides(tuple(xv.size)):
        return fallback(aten.as_strided_scatter.default, (xv, src, size, stride, storage_offset))
    out = _fresh_copy(xv)
    base = out.offset + (storage_offset or 0)
    return graph().scatter_into(out, tuple(size), lambda idx: S.linear(list(idx), tuple(stride), base),
                                loader_for(src, tuple(size), x.dtype), None)


@register(aten.index_add.default)
def index_add(x, dim, index, source, alpha=1):
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    if alpha != 1:
        sl = source.loader()
        source = ir.Lazy(tuple(source.size), x.dtype, x.device,
                         lambda idx: ops.mul(ops.to_dtype(sl(idx), x.dtype), ops.constant(alpha, x.dtype)))
    return _index_into(x, dim, index, source, tuple(source.size), "atomic_add")



@register(aten._assert_scalar.default)
def assert_scalar(cond, msg):
    """A runtime assertion on sizes (dynamo's, on a data-dependent size: `u0 <= numel`) that
    the symbolic compile decided from the sizes' ranges: true, nothing to run. (Static
    compiles and conditions left open keep the ATen call.)"""
    if graph().sizes is None or cond is not True:
        raise NotImplementedError
    return None


# A product has no atomic: each element of x multiplies, in a reduction over index's extent
# along dim, the values whose index points at it (the others count as 1). That reads the index
# once per element of x: past this many (x's elements times that extent) it stays ATen's.
PROD_MAX_WORK = 1 << 24


def _prod_small(x, extent):
    """Few enough products (symbolic sizes: guarded)."""
    return x.numel * extent <= PROD_MAX_WORK


def _prod_into(x, extent, match, include_self):
    """x (at least 1-d) times the product over t < extent of match(idx, t) = (hit, value):
    the values that land on idx; without include_self a position hit by none keeps x's value,
    one hit takes the product alone (as eager)."""
    from .reductions import _acc_dtype, reduce
    n, size = len(x.size), tuple(x.size)
    acc = _acc_dtype(x.dtype) if x.dtype.is_floating_point else torch.int64

    def factor(idx):
        hit, value = match(idx[:n], idx[n])
        return ops.where(hit, ops.to_dtype(value, acc), ops.constant(1, acc))

    def hits(idx):
        return match(idx[:n], idx[n])[0]
    grid = size + (extent,)
    prod = reduce(ir.Lazy(grid, acc, x.device, factor), [n], False, "prod", acc)
    xl, pl = x.loader(), prod.loader()
    if include_self:
        return ir.Lazy(size, x.dtype, x.device,
                       lambda idx: ops.to_dtype(ops.mul(ops.to_dtype(xl(idx), acc), pl(idx)), x.dtype))
    hit = reduce(ir.Lazy(grid, torch.bool, x.device, hits), [n], False, "any", torch.bool)
    hl = hit.loader()
    return ir.Lazy(size, x.dtype, x.device,
                   lambda idx: ops.where(hl(idx), ops.to_dtype(pl(idx), x.dtype), xl(idx)))


def _at_least_1d(v):
    if v.size:
        return v
    load = v.loader()
    return ir.Lazy((1,), v.dtype, v.device, lambda idx: load([]))


def _scatter_prod(x, dim, index, src, include_self):
    """scatter_reduce(prod): x[.., j, ..] times src[p] for every p of index's shape with
    index[p] = j (p equal to the element elsewhere: positions beyond index's size, masked,
    take none)."""
    x0, x, index, src = x, _at_least_1d(x), _at_least_1d(index), _at_least_1d(src)
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    il, sl = index.loader(), src.loader()
    limited = [d for d in range(n) if d != dim and index.size[d] != x.size[d]]

    def match(idx, t):
        p = list(idx)
        p[dim] = t

        def hit_value():
            j = _indirect(il, p, x.size[dim], wrap_negative=False)   # as eager: no wrap
            return ops.eq(ops.index_expr(j, torch.int64), ops.index_expr(idx[dim], torch.int64))
        inside = None
        for d in limited:
            c = ops.lt(ops.index_expr(idx[d], torch.int64), ops.constant(index.size[d], torch.int64))
            inside = c if inside is None else ops.logical_and(inside, c)
        if inside is None:
            return hit_value(), sl(p)
        return (ops.masked(inside, hit_value, False),
                ops.masked(inside, lambda: sl(p), 1))
    return _back_to(x0, _prod_into(x, index.size[dim], match, include_self))


def _index_prod(x, dim, index, source, include_self):
    """index_reduce(prod): x's slice index[t] along dim times source's slice t, for each t."""
    x0, x, index, source = x, _at_least_1d(x), _at_least_1d(index), _at_least_1d(source)
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    il, sl = index.loader(), source.loader()

    def match(idx, t):
        j = _indirect(il, [t], x.size[dim], wrap_negative=False)   # eager refuses one below 0
        p = list(idx)
        p[dim] = t
        return ops.eq(ops.index_expr(j, torch.int64), ops.index_expr(idx[dim], torch.int64)), sl(p)
    return _back_to(x0, _prod_into(x, index.size[0], match, include_self))


def _back_to(x0, v):
    if x0.size:
        return v
    load = v.loader()
    return ir.Lazy((), v.dtype, v.device, lambda idx: load([0]))
