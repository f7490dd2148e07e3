"""The registry aten op -> lowering, and the helpers lowerings share.

A lowering takes the FX node's arguments (tensors as ir.View / ir.Lazy, everything else as is)
and returns a value (or a tuple). Any op without a lowering becomes an `Extern` call to ATen,
counted in stats: a graph never fails to compile because an op is missing.
"""
from __future__ import annotations

import threading

import torch

from . import ir
from .ops import ops
from .sizes import SymFloat, SymSize
from .torch_compat import promote

LOWERINGS: dict = {}
_local = threading.local()


def graph():
    return _local.graph


def set_graph(g):
    _local.graph = g


def register(*targets):
    def deco(fn):
        for t in targets:
            LOWERINGS[t] = fn
        return fn
    return deco


def lookup(target):
    fn = LOWERINGS.get(target)
    if fn is None and hasattr(target, "overloadpacket"):
        fn = LOWERINGS.get(target.overloadpacket)
    return fn


def is_tensor(x):
    return isinstance(x, ir.TensorValue)


def broadcast_shapes(*shapes):
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, d in enumerate(s):
            j = n - len(s) + i
            if d != 1:
                if out[j] != 1 and out[j] != d:
                    raise RuntimeError(f"cannot broadcast {shapes}")
                out[j] = d
    return tuple(out)


def meta_of(x):
    """A stand-in for type promotion: a meta tensor of x's dtype and rank (promotion reads
    only whether it is 0-d), or the scalar (a symbolic size promotes as the int it is, its
    float() as a float)."""
    if is_tensor(x):
        return torch.empty((1,) * len(x.size), dtype=x.dtype, device="meta")
    if isinstance(x, SymSize):
        return 1.0 if isinstance(x, SymFloat) else 1
    return x


def dtypes(args, kind="DEFAULT"):
    """(compute, result) dtypes of an elementwise op under eager's promotion, which depends
    only on each tensor's dtype and whether it is 0-d, and on each scalar's Python type: the
    answer is cached on those (building meta tensors under the fake mode costs ~0.2 ms)."""
    key = (kind,) + tuple(("t", a.dtype, len(a.size) == 0) if is_tensor(a) else
                          ("s", type(meta_of(a))) for a in args if a is not None)
    hit = _PROMOTED.get(key)
    if hit is None:
        hit = _PROMOTED[key] = promote([meta_of(a) for a in args if a is not None], kind)
    return hit


_PROMOTED: dict = {}


def loader_for(x, shape, dtype=None):
    """A loader of x (tensor value or Python scalar) broadcast to `shape`, cast to dtype."""
    if not is_tensor(x):
        dt = dtype or _scalar_dtype(x)
        return lambda idx: ops.constant(x, dt)
    inner = x.loader()
    size = tuple(x.size)
    lead = len(shape) - len(size)

    def load(idx):
        sub = [0 if size[i] == 1 else idx[lead + i] for i in range(len(size))]
        v = inner(sub)
        if dtype is not None and dtype != x.dtype:
            v = ops.to_dtype(v, dtype)
        return v
    return load


def _scalar_dtype(x):
    if isinstance(x, bool):
        return torch.bool
    if isinstance(x, int):
        return torch.int64
    return torch.float32


def device_of(*args):
    for a in args:
        if is_tensor(a):
            return a.device
    return graph().device


def _round_intermediates():
    g = getattr(_local, "graph", None)
    return g is not None and bool(g.ctx.options.get("round_intermediates", False))


def make_pointwise(fn, args, out_dtype, compute_dtype=None, shape=None):
    """Lazy value computing fn(*loaded args) elementwise, with broadcasting."""
    shape = shape if shape is not None else broadcast_shapes(*[a.size for a in args if is_tensor(a)])
    loaders = [loader_for(a, shape, compute_dtype) if a is not None else None for a in args]
    # The op's result in its storage dtype. Eager rounds every half/bfloat16 result; fused,
    # the value stays in fp32 until it is stored (as the stock compiler does: fewer
    # instructions, closer to the fp32 result) unless the graph asks for eager's roundings.
    implicit = not _round_intermediates()

    def inner(idx):
        v = fn(*[ld(idx) if ld is not None else None for ld in loaders])
        return ops.to_dtype(v, out_dtype, implicit=True) if implicit else ops.to_dtype(v, out_dtype)

    return ir.Lazy(tuple(shape), out_dtype, device_of(*args), inner)


def full_value(shape, value, dtype, device):
    return ir.Lazy(tuple(shape), dtype, device, lambda idx: ops.constant(value, dtype))


def realize(x):
    return graph().realize(x)


def fallback(op, args, kwargs=None, meta=None):
    return graph().extern(op, args, kwargs or {}, meta)
