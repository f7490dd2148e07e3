"""Integer arithmetic of symbolic sizes (compiler/sizes.py): floor division of size
expressions, and PyTorch's own size functions (FloorDiv, PythonMod, TruncToInt, ...) in sizes
read from a graph written as ours."""
from __future__ import annotations

import sympy

from . import sym as S


class Unsupported(Exception):
    """A graph compiler/sizes.py cannot keep symbolic (unbacked sizes, a size with no input to
    read it from): it is compiled per concrete shape instead."""


def floordiv(a, b, sv):
    """a // b for sizes, floored as Python does: exact where b divides a, else an
    integer-division node: by a positive integer of any integer polynomial (a ceil form,
    (3 - s) // 2 or -s // 2, may be negative: kernels print it floor-safe, sym.texpr), by a
    size polynomial (adaptive pooling's s0 // s1) of one decided non-negative; a negative
    divisor divides the negated numerator by its negation."""
    a, b = sympy.sympify(a), sympy.sympify(b)
    if b == 1:
        return a
    # integer-valued terms (a pooled size's FloorDiv) count as variables of the polynomial:
    # 4*s0*FloorDiv(s1 + 1, 2) // 2 is 2*s0*FloorDiv(s1 + 1, 2)
    funcs = a.atoms(sympy.Function) | b.atoms(sympy.Function)
    terms = {f: sympy.Dummy(f"t{i}") for i, f in enumerate(funcs)}
    back = {d: f for f, d in terms.items()}
    q = sympy.cancel(a.xreplace(terms) / b.xreplace(terms))
    if q.is_polynomial() and all(c.is_Integer for c in sympy.Poly(q, *q.free_symbols).coeffs()) \
            if q.free_symbols else q.is_Integer:
        return q.xreplace(back)
    num, den = sympy.fraction(sympy.together(q))   # (s*t) // (4*t) is s // 4
    if integer_poly(num) and integer_poly(den):
        num, den = sympy.expand(num.xreplace(back)), sympy.expand(den.xreplace(back))
        # a // b == -a // -b: a negative divisor (a descending arange's length divides by
        # -step, and sympy may move the sign into the denominator) divides by its negation
        if den.is_Integer and den < 0 or not den.is_Integer and not den.free_symbols & sv.unbacked \
                and not sv.decide(sympy.Ge(den, 1)) and sv.decide(sympy.Le(den, -1)):
            num, den = -num, -den
        if den.is_Integer and den > 0:
            return S.FloorDiv(num, den)
        if not den.is_Integer and not (num.free_symbols | den.free_symbols) & sv.unbacked \
                and sv.decide(sympy.Ge(den, 1)) and sv.decide(sympy.Ge(num, 0)):
            return S.FloorDiv(num, den)   # (printed `//`: exact for a >= 0, b > 0)
    raise Unsupported(f"{a} // {b}")


def exact_rational(x: float):
    """x as a sympy Rational where its ratio's terms are within 2**16 (0.5, 1.5: a size times
    it is exact in a double, as eager's arithmetic) or it is a power of two within 2**64 either
    way (float32's epsilon 2**-23, matrix_rank's tolerance: a size times it is exact too), else
    None (0.1)."""
    p, q = float(x).as_integer_ratio()   # (q is a power of two: a double is dyadic)
    if max(abs(p), q) <= 1 << 16 or (abs(p) & (abs(p) - 1) == 0 and max(abs(p), q) <= 1 << 64):
        return sympy.Rational(p, q)
    return None


def rounded(kind, x, sv):
    """math.floor / ceil / trunc (kind) of x, a quotient of integer expressions over sizes
    (den > 0), as an exact floor division (eager's double rounds alike for sizes below
    2**26); trunc takes the numerator's sign by decide(exact=True), never size-obliviously."""
    num, den = sympy.fraction(sympy.together(x))
    up = kind == "ceil" or (kind == "trunc" and not sv.decide(sympy.Ge(num, 0), exact=True))
    q = floordiv(-num if up else num, den, sv)
    return -q if up else q


ROUNDINGS = {"TruncToInt": "trunc", "FloorToInt": "floor", "CeilToInt": "ceil"}


def own_torch_exprs(e, sv):
    """e with PyTorch's size functions as ours: a size read from the graph and the same size a
    lowering computed are one expression (wav2vec2's conv output length), and kernels print
    them. Abs by its sign at the hints; FloorDiv and PythonMod (sympy's Mod too; roll's
    (i + shift) % n) by a positive integer, or by a size decided positive of a numerator decided
    non-negative; a rounding of a float of sizes (interpolate's trunc(0.5 * s)) whose factors
    are exact in a double as a floor division; anything else, and anything of data-dependent
    sizes needing a decision, as it is (kernels refuse to print it)."""
    def own(x):
        name = type(x).__name__
        # (a data-dependent size's decisions may be size-oblivious: none taken on one here)
        free = not x.free_symbols & sv.unbacked
        if name == "ToFloat":
            return x.args[0]
        if name in ("IntTrueDiv", "FloatTrueDiv"):
            return x.args[0] / x.args[1]
        if x.is_Float:
            r = exact_rational(x)
            return x if r is None else r
        if name == "Abs":   # (abs(s - 10): its sign at the hints, a guard)
            return x if not free else x.args[0] if sv.decide(sympy.Ge(x.args[0], 0)) else -x.args[0]
        if name in ROUNDINGS:
            return x if name == "TruncToInt" and not free else rounded(ROUNDINGS[name], x.args[0], sv)
        a, b = x.args
        if not (b.is_Integer and b > 0) and not (
                free and sv.decide(sympy.Ge(b, 1)) and sv.decide(sympy.Ge(a, 0))):
            return x
        q = S.FloorDiv(a, b)
        return q if name == "FloorDiv" else a - b * q
    return e.replace(lambda x: x.is_Float or type(x).__name__ in (
        "FloorDiv", "PythonMod", "Mod", "ToFloat", "IntTrueDiv", "FloatTrueDiv", "Abs", *ROUNDINGS)
        and not isinstance(x, S.FloorDiv), own)


def integer_poly(e) -> bool:
    e = sympy.expand(e)
    if not e.free_symbols:
        return e.is_Integer
    return e.is_polynomial() and all(c.is_Integer for c in sympy.Poly(e, *e.free_symbols).coeffs())
