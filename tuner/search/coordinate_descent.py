"""Coordinate descent: from good starts, move one field at a time while that is faster.

One descent starts from a config and, for each tunable field in turn, tries the neighbours of
the current best within the field's radius (block sizes and warps x2 or /2, stages +-1); a
neighbour replaces the best only when it is faster by more than `threshold` (relative), which
keeps noise from walking the search around. Sweeps repeat until one improves nothing. Then,
optionally, every joint move of all fields at once around the local optimum is tried
(`check_all_directions`, the reference tuner's check) or only the moves of two fields at once
(`check_pairs`, cheap): coupled fields (a tile and the pipeline depth that fits in shared
memory; rows and chunk under a register cap) often improve only together.

Three things make it robust on real timing landscapes, where one local optimum of one start
is often a few percent off:
- `starts`: descents run from the k fastest initial candidates, not only the fastest
  (the best start is rarely in the best basin by a wide margin);
- `plateau`: a measured config within this relative distance of the best is a tie within
  noise; descents also run from such ties (the fastest first, at most `max_plateau_walks`,
  since on a flat landscape everything ties), so a flat stretch does not end the search;
- each descent expands a config at most once and every timing is memoised, so the extra
  starts cost only the configs they newly reach.

`prepare(configs)` (optional) is called before timing with the configs about to be measured
for the first time, so the caller can compile them in parallel: the initial candidates, then
at the start of each sweep every neighbour of the current best (what the sweep measures if
the best does not move), then any neighbour a move brought in, then the joint moves. Each
config is passed at most once. Only configs the space allows are ever tried.
"""
from __future__ import annotations

import itertools
import time
from typing import Any, Callable, Iterable, Mapping

from tuner.search.base import INF, Memo, SearchResult, log
from tuner.space import Config, ConfigSpace

# Fields whose steps are cheap to take two at a time: block sizes span many powers of two,
# so a radius of 2 jumps over a one-step dip; warps and stages have few values.
LAUNCH_RADIUS_FIELDS = ("num_warps", "num_stages")


def coordinate_descent(space: ConfigSpace, measure: Callable[[Config], float], *,
                       initial: Iterable[Config] | Config | None = None,
                       radius: int | Mapping[str, int] = 1, block_radius: int | None = None,
                       threshold: float = 0.001, starts: int = 1, plateau: float = 0.01,
                       max_plateau_walks: int = 4,
                       check_all_directions: bool = True, check_pairs: bool = False,
                       max_sweeps: int = 100, prepare: Callable[[list], Any] | None = None,
                       clock: Callable[[], float] = time.perf_counter,
                       memo: Memo | None = None) -> SearchResult:
    """See the module docstring.

    radius: steps per field (an int for all, or field -> steps); block_radius overrides it
        for the block-size fields (everything but num_warps/num_stages).
    starts: descend from this many of the fastest initial candidates.
    plateau: also descend from measured configs within this relative distance of the best.
    """
    if space is None:
        raise ValueError("coordinate descent needs a ConfigSpace")
    if starts < 1:
        raise ValueError(f"starts must be >= 1, got {starts}")
    start_clock = clock()
    memo = memo or Memo(measure)
    if initial is None:
        initial = space.default_candidates()
    elif isinstance(initial, Config):
        initial = [initial]
    initial = list(initial)
    if not initial:
        raise ValueError("coordinate descent needs at least one initial config")
    fields = space.tunable_fields
    radii = _radii(fields, radius, block_radius)

    sent: set[Config] = set()   # each config goes to prepare at most once

    def prepared(cands: list[Config]) -> list[Config]:
        if prepare is not None:
            fresh = [c for c in dict.fromkeys(cands) if c not in memo.timings and c not in sent]
            sent.update(fresh)
            if fresh:
                try:
                    prepare(fresh)
                except Exception as e:  # a compile failure shows again, per config, as inf
                    log.debug("prepare failed: %s", e)
        return cands

    for cand in prepared(initial):
        memo(cand)
    if not fields:  # e.g. every size hint is 1: nothing to try
        return memo.result("coordinate_descent", start_clock, clock)

    def faster(t: float, than: float) -> bool:
        if than == INF:
            return t < INF
        return t < than * (1.0 - threshold)

    def neighbours(config: Config) -> list[Config]:
        return [c for name in fields for c in space.neighbours(config, name, radii[name])]

    expanded: set[Config] = set()   # starts of descents and the optima they reached

    def descend(best: Config) -> Config:
        expanded.add(best)  # never descend from the same config twice
        best_time = memo(best)
        for sweep in range(max_sweeps):
            improved = False
            # compile what this sweep measures if the best does not move, all at once
            prepared(neighbours(best))
            for name in fields:
                # neighbours of the best at the start of this field's turn; the best may
                # move several steps along the field within one turn when the radius allows
                for cand in prepared(space.neighbours(best, name, radii[name])):
                    t = memo(cand)
                    if faster(t, best_time):
                        best, best_time, improved = cand, t, True
            if not improved:
                expanded.add(best)
                joint = _joint_moves(space, best, fields, radii, check_all_directions,
                                     check_pairs)
                for cand in prepared(joint):
                    t = memo(cand)
                    if faster(t, best_time):
                        best, best_time, improved = cand, t, True
            if not improved:
                break
            log.debug("coordinate descent sweep %d: %s %.4f ms", sweep, best, best_time)
        expanded.add(best)
        return best

    # the k fastest distinct starts, in the caller's order among equals
    ranked = sorted(dict.fromkeys(initial), key=lambda c: memo(c))
    queue = [c for c in ranked if memo(c) < INF][:starts] or ranked[:1]
    optima: list[Config] = []
    plateau_walks = 0
    while queue:
        point = queue.pop(0)
        if point in expanded:
            continue
        optima.append(descend(point))
        if plateau > 0 and plateau_walks < max_plateau_walks:
            ties = _plateau_points(memo, expanded, plateau)
            if ties:
                plateau_walks += 1
                queue = ties[:1] + queue

    result = memo.result("coordinate_descent", start_clock, clock)
    # the winner is an accepted local optimum, not merely the fastest noise-level neighbour:
    # among the optima, a later one must beat an earlier one by more than the threshold
    best = optima[0]
    for other in optima[1:]:
        if faster(memo(other), memo(best)):
            best = other
    result.best, result.best_time = best, memo(best)
    return result


def _radii(fields: list[str], radius: int | Mapping[str, int], block_radius: int | None
           ) -> dict[str, int]:
    out = {}
    for name in fields:
        r = radius.get(name, 1) if isinstance(radius, Mapping) else radius
        if block_radius is not None and name not in LAUNCH_RADIUS_FIELDS:
            r = block_radius
        if r < 1:
            raise ValueError(f"radius of {name} must be >= 1, got {r}")
        out[name] = r
    return out


def _joint_moves(space, best, fields, radii, all_directions: bool, pairs: bool) -> list[Config]:
    if all_directions:
        return space.joint_neighbours(best, max(radii.values()))
    if not pairs:
        return []
    out = []
    for a, b in itertools.combinations(fields, 2):
        for va in space.fields[a].steps(best[a], 1):
            for vb in space.fields[b].steps(best[b], 1):
                cand = best.replace(**{a: va, b: vb})
                if space.valid(cand):
                    out.append(cand)
    return out


def _plateau_points(memo: Memo, expanded: set, plateau: float) -> list[Config]:
    """Measured, unexpanded configs that tie with the best within the plateau, fastest first."""
    _, best_time = memo.best()
    if best_time == INF:
        return []
    limit = best_time * (1.0 + plateau)
    ties = [c for c, t in memo.timings.items() if t <= limit and c not in expanded]
    return sorted(ties, key=lambda c: memo.timings[c])
