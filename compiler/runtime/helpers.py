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
def ipow(a, b):
    """a ** b over integers as eager computes it: square and multiply over b's 64 bits, the
    products wrapping as eager's do; b < 0 gives 1 for a == 1, -1 or 1 for a == -1 (b odd or
    even), else 0."""
    r = a * 0 + b * 0 + 1
    base = a + b * 0
    e = b + a * 0
    for _ in range(64):
        r = tl.where((e & 1) != 0, r * base, r)
        e = e >> 1
        base = base * base
    if r.dtype.is_int_signed():
        odd = (b & 1) != 0
        neg = tl.where(a == 1, 1, tl.where(a == -1, tl.where(odd, -1, 1), 0))
        r = tl.where(b < 0, neg.to(r.dtype), r)
    return r


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


# Digamma and polygamma: no libdevice function exists, so a series in float64 (a float32
# argument is widened, the result narrowed back): recurrence up to a large argument, then the
# asymptotic expansion there, which is exact to float64 rounding from 15 on.

@triton.jit
def digamma(x):
    """psi(x): for x < 0 the reflection psi(1 - x) - pi / tan(pi x) (tan of pi times x's
    distance to the nearest integer, exact for any magnitude), then psi(t) = psi(t + k) - sum 1/(t + i) up to t >= 15,
    and log t - 1/(2t) - sum B_2k / (2k t^2k) there. Poles as eager: -inf at +0, inf at -0,
    NaN at the negative integers and -inf."""
    y = x.to(tl.float64)
    one = tl.full([], 1.0, tl.float64)   # a float literal would be a float32 constant
    pi = tl.full([], 3.141592653589793, tl.float64)
    neg = y < 0.0
    r = y - tl.floor(y + 0.5)   # exact (the nearest integer's distance); tan has period 1
    acc = tl.where(neg, -pi * tl.cos(pi * r) / tl.sin(pi * r), 0.0)
    t = tl.where(neg, 1.0 - y, y)
    for _i in tl.static_range(16):
        small = t < 15.0
        acc = tl.where(small, acc - 1.0 / t, acc)
        t = tl.where(small, t + 1.0, t)
    r = one / (t * t)
    series = r * (one / 12 - r * (one / 120 - r * (one / 252 - r * (one / 240 - r * (
        one / 132 - r * (691 * one / 32760 - r * (one / 12)))))))
    out = acc + tl.log(t) - 0.5 / t - series
    out = tl.where(neg & (y == tl.floor(y)), float("nan"), out)
    out = tl.where(y == 0.0, tl.where(1.0 / y < 0.0, float("inf"), float("-inf")), out)
    return out.to(x.dtype)


@triton.jit
def bernoulli_tail(tail, s, pn, r):
    """tail plus the seven Bernoulli terms of the Euler-Maclaurin tail of sum_k (w + k)^-s:
    B_2k/(2k)! (s)_(2k-1) w^-(s+2k-1) for k = 1..7, with pn = w^(1-s) and r = w^-2, added in
    this order (th.polygamma here, sp.zeta's Hurwitz sum in runtime/special.py)."""
    a = 0.5 * s * pn * r
    tail += a / 6
    a = a * (s + 1.0) * (s + 2.0) * r / 12
    tail -= a / 30
    a = a * (s + 3.0) * (s + 4.0) * r / 30
    tail += a / 42
    a = a * (s + 5.0) * (s + 6.0) * r / 56
    tail -= a / 30
    a = a * (s + 7.0) * (s + 8.0) * r / 90
    tail += a * 5 / 66
    a = a * (s + 9.0) * (s + 10.0) * r / 132
    tail -= a * 691 / 2730
    a = a * (s + 11.0) * (s + 12.0) * r / 182
    tail += a * 7 / 6
    return tail


@triton.jit
def polygamma(x, n: tl.constexpr, scale: tl.constexpr):
    """psi^(n)(x) for n >= 1 as scale * zeta(n + 1, x), scale = (-1)^(n+1) n!: the Hurwitz
    zeta's terms (x + i)^-(n+1) summed while x + i < 15 (a loop until every lane is past it),
    then its Euler-Maclaurin tail there (seven Bernoulli terms). At x = 0 and the
    negative integers the pole: zeta is inf. Trigamma (n = 1) reflects x < 0.5 as eager does,
    pi^2 / sin^2(pi x) - psi'(1 - x) with the product pi x rounded to x's dtype: that rounding
    is most of eager's float32 error (2e-5 relative at x = -8.5), which a tolerance of 1e-6
    cannot absorb, so it is reproduced (the sine itself and the rest are in float64)."""
    y = x.to(tl.float64)
    if n == 1:
        pi = tl.full([], 3.141592653589793, tl.float64)
        sp = tl.sin((x * tl.full([], 3.141592653589793, x.dtype)).to(tl.float64))
        reflect = y < 0.5
        y = tl.where(reflect, 1.0 - y, y)
    # (lanes below -2^24, -inf included, are NaN: a step of 1 would take ~2^24 turns or never
    # move them; eager loops as long or forever there)
    w = tl.where(y < -16777216.0, float("nan"), y)
    acc = tl.zeros_like(y)
    while tl.max(tl.where(w < 15.0, 1, 0)) > 0:   # every term below 15, from any x
        small = w < 15.0
        inv = 1.0 / w
        p = inv
        for _j in tl.static_range(n):
            p = p * inv
        acc = tl.where(small, acc + p, acc)
        w = tl.where(small, w + 1.0, w)
    inv = 1.0 / w
    r = inv * inv
    pn = inv                                   # w^-n
    for _j in tl.static_range(n - 1):
        pn = pn * inv
    s = n + 1.0
    tail = pn / n + 0.5 * pn * inv
    tail = bernoulli_tail(tail, s, pn, r)
    z = acc + tail
    if n == 1:   # the reflection's poles come out as eager's (inf at 0, NaN at -inf)
        z = tl.where(reflect, pi * pi / (sp * sp) - z, z)
    else:        # the poles; and eager's zeta gives NaN at inf (0 * inf in its tail)
        z = tl.where((y <= 0.0) & (y == tl.floor(y)), float("inf"), z)
        z = tl.where(y == float("inf"), float("nan"), z)
    return (scale * z).to(x.dtype)


@triton.jit
def bessel_i(x, nu: tl.constexpr, scaled: tl.constexpr):
    """The modified Bessel function I_nu(x), nu 0 or 1 (times exp(-|x|) if scaled), in
    float64: the power series sum (x/2)^(2k+nu) / (k! (k+nu)!) for |x| <= 20 (45 terms, all
    positive), beyond it e^|x| / sqrt(2 pi |x|) sum_k c_k / |x|^k (30 terms; the next is
    below 1e-17 relative there). I_1 is odd. Unscaled, eager's overflow is kept: inf once
    e^|x| overflows x's dtype (|x| > 88.7 in float32, where I_0 itself is finite up to 91.9),
    NaN at inf; scaled, 0 at inf."""
    y = x.to(tl.float64)
    a = tl.abs(y)
    q = a * a * 0.25
    if nu == 1:
        term = a * 0.5
    else:
        term = tl.full(a.shape, 1.0, tl.float64)
    series = term
    for k in tl.static_range(1, 45):
        term = term * q / (k * (k + nu))
        series += term
    t = tl.full(a.shape, 1.0, tl.float64)
    asym = t
    for k in tl.static_range(1, 31):
        t = t * ((2 * k - 1) * (2 * k - 1) - 4 * nu * nu) / (8 * k * a)
        asym += t
    half_log = 0.5 * tl.log(2 * tl.full([], 3.141592653589793, tl.float64) * a)
    if scaled:
        series = series * tl.exp(-a)
        asym = asym * tl.exp(-half_log)
        at_inf = 0.0
    else:
        asym = asym * tl.exp(a - half_log)
        at_inf = float("nan")
    out = tl.where(a <= 20.0, series, tl.where(a == float("inf"), at_inf, asym))
    if not scaled:   # eager's e^|x| overflows in x's dtype first: inf from there, NaN at inf
        if x.dtype == tl.float64:
            out = tl.where((a > 709.782712893384) & (a < float("inf")), float("inf"), out)
        else:
            out = tl.where((a > 88.72283905206835) & (a < float("inf")), float("inf"), out)
    if nu == 1:
        out = tl.where(y < 0.0, -out, out)
    return out.to(x.dtype)


@triton.jit
def erfcx(x):
    """exp(x^2) erfc(x) in float64: directly up to 25 (x^2 is exact for a float32 x; erfc
    stays above float64's normals), then the asymptotic 1/(x sqrt(pi)) sum (-1)^k
    (2k-1)!! / (2x^2)^k (six terms: 3e-13 relative at 25). inf at -inf, 0 at inf."""
    y = x.to(tl.float64)
    # below 0 eager takes exp of x*x rounded to x's dtype: that rounding (5e-6 relative at
    # x = -9.3 in float32) is reproduced; above 0 it has no exp of x^2
    sq = tl.where(y < 0.0, (x * x).to(tl.float64), y * y)
    direct = tl.exp(sq) * erfc(y)
    r = 0.5 / (y * y)
    s = 1.0 - r * (1.0 - 3.0 * r * (1.0 - 5.0 * r * (1.0 - 7.0 * r * (1.0 - 9.0 * r))))
    asym = s / (y * tl.sqrt(tl.full([], 3.141592653589793, tl.float64)))
    return tl.where(y > 25.0, asym, direct).to(x.dtype)


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


@triton.jit
def rand_int63(seed, offset):
    """A uniform non-negative int64 (63 random bits) per offset, from two Philox words
    (randint and random_ reduce it modulo their range)."""
    a, b, _, _ = tl.randint4x(seed, offset)
    hi = (a.to(tl.uint32, bitcast=True).to(tl.int64) & 0x7FFFFFFF) << 32
    return hi | b.to(tl.uint32, bitcast=True).to(tl.int64)
