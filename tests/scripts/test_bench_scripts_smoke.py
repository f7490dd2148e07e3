"""The optimizer, varying-shape and matmul benchmarks run end to end on CPU (tiny sizes,
and write the JSON their tables come from."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(args, tmp_path):
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    r = subprocess.run([sys.executable, *args, "--out", str(tmp_path)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    (path,) = list(tmp_path.glob("*.json"))
    return json.loads(path.read_text())


def test_bench_optimizer_smoke(tmp_path):
    doc = _run(["scripts/bench_optimizer.py", "--smoke", "--optimizers", "adam"], tmp_path)
    (case,) = doc["cases"]
    rows = {r["variant"]: r for r in case["variants"]}
    assert set(rows) == {"eager", "tuner"}
    assert rows["tuner"]["max_rel_err"] < 1e-5 and rows["tuner"]["ms"] > 0
    assert doc["torch"] and doc["command"].startswith("bench_optimizer.py")


def test_bench_optimizer_rejects_unknown_names(tmp_path):
    r = subprocess.run([sys.executable, "scripts/bench_optimizer.py", "--variants", "eagr"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "eagr" in r.stderr and "valid: eager" in r.stderr


def test_bench_dynamic_smoke(tmp_path):
    doc = _run(["scripts/bench_dynamic.py", "--smoke", "--models", "bert", "--variants", "tuner"], tmp_path)
    (res,) = doc["results"]
    assert res["error"] is None and len(res["rows"]) == len(doc["shapes"])
    assert all(row["ok"] for row in res["rows"])
    assert res["rows"][-1]["frames"] <= 3


def test_bench_dynamic_serving_smoke(tmp_path):
    # three distinct shapes, each called once (compiles counted), then timed; all match eager
    doc = _run(["scripts/bench_dynamic.py", "--smoke", "--serving", "3", "--models", "bert",
                "--variants", "tuner"], tmp_path)
    (res,) = doc["results"]
    row = res["rows"]
    assert res["error"] is None and row["shapes"] == len(doc["shapes"]) == 3
    assert not row["bad"] and not row["errors"] and row["kernels"] > 0
    assert len(row["first_call_s"]) == 3 and row["steady_ms"]


def test_bench_dynamic_paired_smoke(tmp_path):
    # ours dynamic vs ours static in one process: both correct at every shape, both timed
    doc = _run(["scripts/bench_dynamic.py", "--smoke", "--paired", "--models", "bert", "--rounds", "2"], tmp_path)
    (res,) = doc["results"]
    assert res["variant"] == "paired" and res["error"] is None
    assert len(res["rows"]) == len(doc["shapes"])
    for row in res["rows"]:
        assert row["ok"] and len(row["dynamic_ms_rounds"]) == len(row["static_ms_rounds"]) == 2
        assert len(row["dynamic_wall_ms_rounds"]) == len(row["static_wall_ms_rounds"]) == 2
        assert row["dynamic_over_static"] > 0 and row["dynamic_over_static_wall"] > 0
    last = res["rows"][-1]
    assert last["frames_static"] == len(doc["shapes"]) and last["frames_dynamic"] <= 3


def test_bench_mm_smoke(tmp_path):
    doc = _run(["scripts/bench_mm.py", "--smoke", "--cases", "gpt2_mlp_up,attn_qk,llama_swiglu"], tmp_path)
    assert [c["case"] for c in doc["cases"]] == ["gpt2_mlp_up", "attn_qk", "llama_swiglu"]
    for c in doc["cases"]:
        rows = {r["variant"]: r for r in c["variants"]}
        assert rows["tuner-template"]["ok"] and rows["tuner-template"]["ms"] > 0, rows


def test_bench_mm_max_autotune_variants_each_compile(tmp_path):
    # two max-autotune variants in one process: dynamo keeps code per (backend, mode), so
    # without a backend object each, the second timed the first one's code
    doc = _run(["scripts/bench_mm.py", "--smoke", "--cases", "decode_m1", "--variants",
                "tuner-max-autotune-padded,tuner-max-autotune,tuner-template-max-autotune"], tmp_path)
    rows = {r["variant"]: r for r in doc["cases"][0]["variants"]}
    assert rows["tuner-max-autotune-padded"]["mm_backend"] == rows["tuner-max-autotune"]["mm_backend"] == {"extern": 1}
    assert all(r.get("ok") for r in rows.values()), rows
