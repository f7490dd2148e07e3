"""Decompositions of our own for nn ops PyTorch's table lacks (or leaves to ATen in the general
case): 3-d average pooling, adaptive pooling, _trilinear (bilinear), cdist/pdist,
embedding_bag, 3-d grid sampling and antialiased bilinear resizing, replication padding's
gradient over symbolic pad amounts, written as ATen ops the compiler lowers (issue 45's OpInfo
coverage). Merged into compiler/decompositions.py's table; each says how it meets eager's edge
cases."""
from __future__ import annotations

import math

import torch

from . import pool_offsets

aten = torch.ops.aten


def _triple(v, default=None):
    if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
        return default
    if isinstance(v, (list, tuple)):
        return list(v) * 3 if len(v) == 1 else list(v)
    return [v] * 3


def _avg_pool3d(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    """avg_pool2d over (H, W), then over D: a box average is separable, and eager's divisor
    (the window clipped to the padded input, or to the input without count_include_pad) is
    the product of the per-axis extents, each of which one avg_pool2d divides by. An
    overriding divisor divides the sum once at the end."""
    kd, kh, kw = _triple(kernel_size)
    sd, sh, sw = _triple(stride, [kd, kh, kw])
    pd, ph, pw = _triple(padding)
    if x.dim() not in (4, 5) or not x.dtype.is_floating_point:
        return NotImplemented
    lead, (D, H, W) = list(x.shape[:-3]), x.shape[-3:]
    div = 1 if divisor_override else None
    y = aten.avg_pool2d(aten.reshape(x, [-1, H, W]), [kh, kw], [sh, sw], [ph, pw], ceil_mode,
                        count_include_pad, div)
    oh, ow = y.shape[-2:]
    y = aten.reshape(y, [-1, D, oh * ow])
    z = aten.avg_pool2d(y, [kd, 1], [sd, 1], [pd, 0], ceil_mode, count_include_pad, div)
    z = aten.reshape(z, lead + [z.shape[-2], oh, ow])
    return aten.div(z, divisor_override) if divisor_override else z


def _opmath(t):
    """A float16/bfloat16 tensor in float32, where eager's kernels compute half math (it is
    rounded back once, by _rounded); any other tensor as it is."""
    return aten._to_copy(t, dtype=torch.float32) if t.dtype in (torch.float16, torch.bfloat16) else t


def _rounded(t, dtype):
    """t (from _opmath) back in dtype; NotImplemented passes through."""
    return t if t is NotImplemented or t.dtype == dtype else aten._to_copy(t, dtype=dtype)


def _adaptive_avg_pool3d(x, output_size):
    """The adaptive average over (H, W) (PyTorch's _adaptive_avg_pool2d decomposition), then
    over D (H*W kept: an output size equal to the input's averages windows of one): the mean
    over a product of per-axis windows is the mean of the per-axis means."""
    od, oh, ow = _triple(output_size)
    if x.dim() not in (4, 5):
        return NotImplemented
    lead, (D, H, W) = list(x.shape[:-3]), x.shape[-3:]
    if x.numel() == 0 or 0 in (od, oh, ow):   # (an empty batch: eager's empty result)
        return aten.zeros(lead + [od, oh, ow], dtype=x.dtype, device=x.device)
    # (half: both means in float32, rounded once, as eager's GPU kernel)
    y = aten._adaptive_avg_pool2d(aten.reshape(_opmath(x), [-1, H, W]), [oh, ow])
    y = aten._adaptive_avg_pool2d(aten.reshape(y, [-1, D, oh * ow]), [od, oh * ow])
    return _rounded(aten.reshape(y, lead + [od, oh, ow]), x.dtype)


def _adaptive_windows(n_in, n_out, device):
    """Per output o along an axis of n_in inputs, the input positions (n_out, K) of its window
    [floor(o*n_in/n_out), ceil((o+1)*n_in/n_out)), K the widest: a short window repeats its
    last input (which changes neither its max nor, after the first, the maximum's index)."""
    k = max(-(-(o + 1) * n_in // n_out) - o * n_in // n_out for o in range(n_out))
    o = torch.arange(n_out, device=device, dtype=torch.int64)
    start = torch.div(o * n_in, n_out, rounding_mode="floor")
    end = torch.div((o + 1) * n_in + n_out - 1, n_out, rounding_mode="floor")
    taps = torch.arange(k, device=device, dtype=torch.int64)
    return torch.minimum(start[:, None] + taps[None, :], end[:, None] - 1)


def _pool_out(size, k, s, p, d, ceil_mode):
    """Eager's pooled length: the last window must start inside the input or its left pad."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pick(w, inside=None):
    """The max over w's last dim (a window's taps) and eager's pick among them: the last NaN of
    a window with NaNs, else its first maximum (among the taps `inside` marks, when given)."""
    values = torch.amax(w, -1)
    taps = torch.arange(w.shape[-1], device=w.device)
    last_nan = torch.amax(torch.where(torch.isnan(w), taps, -1), -1)
    hit = w == values.unsqueeze(-1)
    if inside is not None:
        hit = hit & inside
    return values, torch.where(last_nan >= 0, last_nan, torch.amin(torch.where(hit, taps, w.shape[-1]), -1))


def _window_max(x, positions):
    """Max pooling of x's last len(positions) dims over windows given per axis as input
    positions (O, K) and whether any lies outside the input (padding): the max and the flat input index
    (d * H * W + h * W + w) of eager's pick, the last NaN of a window with NaNs, else its
    first maximum inside the input (a window of -inf inside picks its first input, not the
    padding)."""
    n, lead = len(positions), x.dim() - len(positions)
    sizes, outs = list(x.shape[lead:]), [p.shape[0] for p, _ in positions]
    ks = [p.shape[1] for p, _ in positions]
    index, inside = [], None
    for d, (pos, padded) in enumerate(positions):
        shape = [1] * (2 * n)
        shape[2 * d], shape[2 * d + 1] = pos.shape
        index.append(torch.clamp(pos, 0, sizes[d] - 1).reshape(shape))
        if padded:
            ok = ((pos >= 0) & (pos < sizes[d])).reshape(shape)
            inside = ok if inside is None else inside & ok
    perm = [2 * d for d in range(n)] + [2 * d + 1 for d in range(n)]
    w = x[(Ellipsis, *index)]   # (..., O0, K0, O1, K1, ...)
    if inside is not None:
        w = torch.where(inside, w, float("-inf"))
        inside = inside.expand(*[v for o, k in zip(outs, ks) for v in (o, k)])
        inside = inside.permute(perm).reshape(*outs, -1)
    w = w.permute(list(range(lead)) + [lead + p for p in perm]).reshape(*x.shape[:lead], *outs, -1)
    values, local = _pick(w, inside)
    flat = None
    for d, (pos, _) in enumerate(positions):
        tap = torch.remainder(torch.div(local, math.prod(ks[d + 1:]), rounding_mode="floor"), ks[d])
        out_pos = torch.arange(outs[d], device=x.device).reshape([outs[d] if e == d else 1 for e in range(n)])
        at = pos[out_pos, tap]
        flat = at if flat is None else flat * sizes[d] + at
    return values, flat


def _adaptive_max_pool(x, output_size, n):
    """Adaptive max pooling over the last n dims, any output size (eager's NaN and tie rules:
    _window_max)."""
    if not x.dtype.is_floating_point or x.numel() == 0 or 0 in output_size:
        return NotImplemented
    sizes = list(x.shape[-n:])
    return _window_max(x, [(_adaptive_windows(i, o, x.device), False) for i, o in zip(sizes, output_size)])


def _max_pool3d_with_indices(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """3-d max pooling: per axis the window positions o * stride - pad + k * dilation, pooled
    by _window_max (padding never wins; eager's NaN and tie rules)."""
    ks = _triple(kernel_size)
    st, pa, di = _triple(stride, ks), _triple(padding), _triple(dilation)
    if x.dim() not in (4, 5) or not x.dtype.is_floating_point or x.numel() == 0:
        return NotImplemented
    positions = []
    for size, k, s, p, d in zip(x.shape[-3:], ks, st, pa, di):
        out = _pool_out(size, k, s, p, d, ceil_mode)
        o = torch.arange(out, device=x.device, dtype=torch.int64)
        pos = o[:, None] * s - p + torch.arange(k, device=x.device, dtype=torch.int64)[None, :] * d
        positions.append((pos, p > 0 or (out - 1) * s - p + (k - 1) * d >= size))
    return _window_max(x, positions)


def _fractional_positions(u, size, out, k):
    """(L, out, k) input positions of fractional max pooling's windows along one axis, per
    plane from its sample u (L,): window o starts at trunc((o + u) a) - trunc(u a) with
    a = (size - k) / (out - 1), computed in the samples' dtype as eager does; the last window
    starts at size - k."""
    o = torch.arange(out, device=u.device, dtype=u.dtype)
    a = (size - k) / (out - 1) if out > 1 else 0.0
    start = (torch.trunc((o + u[:, None]) * a) - torch.trunc(u[:, None] * a)).to(torch.int64)
    start = torch.where(o < out - 1, start, size - k)
    return start[:, :, None] + torch.arange(k, device=u.device, dtype=torch.int64)


def _fractional_max_pool(x, kernel_size, output_size, samples, n):
    """Fractional max pooling over the last n dims: each plane's windows from its own random
    samples (in eager's order per axis), gathered and reduced with eager's picks (_pick)."""
    if not x.dtype.is_floating_point or x.numel() == 0 or 0 in output_size:
        return NotImplemented
    lead, sizes, outs, ks = list(x.shape[:-n]), list(x.shape[-n:]), list(output_size), list(kernel_size)
    planes = math.prod(lead)
    u = samples.reshape(planes, n)
    which = [1, 0] if n == 2 else list(range(n))   # eager's order: (W, H), but (T, H, W)
    pos = [_fractional_positions(u[:, which[d]], sizes[d], outs[d], ks[d]) for d in range(n)]
    index = [torch.arange(planes, device=x.device).reshape([planes] + [1] * (2 * n))]
    for d, p in enumerate(pos):
        shape = [planes] + [1] * (2 * n)
        shape[1 + 2 * d], shape[2 + 2 * d] = outs[d], ks[d]
        index.append(p.reshape(shape))
    w = x.reshape(planes, *sizes)[tuple(index)]   # (planes, O0, K0, O1, K1, ...)
    w = w.permute([0] + [1 + 2 * d for d in range(n)] + [2 + 2 * d for d in range(n)])
    w = w.reshape(planes, *outs, -1)
    values, local = _pick(w)
    plane = torch.arange(planes, device=x.device).reshape([planes] + [1] * n)
    flat = None
    for d in range(n):
        tap = torch.remainder(torch.div(local, math.prod(ks[d + 1:]), rounding_mode="floor"), ks[d])
        out_pos = torch.arange(outs[d], device=x.device).reshape([1] + [outs[d] if e == d else 1 for e in range(n)])
        at = pos[d][plane, out_pos, tap]
        flat = at if flat is None else flat * sizes[d] + at
    return values.reshape(lead + outs), flat.reshape(lead + outs)


def _fractional_max_pool2d(x, kernel_size, output_size, random_samples):
    return _fractional_max_pool(x, kernel_size, output_size, random_samples, 2)


def _fractional_max_pool3d(x, kernel_size, output_size, random_samples):
    return _fractional_max_pool(x, kernel_size, output_size, random_samples, 3)


def _fractional_max_pool2d_backward(grad, x, kernel_size, output_size, indices):
    return _scatter_pool_grad(grad, x, indices, 2)


def _fractional_max_pool3d_backward(grad, x, kernel_size, output_size, indices):
    return _scatter_pool_grad(grad, x, indices, 3)


def _adaptive_max_pool2d(x, output_size):
    return _adaptive_max_pool(x, output_size, 2)


def _adaptive_max_pool3d(x, output_size):
    return _adaptive_max_pool(x, output_size, 3)


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """Each input unsqueezed at its expand dims (ascending, as eager), the product summed over
    sumdim (bilinear's x1^T W x2): one fused reduction instead of eager's bmm chain."""
    def grow(t, dims):
        for d in sorted(dims):
            t = aten.unsqueeze(t, d)
        return t
    prod = aten.mul(aten.mul(grow(i1, expand1), grow(i2, expand2)), grow(i3, expand3))
    # (an integer sum is int64; eager's keeps the inputs' dtype)
    return aten.sum(prod, list(sumdim), dtype=prod.dtype) if len(sumdim) else prod


def _p_norm_last(d, p):
    """The p-norm of d over its last dim as eager's cdist/pdist define it: p = 0 counts the
    nonzero differences, p = inf takes the largest, 1 and 2 without a pow."""
    if d.shape[-1] == 0:
        return aten.sum(aten.abs(d), [-1])
    if p == 0:
        return aten._to_copy(aten.sum(aten.ne(d, 0), [-1]), dtype=d.dtype)
    if p == math.inf:
        return aten.amax(aten.abs(d), [-1])
    if p == 1:
        return aten.sum(aten.abs(d), [-1])
    if p == 2:
        return aten.sqrt(aten.sum(aten.mul(d, d), [-1]))
    return aten.pow(aten.sum(aten.pow(aten.abs(d), p), [-1]), 1.0 / p)


def _cdist_forward(x1, x2, p, compute_mode=None):
    """The p-norm of every row pair's difference, (..., r1, r2, m) summed over m inside one
    reduction (never stored). Eager takes a matmul route for p = 2 on more than 25 rows,
    whose cancellation error this direct difference does not have."""
    if x1.is_complex() or not x1.dtype.is_floating_point:
        return NotImplemented
    return _p_norm_last(aten.sub(aten.unsqueeze(x1, -2), aten.unsqueeze(x2, -3)), p)


def _pdist_forward(x, p=2):
    """The p-norm of x[i] - x[j] for i < j in row-major order of the pairs: pair k's row i
    from the quadratic formula (in float64, then moved by one where it rounded across a row
    start), j from i's row start; both rows gathered into one reduction."""
    n = x.shape[0]
    pairs = n * (n - 1) // 2
    if x.dim() != 2 or not x.dtype.is_floating_point:
        return NotImplemented
    if pairs == 0:   # (a single row: no pairs)
        return aten.zeros([0], dtype=x.dtype, device=x.device)
    k = torch.arange(pairs, device=x.device, dtype=torch.int64)
    b = 2 * n - 1
    root = torch.sqrt(torch.clamp_min(b * b - 8 * k.to(torch.float64), 0.0))
    i = torch.floor((b - root) / 2).to(torch.int64)

    def row_start(r):
        return torch.div(r * (b - r), 2, rounding_mode="floor")
    i = torch.where(row_start(i + 1) <= k, i + 1, i)
    i = torch.where(row_start(i) > k, i - 1, i)
    j = k - row_start(i) + i + 1
    return _p_norm_last(aten.sub(aten.index(x, [i]), aten.index(x, [j])), p)


def _embedding_bag_forward_only(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                                sparse=False, per_sample_weights=None, include_last_offset=False,
                                padding_idx=-1):
    """Each index's bag from a cumulative count of the bag starts (eager's offset2bag: an
    index past the last offset joins the last bag), rows added (sum, mean) or maxed into
    their bag with index_add / index_reduce; padding_idx rows go to a spare bag that is
    dropped. An empty bag is 0, a mean divides by the bag's non-padding count. The other
    outputs follow eager's CPU kernel: offset2bag (empty for a plain sum), bag_size (0 for a
    sum), max_indices (the first maximum's index per column; bag_size for a mean). With
    include_last_offset, the last offset must be the number of indices (as documented; eager's
    kernels disagree among themselves past it)."""
    if indices.dim() != 1 or offsets.dim() != 1 or not weight.dtype.is_floating_point \
            or mode not in (0, 1, 2) or offsets.numel() == 0:
        return NotImplemented
    n, dim = indices.shape[0], weight.shape[1]
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    idx, offs = aten._to_copy(indices, dtype=torch.int64), aten._to_copy(offsets, dtype=torch.int64)
    starts = aten.slice(offs, 0, 0, bags)
    ones = aten.ones_like(starts)
    marks = aten.index_add(aten.zeros([n + 1], dtype=torch.int64, device=idx.device), 0, starts, ones)
    offset2bag = aten.sub(aten.cumsum(aten.slice(marks, 0, 0, n), 0), 1)
    bag = offset2bag
    if padding_idx >= 0:
        bag = aten.where(aten.eq(idx, padding_idx), bags, offset2bag)
    rows = aten.embedding(weight, idx)
    if per_sample_weights is not None:
        rows = aten.mul(rows, aten.unsqueeze(per_sample_weights, 1))
    counted = aten.index_add(aten.zeros([bags + 1], dtype=torch.int64, device=idx.device), 0, bag,
                             aten.ones_like(idx))
    count = aten.slice(counted, 0, 0, bags)
    zeros = aten.zeros([bags + 1, dim], dtype=weight.dtype, device=weight.device)
    if mode == 2:
        out = aten.slice(aten.index_reduce(zeros, 0, bag, rows, "amax", include_self=False), 0, 0, bags)
        # the first position in each bag holding its column's maximum, then that row's index
        at = aten.where(aten.eq(rows, aten.index(aten.cat([out, aten.slice(zeros, 0, 0, 1)]), [bag])),
                        aten.unsqueeze(aten.arange(n, device=idx.device), 1), n)
        first = aten.index_reduce(aten.full([bags + 1, dim], n, dtype=torch.int64, device=idx.device),
                                  0, bag, at, "amin", include_self=True)
        first = aten.slice(first, 0, 0, bags)
        found = aten.lt(first, n)
        picked = aten.index(aten.cat([idx, aten.zeros([1], dtype=torch.int64, device=idx.device)]), [first])
        return out, offset2bag, count, aten.where(found, picked, 0)
    # (half: summed in float32, as eager's kernels)
    out = aten.slice(aten.index_add(_opmath(zeros), 0, bag, _opmath(rows)), 0, 0, bags)
    if mode == 1:
        out = aten.div(out, aten.unsqueeze(aten.clamp_min(count, 1), 1))
        return _rounded(out, weight.dtype), offset2bag, count, count
    out = _rounded(out, weight.dtype)
    size0 = aten.zeros([offsets.shape[0]], dtype=torch.int64, device=idx.device)   # (eager's)
    if padding_idx < 0 and weight.dtype in (torch.float32, torch.float16, torch.bfloat16):
        offset2bag = aten.zeros([0], dtype=torch.int64, device=idx.device)
    return out, offset2bag, size0, size0


def _grid_pad(c, size, padding_mode, align_corners):
    """A position along an axis of `size` under the grid sampler's padding, as eager: border
    clamps it into the input, reflection mirrors it at the corner pixels' centers
    (align_corners) or outer edges, then clamps; zero padding leaves it (an outside tap
    reads 0)."""
    if padding_mode == 0:
        return c
    if padding_mode == 2:
        lo, hi = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
        span = hi - lo
        if span <= 0:
            return torch.zeros_like(c)
        dist = torch.abs(c - lo)
        rest = torch.fmod(dist, span)
        odd = torch.remainder(torch.floor(dist / span), 2) == 1
        c = torch.where(odd, hi - rest, lo + rest)
    return torch.clamp(c, 0, size - 1)


def _cubic_weights(t):
    """Eager's cubic convolution weights (A = -0.75) of the 4 taps around a fraction t."""
    a = -0.75

    def near(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _grid_sample(x, grid, interpolation_mode, padding_mode, align_corners):
    """Bilinear/trilinear (2^n taps, weights the products of the per-axis distances), nearest
    (rounded half to even, as eager) or, in 2-d, bicubic (4x4 taps, each placed by the
    padding, eager's cubic weights) sampling of x (N, C, [D,] H, W) at the grid's (x, y[, z])
    points: each tap a gather over batch and channels, an outside tap (zero padding) adding
    nothing, whatever value it was clamped onto."""
    n = grid.shape[-1]
    if interpolation_mode not in (0, 1, 2) or (interpolation_mode == 2 and n != 2) \
            or padding_mode not in (0, 1, 2) or not x.dtype.is_floating_point or x.dim() != n + 2:
        return NotImplemented
    sizes = [x.shape[-1 - a] for a in range(n)]   # W, H[, D]
    coords = []
    for a in range(n):   # [-1, 1] to the corner pixels' centers (align_corners) or edges
        scale = (sizes[a] - 1) / 2 if align_corners else sizes[a] / 2
        coords.append(grid[..., a].unsqueeze(1) * scale + (sizes[a] - 1) / 2)
    lead = [1] * n
    batch = torch.arange(x.shape[0], device=x.device).reshape(-1, 1, *lead)
    chan = torch.arange(x.shape[1], device=x.device).reshape(1, -1, *lead)

    def tap(at, weight):
        inside = None
        for p, size in zip(at, sizes):
            ok = (p >= 0) & (p < size)
            inside = ok if inside is None else inside & ok
        idx = [torch.where(inside, p, 0).to(torch.int64) for p in at]
        v = x[(batch, chan, *reversed(idx))]
        return torch.where(inside, v if weight is None else v * weight, 0)

    if interpolation_mode == 2:
        low = [torch.floor(c) for c in coords]
        wx, wy = (_cubic_weights(c - f) for c, f in zip(coords, low))
        out = None
        for j in range(4):
            row = None
            for i in range(4):
                at = [_grid_pad(low[0] + (i - 1), sizes[0], padding_mode, align_corners),
                      _grid_pad(low[1] + (j - 1), sizes[1], padding_mode, align_corners)]
                v = tap([torch.floor(p) for p in at], None) * wx[i]
                row = v if row is None else row + v
            out = row * wy[j] if out is None else out + row * wy[j]
        return out
    pos = [_grid_pad(c, size, padding_mode, align_corners) for c, size in zip(coords, sizes)]
    if interpolation_mode == 1:
        return tap([torch.round(p) for p in pos], None)
    low = [torch.floor(p) for p in pos]
    frac = [p - f for p, f in zip(pos, low)]
    out = None
    for corner in range(2 ** n):
        bits = [(corner >> a) & 1 for a in range(n)]
        weight = None
        for t, b in zip(frac, bits):
            w = t if b else 1 - t
            weight = w if weight is None else weight * w
        v = tap([f + b for f, b in zip(low, bits)], weight)
        out = v if out is None else out + v
    return out


def _grid_sampler(x, grid, interpolation_mode=0, padding_mode=0, align_corners=False):
    """grid_sampler_2d and _3d; half inputs sampled in float32 and rounded once, as eager's GPU
    kernel (positions and weights rounded to half on the way were 2.5 ulps off)."""
    out = _grid_sample(_opmath(x), _opmath(grid), interpolation_mode, padding_mode, align_corners)
    return _rounded(out, x.dtype)


def _aa_axis(x, axis, n_out, align_corners, given_scale):
    """One axis of antialiased bilinear resampling, as eager's separable kernel: the output
    pixel o reads inputs [floor(c - support + 0.5), floor(c + support + 0.5)) around its center
    c = scale * (o + 0.5), weighted by a triangle of half-width `support` (the scale when
    downsampling, 1 otherwise), the weights normalized to sum to 1."""
    n_in = x.shape[axis]
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        scale = 1.0 / given_scale if given_scale and given_scale > 0 else n_in / n_out
    support = scale if scale >= 1.0 else 1.0
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    k = min(int(math.ceil(2 * support)) + 1, n_in)
    dt = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
    center = (torch.arange(n_out, device=x.device, dtype=dt) + 0.5) * scale
    lo = torch.clamp_min(torch.floor(center - support + 0.5), 0)
    hi = torch.clamp_max(torch.floor(center + support + 0.5), n_in)
    pos = lo[:, None] + torch.arange(k, device=x.device, dtype=dt)[None, :]   # (n_out, k)
    used = pos < hi[:, None]   # (the window's taps; the rest add nothing, not even inf * 0)
    w = torch.where(used, torch.clamp_min(1 - torch.abs((pos - center[:, None] + 0.5) * invscale), 0), 0)
    total = w.sum(1, keepdim=True)
    w = torch.where(total != 0, w / torch.where(total != 0, total, 1), w)
    at = torch.clamp_max(pos, n_in - 1).to(torch.int64)
    taps = x.movedim(axis, -1)[..., at]   # (..., n_out, k)
    out = torch.where(used, taps.to(dt) * w, 0).sum(-1).to(x.dtype)
    return out.movedim(-1, axis)


def _upsample_bilinear2d_aa(x, output_size, align_corners, scales_h=None, scales_w=None):
    """Antialiased bilinear resizing as two weighted gathers (width, then height, as eager),
    each a reduction over the few taps of its window; an axis whose size does not change is
    left as it is, whatever the scale (eager's CPU kernel skips that pass)."""
    if x.dim() != 4 or not x.dtype.is_floating_point or x.numel() == 0:
        return NotImplemented
    oh, ow = output_size
    y = x if ow == x.shape[3] else _aa_axis(x, 3, ow, align_corners, scales_w)
    y = y if oh == x.shape[2] else _aa_axis(y, 2, oh, align_corners, scales_h)
    return aten.clone(y) if y is x else y


def _scatter_pool_grad(grad, x, indices, n):
    """The gradient of a max pool over x's last n dims: each output's gradient added at the
    flat input index its indices hold (scatter_add: overlapping windows accumulate, as in
    eager's kernels). Deterministic mode keeps eager's kernel (GPU atomics add in any order)."""
    if torch.are_deterministic_algorithms_enabled() or not grad.dtype.is_floating_point:
        return NotImplemented
    lead = list(x.shape[:-n])
    acc = torch.float32 if grad.dtype in (torch.float16, torch.bfloat16) else grad.dtype
    flat_grad = aten.reshape(aten._to_copy(grad, dtype=acc), lead + [-1])
    flat_idx = aten.reshape(indices, lead + [-1])
    out = aten.zeros(lead + [math.prod(x.shape[-n:])], dtype=acc, device=grad.device)
    out = aten.scatter_add(out, -1, flat_idx, flat_grad)
    return aten._to_copy(aten.reshape(out, list(x.shape)), dtype=grad.dtype)


def _adaptive_max_pool2d_backward(grad, x, indices):
    return _scatter_pool_grad(grad, x, indices, 2)


def _adaptive_max_pool3d_backward(grad, x, indices):
    return _scatter_pool_grad(grad, x, indices, 3)


def _max_pool3d_with_indices_backward(grad, x, kernel_size, stride, padding, dilation, ceil_mode,
                                      indices):
    return _scatter_pool_grad(grad, x, indices, 3)


def _replication_pad_backward(grad, x, padding):
    """A replication pad's input gradient where a pad amount is symbolic (an integer argument
    under dynamic=True); concrete pads return NotImplemented for the unrolled lowering
    (compiler/lowerings/pool_backward.py). The pad is separable, so its adjoint is one dim at a
    time from the first padded dim: the middle n positions, plus at index 0 the sum of the
    left strip and at index n - 1 the sum of the right one (both at once when n is 1)."""
    if all(isinstance(p, int) for p in padding) or not all(p >= 0 for p in padding):
        return NotImplemented   # (a negative pad crops: ATen's op, as the lowering leaves it)
    g = grad
    for i in reversed(range(len(padding) // 2)):
        left, right, d = padding[2 * i], padding[2 * i + 1], x.dim() - 1 - i
        n = x.shape[d]
        at = torch.arange(n, device=g.device).view([-1] + [1] * (x.dim() - 1 - d))
        strip = lambda start, length: g.narrow(d, start, length).sum(d, keepdim=True)  # noqa: E731
        g = (g.narrow(d, left, n) + torch.where(at == 0, strip(0, left), 0)
             + torch.where(at == n - 1, strip(left + n, right), 0))
    return g


DECOMPOSITIONS_NN = {
    aten.avg_pool3d.default: _avg_pool3d,
    aten._adaptive_avg_pool3d.default: _adaptive_avg_pool3d,
    aten.adaptive_max_pool2d.default: _adaptive_max_pool2d,
    aten.adaptive_max_pool3d.default: _adaptive_max_pool3d,
    aten.max_pool2d_with_indices.default: pool_offsets.max_pool2d_with_indices,
    aten.max_pool3d_with_indices.default: _max_pool3d_with_indices,
    aten.adaptive_max_pool2d_backward.default: _adaptive_max_pool2d_backward,
    aten.adaptive_max_pool3d_backward.default: _adaptive_max_pool3d_backward,
    aten.max_pool3d_with_indices_backward.default: _max_pool3d_with_indices_backward,
    aten.fractional_max_pool2d.default: _fractional_max_pool2d,
    aten.fractional_max_pool3d.default: _fractional_max_pool3d,
    aten.fractional_max_pool2d_backward.default: _fractional_max_pool2d_backward,
    aten.fractional_max_pool3d_backward.default: _fractional_max_pool3d_backward,
    aten._trilinear.default: _trilinear,
    aten._cdist_forward.default: _cdist_forward,
    aten._pdist_forward.default: _pdist_forward,
    aten._embedding_bag_forward_only.default: _embedding_bag_forward_only,
    aten.grid_sampler_2d.default: _grid_sampler,
    aten.grid_sampler_3d.default: _grid_sampler,
    aten._upsample_bilinear2d_aa.default: _upsample_bilinear2d_aa,
    aten.replication_pad1d_backward.default: _replication_pad_backward,
    aten.replication_pad2d_backward.default: _replication_pad_backward,
    aten.replication_pad3d_backward.default: _replication_pad_backward,
}
