"""pad_mm through tuner.engine.decide on CPU: benchmark -> cache, a confident heuristic skips
benchmarking, and collect mode records every benchmarked decision in a dataset."""
import pytest

import tuner.heuristics.registry as registry_mod
from tuner.heuristics.dataset import read_dataset
from tuner.heuristics.contexts import PadMMContext
from tuner.heuristics.registry import Registry
from tuner.points.pad_mm import decide_pad_mm, pad_mm_decision

CTX = PadMMContext("mm", 33, 21, 17, "float32")


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch):
    from tuner.cache import reset_cache
    reset_cache()
    yield
    reset_cache()


def test_benchmarks_both_then_answers_from_the_cache():
    d = pad_mm_decision(CTX, device="cpu")
    assert d.source == "exhaustive" and d.choice in ("pad", "orig")
    assert {c for c, _ in d.timings} == {"pad", "orig"} and all(t > 0 for _, t in d.timings)
    again = pad_mm_decision(CTX, device="cpu")
    assert again.source == "cache" and again.choice == d.choice


class _Always:
    """A heuristic module answering one choice for CPU problems (what tuner learn writes)."""
    from tuner.heuristics.interface import Precondition
    PRECONDITION = Precondition("pad_mm", (0, 0), 0, 1)
    __name__ = "always"

    def __init__(self, choice):
        self.choice = choice

    def decide(self, features):
        assert features["m"] == 33
        return self.choice


def test_a_confident_heuristic_skips_benchmarking(monkeypatch):
    monkeypatch.setattr(registry_mod, "_default", Registry([_Always("pad")]))
    d = pad_mm_decision(CTX, device="cpu")
    assert d.source == "heuristic" and d.choice == "pad" and d.timings == []
    monkeypatch.setattr(registry_mod, "_default", Registry([_Always(None)]))   # unsure: measure
    assert pad_mm_decision(CTX, device="cpu").source in ("exhaustive", "cache")
    monkeypatch.setenv("TUNER_HEURISTICS", "off")
    monkeypatch.setattr(registry_mod, "_default", Registry([_Always("pad")]))
    assert pad_mm_decision(PadMMContext("mm", 35, 21, 17, "float32"), device="cpu").source == "exhaustive"


def test_collect_mode_records_benchmarked_decisions(tmp_path, monkeypatch):
    monkeypatch.setenv("TUNER_HEURISTICS", "collect")
    monkeypatch.setenv("TUNER_DATASET_DIR", str(tmp_path))
    for m in (33, 34, 35):
        assert decide_pad_mm(PadMMContext("addmm", m, 21, 17, "bfloat16"), device="cpu") in ("pad", "orig")
    ds = read_dataset(tmp_path / "pad_mm.jsonl")
    assert ds.header["point"] == "pad_mm" and ds.header["choices"] == ["orig", "pad"]
    assert "pad_frac_k" in ds.header["features"]
    assert len(ds.complete_problems()) == 3 and {r["m"] for r in ds.rows} == {33, 34, 35}
