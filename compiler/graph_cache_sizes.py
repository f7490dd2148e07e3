"""The compiled-graph cache for graphs with symbolic sizes (issue 53): one entry serves every
size its guards admit, as the compiled graph itself does (compiler/sizes.py).

Key: each size symbol is written by where the wrapper reads it (`a<i>_<what><dim>`: input i's
value, size or stride; the SizeVars' `read` positions), so the same graph traced in another
process, where dynamo may name its symbols otherwise, has the same key; the symbols' lower
bounds are in it, their hints (the sizes of the call that compiled the graph) are not.

Value: the wrapper and kernels as for any graph (they read the sizes from their arguments, by
the cold compile's symbol names, which stay inside them); each sized kernel's launch extents
(expressions over its size arguments) and the configs of the size buckets it launched in by
the time the entry was stored (a bucket without one takes the point's default, or tunes, as
in a fresh compile); and the guards the cold compile's lowering recorded, written over the
canonical names and parsed back with sympy over the current call's symbols. A hit whose
current sizes fail those guards is a miss (the graph compiles again, and its entry replaces
the old one); a hit hands the guards to the current SizeVars, so the checker built from them
is the cold compile's.

Refused: graphs with data-dependent (unbacked) sizes (their symbols are read from buffers the
graph makes, not from its inputs, and decided without guards); guards or extents whose text
does not parse back to the same expression.
"""
from __future__ import annotations

import dataclasses

import sympy

from . import sym as S

# the index functions a stored expression may name besides symbols and arithmetic
_FUNCTIONS = {"FloorDiv": S.FloorDiv, "ModIdx": S.ModIdx, "Mod": sympy.Mod,
              "Max": sympy.Max, "Min": sympy.Min}


class Refused(Exception):
    """A graph the compiled-graph cache does not hold, and why (graph_cache.Refused)."""


def canonical(sv) -> dict:
    """symbol -> its canonical name (where the wrapper reads it); refuses a graph with
    data-dependent sizes."""
    if sv.unbacked:
        raise Refused("data-dependent sizes")
    return {s: f"a{i}_{what}{d}" for s, (i, what, d) in sv._reads.items()}


def namer(sv):
    """A SymInt (or sympy expression) -> its text over the canonical names, for the key."""
    names = canonical(sv)
    symbols = {s: sympy.Symbol(n) for s, n in names.items()}

    def name(v):
        expr = v.node.expr if hasattr(v, "node") else sympy.sympify(v)
        unknown = expr.free_symbols - symbols.keys()
        if unknown:   # (a symbol no input holds: an unbacked size, made by an op)
            raise Refused("data-dependent sizes")
        return ["sym", str(expr.xreplace(symbols))]
    return name


def bounds(sv) -> dict:
    """The symbols' lower bounds by canonical name (they decide some choices; hints do not
    enter the key)."""
    return {n: sv.lower.get(s, 0) for s, n in sorted(canonical(sv).items(), key=lambda kv: kv[1])}


def _parse(text: str, symbols: dict):
    return sympy.sympify(text, locals={**_FUNCTIONS, **symbols})


def stored_guards(sv) -> list:
    """The guards the lowering recorded, as text over the canonical names; refuses any that
    does not parse back to itself."""
    names = canonical(sv)
    canon = {s: sympy.Symbol(n) for s, n in names.items()}
    back = {n: s for s, n in names.items()}
    out = []
    for g in sv.guards:
        if g.free_symbols - canon.keys():
            raise Refused("a guard on a size no input holds")
        text = str(g.xreplace(canon))
        try:
            same = _parse(text, back) == g
        except Exception:   # noqa: BLE001 - text sympy cannot read back: not stored
            same = False
        if not same:
            raise Refused("a guard that does not round-trip through text")
        out.append(text)
    return out


def adopt(value: dict, sv):
    """The stored guards over the current call's symbols (SizeVars sv, bound to this call's
    sizes), or None when they do not all hold at these sizes (the entry must not serve)."""
    current = {n: s for s, n in canonical(sv).items()}
    guards = []
    for text in value["sizes"]["guards"]:
        g = _parse(text, current)
        unknown = {s.name for s in g.free_symbols} - {s.name for s in current.values()}
        if unknown or g.xreplace(sv.hints) is not sympy.true:
            return None
        guards.append(g)
    return guards


def install(guards: list, sv) -> None:
    """The guards of a hit recorded on the current SizeVars, as its lowering would have."""
    for g in guards:
        if g not in sv._seen:
            sv._seen.add(g)
            sv.guards.append(g)


def _symbols(names) -> dict:
    return {n: sympy.Symbol(n, integer=True, positive=True) for n in names}


def stored_extents(extents) -> dict:
    """A sized kernel's launch extents (names, x, y, r numel) as text; refuses one whose
    source form changes through the text."""
    from .sizes import expr_source
    names, exprs = list(extents[0]), extents[1:]
    symbols = _symbols(names)
    out = []
    for e in exprs:
        if e is None:
            out.append(None)
            continue
        e = e.expr if hasattr(e, "expr") else e
        text = str(e)
        try:
            same = expr_source(_parse(text, symbols)) == expr_source(e)
        except Exception:   # noqa: BLE001 - not stored
            same = False
        if not same:
            raise Refused("a launch extent that does not round-trip through text")
        out.append(text)
    return {"names": names, "numels": out}


def extents_of(stored: dict) -> tuple:
    """The (names, x, y, r numel) a Launcher takes, from `stored_extents`'s text."""
    symbols = _symbols(stored["names"])
    return (tuple(stored["names"]), *(None if t is None else _parse(t, symbols)
                                      for t in stored["numels"]))


def buckets(launcher, src: str) -> list:
    """The configs a sized launcher holds per size bucket (its current one and those it left),
    each with the kernel's meta at that bucket."""
    held = {launcher._bucket: (launcher.meta, launcher.config)}
    for b, saved in launcher._buckets.items():
        held.setdefault(b, (saved[0], saved[2]))
    out = []
    for b, (meta, config) in held.items():
        if config is None or b is None:
            continue
        m = dataclasses.asdict(meta)
        if m["source"] == src:
            del m["source"]
        out.append({"bucket": list(b), "meta": m, "config": dict(config)})
    return out


def restore_buckets(launcher, stored: list, make_meta) -> None:
    """A rebuilt sized launcher given the stored configs of its buckets (make_meta: a stored
    meta dict -> KernelMeta); the bucket it starts in takes its config at once."""
    from tuner.points import triton_kernel as point
    for entry in stored:
        b = tuple(entry["bucket"])
        config = dict(entry["config"])
        if b == launcher._bucket:
            launcher.config, launcher.default, launcher.learned = config, dict(config), None
            continue
        meta = make_meta(entry["meta"])
        launcher._buckets[b] = (meta, point.default_config(meta), config, {}, None, (), None)
