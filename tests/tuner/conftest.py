"""Tuner tests: Triton runs under the interpreter, and benchmarks repeat little (CPU time)."""
import os
import sys

# Triton decides interpreter or compiler when it is imported (triton.language's own jit
# functions too), so this must precede any import of triton. An explicit TRITON_INTERPRET=0
# (GPU runs: `TRITON_INTERPRET=0 pytest -m gpu`) is kept.
os.environ.setdefault("TRITON_INTERPRET", "1")
sys.path.insert(0, os.path.dirname(__file__))  # the helper modules beside the tests

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _cheap_benchmarks(monkeypatch):
    monkeypatch.setenv("TUNER_BENCH_REPS", "2")
    monkeypatch.setenv("TUNER_BENCH_WARMUP", "0")
    monkeypatch.delenv("TUNER_SEARCH", raising=False)
    monkeypatch.delenv("TUNER_ISOLATE", raising=False)
    monkeypatch.delenv("TUNER_CACHE", raising=False)
    from tuner.cache import reset_cache
    reset_cache()
    yield
    reset_cache()
