"""The README's runnable examples run as written on a CPU machine (Triton's interpreter).

A ```python block that sets TRITON_INTERPRET is meant to run as it stands (the quick start,
the `tuner.autotune` example); the others are fragments. Each runs in a fresh interpreter,
from an empty folder, with the test's private cache folder.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


PRINTS = re.compile(r"\A\s*It prints `([^`]+)`")


def runnable_blocks() -> list[tuple[str, str, str | None]]:
    """(section title, code, what the text after it says it prints) of every python block
    that sets TRITON_INTERPRET."""
    text = README.read_text()
    found = []
    for m in BLOCK.finditer(text):
        if 'os.environ["TRITON_INTERPRET"] = "1"' in m.group(1):
            title = re.findall(r"^## (.+)$", text[:m.start()], re.MULTILINE)[-1]
            said = PRINTS.match(text[m.end():])
            found.append((title, m.group(1), said.group(1) if said else None))
    return found


def test_the_quick_start_has_a_runnable_block():
    titles = [title for title, _, _ in runnable_blocks()]
    assert any(t.startswith("Quick start") for t in titles), titles
    assert titles[0].startswith("Quick start"), "the quick start comes first"


@pytest.mark.parametrize("index", range(len(runnable_blocks())))
def test_readme_block_runs_on_the_cpu(index, tmp_path):
    title, code, said = runnable_blocks()[index]
    env = {**os.environ, "TRITON_INTERPRET": "1", "CUDA_VISIBLE_DEVICES": ""}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"README block in '{title}' failed:\n{proc.stderr[-3000:]}"
    assert proc.stdout.strip(), f"README block in '{title}' printed nothing"
    if said is not None:   # the figures the README quotes are the ones it prints
        assert said in proc.stdout, f"README says '{title}' prints {said!r}; it printed {proc.stdout!r}"


def test_the_quick_start_quotes_what_it_prints():
    assert runnable_blocks()[0][2], "the quick start says what it prints (It prints `...`)"
