"""The rules that decide when a learned heuristic answers: tolerance, per-choice thresholds,
leaf agreement, derived features and the domain; and the shipped H100 module answering
exactly as its tree on the committed dataset."""
import math
import random
from pathlib import Path

import numpy as np
import pytest

from tuner.heuristics.dataset import read_datasets
from tuner.heuristics.contexts import DERIVED, PadMMContext
from tuner.heuristics.learn import (build_problems, decisions, evaluate, fit_grid, learn, leaf_values,
                                    pick_thresholds, split)
from tuner.heuristics.render import load_module, render_module
from tuner.heuristics.recipe import FIXED_RULES

from .synthetic import synthetic_problem, write_synthetic

ROOT = Path(__file__).resolve().parents[2]
ARTIFACT = ROOT / "heuristics" / "artifacts" / "pad_mm_h100.py"
# the files the shipped module was learned from, in the order tuner learn saw them (shell glob)
SHIPPED_FROM = ("pad_mm_h100_s5", "pad_mm_h100_s6")
DATA = [ROOT / "data" / "pad_mm" / f"{name}.jsonl.gz" for name in SHIPPED_FROM]


def test_per_choice_thresholds_keep_one_choices_mistake_from_silencing_the_other():
    # times (orig, pad); score > 0 predicts pad. One confident "orig" answer is wrong.
    times = np.array([[2.0, 1.0], [3.0, 1.0], [1.0, 2.0], [1.0, 3.0], [2.0, 1.0]])
    scores = np.array([0.2, 0.3, -0.4, -0.6, -0.5])
    pos, neg = pick_thresholds(scores, times, per_choice=True)
    assert pos == 0.0 and neg == pytest.approx(0.6)        # pad answers freely, orig needs 0.6
    one, _ = pick_thresholds(scores, times, per_choice=False)
    assert one == pytest.approx(0.6)                        # one threshold: pad silenced too
    per = evaluate(scores, times, (pos, neg))
    shared = evaluate(scores, times, one)
    assert (per["correct"], per["wrong"]) == (3, 0) and (shared["correct"], shared["wrong"]) == (1, 0)


def test_tolerance_lets_near_ties_answer_and_reports_their_loss():
    times = np.array([[1.0, 1.03], [2.0, 1.0], [1.0, 2.0]])   # the first: pad 3% slower
    scores = np.array([0.8, 0.5, -0.5])
    assert pick_thresholds(scores, times, 0.0) == (math.inf, 0.0)     # strict: pad never answers
    pos, neg = pick_thresholds(scores, times, 0.05)
    assert (pos, neg) == (0.0, 0.0)
    r = evaluate(scores, times, (pos, neg), tolerance=0.05)
    assert (r["correct"], r["wrong"], r["unsure"]) == (3, 0, 0)
    assert r["max_wrong_speedup"] == pytest.approx(1.03)              # the loss stays visible


def test_leaf_agreement_silences_leaves_whose_problems_disagree():
    from sklearn.tree import DecisionTreeRegressor
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0], [1.0]])
    y = np.array([1.0, 1.0, -0.2, -1.0, -1.0, -1.0])        # left leaf: mean > 0, one "orig" win
    tree = DecisionTreeRegressor(max_depth=1).fit(X, y)
    agree = leaf_values(tree, X.astype(np.float32), y, agreement=True)
    plain = leaf_values(tree, X.astype(np.float32), y, agreement=False)
    left, right = tree.apply(np.array([[0.0], [1.0]], dtype=np.float32))
    assert plain[left] > 0 and agree[left] == 0.0
    assert agree[right] == plain[right] == pytest.approx(-1.0)
    # the rendered module is unsure in the disagreeing leaf, confident in the other
    header = {"point": "p", "compute_capability": [9, 0], "shared_memory_per_block": 1}
    src = render_module(tree, agree, ["x"], header, (0.0, 0.0), ("orig", "pad"))
    ns: dict = {}
    exec(compile(src, "m", "exec"), ns)
    assert ns["decide"]({"x": 0}) is None and ns["decide"]({"x": 1}) == "orig"
    src = render_module(tree, plain, ["x"], header, (0.0, 0.0), ("orig", "pad"))
    exec(compile(src, "m", "exec"), ns)
    assert ns["decide"]({"x": 0}) == "pad"


def test_default_tie_lets_a_leaf_of_near_ties_answer_the_default_choice():
    from sklearn.tree import DecisionTreeRegressor
    X = np.array([[0.0]] * 3 + [[1.0]] * 3 + [[2.0]] * 3)
    # left: the second choice wins by <= 3% or loses (ties); middle: it wins once by 8%;
    # right: the first choice wins clearly
    y = np.log(np.array([1.03, 0.99, 1.01, 1.08, 1.0, 0.98, 0.5, 0.6, 0.55]))
    tree = DecisionTreeRegressor(max_depth=2, min_samples_leaf=3).fit(X, y)
    X32 = X.astype(np.float32)
    left, mid, right = tree.apply(np.array([[0.0], [1.0], [2.0]], dtype=np.float32))
    plain = leaf_values(tree, X32, y, agreement=True, margin=0.10)
    assert plain[left] == plain[mid] == 0.0 and plain[right] < 0     # ties: silent
    tie = leaf_values(tree, X32, y, agreement=True, margin=0.10, default_tie=0.05)
    # the ties answer the first choice, scored by their headroom under 5%; the leaf with an
    # 8% win of the second choice stays silent; a clear leaf keeps its value
    assert tie[left] == pytest.approx(-(math.log(1.05) - math.log(1.03)))
    assert tie[mid] == 0.0 and tie[right] == plain[right]


def test_learn_renders_a_module_for_a_named_question(tmp_path):
    write_synthetic(tmp_path / "d.jsonl", 300, seed=4)
    s = learn([tmp_path / "d.jsonl"], tmp_path / "out", depths=(3,), leaves=(3,), plot=False,
              namespace="pad_mm.trial", default_tie=0.03)
    assert s["module"] == "pad_mm_trial_h100.py" and s["settings"]["default_tie"] == 0.03
    mod = load_module(tmp_path / "out" / "pad_mm_trial_h100.py")
    assert mod.PRECONDITION.point == "pad_mm.trial"
    assert "near-ties answers orig" in (tmp_path / "out" / "report.md").read_text()
    from tuner.heuristics.learn import LearnError
    with pytest.raises(LearnError, match="must be the dataset's point 'pad_mm'"):
        learn([tmp_path / "d.jsonl"], tmp_path / "o2", depths=(3,), leaves=(3,), plot=False,
              namespace="mm_backend.bare")
    for bad in ("pad_mm.", "pad_mm..x", "pad_mm.a b", "pad_mm_x", "Pad_mm.x", "pad_mm.Bare"):
        with pytest.raises(LearnError, match="must be the dataset's point"):
            learn([tmp_path / "d.jsonl"], tmp_path / "o4", depths=(3,), leaves=(3,), plot=False,
                  namespace=bad)
    with pytest.raises(LearnError, match="--default-tie needs leaf agreement"):
        learn([tmp_path / "d.jsonl"], tmp_path / "o5", depths=(3,), leaves=(3,), plot=False,
              default_tie=0.02, agreement=False)
    assert not any((tmp_path / o).exists() for o in ("o2", "o3", "o4", "o5"))
    with pytest.raises(LearnError, match="--default-tie must be a fraction"):
        learn([tmp_path / "d.jsonl"], tmp_path / "o3", depths=(3,), leaves=(3,), plot=False,
              default_tie=1.5)


def test_module_with_derived_features_answers_exactly_as_the_tree(tmp_path):
    write_synthetic(tmp_path / "d.jsonl", 300, seed=4)
    ds = read_datasets([tmp_path / "d.jsonl"])
    p = build_problems(ds, derived=DERIVED["pad_mm"])
    assert "copy_per_io" in p.features and len(p.features) == len(p.raw_features) + len(DERIVED["pad_mm"])
    # a noisy target so the tree splits on many features, derived ones included
    p.times[:, 1] *= np.exp(np.random.default_rng(0).normal(0, 0.3, len(p)))
    parts = split(len(p), 0)
    (m,) = fit_grid(p, parts, (10,), (2,), 0.02, 0, clip=1.5)
    src = render_module(m.tree, m.values, p.features, ds.header, m.log_thresholds, p.choices,
                        raw=p.raw_features, derived=p.derived)
    (tmp_path / "m.py").write_text(src)
    mod = load_module(tmp_path / "m.py")
    assert set(mod.FEATURES) & {n for n, _ in p.derived}, "the tree should use a derived feature"
    want = decisions(m.scores(p.X), m.log_thresholds)
    names = {1: "pad", -1: "orig", 0: None}
    rows = {r["problem"]: r for r in ds.rows if r["choice"] == "orig"}
    for i, pid in enumerate(p.ids):
        assert mod.decide(rows[pid]) == names[int(want[i])], pid


def test_domain_restricts_learning_and_answers(tmp_path):
    write_synthetic(tmp_path / "d.jsonl", 400, seed=5)
    s = learn([tmp_path / "d.jsonl"], tmp_path / "out", depths=(3,), leaves=(3,), min_dim=200,
              plot=False, min_problems=10)
    assert s["domain"] == {"m": 200, "k": 200, "n": 200} and s["dropped"]["out_of_domain"] > 0
    assert s["problems"] + s["dropped"]["out_of_domain"] == 400
    mod = load_module(tmp_path / "out" / "pad_mm_h100.py")
    assert mod.DOMAIN == {"m": 200, "k": 200, "n": 200}
    rng = random.Random(1)
    answered = 0
    for _ in range(300):
        ctx = synthetic_problem(rng)
        got = mod.decide(ctx.features())
        if min(ctx.m, ctx.k, ctx.n) < 200:
            assert got is None
        answered += got is not None
    assert answered > 0
    small = PadMMContext("mm", 100, 1000, 1000, "float16")
    assert mod.decide(small.features()) is None


@pytest.mark.skipif(not ARTIFACT.exists() or not all(f.exists() for f in DATA),
                    reason="shipped H100 module or data missing")
def test_shipped_h100_module_answers_exactly_as_its_tree_on_the_committed_data():
    mod = load_module(ARTIFACT)
    t = mod.TRAINING
    ds = read_datasets(DATA)
    p = build_problems(ds, min_reps=t["min_reps"], max_spread=t["max_spread"],
                       derived=DERIVED["pad_mm"] if t["derived_features"] else (), min_dim=t["min_dim"])
    parts = split(len(p), t["seed"])
    # learned by the recipe that remains: one tree, the margin leaf rule, validation thresholds
    assert {k: t[k] for k in FIXED_RULES} == FIXED_RULES and not hasattr(mod, "MEMBERS")
    (m,) = fit_grid(p, parts, (t["max_depth"],), (t["min_samples_leaf"],), t["tolerance"], t["seed"],
                    clip=t["clip"], agreement=t["leaf_agreement"], per_choice=t["per_choice_thresholds"],
                    leaf_margin=t["leaf_margin"])
    assert (mod.LOG_THRESHOLD_PAD, mod.LOG_THRESHOLD_ORIG) == m.log_thresholds
    want = decisions(m.scores(p.X), m.log_thresholds)
    names = {1: "pad", -1: "orig", 0: None}
    rows = {r["problem"]: r for r in ds.rows if r["choice"] == "orig"}
    got = [mod.decide(rows[pid]) for pid in p.ids]
    assert got == [names[int(w)] for w in want]
    assert sum(g is not None for g in got) > len(got) // 6
