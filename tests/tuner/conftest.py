"""Tuner tests: Triton runs under the interpreter, and benchmarks repeat little (CPU time)."""
import os
import sys

# Before any test module imports triton: kernels must be built as interpreted functions.
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
