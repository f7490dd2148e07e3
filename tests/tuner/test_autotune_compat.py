"""tuner.autotune behaves as triton.autotune does (issue 19), pinned on the interpreter.

Tests parametrized with `impl` run the same scenario through Triton's stock decorator and
through ours, so a difference from stock shows as a one-sided failure. Stock needs an explicit
do_bench here (its default timer asks the GPU driver). Tests without `impl` pin behaviour stock
does not have (defaults bound by signature, the persistent cache) or cannot show on the
interpreter (its listener looks for a JITFunction).
"""
import warnings

import pytest
import torch
import triton
import triton.language as tl

import _kernels as K
import tuner

N = 64


def once(fn, quantiles=None):
    """A do_bench that runs the candidate once and reports 1 ms."""
    fn()
    return [1.0, 1.0, 1.0]


def scripted(times):
    """A do_bench that runs the candidate once and reports the next of `times` (ms)."""
    it = iter(times)

    def do_bench(fn, quantiles=None):
        fn()
        t = next(it)
        return [t, t, t]
    return do_bench


@pytest.fixture(params=["stock", "tuner"])
def impl(request):
    return triton.autotune if request.param == "stock" else tuner.autotune


def grid(meta):
    return (triton.cdiv(meta["n"], meta["XBLOCK"]),)


CONFIGS = [triton.Config({"XBLOCK": 16}, num_warps=1, num_stages=1),
           triton.Config({"XBLOCK": 32}, num_warps=1, num_stages=1),
           triton.Config({"XBLOCK": 64}, num_warps=2, num_stages=1)]


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, SCALE: tl.constexpr = 2, XBLOCK: tl.constexpr = 16):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)


@triton.jit
def maybe_fill_kernel(src, dst, n, XBLOCK: tl.constexpr):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    mask = offs < n
    if src is not None:
        tl.store(src + offs, tl.load(src + offs, mask=mask) + 1.0, mask=mask)
    else:
        tl.store(dst + offs, tl.full([XBLOCK], 1.0, tl.float32), mask=mask)


# ---- arguments bound by name


def test_reset_to_zero_of_a_keyword_argument_leaves_one_runs_result(impl):
    # the case the stock suite lacks: an accumulating kernel, the buffer passed by keyword
    k = impl(configs=CONFIGS, key=["n"], reset_to_zero=["out_ptr"], do_bench=once)(
        K.atomic_sum_kernel)
    x, out = torch.randn(N), torch.zeros(1)
    k[grid](x, out_ptr=out, n=N)
    torch.testing.assert_close(out[0], x.sum(), rtol=1e-5, atol=1e-5)


def test_reset_to_zero_of_a_keyword_argument_with_the_tuners_own_timer():
    k = tuner.autotune(configs=CONFIGS, key=["n"], reset_to_zero=["out_ptr"])(K.atomic_sum_kernel)
    x, out = torch.randn(N), torch.zeros(1)
    k[grid](x, n=N, out_ptr=out)
    assert k.last_decision.n_measured == 3
    torch.testing.assert_close(out[0], x.sum(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("by_keyword", [False, True])
def test_restore_value_of_an_argument_passed_either_way(impl, by_keyword):
    k = impl(configs=CONFIGS, key=["n"], restore_value=["x_ptr"], do_bench=once)(
        K.add_inplace_kernel)
    x, y = torch.randn(N), torch.randn(N)
    expected = x + y
    if by_keyword:
        k[grid](y_ptr=y, x_ptr=x, n=N)
    else:
        k[grid](x, y, N)
    torch.testing.assert_close(x, expected)


@pytest.mark.parametrize("by_keyword", [False, True])
def test_none_arguments_are_skipped_by_reset_and_restore(impl, by_keyword):
    k = impl(configs=CONFIGS, key=["n"], reset_to_zero=["src"], restore_value=["src"],
             do_bench=once)(maybe_fill_kernel)
    dst = torch.full((N,), 5.0)
    if by_keyword:
        k[grid](src=None, dst=dst, n=N)
    else:
        k[grid](None, dst, N)
    torch.testing.assert_close(dst, torch.ones(N))


def test_keys_hooks_and_resets_bind_keywords_and_defaults_as_the_signature_does():
    seen = []
    k = tuner.autotune(configs=CONFIGS, key=["n", "SCALE"], reset_to_zero=["out_ptr"],
                       pre_hook=lambda args, reset_only=False: seen.append(dict(args)),
                       do_bench=once)(scale_kernel)
    x, out = torch.randn(N), torch.empty(N)
    k[grid](x, out, N)                     # SCALE from its default
    torch.testing.assert_close(out, 2 * x)
    k[grid](x, out_ptr=out, n=N, SCALE=2)  # the same key, spelled by keyword
    k[grid](out_ptr=out, x_ptr=x, n=N)
    assert len(k.cache) == 1
    k[grid](x, out, N, SCALE=3)
    torch.testing.assert_close(out, 3 * x)
    assert len(k.cache) == 2
    assert all({"x_ptr", "out_ptr", "n", "SCALE", "XBLOCK", "num_warps"} <= set(a) for a in seen)
    assert {a["SCALE"] for a in seen} == {2, 3}
    assert {a["XBLOCK"] for a in seen} == {16, 32, 64}  # the config's value, not the default


def test_post_hook_sees_keyword_arguments_and_the_config(impl):
    got = []
    k = impl(configs=CONFIGS, key=["n"], do_bench=once,
             post_hook=lambda args, exception: got.append((args["out_ptr"], args["XBLOCK"],
                                                           exception)))(K.add_kernel)
    x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
    k[grid](x, y, out_ptr=out, n=N)
    assert [(o is out, b, e) for o, b, e in got] == [(True, 16, None), (True, 32, None),
                                                     (True, 64, None)]


# ---- the user's config objects, end to end


def test_prune_callbacks_best_config_timings_and_cache_hold_the_users_objects(impl):
    configs = [triton.Config({"XBLOCK": 8}, num_warps=1, num_stages=1),
               triton.Config({"XBLOCK": 16}, num_warps=1, num_stages=1, num_ctas=1),
               triton.Config({"XBLOCK": 32}, num_warps=1, num_stages=1, num_ctas=2),
               triton.Config({"XBLOCK": 64}, num_warps=1, num_stages=1, maxnreg=128)]
    pruned_with, modelled = [], []

    def early(cfgs, named_args, **kwargs):
        pruned_with.append((list(cfgs), dict(named_args), dict(kwargs)))
        return cfgs[1:]

    def model(**kw):
        modelled.append(kw)
        return -kw["XBLOCK"]

    k = impl(configs=configs, key=["n"], do_bench=scripted([2.0, 1.0]),
             prune_configs_by={"early_config_prune": early, "perf_model": model, "top_k": 2})(
        K.add_kernel)
    x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
    k[grid](x, y, out, n=N)
    torch.testing.assert_close(out, x + y)
    (cfgs, named, kwargs), = pruned_with
    assert all(a is b for a, b in zip(cfgs, configs))
    # as stock splits them: positional arguments by name; keywords, with the launch's grid
    assert set(named) == {"x_ptr", "y_ptr", "out_ptr"}
    assert kwargs == {"n": N, "grid": grid, "warmup": False}
    assert sorted((m["XBLOCK"], m["num_ctas"], m.get("maxnreg")) for m in modelled) == \
        [(16, 1, None), (32, 2, None), (64, 1, 128)]
    assert k.best_config is configs[2]             # 64 measured first (perf model), then 32
    assert all(any(c is u for u in configs) for c in k.configs_timings)
    assert len(k.configs_timings) == 2
    assert next(iter(k.cache.values())) is configs[2]


def test_configs_differing_only_in_launch_fields_stay_distinct_and_reach_the_launch(
        impl, monkeypatch):
    configs = [triton.Config({"XBLOCK": 32}, num_warps=1, num_stages=1),
               triton.Config({"XBLOCK": 32}, num_warps=1, num_stages=1, num_ctas=2),
               triton.Config({"XBLOCK": 32}, num_warps=1, num_stages=1, maxnreg=64),
               triton.Config({"XBLOCK": 32}, num_warps=1, num_stages=1, ir_override="k.ttir")]
    raw = K.add_kernel
    launches = []
    real_run = raw.run

    def spy(*args, **kwargs):
        launches.append({k: kwargs.get(k) for k in ("num_ctas", "maxnreg", "ir_override")})
        return real_run(*args, **kwargs)
    monkeypatch.setattr(raw, "run", spy)
    k = impl(configs=configs, key=["n"], do_bench=scripted([4.0, 1.0, 3.0, 2.0]))(raw)
    x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
    k[grid](x, y, out, N)
    torch.testing.assert_close(out, x + y)
    assert len(k.configs_timings) == 4
    assert k.best_config is configs[1]
    assert launches[-1] == {"num_ctas": 2, "maxnreg": None, "ir_override": None}
    assert {"num_ctas": 1, "maxnreg": 64, "ir_override": None} in launches
    assert {"num_ctas": 1, "maxnreg": None, "ir_override": "k.ttir"} in launches


def test_configs_differing_only_in_pre_hook_stay_distinct(impl):
    calls = []
    configs = [triton.Config({"XBLOCK": 32}, num_warps=1, num_stages=1,
                             pre_hook=lambda args: calls.append("a")),
               triton.Config({"XBLOCK": 32}, num_warps=1, num_stages=1,
                             pre_hook=lambda args: calls.append("b"))]
    k = impl(configs=configs, key=["n"], do_bench=scripted([2.0, 1.0]))(K.add_kernel)
    x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
    k[grid](x, y, out, N)
    assert len(k.configs_timings) == 2 and k.best_config is configs[1]
    assert calls == ["a", "b", "b"]  # each while timed, then the winner's before the launch


def test_configs_found_in_a_space_come_back_as_triton_configs():
    from tuner.autotuner import LAUNCH_PREFIX
    from tuner.space import ConfigSpace
    k = tuner.autotune(configs=[triton.Config({"XBLOCK": 16}, num_warps=1, num_stages=1,
                                              num_ctas=2)],
                       key=["n"], search="coordinate_descent",
                       space=lambda args: ConfigSpace.pointwise([args["n"]]))(K.add_kernel)
    x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
    k[grid](x, y, out, N)
    torch.testing.assert_close(out, x + y)
    assert all(isinstance(c, triton.Config) for c in k.configs_timings)
    assert all(not any(n.startswith(LAUNCH_PREFIX) for n in c.kwargs) for c in k.configs_timings)
    assert isinstance(k.best_config, triton.Config)
    assert len(k.configs_timings) > 1


# ---- errors


class Boom(Exception):
    pass


def test_an_error_in_a_user_hook_propagates(impl):
    def pre(args, reset_only=False):
        raise Boom("from the hook")
    k = impl(configs=CONFIGS, key=["n"], pre_hook=pre, do_bench=once)(K.add_kernel)
    with pytest.raises(Boom, match="from the hook"):
        k[grid](torch.randn(N), torch.randn(N), torch.empty(N), N)


def test_an_error_in_do_bench_propagates(impl):
    def bad(fn, quantiles=None):
        raise Boom("timer")
    k = impl(configs=CONFIGS, key=["n"], do_bench=bad)(K.add_kernel)
    with pytest.raises(Boom, match="timer"):
        k[grid](torch.randn(N), torch.randn(N), torch.empty(N), N)


def test_an_error_in_the_post_hook_propagates_and_restores_nothing_silently():
    def post(args, exception):
        raise Boom("post")
    k = tuner.autotune(configs=CONFIGS, key=["n"], post_hook=post)(K.add_kernel)
    with pytest.raises(Boom, match="post"):
        k[grid](torch.randn(N), torch.randn(N), torch.empty(N), N)
    assert not k.cache


def test_out_of_resources_scores_inf_and_the_others_still_win(impl):
    from triton.runtime.errors import OutOfResources

    def too_big(args):
        raise OutOfResources(1 << 20, 1 << 16, "shared memory")
    configs = [triton.Config({"XBLOCK": 16}, num_warps=1, num_stages=1, pre_hook=too_big),
               triton.Config({"XBLOCK": 32}, num_warps=1, num_stages=1)]
    k = impl(configs=configs, key=["n"], do_bench=once)(K.add_kernel)
    x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
    k[grid](x, y, out, N)
    torch.testing.assert_close(out, x + y)
    assert k.best_config is configs[1]
    assert k.configs_timings[configs[0]] == [float("inf")] * 3


def test_a_config_the_interpreter_rejects_scores_inf_and_the_post_hook_sees_why():
    # the interpreter's stand-in for a compile error (XBLOCK=3: not a power of two)
    errors = []
    configs = [triton.Config({"XBLOCK": 3}, num_warps=1, num_stages=1), CONFIGS[1]]
    k = tuner.autotune(configs=configs, key=["n"],
                       post_hook=lambda args, exception: errors.append(exception))(K.add_kernel)
    x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
    k[grid](x, y, out, N)
    torch.testing.assert_close(out, x + y)
    assert k.best_config is configs[1] and k.configs_timings[configs[0]] == float("inf")
    assert isinstance(errors[0], triton.TritonError)


def test_pruning_every_config_raises_tritons_autotuner_error(impl):
    k = impl(configs=CONFIGS, key=["n"], do_bench=once,
             prune_configs_by={"early_config_prune": lambda configs, named, **kw: []})(
        K.add_kernel)
    with pytest.raises(triton.TritonError, match="pruning") as e:
        k[grid](torch.randn(N), torch.randn(N), torch.empty(N), N)
    assert type(e.value).__name__ == "AutotunerError"


def test_a_top_k_that_is_not_a_number_is_a_type_error(impl):
    k = impl(configs=CONFIGS, key=["n"], do_bench=once,
             prune_configs_by={"perf_model": lambda **kw: 0, "top_k": "2"})(K.add_kernel)
    with pytest.raises(TypeError):
        k[grid](torch.randn(N), torch.randn(N), torch.empty(N), N)


def test_a_tuned_meta_parameter_passed_at_launch_is_a_value_error(impl):
    k = impl(configs=CONFIGS, key=["n"], do_bench=once)(K.add_kernel)
    with pytest.raises(ValueError):
        k[grid](torch.randn(N), torch.randn(N), torch.empty(N), N, XBLOCK=16)


# ---- options and call counts


def test_user_pre_hook_is_called_with_reset_only_once_after_tuning(impl):
    calls = []
    k = impl(configs=CONFIGS, key=["n"], do_bench=once,
             pre_hook=lambda args, reset_only=False: calls.append((args["XBLOCK"], reset_only)),
             post_hook=lambda args, exception: calls.append(("post", exception)))(K.add_kernel)
    x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
    k[grid](x, y, out, N)
    assert calls[:6] == [(16, False), ("post", None), (32, False), ("post", None),
                         (64, False), ("post", None)]
    assert calls[6:] == [(k.best_config.kwargs["XBLOCK"], True)]
    k[grid](x, y, out, N)  # the same key: no tuning, no hook
    assert len(calls) == 7


def test_do_bench_is_the_timer_and_its_results_are_the_timings(impl):
    k = impl(configs=CONFIGS, key=["n"], do_bench=scripted([3.0, 1.0, 2.0]))(K.add_kernel)
    k[grid](torch.randn(N), torch.randn(N), torch.empty(N), N)
    assert k.best_config is CONFIGS[1]
    assert k.configs_timings == {CONFIGS[0]: [3.0] * 3, CONFIGS[1]: [1.0] * 3,
                                 CONFIGS[2]: [2.0] * 3}


def test_one_config_is_launched_without_tuning(impl):
    def never(fn, quantiles=None):
        raise AssertionError("a single config is not benchmarked")
    k = impl(configs=CONFIGS[:1], key=["n"], do_bench=never)(K.add_kernel)
    x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
    k[grid](x, y, out, N)
    torch.testing.assert_close(out, x + y)
    assert k.best_config is CONFIGS[0]


def _runs_per_config(**options):
    runs = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k = tuner.autotune(configs=CONFIGS[:2], key=["n"], cache_results=False,
                           post_hook=lambda args, exception: runs.append(args["XBLOCK"]),
                           **options)(K.add_kernel)
    x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
    k[grid](x, y, out, N)
    torch.testing.assert_close(out, x + y)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    return runs.count(16)


def test_warmup_and_rep_in_ms_set_how_often_a_config_runs_on_cpu():
    few = _runs_per_config(warmup=0, rep=0)       # one estimate run, one timed run
    many = _runs_per_config(warmup=0, rep=200)    # as many as fit in 0.2 s
    assert few == 2 and many > few


def test_use_cuda_graph_without_cuda_still_tunes():
    assert _runs_per_config(use_cuda_graph=True, rep=0) >= 2


def test_cache_results_false_tunes_without_the_persistent_cache():
    def run(**options):
        k = tuner.autotune(configs=CONFIGS, key=["n"], **options)(K.add_kernel)
        k[grid](torch.randn(N), torch.randn(N), torch.empty(N), N)
        return k.last_decision.source
    assert run() == "exhaustive"
    assert run() == "cache"                              # default: the persistent cache
    assert run(cache_results=True) == "cache"
    assert run(cache_results=False) == "exhaustive"      # as triton: this process only


knobs = getattr(triton, "knobs", None)


@pytest.mark.skipif(getattr(knobs, "autotuning", None) is None,
                    reason="this Triton has no knobs.autotuning")
def test_knobs_listener_and_print_are_honoured(capsys):
    heard = []
    with knobs.autotuning.scope():
        knobs.autotuning.listener = lambda **kw: heard.append(kw)
        knobs.autotuning.print = True
        k = tuner.autotune(configs=CONFIGS, key=["n"], do_bench=once)(K.add_kernel)
        x, y, out = torch.randn(N), torch.randn(N), torch.empty(N)
        k[grid](x, y, out, N)
        k[grid](x, y, out, N)           # answered in process: nothing heard
        single = tuner.autotune(configs=CONFIGS[:1], key=["n"])(K.add_kernel)
        single[grid](x, y, out, N)      # nothing to tune: nothing heard
    printed = capsys.readouterr().out
    assert len(heard) == 1
    h = heard[0]
    assert h["best_config"] is k.best_config and h["configs_timings"] is k.configs_timings
    assert h["key"] == (N, "torch.float32", "torch.float32", "torch.float32")
    assert h["cache_hit"] is False and h["duration"] >= 0
    assert h["fn"] is tuner.bench.unwrap_kernel(K.add_kernel)
    assert printed.count("Autotuning kernel add_kernel with config") == 3
    assert "best config selected" in printed
