"""Exhaustive search: measure every candidate, keep the fastest."""
from __future__ import annotations

import time
from typing import Any, Callable, Iterable

from tuner.search.base import Memo, SearchResult, log


def exhaustive(space, measure: Callable[[Any], float], *, initial: Iterable[Any] | None = None,
               prepare: Callable[[list], Any] | None = None,
               clock: Callable[[], float] = time.perf_counter, memo: Memo | None = None
               ) -> SearchResult:
    """Measure each of `initial` (default: every config of `space`) once, in order.

    `space` may be None when the candidates are plain choices (for example "pad"/"orig").
    `prepare(candidates)` runs once before any timing (the caller compiles them in parallel).
    """
    start = clock()
    if initial is None:
        if space is None:
            raise ValueError("exhaustive search needs candidates (initial=) or a space")
        initial = space.all_configs()
    memo = memo or Memo(measure)
    initial = list(initial)
    if prepare is not None:
        fresh = [c for c in initial if c not in memo.timings]
        try:
            prepare(fresh)
        except Exception as e:  # a compile failure shows again, per candidate, as inf
            log.debug("prepare failed: %s", e)
    for candidate in initial:
        memo(candidate)
    return memo.result("exhaustive", start, clock)
