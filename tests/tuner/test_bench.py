"""The benchmarker: repetitions and setup, restored arguments, non-zero inputs, parallel
compilation, isolated workers, and the Triton seam."""
import math

import pytest
import torch

import _isolation_targets as targets
from tuner import bench


def test_benchmark_runs_warmup_and_reps_with_setup_before_each():
    log = []
    ms = bench.benchmark(lambda: log.append("run"), setup=lambda: log.append("setup"),
                         warmup=2, reps=3, device="cpu")
    assert log == ["setup", "run"] * 5
    assert math.isfinite(ms) and ms >= 0


def test_benchmark_reads_reps_from_settings(monkeypatch):
    monkeypatch.setenv("TUNER_BENCH_REPS", "4")
    monkeypatch.setenv("TUNER_BENCH_WARMUP", "1")
    calls = []
    bench.benchmark(lambda: calls.append(1), device="cpu")
    assert len(calls) == 5


def test_bench_lock_keeps_timings_of_sharing_workers_apart(tmp_path, monkeypatch):
    # two workers timing at once on one device: with TUNER_BENCH_LOCK set, all of one
    # benchmark's runs happen before or after all of the other's, never interleaved
    import threading
    import time
    monkeypatch.setenv("TUNER_BENCH_LOCK", str(tmp_path / "gpu.lock"))
    runs = []

    def worker(name):
        def fn():
            runs.append(name)
            time.sleep(0.003)
        bench.benchmark(fn, warmup=2, reps=8, device="cpu")

    threads = [threading.Thread(target=worker, args=(n,)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(runs) == ["a"] * 10 + ["b"] * 10
    switches = sum(x != y for x, y in zip(runs, runs[1:]))
    assert switches == 1, runs


def test_a_benchmark_inside_a_timed_function_does_not_wait_for_its_own_lock(tmp_path, monkeypatch):
    # a launcher that tunes on its first call benchmarks inside the outer benchmark's run
    import threading
    monkeypatch.setenv("TUNER_BENCH_LOCK", str(tmp_path / "gpu.lock"))
    done = []

    def outer():
        bench.benchmark(lambda: bench.benchmark(lambda: None, warmup=0, reps=1, device="cpu"),
                        warmup=0, reps=2, device="cpu")
        done.append(1)
    t = threading.Thread(target=outer, daemon=True)
    t.start()
    t.join(20)
    assert done == [1]


def test_snapshot_restores_mutated_arguments_between_runs():
    x = torch.arange(4.0)
    snap = bench.Snapshot([x, None])
    results = []

    def inplace_kernel():
        x.add_(1)
        results.append(x.clone())
    bench.benchmark(inplace_kernel, setup=snap.restore, warmup=1, reps=3, device="cpu")
    assert all(torch.equal(r, torch.arange(4.0) + 1) for r in results)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32,
                                   torch.int64, torch.uint8, torch.bool])
def test_random_like_is_never_zero_and_keeps_layout(dtype):
    t = torch.zeros(64, 33, dtype=dtype).t()  # non-contiguous
    r = bench.random_like(t)
    assert r.shape == t.shape and r.stride() == t.stride() and r.dtype == dtype
    assert bool((r != 0).all())


def test_rand_args_replaces_tensors_and_is_seeded():
    args = [torch.zeros(8), 5, "x"]
    a, b = bench.rand_args(args, seed=1), bench.rand_args(args, seed=1)
    assert torch.equal(a[0], b[0]) and a[1:] == [5, "x"] and bool((a[0] != 0).all())


def test_compile_all_reports_each_candidates_error():
    def compile_one(c):
        if c % 2:
            raise ValueError(f"bad {c}")
    errors = bench.compile_all(compile_one, list(range(6)), workers=3)
    assert set(errors) == set(range(6))
    assert [c for c, e in sorted(errors.items()) if e is not None] == [1, 3, 5]
    assert isinstance(errors[1], ValueError)


def test_isolated_runner_scores_crash_hang_and_error_as_inf_and_keeps_going():
    with bench.IsolatedRunner(timeout_s=3) as runner:
        assert runner.benchmark(targets.fast, 1.5) == 1.5
        assert runner.benchmark(targets.crash) == math.inf
        assert runner.benchmark(targets.fast, 2.5) == 2.5   # a fresh worker after the crash
        assert runner.benchmark(targets.hang) == math.inf
        assert runner.benchmark(targets.fail) == math.inf
        assert runner.benchmark(targets.fast, 0.5) == 0.5
    assert any("timed out" in f for f in runner.failures)
    assert any("died" in f for f in runner.failures)


def test_score_normalises_failures():
    assert bench.score(1.5) == 1.5 and bench.score([2.0, 1.0, 3.0]) == 2.0
    assert bench.score(float("nan")) == math.inf and bench.score(None) == math.inf
    assert bench.score(-1) == math.inf


def test_invalid_config_errors_include_out_of_resources():
    from triton.runtime.errors import OutOfResources
    assert OutOfResources in bench.invalid_config_errors()


def test_kernel_source_hash_is_stable_and_tells_kernels_apart():
    import _kernels
    a = bench.kernel_source_hash(_kernels.add_kernel)
    assert a == bench.kernel_source_hash(_kernels.add_kernel)
    assert a == bench.kernel_source_hash(_kernels.add)  # through the autotune wrapper
    assert a != bench.kernel_source_hash(_kernels.row_sum_kernel)
    assert bench.kernel_name(_kernels.add) == "add_kernel"
    assert bench.kernel_arg_names(_kernels.add_kernel) == ["x_ptr", "y_ptr", "out_ptr", "n", "XBLOCK"]


def test_spill_check_reads_the_compiled_kernel():
    class Compiled:
        n_spills = 40

        def _init_handles(self):
            pass
    assert bench.too_many_spills(Compiled()) and not bench.too_many_spills(None)
