"""The small interface every generated heuristic module imports (standard library only).

A generated module defines PRECONDITION (which point, GPU and feature schema it was learned
for), FEATURES, CHOICES, DERIVED (features computed from the context's, as expressions),
DOMAIN, optionally RANGES (each answering leaf's training ranges), per-choice log
thresholds, `score(f)` (the regression tree as nested ifs) and
`decide(features) -> choice | None`. None means "unsure": the caller autotunes.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass

_F32 = struct.Struct("<f")
_F32_MAX = 3.4028234663852886e38


def as_float32(x) -> float:
    """x rounded to float32, as scikit-learn's trees see their inputs: comparing the rounded
    value with the tree's float64 thresholds reproduces the tree's answer exactly."""
    x = float(x)
    if math.isnan(x):
        return x
    if abs(x) > _F32_MAX:   # beyond float32 range sklearn's cast gives +-inf
        return math.copysign(math.inf, x)
    return _F32.unpack(_F32.pack(x))[0]


def two_way_choice(score: float, log_threshold: float, positive: str, negative: str,
                   log_threshold_negative: float | None = None):
    """score = predicted log(time(negative) / time(positive)). Answer `positive` only when the
    predicted speedup is at least exp(log_threshold), `negative` when it is at least
    exp(log_threshold_negative) (the same threshold if None); a score of exactly 0 (a leaf
    that is unsure) is never an answer."""
    if log_threshold_negative is None:
        log_threshold_negative = log_threshold
    if score > 0 and score >= log_threshold:
        return positive
    if score < 0 and -score >= log_threshold_negative:
        return negative
    return None


_NO_BUILTINS = {"__builtins__": {}}


def derive_features(features: dict, raw: tuple, derived: tuple) -> dict:
    """The raw features as floats plus derived ones, each (name, expression) evaluated in
    order over the values before it. Training and generated modules both call this, so a
    derived value is bit-for-bit the same in both. Expressions are the package's own
    literals (contexts.py, copied into a module), never outside input."""
    env = {name: float(features[name]) for name in raw}
    for name, expr in derived:
        env[name] = float(eval(_compiled(expr), _NO_BUILTINS, env))  # noqa: S307 - own literals
    return env


_CODE: dict = {}


def _compiled(expr: str):
    code = _CODE.get(expr)
    if code is None:
        code = _CODE[expr] = compile(expr, "<derived feature>", "eval")
    return code


def inside(f: dict, names: tuple, bounds: tuple) -> bool:
    """Whether bounds[0][i] <= f[names[i]] <= bounds[1][i] for every i (bounds closed): a
    leaf's training ranges (a generated module's RANGES)."""
    lo, hi = bounds
    return all(a <= f[n] <= b for n, a, b in zip(names, lo, hi))


def in_domain(features: dict, domain: dict) -> bool:
    """Every feature named in `domain` is at least its minimum (e.g. {"m": 512, ...})."""
    return all(float(features[name]) >= low for name, low in domain.items())


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    capability: tuple[int, int]
    shared_memory: int


@dataclass(frozen=True)
class Precondition:
    """What must hold for a generated module to answer: same point, same GPU generation
    (compute capability and shared memory per block) and the same feature schema."""
    point: str
    capability: tuple[int, int]
    shared_memory: int
    feature_schema: int
    gpu_name: str = ""          # informative only: boards of one generation share a module

    def matches(self, point: str, device: DeviceInfo | None, feature_schema: int) -> bool:
        return (device is not None and point == self.point
                and tuple(device.capability) == tuple(self.capability)
                and device.shared_memory == self.shared_memory
                and feature_schema == self.feature_schema)
