"""The engine: answers one autotuning point and records how it was answered.

`decide(namespace, problem, candidates, measure, ...)` asks, in order:
  1. the learned heuristic (when TUNER_HEURISTICS=use and it is not "unsure"),
  2. the cache (local SQLite, then Redis),
  3. a search (exhaustive / coordinate descent / budgeted) that measures candidates,
and stores a search's answer back in the cache. Each answer is a `Decision`: the winner, its
time, the time of the initial default (the first candidate), how it was found, the candidate
timings and the tuning time. Decisions are printed as a report with TUNER_LOGS=autotune and
handed to the dataset writer with TUNER_HEURISTICS=collect.

A cached answer is used only if it still fits: its candidate set hash equals the current one,
or it was found by coordinate descent over the same space (signature stored in the entry),
since coordinate descent's answer depends on the space, not on the starting list. A stored
value that does not parse, or whose choice is not a current candidate / not in the space, is
a miss.
"""
from __future__ import annotations

import collections
import inspect
import logging
import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from tuner.search import get_strategy
from tuner.search.base import INF
from tuner.settings import settings
from tuner.space import Config, ConfigSpace, choice_from_json, choice_to_json

log = logging.getLogger("tuner.engine")
RECORD_VERSION = 1
SOURCES = ("heuristic", "cache", "exhaustive", "coordinate_descent", "budgeted")
# Recent decisions of this process, newest last (scripts and tests read them).
HISTORY: collections.deque = collections.deque(maxlen=256)


@dataclass
class Decision:
    choice: Any
    time_ms: float | None              # None when nothing was measured (heuristic)
    default_time_ms: float | None      # time of candidates[0], the initial default
    source: str                        # one of SOURCES
    timings: list[tuple[Any, float]] = field(default_factory=list)  # fastest first
    tuning_seconds: float = 0.0
    namespace: str = ""
    problem: str = ""
    found_by: str = ""                 # the search that found it (a cache hit keeps the original)
    n_measured: int = 0                # measurements made for this decision (0 for cache/heuristic)

    @property
    def speedup(self) -> float | None:
        """default time / winner time (how much tuning bought over the first candidate)."""
        if not self.time_ms or self.default_time_ms is None or not math.isfinite(self.time_ms):
            return None
        return self.default_time_ms / self.time_ms

    def to_record(self) -> dict:
        """The JSON decision record stored in the cache and datasets (inf written as null)."""
        return {"version": RECORD_VERSION, "choice": choice_to_json(self.choice),
                "time_ms": _num(self.time_ms), "default_time_ms": _num(self.default_time_ms),
                "source": self.source, "found_by": self.found_by or self.source,
                "timings": [[choice_to_json(c), _num(t)] for c, t in self.timings],
                "tuning_seconds": self.tuning_seconds, "n_measured": self.n_measured}


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _ms(x: Any) -> float:
    if x is None:
        return INF
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"not a time: {x!r}")
    return float(x)


# --------------------------------------------------------------------------------------------


def decide(namespace: str, problem: str, candidates: Sequence[Any], measure: Callable[[Any], float],
           *, space: ConfigSpace | None = None, search: str | None = None,
           heuristic: Callable[[], Any] | None = None, features: dict | None = None,
           backend_extra: dict | None = None, search_options: dict | None = None,
           prepare: Callable[[list], Any] | None = None) -> Decision:
    """Answer one autotuning point; see the module docstring for the order.

    candidates: Configs or plain JSON-able choices; candidates[0] is the default.
    measure: choice -> ms (raise or return inf on failure; it scores inf and tuning goes on).
    space: a ConfigSpace for coordinate descent / budgeted search around the candidates.
    search: strategy name (default TUNER_SEARCH); without a space or with plain choices the
        search is exhaustive.
    search_options: passed to the strategy (radius, threshold, max_measurements, ...).
    prepare: called after a cache miss with each batch of candidates the search is about to
        measure for the first time (the initial ones, then each sweep's new neighbours),
        before any of them is timed: the caller compiles them in parallel there.
    """
    candidates = list(candidates)
    if not candidates:
        raise ValueError(f"{namespace}: decide() needs at least one candidate")
    start = time.perf_counter()
    mode = settings.heuristics

    # 1. heuristic
    if heuristic is not None and mode == "use":
        choice = _ask_heuristic(heuristic, candidates, space, namespace)
        if choice is not None:
            d = Decision(choice, None, None, "heuristic", [], time.perf_counter() - start,
                         namespace, problem, "heuristic")
            return _finish(d)

    # 2. cache
    strategy_name = search or settings.search
    get_strategy(strategy_name)  # a bad name fails here, before any measurement
    all_configs = all(isinstance(c, Config) for c in candidates)
    if space is None or not all_configs:
        strategy_name = "exhaustive"  # plain choices have no neighbours
    keys = _cache_keys(namespace, problem, candidates, space, strategy_name, backend_extra)
    cached = _cache_lookup(keys, candidates, space)
    if cached is not None:
        cached.tuning_seconds = time.perf_counter() - start
        cached.namespace, cached.problem = namespace, problem
        return _finish(cached)

    # 3. search
    if len(candidates) == 1 and (space is None or not space.tunable_fields):
        # nothing to choose: no measurement, and nothing worth caching
        d = Decision(candidates[0], None, None, "exhaustive", [], time.perf_counter() - start,
                     namespace, problem, "exhaustive")
        return _finish(d)
    strategy = get_strategy(strategy_name)
    options = dict(search_options or {})
    if prepare is not None:
        # the strategies call prepare before each batch they measure (the initial candidates,
        # then each sweep's new neighbours), so compiles overlap all along the search
        options["prepare"] = prepare
    if strategy_name == "budgeted" and "max_measurements" not in options \
            and "max_seconds" not in options:
        options["max_measurements"] = max(len(candidates), 16)
    if strategy_name != (search or settings.search):
        # fell back to exhaustive: drop options that only the requested strategy takes
        accepted = inspect.signature(strategy).parameters
        options = {k: v for k, v in options.items() if k in accepted}
    result = strategy(space, measure, initial=candidates, **options)
    timings = sorted(result.timings.items(), key=lambda kv: (kv[1], str(kv[0])))
    best, best_time = result.best, result.best_time
    if best is None or not math.isfinite(best_time):
        log.warning("%s %s: every candidate failed to run; using the first one", namespace, problem)
        best, best_time = candidates[0], INF
    d = Decision(best, best_time, result.timings.get(candidates[0]), strategy_name, timings,
                 time.perf_counter() - start, namespace, problem, strategy_name,
                 result.n_measured)
    if math.isfinite(best_time):  # an all-failed answer is retried next time, not remembered
        _cache_store(keys, d, space)
    if mode == "collect":
        _collect(namespace, features, d)
    return _finish(d)


def _finish(d: Decision) -> Decision:
    HISTORY.append(d)
    if "autotune" in settings.logs:
        print(format_report(d), file=sys.stderr, flush=True)
    return d


def _ask_heuristic(heuristic, candidates, space, namespace):
    try:
        choice = heuristic()
    except Exception as e:  # a broken heuristic is "unsure", never a failed compile
        log.warning("%s: heuristic failed (%s: %s); autotuning instead", namespace,
                    type(e).__name__, e)
        return None
    if choice is None:
        return None
    if choice in candidates or (space is not None and isinstance(choice, Config)
                                and space.valid(choice)):
        return choice
    log.debug("%s: heuristic answered %r, not a candidate; autotuning instead", namespace, choice)
    return None


# --------------------------------------------------------------------------------------------
# Cache


def _cache_keys(namespace, problem, candidates, space, strategy_name, backend_extra):
    """(key by candidate set, key by space or None); None when the cache is unavailable."""
    try:
        from tuner.cache import CacheKey, backend_hash, configs_hash
    except ImportError:  # the cache package is optional for the engine
        return None
    backend = backend_hash(backend_extra)
    by_set = CacheKey(namespace, problem, configs_hash(choice_to_json(c) for c in candidates), backend)
    by_space = None
    if space is not None:
        by_space = CacheKey(namespace, problem, configs_hash([{"space": space.signature()}]), backend)
    return by_set, by_space


def _cache():
    from tuner.cache import get_cache
    return get_cache()


def _cache_lookup(keys, candidates, space) -> Decision | None:
    if keys is None:
        return None
    by_set, by_space = keys
    try:
        cache = _cache()
    except Exception as e:
        log.debug("cache unavailable: %s", e)
        return None
    lookups = [(by_set, "set")] + ([(by_space, "space")] if by_space is not None else [])
    for key, kind in lookups:
        try:
            value = cache.get(key)
        except Exception as e:  # the cache contract says it never raises; be safe anyway
            log.debug("cache get failed: %s", e)
            value = None
        if value is None:
            continue
        d = parse_record(value, candidates, space, key.configs_hash, kind)
        if d is not None:
            return d
        log.debug("cache entry for %s ignored: it does not fit the current candidates", key)
    return None


def _cache_store(keys, d: Decision, space) -> None:
    if keys is None:
        return
    by_set, by_space = keys
    record = d.to_record()
    record["space"] = space.signature() if space is not None else None
    try:
        cache = _cache()
        cache.put(by_set, {**record, "configs_hash": by_set.configs_hash})
        # a coordinate-descent answer stands for the whole space, whatever the start list
        if by_space is not None and d.found_by == "coordinate_descent":
            cache.put(by_space, {**record, "configs_hash": by_space.configs_hash})
    except Exception as e:  # never fail a decision because of the cache
        log.debug("cache put failed: %s", e)


def parse_record(value: Any, candidates: Sequence[Any], space: ConfigSpace | None,
                 expected_hash: str, kind: str) -> Decision | None:
    """A cached decision record as a Decision, or None when it is garbled or does not fit."""
    try:
        if not isinstance(value, dict) or value.get("version") != RECORD_VERSION:
            return None
        if value.get("configs_hash") != expected_hash:
            return None
        found_by = value.get("found_by")
        if found_by not in SOURCES:
            return None
        choice = choice_from_json(value["choice"])
        if kind == "space":
            if found_by != "coordinate_descent" or space is None \
                    or value.get("space") != space.signature():
                return None
            if not isinstance(choice, Config) or not space.valid(choice):
                return None
        elif choice not in candidates and not (
                space is not None and isinstance(choice, Config) and space.valid(choice)):
            return None
        timings = [(choice_from_json(c), _ms(t)) for c, t in value.get("timings", [])]
        time_ms = _ms(value.get("time_ms"))
        default = value.get("default_time_ms")
        return Decision(choice, time_ms, None if default is None else _ms(default), "cache",
                        timings, 0.0, found_by=found_by, n_measured=0)
    except (KeyError, TypeError, ValueError) as e:
        log.debug("garbled cache record: %s", e)
        return None


# --------------------------------------------------------------------------------------------
# Data collection and the report


def _collect(namespace: str, features: dict | None, d: Decision) -> None:
    try:
        from tuner.datagen.dataset import record_decision
    except ImportError as e:
        log.debug("collect mode: no dataset writer (%s); decision not recorded", e)
        return
    try:
        record_decision(namespace, dict(features or {}), d)
    except Exception as e:  # collecting data must never break a compile
        log.warning("collect mode: recording the decision failed: %s: %s", type(e).__name__, e)


def format_report(d: Decision, top: int = 5) -> str:
    """A few readable lines: the problem, the top choices with time and % of best, the cost."""
    head = f"autotune {d.namespace} {d.problem}"
    lines = [head]
    if d.source == "heuristic":
        lines.append(f"  heuristic chose {d.choice} (no measurement) in {d.tuning_seconds * 1e3:.1f} ms")
        return "\n".join(lines)
    if d.source == "cache":
        t = "" if d.time_ms is None or not math.isfinite(d.time_ms) else f" {d.time_ms:.4f} ms"
        lines.append(f"  cache hit: {d.choice}{t} (found by {d.found_by}); "
                     f"lookup {d.tuning_seconds * 1e3:.1f} ms")
        return "\n".join(lines)
    if not d.timings:
        lines.append(f"  single candidate {d.choice}: nothing to tune")
        return "\n".join(lines)
    best = d.time_ms if d.time_ms and math.isfinite(d.time_ms) else None
    for i, (choice, t) in enumerate(d.timings[:top]):
        if not math.isfinite(t):
            lines.append(f"  {i + 1:>2}. {str(choice):<56} failed (inf)")
            continue
        pct = f"{100.0 * best / t:6.1f}%" if best and t > 0 else "     -"
        mark = "  <- chosen" if choice == d.choice else ""
        lines.append(f"  {i + 1:>2}. {str(choice):<56} {t:10.4f} ms {pct}{mark}")
    failed = sum(1 for _, t in d.timings if not math.isfinite(t))
    more = len(d.timings) - min(top, len(d.timings))
    tail = f"  {d.source}: {d.n_measured} measured"
    if failed:
        tail += f", {failed} failed"
    if more:
        tail += f", {more} more not shown"
    if d.speedup is not None:
        tail += f"; {d.speedup:.2f}x over the default"
    tail += f"; tuning took {d.tuning_seconds:.2f} s"
    lines.append(tail)
    return "\n".join(lines)
