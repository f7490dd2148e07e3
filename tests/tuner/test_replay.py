"""Search strategies replayed over timings recorded on an H100 (no GPU, no clock).

The fixture holds, for 10 real Triton kernels, the time of every config of the space that
the former scripts/bench_search.py searched (see its "note"). Replaying a strategy over it
makes the choices the strategy would have made on that GPU.
"""
import math
import os

import pytest

from tuner.search import coordinate_descent, exhaustive
from tuner.search.replay import RecordedTimings, load_recorded, replay
from tuner.space import Config, ConfigSpace

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "h100_bench_search.json")
ENV, KERNELS = load_recorded(FIXTURE)
NAMES = [k.name for k in KERNELS]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def test_fixture_holds_ten_kernels_and_rebuilds_each_space_exactly():
    assert len(KERNELS) == 10 and "H100" in ENV["gpu"]
    assert {"matmul", "col_sum", "softmax", "transpose_copy"} <= set(NAMES)
    for k in KERNELS:
        space = k.space()  # raises when the rebuilt space differs from the recorded configs
        assert space.size() == k.meta["space_size"] == len(k.timings.table)
        assert k.start == space.default_candidates()


@pytest.mark.parametrize("name", NAMES)
def test_replayed_exhaustive_finds_the_recorded_best(name):
    k = KERNELS[NAMES.index(name)]
    r = replay(k, exhaustive, initial=list(k.space().all_configs()))
    assert r.quality == 1.0 and r.fraction == 1.0


@pytest.mark.parametrize("name", NAMES)
def test_coordinate_descent_defaults_land_within_2_percent(name):
    k = KERNELS[NAMES.index(name)]
    r = replay(k, coordinate_descent)
    assert r.quality <= 1.02, (r.result.best, r.quality)
    assert not r.unrecorded  # it never left the recorded space
    assert all(k.space().valid(c) for c in r.result.timings)


def test_coordinate_descent_defaults_measure_a_small_fraction_of_each_space():
    fractions = [replay(k, coordinate_descent).fraction for k in KERNELS]
    assert geomean(fractions) <= 0.35, fractions
    assert max(fractions) < 0.75  # the largest shares are of the smallest spaces (30, 48)


def test_plateau_walks_are_capped_on_a_flat_landscape():
    # a memory-bound pointwise kernel: nearly every config ties within 1%
    k = KERNELS[NAMES.index("pointwise_1in")]
    capped = replay(k, coordinate_descent).result.n_measured
    assert capped < replay(k, coordinate_descent, max_plateau_walks=1000).result.n_measured


def test_classic_descent_misses_where_the_joint_check_does_not():
    # the reference behaviour (best start only, one field at a time, no plateau walk) ends
    # 9% off on the column reduction: coupled XBLOCK/RBLOCK under the register cap
    classic = dict(starts=1, plateau=0.0, check_all_directions=False)
    col = KERNELS[NAMES.index("col_sum")]
    assert replay(col, coordinate_descent, **classic).quality > 1.05
    assert replay(col, coordinate_descent).quality <= 1.02


def test_recorded_timings_score_missing_and_failed_configs_inf():
    a, b, c = (Config.of(XBLOCK=x, num_stages=1) for x in (16, 32, 64))
    m = RecordedTimings.from_pairs([[str(a), 0.5], [str(b), None]])
    assert (m(a), m(b), m(c)) == (0.5, math.inf, math.inf)
    assert m.calls == [a, b, c] and m.unrecorded == [c] and m.best() == (a, 0.5)


def test_config_parse_inverts_str():
    c = Config({"BLOCK_M": 128, "BLOCK_N": 64, "GROUP_M": 8, "EVEN_K": True}, num_warps=8,
               num_stages=4)
    assert Config.parse(str(c)) == c
    for bad in ("", "XBLOCK", "XBLOCK=1,XBLOCK=2", "=3"):
        with pytest.raises(ValueError):
            Config.parse(bad)


def test_a_wrong_space_spec_is_refused():
    k = KERNELS[NAMES.index("softmax")]
    spec = dict(k.space_spec, restrict={**k.space_spec["restrict"], "num_warps": [4, 16]})
    with pytest.raises(ValueError, match="were recorded"):
        type(k)(k.name, k.timings, k.start, spec, k.device).space()
    with pytest.raises(ValueError, match="kind"):
        ConfigSpace.from_spec({"kind": "conv"})
