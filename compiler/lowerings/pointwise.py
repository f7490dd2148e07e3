"""Elementwise lowerings with eager's type promotion (torch._prims_common rules)."""
from __future__ import annotations

import math

import torch

from .. import ir
from .. import sym as S
from ..codegen import special_calls
from ..lowering import (broadcast_shapes, device_of, dtypes, fallback, is_tensor, loader_for,
                        make_pointwise, register)
from ..ops import ops
from ..torch_compat import aten, prims


def _ew(kind, fn, int_fn=None):
    def lower(*args):
        compute, result = dtypes(args, kind)
        f = int_fn if (int_fn is not None and not compute.is_floating_point) else fn
        return make_pointwise(f, list(args), result, compute)
    return lower


def _reg(target, kind, fn, int_fn=None):
    register(target)(_ew(kind, fn, int_fn))


_FLOAT_UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
                "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                "acosh", "atanh", "erf", "erfc", "sigmoid", "erfinv", "lgamma", "reciprocal"]
for _name in _FLOAT_UNARY:
    _reg(getattr(aten, _name), "INT_TO_FLOAT", (lambda n: lambda x: getattr(ops, n)(x))(_name))

_reg(aten.digamma, "INT_TO_FLOAT", lambda x: ops.digamma(x))
# special functions evaluated by series in the runtime helpers (th.erfcx, th.bessel_i)
for _target, _name in [(aten.special_erfcx, "erfcx"), (aten.i0, "i0"),
                       (aten.special_modified_bessel_i0, "i0"), (aten.special_i0e, "i0e"),
                       (aten.special_i1, "i1"), (aten.special_modified_bessel_i1, "i1"),
                       (aten.special_i1e, "i1e")]:
    _reg(_target, "INT_TO_FLOAT", (lambda n: lambda x: getattr(ops, n)(x))(_name))

# Bessel J/Y/K, Airy Ai, ndtri (runtime/special.py): ops of the same name as the ATen op's
# special_ suffix
for _name in special_calls.UNARY:
    _reg(getattr(aten, "special_" + _name), "INT_TO_FLOAT",
         (lambda n: lambda x: getattr(ops, n)(x))(_name))
# P_n(x) with n a tensor or a number, igamma(a, x), igammac(a, x), zeta(x, q)
for _name in special_calls.BINARY:
    _reg(getattr(aten, _name if _name.startswith("igamma") else "special_" + _name),
         "INT_TO_FLOAT", (lambda n: lambda a, b: getattr(ops, n)(a, b))(_name))


@register(aten.nextafter)
def _nextafter(a, b):
    """The next representable value of the result dtype: float32 and float64 compute in it;
    a 16-bit float (computed in float32, where the step is 2^13 times smaller) runs in ATen."""
    compute, result = dtypes([a, b])
    if result in (torch.float16, torch.bfloat16):
        return fallback(aten.nextafter.default, (a, b))
    return make_pointwise(lambda x, y: ops.nextafter(x, y), [a, b], result, compute)


@register(aten.polygamma.default)
def _polygamma(n, x):
    """psi^(n): digamma for n = 0, else the helper's zeta series (runtime/helpers.py)."""
    compute, result = dtypes([x], "INT_TO_FLOAT")
    if n < 0:
        raise NotImplementedError("polygamma(n < 0): eager refuses it")
    fn = (lambda v: ops.digamma(v)) if n == 0 else (lambda v: ops.polygamma(int(n), v))
    return make_pointwise(fn, [x], result, compute)


_reg(aten.neg, "DEFAULT", lambda x: ops.neg(x))
_reg(aten.abs, "COMPLEX_TO_FLOAT", lambda x: ops.abs(x))
for _name in ("floor", "ceil", "round", "trunc"):
    _reg(getattr(aten, _name), "DEFAULT", (lambda n: lambda x: getattr(ops, n)(x))(_name),
         int_fn=lambda x: x)


@register(aten.round.decimals)
def _round_decimals(x, decimals=0):
    """round(x * 10^d) / 10^d, or round(x / 10^-d) * 10^-d for d < 0, half to even, as eager
    computes it (10^|d| rounded to the compute dtype once)."""
    compute, result = dtypes([x])
    if not compute.is_floating_point:
        raise NotImplementedError("round(decimals=) on integers: eager refuses it")
    if decimals == 0:
        return make_pointwise(lambda v: ops.round(v), [x], result, compute)

    def fn(v):
        scale = ops.constant(10.0 ** abs(decimals) if abs(decimals) <= 308 else math.inf, compute)
        if decimals > 0:
            return ops.truediv(ops.round(ops.mul(v, scale)), scale)
        return ops.mul(ops.round(ops.truediv(v, scale)), scale)
    return make_pointwise(fn, [x], result, compute)


_reg(aten.sign, "DEFAULT", lambda x: ops.sign(x))
_reg(aten.sgn, "DEFAULT", lambda x: ops.sign(x))
_reg(aten.signbit, "ALWAYS_BOOL", lambda x: ops.signbit(x))
_reg(aten.isnan, "ALWAYS_BOOL", lambda x: ops.isnan(x), int_fn=lambda x: ops.ne(x, x))
_reg(aten.isinf, "ALWAYS_BOOL", lambda x: ops.isinf(x), int_fn=lambda x: ops.ne(x, x))
_reg(aten.logical_not, "ALWAYS_BOOL", lambda x: ops.logical_not(x))
_reg(aten.bitwise_not, "DEFAULT", lambda x: ops.bitwise_not(x))


@register(aten.relu)
def _relu(x):
    return make_pointwise(lambda v: ops.maximum(v, ops.constant(0, x.dtype)), [x], x.dtype, x.dtype)


for _name, _op in [("eq", "eq"), ("ne", "ne"), ("lt", "lt"), ("le", "le"), ("gt", "gt"),
                   ("ge", "ge"), ("logical_and", "logical_and"), ("logical_or", "logical_or"),
                   ("logical_xor", "logical_xor")]:
    _reg(getattr(aten, _name), "ALWAYS_BOOL", (lambda o: lambda a, b: getattr(ops, o)(a, b))(_op))
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    _reg(getattr(aten, _name), "DEFAULT", (lambda o: lambda a, b: getattr(ops, o)(a, b))(_name))
_reg(aten.bitwise_left_shift, "DEFAULT", lambda a, b: ops.lshift(a, b))
_reg(aten.bitwise_right_shift, "DEFAULT", lambda a, b: ops.rshift(a, b))
_reg(aten.maximum, "DEFAULT", lambda a, b: ops.maximum(a, b))
_reg(aten.minimum, "DEFAULT", lambda a, b: ops.minimum(a, b))
_reg(aten.fmax, "DEFAULT", lambda a, b: ops.where(ops.isnan(b), a, ops.where(ops.isnan(a), b, ops.maximum(a, b))),
     int_fn=lambda a, b: ops.maximum(a, b))
_reg(aten.fmin, "DEFAULT", lambda a, b: ops.where(ops.isnan(b), a, ops.where(ops.isnan(a), b, ops.minimum(a, b))),
     int_fn=lambda a, b: ops.minimum(a, b))
# a * b + c: dynamo writes Tensor.addcmul_ (AdamW's second moment) as prims.fma
if hasattr(prims, "fma"):   # defined by torch's inductor prims (torch_compat imports them)
    _reg(prims.fma, "DEFAULT", lambda a, b, c: ops.add(ops.mul(a, b), c))
_reg(aten.atan2, "INT_TO_FLOAT", lambda a, b: ops.atan2(a, b))
_reg(aten.hypot, "DEFAULT", lambda a, b: ops.hypot(a, b))
_reg(aten.copysign, "INT_TO_FLOAT", lambda a, b: ops.copysign(a, b))
_reg(aten.fmod, "DEFAULT", lambda a, b: ops.fmod(a, b))
_reg(aten.remainder, "DEFAULT", lambda a, b: ops.remainder(a, b))
_reg(aten.floor_divide, "DEFAULT", lambda a, b: ops.floor(ops.truediv(a, b)),
     int_fn=lambda a, b: ops.floordiv(a, b))


@register(aten.mul.Tensor, aten.mul.Scalar)
def _mul(a, b):
    compute, result = dtypes([a, b])
    if compute == torch.bool:
        return make_pointwise(lambda x, y: ops.logical_and(x, y), [a, b], result, compute)
    return make_pointwise(lambda x, y: ops.mul(x, y), [a, b], result, compute)


def _addsub(sign):
    def lower(a, b, alpha=1):
        compute, result = dtypes([a, b])
        if compute == torch.bool:
            return make_pointwise(lambda x, y: ops.logical_or(x, y), [a, b], result, compute)
        scale = alpha * sign

        def fn(x, y):
            if scale != 1:
                y = ops.mul(y, ops.constant(scale, compute))
            return ops.add(x, y)
        return make_pointwise(fn, [a, b], result, compute)
    return lower


register(aten.add.Tensor, aten.add.Scalar, aten.add)(_addsub(1))
register(aten.sub.Tensor, aten.sub.Scalar, aten.sub)(_addsub(-1))
register(aten.rsub.Tensor, aten.rsub.Scalar)(lambda a, b, alpha=1: _addsub(-1)(b, a, alpha))


@register(aten.div.Tensor, aten.div.Scalar, aten.div, aten.true_divide, prims.div)
def _div(a, b, rounding_mode=None):
    if rounding_mode is None:
        compute, result = dtypes([a, b], "INT_TO_FLOAT")
        if not result.is_floating_point:   # prims.div on integers truncates
            return make_pointwise(lambda x, y: ops.truncdiv(x, y), [a, b], result, result)
        return make_pointwise(lambda x, y: ops.truediv(x, y), [a, b], result, compute)
    compute, result = dtypes([a, b])
    if compute.is_floating_point:
        rnd = "floor" if rounding_mode == "floor" else "trunc"
        return make_pointwise(lambda x, y: getattr(ops, rnd)(ops.truediv(x, y)), [a, b], result, compute)
    f = "floordiv" if rounding_mode == "floor" else "truncdiv"
    return make_pointwise(lambda x, y: getattr(ops, f)(x, y), [a, b], result, compute)


register(aten.div.Tensor_mode, aten.div.Scalar_mode)(_div)


@register(aten.pow.Tensor_Scalar, aten.pow.Tensor_Tensor, aten.pow.Scalar, aten.pow)
def _pow(a, b):
    compute, result = dtypes([a, b], "BOOL_TO_LONG")
    if not is_tensor(b) and isinstance(b, (int, float)) and float(b).is_integer() and abs(b) <= 4:
        n = int(b)

        def fn(x, _):
            if n == 0:
                return ops.constant(1, compute)
            out = x
            for _i in range(abs(n) - 1):
                out = ops.mul(out, x)
            return ops.reciprocal(out) if n < 0 else out
        return make_pointwise(fn, [a, None], result, compute, shape=a.size)
    # (an exponent dynamo made a symbol, dynamic=True's integer argument, is never compared:
    # that would need its value; it takes the general pow below, where eager special-cases
    # 2, 3, -1, -2 and 0.5, a last-bit difference at most)
    if not is_tensor(b) and isinstance(b, (int, float)) and b == 0.5:
        return make_pointwise(lambda x, _: ops.sqrt(x), [a, None], result, compute, shape=a.size)
    if not (compute.is_floating_point or compute.is_complex):   # integers: eager's powi
        return make_pointwise(lambda x, y: ops.ipow(x, y), [a, b], result, compute)
    return make_pointwise(lambda x, y: ops.pow(x, y), [a, b], result, compute)


@register(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar,
          prims.where)
def _where(cond, a, b):
    compute, result = dtypes([a, b])
    shape_args = [cond, a, b]
    shape = broadcast_shapes(*[x.size for x in shape_args if is_tensor(x)])
    lc = loader_for(cond, shape, torch.bool)
    la, lb = loader_for(a, shape, compute), loader_for(b, shape, compute)

    def inner(idx):
        return ops.to_dtype(ops.where(lc(idx), la(idx), lb(idx)), result)
    return ir.Lazy(shape, result, device_of(*shape_args), inner)


@register(aten.clamp, aten.clamp.default, aten.clamp.Tensor)
def _clamp(x, lo=None, hi=None):
    compute, result = dtypes([x] + [v for v in (lo, hi) if v is not None])

    def fn(v, l, h):
        if l is not None:
            v = ops.maximum(v, l)
        if h is not None:
            v = ops.minimum(v, h)
        return v
    return make_pointwise(fn, [x, lo, hi], result, compute)


register(aten.clamp_min)(lambda x, lo: _clamp(x, lo, None))
register(aten.clamp_max)(lambda x, hi: _clamp(x, None, hi))


@register(aten.lerp.Scalar, aten.lerp.Tensor)
def _lerp(a, b, w):
    compute, result = dtypes([a, b, w])
    return make_pointwise(lambda x, y, t: ops.add(x, ops.mul(t, ops.sub(y, x))), [a, b, w],
                          result, compute)


@register(aten._to_copy, prims.convert_element_type)
def _to_copy(x, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    if device is not None and torch.device(device) != x.device:
        return fallback(aten._to_copy.default, (x,), dict(dtype=dtype, device=device))
    dtype = dtype or x.dtype
    return _with_format(make_pointwise(lambda v: v, [x], dtype, dtype), memory_format)


@register(aten.clone, aten.lift_fresh_copy)
def _clone(x, memory_format=None):
    return _with_format(make_pointwise(lambda v: v, [x], x.dtype, x.dtype), memory_format)


def _with_format(lazy, memory_format):
    """An explicit memory format fixes the layout of the copy when it is realized (.contiguous()
    of a permuted tensor must come out contiguous, not in its input's order)."""
    size = tuple(lazy.size)
    if memory_format == torch.contiguous_format:
        lazy.stride_hint = S.contiguous_strides(size)
    elif memory_format in (torch.channels_last, torch.channels_last_3d) and len(size) in (4, 5):
        order = [0] + list(range(2, len(size))) + [1]     # N, spatial..., C innermost
        lazy.stride_hint = S.dense_strides_in_order(size, order)
    return lazy


@register(aten.alias.default, aten.detach.default, prims.view_of)
def _alias(x):
    return x


@register(aten.gelu)
def _gelu(x, approximate="none"):
    compute, result = dtypes([x], "INT_TO_FLOAT")

    def fn(v):
        if approximate == "tanh":
            inner = ops.mul(ops.constant(math.sqrt(2 / math.pi), compute),
                            ops.add(v, ops.mul(ops.constant(0.044715, compute), ops.mul(v, ops.mul(v, v)))))
            return ops.mul(ops.mul(ops.constant(0.5, compute), v),
                           ops.add(ops.constant(1.0, compute), ops.tanh(inner)))
        return ops.mul(ops.mul(ops.constant(0.5, compute), v),
                       ops.add(ops.constant(1.0, compute), ops.erf(ops.mul(v, ops.constant(1 / math.sqrt(2), compute)))))
    return make_pointwise(fn, [x], result, compute)
