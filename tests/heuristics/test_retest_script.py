"""scripts/pad_mm_retest.py: two runs of the same problems, compared."""
import json
import subprocess
import sys
from pathlib import Path

from tuner.heuristics.dataset import DatasetWriter, make_header

ROOT = Path(__file__).resolve().parents[2]
META = {"gpu_name": "NVIDIA H100 80GB HBM3", "compute_capability": [9, 0],
        "shared_memory_per_block": 232448, "torch": "2.11.0", "triton": "3.6.0"}


def _write(path, times):
    header = make_header("pad_mm", {"m": "int"}, ["orig", "pad"], device_meta=META)
    with DatasetWriter(path, header) as w:
        for i, (orig, pad) in enumerate(times):
            w.write_problem([{"problem": f"s0-{i}", "choice": c, "time_ms": t, "reps": 3, "spread": 0.0,
                              "m": i} for c, t in (("orig", orig), ("pad", pad))])


def test_retest_counts_moved_times_and_flipped_winners(tmp_path):
    first = [(0.010, 0.020), (0.050, 0.040), (0.200, 0.100), (0.030, 0.031)]
    # problem 1: pad's time doubles and orig now wins by 1.6x (a flip, both runs > 10% apart);
    # problem 3: a near-tie whose winner changes (a flip, but not by > 10% in the first run)
    second = [(0.010, 0.020), (0.050, 0.080), (0.201, 0.100), (0.031, 0.030)]
    _write(tmp_path / "a.jsonl", first)
    _write(tmp_path / "b.jsonl", second + [(0.1, 0.1)])          # an extra problem: ignored
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "pad_mm_retest.py"), str(tmp_path / "a.jsonl"),
                           str(tmp_path / "b.jsonl"), "--out", str(out)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(out.read_text())
    assert r["common_problems"] == 4
    assert r["moved_10pct_pad"] == 0.25 and r["moved_10pct_orig"] == 0.0
    assert r["winner_flipped_both_by_10pct"] == 1 and r["winner_agrees"] == 0.5
    assert r["first_winner_loses_in_second_10pct"] == 1 and r["first_winner_loses_in_second_2pct"] == 2


def test_retest_refuses_a_missing_file(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "pad_mm_retest.py"), str(tmp_path / "x.jsonl"),
                           str(tmp_path / "y.jsonl")], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "no such dataset" in proc.stderr
