"""Builders and copies: full/zeros/ones/empty (+ _like), scalar_tensor, arange/iota, cat,
constant_pad_nd, copy (functional) and copy_ (mutation), fill."""
from __future__ import annotations

import functools
import math

import sympy
import torch

from .. import ir
from ..pool_offsets import pair as _pair   # (importing it defines tuner::max_pool2d_offsets)
from ..lowering import full_value, graph, loader_for, make_pointwise, realize, register
from ..ops import ops
from ..sizes import SymFloat, SymSize, surely
from ..sym import FloorDiv, ModIdx
from ..torch_compat import aten, prims


def _dev(device):
    return torch.device(device) if device is not None else graph().device


def _dt(dtype, value=None):
    if dtype is not None:
        return dtype
    if isinstance(value, bool):
        return torch.bool
    if isinstance(value, int):
        return torch.int64
    return torch.get_default_dtype()


@register(aten.full.default, aten.full)
def full(size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    return full_value(tuple(size), fill_value, _dt(dtype, fill_value), _dev(device))


@register(aten.scalar_tensor)
def scalar_tensor(value, dtype=None, layout=None, device=None, pin_memory=None):
    return full_value((), value, _dt(dtype, value) if dtype else torch.float32, _dev(device))


def _like(value):
    def lower(x, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        return full_value(tuple(x.size), value, dtype or x.dtype, _dev(device) if device else x.device)
    return lower


register(aten.zeros_like)(_like(0))
register(aten.ones_like)(_like(1))
register(aten.empty_like)(_like(0))


@register(aten.full_like)
def full_like(x, fill_value, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return full_value(tuple(x.size), fill_value, dtype or x.dtype, _dev(device) if device else x.device)


def _sized(value):
    def lower(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        return full_value(tuple(size), value, _dt(dtype), _dev(device))
    return lower


register(aten.zeros.default, aten.zeros)(_sized(0))
register(aten.ones.default, aten.ones)(_sized(1))
register(aten.empty.memory_format, aten.empty)(_sized(0))


@register(aten.empty_strided)
def empty_strided(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    return full_value(tuple(size), 0, _dt(dtype), _dev(device))


@register(aten.new_empty_strided)
def new_empty_strided(x, size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    # (as empty_strided: the output's layout comes from the graph's meta where it is stored)
    return full_value(tuple(size), 0, dtype or x.dtype, _dev(device) if device else x.device)


@register(aten.empty_permuted)
def empty_permuted(size, physical_layout, dtype=None, layout=None, device=None, pin_memory=None):
    # (empty_like decomposes to it; the layout is the output's, applied where it is stored)
    return full_value(tuple(size), 0, _dt(dtype), _dev(device))


@register(aten.new_zeros, aten.new_ones, aten.new_empty, aten.new_full)
def _new(x, size, *rest, dtype=None, layout=None, device=None, pin_memory=None):
    value = rest[0] if rest else 0
    return full_value(tuple(size), value, dtype or x.dtype, _dev(device) if device else x.device)


@register(aten.fill.Scalar, aten.fill.Tensor)
def fill(x, value):
    if isinstance(value, ir.TensorValue):
        return make_pointwise(lambda v, f: f, [x, value], x.dtype, x.dtype)
    return full_value(tuple(x.size), value, x.dtype, x.device)


@register(aten.arange.start_step, aten.arange.start, aten.arange.default, aten.arange)
def arange(start, end=None, step=1, dtype=None, layout=None, device=None, pin_memory=None):
    if end is None:
        start, end = 0, start
    ints = all(isinstance(v, (int, SymSize)) and not isinstance(v, SymFloat)
               for v in (start, end, step))   # (sizes are ints)
    if ints and step > 0:   # (a size step: trace's backward strides a diagonal by n + 1)
        n = max(0, (end - start + step - 1) // step)
    elif ints:
        n = max(0, (start - end - step - 1) // -step)
    else:
        n = max(0, math.ceil((end - start) / step))
    if dtype is None:
        dtype = torch.int64 if ints else torch.get_default_dtype()
    calc = torch.float64 if dtype.is_floating_point else torch.int64

    def inner(idx):
        i = ops.index_expr(idx[0], torch.int64)
        v = ops.add(ops.constant(start, calc), ops.mul(ops.to_dtype(i, calc), ops.constant(step, calc)))
        return ops.to_dtype(v, dtype)
    return ir.Lazy((n,), dtype, _dev(device), inner)


@register(prims.iota)
def iota(length, start=0, step=1, dtype=torch.int64, device=None, requires_grad=False):
    return arange(start, start + length * step, step, dtype=dtype, device=device)


@register(aten.cat.default, aten.cat, aten.concat)
def cat(tensors, dim=0):
    tensors = [t for t in tensors if not (len(t.size) == 1 and t.size[0] == 0)]
    n = len(tensors[0].size)
    dim = dim + n if dim < 0 else dim
    size = list(tensors[0].size)
    size[dim] = sum(t.size[dim] for t in tensors)
    dtype = functools.reduce(torch.promote_types, [t.dtype for t in tensors])
    loaders, bounds, off = [], [], 0
    for t in tensors:
        loaders.append(loader_for(t, t.size, dtype))
        bounds.append((off, off + t.size[dim]))
        off += t.size[dim]

    def inner(idx):
        pos = ops.index_expr(idx[dim], torch.int64)
        out = None
        for k in range(len(tensors) - 1, -1, -1):
            lo, hi = bounds[k]
            if hi == lo:
                continue
            shifted = list(idx)
            shifted[dim] = idx[dim] - lo
            ld = loaders[k]
            if out is None:
                out = _masked_from(pos, lo, lambda s=shifted, l=ld: l(s))
                continue
            cond = _in_range(pos, lo, hi)
            out = ops.where(cond, ops.masked(cond, lambda s=shifted, l=ld: l(s), 0), out)
        return out
    return ir.Lazy(tuple(size), dtype, tensors[0].device, inner)


def _in_range(pos, lo, hi):
    c = ops.lt(pos, ops.constant(hi, torch.int64))
    if lo > 0:
        c = ops.logical_and(ops.ge(pos, ops.constant(lo, torch.int64)), c)
    return c


def _masked_from(pos, lo, body):
    """body() where pos >= lo (the last part of a cat: no upper bound to check)."""
    if lo == 0:
        return body()
    cond = ops.ge(pos, ops.constant(lo, torch.int64))
    return ops.masked(cond, body, 0)


@register(aten.slice_scatter.default)
def slice_scatter(x, src, dim=0, start=None, end=None, step=1):
    """x with src written over x[..., start:end:step, ...] along dim: one pointwise value (what
    functionalization makes of `t[:, a:b] = v`, KV-cache updates), fused with its consumers
    instead of an ATen copy of the whole of x."""
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    size = x.size[dim]
    start = 0 if start is None else (start + size if start < 0 else start)
    end = size if end is None else (end + size if end < 0 else end)
    start, end = max(0, min(start, size)), max(0, min(end, size))
    if end <= start:
        return x
    ldx = x.loader()
    lds = loader_for(src, src.size, x.dtype)

    def inner(idx):
        pos = ops.index_expr(idx[dim], torch.int64)
        cond = _in_range(pos, start, end)
        shifted = list(idx)
        shifted[dim] = idx[dim] - start
        if step != 1:   # every step-th position from start (the backward of x[..., ::2]: GPT-J)
            on_step = ops.eq(ops.index_expr(ModIdx(idx[dim] - start, step), torch.int64),
                             ops.constant(0, torch.int64))
            cond = ops.logical_and(cond, on_step)
            shifted[dim] = FloorDiv(idx[dim] - start, step)   # read only where cond holds
        return ops.where(cond, ops.masked(cond, lambda: lds(shifted), 0), ldx(idx))
    return ir.Lazy(tuple(x.size), x.dtype, x.device, inner)


@register(aten.select_scatter.default)
def select_scatter(x, src, dim, index):
    """x with src written over x.select(dim, index)."""
    n = len(x.size)
    dim = dim + n if dim < 0 else dim
    index = index + x.size[dim] if index < 0 else index
    ldx = x.loader()
    lds = loader_for(src, src.size, x.dtype)

    def inner(idx):
        pos = ops.index_expr(idx[dim], torch.int64)
        cond = ops.eq(pos, ops.constant(index, torch.int64))
        rest = list(idx[:dim]) + list(idx[dim + 1:])
        return ops.where(cond, ops.masked(cond, lambda: lds(rest), 0), ldx(idx))
    return ir.Lazy(tuple(x.size), x.dtype, x.device, inner)


@register(aten.diagonal_scatter.default)
def diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    """x with src written over x.diagonal(offset, dim1, dim2) (the backward of diagonal, diag,
    trace): src's last dim runs along the diagonal, its others are x's other dims in order."""
    n = len(x.size)
    dim1, dim2 = dim1 + n if dim1 < 0 else dim1, dim2 + n if dim2 < 0 else dim2
    length = min(x.size[dim1] + min(offset, 0), x.size[dim2] - max(offset, 0))
    if length <= 0:
        return x
    ldx = x.loader()
    lds = loader_for(src, src.size, x.dtype)

    def inner(idx):
        a, b = idx[dim1], idx[dim2]
        # on the diagonal: b - a == offset; its position along it is min(a, b) shifted to 0
        cond = ops.eq(ops.index_expr(b + max(-offset, 0), torch.int64),
                      ops.index_expr(a + max(offset, 0), torch.int64))
        k = a if offset >= 0 else b
        rest = [v for d, v in enumerate(idx) if d not in (dim1, dim2)] + [k]
        return ops.where(cond, ops.masked(cond, lambda: lds(rest), 0), ldx(idx))
    return ir.Lazy(tuple(x.size), x.dtype, x.device, inner)


@register(aten.constant_pad_nd)
def constant_pad_nd(x, pad, value=0):
    if all(p == 0 for p in pad) and isinstance(x, ir.View) and not _feeds_output() \
            and not _written_in_place(x):
        # a zero-width pad ('same' padding that works out to nothing: MaxViT's avg pools) is x
        # itself: no copy when an ATen call or several consumers need it in memory. Not when
        # it reaches a graph output (through views too: eager returns a new tensor, which must
        # not alias x) or when x's storage is written in place later (it holds the old values)
        return x
    n = len(x.size)
    size = list(x.size)
    lows = [0] * n
    for i in range(len(pad) // 2):
        d = n - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        lows[d] = lo
        size[d] = x.size[d] + lo + hi
    ld = x.loader()

    def inner(idx):
        cond, src = None, []
        for d in range(n):
            if lows[d] == 0 and size[d] == x.size[d]:
                src.append(idx[d])
                continue
            p = ops.index_expr(idx[d], torch.int64)
            c = ops.logical_and(ops.ge(p, ops.constant(lows[d], torch.int64)),
                                ops.lt(p, ops.constant(lows[d] + x.size[d], torch.int64)))
            cond = c if cond is None else ops.logical_and(cond, c)
            src.append(idx[d] - lows[d])
        if cond is None:
            return ld(src)
        return ops.where(cond, ops.masked(cond, lambda: ld(src), value), ops.constant(value, x.dtype))
    return ir.Lazy(tuple(size), x.dtype, x.device, inner)


def _feeds_output() -> bool:
    """The FX node being lowered reaches the graph's outputs, itself or through views of it
    (a view of it returned would alias its input)."""
    from ..op_tables import view_base
    cur = getattr(graph(), "current", None)
    if cur is None:
        return True
    todo, seen = [cur], set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        for u in n.users:
            if u.op == "output":
                return True
            if view_base(u) is n:
                todo.append(u)
    return False


def _written_in_place(x) -> bool:
    """Whether the storage behind view x is written in place anywhere in the graph."""
    written = graph().written_buffers()
    return x.buffer.name in written or ir.storage_name(x.buffer) in written


@register(aten.copy.default, aten.copy)
def copy(dst, src, non_blocking=False):
    # src broadcast to dst's shape in dst's dtype; dst's values are never read (a read would
    # tie this value to dst's producer: `t[:, i] = v` could not fuse)
    return ir.Lazy(tuple(dst.size), dst.dtype, dst.device, loader_for(src, dst.size, dst.dtype))


@register(aten.copy_.default, aten.copy_)
def copy_(dst, src, non_blocking=False):
    if not isinstance(dst, ir.View):
        dst = realize(dst)
    return graph().write_into(dst, loader_for(src, dst.size, dst.dtype), src=src)


def _pool_out(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:   # the last window must start inside
        out -= 1
    return out


def _overlaps(n, out, k, s, p, d):
    """Whether two windows along an axis (n inputs, out outputs) read the same input; with
    symbolic sizes, whether a window is wider than the stride (a speed choice either way)."""
    if not isinstance(n, int) or not isinstance(out, int):
        return (k - 1) * d + 1 > s
    seen = set()
    for o in range(out):
        for i in range(k):
            e = o * s - p + i * d
            if 0 <= e < n:
                if e in seen:
                    return True
                seen.add(e)
    return False


def _window_input(x, size, kernel, stride, padding, dilation):
    """x as a 2-d window (kh, kw over its last two dims; `size` the output's) reads it: stored
    first where windows overlap and its work at every tap costs more than a store
    (GraphLowering.window_input), else x itself, inlined into each tap."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    (H, W), (OH, OW) = x.size[-2:], size[-2:]
    overlap = _overlaps(H, OH, kh, sh, ph, dh) or _overlaps(W, OW, kw, sw, pw, dw)
    n = len(x.size)
    return graph().window_input(x, (n - 2, n - 1), kh * kw if overlap else 1)


@register(aten.max_pool2d_with_indices.default)
def max_pool2d_with_indices(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Max pooling as two pointwise values over the output (the window unrolled: each output
    element reads its kh*kw inputs, padding reads as -inf): it fuses with the activation before
    it (ResNet's stem) instead of an ATen kernel re-reading the activation, unless it costs more
    to recompute at every tap than to store (`_window_input`: a tanh-GELU). The indices (flat
    h*W + w of the first maximum inside the input, or of the last NaN, as eager) are only
    computed where something reads them (the backward)."""
    return _max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode, offsets=False)


@register(torch.ops.tuner.max_pool2d_offsets.default)
def max_pool2d_offsets(x, kernel_size, stride, padding, dilation, ceil_mode):
    """The same values, and the winner's tap i * kw + j inside its window as int8 in place of
    its flat index (compiler/pool_offsets.py: what a training graph saves)."""
    return _max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode, offsets=True)


def _max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode, offsets):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride, (kh, kw))
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    if len(x.size) not in (3, 4) or not x.dtype.is_floating_point:
        raise NotImplementedError("max_pool2d of this rank or dtype")   # ATen runs it
    lead, (H, W) = list(x.size[:-2]), x.size[-2:]
    OH, OW = _pool_out(H, kh, sh, ph, dh, ceil_mode), _pool_out(W, kw, sw, pw, dw, ceil_mode)
    size = tuple(lead) + (OH, OW)
    x = _window_input(x, size, (kh, kw), (sh, sw), (ph, pw), (dh, dw))
    ld = x.loader()

    def taps(idx):
        """(in-bounds condition or None, loader of the tap, flat index) per window element."""
        *rest, oh, ow = idx
        out = []
        for i in range(kh):
            for j in range(kw):
                h, w = oh * sh - ph + i * dh, ow * sw - pw + j * dw
                conds = [_in_bounds(h, -ph + i * dh, (OH - 1) * sh - ph + i * dh, 0, H),
                         _in_bounds(w, -pw + j * dw, (OW - 1) * sw - pw + j * dw, 0, W)]
                if any(c is False for c in conds):
                    continue   # in the padding for every output (a single output row/column)
                conds = [c for c in conds if c is not True]
                cond = functools.reduce(ops.logical_and, conds) if conds else None
                out.append((cond, [*rest, h, w], i * kw + j if offsets else h * W + w))
        return out

    def value(cond, at):
        if cond is None:
            return ld(at)
        return ops.masked(cond, lambda: ld(at), float("-inf"))

    def values(idx):
        best = None
        for cond, at, _ in taps(idx):
            v = value(cond, at)
            best = v if best is None else ops.maximum(best, v)
        return best

    def indices(idx):
        best = best_i = seen = None
        for cond, at, flat in taps(idx):
            v = value(cond, at)
            i = ops.constant(flat, index_dtype) if offsets else ops.index_expr(flat, index_dtype)
            if best is None:
                best, best_i, seen = v, i, cond
                continue
            # a later tap inside the input wins if strictly greater or NaN, or if no tap so
            # far was inside (eager starts from the first input: a window of -inf never picks
            # the padding); eager keeps the first maximum and the last NaN
            take = ops.logical_or(ops.gt(v, best), ops.ne(v, v))
            if seen is not None:
                take = ops.logical_or(take, ops.logical_not(seen))
            if cond is not None:
                take = ops.logical_and(cond, take)
                seen = None if seen is None else ops.logical_or(seen, cond)
            else:
                seen = None   # (inside the input for every output from here on)
            best_i = ops.where(take, i, best_i)
            best = ops.where(take, v, best)
        return best_i
    index_dtype = torch.int8 if offsets else torch.int64
    return (ir.Lazy(size, x.dtype, x.device, values), ir.Lazy(size, index_dtype, x.device, indices))


# avg_pool2d's window is unrolled into the output's pointwise body: one masked load and add per
# window element, each input element re-read by every window covering it (from L1/L2). Up to
# 64 taps (8x8; the pools of vision models are 2x2 and 3x3, old ResNet heads' 7x7 is 49) the
# body stays a few hundred lines that Triton compiles in seconds; a larger window (a global
# pool of a 14x14 map as avg_pool2d(14): 196 loads per output) wants a reduction over the
# window, not an unrolled sum, so ATen runs it.
MAX_POOL_WINDOW = 64


def _in_bounds(e, lo_min, hi_max, lo, hi):
    """The condition lo <= e < hi for an index expression e that ranges over [lo_min, hi_max]
    on the output: True or False where that decides it for every output (a single output
    row has a constant e: the kernel would get a 0-d mask, which the Triton interpreter
    refuses in a load), else an op."""
    # (symbolic sizes: decided where every size agrees, else checked in the kernel; a guard
    # here would recompile for every other parity of a pooled size)
    below, above = surely(sympy.Lt, lo_min, lo), surely(sympy.Ge, hi_max, hi)
    if below is False and above is False:
        return True
    if surely(sympy.Lt, hi_max, lo) or surely(sympy.Ge, lo_min, hi):
        return False
    conds, pos = [], ops.index_expr(e, torch.int64)
    if below is not False:
        conds.append(ops.ge(pos, ops.constant(lo, torch.int64)))
    if above is not False:
        conds.append(ops.lt(pos, ops.constant(hi, torch.int64)))
    return functools.reduce(ops.logical_and, conds)


@register(aten.avg_pool2d.default)
def avg_pool2d(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Average pooling as a pointwise value over the output (the window unrolled as in max
    pooling, padding reads as 0): it fuses with its producer (unless `_window_input` stores it)
    and consumers instead of an ATen kernel reading a realized input. The divisor is eager's:
    divisor_override, else the window clipped to the padded input (count_include_pad; smaller
    only at a ceil_mode edge) or to the input itself, computed per output row/column only where
    it varies. The output's layout
    (channels-last kept) comes from the FX node's strides, as for any lazy value."""
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride, (kh, kw))
    ph, pw = _pair(padding)
    if len(x.size) not in (3, 4) or not x.dtype.is_floating_point:
        raise NotImplementedError("avg_pool2d of this rank or dtype")   # ATen runs it
    if kh * kw > MAX_POOL_WINDOW:
        raise NotImplementedError("avg_pool2d window too large to unroll")
    lead, (H, W) = list(x.size[:-2]), x.size[-2:]
    OH, OW = _pool_out(H, kh, sh, ph, 1, ceil_mode), _pool_out(W, kw, sw, pw, 1, ceil_mode)
    size = tuple(lead) + (OH, OW)
    acc = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    x = _window_input(x, size, (kh, kw), (sh, sw), (ph, pw), (1, 1))
    ld = x.loader()

    def axis(o, k, s, p, n, out):
        """Per window offset along one axis: (input index, load condition, count condition)."""
        taps = []
        for i in range(k):
            e, lo_min, hi_max = o * s - p + i, -p + i, (out - 1) * s - p + i
            load = _in_bounds(e, lo_min, hi_max, 0, n)
            count = _in_bounds(e, lo_min, hi_max, -p, n + p) if count_include_pad else load
            taps.append((e, load, count))
        return taps

    def count(taps):
        """The window's extent along one axis: the taps whose count condition holds."""
        n = ops.constant(sum(c is True for _, _, c in taps), torch.int64)
        for c in (c for _, _, c in taps if c is not True and c is not False):
            n = ops.add(n, ops.where(c, ops.constant(1, torch.int64), ops.constant(0, torch.int64)))
        return n

    def inner(idx):
        *rest, oh, ow = idx
        hs, ws = axis(oh, kh, sh, ph, H, OH), axis(ow, kw, sw, pw, W, OW)
        total = None
        for h, hc, _ in hs:
            for w, wc, _ in ws:
                if hc is False or wc is False:
                    continue   # padding for every output: adds 0
                conds = [c for c in (hc, wc) if c is not True]
                at = [*rest, h, w]
                if conds:
                    cond = functools.reduce(ops.logical_and, conds)
                    v = ops.masked(cond, lambda at=at: ops.to_dtype(ld(at), acc), 0.0)
                else:
                    v = ops.to_dtype(ld(at), acc)
                total = v if total is None else ops.add(total, v)
        if divisor_override:
            div = ops.constant(float(divisor_override), acc)
        elif all(c is True for _, _, c in hs + ws):
            div = ops.constant(float(kh * kw), acc)
        else:
            div = ops.to_dtype(ops.mul(count(hs), count(ws)), acc)
        return ops.to_dtype(ops.truediv(total, div), x.dtype)
    return ir.Lazy(size, x.dtype, x.device, inner)
