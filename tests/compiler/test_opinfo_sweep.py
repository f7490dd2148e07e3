"""The OpInfo sweep (scripts/opinfo_sweep.py) as a guard: a fixed subset of PyTorch's OpInfo
database, two float32 samples each, compiled with our backend under Triton's interpreter, must
give no error, no mismatch and no graph fallback outside tests/compiler/opinfo_expected.py.
Then the sweep's own pieces (comparison, classification, summary, resume) and its CLI."""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "opinfo_sweep.py"
RUNNER = ROOT / "tests" / "compiler" / "opinfo_runner.py"

# A representative mix, and the ops whose graphs once fell back whole or computed wrong values
# (zero-element samples of unary ops, linalg's checks, min/max with a constant, lgamma, integer
# division, unfold, round with decimals, index_select, the scans).
RANDOM_OPS = ["normal", "randint", "uniform"]
FAST_OPS = [
    # unary pointwise (exp, cos, sigmoid: their second sample has zero elements)
    "abs", "neg", "sin", "tanh", "erf", "sqrt", "log1p", "floor", "frac", "logit", "exp", "cos",
    "sigmoid", "lgamma", "nn.functional.relu", "nn.functional.gelu", "nn.functional.hardswish",
    "nn.functional.leaky_relu", "nn.functional.logsigmoid",
    # binary / ternary pointwise, promotion, comparisons
    "add", "mul", "div.no_rounding_mode", "pow", "maximum", "atan2", "fmod", "xlogy", "where",
    "clamp", "eq", "lerp", "addcmul", "masked_fill", "floor_divide", "round.decimals_3",
    # reductions and scans
    "sum", "mean", "amax", "prod", "var", "std_mean", "argmax", "min.reduction_with_dim", "any",
    "logsumexp", "softmax", "log_softmax", "cumsum", "cummax", "logcumsumexp",
    # views, layout, indexing, scatter
    "transpose", "permute", "reshape", "expand", "squeeze", "select", "diagonal", "split", "cat",
    "stack", "tril", "gather", "scatter", "index_put", "flip", "index_select", "tile",
    "new_zeros", "nn.functional.unfold",
    # matmul, convolution, linalg (its checks in ATen) and nn.functional
    "mm", "nn.functional.linear", "nn.functional.conv2d", "nn.functional.layer_norm",
    "nn.functional.group_norm", "nn.functional.embedding", "nn.functional.cross_entropy",
    "nn.functional.avg_pool2d", "nn.functional.max_pool2d", "nn.functional.interpolate.bilinear",
    "nn.functional.pad.reflect", "nn.functional.scaled_dot_product_attention", "linalg.inv",
    # an op without a lowering (runs in ATen) and one dynamo leaves to eager
    "sort", "nonzero",
    # random ops drawn by our kernels (compiler/lowerings/random.py): compared by structure
    *RANDOM_OPS,
]
GRAD_OPS = ["mul", "tanh", "sum", "softmax", "nn.functional.layer_norm", "mm",
            "nn.functional.normalize", "cumsum"]


def _load():
    spec = importlib.util.spec_from_file_location("opinfo_sweep_under_test", RUNNER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


sweep = _load()


@pytest.fixture(scope="module")
def ops():
    return sweep.all_ops()


def _report(rows):
    return "\n".join(f"{r['op']} sample {r['sample']} {r['mode']}: {r['status']} {r.get('detail', '')}"
                     f" [{r.get('desc', '')}] max abs err {r.get('max_abs_err')}"
                     for r in rows)


def _run(ops, keys, mode):
    expected = sweep.load_expected()
    rows = []
    for key in keys:
        rows += list(sweep.run_op(ops[key], samples=2, mode=mode, expected=expected, key=key))
    return rows


def test_fast_subset_forward(ops):
    rows = _run(ops, FAST_OPS, "fwd")
    failures = [r for r in rows if sweep.is_failure(r)]
    assert not failures, "OpInfo sweep failures:\n" + _report(failures)
    by_op = {}
    for r in rows:
        by_op.setdefault(r["op"], []).append(r)
    assert set(by_op) == set(FAST_OPS)
    # every op of the subset computes something with us: none skipped or failing in eager
    idle = {k: sweep.op_status(rs) for k, rs in by_op.items() if sweep.op_status(rs) in sweep.NOT_COMPUTING}
    assert not idle, idle
    # the classification itself: a plain pointwise op and a reduction run as kernels, mm in ATen
    assert sweep.op_status(by_op["abs"]) == "pass_kernels_only"
    assert sweep.op_status(by_op["sum"]) == "pass_kernels_only"
    assert sweep.op_status(by_op["mm"]) == "extern"
    assert all(r["values"] == ("rng" if r["op"] in RANDOM_OPS else "compared") for r in rows)
    assert all(sweep.op_status(by_op[k]) == "pass_kernels_only" for k in RANDOM_OPS)


def test_fast_subset_gradients(ops):
    rows = _run(ops, GRAD_OPS, "grad")
    failures = [r for r in rows if sweep.is_failure(r)]
    assert not failures, "OpInfo sweep gradient failures:\n" + _report(failures)
    ran = [r for r in rows if r["status"] not in sweep.NOT_COMPUTING]
    assert {r["op"] for r in ran} == set(GRAD_OPS)
    assert all(r["graphs"] >= 2 for r in ran), _report(ran)   # a forward and a backward graph


def test_declared_lists_are_well_formed():
    expected = sweep.load_expected()
    for name in ("EXPECTED_GRAPH_FALLBACKS", "ATEN_ON_PURPOSE", "KNOWN_INTERPRETER_MISMATCHES",
                 "KNOWN_MISMATCHES", "VALUES_UNCHECKED"):
        table = getattr(expected, name)
        assert all(isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in table.items()), name
    for key, (dim_at, why) in expected.INDICES_AMONG_TIES.items():
        assert isinstance(dim_at, int) and dim_at >= 0 and why.strip(), key
    for key, value in expected.TOLERANCE_OVERRIDES.items():
        rtol, atol, why = value
        assert rtol > 0 and atol > 0 and why.strip(), key
    assert all(k.startswith(("aten.", "prims.")) for k in expected.ATEN_ON_PURPOSE)


def test_compare_nested_outputs_nan_and_tolerance():
    a = torch.tensor([1.0, float("nan"), 3.0])
    assert sweep.compare((a, [a * 2, 4]), (a.clone(), [a * 2, 4])) == ("", None)
    why, err = sweep.compare((a, [a + 1e-3, 4]), (a, [a, 4]))
    assert "[1][0]" in why and err == pytest.approx(1e-3, rel=1e-3)
    assert sweep.compare(a + 1e-3, a, rtol=0, atol=1e-2) == ("", None)
    assert "shape" in sweep.compare(a[:2], a)[0]
    assert "dtype" in sweep.compare(a.double(), a)[0]
    assert "structure" in sweep.compare((a,), [a])[0]
    assert sweep.compare((a, 5), (a, 6))[0]
    assert sweep.compare(a + 1, a, values=False) == ("", None)   # shapes and dtypes only


class _Declared:
    EXPECTED_GRAPH_FALLBACKS = {}
    ATEN_ON_PURPOSE = {}
    KNOWN_INTERPRETER_MISMATCHES = {}
    TOLERANCE_OVERRIDES = {}
    VALUES_UNCHECKED = {}
    INDICES_AMONG_TIES = {}
    KNOWN_MISMATCHES = {}


def _abs_row(ops, expected):
    (row,) = list(sweep.run_op(ops["abs"], samples=1, expected=expected))
    return row


def test_undeclared_graph_fallback_fails_declared_one_does_not(ops, monkeypatch):
    real = sweep._graph_info

    def broken_graph():
        info = real()
        info["graph_fallbacks"] = ["RuntimeError: made up for the test"]
        return info
    monkeypatch.setattr(sweep, "_graph_info", broken_graph)
    row = _abs_row(ops, _Declared)
    assert row["status"] == "graph_fallback" and "made up" in row["detail"] and sweep.is_failure(row)
    declared = type("D", (_Declared,), {"EXPECTED_GRAPH_FALLBACKS": {"ab*": "why it is so"}})
    row = _abs_row(ops, declared)
    assert row["status"] == "graph_fallback" and row["declared"] == "why it is so"
    assert not sweep.is_failure(row)


def test_op_fallback_is_classified_with_its_op(ops):
    # a determinant stays an ATen call (LAPACK): a pass, but not kernels only; declared only
    # through the lists the sweep is given
    (row, *_) = list(sweep.run_op(ops["linalg.det"], samples=1, expected=_Declared))
    assert row["status"] == "pass_op_fallback" and "aten._linalg_det.default" in row["fallbacks"]
    assert not row["declared"] and not sweep.is_failure(row)
    on_purpose = type("D", (_Declared,), {"ATEN_ON_PURPOSE": {"aten._linalg_det.*": "a det"}})
    (row, *_) = list(sweep.run_op(ops["linalg.det"], samples=1, expected=on_purpose))
    assert row["declared"] == "a det"


def test_select_and_status_order():
    keys = {"abs": "abs", "max.binary": "max", "max.reduction_no_dim": "max", "linalg.norm": "linalg.norm",
            "linalg.norm.subgradients_at_zero": "linalg.norm"}
    assert sweep.select(keys, ["max"]) == ["max.binary", "max.reduction_no_dim"]
    assert sweep.select(keys, ["linalg.*"]) == ["linalg.norm", "linalg.norm.subgradients_at_zero"]
    assert sweep.select(keys, ["linalg.norm"]) == ["linalg.norm", "linalg.norm.subgradients_at_zero"]
    with pytest.raises(ValueError):
        sweep.select(keys, ["linalg"])      # a prefix is not a name: use linalg.*
    assert sweep.select(keys, None, limit=2) == ["abs", "max.binary"]
    with pytest.raises(ValueError, match="nosuch"):
        sweep.select(keys, ["abs", "nosuch"])
    rows = [{"status": "pass_kernels_only"}, {"status": "eager_error"}, {"status": "pass_op_fallback"}]
    assert sweep.op_status(rows) == "pass_op_fallback"
    assert sweep.op_status([{"status": "skip"}, {"status": "eager_error"}]) == "eager_error"
    assert sweep.is_failure({"status": "mismatch", "declared": ""})
    assert not sweep.is_failure({"status": "mismatch", "declared": "interpreter"})
    assert sweep.is_failure({"status": "timeout"})


def test_summary_counts_and_percentages():
    rows = [
        {"op": "a", "mode": "fwd", "sample": 0, "status": "pass_kernels_only"},
        {"op": "a", "mode": "fwd", "sample": 1, "status": "pass_kernels_only"},
        {"op": "b", "mode": "fwd", "sample": 0, "status": "pass_op_fallback", "fallbacks": {"aten.sort.default": 1}},
        {"op": "b", "mode": "fwd", "sample": 1, "status": "pass_kernels_only"},
        {"op": "c", "mode": "fwd", "sample": 0, "status": "mismatch", "detail": "x", "max_abs_err": 0.5,
         "declared": ""},
        {"op": "d", "mode": "fwd", "sample": -1, "status": "skip", "detail": "no float32 on CPU"},
        {"op": "e", "mode": "fwd", "sample": 0, "status": "extern"},
    ]
    s = sweep.summarize(rows, {"torch": "x"}, expected=_Declared)
    assert s["op_counts"] == {"mismatch": 1, "pass_op_fallback": 1, "extern": 1, "pass_kernels_only": 1, "skip": 1}
    assert s["sample_counts"]["pass_kernels_only"] == 3 and "skip" not in s["sample_counts"]
    assert s["computing_ops"] == 4 and s["kernels_only_pct"] == 25.0 and s["kernels_or_extern_pct"] == 50.0
    # b's only ATen call is not declared on purpose: the figure over the others counts it
    assert s["on_purpose_ops"] == [] and s["kernels_only_pct_not_on_purpose"] == 25.0
    assert s["failed_ops"] == ["c"] and s["failures"][0]["max_abs_err"] == 0.5
    assert s["aten_fallbacks"][0]["aten"] == "aten.sort.default" and s["aten_fallbacks"][0]["opinfos"] == ["b"]
    text = sweep.table(s)
    assert "c " in text and "25.0%" in text


def test_graphs_that_cannot_stay_symbolic_under_dynamic_are_summed_by_reason():
    # (--dynamic) a graph with symbolic sizes that could not stay symbolic (it runs in ATen)
    # says why; the reasons group across samples whatever their symbols are named
    rows = [{"op": "a", "mode": "fwd-dynamic", "sample": 0, "status": "pass_kernels_only",
             "symbolic_declined": {"Unsupported: a concrete value of the size s53 + 1 is needed": 1}},
            {"op": "b", "mode": "fwd-dynamic", "sample": 0, "status": "pass_kernels_only",
             "symbolic_declined": {"Unsupported: a concrete value of the size s0 + 1 is needed": 1}},
            {"op": "c", "mode": "fwd-dynamic", "sample": 0, "status": "pass_kernels_only",
             "symbolic_declined": {}}]
    s = sweep.summarize(rows, {}, expected=_Declared)
    assert s["symbolic_declined"] == [{"reason": "Unsupported: a concrete value of the size s + 1 is needed",
                                       "samples": 2, "ops": 2, "opinfos": ["a", "b"]}]
    assert "not symbolic, run in ATen (samples, ops): Unsupported" in sweep.table(s)


def test_ops_left_in_aten_on_purpose_leave_the_coverage_figure():
    # an op whose every ATen call is declared on purpose (or whose key is in OPS_ON_PURPOSE)
    # is counted apart: the figure over the others is of what the compiler is meant to cover
    class Declared(_Declared):
        ATEN_ON_PURPOSE = {"aten._fft_r2c.default": "an FFT"}
        OPS_ON_PURPOSE = {"cfloat": "complex"}
    rows = [{"op": "a", "mode": "fwd", "sample": 0, "status": "pass_kernels_only"},
            {"op": "fft", "mode": "fwd", "sample": 0, "status": "pass_op_fallback",
             "fallbacks": {"aten._fft_r2c.default": 1, "with_effects": 1}},
            {"op": "cfloat", "mode": "fwd", "sample": 0, "status": "pass_op_fallback",
             "fallbacks": {"aten._to_copy.default": 1}},
            {"op": "sortish", "mode": "fwd", "sample": 0, "status": "pass_op_fallback",
             "fallbacks": {"aten._fft_r2c.default": 1, "aten.sort.default": 1}}]
    s = sweep.summarize(rows, {}, expected=Declared)
    assert s["on_purpose_ops"] == ["cfloat", "fft"] and s["kernels_only_pct"] == 25.0
    assert s["kernels_only_pct_not_on_purpose"] == 50.0 and "of the 2 not left in ATen" in sweep.table(s)


def test_read_rows_drops_a_torn_last_line_only(tmp_path):
    path = tmp_path / "rows.jsonl"
    good = json.dumps({"op": "abs", "mode": "fwd", "sample": 0, "status": "pass_kernels_only"})
    path.write_text(good + "\n" + '{"op": "ab')
    assert len(sweep.read_rows(str(path))) == 1
    path.write_text("not json\n" + good + "\n")
    with pytest.raises(ValueError, match=":1 is not a row"):
        sweep.read_rows(str(path))


# --------------------------------------------------------------------------- the CLI

def _cli(*args, timeout=600):
    # the tuner package this process imported (its install, or a laid-out copy)
    env = {**os.environ, "TRITON_INTERPRET": "1",
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))}
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_cli_help_and_bad_input():
    r = _cli("--help")
    assert r.returncode == 0 and "--op-timeout" in r.stdout and "examples:" in r.stdout
    r = _cli("--ops", "abs", "--samples", "0", "--out", "x.jsonl")
    assert r.returncode == 2 and "--samples must be at least 1" in r.stderr
    r = _cli("--ops", "nosuchop", "--out", "x.jsonl")
    assert r.returncode == 2 and "nosuchop" in r.stderr.splitlines()[-1]
    r = _cli("--frobnicate")
    assert r.returncode == 2 and "unrecognized arguments: --frobnicate" in r.stderr
    r = _cli("--ops", "abs", "--dtype", "int65", "--out", "x.jsonl")
    assert r.returncode == 2 and "'int65' is not a torch dtype" in r.stderr


def test_samples_of_another_dtype(ops):
    # --dtype int64: integer samples, compared exactly; gradients only for floating dtypes
    rows = list(sweep.run_op(ops["abs"], samples=1, dtype="int64"))
    assert [(r["status"], r["desc"].startswith("T[")) for r in rows] == [("pass_kernels_only", True)], rows
    assert "int64" in rows[0]["desc"]
    (row,) = sweep.run_op(ops["abs"], samples=1, mode="grad", dtype="int64")
    assert row["status"] == "skip" and row["detail"] == "not differentiable"
    (row,) = sweep.run_op(ops["linalg.det"], samples=1, dtype="int64")
    assert row["status"] == "skip" and row["detail"] == "no int64 on CPU"


def test_half_samples_may_match_eager_computed_in_float32(ops):
    # eager's CPU addr rounds its float16 product before the add, ours rounds once (float32
    # math, as eager's GPU kernel): off eager by more than float16's tolerance, equal to eager
    # computed in float32 and rounded
    rows = list(sweep.run_op(ops["addr"], samples=2, dtype="float16"))
    assert [r["status"] for r in rows] == ["pass_kernels_only"] * 2, _report(rows)
    assert "float32 reference" in {r["values"] for r in rows}, rows
    # each part on its own: grid_sample's output matches only the float32 reference (ours
    # samples half in float32), its gradients (ATen's backward) eager's
    (row,) = sweep.run_op(ops["grid_sampler_2d"], samples=1, mode="grad", dtype="float16")
    assert row["status"].startswith("pass") and row["values"] == "float32 reference", row


def test_dynamic_mode_compiles_every_size_as_a_symbol(ops):
    # --dynamic: torch.compile(dynamic=True), the shape-generic kernels' path (issue 46); a
    # 0-d sample has no size to make a symbol of
    rows = list(sweep.run_op(ops["softmax"], samples=2, mode="fwd-dynamic"))
    assert [(r["mode"], r["status"]) for r in rows] == [("fwd-dynamic", "pass_kernels_only")] * 2, _report(rows)
    assert all(r["symbolic"] == r["graphs"] == 1 for r in rows), rows
    (row,) = sweep.run_op(ops["softmax"], samples=1)
    assert row["symbolic"] == 0
    # dynamo's own fake-tensor failure (backend="eager" fails alike) is not ours: not an error
    (row,) = sweep.run_op(ops["max_pool2d_with_indices_backward"], samples=1, mode="fwd-dynamic")
    assert row["status"] == "dynamo_error" and not sweep.is_failure(row), row


def test_the_interpreter_rounds_float32_to_bfloat16_to_nearest_as_a_gpu(ops):
    # Triton's interpreter truncated float32 -> bfloat16 casts: tanh's bfloat16 gradient
    # 1 - y^2 took y = 0.996 where eager (and a GPU) round to 1.0: 0.031 instead of 0
    assert sweep.interpreter_rounds_bfloat16()
    import triton
    import triton.language as tl

    @triton.jit
    def cast(x_ptr, y_ptr):
        tl.store(y_ptr + tl.arange(0, 4), tl.load(x_ptr + tl.arange(0, 4)).to(tl.bfloat16))
    x = torch.tensor([0.99999905, 1.0 + 2**-8 + 2**-10, -8.47, 3.0])
    y = torch.empty(4, dtype=torch.bfloat16)
    cast[(1,)](x, y)
    assert torch.equal(y, x.to(torch.bfloat16))                  # to nearest even, as eager
    rows = list(sweep.run_op(ops["tanh"], samples=1, mode="grad", dtype="bfloat16"))
    assert [r["status"] for r in rows] == ["pass_kernels_only"], _report(rows)


def test_half_gradients_take_the_half_cotangents_in_the_float32_reference(ops):
    # kron's float16 gradient is eager's in float32 and rounded only when that reference is
    # given the sample's own (float16-rounded) cotangents, not float32 draws of more precision
    (row,) = sweep.run_op(ops["kron"], samples=1, mode="grad", dtype="float16")
    assert row["status"] == "pass_kernels_only" and row["values"] == "float32 reference", row


def test_half_results_as_close_to_the_exact_result_as_eagers_pass():
    # float64 on the same inputs is the exact result; eager's half result is 0.2 tolerances
    # off it. Ours passes within twice eager's error or two tolerances (two half ulps), element
    # by element; elements where eager overflowed bound nothing; a wrong value fails.
    t = lambda *v: torch.tensor(v, dtype=torch.float64)          # noqa: E731
    exact, eager = t(1.0, 2.0, 0.5), t(1.0002, 2.0, 0.5)
    close = sweep._as_close
    assert close([t(1.0015, 2.0, 0.5)], [eager], [exact], 1e-3, 1e-5)      # 1.5 tolerances
    assert not close([t(1.003, 2.0, 0.5)], [eager], [exact], 1e-3, 1e-5)   # 3, eager 0.2
    assert close([t(1.003, 2.0, 0.5)], [t(0.998, 2.0, 0.5)], [exact], 1e-3, 1e-5)   # eager 2
    assert not close([t(1.0, 2.0, 0.6)], [eager], [exact], 1e-3, 1e-5)     # wrong
    assert close([t(1.0, 2.0, 9e4)], [t(1.0, 2.0, float("inf"))], [t(1.0, 2.0, 9e4)], 1e-3, 1e-5)
    assert not close([t(1.0, 2.1, 9e4)], [t(1.0, 2.0, float("inf"))], [t(1.0, 2.0, 9e4)], 1e-3, 1e-5)
    assert close([None, 3], [None, 3], [None, 3], 1e-3, 1e-5)


def test_half_gradients_off_both_references_pass_as_close_to_exact_as_eager(ops):
    # layer_norm's float16 weight gradient sums over rows in another order than eager's CPU
    # kernel: 1.1 tolerances off the float64 result (eager 0.3), neither eager's nor eager's in
    # float32 within tolerance
    rows = list(sweep.run_op(ops["nn.functional.layer_norm"], samples=2, mode="grad", dtype="float16"))
    assert [r["status"] for r in rows] == ["pass_kernels_only"] * 2, _report(rows)
    assert rows[1]["values"] == "as close as eager", rows


def test_half_tolerances_follow_a_list_inputs_dtype_and_declarations_their_dtype(ops):
    # einsum's input is a list of tensors: its samples took float32's tolerance (the bfloat16
    # sweep: 'i,j->ij' one bfloat16 ulp off, the interpreter's truncating cast)
    rows = list(sweep.run_op(ops["einsum"], samples=2, dtype="bfloat16"))
    assert [r["status"] for r in rows] == ["pass_kernels_only"] * 2, _report(rows)
    # a "key@dtype" declaration holds for that dtype's samples: the interpreter's missing
    # bfloat16 atomic add (index_add@bfloat16); float32's index_add is generated
    (row,) = sweep.run_op(ops["index_add"], samples=1, dtype="bfloat16")
    assert row["status"] == "graph_fallback" and "bfloat16 atomic add" in row["declared"], row
    (row,) = sweep.run_op(ops["index_add"], samples=1)
    assert row["status"] == "pass_kernels_only", row


def test_topk_of_tied_integers_is_checked_by_value(ops):
    # integer samples tie: eager's index among equal elements is unspecified, so topk's indices
    # are checked to pick eager's values from the input; without the declaration a mismatch
    rows = list(sweep.run_op(ops["topk"], samples=1, dtype="int64"))
    assert [(r["status"], r["values"]) for r in rows] == [("pass_kernels_only", "ties")], rows
    (row,) = sweep.run_op(ops["topk"], samples=1, dtype="int64", expected=_Declared)
    assert row["status"] == "mismatch" and "['out'][1]" in row["detail"], row
    rows = list(sweep.run_op(ops["argsort"], samples=2, dtype="bool"))   # (dim first, then descending)
    assert [r["status"] for r in rows] == ["pass_kernels_only"] * 2, rows


def test_cli_runs_abs_writes_rows_and_summary_and_resumes(tmp_path):
    out = tmp_path / "tmp.jsonl"
    r = _cli("--ops", "abs", "--samples", "1", "--out", str(out))
    assert r.returncode == 0, r.stderr[-3000:]
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["op"] == "abs" and row["sample"] == 0 and row["mode"] == "fwd"
    assert row["status"] == "pass_kernels_only" and row["kernels"] >= 1
    summary = json.loads((tmp_path / "tmp.summary.json").read_text())
    head = summary["header"]
    assert head["torch"] == torch.__version__ and head["triton"] and head["date"]
    assert head["command"].endswith(f"--ops abs --samples 1 --out {out}")
    assert summary["op_counts"] == {"pass_kernels_only": 1} and summary["kernels_only_pct"] == 100.0
    assert "pass_kernels_only" in r.stdout and "failures: 0" in r.stdout
    # resumed: nothing runs again, the summary is written anew from the file
    r = _cli("--ops", "abs", "--samples", "1", "--out", str(out), "--resume")
    assert r.returncode == 0, r.stderr[-3000:]
    assert len(out.read_text().splitlines()) == 1


def test_cli_an_op_past_its_time_limit_is_a_timeout_row(tmp_path):
    # no machine compiles and runs a graph in a millisecond: the worker is killed, a row says so
    out = tmp_path / "t.jsonl"
    r = _cli("--ops", "abs", "--out", str(out), "--op-timeout", "0.001")
    assert r.returncode == 1
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["status"] == "timeout" and "--op-timeout" in row["detail"]
