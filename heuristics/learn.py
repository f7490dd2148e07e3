"""`tuner learn`: datasets -> evaluated regression trees -> the chosen tree as Python.

Formulation (after PyTorch's AutoHeuristic): for a two-choice point with choices (a, b) a
regression tree predicts, per problem, score = log(time(a) / time(b)) (clipped to
+-log(clip): past a clear win the size of the win does not matter, and the tree should spend
its splits on where the winner changes). Then three rules decide when it answers:

- leaf agreement: a leaf answers only if every one of its training problems was won by the
  leaf's choice by more than the leaf margin (10%), else it scores 0 and is always "unsure";
- per-choice thresholds: it answers b when score >= log(threshold_b), a when
  -score >= log(threshold_a); each is the smallest that leaves no wrong answer of that
  choice on the validation split;
- default tie (optional, `default_tie`): the first choice is the point's default, free to
  take (nothing to compile or measure), so a leaf whose training problems the second choice
  never won by more than that fraction answers the first; a leaf of ties then saves the
  search instead of staying silent;
- leaf ranges (optional, `ranges`; the mm point's bare module uses them): a leaf
  answers only for problems whose every feature lies within the range of its training
  problems (a tree splits on few features; a problem unlike all its leaf learned from is not
  vouched for). With a default tie, a leaf answering the first (free) choice has no upper
  bound along the point's size features (contexts.SIZE_FEATURES) and no lower one along
  those that shrink as a problem grows (SHRINKING_FEATURES): larger problems than its own
  still get the default;
- tolerance: an answer at most `tolerance` slower than the other choice is not wrong (two
  choices that tie are both right); max_wrong_speedup still reports the largest loss of any
  answer, so a loss beyond the tolerance is always visible.

Optionally a domain (a minimum for m, k and n) restricts learning and answers to large
problems, as the published A100 reference did; outside it the module says "unsure".
The model with the most correct validation answers wins; its test row is the honest estimate
(the test split is never used for a choice). Imports scikit-learn (training only).
The alternatives tried and not adopted (ensembles, per-leaf validation, the no-loss leaf rule)
are described, with their numbers, in heuristics/README.md ("Alternatives tried"); their code
was last present at commit b4f5d20.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from tuner.heuristics.dataset import NAME_RE, DatasetError, board_slug, keep_text, read_datasets
# the stages, one module each; their names stay importable from here (tests, the CLI)
from tuner.heuristics.fit import (best_model, decisions, evaluate, fit_grid, leaf_values, Model,
                                  pick_threshold, pick_thresholds)
from tuner.heuristics.problems import (build_problems, domain_for, LearnError, Problems, split,
                                       stream_of, table_columns)
from tuner.heuristics.recipe import (BASE_COLUMNS, DEFAULT_CLIP, DEFAULT_DEPTHS, DEFAULT_LEAF_MARGIN,
                                     DEFAULT_LEAVES, DEFAULT_TOLERANCE, FIXED_RULES, OUTLIER_LOSS)
from tuner.heuristics.report import (STREAM_COLUMNS, _module_doc, _plot, _report, _thr, dumps,
                                     format_table, json_safe, markdown_table, outliers, seed_check,
                                     seed_columns, seed_row, stream_rows, stream_table,
                                     table_rows)


def learn(paths, out_dir, *, depths=DEFAULT_DEPTHS, leaves=DEFAULT_LEAVES, seed: int = 0,
          min_reps: int = 3, max_spread: float = 0.2, tolerance: float = DEFAULT_TOLERANCE,
          clip: float = DEFAULT_CLIP, agreement: bool = True, per_choice: bool = True,
          leaf_margin: float = DEFAULT_LEAF_MARGIN, default_tie: float | None = None,
          ranges: bool = False, namespace: str | None = None, derived: bool = True,
          min_dim: int = 0, min_problems: int = 20,
          name: str | None = None, plot: bool = True, progress: bool = False,
          check_seeds=(), allow_truncated: bool = False, keep=()) -> dict:
    """Learn from dataset files; write table, report, plot and module into out_dir.
    check_seeds: other split seeds to re-run the same rules on (reported, never used).
    keep: row filters "GLOB:COLUMN=VALUE[|VALUE...]" (heuristics.dataset.parse_keep), e.g. to
    learn only a file's rows that a later template revision left unchanged."""
    from tuner.heuristics.contexts import DERIVED
    from tuner.heuristics.render import render_module

    if tolerance < 0 or not math.isfinite(tolerance):
        raise LearnError(f"--tolerance must be a fraction >= 0, got {tolerance}")
    if not clip > 1:
        raise LearnError(f"--clip must be a speedup > 1 (inf for none), got {clip}")
    try:
        ds = read_datasets(paths, keep=keep)
    except DatasetError as e:
        raise LearnError(str(e)) from None
    if ds.truncated and not allow_truncated:
        files = ", ".join(getattr(ds, "truncated_files", ()) or map(str, paths))
        raise LearnError(f"{files}: truncated (the file ends before its gzip stream or last line "
                         "does: its collector was killed or is still writing); finish it with "
                         "`tuner collect --resume`, or pass --allow-truncated to learn from its "
                         "complete rows")
    if not ds.rows:
        raise LearnError("the dataset has a header but no rows")
    header = ds.header
    bad = [c for c in header.get("choices", ()) if not NAME_RE.fullmatch(c)]
    if bad:   # a two-way module names its thresholds after its choices
        raise LearnError(f"header choice {bad[0][:60]!r} is not a plain name")
    extra = DERIVED.get(header.get("point"), ()) if derived else ()
    p = build_problems(ds, min_reps=min_reps, max_spread=max_spread, derived=extra, min_dim=min_dim)
    if len(p) < min_problems:
        raise LearnError(f"too few problems for a train/val/test split: {len(p)} usable "
                         f"(need {min_problems}; dropped {p.dropped})")
    parts = split(len(p), seed)
    if any(len(v) == 0 for v in parts.values()):
        raise LearnError(f"too few problems for a train/val/test split: {len(p)}")
    point = header["point"]
    if namespace is not None and not re.fullmatch(re.escape(point) + r"(\.[a-z_][a-z0-9_]*)?", namespace):
        raise LearnError(f"--namespace {namespace!r} must be the dataset's point {point!r} or "
                         f"{point}.<name> (lowercase, digits, _: a question of that point the caller "
                         "routes by name)")
    # (files of several boards merged: named by their compute capability, e.g. sm90)
    board = (board_slug(header.get("gpu_name", "gpu")) if " + " not in str(header.get("gpu_name"))
             else "sm" + "".join(str(c) for c in header.get("compute_capability") or ("",)))
    name = name or f"{(namespace or point).replace('.', '_')}_{board}"
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise LearnError(f"--name {name!r} is not a valid module name (lowercase, digits, _)")
    if not (0 <= leaf_margin < 1):
        raise LearnError(f"--leaf-margin must be a fraction in [0, 1), got {leaf_margin}")
    if default_tie is not None and not (0 <= default_tie < 1):
        raise LearnError(f"--default-tie must be a fraction in [0, 1), got {default_tie}")
    if default_tie is not None and not agreement:
        raise LearnError("--default-tie needs leaf agreement (without it every leaf answers already)")
    from tuner.heuristics.contexts import SHRINKING_FEATURES, SIZE_FEATURES
    # with a default tie the first choice is free to take: its leaves extend to larger problems
    grow = ranges and default_tie is not None
    open_above = [f for f in SIZE_FEATURES.get(header.get("point"), ()) if grow and f in p.features]
    open_below = [f for f in SHRINKING_FEATURES.get(header.get("point"), ()) if grow and f in p.features]
    kw = dict(clip=clip, agreement=agreement, per_choice=per_choice, leaf_margin=leaf_margin,
              default_tie=default_tie, ranges=ranges, open_above=open_above, open_below=open_below)
    if progress:
        from rich.progress import Progress
        with Progress(transient=True) as bar:
            task = bar.add_task("fitting trees", total=len(depths) * len(leaves))
            models = fit_grid(p, parts, depths, leaves, tolerance, seed, **kw,
                              progress=lambda: bar.advance(task))
    else:
        models = fit_grid(p, parts, depths, leaves, tolerance, seed, **kw)
    best = best_model(models)
    rows = table_rows(models, p.choices)
    columns = table_columns(p.choices)

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    test = best.rows["test"]
    test_scores = best.scores(p.X[parts["test"]])
    answered = decisions(test_scores, best.log_thresholds) != 0
    bench = p.bench_s[parts["test"]]
    saved = float(np.nanmean(bench[answered])) if answered.any() and not np.isnan(bench[answered]).all() else math.nan
    # The published A100 reference only counted problems with every dimension >= 512; the
    # same slice of our test split makes the comparison like for like.
    large = None
    if {"m", "k", "n"} <= set(p.features):
        cols = [p.features.index(c) for c in ("m", "k", "n")]
        mask = (p.X[parts["test"]][:, cols] >= 512).all(axis=1)
        large = evaluate(test_scores[mask], p.times[parts["test"]][mask], best.log_thresholds, tolerance)
    a, b = p.choices
    settings = {"seed": seed, "min_reps": min_reps, "max_spread": max_spread, "tolerance": tolerance,
                "clip": clip, "leaf_agreement": agreement, "leaf_margin": leaf_margin,
                "default_tie": default_tie, "leaf_ranges": ranges,
                "open_above": open_above, "open_below": open_below,
                "leaf_rule": FIXED_RULES["leaf_rule"], "leaf_min_clear": FIXED_RULES["leaf_min_clear"],
                "ensemble": FIXED_RULES["ensemble"], "per_choice_thresholds": per_choice,
                "calibration": FIXED_RULES["calibration"], "derived_features": derived, "min_dim": min_dim,
                "max_depth": best.max_depth, "min_samples_leaf": best.min_samples_leaf}
    if keep:
        settings["keep"] = [keep_text(k) for k in keep]
    summary = {
        "point": header["point"], "gpu_name": header.get("gpu_name"), "module": f"{name}.py",
        "problems": len(p), "dropped": p.dropped, "split": {k: len(v) for k, v in parts.items()},
        "choices": list(p.choices), "tolerance": tolerance, "settings": settings,
        "domain": p.domain,
        "best": {"max_depth": best.max_depth, "min_samples_leaf": best.min_samples_leaf,
                 f"threshold_{b}": _thr(best.log_thresholds[0]),
                 f"threshold_{a}": _thr(best.log_thresholds[1]),
                 "leaves": best.n_leaves, "answering_leaves": best.answering_leaves,
                 "val": best.rows["val"], "test": test, "train": best.rows["train"],
                 "test_dims_ge_512": large,
                 "test_by_stream": stream_rows(best, p, parts["test"], tolerance),
                 "val_by_stream": stream_rows(best, p, parts["val"], tolerance)},
        "test_outliers": outliers(best, p, parts["test"]),
        "bench_seconds_saved_per_answer": saved,
        "bench_seconds_saved_per_decision": saved * float(answered.mean()) if math.isfinite(saved) else math.nan,
    }
    if header.get("kept"):
        summary["kept"] = header["kept"]
    for key, files in header.get("mixed", {}).items():
        filtered = [f for f in files if f in header.get("kept", {})]
        summary.setdefault("warnings", []).append(
            f"the files disagree on {key}: " + ", ".join(f"{f} {v!r}" for f, v in files.items())
            + ("; rows of " + ", ".join(filtered) + " filtered by --keep (see kept)" if filtered else
               "; problems whose times that changed are learned from both (merge files of one "
               "value unless the difference leaves these problems alone)"))
    if check_seeds:
        others = [sd for sd in dict.fromkeys(check_seeds) if sd != seed]
        summary["seed_check"] = [seed_row(seed, best, p, parts["test"], tolerance),
                                 *seed_check(p, others, depths, leaves, tolerance, **kw)]
    if namespace is not None:
        header = {**header, "point": namespace}
        summary["namespace"] = namespace
    source = render_module(best.tree, best.values, p.features, header, best.log_thresholds, p.choices,
                           raw=p.raw_features, derived=p.derived, domain=p.domain,
                           training=settings, doc=_module_doc(summary), ranges=best.ranges)
    (out / f"{name}.py").write_text(source)
    (out / "eval_table.txt").write_text(format_table(rows, columns) + "\n")
    if plot:
        try:
            import matplotlib  # noqa: F401 - optional: only the plot needs it
        except ImportError:
            plot = False
            summary["plot_skipped"] = ("matplotlib is not installed: no plot.png "
                                       "(pip install matplotlib, or pass --no-plot)")
    (out / "eval_table.json").write_text(dumps(rows))
    (out / "summary.json").write_text(dumps(summary))
    if plot:
        _plot(out / "plot.png", p, parts, best, summary)
    (out / "report.md").write_text(_report(summary, rows, columns, best, header, plot))
    summary["table"] = rows
    summary["columns"] = list(columns)
    summary["seed_check_columns"] = seed_columns(summary.get("seed_check", []))
    summary["out"] = str(out)
    return summary
