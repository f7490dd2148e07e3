"""tuner.autotune on real Triton kernels under the interpreter (CPU tensors, small shapes)."""
import json
import os
import subprocess
import sys

import pytest
import torch
import triton

import _kernels as K
import tuner
from tuner.autotuner import Autotuned, to_config
from tuner.space import Config, ConfigSpace

HERE = os.path.dirname(__file__)


def fresh(kernel, **kw):
    """A new decorator instance (no in-memory answers) over a raw kernel."""
    return tuner.autotune(**kw)(kernel)


def test_pointwise_add_matches_eager_and_picks_a_listed_config():
    add = fresh(K.add_kernel, configs=K.ADD_CONFIGS, key=["n"])
    x, y, out = torch.randn(100), torch.randn(100), torch.empty(100)
    add[K.add_grid](x, y, out, 100)
    torch.testing.assert_close(out, x + y)
    d = add.last_decision
    assert d.source == "exhaustive" and d.n_measured == 3 and add.best_config in K.ADD_CONFIGS
    assert set(add.configs_timings) == set(K.ADD_CONFIGS)


def test_row_sum_reduction_with_coordinate_descent_matches_eager():
    rows, cols = 6, 40
    x, out = torch.randn(rows, cols), torch.empty(rows)
    K.row_sum.cache.clear()
    K.row_sum[K.row_sum_grid](x, out, rows, cols)
    torch.testing.assert_close(out, x.sum(1), rtol=1e-5, atol=1e-5)
    d = K.row_sum.last_decision
    assert d.source == "coordinate_descent" and d.n_measured > 2
    space = ConfigSpace.reduction(rows, cols)
    assert all(space.valid(c) for c, _ in d.timings if c not in K.row_sum.configs)


def test_second_launch_same_key_uses_the_in_process_answer_and_a_new_key_retunes():
    add = fresh(K.add_kernel, configs=K.ADD_CONFIGS, key=["n"])
    for n in (32, 32):
        x, y, out = torch.randn(n), torch.randn(n), torch.empty(n)
        add[K.add_grid](x, y, out, n)
    assert len(add.cache) == 1
    x, y, out = torch.randn(48), torch.randn(48), torch.empty(48)
    add[K.add_grid](x, y, out, 48)
    assert len(add.cache) == 2 and add.last_decision.n_measured == 3


def test_a_second_process_hits_the_persistent_cache_and_measures_nothing():
    ok, source, measured, choice = K.run_add(80)
    assert ok and source == "exhaustive" and measured == 3
    env = dict(os.environ, TRITON_INTERPRET="1")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "_kernels.py"), "80"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    ok2, source2, measured2, choice2 = json.loads(proc.stdout.strip().splitlines()[-1])
    assert ok2 and source2 == "cache" and measured2 == 0 and choice2 == choice


def test_a_failing_config_scores_inf_and_the_others_still_win():
    # XBLOCK=3 is not a power of two: tl.arange rejects it, the config fails to build
    configs = [Config({"XBLOCK": 3}, num_warps=1, num_stages=1)] + K.ADD_CONFIGS[:2]
    add = fresh(K.add_kernel, configs=configs, key=["n"])
    x, y, out = torch.randn(64), torch.randn(64), torch.empty(64)
    add[K.add_grid](x, y, out, 64)
    torch.testing.assert_close(out, x + y)
    assert add.configs_timings[configs[0]] == float("inf")
    assert add.best_config in configs[1:]


def test_restore_value_keeps_an_in_place_kernel_applied_once():
    add = fresh(K.add_inplace_kernel, configs=K.ADD_CONFIGS, key=["n"], restore_value=["x_ptr"])
    x, y = torch.randn(64), torch.randn(64)
    expected = x + y
    add[K.add_grid](x, y, 64)
    torch.testing.assert_close(x, expected)
    assert add.last_decision.n_measured == 3


def test_reset_to_zero_keeps_an_accumulating_kernel_correct():
    k = fresh(K.atomic_sum_kernel, configs=K.ADD_CONFIGS, key=["n"], reset_to_zero=["out_ptr"])
    x, out = torch.randn(64), torch.zeros(1)
    k[K.add_grid](x, out, 64)
    torch.testing.assert_close(out[0], x.sum(), rtol=1e-5, atol=1e-5)


def test_triton_configs_are_accepted():
    cfgs = [triton.Config({"XBLOCK": 32}, num_warps=2, num_stages=1),
            triton.Config({"XBLOCK": 128}, num_warps=4, num_stages=2)]
    add = fresh(K.add_kernel, configs=cfgs, key=["n"])
    x, y, out = torch.randn(50), torch.randn(50), torch.empty(50)
    add[K.add_grid](x, y, out, 50)
    torch.testing.assert_close(out, x + y)
    assert any(add.best_config is c for c in cfgs)  # the user's object comes back
    assert to_config(cfgs[1]) == Config({"XBLOCK": 128}, num_warps=4, num_stages=2)


def test_space_only_search_and_budget():
    add = fresh(K.add_kernel, key=["n"], search="budgeted",
                space=lambda args: ConfigSpace.pointwise([args["n"]]),
                search_options={"max_measurements": 4})
    x, y, out = torch.randn(40), torch.randn(40), torch.empty(40)
    add[K.add_grid](x, y, out, 40)
    torch.testing.assert_close(out, x + y)
    d = add.last_decision
    assert d.source == "budgeted" and d.n_measured == 4
    assert all(c["XBLOCK"] <= 64 for c, _ in d.timings)  # size hint 40 -> at most 64


def test_early_config_prune_and_perf_model():
    seen = []

    def prune(configs, named_args, **kwargs):
        seen.append(named_args["n"])
        return [c for c in configs if c.kwargs["XBLOCK"] >= 64]
    add = fresh(K.add_kernel, configs=K.ADD_CONFIGS, key=["n"],
                prune_configs_by={"early_config_prune": prune,
                                  "perf_model": lambda **kw: -kw["XBLOCK"], "top_k": 1})
    x, y, out = torch.randn(64), torch.randn(64), torch.empty(64)
    add[K.add_grid](x, y, out, 64)
    assert seen == [64] and add.best_config["XBLOCK"] == 256
    assert add.last_decision is None  # one config left: nothing measured


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="not arguments"):
        fresh(K.add_kernel, configs=K.ADD_CONFIGS, key=["size"])
    with pytest.raises(ValueError, match="configs=, space="):
        fresh(K.add_kernel, key=["n"])
    with pytest.raises(ValueError, match="unknown search strategy"):
        fresh(K.add_kernel, configs=K.ADD_CONFIGS, key=["n"], search="random")
    add = fresh(K.add_kernel, configs=K.ADD_CONFIGS, key=["n"])
    with pytest.raises(ValueError, match="tuned by the autotuner"):
        add[K.add_grid](torch.randn(8), torch.randn(8), torch.empty(8), 8, XBLOCK=8)


def test_tuner_autotune_stays_the_decorator_after_importing_its_module():
    import tuner.autotuner as mod
    assert tuner.autotune is mod.autotune
    assert isinstance(tuner.autotune(configs=K.ADD_CONFIGS, key=["n"])(K.add_kernel), Autotuned)


@pytest.mark.slow
def test_isolated_benchmarking_in_a_worker_process():
    add = K.add  # module level: the worker loads it by name
    saved = add.isolate
    add.isolate, add.cache = True, {}
    try:
        x, y, out = torch.randn(24), torch.randn(24), torch.empty(24)
        add[K.add_grid](x, y, out, 24)
        torch.testing.assert_close(out, x + y)
        assert add.last_decision.n_measured == 3
        assert all(t < float("inf") for t in add.configs_timings.values())
    finally:
        add.isolate, add.cache = saved, {}
        if add._runner is not None:
            add._runner.close()
            add._runner = None


def test_coordinate_descent_compiles_each_sweep_in_parallel_threads(monkeypatch):
    import threading

    from tuner import bench
    rows, cols = 6, 40
    kernel = fresh(K.row_sum_kernel, key=["rows", "cols"], search="coordinate_descent",
                   space=ConfigSpace.reduction(rows, cols).restrict(num_warps=(1, 2)))
    batches, threads, real = [], set(), bench.compile_all
    warmup = kernel.fn.warmup

    def spy_compile_all(compile_one, candidates, **kw):
        batches.append(list(candidates))
        return real(compile_one, candidates, workers=4)

    def spy_warmup(*a, **kw):
        threads.add(threading.current_thread().name)
        return warmup(*a, **kw)
    monkeypatch.setattr(bench, "compile_all", spy_compile_all)
    monkeypatch.setattr(kernel.fn, "warmup", spy_warmup)
    x, out = torch.randn(rows, cols), torch.empty(rows)
    kernel[K.row_sum_grid](x, out, rows, cols)
    torch.testing.assert_close(out, x.sum(1), rtol=1e-5, atol=1e-5)
    d = kernel.last_decision
    assert d.source == "coordinate_descent" and len(batches) > 2
    assert {c for c, _ in d.timings} <= {c for b in batches for c in b}
    assert any(name.startswith("tuner-compile") for name in threads)
