"""Reductions: sum, prod, mean, amax/amin, max/min.dim, argmax/argmin, any/all, var/std
(two-pass: mean first, then squared deviations, both in one fused kernel)."""
from __future__ import annotations

import math

import torch

from .. import ir
from .. import sym as S
from ..lowering import full_value, graph, make_pointwise, realize, register
from ..ops import Recorder, ops, use
from ..sizes import SymSize, or_else
from ..torch_compat import aten, prims
from .views import squeeze, view

IDENTITY_FREE = {"max", "min", "argmax", "argmin"}


def _dims(x, dims):
    n = len(x.size)
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(n))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({d + n if d < 0 else d for d in dims}) if n else []


def reduce(x, dims, keepdim, rtype, out_dtype, src_dtype=None):
    """A realized reduction of x over dims, as a View of its output buffer."""
    dims = _dims(x, dims)
    n = len(x.size)
    keep = [i for i in range(n) if i not in dims]
    out_size = [1 if i in dims else x.size[i] for i in range(n)] if keepdim else [x.size[i] for i in keep]
    rranges = [x.size[d] for d in dims]
    rnumel = math.prod(rranges)
    src_dtype = src_dtype or x.dtype
    inner = x.loader()
    if rnumel == 0:
        ident = {"sum": 0, "prod": 1, "any": False, "all": True}.get(rtype)
        if ident is None:
            raise RuntimeError(f"{rtype} of an empty tensor")
        return full_value(out_size, ident, out_dtype, x.device)
    ranges = [x.size[i] for i in keep]

    def full_index(idx, ridx):
        out = [0] * n
        for i, k in enumerate(keep):
            out[k] = idx[i]
        for i, d in enumerate(dims):
            out[d] = ridx[i]
        return out

    def body(idx, ridx):
        v = inner(full_index(idx, ridx))
        if src_dtype != x.dtype:
            v = ops.to_dtype(v, src_dtype)
        return v

    if rnumel == 1 and rtype not in ("argmax", "argmin"):
        fn = {"any": lambda v: ops.ne(v, ops.constant(0, src_dtype)),
              "all": lambda v: ops.ne(v, ops.constant(0, src_dtype))}.get(rtype, lambda v: v)
        lazy = ir.Lazy(tuple(ranges), out_dtype, x.device,
                       lambda idx: ops.to_dtype(fn(body(idx, [0] * len(dims))), out_dtype))
        return _reshape_keep(lazy, out_size)
    if rnumel == 1:
        return full_value(out_size, 0, out_dtype, x.device)
    g = graph()
    # (unsplit where a data-dependent row length decides it: compiler/sizes.py)
    split = or_else(lambda: split_factor(ranges, rranges, rtype, body), 1)
    if split > 1:
        return _reshape_keep(_split_reduce(ranges, rranges, rtype, body, out_dtype, src_dtype,
                                           x.device, split, tuple(x.size), full_index), out_size)
    buf = g.new_buffer(out_dtype, x.device, tuple(ranges))
    node = ir.Reduction(g.node_name(), buf, tuple(ranges), tuple(rranges), rtype, body, src_dtype,
                        tuple(x.size), full_index)
    g.add_node(node)
    v = ir.View(buf, buf.size, buf.stride, 0)
    return _reshape_keep(v, out_size)


# Split reductions: a reduction with few outputs and a long reduced range would run on a
# handful of programs (a sum over a leading dim reads x-contiguous tiles of ~128 outputs each;
# a full sum has one output), far too few to fill the GPU. It becomes two: partial results over
# S chunks of the reduced range, then a small reduction over S.
SPLITTABLE = {"sum", "prod", "max", "min", "any", "all"}   # stage 2 reduces with the same type
TARGET_PROGRAMS = 1024      # programs for the first stage to aim at (several waves on 132 SMs)
# Outer (x-contiguous) first stages read short columns of 8 rows per step: more, shorter
# chunks hide latency better (figures: docs/PERF_NOTES.md, "Figures behind constants")
OUTER_TARGET_PROGRAMS = 4096
MIN_CHUNK = 256             # reduced elements per chunk, at least
# When not to split (the rule of split_factor):
# - Small reductions: outputs x reduced length <= SMALL_REDUCTION_NUMEL. A split buys
#   parallelism for the reads, but its second kernel costs a launch (~2-4 us of host time, ~1 us
#   in a CUDA graph) plus a round trip of the partials, and it cuts a multi-phase consumer in
#   pieces: ConvNeXt's head LayerNorm on 64 x 640 became 6 kernels (each phase's partials, then
#   each phase's chunks) instead of one persistent kernel. Unsplit, one program reads a whole
#   row: at a rough ~50 GB/s for one SM alone, even a full reduction of 2^16 fp32 (256 KB, one
#   row) takes ~5 us, about what the extra launch and pass cost; the rows of a reduction with
#   several outputs are shorter still, and run in parallel. (Reasoned from H100 figures, not
#   swept: a sweep over (rows, length) would place the bound.)
# - Enough rows to fill the GPU: at least FILL_PROGRAMS programs of the unsplit kernel, about
#   two per SM of an H100's 132 (each SM has a second program to overlap the first's tail;
#   256, not 264, as before this rule: a 256-row LayerNorm stays one kernel). Inner reductions
#   run a row per program; outer (x-contiguous) ones a tile of 128 outputs, whose first stages
#   aim at OUTER_TARGET_PROGRAMS, so they stay unsplit only from a quarter of it.
FILL_PROGRAMS = 256
# - Short rows: an inner reduction of fewer rows than FILL_PROGRAMS runs them all at once, at
#   most two per SM, so its time is about two rows' reads, not the whole input's: it splits
#   only where two rows exceed SMALL_REDUCTION_NUMEL (with more rows the rule above keeps it
#   whole anyway, so split_factor asks this first, whatever the row count). GPT-2's LayerNorms at 192 rows
#   of 768 were split in two (the total above the bound): 260 launches a call instead of 135,
#   0.65 vs 0.52 ms of kernels, 3.9 vs 2.1 ms a host-bound call (H200, 2026-12-01,
#   `dynamic/serving_gpt2_small_rows_probe_20261201-0700_s77.json`).
SMALL_REDUCTION_NUMEL = 1 << 16


def is_outer(ranges, rranges, body):
    """True when the reduction's loads run contiguously along the kept dims rather than the
    reduced ones (a sum over a leading dim): then tiles are x-major."""
    xs = [S.sym(f"d{i}") for i in range(len(ranges))]
    rs = [S.sym(f"r{i}") for i in range(len(rranges))]
    rec = Recorder()
    with use(rec):
        body(xs, rs)
    # the innermost dims that are not of size 1 (a size-1 dim's stride says nothing of order)
    x_last = next((x for x, n in zip(reversed(xs), reversed(list(ranges))) if n != 1), None)
    r_last = next((r for r, n in zip(reversed(rs), reversed(list(rranges))) if n != 1), None)
    inner = outer = 0
    for _, index in rec.reads:
        if r_last is not None and S.approx_stride(index, r_last) == 1:
            inner += 1
        elif x_last is not None and S.approx_stride(index, x_last) == 1 \
                and (S.free_names(index) & {r.name for r in rs}):
            outer += 1
    return outer > inner


def split_factor(ranges, rranges, rtype, body):
    """How many chunks to split the reduced range into (1: no split). Not split: small
    reductions (outputs x length <= SMALL_REDUCTION_NUMEL), short reduced ranges (< 2 *
    MIN_CHUNK), inner reductions whose rows are short (twice the length <=
    SMALL_REDUCTION_NUMEL, however many rows) and reductions whose unsplit kernel fills the GPU
    (FILL_PROGRAMS, or a quarter of OUTER_TARGET_PROGRAMS tiles for outer ones); else powers
    of two until the first stage reaches its target programs, chunks of MIN_CHUNK at least."""
    if rtype not in SPLITTABLE:
        return 1
    xnumel, rnumel = math.prod(ranges), math.prod(rranges)
    if rnumel < 2 * MIN_CHUNK:
        return 1
    outer = is_outer(ranges, rranges, body)
    # Short rows ("Short rows" above) never split, however many: decided before any
    # comparison of the row count, so a graph of symbolic row counts records no guard on it
    # here (one variant serves every count)
    if not outer and 2 * rnumel <= SMALL_REDUCTION_NUMEL:
        return 1
    if xnumel * rnumel <= SMALL_REDUCTION_NUMEL:
        return 1
    programs = max(1, xnumel // 128) if outer else xnumel
    target = OUTER_TARGET_PROGRAMS if outer else TARGET_PROGRAMS
    if programs >= (OUTER_TARGET_PROGRAMS // 4 if outer else FILL_PROGRAMS):
        return 1
    split = 1
    while programs * split < target and rnumel // (2 * split) >= MIN_CHUNK:
        split *= 2
    # an even split needs no masks; a ragged one (the last chunk shorter, masked) only where
    # the even one falls far short: an odd length would otherwise stay unsplit, one program
    # looping over every row (x.sum(0) of 65535 x 3: ~1000x slower than split on the H100)
    even = 1
    while even < split and rnumel % (2 * even) == 0:
        even *= 2
    return even if 4 * even >= split else split


def _split_reduce(ranges, rranges, rtype, body, out_dtype, src_dtype, device, split,
                  input_size, input_index):
    """Stage 1 over (split, *ranges) for outer reductions (x stays the contiguous axis) or
    (*ranges, split) otherwise, reducing chunks of ceil(rnumel / split) (where split does not
    divide rnumel, the elements past the end are masked to the reduction's identity); stage 2
    over split."""
    rnumel = math.prod(rranges)
    chunk = -(-rnumel // split)
    split = -(-rnumel // chunk)   # rounding the chunk up may leave whole chunks empty: fewer
    ragged = chunk * split != rnumel
    outer = is_outer(ranges, rranges, body)
    n = len(ranges)
    g = graph()
    r1 = (split, *ranges) if outer else (*ranges, split)
    part_dtype = torch.bool if rtype in ("any", "all") else src_dtype

    def unsplit(idx, ridx):
        """Stage 1's loop indices as the unsplit reduction's (kept, reduced) indices."""
        s, kept = (idx[0], idx[1:]) if outer else (idx[n], idx[:n])
        return list(kept), S.unflatten(s * chunk + ridx[0], list(rranges))

    def body1(idx, ridx):
        if not ragged:
            return body(*unsplit(idx, ridx))
        s = idx[0] if outer else idx[n]
        inside = ops.lt(ops.index_expr(s * chunk + ridx[0], torch.int64),
                        ops.constant(rnumel, torch.int64))
        return ops.masked(inside, lambda: body(*unsplit(idx, ridx)), ir.reduction_identity(rtype, src_dtype))

    buf1 = g.new_buffer(part_dtype, device, r1)
    g.add_node(ir.Reduction(g.node_name(), buf1, r1, (chunk,), rtype, body1, src_dtype,
                            input_size, lambda idx, ridx: input_index(*unsplit(idx, ridx))))
    part = ir.View(buf1, buf1.size, buf1.stride, 0)
    load = part.loader()

    def body2(idx, ridx):
        return load([ridx[0], *idx] if outer else [*idx, ridx[0]])

    buf = g.new_buffer(out_dtype, device, tuple(ranges))
    g.add_node(ir.Reduction(g.node_name(), buf, tuple(ranges), (split,), rtype, body2,
                            part_dtype if rtype in ("any", "all") else src_dtype))
    return ir.View(buf, buf.size, buf.stride, 0)


def _reshape_keep(v, out_size):
    if tuple(v.size) == tuple(out_size):
        return v
    return view(v, list(out_size))


def _acc_dtype(dt):
    if dt in (torch.float16, torch.bfloat16):
        return torch.float32
    if dt == torch.bool or not dt.is_floating_point:
        return torch.int64
    return dt


@register(aten.sum.dim_IntList, aten.sum.default, aten.sum, prims.sum)
def sum_(x, dim=None, keepdim=False, dtype=None, output_dtype=None):
    if isinstance(dim, bool):
        dim, keepdim = None, False
    out = dtype or output_dtype or (torch.int64 if (x.dtype == torch.bool or not x.dtype.is_floating_point) else x.dtype)
    return reduce(x, dim, keepdim, "sum", out, src_dtype=_acc_dtype(out) if out.is_floating_point else torch.int64)


@register(aten.prod.dim_int, aten.prod.default, aten.prod)
def prod(x, dim=None, keepdim=False, dtype=None):
    out = dtype or (torch.int64 if (x.dtype == torch.bool or not x.dtype.is_floating_point) else x.dtype)
    return reduce(x, dim, keepdim, "prod", out, src_dtype=_acc_dtype(out))


def _count(n):
    """An element count as a divisor's value: a float, or a symbolic size as it is (the kernel
    converts its size arguments: a float() of it would compile the graph per shape)."""
    return n if isinstance(n, SymSize) else float(n)


@register(aten.mean.dim, aten.mean.default, aten.mean)
def mean(x, dim=None, keepdim=False, dtype=None):
    out = dtype or x.dtype
    dims = _dims(x, dim)
    count = math.prod(x.size[d] for d in dims)
    s = reduce(x, dims, keepdim, "sum", _acc_dtype(out), src_dtype=_acc_dtype(out))
    return make_pointwise(lambda v: ops.truediv(v, ops.constant(_count(count), _acc_dtype(out))),
                          [s], out, _acc_dtype(out))


for _t, _r in ((aten.amax, "max"), (aten.amin, "min")):
    register(_t)((lambda r: lambda x, dim=(), keepdim=False: reduce(x, dim, keepdim, r, x.dtype))(_r))
register(prims.amax)(lambda x, dims, output_dtype=None: reduce(x, dims, False, "max", x.dtype))
register(prims.amin)(lambda x, dims, output_dtype=None: reduce(x, dims, False, "min", x.dtype))


@register(aten.max.default)
def max_all(x):
    return reduce(x, None, False, "max", x.dtype)


@register(aten.min.default)
def min_all(x):
    return reduce(x, None, False, "min", x.dtype)


def _arg(rtype):
    def lower(x, dim=None, keepdim=False):
        if dim is None:   # over all elements; keepdim keeps every dim, each of size 1
            out = reduce(view(x, [-1]), [0], False, rtype, torch.int64)
            return _reshape_keep(out, [1] * len(x.size)) if keepdim else out
        return reduce(x, [dim], keepdim, rtype, torch.int64)
    return lower


register(aten.argmax)(_arg("argmax"))
register(aten.argmin)(_arg("argmin"))


@register(aten.max.dim)
def max_dim(x, dim, keepdim=False):
    return reduce(x, [dim], keepdim, "max", x.dtype), reduce(x, [dim], keepdim, "argmax", torch.int64)


@register(aten.min.dim)
def min_dim(x, dim, keepdim=False):
    return reduce(x, [dim], keepdim, "min", x.dtype), reduce(x, [dim], keepdim, "argmin", torch.int64)


def _any_all(kind, x, dim, keepdim):
    # (eager's any and all of uint8 return uint8 0 or 1)
    out = torch.uint8 if x.dtype == torch.uint8 else torch.bool
    return reduce(x, dim, keepdim, kind, out, src_dtype=torch.bool)


@register(aten.any.dim, aten.any.dims, aten.any.default, aten.any)
def any_(x, dim=None, keepdim=False):
    return _any_all("any", x, dim, keepdim)


@register(aten.all.dim, aten.all.dims, aten.all.default, aten.all)
def all_(x, dim=None, keepdim=False):
    return _any_all("all", x, dim, keepdim)


def variance(x, dims, correction, keepdim, out_dtype=None):
    """Two-pass variance: mean, then the mean of squared deviations (numerically sound)."""
    dims = _dims(x, dims)
    count = math.prod(x.size[d] for d in dims)
    acc = _acc_dtype(x.dtype)
    s = realize(reduce(x, dims, True, "sum", acc, src_dtype=acc))
    mean_ = make_pointwise(lambda v: ops.truediv(v, ops.constant(_count(count), acc)), [s], acc, acc)
    dev = make_pointwise(lambda a, m: ops.mul(ops.sub(a, m), ops.sub(a, m)), [x, mean_], acc, acc)
    ss = reduce(dev, dims, keepdim, "sum", acc, src_dtype=acc)
    if isinstance(correction, float) and correction.is_integer():
        correction = int(correction)   # (1.0 from a decomposition: a symbolic count takes ints)
    denom = max(count - correction, 0)
    out = out_dtype or x.dtype
    var = make_pointwise(lambda v: ops.truediv(v, ops.constant(_count(denom), acc)), [ss], out, acc)
    if not keepdim:
        mean_ = squeeze(mean_, dims)
    return var, make_pointwise(lambda v: v, [mean_], out, acc)


@register(prims.var)
def prims_var(x, dims, correction=1, output_dtype=None):
    return variance(x, dims, correction, False, output_dtype)[0]


@register(aten.var.correction, aten.var.dim)
def var_(x, dim=None, correction=None, keepdim=False, unbiased=None):
    if correction is None:
        correction = 1 if unbiased in (None, True) else 0
    return variance(x, dim, correction, keepdim)[0]


@register(aten.var_mean.correction)
def var_mean(x, dim=None, correction=None, keepdim=False):
    correction = 1 if correction is None else correction
    return variance(x, dim, correction, keepdim)
