"""Ops that place elements by flat positions or running counts: put (a scatter at flat
indices), masked_scatter and nonzero_static (a cumsum of the mask, compiler/lowerings/scans.py,
gives each selected element its rank) and histc (an atomic add of 1 per element into its bin:
whole numbers, so the order of the additions does not change the sums)."""
from __future__ import annotations

import math

import torch

from .. import ir
from .. import sym as S
from ..lowering import broadcast_shapes, fallback, graph, loader_for, register
from ..ops import ops
from ..torch_compat import aten
from .reductions import reduce
from .reductions import reduce as _reduce   # (segment_reduce's `reduce` argument hides it)
from .scans import scan
from .views import view

MAX_WORK = 1 << 24


def _contiguous_copy(x):
    """A copy of x in a row-major buffer: a flat position addresses its element directly."""
    load = x.loader()
    lazy = ir.Lazy(tuple(x.size), x.dtype, x.device, lambda idx: load(list(idx)))
    return graph().realize(lazy, force=True, stride=S.contiguous_strides(tuple(x.size)))


def _flat(idx, size):
    return S.linear(list(idx), S.contiguous_strides(tuple(size)))


@register(aten.put.default, aten.put)
def put(x, index, source, accumulate=False):
    """x's elements at flat (row-major) positions `index` (negatives count from the end) set
    to (accumulate: increased by) source's elements in order. Repeated positions without
    accumulate keep one of the values, as eager's (the last, in the interpreter and on CPU)."""
    if index.numel != source.numel:
        return fallback(aten.put.default, (x, index, source, accumulate))
    out = _contiguous_copy(x)
    if index.numel == 0:
        return out
    il = index.loader()
    src = source if tuple(source.size) == tuple(index.size) else view(source, list(index.size))
    sl = src.loader()
    numel = max(math.prod(x.size), 1)

    def where(idx):
        k = ops.indirect_indexing(il(list(idx)), numel, wrap_negative=True)
        return S.linear([k], [1], out.offset)
    return graph().scatter_into(out, tuple(index.size), where,
                                lambda idx: ops.to_dtype(sl(list(idx)), x.dtype),
                                "atomic_add" if accumulate else None)


def _running_count(flag, size, device):
    """The inclusive running count (int64) of flag(idx) over a row-major walk of `size`, as
    a 1-d scan result read at flat positions."""
    flat = view(ir.Lazy(tuple(size), torch.int64, device,
                        lambda idx: ops.to_dtype(flag(list(idx)), torch.int64)), [-1])
    return scan(flat, 0, "sum", torch.int64, src=torch.int64)


@register(aten.masked_scatter.default, aten.masked_scatter)
def masked_scatter(x, mask, source):
    """x where mask (broadcast to x) is false; where it is true, source's elements in order
    (the k-th true position takes source's flat element k: k from a running count)."""
    size = tuple(x.size)
    if math.prod(size) == 0:
        return fallback(aten.masked_scatter.default, (x, mask, source))
    ml = loader_for(mask, size)
    count = _running_count(lambda idx: ml(idx), size, x.device).loader()
    flat_src = view(source, [-1]).loader()
    xl = x.loader()
    n_src = max(math.prod(source.size), 1)

    def inner(idx):
        m = ml(list(idx))

        def taken():
            k = ops.sub(count([_flat(idx, size)]), ops.constant(1, torch.int64))
            return ops.to_dtype(flat_src([ops.indirect_indexing(k, n_src, wrap_negative=False)]), x.dtype)
        return ops.where(m, ops.masked(m, taken, 0), xl(list(idx)))
    return ir.Lazy(size, x.dtype, x.device, inner)


def _nth_selected(count, numel, rows, device):
    """For p < rows: the flat position of the (p+1)-th selected element (numel when fewer are
    selected), from the running count: the count of positions holding at most p selected."""
    cl = count.loader()

    def fewer(idx):   # (p, e)
        return ops.to_dtype(ops.le(cl([idx[1]]), ops.index_expr(idx[0], torch.int64)), torch.int64)
    return reduce(ir.Lazy((rows, numel), torch.int64, device, fewer), [1], False, "sum", torch.int64)


@register(aten.masked_scatter_backward.default)
def masked_scatter_backward(grad, mask, sizes):
    """The source's gradient: grad's elements where mask (both broadcast) is true, in order,
    then zeros up to the source's size (eager's masked_select, padded and viewed)."""
    sizes = tuple(sizes)
    shape = broadcast_shapes(tuple(grad.size), tuple(mask.size))
    numel, rows = math.prod(shape), math.prod(sizes)
    if numel == 0 or rows == 0 or rows * numel > MAX_WORK:   # (symbolic sizes: guarded)
        return fallback(aten.masked_scatter_backward.default, (grad, mask, list(sizes)))
    ml, gl = loader_for(mask, shape), loader_for(grad, shape)
    count = _running_count(ml, shape, grad.device)
    flat = _contiguous_copy(ir.Lazy(shape, grad.dtype, grad.device, lambda idx: gl(list(idx))))
    fl = view(flat, [-1]).loader()
    nth = _nth_selected(count, numel, rows, grad.device).loader()

    def inner(idx):   # idx: the source's index
        e = nth([_flat(idx, sizes)])
        found = ops.lt(e, ops.constant(numel, torch.int64))
        return ops.masked(found, lambda: fl([ops.indirect_indexing(e, numel, check=False,
                                                                   wrap_negative=False)]), 0)
    return ir.Lazy(sizes, grad.dtype, grad.device, inner)


@register(aten.nonzero_static.default, aten.nonzero_static)
def nonzero_static(x, *, size, fill_value=-1):
    """The indices (size rows of x's dims) of x's first `size` nonzero elements in row-major
    order, rows past the count filled with fill_value. Row p is the element e with p + 1
    nonzeros up to it: e = the count of elements with fewer (a search of the running count)."""
    shape = tuple(x.size)
    nd = len(shape)
    numel = math.prod(shape)
    if size * max(numel, 1) > MAX_WORK:   # (symbolic sizes: guarded)
        return fallback(aten.nonzero_static.default, (x,), {"size": size, "fill_value": fill_value})
    if nd == 0 or size == 0 or numel == 0:
        if nd == 0 or size == 0:
            return ir.Lazy((size, nd), torch.int64, x.device, lambda idx: ops.constant(0, torch.int64))
        return ir.Lazy((size, nd), torch.int64, x.device,
                       lambda idx: ops.constant(fill_value, torch.int64))
    xl = x.loader()
    count = _running_count(lambda idx: ops.ne(xl(idx), ops.constant(0, x.dtype)), shape, x.device)
    fl = _nth_selected(count, numel, size, x.device).loader()
    strides = S.contiguous_strides(shape)

    def inner(idx):
        e = fl([idx[0]])
        coords = [ops.remainder(ops.floordiv(e, ops.constant(strides[d], torch.int64)),
                                ops.constant(shape[d], torch.int64)) for d in range(nd)]
        coord = coords[0]
        for d in range(1, nd):   # the column's coordinate, picked by the index along dim 1
            coord = ops.where(ops.eq(ops.index_expr(idx[1], torch.int64), ops.constant(d, torch.int64)),
                              coords[d], coord)
        found = ops.lt(e, ops.constant(numel, torch.int64))
        return ops.where(found, coord, ops.constant(fill_value, torch.int64))
    return ir.Lazy((size, nd), torch.int64, x.device, inner)


@register(aten.histc.default, aten.histc)
def histc(x, bins=100, min=0, max=0):
    """Counts of x's elements in `bins` equal bins over [min, max] (the data's range when
    min == max, widened by 1 each way when that is one value); elements outside it and NaNs
    are not counted, max falls in the last bin. The bin is eager's: (x - min) * bins /
    (max - min) in x's dtype, truncated (no search among the edges)."""
    if not x.dtype.is_floating_point or bins <= 0 or min > max or x.numel * bins > MAX_WORK:
        return fallback(aten.histc.default, (x, bins, min, max))
    dt = x.dtype
    dev = x.device
    xl = x.loader()
    shape = tuple(x.size)
    if min == max and math.prod(shape) > 0:
        lo_v = reduce(x, list(range(len(shape))), False, "min", dt).loader()
        hi_v = reduce(x, list(range(len(shape))), False, "max", dt).loader()

        def lo_hi():
            lo, hi = lo_v([]), hi_v([])
            same = ops.eq(lo, hi)
            return (ops.where(same, ops.sub(lo, ops.constant(1, dt)), lo),
                    ops.where(same, ops.add(hi, ops.constant(1, dt)), hi))
    else:
        a, b = (min - 1, max + 1) if min == max else (min, max)

        def lo_hi():
            # (numbers or, under dynamic=True, symbols: ops.constant converts and prints both)
            return ops.constant(a, dt), ops.constant(b, dt)
    i64 = torch.int64

    def placed(idx):   # (counted, bin) of element idx: (v - lo) * bins / (hi - lo) truncated
        v = xl(list(idx))
        lo, hi = lo_hi()
        inside = ops.logical_and(ops.ge(v, lo), ops.le(v, hi))
        est = ops.truediv(ops.mul(ops.sub(v, lo), ops.constant(bins, dt)), ops.sub(hi, lo))
        est = ops.where(inside, est, ops.constant(0.0, dt))   # (NaN, inf: not counted anyway)
        p = ops.minimum(ops.maximum(ops.to_dtype(est, i64), ops.constant(0, i64)),
                        ops.constant(bins - 1, i64))   # (max itself: the last bin)
        return inside, p
    out = graph().realize(ir.Lazy((bins,), dt, dev, lambda idx: ops.constant(0, dt)), force=True)
    if math.prod(shape) == 0:
        return out

    def where(idx):
        _, b = placed(idx)
        return S.linear([ops.indirect_indexing(b, bins, check=False, wrap_negative=False)], [1], out.offset)

    def value(idx):
        inside, _ = placed(idx)
        return ops.where(inside, ops.constant(1, dt), ops.constant(0, dt))
    return graph().scatter_into(out, shape, where, value, "atomic_add")


_SEGMENT = {"max": "max", "min": "min", "sum": "sum", "mean": "sum", "prod": "prod"}


def _spans(bounds, by_lengths, segs, dev):
    """span(s) -> (start, end) int64 values of segment s, from 1-d lengths (a start: the
    lengths before it, summed) or offsets."""
    bl, i64 = bounds.loader(), torch.int64
    if by_lengths:
        starts = _reduce(ir.Lazy((segs, segs), i64, dev, lambda idx: ops.where(
            ops.lt(ops.index_expr(idx[1], i64), ops.index_expr(idx[0], i64)),
            ops.to_dtype(bl([idx[1]]), i64), ops.constant(0, i64))), [1], False, "sum", i64).loader()

        def span(s):
            start = starts([s])
            return start, ops.add(start, ops.to_dtype(bl([s]), i64))
        return span

    def span(s):
        return ops.to_dtype(bl([s]), i64), ops.to_dtype(bl([s + 1]), i64)
    return span


def _same(a, b):
    return ops.logical_or(ops.eq(a, b), ops.logical_and(ops.isnan(a), ops.isnan(b)))


@register(aten._segment_reduce_backward.default)
def segment_reduce_backward(grad, output, data, reduce, *, lengths=None, offsets=None, axis=0,
                            initial=None):
    """data's gradient: its segment's grad (sum), over the length (mean), or shared equally
    by the elements equal to the segment's max/min (none when initial won); prod stays
    ATen's (its zeros). An element's segment: the count of segments ending at or before it."""
    n = len(data.size)
    axis = axis + n if axis < 0 else axis
    bounds = lengths if lengths is not None else offsets
    size = tuple(data.size)
    if reduce not in ("max", "min", "sum", "mean") or bounds is None or len(bounds.size) != 1 \
            or not data.dtype.is_floating_point or n == 0 \
            or bounds.size[0] * max(math.prod(size), 1) > MAX_WORK:
        return fallback(aten._segment_reduce_backward.default, (grad, output, data, reduce),
                        {"lengths": lengths, "offsets": offsets, "axis": axis, "initial": initial})
    segs = bounds.size[0] if lengths is not None else bounds.size[0] - 1
    length, dt, dev, i64 = size[axis], data.dtype, data.device, torch.int64
    span = _spans(bounds, lengths is not None, segs, dev)
    seg = _reduce(ir.Lazy((length, segs), i64, dev, lambda idx: ops.to_dtype(
        ops.le(span(idx[1])[1], ops.index_expr(idx[0], i64)), i64)), [1], False, "sum", i64).loader()
    gl, ol, dl = grad.loader(), output.loader(), data.loader()

    def seg_of(idx):   # idx's segment (idx: data's index), as an index
        return ops.indirect_indexing(seg([idx[axis]]), max(segs, 1), check=False, wrap_negative=False)

    def at_seg(load, idx):   # load's element of idx's segment
        return load(list(idx[:axis]) + [seg_of(idx)] + list(idx[axis + 1:]))
    if reduce in ("max", "min"):
        out_size = size[:axis] + (segs,) + size[axis + 1:]

        def tie(idx):   # (output index..., j): data's element j is in the segment and its extreme
            lo, hi = span(idx[axis])
            j = ops.index_expr(idx[-1], i64)
            v = dl(list(idx[:axis]) + [idx[-1]] + list(idx[axis + 1:-1]))
            hit = ops.logical_and(ops.logical_and(ops.ge(j, lo), ops.lt(j, hi)), _same(v, ol(list(idx[:-1]))))
            return ops.to_dtype(hit, dt)
        ties = _reduce(ir.Lazy(out_size + (length,), dt, dev, tie), [len(out_size)], False, "sum",
                       dt).loader()

    def inner(idx):
        g = at_seg(gl, idx)
        if reduce == "sum":
            return g
        if reduce == "mean":
            lo, hi = span(seg_of(idx))
            return ops.truediv(g, ops.to_dtype(ops.sub(hi, lo), dt))
        hit = _same(dl(list(idx)), at_seg(ol, idx))
        return ops.where(hit, ops.truediv(g, at_seg(ties, idx)), ops.constant(0.0, dt))
    return ir.Lazy(size, dt, dev, inner)


@register(aten.segment_reduce.default, aten.segment_reduce)
def segment_reduce(data, reduce, lengths=None, indices=None, offsets=None, axis=0, unsafe=False,
                   initial=None):
    """data's consecutive segments along axis (1-d lengths, or offsets: segment s is
    [offsets[s], offsets[s+1])) each reduced, starting from `initial` when given (the
    reduction's identity else); NaNs propagate. mean is (initial + sum) / length, an empty
    segment giving initial (NaN without one). Each output element scans the whole axis."""
    n = len(data.size)
    axis = axis + n if axis < 0 else axis
    bounds = lengths if lengths is not None else offsets
    if reduce not in _SEGMENT or indices is not None or bounds is None or len(bounds.size) != 1 \
            or not data.dtype.is_floating_point or n == 0:
        return fallback(aten.segment_reduce.default, (data, reduce),
                        {"lengths": lengths, "indices": indices, "offsets": offsets, "axis": axis,
                         "unsafe": unsafe, "initial": initial})
    size = tuple(data.size)
    segs = bounds.size[0] if lengths is not None else bounds.size[0] - 1
    length = size[axis]
    if segs * max(math.prod(size), 1) > MAX_WORK:   # (symbolic sizes: guarded)
        return fallback(aten.segment_reduce.default, (data, reduce),
                        {"lengths": lengths, "indices": indices, "offsets": offsets, "axis": axis,
                         "unsafe": unsafe, "initial": initial})
    dl, dt, dev = data.loader(), data.dtype, data.device
    i64 = torch.int64
    span = _spans(bounds, lengths is not None, segs, dev)
    out_size = size[:axis] + (segs,) + size[axis + 1:]
    rtype = _SEGMENT[reduce]

    def member(idx):   # (output index..., j): data's element j along axis, in the segment or not
        lo, hi = span(idx[axis])
        j = ops.index_expr(idx[-1], i64)
        inside = ops.logical_and(ops.ge(j, lo), ops.lt(j, hi))
        v = dl(list(idx[:axis]) + [idx[-1]] + list(idx[axis + 1:-1]))
        return ops.where(inside, v, ops.constant(ir.reduction_identity(rtype, dt), dt))
    red = _reduce(ir.Lazy(out_size + (length,), dt, dev, member), [len(out_size)], False, rtype, dt)
    rl = red.loader()
    init = initial

    def finish(idx):
        r = rl(list(idx))
        if reduce == "mean":
            lo, hi = span(idx[axis])
            count = ops.to_dtype(ops.sub(hi, lo), dt)
            total = r if init is None else ops.add(r, ops.constant(init, dt))
            empty = ops.constant(float("nan") if init is None else init, dt)
            return ops.where(ops.gt(count, ops.constant(0.0, dt)), ops.truediv(total, count), empty)
        if init is None:
            return r
        c = ops.constant(init, dt)
        if reduce == "sum":
            return ops.add(c, r)
        if reduce == "prod":
            return ops.mul(c, r)
        pick = ops.maximum(c, r) if reduce == "max" else ops.minimum(c, r)
        return ops.where(ops.isnan(r), r, pick)
    return ir.Lazy(out_size, dt, dev, finish)
