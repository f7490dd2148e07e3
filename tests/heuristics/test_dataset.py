"""Dataset files: header, gzip, truncated tails, merge refusal, resume safety."""
import gzip
import json

import pytest

from tuner.heuristics.dataset import (DatasetError, DatasetWriter, make_header, read_dataset,
                                      read_datasets)

META = {"gpu_name": "NVIDIA H100 80GB HBM3", "compute_capability": [9, 0],
        "shared_memory_per_block": 232448, "torch": "2.11.0", "triton": "3.6.0"}


def _write(path, n, meta=META, **extra):
    header = make_header("pad_mm", {"m": "int", "k": "int"}, ["orig", "pad"], device_meta=meta, **extra)
    with DatasetWriter(path, header) as w:
        for i in range(n):
            w.write_problem([{"problem": f"p{i}", "choice": c, "time_ms": 1.0 + i, "m": i, "k": 2}
                             for c in ("orig", "pad")])


@pytest.mark.parametrize("name", ["d.jsonl", "d.jsonl.gz"])
def test_round_trip_with_self_describing_header(tmp_path, name):
    _write(tmp_path / name, 3)
    ds = read_dataset(tmp_path / name)
    h = ds.header
    assert h["point"] == "pad_mm" and h["choices"] == ["orig", "pad"] and h["features"] == {"m": "int", "k": "int"}
    assert h["gpu_name"] == META["gpu_name"] and h["compute_capability"] == [9, 0]
    assert h["shared_memory_per_block"] == 232448 and h["torch"] and h["triton"]
    assert len(ds.rows) == 6 and not ds.truncated
    assert set(ds.complete_problems()) == {"p0", "p1", "p2"}
    if name.endswith(".gz"):
        with gzip.open(tmp_path / name, "rt") as f:     # a normal gzip reader sees the same text
            assert json.loads(f.readline())["point"] == "pad_mm"


def test_truncated_last_line_is_dropped(tmp_path):
    p = tmp_path / "d.jsonl"
    _write(p, 3)
    data = p.read_bytes()
    p.write_bytes(data[:-15])          # killed mid-row
    ds = read_dataset(p)
    assert ds.truncated and len(ds.rows) == 5
    assert set(ds.complete_problems()) == {"p0", "p1"}


def test_killed_gzip_writer_leaves_a_readable_file(tmp_path):
    p = tmp_path / "d.jsonl.gz"
    header = make_header("pad_mm", {"m": "int", "k": "int"}, ["orig", "pad"], device_meta=META)
    w = DatasetWriter(p, header)
    for i in range(4):
        w.write_problem([{"problem": f"p{i}", "choice": c, "time_ms": 1.0, "m": i, "k": 2} for c in ("orig", "pad")])
    # no close(): the gzip stream has no end marker, as after a kill
    ds = read_dataset(p)
    assert len(ds.complete_problems()) == 4
    p.write_bytes(p.read_bytes()[:-3])   # and a torn tail on top
    assert len(read_dataset(p).complete_problems()) >= 3


def test_bad_files_give_clear_errors(tmp_path):
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(DatasetError, match="empty file"):
        read_dataset(tmp_path / "empty.jsonl")
    (tmp_path / "noheader.jsonl").write_text('{"problem": 1}\n')
    with pytest.raises(DatasetError, match="header"):
        read_dataset(tmp_path / "noheader.jsonl")
    _write(tmp_path / "ok.jsonl", 1)
    lines = (tmp_path / "ok.jsonl").read_text().splitlines()
    (tmp_path / "cols.jsonl").write_text(lines[0] + '\n{"problem": "x", "choice": "pad", "m": 1}\n')
    with pytest.raises(DatasetError, match="lacks columns.*k.*time_ms"):
        read_dataset(tmp_path / "cols.jsonl")
    with pytest.raises(DatasetError, match="no such file"):
        read_dataset(tmp_path / "missing.jsonl")


def test_merge_refuses_files_whose_metadata_disagree(tmp_path):
    _write(tmp_path / "a.jsonl", 2, shard="0/2")
    _write(tmp_path / "b.jsonl", 2, shard="1/2")
    assert len(read_datasets([tmp_path / "a.jsonl", tmp_path / "b.jsonl"]).rows) == 4   # same problems: deduplicated
    _write(tmp_path / "c.jsonl", 2, meta={**META, "gpu_name": "NVIDIA A100-SXM4-80GB", "compute_capability": [8, 0]})
    with pytest.raises(DatasetError, match="gpu_name.*H100.*A100"):
        read_datasets([tmp_path / "a.jsonl", tmp_path / "c.jsonl"])


def test_boards_of_one_generation_merge_with_their_problems_kept_apart(tmp_path):
    # an H100 file and an H200 file of the same stream (same ids): the boards a module's
    # precondition matches (capability, shared memory) learn together, each problem kept
    _write(tmp_path / "h100.jsonl", 2)
    _write(tmp_path / "h200.jsonl", 2, meta={**META, "gpu_name": "NVIDIA H200"})
    ds = read_datasets([tmp_path / "h100.jsonl", tmp_path / "h200.jsonl"])
    assert len(ds.rows) == 8
    assert set(ds.problems()) == {"h100/p0", "h100/p1", "h200/p0", "h200/p1"}
    assert ds.header["gpu_name"] == "NVIDIA H100 80GB HBM3 + NVIDIA H200"
    # one board alone keeps its ids as written
    assert set(read_datasets([tmp_path / "h100.jsonl"]).problems()) == {"p0", "p1"}
    # two boards with one short name stay apart too
    _write(tmp_path / "pcie.jsonl", 2, meta={**META, "gpu_name": "NVIDIA H100 PCIe"})
    ds = read_datasets([tmp_path / "h100.jsonl", tmp_path / "pcie.jsonl"])
    assert set(ds.problems()) == {"h100/p0", "h100/p1", "h100_2/p0", "h100_2/p1"}
    # another generation (capability or shared memory) still does not merge
    _write(tmp_path / "other.jsonl", 2, meta={**META, "gpu_name": "NVIDIA H200", "shared_memory_per_block": 101376})
    with pytest.raises(DatasetError, match="shared_memory_per_block: 232448 != 101376"):
        read_datasets([tmp_path / "h100.jsonl", tmp_path / "other.jsonl"])


def test_files_timed_differently_do_not_merge(tmp_path):
    # a file from before the GPU run-ahead has no timer: its small-kernel times mean something else
    _write(tmp_path / "old.jsonl", 2)
    _write(tmp_path / "new.jsonl", 2, meta={**META, "timer": "cuda-events/l2-flush/run-ahead"})
    with pytest.raises(DatasetError, match="timer: None != 'cuda-events/l2-flush/run-ahead'"):
        read_datasets([tmp_path / "old.jsonl", tmp_path / "new.jsonl"])


def test_closed_gz_file_is_one_compact_stream(tmp_path):
    import zlib
    p = tmp_path / "d.jsonl.gz"
    header = make_header("pad_mm", {"m": "int", "k": "int"}, ["orig", "pad"], device_meta=META)
    w = DatasetWriter(p, header)
    for i in range(200):
        w.write_problem([{"problem": f"p{i}", "choice": c, "time_ms": 1.0 + i, "m": i, "k": 2}
                         for c in ("orig", "pad")])
    flushed = p.stat().st_size            # one sync flush per problem so far: readable if killed
    assert len(read_dataset(p).rows) == 400
    w.close()
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    d.decompress(p.read_bytes())
    assert d.eof and d.unused_data == b""  # one gzip stream, decoded to its end
    assert p.stat().st_size < flushed * 0.8
    ds = read_dataset(p)
    assert ds.header == header and len(ds.rows) == 400 and ds.rows[-1]["problem"] == "p199"
    assert [f.name for f in tmp_path.iterdir()] == ["d.jsonl.gz"]     # no temp file left


def test_existing_file_is_not_overwritten_without_resume(tmp_path):
    p = tmp_path / "d.jsonl"
    _write(p, 2)
    before = p.read_bytes()
    with pytest.raises(DatasetError, match="exists"):
        _write(p, 1)
    assert p.read_bytes() == before
