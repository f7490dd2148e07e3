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


def _three_leaf_tree():
    """A tree with one leaf per x value (0, 1, 2), fitted on hand-made log speedups of pad."""
    from sklearn.tree import DecisionTreeRegressor
    y = np.array([0.5, 0.5, 0.01, -0.01,       # x=0: pad wins twice clearly, two near-ties (1%)
                  -0.5, -0.5, -0.5, 0.05,      # x=1: orig wins clearly, but pad won one by 5%
                  -0.4, -0.3, 0.015, -0.01])   # x=2: orig wins clearly or ties (pad ahead 1.5%)
    X = np.repeat([0.0, 1.0, 2.0], 4)[:, None]
    tree = DecisionTreeRegressor(max_depth=2).fit(X, y)
    leaves = tree.apply(np.array([[0.0], [1.0], [2.0]], dtype=np.float32))
    assert len(set(leaves)) == 3
    return tree, X.astype(np.float32), y, leaves


def test_no_loss_leaf_rule_lets_near_ties_answer_where_the_margin_rule_is_silent():
    tree, X, y, (tie_pad, lost, tie_orig) = _three_leaf_tree()
    margin = leaf_values(tree, X, y, margin=0.1, rule="margin")
    no_loss = leaf_values(tree, X, y, margin=0.1, rule="no-loss", tolerance=0.02)
    # near-ties silence both leaves under the margin rule; within the 2% tolerance no problem
    # loses under the leaf's choice, so the no-loss rule answers (pad and orig respectively)
    assert margin[tie_pad] == 0.0 and margin[tie_orig] == 0.0
    assert no_loss[tie_pad] > 0 and no_loss[tie_orig] < 0
    assert no_loss[tie_pad] == pytest.approx(tree.tree_.value[tie_pad, 0, 0])
    # a problem that loses by more than the tolerance (pad won by 5%) keeps the leaf silent
    assert margin[lost] == 0.0 and no_loss[lost] == 0.0
    assert leaf_values(tree, X, y, rule="no-loss", tolerance=0.06)[lost] < 0
    # a minimum share of clear wins (> the 10% margin): 2 of 4 in the pad leaf, 2 of 4 in orig's
    half = leaf_values(tree, X, y, margin=0.1, rule="no-loss", tolerance=0.02, min_clear=0.5)
    most = leaf_values(tree, X, y, margin=0.1, rule="no-loss", tolerance=0.02, min_clear=0.75)
    assert half[tie_pad] > 0 and half[tie_orig] < 0 and most[tie_pad] == most[tie_orig] == 0.0


def test_learn_records_the_leaf_rule_and_refuses_an_unknown_one(tmp_path):
    from tuner.heuristics.learn import LearnError
    write_synthetic(tmp_path / "d.jsonl", 200, seed=6)
    s = learn([tmp_path / "d.jsonl"], tmp_path / "out", depths=(3,), leaves=(5,), plot=False,
              leaf_rule="no-loss", leaf_min_clear=0.5)
    assert (s["settings"]["leaf_rule"], s["settings"]["leaf_min_clear"]) == ("no-loss", 0.5)
    mod = load_module(tmp_path / "out" / "pad_mm_h100.py")
    assert mod.TRAINING["leaf_rule"] == "no-loss"
    assert "none of its training problems loses more than 2%" in (tmp_path / "out" / "report.md").read_text()
    for bad in ({"leaf_rule": "vote"}, {"leaf_min_clear": 1.5}):
        with pytest.raises(LearnError, match="--leaf-"):
            learn([tmp_path / "d.jsonl"], tmp_path / "bad", depths=(3,), leaves=(5,), plot=False, **bad)
    assert not (tmp_path / "bad").exists()


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
    (m,) = fit_grid(p, parts, (t["max_depth"],), (t["min_samples_leaf"],), t["tolerance"], t["seed"],
                    clip=t["clip"], agreement=t["leaf_agreement"], per_choice=t["per_choice_thresholds"],
                    leaf_margin=t.get("leaf_margin", 0.0), leaf_rule=t.get("leaf_rule", "margin"),
                    leaf_min_clear=t.get("leaf_min_clear", 0.0), ensemble=t.get("ensemble", 1),
                    calibration=t.get("calibration", "thresholds"), leaf_min_val=(t.get("leaf_min_val", 0),))
    assert len(getattr(mod, "MEMBERS", ())) == len(m.members)
    assert (mod.LOG_THRESHOLD_PAD, mod.LOG_THRESHOLD_ORIG) == m.log_thresholds
    want = decisions(m.scores(p.X), m.log_thresholds)
    names = {1: "pad", -1: "orig", 0: None}
    rows = {r["problem"]: r for r in ds.rows if r["choice"] == "orig"}
    got = [mod.decide(rows[pid]) for pid in p.ids]
    assert got == [names[int(w)] for w in want]
    assert sum(g is not None for g in got) > len(got) // 6


def _noisy_problems(tmp_path, n=300, seed=8):
    write_synthetic(tmp_path / "d.jsonl", n, seed=seed)
    ds = read_datasets([tmp_path / "d.jsonl"])
    p = build_problems(ds, derived=DERIVED["pad_mm"])
    # noise so bootstrap trees differ and some leaves disagree
    p.times[:, 1] *= np.exp(np.random.default_rng(seed).normal(0, 0.3, len(p)))
    return ds, p


def test_ensemble_answers_only_where_every_tree_agrees(tmp_path):
    _, p = _noisy_problems(tmp_path)
    parts = split(len(p), 0)
    (single,) = fit_grid(p, parts, (8,), (3,), 0.02, 0, leaf_margin=0.0)
    (ens,) = fit_grid(p, parts, (8,), (3,), 0.02, 0, leaf_margin=0.0, ensemble=4)
    assert len(ens.members) == 3 and not single.members
    # the main tree is the same tree; the members were fitted on different bootstrap samples
    assert np.array_equal(ens.values, single.values)
    assert len({m.tree_.node_count for m, _ in ens.members} | {ens.tree.tree_.node_count}) > 1
    X = p.X.astype(np.float32)
    main = ens.values[ens.tree.apply(X)]
    member = [v[t.apply(X)] for t, v in ens.members]
    agree = np.all([np.sign(m) == np.sign(main) for m in member], axis=0) & (main != 0)
    got = ens.scores(p.X)
    assert np.array_equal(got, np.where(agree, main, 0.0))
    assert (~agree & (main != 0)).any(), "some member should veto a main-tree answer"
    # seeded: the same ensemble again
    (again,) = fit_grid(p, parts, (8,), (3,), 0.02, 0, leaf_margin=0.0, ensemble=4)
    assert np.array_equal(again.scores(p.X), got)
    # thresholds are picked on the agreed scores: no wrong validation answer at the tolerance
    assert ens.rows["val"]["wrong"] == 0


def test_rendered_ensemble_module_answers_exactly_as_the_model_on_the_whole_dataset(tmp_path):
    ds, p = _noisy_problems(tmp_path, seed=9)
    parts = split(len(p), 0)
    (m,) = fit_grid(p, parts, (10,), (2,), 0.02, 0, clip=1.5, leaf_margin=0.05, ensemble=3)
    src = render_module(m.tree, m.values, p.features, ds.header, m.log_thresholds, p.choices,
                        raw=p.raw_features, derived=p.derived, members=m.members)
    assert "def score_2(f):" in src and "MEMBERS = (score_1, score_2,)" in src and "sklearn" not in src
    (tmp_path / "m.py").write_text(src)
    mod = load_module(tmp_path / "m.py")
    want = decisions(m.scores(p.X), m.log_thresholds)
    names = {1: "pad", -1: "orig", 0: None}
    rows = {r["problem"]: r for r in ds.rows if r["choice"] == "orig"}
    got = [mod.decide(rows[pid]) for pid in p.ids]
    assert got == [names[int(w)] for w in want]
    main_only = decisions(m.values[m.tree.apply(p.X.astype(np.float32))], m.log_thresholds)
    assert (main_only != want).any(), "the members must change some answer for this to test them"
    assert sum(g is not None for g in got) > 0


def test_learn_ensemble_option_end_to_end(tmp_path):
    from click.testing import CliRunner
    from tuner.cli import main
    write_synthetic(tmp_path / "d.jsonl", 200, seed=6)
    s = learn([tmp_path / "d.jsonl"], tmp_path / "out", depths=(2, 4), leaves=(1, 5), plot=False,
              ensemble=3, check_seeds=(1,))
    assert s["settings"]["ensemble"] == 3 and len(s["seed_check"]) == 2
    mod = load_module(tmp_path / "out" / "pad_mm_h100.py")
    assert mod.TRAINING["ensemble"] == 3 and len(mod.MEMBERS) == 2
    assert "ensemble: 2 more trees" in (tmp_path / "out" / "report.md").read_text()
    rng = random.Random(3)
    for _ in range(100):
        ctx = synthetic_problem(rng)
        assert mod.decide(ctx.features()) in (None, "pad" if ctx.k >= 600 and ctx.dtype != "float32" else "orig")
    r = CliRunner().invoke(main, ["learn", str(tmp_path / "d.jsonl"), "--out", str(tmp_path / "bad"),
                                  "--ensemble", "0", "--max-depth", "2", "--min-samples-leaf", "5"])
    assert r.exit_code != 0 and "--ensemble" in r.output and not (tmp_path / "bad").exists()
    r = CliRunner().invoke(main, ["learn", str(tmp_path / "d.jsonl"), "--out", str(tmp_path / "o2"),
                                  "--ensemble", "2", "--max-depth", "2", "--min-samples-leaf", "5", "--no-plot"])
    assert r.exit_code == 0, r.output
    assert len(load_module(tmp_path / "o2" / "pad_mm_h100.py").MEMBERS) == 1


def test_cli_leaf_rule_option_reaches_learn(tmp_path):
    from click.testing import CliRunner
    from tuner.cli import main
    write_synthetic(tmp_path / "d.jsonl", 200, seed=6)
    base = ["learn", str(tmp_path / "d.jsonl"), "--max-depth", "3", "--min-samples-leaf", "5", "--no-plot"]
    r = CliRunner().invoke(main, base + ["--out", str(tmp_path / "o"), "--leaf-rule", "no-loss"])
    assert r.exit_code == 0, r.output
    assert load_module(tmp_path / "o" / "pad_mm_h100.py").TRAINING["leaf_rule"] == "no-loss"
    r = CliRunner().invoke(main, base + ["--out", str(tmp_path / "bad"), "--leaf-rule", "vote"])
    assert r.exit_code != 0 and "--leaf-rule" in r.output and not (tmp_path / "bad").exists()
