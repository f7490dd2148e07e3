"""`tuner learn`, stages 2 and 3: fit regression trees over a grid of hyper-parameters and
decide when each answers (leaf agreement with a margin, per-choice validation thresholds);
pick the best model."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tuner.heuristics.problems import Problems
from tuner.heuristics.recipe import DEFAULT_CLIP


def decisions(scores: np.ndarray, log_thresholds) -> np.ndarray:
    """+1 = second choice, -1 = first choice, 0 = unsure (same rule as two_way_choice).
    log_thresholds: (for the second choice, for the first) or one number for both."""
    pos, neg = (log_thresholds, log_thresholds) if np.isscalar(log_thresholds) else log_thresholds
    out = np.zeros(len(scores), dtype=np.int8)
    out[(scores > 0) & (scores >= pos)] = 1
    out[(scores < 0) & (-scores >= neg)] = -1
    return out


def _outcome(dec: np.ndarray, times: np.ndarray, tolerance: float):
    """(wrong mask, chosen/other time ratio) of decisions on measured times."""
    chosen = np.where(dec > 0, times[:, 1], times[:, 0])
    other = np.where(dec > 0, times[:, 0], times[:, 1])
    wrong = (dec != 0) & (chosen > other * (1.0 + tolerance))
    return wrong, chosen / other


def evaluate(scores, times, log_thresholds, tolerance: float = 0.0) -> dict:
    """correct / wrong (slower than the other choice by more than `tolerance`) / unsure;
    max_wrong_speedup: the largest loss of any answer, within the tolerance or not (NaN if
    no answer lost anything); gmean_wrong_speedup: over the wrong answers."""
    dec = decisions(scores, log_thresholds)
    wrong, ratio = _outcome(dec, times, tolerance)
    answered = dec != 0
    lost = ratio[answered & (ratio > 1.0)]
    w = ratio[wrong]
    return {"correct": int((answered & ~wrong).sum()), "wrong": int(wrong.sum()),
            "unsure": int((~answered).sum()), "total": int(len(scores)),
            "max_wrong_speedup": float(lost.max()) if len(lost) else math.nan,
            "gmean_wrong_speedup": float(np.exp(np.log(w).mean())) if len(w) else math.nan}


def pick_threshold(scores: np.ndarray, times: np.ndarray, tolerance: float = 0.0, side: int = 0) -> float:
    """Smallest log-threshold with no wrong answer on these (validation) problems; side=+1
    or -1 looks only at answers of the second / first choice (per-choice thresholds)."""
    dec = decisions(scores, 0.0)
    if side:
        dec = np.where(dec == side, dec, 0).astype(np.int8)
    wrong, _ = _outcome(dec, times, tolerance)
    mags = np.abs(scores[dec != 0])
    if not wrong.any():
        return 0.0
    worst = np.abs(scores[wrong]).max()
    above = mags[mags > worst]
    return float(above.min()) if len(above) else math.inf


def pick_thresholds(scores, times, tolerance: float = 0.0, per_choice: bool = True) -> tuple[float, float]:
    """(log-threshold for the second choice, for the first)."""
    if not per_choice:
        t = pick_threshold(scores, times, tolerance)
        return t, t
    return pick_threshold(scores, times, tolerance, 1), pick_threshold(scores, times, tolerance, -1)


def leaf_values(tree, X: np.ndarray, y: np.ndarray, agreement: bool = True,
                margin: float = 0.0, default_tie: float | None = None) -> np.ndarray:
    """Per tree node, the score its leaf answers (the leaf's mean clipped target), or 0.0
    ("unsure") where the leaf's training problems (y: their true log speedups) cannot vouch
    for it: unless every training problem in the leaf was won by the leaf's choice by more than
    `margin` (a fraction). A leaf of near-ties stays silent even though either answer would
    have been right there. agreement=False: every leaf answers.

    default_tie (a fraction, or None): the first choice is the point's default, the one that
    costs nothing to take (the ATen call: no template to compile and measure), so a leaf of
    near-ties may answer it: where no training problem in the leaf was won by the second
    choice by more than `default_tie`, the leaf answers the first choice. Its score is minus
    the leaf's headroom, log(1 + default_tie) - (the second choice's best log speedup in it),
    at least 1e-6: the validation threshold of the first choice silences the leaves with the
    least headroom first (and, past them, the first choice's agreeing leaves of smaller
    score). A leaf that agrees under `margin` keeps its answer: with default_tie above margin,
    a leaf the second choice won by more than both still answers the second choice."""
    values = tree.tree_.value[:, 0, 0].astype(np.float64).copy()
    if not agreement:
        return values
    n = tree.tree_.node_count
    leaves = tree.apply(X)
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    np.minimum.at(lo, leaves, y)
    np.maximum.at(hi, leaves, y)
    low = math.log1p(margin)
    agree = ((lo >= low) & (values > 0)) | ((hi <= -low) & (values < 0))
    out = np.where(agree, values, 0.0)
    if default_tie is not None:
        tie = math.log1p(default_tie)
        ties = ~agree & (hi <= tie) & np.isfinite(hi)
        out = np.where(ties, -np.maximum(tie - hi, 1e-6), out)
    return out


def leaf_ranges(tree, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per tree node, each feature's smallest and largest value over the problems of X (the
    training problems, float32) that reach it; +inf / -inf where none does. A leaf answers
    only inside them: a tree splits on few features, and a problem unlike every one its leaf
    learned from (BERT's attention bmm over 96 heads, where the data's batches stop at 64) is
    not vouched for by them."""
    n = tree.tree_.node_count
    leaves = tree.apply(X)
    lo = np.full((n, X.shape[1]), np.inf)
    hi = np.full((n, X.shape[1]), -np.inf)
    np.minimum.at(lo, leaves, X)
    np.maximum.at(hi, leaves, X)
    return lo, hi


@dataclass
class Model:
    max_depth: int
    min_samples_leaf: int
    tree: object
    values: np.ndarray           # per node: what a leaf answers (0.0 = unsure)
    log_thresholds: tuple        # (second choice, first choice)
    rows: dict                   # dataset -> evaluation dict
    ranges: tuple | None = None  # (lo, hi) per node and feature (leaf_ranges); None: unbounded

    def scores(self, X: np.ndarray) -> np.ndarray:
        """The score of each problem's leaf (0.0 where the leaf is unsure or the problem lies
        outside the leaf's training ranges); inputs rounded to float32 as the tree saw them."""
        X32 = X.astype(np.float32)
        leaf = self.tree.apply(X32)
        out = self.values[leaf]
        if self.ranges is not None:
            lo, hi = self.ranges
            inside = ((X32 >= lo[leaf]) & (X32 <= hi[leaf])).all(axis=1)
            out = np.where(inside, out, 0.0)
        return out

    @property
    def n_leaves(self) -> int:
        return int(self.tree.get_n_leaves())

    @property
    def answering_leaves(self) -> int:
        t = self.tree.tree_
        return int(((t.children_left == -1) & (self.values != 0)).sum())


def fit_grid(p: Problems, parts: dict, depths, leaves, tolerance: float, seed: int, *,
             clip: float = DEFAULT_CLIP, agreement: bool = True, per_choice: bool = True,
             leaf_margin: float = 0.0, default_tie: float | None = None, ranges: bool = False,
             open_above=(), open_below=(), progress=None) -> list[Model]:
    """One model per (depth, leaf) grid point: the tree, its leaf agreement (leaf_values),
    with `ranges` each leaf's training ranges (leaf_ranges), and each choice's threshold, the
    smallest with no wrong validation answer. open_above (feature names, with ranges): a leaf
    answering the first choice (the free default) has no upper bound along these (sizes: a
    problem larger than its leaf's still gets the default; see learn.py); open_below: no
    lower bound along these (features that shrink as a problem grows)."""
    from sklearn.tree import DecisionTreeRegressor

    y = p.target
    yc = np.clip(y, -math.log(clip), math.log(clip)) if clip and math.isfinite(clip) else y
    tr = parts["train"]
    X32 = p.X.astype(np.float32)
    above = np.isin(p.features, list(open_above))
    below = np.isin(p.features, list(open_below))
    models = []
    for d in depths:
        for leaf in leaves:
            tree = DecisionTreeRegressor(max_depth=d, min_samples_leaf=leaf, random_state=seed)
            tree.fit(p.X[tr], yc[tr])
            values = leaf_values(tree, X32[tr], y[tr], agreement, leaf_margin, default_tie)
            bounds = leaf_ranges(tree, X32[tr]) if ranges else None
            if bounds is not None:
                first = values < 0          # the leaves that answer the first choice
                bounds[1][np.ix_(first, above)] = np.inf
                bounds[0][np.ix_(first, below)] = -np.inf
            m = Model(d, leaf, tree, values, (0.0, 0.0), {}, bounds)
            scores = {k: m.scores(p.X[idx]) for k, idx in parts.items()}
            m.log_thresholds = pick_thresholds(scores["val"], p.times[parts["val"]], tolerance, per_choice)
            m.rows = {k: evaluate(scores[k], p.times[parts[k]], m.log_thresholds, tolerance) for k in parts}
            models.append(m)
            if progress:
                progress()
    return models


def best_model(models: list[Model]) -> Model:
    """Most correct on validation; then the smaller tree (fewer leaves), then shallower."""
    return max(models, key=lambda m: (m.rows["val"]["correct"], -m.n_leaves, -m.max_depth))
