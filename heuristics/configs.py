"""`tuner learn-configs`: a learned kernel config per kind, or "unsure".

The kernel-config point (tuner/points/triton_kernel.py) has many choices per problem (block
sizes, warps), and which ones a problem was measured with differs (a config beyond an
extent is never a candidate). The two-choice learner (learn.py) does not fit; this one:

- **Data**: rows of `tuner collect triton_kernel --focus KIND` or collect mode (one per
  measured config: `problem`, `choice` = the config's JSON, `time_ms`, the point's features
  with `default`, the default config's JSON). Per problem: a table config -> ms and its
  best. Problems whose default was not measured, or with fewer than `min_configs`, are
  dropped.
- **Model**: one multi-output `DecisionTreeRegressor` over the problems' numeric features
  (FEATURES present in the data), predicting for every config seen the log of its slowdown
  against the problem's best (clipped at `clip`; a config the problem was not measured with
  counts as clipped: never better). Its leaves group problems whose configs rank alike.
- **Answers**: a leaf answers the kernel's own default where that is within
  `leaf_tolerance` (5%) of the best on every training problem of the leaf, else the config
  whose *worst* slowdown there is smallest if that is within it, else nothing; and only for
  features inside the ranges of the leaf's training problems (a tree's leaves are unbounded:
  a kernel far from everything it learned is unsure). Configs the point's space would not
  launch for a problem (`valid`, given by `tuner learn-configs`) are dropped from its table
  first. The depth and leaf size are picked on the validation split (answers within
  `tolerance` count, each answer losing more than 10% costs ten); the module ships refit on
  train + validation, and its score on the test split (never used) is the estimate to quote.
- **Module**: plain Python, nested ifs over float32-rounded inputs (as scikit-learn compares
  them) returning a leaf; `decide(features)` returns the leaf's config as JSON
  ({"kwargs": {...}, "num_warps": n, "num_stages": s}) or None. The point checks it against
  its space before use (an invalid answer is unsure).
"""
from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tuner.heuristics.contexts import TRITON_CONFIG_FEATURE_SCHEMA
from tuner.heuristics.dataset import DatasetError, read_dataset
from tuner.heuristics.problems import LearnError
from tuner.heuristics.render import check_data_only, docstring

# numeric features a config tree may split on, as the point's features() names them
FEATURES = ("xnumel", "ynumel", "rnumel", "outer", "parts", "max_part", "batch", "m", "n", "k",
            "args", "arg_bytes", "loads", "stores", "special")
DEFAULT = "default"  # a leaf's answer: the problem's own default config
WRONG = 1.10        # an answer slower than the problem's best by more than this is wrong


@dataclass
class ConfigProblems:
    point: str
    ids: list[str]
    X: np.ndarray                  # (n, features)
    features: list[str]
    tables: list[dict]             # per problem: config JSON -> ms
    best: np.ndarray               # (n,)
    defaults: list[str]
    header: dict = field(default_factory=dict)
    dropped: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)      # per problem: its features (a dataset row)
    valid: object = None                          # (row, config JSON) -> may it be launched?

    def fits(self, i: int, config: str) -> bool:
        return self.valid is None or bool(self.valid(self.rows[i], config))

    def __len__(self):
        return len(self.ids)

    def loss(self, i: int, config: str | None) -> float:
        """Slowdown of `config` on problem i against its best (inf: not measured)."""
        t = self.tables[i].get(config)
        return math.inf if t is None else t / self.best[i]


def load(paths, min_configs: int = 2, valid=None, form=None, launched=None) -> ConfigProblems:
    """Problems of one point from dataset files (all of the same point and GPU generation).
    valid(row, config JSON): whether the point would launch that config for the row's
    kernel (its space); configs it would not are dropped, so they are never answered or
    credited. form(row, config JSON) -> config JSON: the form answers are learned in (a
    persistent reduction's tile instead of its row-length-bound blocks; configs that take the
    same form keep the fastest time); the point turns it back per kernel. launched(row,
    config JSON) -> config JSON or None: the config the point launches for that row's kernel
    when asked for one (a tiled kernel's blocks cut to its extents): a config measured
    elsewhere counts, on a problem where it was not measured itself, with the time of what it
    becomes there. A problem measured in two files keeps the first file's times (runs never
    mix)."""
    header, rows_by = None, {}
    meta: dict = {}
    owner: dict = {}
    for path in paths:
        try:
            ds = read_dataset(path)
        except DatasetError as e:
            raise LearnError(str(e)) from None
        h = ds.header
        if header is None:
            header = h
        for key in ("point", "compute_capability", "shared_memory_per_block", "timer"):
            if h.get(key) != header.get(key):
                raise LearnError(f"{path}: {key} {h.get(key)!r} differs from {header.get(key)!r} "
                                 f"of {paths[0]}: files of different points or machines do not merge")
        # boards of one generation (same capability, shared memory and timer: an H100 and an
        # H200) merge, since a problem's times are only compared with each other; the module
        # names every board its data came from
        boards = header.get("gpu_name") or ""
        if h.get("gpu_name") and h.get("gpu_name") not in boards.split(" + "):
            header = dict(header, gpu_name=f"{boards} + {h['gpu_name']}" if boards else h["gpu_name"])
        for r in ds.rows:
            if r.get("choice") in (None, "none") or r.get("error") or "default" not in r:
                continue
            key = r.get("key") or r["problem"]
            if owner.setdefault(key, str(path)) != str(path):
                continue
            t = float(r["time_ms"])
            if not math.isfinite(t) or t <= 0:
                continue
            if valid is not None and not valid(r, r["choice"]):
                continue
            choice = r["choice"] if form is None else form(r, r["choice"])
            table = rows_by.setdefault(key, {})
            table[choice] = min(t, table.get(choice, math.inf))
            if key not in meta:   # (the default's form once per problem, not per row)
                meta[key] = r if form is None else dict(r, default=form(r, r["default"]))
    if header is None:
        raise LearnError("no dataset files given")
    present = [f for f in FEATURES if any(f in m for m in meta.values())]
    ids, X, tables, best, defaults, rows = [], [], [], [], [], []
    dropped = {"default not measured": 0, f"fewer than {min_configs} configs": 0}
    for key, table in rows_by.items():
        m = meta[key]
        if m["default"] not in table:
            dropped["default not measured"] += 1
            continue
        if len(table) < min_configs:
            dropped[f"fewer than {min_configs} configs"] += 1
            continue
        ids.append(key)
        X.append([float(m.get(f) or 0) for f in present])
        tables.append(table)
        best.append(min(table.values()))
        defaults.append(m["default"])
        rows.append(m)
    if not ids:
        raise LearnError(f"no usable problems in {len(paths)} file(s) ({dropped})")
    if launched is not None:
        seen = sorted({c for table in tables for c in table})
        for table, m in zip(tables, rows):
            for c in seen:
                if c not in table:
                    there = launched(m, c)
                    if there is not None and there in table:
                        table[c] = table[there]
    return ConfigProblems(header["point"], ids, np.array(X, dtype=np.float64), present, tables,
                          np.array(best), defaults, header, dropped, rows, valid)


def split(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """60/20/20 train/validation/test indices of n problems."""
    idx = list(range(n))
    random.Random(seed).shuffle(idx)
    a, b = int(0.6 * n), int(0.8 * n)
    return np.array(idx[:a]), np.array(idx[a:b]), np.array(idx[b:])


@dataclass
class ConfigTree:
    tree: object                  # the fitted DecisionTreeRegressor
    answers: dict                 # leaf node id -> config JSON (confident leaves only)
    depth: int
    min_leaf: int
    ranges: dict = field(default_factory=dict)   # leaf -> per feature (min, max) of its training problems
    shortlist: list = field(default_factory=list)  # config JSONs worth measuring beside the default
    # each size feature's (min, max) over the problems the shortlist was chosen on: a kernel
    # larger than them is unsure of the shortlist too (TUNER_SHORTLIST_BEYOND)
    shortlist_ranges: dict = field(default_factory=dict)

    def predict(self, P: "ConfigProblems", idx: np.ndarray) -> list[str | None]:
        """The config (JSON) each problem of idx would be answered, or None: unsure leaves,
        features outside the range the leaf was trained on, and answers the problem's space
        would not launch."""
        X = P.X[idx].astype(np.float32)
        leaves = self.tree.apply(X)
        out = []
        for i, x, leaf in zip(idx, X, leaves):
            a = self.answers.get(int(leaf))
            if a is not None and not all(lo <= v <= hi for v, (lo, hi) in zip(x, self.ranges[int(leaf)])):
                a = None
            a = P.defaults[i] if a == DEFAULT else a
            out.append(a if a is not None and P.fits(i, a) else None)
        return out


def fit(P: ConfigProblems, train: np.ndarray, depth: int, min_leaf: int, *, clip: float = 2.0,
        leaf_tolerance: float = 0.05, min_support: int = 3) -> ConfigTree:
    from sklearn.tree import DecisionTreeRegressor
    vocab = sorted({c for i in train for c in P.tables[i]})
    Y = np.full((len(train), len(vocab)), math.log(clip))
    col = {c: j for j, c in enumerate(vocab)}
    for row, i in enumerate(train):
        for c, t in P.tables[i].items():
            Y[row, col[c]] = min(math.log(t / P.best[i]), math.log(clip))
    Xf = P.X[train].astype(np.float32)
    tree = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=min_leaf, random_state=0)
    tree.fit(Xf, Y)
    leaves = tree.apply(Xf)
    answers, ranges = {}, {}
    for leaf in np.unique(leaves):
        rows = np.nonzero(leaves == leaf)[0]
        if len(rows) < min_support:
            continue
        # each problem's own default config first: where it is within the tolerance on every
        # problem of the leaf, the leaf answers "default" (default mode keeps its config);
        # else the one config with the smallest worst slowdown
        default_worst = max(P.loss(i, P.defaults[i]) for i in train[rows])
        worst = Y[rows].max(axis=0)
        j = int(np.argmin(worst))
        if default_worst <= 1 + leaf_tolerance:
            answers[int(leaf)] = DEFAULT
        elif math.exp(worst[j]) <= 1 + leaf_tolerance:
            answers[int(leaf)] = vocab[j]
        if int(leaf) in answers:   # it answers only inside what it was trained on
            ranges[int(leaf)] = [(float(lo), float(hi)) for lo, hi in zip(Xf[rows].min(0), Xf[rows].max(0))]
    return ConfigTree(tree, answers, depth, min_leaf, ranges)


def evaluate(P: ConfigProblems, model: ConfigTree, idx: np.ndarray, tolerance: float = 0.05) -> dict:
    """Answers on problems idx: how many, how many within `tolerance` of the best, wrong
    (> 10% slower), not measured (a config the problem was not timed with), the worst loss, and the
    default config's losses on the same problems (what default mode runs today)."""
    answered = good = wrong = unmeasured = 0
    losses, default_losses, gains = [], [], []
    for i, ans in zip(idx, model.predict(P, idx)):
        d = P.loss(i, P.defaults[i])
        default_losses.append(d)
        if ans is None:
            continue
        answered += 1
        loss = P.loss(i, ans)
        if not math.isfinite(loss):
            unmeasured += 1
            continue
        losses.append(loss)
        gains.append(d / loss)
        good += int(loss <= 1 + tolerance)
        wrong += int(loss > WRONG)
    n = len(idx)
    return {"problems": n, "answered": answered, "unsure": n - answered, "within_tolerance": good,
            "wrong_over_10pct": wrong, "not_measured": unmeasured,
            "worst_loss": float(max(losses)) if losses else None,
            "geomean_loss_of_answers": _geomean(losses),
            "geomean_default_loss_where_answered": _geomean([g * l for g, l in zip(gains, losses)]),
            "geomean_speedup_over_default_where_answered": _geomean(gains),
            "answers_slower_than_default": int(sum(g < 1 for g in gains)),
            "default_within_tolerance_all": int(sum(x <= 1 + tolerance for x in default_losses)),
            "geomean_default_loss_all": _geomean(default_losses)}


def _geomean(values) -> float | None:
    return float(math.exp(sum(math.log(x) for x in values) / len(values))) if values else None


def score(ev: dict) -> float:
    return ev["within_tolerance"] - 10 * (ev["wrong_over_10pct"] + ev["not_measured"])


def shortlist(P: ConfigProblems, idx: np.ndarray, size: int = 3, tolerance: float = 0.05) -> list[str]:
    """The few configs (JSON) worth measuring beside a kernel's default where no leaf is sure:
    greedily, the config within `tolerance` of the best on most of the problems of idx whose
    default and configs picked so far are not (a set cover); at most `size`, fewer when the
    rest cover nothing more."""
    left = [i for i in idx if P.loss(i, P.defaults[i]) > 1 + tolerance]
    out: list[str] = []
    while left and len(out) < size:
        counts: dict = {}
        for i in left:
            for c, t in P.tables[i].items():
                if t <= P.best[i] * (1 + tolerance):
                    counts[c] = counts.get(c, 0) + 1
        if not counts:
            break
        pick = max(sorted(counts), key=lambda c: counts[c])
        out.append(pick)
        left = [i for i in left if P.loss(i, pick) > 1 + tolerance]
    return out


# the features that are a kernel's sizes (the rest count its arguments, loads and stores; a
# matmul's batch only adds programs of the same tile, and bmm problems the template shortlist
# never saw score as the mm ones, see docs/PERF_NOTES.md)
SIZE_FEATURES = ("xnumel", "ynumel", "rnumel", "m", "n", "k")


def size_ranges(P: ConfigProblems, idx: np.ndarray) -> dict:
    """Each size feature's (min, max) over problems idx."""
    X = P.X[idx].astype(np.float32)
    return {name: (float(X[:, j].min()), float(X[:, j].max()))
            for j, name in enumerate(P.features) if name in SIZE_FEATURES}


def evaluate_shortlist(P: ConfigProblems, short: list[str], idx: np.ndarray,
                       tolerance: float = 0.05) -> dict:
    """Measuring the default and the shortlist on problems idx, keeping the fastest: how often
    that is within `tolerance` of the best (and the default alone), and the worst loss."""
    losses = [min([P.loss(i, P.defaults[i])] + [P.loss(i, c) for c in short]) for i in idx]
    alone = [P.loss(i, P.defaults[i]) for i in idx]
    return {"problems": len(idx), "within_tolerance": int(sum(x <= 1 + tolerance for x in losses)),
            "default_within_tolerance": int(sum(x <= 1 + tolerance for x in alone)),
            "over_10pct": int(sum(x > WRONG for x in losses)),
            "worst_loss": float(max(losses)) if losses else None,
            "geomean_loss": _geomean(losses)}


def learn(paths, *, depths=(3, 4, 6, 8, 12), leaves=(10, 20, 50), seed: int = 0,
          leaf_tolerance: float = 0.05, tolerance: float = 0.05, clip: float = 2.0, valid=None,
          shortlist_size: int = 3, answers: bool = True, form=None, launched=None):
    """(ConfigProblems, the chosen ConfigTree, report dict). valid, form, launched: see `load`.
    shortlist_size: configs the module names as worth measuring (0: none); answers=False:
    a module that is never sure (its shortlist alone ships)."""
    P = load(list(paths), valid=valid, form=form, launched=launched)
    if len(P) < 10:
        raise LearnError(f"{len(P)} problems: too few to split and learn (need 10)")
    tr, va, te = split(len(P), seed)
    grid = []
    for d in depths:
        for lf in leaves:
            m = fit(P, tr, d, lf, clip=clip, leaf_tolerance=leaf_tolerance)
            ev = evaluate(P, m, va, tolerance)
            grid.append({"max_depth": d, "min_samples_leaf": lf, "val": ev, "score": int(score(ev)),
                         "confident_leaves": len(m.answers), "model": m})
    best = max(grid, key=lambda g: (g["score"], -g["max_depth"], g["min_samples_leaf"]))
    model = best["model"]   # the train-only tree
    # the module ships refit on train + validation (the test split stays unseen)
    final = fit(P, np.concatenate([tr, va]), best["max_depth"], best["min_samples_leaf"],
                clip=clip, leaf_tolerance=leaf_tolerance)
    if not answers:
        final.answers, final.ranges = {}, {}
    # chosen on train + validation, scored on test as the tree is
    final.shortlist = shortlist(P, np.concatenate([tr, va]), shortlist_size, leaf_tolerance)
    final.shortlist_ranges = size_ranges(P, np.concatenate([tr, va])) if final.shortlist else {}
    report = {"point": P.point, "problems": len(P), "dropped": P.dropped, "features": P.features,
              "split_seed": seed, "chosen": {k: best[k] for k in ("max_depth", "min_samples_leaf")},
              "leaf_tolerance": leaf_tolerance, "tolerance": tolerance, "clip": clip,
              "val": best["val"],
              # the shipped tree (refit on train + validation) on the test split it never saw
              "test": evaluate(P, final, te, tolerance),
              "test_train_only_tree": evaluate(P, model, te, tolerance),
              "answers": answers,
              "shortlist": [json.loads(c) for c in final.shortlist],
              "shortlist_ranges": final.shortlist_ranges,
              "shortlist_test": evaluate_shortlist(P, final.shortlist, te, leaf_tolerance),
              "configs_checked_against_the_space": valid is not None,
              "grid": [{k: g[k] for k in ("max_depth", "min_samples_leaf", "score", "confident_leaves")}
                       for g in grid],
              "gpu_name": P.header.get("gpu_name"), "torch": P.header.get("torch"),
              "triton": P.header.get("triton")}
    return P, final, report


# -- rendering ------------------------------------------------------------------------------

def render(P: ConfigProblems, model: ConfigTree, name: str, report: dict) -> str:
    """The module's source."""
    t = model.tree.tree_
    lines = []

    def walk(node: int, indent: int) -> None:
        pad = "    " * indent
        if t.children_left[node] == -1:
            lines.append(f"{pad}return {node}")
            return
        lines.append(f"{pad}if f[{P.features[t.feature[node]]!r}] <= {float(t.threshold[node])!r}:")
        walk(int(t.children_left[node]), indent + 1)
        lines.append(f"{pad}else:")
        walk(int(t.children_right[node]), indent + 1)

    walk(0, 1)
    h = P.header
    test = report["test"]
    short_test = report.get("shortlist_test") or {"within_tolerance": 0, "problems": 0,
                                                  "default_within_tolerance": 0, "worst_loss": None}
    answers = {leaf: (c if c == DEFAULT else json.loads(c)) for leaf, c in sorted(model.answers.items())}
    ranges = {leaf: [tuple(r) for r in model.ranges[leaf]] for leaf in sorted(model.answers)}
    doc = f'''Learned kernel config for {P.point} ({h.get("gpu_name")}; torch {h.get("torch")}, Triton {h.get("triton")}).

Generated by `tuner learn-configs` (tuner/heuristics/configs.py): a multi-output regression
tree over {len(P)} measured problems (each config's slowdown against the problem's best);
{len(model.answers)} confident leaves answer the kernel's default or one config, at most {report["leaf_tolerance"]:.0%} slower
than the best on every training problem of the leaf, for features inside the leaf's training
ranges; elsewhere it is unsure (None). Chosen on validation: depth {model.depth}, leaf {model.min_leaf}; refit on
train + validation. This module on the held-out test split ({test["problems"]} problems): {test["answered"]} answered,
{test["within_tolerance"]} within {report["tolerance"]:.0%} of the best, {test["wrong_over_10pct"]} slower than 10%, worst {test["worst_loss"]}.
'''
    source = f'''{docstring(doc)}
import json

from tuner.heuristics.interface import Precondition, as_float32

PRECONDITION = Precondition(point={P.point!r}, capability={tuple(h.get("compute_capability") or (0, 0))!r},
                            shared_memory={int(h.get("shared_memory_per_block") or 0)},
                            feature_schema={TRITON_CONFIG_FEATURE_SCHEMA}, gpu_name={h.get("gpu_name")!r})
FEATURES = {tuple(P.features)!r}
ANSWERS = {answers!r}
# per answering leaf, each feature's (min, max) over its training problems: outside, unsure
RANGES = {ranges!r}
# where unsure: the configs worth measuring beside the kernel's default (a set cover of the
# training problems; with the default, within {report["leaf_tolerance"]:.0%} of the best on {short_test["within_tolerance"]} of the
# {short_test["problems"]} test problems, the default alone on {short_test["default_within_tolerance"]}, worst {short_test["worst_loss"]})
SHORTLIST = {tuple(json.loads(c) for c in model.shortlist)!r}
# the sizes (min, max) the shortlist was chosen on: a kernel larger than them is unsure of it
# too (with TUNER_SHORTLIST_BEYOND=search max-autotune searches it as without a module)
SHORTLIST_RANGES = {model.shortlist_ranges!r}


def leaf(f):
{chr(10).join(lines)}


def decide(features):
    """The config (JSON form) for a kernel's features, or None (unsure)."""
    f = {{name: as_float32(features.get(name) or 0) for name in FEATURES}}
    node = leaf(f)
    answer = ANSWERS.get(node)
    if answer is None or not all(lo <= f[n] <= hi for n, (lo, hi) in zip(FEATURES, RANGES[node])):
        return None
    if answer == "default":   # the kernel's own default config is within tolerance here
        return json.loads(features["default"])
    return answer
'''
    check_data_only(source)
    return source


def write(P, model, report, out: Path, name: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.py"
    path.write_text(render(P, model, name, report))
    (out / f"{name}.report.json").write_text(json.dumps(report, indent=1, default=str))
    return path
