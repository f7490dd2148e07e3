"""Decompositions of our own, merged into PyTorch's (torch_compat.decomposition_table): ATen
ops without one in PyTorch's table, written as ATen ops the compiler lowers, with eager's
results (each says how it meets eager's edge cases). A function returns NotImplemented for an
input it does not handle (the op then stays whole, an ATen call)."""
from __future__ import annotations

import math

import torch

from .decompositions_nn import DECOMPOSITIONS_NN

aten = torch.ops.aten


def _addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    """beta * self + alpha * sum_b batch1[b] @ batch2[b] as one addmm: the batch folded into
    the reduced dim, (n, b*m) @ (b*m, p); a matmul stays on the matmul path (extern or
    template), as addmm and bmm do."""
    b, n, m = batch1.shape
    p = batch2.shape[2]
    a = aten.reshape(aten.permute(batch1, [1, 0, 2]), [n, b * m])
    c = aten.reshape(batch2, [b * m, p])
    return aten.addmm(self, a, c, beta=beta, alpha=alpha)


def _angle(x):
    """The argument of a real number: pi below 0 (not at -0.0), 0 otherwise, NaN kept; an
    integer input gives the default float dtype, as eager."""
    if x.is_complex():
        return NotImplemented
    if not x.dtype.is_floating_point:
        x = aten._to_copy(x, dtype=torch.get_default_dtype())
    # pi and 0 in x's dtype: Python floats would promote a half input's result to float32
    pi, zero = (aten.scalar_tensor(v, dtype=x.dtype, device=x.device) for v in (math.pi, 0.0))
    return aten.where(aten.isnan(x), x, aten.where(aten.lt(x, 0), pi, zero))


def _frexp(x):
    """(mantissa, exponent) with x = m * 2^e, 0.5 <= |m| < 1: e from log2 (off by at most one
    at a power of two, which one step either way fixes), m = x / 2^e in two exact halvings
    (2^e alone overflows at e = 128 and is subnormal below -126). 0, inf and NaN give (x, 0),
    as eager. Half precision is computed in float32."""
    if not x.dtype.is_floating_point:
        return NotImplemented
    xc = aten._to_copy(x, dtype=torch.float32) if x.element_size() < 4 else x
    a = aten.abs(xc)
    ok = aten.logical_and(aten.ne(a, 0), aten.lt(a, math.inf))
    e = aten.add(aten.floor(aten.log2(aten.where(ok, a, 1.0))), 1)
    h = aten.floor(aten.div(e, 2))
    m = aten.div(aten.div(xc, aten.pow(2.0, h)), aten.pow(2.0, aten.sub(e, h)))
    am = aten.abs(m)
    up, down = aten.ge(am, 1.0), aten.lt(am, 0.5)
    m = aten.where(up, aten.mul(m, 0.5), aten.where(down, aten.mul(m, 2.0), m))
    e = aten.where(up, aten.add(e, 1), aten.where(down, aten.sub(e, 1), e))
    m = aten.where(ok, m, xc)
    e = aten.where(ok, e, 0.0)
    return aten._to_copy(m, dtype=x.dtype), aten._to_copy(e, dtype=torch.int32)


def _ldexp(x, other):
    """x * 2^other. An integer exponent scales exactly, rounded once, as eager (PyTorch's own
    decomposition, x * pow(2, other) in x's dtype, overflows 2^e first: ldexp(1e-45, 200)
    came out inf, eager's is 2.3e15): below float64 in float64, where the product is exact,
    with e clamped to +-1000 (beyond, every result is 0 or inf there too); float64 by three
    factors of at most 2^734 (a result below float64's normals may round twice). A
    floating exponent is x * pow(2, other) in the result dtype, as eager."""
    if x.is_complex() or other.is_complex():
        return NotImplemented
    out = torch.result_type(x, other)
    if not out.is_floating_point:
        out = torch.get_default_dtype()
    xo = aten._to_copy(x, dtype=out) if x.dtype != out else x
    if other.dtype.is_floating_point:
        return aten.mul(xo, aten.pow(aten.full([], 2.0, dtype=out, device=x.device), other))
    f64 = torch.float64

    def scale(e):
        return aten.pow(2.0, aten._to_copy(e, dtype=f64))
    if out != f64:
        e = aten.clamp(aten._to_copy(other, dtype=torch.int64), -1000, 1000)
        y = aten.mul(aten._to_copy(xo, dtype=f64), scale(e))
        return aten._to_copy(y, dtype=out)
    e = aten.clamp(aten._to_copy(other, dtype=torch.int64), -2200, 2200)
    a = aten.div(e, 3, rounding_mode="floor")
    b = aten.div(aten.sub(e, a), 2, rounding_mode="floor")
    c = aten.sub(aten.sub(e, a), b)
    return aten.mul(aten.mul(aten.mul(xo, scale(a)), scale(b)), scale(c))


def _edges(col, bins, range_):
    """bins + 1 equal-width edges over range_ (lo, hi) or col's own range (a single value
    widened by 0.5 each way), in col's dtype as eager's linspace computes them: the step
    (hi - lo) / bins, the first half lo + step * i, the rest hi - step * (bins - i)."""
    dt, dev = col.dtype, col.device
    if range_ is not None:
        lo, hi = float(range_[0]), float(range_[1])
        lo, hi = (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)
        lo, hi = aten.full([], lo, dtype=dt, device=dev), aten.full([], hi, dtype=dt, device=dev)
    else:
        lo, hi = aten.amin(col), aten.amax(col)
        same = aten.eq(lo, hi)
        lo, hi = aten.where(same, aten.sub(lo, 0.5), lo), aten.where(same, aten.add(hi, 0.5), hi)
    i = aten.arange(bins + 1, dtype=dt, device=dev)
    step = aten.div(aten.sub(hi, lo), bins)
    return aten.where(aten.lt(i, (bins + 1) // 2), aten.add(lo, aten.mul(step, i)),
                      aten.sub(hi, aten.mul(step, aten.sub(bins, i))))


def _bin_of(col, edges):
    """(inside, bin) per element: the last edge at or below it (the last edge: the last
    bin); outside the edges, and NaN, is not inside."""
    inside = aten.logical_and(aten.ge(col, edges[0]), aten.le(col, edges[-1]))
    at = aten.clamp(aten.sub(aten.searchsorted(edges, col, right=True), 1), 0, edges.shape[0] - 2)
    return inside, at


def _histogram_counts(x, points, edges, weight, density):
    """The histogram of `points` (n, d) over per-dim `edges`: counts (or weights) added per
    bin, density divided by the total, then by each dim's bin widths, as eager does."""
    nbins = [e.shape[0] - 1 for e in edges]
    inside, flat = None, None
    for d, e in enumerate(edges):
        ok, at = _bin_of(points[:, d], e)
        inside = ok if inside is None else aten.logical_and(inside, ok)
        flat = at if flat is None else aten.add(aten.mul(flat, nbins[d]), at)
    w = aten.ones([points.shape[0]], dtype=x.dtype, device=x.device) if weight is None \
        else aten.reshape(weight, [-1])
    hist = aten.scatter_add(aten.zeros([math.prod(nbins)], dtype=x.dtype, device=x.device), 0, flat,
                            aten.where(inside, w, aten.zeros_like(w)))
    hist = aten.reshape(hist, nbins)
    if density:
        hist = aten.div(hist, aten.sum(hist))
        for d, e in enumerate(edges):
            shape = [1] * len(edges)
            shape[d] = nbins[d]
            hist = aten.div(hist, aten.reshape(aten.sub(e[1:], e[:-1]), shape))
    return hist


def _histogram_bin_ct(x, bins=100, *, range=None, weight=None, density=False):
    """torch.histogram with a bin count (edges: _edges), counted as over given edges."""
    if not x.dtype.is_floating_point or bins <= 0 or (range is None and x.numel() == 0):
        return NotImplemented
    edges = _edges(aten.reshape(x, [-1]), bins, range)
    return _histogram_bins_tensor(x, edges, weight=weight, density=density)


def _histogram_bins_tensor(x, bins, *, weight=None, density=False):
    """torch.histogram over the edges `bins` (_histogram_counts); the edges returned as a copy."""
    if not x.dtype.is_floating_point or bins.dim() != 1 or bins.shape[0] < 2:
        return NotImplemented
    return _histogram_counts(x, aten.reshape(x, [-1, 1]), [bins], weight, density), aten.clone(bins)


def _dd_edges(x, bins, range_):
    d = x.shape[-1]
    points = aten.reshape(x, [-1, d])
    return [_edges(points[:, i], bins[i], None if range_ is None else range_[2 * i:2 * i + 2])
            for i in range(d)]


def _histogramdd_ok(x, bins, range_):
    return x.dtype.is_floating_point and x.dim() >= 1 and len(bins) == x.shape[-1] and \
        all(b > 0 for b in bins) and (range_ is not None or x.numel() > 0)


def _histogramdd_bin_edges(x, bins, *, range=None, weight=None, density=False):
    """torch.histogramdd's edges per dim (_edges of each coordinate column)."""
    if not _histogramdd_ok(x, bins, range):
        return NotImplemented
    return _dd_edges(x, bins, range)


def _histogramdd_from_bin_cts(x, bins, *, range=None, weight=None, density=False):
    """torch.histogramdd's counts with a bin count per dim (its edges: _dd_edges)."""
    if not _histogramdd_ok(x, bins, range):
        return NotImplemented
    return _histogram_counts(x, aten.reshape(x, [-1, x.shape[-1]]), _dd_edges(x, bins, range),
                             weight, density)


def _histogramdd_from_bin_tensors(x, bins, *, weight=None, density=False):
    """torch.histogramdd's counts over given edges per dim."""
    if not x.dtype.is_floating_point or x.dim() < 1 or len(bins) != x.shape[-1]:
        return NotImplemented
    return _histogram_counts(x, aten.reshape(x, [-1, x.shape[-1]]), list(bins), weight, density)


def _multinomial(p, num_samples, replacement=False, *, generator=None):
    """torch.multinomial drawn by generated kernels (compiler/lowerings/random.py's Philox, so
    other numbers than eager's generator streams): without replacement (or one sample) an
    exponential race, the categories of the largest p / E with E ~ Exp(1) per category; with
    replacement the first category whose normalized running sum reaches a uniform draw.
    Eager's argument checks (negative, infinite or all-zero weights) are not made. ATen draws
    it under TUNER_FALLBACK_RANDOM=1, or with a generator of the caller's."""
    from tuner.settings import settings
    if (settings.fallback_random == "all" or generator is not None or not p.dtype.is_floating_point
            or p.dim() not in (1, 2) or p.numel() == 0 or num_samples <= 0):
        return NotImplemented
    if not replacement or num_samples == 1:
        race = aten.div(p, aten.exponential(aten.empty_like(p)))
        if num_samples == 1:
            return aten.argmax(race, -1, True)
        return aten.topk(race, num_samples)[1]
    cdf = aten.cumsum(p, -1)
    cdf = aten.div(cdf, aten.slice(cdf, -1, p.shape[-1] - 1, p.shape[-1]))
    u = aten.rand(list(p.shape[:-1]) + [num_samples], dtype=p.dtype, device=p.device)
    return aten.clamp(aten.searchsorted(cdf, u), 0, p.shape[-1] - 1)


DECOMPOSITIONS = {
    aten.multinomial.default: _multinomial,
    aten.histogram.bin_ct: _histogram_bin_ct,
    aten.histogram.bins_tensor: _histogram_bins_tensor,
    aten._histogramdd_bin_edges.default: _histogramdd_bin_edges,
    aten._histogramdd_from_bin_cts.default: _histogramdd_from_bin_cts,
    aten._histogramdd_from_bin_tensors.default: _histogramdd_from_bin_tensors,
    aten.ldexp.Tensor: _ldexp,
    aten.addbmm.default: _addbmm,
    aten.angle.default: _angle,
    aten.frexp.Tensor: _frexp,
}
DECOMPOSITIONS.update(DECOMPOSITIONS_NN)
