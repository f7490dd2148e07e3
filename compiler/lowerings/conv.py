"""Convolutions: an ATen (cuDNN) call without its bias, the bias a lazy pointwise add.

ATen runs a convolution's bias as a separate elementwise kernel after many of its convolution
kernels (depthwise and 1x1 convolutions in channels-last bf16, at least), a large share of a
conv net's GPU time that the stock compiler does not spend (docs/PERF_NOTES.md). Left lazy, the
bias add fuses into the convolution's consumers (a LayerNorm, an activation, a residual add)
and costs no pass of its own.
"""
from __future__ import annotations

from ..lowering import graph, lookup, register
from ..torch_compat import aten


@register(aten.convolution.default)
def convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    out = graph().extern(aten.convolution.default,
                         (x, weight, None, stride, padding, dilation, transposed, output_padding, groups),
                         {}, None)
    if bias is None:
        return out
    # the bias runs along the output channels, dim 1 (aten.convolution's input is batched:
    # F.conv*d add the batch dim of an unbatched input before calling it)
    nd = len(out.size)
    shape = [1] * nd
    shape[1] = out.size[1]
    b = lookup(aten.view.default)(bias, shape)
    return lookup(aten.add.Tensor)(out, b)
