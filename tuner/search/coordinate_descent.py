"""Coordinate descent: from a good start, move one field at a time while that is faster.

Start from the best of the initial candidates (or a heuristic's config). For each tunable
field, try the neighbours of the current best within `radius` steps (block sizes and warps x2
or /2, stages +-1); a neighbour replaces the best only when it is faster by more than
`threshold` (relative), which keeps noise from walking the search around. Sweep the fields
until a sweep improves nothing; then, optionally, try every joint move of all fields at once
around the local optimum and continue if one wins. Every timing is memoised, so no config is
measured twice; only configs the space allows are ever tried.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Iterable

from tuner.search.base import INF, Memo, SearchResult, log
from tuner.space import Config


def coordinate_descent(space, measure: Callable[[Config], float], *,
                       initial: Iterable[Config] | Config | None = None, radius: int = 1,
                       threshold: float = 0.001, check_all_directions: bool = False,
                       max_sweeps: int = 100, clock: Callable[[], float] = time.perf_counter,
                       memo: Memo | None = None) -> SearchResult:
    if space is None:
        raise ValueError("coordinate descent needs a ConfigSpace")
    start = clock()
    memo = memo or Memo(measure)
    if initial is None:
        initial = space.default_candidates()
    elif isinstance(initial, Config):
        initial = [initial]
    initial = list(initial)
    if not initial:
        raise ValueError("coordinate descent needs at least one initial config")
    for cand in initial:
        memo(cand)
    best, best_time = memo.best()
    fields = space.tunable_fields
    if not fields:  # e.g. every size hint is 1: nothing to try
        return memo.result("coordinate_descent", start, clock)

    def better(t: float) -> bool:
        if best_time == INF:
            return t < INF
        return t < best_time * (1.0 - threshold)

    for sweep in range(max_sweeps):
        improved = False
        for name in fields:
            # neighbours of the best at the start of this field's turn; the best may move
            # several steps along the field within one turn when the radius allows it
            for cand in space.neighbours(best, name, radius):
                t = memo(cand)
                if better(t):
                    best, best_time, improved = cand, t, True
        if not improved and check_all_directions:
            for cand in space.joint_neighbours(best, radius):
                t = memo(cand)
                if better(t):
                    best, best_time, improved = cand, t, True
        if not improved:
            break
        log.debug("coordinate descent sweep %d: %s %.4f ms", sweep, best, best_time)

    result = memo.result("coordinate_descent", start, clock)
    # the winner is the accepted best, not merely the fastest noise-level neighbour
    result.best, result.best_time = best, best_time
    return result
