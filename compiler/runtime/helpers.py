"""Triton helpers generated kernels call as `th.<name>`.

On the GPU they are libdevice functions or small @triton.jit functions. Under the Triton
interpreter (TRITON_INTERPRET=1, CPU tensors) libdevice is not available, so the same names
are plain Python functions over the interpreter's numpy values; the interpreter runs kernels as
Python, which is what makes this work. Bounds checks raise IndexError in the interpreter and
are device asserts on the GPU.
"""
from __future__ import annotations

import os

import numpy as np
import triton
import triton.language as tl

INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def prod(x, axis):
    return tl.reduce(x, axis, _mul)


@triton.jit
def max_nan(x, axis):
    m = tl.max(x, axis)
    bad = tl.max((x != x).to(tl.int32), axis) > 0
    return tl.where(bad, float("nan"), m)


@triton.jit
def min_nan(x, axis):
    m = tl.min(x, axis)
    bad = tl.max((x != x).to(tl.int32), axis) > 0
    return tl.where(bad, float("nan"), m)


# Two wheres, not `(a != a) | (a > b)`: with a 0-d first operand (minimum(0, x) in logsigmoid) the
# interpreter labels a comparison's result with the operands' float dtype, and `|` of it with
# a block of bools is refused
@triton.jit
def maximum_nan(a, b):
    return tl.where(a != a, a, tl.where(a > b, a, b))


@triton.jit
def minimum_nan(a, b):
    return tl.where(a != a, a, tl.where(a < b, a, b))


@triton.jit
def floordiv_int(a, b):
    q = a // b
    r = a - q * b
    return tl.where((r != 0) & ((r < 0) != (b < 0)), q - 1, q)


@triton.jit
def remainder_int(a, b):
    r = a % b
    return tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)


@triton.jit
def remainder_float(a, b):
    r = fmod(a, b)
    return tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)


@triton.jit
def tanh_sigmoid(x):
    """tanh as 2 sigmoid(2x) - 1 (an exp and a reciprocal, where libdevice's tanhf is ~20
    instructions with branches), and x itself for |x| < 2^-10 (tanh(x) = x - x^3/3 + ...:
    relative error under 4e-7 there, where the sigmoid form's absolute error of ~1e-7 would be
    a large relative one; a bf16 tanh of 1e-8 came out 0). Within 1 unit in the last place of
    an fp16 or bf16 result: for epilogues whose results are 16-bit (TemplateKernel.tanh),
    where it is markedly faster than libdevice's tanh (docs/PERF_NOTES.md)."""
    return tl.where(tl.abs(x) < 0.0009765625, x, 2.0 * tl.sigmoid(2.0 * x) - 1.0)


# Scans (compiler/codegen/scan.py): combine functions for tl.associative_scan, `a` the earlier
# part of the row and `b` the later one (a scan keeps their order; a chunk's prefix is combined
# into the next chunk with the same function, the carry as `a`).

@triton.jit
def scan_add(a, b):
    return a + b


@triton.jit
def scan_mul(a, b):
    return a * b


@triton.jit
def scan_logaddexp(a, b):
    """log(exp(a) + exp(b)) without overflow: the larger plus log1p of exp of the difference
    (<= 0). Two infinities of one sign give that infinity (their difference would be NaN);
    a NaN propagates."""
    hi = maximum_nan(a, b)
    lo = minimum_nan(a, b)
    both_inf = (hi == lo) & (tl.abs(hi) == float("inf"))
    return tl.where(both_inf, hi, hi + log1p(tl.exp(lo - hi)))


@triton.jit
def scan_max(a, b):
    return maximum_nan(a, b)


@triton.jit
def scan_min(a, b):
    return minimum_nan(a, b)


@triton.jit
def scan_argmax(av, ai, bv, bi):
    """The running max and its position as ATen's cummax: the later element wins a tie, a NaN
    wins over any number and stays, a later NaN moves the position (b is always the later)."""
    b_wins = (bv != bv) | ((av == av) & (bv >= av))
    return tl.where(b_wins, bv, av), tl.where(b_wins, bi, ai)


@triton.jit
def scan_argmin(av, ai, bv, bi):
    """As scan_argmax, for the running min (ATen's cummin)."""
    b_wins = (bv != bv) | ((av == av) & (bv <= av))
    return tl.where(b_wins, bv, av), tl.where(b_wins, bi, ai)


if INTERPRET:
    import torch

    def _wrap(fn):
        """fn over numpy arrays as a helper over the interpreter's tensors (result in the first
        tensor argument's dtype, broadcast to all arguments' shape)."""
        def f(*args):
            from triton.runtime.interpreter import TensorHandle
            ref = next(a for a in args if isinstance(a, tl.tensor))
            data = [a.handle.data if isinstance(a, tl.tensor) else a for a in args]
            with np.errstate(all="ignore"):
                out = np.asarray(fn(*data))
            if out.shape != ref.handle.data.shape:
                out = np.broadcast_to(out, np.broadcast_shapes(*[np.shape(d) for d in data])).copy()
                shape = list(out.shape)
                return tl.tensor(TensorHandle(out.astype(ref.handle.data.dtype), ref.dtype.scalar),
                                 tl.block_type(ref.dtype.scalar, shape) if shape else ref.dtype.scalar)
            return tl.tensor(TensorHandle(out.astype(ref.handle.data.dtype), ref.dtype.scalar), ref.type)
        return f

    tanh, log1p, expm1, tan = _wrap(np.tanh), _wrap(np.log1p), _wrap(np.expm1), _wrap(np.tan)
    asin, acos, atan, sinh, cosh = _wrap(np.arcsin), _wrap(np.arccos), _wrap(np.arctan), _wrap(np.sinh), _wrap(np.cosh)
    asinh, acosh, atanh = _wrap(np.arcsinh), _wrap(np.arccosh), _wrap(np.arctanh)
    log10, round_even, trunc = _wrap(np.log10), _wrap(np.rint), _wrap(np.trunc)
    pow, atan2, fmod, hypot, copysign = _wrap(np.power), _wrap(np.arctan2), _wrap(np.fmod), _wrap(np.hypot), _wrap(np.copysign)
    signbit = _wrap(np.signbit)
    nextafter = _wrap(np.nextafter)

    # numpy has no erfc/lgamma/erfinv: torch's stand in (math.lgamma raises at the poles,
    # 0 and the negative integers, where torch and libdevice give inf; a masked lane loads 0)
    def _torch(fn):
        return _wrap(lambda d: fn(torch.from_numpy(np.ascontiguousarray(d))).numpy())

    erfc, lgamma, erfinv = _torch(torch.special.erfc), _torch(torch.lgamma), _torch(torch.erfinv)

    def int1(v):
        """A boolean value labelled int1: the interpreter labels a comparison's result with its
        operands' dtype, and broadcasting a scalar one (0-d operands) against a block then
        fills the block with floats, which `&` / `|` with a block of bools refuses."""
        from triton.runtime.interpreter import TensorHandle
        if not isinstance(v, tl.tensor) or v.handle.dtype == tl.int1:
            return v
        return tl.tensor(TensorHandle(np.asarray(v.handle.data).astype(np.bool_), tl.int1), v.type)

    def assert_in_bounds(index, size, mask):
        idx = index.handle.data
        m = True
        if isinstance(mask, tl.tensor):   # a scalar index (a 0-d one) under a block's mask
            shape = np.broadcast_shapes(idx.shape, np.shape(mask.handle.data))
            idx, m = np.broadcast_to(idx, shape), np.broadcast_to(mask.handle.data, shape)
        bad = ((idx < 0) | (idx >= size)) & m
        if np.any(bad):
            raise IndexError(f"index {int(idx[bad].flat[0])} is out of bounds for dimension with size {size}")
else:
    from triton.language.extra import libdevice

    # Each libdevice function is called through `libdevice.<name>` inside a jit function:
    # Triton swaps that module for the target's implementation only when the call goes through
    # the module (an alias such as `th.tanh = libdevice.tanh` compiles to the stub, which
    # returns None).
    @triton.jit
    def tanh(x):
        return libdevice.tanh(x)

    @triton.jit
    def log1p(x):
        return libdevice.log1p(x)

    @triton.jit
    def expm1(x):
        return libdevice.expm1(x)

    @triton.jit
    def tan(x):
        return libdevice.tan(x)

    @triton.jit
    def asin(x):
        return libdevice.asin(x)

    @triton.jit
    def acos(x):
        return libdevice.acos(x)

    @triton.jit
    def atan(x):
        return libdevice.atan(x)

    @triton.jit
    def sinh(x):
        return libdevice.sinh(x)

    @triton.jit
    def cosh(x):
        return libdevice.cosh(x)

    @triton.jit
    def asinh(x):
        return libdevice.asinh(x)

    @triton.jit
    def acosh(x):
        return libdevice.acosh(x)

    @triton.jit
    def atanh(x):
        return libdevice.atanh(x)

    @triton.jit
    def log10(x):
        return libdevice.log10(x)

    @triton.jit
    def round_even(x):
        return libdevice.nearbyint(x)

    @triton.jit
    def trunc(x):
        return libdevice.trunc(x)

    @triton.jit
    def signbit(x):
        return libdevice.signbit(x)

    @triton.jit
    def erfc(x):
        return libdevice.erfc(x)

    @triton.jit
    def lgamma(x):
        return libdevice.lgamma(x)

    @triton.jit
    def erfinv(x):
        return libdevice.erfinv(x)

    @triton.jit
    def pow(a, b):
        return libdevice.pow(a, b)

    @triton.jit
    def atan2(a, b):
        return libdevice.atan2(a, b)

    @triton.jit
    def fmod(a, b):
        return libdevice.fmod(a, b)

    @triton.jit
    def hypot(a, b):
        return libdevice.hypot(a, b)

    @triton.jit
    def copysign(a, b):
        return libdevice.copysign(a, b)

    @triton.jit
    def nextafter(a, b):
        return libdevice.nextafter(a, b)

    @triton.jit
    def assert_in_bounds(index, size, mask):
        tl.device_assert(((index >= 0) & (index < size)) | ~mask, "index out of bounds")
