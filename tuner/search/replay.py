"""Replay: drive any search strategy with recorded timings instead of a GPU.

A benchmark sweep (the former scripts/bench_search.py, see docs/PERF_NOTES.md) recorded the
time of every config of a space on a real GPU. `RecordedTimings` turns such a table into a
`measure(config) -> ms`: a config that was not recorded, or that failed when it was, scores
inf. A strategy replayed over the table makes exactly the choices it would have made on that
GPU (up to the noise of one recording), so strategies can be compared and regression-tested
on the CPU in milliseconds: the idea of KernelTuner's simulation mode.

`load_recorded(path)` reads a bench_search result: per kernel the space (its spec and device
limits, when the file records them), the starting candidates and the exhaustive timings.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from tuner.search.base import INF, SearchResult
from tuner.space import Config, ConfigSpace, DeviceLimits


class RecordedTimings:
    """`measure` over a recorded table: config -> ms; missing, None, nan or inf -> inf.

    `calls` lists every config asked for, in order; `unrecorded` those not in the table
    (a search that stays inside the recorded space never asks for one).
    """

    def __init__(self, table: Mapping[Config, float | None]):
        self.table = {c: _ms(t) for c, t in table.items()}
        self.calls: list[Config] = []
        self.unrecorded: list[Config] = []

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str | Config, float | None]]) -> "RecordedTimings":
        """From [["XBLOCK=64,num_warps=4,num_stages=1", 0.051], ...] as bench JSON stores it."""
        return cls({c if isinstance(c, Config) else Config.parse(c): t for c, t in pairs})

    def __call__(self, config: Config) -> float:
        self.calls.append(config)
        if config not in self.table:
            self.unrecorded.append(config)
            return INF
        return self.table[config]

    def best(self) -> tuple[Config, float]:
        best = min(self.table, key=lambda c: (self.table[c], str(c)))
        return best, self.table[best]


def _ms(t: Any) -> float:
    if t is None:
        return INF
    t = float(t)
    return INF if math.isnan(t) or t < 0 else t


@dataclass
class RecordedKernel:
    """One kernel of a recorded sweep."""

    name: str
    timings: RecordedTimings
    start: list[Config]                  # the initial candidates the live search started from
    space_spec: dict | None = None       # ConfigSpace.from_spec input, when recorded
    device: DeviceLimits | None = None   # the recording GPU's limits, when recorded
    meta: dict = field(default_factory=dict)

    def space(self, spec: Mapping | None = None, device: DeviceLimits | None = None) -> ConfigSpace:
        """The searched space; `spec`/`device` stand in for what an older file did not record.
        Raises ValueError when the space does not hold exactly the recorded configs."""
        spec = self.space_spec or spec
        device = self.device or device
        if spec is None:
            raise ValueError(f"{self.name}: the recording has no space spec; pass one")
        space = ConfigSpace.from_spec(spec, device=device)
        configs = set(space.all_configs())
        if configs != set(self.timings.table):
            raise ValueError(f"{self.name}: the space holds {len(configs)} configs but "
                             f"{len(self.timings.table)} were recorded; wrong spec or device?")
        return space


def load_recorded(path: str | Path) -> tuple[dict, list[RecordedKernel]]:
    """(env of the recording, kernels) from a bench_search JSON file."""
    doc = json.loads(Path(path).read_text())
    if not isinstance(doc, dict) or not isinstance(doc.get("kernels"), list):
        raise ValueError(f"{path}: not a bench_search result (no 'kernels' list)")
    limits = doc.get("device_limits")
    device = DeviceLimits.from_json(limits) if limits else None
    kernels = []
    for k in doc["kernels"]:
        try:
            pairs = k["exhaustive"]["timings"]
            start = [Config.parse(c) for c in k["coordinate_descent"]["start"]]
        except (KeyError, TypeError) as e:
            raise ValueError(f"{path}: kernel {k.get('kernel')!r} lacks recorded timings "
                             f"({e})") from None
        kernels.append(RecordedKernel(k["kernel"], RecordedTimings.from_pairs(pairs), start,
                                      k.get("space_spec"), device,
                                      {"space_size": k.get("space_size")}))
    return doc.get("env", {}), kernels


@dataclass
class Replayed:
    """What a replayed search found, against the recorded exhaustive best."""

    kernel: str
    result: SearchResult
    best_time: float            # the recorded time of the search's winner
    exhaustive_best: Config
    exhaustive_time: float
    space_size: int
    unrecorded: list = field(default_factory=list)   # configs asked for but not recorded

    @property
    def quality(self) -> float:
        """winner time / exhaustive best time (1.0 = found the best)."""
        return self.best_time / self.exhaustive_time

    @property
    def fraction(self) -> float:
        """share of the space measured."""
        return self.result.n_measured / max(1, self.space_size)


def replay(kernel: RecordedKernel, strategy: Callable[..., SearchResult], *,
           space: ConfigSpace | None = None, initial: list | None = None, **options) -> Replayed:
    """Run `strategy` over the kernel's space with its recorded timings as `measure`."""
    space = space or kernel.space()
    measure = RecordedTimings(kernel.timings.table)
    result = strategy(space, measure, initial=kernel.start if initial is None else initial,
                      **options)
    best, best_time = kernel.timings.best()
    chosen = kernel.timings.table.get(result.best, INF)
    return Replayed(kernel.name, result, chosen, best, best_time, len(kernel.timings.table),
                    measure.unrecorded)
