"""Compile statistics the user can read after a compile.

    import tuner.compiler.stats as stats
    s = stats.last()          # the most recent graph compiled (forward or backward)
    s.kernels                 # Triton kernels generated for that graph
    s.kernel_kinds            # their kinds, e.g. ["pointwise_tiled", "persistent_reduction"]
    s.fused_nodes             # fusions performed by the scheduler
    s.recomputed              # multi-user values left unstored, recomputed by each consumer
    s.window_stored           # window ops' (pooling) inputs stored first, too costly to recompute per tap
    s.residual_folds          # `mm + r` run as addmm with r as its C operand (one ATen call)
    s.nodes                   # IR nodes before fusion (pointwise/reduction/scatter/extern)
    s.externs                 # {op name: count} ATen calls (mm, convolution, fallbacks)
    s.fallbacks               # {op name: count} ops that ran in ATen (no lowering, or one that failed)
    s.lowering_errors         # {op name: first line of the error} lowerings that failed (the op fell back)
    s.graph_fallback          # "" or why the whole graph ran in ATen (a compiler error after lowering)
    s.lowered                 # {op name: count} ops lowered to our IR
    s.pad_mm                  # {"pad"/"orig"/"template": count} per unaligned matmul the pad_mm point
    #                           decided ("template": it said pad, then the mm point chose the template)
    s.mm_backend              # {"extern"/"template": count} per matmul the mm point decided (mm="auto")
    s.decisions_heuristic     # max-autotune, filled as the graph's kernels tune on their first
    s.decisions_cache         #   call: kernel configs answered by the learned heuristic, by the
    s.decisions_measured      #   cache, by measuring (a search, cut short by the budget or not),
    s.decisions_budget_default  # or the default kept (TUNER_TUNE_BUDGET_S spent, nothing measured)
    s.decisions_budget_cut    # searches the budget stopped (best so far; among decisions_measured)
    s.learned_configs         # default mode: kernels launched with a learned config module's answer
                              #   instead of the hand default (tuner learn-configs)
    s.prebuilt                # max-autotune: tuning candidates built ahead, all kernels in one batch
    s.tuning_seconds          # seconds the graph's kernels spent tuning
    s.compile_seconds         # seconds in lowering, fusion and code generation
    s.jit_seconds             # seconds in each kernel's first (JIT-compiling) launch, tuning aside
    s.graph_cache             # the compiled-graph cache: "hit (local)", "miss", "stored", ...
    s.source                  # the generated code: kernels (commented out) and the wrapper
    s.planned_peak_bytes      # the wrapper's memory plan (compiler/memory_plan.py): buffer bytes
    s.unplanned_bytes         #   live at its worst step, and the bytes of every buffer in its own
                              #   storage, none reused or freed; None with symbolic sizes
    s.donated_reused_bytes    # a backward's donated inputs (saved activations no one reads again)
                              #   whose storage the plan put buffers in: their bytes
    s.reordered               # nodes the memory-aware order ran earlier (compiler/reorder.py)
    stats.graphs()            # the last KEEP_GRAPHS graphs, oldest first
    stats.totals()            # the same counters summed over every graph since reset()
    stats.mask_folds          # {"dropped"/"causal": count} constant attention masks folded away
    stats.attention_patterns  # {"graphs"/"patterns": count} hand-written attention replaced by
                              #   scaled_dot_product_attention (compiler/attn_patterns.py);
                              #   "gqa_decode": decode attention over repeated KV heads
                              #   run as tuner::gqa_decode (compiler/gqa_decode.py)
    stats.layouts             # {"channels_last"/"keep"/"declined": count} graphs with 2-D
                              #   convolutions by the layout their pass gave them (compiler/channels_last.py)
    stats.layout_sources      # {"rule"/"measured"/"cache"/"forced"/...: count} the same graphs by
                              #   what gave their layout decision
    stats.bn_folded           # eval-mode batch norms folded into their convolutions (freeze on:
                              #   compiler/freeze.py)
    stats.reset()

Only the last KEEP_GRAPHS (64) graphs are kept, sources included: a long-running process that
compiles graph after graph must not hold every generated source. An older graph's counters
stay in totals() (the peak bytes there: the largest graph's); its kernel_names, kernel_kinds
(lists, one item per kernel) and kernel_labels do not, so those cover the kept graphs only. Set `stats.KEEP_GRAPHS` before compiling to keep more.
"""
from __future__ import annotations

import collections
import logging
import warnings
from dataclasses import dataclass, field

from tuner.search.base import first_line


@dataclass
class GraphStats:
    kernels: int = 0
    fused_nodes: int = 0
    nodes: int = 0
    recomputed: int = 0       # multi-user lazy values recomputed in each consumer, not stored
    window_stored: int = 0    # lazy inputs of window ops stored first (GraphLowering.window_input)
    residual_folds: int = 0   # residual adds folded into addmm's C operand (lowerings/matmul.py)
    externs: collections.Counter = field(default_factory=collections.Counter)
    fallbacks: collections.Counter = field(default_factory=collections.Counter)
    lowered: collections.Counter = field(default_factory=collections.Counter)
    pad_mm: collections.Counter = field(default_factory=collections.Counter)
    mm_backend: collections.Counter = field(default_factory=collections.Counter)
    kernel_names: list = field(default_factory=list)
    kernel_kinds: list = field(default_factory=list)   # per kernel: "pointwise", "pointwise_tiled",
                                                       # "reduction", "persistent_reduction", "scan",
                                                       # "scatter", "combo", "foreach", "template"
    # the generated function's name (tk_<kind>_<hash>, as a profiler lists it) -> what it
    # computes ("pointwise over (6304, 3072), nodes [...]")
    kernel_labels: dict = field(default_factory=dict)
    source: str = ""          # the generated kernels (as comments) and wrapper
    lowering_errors: dict = field(default_factory=dict)
    graph_fallback: str = ""
    symbolic: bool = False      # compiled with symbolic sizes (compiler/sizes.py)
    guards: int = 0             # the size guards a symbolic compile recorded
    # the compiled-graph cache (compiler/graph_cache.py): "hit (local)", "hit (remote)",
    # "miss" (then "stored" or "not stored: why" after the first call), "uncacheable: why"
    graph_cache: str = ""
    graph: int = 0            # this process's count of compiled graphs when it was compiled
    # kernel-config decisions (max-autotune), recorded when each kernel tunes on its first call
    decisions_heuristic: int = 0
    decisions_cache: int = 0
    decisions_measured: int = 0
    decisions_budget_default: int = 0
    decisions_budget_cut: int = 0
    learned_configs: int = 0       # default mode: kernels launched with a learned config
    prebuilt: int = 0              # max-autotune: tuning candidates built ahead in one batch
    tuning_seconds: float = 0.0
    compile_seconds: float = 0.0   # lowering, fusion and code generation (compile_graph)
    jit_seconds: float = 0.0       # first launches of each kernel: Triton compiling it (and the launch)
    planned_peak_bytes: int | None = None    # memory plan (compiler/memory_plan.py); None:
    unplanned_bytes: int | None = None       #   symbolic sizes (no byte counts)
    donated_reused_bytes: int = 0            # donated inputs' storage the plan reused
    reordered: int = 0                       # nodes compiler/reorder.py moved up
    tune_pending: int = field(default=0, repr=False)   # launchers yet to tune (set by the compiler)

    def count_extern(self, op):
        self.externs[_name(op)] += 1

    def count_fallback(self, op):
        self.fallbacks[_name(op)] += 1

    def count_lowering_error(self, op, err):
        name = _name(op)
        reason = first_line(err, 200)
        self.lowering_errors.setdefault(name, reason)
        warn_once(("lowering", name), f"tuner: the lowering of {name} failed ({reason}); it runs "
                  "in ATen (counted in tuner.compiler.stats fallbacks)")

    def count_lowered(self, op):
        self.lowered[_name(op)] += 1

    def count_mm_backend(self, choice):
        self.mm_backend[choice] += 1

    def count_pad_mm(self, choice):
        self.pad_mm[choice] += 1

    @property
    def decisions(self) -> int:
        return (self.decisions_heuristic + self.decisions_cache + self.decisions_measured
                + self.decisions_budget_default)

    def count_decision(self, decision, seconds: float) -> bool:
        """Record one kernel's tuning decision (a tuner.decision.Decision) and the seconds it took;
        True when it was the last of the graph's kernels to tune."""
        source = getattr(decision, "source", "")
        if source == "heuristic":
            self.decisions_heuristic += 1
        elif source == "cache":
            self.decisions_cache += 1
        elif source == "budget":      # tuner.decision.OVER_BUDGET
            self.decisions_budget_default += 1
        else:
            self.decisions_measured += 1
            if getattr(decision, "stopped_early", False):
                self.decisions_budget_cut += 1
        self.tuning_seconds += seconds
        self.tune_pending -= 1
        return self.tune_pending == 0

    def tuning_report(self, budget: float = 0) -> str:
        """One line for the autotune report: how the graph's kernel configs were decided."""
        line = (f"autotune graph {self.graph}: {self.decisions} kernel config decision"
                f"{'s' * (self.decisions != 1)} in {self.tuning_seconds:.2f} s: "
                f"{self.decisions_heuristic} heuristic, {self.decisions_cache} cache, "
                f"{self.decisions_measured} measured")
        if self.decisions_budget_cut or self.decisions_budget_default:
            line += (f"; tuning budget of {budget:g} s spent (TUNER_TUNE_BUDGET_S): "
                     f"{self.decisions_budget_cut} search(es) stopped with the best so far, "
                     f"{self.decisions_budget_default} kernel(s) kept their default config")
        return line

    def as_dict(self):
        return {"kernels": self.kernels, "fused_nodes": self.fused_nodes, "nodes": self.nodes,
                "recomputed": self.recomputed, "window_stored": self.window_stored,
                "residual_folds": self.residual_folds,
                "externs": dict(self.externs), "fallbacks": dict(self.fallbacks),
                "lowered": dict(self.lowered), "pad_mm": dict(self.pad_mm),
                "mm_backend": dict(self.mm_backend),
                "lowering_errors": dict(self.lowering_errors), "graph_fallback": self.graph_fallback,
                "decisions_heuristic": self.decisions_heuristic,
                "decisions_cache": self.decisions_cache,
                "decisions_measured": self.decisions_measured,
                "decisions_budget_default": self.decisions_budget_default,
                "decisions_budget_cut": self.decisions_budget_cut,
                "learned_configs": self.learned_configs, "prebuilt": self.prebuilt,
                "tuning_seconds": self.tuning_seconds, "compile_seconds": self.compile_seconds,
                "jit_seconds": self.jit_seconds, "planned_peak_bytes": self.planned_peak_bytes,
                "unplanned_bytes": self.unplanned_bytes,
                "donated_reused_bytes": self.donated_reused_bytes, "reordered": self.reordered}


def _name(op):
    # an OpOverload prints as "aten.<op>.<overload>"; a plain function by its name
    return str(op) if hasattr(op, "_schema") else str(getattr(op, "__name__", op))


KEEP_GRAPHS = 64
_graphs: collections.deque[GraphStats] = collections.deque()
_older = GraphStats()   # the counters of graphs no longer kept, since reset()
_warned: set = set()
_count = 0              # graphs compiled in this process (GraphStats.graph)
# why graphs with symbolic sizes were compiled per shape instead (reason -> graphs)
symbolic_fallbacks: collections.Counter = collections.Counter()
# attention masks folded before AOTAutograd (compiler/fold.py): "dropped" (all true / all
# zero) or "causal" (now is_causal=True) -> SDPA calls
mask_folds: collections.Counter = collections.Counter()
# hand-written attention replaced by SDPA before AOTAutograd (compiler/attn_patterns.py):
# "graphs" (with at least one replacement) and "patterns" (SDPA calls made) -> count
attention_patterns: collections.Counter = collections.Counter()
# graphs with 2-D convolutions by layout (compiler/channels_last.py): "channels_last" (converted),
# "keep" (the decision), "declined" (channels_last decided, the graph could not take it)
layouts: collections.Counter = collections.Counter()
# the same graphs by what decided their layout: "rule", "measured" (max-autotune timed both
# layouts), "cache", "forced", "heuristic"
layout_sources: collections.Counter = collections.Counter()
# eval-mode batch norms folded into the preceding convolution under freeze (compiler/freeze.py)
bn_folded = 0


def note_symbolic_fallback(reason: str) -> None:
    """A graph with symbolic sizes that compiles per concrete shape, and why."""
    symbolic_fallbacks[reason] += 1
    logging.getLogger("tuner.compiler").debug("symbolic sizes declined: %s", reason)


def warn_once(key, message):
    """One warning per key per process (a model with 48 layers names a failing op once)."""
    if key in _warned:
        return
    _warned.add(key)
    warnings.warn(message, RuntimeWarning, stacklevel=3)


def new(keep: bool = True) -> GraphStats:
    """A new graph's stats; with keep=False (a point's probe compile) not recorded anywhere."""
    global _count
    if not keep:
        return GraphStats()
    _count += 1
    s = GraphStats(graph=_count)
    _graphs.append(s)
    while len(_graphs) > max(1, KEEP_GRAPHS):
        _add_counters(_older, _graphs.popleft())   # compiled long ago: its counts are final
    return s


def discard(s: GraphStats) -> None:
    """Forget `s`, the last graph's stats, when its compile was abandoned (a cached graph that
    could not be rebuilt, compiled afresh with new stats)."""
    if _graphs and _graphs[-1] is s:
        _graphs.pop()


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
        t.kernel_labels.update(g.kernel_labels)
    return t


def _add_counters(t: GraphStats, g: GraphStats) -> None:
    t.kernels += g.kernels
    t.fused_nodes += g.fused_nodes
    t.nodes += g.nodes
    t.recomputed += g.recomputed
    t.window_stored += g.window_stored
    t.residual_folds += g.residual_folds
    t.donated_reused_bytes += g.donated_reused_bytes
    t.reordered += g.reordered
    t.externs.update(g.externs)
    t.fallbacks.update(g.fallbacks)
    t.lowered.update(g.lowered)
    t.pad_mm.update(g.pad_mm)
    t.mm_backend.update(g.mm_backend)
    t.decisions_heuristic += g.decisions_heuristic
    t.decisions_cache += g.decisions_cache
    t.decisions_measured += g.decisions_measured
    t.decisions_budget_default += g.decisions_budget_default
    t.decisions_budget_cut += g.decisions_budget_cut
    t.learned_configs += g.learned_configs
    t.prebuilt += g.prebuilt
    t.tuning_seconds += g.tuning_seconds
    t.compile_seconds += g.compile_seconds
    t.jit_seconds += g.jit_seconds
    for k, v in g.lowering_errors.items():
        t.lowering_errors.setdefault(k, v)
    for f in ("planned_peak_bytes", "unplanned_bytes"):   # not summed: the largest graph's
        mine, theirs = getattr(t, f), getattr(g, f)
        if theirs is not None:
            setattr(t, f, theirs if mine is None else max(mine, theirs))


def reset():
    global _older, bn_folded
    _graphs.clear()
    symbolic_fallbacks.clear()
    mask_folds.clear()
    attention_patterns.clear()
    layouts.clear()
    layout_sources.clear()
    bn_folded = 0
    _older = GraphStats()
