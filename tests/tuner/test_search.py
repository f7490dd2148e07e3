"""Search strategies on synthetic and replayed timing functions (no clocks, no GPU)."""
import math

import pytest

from tuner.search import budgeted, coordinate_descent, exhaustive, get_strategy
from tuner.space import Config, ConfigSpace, Field

INF = float("inf")


def xblock_space(hint=1 << 20):
    return ConfigSpace([Field("XBLOCK", "pow2", 1, 4096)], size_hints={"XBLOCK": hint})


class Counting:
    """A timing function that counts how often each config is measured."""

    def __init__(self, fn):
        self.fn, self.calls = fn, {}

    def __call__(self, c):
        self.calls[c] = self.calls.get(c, 0) + 1
        return self.fn(c)


def test_minimising_distance_to_15_from_1_ends_at_16():
    r = coordinate_descent(xblock_space(), lambda c: abs(c["XBLOCK"] - 15),
                           initial=Config.of(XBLOCK=1, num_stages=1))
    assert r.best["XBLOCK"] == 16 and r.best_time == 1
    assert r.strategy == "coordinate_descent"


def test_size_hint_one_measures_only_the_start():
    m = Counting(lambda c: 1.0)
    space = ConfigSpace([Field("XBLOCK", "pow2", 1, 4096), Field("RBLOCK", "pow2", 1, 4096)],
                        size_hints={"XBLOCK": 1, "RBLOCK": 1})
    r = coordinate_descent(space, m, initial=Config({"XBLOCK": 1, "RBLOCK": 1}))
    assert r.n_measured == 1 and list(m.calls) == [Config({"XBLOCK": 1, "RBLOCK": 1})]


def test_values_above_size_hint_or_hardware_limit_are_never_tried():
    # bigger is always faster here, so the search pushes against every limit
    space = ConfigSpace.reduction(xnumel=50, rnumel=300, max_block_numel=8192)
    r = coordinate_descent(space, lambda c: 1.0 / (c["XBLOCK"] * c["RBLOCK"] * c.num_warps),
                           initial=space.default_candidates())
    assert r.timings, "nothing measured"
    for c in r.timings:
        assert c["XBLOCK"] <= 64 and c["RBLOCK"] <= 512, c
        assert c.num_warps * 32 <= 1024 and c["XBLOCK"] * c["RBLOCK"] <= 8192, c
    assert r.best.num_warps == 32 and r.best["XBLOCK"] * r.best["RBLOCK"] == 8192


def test_every_config_is_measured_once():
    m = Counting(lambda c: (math.log2(c["XBLOCK"]) - 5) ** 2 + (math.log2(c.num_warps) - 2) ** 2 + 1)
    space = ConfigSpace.pointwise([100000])
    r = coordinate_descent(space, m, initial=space.default_candidates(), radius=2,
                           check_all_directions=True)
    assert max(m.calls.values()) == 1
    assert r.n_measured == len(m.calls) == len(r.timings)
    assert (r.best["XBLOCK"], r.best.num_warps) == (32, 4)


def test_threshold_rejects_changes_within_noise():
    # 64 is 0.05% faster than 32: not enough at the default 0.1% threshold
    times = {32: 1.0, 64: 0.9995, 16: 1.1, 128: 1.2}
    f = lambda c: times.get(c["XBLOCK"], 2.0)  # noqa: E731
    start = Config.of(XBLOCK=32, num_stages=1)
    assert coordinate_descent(xblock_space(), f, initial=start).best["XBLOCK"] == 32
    assert coordinate_descent(xblock_space(), f, initial=start, threshold=0.0).best["XBLOCK"] == 64
    times[64] = 0.98  # 2% faster: accepted
    assert coordinate_descent(xblock_space(), f, initial=start).best["XBLOCK"] == 64


def test_starts_from_the_best_initial_candidate():
    m = Counting(lambda c: abs(c["XBLOCK"] - 600) + 1)
    starts = [Config.of(XBLOCK=2, num_stages=1), Config.of(XBLOCK=512, num_stages=1)]
    r = coordinate_descent(xblock_space(), m, initial=starts)
    assert r.best["XBLOCK"] == 512
    # from 512 only 256 and 1024 are tried, never the walk up from 2
    assert {c["XBLOCK"] for c in m.calls} == {2, 512, 256, 1024}


def test_joint_check_escapes_a_coordinate_wise_optimum():
    # a diagonal valley: one field at a time is worse, both together better
    def f(c):
        x, r = math.log2(c["XBLOCK"]), math.log2(c["RBLOCK"])
        return 10.0 if x != r else 5.0 - 0.5 * x
    space = ConfigSpace([Field("XBLOCK", "pow2", 1, 64), Field("RBLOCK", "pow2", 1, 64)],
                        size_hints={"XBLOCK": 64, "RBLOCK": 64})
    start = Config({"XBLOCK": 2, "RBLOCK": 2})
    assert coordinate_descent(space, f, initial=start, check_all_directions=False).best == start
    best = coordinate_descent(space, f, initial=start, check_all_directions=True).best
    assert best == Config({"XBLOCK": 64, "RBLOCK": 64})
    # moving two fields at once is enough on this valley, at a smaller cost
    pairs = coordinate_descent(space, f, initial=start, check_all_directions=False,
                               check_pairs=True)
    assert pairs.best == Config({"XBLOCK": 64, "RBLOCK": 64})


def test_joint_check_is_on_by_default():
    def f(c):
        x, r = math.log2(c["XBLOCK"]), math.log2(c["RBLOCK"])
        return 10.0 if x != r else 5.0 - 0.5 * x
    space = ConfigSpace([Field("XBLOCK", "pow2", 1, 64), Field("RBLOCK", "pow2", 1, 64)],
                        size_hints={"XBLOCK": 64, "RBLOCK": 64})
    best = coordinate_descent(space, f, initial=Config({"XBLOCK": 2, "RBLOCK": 2})).best
    assert best == Config({"XBLOCK": 64, "RBLOCK": 64})


def test_descends_from_the_k_fastest_starts():
    # two basins: the fastest start sits in the shallow one (local optimum 8 at 1.0), the
    # second fastest start in the deep one (optimum 512 at 0.5)
    times = {4: 1.2, 8: 1.0, 16: 1.1, 128: 1.3, 256: 0.8, 512: 0.5, 1024: 0.9, 2048: 1.4}
    f = lambda c: times.get(c["XBLOCK"], 5.0)  # noqa: E731
    starts = [Config.of(XBLOCK=4, num_stages=1), Config.of(XBLOCK=128, num_stages=1)]
    one = coordinate_descent(xblock_space(), f, initial=starts, starts=1, plateau=0.0)
    assert one.best["XBLOCK"] == 8
    two = coordinate_descent(xblock_space(), f, initial=starts, starts=2, plateau=0.0)
    assert two.best["XBLOCK"] == 512 and two.best_time == 0.5
    with pytest.raises(ValueError):
        coordinate_descent(xblock_space(), f, initial=starts, starts=0)


def test_plateau_within_noise_is_crossed():
    # 64 ties with 32 (0.05%: within noise, not accepted as a move), but beyond it lies 256
    times = {16: 1.5, 32: 1.0, 64: 0.9995, 128: 0.9, 256: 0.7, 512: 0.95}
    f = lambda c: times.get(c["XBLOCK"], 2.0)  # noqa: E731
    start = Config.of(XBLOCK=32, num_stages=1)
    flat = coordinate_descent(xblock_space(), f, initial=start, plateau=0.0)
    assert flat.best["XBLOCK"] == 32 and flat.n_measured == 3
    r = coordinate_descent(xblock_space(), f, initial=start, plateau=0.01)
    assert r.best["XBLOCK"] == 256 and r.best_time == 0.7


def test_block_radius_two_steps_over_a_dip_in_block_sizes_only():
    times = {32: 1.0, 64: 1.2, 128: 0.5, 16: 1.1}
    space = ConfigSpace([Field("XBLOCK", "pow2", 1, 4096), Field("num_warps", "pow2", 1, 32)],
                        size_hints={"XBLOCK": 1 << 20})
    m = Counting(lambda c: times.get(c["XBLOCK"], 3.0) + (0 if c.num_warps == 4 else 1))
    start = Config.of(XBLOCK=32, num_warps=4, num_stages=1)
    assert coordinate_descent(space, m, initial=start, plateau=0).best["XBLOCK"] == 32
    m.calls.clear()
    r = coordinate_descent(space, m, initial=start, block_radius=2, plateau=0,
                           check_all_directions=False)
    assert r.best["XBLOCK"] == 128
    # warps keep radius 1: from 4 only 2 and 8 were ever tried
    assert {c.num_warps for c in m.calls} == {2, 4, 8}


def test_failing_configs_score_inf_and_tuning_goes_on():
    def f(c):
        x = c["XBLOCK"]
        if x == 64:
            raise RuntimeError("out of resources")
        if x == 128:
            return INF
        if x == 256:
            return float("nan")
        return abs(x - 512) + 1.0
    space = xblock_space()
    r = exhaustive(space, f, initial=[Config.of(XBLOCK=v, num_stages=1) for v in (64, 128, 256, 1024)])
    assert r.best["XBLOCK"] == 1024
    assert [r.timings[Config.of(XBLOCK=v, num_stages=1)] for v in (64, 128, 256)] == [INF] * 3
    # coordinate descent steps over the failures
    r = coordinate_descent(space, f, initial=Config.of(XBLOCK=32, num_stages=1), radius=4)
    assert r.best["XBLOCK"] == 512


def test_all_candidates_failing_gives_inf_not_an_exception():
    r = exhaustive(None, lambda c: 1 / 0, initial=["a", "b"])
    assert r.best_time == INF and r.n_measured == 2


def test_exhaustive_over_plain_choices_keeps_first_among_equals():
    r = exhaustive(None, {"orig": 2.0, "pad": 1.0, "pad2": 1.0}.__getitem__,
                   initial=["orig", "pad", "pad2"])
    assert r.best == "pad" and r.n_measured == 3
    assert [c for c, _ in r.ranked()] == ["pad", "pad2", "orig"]


def test_exhaustive_over_a_whole_space():
    space = ConfigSpace([Field("XBLOCK", "pow2", 1, 16), Field("num_warps", "pow2", 1, 4)],
                        size_hints={"XBLOCK": 16})
    r = exhaustive(space, lambda c: c["XBLOCK"] * c.num_warps)
    assert r.n_measured == 5 * 3 and r.best == Config({"XBLOCK": 1}, num_warps=1, num_stages=1)


def test_budget_stops_after_n_measurements_and_keeps_the_best():
    m = Counting(lambda c: abs(c["XBLOCK"] - 15))
    r = budgeted(xblock_space(), m, initial=Config.of(XBLOCK=1, num_stages=1), max_measurements=3)
    assert r.n_measured == 3 == sum(m.calls.values()) and r.stopped_early
    assert r.best["XBLOCK"] == 4  # 1 -> 2 -> 4 before the budget ran out


def test_budget_in_seconds_uses_the_injected_clock():
    now = [0.0]

    def measure(c):
        now[0] += 1.0  # each measurement "takes" one second
        return abs(c["XBLOCK"] - 15)
    r = budgeted(xblock_space(), measure, initial=Config.of(XBLOCK=1, num_stages=1),
                 max_seconds=2.5, clock=lambda: now[0])
    assert r.n_measured == 3 and r.stopped_early and r.elapsed_s == 3.0


def test_budget_large_enough_gives_the_full_search_answer():
    f = lambda c: abs(c["XBLOCK"] - 15)  # noqa: E731
    r = budgeted(xblock_space(), f, initial=Config.of(XBLOCK=1, num_stages=1), max_measurements=100)
    assert not r.stopped_early and r.best["XBLOCK"] == 16


def test_budgeted_without_space_runs_over_the_candidates():
    r = budgeted(None, {"a": 3, "b": 1, "c": 2}.__getitem__, initial=["a", "b", "c"],
                 max_measurements=2)
    assert r.best == "b" and r.n_measured == 2


def test_budget_needs_a_limit():
    with pytest.raises(ValueError):
        budgeted(None, lambda c: 1, initial=["a"])


# A replayed table: timings recorded per config (as a GPU sweep writes them) serve as `measure`.
# The shape is a real one: row reduction, 4096 x 1024 fp32 (H100 numbers rounded, ms).
RECORDED = {(1, 1024, 4): 0.0213, (1, 1024, 8): 0.0199, (1, 512, 4): 0.0241, (1, 1024, 16): 0.0231,
            (2, 512, 4): 0.0208, (2, 1024, 8): 0.0202, (2, 512, 8): 0.0203, (1, 512, 8): 0.0226,
            (4, 256, 4): 0.0232, (4, 512, 8): 0.0219, (8, 128, 4): 0.0290, (1, 2048, 8): 0.0411}


def replay(c):
    return RECORDED[(c["XBLOCK"], c["RBLOCK"], c.num_warps)]  # unrecorded -> KeyError -> inf


def test_coordinate_descent_on_a_replayed_table_finds_the_recorded_best():
    space = ConfigSpace.reduction(4096, 1024)
    start = Config({"XBLOCK": 8, "RBLOCK": 128}, num_warps=4, num_stages=1)
    r = coordinate_descent(space, replay, initial=[start, Config({"XBLOCK": 1, "RBLOCK": 1024},
                                                                   num_warps=4, num_stages=1)])
    assert (r.best["XBLOCK"], r.best["RBLOCK"], r.best.num_warps) == (1, 1024, 8)
    assert r.best_time == min(RECORDED.values())


def test_strategies_share_one_signature():
    for name in ("exhaustive", "coordinate_descent", "budgeted"):
        fn = get_strategy(name)
        opts = {"max_measurements": 5} if name == "budgeted" else {}
        r = fn(xblock_space(), lambda c: c["XBLOCK"], initial=[Config.of(XBLOCK=4, num_stages=1)],
               **opts)
        assert r.best is not None and r.n_measured >= 1 and r.elapsed_s >= 0
    with pytest.raises(ValueError):
        get_strategy("random")
