"""Budgeted search: any strategy, stopped after N measurements or T seconds.

The inner strategy (coordinate descent by default, exhaustive without a space) runs until the
budget is spent; the best config measured so far is the answer. The clock is injectable so
tests can spend "seconds" without sleeping.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Iterable

from tuner.search.base import Memo, SearchResult


class BudgetExhausted(Exception):
    """Raised inside the inner search when the next measurement would exceed the budget."""


def budgeted(space, measure: Callable[[Any], float], *, initial: Iterable[Any] | None = None,
             max_measurements: int | None = None, max_seconds: float | None = None,
             strategy: str | Callable | None = None, clock: Callable[[], float] = time.perf_counter,
             **options) -> SearchResult:
    if max_measurements is None and max_seconds is None:
        raise ValueError("budgeted search needs max_measurements or max_seconds")
    if max_measurements is not None and max_measurements < 1:
        raise ValueError(f"max_measurements must be >= 1, got {max_measurements}")
    from tuner.search import get_strategy
    if strategy is None:
        strategy = "coordinate_descent" if space is not None else "exhaustive"
    inner = get_strategy(strategy) if isinstance(strategy, str) else strategy
    start = clock()
    count = 0

    def guarded(candidate):
        nonlocal count
        if max_measurements is not None and count >= max_measurements:
            raise BudgetExhausted
        # the first measurement always runs, so there is always an answer
        if max_seconds is not None and count > 0 and clock() - start >= max_seconds:
            raise BudgetExhausted
        count += 1
        return measure(candidate)

    memo = Memo(guarded)
    try:
        inner(space, guarded, initial=initial, clock=clock, memo=memo, **options)
        exhausted = False
    except BudgetExhausted:
        exhausted = True
    result = memo.result("budgeted", start, clock)
    result.stopped_early = exhausted
    return result
