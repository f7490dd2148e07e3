"""`tuner learn` on recorded synthetic timings: the known rule is learned, the rendered module
answers exactly as the tree, and bad input fails clearly without writing anything."""
import json
import math
import random

import numpy as np
import pytest
from click.testing import CliRunner

from tuner.cli import main
from tuner.heuristics.dataset import DatasetError, read_datasets
from tuner.heuristics.interface import two_way_choice
from tuner.heuristics.learn import (build_problems, evaluate, learn, pick_threshold, split,
                                    table_columns)
from tuner.heuristics.render import load_module, render_module

from .synthetic import H100, rule, synthetic_problem, write_synthetic

GRID = dict(depths=(2, 4), leaves=(1, 5))
TABLE_COLUMNS = table_columns(("orig", "pad"))


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    d = tmp_path_factory.mktemp("learn")
    write_synthetic(d / "a.jsonl.gz", 200, seed=1)
    write_synthetic(d / "b.jsonl", 200, seed=2)       # a second shard, other problems
    summary = learn([d / "a.jsonl.gz", d / "b.jsonl"], d / "out", **GRID)
    return d, summary


def test_learns_the_known_rule(learned):
    d, s = learned
    assert s["problems"] == 400 and s["split"] == {"train": 240, "val": 80, "test": 80}
    t = s["best"]["test"]
    assert t["wrong"] == 0 and t["correct"] >= 70 and t["total"] == 80
    mod = load_module(d / "out" / "pad_mm_h100.py")
    rng = random.Random(99)
    for _ in range(200):   # fresh problems, never seen in training
        ctx = synthetic_problem(rng)
        assert mod.decide(ctx.features()) in (rule(ctx), None)


def test_writes_table_report_plot_and_module(learned):
    d, s = learned
    out = d / "out"
    for name in ("pad_mm_h100.py", "eval_table.txt", "eval_table.json", "summary.json", "report.md", "plot.png"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = json.loads((out / "eval_table.json").read_text())
    assert len(rows) == 4 * 3 and all(tuple(r) == TABLE_COLUMNS for r in rows)
    assert (out / "eval_table.txt").read_text().split()[:len(TABLE_COLUMNS)] == list(TABLE_COLUMNS)
    report = (out / "report.md").read_text()
    assert "max_depth" in report and "test" in report and "Benchmarking avoided" in report
    assert "every dimension >= 512" in report and s["best"]["test_dims_ge_512"]["total"] >= 0
    src = (out / "pad_mm_h100.py").read_text()
    assert "sklearn" not in src and "import numpy" not in src and "if f['" in src
    mod = load_module(out / "pad_mm_h100.py")
    assert mod.PRECONDITION.capability == (9, 0) and mod.PRECONDITION.shared_memory == 232448
    assert mod.PRECONDITION.point == "pad_mm" and mod.PRECONDITION.feature_schema == 1


def test_rendered_module_gives_exactly_the_trees_answers(tmp_path):
    from sklearn.tree import DecisionTreeRegressor
    write_synthetic(tmp_path / "d.jsonl", 300, seed=3)
    ds = read_datasets([tmp_path / "d.jsonl"])
    p = build_problems(ds)
    # noisy target + deep tree: many splits on large products (mk, mn) where float32 rounds
    y = p.target + np.random.default_rng(0).normal(0, 0.3, len(p))
    tree = DecisionTreeRegressor(max_depth=12, min_samples_leaf=1, random_state=0).fit(p.X, y)
    log_thr = 0.1
    values = tree.tree_.value[:, 0, 0]
    (tmp_path / "m.py").write_text(render_module(tree, values, p.features, ds.header, (log_thr, log_thr),
                                                 p.choices))
    mod = load_module(tmp_path / "m.py")
    want = tree.predict(p.X)
    for i, pid in enumerate(p.ids):
        feats = dict(zip(p.features, p.X[i]))
        assert mod.score({k: float(np.float32(v)) for k, v in feats.items()}) == want[i]
        assert mod.decide(feats) == two_way_choice(want[i], log_thr, "pad", "orig")


def test_float32_rounding_reproduces_sklearn_at_ties(tmp_path):
    # 2**25 + 6 lies halfway between two float32 values and rounds up to even: sklearn sends it
    # right although it equals the float64 threshold; the rendered module must do the same.
    from sklearn.tree import DecisionTreeRegressor
    X = np.array([[2.0 ** 25 + 4], [2.0 ** 25 + 8]])
    tree = DecisionTreeRegressor(max_depth=1).fit(X, [-1.0, 1.0])
    assert tree.tree_.threshold[0] == 2.0 ** 25 + 6
    header = {"point": "p", **H100}
    (tmp_path / "m.py").write_text(render_module(tree, tree.tree_.value[:, 0, 0], ["x"], header, (0.0, 0.0),
                                                 ("a", "b")))
    mod = load_module(tmp_path / "m.py")
    assert tree.predict([[2.0 ** 25 + 6]])[0] == 1.0
    assert mod.decide({"x": 2 ** 25 + 6}) == "b"


def test_threshold_is_the_smallest_without_a_wrong_validation_answer():
    # times: (orig, pad); score > 0 predicts pad
    times = np.array([[2.0, 1.0], [1.0, 2.0], [1.0, 1.1], [3.0, 1.0]])
    scores = np.array([0.9, -0.5, 0.2, 0.3])        # the third answer (pad) is wrong at |0.2|
    thr = pick_threshold(scores, times)
    assert thr == pytest.approx(0.3)
    r = evaluate(scores, times, thr)
    assert (r["correct"], r["wrong"], r["unsure"]) == (3, 0, 1)
    r0 = evaluate(scores, times, 0.0)
    assert r0["wrong"] == 1 and r0["max_wrong_speedup"] == pytest.approx(1.1)
    assert pick_threshold(np.array([0.5]), np.array([[1.0, 2.0]])) == math.inf
    # with a 20% tolerance that near-tie is not wrong
    assert pick_threshold(scores, times, tolerance=0.2) == 0.0
    # ...but its 10% loss stays visible in max_wrong_speedup
    r = evaluate(scores, times, 0.0, tolerance=0.2)
    assert r["wrong"] == 0 and r["max_wrong_speedup"] == pytest.approx(1.1)


def test_split_keeps_problems_whole_and_is_seeded():
    a, b = split(100, 0), split(100, 0)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    allidx = np.concatenate([a["train"], a["val"], a["test"]])
    assert sorted(allidx) == list(range(100))
    assert not np.array_equal(split(100, 1)["test"], a["test"])


def test_noisy_and_under_measured_problems_are_dropped(tmp_path):
    write_synthetic(tmp_path / "noisy.jsonl", 30, spread=0.5)
    p = build_problems(read_datasets([tmp_path / "noisy.jsonl"]))
    assert len(p) == 0 and p.dropped["noisy"] == 30
    write_synthetic(tmp_path / "few.jsonl", 30, reps=1)
    p = build_problems(read_datasets([tmp_path / "few.jsonl"]), min_reps=3)
    assert len(p) == 0 and p.dropped["few_reps"] == 30


def _learn_cli(*args):
    return CliRunner().invoke(main, ["learn", *map(str, args), "--max-depth", "2", "--min-samples-leaf", "5"])


def test_cli_prints_table_and_chosen_model(tmp_path):
    write_synthetic(tmp_path / "d.jsonl", 120)
    r = _learn_cli(tmp_path / "d.jsonl", "--out", tmp_path / "out", "--name", "pad_mm_test")
    assert r.exit_code == 0, r.output
    assert "max_depth min_samples_leaf dataset correct wrong unsure total" in r.output
    assert "chosen: max_depth=2" in r.output and (tmp_path / "out" / "pad_mm_test.py").exists()


def test_cli_warns_when_merged_files_timed_different_template_revisions(tmp_path):
    # a file without template_revision predates revision 2 (tuner/points/mm.py): the merge is
    # allowed (the revision changed some problems' times only) but named on stderr
    write_synthetic(tmp_path / "old.jsonl", 60, seed=1)
    write_synthetic(tmp_path / "new.jsonl", 60, seed=2, header_extra={"template_revision": 2})
    r = _learn_cli(tmp_path / "old.jsonl", tmp_path / "new.jsonl", "--out", tmp_path / "out")
    assert r.exit_code == 0, r.output
    assert "warning: the files disagree on template_revision" in r.output
    assert "old.jsonl None" in r.output and "new.jsonl 2" in r.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["warnings"] and "template_revision" in summary["warnings"][0]
    assert "Warning: the files disagree on template_revision" in (tmp_path / "out" / "report.md").read_text()
    write_synthetic(tmp_path / "new2.jsonl", 60, seed=3, header_extra={"template_revision": 2})
    r = _learn_cli(tmp_path / "new.jsonl", tmp_path / "new2.jsonl", "--out", tmp_path / "out2")
    assert r.exit_code == 0 and "warning" not in r.output


def test_keep_learns_only_the_matching_files_rows_and_names_them(tmp_path):
    # --keep GLOB:COLUMN=VALUE filters the rows of the files it matches (here old.jsonl's fp32
    # problems, itemsize 4) and leaves the others whole; the report and summary say what was kept
    write_synthetic(tmp_path / "old.jsonl", 80, seed=1)
    write_synthetic(tmp_path / "new.jsonl", 80, seed=2, header_extra={"template_revision": 3})
    old_ids = {r["problem"] for r in read_datasets([tmp_path / "old.jsonl"]).rows}
    new_rows = read_datasets([tmp_path / "new.jsonl"]).rows
    assert not old_ids & {r["problem"] for r in new_rows}
    ds = read_datasets([tmp_path / "old.jsonl", tmp_path / "new.jsonl"], keep=["old*:itemsize=4"])
    kept_old = [r for r in ds.rows if r["problem"] in old_ids]
    assert kept_old and {r["itemsize"] for r in kept_old} == {4}
    assert len(ds.rows) - len(kept_old) == len(new_rows)   # new.jsonl whole, 16-bit rows too
    assert f"{len(kept_old)} of 160 rows" in ds.header["kept"][str(tmp_path / "old.jsonl")]
    r = _learn_cli(tmp_path / "old.jsonl", tmp_path / "new.jsonl", "--keep", "old*:itemsize=4|2",
                   "--out", tmp_path / "out")
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert list(summary["kept"]) == [str(tmp_path / "old.jsonl")]
    assert summary["settings"]["keep"] == ["old*:itemsize=4|2"]
    # the revision warning names the filter that answers it
    assert "filtered by --keep" in r.output and "filtered by --keep" in summary["warnings"][0]
    assert "(--keep)" in (tmp_path / "out" / "report.md").read_text()


def test_keep_rules_on_one_column_add_up_and_globs_match_names_not_folders(tmp_path):
    sub = tmp_path / "old_runs"
    sub.mkdir()
    write_synthetic(sub / "a.jsonl", 60, seed=1)
    every = len(read_datasets([sub / "a.jsonl"]).rows)
    both = read_datasets([sub / "a.jsonl"], keep=["a*:itemsize=4", "a*:itemsize=2"])
    assert len(both.rows) == every   # itemsize 4 or 2: every synthetic row
    assert "itemsize in 4|2" in both.header["kept"][str(sub / "a.jsonl")]
    # a glob without "/" is matched on the file name only: "old*" names the folder, no file
    with pytest.raises(DatasetError, match="matches none of the files"):
        read_datasets([sub / "a.jsonl"], keep=["old*:itemsize=4"])
    assert read_datasets([sub / "a.jsonl"], keep=["*/old_runs/a*:itemsize=4"]).header["kept"]


def test_keep_refuses_a_column_some_rows_lack(tmp_path):
    write_synthetic(tmp_path / "old.jsonl", 30, seed=1)
    lines = (tmp_path / "old.jsonl").read_text().splitlines()
    first = json.loads(lines[1])
    lines[1] = json.dumps({**first, "extra": 1})   # only the first row has it
    (tmp_path / "old.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetError, match="have no column 'extra'"):
        read_datasets([tmp_path / "old.jsonl"], keep=["old*:extra=1"])


@pytest.mark.parametrize("keep, message", [
    ("nomatch*:dtype=float32", "matches none of the files"),
    ("old*:nocolumn=1", "have no column 'nocolumn'"),
    ("old*dtype", "expected GLOB:COLUMN=VALUE"),
    ("old*:itemsize=8", "no row of"),   # a mistyped value leaves the file nothing
])
def test_keep_refuses_a_filter_that_cannot_apply(tmp_path, keep, message):
    write_synthetic(tmp_path / "old.jsonl", 60, seed=1)
    r = _learn_cli(tmp_path / "old.jsonl", "--keep", keep, "--out", tmp_path / "out")
    assert r.exit_code != 0 and message in r.output, r.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case,message", [
    ("empty", "empty file"),
    ("columns", "lacks columns"),
    ("one_choice", "only one choice"),
    ("few", "too few problems"),
    ("mismatch", "does not match"),
    ("no_rows", "no rows"),
])
def test_bad_input_fails_clearly_and_writes_nothing(tmp_path, case, message):
    files = [tmp_path / "d.jsonl"]
    if case == "empty":
        files[0].write_text("")
    elif case == "columns":
        write_synthetic(files[0], 30)
        lines = files[0].read_text().splitlines()
        row = json.loads(lines[1])
        del row["m"]
        files[0].write_text("\n".join([lines[0], json.dumps(row)] + lines[2:]) + "\n")
    elif case == "one_choice":
        write_synthetic(files[0], 30, choices=("orig",))
    elif case == "few":
        write_synthetic(files[0], 10)
    elif case == "mismatch":
        write_synthetic(files[0], 30)
        files.append(tmp_path / "e.jsonl")
        write_synthetic(files[1], 30, header_extra={"gpu_name": "NVIDIA A100", "compute_capability": [8, 0]})
    elif case == "no_rows":
        write_synthetic(files[0], 0)
    r = _learn_cli(*files, "--out", tmp_path / "out")
    assert r.exit_code != 0
    assert message in r.output and "Traceback" not in r.output
    assert not (tmp_path / "out").exists()


def test_outliers_lists_answers_losing_more_than_ten_percent():
    from sklearn.tree import DecisionTreeRegressor
    from tuner.heuristics.learn import Model, Problems, outliers
    X = np.array([[0.0], [0.0], [1.0], [1.0], [1.0]])
    # times (orig, pad): x=1 predicts pad; the last problem's pad is 1.3x slower, the fourth's 1.05x
    times = np.array([[1.0, 2.0], [1.0, 2.0], [2.0, 1.0], [1.0, 1.05], [1.0, 1.3]])
    p = Problems(["a", "b", "c", "d", "e"], X, times, np.full(5, np.nan), ["x"], ("orig", "pad"),
                 raw_features=["x"])
    tree = DecisionTreeRegressor(max_depth=1).fit(X, [-1.0, -1.0, 1.0, 1.0, 1.0])
    m = Model(1, 1, tree, tree.tree_.value[:, 0, 0].copy(), (0.0, 0.0), {})
    got = outliers(m, p, np.arange(5))
    assert [(o["problem"], o["answer"], o["loss"], o["x"]) for o in got] == [("e", "pad", 1.3, 1.0)]


def test_best_model_is_the_most_correct_on_validation_then_the_smaller_tree():
    from sklearn.tree import DecisionTreeRegressor
    from tuner.heuristics.learn import Model, best_model
    small = DecisionTreeRegressor(max_depth=1).fit([[0.0], [1.0]], [0.4, -0.4])
    big = DecisionTreeRegressor(max_depth=2).fit([[0.0], [1.0], [2.0]], [0.4, -0.4, 0.9])

    def model(depth, tree, val_correct):
        return Model(depth, 1, tree, tree.tree_.value[:, 0, 0].copy(), (0.0, 0.0),
                     {"val": {"correct": val_correct}})

    assert best_model([model(1, small, 10), model(2, big, 20)]).max_depth == 2
    assert best_model([model(2, big, 20), model(1, small, 20)]).max_depth == 1   # fewer leaves
    assert best_model([model(4, small, 20), model(3, small, 20)]).max_depth == 3  # then shallower


def test_check_seeds_reports_every_seed_and_picks_nothing(tmp_path):
    write_synthetic(tmp_path / "d.jsonl", 200, seed=6)
    s = learn([tmp_path / "d.jsonl"], tmp_path / "out", **GRID, plot=False, check_seeds=(3, 0, 1, 3))
    plain = learn([tmp_path / "d.jsonl"], tmp_path / "out2", **GRID, plot=False)
    assert [r["seed"] for r in s["seed_check"]] == [0, 3, 1]       # the learned seed first
    assert s["seed_check"][0]["correct"] == s["best"]["test"]["correct"]
    assert all(r["total"] == 40 and r["over_10pct"] == len(r["outliers"]) for r in s["seed_check"])
    assert (tmp_path / "out" / "pad_mm_h100.py").read_text() == (tmp_path / "out2" / "pad_mm_h100.py").read_text()
    assert "Other split seeds" in (tmp_path / "out" / "report.md").read_text()
    r = _learn_cli(tmp_path / "d.jsonl", "--out", tmp_path / "out3", "--check-seeds", "1,x")
    assert r.exit_code != 0 and "--check-seeds" in r.output and not (tmp_path / "out3").exists()
    r = _learn_cli(tmp_path / "d.jsonl", "--out", tmp_path / "out4", "--check-seeds", "1", "--no-plot")
    assert r.exit_code == 0 and "same rules on other split seeds" in r.output, r.output


def test_stream_of_reads_the_focus_from_problem_ids():
    from tuner.heuristics.learn import stream_of
    assert stream_of("s0-31971") == "default" and stream_of("s12-0") == "default"
    assert stream_of("skinny-s0-5") == "skinny" and stream_of("tall_k-s3-17") == "tall_k"
    assert stream_of("mm-abc") == "default"      # ids from collect mode have no stream
    assert stream_of("h200/bare_large-s0-3") == "bare_large"   # files merged across boards


def _focused_copy(src, dst, focus="skinny"):
    """The synthetic file as a focused stream: ids carry the focus, the header records it."""
    lines = src.read_text().splitlines()
    header = json.loads(lines[0])
    header["focus"] = {"name": focus, "about": "test"}
    rows = [json.loads(x) for x in lines[1:]]
    for r in rows:
        r["problem"] = f"{focus}-{r['problem']}"
    dst.write_text("\n".join(json.dumps(x) for x in [header, *rows]) + "\n")


def test_learn_reports_the_test_split_per_stream(tmp_path):
    from tuner.heuristics.learn import stream_of
    write_synthetic(tmp_path / "d.jsonl", 150, seed=1)
    write_synthetic(tmp_path / "f0.jsonl", 100, seed=7)
    _focused_copy(tmp_path / "f0.jsonl", tmp_path / "f.jsonl")
    s = learn([tmp_path / "d.jsonl", tmp_path / "f.jsonl"], tmp_path / "out", **GRID, plot=False,
              check_seeds=(1,))
    by = s["best"]["test_by_stream"]
    assert list(by) == ["default", "skinny"]
    t = s["best"]["test"]
    for k in ("correct", "wrong", "unsure", "total"):
        assert by["default"][k] + by["skinny"][k] == t[k], k
    # the rows count exactly the test problems of each stream
    ds = read_datasets([tmp_path / "d.jsonl", tmp_path / "f.jsonl"])
    p = build_problems(ds)
    test_ids = [p.ids[i] for i in split(len(p), 0)["test"]]
    assert by["skinny"]["total"] == sum(stream_of(i) == "skinny" for i in test_ids) > 0
    assert by["default"]["unsure_pct"] == round(100.0 * by["default"]["unsure"] / by["default"]["total"], 1)
    assert set(s["best"]["val_by_stream"]) == {"default", "skinny"}
    assert {"default_unsure_pct", "skinny_over_10pct"} <= set(s["seed_check_columns"])
    assert all("default_unsure_pct" in r for r in s["seed_check"])
    report = (tmp_path / "out" / "report.md").read_text()
    assert "Test split per stream" in report and "| skinny |" in report
    saved = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert saved["best"]["test_by_stream"]["skinny"]["total"] == by["skinny"]["total"]
    r = _learn_cli(tmp_path / "d.jsonl", tmp_path / "f.jsonl", "--out", tmp_path / "out2", "--no-plot")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert any(x.split()[:1] == ["default"] for x in lines) and any(x.split()[:1] == ["skinny"] for x in lines)
    assert "test split per stream" in r.output


def test_leaf_margin_silences_leaves_holding_near_ties(tmp_path):
    from sklearn.tree import DecisionTreeRegressor
    from tuner.heuristics.learn import leaf_values
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0], [1.0]])
    # leaf x=0: every problem won by pad, one of them by only 1%; leaf x=1: orig by >= 1.3x
    y = np.log(np.array([1.5, 1.6, 1.01, 1 / 1.3, 1 / 1.4, 1 / 1.5]))
    tree = DecisionTreeRegressor(max_depth=1).fit(X, y)
    leaf0, leaf1 = tree.apply(np.array([[0.0], [1.0]], dtype=np.float32))
    plain = leaf_values(tree, X.astype(np.float32), y)
    strict = leaf_values(tree, X.astype(np.float32), y, margin=0.05)
    assert plain[leaf0] > 0 and plain[leaf1] < 0
    assert strict[leaf0] == 0.0 and strict[leaf1] == plain[leaf1]
    write_synthetic(tmp_path / "d.jsonl", 120)
    r = _learn_cli(tmp_path / "d.jsonl", "--out", tmp_path / "out", "--leaf-margin", "1.5")
    assert r.exit_code != 0 and "--leaf-margin" in r.output and not (tmp_path / "out").exists()
    r = _learn_cli(tmp_path / "d.jsonl", "--out", tmp_path / "out2", "--leaf-margin", "0.05", "--no-plot")
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "out2" / "summary.json").read_text())["settings"]["leaf_margin"] == 0.05


def test_leaf_ranges_make_a_leaf_unsure_outside_its_training_problems(tmp_path):
    # learned on batches of 2 (synthetic_problem's), the rule's leaves answer problems like
    # those; with leaf ranges a problem of batch 96 is outside every leaf's training range
    # (the tree never split on batch: without ranges it answers anyway), and the rendered
    # module says exactly what the model's scores say
    write_synthetic(tmp_path / "d.jsonl", 400, seed=5)
    with_ranges = learn([tmp_path / "d.jsonl"], tmp_path / "r", **GRID, ranges=True, plot=False)
    without = learn([tmp_path / "d.jsonl"], tmp_path / "n", **GRID, plot=False)
    assert with_ranges["settings"]["leaf_ranges"] is True and without["settings"]["leaf_ranges"] is False
    ranged = load_module(tmp_path / "r" / with_ranges["module"])
    plain = load_module(tmp_path / "n" / without["module"])
    rng = random.Random(9)
    inside_answers = 0
    for _ in range(50):
        ctx = synthetic_problem(rng)
        a = ranged.decide(ctx.features())
        assert a in (None, rule(ctx))                   # never wrong where it answers
        inside_answers += a is not None
        far = type(ctx)(ctx.op, ctx.m, ctx.k, ctx.n, ctx.dtype, batch=96,
                        mat1_transposed=ctx.mat1_transposed)
        assert ranged.decide(far.features()) is None
        assert plain.decide(far.features()) is not None
    assert inside_answers > 25
    assert "RANGES = {" in (tmp_path / "r" / with_ranges["module"]).read_text()


def test_a_ranged_module_scores_exactly_as_the_model(tmp_path):
    from sklearn.tree import DecisionTreeRegressor

    from tuner.heuristics.fit import Model, leaf_ranges
    write_synthetic(tmp_path / "d.jsonl", 300, seed=3)
    ds = read_datasets([tmp_path / "d.jsonl"])
    p = build_problems(ds)
    half = len(p) // 2
    tree = DecisionTreeRegressor(max_depth=6, min_samples_leaf=3, random_state=0).fit(p.X[:half], p.target[:half])
    values = tree.tree_.value[:, 0, 0].copy()
    m = Model(6, 3, tree, values, (0.1, 0.1), {}, leaf_ranges(tree, p.X[:half].astype(np.float32)))
    (tmp_path / "m.py").write_text(render_module(tree, values, p.features, ds.header, (0.1, 0.1),
                                                 p.choices, ranges=m.ranges))
    mod = load_module(tmp_path / "m.py")
    X = np.vstack([p.X, p.X * np.where(np.array(p.features) == "batch", 48.0, 1.0)])
    want = m.scores(X)
    assert (want[:half] != 0).all()                # its own training problems: inside
    assert (want[len(p):] == 0).all()              # batch 96: outside every leaf
    assert 0 < (want[half:len(p)] != 0).sum() < len(p) - half   # unseen ones: some of each
    for i in range(len(X)):
        feats = {k: float(np.float32(v)) for k, v in zip(p.features, X[i])}
        assert mod.score(feats) == want[i]


def test_first_choice_leaves_extend_upward_in_size_with_open_above(tmp_path):
    # with a default tie the first choice ("orig" here) is free to take: its leaves keep their
    # lower bounds but lose the upper ones along the size features named open_above
    from tuner.heuristics.fit import fit_grid
    write_synthetic(tmp_path / "d.jsonl", 300, seed=4)
    p = build_problems(read_datasets([tmp_path / "d.jsonl"]))
    parts = split(len(p), 0)
    sizes = np.array([f in ("m", "n") for f in p.features])
    m = fit_grid(p, parts, (4,), (5,), 0.02, 0, default_tie=0.02, ranges=True, open_above=("m", "n"))[0]
    lo, hi = m.ranges
    leaf = m.tree.tree_.children_left == -1
    first, second = leaf & (m.values < 0), leaf & (m.values > 0)
    assert first.any() and second.any()
    assert np.isinf(hi[first][:, sizes]).all() and np.isfinite(hi[first][:, ~sizes]).all()
    assert np.isfinite(hi[second]).all()
    tr = parts["train"]
    s = m.scores(p.X[tr])
    i = int(np.flatnonzero(s < 0)[0])                  # a training problem answered "orig"
    big, small = p.X[tr][i].copy(), p.X[tr][i].copy()
    big[p.features.index("m")] *= 1000                 # larger along a size feature: still "orig"
    small[p.features.index("m")] = 0.5                 # below its leaf's smallest m: unsure
    same_leaf = lambda x: m.tree.apply(x[None].astype(np.float32))[0] == m.tree.apply(p.X[tr][i:i + 1].astype(np.float32))[0]  # noqa: E731
    assert not same_leaf(big) or m.scores(big[None])[0] == s[i]
    assert not same_leaf(small) or m.scores(small[None])[0] == 0
    assert same_leaf(big) or same_leaf(small)          # the check bites on at least one side


def test_files_of_two_boards_learn_one_module_named_by_their_capability(tmp_path):
    # an H100 file and an H200 file (one generation) merge; the module is named sm90, not after
    # the first file's board, and lists both boards
    write_synthetic(tmp_path / "h100.jsonl", 300, seed=1)
    write_synthetic(tmp_path / "h200.jsonl", 300, seed=2, header_extra={"gpu_name": "NVIDIA H200"})
    s = learn([tmp_path / "h100.jsonl", tmp_path / "h200.jsonl"], tmp_path / "out", depths=[4],
              leaves=[10], plot=False)
    assert s["module"] == "pad_mm_sm90.py"
    assert s["gpu_name"] == "NVIDIA H100 80GB HBM3 + NVIDIA H200"
    assert s["problems"] == 600


def test_a_module_that_answers_nothing_reports_no_nan(tmp_path):
    # every problem a near-tie: no leaf agrees, nothing is answered on the test split
    data = tmp_path / "d.jsonl"
    write_synthetic(data, 120)
    lines = data.read_text().splitlines()
    rows = [json.loads(ln) for ln in lines[1:]]
    for r in rows:
        r["time_ms"] = 1.0 + (hash((r["problem"], r["choice"])) % 7) * 1e-3
    data.write_text("\n".join([lines[0]] + [json.dumps(r) for r in rows]) + "\n")
    r = _learn_cli(data, "--out", tmp_path / "out")
    assert r.exit_code == 0, r.output
    assert "0 correct, 0 wrong" in r.output
    assert "nan" not in r.output and "no answer on the test split" in r.output
    (module,) = (tmp_path / "out").glob("*.py")
    assert "nan" not in load_module(module).__doc__


def _mutated(path, row_index=None, row=None, header=None):
    lines = path.read_text().splitlines()
    if header is not None:
        h = json.loads(lines[0])
        header(h)
        lines[0] = json.dumps(h)
    if row_index is not None:
        lines[row_index] = row(lines[row_index])
    path.write_text("\n".join(lines) + "\n")


def _set(field, value):
    def change(line):
        r = json.loads(line)
        r[field] = value
        return json.dumps(r)
    return change


@pytest.mark.parametrize("case, message", [
    ("deep", ":4: row nested too deep"),
    ("not_object", ":4: row is not a JSON object"),
    ("inf_feature", "feature m = inf is not a finite number"),
    ("huge_int", "feature m = 1000000000"),
    ("many_digits", ":4: malformed row"),
    ("derived_input", "derived feature align needs itemsize"),
    ("version", "header version 2"),
])
def test_hostile_rows_fail_in_one_line_naming_the_row(tmp_path, case, message):
    data = tmp_path / "d.jsonl"
    write_synthetic(data, 60, seed=1)
    if case == "deep":
        _mutated(data, 3, lambda line: "[" * 200_000 + "]" * 200_000)
    elif case == "not_object":
        _mutated(data, 3, lambda line: "[1, 2]")
    elif case == "inf_feature":
        _mutated(data, 4, _set("m", float("inf")))     # the problem's second row
    elif case == "huge_int":
        _mutated(data, 3, _set("m", 10 ** 400))
    elif case == "many_digits":
        _mutated(data, 3, lambda line: line.replace('"m":', '"m":' + "9" * 5000 + ',"x":', 1))
    elif case == "derived_input":
        _mutated(data, header=lambda h: h["features"].pop("itemsize"))
    elif case == "version":
        _mutated(data, header=lambda h: h.update(version=2))
    r = _learn_cli(data, "--out", tmp_path / "out")
    assert r.exit_code == 1, r.output
    assert message in r.output and "Traceback" not in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
