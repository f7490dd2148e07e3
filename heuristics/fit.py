"""`tuner learn`, stages 2 and 3: fit regression trees over a grid of hyper-parameters and
calibrate when each answers (leaf agreement, per-choice thresholds, optional per-leaf
validation and ensembles); pick the best model."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from tuner.heuristics.problems import (LearnError, Problems)
from tuner.heuristics.recipe import (DEFAULT_CALIBRATION, DEFAULT_CLIP, DEFAULT_ENSEMBLE,
                                     DEFAULT_LEAF_MIN_VAL, DEFAULT_TOLERANCE, LEAF_RULES,
                                     OUTLIER_LOSS)


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
                margin: float = 0.0, rule: str = "margin", tolerance: float = DEFAULT_TOLERANCE,
                min_clear: float = 0.0) -> np.ndarray:
    """Per tree node, the score its leaf answers (the leaf's mean clipped target), or 0.0
    ("unsure") where the leaf's training problems (y: their true log speedups) cannot vouch
    for it. Rules (see LEAF_RULES):

    - "margin": every training problem in the leaf was won by the leaf's choice by more than
      `margin` (a fraction). Safe, but a leaf of near-ties stays silent even though either
      answer would have been right there.
    - "no-loss": no training problem in the leaf loses more than `tolerance` under the leaf's
      choice (near-ties allowed), the choice wins the leaf's mean log speedup, and at least a
      `min_clear` share of the problems were won by it by more than `margin`.
    """
    values = tree.tree_.value[:, 0, 0].astype(np.float64).copy()
    if not agreement:
        return values
    if rule not in LEAF_RULES:
        raise LearnError(f"unknown leaf rule {rule!r}; expected one of {', '.join(LEAF_RULES)}")
    n = tree.tree_.node_count
    leaves = tree.apply(X)
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    np.minimum.at(lo, leaves, y)
    np.maximum.at(hi, leaves, y)
    if rule == "margin":
        low = math.log1p(margin)
        agree = ((lo >= low) & (values > 0)) | ((hi <= -low) & (values < 0))
        return np.where(agree, values, 0.0)
    count = np.bincount(leaves, minlength=n).astype(np.float64)
    mean = np.bincount(leaves, weights=y, minlength=n) / np.maximum(count, 1.0)
    clear = math.log1p(margin)
    share_second = np.bincount(leaves, weights=(y > clear).astype(np.float64), minlength=n) / np.maximum(count, 1.0)
    share_first = np.bincount(leaves, weights=(y < -clear).astype(np.float64), minlength=n) / np.maximum(count, 1.0)
    tol = math.log1p(tolerance)
    second = (values > 0) & (mean > 0) & (lo >= -tol) & (share_second >= min_clear)
    first = (values < 0) & (mean < 0) & (hi <= tol) & (share_first >= min_clear)
    return np.where((count > 0) & (second | first), values, 0.0)


def leaf_errors(tree, values: np.ndarray, X32: np.ndarray, times: np.ndarray, tolerance: float,
                scores: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per tree node: (problems of X32 that reach the leaf, wrong answers the leaf gives on them
    within `tolerance`). scores: the model's scores on X32 when they differ from the leaf values
    (ensemble vetoes); a vetoed problem cannot be wrong."""
    leaves = tree.apply(X32)
    s = values[leaves] if scores is None else scores
    wrong, _ = _outcome(decisions(s, 0.0), times, tolerance)
    n = tree.tree_.node_count
    return (np.bincount(leaves, minlength=n), np.bincount(leaves, weights=wrong.astype(np.float64),
                                                          minlength=n).astype(np.int64))


def silence_leaves(values: np.ndarray, count: np.ndarray, wrong: np.ndarray, min_count: int) -> np.ndarray:
    """Per-leaf validation: the leaf values with every leaf silenced (0.0, unsure) that gave a
    wrong answer on the calibration problems or saw fewer than `min_count` of them."""
    return np.where((wrong > 0) | (count < min_count), 0.0, values)


def two_fold(tree, values, X32, times, tolerance: float, min_counts, seed: int,
             scores: np.ndarray | None = None) -> list[dict]:
    """An honest estimate of per-leaf validation: split the validation problems in two seeded
    halves, silence the leaves erring on (or too rarely seen by) one half, count the answers on
    the other half; both ways round, summed. One row per K in min_counts: correct, wrong,
    answers losing > 10% (over_10pct), unsure."""
    n = len(X32)
    perm = np.random.default_rng([seed, 0x2F01D]).permutation(n)
    halves = (np.sort(perm[: n // 2]), np.sort(perm[n // 2:]))
    out = {k: {"min_val": k, "correct": 0, "wrong": 0, "over_10pct": 0, "unsure": 0} for k in min_counts}
    for a, b in (halves, halves[::-1]):
        count, wrong = leaf_errors(tree, values, X32[a], times[a], tolerance,
                                   None if scores is None else scores[a])
        for k in min_counts:
            v = silence_leaves(values, count, wrong, k)
            s = v[tree.apply(X32[b])]
            if scores is not None:
                s = np.where(s != 0, scores[b], 0.0)
            dec = decisions(s, 0.0)
            bad, ratio = _outcome(dec, times[b], tolerance)
            r = out[k]
            r["correct"] += int(((dec != 0) & ~bad).sum())
            r["wrong"] += int(bad.sum())
            r["over_10pct"] += int(((dec != 0) & (ratio > OUTLIER_LOSS)).sum())
            r["unsure"] += int((dec == 0).sum())
    return list(out.values())


def pick_min_val(rows: list[dict]) -> dict:
    """The K whose held-out halves lose least: fewest answers losing > 10%, then fewest wrong,
    then most correct, then the smaller K."""
    return min(rows, key=lambda r: (r["over_10pct"], r["wrong"], -r["correct"], r["min_val"]))


@dataclass
class Model:
    max_depth: int
    min_samples_leaf: int
    tree: object
    values: np.ndarray           # per node: what a leaf answers (0.0 = unsure)
    log_thresholds: tuple        # (second choice, first choice)
    rows: dict                   # dataset -> evaluation dict
    members: list = field(default_factory=list)   # (tree, values) of the other ensemble trees
    calibration: dict = field(default_factory=dict)  # calibration "leaves": K, silenced, two-fold rows

    def scores(self, X: np.ndarray) -> np.ndarray:
        """The main tree's leaf score where every member tree's leaf has the same sign (a
        member leaf that is unsure, 0.0, disagrees), else 0.0."""
        Xf = X.astype(np.float32)
        s = self.values[self.tree.apply(Xf)]
        for tree, values in self.members:
            s = np.where(np.sign(values[tree.apply(Xf)]) == np.sign(s), s, 0.0)
        return s

    @property
    def n_leaves(self) -> int:
        return int(self.tree.get_n_leaves())

    @property
    def answering_leaves(self) -> int:
        t = self.tree.tree_
        return int(((t.children_left == -1) & (self.values != 0)).sum())


def bootstrap_samples(train: np.ndarray, n: int, seed: int) -> list[np.ndarray]:
    """n seeded bootstrap samples (with replacement, each as large as `train`) of the training
    problems: one per extra ensemble tree, the same for every grid point of a split seed."""
    rng = np.random.default_rng([seed, 0xB007])
    return [np.sort(train[rng.integers(0, len(train), len(train))]) for _ in range(n)]


def fit_grid(p: Problems, parts: dict, depths, leaves, tolerance: float, seed: int, *,
             clip: float = DEFAULT_CLIP, agreement: bool = True, per_choice: bool = True,
             leaf_margin: float = 0.0, leaf_rule: str = "margin", leaf_min_clear: float = 0.0,
             ensemble: int = DEFAULT_ENSEMBLE, calibration: str = DEFAULT_CALIBRATION,
             leaf_min_val=DEFAULT_LEAF_MIN_VAL, progress=None) -> list[Model]:
    """One model per (depth, leaf) grid point. calibration "thresholds": each choice's threshold
    is the smallest with no wrong validation answer; "leaves": first silence exactly the leaves
    that answer wrong on the validation split or see fewer than 2K of its problems (K from
    leaf_min_val, chosen by the two-fold estimate), then the thresholds (0 when nothing is
    left wrong)."""
    from sklearn.tree import DecisionTreeRegressor

    y = p.target
    yc = np.clip(y, -math.log(clip), math.log(clip)) if clip and math.isfinite(clip) else y
    tr = parts["train"]
    samples = bootstrap_samples(tr, ensemble - 1, seed)
    X32 = p.X.astype(np.float32)

    def fitted(d: int, leaf: int, idx: np.ndarray):
        tree = DecisionTreeRegressor(max_depth=d, min_samples_leaf=leaf, random_state=seed)
        tree.fit(p.X[idx], yc[idx])
        return tree, leaf_values(tree, X32[idx], y[idx], agreement, leaf_margin, leaf_rule, tolerance,
                                 leaf_min_clear)

    models = []
    for d in depths:
        for leaf in leaves:
            tree, values = fitted(d, leaf, tr)
            m = Model(d, leaf, tree, values, (0.0, 0.0), {},
                      [fitted(d, leaf, idx) for idx in samples])
            if calibration == "leaves":
                _calibrate_leaves(m, X32[parts["val"]], p.times[parts["val"]], tolerance,
                                  leaf_min_val, seed)
            scores = {k: m.scores(p.X[idx]) for k, idx in parts.items()}
            m.log_thresholds = pick_thresholds(scores["val"], p.times[parts["val"]], tolerance, per_choice)
            m.rows = {k: evaluate(scores[k], p.times[parts[k]], m.log_thresholds, tolerance) for k in parts}
            models.append(m)
            if progress:
                progress()
    return models


def _calibrate_leaves(m: Model, X32: np.ndarray, times: np.ndarray, tolerance: float, min_vals,
                      seed: int) -> None:
    """Per-leaf validation of model m in place (see fit_grid). The two-fold rows estimate how
    the silenced model does on problems its calibration did not see; K counts problems per
    half, so the whole validation split asks for 2K."""
    scores = m.scores(X32) if m.members else None
    rows = two_fold(m.tree, m.values, X32, times, tolerance, tuple(min_vals), seed, scores)
    k = pick_min_val(rows)["min_val"]
    count, wrong = leaf_errors(m.tree, m.values, X32, times, tolerance, scores)
    before = m.answering_leaves
    m.values = silence_leaves(m.values, count, wrong, 2 * k)
    m.calibration = {"min_val": k, "silenced_leaves": before - m.answering_leaves,
                     "erring_leaves": int((wrong > 0).sum()), "two_fold": rows}


def chosen_two_fold(calibration: dict) -> dict:
    """The two-fold estimate row at the K a per-leaf calibration chose."""
    return next(r for r in calibration["two_fold"] if r["min_val"] == calibration["min_val"])


def two_fold_row(m: Model) -> dict | None:
    """The two-fold estimate of model m at its chosen K (calibration "leaves"), else None."""
    return chosen_two_fold(m.calibration) if m.calibration else None


def best_model(models: list[Model]) -> Model:
    """Most correct on validation; then the smaller tree (fewer leaves), then shallower. After
    per-leaf validation the validation split has no wrong answer by construction and favours
    the smallest leaves (on all pad_mm data the finest tree won with 48 default-stream test
    answers losing > 10%), so those models are ranked on the two-fold estimate instead: fewest
    held-out answers losing > 10%, then most held-out correct."""
    def key(m: Model):
        cv = two_fold_row(m)
        fit = (-cv["over_10pct"], cv["correct"]) if cv else (m.rows["val"]["correct"],)
        return (*fit, -m.n_leaves, -m.max_depth)
    return max(models, key=key)
