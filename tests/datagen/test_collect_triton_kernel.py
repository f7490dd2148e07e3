"""`tuner collect triton_kernel --focus KIND` on CPU (Triton's interpreter, tiny sizes): every
candidate config of the problem's kernel timed, rows a config learner reads."""
import gzip
import json

from click.testing import CliRunner

from tuner.cli import main
from tuner.datagen.triton_kernel import FOCI, GeneratorSpec, problem
from tuner.heuristics import configs


def _collect(out, focus, samples):
    """`tuner collect triton_kernel --focus FOCUS` on the CPU into `out` (checked to succeed)."""
    r = CliRunner().invoke(main, ["collect", "triton_kernel", "--focus", focus, "--device", "cpu",
                                  "--quiet", "--samples", str(samples), "--reps", "1", "--inner", "1",
                                  "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_collect_pointwise_times_every_candidate_with_the_default(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    out = _collect(tmp_path / "pw.jsonl.gz", "pointwise", 2)
    lines = [json.loads(x) for x in gzip.open(out, "rt")]
    header, rows = lines[0], lines[1:]
    assert header["point"] == "triton.pointwise" and header["generator"]["focus"] == "pointwise"
    by = {}
    for row in rows:
        assert row["kind"] == "pointwise" and row["time_ms"] > 0 and "error" not in row
        by.setdefault(row["problem"], {})[row["choice"]] = row
    assert len(by) == 2
    for table in by.values():
        first = next(iter(table.values()))
        assert first["default"] in table            # the default config is always measured
        assert len(table) >= 3 and first["loads"] >= 1 and first["stores"] == 1
    P = configs.load([out])
    assert len(P) == 2 and "xnumel" in P.features


def test_collect_triton_kernel_needs_a_focus_and_names_them(tmp_path):
    r = CliRunner().invoke(main, ["collect", "triton_kernel", "--device", "cpu", "--quiet",
                                  "--samples", "1", "--out", str(tmp_path / "x.jsonl")])
    assert r.exit_code != 0
    assert all(k in r.output for k in FOCI)
    assert not (tmp_path / "x.jsonl").exists()


def test_streams_are_seeded_per_focus_and_reductions_are_looped_beyond_the_persistent_limit():
    for focus in FOCI:
        spec = GeneratorSpec.for_device("cuda", focus)
        ps = [problem(0, i, spec) for i in range(50)]
        assert ps == [problem(0, i, spec) for i in range(50)]
        assert all(p.focus == focus for p in ps)
        if focus == "pool_mid":   # x-major: looped past 64 rows, short of the row limit
            assert all(64 < p.cols <= spec.max_persistent for p in ps)
        elif ps[0].kind == "reduction":
            assert all(p.cols > spec.max_persistent for p in ps)
        if ps[0].kind == "persistent_reduction":
            assert all(p.cols <= spec.max_persistent for p in ps)
        assert all(p.batch * p.rows * p.cols <= spec.max_elements for p in ps)
    # the pools: batches of channels-last maps (EfficientNet-B0's first pool, 128 x 12544 x 32,
    # is split by the compiler into 147456 rows of 392), real map sizes among them
    pools = [problem(0, i, GeneratorSpec.for_device("cuda", "pool")) for i in range(200)]
    assert max(p.batch * p.rows * p.cols for p in pools) > 1 << 24
    assert sum(p.batch > 1 for p in pools) > 100 and {12544, 16384, 50176} & {p.cols for p in pools}
    assert {p.kind for p in pools} == {"reduction"} and {p.body for p in pools} == {"mean_spatial"}


def test_collect_pool_times_a_channels_last_mean_as_a_reduction(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    out = _collect(tmp_path / "pool.jsonl.gz", "pool_persistent", 1)
    lines = [json.loads(x) for x in gzip.open(out, "rt")]
    header, rows = lines[0], lines[1:]
    assert header["point"] == "triton.persistent_reduction"
    assert rows and all("error" not in r and r["body"] == "mean_spatial" for r in rows)
    r = rows[0]
    # the kernel's kept extent is images x channels, its reduced one the map; the images are
    # not the point's matmul feature "batch" (a reduction at run time has none)
    assert r["xnumel"] == r.get("images", 1) * r["rows"] and r["rnumel"] == r["cols"]
    assert r["images"] > 1 and all("batch" not in x for x in rows)
    assert "batch" not in configs.load([out]).features
    assert r["default"] in {x["choice"] for x in rows}


def test_collect_pool_mid_times_an_x_major_looped_norm_after_a_gelu(tmp_path, monkeypatch):
    # ConvNeXt-V2's GRN: an L2 norm over a channels-last map's positions, after a GELU; the
    # compiler loops an x-major reduction past 64 rows, a range no other focus samples
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    spec = GeneratorSpec.for_device("cpu", "pool_mid")
    first = next(i for i in range(100) if problem(0, i, spec).body == "gelu_norm_spatial")
    assert first < 10
    out = _collect(tmp_path / "mid.jsonl.gz", "pool_mid", first + 1)
    lines = [json.loads(x) for x in gzip.open(out, "rt")]
    header, rows = lines[0], lines[1:]
    assert header["point"] == "triton.reduction"
    gelu = [r for r in rows if r["body"] == "gelu_norm_spatial"]
    assert gelu and all("error" not in r for r in gelu)
    r = gelu[0]
    # one looped x-major kernel over images x channels, its erf counted in the body
    assert r["xnumel"] == r.get("images", 1) * r["rows"] and r["rnumel"] == r["cols"] > 64
    assert r["outer"] and r["special"] >= 1
    assert r["default"] in {x["choice"] for x in gelu} and len({x["choice"] for x in gelu}) >= 3


def test_collect_template_times_the_whole_grid_of_a_forced_template(tmp_path, monkeypatch):
    from tuner.points.kernel_kinds import candidate_configs
    from tuner.points.triton_kernel import KernelMeta
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    out = _collect(tmp_path / "t.jsonl.gz", "template", 1)
    rows = [json.loads(x) for x in gzip.open(out, "rt")][1:]
    assert rows and all(row["kind"] == "template" and "error" not in row for row in rows)
    f = rows[0]
    want = candidate_configs(KernelMeta("template", mm=(1, f["m"], f["n"], f["k"]), mm_dtype=f["mm_dtype"]))
    assert len({row["choice"] for row in rows}) == len(want) > 30
    assert f["default"] in {row["choice"] for row in rows}
    assert (f["m"], f["n"], f["k"]) == (f["rows"], f["cols"], f["inner"])


def test_collect_template_bmm_times_attentions_batched_matmul_as_a_template(tmp_path, monkeypatch):
    # the focus over-samples attention's bmms for the same kernel kind: its rows merge with the
    # template stream's (one point, triton.template) and carry the batch
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    spec = GeneratorSpec.for_device("cuda", "template_bmm")
    ps = [problem(0, i, spec) for i in range(200)]
    assert {p.body for p in ps} == {"qk", "pv"} and all(p.kind == "template" for p in ps)
    assert all((p.rows == p.cols) if p.body == "qk" else (p.rows == p.inner) for p in ps)
    assert max(p.batch for p in ps) >= 64 and all(p.batch * p.rows * p.cols <= spec.max_elements
                                                 for p in ps)
    out = _collect(tmp_path / "b.jsonl.gz", "template_bmm", 1)
    lines = [json.loads(x) for x in gzip.open(out, "rt")]
    header, rows = lines[0], lines[1:]
    assert header["point"] == "triton.template" and header["generator"]["focus"] == "template_bmm"
    assert rows and all(row["kind"] == "template" and "error" not in row for row in rows)
    f, want = rows[0], problem(0, 0, GeneratorSpec.for_device("cpu", "template_bmm"))
    assert (f["batch"], f["m"], f["n"], f["k"]) == (want.batch, want.rows, want.cols, want.inner)
    assert f["default"] in {row["choice"] for row in rows} and len({row["choice"] for row in rows}) > 30
