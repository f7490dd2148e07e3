"""Compile statistics the user can read after a compile.

    import tuner.compiler.stats as stats
    s = stats.last()          # the most recent graph compiled (forward or backward)
    s.kernels                 # Triton kernels generated for that graph
    s.kernel_kinds            # their kinds, e.g. ["pointwise_tiled", "persistent_reduction"]
    s.fused_nodes             # fusions performed by the scheduler
    s.nodes                   # IR nodes before fusion (pointwise/reduction/scatter/extern)
    s.externs                 # {op name: count} ATen calls (mm, convolution, fallbacks)
    s.fallbacks               # {op name: count} ops that ran in ATen (no lowering, or one that failed)
    s.lowering_errors         # {op name: first line of the error} lowerings that failed (the op fell back)
    s.graph_fallback          # "" or why the whole graph ran in ATen (a compiler error after lowering)
    s.lowered                 # {op name: count} ops lowered to our IR
    s.pad_mm                  # {"pad"/"orig": count} per unaligned matmul the pad_mm point decided
    s.source                  # the generated code: kernels (commented out) and the wrapper
    stats.graphs()            # the last KEEP_GRAPHS graphs, oldest first
    stats.totals()            # the same counters summed over every graph since reset()
    stats.reset()

Only the last KEEP_GRAPHS (64) graphs are kept, sources included: a long-running process that
compiles graph after graph must not hold every generated source. An older graph's counters
stay in totals(); its kernel_names and kernel_kinds (lists, one item per kernel) do not, so
those two cover the kept graphs only. Set `stats.KEEP_GRAPHS` before compiling to keep more.
"""
from __future__ import annotations

import collections
import warnings
from dataclasses import dataclass, field


@dataclass
class GraphStats:
    kernels: int = 0
    fused_nodes: int = 0
    nodes: int = 0
    externs: collections.Counter = field(default_factory=collections.Counter)
    fallbacks: collections.Counter = field(default_factory=collections.Counter)
    lowered: collections.Counter = field(default_factory=collections.Counter)
    pad_mm: collections.Counter = field(default_factory=collections.Counter)
    kernel_names: list = field(default_factory=list)
    kernel_kinds: list = field(default_factory=list)   # per kernel: "pointwise", "pointwise_tiled",
                                                       # "reduction", "persistent_reduction", "scatter"
    source: str = ""          # the generated kernels (as comments) and wrapper
    lowering_errors: dict = field(default_factory=dict)
    graph_fallback: str = ""

    def count_extern(self, op):
        self.externs[_name(op)] += 1

    def count_fallback(self, op):
        self.fallbacks[_name(op)] += 1

    def count_lowering_error(self, op, err):
        name = _name(op)
        first = (str(err).splitlines() or [""])[0][:200]
        self.lowering_errors.setdefault(name, f"{type(err).__name__}: {first}")
        warn_once(("lowering", name), f"tuner: the lowering of {name} failed ({type(err).__name__}: "
                  f"{first}); it runs in ATen (counted in tuner.compiler.stats fallbacks)")

    def count_lowered(self, op):
        self.lowered[_name(op)] += 1

    def count_pad_mm(self, choice):
        self.pad_mm[choice] += 1

    def as_dict(self):
        return {"kernels": self.kernels, "fused_nodes": self.fused_nodes, "nodes": self.nodes,
                "externs": dict(self.externs), "fallbacks": dict(self.fallbacks),
                "lowered": dict(self.lowered), "pad_mm": dict(self.pad_mm),
                "lowering_errors": dict(self.lowering_errors), "graph_fallback": self.graph_fallback}


def _name(op):
    # an OpOverload prints as "aten.<op>.<overload>"; a plain function by its name
    return str(op) if hasattr(op, "_schema") else str(getattr(op, "__name__", op))


KEEP_GRAPHS = 64
_graphs: collections.deque[GraphStats] = collections.deque()
_older = GraphStats()   # the counters of graphs no longer kept, since reset()
_warned: set = set()


def warn_once(key, message):
    """One warning per key per process (a model with 48 layers names a failing op once)."""
    if key in _warned:
        return
    _warned.add(key)
    warnings.warn(message, RuntimeWarning, stacklevel=3)


def new() -> GraphStats:
    s = GraphStats()
    _graphs.append(s)
    while len(_graphs) > max(1, KEEP_GRAPHS):
        _add_counters(_older, _graphs.popleft())   # compiled long ago: its counts are final
    return s


def last() -> GraphStats:
    return _graphs[-1] if _graphs else GraphStats()


def graphs() -> list[GraphStats]:
    return list(_graphs)


def totals() -> GraphStats:
    t = GraphStats()
    _add_counters(t, _older)
    for g in _graphs:
        _add_counters(t, g)
        t.kernel_names.extend(g.kernel_names)
        t.kernel_kinds.extend(g.kernel_kinds)
    return t


def _add_counters(t: GraphStats, g: GraphStats) -> None:
    t.kernels += g.kernels
    t.fused_nodes += g.fused_nodes
    t.nodes += g.nodes
    t.externs.update(g.externs)
    t.fallbacks.update(g.fallbacks)
    t.lowered.update(g.lowered)
    t.pad_mm.update(g.pad_mm)
    for k, v in g.lowering_errors.items():
        t.lowering_errors.setdefault(k, v)


def reset():
    global _older
    _graphs.clear()
    _older = GraphStats()
