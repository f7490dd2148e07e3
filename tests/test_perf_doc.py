"""scripts/perf_doc.py: docs/PERFORMANCE.md's generated tables match their JSON documents, and
the script renders, rewrites and rejects as its help says."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "perf_doc.py"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def test_the_committed_document_is_up_to_date():
    r = run("--check")
    assert r.returncode == 0, r.stderr


def test_a_stale_table_is_found_then_rewritten_from_its_json(tmp_path):
    res = tmp_path / "opt.json"
    res.write_text(json.dumps({"gpu": "G", "torch": "t", "triton": "x", "date": "d", "command": "c",
                               "cases": [{"params": "p", "dtype": "fp32", "optimizer": "adam",
                                          "tensors": 3, "variants": [
                                              {"variant": "fused", "ms": 1.5, "kernels_per_step": 9},
                                              {"variant": "tuner", "error": "boom"}]}]}))
    doc = tmp_path / "doc.md"
    doc.write_text(f"prose\n<!-- BEGIN generated: optimizer {res} -->\nold\n"
                   "<!-- END generated: optimizer -->\nmore prose\n")
    assert run("--doc", str(doc), "--check").returncode == 1
    assert run("--doc", str(doc)).returncode == 0
    text = doc.read_text()
    assert "| p fp32 adam (3 tensors) | 1.500 (9 kernels) | error |" in text
    assert text.startswith("prose\n") and text.endswith("more prose\n") and "old" not in text
    assert run("--doc", str(doc), "--check").returncode == 0


def test_unknown_tables_and_missing_files_are_named(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- BEGIN generated: speed a.json -->\n<!-- END generated: speed -->\n")
    r = run("--doc", str(doc))
    assert r.returncode != 0 and "unknown table 'speed'" in r.stderr and "optimizer, mm" in r.stderr
    doc.write_text("<!-- BEGIN generated: mm nowhere.json -->\n<!-- END generated: mm -->\n")
    r = run("--doc", str(doc))
    assert r.returncode != 0 and "cannot read nowhere.json" in r.stderr
    assert doc.read_text().endswith("<!-- END generated: mm -->\n")   # nothing half-written


def test_unmatched_markers_are_an_error_and_nothing_is_written(tmp_path):
    doc = tmp_path / "doc.md"
    text = "<!-- BEGIN generated: mm a.json -->\nkept\n"
    doc.write_text(text)
    r = run("--doc", str(doc))
    assert r.returncode != 0 and "unmatched generated markers" in r.stderr
    assert doc.read_text() == text
