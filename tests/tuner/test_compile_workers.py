"""Compile worker processes (tuner.compile_workers): the pool's protocol and failure handling on
the CPU with stand-in kernels (an object with a `warmup` method in a file), and on the GPU a real
Triton kernel compiled in a worker that the caller then finds in Triton's on-disk cache."""
import os
import textwrap

import pytest

from tuner import bench, compile_workers as cw

STAND_IN = textwrap.dedent('''
    import json, os

    class K:
        def warmup(self, *args, grid, **kwargs):
            with open(os.environ["TUNER_TEST_MARK"], "a") as f:
                f.write(json.dumps({"pid": os.getpid(), "args": list(args), "grid": list(grid),
                                    "kwargs": kwargs,
                                    "cache": os.environ.get("TRITON_CACHE_DIR")}) + "\\n")
            if kwargs.get("die"):
                os._exit(3)
            if kwargs.get("fail"):
                raise ValueError("this config does not build")

    k = K()

    class Wrapper:    # as tuner.autotune binds the kernel's name: the worker unwraps it
        def __init__(self):
            self.fn = K()

        def warmup(self, *args, **kwargs):
            raise AssertionError("the wrapper's warmup ran (its pruning, its configs)")

    wrapped = Wrapper()
''')


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    path = tmp_path / "tuner_gen_stand_in.py"
    path.write_text(STAND_IN)
    mark = tmp_path / "calls.jsonl"
    cw.shutdown()                       # workers take the environment they start with
    monkeypatch.setenv("TUNER_TEST_MARK", str(mark))
    yield path, mark
    cw.shutdown()


def _job(path, **kwargs):
    return cw.WarmupJob(str(path), "tuner_gen_stand_in", "k", (("value", 7), ("value", None)),
                        tuple(sorted(kwargs.items())), 0)


def _calls(mark):
    import json
    return [json.loads(line) for line in mark.read_text().splitlines()] if mark.exists() else []


def test_jobs_run_in_worker_processes_and_report_each_failure(stand_in):
    path, mark = stand_in
    jobs = [_job(path, XBLOCK=64), _job(path, XBLOCK=128), _job(path, XBLOCK=256, fail=True),
            cw.WarmupJob(str(path), "tuner_gen_stand_in", "missing", (), (), 0)]
    results = cw.run_jobs(jobs, workers=2)
    assert results[:2] == [None, None]
    assert "ValueError: this config does not build" in results[2]
    assert "AttributeError" in results[3] and "missing" in results[3]
    calls = _calls(mark)
    assert sorted(c["kwargs"]["XBLOCK"] for c in calls) == [64, 128, 256]
    assert all(c["args"] == [7, None] and c["grid"] == [1] for c in calls)
    assert os.getpid() not in {c["pid"] for c in calls}      # not run in this process


def test_workers_unwrap_the_kernel_and_take_the_callers_triton_settings(stand_in):
    path, mark = stand_in
    job = cw.WarmupJob(str(path), "tuner_gen_stand_in", "wrapped", (("value", 1),),
                       (("BLOCK", 8),), 0, 0, (("TRITON_CACHE_DIR", "/tmp/one-cache"),))
    assert cw.run_jobs([job], workers=1) == [None]
    later = cw.WarmupJob(str(path), "tuner_gen_stand_in", "k", (), (), 0, 0,
                         (("TRITON_CACHE_DIR", "/tmp/another"),))
    assert cw.run_jobs([later], workers=1) == [None]          # the same (reused) worker
    calls = _calls(mark)
    assert [c["cache"] for c in calls] == ["/tmp/one-cache", "/tmp/another"]
    assert calls[0]["kwargs"] == {"BLOCK": 8} and len({c["pid"] for c in calls}) == 1


def test_a_worker_that_dies_fails_its_job_and_is_replaced(stand_in):
    path, mark = stand_in
    results = cw.run_jobs([_job(path, XBLOCK=1, die=True), _job(path, XBLOCK=2), _job(path, XBLOCK=4)],
                          workers=1)
    assert results[0] is not None and "worker" in results[0]
    assert results[1:] == [None, None]
    pids = {c["kwargs"]["XBLOCK"]: c["pid"] for c in _calls(mark)}
    assert pids[1] != pids[2] == pids[4]       # a new worker took over and kept going


def test_idle_workers_are_reused_then_shut_down(stand_in):
    path, mark = stand_in
    cw.run_jobs([_job(path, XBLOCK=1)], workers=1)
    cw.run_jobs([_job(path, XBLOCK=2)], workers=1)
    assert len({c["pid"] for c in _calls(mark)}) == 1
    procs = [w.proc for w in cw._IDLE]
    assert procs
    cw.shutdown()
    assert cw._IDLE == [] and all(p.poll() is not None for p in procs)


def test_prestarted_workers_serve_the_first_batch(stand_in):
    # max-autotune starts the pool when the backend is first called (compiler/backend.py):
    # the workers import torch and Triton while the graph is lowered; the first batch then
    # takes them instead of starting its own
    import time
    path, mark = stand_in
    started = cw.STATS["started"]
    cw.prestart_async(2)
    deadline = time.monotonic() + 30
    while len(cw._IDLE) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(cw._IDLE) == 2 and cw.STATS["started"] == started + 2
    pids = {w.proc.pid for w in cw._IDLE}
    assert cw.run_jobs([_job(path, XBLOCK=1), _job(path, XBLOCK=2)], workers=2) == [None, None]
    assert {c["pid"] for c in _calls(mark)} <= pids and cw.STATS["started"] == started + 2


def test_compile_all_sends_described_candidates_to_workers_first(stand_in, monkeypatch):
    path, mark = stand_in
    order = []
    monkeypatch.setattr(bench.settings, "compile_processes", 2, raising=False)
    monkeypatch.setattr(bench, "PROCESS_BATCH_MIN", 2)
    monkeypatch.setattr(bench, "COLD_BATCH_MIN", 2)

    def compile_one(c):
        order.append(("here", c, len(_calls(mark))))
        if c == 3:
            raise RuntimeError("no")
    errors = bench.compile_all(compile_one, [1, 2, 3],
                               jobs=lambda c: _job(path, XBLOCK=c) if c != 2 else None)
    assert sorted(c["kwargs"]["XBLOCK"] for c in _calls(mark)) == [1, 3]   # 2 is not describable
    assert all(n == 2 for _, _, n in order)       # the workers finished before compiling here
    assert errors[1] is None and errors[2] is None and isinstance(errors[3], RuntimeError)


def test_a_background_batch_runs_in_order_is_waited_on_job_by_job_and_keeps_other_batches_off_the_workers(
        stand_in, monkeypatch):
    import threading
    path, mark = stand_in
    gate = threading.Event()
    real_call = cw._Worker.call

    def slow_call(self, job, timeout_s):   # the second job waits until the test lets it go
        if dict(job.kwargs).get("XBLOCK") == 2:
            gate.wait(30)
        return real_call(self, job, timeout_s)
    monkeypatch.setattr(cw._Worker, "call", slow_call)
    batch = cw.run_jobs_async([_job(path, XBLOCK=1), _job(path, XBLOCK=2),
                               _job(path, XBLOCK=3, fail=True)], workers=1)
    assert batch.result(0) is None                       # the first, while the second waits
    assert cw.background_busy() and not batch.done()
    # meanwhile a batch of its own compiles here, in threads: no worker of its own
    monkeypatch.setattr(bench.settings, "compile_processes", 2, raising=False)
    monkeypatch.setattr(bench, "PROCESS_BATCH_MIN", 2)
    monkeypatch.setattr(bench, "COLD_BATCH_MIN", 2)
    here = []
    errors = bench.compile_all(here.append, [10, 11], jobs=lambda c: _job(path, XBLOCK=c))
    assert errors == {10: None, 11: None} and sorted(here) == [10, 11]
    assert sorted(c["kwargs"]["XBLOCK"] for c in _calls(mark)) == [1]
    gate.set()
    assert batch.result(1) is None and "does not build" in batch.result(2)
    assert batch.done() and [c["kwargs"]["XBLOCK"] for c in _calls(mark)] == [1, 2, 3]
    for _ in range(100):                                  # its last thread lets the workers go
        if not cw.background_busy():
            break
        threading.Event().wait(0.05)
    assert not cw.background_busy()
    bench.compile_all(here.append, [20, 21], jobs=lambda c: _job(path, XBLOCK=c))
    assert sorted(c["kwargs"]["XBLOCK"] for c in _calls(mark))[-2:] == [20, 21]   # workers again


def test_no_worker_to_start_fails_every_job_to_its_caller_and_no_batch_stays_busy(stand_in, monkeypatch):
    path, _ = stand_in

    def no_worker(n):
        raise OSError("cannot start a process")
    monkeypatch.setattr(cw, "_prestart", no_worker)
    jobs = [_job(path, XBLOCK=1), _job(path, XBLOCK=2)]
    assert all("OSError" in why for why in cw.run_jobs(jobs, workers=2))
    batch = cw.run_jobs_async(jobs, workers=2)
    assert batch.done() and all("OSError" in batch.result(i) for i in range(2))
    assert not cw.background_busy()


def test_a_background_batch_that_raises_before_it_starts_leaves_the_workers_free(monkeypatch):
    # the count of background batches must not leak when _drive itself raises (a later
    # graph's prebuild would otherwise never use the workers again in this process)
    def broken(*args):
        raise TypeError("driver broke")
    monkeypatch.setattr(cw, "_drive", broken)
    with pytest.raises(TypeError):
        cw.run_jobs_async([], workers=2)
    assert not cw.background_busy()


def test_a_graph_built_while_a_background_batch_holds_the_workers_starts_none(monkeypatch):
    from tuner.compiler.runtime import launch
    monkeypatch.setattr(launch, "prebuild_possible", lambda: True)
    monkeypatch.setattr(cw, "background_busy", lambda: True)
    monkeypatch.setattr(cw, "run_jobs", lambda *a: pytest.fail("a batch of its own"))
    monkeypatch.setattr(cw, "run_jobs_async", lambda *a: pytest.fail("a batch of its own"))
    assert launch._prebuild([object()], "cuda") == 0
    assert launch._prebuild([object()], "cuda", templates=True) == 0


def test_a_config_still_building_in_the_background_is_waited_for_then_loaded(monkeypatch):
    import torch

    from tuner.compiler.runtime import launch
    from tuner.points.triton_kernel import KernelMeta
    built = cw.Batch(2)
    built._set(0, None)
    built._set(1, "worker: boom")
    launch.BUILDING.update({"a": (built, 0), "b": (built, 1)})
    launch._wait_prebuilt("a")
    launch._wait_prebuilt("b")
    launch._wait_prebuilt("c")                            # never planned: nothing to wait for
    assert "a" in launch.PREBUILT and "b" not in launch.PREBUILT and not launch.BUILDING
    # a launcher's batch: the config built in the background loads here (no job of its own)
    later = cw.Batch(1)
    launcher = launch.Launcher(None, KernelMeta("pointwise", "x < 8", xnumel=8), [0], True)
    args, cfg = [torch.empty(8)], {"XBLOCK": 8, "num_warps": 1, "num_stages": 1}
    launch.BUILDING[launcher._prebuilt_key(cfg, args)] = (later, 0)
    later._set(0, None)
    assert launcher._describe(cfg, args) is None and not launch.BUILDING


def test_compile_all_without_processes_never_starts_a_worker(stand_in, monkeypatch):
    path, mark = stand_in
    monkeypatch.setattr(bench, "PROCESS_BATCH_MIN", 2)
    monkeypatch.setattr(bench.settings, "compile_processes", 1, raising=False)
    errors = bench.compile_all(lambda c: None, [1, 2], jobs=lambda c: _job(path, XBLOCK=c))
    assert errors == {1: None, 2: None} and _calls(mark) == [] and cw._IDLE == []


def test_small_batches_compile_in_threads_unless_workers_are_started(stand_in, monkeypatch):
    # no worker started (a tuner.autotune kernel outside max-autotune): a batch below
    # COLD_BATCH_MIN compiles in threads (starting workers costs seconds); once workers are up
    # (max-autotune prestarts them), batches of PROCESS_BATCH_MIN go to them; one candidate never
    path, mark = stand_in
    monkeypatch.setattr(bench.settings, "compile_processes", 4, raising=False)
    assert cw.idle_workers() == 0
    small = list(range(bench.PROCESS_BATCH_MIN))
    bench.compile_all(lambda c: None, small, jobs=lambda c: _job(path, XBLOCK=c))
    assert _calls(mark) == [] and cw.idle_workers() == 0
    cold = list(range(100, 100 + bench.COLD_BATCH_MIN))
    bench.compile_all(lambda c: None, cold, jobs=lambda c: _job(path, XBLOCK=c))
    assert len(_calls(mark)) == bench.COLD_BATCH_MIN and cw.idle_workers() > 0
    bench.compile_all(lambda c: None, [200, 201][:bench.PROCESS_BATCH_MIN], jobs=lambda c: _job(path, XBLOCK=c))
    assert len(_calls(mark)) == bench.COLD_BATCH_MIN + bench.PROCESS_BATCH_MIN
    bench.compile_all(lambda c: None, [300], jobs=lambda c: _job(path, XBLOCK=c))
    assert len(_calls(mark)) == bench.COLD_BATCH_MIN + bench.PROCESS_BATCH_MIN


def test_describe_refuses_what_a_worker_cannot_repeat(tmp_path):
    import torch

    class NotJit:
        def warmup(self, *a, **k):
            pass
    assert cw.describe(NotJit(), [torch.zeros(2)], {}) is None
    triton = pytest.importorskip("triton")
    jit = triton.jit(lambda x: x)                # interpreted under TRITON_INTERPRET, no file
    assert cw.describe(jit, [1], {}) is None


GPU_KERNEL = textwrap.dedent('''
    import triton
    import triton.language as tl

    @triton.jit
    def scale(x_ptr, y_ptr, n, k, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * k, mask=m)
''')


def _cache_entries(root):
    return {d for d in os.listdir(root)} if os.path.isdir(root) else set()


@pytest.mark.gpu
@pytest.mark.parametrize("aligned", [True, False])
def test_a_kernel_compiled_in_a_worker_is_a_cache_hit_here(tmp_path, monkeypatch, aligned):
    import importlib.util

    import torch
    cw.shutdown()
    cache = tmp_path / "triton-cache"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache))
    try:
        import triton
        monkeypatch.setattr(triton.knobs.cache, "dir", str(cache), raising=False)
    except AttributeError:
        pass
    path = tmp_path / "tuner_gen_scale_test.py"
    path.write_text(GPU_KERNEL)
    spec = importlib.util.spec_from_file_location("tuner_gen_scale_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = torch.randn(1000 + (0 if aligned else 1), device="cuda")
    x = x if aligned else x[1:]
    y = torch.empty_like(x)
    args, kwargs = [x, y, x.numel(), 2.5], dict(grid=(4,), BLOCK=256, num_warps=4)
    job = cw.describe(mod.scale, args, kwargs)
    assert job is not None and job.args[0] == ("tensor", "float32", aligned)
    try:
        assert cw.run_jobs([job], workers=1) == [None]
        built = _cache_entries(cache)
        assert built                                   # the worker left the binary there
        import triton.backends.nvidia.driver as drv
        if hasattr(drv, "make_launcher"):              # a C launcher per signature: built there
            assert _files_named(cache, "__triton_launcher")
        mod.scale.warmup(*args, **kwargs)
        assert _cache_entries(cache) == built          # found, not compiled again
        mod.scale[(4,)](*args, BLOCK=256, num_warps=4)
        torch.testing.assert_close(y, x * 2.5)
    finally:
        cw.shutdown()


def test_a_worker_loads_what_it_built_unless_the_setting_turns_it_off(monkeypatch):
    """Triton 3.6 builds a C launcher per argument signature at a kernel's first load (on the
    H200, 32 kernels of 8 signatures built elsewhere: 0.71 s of first launches in the timing
    process, 0.51 s when the worker had loaded them); the worker's load leaves it in the cache."""
    from types import SimpleNamespace
    loaded = []
    ok = SimpleNamespace(_init_handles=lambda: loaded.append("ok"))

    def too_big():
        raise RuntimeError("out of resources: shared memory")
    cw._load_built(ok)
    cw._load_built(SimpleNamespace(_init_handles=too_big))   # the caller's own load reports it
    cw._load_built(None)                                      # nothing built (a failed compile)
    assert loaded == ["ok"]
    monkeypatch.setenv("TUNER_WORKER_LOAD", "0")
    cw._load_built(ok)
    assert loaded == ["ok"]


def test_max_autotune_on_cuda_inputs_prestarts_the_workers_and_nothing_else_does(monkeypatch):
    from types import SimpleNamespace

    from tuner.compiler import backend
    cuda, cpu = SimpleNamespace(is_cuda=True), SimpleNamespace(is_cuda=False)
    assert backend.should_prestart("max-autotune", [cpu, cuda])
    assert backend.should_prestart("max-autotune-no-cudagraphs", [cuda])
    assert not backend.should_prestart("default", [cuda])
    assert not backend.should_prestart("reduce-overhead", [cuda])
    assert not backend.should_prestart("max-autotune", [cpu, 3])
    monkeypatch.setenv("TUNER_COMPILE_PRESTART", "0")
    assert not backend.should_prestart("max-autotune", [cuda])
    # the pool it starts: compile_processes() workers, none when processes are off
    started = []
    monkeypatch.setattr(cw, "prestart_async", started.append)
    monkeypatch.setattr(bench.settings, "compile_processes", 3, raising=False)
    backend._prestart_compile_workers()
    monkeypatch.setattr(bench.settings, "compile_processes", 1, raising=False)
    backend._prestart_compile_workers()
    assert started == [3]


def test_prestarted_workers_no_batch_takes_still_exit_when_idle(stand_in, monkeypatch):
    import time
    monkeypatch.setattr(cw, "IDLE_S", 0.5)
    cw._prestart(1)
    procs = [w.proc for w in cw._IDLE]
    deadline = time.monotonic() + 30
    while cw._IDLE and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cw._IDLE == [] and procs
    for p in procs:
        p.wait(timeout=30)


def _files_named(root, stem):
    return [f for _, _, files in os.walk(root) for f in files if f.split(".")[0] == stem] \
        if os.path.isdir(root) else []


def test_a_worker_without_a_gpu_skips_its_warm_up(monkeypatch):
    import torch
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert cw._warm() is False


def test_the_warm_up_builds_its_kernel_unless_the_setting_turns_it_off(monkeypatch):
    import types

    import torch

    from tuner import _warm_kernel
    built = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch, "ones", lambda n, device: ("tensor", n, device))
    monkeypatch.setattr(_warm_kernel, "warm", types.SimpleNamespace(
        warmup=lambda *args, grid, **kw: built.append((args, grid, kw))))
    monkeypatch.setenv("TUNER_WORKER_DEVICE", "1")   # the caller's device when it started it
    assert cw._warm() is True and built == [((("tensor", 64, "cuda:1"), 64), (1,), {"BLOCK": 64})]
    monkeypatch.setenv("TUNER_WORKER_DEVICE", "")    # CUDA not initialized in the caller: none
    assert cw._warm() is False and len(built) == 1
    monkeypatch.setenv("TUNER_WORKER_DEVICE", "0")
    monkeypatch.setenv("TUNER_COMPILE_WARMUP", "0")
    assert cw._warm() is False and len(built) == 1


@pytest.mark.gpu
def test_a_prestarted_worker_builds_its_warm_up_kernel_before_any_job(tmp_path, monkeypatch):
    # the worker's first compile (CUDA context, Triton's driver and compiler start-up) happens
    # at prestart, while the caller lowers its graph, not in the first batch's first job
    import time
    cw.shutdown()
    cache = tmp_path / "triton-cache"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache))
    import torch
    torch.empty(1, device="cuda")   # as max-autotune's caller: CUDA up, a current device
    jobs = cw.STATS["jobs"]
    try:
        cw.prestart_async(1)
        deadline = time.monotonic() + 120
        while not _files_named(cache, "warm") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _files_named(cache, "warm"), "no warm-up kernel in the worker's Triton cache"
        assert cw.STATS["jobs"] == jobs     # no job was sent: the worker built it on its own
        assert len(cw._IDLE) == 1 and cw._IDLE[0].alive()
    finally:
        cw.shutdown()
