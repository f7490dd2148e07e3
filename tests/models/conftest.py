"""The model zoo: tiny random Hugging Face, timm and plain PyTorch models compiled with
backend="tuner" and compared with eager, at two input shapes (see model_zoo.py).

- Generated Triton kernels run on CPU tensors in Triton's interpreter (TRITON_INTERPRET=1,
  set here before torch or triton is imported, as tests/compiler does).
- transformers and timm are required, never skipped: scripts/setup.sh installs them
  (transformers through the ``test`` extra; timm with ``--no-deps``, see there). When one is
  missing every zoo test fails with the reason, so a CI run without them is red.
- torchvision: timm imports ``torchvision.ops.misc.FrozenBatchNorm2d`` (and, through
  ``timm.data``, ``torchvision.datasets`` / ``torchvision.transforms``) when it is imported.
  PyPI's torchvision is built against a different torch than our CPU build and cannot be
  loaded here, and installing it pulls a CUDA torch over ours. When ``import torchvision``
  fails, ``_stubs/`` goes first on sys.path: a stand-in package of ours with a working
  FrozenBatchNorm2d and import-time placeholders for the rest (none of the zoo's models use
  torchvision). transformers is asked whether torchvision is available *before* the stand-in
  is visible (the answer is cached), so transformers keeps seeing no torchvision.
- After the run, a table lists per test the graphs compiled, kernels, externs and ATen
  fallbacks (ops with no lowering, or whose lowering failed) from tuner.compiler.stats, so a
  newly missing lowering shows.
"""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")

import random  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

import tuner.compiler.stats as stats  # noqa: E402
import zoo_run  # noqa: E402

SETUP_HINT = "run `bash scripts/setup.sh` (pip install -e '.[test]' and timm --no-deps)"
MISSING = {}   # package -> why it cannot be imported; every zoo test fails with it

try:
    import transformers  # noqa: F401
    from transformers.utils import import_utils as _hf_import_utils
    _hf_import_utils.is_torchvision_available()   # cached before the stand-in is on sys.path
except Exception as e:   # noqa: BLE001
    MISSING["transformers"] = f"{type(e).__name__}: {e}"

zoo_run.use_torchvision_stand_in()   # torchvision, or the stand-in under _stubs/

try:
    import timm  # noqa: F401
except Exception as e:   # noqa: BLE001
    MISSING["timm"] = f"{type(e).__name__}: {e}"


# per test node id: outcome, seconds, compile counters and stats totals
RESULTS = {}


@pytest.fixture(autouse=True)
def _zoo_test(request):
    if MISSING:
        pytest.fail("model zoo dependencies missing (" + "; ".join(f"{k}: {v}" for k, v in MISSING.items())
                    + f"): {SETUP_HINT}", pytrace=False)
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    stats.reset()
    zoo_run.LAST.clear()
    torch.manual_seed(0)
    random.seed(0)
    try:
        import numpy
        numpy.random.seed(0)
    except ImportError:
        pass
    # Profile-guided dynamic shapes would carry what one run saw into the next through the
    # on-disk cache: every run starts static, as in a fresh process.
    with torch._dynamo.config.patch(automatic_dynamic_local_pgo=False):
        t0 = time.perf_counter()
        yield
        seconds = time.perf_counter() - t0
    rec = RESULTS.setdefault(request.node.nodeid, {})
    rec["seconds"] = seconds
    rec["stats"] = stats.totals()
    rec["graphs"] = len(stats.graphs())
    rec["graph_fallbacks"] = sum(1 for g in stats.graphs() if getattr(g, "graph_fallback", ""))
    rec["top"] = zoo_run.LAST.get("top_frame_compiles", "?")
    rec["per_shape"] = dict(stats.symbolic_fallbacks)   # graphs whose sizes could not stay symbolic (ATen)
    torch._dynamo.reset()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call" or (report.when == "setup" and report.failed):
        RESULTS.setdefault(item.nodeid, {})["outcome"] = report.outcome
    return report


def _counter_text(counter, width):
    if not counter:
        return "-"
    text = ", ".join(f"{k.removeprefix('aten.')}x{v}" for k, v in counter.most_common())
    return text if len(text) <= width else text[:width - 3] + "..."


def pytest_terminal_summary(terminalreporter):
    rows = {k: v for k, v in RESULTS.items() if "stats" in v}
    if not rows:
        return
    tr = terminalreporter
    tr.section("model zoo: compiles, ATen fallbacks and externs per test (tuner.compiler.stats)")
    tr.write_line(f"{'test':<40} {'result':<7} {'sec':>6} {'graphs':>6} {'kern':>5} {'extern':>6} "
                  f"{'fallbk':>6} {'top':>3}  fallback ops (op x count) | lowering errors | whole-graph ATen")
    total = 0.0
    for nodeid, r in rows.items():
        s = r["stats"]
        name = nodeid.split("::", 1)[-1]
        total += r["seconds"]
        errors = getattr(s, "lowering_errors", {}) or {}
        extra = ""
        if errors:
            extra += " | " + "; ".join(f"{k}: {v}" for k, v in errors.items())[:160]
        if r["graph_fallbacks"]:
            extra += f" | {r['graph_fallbacks']} graph(s) ran in ATen"
        if r.get("per_shape"):
            extra += " | not symbolic, ran in ATen: " + "; ".join(r["per_shape"])[:160]
        tr.write_line(f"{name:<40} {r.get('outcome', '?'):<7} {r['seconds']:>6.1f} {r['graphs']:>6} "
                      f"{s.kernels:>5} {sum(s.externs.values()):>6} {sum(s.fallbacks.values()):>6} {r['top']:>3}  "
                      f"{_counter_text(s.fallbacks, 70)}{extra}")
    externs = stats.GraphStats().externs.__class__()
    for r in rows.values():
        externs.update(r["stats"].externs)
    tr.write_line(f"{'total':<40} {'':<7} {total:>6.1f}")
    tr.write_line("graphs: graphs compiled (forward, backward; symbolic variants); kern: Triton kernels; extern: "
                  "ATen calls; fallbk: ops with no lowering (or a failed one); top: compiles of the top frame")
    tr.write_line(f"externs over the zoo: {_counter_text(externs, 400)}")
