"""Per-leaf validation (`calibration="leaves"`): silence exactly the leaves that answer wrong
on the validation split instead of raising a choice's global threshold past its worst wrong
answer, which silences every leaf of that choice whose score is saturated at the clip."""
import numpy as np
import pytest

from tuner.heuristics.learn import (DEFAULT_LEAF_MIN_VAL, Problems, decisions, fit_grid, learn,
                                    leaf_errors, silence_leaves, two_fold)
from tuner.heuristics.render import load_module, render_module

from .synthetic import write_synthetic

HEADER = {"point": "p", "compute_capability": [9, 0], "shared_memory_per_block": 1}


def _four_leaf_problems():
    """In training pad wins x = 0 by 1.6x and x = 1 by 1.3x, orig wins x = 2 by 1.6x and x = 3
    by 1.3x: four leaves, the 1.6x ones saturated at the clip (1.5). One validation problem at
    x = 0 is won by orig (1.3x); validation never sees x = 3."""
    train_x = np.repeat([0.0, 1.0, 2.0, 3.0], 5)
    win = {0.0: [1.6, 1.0], 1.0: [1.3, 1.0], 2.0: [1.0, 1.6], 3.0: [1.0, 1.3]}
    train_t = np.array([win[x] for x in train_x])
    val_x = np.array([0.0, 0.0, 1.0, 1.0, 2.0, 2.0])
    val_t = np.array([[1.6, 1.0], [1.0, 1.3], [1.3, 1.0], [1.3, 1.0], [1.0, 1.6], [1.0, 1.6]])
    X = np.concatenate([train_x, val_x])[:, None]
    times = np.concatenate([train_t, val_t])
    n = len(X)
    p = Problems([f"s0-{i}" for i in range(n)], X, times, np.full(n, 0.01), ["x"], ("orig", "pad"),
                 raw_features=["x"])
    tr = np.arange(len(train_x))
    va = np.arange(len(train_x), n)
    return p, {"train": tr, "val": va, "test": va}


def _answers(m, xs):
    return decisions(m.scores(np.array(xs, dtype=np.float64)[:, None]), m.log_thresholds).tolist()


def test_per_leaf_validation_silences_only_the_leaf_that_erred_where_thresholds_silence_the_choice():
    p, parts = _four_leaf_problems()
    kw = dict(clip=1.5, leaf_margin=0.1)
    (glob,) = fit_grid(p, parts, (3,), (1,), 0.02, 0, **kw)
    (leaf,) = fit_grid(p, parts, (3,), (1,), 0.02, 0, calibration="leaves", leaf_min_val=(0,), **kw)
    # global thresholds: the wrong pad answer at the saturated score leaves no pad score above
    # it, so pad never answers, also at x = 1 where validation found nothing wrong
    assert _answers(glob, [0, 1, 2, 3]) == [0, 0, -1, -1]
    assert glob.rows["val"]["correct"] == 2
    # per-leaf: only x = 0's leaf goes silent; no threshold is needed afterwards
    assert _answers(leaf, [0, 1, 2, 3]) == [0, 1, -1, -1]
    assert leaf.log_thresholds == (0.0, 0.0)
    assert (leaf.rows["val"]["correct"], leaf.rows["val"]["wrong"]) == (4, 0)
    assert leaf.calibration["silenced_leaves"] == leaf.calibration["erring_leaves"] == 1
    # K = 1 per half (2 validation problems): x = 3's leaf, never validated, is silenced too
    (k1,) = fit_grid(p, parts, (3,), (1,), 0.02, 0, calibration="leaves", leaf_min_val=(1,), **kw)
    assert _answers(k1, [0, 1, 2, 3]) == [0, 1, -1, 0]
    assert k1.calibration["silenced_leaves"] == 2


def test_rendered_module_with_silenced_leaves_answers_exactly_as_the_model(tmp_path):
    p, parts = _four_leaf_problems()
    (m,) = fit_grid(p, parts, (3,), (1,), 0.02, 0, clip=1.5, calibration="leaves", leaf_min_val=(1,))
    (tmp_path / "m.py").write_text(render_module(m.tree, m.values, ["x"], HEADER, m.log_thresholds,
                                                 p.choices))
    mod = load_module(tmp_path / "m.py")
    names = {1: "pad", -1: "orig", 0: None}
    assert [mod.decide({"x": x}) for x in (0, 1, 2, 3)] == [names[d] for d in _answers(m, [0, 1, 2, 3])]
    assert [mod.decide({"x": x}) for x in (0, 1, 2, 3)] == [None, "pad", "orig", None]


def test_two_fold_counts_answers_on_the_half_that_did_not_calibrate():
    from sklearn.tree import DecisionTreeRegressor
    X = np.array([[0.0], [0.0], [1.0], [1.0]], dtype=np.float32)
    tree = DecisionTreeRegressor(max_depth=1).fit(X, [0.4, 0.4, -0.4, -0.4])
    values = tree.tree_.value[:, 0, 0].copy()
    # validation: at x = 0 pad wins one problem and loses the other by 1.25x; x = 1 orig wins both
    Xv = np.array([[0.0], [0.0], [1.0], [1.0]], dtype=np.float32)
    times = np.array([[2.0, 1.0], [1.0, 1.25], [1.0, 2.0], [1.0, 2.0]])
    count, wrong = leaf_errors(tree, values, Xv, times, 0.02)
    left, right = tree.apply(np.array([[0.0], [1.0]], dtype=np.float32))
    assert (count[left], wrong[left], count[right], wrong[right]) == (2, 1, 2, 0)
    assert silence_leaves(values, count, wrong, 0)[left] == 0.0
    assert silence_leaves(values, count, wrong, 3)[right] == 0.0
    rows = {r["min_val"]: r for r in two_fold(tree, values, Xv, times, 0.02, (0, 5), seed=0)}
    # every problem is answered or not exactly once over both folds
    assert all(r["correct"] + r["wrong"] + r["unsure"] == 4 for r in rows.values())
    assert rows[5]["correct"] == rows[5]["wrong"] == 0
    assert rows[0]["wrong"] <= 1 and rows[0]["correct"] >= 2


def test_cli_calibration_option_reaches_learn_and_refuses_an_unknown_one(tmp_path):
    from click.testing import CliRunner
    from tuner.cli import main
    write_synthetic(tmp_path / "d.jsonl", 200, seed=6)
    base = ["learn", str(tmp_path / "d.jsonl"), "--max-depth", "3", "--min-samples-leaf", "5", "--no-plot"]
    r = CliRunner().invoke(main, base + ["--out", str(tmp_path / "o"), "--calibration", "leaves"])
    assert r.exit_code == 0, r.output
    mod = load_module(tmp_path / "o" / "pad_mm_h100.py")
    assert mod.TRAINING["calibration"] == "leaves" and mod.TRAINING["leaf_min_val"] in DEFAULT_LEAF_MIN_VAL
    assert "per-leaf validation" in (tmp_path / "o" / "report.md").read_text()
    r = CliRunner().invoke(main, base + ["--out", str(tmp_path / "bad"), "--calibration", "vote"])
    assert r.exit_code != 0 and "--calibration" in r.output and not (tmp_path / "bad").exists()
    with pytest.raises(Exception, match="--calibration"):
        learn([tmp_path / "d.jsonl"], tmp_path / "bad", depths=(3,), leaves=(5,), plot=False,
              calibration="vote")
    assert not (tmp_path / "bad").exists()


def test_after_per_leaf_validation_the_two_fold_estimate_picks_the_model():
    from sklearn.tree import DecisionTreeRegressor
    from tuner.heuristics.learn import Model, best_model
    tree = DecisionTreeRegressor(max_depth=1).fit([[0.0], [1.0]], [0.4, -0.4])

    def model(depth, val_correct, cv):
        cal = {"min_val": 0, "two_fold": [{"min_val": 0, **cv}]} if cv else {}
        return Model(depth, 1, tree, tree.tree_.value[:, 0, 0].copy(), (0.0, 0.0),
                     {"val": {"correct": val_correct}}, calibration=cal)

    # thresholds: the most correct validation answers win
    assert best_model([model(1, 10, None), model(2, 20, None)]).max_depth == 2
    # per-leaf validation: the model with more validation answers loses more on held-out halves
    risky = model(1, 20, {"correct": 19, "wrong": 3, "over_10pct": 2})
    safe = model(2, 10, {"correct": 9, "wrong": 0, "over_10pct": 0})
    safer_but_less = model(3, 12, {"correct": 8, "wrong": 0, "over_10pct": 0})
    assert best_model([risky, safe, safer_but_less]) is safe
