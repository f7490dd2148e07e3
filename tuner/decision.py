"""A decision of the engine (tuner.engine.decide): the winner, how it was found, its timings,
and the JSON record the cache and datasets store."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from tuner.space import choice_to_json

RECORD_VERSION = 1
SOURCES = ("heuristic", "cache", "exhaustive", "coordinate_descent", "budgeted")
# The source of a decision that measured nothing because its time (max_seconds) was spent:
# the default (candidates[0]) is the answer. Never stored, so never a cached record's found_by.
OVER_BUDGET = "budget"


@dataclass
class Decision:
    choice: Any
    time_ms: float | None              # None when nothing was measured (heuristic)
    default_time_ms: float | None      # time of candidates[0], the initial default
    source: str                        # one of SOURCES, or OVER_BUDGET
    timings: list[tuple[Any, float]] = field(default_factory=list)  # fastest first
    tuning_seconds: float = 0.0
    namespace: str = ""
    problem: str = ""
    found_by: str = ""                 # the search that found it (a cache hit keeps the original)
    n_measured: int = 0                # measurements made for this decision (0 for cache/heuristic)
    cache_key: Any = field(default=None, repr=False, compare=False)  # a cache hit's key
    # why each failed candidate failed (the first line of its error), for the report
    errors: dict = field(default_factory=dict, repr=False, compare=False)
    cache_layer: str = field(default="", compare=False)      # a cache hit's: "local" or "remote"
    # what the heuristic said when it did not answer ("unsure", did not apply and why); ""
    # when none was asked
    heuristic_note: str = field(default="", compare=False)
    saved_seconds: float = field(default=0.0, compare=False)  # a cache hit: the tuning it saved
    # decide(max_seconds=...) ran out: the search stopped with the best so far (or, source
    # OVER_BUDGET, never started); such an answer is not stored
    stopped_early: bool = field(default=False, compare=False)

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
