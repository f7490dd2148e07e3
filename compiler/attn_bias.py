"""The attention bias of fused SDPA kernels, stored with the aligned strides they require."""
from __future__ import annotations

import torch
import torch.fx

from . import ir

# Fused attention kernels read their bias in vectors: every stride but the last must be a
# multiple of this many elements (16 bytes of fp32, 32 of bf16/fp16: covers both)
ATTN_BIAS_ALIGN = 8


def aligned_strides(size, align):
    """Row-major strides for `size` with the last dim's row length rounded up to a multiple of
    `align` (the storage is larger than the tensor; the padding is never read)."""
    strides, step = [], 1
    for i in range(len(size) - 1, -1, -1):
        strides.append(step)
        n = max(size[i], 1) if isinstance(size[i], int) else size[i]   # (a symbolic size: >= 2)
        step *= (n + align - 1) // align * align if i == len(size) - 1 else n
    return tuple(reversed(strides))


class AttnBiasAlignment:
    """GraphLowering's SDPA bias methods (use its `current` FX node and `realize`)."""

    def _aligned_attn_bias(self, op, args, kwargs):
        """The attention bias of a fused SDPA kernel (efficient, cuDNN; forward and backward)
        realized with every stride but the last a multiple of ATTN_BIAS_ALIGN elements: the
        kernels refuse others at run time (MaxViT's 49 x 49 relative-position bias, stride
        4802). A bias already in memory with such strides (a broadcast one: stride 0) is kept;
        otherwise it is stored with its last dim padded, the padding never read."""
        schema = getattr(op, "_schema", None)
        if schema is None or "attention" not in schema.name:
            return args, kwargs
        names = [a.name for a in schema.arguments]
        if "attn_bias" not in names:
            return args, kwargs
        i = names.index("attn_bias")
        in_kwargs = i >= len(args)
        bias = kwargs.get("attn_bias") if in_kwargs else args[i]
        if not isinstance(bias, ir.TensorValue) or len(bias.size) < 2:
            return args, kwargs
        if isinstance(bias, ir.View) and bias.stride[-1] == 1 and \
                all(st % ATTN_BIAS_ALIGN == 0 for st in bias.stride[:-1]) and \
                bias.offset % ATTN_BIAS_ALIGN == 0:
            return args, kwargs
        fx = None
        if self.current is not None and self.current.target is op:
            fx = self.current.kwargs.get("attn_bias") if in_kwargs else \
                (self.current.args[i] if i < len(self.current.args) else None)
        val = fx.meta.get("val") if isinstance(fx, torch.fx.Node) else None
        broadcast = set()
        if isinstance(val, torch.Tensor) and self.shape(val) == tuple(bias.size):
            broadcast = {d for d, (n, st) in enumerate(zip(self.shape(val), self.stride(val)))
                         if st == 0 and n > 1}
        bias = self._store_aligned(bias, broadcast)
        if in_kwargs:
            return args, {**kwargs, "attn_bias": bias}
        return type(args)(args[:i]) + (bias,) + type(args)(args[i + 1:]), kwargs

    def _store_aligned(self, value, broadcast=()):
        """value stored with aligned strides (aligned_strides); the dims it broadcasts (stride 0
        in a View or in its FX value, `broadcast`: a mask expanded over heads) stay broadcast,
        only the rest is stored."""
        size = tuple(value.size)
        bdims = set(broadcast)
        if isinstance(value, ir.View):
            bdims |= {i for i, (n, st) in enumerate(zip(size, value.stride)) if st == 0 and n > 1}
        if not bdims:
            return self.realize(value, force=True, stride=aligned_strides(size, ATTN_BIAS_ALIGN))
        ld = value.loader()
        small = tuple(1 if i in bdims else n for i, n in enumerate(size))
        lazy = ir.Lazy(small, value.dtype, value.device,
                       lambda idx: ld([0 if i in bdims else v for i, v in enumerate(idx)]))
        out = self.realize(lazy, force=True, stride=aligned_strides(small, ATTN_BIAS_ALIGN))
        return ir.View(out.buffer, size, tuple(0 if i in bdims else st for i, st in enumerate(out.stride)), 0)
