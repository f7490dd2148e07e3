"""`tuner collect` on CPU (small sizes): files, shards, resume, budgets, errors."""
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tuner.cli import main
from tuner.datagen.cli import parse_shard, shard_indices
from tuner.heuristics.dataset import read_dataset
from tuner.datagen.pad_mm import GeneratorSpec, estimate, problem


def run(*args):
    return CliRunner().invoke(main, ["collect", "pad_mm", "--device", "cpu", "--quiet",
                                     "--reps", "2", "--inner", "2", "--warmup", "1", *args])


def problems_of(path):
    return read_dataset(path).complete_problems()


def test_collect_writes_header_and_every_choice(tmp_path):
    out = tmp_path / "d.jsonl.gz"
    r = run("--samples", "8", "--out", str(out), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output[r.output.index("{"):])["measured"] == 8
    ds = read_dataset(out)
    h = ds.header
    assert h["point"] == "pad_mm" and h["choices"] == ["orig", "pad"] and h["seed"] == 0
    assert {"m", "k", "n", "dtype_fp16", "tf32", "mat1_prepadded", "pad_frac_k"} <= set(h["features"])
    assert h["gpu_name"].startswith("cpu") and "torch" in h and "generator" in h
    assert h["timer"] == "perf-counter"
    probs = ds.complete_problems()
    assert len(probs) == 8 and all(len(rs) == 2 for rs in probs.values())
    assert all(r["reps"] == 2 and r["time_ms"] > 0 and r["spread"] is not None for r in ds.rows)


def test_shards_are_disjoint_and_reproduce_the_whole_stream(tmp_path):
    assert run("--samples", "9", "--out", str(tmp_path / "all.jsonl")).exit_code == 0
    whole = problems_of(tmp_path / "all.jsonl")
    parts = []
    for i in range(3):
        r = run("--samples", "9", "--shard", f"{i}/3", "--out", str(tmp_path / f"s{i}.jsonl"))
        assert r.exit_code == 0, r.output
        parts.append(problems_of(tmp_path / f"s{i}.jsonl"))
    ids = [set(p) for p in parts]
    assert not (ids[0] & ids[1]) and not (ids[0] & ids[2]) and not (ids[1] & ids[2])
    assert set().union(*ids) == set(whole)
    feats = lambda rows: {k: v for k, v in rows[0].items() if k in read_dataset(tmp_path / "all.jsonl").header["features"]}
    for p in parts:
        for pid, rows in p.items():
            assert feats(rows) == feats(whole[pid])     # same problem wherever it is measured


def test_resume_continues_without_duplicates(tmp_path):
    out = tmp_path / "d.jsonl"
    assert run("--samples", "5", "--out", str(out)).exit_code == 0
    # a killed run: a torn last row
    out.write_bytes(out.read_bytes()[:-20])
    assert len(problems_of(out)) == 4
    r = run("--samples", "8", "--out", str(out), "--resume", "--json")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output[r.output.index("{"):])
    assert summary["already_done"] == 4 and summary["measured"] == 4
    ds = read_dataset(out)
    keys = [(r["problem"], r["choice"]) for r in ds.rows]
    assert len(keys) == len(set(keys)) == 16 and not ds.truncated


def test_resume_refuses_a_different_stream(tmp_path):
    out = tmp_path / "d.jsonl"
    assert run("--samples", "2", "--out", str(out)).exit_code == 0
    r = run("--samples", "2", "--out", str(out), "--resume", "--seed", "7")
    assert r.exit_code != 0 and "cannot resume" in r.output and "seed" in r.output


def test_existing_output_without_resume_is_an_error(tmp_path):
    out = tmp_path / "d.jsonl"
    out.write_text("keep me")
    r = run("--samples", "2", "--out", str(out))
    assert r.exit_code != 0 and "exists" in r.output
    assert out.read_text() == "keep me"


def test_bad_shard_is_an_error(tmp_path):
    for bad in ("3/3", "x", "1/0"):
        r = run("--samples", "2", "--shard", bad, "--out", str(tmp_path / "d.jsonl"))
        assert r.exit_code != 0 and "--shard" in r.output
    assert not (tmp_path / "d.jsonl").exists()


def test_stream_is_seeded_bounded_and_always_needs_padding():
    spec = GeneratorSpec.for_device("cuda")
    ps = [problem(0, i, spec) for i in range(300)]
    assert [problem(0, i, spec) for i in range(5)] == ps[:5]
    assert problem(1, 0, spec) != ps[0]
    for p in ps:
        nbytes, ms = estimate(p, spec)
        assert p.needs_padding() and nbytes <= spec.max_bytes and ms <= spec.max_est_ms
    assert {p.dtype for p in ps} == {"float16", "bfloat16", "float32"}
    assert {p.op for p in ps} == {"mm", "bmm", "addmm"}
    assert any(p.mat1_transposed for p in ps) and any(p.mat2_prepadded for p in ps)
    assert any(p.tf32 for p in ps) and not any(p.tf32 for p in ps if p.dtype != "float32")
    # powers of two with small offsets appear, not only uniform sizes
    near_pow2 = [p for p in ps if min(abs(p.k - 2 ** e) for e in range(4, 14)) <= 4]
    assert len(near_pow2) > 30


def test_shard_arithmetic():
    assert parse_shard("1/4") == (1, 4)
    assert list(shard_indices(10, (1, 4))) == [1, 5, 9]


def test_devices_run_one_worker_each(tmp_path):
    out = tmp_path / "d.jsonl"
    r = run("--samples", "6", "--out", str(out), "--devices", "cpu,cpu")
    assert r.exit_code == 0, r.output
    assert len(problems_of(out)) == 6


def test_jobs_time_under_the_users_bench_lock(tmp_path, monkeypatch):
    # the workers time through tuner.bench under the lock (CPU timers too); a lock the user
    # set (two collects on one device) is kept rather than replaced by a private one
    monkeypatch.setenv("TUNER_BENCH_LOCK", str(tmp_path / "shared"))
    out = tmp_path / "d.jsonl"
    r = run("--samples", "4", "--out", str(out), "--device", "cpu", "--jobs", "2")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "shared.cpu").exists()
    assert read_dataset(out).header["jobs"] == 2


def test_jobs_share_a_device_and_measure_every_problem_once(tmp_path):
    out = tmp_path / "d.jsonl"
    r = run("--samples", "6", "--out", str(out), "--device", "cpu", "--jobs", "3")
    assert r.exit_code == 0, r.output
    assert len(problems_of(out)) == 6
    assert "TUNER_BENCH_LOCK" not in os.environ   # the parent's environment is restored
    assert "TUNER_COMPILE_PROCESSES" not in os.environ   # (the workers compile on their own)
    bad = run("--samples", "6", "--out", str(tmp_path / "e.jsonl"), "--jobs", "0")
    assert bad.exit_code != 0 and "--jobs" in bad.output and not (tmp_path / "e.jsonl").exists()


# -- focused streams -----------------------------------------------------------------------

def test_focused_stream_has_its_own_ids_header_and_merges_with_the_default(tmp_path):
    from tuner.heuristics.dataset import read_datasets
    from tuner.heuristics.learn import build_problems
    assert run("--samples", "6", "--out", str(tmp_path / "d.jsonl")).exit_code == 0
    for i in range(2):
        r = run("--samples", "6", "--focus", "skinny", "--shard", f"{i}/2",
                "--out", str(tmp_path / f"f{i}.jsonl"))
        assert r.exit_code == 0, r.output
    focused = [read_dataset(tmp_path / f"f{i}.jsonl") for i in range(2)]
    h = focused[0].header
    assert h["focus"]["name"] == "skinny" and h["generator"]["focus"] == "skinny"
    assert "focus" not in read_dataset(tmp_path / "d.jsonl").header["generator"]
    ids = [set(ds.complete_problems()) for ds in focused]
    assert ids[0] | ids[1] == {f"skinny-s0-{j}" for j in range(6)} and not ids[0] & ids[1]
    merged = read_datasets([tmp_path / "d.jsonl", tmp_path / "f0.jsonl", tmp_path / "f1.jsonl"])
    assert len(merged.complete_problems()) == 12     # no id shared, nothing dropped as a duplicate
    assert len(build_problems(merged, min_reps=2, max_spread=float("inf"))) == 12


def test_focused_file_resumes_only_with_the_same_focus(tmp_path):
    out = tmp_path / "f.jsonl"
    assert run("--samples", "2", "--focus", "skinny", "--out", str(out)).exit_code == 0
    r = run("--samples", "3", "--focus", "skinny", "--out", str(out), "--resume", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output[r.output.index("{"):])["already_done"] == 2
    r = run("--samples", "3", "--out", str(out), "--resume")
    assert r.exit_code != 0 and "cannot resume" in r.output and "focus" in r.output


def test_unknown_focus_is_an_error_and_writes_nothing(tmp_path):
    r = run("--samples", "2", "--focus", "nope", "--out", str(tmp_path / "d.jsonl"))
    assert r.exit_code != 0 and "--focus 'nope'" in r.output and "skinny" in r.output
    assert not (tmp_path / "d.jsonl").exists()


def test_skinny_focus_oversamples_its_region_within_the_budget():
    spec = GeneratorSpec.for_device("cuda", focus="skinny")
    ps = [problem(0, i, spec) for i in range(400)]
    assert [problem(0, i, spec) for i in range(3)] == ps[:3]
    assert ps[0] != problem(0, 0, GeneratorSpec.for_device("cuda"))
    for p in ps:
        nbytes, ms = estimate(p, spec)
        assert p.needs_padding() and nbytes <= spec.max_bytes and ms <= spec.max_est_ms
        small, *large = sorted((p.m, p.k, p.n))
        assert small <= 640 and min(large) >= 512
    share = lambda f: sum(map(f, ps)) / len(ps)
    assert 0.35 < share(lambda p: p.mat1_prepadded) < 0.65 and 0.35 < share(lambda p: p.mat2_prepadded) < 0.65
    assert 0.35 < share(lambda p: p.mat1_transposed) < 0.65
    assert share(lambda p: min(p.m, p.k, p.n) <= 128) > 0.4
    assert share(lambda p: p.n == min(p.m, p.k, p.n)) > 0.4     # the region of most outliers


DATA = sorted((Path(__file__).resolve().parents[2] / "data" / "pad_mm").glob("pad_mm_h100_s*.jsonl.gz"))


@pytest.mark.skipif(not DATA, reason="committed pad_mm data missing")
def test_default_stream_still_regenerates_the_committed_problems():
    import gzip
    import itertools
    with gzip.open(DATA[0], "rt") as f:
        header = json.loads(next(f))
        rows = [json.loads(line) for line in itertools.islice(f, 200)]
    spec = GeneratorSpec.for_device("cuda")
    assert spec.to_json() == header["generator"]
    for r in rows:
        seed, index = (int(x) for x in r["problem"][1:].split("-"))
        feats = problem(seed, index, spec).features()
        assert {k: r[k] for k in feats} == feats, r["problem"]


def test_prepadded_focus_oversamples_its_region_within_the_budget():
    spec = GeneratorSpec.for_device("cuda", focus="prepadded")
    ps = [problem(0, i, spec) for i in range(400)]
    assert [problem(0, i, spec) for i in range(3)] == ps[:3]
    assert ps[0] != problem(0, 0, GeneratorSpec.for_device("cuda"))
    assert ps[0] != problem(0, 0, GeneratorSpec.for_device("cuda", focus="skinny"))
    for p in ps:
        nbytes, ms = estimate(p, spec)
        assert p.needs_padding() and nbytes <= spec.max_bytes and ms <= spec.max_est_ms
        assert p.mat1_prepadded or p.mat2_prepadded         # the region: always a prepadded operand
    share = lambda f: sum(map(f, ps)) / len(ps)
    assert 0.1 < share(lambda p: p.mat1_prepadded and p.mat2_prepadded) < 0.3
    assert 0.3 < share(lambda p: p.mat1_prepadded and not p.mat2_prepadded) < 0.5
    assert share(lambda p: p.dtype != "float32") > 0.75
    assert share(lambda p: p.dtype == "bfloat16") > share(lambda p: p.dtype == "float16")
    assert {p.op for p in ps} == {"mm", "bmm", "addmm"}
    assert 0.35 < share(lambda p: p.mat1_transposed) < 0.65
    # mid-sized kernels (the default stream spreads over 0.001-250 us estimated): most within
    # 2.5..30 us, where the winner is a coin toss
    assert share(lambda p: 2.5e-3 <= estimate(p, spec)[1] <= 30e-3) > 0.9
    default = [problem(0, i, GeneratorSpec.for_device("cuda")) for i in range(400)]
    in_band = lambda p: 2.5e-3 <= estimate(p, spec)[1] <= 30e-3
    assert share(in_band) > 3 * sum(map(in_band, default)) / len(default)


def test_prepadded_focus_collects_with_its_ids_and_header_and_disjoint_shards(tmp_path):
    for i in range(2):
        r = run("--samples", "6", "--focus", "prepadded", "--shard", f"{i}/2",
                "--out", str(tmp_path / f"p{i}.jsonl"))
        assert r.exit_code == 0, r.output
    ds = [read_dataset(tmp_path / f"p{i}.jsonl") for i in range(2)]
    h = ds[0].header
    assert h["focus"]["name"] == "prepadded" and h["generator"]["focus"] == "prepadded"
    assert "prepadded operand" in h["focus"]["about"]
    ids = [set(d.complete_problems()) for d in ds]
    assert ids[0] | ids[1] == {f"prepadded-s0-{j}" for j in range(6)} and not ids[0] & ids[1]
    for d in ds:
        assert all(r["mat1_prepadded"] or r["mat2_prepadded"] for r in d.rows)


def test_unknown_focus_error_lists_prepadded(tmp_path):
    r = run("--samples", "2", "--focus", "nope", "--out", str(tmp_path / "d.jsonl"))
    assert r.exit_code != 0 and "prepadded" in r.output and "skinny" in r.output
