"""Random ops drawn in generated kernels: rand/randn (+ _like), bernoulli, normal, uniform,
exponential, geometric, cauchy, log_normal, random, randint (+ _like) and rrelu's noise.

A graph that draws anything takes one int64 seed per call from torch's default generator of
the device (an `aten.randint` call the wrapper makes first: torch.manual_seed makes compiled runs
reproducible, and under CUDA graphs the draw is captured as torch's graph-safe RNG). Each random
op of the graph gets its own offset (its ordinal in the high bits of Philox's 64-bit counter),
and an element's value is a Philox draw at (seed, offset + its row-major linear index): the
value depends only on the element, so it fuses into its consumers like any pointwise value (and
a consumer that recomputes it gets the same number). The numbers differ from eager's (ATen's
generator streams its own way); TUNER_FALLBACK_RANDOM=1 keeps every random op in ATen instead.
An explicit generator argument is not ours to advance: such a call runs in ATen.
"""
from __future__ import annotations

import math

import torch

from .. import ir
from ..lowering import broadcast_shapes, graph, is_tensor, loader_for, make_pointwise, register
from ..ops import ops
from ..sizes import SymSize
from ..torch_compat import aten

OFFSET_BITS = 40    # an op's elements: linear indices below 2**40, then the next op's offset
SEED_HIGH = 2 ** 63 - 1


def _enabled(generator=None):
    from tuner.settings import settings
    if settings.fallback_random == "all" or generator is not None:
        raise NotImplementedError("random op kept in ATen")


def _draw_state(device):
    """(seed view, offset) for the next random op on `device`: the graph's seed buffer (made
    by its first random op) and a fresh offset."""
    g = graph()
    state = g.__dict__.setdefault("_rng_state", {"seeds": {}, "ops": 0})
    key = str(device)
    seed = state["seeds"].get(key)
    if seed is None:
        buf = g.new_buffer(torch.int64, device, (1,), extern_out=True)
        # not a fallback: the graph's own seed, no op of the user's (stats do not count it)
        g.add_node(ir.Extern(g.node_name(), aten.randint.default, (SEED_HIGH, [1]),
                             {"dtype": torch.int64, "device": torch.device(device)}, [buf], "single"))
        seed = state["seeds"][key] = ir.View(buf, buf.size, buf.stride, 0)
    state["ops"] += 1
    return seed, state["ops"] << OFFSET_BITS


def _linear(idx, shape):
    """The row-major linear index of idx in shape (an index expression)."""
    flat, stride = 0, 1
    for i, s in reversed(list(zip(idx, shape))):
        flat = flat + i * stride
        stride = stride * getattr(s, "expr", s)
    return flat


def _random(shape, dtype, device, value, *tensors):
    """A lazy value of `shape`: value(draw, *loaded tensors) per element, where draw(kind) is
    that element's Philox draw ("rand": uniform [0, 1), "randn": normal, "rand_int63")."""
    shape = tuple(shape)
    seed, offset = _draw_state(device)
    seed_load = seed.loader()
    loaders = [loader_for(t, shape) for t in tensors]

    def inner(idx):
        s = seed_load([0])
        at = ops.add(ops.index_expr(_linear(idx, shape), torch.int64), ops.constant(offset, torch.int64))
        v = value(lambda kind: getattr(ops, kind)(s, at), *[ld(idx) for ld in loaders])
        return ops.to_dtype(v, dtype)

    return ir.Lazy(shape, dtype, device, inner)


def _dev(device, like=None):
    """The device of a draw: given, else its tensor argument's, else the traced output's (a
    factory under `with torch.device(...)` has no device argument in the graph)."""
    if device is not None:
        return torch.device(device)
    if like is not None:
        return like.device
    node = getattr(graph(), "current", None)
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val.device if isinstance(val, torch.Tensor) else graph().device


def _f(v):
    return ops.constant(float(v), torch.float32)


# -- uniform and normal draws ------------------------------------------------------------
@register(aten.rand.default)
def rand(size, dtype=None, layout=None, device=None, pin_memory=None):
    _enabled()
    return _random(size, dtype or torch.get_default_dtype(), _dev(device), lambda d: d("rand"))


@register(aten.randn.default)
def randn(size, dtype=None, layout=None, device=None, pin_memory=None):
    _enabled()
    return _random(size, dtype or torch.get_default_dtype(), _dev(device), lambda d: d("randn"))


@register(aten.rand_like.default)
def rand_like(x, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    _enabled()
    return _random(x.size, dtype or x.dtype, _dev(device, x), lambda d: d("rand"))


@register(aten.randn_like.default)
def randn_like(x, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    _enabled()
    return _random(x.size, dtype or x.dtype, _dev(device, x), lambda d: d("randn"))


@register(aten.uniform.default)
def uniform(x, low=0.0, high=1.0, generator=None):
    _enabled(generator)
    return _random(x.size, x.dtype, x.device,
                   lambda d: ops.add(ops.mul(d("rand"), _f(high - low)), _f(low)))


def _normal(shape, dtype, device, mean, std):
    """mean + std * N(0, 1); mean and std Python numbers or tensors (broadcast to shape)."""
    tensors = [t for t in (mean, std) if is_tensor(t)]

    def value(d, *loaded):
        it = iter(loaded)
        m = ops.to_dtype(next(it), torch.float32) if is_tensor(mean) else _f(mean)
        s = ops.to_dtype(next(it), torch.float32) if is_tensor(std) else _f(std)
        return ops.add(ops.mul(d("randn"), s), m)
    return _random(shape, dtype, device, value, *tensors)


@register(aten.normal_functional.default)
def normal_functional(x, mean=0.0, std=1.0, generator=None):
    _enabled(generator)
    return _normal(x.size, x.dtype, x.device, mean, std)


@register(aten.normal.Tensor_float)
def normal_tensor_float(mean, std=1.0, generator=None):
    _enabled(generator)
    return _normal(mean.size, mean.dtype, mean.device, mean, std)


@register(aten.normal.float_Tensor)
def normal_float_tensor(mean, std, generator=None):
    _enabled(generator)
    return _normal(std.size, std.dtype, std.device, mean, std)


@register(aten.normal.Tensor_Tensor)
def normal_tensor_tensor(mean, std, generator=None):
    _enabled(generator)
    shape = broadcast_shapes(mean.size, std.size)
    return _normal(shape, torch.promote_types(mean.dtype, std.dtype), mean.device, mean, std)


@register(aten.normal.float_float)
def normal_float_float(mean, std, size, generator=None, dtype=None, layout=None, device=None,
                       pin_memory=None):
    _enabled(generator)
    return _normal(size, dtype or torch.get_default_dtype(), _dev(device), mean, std)


# -- distributions transformed from a uniform draw ----------------------------------------
@register(aten.exponential.default)
def exponential(x, lambd=1.0, generator=None):
    _enabled(generator)
    # -log(1 - u) / lambda: 1 - u lies in (0, 1], so the value is finite
    return _random(x.size, x.dtype, x.device,
                   lambda d: ops.truediv(ops.neg(ops.log1p(ops.neg(d("rand")))), _f(lambd)))


@register(aten.geometric.default)
def geometric(x, p, generator=None):
    _enabled(generator)

    def value(d):   # trials until the first success: ceil(log(1 - u) / log(1 - p)), at least 1
        log_q = math.log1p(-p) if p < 1 else -math.inf   # (p = 1: every draw is 1)
        k = ops.ceil(ops.truediv(ops.log1p(ops.neg(d("rand"))), _f(log_q)))
        return ops.maximum(k, _f(1.0))
    return _random(x.size, x.dtype, x.device, value)


@register(aten.cauchy.default)
def cauchy(x, median=0.0, sigma=1.0, generator=None):
    _enabled(generator)
    return _random(x.size, x.dtype, x.device, lambda d: ops.add(ops.mul(
        ops.tan(ops.mul(ops.sub(d("rand"), _f(0.5)), _f(math.pi))), _f(sigma)), _f(median)))


@register(aten.log_normal.default)
def log_normal(x, mean=1.0, std=2.0, generator=None):
    _enabled(generator)
    return _random(x.size, x.dtype, x.device,
                   lambda d: ops.exp(ops.add(ops.mul(d("randn"), _f(std)), _f(mean))))


@register(aten.bernoulli.p)
def bernoulli_p(x, p=0.5, generator=None):
    _enabled(generator)
    return _random(x.size, x.dtype, x.device, lambda d: ops.lt(d("rand"), _f(p)))


@register(aten.bernoulli.default, aten.bernoulli.Tensor)
def bernoulli(x, p=None, generator=None):
    _enabled(generator)
    p = x if p is None else p
    return _random(x.size, x.dtype, x.device,
                   lambda d, q: ops.lt(d("rand"), ops.to_dtype(q, torch.float32)), p)


@register(aten.rrelu_with_noise_functional.default)
def rrelu_with_noise_functional(x, noise, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    """(out, noise_out): in training a slope uniform in [lower, upper] per element at or
    below 0 (noise_out holds it, 1 elsewhere); otherwise leaky_relu at their mean, noise as is."""
    _enabled(generator)
    if not training:
        slope = (lower + upper) / 2

        def leaky(idx, ld=x.loader()):
            v = ld(idx)
            return ops.where(ops.gt(v, ops.constant(0, x.dtype)), v,
                             ops.mul(v, ops.constant(slope, x.dtype)))
        kept = noise.loader()
        return (ir.Lazy(tuple(x.size), x.dtype, x.device, leaky),
                ir.Lazy(tuple(noise.size), noise.dtype, noise.device, lambda idx: kept(idx)))

    def slope(d):
        return ops.add(ops.mul(d("rand"), _f(upper - lower)), _f(lower))
    r = _random(x.size, torch.float32, x.device, slope)
    load_x, load_r = x.loader(), r.loader()

    def out(idx):
        v = ops.to_dtype(load_x(idx), torch.float32)
        neg = ops.le(v, _f(0.0))
        return ops.to_dtype(ops.where(neg, ops.mul(v, load_r(idx)), v), x.dtype)

    def noise_out(idx):
        neg = ops.le(ops.to_dtype(load_x(idx), torch.float32), _f(0.0))
        return ops.to_dtype(ops.where(neg, load_r(idx), _f(1.0)), noise.dtype)
    return (ir.Lazy(tuple(x.size), x.dtype, x.device, out),
            ir.Lazy(tuple(x.size), noise.dtype, x.device, noise_out))


@register(aten.rrelu_with_noise_backward.default)
def rrelu_with_noise_backward(grad, x, noise, lower, upper, training, self_is_result):
    """The gradient through rrelu: the drawn slopes (noise) in training, else leaky_relu's."""
    if training and upper - lower > 1e-6:
        return make_pointwise(lambda g, n: ops.mul(g, n), [grad, noise], grad.dtype, grad.dtype)
    slope = (lower + upper) / 2

    def leaky(g, v):
        return ops.where(ops.gt(v, ops.constant(0, x.dtype)), g, ops.mul(g, ops.constant(slope, grad.dtype)))
    return make_pointwise(leaky, [grad, x], grad.dtype)


# -- integers -------------------------------------------------------------------------------
def _integers(shape, dtype, device, low, high):
    """Uniform integers in [low, high) (Python ints), as dtype: 63 random bits modulo the span."""
    if not isinstance(low, (int, SymSize)) or not isinstance(high, (int, SymSize)) or high <= low:
        raise NotImplementedError("randint bounds not Python ints in order")
    span = high - low

    def value(d):
        bits = d("rand_int63")
        if span < 2 ** 63:
            bits = ops.remainder(bits, ops.constant(span, torch.int64))
        return ops.add(bits, ops.constant(low, torch.int64)) if low else bits
    return _random(shape, dtype, device, value)


def _top(dtype):
    """random_()'s default upper end (inclusive) for dtype: the largest integer it holds
    exactly (a float's 2**digits, an integer type's maximum)."""
    if dtype == torch.bool:
        return 1
    if dtype.is_floating_point:
        return 2 ** (torch.finfo(dtype).nmant + 1)
    return torch.iinfo(dtype).max


@register(aten.randint.default)
def randint(high, size, dtype=None, layout=None, device=None, pin_memory=None):
    _enabled()
    return _integers(size, dtype or torch.int64, _dev(device), 0, high)


@register(aten.randint.low)
def randint_low(low, high, size, dtype=None, layout=None, device=None, pin_memory=None):
    _enabled()
    return _integers(size, dtype or torch.int64, _dev(device), low, high)


@register(aten.randint_like.default)
def randint_like(x, high, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    _enabled()
    return _integers(x.size, dtype or x.dtype, _dev(device, x), 0, high)


@register(aten.randint_like.low_dtype)
def randint_like_low(x, low, high, dtype=None, layout=None, device=None, pin_memory=None,
                     memory_format=None):
    _enabled()
    return _integers(x.size, dtype or x.dtype, _dev(device, x), low, high)


@register(aten.random.default)
def random(x, generator=None):
    _enabled(generator)
    return _integers(x.size, x.dtype, x.device, 0, _top(x.dtype) + 1)


@register(aten.random.to)
def random_to(x, to, generator=None):
    _enabled(generator)
    return _integers(x.size, x.dtype, x.device, 0, to)


@register(getattr(aten.random, "from"))
def random_from(x, low, to=None, generator=None):
    _enabled(generator)
    return _integers(x.size, x.dtype, x.device, low, _top(x.dtype) + 1 if to is None else to)
