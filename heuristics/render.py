"""Render a fitted scikit-learn regression tree as a readable, dependency-free Python module.

The tree becomes nested ifs with its thresholds as float literals; inputs (raw and derived
features, computed by the same function as in training) are rounded to float32 as the tree
saw them, so the module answers exactly as the tree does.
"""
from __future__ import annotations

import ast
import math

from tuner.heuristics.dataset import NAME_RE

INDENT = "    "

# What a generated module may contain (check_data_only): its docstring, these imports,
# constants, and these functions calling only these names.
_IMPORTS = {"tuner.heuristics.interface", "json"}
_FUNCTIONS = {"score", "features_of", "decide", "leaf"}
_CONSTRUCTORS = {"Precondition", "float"}
_CALLS = {"inside", "derive_features", "as_float32", "in_domain", "two_way_choice", "leaf",
          "score", "features_of", "all", "zip", "float", "loads", "get"}


def docstring(text: str) -> str:
    """A triple-quoted literal that evaluates to `text` exactly, whatever it holds (data from a
    dataset header never closes the string)."""
    lit = '"""' + text.replace("\\", "\\\\").replace('"', '\\"') + '"""'
    if ast.literal_eval(lit) != text:      # e.g. a lone carriage return: repr is exact
        lit = repr(text)
    return lit


def _literal_like(node) -> bool:
    if isinstance(node, ast.Call):
        return (isinstance(node.func, ast.Name) and node.func.id in _CONSTRUCTORS
                and all(_literal_like(a) for a in node.args)
                and all(_literal_like(k.value) for k in node.keywords))
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_literal_like(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _literal_like(k) for k in node.keys) and all(
            _literal_like(v) for v in node.values)
    try:
        ast.literal_eval(node)
        return True
    except ValueError:
        return False


def check_data_only(source: str) -> None:
    """Raise ValueError unless a rendered module is only its docstring, the interface imports,
    constants and the expected functions: importing it runs no code from its data."""
    tree = ast.parse(source)
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            continue
        if isinstance(node, ast.ImportFrom) and node.module in _IMPORTS and node.level == 0:
            continue
        if isinstance(node, ast.Import) and all(a.name in _IMPORTS and a.asname is None for a in node.names):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and _literal_like(node.value):
            continue
        if isinstance(node, ast.FunctionDef) and node.name in _FUNCTIONS and not node.decorator_list:
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal,
                                    ast.ClassDef, ast.Lambda)):
                    raise ValueError(f"generated module: {type(sub).__name__} in {node.name}()")
                if isinstance(sub, ast.Call):
                    f = sub.func
                    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                    if name not in _CALLS:
                        raise ValueError(f"generated module: {node.name}() calls {ast.unparse(f)[:60]}")
            continue
        raise ValueError(f"generated module: unexpected statement at line {node.lineno}: "
                         f"{ast.unparse(node)[:80]}")


def _lit(x: float) -> str:
    x = float(x)
    if math.isinf(x):
        return "float('inf')" if x > 0 else "float('-inf')"
    return repr(x)


def tree_source(tree, features: list[str], values=None, *, depth: int = 1,
                ranged: bool = False) -> list[str]:
    """Body lines of `score(f)` for a fitted DecisionTreeRegressor. `values` (per node)
    replaces what a leaf returns, e.g. 0.0 for leaves that must stay unsure. ranged: an
    answering leaf answers only inside its training ranges (the module's RANGES[node], over
    FEATURES), 0.0 outside."""
    t = tree.tree_
    leaf_value = values if values is not None else t.value[:, 0, 0]
    lines: list[str] = []

    def node(i: int, level: int) -> None:
        pad = INDENT * level
        if t.children_left[i] == -1:        # a leaf: its (mean target) score
            v = _lit(leaf_value[i])
            if ranged and leaf_value[i] != 0:
                lines.append(f"{pad}return {v} if inside(f, FEATURES, RANGES[{i}]) else 0.0")
            else:
                lines.append(f"{pad}return {v}")
            return
        name = features[t.feature[i]]
        lines.append(f"{pad}if f[{name!r}] <= {_lit(t.threshold[i])}:")
        node(t.children_left[i], level + 1)
        lines.append(f"{pad}else:")
        node(t.children_right[i], level + 1)

    node(0, depth)
    return lines


def used_features(tree, features: list[str]) -> list[str]:
    """The features the tree splits on, in the order of `features`."""
    t = tree.tree_
    used = {int(f) for f, left in zip(t.feature, t.children_left) if left != -1}
    return [name for i, name in enumerate(features) if i in used]


def _tuple_lines(name: str, items) -> list[str]:
    if not items:
        return [f"{name} = ()"]
    return [f"{name} = ("] + [f"    {item!r}," for item in items] + [")"]


def render_module(tree, values, features: list[str], header: dict, log_thresholds,
                  choices: tuple[str, str], *, raw=None, derived=(), domain=None,
                  training=None, doc: str = "", ranges=None) -> str:
    """Source of a heuristic module for the point and GPU described by a dataset header.
    log_thresholds: (to answer choices[1], to answer choices[0]). ranges: (lo, hi) per node
    and feature (fit.leaf_ranges): each answering leaf answers only inside its own, so the
    module reads every feature, not only those the tree splits on."""
    a, b = choices
    for c in choices:   # they name constants (LOG_THRESHOLD_<CHOICE>)
        if not isinstance(c, str) or not NAME_RE.fullmatch(c):
            raise ValueError(f"choice {str(c)[:60]!r} is not a plain name")
    cap = tuple(int(x) for x in header.get("compute_capability", (0, 0)))
    pre = (f"Precondition(point={header['point']!r}, capability={cap!r}, "
           f"shared_memory={int(header.get('shared_memory_per_block', 0))}, "
           f"feature_schema={int(header.get('feature_schema', 1))}, "
           f"gpu_name={header.get('gpu_name', '')!r})")
    used = used_features(tree, features) if ranges is None else list(features)
    derived_names = {n for n, _ in derived}
    if not any(u in derived_names for u in used):
        derived = ()                  # nothing derived is needed: read the raw features only
    raw = tuple(raw) if derived and raw else tuple(u for u in used if u not in derived_names)
    pos, neg = log_thresholds
    out = [
        docstring((doc or "Generated heuristic module.") + "\n"),
        "from tuner.heuristics.interface import (Precondition, as_float32, derive_features, in_domain,",
        "                                        inside, two_way_choice)" if ranges is not None else
        "                                        two_way_choice)",
        "",
        f"PRECONDITION = {pre}",
        f"CHOICES = ({a!r}, {b!r})",
        "# outside this domain (minimum per feature) the heuristic is unsure",
        f"DOMAIN = {dict(domain or {})!r}",
        *_tuple_lines("RAW", raw),
        "# computed from RAW, in order (see tuner.heuristics.contexts)",
        *_tuple_lines("DERIVED", list(derived)),
        f"FEATURES = {tuple(used)!r}",
        f"# Answer {b!r} when the predicted speedup is at least exp(LOG_THRESHOLD_{b.upper()}), {a!r} likewise.",
        f"LOG_THRESHOLD_{b.upper()} = {_lit(pos)}",
        f"LOG_THRESHOLD_{a.upper()} = {_lit(neg)}",
        f"TRAINING = {dict(training or {})!r}",
        *_ranges_lines(tree, values, ranges),
        "",
        "",
        "def score(f):",
        f'    """Predicted log(time of {a!r} / time of {b!r}): above 0 favours {b!r}; exactly 0 in',
        '    leaves whose training problems did not all agree' + (
            " or outside the leaf's training ranges (RANGES)" if ranges is not None else "")
        + ' (learned with a default tie, a leaf of',
        f'    near-ties scores just below 0: it answers {a!r})."""',
        *tree_source(tree, features, values, ranged=ranges is not None),
        "",
        "",
        "def features_of(features):",
        '    """The tree\'s inputs from the point\'s feature dict, rounded as the tree saw them."""',
        "    f = derive_features(features, RAW, DERIVED)",
        "    return {name: as_float32(f[name]) for name in FEATURES}",
        "",
        "",
        "def decide(features):",
        f'    """{b!r}, {a!r}, or None when unsure. `features`: the point\'s feature dict."""',
        "    if not in_domain(features, DOMAIN):",
        "        return None",
        f"    return two_way_choice(score(features_of(features)), "
        f"LOG_THRESHOLD_{b.upper()}, positive={b!r},",
        f"                          negative={a!r}, log_threshold_negative=LOG_THRESHOLD_{a.upper()})",
        "",
    ]
    source = "\n".join(out)
    check_data_only(source)
    return source


def _ranges_lines(tree, values, ranges) -> list[str]:
    if ranges is None:
        return []
    t = tree.tree_
    lo, hi = ranges
    vals = values if values is not None else t.value[:, 0, 0]
    out = ["# per answering leaf (node id): each FEATURES value's (minimum, maximum) over the leaf's",
           "# training problems (an infinite bound: a leaf of the first choice left open toward",
           "# larger problems, TRAINING['open_above'] / ['open_below']); outside them the leaf is unsure",
           "RANGES = {"]
    for i in range(t.node_count):
        if t.children_left[i] == -1 and vals[i] != 0:
            out.append(f"    {i}: (({', '.join(_lit(x) for x in lo[i])},),")
            out.append(f"        ({', '.join(_lit(x) for x in hi[i])},)),")
    return out + ["}"]


def load_module(path, name: str | None = None):
    """Import a rendered module from a file (tests, `tuner learn --check`)."""
    import importlib.util
    from pathlib import Path

    path = Path(path)
    spec = importlib.util.spec_from_file_location(name or f"_heuristic_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
