"""Render a fitted scikit-learn regression tree as a readable, dependency-free Python module.

The tree becomes nested ifs with its thresholds as float literals; inputs are rounded to
float32 (as the tree saw them in training), so the module answers exactly as the tree does.
"""
from __future__ import annotations

import math

INDENT = "    "


def _lit(x: float) -> str:
    x = float(x)
    if math.isinf(x):
        return "float('inf')" if x > 0 else "float('-inf')"
    return repr(x)


def tree_source(tree, features: list[str], *, depth: int = 1) -> list[str]:
    """Body lines of `score(f)` for a fitted DecisionTreeRegressor."""
    t = tree.tree_
    lines: list[str] = []

    def node(i: int, level: int) -> None:
        pad = INDENT * level
        if t.children_left[i] == -1:        # a leaf: the mean target of its training rows
            lines.append(f"{pad}return {_lit(t.value[i][0][0])}")
            return
        name = features[t.feature[i]]
        lines.append(f"{pad}if f[{name!r}] <= {_lit(t.threshold[i])}:")
        node(t.children_left[i], level + 1)
        lines.append(f"{pad}else:")
        node(t.children_right[i], level + 1)

    node(0, depth)
    return lines


def used_features(tree, features: list[str]) -> list[str]:
    used = {int(f) for f, left in zip(tree.tree_.feature, tree.tree_.children_left) if left != -1}
    return [name for i, name in enumerate(features) if i in used]


def render_module(tree, features: list[str], header: dict, log_threshold: float,
                  choices: tuple[str, str], *, doc: str = "") -> str:
    """Source of a heuristic module for the point and GPU described by a dataset header."""
    a, b = choices
    cap = tuple(int(x) for x in header.get("compute_capability", (0, 0)))
    pre = (f"Precondition(point={header['point']!r}, capability={cap!r}, "
           f"shared_memory={int(header.get('shared_memory_per_block', 0))}, "
           f"feature_schema={int(header.get('feature_schema', 1))}, "
           f"gpu_name={header.get('gpu_name', '')!r})")
    used = used_features(tree, features)
    threshold = math.exp(log_threshold) if math.isfinite(log_threshold) else math.inf
    out = [
        f'"""{doc or "Generated heuristic module."}\n"""',
        "from tuner.heuristics.interface import Precondition, as_float32, two_way_choice",
        "",
        f"PRECONDITION = {pre}",
        f"CHOICES = ({a!r}, {b!r})",
        f"FEATURES = {tuple(used)!r}",
        "# Answer only when the predicted speedup is at least THRESHOLD (= exp(LOG_THRESHOLD)).",
        f"LOG_THRESHOLD = {_lit(log_threshold)}",
        f"THRESHOLD = {_lit(threshold)}",
        "",
        "",
        "def score(f):",
        f'    """Predicted log(time of {a!r} / time of {b!r}): above 0 favours {b!r}."""',
        *tree_source(tree, features),
        "",
        "",
        "def decide(features):",
        f'    """{b!r}, {a!r}, or None when unsure. `features`: the point\'s feature dict."""',
        "    f = {name: as_float32(features[name]) for name in FEATURES}",
        f"    return two_way_choice(score(f), LOG_THRESHOLD, positive={b!r}, negative={a!r})",
        "",
    ]
    return "\n".join(out)


def load_module(path, name: str | None = None):
    """Import a rendered module from a file (tests, `tuner learn --check`)."""
    import importlib.util
    from pathlib import Path

    path = Path(path)
    spec = importlib.util.spec_from_file_location(name or f"_heuristic_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
