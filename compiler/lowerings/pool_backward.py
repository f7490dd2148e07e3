"""Gradients of pooling and padding as pointwise values over the input: avg_pool2d_backward,
_adaptive_avg_pool2d_backward and replication_pad{1,2,3}d_backward.

Each input element sums the output gradients of the windows covering it, each divided by its
window's divisor. Along one axis the windows covering input row h are the output rows oh with
oh * s - p <= h < oh * s - p + k: at most ceil(k / s) consecutive ones ending at
(h + p) // s. The sum is unrolled over those candidates (masked where one is out of range or
its window stops short of h), so a 3x3 stride-2 pool's gradient reads 4 output gradients per
input element instead of ATen's separate kernel over a stored gradient; it fuses with the
gradient's producer and consumers like any pointwise value.
"""
from __future__ import annotations

import sympy
import torch

from .. import ir
from ..lowering import register
from ..ops import ops
from ..sym import FloorDiv
from ..torch_compat import aten
from .builders import MAX_POOL_WINDOW, _pair


def _i64(e):
    return ops.index_expr(e, torch.int64)


def _c(v):
    return ops.constant(v, torch.int64)


def _window_args(what, grad_out, x, kernel_size, stride, padding):
    """(kh, kw), (sh, sw), (ph, pw), (H, W), (OH, OW) and the accumulation dtype of a 2-d
    window gradient; raises NotImplementedError (ATen runs it) for what this module leaves."""
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride, (kh, kw))
    ph, pw = _pair(padding)
    if len(x.size) not in (3, 4) or not x.dtype.is_floating_point:   # (sizes may be symbolic)
        raise NotImplementedError(f"{what} of this rank or dtype")
    if kh * kw > MAX_POOL_WINDOW:
        raise NotImplementedError(f"{what} window too large to unroll")
    acc = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    return (kh, kw), (sh, sw), (ph, pw), tuple(x.size[-2:]), tuple(grad_out.size[-2:]), acc


def _covering(h, k, s, p, out):
    """(output index expression, its int64 value, in-range condition) of each window that may
    cover input row h: the ceil(k / s) ending at the last one starting at or before h."""
    last = FloorDiv(h + p, s)        # h + p >= 0
    rows = []
    for j in range((k + s - 1) // s):
        oi = _i64(last - j)
        rows.append((last - j, oi, ops.logical_and(ops.ge(oi, _c(0)), ops.lt(oi, _c(out)))))
    return rows


def _averaged(rest, rows_h, rows_w, ld, divisor, acc, dtype):
    """Sum over the covering windows (rows_*: (index expression, its value, condition) per
    axis) of the output gradient at (*rest, o_h, o_w) over divisor(oi_h, oi_w), masked where
    a window does not cover the element."""
    total = None
    for o_h, oi_h, c_h in rows_h:
        for o_w, oi_w, c_w in rows_w:
            div, at = divisor(oi_h, oi_w), [*rest, o_h, o_w]
            v = ops.masked(ops.logical_and(c_h, c_w),
                           lambda at=at, div=div: ops.truediv(ops.to_dtype(ld(at), acc), div), 0.0)
            total = v if total is None else ops.add(total, v)
    return ops.to_dtype(total, dtype)


@register(aten.avg_pool2d_backward.default)
def avg_pool2d_backward(grad_out, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override=None):
    """The input's gradient of avg_pool2d (eager's divisor: divisor_override, else the window
    clipped to the padded input with count_include_pad, or to the input itself). The output
    sizes come from grad_out, so ceil_mode needs no recomputing."""
    (kh, kw), (sh, sw), (ph, pw), (H, W), (OH, OW), acc = _window_args(
        "avg_pool2d_backward", grad_out, x, kernel_size, stride, padding)
    ld = grad_out.loader()

    def candidates(h, k, s, p, out):
        """(output index expression, its value, condition) of each window covering row h."""
        return [(o, oi, ops.logical_and(c, ops.gt(ops.add(ops.mul(oi, _c(s)), _c(k - p)), _i64(h))))
                for o, oi, c in _covering(h, k, s, p, out)]

    def extent(oi, k, s, p, n):
        """A window's length along one axis for the divisor."""
        start = ops.sub(ops.mul(oi, _c(s)), _c(p))
        end = ops.minimum(ops.add(start, _c(k)), _c(n + p))
        if count_include_pad:
            return ops.sub(end, start)
        return ops.sub(ops.minimum(end, _c(n)), ops.maximum(start, _c(0)))

    def divisor(oi_h, oi_w):
        if divisor_override:
            return ops.constant(float(divisor_override), acc)
        return ops.to_dtype(ops.mul(extent(oi_h, kh, sh, ph, H), extent(oi_w, kw, sw, pw, W)), acc)

    def inner(idx):
        *rest, h, w = idx
        return _averaged(rest, candidates(h, kh, sh, ph, OH), candidates(w, kw, sw, pw, OW),
                         ld, divisor, acc, x.dtype)
    return ir.Lazy(tuple(x.size), x.dtype, x.device, inner)


@register(aten._adaptive_avg_pool2d_backward.default)
def adaptive_avg_pool2d_backward(grad_out, x):
    """The input's gradient of adaptive_avg_pool2d: output row oh averages input rows
    [oh * H // OH, ceil((oh + 1) * H / OH)), so input row h is covered by the rows from
    h * OH // H while oh * H < (h + 1) * OH: at most ceil(OH / H) + 1 of them."""
    if len(x.size) not in (3, 4) or not x.dtype.is_floating_point or \
            not all(isinstance(n, int) for n in (*x.size[-2:], *grad_out.size[-2:])):
        raise NotImplementedError("adaptive_avg_pool2d_backward of this rank, dtype or symbolic sizes")
    H, W = x.size[-2:]
    OH, OW = grad_out.size[-2:]
    th, tw = -(-OH // H) + 1, -(-OW // W) + 1
    if th * tw > MAX_POOL_WINDOW:
        raise NotImplementedError("adaptive_avg_pool2d_backward window too large to unroll")
    acc = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    ld = grad_out.loader()

    def candidates(h, n, out, taps):
        """(output index expression, its int64 value, condition) per window that may cover h."""
        first = FloorDiv(h * out, n)
        rows = []
        for j in range(taps):
            o = first + j
            oi = _i64(o)
            cond = ops.logical_and(ops.lt(oi, _c(out)),
                                   ops.lt(ops.mul(oi, _c(n)), ops.mul(ops.add(_i64(h), _c(1)), _c(out))))
            rows.append((o, oi, cond))
        return rows

    def extent(oi, n, out):
        start = ops.floordiv(ops.mul(oi, _c(n)), _c(out))
        end = ops.floordiv(ops.add(ops.mul(ops.add(oi, _c(1)), _c(n)), _c(out - 1)), _c(out))
        return ops.sub(end, start)

    def inner(idx):
        *rest, h, w = idx
        return _averaged(rest, candidates(h, H, OH, th), candidates(w, W, OW, tw), ld,
                         lambda oi_h, oi_w: ops.to_dtype(ops.mul(extent(oi_h, H, OH), extent(oi_w, W, OW)),
                                                         acc), acc, x.dtype)
    return ir.Lazy(tuple(x.size), x.dtype, x.device, inner)


# a replication pad's gradient unrolls 1 + left + right taps per padded dim
MAX_REPLICATION_TAPS = 64


def _replication_pad_backward(grad_out, x, padding):
    """The input's gradient of a replication pad over the last len(padding) // 2 dims
    (padding: (left, right) pairs from the last dim backwards): element h takes grad_out at
    h + left, and an edge element also the padded positions that copied it."""
    pads = [(padding[2 * i], padding[2 * i + 1]) for i in range(len(padding) // 2)][::-1]
    nd = len(pads)
    sizes = list(x.size[-nd:])
    if not x.dtype.is_floating_point or any(p < 0 for pair in pads for p in pair):
        raise NotImplementedError("replication_pad backward of this dtype or negative pads")
    taps = 1
    for left, right in pads:
        taps *= 1 + left + right
    if taps > MAX_REPLICATION_TAPS:
        raise NotImplementedError("replication_pad backward with too many taps to unroll")
    acc = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    ld = grad_out.loader()

    def axis(h, n, left, right):
        """(grad_out index, condition or None) of each position that copied input index h."""
        out = [(h + left, None)]
        if left:
            first = ops.eq(_i64(h), _c(0))
            out += [(sympy.Integer(j), first) for j in range(left)]
        if right:
            last = ops.eq(_i64(h), _c(n - 1))
            out += [(sympy.sympify(n + left + j), last) for j in range(right)]   # (n: symbolic too)
        return out

    def inner(idx):
        rest, tail = list(idx[:-nd]), idx[-nd:]
        combos = [([], None)]
        for h, n, (left, right) in zip(tail, sizes, pads):
            combos = [(at + [i], c if cond is None else (cond if c is None else ops.logical_and(c, cond)))
                      for at, c in combos for i, cond in axis(h, n, left, right)]
        total = None
        for at, cond in combos:
            full = [*rest, *at]
            if cond is None:
                v = ops.to_dtype(ld(full), acc)
            else:
                v = ops.masked(cond, lambda full=full: ops.to_dtype(ld(full), acc), 0.0)
            total = v if total is None else ops.add(total, v)
        return ops.to_dtype(total, x.dtype)
    return ir.Lazy(tuple(x.size), x.dtype, x.device, inner)


for _op in (aten.replication_pad1d_backward.default, aten.replication_pad2d_backward.default,
            aten.replication_pad3d_backward.default):
    register(_op)(_replication_pad_backward)


@register(aten.max_pool2d_with_indices_backward.default)
def max_pool2d_backward(grad_out, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
    """The input's gradient of max_pool2d as a gather (no atomics, deterministic): element
    (h, w) sums the gradients of the covering windows whose argmax (indices, flat over the
    input's plane) is h * W + w. Dilated windows stay in ATen."""
    if _pair(dilation, (1, 1)) != (1, 1):
        raise NotImplementedError("max_pool2d backward of dilated windows")
    (kh, kw), (sh, sw), (ph, pw), (H, W), (OH, OW), acc = _window_args(
        "max_pool2d backward", grad_out, x, kernel_size, stride, padding)
    ld, ld_i = grad_out.loader(), indices.loader()

    def inner(idx):
        *rest, h, w = idx
        flat = _i64(h * W + w)
        total = None
        for o_h, _, c_h in _covering(h, kh, sh, ph, OH):
            for o_w, _, c_w in _covering(w, kw, sw, pw, OW):
                at = [*rest, o_h, o_w]
                inside = ops.logical_and(c_h, c_w)
                won = ops.masked(inside, lambda at=at: ops.eq(ops.to_dtype(ld_i(at), torch.int64), flat),
                                 False)
                v = ops.masked(ops.logical_and(inside, won),
                               lambda at=at: ops.to_dtype(ld(at), acc), 0.0)
                total = v if total is None else ops.add(total, v)
        return ops.to_dtype(total, x.dtype)
    return ir.Lazy(tuple(x.size), x.dtype, x.device, inner)
