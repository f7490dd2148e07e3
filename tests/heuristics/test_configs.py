"""Learned kernel configs (tuner/heuristics/configs.py, `tuner learn-configs`): from rows of
measured configs to a module that answers a config, the kernel's own default, or None; the
kernel-config point asks it in max-autotune (no search) and default mode launches its answer."""
import importlib
import json
import math
import random

import pytest
import torch
from click.testing import CliRunner

from tuner.cli import main
from tuner.heuristics import configs, registry
from tuner.heuristics.registry import Registry
from tuner.points import kernel_device, kernel_kinds as kinds
from tuner.points import triton_kernel as point
from tuner.points.triton_kernel import KernelMeta

SOURCE = "x = tl.load(in_ptr0 + i)\ntl.store(out_ptr0 + i, x * 2)\n"
XBLOCKS = (128, 256, 512, 1024)


def cfg(xb, nw=4):
    return {"kwargs": {"XBLOCK": xb}, "num_warps": nw, "num_stages": 1}


def key(c):
    return json.dumps(c, sort_keys=True, separators=(",", ":"))


def meta(xnumel, loads=1):
    src = "".join(f"x{i} = tl.load(in_ptr{i} + i)\n" for i in range(loads)) + "tl.store(out_ptr0 + i, x0)\n"
    return KernelMeta("pointwise", source=src, xnumel=xnumel, dtypes=("float32",) * (loads + 1))


def synthetic_rule(xnumel, loads, rng):
    """The true best XBLOCK: 256 for big kernels (their default is 1024), the default below
    that, and, for three-load kernels, a different winner each time (nothing to learn)."""
    if loads == 3:
        return rng.choice(XBLOCKS)
    if xnumel >= 1 << 20:
        return 256
    return None   # the default wins


def write_rows(path, n, seed=0):
    rng = random.Random(seed)
    header = {"format": "tuner-dataset", "version": 1, "point": "triton.pointwise", "feature_schema": 1,
              "features": {}, "choices": [], "gpu_name": "cpu", "compute_capability": [0, 0],
              "shared_memory_per_block": 0, "timer": "perf-counter", "torch": "t", "triton": "t"}
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        for i in range(n):
            loads = rng.choice((1, 2, 3))
            xnumel = int(math.exp(rng.uniform(math.log(16), math.log(1 << 24))))
            feats = point.features(meta(xnumel, loads))
            default = json.loads(feats["default"])
            best = synthetic_rule(xnumel, loads, rng)
            times = {}
            for xb in XBLOCKS:
                times[key(cfg(xb))] = 1.0 + 0.3 * abs(math.log2(xb / (best or default["kwargs"]["XBLOCK"])))
            if best is None:   # the default config itself is the fastest
                times = {c: t + 0.05 for c, t in times.items()}
                times[feats["default"]] = 1.0
            else:
                times.setdefault(feats["default"], 1.0 + 0.3 * abs(math.log2(default["kwargs"]["XBLOCK"] / best)) + 0.05)
            for c, t in times.items():
                f.write(json.dumps({"problem": f"p{i}", "choice": c, "time_ms": t, "reps": 3, **feats}) + "\n")
    return path


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    root = tmp_path_factory.mktemp("cfgpkg")
    pkg = root / "fake_config_artifacts"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    data = write_rows(root / "rows.jsonl", 400)
    P, model, report = configs.learn([data], depths=(3, 4, 6), leaves=(10, 20))
    configs.write(P, model, report, pkg, "triton_pointwise_cpu")
    return root, report


@pytest.fixture
def module(learned, monkeypatch):
    root, _ = learned
    monkeypatch.syspath_prepend(str(root))
    mod = importlib.import_module("fake_config_artifacts.triton_pointwise_cpu")
    monkeypatch.setattr(registry, "_default", Registry([mod]))
    return mod


def test_held_out_answers_are_never_wrong_and_beat_the_default(learned):
    _, report = learned
    t = report["test"]
    assert t["answered"] >= t["problems"] // 2
    assert t["wrong_over_10pct"] == 0 and t["not_measured"] == 0
    assert t["geomean_speedup_over_default_where_answered"] > 1.05
    assert t["answered"] < t["problems"]   # the random-winner region stays unsure


def test_module_answers_a_config_the_default_or_none(module):
    big = point.features(meta(1 << 23, 1))
    assert module.decide(big) == cfg(256)
    small = point.features(meta(1000, 2))
    assert module.decide(small) == json.loads(small["default"])    # the kernel's own default
    assert module.decide(point.features(meta(50_000, 3))) is None   # winners differ: unsure


def test_max_autotune_measures_the_learned_config_beside_the_default(module, monkeypatch):
    monkeypatch.setattr(module, "SHORTLIST", ())   # no shortlist: a descent from both
    m = meta(1 << 23, 1)
    launches = []
    d = point.decide_config(m, [torch.randn(16), torch.empty(16)],
                            lambda c, a: launches.append(dict(c)), out_args=(1,))
    learned = {"XBLOCK": 256, "num_warps": 4, "num_stages": 1}
    # the search starts from both (a learned answer seeds it: it is not trusted blindly)
    assert d.source == "coordinate_descent"
    order = [c for k, c in enumerate(launches) if c not in launches[:k]]   # each config's first run
    assert order[:2] == [point.default_config(m), learned]


def test_shortlist_sweeps_descend_from_the_fastest_of_the_shortlist(module, monkeypatch):
    # TUNER_SHORTLIST_SWEEPS=1: the shortlist is timed as before, then one sweep from its
    # fastest measures configs the shortlist does not name
    m = meta(80_000, 3)
    short = [point.config_dict(point.Config.from_json(c)) for c in module.SHORTLIST]
    named = [point.default_config(m)] + short
    runs = {}
    for sweeps in ("0", "1"):
        monkeypatch.setenv("TUNER_SHORTLIST_SWEEPS", sweeps)
        launches = []
        d = point.decide_config(meta(80_000 + int(sweeps), 3), [torch.randn(16), torch.empty(16)],
                                lambda c, a: launches.append(dict(c)), out_args=(1,))
        runs[sweeps] = [c for k, c in enumerate(launches) if c not in launches[:k]]
        assert d.source == "coordinate_descent"
    assert all(c in named for c in runs["0"])
    assert len(runs["1"]) > len(runs["0"])
    assert any(c not in named for c in runs["1"])


def test_a_kernel_larger_than_the_shortlists_problems_is_searched_as_without_a_module(module, learned, monkeypatch):
    # the module records the sizes its shortlist was chosen on; with TUNER_SHORTLIST_BEYOND=search
    # a kernel beyond them (an EfficientNet split reduction of 147456 rows where the data
    # stopped at 87552: 30-40% slower than full tuning on the H200) gets a descent
    _, report = learned
    lo, hi = module.SHORTLIST_RANGES["xnumel"]
    assert report["shortlist_ranges"]["xnumel"] == [lo, hi] or report["shortlist_ranges"]["xnumel"] == (lo, hi)
    assert 16 <= lo < hi <= 1 << 24 and set(module.SHORTLIST_RANGES) == {"xnumel"}   # sizes only
    short = [point.config_dict(point.Config.from_json(c)) for c in module.SHORTLIST]
    inside, beyond = meta(int(hi) // 2, 3), meta(int(hi) * 4, 3)
    assert point.shortlisted_configs(inside, feats=point.features(inside)) == point.shortlisted_configs(inside)
    assert point.shortlisted_configs(beyond, feats=point.features(beyond)) == []
    assert registry.beyond_shortlist(module, point.features(beyond)) == ["xnumel"]
    assert registry.shortlist(module.PRECONDITION.point, registry.CPU, features=point.features(meta(4, 3)))   # below: kept
    runs = {}
    monkeypatch.setenv("TUNER_SHORTLIST_BEYOND", "search")   # (the default times the shortlist)
    for name, m in (("inside", inside), ("beyond", beyond)):
        launches = []
        d = point.decide_config(m, [torch.randn(16), torch.empty(16)],
                                lambda c, a: launches.append(dict(c)), out_args=(1,))
        runs[name] = [c for k, c in enumerate(launches) if c not in launches[:k]]
        assert d.source == "coordinate_descent"
    named = [point.default_config(inside), point.default_config(beyond)] + short
    assert all(c in named for c in runs["inside"])
    assert any(c not in named for c in runs["beyond"])
    monkeypatch.setenv("TUNER_SHORTLIST_BEYOND", "shortlist")
    launches = []
    point.decide_config(meta(int(hi) * 4 + 1, 3), [torch.randn(16), torch.empty(16)],
                        lambda c, a: launches.append(dict(c)), out_args=(1,))
    assert all(c in named for c in launches)


def test_the_shortlist_is_the_set_cover_of_the_problems_the_default_misses(learned):
    _, report = learned
    # big kernels (the default loses) want XBLOCK 256: the first pick; the three-load
    # kernels' random winners fill the rest
    assert report["shortlist"][0] == cfg(256) and len(report["shortlist"]) == 3
    st = report["shortlist_test"]
    assert st["within_tolerance"] > st["default_within_tolerance"]
    assert st["within_tolerance"] >= 0.9 * st["problems"]


def test_max_autotune_times_the_shortlist_instead_of_searching(module, monkeypatch):
    # a kernel the module is unsure of (three loads): the default and the shortlist's configs
    # that fit, once each in one batch, the fastest kept; no descent
    m = meta(50_000, 3)
    assert point.learned_config(m) is None
    launches = []
    d = point.decide_config(m, [torch.randn(16), torch.empty(16)],
                            lambda c, a: launches.append(dict(c)), out_args=(1,))
    order = [c for k, c in enumerate(launches) if c not in launches[:k]]
    short = [point.config_dict(point.Config.from_json(c)) for c in module.SHORTLIST]
    assert order == [point.default_config(m)] + [c for c in short if c != point.default_config(m)]
    assert d.source == "coordinate_descent" and d.n_measured == len(order)
    # a descent's answer in the cache stands (the shortlist only replaces the search)
    other, kept = meta(60_000, 3), module.SHORTLIST
    monkeypatch.setattr(module, "SHORTLIST", ())
    first = point.decide_config(other, [torch.randn(16), torch.empty(16)], lambda c, a: None, out_args=(1,))
    monkeypatch.setattr(module, "SHORTLIST", kept)
    again = point.decide_config(other, [torch.randn(16), torch.empty(16)], lambda c, a: None, out_args=(1,))
    assert first.source == "coordinate_descent" and again.source == "cache"
    assert again.choice == first.choice
    # a module that learned no answer is never asked (no features computed for it)
    monkeypatch.setattr(module, "ANSWERS", {})
    assert not registry.has_module(module.PRECONDITION.point, registry.CPU)
    # TUNER_SEARCH=exhaustive still sweeps the hand-written list
    fresh = meta(70_000, 3)
    d = point.decide_config(fresh, [torch.randn(16), torch.empty(16)], lambda c, a: None,
                            out_args=(1,), search="exhaustive")
    assert d.n_measured == len(kinds.candidate_configs(fresh))


def test_heuristics_off_neither_seeds_nor_replaces(module, monkeypatch):
    monkeypatch.setenv("TUNER_HEURISTICS", "off")
    m = meta(1 << 23, 1)
    assert point.learned_config(m) is None
    launches = []
    point.decide_config(m, [torch.randn(16), torch.empty(16)], lambda c, a: launches.append(dict(c)),
                        out_args=(1,))
    order = [c for k, c in enumerate(launches) if c not in launches[:k]]
    assert order[0] == point.default_config(m)
    assert order[1] != {"XBLOCK": 256, "num_warps": 4, "num_stages": 1}


def test_unsure_outside_the_leafs_training_ranges_unknown_dtypes_and_other_kinds(module):
    assert point.learned_config(meta(1 << 23, 1)) is not None
    assert point.learned_config(meta(1 << 23, 6)) is None         # 6 loads: never seen
    odd = KernelMeta("pointwise", source=meta(1 << 23, 1).source, xnumel=1 << 23, dtypes=("float32", ""))
    assert point.learned_config(odd) is None                        # a dtype codegen did not know
    parts = KernelMeta("foreach", xnumel=1 << 23, parts=(1 << 22, 1 << 22), dtypes=("float32",) * 2)
    assert point.learned_config(parts) is None


def test_default_mode_launches_the_learned_config_and_falls_back_if_it_fails(module):
    from tuner.compiler.runtime.launch import Launcher
    m = meta(1 << 23, 1)
    learned = {"XBLOCK": 256, "num_warps": 4, "num_stages": 1}
    assert point.learned_config(m) == learned
    from tuner.compiler.stats import GraphStats
    stats = GraphStats()
    launcher = Launcher(None, m, (), stats=stats)
    assert launcher.config == learned and launcher.default["XBLOCK"] == 1024
    assert stats.learned_configs == 1 and stats.as_dict()["learned_configs"] == 1
    assert launcher.default == point.default_config(m)
    ran = []

    def launch(c, args):
        if c == learned:
            raise RuntimeError("out of resources")
        ran.append(c)
    launcher._launch = launch
    launcher(torch.empty(4))
    assert ran == [point.default_config(m)] and launcher.config == point.default_config(m)
    assert stats.learned_configs == 0   # it no longer runs
    # a kernel the module is unsure of keeps the hand default
    assert Launcher(None, meta(50_000, 3), ()).config == point.default_config(meta(50_000, 3))


def test_an_answer_outside_the_space_is_unsure(module, monkeypatch):
    monkeypatch.setattr(module, "ANSWERS", {k: cfg(1 << 20) for k in range(64)})
    assert point.learned_config(meta(1 << 23, 1)) is None


def test_cli_writes_the_module_and_report_and_refuses_empty_input(tmp_path):
    data = write_rows(tmp_path / "rows.jsonl", 120, seed=3)
    r = CliRunner().invoke(main, ["learn-configs", str(data), "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "o" / "triton_pointwise_gpu.py").exists()
    # problems are keyed by the kernel (its source and size): a repeated one merges
    # (configs the space would not launch are dropped: a tiny kernel keeps its default alone)
    assert 80 <= json.loads((tmp_path / "o" / "triton_pointwise_gpu.report.json").read_text())["problems"] <= 120
    assert "test split:" in r.output
    empty = tmp_path / "empty.jsonl"
    empty.write_text(data.read_text().splitlines()[0] + "\n")
    r = CliRunner().invoke(main, ["learn-configs", str(empty), "--out", str(tmp_path / "o2")])
    assert r.exit_code != 0 and "no usable problems" in r.output
    assert not (tmp_path / "o2").exists()


def test_files_of_different_points_do_not_merge(tmp_path):
    a = write_rows(tmp_path / "a.jsonl", 20)
    lines = a.read_text().splitlines()
    h = json.loads(lines[0])
    h["point"] = "triton.reduction"
    (tmp_path / "b.jsonl").write_text("\n".join([json.dumps(h)] + lines[1:]) + "\n")
    with pytest.raises(configs.LearnError, match="point"):
        configs.load([a, tmp_path / "b.jsonl"])



def _with_header(tmp_path, name, source, **changes):
    lines = source.read_text().splitlines()
    h = dict(json.loads(lines[0]), **changes)
    (tmp_path / name).write_text("\n".join([json.dumps(h)] + lines[1:]) + "\n")
    return tmp_path / name


def test_boards_of_one_generation_merge_and_the_module_names_both(tmp_path):
    # an H100 file and an H200 file (same capability, shared memory and timer) learn together
    a = _with_header(tmp_path, "a.jsonl", write_rows(tmp_path / "src_a.jsonl", 20, seed=1),
                     gpu_name="NVIDIA H100 80GB HBM3", compute_capability=[9, 0])
    b = _with_header(tmp_path, "b.jsonl", write_rows(tmp_path / "src_b.jsonl", 20, seed=2),
                     gpu_name="NVIDIA H200", compute_capability=[9, 0])
    b_renamed = [json.loads(x) for x in b.read_text().splitlines()[1:]]
    text = "\n".join([b.read_text().splitlines()[0]] +
                      [json.dumps(dict(r, problem="b" + r["problem"])) for r in b_renamed]) + "\n"
    b.write_text(text)
    P = configs.load([a, b])
    assert len(P) == 40
    assert P.header["gpu_name"] == "NVIDIA H100 80GB HBM3 + NVIDIA H200"
    # another generation does not
    c = _with_header(tmp_path, "c.jsonl", b, gpu_name="NVIDIA A100", compute_capability=[8, 0])
    with pytest.raises(configs.LearnError, match="compute_capability"):
        configs.load([a, c])
    d = _with_header(tmp_path, "d.jsonl", b, timer="perf-counter/other")
    with pytest.raises(configs.LearnError, match="timer"):
        configs.load([a, d])

def _shortlist_only(monkeypatch, point_name, shortlist):
    """A shipped-module stand-in for this CPU (tuner learn-configs --no-answers): never sure,
    naming `shortlist`; the registry holds it alone."""
    import types

    from tuner.heuristics.interface import Precondition
    mod = types.ModuleType(f"fake_{point_name.replace('.', '_')}_cpu")
    mod.PRECONDITION = Precondition(point=point_name, capability=(0, 0), shared_memory=0,
                                    feature_schema=1, gpu_name="cpu")
    mod.ANSWERS, mod.SHORTLIST, mod.decide = {}, tuple(shortlist), lambda f: None
    monkeypatch.setattr(registry, "_default", Registry([mod]))
    return mod


def _template_meta(m=40, n=24, k=56, dtype="float32"):
    return KernelMeta("template", source="acc = tl.dot(a, b)\n", xnumel=m * n, mm=(1, m, n, k),
                      mm_dtype=dtype, dtypes=(dtype,) * 3)


def test_a_template_times_its_shortlist_instead_of_seeds_and_a_descent(monkeypatch):
    # a shipped template module (shortlist only, tuner learn-configs --no-answers): the
    # default and the shortlist's configs in one batch, no descent (H100: default + 7 within
    # 5% of the grid's best on 20 of 23 held-out matmuls, the hand seeds alone on 14)
    short = ({"kwargs": {"BLOCK_K": 32, "BLOCK_M": 16, "BLOCK_N": 16, "GROUP_M": 8}, "num_stages": 2, "num_warps": 2},
             {"kwargs": {"BLOCK_K": 64, "BLOCK_M": 32, "BLOCK_N": 32, "GROUP_M": 8}, "num_stages": 3, "num_warps": 4})
    args = [torch.randn(40, 56), torch.randn(56, 24), torch.empty(40, 24)]

    def run(m):
        launches = []
        d = point.decide_config(m, args, lambda c, a: launches.append(dict(c)), out_args=(2,))
        return d, [c for i, c in enumerate(launches) if c not in launches[:i]]
    point.forget_templates()
    d, seeded = run(_template_meta())   # no module: the seeds that fit, then a descent
    assert seeded[0] == point.default_config(_template_meta())
    # (a descent wanders by CPU timings: it may or may not pass the shortlist's configs)
    assert d.n_measured > len(short) + 1 and d.source == "coordinate_descent"
    _shortlist_only(monkeypatch, "triton.template", short)
    point.forget_templates()
    m = _template_meta(41)
    d, order = run(m)
    assert order == [point.default_config(m)] + [point.config_dict(point.Config.from_json(c)) for c in short]
    assert d.source == "coordinate_descent" and d.n_measured == 3


def test_attention_and_decode_templates_also_time_the_hand_configs_beside_their_shortlist(monkeypatch):
    # q @ k^T (head dim 64), p @ v (64 wide over K 512) and a decode step (16 rows), shapes the
    # shortlist's training problems lacked: the extras come after the shortlist; a projection
    # times the shortlist alone
    short = ({"kwargs": {"BLOCK_K": 32, "BLOCK_M": 32, "BLOCK_N": 32, "GROUP_M": 8}, "num_stages": 2, "num_warps": 2},)
    _shortlist_only(monkeypatch, "triton.template", short)
    for (m, n, k), extras in (((256, 128, 64), [(128, 128, 32, 4), (128, 64, 32, 3)]),
                              ((256, 64, 512), [(64, 64, 64, 2), (128, 64, 64, 3)]),
                              ((16, 256, 512), [(16, 32, 128, 4), (16, 64, 128, 4)]),
                              ((256, 256, 256), [])):
        meta = KernelMeta("template", source="acc = tl.dot(a, b)\n", xnumel=m * n, mm=(2, m, n, k),
                          mm_dtype="bfloat16", dtypes=("bfloat16",) * 3)
        args = [torch.randn(2, m, k, dtype=torch.bfloat16), torch.randn(2, k, n, dtype=torch.bfloat16),
                torch.empty(2, m, n, dtype=torch.bfloat16)]
        launches = []
        point.forget_templates()
        point.decide_config(meta, args, lambda c, a: launches.append(dict(c)), out_args=(2,))
        order = [c for i, c in enumerate(launches) if c not in launches[:i]]
        want = [point.default_config(meta), point.config_dict(point.Config.from_json(short[0]))]
        want += [{"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "num_warps": 4, "num_stages": ns}
                 for bm, bn, bk, ns in extras]
        assert order == list({json.dumps(c, sort_keys=True): c for c in want}.values())


def test_a_template_with_hoppers_variant_also_times_its_tma_configs_beside_its_shortlist(monkeypatch):
    # the TMA configs carry a field the default lacks: they are our own, checked against the
    # space's rules (fits in the H200's shared memory), not refused as foreign names; the
    # cache answers one of them on the next call
    from tuner.space import DeviceLimits
    short = ({"kwargs": {"BLOCK_K": 32, "BLOCK_M": 64, "BLOCK_N": 64, "GROUP_M": 8}, "num_stages": 3, "num_warps": 4},)
    _shortlist_only(monkeypatch, "triton.template", short)
    monkeypatch.setattr(kernel_device, "device_limits", lambda: DeviceLimits("H200", 1024, 232448, 32))
    m, n, k = 512, 512, 128
    meta = KernelMeta("template", source="acc = tl.dot(a, b) # tma\n", xnumel=m * n, mm=(1, m, n, k),
                      mm_dtype="bfloat16", dtypes=("bfloat16",) * 3, tma=True)
    args = [torch.randn(m, k, dtype=torch.bfloat16), torch.randn(k, n, dtype=torch.bfloat16),
            torch.empty(m, n, dtype=torch.bfloat16)]
    launches = []
    point.forget_templates()
    point.decide_config(meta, args, lambda c, a: launches.append(dict(c)), out_args=(2,))
    tma = [c for c in launches if c.get("TMA") == 1]
    assert len({json.dumps(c, sort_keys=True) for c in tma}) == len(kinds._TEMPLATE_TMA)


def test_a_large_template_with_hoppers_variant_skips_tiles_under_64x64(monkeypatch):
    # the shortlist's skinny tiles are not timed for a matmul large enough for Hopper's variant
    # with M and N >= 128 (never within 5% of the best on such problems in the H100 template
    # data), nor seeded; a skinny matmul, or one without the variant, still times them
    from tuner.space import DeviceLimits
    small = {"kwargs": {"BLOCK_K": 128, "BLOCK_M": 32, "BLOCK_N": 32, "GROUP_M": 8}, "num_stages": 4, "num_warps": 4}
    big = {"kwargs": {"BLOCK_K": 32, "BLOCK_M": 64, "BLOCK_N": 64, "GROUP_M": 8}, "num_stages": 3, "num_warps": 4}
    _shortlist_only(monkeypatch, "triton.template", (small, big))
    monkeypatch.setattr(kernel_device, "device_limits", lambda: DeviceLimits("H200", 1024, 232448, 32))

    def meta(m, n, tma):
        return KernelMeta("template", source="acc = tl.dot(a, b)\n", xnumel=m * n, mm=(1, m, n, 1024),
                          mm_dtype="bfloat16", dtypes=("bfloat16",) * 3, tma=tma)

    def tiles(cfgs):
        return {(c["BLOCK_M"], c["BLOCK_N"]) for c in cfgs if not c.get("TMA")}

    large = meta(4096, 3072, True)
    assert kinds.drops_small_tiles(large)
    assert tiles(point.shortlisted_configs(large)) == {(64, 64)}
    assert (32, 32) in tiles(point.shortlisted_configs(meta(4096, 3072, False)))
    skinny = meta(64, 16384, True)   # 128 tiles of 128 x 128, M under 128
    assert not kinds.drops_small_tiles(skinny) and (32, 32) in tiles(point.shortlisted_configs(skinny))
    _shortlist_only(monkeypatch, "triton.template", (small,))   # nothing else: kept, not emptied
    assert (32, 32) in tiles(point.shortlisted_configs(large))
    seeds = kinds.template_seeds(large)
    assert seeds[0] == point.default_config(large)
    assert all(c["BLOCK_M"] * c["BLOCK_N"] >= 64 * 64 for c in seeds[1:])
    assert any(c["BLOCK_M"] * c["BLOCK_N"] < 64 * 64 for c in kinds.template_seeds(meta(4096, 3072, False)))


def test_template_rows_fit_the_measuring_gpus_shared_memory():
    # learning on a machine without that GPU: a 128 x 256 tile in 4 stages (196 KB) fits the
    # H100 of the dataset's header, not the generic limits
    f = point.features(_template_meta(4096, 4096, 4096, "bfloat16"))
    big = key({"kwargs": {"BLOCK_K": 64, "BLOCK_M": 128, "BLOCK_N": 256, "GROUP_M": 8},
               "num_stages": 4, "num_warps": 8})
    h100 = point.device_limits_of({"gpu_name": "NVIDIA H100 80GB HBM3", "shared_memory_per_block": 232448})
    assert point.row_config_fits(f, big, device=h100)
    assert not point.row_config_fits(f, big, device=point.DeviceLimits())
    assert point.device_limits_of({"gpu_name": "cpu"}) is None


def _persistent(xnumel, rnumel):
    return KernelMeta("persistent_reduction", source="x = tl.load(in_ptr0 + i)\n", xnumel=xnumel,
                      rnumel=rnumel, dtypes=("float32", "float32"))


def test_persistent_configs_are_learned_as_tiles_and_launched_with_the_kernels_row():
    # a persistent reduction's RBLOCK is its whole row: configs learned as TILE = XBLOCK x
    # RBLOCK (and warps) name one for any row length
    row = point.features(_persistent(4096, 700))
    absolute = key({"kwargs": {"RBLOCK": 1024, "XBLOCK": 4}, "num_stages": 1, "num_warps": 8})
    tile = point.learned_form(row, absolute)
    assert json.loads(tile) == {"kwargs": {"TILE": 4096}, "num_stages": 1, "num_warps": 8}
    assert point.learned_form(point.features(meta(1000)), key(cfg(256))) == key(cfg(256))   # other kinds
    back = lambda m: point.from_learned_form(m, point.Config.from_json(json.loads(tile)))   # noqa: E731
    assert back(_persistent(4096, 700)).kwargs == {"XBLOCK": 4, "RBLOCK": 1024}
    assert back(_persistent(4096, 3000)).kwargs == {"XBLOCK": 1, "RBLOCK": 4096}
    assert back(_persistent(4096, 5000)) is None          # a row of 8192 does not fit the tile
    assert back(_persistent(4096, 10)) is None            # 256 rows of 16: beyond the 128 measured
    assert point.row_config_fits(row, tile) and not point.row_config_fits(point.features(_persistent(64, 5000)), tile)


def test_a_persistent_shortlist_of_tiles_is_timed_with_the_kernels_row(monkeypatch):
    _shortlist_only(monkeypatch, "triton.persistent_reduction", (
        {"kwargs": {"TILE": 1024}, "num_stages": 1, "num_warps": 4},
        {"kwargs": {"TILE": 8192}, "num_stages": 1, "num_warps": 8},
        {"kwargs": {"TILE": 128}, "num_stages": 1, "num_warps": 2}))   # < a row of 256
    m = _persistent(512, 200)
    assert point.shortlisted_configs(m) == [{"XBLOCK": 4, "RBLOCK": 256, "num_warps": 4, "num_stages": 1},
                                            {"XBLOCK": 32, "RBLOCK": 256, "num_warps": 8, "num_stages": 1}]


def test_configs_of_one_learned_form_keep_the_fastest_time(tmp_path):
    path = tmp_path / "rows.jsonl"
    feats = point.features(_persistent(4096, 700))
    header = {"format": "tuner-dataset", "version": 1, "point": "triton.persistent_reduction",
              "feature_schema": 1, "features": {}, "choices": [], "gpu_name": "cpu",
              "compute_capability": [0, 0], "shared_memory_per_block": 0, "timer": "t", "torch": "t", "triton": "t"}
    c = lambda x, r, w: key({"kwargs": {"RBLOCK": r, "XBLOCK": x}, "num_stages": 1, "num_warps": w})   # noqa: E731
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        # the same config measured twice (a resumed file): the faster time stands
        for choice, t in ((feats["default"], 2.0), (c(2, 1024, 4), 1.0), (c(4, 1024, 4), 1.5),
                          (c(2, 1024, 4), 1.7)):
            f.write(json.dumps({"problem": "p0", "choice": choice, "time_ms": t, "reps": 1, **feats}) + "\n")
    P = configs.load([path], form=point.learned_form)
    assert P.tables[0][point.learned_form(feats, c(2, 1024, 4))] == 1.0
    assert P.defaults[0] == point.learned_form(feats, feats["default"]) and P.defaults[0] in P.tables[0]


def _tiled(yn, xn):
    return KernelMeta("pointwise_tiled", source="x = tl.load(in_ptr0 + i)\n", xnumel=xn, ynumel=yn,
                      dtypes=("float32", "float32"))


def test_tiled_configs_count_where_they_are_cut_to_the_kernels_extents(tmp_path):
    # a transpose of 2 x 32768: every candidate's YBLOCK is cut to 2, so (32, 32) was never
    # measured there by that name; the point launches it as (32, 2), and the learner credits it
    # with that time (before, no shortlisted config applied and the default lost 9.6x)
    small, big = point.features(_tiled(2, 32768)), point.features(_tiled(4096, 4096))
    c = lambda x, y, w=8: key({"kwargs": {"XBLOCK": x, "YBLOCK": y}, "num_stages": 1, "num_warps": w})   # noqa: E731
    assert point.launched_form(small, c(32, 32)) == c(32, 2)
    assert point.launched_form(big, c(32, 32)) == c(32, 32)
    path = tmp_path / "rows.jsonl"
    header = {"format": "tuner-dataset", "version": 1, "point": "triton.pointwise_tiled",
              "feature_schema": 1, "features": {}, "choices": [], "gpu_name": "cpu",
              "compute_capability": [0, 0], "shared_memory_per_block": 0, "timer": "t", "torch": "t", "triton": "t"}
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        for pid, feats, table in (("small", small, {small["default"]: 9.6, c(32, 2): 1.0}),
                                  ("big", big, {big["default"]: 2.0, c(32, 32): 1.0})):
            for choice, t in table.items():
                f.write(json.dumps({"problem": pid, "choice": choice, "time_ms": t, "reps": 1, **feats}) + "\n")
    P = configs.load([path], form=point.learned_form, launched=point.launched_form)
    i = P.ids.index(small["key"])
    assert P.tables[i][c(32, 32)] == 1.0 and P.loss(i, c(32, 32)) == 1.0
    assert configs.load([path]).tables[i].get(c(32, 32)) is None   # without it: not credited


def test_a_tiled_shortlist_is_cut_to_the_kernels_extents(monkeypatch):
    _shortlist_only(monkeypatch, "triton.pointwise_tiled",
                    ({"kwargs": {"XBLOCK": 32, "YBLOCK": 32}, "num_stages": 1, "num_warps": 8},))
    assert point.shortlisted_configs(_tiled(2, 32768)) == [{"XBLOCK": 32, "YBLOCK": 2, "num_warps": 8, "num_stages": 1}]
