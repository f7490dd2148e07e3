"""scripts/ holds maintained tools only: each answers --help with an example, and the folder
stays small (no probes folder, under MAX_LINES lines; measurements go to docs/ instead).
Helper modules (a leading underscore) are imported by the scripts, not run."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
# (3000 after the cleanup of issue 47; the generate, serving, decode and DistilBERT benchmarks
# that issues 46, 48 and 52 ask for took it past that, and issue 53's graph cache benchmark
# past 3600, issue 50's reserved peaks and CUDA graph census past 3850, issue 49's NCHW
# training cases past 3860: every file here counts, the shell scripts too)
MAX_LINES = 3870


def _files():
    return sorted(p for p in SCRIPTS.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _scripts():
    return [p for p in _files() if p.suffix in (".py", ".sh") and not p.name.startswith("_")]


@pytest.mark.parametrize("script", _scripts(), ids=lambda p: str(p.relative_to(SCRIPTS)))
def test_every_script_answers_help_with_an_example(script):
    cmd = [sys.executable, str(script)] if script.suffix == ".py" else ["bash", str(script)]
    # from an empty folder and without $OUT: --help must not do a script's work
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([*cmd, "--help"], capture_output=True, text=True, timeout=300, env=env,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    text = r.stdout.lower()
    assert script.name in text or "scripts/" in text, r.stdout[:500]
    assert "example" in text or f"scripts/{script.relative_to(SCRIPTS)}" in r.stdout, r.stdout[-800:]
    if script.suffix == ".py":
        assert r.stdout.startswith("usage:") and "examples" in text


def test_scripts_stay_small_and_hold_no_probes():
    assert not (SCRIPTS / "probes").exists(), "one-off probes go to docs/, not scripts/probes/"
    lines = {str(p.relative_to(SCRIPTS)): len(p.read_bytes().splitlines()) for p in _files()}
    total = sum(lines.values())
    assert total < MAX_LINES, (f"scripts/ has {total} lines (limit {MAX_LINES}); largest: "
                               + ", ".join(f"{k} {v}" for k, v in sorted(lines.items(), key=lambda kv: -kv[1])[:5]))


def test_ma_compile_split_rejects_an_unknown_case_before_compiling():
    r = subprocess.run([sys.executable, str(SCRIPTS / "ma_compile_split.py"), "nosuchcase"],
                       capture_output=True, text=True, timeout=300, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2 and "unknown case 'nosuchcase'" in r.stderr
