"""Index expressions: sympy with integer floor-division and modulo nodes, a simplifier that
folds unflatten-then-linearise back to the flat index, and a printer to Triton source.
"""
from __future__ import annotations

import functools
import math

import sympy


class FloorDiv(sympy.Function):
    """a // k, floored: k a positive integer (a of either sign: see texpr) or a positive size
    expression (then a >= 0)."""
    nargs = 2
    is_integer = True

    @classmethod
    def eval(cls, a, k):
        if k == 1:
            return a
        if a == 0 or k == 0:   # k == 0: a dim of size 0, whose indices are never computed
            return sympy.Integer(0)
        if a.is_Integer and k.is_Integer:
            return sympy.Integer(int(a) // int(k))
        if isinstance(a, FloorDiv):
            # (b // j) // k == b // (j*k) for positive j, k (floored or truncated alike): one
            # division where unflattening a channels-last index chained three (x // 1280 // 14
            # // 14 for the image of a 14x14x1280 map)
            return FloorDiv(a.args[0], a.args[1] * k)
        whole, rest = _split_multiple(a, k)
        if whole is not None:   # (k*q + b) // k == q + b // k for non-negative terms
            return whole + FloorDiv(rest, k)


class ModIdx(sympy.Function):
    """a % k for a >= 0 (indices only), k a positive integer."""
    nargs = 2
    is_integer = True

    @classmethod
    def eval(cls, a, k):
        if k == 1 or a == 0 or k == 0:   # k == 0: see FloorDiv
            return sympy.Integer(0)
        if a.is_Integer and k.is_Integer:
            return sympy.Integer(int(a) % int(k))
        whole, rest = _split_multiple(a, k)
        if whole is not None:
            return ModIdx(rest, k)


def _split_multiple(a, k):
    """a = k*whole + rest, with the terms of a whose coefficient k divides moved to whole, and
    the constant term's multiple of k too, so that rest keeps the constant in [0, k).

    FloorDiv and ModIdx hold only non-negative arguments (Triton's // and % truncate, and the
    bounds below assume it): a split is refused unless rest stays non-negative, which it does
    when every other term of rest has a non-negative coefficient. A slice or cat offset
    (a negative constant) must not leave rest negative: (288*t + 16*c - 960) // 288 is
    t - 4 + (16*c + 192) // 288, never t + (16*c - 960) // 288."""
    if not a.is_Add or not k.is_Integer:
        return None, None
    kk = int(k)
    whole, rest, const = [], [], 0
    for t in a.args:
        if t.is_Integer:
            const += int(t)
            continue
        c, _ = t.as_coeff_Mul()
        if c.is_Integer and int(c) % kk == 0:
            whole.append(t)
        elif c.is_negative:
            return None, None
        else:
            rest.append(t)
    q, r = divmod(const, kk)
    if q:
        whole.append(sympy.Integer(kk * q))
    if r:
        rest.append(sympy.Integer(r))
    if not whole or not rest:
        return None, None
    return sympy.Add(*whole) / k, sympy.Add(*rest)


def value_range(expr, bounds):
    """(smallest, largest) value of an index expression, each None when unknown. Symbols run
    from 0 to their bound (bounds: symbol name -> max value); // and % hold non-negative
    arguments, so both are at least 0, except a // k of a negatively signed term."""
    if expr.is_Integer:
        return int(expr), int(expr)
    if expr.is_Symbol:
        hi = bounds.get(expr.name)
        return 0, hi if isinstance(hi, int) else None   # (a symbolic size bound: unknown)
    if isinstance(expr, (FloorDiv, ModIdx)) and not expr.args[1].is_Integer:
        return 0, None
    if isinstance(expr, FloorDiv):
        lo, hi = value_range(expr.args[0], bounds)
        k = int(expr.args[1])
        # (PyTorch's ceil forms, (3 - s) // 2, written as ours by sizes.wrap, may be negative)
        lo = (None if lo is None else lo // k) if _maybe_negative(expr.args[0], k) else 0
        return lo, None if hi is None else hi // k
    if isinstance(expr, ModIdx):
        hi, k = value_range(expr.args[0], bounds)[1], int(expr.args[1]) - 1
        return 0, k if hi is None else min(hi, k)
    if expr.is_Add:
        parts = [value_range(a, bounds) for a in expr.args]
        los, his = [p[0] for p in parts], [p[1] for p in parts]
        return (None if None in los else sum(los)), (None if None in his else sum(his))
    if expr.is_Mul:
        c, rest = expr.as_coeff_Mul()
        if not c.is_Integer:
            return None, None
        if c == 1:   # a product of factors (s0*s1, a window start's i*s0): each at least 0
            parts = [value_range(f, bounds) for f in expr.args]
            if any(lo is None or lo < 0 for lo, _ in parts):
                return None, None
            his = [hi for _, hi in parts]
            return math.prod(lo for lo, _ in parts), None if None in his else math.prod(his)
        lo, hi = value_range(rest, bounds)
        if c < 0:
            lo, hi = hi, lo
        return (None if lo is None else int(c) * lo), (None if hi is None else int(c) * hi)
    return None, None


def with_bounds(expr, bounds):
    """Fold // and % whose argument stays within one multiple of the divisor (bounds: symbol
    name -> max value): a // k is then a constant and a % k is a minus that multiple."""
    def walk(e):
        if isinstance(e, (FloorDiv, ModIdx)) and e.args[1].is_Integer:
            a = walk(e.args[0])
            k = int(e.args[1])
            lo, hi = value_range(a, bounds)
            if lo is not None and hi is not None and lo // k == hi // k:
                q = lo // k
                return sympy.Integer(q) if isinstance(e, FloorDiv) else a - k * q
            return type(e)(a, e.args[1])
        if e.args and not e.is_Atom:
            return e.func(*[walk(x) for x in e.args])
        return e
    return simplify(walk(sympy.sympify(expr)))


def sym(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True, nonnegative=True)


def unflatten(flat, sizes):
    """Indices of a row-major tensor of `sizes` whose flat position is `flat`."""
    out = [sympy.Integer(0)] * len(sizes)
    rest = flat
    first = min((i for i, s in enumerate(sizes) if s != 1), default=None)
    for i in range(len(sizes) - 1, -1, -1):
        s = sizes[i]
        if s == 1:
            continue
        # the outermost non-trivial dim needs no modulo: `flat` is below the total size
        out[i] = rest if i == first else ModIdx(rest, s)
        rest = FloorDiv(rest, s)
    return out


def contiguous_strides(sizes):
    strides, acc = [], 1
    for s in reversed(sizes):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def dense_strides_in_order(sizes, order):
    """Dense strides for `sizes` with the dims laid out in `order` (outermost first)."""
    strides = [0] * len(sizes)
    for i, st in zip(order, contiguous_strides([sizes[i] for i in order])):
        strides[i] = st
    return tuple(strides)


def linear(index, strides, offset=0):
    return simplify(sum((sympy.sympify(st) * i for i, st in zip(index, strides) if st != 0),
                        sympy.sympify(offset)))


def _simplify_args(expr):
    if isinstance(expr, (FloorDiv, ModIdx)):
        return type(expr)(simplify(expr.args[0]), expr.args[1])
    if expr.args and not expr.is_Atom:
        return expr.func(*[_simplify_args(a) for a in expr.args])
    return expr


@functools.lru_cache(maxsize=65536)
def simplify(expr):
    """Fold c*k*(a//k) + c*(a%k) -> c*a repeatedly (after simplifying inside div/mod)."""
    expr = sympy.expand(_simplify_args(sympy.sympify(expr)))
    while True:
        terms = dict(expr.as_coefficients_dict())
        changed = False
        for t, c in list(terms.items()):
            if t not in terms:
                continue
            # t = m * (a % k), m a product of size symbols (1 for sizes that are ints)
            mods = [f for f in (t.args if t.is_Mul else (t,)) if isinstance(f, ModIdx)]
            if len(mods) != 1:
                continue
            m = sympy.Mul(*[f for f in (t.args if t.is_Mul else (t,)) if f is not mods[0]])
            a, k = mods[0].args
            want_c, fd = sympy.expand(m * k * FloorDiv(a, k)).as_coeff_Mul()
            if terms.get(fd) == c * want_c:
                del terms[t], terms[fd]
                a = m * a
                for t2, c2 in sympy.expand(c * a).as_coefficients_dict().items():
                    terms[t2] = terms.get(t2, 0) + c2
                changed = True
                break
            # (a % k) where a // k collapses the same way inside a larger sum: ModIdx(a, k) with
            # a < k is a; that needs ranges we do not track, so stop here.
        expr = sympy.Add(*[c * t for t, c in terms.items() if c != 0])
        if not changed:
            return expr


def free_names(expr) -> set[str]:
    return {s.name for s in sympy.sympify(expr).free_symbols}


def texpr(expr) -> str:
    """Triton/Python source for an index expression."""
    expr = sympy.sympify(expr)
    if expr.is_Integer:
        return str(int(expr))
    if expr.is_Symbol:
        return expr.name
    if isinstance(expr, FloorDiv) or type(expr).__name__ == "FloorDiv":   # (torch's sizes' too)
        a, k = texpr(expr.args[0]), texpr(expr.args[1])
        if _maybe_negative(expr.args[0], expr.args[1]):
            return f"(({a} - ((({a} % {k}) + {k}) % {k})) // {k})"
        return f"({a} // {k})"
    if isinstance(expr, (ModIdx, sympy.Mod)):
        a, k = texpr(expr.args[0]), texpr(expr.args[1])
        if _maybe_negative(expr.args[0], expr.args[1]):
            return f"((({a} % {k}) + {k}) % {k})"
        return f"({a} % {k})"
    if expr.is_Add:
        parts = sorted((texpr(a) for a in expr.args), key=lambda s: (s[0].isdigit(), s))
        return "(" + " + ".join(parts) + ")"
    if expr.is_Mul:
        return "(" + " * ".join(texpr(a) for a in expr.args) + ")"
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        return "(" + " * ".join([texpr(expr.base)] * int(expr.exp)) + ")"
    raise NotImplementedError(f"index expression {expr!r}")


def float_source(expr, cast, root) -> str:
    """Source of a float of sizes (sizes.SymFloat): a quotient of integer expressions, each a
    product that may hold roots (powers p / 2**n: SDPA's scale and its square root) of such
    floats; cast(e, its texpr) writes an integer expression as a float, root(src) a square
    root. NotImplementedError for other forms."""
    def rooted(f):
        return f.is_Pow and f.exp.is_Rational and not f.exp.is_Integer

    def product(x):
        factors = sympy.Mul.make_args(x)
        parts = []
        for f in filter(rooted, factors):
            n = f.exp.q.bit_length() - 1
            if f.exp.q != 1 << n:
                raise NotImplementedError(f"float of sizes {f}")
            src = float_source(f.base ** f.exp.p, cast, root)
            for _ in range(n):
                src = f"({root(src)})"
            parts.append(src)
        if not parts:
            return cast(x, texpr(x))
        rest = sympy.Mul(*[f for f in factors if not rooted(f)])
        return "(" + " * ".join(([cast(rest, texpr(rest))] if rest != 1 else []) + parts) + ")"
    num, den = sympy.fraction(sympy.together(expr))   # (s0/2 - 1/2 is (s0 - 1) / 2)
    return product(num) if den == 1 else f"({product(num)} / {product(den)})"


@functools.lru_cache(maxsize=65536)   # (texpr asks per printed index: expand once per numerator)
def _maybe_negative(a, k) -> bool:
    """Whether a // k or a % k (k a positive integer) may meet a negative a: a term with a
    negative coefficient (PyTorch's ceil-mode pooled sizes, (3 - s) // 2). Python floors a
    negative quotient, Triton truncates it (C), so such a division is printed in a form exact
    under both: (a - ((a % k + k) % k)) // k. Symbols are sizes and indices, never negative."""
    if not (sympy.sympify(k).is_Integer and k > 0):
        return False
    return any(t.as_coeff_Mul()[0] < 0 for t in sympy.Add.make_args(sympy.expand(a)))


def approx_stride(expr, s) -> int | None:
    """How far `expr` moves when symbol s steps by one, for most values of s: x % k moves like
    x, x // k (k > 1) mostly stays; None when s appears some other way. Used to tell which loop
    variable a load is contiguous along."""
    expr = sympy.sympify(expr)
    if s not in expr.free_symbols:
        return 0
    if expr == s:
        return 1
    if isinstance(expr, ModIdx):
        return approx_stride(expr.args[0], s)
    if isinstance(expr, (FloorDiv, ModIdx)) and not expr.args[1].is_Integer:
        return None
    if isinstance(expr, FloorDiv):
        inner = approx_stride(expr.args[0], s)
        return None if inner is None else (0 if inner < int(expr.args[1]) else inner // int(expr.args[1]))
    if expr.is_Add:
        parts = [approx_stride(a, s) for a in expr.args]
        return None if None in parts else sum(parts)
    if expr.is_Mul:
        dep = [f for f in expr.args if s in f.free_symbols]
        coeff = sympy.Mul(*[f for f in expr.args if s not in f.free_symbols])
        if len(dep) != 1 or not coeff.is_Integer:   # (a symbolic size as the stride: unknown)
            return None
        inner = approx_stride(dep[0], s)
        return None if inner is None else int(coeff) * inner
    return None
