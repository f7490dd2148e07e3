"""Shared fixtures: every test gets its own empty cache folder; GPU tests skip without CUDA;
`unprivileged` runs a process that meets file permissions even as root."""
import os
import subprocess

import pytest

from triton_rounding import interpreter_rounds_bfloat16


@pytest.fixture(autouse=True)
def _isolated_tuner_env(tmp_path, monkeypatch):
    # The CPU tests' kernels run in Triton's interpreter: its bfloat16 casts round as a GPU's
    # (installed once, here rather than at import: the folders' conftests set TRITON_INTERPRET
    # before anything imports Triton)
    interpreter_rounds_bfloat16()
    # Never touch the user's ~/.cache/tuner or a shared Redis from a test.
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / "tuner-cache"))
    for var in ("TUNER_REMOTE_CACHE", "TUNER_CACHE_SECRET", "TUNER_REMOTE_READONLY",
                "TUNER_LOGS", "TUNER_HEURISTICS", "TUNER_REDIS_PASSWORD"):
        monkeypatch.delenv(var, raising=False)
    # A benchmarked pad_mm choice (the default, auto) would make compiled kernel counts depend
    # on CPU timings; tests that want padding or a decision ask for it.
    monkeypatch.setenv("TUNER_PAD_MM", "never")
    # likewise the mm point (auto: template or ATen, measured in max-autotune)
    monkeypatch.setenv("TUNER_MM", "extern")
    # a graph compiled twice in one test would be rebuilt from the compiled-graph cache, and
    # tests that compile again to see the decision cache answer would see no decision at all;
    # the graph cache's own tests (tests/compiler/test_graph_cache.py) turn it on
    monkeypatch.setenv("TUNER_GRAPH_CACHE", "0")
    # template configs remembered by matmul within a process (tuner/points/triton_kernel.py)
    from tuner.points.triton_kernel import forget_templates
    forget_templates()
    # configs built ahead on the compile workers, remembered per process; a background batch
    # an earlier test left running (a graph whose kernels were not all called) ends first: while
    # it holds the workers a graph's prebuild sends nothing
    import time

    from tuner import compile_workers
    from tuner.compiler.runtime.launch import BUILDING, PREBUILT
    for batch, i in list(BUILDING.values()):
        batch.result(i)
    end = time.monotonic() + 120
    while compile_workers.background_busy() and time.monotonic() < end:
        time.sleep(0.01)
    PREBUILT.clear()
    BUILDING.clear()
    yield


def pytest_collection_modifyitems(config, items):
    try:
        import torch
        has_cuda = torch.cuda.is_available()
    except Exception:
        has_cuda = False
    if has_cuda:
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (run scripts/device/gpu_tests.sh on the device machine)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def _cannot_override_permissions():
    """Run in the child before exec: as root, drop CAP_DAC_OVERRIDE from the bounding set so
    the child (still root) meets file permissions as everyone else does; otherwise nothing."""
    if os.geteuid() != 0:
        return
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(24, 1, 0, 0, 0) != 0:  # PR_CAPBSET_DROP, CAP_DAC_OVERRIDE
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


@pytest.fixture
def unprivileged():
    """run(argv, env) -> CompletedProcess: a process that cannot write where permissions say it
    may not (chmod alone does not stop root, which the test machines often are)."""
    def run(argv, env, input=None):
        try:
            return subprocess.run(argv, env=env, input=input, capture_output=True, text=True,
                                  timeout=120, preexec_fn=_cannot_override_permissions)
        except subprocess.SubprocessError as e:
            if "prctl" in str(e):
                pytest.skip("cannot drop root's permission override here")
            raise
    return run
