"""The `_foreach_*` family: one op over lists of tensors, lowered per tensor onto the ordinary
pointwise and reduction lowerings (each element of the result list is a value like any other,
so it fuses vertically with its neighbours; the scheduler's combo kernels then put the
per-tensor kernels of an optimizer step into one launch).

Overloads: List (tensor lists zipped), Scalar (one number for every tensor), ScalarList (one
number per tensor), Tensor (a 0-d tensor for every tensor; addcmul/addcdiv: a 1-d tensor of
one scale per tensor), ScalarAndTensor (pow: scalar ** tensor). The in-place forms never reach
a lowering (functionalization turns them into these plus copy_ into the inputs).
"""
from __future__ import annotations

import torch

from .. import ir
from ..lowering import lookup, register
from ..torch_compat import aten


def _op(target):
    fn = lookup(target)
    if fn is None:   # no lowering for the per-tensor op: the foreach op runs in ATen
        raise NotImplementedError(f"no lowering for {target}")
    return fn


def _zip(*args):
    """Per-tensor argument tuples: lists are zipped, anything else repeats."""
    n = next(len(a) for a in args if isinstance(a, (list, tuple)))
    for a in args:
        if isinstance(a, (list, tuple)) and len(a) != n:
            raise RuntimeError(f"foreach lists of different lengths ({len(a)} and {n})")
    return [[a[i] if isinstance(a, (list, tuple)) else a for a in args] for i in range(n)]


def _binary(target, alpha_ok=False):
    def lower(self, other, alpha=None):
        fn = _op(target)
        if alpha is not None and alpha != 1:
            if not alpha_ok:
                raise NotImplementedError("alpha")
            return [fn(a, b, alpha=alpha) for a, b in _zip(self, other)]
        return [fn(a, b) for a, b in _zip(self, other)]
    return lower


for _name, _target, _alpha in (("add", aten.add.Tensor, True), ("sub", aten.sub.Tensor, True),
                               ("mul", aten.mul.Tensor, False), ("div", aten.div.Tensor, False),
                               ("maximum", aten.maximum.default, False),
                               ("minimum", aten.minimum.default, False),
                               ("clamp_min", aten.clamp_min.default, False),
                               ("clamp_max", aten.clamp_max.default, False),
                               ("pow", aten.pow.Tensor_Tensor, False)):
    _packet = getattr(aten, f"_foreach_{_name}", None)
    if _packet is None:
        continue
    for _ov in ("List", "Scalar", "ScalarList", "Tensor"):
        if hasattr(_packet, _ov):
            register(getattr(_packet, _ov))(_binary(_target, _alpha))


@register(aten._foreach_pow.ScalarAndTensor)
def _pow_scalar_base(base, exponents):
    fn = _op(aten.pow.Scalar)
    return [fn(base, e) for e in exponents]


_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
          "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
          "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")


def _unary(name):
    def lower(self):
        fn = _op(getattr(aten, name).default)
        return [fn(a) for a in self]
    return lower


for _name in _UNARY:
    _packet = getattr(aten, f"_foreach_{_name}", None)
    if _packet is not None and hasattr(_packet, "default") and hasattr(aten, _name):
        register(_packet.default)(_unary(_name))


def _scales(scalars, n):
    """One scale per tensor: a number, a list of numbers, or a 1-d tensor of n numbers."""
    if isinstance(scalars, ir.TensorValue):
        select = _op(aten.select.int)
        return [select(scalars, 0, i) for i in range(n)]
    return scalars if isinstance(scalars, (list, tuple)) else [scalars] * n


def _addc(combine):
    def lower(self, tensor1, tensor2, scalars=1, value=None):
        if value is not None:
            scalars = value
        mul, add = _op(aten.mul.Tensor), _op(aten.add.Tensor)
        out = []
        for (s, a, b), k in zip(_zip(self, tensor1, tensor2), _scales(scalars, len(self))):
            term = _op(combine)(a, b)
            scaled = isinstance(k, ir.TensorValue) or k != 1
            out.append(add(s, mul(term, k) if scaled else term))
        return out
    return lower


for _ov in ("Scalar", "ScalarList", "Tensor"):
    register(getattr(aten._foreach_addcmul, _ov))(_addc(aten.mul.Tensor))
    register(getattr(aten._foreach_addcdiv, _ov))(_addc(aten.div.Tensor))


def _lerp(self, end, weight):
    fn = _op(aten.lerp.Tensor if isinstance(weight, ir.TensorValue) else aten.lerp.Scalar)
    return [fn(a, b, w) for a, b, w in _zip(self, end, weight)]


for _ov in ("List", "Scalar", "ScalarList"):
    if hasattr(aten._foreach_lerp, _ov):
        register(getattr(aten._foreach_lerp, _ov))(_lerp)


@register(aten._foreach_copy.default)
def _copy(self, src, non_blocking=False):
    to = _op(aten._to_copy.default)
    return [to(s, dtype=d.dtype) if s.dtype != d.dtype else _op(aten.clone.default)(s)
            for d, s in _zip(self, src)]


def _clone(self, memory_format=None):
    fn = _op(aten.clone.default)
    return [fn(a) for a in self]


def _zero(self):
    fn = _op(aten.zeros_like.default)
    return [fn(a) for a in self]


# Newer than torch 2.11 (there, clone/zero of a list never reaches a graph as one op).
for _name, _fn in (("_foreach_clone", _clone), ("_foreach_zero", _zero)):
    if hasattr(aten, _name):
        register(getattr(aten, _name).default)(_fn)


@register(aten._foreach_norm.Scalar)
def _norm(self, ord=2, dtype=None):
    """Per-tensor vector norm (gradient clipping): sqrt(sum(x^2)) for 2, sum(|x|) for 1,
    max(|x|) for inf, sum(|x|^p)^(1/p) otherwise; accumulated in fp32 for half types."""
    absf, sumf = _op(aten.abs.default), _op(aten.sum.dim_IntList)
    mul, powf, sqrt = _op(aten.mul.Tensor), _op(aten.pow.Tensor_Scalar), _op(aten.sqrt.default)
    to = _op(aten._to_copy.default)
    ord = float(ord)
    out = []
    for a in self:
        acc = dtype or (torch.float32 if a.dtype in (torch.float16, torch.bfloat16) else a.dtype)
        x = to(a, dtype=acc) if a.dtype != acc else a
        if ord == float("inf"):
            r = _op(aten.amax.default)(absf(x), list(range(len(x.size))))
        elif ord == 2:
            r = sqrt(sumf(mul(x, x), list(range(len(x.size)))))
        elif ord == 1:
            r = sumf(absf(x), list(range(len(x.size))))
        else:
            r = powf(sumf(powf(absf(x), ord), list(range(len(x.size)))), 1.0 / ord)
        out.append(to(r, dtype=dtype or a.dtype) if r.dtype != (dtype or a.dtype) else r)
    return out
