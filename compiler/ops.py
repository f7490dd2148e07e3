"""The virtual ops handler ("V.ops"): lowering's inner functions call `ops.add(a, b)`,
`ops.load(name, index)`, ... and whichever handler is installed gives them meaning:
`Recorder` collects reads for dependency analysis, the Triton kernel emits source.

Handler methods used by lowerings:
  load(name, index) constant(value, dtype) index_expr(expr, dtype) to_dtype(x, dtype)
  masked(mask, body, other) indirect_indexing(value, size, check=True, wrap_negative=True)
  (an index below 0 counts from the end, as x[-1], unless wrap_negative is False: then it
  fails the bounds check, as index_select's does in eager)
  and the elementwise functions named in POINTWISE (unary and binary), plus where(c, a, b)
  and polygamma(n, x) (n >= 1, an int); rand / randn / rand_int63(seed, offset): Philox draws
  (uniform float32 in [0, 1), standard normal float32, a non-negative int64: lowerings/random.py).
"""
from __future__ import annotations

import contextlib
import itertools
import threading

from .sym import sym

UNARY = ["neg", "abs", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
         "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
         "asinh", "acosh", "atanh", "erf", "erfc", "sigmoid", "floor", "ceil", "round", "trunc",
         "isnan", "isinf", "logical_not", "bitwise_not", "sign", "signbit", "erfinv", "lgamma",
         "digamma", "erfcx", "i0", "i0e", "i1", "i1e"]
BINARY = ["add", "sub", "mul", "truediv", "floordiv", "truncdiv", "remainder", "fmod", "pow", "ipow",
          "atan2", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
          "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
          "lshift", "rshift", "copysign", "hypot", "nextafter"]
# and the special functions of codegen/special_calls.py (Bessel, Airy, polynomials, igamma, ...)

_local = threading.local()


def current():
    h = getattr(_local, "handler", None)
    if h is None:
        raise RuntimeError("no ops handler installed")
    return h


@contextlib.contextmanager
def use(handler):
    prev = getattr(_local, "handler", None)
    _local.handler = handler
    try:
        yield handler
    finally:
        _local.handler = prev


class _Ops:
    def __getattr__(self, name):
        return getattr(current(), name)


ops = _Ops()


class Recorder:
    """Runs an inner function for its reads: (buffer name, linear index) pairs."""

    _ids = itertools.count()

    def __init__(self):
        self.reads: list[tuple[str, object]] = []
        self.indirect = False

    def load(self, name, index):
        self.reads.append((name, index))
        return None

    def masked(self, mask, body, other):
        return body()

    def indirect_indexing(self, value, size, check=True, wrap_negative=True):
        self.indirect = True
        return sym(f"ind{next(self._ids)}")

    def __getattr__(self, name):
        return lambda *a, **k: None
