"""Views as index maps: on a realized buffer they only change strides/offset (no copy);
on a lazy value they compose an index map into its inner function."""
from __future__ import annotations

import math

import torch

from .. import ir
from .. import sym as S
from ..lowering import fallback, realize, register
from ..sizes import concrete, view_strides
from ..torch_compat import aten, prims


def _norm(d, n):
    return d + n if d < 0 else d


def _remap(x, size, index_map):
    """Lazy value of `size` whose element idx is x[index_map(idx)]."""
    inner = x.loader()
    return ir.Lazy(tuple(size), x.dtype, x.device, lambda idx: inner(index_map(list(idx))))


@register(aten.permute, prims.transpose)
def permute(x, dims):
    dims = [_norm(d, len(x.size)) for d in dims]
    size = [x.size[d] for d in dims]
    if isinstance(x, ir.View):
        return ir.View(x.buffer, tuple(size), tuple(x.stride[d] for d in dims), x.offset)
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return _remap(x, size, lambda idx: [idx[inv[j]] for j in range(len(dims))])


@register(aten.t)
def t(x):
    return x if len(x.size) < 2 else permute(x, [1, 0])


@register(aten.transpose.int)
def transpose(x, a, b):
    n = len(x.size)
    dims = list(range(n))
    a, b = _norm(a, n), _norm(b, n)
    dims[a], dims[b] = dims[b], dims[a]
    return permute(x, dims)


@register(aten.expand)
def expand(x, size, implicit=False):
    size = list(size)
    lead = len(size) - len(x.size)
    size = [x.size[i - lead] if s == -1 else s for i, s in enumerate(size)]
    if isinstance(x, ir.View):
        stride = [0] * lead + [0 if (x.size[i] == 1 and size[lead + i] != 1) else x.stride[i]
                               for i in range(len(x.size))]
        return ir.View(x.buffer, tuple(size), tuple(stride), x.offset)
    return _remap(x, size, lambda idx: [0 if x.size[i] == 1 else idx[lead + i]
                                        for i in range(len(x.size))])


@register(prims.broadcast_in_dim)
def broadcast_in_dim(x, shape, broadcast_dimensions):
    s = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        s[d] = x.size[i]
    return expand(view(x, s), shape)


@register(aten.unsqueeze)
def unsqueeze(x, dim):
    dim = _norm(dim, len(x.size) + 1)
    size = list(x.size)
    size.insert(dim, 1)
    if isinstance(x, ir.View):
        stride = list(x.stride)
        # eager's stride for the new dimension: never an index coefficient (its index is 0), but
        # layout decisions read it, and so do ATen kernels fed this view, as its memory format
        # (avg_pool2d_backward on a channels-last input)
        stride.insert(dim, x.size[dim] * x.stride[dim] if dim < len(x.size) else 1)
        return ir.View(x.buffer, tuple(size), tuple(stride), x.offset)
    return _remap(x, size, lambda idx: idx[:dim] + idx[dim + 1:])


@register(aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default, aten.squeeze, prims.squeeze)
def squeeze(x, dims=None):
    n = len(x.size)
    if dims is None:
        dims = [i for i in range(n) if x.size[i] == 1]
    elif isinstance(dims, int):
        dims = [dims]
    dims = {_norm(d, n) for d in dims if x.size[_norm(d, n)] == 1} if n else set()
    keep = [i for i in range(n) if i not in dims]
    size = [x.size[i] for i in keep]
    if isinstance(x, ir.View):
        return ir.View(x.buffer, tuple(size), tuple(x.stride[i] for i in keep), x.offset)

    def index_map(idx):
        out, j = [], 0
        for i in range(n):
            if i in dims:
                out.append(0)
            else:
                out.append(idx[j])
                j += 1
        return out
    return _remap(x, size, index_map)


def _infer(size, numel):
    size = list(size)
    if -1 in size:
        k = size.index(-1)
        rest = math.prod(s for i, s in enumerate(size) if i != k)
        size[k] = numel // rest if rest else 0
    return size


@register(aten.view, aten.reshape, aten._unsafe_view, prims.reshape, aten.view.default)
def view(x, size):
    size = _infer(size, x.numel)
    if isinstance(x, ir.View) and not concrete((*x.size, *x.stride, *size)):
        if not any(n == 0 for n in x.size):
            st = view_strides(x.size, x.stride, size)
            if st is not None:
                return ir.View(x.buffer, tuple(size), tuple(st), x.offset)
    elif isinstance(x, ir.View):
        try:
            t = torch.empty_strided(x.size, x.stride, device="meta").view(size)
            return ir.View(x.buffer, tuple(size), tuple(t.stride()), x.offset)
        except (RuntimeError, ValueError):
            pass
    old = list(x.size)
    new_strides = S.contiguous_strides(size)
    if 0 in old or 0 in size:   # no element is ever read: a size-0 dim has no divisor
        return _remap(x, size, lambda idx: [0] * len(old))

    def index_map(idx):
        flat = S.linear(idx, new_strides)
        return [S.simplify(e) for e in S.unflatten(flat, old)]
    return _remap(x, size, index_map)


@register(aten.view.dtype)
def view_dtype(x, dtype):
    return fallback(aten.view.dtype, (x, dtype))


@register(aten.slice.Tensor, aten.slice)
def slice_(x, dim=0, start=None, end=None, step=1):
    n = len(x.size)
    dim = _norm(dim, n)
    length = x.size[dim]
    if concrete((length, start or 0, end or 0)):
        start, end, step = slice(start, end, step).indices(length)
    else:
        start, end = _slice_bounds(start, end, step, length)
    count = max(0, (end - start + step - 1) // step)
    size = list(x.size)
    size[dim] = count
    if isinstance(x, ir.View):
        stride = list(x.stride)
        stride[dim] = x.stride[dim] * step
        return ir.View(x.buffer, tuple(size), tuple(stride), x.offset + start * x.stride[dim])
    return _remap(x, size, lambda idx: idx[:dim] + [start + step * idx[dim]] + idx[dim + 1:])


def _slice_bounds(start, end, step, length):
    """slice(start, end, step).indices(length)'s start and end for a positive step, with
    symbolic sizes (each comparison a size decision, guarded where needed)."""
    if step <= 0:
        raise NotImplementedError("a slice with a non-positive step")
    start = 0 if start is None else start
    end = length if end is None or (isinstance(end, int) and end >= 1 << 62) else end
    if start < 0:
        start = start + length
    if end < 0:
        end = end + length
    start = length if start > length else (0 if start < 0 else start)
    end = length if end > length else (start if end < start else end)
    return start, end


@register(aten.select.int, aten.select)
def select(x, dim, index):
    n = len(x.size)
    dim = _norm(dim, n)
    index = index + x.size[dim] if index < 0 else index
    size = list(x.size[:dim]) + list(x.size[dim + 1:])
    if isinstance(x, ir.View):
        stride = list(x.stride[:dim]) + list(x.stride[dim + 1:])
        return ir.View(x.buffer, tuple(size), tuple(stride), x.offset + index * x.stride[dim])
    return _remap(x, size, lambda idx: idx[:dim] + [index] + idx[dim:])


@register(prims.rev, aten.flip)
def rev(x, dims):
    """flip (decomposed to prims.rev; a scan's gradient is one: flip, cumsum, flip): element i
    of a flipped dim reads n - 1 - i, inlined into its consumer (a scan reads its row
    backwards)."""
    n = len(x.size)
    flipped = {_norm(d, n) for d in dims}
    size = list(x.size)
    return _remap(x, size, lambda idx: [size[d] - 1 - i if d in flipped else i
                                        for d, i in enumerate(idx)])


@register(aten.as_strided, prims.as_strided)
def as_strided(x, size, stride, storage_offset=None):
    x = realize(x)
    base = x.buffer
    offset = x.offset if storage_offset is None else storage_offset - getattr(base, "storage_offset0", 0)
    return ir.View(base, tuple(size), tuple(stride), offset)


@register(aten.diagonal)
def diagonal(x, offset=0, dim1=0, dim2=1):
    x = realize(x)
    n = len(x.size)
    d1, d2 = _norm(dim1, n), _norm(dim2, n)
    if offset >= 0:
        length = max(0, min(x.size[d1], x.size[d2] - offset))
        off = x.offset + offset * x.stride[d2]
    else:
        length = max(0, min(x.size[d1] + offset, x.size[d2]))
        off = x.offset - offset * x.stride[d1]
    keep = [i for i in range(n) if i not in (d1, d2)]
    size = [x.size[i] for i in keep] + [length]
    stride = [x.stride[i] for i in keep] + [x.stride[d1] + x.stride[d2]]
    return ir.View(x.buffer, tuple(size), tuple(stride), off)


@register(aten.unfold.default)
def unfold(x, dim, size, step):
    """Tensor.unfold: windows of `size` every `step` along dim, as a strided view of x (the
    windows' dim last)."""
    x = realize(x)
    n = len(x.size)
    if n == 0:   # a 0-d x is one element: a window of size 0 or 1
        return ir.View(x.buffer, (size,), (1,), x.offset)
    d = _norm(dim, n)
    count = (x.size[d] - size) // step + 1
    sizes = list(x.size[:d]) + [count] + list(x.size[d + 1:]) + [size]
    strides = list(x.stride[:d]) + [x.stride[d] * step] + list(x.stride[d + 1:]) + [x.stride[d]]
    return ir.View(x.buffer, tuple(sizes), tuple(strides), x.offset)


@register(aten.split_with_sizes, aten.split_with_sizes.default)
def split_with_sizes(x, split_sizes, dim=0):
    # Pieces are slices (views or index maps), not an ATen call: GPT-2's q/k/v split was an
    # extern (plus three layout checks) per layer before.
    dim = _norm(dim, len(x.size))
    if sum(split_sizes) != x.size[dim]:
        raise RuntimeError(f"split_with_sizes: sizes {list(split_sizes)} do not add up to "
                           f"{x.size[dim]} (dim {dim})")
    pieces, start = [], 0
    for s in split_sizes:
        pieces.append(slice_(x, dim, start, start + s))
        start += s
    return tuple(pieces)


@register(aten.split.Tensor, aten.split)
def split(x, split_size, dim=0):
    dim = _norm(dim, len(x.size))
    n = x.size[dim]
    if n == 0:
        return (x,)
    sizes = [min(split_size, n - s) for s in range(0, n, split_size)]
    return split_with_sizes(x, sizes, dim)


@register(aten.unbind.int, aten.unbind)
def unbind(x, dim=0):
    dim = _norm(dim, len(x.size))
    return tuple(select(x, dim, i) for i in range(x.size[dim]))
