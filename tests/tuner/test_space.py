"""Config and ConfigSpace: identity, JSON, value rules, limits and neighbours."""
import pytest

from tuner.space import (Config, ConfigSpace, DeviceLimits, Field, choice_from_json,
                         choice_to_json, next_power_of_2)


def test_config_is_hashable_and_equal_by_value_whatever_the_kwarg_order():
    a = Config({"XBLOCK": 64, "RBLOCK": 8}, num_warps=4, num_stages=1)
    b = Config({"RBLOCK": 8, "XBLOCK": 64}, num_warps=4, num_stages=1)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != a.replace(num_warps=8)


def test_config_str_is_readable():
    c = Config({"XBLOCK": 64, "RBLOCK": 8}, num_warps=4, num_stages=1)
    assert str(c) == "XBLOCK=64,RBLOCK=8,num_warps=4,num_stages=1"


def test_config_is_immutable_and_kwargs_is_a_copy():
    c = Config.of(XBLOCK=64)
    with pytest.raises(AttributeError):
        c.num_warps = 8
    c.kwargs["XBLOCK"] = 1
    assert c["XBLOCK"] == 64


def test_config_json_round_trip_and_garbage_rejected():
    c = Config({"BLOCK_M": 64, "BLOCK_N": 32, "GROUP_M": 8}, num_warps=8, num_stages=3)
    assert Config.from_json(c.to_json()) == c
    assert choice_from_json(choice_to_json(c)) == c
    assert choice_from_json(choice_to_json("pad")) == "pad"
    for bad in ([1, 2], {"kwargs": [1]}, {"kwargs": {}, "num_warps": -1},
                {"kwargs": {}, "num_warps": "4"}, {"kwargs": {}, "evil": 1}):
        with pytest.raises(ValueError):
            Config.from_json(bad)


def test_launch_options_are_not_meta_parameters():
    with pytest.raises(ValueError):
        Config({"num_warps": 4})


def test_size_hint_one_leaves_nothing_to_try():
    space = ConfigSpace([Field("XBLOCK", "pow2", 1, 4096)], size_hints={"XBLOCK": 1})
    assert space.tunable_fields == []
    assert space.neighbours(Config.of(XBLOCK=1), "XBLOCK", radius=3) == []


def test_block_never_exceeds_next_power_of_two_of_size_hint():
    space = ConfigSpace.reduction(xnumel=100, rnumel=37)
    assert space.fields["XBLOCK"].hi == next_power_of_2(100) == 128
    assert space.fields["RBLOCK"].hi == 64
    assert all(c["XBLOCK"] <= 128 and c["RBLOCK"] <= 64 for c in space.all_configs())
    assert not space.valid(Config({"XBLOCK": 256, "RBLOCK": 8}, num_warps=4, num_stages=1))


def test_neighbours_of_stages_and_warps_at_radius_two():
    space = ConfigSpace([Field("XBLOCK", "pow2", 1, 1024), Field("num_warps", "pow2", 1, 32),
                         Field("num_stages", "int", 1, 6)], size_hints={"XBLOCK": 1024})
    c = Config({"XBLOCK": 64}, num_warps=2, num_stages=2)
    assert {n.num_stages for n in space.neighbours(c, "num_stages", 2)} == {1, 3, 4}
    assert {n.num_warps for n in space.neighbours(c, "num_warps", 2)} == {1, 4, 8}
    assert {n["XBLOCK"] for n in space.neighbours(c, "XBLOCK", 1)} == {32, 128}
    # only the named field moves
    assert all(n["XBLOCK"] == 64 and n.num_warps == 2 for n in space.neighbours(c, "num_stages", 2))


def test_threads_per_block_limit_caps_warps():
    space = ConfigSpace([Field("num_warps", "pow2", 1, 64)],
                        device=DeviceLimits(max_threads_per_block=512))
    assert space.fields["num_warps"].hi == 16
    assert not space.valid(Config({}, num_warps=32))


def test_block_numel_cap():
    space = ConfigSpace.reduction(4096, 4096, max_block_numel=1024)
    assert space.valid(Config({"XBLOCK": 1, "RBLOCK": 1024}, num_warps=4, num_stages=1))
    assert not space.valid(Config({"XBLOCK": 2, "RBLOCK": 1024}, num_warps=4, num_stages=1))
    assert all(c["XBLOCK"] * c["RBLOCK"] <= 1024 for c in space.all_configs())


def test_matmul_shared_memory_limit_rejects_big_tiles_with_many_stages():
    small = DeviceLimits(shared_memory_per_block=64 * 1024)
    space = ConfigSpace.matmul(4096, 4096, 4096, element_size=2, device=small)
    big = Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8},
                 num_warps=4, num_stages=4)   # (128*64*2) * 2 B * 4 stages = 128 KiB
    assert "shared memory" in space.why_invalid(big)
    assert space.valid(big.replace(num_stages=1))
    assert all(space.valid(c) for c in space.default_candidates())


def test_matmul_tiles_hold_at_most_128_accumulator_elements_per_thread():
    # 128 x 256 on 4 warps (256 per thread) spills; on 8 warps (128) it is a standard tile
    space = ConfigSpace.matmul(4096, 4096, 4096, element_size=2,
                               device=DeviceLimits(shared_memory_per_block=228 * 1024))
    wide = Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8},
                  num_warps=8, num_stages=3)
    assert space.valid(wide)
    assert "per thread" in space.why_invalid(wide.replace(num_warps=4))
    assert "per thread" in space.why_invalid(Config({**dict(wide.kwargs), "BLOCK_M": 256}, num_warps=8,
                                                    num_stages=3))
    reached = [c for f in space.tunable_fields for c in space.neighbours(wide, f, 2)]
    assert reached and all(c["BLOCK_M"] * c["BLOCK_N"] <= 128 * 32 * c.num_warps for c in reached)


def test_default_candidates_are_valid_for_each_family():
    for space in (ConfigSpace.pointwise([1000]), ConfigSpace.pointwise([64, 3000]),
                  ConfigSpace.reduction(7, 100000), ConfigSpace.matmul(100, 72, 33)):
        cands = space.default_candidates()
        assert cands and all(space.valid(c) for c in cands), space
        assert len(set(cands)) == len(cands)


def test_signature_changes_with_limits_and_is_stable():
    a, b = ConfigSpace.reduction(100, 200), ConfigSpace.reduction(100, 200)
    assert a.signature() == b.signature()
    assert a.signature() != ConfigSpace.reduction(100, 2000).signature()
    assert ConfigSpace.matmul(64, 64, 64, element_size=2).signature() != \
        ConfigSpace.matmul(64, 64, 64, element_size=4).signature()


def test_joint_neighbours_move_several_fields_at_once():
    space = ConfigSpace([Field("XBLOCK", "pow2", 1, 64), Field("RBLOCK", "pow2", 1, 64)],
                        size_hints={"XBLOCK": 64, "RBLOCK": 64})
    c = Config({"XBLOCK": 8, "RBLOCK": 8})
    joint = space.joint_neighbours(c)
    assert Config({"XBLOCK": 16, "RBLOCK": 4}) in joint
    assert len(joint) == 8  # 3x3 grid minus the centre


def test_restrict_narrows_fields_and_keeps_defaults_inside():
    space = ConfigSpace.reduction(4096, 4096).restrict(XBLOCK=(1, 8), num_warps=(4, 4))
    assert space.tunable_fields == ["XBLOCK", "RBLOCK"]
    assert all(c["XBLOCK"] <= 8 and c.num_warps == 4 for c in space.all_configs())
    assert all(space.valid(c) for c in space.default_candidates())
    with pytest.raises(ValueError):
        space.restrict(BLOCK_Q=(1, 2))
