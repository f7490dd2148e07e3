"""Paths the user names that cannot be written or read: a one-line error naming the path,
exit 1, nothing written (issue 51, item 15)."""
import os
import sys

import pytest

from .synthetic import write_synthetic


@pytest.fixture
def read_only(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o555)
    yield d
    d.chmod(0o755)


@pytest.mark.parametrize("argv, named", [
    (["learn", "{data}", "--out", "{ro}/out", "--max-depth", "2", "--min-samples-leaf", "5"], "{ro}/out"),
    (["collect", "pad_mm", "--samples", "2", "--device", "cpu", "--out", "{ro}/x.jsonl.gz"],
     "{ro}/x.jsonl.gz"),
])
def test_an_unwritable_out_is_one_line_naming_it(tmp_path, read_only, unprivileged, argv, named):
    data = tmp_path / "d.jsonl"
    write_synthetic(data, 40, seed=1)
    fill = {"data": data, "ro": read_only}
    argv = [a.format(**fill) for a in argv]
    env = {**os.environ, "TUNER_CACHE_DIR": str(tmp_path / "cache")}
    r = unprivileged([sys.executable, "-m", "tuner.cli", *argv], env)
    out = (r.stdout + r.stderr).strip()
    assert r.returncode == 1, out
    assert out == f"Error: {named.format(**fill)}: Permission denied", out
    assert list(read_only.iterdir()) == []


def test_a_corrupt_gzip_is_named_as_damaged(tmp_path):
    import gzip

    from click.testing import CliRunner

    from tuner.cli import main
    bad = tmp_path / "d.jsonl.gz"
    bad.write_bytes(gzip.compress(b'{"format": "tuner-dataset"}\n' * 50)[:20])
    r = CliRunner().invoke(main, ["learn", str(bad), "--out", str(tmp_path / "out")])
    assert r.exit_code == 1
    assert "damaged" in r.output and "empty file" not in r.output and "Traceback" not in r.output
    assert not (tmp_path / "out").exists()
