"""scripts/bench_compiler.py on CPU: its smoke mode, the JSON it writes, its failure reporting."""
import importlib.util
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "bench_compiler.py"


def _load():
    spec = importlib.util.spec_from_file_location("bench_compiler_under_test", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod          # dataclasses resolve annotations through it
    spec.loader.exec_module(mod)
    return mod


def _run(*args, timeout=240):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def _results(out_dir: Path) -> dict:
    files = sorted(out_dir.glob("compiler_*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text())


def test_smoke_run_writes_environment_and_per_variant_measurements(tmp_path):
    proc = _run("--smoke", "--cases", "pointwise,sum_dim1", "--variants", "eager",
                "--out", str(tmp_path), "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = _results(tmp_path)
    assert json.loads(proc.stdout) == doc          # --json: stdout is the document alone
    for field in ("schema", "date", "torch", "triton", "gpu", "device", "args", "results"):
        assert field in doc
    assert doc["smoke"] is True and doc["device"] == "cpu"

    by_case = {r["case"]: r for r in doc["results"]}
    # The copy reference joins any run with a memory-bound case.
    assert set(by_case) == {"copy", "pointwise", "sum_dim1"}
    for r in by_case.values():
        assert r["status"] == "ok", r
        assert r["variant"] == "eager"
        assert r["ms"] > 0 and r["compile_s"] >= 0
        assert r["rel_err"] <= r["tol"]
        assert r["speedup"] == pytest.approx(1.0)
        assert r["gbps"] > 0 and r["frac_copy"] > 0
    assert by_case["copy"]["frac_copy"] == pytest.approx(1.0)
    # bf16 eager really differs from the fp32 reference: the error is measured, not assumed.
    assert by_case["pointwise"]["eager_rel_err"] > 0

    table = proc.stderr.strip().splitlines()
    assert any(line.startswith("case") and "vs stock" in line for line in table)
    assert any(line.startswith("pointwise") and " ok " in line for line in table)


def test_wrong_and_failing_backends_are_reported_not_timed(tmp_path):
    import torch

    bc = _load()

    @torch._dynamo.register_backend(name="test_wrong_results")
    def _wrong(gm, example_inputs):
        def run(*args):
            return [o * 1.5 for o in gm(*args)]
        return run

    @torch._dynamo.register_backend(name="test_broken")
    def _broken(gm, example_inputs):
        raise RuntimeError("backend exploded on purpose")

    try:
        rc = bc.main(["--smoke", "--cases", "layernorm", "--isolation", "inprocess",
                      "--variants", "eager,test_wrong_results,test_broken", "--out", str(tmp_path)])
    finally:
        torch._dynamo.reset()
    assert rc == 0
    by_variant = {r["variant"]: r for r in _results(tmp_path)["results"] if r["case"] == "layernorm"}
    assert by_variant["eager"]["status"] == "ok"
    wrong = by_variant["test_wrong_results"]
    assert wrong["status"] == "mismatch" and wrong["rel_err"] > wrong["tol"]
    assert "ms" not in wrong and wrong.get("speedup") is None
    broken = by_variant["test_broken"]
    assert broken["status"] == "error" and "exploded on purpose" in broken["note"]
    assert "ms" not in broken


def test_timeout_and_budget_are_reported_per_variant(tmp_path):
    bc = _load()
    # No worker can even import torch in 0.2 s: the timeout path, without a real hang.
    assert bc.main(["--smoke", "--cases", "sum_dim0", "--variants", "eager", "--timeout-s", "0.2",
                    "--out", str(tmp_path / "t")]) == 0
    assert {r["status"] for r in _results(tmp_path / "t")["results"]} == {"timeout"}

    assert bc.main(["--smoke", "--cases", "sum_dim0", "--variants", "eager", "--budget-s", "0",
                    "--out", str(tmp_path / "b")]) == 0
    recs = _results(tmp_path / "b")["results"]
    assert recs and all(r["status"] == "skipped" and r["note"] == "budget spent" for r in recs)


def test_bad_arguments_fail_clearly_and_write_nothing(tmp_path, capsys):
    bc = _load()
    out = tmp_path / "never"
    for args, needle in ((["--cases", "nope"], "unknown case 'nope'"),
                         (["--variants", "tuner-fast"], "mode 'fast'"),
                         (["--variants", "nosuchbackend"], "unknown backend")):
        with pytest.raises(SystemExit) as exc:
            bc.main(["--smoke", *args, "--out", str(out)])
        assert exc.value.code == 2 and needle in capsys.readouterr().err
    assert not out.exists()


def test_derived_columns_compare_with_eager_stock_default_and_copy():
    bc = _load()
    results = [
        {"case": "copy", "group": "reference", "variant": "eager", "status": "ok",
         "ms": 1.0, "bytes": 3_000_000_000},
        {"case": "softmax", "group": "memory", "variant": "eager", "status": "ok",
         "ms": 2.0, "bytes": 1_500_000_000},
        {"case": "softmax", "group": "memory", "variant": "inductor", "status": "ok",
         "ms": 0.8, "bytes": 1_500_000_000},
        {"case": "softmax", "group": "memory", "variant": "tuner", "status": "ok",
         "ms": 1.0, "bytes": 1_500_000_000},
        {"case": "softmax", "group": "memory", "variant": "tuner-max-autotune",
         "status": "mismatch", "bytes": 1_500_000_000},
    ]
    bc.derive(results)
    tuner = results[3]
    assert tuner["speedup"] == pytest.approx(2.0)
    assert tuner["vs_stock"] == pytest.approx(0.25)          # 25% slower than stock default
    assert tuner["gbps"] == pytest.approx(1500.0)
    assert tuner["frac_copy"] == pytest.approx(0.5)
    assert results[2]["vs_stock"] is None                    # stock is its own reference
    assert "speedup" not in results[4]
    text = bc.table(results)
    assert "+25%" in text and "softmax/tuner-max-autotune: mismatch" in text


@pytest.mark.skipif(importlib.util.find_spec("tuner.compiler.backend") is None,
                    reason="tuner.compiler.backend does not exist yet")
def test_smoke_runs_the_tuner_backend_through_the_interpreter(tmp_path):
    proc = _run("--smoke", "--cases", "pointwise", "--variants", "eager,tuner",
                "--out", str(tmp_path), timeout=400)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rec = next(r for r in _results(tmp_path)["results"]
               if r["case"] == "pointwise" and r["variant"] == "tuner")
    assert rec["status"] == "ok", rec
    assert rec["rel_err"] <= rec["tol"] and rec["ms"] > 0 and rec["speedup"] > 0
    assert rec["tuner_stats"]["kernels"] >= 1
    # The worker measured this checkout, laid out as the package, not an installed copy.
    assert "bench_compiler_code_" in rec["tuner_path"]


@pytest.mark.skipif(importlib.util.find_spec("tuner.compiler.backend") is None,
                    reason="tuner.compiler.backend does not exist yet")
def test_bench_compiler_rounds_time_a_cases_variants_interleaved_and_take_the_median(tmp_path):
    proc = _run("--smoke", "--device", "cpu", "--cases", "layernorm", "--variants",
                "eager,tuner,tuner-max-autotune-no-cudagraphs", "--rounds", "2", "--out",
                str(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = _results(tmp_path)
    assert doc["args"]["rounds"] == 2
    rows = {r["variant"]: r for r in doc["results"] if r["case"] == "layernorm"}
    assert set(rows) == {"eager", "tuner", "tuner-max-autotune-no-cudagraphs"}
    # cold caches: each compiled variant of the case compiled into folders of its own (the
    # max-autotune variant's tuning decisions never reach the default-mode one)
    dirs = [rows[v]["cache_dir"] for v in ("tuner", "tuner-max-autotune-no-cudagraphs")]
    assert dirs[0] != dirs[1] and "cache_dir" not in rows["eager"]
    del rows["tuner-max-autotune-no-cudagraphs"]
    for r in rows.values():
        assert r["status"] == "ok", r
        assert len(r["ms_rounds"]) == 2 and r["ms"] == statistics.median(r["ms_rounds"])
        assert r["compile_s"] >= 0 and r["rel_err"] <= r["tol"]
    assert rows["tuner"]["tuner_stats"]["kernels"] >= 1
    assert rows["tuner"]["speedup"] == pytest.approx(rows["eager"]["ms"] / rows["tuner"]["ms"])
    # Both variants came from one worker process: the case's variants share it.
    assert rows["eager"]["wall_s"] == rows["tuner"]["wall_s"]
    header = next(line for line in proc.stdout.splitlines() if line.startswith("case"))
    assert "min-max" in header


def test_bench_compiler_rounds_in_process_keep_every_variant_compiled(tmp_path):
    import torch

    bc = _load()
    compiles = []

    @torch._dynamo.register_backend(name="test_counting")
    def _counting(gm, example_inputs):
        compiles.append(gm)
        return gm.forward

    try:
        rc = bc.main(["--smoke", "--cases", "sum_dim1", "--isolation", "inprocess", "--rounds", "3",
                      "--variants", "test_counting,eager,inductor", "--out", str(tmp_path)])
    finally:
        torch._dynamo.reset()
    assert rc == 0
    rows = {r["variant"]: r for r in _results(tmp_path)["results"] if r["case"] == "sum_dim1"}
    assert all(r["status"] == "ok" and len(r["ms_rounds"]) == 3 for r in rows.values()), rows
    # Compiled once: compiling inductor after it did not drop its code before the timing rounds.
    assert len(compiles) == 1


def test_a_no_heuristics_variant_is_compiled_on_its_own_with_heuristics_off(tmp_path, monkeypatch):
    bc = _load()
    v = bc.Variant.parse("tuner-max-autotune@no-heuristics")
    assert (v.backend, v.mode, dict(v.env)) == ("tuner", "max-autotune", {"TUNER_HEURISTICS": "off"})
    with pytest.raises(ValueError, match="@no-heuristics, @mm-extern"):
        bc.Variant.parse("tuner@bogus")
    assert dict(bc.Variant.parse("tuner-max-autotune@mm-extern").env) == {"TUNER_MM": "extern"}
    assert dict(bc.Variant.parse("tuner@keep-layout").env) == {"TUNER_LAYOUT": "keep"}
    assert dict(bc.Variant.parse("tuner@freeze").env) == {"TUNER_FREEZE": "1"}
    assert "nchw_resnext50_32x4d" in bc.CASE_BY_NAME and "layout" in bc.GROUPS
    import torch

    from tuner.compiler import backend as tb
    seen = []
    real = tb.tuner_backend

    def spy(gm, example_inputs, **kw):
        seen.append(os.environ.get("TUNER_HEURISTICS", "use"))
        return real(gm, example_inputs, **kw)
    monkeypatch.setattr(tb, "tuner_backend", spy)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    try:
        rc = bc.main(["--smoke", "--cases", "sum_dim1", "--isolation", "inprocess", "--rounds", "1",
                      "--variants", "tuner,tuner@no-heuristics", "--out", str(tmp_path)])
    finally:
        torch._dynamo.reset()
    assert rc == 0
    rows = {r["variant"]: r for r in _results(tmp_path)["results"] if r["case"] == "sum_dim1"}
    assert all(r["status"] == "ok" for r in rows.values()), rows
    # the suffixed variant was compiled (not dynamo's code of the plain one), heuristics off
    assert seen[-1] == "off" and os.environ.get("TUNER_HEURISTICS") != "off"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="python -P needs Python 3.11")
def test_checkout_layout_is_the_tuner_package_with_its_backend_entry_point(tmp_path):
    bc = _load()
    bc.lay_out_checkout(tmp_path)
    assert (tmp_path / "tuner" / "compiler" / "backend.py").exists()
    assert (tmp_path / "tuner" / "cache" / "__init__.py").exists()
    (info,) = tmp_path.glob("tuner-*.dist-info")
    assert "tuner = tuner.compiler.backend:tuner_backend" in (info / "entry_points.txt").read_text()
    # From the checkout root with -P, the laid-out package wins over the bare tuner/ folder.
    probe = subprocess.run(
        [sys.executable, "-P", "-c",
         "import importlib.metadata as md, tuner.compiler, tuner.cache; print(tuner.__file__); "
         "print([e.value for e in md.entry_points(group='torch_dynamo_backends') if e.name == 'tuner'])"],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert probe.returncode == 0, probe.stderr
    assert str(tmp_path) in probe.stdout and "tuner.compiler.backend:tuner_backend" in probe.stdout


def test_rows_of_a_worker_cut_off_mid_case_keep_what_was_measured():
    # --rounds > 1: the worker saves its rows after each compile and round; when a later
    # variant hangs or crashes it, variants timed in some rounds keep those rounds' median
    bc = _load()
    timed = {"variant": "tuner", "compile_s": 3.0, "ms_rounds": [2.0, 4.0, 3.0]}
    failed = {"variant": "inductor", "status": "mismatch", "note": "error 1 > tolerance 0.1"}
    pending = {"variant": "tuner-max-autotune", "compile_s": 9.0}
    rows = [bc._finish_partial(dict(r), "timeout", "no result within 30 s")
            for r in (timed, failed, pending)]
    assert rows[0]["status"] == "ok" and rows[0]["ms"] == 3.0 and "3 round(s)" in rows[0]["note"]
    assert rows[1] == failed
    assert rows[2]["status"] == "timeout" and rows[2]["compile_s"] == 9.0


def test_diff_kernels_lists_the_kernels_whose_time_differs_most_between_two_variants(tmp_path, capsys):
    bc = _load()
    doc = {"results": [
        {"case": "vit", "variant": "ma", "kernel_us": [["tk_pointwise", 624.7, 40, "pointwise over (6304, 3072)"],
                                                       ["nvjet", 100.0, 12, ""]]},
        {"case": "vit", "variant": "full", "kernel_us": [["tk_pointwise", 595.8, 40], ["nvjet", 100.5, 12],
                                                         ["tk_template", 3.0, 1]]}]}
    f = tmp_path / "run.json"
    f.write_text(json.dumps(doc))
    assert bc.main(["--diff-kernels", str(f), "ma", "full"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("vit: ma 724.7 us, full 699.3 us")
    assert [line.split()[3] for line in lines[1:]] == ["tk_pointwise", "tk_template", "nvjet"]
    assert lines[1].split()[0] == "-28.90" and lines[1].endswith("(pointwise over (6304, 3072))")
    assert bc.main(["--diff-kernels", str(f), "ma", "nope"]) == 2     # no such variant: said
    assert "no case" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bc.main(["--kernel-times", "-1", "--smoke", "--out", str(tmp_path / "never")])
    assert not (tmp_path / "never").exists()


def test_the_training_step_case_compiles_forward_and_backward_and_checks_a_gradient(tmp_path):
    # issue 15's training row as a bench_compiler case: the tuner compiles the forward and
    # AOTAutograd's backward (kernels of both), and the compiled step's gradient of the
    # embedding is checked against the strict-fp32 step's
    pytest.importorskip("transformers")
    proc = _run("--smoke", "--device", "cpu", "--cases", "gpt2_train", "--variants", "eager,tuner",
                "--out", str(tmp_path), "--json", timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    by_variant = {r["variant"]: r for r in _results(tmp_path)["results"]}
    for r in by_variant.values():
        assert r["status"] == "ok", r
        assert 0 < r["rel_err"] <= r["tol"]
    eager_only = by_variant["eager"]
    assert eager_only["eager_rel_err"] > 0          # bf16 autocast really differs from fp32
    st = by_variant["tuner"]["tuner_stats"]
    assert st["graphs"] >= 2 and st["kernels"] > 0   # the forward and the backward graph
