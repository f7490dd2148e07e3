"""The kernel-config point (tuner.points.triton_kernel) on CPU: defaults exactly as codegen had
them (default mode's performance depends on them), a space holding the default for every kind,
the problem key, and decide_config's search (coordinate descent from the default, exhaustive,
budgeted, a time limit) with a fake benchmark."""
import itertools
import json

import pytest
import torch

from tuner.points import kernel_kinds as kinds, triton_kernel as point
from tuner.points.kernel_body import body_counts
from tuner.points.triton_kernel import KernelMeta
from tuner.space import Config


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch):
    from tuner.cache import reset_cache
    monkeypatch.delenv("TUNER_SEARCH", raising=False)
    monkeypatch.delenv("TUNER_TUNE_BUDGET_S", raising=False)
    reset_cache()
    yield
    reset_cache()


# -- the configs codegen had before the point owned them (compiler/codegen/triton.py,
#    combo.py, template.py at 1bb68a1), verbatim: the point must give exactly these -------------

def next_pow2(n):
    return 1 << max(0, (int(n) - 1).bit_length())


class _OldKernel:
    def __init__(self, xnumel, rnumel=None, tile=None, outer=False, persistent=False):
        self.xnumel, self.rnumel, self.tile = xnumel, rnumel, tile
        self.reduction = rnumel is not None
        self.outer, self.persistent = outer, persistent

    def default_config(self):
        if self.tile:
            yn, xn = self.tile
            xb = max(1, min(64, next_pow2(xn)))
            yb = max(1, min(next_pow2(yn), 64 if xb >= 32 else max(64, 2048 // xb), 1024))
            tile = xb * yb
            return {"XBLOCK": xb, "YBLOCK": yb,
                    "num_warps": 8 if tile >= 8192 else (4 if tile >= 1024 else (2 if tile >= 256 else 1)),
                    "num_stages": 1}
        if not self.reduction:
            xb = min(1024, next_pow2(self.xnumel))
            return {"XBLOCK": max(xb, 16), "num_warps": 4 if xb >= 256 else 1, "num_stages": 1}
        if self.outer:
            if self.persistent:
                rb = max(next_pow2(self.rnumel), 2)
                xb = max(1, min(next_pow2(self.xnumel), max(32, 4096 // rb), 256))
            elif self.xnumel >= 32768 and self.rnumel <= 512:   # since 2026-11-30: H200 data
                return {"XBLOCK": 32, "RBLOCK": min(64, max(8, next_pow2(self.rnumel))), "num_warps": 8,
                        "num_stages": 1}
            elif self.xnumel > 8:   # since 2026-11-25: the kernel data's looped x-major default
                return {"XBLOCK": 16, "RBLOCK": min(64, max(8, next_pow2(self.rnumel))), "num_warps": 16,
                        "num_stages": 1}
            else:
                rb, xb = 8, min(128, max(1, next_pow2(self.xnumel)))
            tile = rb * xb
            return {"XBLOCK": xb, "RBLOCK": rb, "num_warps": 8 if tile >= 4096 else (4 if tile >= 512 else 2),
                    "num_stages": 1}
        if self.persistent:
            rb = max(next_pow2(self.rnumel), 2)
            xb = max(1, min(next_pow2(self.xnumel), max(1, 4096 // rb), 64))
            tile = rb * xb
            return {"XBLOCK": xb, "RBLOCK": rb,
                    "num_warps": 16 if tile >= 8192 else (8 if tile >= 4096 else (4 if tile >= 512 else 2)),
                    "num_stages": 1}
        # since 2026-11-25: the kernel data's looped row-reduction default
        rb = min(4096, next_pow2(self.rnumel))
        return {"XBLOCK": 1, "RBLOCK": rb, "num_warps": 16 if rb >= 2048 else 8, "num_stages": 1}

    def candidate_configs(self):
        out = []
        if self.tile:
            yn, xn = self.tile
            for xb in (16, 32, 64, 128):
                for yb in (16, 32, 64, 128):
                    xb2, yb2 = min(xb, next_pow2(xn)), min(yb, next_pow2(yn))
                    if xb2 * yb2 > 8192:
                        continue
                    for nw in (2, 4, 8):
                        c = {"XBLOCK": xb2, "YBLOCK": yb2, "num_warps": nw, "num_stages": 1}
                        if c not in out:
                            out.append(c)
            return out or [self.default_config()]
        if not self.reduction:
            for xb in (128, 256, 512, 1024, 2048, 4096):
                for nw in (2, 4, 8):
                    if xb // (32 * nw) >= 1:
                        out.append({"XBLOCK": xb, "num_warps": nw, "num_stages": 1})
            return out
        rbs = [max(next_pow2(self.rnumel), 2)] if self.persistent else \
            ([8, 16, 32, 64] if self.outer else [256, 512, 1024, 2048, 4096])
        for rb in rbs:
            for xb in ((16, 32, 64, 128, 256) if self.outer else (1, 2, 4, 8, 16, 32, 64, 128)):
                if xb * rb > (16384 if self.persistent else 8192) or xb > max(next_pow2(self.xnumel), 1):
                    continue
                for nw in (2, 4, 8, 16):
                    out.append({"XBLOCK": xb, "RBLOCK": rb, "num_warps": nw, "num_stages": 1})
        return out or [self.default_config()]


def _old_combo_default(numels):
    xb = max(128, min(1024, next_pow2(max(numels))))
    return {"XBLOCK": xb, "num_warps": 4 if xb >= 512 else 2, "num_stages": 1}


def _old_combo_candidates(numels):
    big = next_pow2(max(numels))
    return [{"XBLOCK": xb, "num_warps": nw, "num_stages": 1}
            for xb in (128, 256, 512, 1024, 2048, 4096) if xb <= max(128, big)
            for nw in (1, 2, 4, 8) if xb // (32 * nw) >= 1]


def _old_template_default(m, n, k):
    small = m <= 64 or n <= 64
    bm = 32 if m <= 32 else (64 if small else 128)
    bn = 32 if n <= 32 else (64 if small else 128)
    bk = 32 if k <= 32 else 64
    return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8,
            "num_warps": 4 if bm * bn <= 64 * 64 else 8, "num_stages": 3}


SIZES = (1, 2, 3, 7, 16, 33, 100, 255, 256, 1000, 4096, 5000, 65536, 1 << 20)
R_PERSISTENT = (1, 2, 5, 16, 33, 64, 100, 512, 1000, 4096, 8192, 16384)
R_LOOPED = (1, 5, 65, 300, 2047, 2048, 5000, 10 ** 6)


def _metas():
    """(meta, the old kernel's equivalent) for every kind over a grid of extents."""
    for x in SIZES:
        yield KernelMeta("pointwise", xnumel=x), _OldKernel(x)
        yield KernelMeta("scatter", xnumel=x), _OldKernel(x)
    for yn, xn in itertools.product(SIZES[:10], repeat=2):
        yield KernelMeta("pointwise_tiled", xnumel=xn, ynumel=yn), _OldKernel(xn * yn, tile=(yn, xn))
    for x, outer in itertools.product(SIZES, (False, True)):
        for r in R_PERSISTENT:
            if outer and r > 64:
                continue
            yield (KernelMeta("persistent_reduction", xnumel=x, rnumel=r, outer=outer),
                   _OldKernel(x, r, outer=outer, persistent=True))
        for r in R_LOOPED:
            yield KernelMeta("reduction", xnumel=x, rnumel=r, outer=outer), _OldKernel(x, r, outer=outer)


PARTS = [(5, 17, 300, 1, 64), (1, 1), (100000, 3), (1024,) * 4, (2000, 7000)]
MMS = [(1, 1, 1, 1), (1, 7, 100, 33), (4, 33, 64, 65), (1, 100, 133, 64), (1, 4096, 3072, 768),
       (2, 65, 65, 7), (1, 1, 4096, 4096)]


def test_defaults_and_candidates_are_the_ones_codegen_had():
    n = 0
    for meta, old in _metas():
        assert point.default_config(meta) == old.default_config(), meta
        if meta.kind != "scatter":
            assert kinds.candidate_configs(meta) == old.candidate_configs(), meta
        n += 1
    assert n > 500
    for parts in PARTS:
        meta = KernelMeta("combo", xnumel=sum(parts), parts=parts)
        assert point.default_config(meta) == _old_combo_default(parts)
        assert kinds.candidate_configs(meta) == _old_combo_candidates(parts)
    for mm in MMS:
        meta = KernelMeta("template", xnumel=mm[0] * mm[1] * mm[2], mm=mm, mm_dtype="bfloat16")
        default = _old_template_default(*mm[1:])
        assert point.default_config(meta) == default
        cands = kinds.candidate_configs(meta)
        assert cands[0] == default and len(cands) == len({str(c) for c in cands}) >= 8


def test_every_kind_but_scatter_has_a_space_holding_its_default():
    metas = [m for m, _ in _metas()]
    metas += [KernelMeta("combo", xnumel=sum(p), parts=p) for p in PARTS]
    metas += [KernelMeta("template", xnumel=1, mm=mm, mm_dtype="bfloat16") for mm in MMS]
    for meta in metas:
        space = point.config_space(meta)
        if meta.kind == "scatter":
            assert space is None
            continue
        default = point.to_config(point.default_config(meta))
        assert space.why_invalid(default) is None, (meta, default, space)


def test_reductions_search_rows_chunk_and_warps_persistent_ones_keep_the_whole_row():
    looped = point.config_space(KernelMeta("reduction", xnumel=512, rnumel=50000))
    assert set(looped.tunable_fields) == {"XBLOCK", "RBLOCK", "num_warps"}
    assert looped.max_block_numel == 8192
    for outer in (False, True):
        persistent = point.config_space(KernelMeta("persistent_reduction", xnumel=512, rnumel=48,
                                                   outer=outer))
        assert set(persistent.tunable_fields) == {"XBLOCK", "num_warps"}
        assert persistent.fields["RBLOCK"].values() == [64]
    # a 2-D tile, a template's blocks, warps and stages
    tiled = point.config_space(KernelMeta("pointwise_tiled", xnumel=300, ynumel=70))
    assert {"XBLOCK", "YBLOCK", "num_warps"} <= set(tiled.tunable_fields)
    mm = point.config_space(KernelMeta("template", xnumel=1, mm=(1, 512, 512, 512), mm_dtype="float16"))
    assert {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_warps", "num_stages"} == set(mm.tunable_fields)
    assert point.search_options(KernelMeta("template", mm=(1, 512, 512, 512)), mm) == \
        {"check_all_directions": False, "check_pairs": False, "max_plateau_walks": 0}


def test_problem_key_names_source_extents_and_dtypes_and_buckets_dynamic_sizes():
    def key(source, x, y=None, r=None, dtypes=("float32",), bucketed=False):
        kind = "reduction" if r else ("pointwise_tiled" if y else "pointwise")
        return point.problem_key(KernelMeta(kind, source, xnumel=x, ynumel=y, rnumel=r,
                                            bucketed=bucketed), dtypes)
    assert key("s", 64) == key("s", 64)
    assert len({key("s", 64), key("s", 128), key("t", 64), key("s", 64, dtypes=("bfloat16",)),
                key("s", 64, 3)}) == 5
    assert key("s", 64).endswith(":64:float32") and key("s", 64, 3).endswith(":64x3:float32")
    assert key("x < 297", 297, bucketed=True) == key("x < 396", 396, bucketed=True)
    assert key("x < 297", 297, bucketed=True) != key("x < 660", 660, bucketed=True)
    assert key("r < 100", 8, r=100, bucketed=True) != key("r < 300", 8, r=300, bucketed=True)
    # the arguments' dtypes when given, else the ones codegen recorded
    meta = KernelMeta("pointwise", "s", xnumel=64, dtypes=("float16", "float32"))
    assert point.problem_key(meta) == point.problem_key(meta, ["float16", "float32"])
    assert point.dtype_names([torch.empty(1, dtype=torch.bfloat16)]) == ("bfloat16",)


# -- decide_config with a fake benchmark ------------------------------------------------------

def _cost(cfg):
    """A landscape whose optimum (XBLOCK 4, RBLOCK 1024, 4 warps) is far from the default."""
    return 1.0 + abs(cfg["XBLOCK"].bit_length() - 3) + abs(cfg["RBLOCK"].bit_length() - 11) \
        + abs(cfg["num_warps"].bit_length() - 3)


class FakeKernel:
    """launch(config, args) for decide_config; the fake benchmark times the config it ran."""

    def __init__(self, sleep=0.0):
        self.sleep = sleep
        self.launched = []

    def launch(self, cfg, args):
        self.launched.append(cfg)


@pytest.fixture
def fake_bench(monkeypatch):
    import time

    import tuner.bench as bench
    kernel = FakeKernel()

    def benchmark(fn, **kw):
        fn()
        if kernel.sleep:
            time.sleep(kernel.sleep)
        return _cost(kernel.launched[-1])
    monkeypatch.setattr(bench, "benchmark", benchmark)
    return kernel


LOOPED = KernelMeta("reduction", "src-looped", xnumel=4096, rnumel=30000)
ARGS = [torch.zeros(4)]


def test_coordinate_descent_from_the_default_replaces_the_exhaustive_sweep(fake_bench):
    d = point.decide_config(LOOPED, ARGS, fake_bench.launch)
    assert d.source == "coordinate_descent" and d.namespace == "triton.reduction"
    assert fake_bench.launched[0] == point.default_config(LOOPED)    # started there
    assert point.config_dict(d.choice) == {"XBLOCK": 4, "RBLOCK": 1024, "num_warps": 4, "num_stages": 1}
    assert d.n_measured < len(kinds.candidate_configs(LOOPED)) == 80
    assert d.problem == point.problem_key(LOOPED, ["float32"])
    assert point.decide_config(LOOPED, ARGS, fake_bench.launch).source == "cache"


def test_written_arguments_are_copied_only_when_a_config_is_measured(fake_bench, monkeypatch):
    # measuring writes into copies of the written arguments; a cached answer copies nothing
    # (a large mutated tensor's copy would raise peak memory for no measurement: issue 50)
    copies = []
    real = point.written_copies
    monkeypatch.setattr(point, "written_copies", lambda a, o, *s: copies.append(o) or real(a, o, *s))
    out = torch.zeros(4)
    seen = []
    launch = lambda cfg, args: (seen.append(args[1]), fake_bench.launch(cfg, args))  # noqa: E731
    assert point.decide_config(LOOPED, [torch.ones(4), out], launch, out_args=(1,)).source \
        == "coordinate_descent"
    assert copies == [(1,)] and seen and all(a is not out for a in seen)
    copies.clear()
    assert point.decide_config(LOOPED, [torch.ones(4), out], launch, out_args=(1,)).source == "cache"
    assert copies == []


def test_exhaustive_sweeps_the_candidates_and_budgeted_stops(fake_bench, monkeypatch):
    monkeypatch.setenv("TUNER_SEARCH", "exhaustive")
    d = point.decide_config(LOOPED, ARGS, fake_bench.launch)
    assert d.source == "exhaustive" and d.n_measured == 80
    monkeypatch.setenv("TUNER_SEARCH", "budgeted")
    fake_bench.launched.clear()
    d = point.decide_config(LOOPED, [torch.zeros(4, dtype=torch.float64)], fake_bench.launch)
    assert d.source == "budgeted" and 1 < d.n_measured <= 16
    assert fake_bench.launched[0] == point.default_config(LOOPED)


def test_template_descends_from_its_seed_set_one_field_at_a_time(fake_bench, monkeypatch):
    # six fields, each candidate a compile of seconds: the seed set (default first, then the
    # hand-written configs that fit the space) is measured, then single-field moves only
    import tuner.search as search
    seen = {}
    cd = search.STRATEGIES["coordinate_descent"]

    def spy(space, measure, **options):
        seen.update(options)
        return cd(space, measure, **options)
    monkeypatch.setitem(search.STRATEGIES, "coordinate_descent", spy)
    meta = KernelMeta("template", "src-mm", xnumel=1 << 18, mm=(1, 512, 512, 512), mm_dtype="float16")
    d = point.decide_config(meta, ARGS, lambda cfg, args: fake_bench.launched.append(
        dict(cfg, XBLOCK=cfg["BLOCK_M"] // 16, RBLOCK=cfg["BLOCK_K"] * 16)))
    assert d.source == "coordinate_descent"
    assert seen["check_all_directions"] is False and seen["check_pairs"] is False
    assert seen["max_plateau_walks"] == 0
    seeds = point.initial_configs(meta, point.config_space(meta), "coordinate_descent")
    assert seeds[0] == point.default_config(meta) and len(seeds) > 1
    assert fake_bench.launched[0]["BLOCK_M"] == point.default_config(meta)["BLOCK_M"]


def test_a_time_limit_keeps_the_best_so_far_or_the_default_and_stores_neither(fake_bench):
    d = point.decide_config(LOOPED, ARGS, fake_bench.launch, max_seconds=0)
    assert d.source == "budget" and d.stopped_early and not fake_bench.launched
    assert point.config_dict(d.choice) == point.default_config(LOOPED)
    fake_bench.sleep = 0.02
    d = point.decide_config(LOOPED, ARGS, fake_bench.launch, max_seconds=0.05)
    assert d.source == "coordinate_descent" and d.stopped_early and 1 <= d.n_measured < 10
    fake_bench.sleep = 0
    again = point.decide_config(LOOPED, ARGS, fake_bench.launch)   # nothing was cached
    assert again.source == "coordinate_descent" and not again.stopped_early


def test_budget_left_reads_the_setting(monkeypatch):
    assert point.budget_left(100.0) is None              # 0: unlimited
    monkeypatch.setenv("TUNER_TUNE_BUDGET_S", "2.5")
    assert point.budget_left(1.0) == 1.5 and point.budget_left(3.0) < 0


def test_scatter_is_never_tuned():
    meta = KernelMeta("scatter", xnumel=12)
    assert kinds.candidate_configs(meta) == [point.default_config(meta)]
    with pytest.raises(ValueError):
        point.decide_config(meta, ARGS, lambda cfg, args: None)
    with pytest.raises(ValueError, match="kernel kind"):
        KernelMeta("persistent")


def test_features_name_the_kind_extents_and_dtypes():
    f = point.features(KernelMeta("persistent_reduction", xnumel=8, rnumel=33, outer=True), ["bfloat16"])
    assert {k: f[k] for k in ("kind", "xnumel", "rnumel", "outer", "dtypes", "args", "arg_bytes")} == \
        {"kind": "persistent_reduction", "xnumel": 8, "rnumel": 33, "outer": True,
         "dtypes": "bfloat16", "args": 1, "arg_bytes": 2}
    # the default config as JSON, and the cache's problem key (a row's problem is one kernel)
    assert json.loads(f["default"])["kwargs"]["RBLOCK"] == 64
    assert f["key"] == point.problem_key(KernelMeta("persistent_reduction", xnumel=8, rnumel=33,
                                                    outer=True), ["bfloat16"])
    f = point.features(KernelMeta("template", xnumel=6, mm=(1, 2, 3, 4), mm_dtype="float16"))
    assert (f["m"], f["n"], f["k"], f["mm_dtype"]) == (2, 3, 4, "float16")
    assert isinstance(point.to_config({"XBLOCK": 4, "num_warps": 2, "num_stages": 1}), Config)


def test_body_counts_find_loads_stores_and_special_functions():
    src = ("x = tl.load(p0 + i)\ny = tl.load(p1 + i)\nz = th.tanh(x) * tl.sigmoid(y) + th.maximum_nan(x, y)\n"
           "w = tl.exp(z - tl.max(z, 0)) + th.erf(x)\ntl.store(p2 + i, w)\n")
    assert body_counts(src) == {"loads": 2, "stores": 1, "special": 4}
    assert point.features(KernelMeta("pointwise", source=src, xnumel=10), ["float32"] * 3)["special"] == 4


def test_foreach_default_gives_each_thread_four_elements_of_any_dtype():
    parts = (768 * 768, 3072, 768)
    fp32 = KernelMeta("foreach", xnumel=sum(parts), parts=parts, dtypes=("float32",) * 5)
    bf16 = KernelMeta("foreach", xnumel=sum(parts), parts=parts, dtypes=("bfloat16",) * 4 + ("float32",))
    small = KernelMeta("foreach", xnumel=300, parts=(100, 200), dtypes=("bfloat16",))
    for meta in (fp32, bf16):
        assert point.default_config(meta) == {"XBLOCK": 512, "num_warps": 4, "num_stages": 1}
    # no block past the largest part, still 4 elements per thread
    assert point.default_config(small) == {"XBLOCK": 256, "num_warps": 2, "num_stages": 1}


def test_looped_x_major_reductions_step_64_rows_over_16_columns_on_16_warps():
    # H100 kernel data (reduction_h100_s0/s1): 46 of 52 looped x-major kernels within 5% of
    # their best with this default, where 8 rows over up to 128 columns ran 4.9x slower on
    # geomean (a few programs walk the reduced side: the number of steps is the cost)
    for x, r in ((9, 21731), (2048, 585), (32767, 256), (87552, 513)):
        assert point.default_config(KernelMeta("reduction", xnumel=x, rnumel=r, outer=True)) == {
            "XBLOCK": 16, "RBLOCK": 64, "num_warps": 16, "num_stages": 1}
    # many columns over at most 512 rows (a split pool or norm over a conv map): 32 columns on
    # 8 warps (H200 data: geomean 1.12-1.16 of the best there, against 1.21-1.38)
    for x, r in ((32768, 512), (163840, 392), (87552, 256)):
        assert point.default_config(KernelMeta("reduction", xnumel=x, rnumel=r, outer=True)) == {
            "XBLOCK": 32, "RBLOCK": 64, "num_warps": 8, "num_stages": 1}
    # a short reduced side steps over all of it; up to 8 columns keep 8 rows a step
    assert point.default_config(KernelMeta("reduction", xnumel=64, rnumel=20, outer=True))["RBLOCK"] == 32
    assert point.default_config(KernelMeta("reduction", xnumel=4, rnumel=65535, outer=True)) == {
        "XBLOCK": 4, "RBLOCK": 8, "num_warps": 2, "num_stages": 1}


def test_looped_row_reductions_step_4096_on_16_warps():
    # H100 kernel data: 66 of 79 looped row reductions within 5% of their best (the old
    # 2048 on 8 warps: 9; geomean 1.45 -> 1.04)
    assert point.default_config(KernelMeta("reduction", xnumel=1, rnumel=73587)) == {
        "XBLOCK": 1, "RBLOCK": 4096, "num_warps": 16, "num_stages": 1}
    assert point.default_config(KernelMeta("reduction", xnumel=64, rnumel=300)) == {
        "XBLOCK": 1, "RBLOCK": 512, "num_warps": 8, "num_stages": 1}


SCAN_ROWS = (1, 3, 64, 1000, 1 << 16)
SCAN_LENGTHS = (2, 17, 1000, 4096, 4097, 50000)


def _scan_metas():
    for x, r, outer in itertools.product(SCAN_ROWS, SCAN_LENGTHS, (False, True)):
        yield KernelMeta("scan", xnumel=x, rnumel=r, outer=outer)


def test_scan_default_is_persistent_up_to_the_threshold_then_looped_in_shorter_chunks():
    # a scan kernel takes its persistent variant exactly when RBLOCK covers the row
    for x in SCAN_ROWS:
        short = point.default_config(KernelMeta("scan", xnumel=x, rnumel=1000))
        assert short["RBLOCK"] == 1024 and 1 <= short["XBLOCK"] <= 2 and short["num_stages"] == 1
        assert point.default_config(KernelMeta("scan", xnumel=x, rnumel=4096))["RBLOCK"] == 4096
        long = point.default_config(KernelMeta("scan", xnumel=x, rnumel=4097))
        assert long == {"XBLOCK": 1, "RBLOCK": kinds.SCAN_CHUNK, "num_warps": 8, "num_stages": 1}
    # short rows: several per program, a tile of SCAN_TILE at most
    assert point.default_config(KernelMeta("scan", xnumel=1000, rnumel=17)) == {
        "XBLOCK": 64, "RBLOCK": 32, "num_warps": 8, "num_stages": 1}
    assert point.default_config(KernelMeta("scan", xnumel=3, rnumel=17))["XBLOCK"] == 4
    # over a leading dim (loads along x): 64 rows wide, looped where a whole row would not fit
    outer = point.default_config(KernelMeta("scan", xnumel=4096, rnumel=1000, outer=True))
    assert outer["XBLOCK"] == 64 and outer["RBLOCK"] == 32
    assert point.default_config(KernelMeta("scan", xnumel=4096, rnumel=20, outer=True))["RBLOCK"] == 32
    for meta in _scan_metas():
        d = point.default_config(meta)
        assert d["XBLOCK"] * d["RBLOCK"] <= max(kinds.SCAN_TILE, kinds.SCAN_PERSISTENT_MAX), (meta, d)
        whole = max(next_pow2(meta.rnumel), 2)
        fits = not meta.outer or whole * d["XBLOCK"] <= kinds.SCAN_TILE
        assert (d["RBLOCK"] >= meta.rnumel) == (meta.rnumel <= kinds.SCAN_PERSISTENT_MAX and fits)


def test_scan_candidates_hold_both_variants_and_the_space_tunes_rows_chunk_and_warps():
    meta = KernelMeta("scan", xnumel=512, rnumel=1000)
    cands = kinds.candidate_configs(meta)
    rblocks = {c["RBLOCK"] for c in cands}
    assert rblocks == {32, 128, 512, 1024}      # chunks (looped) and the whole row (persistent)
    assert all(c["XBLOCK"] * c["RBLOCK"] <= 8192 for c in cands)
    assert len(cands) == len({str(c) for c in cands})
    long = kinds.candidate_configs(KernelMeta("scan", xnumel=4, rnumel=50000))
    assert {c["RBLOCK"] for c in long} == {32, 128, 512, 2048}
    assert {c["XBLOCK"] for c in long} == {1, 2, 4}
    space = point.config_space(meta)
    assert set(space.tunable_fields) == {"XBLOCK", "RBLOCK", "num_warps"}
    assert space.fields["RBLOCK"].values() == [16, 32, 64, 128, 256, 512, 1024]
    assert space.kind == "triton.scan"
    outer = point.config_space(KernelMeta("scan", xnumel=512, rnumel=1000, outer=True))
    assert outer.kind == "triton.scan.outer"
    for m in _scan_metas():
        default = point.to_config(point.default_config(m))
        space = point.config_space(m)
        assert space.why_invalid(default) is None, (m, default)
        assert point.answer_fits(m, default, space)
        assert all(space.why_invalid(point.to_config(c)) is None for c in kinds.candidate_configs(m)), m


def test_scan_tunes_by_coordinate_descent_from_its_default(fake_bench):
    meta = KernelMeta("scan", "src-scan", xnumel=4096, rnumel=30000)
    d = point.decide_config(meta, ARGS, fake_bench.launch)
    assert d.source == "coordinate_descent" and d.namespace == "triton.scan"
    assert fake_bench.launched[0] == point.default_config(meta)
    # the fake landscape's optimum lies inside the scan's space: the descent reaches it
    assert point.config_dict(d.choice) == {"XBLOCK": 4, "RBLOCK": 1024, "num_warps": 4, "num_stages": 1}
    f = point.features(meta, ["float32", "float32"])
    assert (f["kind"], f["rnumel"], f["outer"]) == ("scan", 30000, False)
    assert "scan" in kinds.TUNABLE_KINDS and "scan" not in point.LEARNED_KINDS


def _planning_meta(xnumel):
    return KernelMeta("pointwise", source="x = tl.load(in_ptr0 + i)\ntl.store(out_ptr0 + i, x * 2)\n",
                      xnumel=xnumel, dtypes=("float32", "float32"))


def test_planned_configs_are_the_first_batch_the_search_builds_and_nothing_runs(monkeypatch):
    # the compiler builds these for every kernel of a graph at once (compiler/runtime/launch.py
    # prebuild) before the first call tunes the kernels one by one: they must be exactly what
    # that search builds first, and planning must launch, time and record nothing
    import torch

    from tuner import engine
    from tuner.points import triton_kernel as point
    args = [torch.randn(16), torch.empty(16)]
    m = _planning_meta(50_000)
    engine.HISTORY.clear()
    launched = []
    planned = point.planned_configs(m, args, out_args=(1,))
    assert planned and planned[0] == point.default_config(m) and not engine.HISTORY
    batches = []

    def warmup(cfg, a):
        batches.append(dict(cfg))
    d = point.decide_config(m, args, lambda c, a: launched.append(dict(c)), out_args=(1,), warmup=warmup)
    assert batches[:len(planned)] == planned and d.source == "coordinate_descent"
    # answered from the cache now: the plan is that answer alone (one build, no search)
    assert point.planned_configs(m, args, out_args=(1,)) == [point.config_dict(d.choice)]
    assert [h.source for h in engine.HISTORY] == ["coordinate_descent"]
    # a template's config comes from the mm point's probe of its matmul: nothing planned
    t = KernelMeta("template", source="acc = tl.dot(a, b)\n", xnumel=64, mm=(1, 8, 8, 8),
                   mm_dtype="float32", dtypes=("float32",) * 3)
    targs = [torch.randn(8, 8), torch.randn(8, 8), torch.empty(8, 8)]
    assert point.planned_configs(t, targs) == []
    # ... but the probe's own template tunes, and is planned when asked (mm_probes.prebuild):
    # its seed set, the default first, as its search builds it
    t = KernelMeta("template", source="acc = tl.dot(a, b)\n", xnumel=128 * 96, mm=(1, 128, 96, 64),
                   mm_dtype="float32", dtypes=("float32",) * 3)
    targs = [torch.randn(128, 64), torch.randn(64, 96), torch.empty(128, 96)]
    batch = []
    planned = point.planned_configs(t, targs, out_args=(2,), template=True)
    point.decide_config(t, targs, lambda c, a: None, out_args=(2,), warmup=lambda c, a: batch.append(dict(c)))
    assert planned[0] == point.default_config(t) and len(planned) > 1 and batch[:len(planned)] == planned


def test_planned_configs_hold_a_shipped_shortlists_whole_batch(monkeypatch):
    import types

    import torch

    from tuner.heuristics import registry
    from tuner.heuristics.interface import Precondition
    from tuner.heuristics.registry import Registry
    mod = types.ModuleType("fake_triton_pointwise_cpu")
    mod.PRECONDITION = Precondition(point="triton.pointwise", capability=(0, 0), shared_memory=0,
                                    feature_schema=1, gpu_name="cpu")
    short = tuple({"kwargs": {"XBLOCK": xb}, "num_warps": w, "num_stages": 1} for xb, w in ((128, 4), (256, 2)))
    mod.ANSWERS, mod.SHORTLIST, mod.decide = {}, short, lambda f: None
    monkeypatch.setattr(registry, "_default", Registry([mod]))
    m = _planning_meta(60_000)
    args = [torch.randn(16), torch.empty(16)]
    planned = point.planned_configs(m, args, out_args=(1,))
    built = []
    point.decide_config(m, args, lambda c, a: None, out_args=(1,), warmup=lambda c, a: built.append(dict(c)))
    key = lambda c: json.dumps(c, sort_keys=True)   # noqa: E731
    assert len(planned) == 3 and sorted(map(key, planned)) == sorted(map(key, built))
