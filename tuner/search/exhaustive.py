"""Exhaustive search: measure every candidate, keep the fastest."""
from __future__ import annotations

import time
from typing import Any, Callable, Iterable

from tuner.search.base import Memo, SearchResult


def exhaustive(space, measure: Callable[[Any], float], *, initial: Iterable[Any] | None = None,
               clock: Callable[[], float] = time.perf_counter, memo: Memo | None = None
               ) -> SearchResult:
    """Measure each of `initial` (default: every config of `space`) once, in order.

    `space` may be None when the candidates are plain choices (for example "pad"/"orig").
    """
    start = clock()
    if initial is None:
        if space is None:
            raise ValueError("exhaustive search needs candidates (initial=) or a space")
        initial = space.all_configs()
    memo = memo or Memo(measure)
    for candidate in initial:
        memo(candidate)
    return memo.result("exhaustive", start, clock)
