"""The benchmarker: how one candidate is timed, and the one place that touches Triton internals.

- `benchmark(fn)`: median milliseconds of repeated runs after warm-up. On CUDA each run is
  timed with CUDA events after an L2 flush (a write to a buffer larger than L2), so a
  candidate never profits from the previous run's cache, and the GPU first spins (a
  `torch.cuda._sleep` kernel) long enough for the host to queue every timed run: the events
  then time the GPU's work, not how fast Python launches it (without that, a candidate that
  launches more kernels, e.g. pad_mm's padding copies, measured the host's speed, which
  varied 2x between runs of the same problem). On the CPU (the Triton interpreter, tests) it
  is the median of `time.perf_counter` runs.
- `Snapshot`: clones the arguments a kernel mutates and restores them before every run.
- `random_like` / `rand_args`: inputs that are not zeros (zeros hide wrong results and make
  some kernels unrealistically fast).
- `compile_all`: compiles candidates before any timing: in worker processes where the caller
  describes them (tuner.compile_workers), then in a thread pool.
- `IsolatedRunner`: runs a candidate in a worker process (multiprocessing 'spawn') with a
  timeout, so a crash or a hang scores infinity and tuning goes on.
- Triton seam: unwrapping a kernel object, its source hash, spill counts and the exceptions
  that mean "this config is invalid".
- `real_tensors()`: leaves any fake-tensor mode for a block. A decision made while a graph is
  being compiled (the compiler's pad_mm pass) runs under the tracer's FakeTensorMode: operands
  made there are fake and "timing" them measures nothing (a coin toss between choices).
"""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import hashlib
import inspect
import logging
import math
import multiprocessing
import os
import statistics
import threading
import time
from typing import Any, Callable, Iterable, Sequence

from tuner.settings import settings

log = logging.getLogger("tuner.bench")
INF = float("inf")

# Configs whose compiled kernel spills more than this many registers score inf: spilling
# kernels are rarely the fastest and their timings vary with what else is resident.
MAX_SPILLS = 16


# --------------------------------------------------------------------------------------------
# Timing


def _use_cuda(device: str | None) -> bool:
    if device is not None:
        return str(device).startswith("cuda")
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


_L2_FLUSH: dict[int, Any] = {}
# What a benchmark's milliseconds mean, recorded in dataset headers: files timed differently
# never merge. "run-ahead": the GPU waits until the host has queued every timed run.
CUDA_TIMER = "cuda-events/l2-flush/run-ahead"
CPU_TIMER = "perf-counter"
# torch.cuda._sleep cycles per millisecond, per device (measured once)
_CYCLES_PER_MS: dict[int, float] = {}
# The longest the GPU is held before the timed runs: a candidate whose host side takes longer
# than this for all its runs is host-bound, and is timed as such for the remainder.
MAX_RUN_AHEAD_MS = 200.0


def _l2_flush_buffer():
    import torch
    dev = torch.cuda.current_device()
    if dev not in _L2_FLUSH:
        l2 = getattr(torch.cuda.get_device_properties(dev), "L2_cache_size", 0) or (64 << 20)
        # twice L2 so that the whole cache is overwritten whatever the replacement policy
        _L2_FLUSH[dev] = torch.empty(2 * int(l2), dtype=torch.int8, device="cuda")
    return _L2_FLUSH[dev]


def real_tensors():
    """A context manager under which new tensors are real even inside a compiler's tracing
    (torch's FakeTensorMode, when one is active, is switched off for the block)."""
    import contextlib
    try:
        from torch._subclasses.fake_tensor import unset_fake_temporarily
    except ImportError:   # a torch without fake tensors has nothing to leave
        return contextlib.nullcontext()
    return unset_fake_temporarily()


def benchmark(fn: Callable[[], Any], *, warmup: int | None = None, reps: int | None = None,
              setup: Callable[[], Any] | None = None, flush_l2: bool = True,
              device: str | None = None) -> float:
    """Median time of `fn()` in milliseconds.

    setup: runs untimed before every run (warm-up included), e.g. `Snapshot.restore`.
    device: "cuda" or "cpu"; default CUDA when available.
    """
    try:
        warmup = settings.bench_warmup if warmup is None else warmup
        reps = settings.bench_reps if reps is None else reps
        if reps < 1:
            raise ValueError(f"reps must be >= 1, got {reps}")
        with real_tensors(), _bench_lock(device):
            return _benchmark(fn, warmup, reps, setup, flush_l2, device)
    except Exception as e:
        # a caller that turns the error into inf still lets the report say why
        from tuner.search.base import note_failure
        note_failure(e)
        raise


_LOCK_DEPTH = threading.local()


@contextlib.contextmanager
def _bench_lock(device: str | None = None):
    """Holds TUNER_BENCH_LOCK (an exclusive flock) while timing, when it is set: processes
    that share a device then compile candidates at once but never time them at once. The
    file is per device (`<path>.cpu`, `<path>.cuda<i>`), so workers on different GPUs do not
    wait for each other, and a benchmark run inside another one's timed function (a launcher
    that tunes on its first call) does not wait for the lock its own thread holds."""
    path = settings.bench_lock
    if not path or getattr(_LOCK_DEPTH, "n", 0):
        yield
        return
    import fcntl
    if _use_cuda(device):
        import torch
        index = torch.device(device).index if device else None
        path = f"{path}.cuda{torch.cuda.current_device() if index is None else index}"
    else:
        path = f"{path}.cpu"
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        _LOCK_DEPTH.n = 1
        try:
            yield
        finally:
            _LOCK_DEPTH.n = 0
            fcntl.flock(f, fcntl.LOCK_UN)


def _benchmark(fn, warmup, reps, setup, flush_l2, device) -> float:
    for _ in range(max(0, warmup)):
        if setup is not None:
            setup()
        fn()
    if _use_cuda(device):
        return _benchmark_cuda(fn, reps, setup, flush_l2)
    times = []
    for _ in range(reps):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _cycles_per_ms() -> float:
    """How many torch.cuda._sleep cycles make a millisecond on this GPU (timed once)."""
    import torch
    dev = torch.cuda.current_device()
    if dev not in _CYCLES_PER_MS:
        cycles = 2_000_000
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(cycles // 10)   # first launch loads the kernel
        start.record()
        torch.cuda._sleep(cycles)
        end.record()
        end.synchronize()
        _CYCLES_PER_MS[dev] = cycles / max(start.elapsed_time(end), 1e-3)
    return _CYCLES_PER_MS[dev]


def hold_gpu(ms: float) -> None:
    """Queue a kernel that keeps the current stream busy for about `ms` milliseconds."""
    import torch
    cycles = int(min(ms, MAX_RUN_AHEAD_MS) * _cycles_per_ms())
    if cycles > 0:
        torch.cuda._sleep(cycles)


def _one_run(fn, setup, flush) -> None:
    if setup is not None:
        setup()
    if flush is not None:
        flush.zero_()
    fn()


def _benchmark_cuda(fn, reps, setup, flush_l2) -> float:
    import torch
    torch.cuda.synchronize()
    flush = _l2_flush_buffer() if flush_l2 else None
    # The host's time to queue one run (setup, flush, fn), untimed on the GPU side; the GPU
    # then spins for every run's worth of it while the host queues them all. The margin (2x)
    # covers a clock that ran slower when the spin was calibrated than it runs now.
    t0 = time.perf_counter()
    _one_run(fn, setup, flush)
    host_ms = (time.perf_counter() - t0) * 1e3
    torch.cuda.synchronize()
    hold_gpu(2.0 * reps * host_ms + 0.05)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        if setup is not None:
            setup()
        if flush is not None:
            flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


# --------------------------------------------------------------------------------------------
# Inputs


def random_like(t, *, generator=None):
    """A tensor like `t` (shape, strides, dtype, device) with values that are never zero."""
    import torch
    out = torch.empty_strided(t.size(), t.stride(), dtype=t.dtype, device=t.device)
    if t.dtype == torch.bool:
        out.fill_(True)
    elif t.dtype.is_floating_point or t.dtype.is_complex:
        # uniform in [0.5, 1.5) with a random sign: bounded away from zero, no overflow in
        # reductions, and a mix of signs so cancellation bugs show
        u = torch.rand(t.size(), generator=generator, dtype=torch.float32, device=t.device)
        sign = torch.randint(0, 2, t.size(), generator=generator, device=t.device) * 2 - 1
        out.copy_(((u + 0.5) * sign).to(t.dtype))
    else:
        out.copy_(torch.randint(1, 8, t.size(), generator=generator, device=t.device).to(t.dtype))
    return out


def rand_args(args: Sequence[Any], *, seed: int | None = 0) -> list[Any]:
    """Each tensor in `args` replaced by `random_like` (seeded), other values kept."""
    import torch
    gen = None
    if seed is not None:
        gen = torch.Generator()
        gen.manual_seed(seed)
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            g = gen if a.device.type == "cpu" else None
            out.append(random_like(a, generator=g))
        else:
            out.append(a)
    return out


class Snapshot:
    """Copies of the tensors a kernel mutates; `restore()` puts the original values back.

    Benchmarking runs a kernel many times: an in-place kernel (x += y, an accumulating
    atomic_add) would otherwise see its own output as input and drift.
    """

    def __init__(self, tensors: Iterable[Any]):
        self._pairs = [(t, t.clone()) for t in tensors if t is not None]

    def restore(self) -> None:
        for live, saved in self._pairs:
            live.copy_(saved)

    def __bool__(self):
        return bool(self._pairs)


# --------------------------------------------------------------------------------------------
# Parallel compilation


def _auto_count(n: int) -> int:
    return n if n > 0 else min(8, os.cpu_count() or 1)


def compile_workers() -> int:
    return _auto_count(settings.compile_workers)


PROCESS_BATCH_MIN = 2   # a single candidate compiles in a thread (see compile_all)
COLD_BATCH_MIN = 8      # ... and fewer than this while no worker is started


def compile_processes() -> int:
    return _auto_count(settings.compile_processes)


def _process_batch_min() -> int:
    from tuner import compile_workers as cw
    return PROCESS_BATCH_MIN if cw.idle_workers() > 0 else max(PROCESS_BATCH_MIN, COLD_BATCH_MIN)


def compile_all(compile_one: Callable[[Any], Any], candidates: Sequence[Any], *,
                workers: int | None = None,
                jobs: Callable[[Any], Any] | None = None) -> dict[Any, BaseException | None]:
    """Compile every candidate; candidate -> the error, or None when it built.

    With `jobs` (candidate -> a tuner.compile_workers.WarmupJob, or None), the candidates it
    describes compile first in worker processes (TUNER_COMPILE_PROCESSES), which leaves them
    in Triton's on-disk cache; then `compile_one` runs for every candidate in a thread pool
    (a cache hit for those). Threads alone overlap only the C++ half of a compile: Triton's
    front end holds the GIL. Processes serve batches of PROCESS_BATCH_MIN candidates or more,
    since warm workers compile a batch several times faster than threads (figures:
    docs/PERF_NOTES.md, "Figures behind constants"). Without started workers
    (a `tuner.autotune` kernel outside max-autotune, which prestarts them) a batch needs
    COLD_BATCH_MIN candidates to start them: their start-up (seconds) outweighs a few
    candidates' compiles.
    """
    workers = compile_workers() if workers is None else workers
    from tuner import compile_workers as cw
    # (while a batch built in the background holds the workers, this one compiles in threads:
    # sent to the workers it would start workers of its own, or wait behind that batch)
    if jobs is not None and len(candidates) >= _process_batch_min() and compile_processes() > 1 \
            and not cw.background_busy():
        described = [j for j in (_try_describe(jobs, c) for c in candidates) if j is not None]
        if len(described) > 1:
            try:
                for why in cw.run_jobs(described, compile_processes()):
                    if why is not None:
                        log.debug("compile in a worker process failed (compiling here): %s", why)
            except Exception as e:   # no workers (cannot start one...): everything compiles here
                log.debug("compile workers unavailable: %s: %s", type(e).__name__, e)
    errors: dict[Any, BaseException | None] = {}
    if workers <= 1 or len(candidates) <= 1:
        for c in candidates:
            errors[c] = _try(compile_one, c)
        return errors
    with cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tuner-compile") as pool:
        futures = {pool.submit(_try, compile_one, c): c for c in candidates}
        for fut in cf.as_completed(futures):
            errors[futures[fut]] = fut.result()
    return errors


def _try_describe(jobs, c):
    try:
        return jobs(c)
    except Exception as e:   # a candidate that cannot be described compiles here
        log.debug("cannot describe %s for a worker: %s", c, e)
        return None


def _try(fn, arg) -> BaseException | None:
    try:
        fn(arg)
        return None
    except Exception as e:
        log.debug("compile of %s failed: %s: %s", arg, type(e).__name__, e)
        return e


# --------------------------------------------------------------------------------------------
# Isolation: a worker process per runner, restarted after a crash or a timeout


def _worker_main(conn) -> None:
    conn.send(("ready", None))
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        fn, args, kwargs = job
        try:
            conn.send(("ok", fn(*args, **kwargs)))
        except BaseException as e:  # report, never die, on a Python-level failure
            conn.send(("error", f"{type(e).__name__}: {e}"))


class IsolatedRunner:
    """Runs picklable calls in a spawned worker; a crash, hang or error gives `None`.

    `fn` must be importable by name in a fresh interpreter (a module-level function, or a
    module-level `tuner.autotune` kernel), and its arguments picklable.
    """

    def __init__(self, timeout_s: float = 60.0, start_timeout_s: float = 120.0):
        self.timeout_s = timeout_s
        self.start_timeout_s = start_timeout_s
        self._ctx = multiprocessing.get_context("spawn")
        self._proc = None
        self._conn = None
        self.failures: list[str] = []

    def _start(self) -> bool:
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_worker_main, args=(child,), daemon=True,
                                       name="tuner-isolated-bench")
        self._proc.start()
        child.close()
        self._conn = parent
        # a fresh interpreter takes seconds to start on a loaded machine: that wait is not
        # part of any candidate's timeout
        try:
            if parent.poll(self.start_timeout_s) and parent.recv()[0] == "ready":
                return True
        except (EOFError, OSError):
            pass
        return False

    def call(self, fn: Callable, *args, **kwargs) -> Any:
        """fn(*args, **kwargs) in the worker; None when it failed in any way (reason logged)."""
        if self._proc is None or not self._proc.is_alive():
            if not self._start():
                return self._fail("worker process did not start")
        try:
            self._conn.send((fn, args, kwargs))
            if not self._conn.poll(self.timeout_s):
                return self._fail(f"timed out after {self.timeout_s:g}s")
            status, value = self._conn.recv()
        except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
            self._proc.join(1)
            return self._fail(f"worker died (exit code {self._proc.exitcode})")
        if status != "ok":
            self.failures.append(value)
            log.debug("isolated call failed: %s", value)
            return None
        return value

    def _fail(self, why: str):
        self.failures.append(why)
        log.warning("isolated benchmark: %s; the candidate scores inf", why)
        self.close(kill=True)
        return None

    def benchmark(self, fn: Callable, *args, **kwargs) -> float:
        """fn returns milliseconds; any failure is inf."""
        ms = self.call(fn, *args, **kwargs)
        return INF if ms is None else float(ms)

    def close(self, kill: bool = False) -> None:
        if self._proc is None:
            return
        try:
            if kill or not self._proc.is_alive():
                self._proc.kill()
            else:
                self._conn.send(None)
            self._proc.join(5)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(5)
        except Exception:
            pass
        finally:
            try:
                self._conn.close()
            except Exception:
                pass
            self._proc, self._conn = None, None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --------------------------------------------------------------------------------------------
# Triton seam: the only code in tuner/ that reads Triton internals (3.6 and 3.9)


def unwrap_kernel(fn):
    """The innermost JITFunction / InterpretedFunction below heuristics/autotune wrappers."""
    seen = 0
    while hasattr(fn, "fn") and not inspect.isfunction(fn) and seen < 16:
        if type(fn).__name__ in ("JITFunction", "InterpretedFunction"):
            return fn
        fn, seen = fn.fn, seen + 1
    return fn


def kernel_name(fn) -> str:
    base = unwrap_kernel(fn)
    inner = getattr(base, "fn", base)
    return getattr(inner, "__name__", type(base).__name__)


def kernel_source_hash(fn) -> str:
    """A stable hash of a Triton kernel's source and the Triton functions it calls.

    Compiled kernels expose `cache_key` (source + dependencies); the interpreter's wrapper has
    none, so there we hash the function's source text.
    """
    base = unwrap_kernel(fn)
    key = None
    if type(base).__name__ == "JITFunction":
        try:
            key = base.cache_key
        except Exception:
            key = None
    if key is None:
        inner = getattr(base, "fn", base)
        try:
            key = inspect.getsource(inner)
        except (OSError, TypeError):
            key = getattr(inner, "__qualname__", repr(inner))
    return hashlib.sha256(str(key).encode()).hexdigest()[:24]


def kernel_arg_names(fn) -> list[str]:
    base = unwrap_kernel(fn)
    names = getattr(fn, "arg_names", None) or getattr(base, "arg_names", None)
    if names is None:
        names = list(inspect.signature(getattr(base, "fn", base)).parameters)
    return list(names)


def is_interpreted(fn) -> bool:
    """Whether this kernel object runs under the Triton interpreter (decided when it was
    decorated, so it can differ from the current TRITON_INTERPRET)."""
    return type(unwrap_kernel(fn)).__name__ == "InterpretedFunction"


def interpreting() -> bool:
    try:
        from triton import knobs
        return bool(knobs.runtime.interpret)
    except Exception:
        return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def invalid_config_errors() -> tuple[type, ...]:
    """Exceptions that mean "this config cannot run here" (score inf), not a user bug."""
    errs: list[type] = []
    try:
        from triton.runtime.errors import OutOfResources
        errs.append(OutOfResources)
    except Exception:
        pass
    for mod, name in (("triton.runtime.errors", "PTXASError"),
                      ("triton.compiler.errors", "CompilationError"),
                      ("triton.runtime.errors", "InterpreterError")):
        try:
            errs.append(getattr(__import__(mod, fromlist=[name]), name))
        except Exception:
            pass
    return tuple(errs)


def spills_of(compiled) -> int:
    """Registers spilled by a compiled kernel (0 when unknown, e.g. under the interpreter)."""
    if compiled is None:
        return 0
    # loading the binary fills n_spills; it raises OutOfResources for a config that cannot
    # launch, which the caller scores as inf
    init = getattr(compiled, "_init_handles", None)
    if init is not None:
        init()
    return int(getattr(compiled, "n_spills", 0) or 0)


def too_many_spills(compiled, limit: int = MAX_SPILLS) -> bool:
    return spills_of(compiled) > limit


def score(ms: Any) -> float:
    """Normalise a measurement: anything that is not a finite non-negative number is inf."""
    try:
        v = float(ms[0] if isinstance(ms, (list, tuple)) else ms)
    except (TypeError, ValueError, IndexError):
        return INF
    return v if math.isfinite(v) and v >= 0 else INF
