"""`tuner learn`, stage 1: datasets -> problems (one row per problem, every choice's time) and
the seeded train/validation/test split."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from tuner.heuristics.dataset import Dataset
from tuner.heuristics.interface import derive_features
from tuner.heuristics.recipe import BASE_COLUMNS


def table_columns(choices) -> tuple[str, ...]:
    """The evaluation table's columns: one threshold per choice (second choice first)."""
    a, b = choices
    return BASE_COLUMNS + (f"threshold_{b}", f"threshold_{a}")


class LearnError(ValueError):
    """Input that cannot be learned from; the message says why."""


@dataclass
class Problems:
    """One row per problem: features (raw, then derived), the time of each of the two
    choices, bench cost."""
    ids: list[str]
    X: np.ndarray               # (n, features) float64
    times: np.ndarray           # (n, 2): time of choices[0], choices[1]
    bench_s: np.ndarray         # (n,) seconds one measurement of all choices took (nan if unknown)
    features: list[str]         # raw + derived names, the columns of X
    choices: tuple[str, str]
    dropped: dict = field(default_factory=dict)
    raw_features: list[str] = field(default_factory=list)
    derived: tuple = ()
    domain: dict = field(default_factory=dict)

    @property
    def streams(self) -> np.ndarray:
        """Per problem, the stream it came from (see stream_of)."""
        return np.array([stream_of(i) for i in self.ids], dtype=object)

    @property
    def target(self) -> np.ndarray:
        return np.log(self.times[:, 0] / self.times[:, 1])

    def __len__(self):
        return len(self.ids)


# A focused stream's problem ids are "<focus>-s<seed>-<index>" (datagen.cli.problem_key); the
# default stream's are "s<seed>-<index>". Ids from elsewhere (collect mode) count as default.
_FOCUSED_ID = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)-s\d+-\d+")


def stream_of(problem_id) -> str:
    """The stream a problem was drawn from: its focus name, or "default" (a board prefix of
    files merged across boards, "h200/bare-s1-5", aside)."""
    m = _FOCUSED_ID.fullmatch(str(problem_id).rpartition("/")[2])
    return m.group(1) if m else "default"


def domain_for(features, min_dim: int) -> dict:
    """{"m": min_dim, "k": ..., "n": ...}: the problems a heuristic learns and answers."""
    if min_dim <= 1:
        return {}
    dims = [d for d in ("m", "k", "n") if d in features]
    if not dims:
        raise LearnError(f"--min-dim needs features m, k, n; this dataset has {', '.join(features)}")
    return {d: min_dim for d in dims}


def build_problems(ds: Dataset, *, min_reps: int = 3, max_spread: float = 0.2,
                   derived: tuple = (), min_dim: int = 0) -> Problems:
    choices = list(ds.header.get("choices") or [])
    seen = sorted({r["choice"] for r in ds.rows})
    if len(choices) < 2 or len(seen) < 2:
        raise LearnError(f"only one choice measured ({', '.join(seen or choices) or 'none'}): "
                         "nothing to learn")
    if len(choices) != 2:
        raise LearnError(f"learning supports two-choice points; this one has {len(choices)}: {choices}")
    raw = list(ds.feature_names)
    domain = domain_for(raw, min_dim)
    dropped = {"incomplete": 0, "failed": 0, "few_reps": 0, "noisy": 0}
    if domain:
        dropped["out_of_domain"] = 0
    known = set(raw)
    for name, expr in derived:   # a header lacking a derived feature's input: say which
        missing = sorted(set(compile(expr, "<derived>", "eval").co_names) - known)
        if missing:
            raise LearnError(f"derived feature {name} needs {', '.join(missing)}, which the "
                             "dataset header does not list (pass --raw-features to learn without "
                             "derived features)")
        known.add(name)
    ids, X, T, B = [], [], [], []
    for pid, rows in ds.problems().items():
        by = {r["choice"]: r for r in rows}
        if any(c not in by for c in choices):
            dropped["incomplete"] += 1
            continue
        t = [by[c]["time_ms"] for c in choices]
        if not all(isinstance(x, (int, float)) and math.isfinite(x) and x > 0 for x in t):
            dropped["failed"] += 1
            continue
        if any((by[c].get("reps") or 1) < min_reps for c in choices):
            dropped["few_reps"] += 1
            continue
        spreads = [by[c].get("spread") for c in choices]
        if any(s is not None and s > max_spread for s in spreads):
            dropped["noisy"] += 1
            continue
        row = by[choices[0]]
        bad = [f for f in raw if not isinstance(row[f], (int, float))]
        if bad:
            raise LearnError(f"problem {pid}: non-numeric features {', '.join(bad)}")
        bad = [(f, r[f]) for r in rows for f in raw if not _finite(r[f])]
        if bad:
            raise LearnError(f"problem {pid}: feature {bad[0][0]} = {str(bad[0][1])[:40]} is not a finite number")
        if domain and any(row[d] < low for d, low in domain.items()):
            dropped["out_of_domain"] += 1
            continue
        try:
            values = derive_features(row, tuple(raw), derived)
        except (ArithmeticError, ValueError) as e:
            raise LearnError(f"problem {pid}: a derived feature fails ({type(e).__name__}: {e})") from None
        if not all(math.isfinite(v) for v in values.values()):
            raise LearnError(f"problem {pid}: a derived feature is not finite")
        ids.append(pid)
        X.append(list(values.values()))
        T.append(t)
        B.append(float(row.get("bench_s") or math.nan))
    names = raw + [name for name, _ in derived]
    return Problems(ids, np.array(X, dtype=np.float64).reshape(len(ids), len(names)),
                    np.array(T, dtype=np.float64).reshape(len(ids), 2), np.array(B),
                    names, (choices[0], choices[1]), dropped, raw, tuple(derived), domain)


def _finite(v) -> bool:
    try:
        return math.isfinite(float(v))
    except OverflowError:      # an integer beyond float's range
        return False


def split(n: int, seed: int, fractions=(0.6, 0.2, 0.2)) -> dict[str, np.ndarray]:
    """Seeded split of problem indices (all choices of a problem are one row, so they stay
    together)."""
    perm = np.random.default_rng(seed).permutation(n)
    a = int(round(fractions[0] * n))
    b = a + int(round(fractions[1] * n))
    return {"train": np.sort(perm[:a]), "val": np.sort(perm[a:b]), "test": np.sort(perm[b:])}
