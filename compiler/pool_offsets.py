"""2-d max pooling that remembers its winners as int8 window offsets (issue 50's memory).

A training graph's max pooling saves its indices for the backward: int64 flat positions in the
input plane, 8 bytes per output (ResNet-50 at batch 64: 98 MiB, the largest tensor the forward
saves after the activations). The decomposition here splits `max_pool2d_with_indices` into
`tuner::max_pool2d_offsets` (the values and, per output, the winner's tap inside its window,
i * kw + j, as int8) and a few pointwise ops that turn the offsets back into eager's indices.
The partitioner may recompute pointwise ops in the backward, so the forward saves the 1-byte
offsets and the backward rebuilds the indices where it reads them (fused into its gather).
Windows of more than 127 taps keep the int64 indices (ATen's op, not decomposed).

The op runs eagerly as ATen's pooling followed by the index-to-offset arithmetic (a graph
that leaves it to ATen still matches eager); its lowering is lowerings/builders.py's.
"""
from __future__ import annotations

import torch

aten = torch.ops.aten
MAX_TAPS = 127   # int8


@torch.library.custom_op("tuner::max_pool2d_offsets", mutates_args=())
def max_pool2d_offsets(x: torch.Tensor, kernel_size: list[int], stride: list[int],
                       padding: list[int], dilation: list[int],
                       ceil_mode: bool) -> tuple[torch.Tensor, torch.Tensor]:
    values, indices = aten.max_pool2d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode)
    W = x.shape[-1]
    h, w = torch.div(indices, W, rounding_mode="floor"), torch.remainder(indices, W)
    oh, ow = _positions(indices)
    i = torch.div(h - (oh * stride[0] - padding[0]), dilation[0], rounding_mode="floor")
    j = torch.div(w - (ow * stride[1] - padding[1]), dilation[1], rounding_mode="floor")
    return values, (i * kernel_size[1] + j).to(torch.int8)


@max_pool2d_offsets.register_fake
def _(x, kernel_size, stride, padding, dilation, ceil_mode):
    values, indices = aten.max_pool2d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode)
    return values, torch.empty_like(indices, dtype=torch.int8)


def _positions(t):
    """The output row and column of every element of t (broadcastable int64 aranges)."""
    OH, OW = t.shape[-2:]
    oh = torch.arange(OH, device=t.device, dtype=torch.int64).reshape(OH, 1)
    ow = torch.arange(OW, device=t.device, dtype=torch.int64)
    return oh, ow


def offsets_to_indices(offsets, kernel_size, stride, padding, dilation, width):
    """Eager's indices (h * width + w, flat in the input plane) from window offsets."""
    o = offsets.to(torch.int64)
    i = torch.div(o, kernel_size[1], rounding_mode="floor")
    j = o - i * kernel_size[1]
    oh, ow = _positions(offsets)
    h = oh * stride[0] - padding[0] + i * dilation[0]
    w = ow * stride[1] - padding[1] + j * dilation[1]
    return h * width + w


def pair(v, default=None):
    """A pooling argument (an int, or a list of one or two) as a tuple of two; `default` when
    it is None or empty (a stride left out: the kernel size)."""
    if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
        return default
    if isinstance(v, (list, tuple)):
        return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])
    return (v, v)


def max_pool2d_with_indices(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """The decomposition: offsets saved, indices rebuilt pointwise (module docstring)."""
    k = pair(kernel_size)
    s, p, d = pair(stride, k), pair(padding), pair(dilation)
    if (x.dim() not in (3, 4) or not x.dtype.is_floating_point or k[0] * k[1] > MAX_TAPS
            or not all(isinstance(v, int) for v in k + s + p + d)):
        return NotImplemented
    values, offsets = torch.ops.tuner.max_pool2d_offsets(x, k, s, p, d, ceil_mode)
    return values, offsets_to_indices(offsets, k, s, p, d, x.shape[-1])
