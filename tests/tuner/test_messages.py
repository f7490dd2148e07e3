"""Issue 17, tools and messages: what the engine says when tuning goes wrong or takes long."""
import io
import math

import pytest

from tuner import bench, report
from tuner.engine import HISTORY, decide
from tuner.report import explain, format_report
from tuner.search.base import Memo
from tuner.settings import SettingError


def _caught_benchmark(choice):
    # what the compiler's measure does (compiler/runtime/launch.py): any error scores inf
    try:
        return bench.benchmark(lambda: None, device="cpu")
    except Exception:
        return float("inf")


def test_bad_bench_setting_fails_the_decision_instead_of_every_candidate(monkeypatch):
    monkeypatch.setenv("TUNER_BENCH_REPS", "abc")
    with pytest.raises(SettingError, match="TUNER_BENCH_REPS='abc'"):
        decide("test.msg", "reps", ["a", "b"], _caught_benchmark)


def test_a_search_reraises_a_bad_setting(monkeypatch):
    monkeypatch.setenv("TUNER_BENCH_WARMUP", "lots")
    memo = Memo(lambda c: bench.benchmark(lambda: None, device="cpu"))
    with pytest.raises(SettingError, match="TUNER_BENCH_WARMUP"):
        memo("a")


def test_report_shows_why_a_candidate_failed(monkeypatch):
    def measure(choice):
        if choice == "bad":
            raise ValueError("XBLOCK too large for this kernel\nsecond line not shown")
        if choice == "caught":
            return _caught_benchmark_failing()
        return 1.0

    def _caught_benchmark_failing():
        try:
            return bench.benchmark(lambda: 1 / 0, device="cpu")
        except Exception:
            return float("inf")

    d = decide("test.msg", "why", ["good", "bad", "caught"], measure)
    report = format_report(d)
    assert "failed (inf): ValueError: XBLOCK too large for this kernel" in report
    assert "second line" not in report
    # a measure that turned the benchmark's error into inf: the benchmark noted why
    assert "failed (inf): ZeroDivisionError: division by zero" in report
    assert "measured by exhaustive: 3 timed, 2 failed (first: " in explain(d)


def test_decisions_log_says_source_and_why(monkeypatch, capsys):
    monkeypatch.setenv("TUNER_LOGS", "decisions")
    times = {"a": 2.0, "b": 1.0}
    decide("test.msg", "log", ["a", "b"], times.__getitem__, heuristic=lambda: None)
    decide("test.msg", "log", ["a", "b"], times.__getitem__, heuristic=lambda: None)
    decide("test.msg", "log2", ["a", "b"], times.__getitem__, heuristic=lambda: "b")
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3, lines
    assert lines[0].startswith("decision test.msg log: b measured by exhaustive: 2 timed; "
                               "best 1.0000 ms, default 2.0000 ms (2.00x)")
    assert "cache miss; heuristic: unsure" in lines[0]
    assert "from the local cache (found by exhaustive, 1.0000 ms; saved" in lines[1]
    assert lines[2].startswith("decision test.msg log2: b from the heuristic")


def test_decisions_log_says_why_a_shipped_heuristic_did_not_apply():
    from tuner.heuristics.registry import CPU, lookup
    d = decide("pad_mm", "why-not", ["orig", "pad"], {"orig": 1.0, "pad": 2.0}.__getitem__,
               heuristic=lambda: lookup("pad_mm", {"m": 1}, CPU))
    assert "heuristic: did not apply: precondition (here: cpu, capability 0.0" in explain(d)
    assert "pad_mm_h100 is for NVIDIA H100" in explain(d)


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_line_on_a_terminal_only(monkeypatch):
    monkeypatch.setattr(report._Progress, "SHOW_AFTER_S", 0.0)
    monkeypatch.setattr(report._Progress, "EVERY_S", 0.0)
    monkeypatch.delenv("CI", raising=False)
    tty = _Tty()
    monkeypatch.setattr("sys.stderr", tty)
    decide("test.msg", "progress", ["a", "b", "c"], lambda c: 1.0)
    out = tty.getvalue()
    assert "\r\x1b[Ktuner: tuning test.msg progress: 2/3 measured, ETA" in out
    assert out.endswith("\r\x1b[K")   # the line is gone when the decision is made
    monkeypatch.setenv("CI", "true")
    tty2 = _Tty()
    monkeypatch.setattr("sys.stderr", tty2)
    decide("test.msg", "progress-ci", ["a", "b", "c"], lambda c: 1.0)
    assert tty2.getvalue() == ""
    monkeypatch.delenv("CI")
    plain = io.StringIO()   # not a terminal
    monkeypatch.setattr("sys.stderr", plain)
    decide("test.msg", "progress-pipe", ["a", "b", "c"], lambda c: 1.0)
    assert plain.getvalue() == ""


def test_autotune_rejects_unknown_keyword_arguments():
    import tuner
    with pytest.raises(TypeError, match=r"unknown keyword argument 'serach' \(did you mean "
                                        r"'search'\?\); valid: configs, key, "):
        tuner.autotune(configs=[], key=["n"], serach="exhaustive")


def test_cache_hit_counts_its_saved_tuning_time():
    decide("test.msg", "saved", ["a", "b"], {"a": 2.0, "b": 1.0}.__getitem__)
    d = decide("test.msg", "saved", ["a", "b"], {"a": 2.0, "b": 1.0}.__getitem__)
    assert d.source == "cache" and d.cache_layer == "local"
    assert d.saved_seconds == HISTORY[-2].tuning_seconds and math.isfinite(d.saved_seconds)
