"""Each module of the compiler and the tuner stays small enough to read in one sitting: a
module past the limit is split by concern (docs/CONTRIBUTING.md)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 700


def test_no_module_in_compiler_or_tuner_over_the_limit():
    over = {}
    for folder in ("compiler", "tuner"):
        for path in (ROOT / folder).rglob("*.py"):
            n = len(path.read_text().splitlines())
            if n > MAX_LINES:
                over[str(path.relative_to(ROOT))] = n
    assert not over, f"modules over {MAX_LINES} lines: {over}"
