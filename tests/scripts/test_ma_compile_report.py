"""scripts/ma_compile_report.py: the device script's JSON lines -> per-model compile table."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ma_compile_report.py"


def _lines(case, variant, first_s, measured):
    out = [json.dumps({"round": 1, "case": case, "variant": variant}),
           json.dumps({"case": case, "first_s": first_s, "benchmarks": sum(n for _, n in measured)})]
    out += [json.dumps({"ns": ns, "source": "exhaustive", "n": n, "s": 0.1, "problem": "p"})
            for ns, n in measured]
    return out


def test_table_has_ratios_to_default_and_counts_matmul_benchmarks(tmp_path):
    lines = (_lines("gpt2", "default", 10.0, [])
             + _lines("gpt2", "ma", 15.0, [("mm_backend", 2), ("triton.template", 9), ("triton.pointwise", 4)])
             + _lines("gpt2", "ma-off", 40.0, [("mm_backend", 2), ("triton.template", 20), ("triton.pointwise", 16)])
             + _lines("gpt2", "default-warm", 8.0, []) + _lines("gpt2", "ma-warm", 7.2, [])
             + _lines("gpt2", "ma-remoteup", 16.0, [("mm_backend", 2)]) + _lines("gpt2", "ma-remote", 9.5, [])
             + ['{"round": 1, "case": "bert", "variant": "ma"}', '{"failed": "bert ma"}', "some log line"])
    src = tmp_path / "ma_compile_table.jsonl"
    src.write_text("\n".join(lines) + "\n")
    merged = tmp_path / "merged.json"
    r = subprocess.run([sys.executable, str(SCRIPT), str(src), "--merge-into", str(merged)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    header, row = r.stdout.splitlines()[:2]
    cells = dict(zip(header.split(" | "), row.split(" | ")))
    assert cells["ma/default"] == "1.5" and cells["ma-off/default"] == "4.0"
    assert cells["ma_mm_benchmarks"] == "11" and cells["ma-off_mm_benchmarks"] == "22"
    assert cells["mm_benchmarks_ratio"] == "0.5"
    assert cells["ma-warm/default-warm"] == "0.9"     # warm against warm, not the cold default
    assert cells["ma-remote/default"] == "0.95"       # a fresh machine: against the cold default
    assert "11 / 22 = 0.50" in r.stdout
    rows = json.loads(merged.read_text())["rows"]
    assert len(rows) == 8 and rows[-1]["failed"] == "bert ma"     # kept, not tabled
    assert not any(line.startswith("bert") for line in r.stdout.splitlines())


def test_a_missing_input_is_refused_by_name(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "nope.jsonl")], capture_output=True, text=True)
    assert r.returncode != 0 and "nope.jsonl: no such file" in r.stderr


def test_two_rounds_take_their_median_and_every_cold_variant_gets_a_ratio(tmp_path):
    lines = (_lines("bert", "default", 11.0, []) + _lines("bert", "default", 13.0, [])
             + _lines("bert", "ma", 20.0, []) + _lines("bert", "ma", 16.0, [])
             + _lines("bert", "ma-bg", 14.0, []) + _lines("bert", "ma-bg", 16.0, [])
             + _lines("gpt2", "ma-prof", 30.0, [("triton.pointwise", 4)])
             + [json.dumps({"profile_own": [["bench.py:1:f", 2.0, 3.0, 5]], "profile_cum": []})])
    src = tmp_path / "ma_compile_table.jsonl"
    src.write_text("\n".join(lines) + "\n")
    merged = tmp_path / "merged.json"
    r = subprocess.run([sys.executable, str(SCRIPT), str(src), "--merge-into", str(merged)],
                       capture_output=True, text=True)
    prof = [row for row in json.loads(merged.read_text())["rows"] if row["variant"] == "ma-prof"]
    assert prof[0]["profile"]["profile_own"][0][0] == "bench.py:1:f"   # kept with its run
    assert r.returncode == 0, r.stderr
    header, row = r.stdout.splitlines()[:2]
    cells = dict(zip(header.split(" | "), row.split(" | ")))
    assert cells["default_s"] == "12.0" and cells["ma_s"] == "18.0"     # not the upper value
    assert cells["ma/default"] == "1.5" and cells["ma-bg/default"] == "1.25"
