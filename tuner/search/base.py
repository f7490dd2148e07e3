"""What every strategy shares: the result type and the memo that times each config once."""
from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

log = logging.getLogger("tuner.search")
INF = float("inf")
_noted = threading.local()   # the failure a measurement noted before it returned inf


def first_line(error: BaseException, limit: int = 160) -> str:
    """`Type: first line of the message`, shortened: what a report shows for a failure."""
    text = (str(error).strip().splitlines() or [""])[0]
    text = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def note_failure(error: BaseException | str) -> None:
    """Record why the measurement running on this thread failed, for a `measure` that catches
    the exception and returns inf (bench.benchmark notes every exception it lets through)."""
    _noted.reason = error if isinstance(error, str) else first_line(error)


@dataclass
class SearchResult:
    best: Any                 # the winner (a Config or a plain choice); None when nothing was tried
    best_time: float          # its time in ms (inf when every candidate failed)
    timings: dict = field(default_factory=dict)   # candidate -> ms, every one measured
    n_measured: int = 0       # calls to measure (the memo never repeats one)
    elapsed_s: float = 0.0    # wall time of the search, measurement included
    strategy: str = ""
    stopped_early: bool = False   # a budget ran out before the strategy finished
    errors: dict = field(default_factory=dict)    # failed candidate -> why (first line)

    def ranked(self) -> list[tuple[Any, float]]:
        """Timings fastest first (failed candidates last)."""
        return sorted(self.timings.items(), key=lambda kv: (kv[1], str(kv[0])))


class Memo:
    """Times each candidate at most once; a failure (exception, inf, nan, negative) is inf.

    Measurement order is kept in `timings`, so tests and reports can read what was tried.
    """

    def __init__(self, measure: Callable[[Any], float]):
        self._measure = measure
        self.timings: dict[Hashable, float] = {}
        self.errors: dict[Hashable, str] = {}   # failed candidate -> why (first line)

    def __call__(self, candidate) -> float:
        if candidate in self.timings:
            return self.timings[candidate]
        _noted.reason = None
        why = None
        try:
            ms = float(self._measure(candidate))
        except Exception as e:  # a bad config must never stop tuning
            # budget exhaustion is control flow, not a failed config; a bad TUNER_* setting
            # would fail every candidate alike: it is the user's to see
            from tuner.search.budgeted import BudgetExhausted
            from tuner.settings import SettingError
            if isinstance(e, (BudgetExhausted, SettingError)):
                raise
            log.debug("candidate %s failed: %s: %s", candidate, type(e).__name__, e)
            ms, why = INF, first_line(e)
        if math.isnan(ms) or ms < 0:
            why = why or f"measured {ms}"
            ms = INF
        if ms == INF:
            self.errors[candidate] = why or getattr(_noted, "reason", None) or "no time (inf)"
        self.timings[candidate] = ms
        return ms

    @property
    def n_measured(self) -> int:
        return len(self.timings)

    def best(self) -> tuple[Any, float]:
        if not self.timings:
            return None, INF
        # the first measured among equals wins: the caller's order is a preference order
        best = min(self.timings, key=lambda c: self.timings[c])
        return best, self.timings[best]

    def result(self, strategy: str, start: float, clock: Callable[[], float] = time.perf_counter
               ) -> SearchResult:
        best, t = self.best()
        return SearchResult(best, t, dict(self.timings), self.n_measured, clock() - start, strategy,
                            errors=dict(self.errors))
