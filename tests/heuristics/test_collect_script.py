"""scripts/collect_pad_mm_gpu.sh --smoke on CPU: a focused and a default-stream file, the
learned module and report, at most 8 files (what the device tool returns). Bounded by a count
of problems, never by seconds: a loaded machine collects the same files, only later."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the script runs `python3`: this interpreter's, so it imports the tuner package these tests do
ENV = {**os.environ, "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])}


def test_collection_script_smoke_collects_focused_and_default_streams_and_learns(tmp_path):
    out = tmp_path / "out"
    r = subprocess.run(["bash", str(ROOT / "scripts" / "collect_pad_mm_gpu.sh"), "--smoke",
                        "--samples", "30", "--seconds", "3000", "--out", str(out)], capture_output=True, text=True,
                       timeout=1200, cwd=tmp_path, env=ENV)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    names = sorted(p.name for p in out.iterdir())
    assert len(names) <= 8, names
    assert {"pad_mm_cpu_skinny_s0.jsonl.gz", "pad_mm_cpu_s1.jsonl.gz", "pad_mm_cpu.py",
            "report.md", "summary.json", "log.txt"} <= set(names)
    s = json.loads((out / "summary.json").read_text())
    assert [row["seed"] for row in s["seed_check"]] == [0, 1]
    merged = s.get("problems")
    assert merged and merged > 0
    log = (out / "log.txt").read_text()
    assert "--focus skinny" in log and "learning from 0 base + 2 new files" in log

    # a fresh test set: collect another seed, learn nothing, score the module just learned on it
    fresh = tmp_path / "fresh"
    r = subprocess.run(["bash", str(ROOT / "scripts" / "collect_pad_mm_gpu.sh"), "--smoke",
                        "--samples", "20", "--seconds", "3000", "--focus", "none", "--default-seed", "7", "--no-learn",
                        "--compare", str(out / "pad_mm_cpu.py"), "--out", str(fresh)],
                       capture_output=True, text=True, timeout=1200, cwd=tmp_path, env=ENV)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert sorted(p.name for p in fresh.iterdir()) == ["log.txt", "pad_mm_cpu_s7.jsonl.gz"]
    line = [ln for ln in r.stdout.splitlines() if ln.startswith(f"{out / 'pad_mm_cpu.py'} on ")]
    assert line and "pad_mm_cpu_s7.jsonl.gz: " in line[0] and "% unsure)" in line[0], r.stdout[-2000:]
    assert "learning from" not in r.stdout


def test_collection_script_rejects_bad_arguments(tmp_path):
    script = str(ROOT / "scripts" / "collect_pad_mm_gpu.sh")
    for args in (["--samples", "0"], ["--seconds", "x"], ["--default-share", "x"], ["--focus", "none", "--default-share", "0"], ["--bogus"],
                 ["--compare", str(tmp_path / "missing.py")]):
        r = subprocess.run(["bash", script, "--smoke", "--out", str(tmp_path / "o"), *args],
                           capture_output=True, text=True, timeout=60, env=ENV)
        assert r.returncode == 2 and r.stderr.strip(), args
        assert not (tmp_path / "o").exists()
