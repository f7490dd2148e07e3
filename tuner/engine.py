"""The engine: answers one autotuning point and records how it was answered.

`decide(namespace, problem, candidates, measure, ...)` asks, in order:
  1. the learned heuristic (when TUNER_HEURISTICS=use and it is not "unsure"),
  2. the cache (local SQLite, then Redis),
  3. a search (exhaustive / coordinate descent / budgeted) that measures candidates,
and stores a search's answer back in the cache. Each answer is a `Decision` (tuner/decision.py):
the winner, its time, the time of the initial default (the first candidate), how it was found,
the candidate timings and the tuning time. Decisions are printed as a report with
TUNER_LOGS=autotune (tuner/report.py) and handed to the dataset writer with
TUNER_HEURISTICS=collect. `plan(...)` asks 1 and 2 the same way and says what 3 would build
first, measuring and recording nothing (the compiler builds that ahead).

A cached answer is used only if it still fits: its candidate set hash equals the current one,
or it was found by coordinate descent over the same space (signature stored in the entry),
since coordinate descent's answer depends on the space, not on the starting list. Every
answer read from the cache goes through `parse_record`, whose choice check
(`checked_choice`, which heuristic answers go through too) is exact: the choice is one of the
current candidates with the same types (4096.0 is not 4096), or, when the point searches a
space, a config with exactly the candidates' meta-parameter names, integer fields within the
space's bounds and every fixed value equal to a candidate's. Anything else, and any record
that does not parse, is a rejected miss (the cache counts it) and the point is tuned again;
a remote answer is copied locally only once it passed. A cache that fails is a miss, never
an error of the compile. `discard` drops an answer that failed to launch.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import inspect
import logging
import math
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from tuner.decision import OVER_BUDGET, RECORD_VERSION, SOURCES, Decision
from tuner.report import _PROGRESS, _counted, explain, format_report
from tuner.search import get_strategy
from tuner.search.base import INF, first_line
from tuner.settings import check_all, settings
from tuner.space import Config, ConfigSpace, choice_from_json, choice_to_json, exact_equal

log = logging.getLogger("tuner.engine")
# Recent decisions of this process, newest last (scripts and tests read them).
HISTORY: collections.deque = collections.deque(maxlen=256)
# The fields of a stored decision record (to_record, plus what _cache_store adds)
RECORD_KEYS = frozenset({"version", "choice", "time_ms", "default_time_ms", "source", "found_by",
                         "timings", "tuning_seconds", "n_measured", "space", "configs_hash"})
MAX_TIME_MS = 3.6e6   # an hour: a cached time beyond it (or negative) is not a measurement
MAX_TIMINGS = 4096    # more measurements than any search makes for one decision
# (namespace, problem, choice JSON) of answers that failed to launch in this process
_DISCARDED: set[tuple[str, str, str]] = set()
_discard_lock = threading.Lock()


def _ms(x: Any) -> float:
    """A stored time in ms (None: failed, inf); raises ValueError unless finite and sane."""
    if x is None:
        return INF
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"not a time: {x!r}")
    # int compared as int: float() (and math.isfinite) of a 401-digit int raise OverflowError
    sane = 0 <= x <= MAX_TIME_MS if isinstance(x, int) else math.isfinite(x) and 0 <= x <= MAX_TIME_MS
    if not sane:
        raise ValueError(f"not a time: {str(x)[:40]}")
    return float(x)


# --------------------------------------------------------------------------------------------


def decide(namespace: str, problem: str, candidates: Sequence[Any], measure: Callable[[Any], float],
           *, space: ConfigSpace | None = None, search: str | None = None,
           heuristic: Callable[[], Any] | None = None, features: dict | None = None,
           backend_extra: dict | None = None, search_options: dict | None = None,
           prepare: Callable[[list], Any] | None = None,
           max_seconds: float | None = None, store_heuristic: bool = False) -> Decision:
    """Answer one autotuning point; see the module docstring for the order.

    candidates: Configs or plain JSON-able choices; candidates[0] is the default.
    measure: choice -> ms (raise or return inf on failure; it scores inf and tuning goes on).
    space: a ConfigSpace for coordinate descent / budgeted search around the candidates.
    search: strategy name (default TUNER_SEARCH); without a space or with plain choices the
        search is exhaustive.
    search_options: passed to the strategy (radius, threshold, max_measurements, ...).
    features: the problem's dataset row in collect mode (TUNER_HEURISTICS=collect); None: the
        decision is not collected (a problem the point's dataset does not describe).
    prepare: called after a cache miss with each batch of candidates the search is about to
        measure for the first time (the initial ones, then each sweep's new neighbours),
        before any of them is timed: the caller compiles them in parallel there.
    max_seconds: the time this decision may spend searching (None: no limit). The heuristic
        and the cache are asked whatever it is; at 0 or below nothing is measured and the
        default (candidates[0]) is the answer (source OVER_BUDGET); otherwise the search stops
        once it is spent (after at least one measurement) and keeps the best so far
        (`stopped_early`). Neither answer is stored or collected: the next decide() for the
        problem searches again.
    store_heuristic: a heuristic's answer is stored in the cache too (found_by "heuristic",
        no time), so a later process finds it there when its heuristic has nothing to say
        (a template's config that this process took from the same matmul's probe).
    """
    candidates = list(candidates)
    if not candidates:
        raise ValueError(f"{namespace}: decide() needs at least one candidate")
    start = time.perf_counter()
    mode = settings.heuristics
    d, note, keys, strategy_name = _unmeasured(
        namespace, problem, candidates, space, search, heuristic, backend_extra, max_seconds,
        store_heuristic, start)
    if d is not None:
        return _finish(d)

    # 3. search
    # A bad benchmark setting would make every measurement fail (each candidate inf, the
    # first one used, no error): it is the user's to see before anything is measured.
    check_all(_MEASURE_SETTINGS)
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
    total = options.get("max_measurements") if strategy_name == "budgeted" else None
    if strategy_name == "exhaustive":
        total = len(candidates)
    out_of_time = None
    if max_seconds is not None:
        strategy, measure, options, out_of_time = _within(strategy, strategy_name, measure,
                                                          options, max_seconds)
    with (contextlib.nullcontext(None) if _quiet_now()
          else _PROGRESS.tracking(namespace, problem, total)) as tick:
        result = strategy(space, _counted(measure, tick) if tick else measure,
                          initial=candidates, **options)
    stopped = out_of_time is not None and out_of_time(result)
    timings = sorted(result.timings.items(), key=lambda kv: (kv[1], str(kv[0])))
    best, best_time = result.best, result.best_time
    errors = dict(getattr(result, "errors", None) or {})
    if best is None or not math.isfinite(best_time):
        first = next(iter(errors.values()), "")
        log.warning("%s %s: every candidate failed to run%s; using the first one", namespace,
                    problem, f" (first: {first})" if first else "")
        best, best_time = candidates[0], INF
    d = Decision(best, best_time, result.timings.get(candidates[0]), strategy_name, timings,
                 time.perf_counter() - start, namespace, problem, strategy_name,
                 result.n_measured, errors=errors, heuristic_note=note, stopped_early=stopped)
    # an all-failed answer is retried next time, not remembered; a search the time limit
    # stopped is not the search's answer
    if math.isfinite(best_time) and not stopped:
        _cache_store(keys, d, space)
    if mode == "collect" and not stopped and features is not None:
        _collect(namespace, features, d)
    return _finish(d)


def _unmeasured(namespace, problem, candidates, space, search, heuristic, backend_extra,
                max_seconds, store_heuristic, start):
    """decide()'s steps before any measurement: (an answer that needs none or None, what the
    heuristic said, the cache keys, the search's name). The answer is the heuristic's, the
    cache's, the default when no tuning time is left, or the only candidate."""
    # 1. heuristic
    mode = settings.heuristics
    note = ""
    if heuristic is not None and mode == "use":
        choice, note = _ask_heuristic(heuristic, candidates, space, namespace, problem)
        if choice is not None:
            d = Decision(choice, None, None, "heuristic", [], time.perf_counter() - start,
                         namespace, problem, "heuristic")
            if store_heuristic:
                _cache_store(_cache_keys(namespace, problem, candidates, space,
                                         _strategy_name(search, space, candidates), backend_extra),
                             d, space)
            return d, note, None, ""
    elif heuristic is not None:
        note = f"not asked (TUNER_HEURISTICS={mode})"

    # 2. cache
    get_strategy(search or settings.search)  # a bad name fails here, before any measurement
    strategy_name = _strategy_name(search, space, candidates)
    keys = _cache_keys(namespace, problem, candidates, space, strategy_name, backend_extra)
    cached = _cache_lookup(keys, candidates, space, candidates_only=strategy_name == "exhaustive",
                           namespace=namespace, problem=problem)
    if cached is not None:
        cached.tuning_seconds = time.perf_counter() - start
        cached.namespace, cached.problem = namespace, problem
        cached.heuristic_note = note
        return cached, note, keys, strategy_name

    if max_seconds is not None and max_seconds <= 0:
        d = Decision(candidates[0], None, None, OVER_BUDGET, [], time.perf_counter() - start,
                     namespace, problem, OVER_BUDGET, heuristic_note=note, stopped_early=True)
        return d, note, keys, strategy_name
    if len(candidates) == 1 and (space is None or not space.tunable_fields):
        # nothing to choose: no measurement, and nothing worth caching
        d = Decision(candidates[0], None, None, "exhaustive", [], time.perf_counter() - start,
                     namespace, problem, "exhaustive", heuristic_note=note)
        return d, note, keys, strategy_name
    return None, note, keys, strategy_name


@dataclass
class Plan:
    """What decide() would do for a point, found without measuring: `decision`, an answer that
    needs no measurement (the heuristic's, the cache's, the default when no tuning time is
    left, the only candidate), else None and `batch`, the candidates its search builds
    (decide's `prepare`) and times first."""
    decision: Decision | None
    batch: list = field(default_factory=list)

    @property
    def measures(self) -> bool:
        """Whether decide() would measure (nothing answers the point without it)."""
        return self.decision is None


def plan(namespace: str, problem: str, candidates: Sequence[Any], *,
         space: ConfigSpace | None = None, search: str | None = None,
         heuristic: Callable[[], Any] | None = None, backend_extra: dict | None = None,
         max_seconds: float | None = None) -> Plan:
    """decide()'s heuristic and cache lookup and its search's first batch, with the same
    arguments, measuring nothing: a caller builds ahead what decide() will need (the compiler
    builds every kernel's first batch of a graph at once on the compile workers). Nothing is
    stored, collected, logged or counted in HISTORY or the cache's statistics. Raises where
    decide() would before measuring (an unknown search, a bad benchmark setting)."""
    candidates = list(candidates)
    if not candidates:
        raise ValueError(f"{namespace}: plan() needs at least one candidate")
    with quiet():
        d, _, _, _ = _unmeasured(namespace, problem, candidates, space, search, heuristic,
                                 backend_extra, max_seconds, False, time.perf_counter())
    if d is not None:
        return Plan(d)
    check_all(_MEASURE_SETTINGS)
    # every strategy builds (prepare) and times its initial candidates first, each once
    return Plan(None, list(dict.fromkeys(candidates)))


def _within(strategy, strategy_name, measure, options, max_seconds):
    """(strategy, measure, options, out_of_time(result)) that stop a search after max_seconds
    with the best so far: the strategy runs inside budgeted search (a budgeted one gets a
    measure that stops it); candidates compile (prepare) only while time is left."""
    from tuner.search import BudgetExhausted, budgeted
    deadline = time.perf_counter() + max_seconds
    options = dict(options)
    prepare = options.get("prepare")
    if prepare is not None:
        def prepare_in_time(batch):
            if time.perf_counter() < deadline:
                prepare(batch)
        options["prepare"] = prepare_in_time
    if strategy_name != "budgeted":
        options.update(strategy=strategy, max_seconds=max_seconds)
        return budgeted, measure, options, lambda result: result.stopped_early
    hit, count = [False], [0]

    def measure_in_time(choice):
        if count[0] and time.perf_counter() >= deadline:   # the first one always runs
            hit[0] = True
            raise BudgetExhausted
        count[0] += 1
        return measure(choice)
    return strategy, measure_in_time, options, lambda result: hit[0]


# the settings a measurement reads (checked before a search starts)
_MEASURE_SETTINGS = ("TUNER_BENCH_REPS", "TUNER_BENCH_WARMUP", "TUNER_COMPILE_WORKERS",
                     "TUNER_ISOLATE", "TUNER_LOGS")


_QUIET = threading.local()


@contextlib.contextmanager
def quiet():
    """Decisions made inside (a plan, see `plan`) go neither into HISTORY, the logs, the
    progress line nor the cache's statistics."""
    was = _quiet_now()
    _QUIET.on = True
    try:
        yield
    finally:
        _QUIET.on = was


def _quiet_now() -> bool:
    return getattr(_QUIET, "on", False)


def _finish(d: Decision) -> Decision:
    if _quiet_now():
        return d
    HISTORY.append(d)
    logs = settings.logs
    if "autotune" in logs or "decisions" in logs:
        _PROGRESS.clear()
    if "autotune" in logs:
        print(format_report(d), file=sys.stderr, flush=True)
    if "decisions" in logs:
        print(explain(d), file=sys.stderr, flush=True)
    return d


def _strategy_name(search, space, candidates) -> str:
    """The search a decision runs (and its cache keys name): the requested one, or exhaustive
    for plain choices or without a space (they have no neighbours)."""
    if space is None or not all(isinstance(c, Config) for c in candidates):
        return "exhaustive"
    return search or settings.search


def _heuristic_reason() -> str:
    """Why the registry's lookup (if that was the heuristic) did not answer; "" otherwise."""
    try:
        from tuner.heuristics.registry import take_reason
    except Exception:
        return ""
    return take_reason()


def _ask_heuristic(heuristic, candidates, space, namespace, problem) -> tuple[Any, str]:
    """(the heuristic's checked answer or None, what it said when it did not answer)."""
    _heuristic_reason()   # forget an earlier lookup's reason
    try:
        choice = heuristic()
    except Exception as e:  # a broken heuristic is "unsure", never a failed compile
        log.warning("%s: heuristic failed (%s: %s); autotuning instead", namespace,
                    type(e).__name__, e)
        return None, f"failed ({first_line(e)})"
    if choice is None:
        return None, _heuristic_reason() or "unsure"
    try:
        raw = choice_to_json(choice)
        if _was_discarded(namespace, problem, raw):
            raise Rejected("it failed to launch earlier in this process")
        return checked_choice(raw, candidates, space, candidates_only=space is None), ""
    except Exception as e:
        log.debug("%s: heuristic answered %r (%s); autotuning instead", namespace, choice, e)
        return None, f"answered {choice!r}, rejected ({e})"


# --------------------------------------------------------------------------------------------
# The one check of answers that come from outside the search (cache, heuristic)


class Rejected(ValueError):
    """An answer from a cache or a heuristic that does not fit the current point."""


def checked_choice(raw: Any, candidates: Sequence[Any], space: ConfigSpace | None, *,
                   candidates_only: bool) -> Any:
    """The choice to launch for `raw` (a choice's JSON form), or raises Rejected saying why.

    One of the current candidates, compared with types (4096.0 is not 4096, True is not 1):
    that candidate itself is returned. Otherwise, only when the point searches `space`
    (not `candidates_only`): a complete config that `space.why_foreign` accepts against the
    candidates (same names, integer fields in bounds, fixed values equal)."""
    for c in candidates:
        if exact_equal(raw, choice_to_json(c)):
            return c
    if candidates_only or space is None:
        raise Rejected("not one of the current candidates")
    data = raw.get("config") if isinstance(raw, dict) and set(raw) == {"config"} else None
    if not isinstance(data, dict) or set(data) != {"kwargs", "num_warps", "num_stages"} \
            or not isinstance(data["kwargs"], dict):
        raise Rejected("not a complete config")
    try:
        choice = Config.from_json(data)
    except ValueError as e:
        raise Rejected(str(e)) from None
    why = space.why_foreign(choice, [c for c in candidates if isinstance(c, Config)])
    if why is not None:
        raise Rejected(why)
    return choice


def _choice_id(namespace: str, problem: str, raw: Any) -> tuple[str, str, str]:
    import json
    return namespace, problem, json.dumps(raw, sort_keys=True, default=repr)


def _was_discarded(namespace: str, problem: str, raw: Any) -> bool:
    with _discard_lock:
        return bool(_DISCARDED) and _choice_id(namespace, problem, raw) in _DISCARDED


def discard(d: Decision, reason: str = "") -> None:
    """Drop an answer that failed to launch (a cache or heuristic answer): it is never used
    again in this process for its problem, its local cache entry is deleted, and the next
    decide() for the problem tunes again (whose answer then overwrites the bad entry in every
    layer). The caller launches the default config meanwhile. Never raises."""
    log.warning("%s %s: %s answer %s failed to launch%s; using the default config and tuning "
                "again", d.namespace, d.problem, d.source, d.choice, f" ({reason})" if reason else "")
    try:
        with _discard_lock:
            _DISCARDED.add(_choice_id(d.namespace, d.problem, choice_to_json(d.choice)))
        if d.cache_key is not None:
            _cache().discard(d.cache_key)
    except Exception as e:  # a cache that fails here changes nothing: the answer is dropped
        log.debug("discarding %s: %s", d.choice, e)


# --------------------------------------------------------------------------------------------
# Cache


def _cache_keys(namespace, problem, candidates, space, strategy_name, backend_extra):
    """(key by candidate set, key by space or None); None when the cache is unavailable."""
    try:
        from tuner.cache import CacheKey, backend_hash, configs_hash
    except ImportError:  # the cache package is optional for the engine
        return None
    try:
        return _keys(CacheKey, backend_hash, configs_hash, namespace, problem, candidates, space,
                     backend_extra)
    except Exception as e:  # candidates that are not JSON, say: tuned, never cached
        log.warning("%s %s: not cached (%s: %s)", namespace, problem, type(e).__name__, e)
        return None


def _keys(CacheKey, backend_hash, configs_hash, namespace, problem, candidates, space,
          backend_extra):
    backend = backend_hash(backend_extra)
    by_set = CacheKey(namespace, problem, configs_hash(choice_to_json(c) for c in candidates), backend)
    by_space = None
    if space is not None:
        by_space = CacheKey(namespace, problem, configs_hash([{"space": space.signature()}]), backend)
    return by_set, by_space


def _cache():
    from tuner.cache import get_cache
    return get_cache()


def _cache_lookup(keys, candidates, space, *, candidates_only: bool, namespace: str = "",
                  problem: str = "") -> Decision | None:
    if keys is None:
        return None
    by_set, by_space = keys
    try:
        cache = _cache()
    except Exception as e:
        log.warning("tuning cache unavailable (%s: %s); tuning without it", type(e).__name__, e)
        return None
    lookups = [(by_set, "set")] + ([(by_space, "space")] if by_space is not None else [])
    lookup = getattr(cache, "lookup", None)
    record = getattr(cache, "record", None)
    for key, kind in lookups:
        # the cache counts a record that parse_record refuses (or raises on) as rejected,
        # and copies a remote one locally only when it was accepted
        check = functools.partial(parse_record, candidates=candidates, space=space,
                                  expected_hash=key.configs_hash, kind=kind,
                                  candidates_only=candidates_only, namespace=namespace,
                                  problem=problem)
        layer = None
        try:
            d, layer = lookup(key, check) if lookup is not None else (cache.get(key, check), "")
        except Exception as e:  # the cache contract says it never raises; be safe anyway
            log.debug("cache get failed: %s", e)
            d = None
        if d is not None:
            d.cache_key, d.cache_layer = key, layer or ""
            if record is not None and not _quiet_now():
                record(namespace, **{f"hits_{layer or 'local'}": 1, "saved_s": d.saved_seconds})
            return d
    if record is not None and getattr(cache, "enabled", True) and not _quiet_now():
        record(namespace, misses=1)
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
                 expected_hash: str, kind: str, *, candidates_only: bool = False,
                 namespace: str = "", problem: str = "") -> Decision | None:
    """A cached decision record as a Decision, or None when it is garbled or does not fit
    (never raises). candidates_only: the point searches its candidates only (exhaustive), so
    a config of the space that is not a candidate does not fit either."""
    try:
        return _parse_record(value, candidates, space, expected_hash, kind, candidates_only,
                             namespace, problem)
    except Exception as e:  # Rejected, or anything a hostile record provokes
        log.debug("cache record rejected: %s: %s", type(e).__name__, e)
        return None


def _parse_record(value, candidates, space, expected_hash, kind, candidates_only, namespace,
                  problem) -> Decision:
    if not isinstance(value, dict) or value.get("version") != RECORD_VERSION:
        raise Rejected("not a decision record of this version")
    if set(value) != RECORD_KEYS:
        raise Rejected(f"record fields {sorted(value)}")
    if value["configs_hash"] != expected_hash:
        raise Rejected("recorded for another candidate set")
    found_by = value["found_by"]
    if found_by not in SOURCES:
        raise Rejected(f"found_by {found_by!r}")
    if kind == "space" and (found_by != "coordinate_descent" or space is None
                            or value["space"] != space.signature()):
        raise Rejected("not a coordinate-descent answer over this space")
    if _was_discarded(namespace, problem, value["choice"]):
        raise Rejected("it failed to launch earlier in this process")
    choice = checked_choice(value["choice"], candidates, space, candidates_only=candidates_only)
    timings = value["timings"]
    if not isinstance(timings, list) or len(timings) > MAX_TIMINGS:
        raise Rejected("timings are not a list of measurements")
    parsed = []
    for item in timings:
        if not isinstance(item, list) or len(item) != 2:
            raise Rejected("a timing is not a [choice, ms] pair")
        parsed.append((choice_from_json(item[0]), _ms(item[1])))
    time_ms = _ms(value["time_ms"])
    if found_by == "heuristic":   # an answer stored unmeasured (decide's store_heuristic)
        if settings.heuristics != "use":
            raise Rejected("a heuristic's answer, and heuristics are off")
        time_ms = None
    elif not math.isfinite(time_ms):
        raise Rejected("no time")
    default = value["default_time_ms"]
    saved = value["tuning_seconds"]   # informative only: an odd value saves nothing
    saved = float(saved) if isinstance(saved, (int, float)) and not isinstance(saved, bool) \
        and 0 <= saved <= MAX_TIME_MS / 1e3 else 0.0
    return Decision(choice, time_ms, None if default is None else _ms(default), "cache",
                    parsed, 0.0, found_by=found_by, n_measured=0, saved_seconds=saved)


# --------------------------------------------------------------------------------------------
# Data collection and the report


def _collect(namespace: str, features: dict | None, d: Decision) -> None:
    try:
        from tuner.collect import record_decision
    except ImportError as e:
        log.debug("collect mode: no dataset writer (%s); decision not recorded", e)
        return
    try:
        record_decision(namespace, dict(features), d)
    except Exception as e:  # collecting data must never break a compile
        log.warning("collect mode: recording the decision failed: %s: %s", type(e).__name__, e)
