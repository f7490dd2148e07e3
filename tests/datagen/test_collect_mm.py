"""`tuner collect mm` on CPU (Triton's interpreter, tiny shapes): the mm point's dataset."""
import json

from click.testing import CliRunner

from tuner.cli import main
from tuner.datagen.mm import GeneratorSpec, problem
from tuner.heuristics.dataset import read_dataset
from tuner.heuristics.registry import SCHEMAS


def test_collect_mm_times_both_choices_of_the_point_with_numeric_features(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setenv("TUNER_TUNE_BUDGET_S", "0.2")   # the template's tuning, kept short
    out = tmp_path / "mm.jsonl"
    r = CliRunner().invoke(main, ["collect", "mm", "--device", "cpu", "--quiet", "--samples", "2",
                                  "--reps", "1", "--inner", "1", "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output[r.output.index("{"):])["measured"] == 2
    ds = read_dataset(out)
    h = ds.header
    assert h["point"] == "mm_backend" and h["choices"] == ["extern", "template"]
    assert h["feature_schema"] == SCHEMAS["mm_backend"]
    # which template kernel was timed (a module learns from files of one revision)
    from tuner.points.mm import TEMPLATE_REVISION
    assert h["template_revision"] == TEMPLATE_REVISION
    probs = ds.complete_problems()
    assert len(probs) == 2 and all(len(rs) == 2 for rs in probs.values())
    for row in ds.rows:
        assert row["time_ms"] > 0 and "error" not in row
        assert all(isinstance(row[f], (int, float)) for f in h["features"])
        # the template's row carries its tuned config (data for a learned template config)
        if row["choice"] == "template":
            cfg = row["template_config"]
            assert {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_warps", "num_stages"} <= set(cfg)
            assert row["template_timings"] and row["template_timings"][0]["ms"] > 0
            assert isinstance(row["template_search_stopped"], bool)
        else:
            assert "template_config" not in row


def test_mm_stream_is_seeded_and_bounded():
    spec = GeneratorSpec.for_device("cuda")
    ps = [problem(0, i, spec) for i in range(300)]
    assert ps == [problem(0, i, spec) for i in range(300)]
    assert {p.op for p in ps} == {"mm", "addmm", "bmm"}
    assert {p.dtype for p in ps} == {"bfloat16", "float16", "float32"}
    assert any(p.mat1_transposed for p in ps) and any(p.mat2_transposed for p in ps)
    assert any((p.k, p.n) == (768, 3072) for p in ps)            # real models' layers
    for p in ps:
        item = 4 if p.dtype == "float32" else 2
        assert 2 * p.batch * p.m * p.n * p.k <= spec.max_flops
        assert item * p.batch * (p.m * p.k + p.k * p.n + p.m * p.n) <= spec.max_bytes


def test_focused_streams_pose_the_default_streams_shapes_with_each_epilogue_class():
    cheap = [problem(0, i, GeneratorSpec.for_device("cuda")) for i in range(40)]
    for focus, epilogue, costly in (("bare", False, False), ("costly", True, True)):
        spec = GeneratorSpec.for_device("cuda", focus=focus)
        ps = [problem(0, i, spec) for i in range(40)]
        assert [(p.op, p.m, p.n, p.k, p.dtype) for p in ps] == [(p.op, p.m, p.n, p.k, p.dtype) for p in cheap]
        assert all((p.epilogue, p.costly_epilogue) == (epilogue, costly) for p in ps)
        f = ps[0].features()
        assert (f["epilogue"], f["costly_epilogue"]) == (int(epilogue), int(costly))
        assert spec.to_json()["focus"] == focus
    assert "focus" not in GeneratorSpec.for_device("cuda").to_json()   # old headers still resume


def test_large_streams_pose_only_real_model_sized_problems_of_their_class():
    from tuner.datagen.mm import _MODEL_KN, LARGE_MIN_DIM, LARGE_MIN_FLOPS
    for focus, epilogue, costly in (("bare_large", False, False), ("costly_large", True, True)):
        spec = GeneratorSpec.for_device("cuda", focus=focus)
        ps = [problem(0, i, spec) for i in range(200)]
        assert all(min(p.m, p.n, p.k) >= LARGE_MIN_DIM for p in ps)
        assert all(2 * p.batch * p.m * p.n * p.k >= LARGE_MIN_FLOPS for p in ps)
        assert all((p.epilogue, p.costly_epilogue) == (epilogue, costly) for p in ps)
        assert sum((p.k, p.n) in _MODEL_KN for p in ps) > len(ps) // 2   # mostly real layers
        assert spec.to_json()["min_flops"] == LARGE_MIN_FLOPS
    assert "min_flops" not in GeneratorSpec.for_device("cuda", focus="bare").to_json()


def test_model_stream_poses_training_step_matmuls_bare():
    from tuner.datagen.mm import _HEAD_DIM, _HIDDEN, _SEQ, _TOKENS
    spec = GeneratorSpec.for_device("cuda", focus="bare_model")
    ps = [problem(0, i, spec) for i in range(300)]
    assert all(not p.epilogue for p in ps)
    kinds = {"forward": 0, "input_grad": 0, "weight_grad": 0, "qk": 0, "pv": 0}
    for p in ps:
        if p.op == "bmm":
            assert p.m in _SEQ and not p.mat1_transposed
            if p.k in _HEAD_DIM and p.n == p.m:
                kinds["qk"] += 1
                assert p.n == p.m and p.k in _HEAD_DIM
            else:
                kinds["pv"] += 1
                assert p.k == p.m and p.n in _HEAD_DIM and not p.mat2_transposed
        elif p.mat1_transposed:      # grad^T @ x: hidden x tokens @ tokens x hidden
            kinds["weight_grad"] += 1
            assert p.k in _TOKENS and p.m in _HIDDEN and p.n in _HIDDEN and not p.mat2_transposed
        else:
            kinds["forward" if p.mat2_transposed else "input_grad"] += 1
            assert p.m in _TOKENS and p.n in _HIDDEN and p.k in _HIDDEN
    assert all(v > 10 for v in kinds.values()), kinds
    assert sum(p.dtype != "float32" for p in ps) > 0.8 * len(ps)
    assert spec.to_json()["focus"] == "bare_model"
    # the other epilogue classes over the same shapes
    for focus, epilogue, costly in (("cheap_model", True, False), ("costly_model", True, True)):
        other = [problem(0, i, GeneratorSpec.for_device("cuda", focus=focus)) for i in range(300)]
        assert [(p.op, p.batch, p.m, p.n, p.k, p.dtype, p.mat1_transposed, p.mat2_transposed)
                for p in other] == [(p.op, p.batch, p.m, p.n, p.k, p.dtype, p.mat1_transposed,
                                     p.mat2_transposed) for p in ps]
        assert all((p.epilogue, p.costly_epilogue) == (epilogue, costly) for p in other)
    # CPU (the interpreter's tiny problems): the default stream's shapes, bare
    cpu = [problem(0, i, GeneratorSpec.for_device("cpu", focus="bare_model")) for i in range(20)]
    assert all(max(p.m, p.n, p.k) <= 40 and not p.epilogue for p in cpu)


def test_an_unknown_focus_is_refused_naming_the_known_ones(tmp_path):
    r = CliRunner().invoke(main, ["collect", "mm", "--device", "cpu", "--focus", "gelu",
                                  "--samples", "1", "--out", str(tmp_path / "x.jsonl")])
    assert r.exit_code != 0 and "bare" in r.output and "costly" in r.output
    assert not (tmp_path / "x.jsonl").exists()
