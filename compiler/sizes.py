"""Symbolic sizes: one compiled graph for every size its guards admit.

A graph dynamo hands over with symbolic sizes (`s0`, ...) is lowered with those symbols kept:
each symbolic size is a `SymSize`, an int-like value holding a sympy expression over the
graph's size symbols and the table they belong to (`SizeVars`). Arithmetic on sizes stays
symbolic; a decision on a size (a comparison, `bool`) is answered from the hints (the sizes
of the call that compiled the graph) and recorded as a guard unless the symbols' lower bounds
decide it alone (a backed size is at least 2). The compiled graph then serves every call
whose sizes satisfy the guards (compiler/specialize.py checks them per call). A size that
must become a concrete int (int(), a C function taking it) raises `Unsupported`: that graph
compiles per concrete shape instead. Kernels take the symbols they use as arguments and the
wrapper reads them from the inputs, so one generated source serves every size.

Unbacked (data-dependent) sizes: a symbol (`u0`) whose value exists only once an op of the
graph ran (nonzero, a boolean-mask index). `SizeVars.define` binds it to that op's output
buffer (the wrapper reads `u0 = buf3.size(0)` right after the call); its hint is a fixed
fallback (`UNBACKED_HINT`, or the symbol's upper bound when smaller) used only for choices
about speed. No guard is ever recorded on it (nothing could check one before the call): a
decision on it is taken from its value range (a nonzero count lies in 0..numel), else
size-obliviously (see `SizeVars.decide`), else it raises `Undecided`, which a caller with a
choice correct either way catches (`or_else`) and any other lets fall back the graph.
"""
from __future__ import annotations

import sympy
import torch

from . import sym as S
from .size_exprs import Unsupported, exact_rational, floordiv as _floordiv, own_torch_exprs


class Undecided(Unsupported):
    """A decision on a data-dependent size that its value range does not settle."""


# the hint of a data-dependent size (for speed choices only: kernel configs, size buckets)
UNBACKED_HINT = 8192


def or_else(decision, default):
    """decision() where it can be made; `default` where it depends on a data-dependent size
    its range does not settle (for choices correct either way: a looped reduction instead of
    a persistent one, no split, no fusion)."""
    try:
        return decision()
    except Undecided:
        return default


class SizeVars:
    """The size symbols of one graph compile: their hints, lower bounds, where the wrapper
    reads each one, and the guards recorded while lowering."""

    def __init__(self):
        self.hints: dict[sympy.Symbol, int] = {}
        self.lower: dict[sympy.Symbol, int] = {}
        self.sources: dict[sympy.Symbol, str] = {}   # symbol -> wrapper source reading it
        # symbol -> (input index, "value" | "size" | "stride" | "storage_offset", dim)
        self._reads: dict = {}
        self.guards: list = []
        self._seen: set = set()
        # data-dependent symbols: their upper bounds (None: unbounded), and per buffer the
        # symbols the wrapper reads from its sizes right after the op producing it ran
        self.unbacked: set = set()
        self.upper: dict = {}
        self.defined_by: dict[str, list] = {}
        # relation -> by_bounds' answer (fusion asks the same few hundred relations thousands
        # of times in a decoder's graph); cleared when a symbol is bound or defined
        self._by_bounds: dict = {}
        self._decided: dict = {}   # (relation class, lhs, rhs) -> SymSize comparisons' answers

    # -- symbols ---------------------------------------------------------------------
    def bind(self, symbol, hint: int, lower: int | None = 2):
        """An input's symbol; `lower` None: an integer argument of no lower bound (a slice's
        end, which may be negative), not a size."""
        self.hints.setdefault(symbol, int(hint))
        self.lower.setdefault(symbol, None if lower is None else int(lower))
        self._by_bounds.clear()
        self._decided.clear()

    def define(self, symbol, lower: int = 0, upper=None):
        """A data-dependent symbol, within lower..upper (None: unbounded); where the wrapper
        reads it is given by `read_after`."""
        if symbol in self.hints:
            return
        self.unbacked.add(symbol)
        self.hints[symbol] = UNBACKED_HINT if upper is None else min(UNBACKED_HINT, int(upper))
        self.lower[symbol], self.upper[symbol] = int(lower), upper
        self._by_bounds.clear()
        self._decided.clear()

    def read_after(self, buffer: str, d: int, symbol):
        """A data-dependent symbol read as size d of `buffer`, right after the op making it."""
        self.defined_by.setdefault(buffer, []).append((symbol, f"{buffer}.size({d})"))

    def define_sizes(self, shape, upper=None) -> list:
        """Defines the data-dependent symbols first met as sizes in `shape` (an op's output,
        FX meta SymInts), each in 0..upper; returns [(dim, symbol)] of those, for
        `read_after`. The range is what the op itself implies (a nonzero count is at most its
        input's numel), not the ShapeEnv's: that one also holds the user's torch._check
        bounds, which only the runtime assertions the graph carries make true."""
        from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
        new = []
        for d, n in enumerate(shape):
            if not isinstance(n, torch.SymInt):
                continue
            expr = n.node.expr
            if isinstance(expr, sympy.Symbol) and expr not in self.hints and free_unbacked_symbols(n):
                self.define(expr, 0, upper)
                new.append((d, expr))
        return new

    def wrap(self, value, at_hints=True):
        """An int for a constant, a SymSize for a symbolic expression (sympy or torch.SymInt);
        at_hints False leaves a Max/Min its sizes' ranges do not order (no guard)."""
        if isinstance(value, SymSize):
            return value
        if isinstance(value, torch.SymInt):
            expr = value.node.expr
            for s in expr.free_symbols:
                if s not in self.hints:
                    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
                    if free_unbacked_symbols(value):   # (one the graph defines further on)
                        raise Undecided(f"data-dependent size {s} not defined yet")
                    raise Unsupported(f"size symbol {s} has no hint (data-dependent size)")
            value = expr
        if isinstance(value, sympy.Basic):
            value = sympy.sympify(value)
            if not value.is_polynomial():   # (Max/Min or FloorDiv among its terms, perhaps)
                value = self._fold_minmax(own_torch_exprs(value, self), at_hints)
            if value.is_Integer:
                return int(value)
            return SymSize(value, self)
        return value

    def _fold_minmax(self, e, at_hints=True):
        """e with each Max/Min whose arguments the symbols' ranges order replaced by the one
        that wins at every size (PyTorch's dense stride Max(1, s) is s for a size s >= 2;
        Min(s, s + 1) is s), so kernels and the wrapper see plain expressions; of backed sizes
        the ranges leave unordered, by the one winning at the hints (a guard). Others stay."""
        known = {s: (_or_minus_oo(self.lower.get(s, 0)), self.upper.get(s))
                 for s in e.free_symbols if s in self.hints or s in self.unbacked}

        def fold(m):
            args = list(m.args)
            keep = [a for a in args if not any(
                b is not a and _decide_by_ranges(
                    (sympy.Ge if isinstance(m, sympy.Max) else sympy.Le)(b, a), known)
                for b in args)]
            if not keep:   # (equal arguments: each beats the other)
                keep = args[:1]
            if at_hints and len(keep) > 1 and not (m.free_symbols & self.unbacked):
                # unordered sizes (LAPACK's min(m, n)): the one that wins at the hints, guarded
                # (a backed size's order is a guard like any other decision; never an unbacked's)
                best = keep[0]
                for b in keep[1:]:
                    if self.decide((sympy.Lt if isinstance(m, sympy.Min) else sympy.Gt)(b, best)):
                        best = b
                keep = [best]
            return keep[0] if len(keep) == 1 else m.func(*keep)
        return _sympy_minmax(e).replace(lambda x: isinstance(x, (sympy.Max, sympy.Min)), fold)

    def wrap_stride(self, value):
        """A stride as `wrap` gives it, PyTorch's Max(1, n) of a dense stride over sizes that
        may be 0 (data-dependent ones, an integer argument used as a size) taken as n: where n
        is 0 the tensor has no element, so no stride of it is ever used."""
        out = self.wrap(value, at_hints=False)   # (its Max/Min are sympy's: wrap folded them)
        if not isinstance(out, SymSize) or out.expr.is_polynomial():
            return out
        return self.wrap(out.expr.replace(   # (then any other Max/Min at the hints)
            lambda e: isinstance(e, sympy.Max) and len(e.args) == 2 and sympy.S.One in e.args,
            lambda e: e.args[0] if e.args[1] == 1 else e.args[1]))

    def hint(self, value) -> int:
        """The value at the sizes the graph was compiled for (no guard: for choices that are
        only about speed, such as a kernel's config)."""
        if isinstance(value, SymSize):
            value = value.expr
        if isinstance(value, sympy.Basic):
            return int(value.xreplace(self.hints))
        return int(value)

    def read(self, symbol, i: int, what: str, d: int = 0):
        """Where a call's value of `symbol` is read: input i's value, size(d) or stride(d)."""
        if symbol not in self.sources:
            self.sources[symbol] = _read_source(f"arg{i}", what, d)
            self._reads[symbol] = (i, what, d)

    def checker(self):
        """args -> whether a call with these inputs satisfies every guard (None: no guard)."""
        if not self.guards:
            return None
        if any(s not in self._reads for g in self.guards for s in g.free_symbols):
            raise Unsupported("a guard on a size no input holds")
        reads = {s: sympy.Symbol(_read_source(f"args[{i}]", what, d))
                 for s, (i, what, d) in self._reads.items()}
        body = " and ".join(f"({_pysrc(g.xreplace(reads))})" for g in self.guards)
        return eval(f"lambda args: {body}")   # noqa: S307 (source built here from sympy)

    # -- decisions -------------------------------------------------------------------
    def by_bounds(self, rel):
        """True or False where the symbols' lower bounds decide a relation for every size
        (no guard needed), else None."""
        try:
            return self._by_bounds[rel]
        except KeyError:
            pass
        lows = {s: self.lower.get(s, 0) for s in rel.free_symbols if s in self.hints}
        known = self._by_bounds[rel] = None if None in lows.values() else _decide_by_bounds(rel, lows)
        return known

    def decide(self, rel, exact=False) -> bool:
        """A relation over sizes, answered at the hints; recorded as a guard unless the
        symbols' lower bounds decide it for every size. exact: on data-dependent sizes, by
        their ranges only (never size-obliviously: Undecided instead)."""
        rel = sympy.sympify(rel)
        if rel in (sympy.true, sympy.false):
            return bool(rel)
        if rel.free_symbols & self.unbacked:
            return self._decide_unbacked(rel, exact)
        known = self.by_bounds(rel)
        if known is not None:
            return known
        value = rel.xreplace(self.hints)
        if value not in (sympy.true, sympy.false):
            raise Unsupported(f"cannot decide {rel} at the hints")
        guard = rel if value == sympy.true else sympy.Not(rel)
        if guard not in self._seen:
            self._seen.add(guard)
            self.guards.append(guard)
        return bool(value)

    def _decide_unbacked(self, rel, exact=False) -> bool:
        """A relation over data-dependent sizes: by the symbols' ranges; else size-obliviously,
        as if each data-dependent size were at least 2 (a choice that treats it as a general
        size, not a special 0 or 1, gives code that also serves 0 and 1: kernels mask every
        element and an empty launch is skipped), as PyTorch's own tracing does; else
        Undecided. Never a guard."""
        for oblivious in (False,) if exact else (False, True):
            ranges = {s: (max(self.lower.get(s, 0), 2) if oblivious and s in self.unbacked
                          else _or_minus_oo(self.lower.get(s, 0)), self.upper.get(s))
                      for s in rel.free_symbols}
            known = _decide_by_ranges(rel, ranges)
            if known is not None:
                return known
        raise Undecided(f"cannot decide {rel} on a data-dependent size")

    def specialize(self, expr) -> int:
        """Where code needs a size as a concrete int (int(), a C function taking it): refused,
        so the graph compiles per concrete shape. (Pinning the symbol to its hint with an
        equality guard would be sound, but it mixes pinned and symbolic forms of one size in a
        graph, which the lowering has not been checked against.)"""
        raise Unsupported(f"a concrete value of the size {expr} is needed")


def _read_source(arg: str, what: str, d: int) -> str:
    """Source reading a size symbol from an input: it, its size(d), stride(d), storage_offset()."""
    return arg if what == "value" else f"{arg}.storage_offset()" if what == "storage_offset" \
        else f"{arg}.{what}({d})"


def surely(rel, a, b):
    """rel(a, b) (sympy.Lt, ...) over ints or sizes, without a guard: True or False where it
    holds or fails for every size the symbols' lower bounds admit, else None (for a caller
    that keeps a runtime check instead: a mask, not a recompile for another size)."""
    sv = next((v.sv for v in (a, b) if isinstance(v, SymSize)), None)
    r = sympy.sympify(rel(sympy.sympify(a), sympy.sympify(b)))
    if r in (sympy.true, sympy.false):
        return bool(r)
    return None if sv is None or r.free_symbols & sv.unbacked else sv.by_bounds(r)


def _decide_by_bounds(rel, lower):
    """True/False when a relation holds or fails for every value of its symbols at or above
    their lower bounds, by the signs of lhs - rhs as a polynomial in (symbol - bound); else
    None."""
    if not isinstance(rel, (sympy.Eq, sympy.Ne, sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge)):
        return None
    shift = {s: S.sym(f"_lo_{s.name}") + lo for s, lo in lower.items()}
    diff = sympy.expand((rel.lhs - rel.rhs).xreplace(shift))
    if not diff.is_polynomial():
        return None
    coeffs = sympy.Poly(diff, *diff.free_symbols).coeffs() if diff.free_symbols else [diff]
    if not all(c.is_number for c in coeffs):
        return None
    if diff == 0:
        return isinstance(rel, (sympy.Eq, sympy.Le, sympy.Ge))
    const = diff.as_coeff_Add()[0]
    nonneg, nonpos = all(c >= 0 for c in coeffs), all(c <= 0 for c in coeffs)
    pos, neg = nonneg and const > 0, nonpos and const < 0   # strictly, for every value
    if isinstance(rel, sympy.Eq):
        return False if (pos or neg) else None
    if isinstance(rel, sympy.Ne):
        return True if (pos or neg) else None
    if isinstance(rel, sympy.Lt):
        return True if neg else (False if nonneg else None)
    if isinstance(rel, sympy.Le):
        return True if nonpos else (False if pos else None)
    if isinstance(rel, sympy.Gt):
        return True if pos else (False if nonpos else None)
    return True if nonneg else (False if neg else None)   # Ge


def _or_minus_oo(lower):
    return -sympy.oo if lower is None else lower


def _decide_by_ranges(rel, ranges):
    """True/False when a relation holds or fails for every value of its symbols in their
    ranges ({symbol: (lower, upper or None)}), by interval arithmetic; else None."""
    if not isinstance(rel, (sympy.Eq, sympy.Ne, sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge)):
        return None
    if any(s not in ranges for s in rel.free_symbols):
        return None
    box = {s: sympy.AccumBounds(lo, sympy.oo if hi is None else hi) for s, (lo, hi) in ranges.items()}

    def fold(m):   # Max(1, u0) is u0 where u0 >= 1: one argument bounds the other
        a, b = m.args
        d = (a - b).xreplace(box)
        lo, hi = (d.min, d.max) if isinstance(d, sympy.AccumBounds) else (d, d)
        if lo.is_number and lo >= 0:
            return a if isinstance(m, sympy.Max) else b
        if hi.is_number and hi <= 0:
            return b if isinstance(m, sympy.Max) else a
        return m
    try:
        diff = _sympy_minmax(rel.lhs - rel.rhs).replace(
            lambda e: isinstance(e, (sympy.Max, sympy.Min)) and len(e.args) == 2, fold)
        calls = diff.atoms(sympy.core.function.Application)
        if any(not isinstance(f, (sympy.Max, sympy.Min)) for f in calls):
            # an integer division or modulo: PyTorch's FloorDiv evaluates over intervals to a
            # number that bounds nothing (FloorDiv(s5, s83) on [2, oo) gave 1: Max(1, s5 // s83)
            # was folded to 1, a wrong channel_shuffle gradient)
            return None
        diff = sympy.expand(diff).xreplace(box)
    except Exception:   # noqa: BLE001 - a function interval arithmetic does not take: open
        return None
    if isinstance(diff, sympy.AccumBounds):
        lo, hi = diff.min, diff.max
    elif diff.is_number:
        lo = hi = diff
    else:
        return None   # (an integer division or modulo: not interval-evaluated)
    if isinstance(rel, sympy.Eq):
        return False if (lo > 0 or hi < 0) else (True if lo == hi == 0 else None)
    if isinstance(rel, sympy.Ne):
        return True if (lo > 0 or hi < 0) else (False if lo == hi == 0 else None)
    if isinstance(rel, sympy.Lt):
        return True if hi < 0 else (False if lo >= 0 else None)
    if isinstance(rel, sympy.Le):
        return True if hi <= 0 else (False if lo > 0 else None)
    if isinstance(rel, sympy.Gt):
        return True if lo > 0 else (False if hi <= 0 else None)
    return True if lo >= 0 else (False if hi < 0 else None)   # Ge


def _sympy_minmax(e):
    """e with PyTorch's Max/Min (stride expressions such as Max(1, u0)) as sympy's, which
    evaluate over intervals."""
    try:
        from torch.utils._sympy.functions import Max, Min
    except ImportError:
        return e
    return e.replace(Max, sympy.Max).replace(Min, sympy.Min)


def _pysrc(e) -> str:
    """Python source for a guard (a relation or a boolean combination of relations)."""
    if isinstance(e, sympy.Not):
        return f"not ({_pysrc(e.args[0])})"
    if isinstance(e, sympy.And):
        return " and ".join(f"({_pysrc(a)})" for a in e.args)
    if isinstance(e, sympy.Or):
        return " or ".join(f"({_pysrc(a)})" for a in e.args)
    ops = {sympy.Eq: "==", sympy.Ne: "!=", sympy.Lt: "<", sympy.Le: "<=", sympy.Gt: ">",
           sympy.Ge: ">="}
    for cls, op in ops.items():
        if isinstance(e, cls):
            return f"{expr_source(e.lhs)} {op} {expr_source(e.rhs)}"
    raise Unsupported(f"guard {e}")


def expr_source(e) -> str:
    """Python/Triton source of a size expression (symbols by name)."""
    try:
        return S.texpr(e.expr if isinstance(e, SymSize) else e)
    except NotImplementedError as err:
        raise Unsupported(f"size expression: {err}") from None


def _other(o):
    if isinstance(o, SymSize):
        return o.expr
    if isinstance(o, bool):
        return sympy.Integer(int(o))
    if isinstance(o, int):
        return sympy.Integer(o)
    if isinstance(o, sympy.Basic):
        return o
    return None


class SymSize:
    """A symbolic size: an expression over a graph's size symbols (see the module doc)."""
    __slots__ = ("expr", "sv")

    def __init__(self, expr, sv: SizeVars):
        self.expr, self.sv = expr, sv

    def _sympy_(self):
        return self.expr

    def _new(self, expr):
        expr = sympy.expand(expr)
        return int(expr) if expr.is_Integer else SymSize(expr, self.sv)

    def _bin(self, o, f):
        e = _other(o) if not isinstance(o, SymFloat) else None   # (a float's own: reflected)
        if e is None:   # (a float: the float of the size's, SymFloat._bin)
            return sym_float(self)._bin(o, f) if isinstance(o, float) else NotImplemented
        return self._new(f(self.expr, e))

    def __add__(self, o): return self._bin(o, lambda a, b: a + b)
    def __radd__(self, o): return self._bin(o, lambda a, b: b + a)
    def __sub__(self, o): return self._bin(o, lambda a, b: a - b)
    def __rsub__(self, o): return self._bin(o, lambda a, b: b - a)
    def __mul__(self, o): return self._bin(o, lambda a, b: a * b)
    def __rmul__(self, o): return self._bin(o, lambda a, b: b * a)
    def __neg__(self): return self._new(-self.expr)

    def __abs__(self):   # (never a size-oblivious sign)
        return self if self.sv.decide(sympy.Ge(self.expr, 0), exact=True) else self._new(-self.expr)
    def __pos__(self): return self

    def __floordiv__(self, o):
        e = _other(o)
        if e is None:
            return NotImplemented
        return self._new(_floordiv(self.expr, e, self.sv))

    def __rfloordiv__(self, o):
        e = _other(o)
        if e is None:
            return NotImplemented
        return self._new(_floordiv(e, self.expr, self.sv))

    def __mod__(self, o):
        e = _other(o)
        if e is None:
            return NotImplemented
        return self._new(self.expr - e * _floordiv(self.expr, e, self.sv))

    def __truediv__(self, o):   # (a float: batch norm's numel / channels, n / (n - 1))
        return sym_float(self) / o

    def __rtruediv__(self, o):
        return o / sym_float(self)

    def __pow__(self, o):
        if isinstance(o, int) and o >= 0:
            return self._new(self.expr ** o)
        return NotImplemented

    def _cmp(self, o, rel):
        e = _other(o) if not isinstance(o, SymFloat) else None   # (a float's own: reflected)
        if e is None:
            if isinstance(o, float):
                return rel(sympy.Float(self.sv.specialize(self.expr)), sympy.Float(o)) == sympy.true
            return NotImplemented
        # (memoized: a relation once decided, its guard recorded, answers the same; building
        # and deciding sympy relations was most of fusion's time in a decoder's graph)
        key = (rel, self.expr, e)
        known = self.sv._decided.get(key)
        if known is None:
            known = self.sv._decided[key] = self.sv.decide(rel(self.expr, e))
        return known

    def __eq__(self, o): return self._cmp(o, sympy.Eq)
    def __ne__(self, o): return self._cmp(o, sympy.Ne)
    def __lt__(self, o): return self._cmp(o, sympy.Lt)
    def __le__(self, o): return self._cmp(o, sympy.Le)
    def __gt__(self, o): return self._cmp(o, sympy.Gt)
    def __ge__(self, o): return self._cmp(o, sympy.Ge)

    def __hash__(self):
        return hash(self.expr)

    def __bool__(self):
        return self.sv.decide(sympy.Ne(self.expr, 0))

    def __index__(self):
        return self.sv.specialize(self.expr)

    __int__ = __index__

    def __float__(self):
        return float(self.sv.specialize(self.expr))

    def __repr__(self):
        return expr_source(self.expr)

    __str__ = __repr__


class SymFloat(SymSize):
    """A float computed from symbolic sizes (torch.sym_float in a graph, a size's true
    division: the divisor of a norm or a variance over a symbolic dim, batch norm's n / (n - 1)
    and 1 / n): `expr` is a quotient of two integer expressions over the size symbols. A kernel
    computes it in float64 and casts it to its compute dtype, an extern call reads it as a
    Python float: both as eager's double. Sums, products, quotients, integer powers and square
    roots (SDPA's scale) with sizes and dyadic numbers (0.5) stay symbolic; an inexact factor
    (0.1) or a comparison needs the concrete value (`specialize`: the graph compiles per shape)."""
    __slots__ = ()

    def _new(self, expr):
        expr = sympy.cancel(expr)
        if expr.is_Integer:
            return float(int(expr))
        try:
            S.float_source(expr, lambda e, src: src, lambda src: src)
        except NotImplementedError:
            return float(self.sv.specialize(expr))   # (not integer polynomials: per shape)
        return SymFloat(expr, self.sv)

    def _bin(self, o, f):
        if isinstance(o, float) and o.is_integer():
            o = int(o)
        elif isinstance(o, float) and (r := exact_rational(o)) is not None:
            o = r   # (0.5: as exact in a double as eager's)
        e = _other(o)
        if e is None:
            return f(float(self), o) if isinstance(o, float) else NotImplemented
        return self._new(f(self.expr, e))

    def __truediv__(self, o):
        if isinstance(o, (int, float)) and o == 0:
            raise ZeroDivisionError("float division by zero")
        return self._bin(o, lambda a, b: a / b)

    def __rtruediv__(self, o): return self._bin(o, lambda a, b: b / a)
    def __floordiv__(self, o): return float(self) // o
    def __rfloordiv__(self, o): return o // float(self)
    def __mod__(self, o): return float(self) % o
    def __rmod__(self, o): return o % float(self)
    def __rpow__(self, o): return o ** float(self)

    def __pow__(self, o):   # (SDPA's scale: head size ** -0.5)
        if isinstance(o, float) and o in (0.5, -0.5):
            return self._new(self.expr ** sympy.Rational(o))
        return self._new(self.expr ** o) if isinstance(o, int) else float(self) ** o

    def _cmp(self, o, rel):   # (a float's comparison: the concrete value, per shape)
        return rel(sympy.Float(float(self)), sympy.sympify(o)) == sympy.true

    def __bool__(self):
        return bool(float(self))

    def kernel_source(self) -> str:
        return S.float_source(self.expr, lambda e, src: f"tl.full([], {src}, tl.float64)"
                              if e.is_Integer else f"({src}).to(tl.float64)", lambda r: f"tl.sqrt({r})")

    def __repr__(self):   # (Python's x ** 0.5 is math.sqrt's correctly rounded root)
        return S.float_source(self.expr, lambda e, src: f"float({src})", lambda r: f"{r} ** 0.5")

    __str__ = __repr__


def sym_float(a):
    """torch.sym_float of a graph's value: a symbolic size stays symbolic (SymFloat)."""
    if isinstance(a, SymFloat):
        return a
    return SymFloat(a.expr, a.sv) if isinstance(a, SymSize) else float(a)


def hint(value):
    """A size's value at the hints, without a guard (for choices that are only about speed);
    an int as is."""
    return value.sv.hint(value.expr) if isinstance(value, SymSize) else value


def view_strides(size, stride, new):
    """Strides of a view of a (size, stride) tensor as `new` sizes without copying, or None when
    no such view exists (the dims merged or split must be contiguous with each other). Walks the
    old dims from innermost in chunks of dims laid out contiguously, matching each chunk's
    element count with consecutive new dims."""
    out = [0] * len(new)
    j = len(new) - 1
    base = stride[-1] if len(size) else 1
    chunk, got = 1, 1
    for i in range(len(size) - 1, -1, -1):
        chunk = chunk * size[i]
        ends = i == 0 or (size[i - 1] != 1 and stride[i - 1] != chunk * base)
        if not ends:
            continue
        while j >= 0 and (got < chunk or new[j] == 1):
            out[j] = got * base
            got = got * new[j]
            j -= 1
        if got != chunk:
            return None
        if i > 0:
            base, chunk, got = stride[i - 1], 1, 1
    if j != -1:
        return None
    return out


def is_symbolic(value) -> bool:
    return isinstance(value, SymSize)


def concrete(values) -> bool:
    """Whether a sequence of sizes holds no symbolic one."""
    return not any(isinstance(v, SymSize) for v in values)


def bind(example_inputs, args) -> SizeVars:
    """The size symbols of a graph's symbolic example inputs, each read from the first input
    that holds it alone (a scalar, a size or a stride), with this call's values as hints."""
    sv = SizeVars()

    def lower_bound(n, what):
        # a size or stride is non-negative; an integer argument (what == "value": a slice's
        # bounds, an offset) may be negative: its range's lower bound, else none at all
        try:
            lo = n.node.shape_env.var_to_range[n.node.expr].lower
            lo = int(lo) if lo.is_finite else None
        except Exception:   # noqa: BLE001 - no range known
            lo = None
        return lo if what == "value" else max(0, lo or 0)

    def visit(n, value, i, what, d):
        if not isinstance(n, torch.SymInt):
            return
        expr = n.node.expr
        if isinstance(expr, sympy.Symbol) and expr not in sv.hints:
            sv.bind(expr, value, lower_bound(n, what))
            sv.read(expr, i, what, d)

    for i, (ex, a) in enumerate(zip(example_inputs, args)):
        if isinstance(ex, torch.SymInt):
            visit(ex, a, i, "value", 0)
        elif isinstance(ex, torch.Tensor) and isinstance(a, torch.Tensor):
            # (a tensor input the call passes as None, as a backward may: no size read from it)
            for d, n in enumerate(ex.shape):
                visit(n, a.size(d), i, "size", d)
            for d, n in enumerate(ex.stride()):
                visit(n, a.stride(d), i, "stride", d)
            visit(ex.storage_offset(), a.storage_offset(), i, "storage_offset", 0)
        elif isinstance(ex, (torch.SymFloat, torch.SymBool)):
            raise Unsupported("a symbolic float or bool input")
    for ex in example_inputs:
        vals = [ex] if isinstance(ex, torch.SymInt) else \
            [*ex.shape, *ex.stride(), ex.storage_offset()] if isinstance(ex, torch.Tensor) else []
        for n in vals:
            if isinstance(n, torch.SymInt):
                missing = [s for s in n.node.expr.free_symbols if s not in sv.hints]
                if missing:
                    raise Unsupported(f"size symbol {missing[0]} is read from no input")
    return sv


def shape_env_of(example_inputs):
    """The ShapeEnv behind a graph's symbolic inputs (None without one)."""
    for ex in example_inputs:
        vals = [ex] if isinstance(ex, torch.SymInt) else \
            list(ex.shape) if isinstance(ex, torch.Tensor) else []
        for n in vals:
            if isinstance(n, torch.SymInt):
                return n.node.shape_env
    return None
