"""The layout rule: the strides a realized value gets (its lowering's or FX meta value's hint,
else the memory order of its main input, as eager's TensorIterator does) and the strides an
output is stored in (those its FX meta value promises), with the stride predicates they use."""
from __future__ import annotations

from . import ir
from . import sym as S
from .ops import Recorder, use


class LayoutRule:
    """GraphLowering's layout methods (use its `buffers` and `realize`)."""

    def layout_for(self, value):
        """Strides for a realized pointwise value: those its lowering or its FX node's meta value
        fixed (`stride_hint`), else the memory order of its main input (the largest input read
        in a definite order, the first on a tie), as eager's TensorIterator gives a pointwise op
        on channels-last inputs a channels-last output."""
        size = tuple(value.size)
        hint = getattr(value, "stride_hint", None)
        if hint is not None:
            return tuple(hint)
        if isinstance(value, ir.View):
            if dense(size, value.stride):
                return dense_strides(size, value.stride)
            return None
        big = [i for i, s in enumerate(size) if s > 1]
        if len(big) < 2:
            return None
        idx = [S.sym(f"d{i}") for i in range(len(size))]
        rec = Recorder()
        try:
            with use(rec):
                value.loader()(idx)
        except Exception:   # a loader that cannot run symbolically: keep the default layout
            return None
        best = None
        for name, index in rec.reads:
            buf = self.buffers.get(name)
            if buf is None:
                continue
            coeffs = [S.approx_stride(index, idx[i]) for i in range(len(size))]
            moving = [coeffs[i] for i in big]
            # an input that orders every non-trivial dim (dense or not: a slice, one part of a
            # cat); a broadcast or an irregular index says nothing about the layout
            if any(c is None or c <= 0 for c in moving) or len(set(moving)) < len(moving):
                continue
            coeffs = [c if c is not None and c > 0 else 0 for c in coeffs]
            if best is None or buf.numel > best[0]:
                best = (buf.numel, coeffs)
        if best is None:
            return None
        return dense_strides(size, best[1])

    def realize_as(self, value, stride):
        """An output in the strides its FX meta value promises. AOTAutograd hands a forward
        output saved for backward (e.g. a permuted weight) to the backward graph, which was
        traced, and so lowered, with those strides: a contiguous copy would be read wrongly.
        Strides with gaps too (a slice of a longer convolution output saved for backward:
        Mamba's causal conv1d): stored in a buffer large enough to span them. A broadcast dim
        (stride 0: an expand saved for backward) stays broadcast: the value is stored once
        along it and returned as a view with that stride 0, which the backward reads."""
        if stride is None:
            return self.realize(value)
        if isinstance(value, ir.View) and same_layout(value.size, value.stride, stride):
            return value
        size = tuple(value.size)
        bdims = {i for i, (n, st) in enumerate(zip(size, stride)) if st == 0 and n > 1}
        if bdims and len(stride) == len(size):
            small = tuple(1 if i in bdims else n for i, n in enumerate(size))
            if non_overlapping(small, stride):
                ld = value.loader()
                lazy = ir.Lazy(small, value.dtype, value.device,
                               lambda idx: ld([0 if i in bdims else v for i, v in enumerate(idx)]))
                out = self.realize(lazy, force=True, stride=tuple(stride))
                return ir.View(out.buffer, size, tuple(stride), out.offset)
        if not non_overlapping(value.size, stride):
            return self.realize(value)
        return self.realize(value, force=True, stride=tuple(stride))


def same_layout(size, a, b):
    return len(a) == len(b) and all(s <= 1 or x == y for s, x, y in zip(size, a, b))


def dense_strides(size, order_stride):
    """Dense strides for `size` in the memory order of `order_stride` (size-1 dims included)."""
    return S.dense_strides_in_order(size, ir.memory_order(size, order_stride))


def non_overlapping(size, stride, gaps=True):
    """Strides at which no two elements share memory; with gaps=False also gap-free (some
    permutation of contiguous)."""
    if len(size) != len(stride) or any(s == 0 for s in size):
        return False
    end = 1
    for st, sz in sorted((st, sz) for sz, st in zip(size, stride) if sz > 1):
        if st < end or (not gaps and st != end):
            return False
        end = st * sz
    return True


def dense(size, stride):
    """Strides of a non-overlapping, gap-free layout (some permutation of contiguous)."""
    return non_overlapping(size, stride, gaps=False)

