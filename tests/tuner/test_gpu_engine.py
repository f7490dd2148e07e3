"""On a CUDA GPU (`-m gpu`): compiled kernels, CUDA-event timing, and coordinate descent landing
within noise of the exhaustive best. Kernels are built inside the tests, after the interpreter
is switched off (the CPU tests of this folder turn it on)."""
import math

import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def compiled(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    monkeypatch.setenv("TUNER_BENCH_REPS", "25")
    monkeypatch.setenv("TUNER_BENCH_WARMUP", "5")
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, XBLOCK: tl.constexpr):
        offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

    @triton.jit
    def row_sum_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
        row = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
        acc = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
        for start in range(0, cols, RBLOCK):
            col = start + tl.arange(0, RBLOCK)[None, :]
            acc += tl.load(x_ptr + row * cols + col, mask=(row < rows) & (col < cols), other=0.0)
        tl.store(out_ptr + row, tl.sum(acc, axis=1)[:, None], mask=row < rows)

    return torch, triton, add_kernel, row_sum_kernel


def test_cuda_benchmark_times_the_gpu_not_the_host(compiled):
    # 300 us of host work per call around one tiny kernel: without the GPU run-ahead the
    # events wait on the host and time about 0.3 ms (what pad_mm's padding path did, at
    # whatever speed the host had that minute); with it, every run is queued first
    torch, *_ = compiled
    import time
    from tuner import bench
    x = torch.zeros(1 << 12, device="cuda")

    def slow_host():
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 3e-4:
            pass
        x.add_(1)
    ms = bench.benchmark(slow_host, warmup=2, reps=20)
    assert 0 < ms < 0.05, ms
    assert x[0].item() == 2 + 1 + 20     # warm-up, the untimed host measurement, the reps


def _tuned(kernel, **kw):
    import tuner
    return tuner.autotune(key=[], **kw)(kernel)


def test_cuda_benchmark_times_a_kernel(compiled):
    torch, triton, add_kernel, _ = compiled
    from tuner import bench
    n = 1 << 22
    x, y, out = (torch.randn(n, device="cuda") for _ in range(3))
    ms = bench.benchmark(lambda: add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, XBLOCK=1024))
    assert 0 < ms < 100
    torch.testing.assert_close(out, x + y)


def test_coordinate_descent_matches_exhaustive_best_within_noise(compiled):
    torch, triton, _, row_sum_kernel = compiled
    from tuner import bench
    from tuner.space import ConfigSpace
    rows, cols = 8192, 2048
    x, out = torch.randn(rows, cols, device="cuda"), torch.empty(rows, device="cuda")
    space = ConfigSpace.reduction(rows, cols).restrict(XBLOCK=(1, 32), RBLOCK=(64, 2048),
                                                        num_warps=(2, 16))
    grid = lambda m: (triton.cdiv(m["rows"], m["XBLOCK"]),)  # noqa: E731
    ex = _tuned(row_sum_kernel, configs=list(space.all_configs()), search="exhaustive")
    ex[grid](x, out, rows, cols)
    torch.testing.assert_close(out, x.sum(1), rtol=1e-4, atol=1e-3)
    cd = _tuned(row_sum_kernel, configs=space.default_candidates(), search="coordinate_descent",
                space=space)
    cd[grid](x, out, rows, cols)
    torch.testing.assert_close(out, x.sum(1), rtol=1e-4, atol=1e-3)
    assert cd.last_decision.n_measured < ex.last_decision.n_measured

    def t(c):
        return bench.benchmark(lambda: row_sum_kernel[grid](x, out, rows, cols, **c.all_kwargs()),
                               reps=100, warmup=10)
    best_ex, best_cd = t(ex.best_config), t(cd.best_config)
    assert best_cd <= best_ex * 1.05, (cd.best_config, best_cd, ex.best_config, best_ex)


def test_config_that_cannot_compile_scores_inf_and_tuning_goes_on(compiled):
    torch, triton, _, row_sum_kernel = compiled
    from tuner.space import Config
    rows, cols = 1024, 1024
    x, out = torch.randn(rows, cols, device="cuda"), torch.empty(rows, device="cuda")
    # 2M elements per block: over Triton's tensor size limit, rejected at compile time
    too_big = Config({"XBLOCK": 2048, "RBLOCK": 1024}, num_warps=1, num_stages=1)
    good = Config({"XBLOCK": 4, "RBLOCK": 256}, num_warps=4, num_stages=1)
    k = _tuned(row_sum_kernel, configs=[too_big, good], search="exhaustive")
    k[lambda m: (triton.cdiv(m["rows"], m["XBLOCK"]),)](x, out, rows, cols)
    torch.testing.assert_close(out, x.sum(1), rtol=1e-4, atol=1e-3)
    assert k.best_config == good and math.isinf(k.configs_timings[too_big])
