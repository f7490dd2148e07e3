"""`tuner learn`, stage 4: what a learned model did (outliers, per-stream rows, seed checks,
tables, the rendered module's docstring, the markdown report and its plot)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from tuner.heuristics.fit import _outcome, best_model, decisions, evaluate, fit_grid, Model
from tuner.heuristics.problems import Problems, split
from tuner.heuristics.recipe import OUTLIER_LOSS


def outliers(m: Model, p: Problems, idx: np.ndarray, loss: float = OUTLIER_LOSS) -> list[dict]:
    """Answers on problems `idx` that lose more than `loss` against the other choice, worst
    first: what a single tree cannot see, and where focused collection should look."""
    dec = decisions(m.scores(p.X[idx]), m.log_thresholds)
    _, ratio = _outcome(dec, p.times[idx], 0.0)
    bad = np.where((dec != 0) & (ratio > loss))[0]
    out = [{"problem": p.ids[idx[j]], "answer": p.choices[1] if dec[j] > 0 else p.choices[0],
            "loss": round(float(ratio[j]), 4),
            **{f: float(p.X[idx[j], p.features.index(f)]) for f in p.raw_features}} for j in bad]
    return sorted(out, key=lambda o: -o["loss"])


def stream_rows(m: Model, p: Problems, idx: np.ndarray, tolerance: float) -> dict[str, dict]:
    """The evaluation of problems `idx` per stream, default stream first. A focused stream
    over-samples hard problems on purpose, so its unsure rate is not comparable with one
    measured on a natural distribution; the default stream's row is."""
    streams = p.streams[idx]
    scores = m.scores(p.X[idx])
    out = {}
    for name in sorted(set(streams), key=lambda s: (s != "default", s)):
        mask = streams == name
        r = evaluate(scores[mask], p.times[idx][mask], m.log_thresholds, tolerance)
        out[name] = {**r, "unsure_pct": round(100.0 * r["unsure"] / max(1, r["total"]), 1),
                     "over_10pct": len(outliers(m, p, idx[mask]))}
    return out


STREAM_COLUMNS = ("stream", "correct", "wrong", "unsure", "total", "unsure_pct", "max_wrong_speedup",
                  "over_10pct")


def stream_table(by_stream: dict[str, dict]) -> list[dict]:
    return [{"stream": k, **v} for k, v in by_stream.items()]


def seed_check(p: Problems, seeds, depths, leaves, tolerance: float, *, workers: int = 4,
               **fit_options) -> list[dict]:
    """The same rules (grid, selection on val) on other train/val/test splits: one test row per
    seed with its outliers. A check of the method's robustness; it picks nothing.
    fit_options: fit_grid's (clip, agreement, leaf_margin, default_tie, ranges, ...)."""
    from concurrent.futures import ThreadPoolExecutor   # tree fitting releases the GIL

    def one(seed: int) -> dict:
        parts = split(len(p), seed)
        best = best_model(fit_grid(p, parts, depths, leaves, tolerance, seed, **fit_options))
        return seed_row(seed, best, p, parts["test"], tolerance)

    with ThreadPoolExecutor(max(1, min(workers, len(seeds)))) as pool:
        return list(pool.map(one, seeds))


def seed_row(seed: int, best: Model, p: Problems, test_idx: np.ndarray, tolerance: float) -> dict:
    """One seed's test row, with each stream's unsure % and answers losing > 10% when the
    data mixes streams (flattened as <stream>_unsure_pct, <stream>_over_10pct)."""
    t = best.rows["test"]
    out = outliers(best, p, test_idx)
    row = {"seed": seed, "max_depth": best.max_depth, "min_samples_leaf": best.min_samples_leaf,
           **t, "unsure_pct": round(100.0 * t["unsure"] / max(1, t["total"]), 1),
           "over_10pct": len(out), "outliers": out}
    by = stream_rows(best, p, test_idx, tolerance)
    if len(by) > 1:
        for name, r in by.items():
            row[f"{name}_unsure_pct"] = r["unsure_pct"]
            row[f"{name}_over_10pct"] = r["over_10pct"]
    return row


SEED_COLUMNS = ("seed", "max_depth", "min_samples_leaf", "correct", "wrong", "unsure", "total",
                "unsure_pct", "max_wrong_speedup", "over_10pct")


def seed_columns(rows: list[dict]) -> list[str]:
    """SEED_COLUMNS plus the per-stream columns the rows carry."""
    extra = [k for k in (rows[0] if rows else {}) if k.endswith(("_unsure_pct", "_over_10pct"))
             and k not in SEED_COLUMNS]
    return list(SEED_COLUMNS) + extra


def json_safe(obj):
    """`obj` with NaN and infinities as None (JSON has neither), numpy scalars as numbers."""
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def dumps(obj, indent: int = 1) -> str:
    """Strict JSON (null for NaN/inf; other non-JSON values as strings)."""
    return json.dumps(json_safe(obj), indent=indent, default=str, allow_nan=False)


def _thr(log_t: float) -> float:
    return math.exp(log_t) if math.isfinite(log_t) else math.inf


def table_rows(models: list[Model], choices) -> list[dict]:
    a, b = choices
    out = []
    for m in models:
        for k in ("train", "val", "test"):
            out.append({"max_depth": m.max_depth, "min_samples_leaf": m.min_samples_leaf, "dataset": k,
                        **m.rows[k], f"threshold_{b}": _thr(m.log_thresholds[0]),
                        f"threshold_{a}": _thr(m.log_thresholds[1])})
    return out


def _fmt(v) -> str:
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else ("inf" if math.isinf(v) else f"{v:.6f}")
    return str(v)


def format_table(rows: list[dict], columns=None) -> str:
    columns = list(columns or rows[0].keys())
    cells = [columns] + [[_fmt(r[c]) for c in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    return "\n".join(" ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells)


def markdown_table(rows: list[dict], columns=None) -> str:
    columns = list(columns or rows[0].keys())
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    lines += ["| " + " | ".join(_fmt(r[c]) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def _module_doc(s: dict) -> str:
    b, t = s["best"], s["best"]["test"]
    a, c = s["choices"]
    dom = f" Domain: {s['domain']} (outside it: None)." if s["domain"] else ""
    return (f"{s.get('namespace') or s['point']} heuristic for {s['gpu_name']}, learned by `tuner learn` from {s['problems']} problems.\n\n"
            f"Regression tree max_depth={b['max_depth']}, min_samples_leaf={b['min_samples_leaf']} "
            f"({b['leaves']} leaves, {b['answering_leaves']} of them agree and may answer); "
            f"thresholds {c} {b[f'threshold_{c}']:.4f}, {a} {b[f'threshold_{a}']:.4f}.{dom}"
            + (f" Leaves of near-ties answer {a} (no training problem won by {c} by more than "
               f"{s['settings']['default_tie']:.0%})." if s["settings"].get("default_tie") is not None else "")
            + "\n"
            f"Held-out test split ({s['tolerance']:.0%} tolerance): {t['correct']} correct, {t['wrong']} wrong, "
            f"{t['unsure']} unsure of {t['total']}; {largest_loss(t)}.\n"
            "Generated code: re-run `tuner learn` instead of editing it.")


def largest_loss(t: dict) -> str:
    """The test split's largest loss of any answer, or that nothing was answered (no NaN)."""
    if not t.get("correct") and not t.get("wrong"):
        return "no answer on the test split"
    return f"largest loss of any answer {_fmt(t['max_wrong_speedup'])}"


def _report(s: dict, rows: list[dict], columns, best: Model, header: dict, plot: bool) -> str:
    b = s["best"]
    a, c = s["choices"]
    mine = [r for r in rows if r["max_depth"] == best.max_depth
            and r["min_samples_leaf"] == best.min_samples_leaf]
    meta = {k: header.get(k) for k in ("point", "gpu_name", "compute_capability",
                                        "shared_memory_per_block", "torch", "triton", "tuner",
                                        "feature_schema", "choices", "merged_from")}
    saved = s["bench_seconds_saved_per_answer"]
    st = s["settings"]
    big = b.get("test_dims_ge_512")
    parts = [
        f"# {s.get('namespace') or s['point']} heuristic: {s['gpu_name']}",
        "",
        f"Problems used: {s['problems']} (split {s['split']}); dropped: {s['dropped']}.",
        *(f"Warning: {w}." for w in s.get("warnings", ())),
        *(f"Rows kept of {f}: {note} (--keep)." for f, note in s.get("kept", {}).items()),
        (f"Domain: {s['domain']}; outside it the module answers None (autotune)." if s["domain"]
         else "Domain: every problem (no size restriction)."),
        "",
        "How it answers:",
        f"- the tree predicts log(time({a}) / time({c})), trained on that target clipped to "
        f"+-log({st['clip']});" + (" it also sees the derived features of contexts.py;" if st["derived_features"] else ""),
        ("- a leaf answers only if every training problem in it was won by the same choice"
         f" (by more than {st['leaf_margin']:.0%});" if st["leaf_agreement"]
         else "- every leaf answers (no leaf agreement);"),
        *([f"- a leaf of near-ties answers {a} (the default, free to take) when no training problem "
           f"in it was won by {c} by more than {st['default_tie']:.0%};"] if st.get("default_tie") is not None
          else []),
        (f"- {c} needs a predicted speedup >= {b[f'threshold_{c}']:.4f}, {a} >= {b[f'threshold_{a}']:.4f} "
         "(each the smallest with no wrong validation answer of that choice)."),
        "",
        f"Wrong means the answer was more than {s['tolerance']:.0%} slower than the other choice "
        "(tolerance: near-ties are right either way). max_wrong_speedup is the largest loss of any "
        "answer on the true times, within the tolerance or not; gmean_wrong_speedup is over wrong answers.",
        "",
        "Chosen model (most correct on validation): "
        f"max_depth={b['max_depth']}, "
        f"min_samples_leaf={b['min_samples_leaf']}, {b['leaves']} leaves ({b['answering_leaves']} answer).",
        "",
        markdown_table(mine, columns),
        "",
        (f"Test problems with every dimension >= 512 (the slice the A100 reference reports): "
         f"{big['correct']} correct, {big['wrong']} wrong, {big['unsure']} unsure of {big['total']}."
         if big else ""),
        "",
        "Test split per stream (a focused stream over-samples hard problems on purpose: compare "
        "the default stream's unsure rate with references drawn from a natural distribution):",
        "",
        markdown_table(stream_table(b["test_by_stream"]), STREAM_COLUMNS),
        "",
        (f"Benchmarking avoided per confident answer (measured cost of timing every choice once "
         f"during collection): {saved * 1e3:.1f} ms; per decision on average "
         f"(unsure ones still benchmark): {s['bench_seconds_saved_per_decision'] * 1e3:.1f} ms."
         if math.isfinite(saved) else "Benchmarking cost per problem was not recorded in these datasets."),
        "",
        "## Settings",
        "",
        "```json", json.dumps(st, indent=1, default=str), "```",
        "",
        "## Dataset metadata",
        "",
        "```json", json.dumps(meta, indent=1, default=str), "```",
        "",
    ]
    if plot:
        parts += ["![predicted vs measured](plot.png)", ""]
    if s.get("test_outliers"):
        parts += [f"## Test answers losing more than {OUTLIER_LOSS - 1:.0%}", "",
                  markdown_table(s["test_outliers"]), ""]
    if s.get("seed_check"):
        parts += ["## Other split seeds (the same rules; a robustness check, picks nothing)", "",
                  markdown_table(s["seed_check"], seed_columns(s["seed_check"])), ""]
    parts += ["## All models", "", markdown_table(rows, columns), ""]
    return "\n".join(parts)


def _plot(path: Path, p: Problems, parts: dict, best: Model, summary: dict) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    idx = parts["test"]
    raw_scores = best.tree.predict(p.X[idx].astype(np.float32))
    measured = p.target[idx]
    dec = decisions(best.scores(p.X[idx]), best.log_thresholds)
    wrong, _ = _outcome(dec, p.times[idx], summary["tolerance"])
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 5))
    for mask, color, label in (((dec == 0), "0.7", "unsure"), ((dec != 0) & ~wrong, "tab:green", "correct"),
                               (wrong, "tab:red", "wrong")):
        ax.scatter(np.exp(measured[mask]), np.exp(raw_scores[mask]), s=8, c=color, label=f"{label} ({mask.sum()})")
    for y, ls in ((_thr(best.log_thresholds[0]), "--"), (1 / _thr(best.log_thresholds[1]), ":")):
        if math.isfinite(y) and y > 0:
            ax.axhline(y, color="k", lw=0.8, ls=ls)
    ax.axvline(1.0, color="k", lw=0.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    a, b = p.choices
    ax.set_xlabel(f"measured speedup of {b!r} over {a!r}")
    ax.set_ylabel("predicted speedup (clipped target)")
    ax.set_title(f"test split: {summary['gpu_name']}")
    ax.legend(loc="upper left")
    # where the answers are over problem size (m*n*k): which regions the tree decides
    size = np.log2(p.X[idx, p.features.index("m")] * p.X[idx, p.features.index("n")]
                   * p.X[idx, p.features.index("k")]) if {"m", "n", "k"} <= set(p.features) else np.arange(len(idx))
    for val, color, label in ((1, "tab:blue", b), (-1, "tab:orange", a), (0, "0.7", "unsure")):
        m = dec == val
        ax2.scatter(size[m], np.exp(measured[m]), s=8, c=color, label=f"answers {label} ({m.sum()})")
    ax2.axhline(1.0, color="k", lw=0.8)
    ax2.set_yscale("log")
    ax2.set_xlabel("log2(m*n*k)")
    ax2.set_ylabel(f"measured speedup of {b!r}")
    ax2.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
