"""read_dataset reads line by line (hardening issue, item 7): the same rows as a whole-file
read, at any chunk size, a killed writer's gzip tail kept as before, and a gzip bomb refused."""
import gzip
import json
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

import tuner.heuristics.dataset as dataset
from tuner.cli import main
from tuner.heuristics.dataset import DatasetError, DatasetWriter, make_header, read_dataset

DATA = Path(__file__).resolve().parents[2] / "data"
META = {"gpu_name": "NVIDIA H100 80GB HBM3", "compute_capability": [9, 0],
        "shared_memory_per_block": 232448, "torch": "2.11.0", "triton": "3.6.0"}


def _whole_file_read(path):
    """What the reader gave before it streamed, for a complete file: the text at once."""
    text = gzip.decompress(path.read_bytes()).decode()
    lines = [ln for ln in text.split("\n") if ln.strip()]
    return json.loads(lines[0]), [json.loads(ln) for ln in lines[1:]]


@pytest.mark.parametrize("name", ["mm/mm_costly_h200_s1.jsonl.gz",
                                  "triton_kernel/pointwise_h100_s0.jsonl.gz"])
def test_committed_data_files_read_as_before(name):
    path = DATA / name
    header, rows = _whole_file_read(path)
    ds = read_dataset(path)
    assert ds.header == header and ds.rows == rows and not ds.truncated
    assert len(rows) > 100


def _files(tmp_path):
    """A closed .gz, a killed writer's .gz (no end marker), the same with a torn tail, and
    plain files with a torn last line and a torn line that ends in a newline."""
    header = make_header("pad_mm", {"m": "int", "k": "int"}, ["orig", "pad"], device_meta=META)
    rows = lambda i: [{"problem": f"p{i}", "choice": c, "time_ms": 1.0 + i, "m": i, "k": 2}  # noqa: E731
                      for c in ("orig", "pad")]
    with DatasetWriter(tmp_path / "closed.jsonl.gz", header) as w:
        for i in range(50):
            w.write_problem(rows(i))
    w = DatasetWriter(tmp_path / "killed.jsonl.gz", header)
    for i in range(50):
        w.write_problem(rows(i))
    killed = (tmp_path / "killed.jsonl.gz").read_bytes()   # no close(): as after a kill
    del w   # (its GzipFile would close the stream when collected: the kill's bytes go back)
    (tmp_path / "killed.jsonl.gz").write_bytes(killed)
    (tmp_path / "torn.jsonl.gz").write_bytes(killed[:-7])
    with DatasetWriter(tmp_path / "plain.jsonl", header) as w:
        for i in range(50):
            w.write_problem(rows(i))
    text = (tmp_path / "plain.jsonl").read_bytes()
    (tmp_path / "plain_torn.jsonl").write_bytes(text[:-15])
    (tmp_path / "plain_torn_nl.jsonl").write_bytes(text[:-15] + b"\n\n")
    (tmp_path / "two_members.jsonl.gz").write_bytes(
        gzip.compress(text[:300]) + gzip.compress(text[300:]))
    return ["closed.jsonl.gz", "killed.jsonl.gz", "torn.jsonl.gz", "plain.jsonl",
            "plain_torn.jsonl", "plain_torn_nl.jsonl", "two_members.jsonl.gz"]


def test_any_chunk_size_reads_the_same_rows(tmp_path, monkeypatch):
    names = _files(tmp_path)
    expected = {n: read_dataset(tmp_path / n) for n in names}
    assert [n for n in names if expected[n].truncated] == \
        ["killed.jsonl.gz", "torn.jsonl.gz", "plain_torn.jsonl", "plain_torn_nl.jsonl"]
    assert len(expected["closed.jsonl.gz"].rows) == 100 == len(expected["killed.jsonl.gz"].rows)
    assert len(expected["two_members.jsonl.gz"].rows) == 100
    assert 95 <= len(expected["torn.jsonl.gz"].rows) < 100     # what was flushed stays
    assert len(expected["plain_torn.jsonl"].rows) == 99 == len(expected["plain_torn_nl.jsonl"].rows)
    for chunk in (1, 7, 4096):
        monkeypatch.setattr(dataset, "READ_CHUNK", chunk)
        for n in names:
            ds = read_dataset(tmp_path / n)
            assert (ds.header, ds.rows, ds.truncated) == \
                (expected[n].header, expected[n].rows, expected[n].truncated), (chunk, n)


def test_damaged_and_empty_gzip_files_keep_their_messages(tmp_path):
    (tmp_path / "empty.jsonl.gz").write_bytes(b"")
    with pytest.raises(DatasetError, match="empty file"):
        read_dataset(tmp_path / "empty.jsonl.gz")
    (tmp_path / "cut.jsonl.gz").write_bytes(gzip.compress(b'{"format": "tuner-dataset"}\n')[:12])
    with pytest.raises(DatasetError, match="damaged or ends before its first line"):
        read_dataset(tmp_path / "cut.jsonl.gz")


def _bomb(path, zeros=300 << 20):
    """A dataset header, then `zeros` zero bytes, gzipped a MiB at a time (about 300 KB)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    header = make_header("pad_mm", {"m": "int"}, ["orig", "pad"], device_meta=META)
    block = bytes(1 << 20)
    with open(path, "wb") as f:
        f.write(c.compress((json.dumps(header) + "\n").encode()))
        for _ in range(zeros >> 20):
            f.write(c.compress(block))
        f.write(c.flush())


def test_a_gzip_bomb_is_refused_in_one_line(tmp_path):
    bomb = tmp_path / "bomb.jsonl.gz"
    _bomb(bomb)
    assert bomb.stat().st_size < 1 << 20
    with pytest.raises(DatasetError) as e:
        read_dataset(bomb)
    message = str(e.value)
    assert message.startswith(f"{bomb}: decompresses to over 64 MiB") and "gzip bomb" in message
    assert "\n" not in message
    r = CliRunner().invoke(main, ["learn", str(bomb), "--out", str(tmp_path / "o")])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert [ln for ln in r.output.splitlines() if "bomb" in ln] == [f"Error: {message}"]
    assert not (tmp_path / "o").exists()


def test_the_bomb_bound_leaves_real_datasets_far_behind():
    # the largest committed file decompresses 7-10x; the bound is 200x and at least 64 MiB
    biggest = max(DATA.rglob("*.jsonl.gz"), key=lambda p: p.stat().st_size)
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    raw = biggest.read_bytes()
    size = len(d.decompress(raw))
    assert size < 15 * len(raw) and dataset.GZIP_MAX_RATIO >= 200
    assert max(dataset.GZIP_MIN_LIMIT, dataset.GZIP_MAX_RATIO * len(raw)) > 20 * size
