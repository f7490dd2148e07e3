"""Collect mode's recorder: benchmarked decisions become dataset rows; cached ones do not."""
from types import SimpleNamespace

from tuner.collect import record_decision
from tuner.heuristics.dataset import read_dataset


def test_record_decision_appends_benchmarked_decisions(tmp_path, monkeypatch):
    monkeypatch.setenv("TUNER_DATASET_DIR", str(tmp_path / "data"))
    feats = {"m": 3, "k": 5, "n": 7, "tf32": False}
    record_decision("pad_mm", feats, SimpleNamespace(source="exhaustive", choice="pad",
                                                     timings=[("pad", 1.0), ("orig", 2.0)]))
    record_decision("pad_mm", {**feats, "m": 4}, SimpleNamespace(source="exhaustive", choice="orig",
                                                                 timings=[("pad", 3.0), ("orig", 2.0)]))
    record_decision("pad_mm", feats, SimpleNamespace(source="cache", choice="pad", timings=[("pad", 1.0)]))
    ds = read_dataset(tmp_path / "data" / "pad_mm.jsonl")
    assert ds.header["point"] == "pad_mm" and ds.header["choices"] == ["orig", "pad"]
    assert len(ds.rows) == 4 and len(ds.complete_problems()) == 2
    assert {r["time_ms"] for r in ds.rows} == {1.0, 2.0, 3.0}
