"""Compiling Triton kernels in worker processes.

Triton's front end (parsing the kernel's AST and building its MLIR) is Python and holds the
GIL, so a thread pool overlaps only the C++ half of a compile: measured on GPT-2's
max-autotune compile (183 candidates on an H100 host), 8 threads were 1.6x faster than one.
Here a candidate's compile runs in a pool of worker processes instead: each worker repeats
`fn.warmup(...)` for the same kernel file and an argument list of the same specialization
(dtypes, 16-byte alignment, integer values, constexprs), which leaves the compiled kernel in
Triton's on-disk cache; the caller's own warmup then loads it from there.

A worker is a plain `python -m tuner.compile_workers` child (not multiprocessing: 'spawn'
and 'forkserver' re-run the user's main module, and 'fork' is unsafe after CUDA is
initialized), talking length-prefixed pickles over its stdin and a duplicate of its stdout;
whatever the kernel or Triton prints goes to stderr. Nothing depends on a worker succeeding:
a job that fails, a worker that dies, or a kernel that cannot be described is compiled by
the caller as before.

- `describe(fn, args, kwargs)`: the `WarmupJob` for `fn.warmup(*args, **kwargs)`, or None.
- `run_jobs(jobs)`: runs jobs on the pool; returns which ones built. Workers start on first
  use (each imports torch and Triton, then builds a tiny kernel on the GPU: a few seconds, in
  parallel), or earlier through `prestart_async` (max-autotune calls it when its backend is
  first called), and exit after `IDLE_S` seconds without work, or with this process.
"""
from __future__ import annotations

import atexit
import os
import pickle
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Sequence

IDLE_S = 60.0          # workers exit after this long without a job
JOB_TIMEOUT_S = 300.0  # a compile longer than this: the worker is killed, the caller compiles
_SCALARS = (bool, int, float, str, type(None))


@dataclass(frozen=True)
class WarmupJob:
    """`fn.warmup(*args, grid=(1,), **kwargs)` for the function `name` of the kernel file
    `path` (imported under `module`); tensors are ("tensor", dtype, 16-byte aligned)."""
    path: str
    module: str
    name: str
    args: tuple
    kwargs: tuple
    device: int
    line: int = 0       # the kernel's first line: the worker checks it found the same function
    env: tuple = ()     # the caller's TRITON_* variables (cache dir, options) at describe time


def _tensor_descr(t) -> tuple | None:
    if t.device.type != "cuda":
        return None
    return ("tensor", str(t.dtype).rpartition(".")[2], t.data_ptr() % 16 == 0)


def describe(fn, args: Sequence[Any], kwargs: dict) -> WarmupJob | None:
    """The job that compiles what `fn.warmup(*args, **kwargs)` compiles, or None when a worker
    could not repeat it (a kernel not defined in a file, a CPU tensor, an argument that is
    neither a tensor nor a plain scalar). `grid` is dropped: it does not change the binary."""
    import torch

    from tuner.bench import unwrap_kernel

    jit = unwrap_kernel(fn)
    py = getattr(jit, "fn", None)
    code = getattr(py, "__code__", None)
    if code is None or type(jit).__name__ != "JITFunction" or not os.path.isfile(code.co_filename) \
            or py.__module__ in (None, "__main__", "__mp_main__") or "<locals>" in py.__qualname__:
        return None   # (a worker must not run the caller's main script; a local kernel has no name)
    device = None
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            d = _tensor_descr(a)
            if d is None:
                return None
            device = a.device.index if device is None else device
            out.append(d)
        elif isinstance(a, _SCALARS):
            out.append(("value", a))
        else:
            return None
    kw = []
    for k, v in sorted(kwargs.items()):
        if k == "grid":
            continue
        if not isinstance(v, _SCALARS):
            return None
        kw.append((k, v))
    if device is None:
        device = torch.cuda.current_device() if torch.cuda.is_available() else 0
    env = tuple(sorted((k, v) for k, v in os.environ.items()
                       if k.startswith("TRITON_") and k != "TRITON_INTERPRET"))
    return WarmupJob(code.co_filename, py.__module__, py.__name__, tuple(out), tuple(kw),
                     device or 0, code.co_firstlineno, env)


# --------------------------------------------------------------------------------------------
# The pool (caller side)


def _send(stream, obj) -> None:
    data = pickle.dumps(obj)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _recv(stream):
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError("worker closed its pipe")
    (n,) = struct.unpack("<Q", head)
    data = stream.read(n)
    if len(data) < n:
        raise EOFError("worker closed its pipe")
    return pickle.loads(data)


class _Worker:
    def __init__(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
        env["TUNER_COMPILE_PROCESSES"] = "1"    # a worker never starts workers of its own
        env["PYTHONSAFEPATH"] = "1"     # `-m` would put the current folder first on sys.path
        env.pop("TRITON_INTERPRET", None)
        env["TUNER_WORKER_DEVICE"] = _caller_device()   # where its warm-up builds ("": none)
        with _LOCK:   # the prestart thread starts workers too (never under _LOCK)
            STATS["started"] += 1
        self.proc = subprocess.Popen([sys.executable, "-m", "tuner.compile_workers"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def call(self, job: WarmupJob, timeout_s: float) -> str | None:
        """None when the job built; else why not (the worker is dead after a timeout)."""
        result: list = []

        def talk():
            try:
                _send(self.proc.stdin, job)
                reply = _recv(self.proc.stdout)
                if not (isinstance(reply, tuple) and len(reply) == 2 and reply[0] in ("ok", "error")):
                    raise ValueError(f"unexpected reply {str(reply)[:80]}")
                result.append(reply)
            except Exception as e:   # a broken or out-of-step pipe: this worker is done
                self.kill()
                result.append(("error", f"worker: {type(e).__name__}: {e}"))
        t = threading.Thread(target=talk, daemon=True)
        t.start()
        t.join(timeout_s)
        if t.is_alive() or not result:
            self.kill()
            t.join(5)
            return f"worker: no answer in {timeout_s:.0f} s"
        status, detail = result[0]
        if status == "ok":
            STATS["jobs"] += 1
            STATS["worker_s"] += detail or 0.0
            if (detail or 0.0) > SLOW_S and len(SLOW) < 200:
                SLOW.append((job.name, dict(job.kwargs), round(detail, 2)))
            return None
        return detail

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        try:
            self.proc.kill()
        except OSError:
            pass
        self.proc.wait()

    def close(self) -> None:
        try:
            _send(self.proc.stdin, None)
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            self.kill()


_LOCK = threading.Lock()
_IDLE: list[_Worker] = []     # started workers waiting for a job
_TIMER: list = [None]
STATS = {"started": 0, "jobs": 0, "worker_s": 0.0}   # workers started, jobs built, their seconds
SLOW: list = []    # (kernel, constexprs, seconds) of jobs slower than SLOW_S (for probes)
SLOW_S = 2.0


def _caller_device() -> str:
    """This process's current CUDA device, where its workers warm up ("" when CUDA is not
    initialized here: a worker then creates no context before its first job)."""
    try:
        import torch
        if torch.cuda.is_initialized():
            return str(torch.cuda.current_device())
    except Exception:   # noqa: BLE001
        pass
    return ""


def idle_workers() -> int:
    """Started workers waiting for a job (alive)."""
    with _LOCK:
        return sum(1 for w in _IDLE if w.alive())


def _prestart(n: int) -> None:
    """Start workers until n are idle: they import torch and Triton at once, in parallel,
    instead of each batch larger than the last starting (and waiting for) a few more."""
    with _LOCK:
        missing = n - sum(1 for w in _IDLE if w.alive())
    fresh = [_Worker() for _ in range(max(0, missing))]
    with _LOCK:
        _IDLE[:] = [w for w in _IDLE if w.alive()] + fresh
        _arm_idle_timer()   # workers no batch ever takes (everything answered) still exit


def prestart_async(n: int) -> None:
    """Start workers until n are idle, from a daemon thread (returns at once): they import
    torch and Triton while the caller goes on (max-autotune lowers its graph meanwhile)."""
    threading.Thread(target=_quiet_prestart, args=(n,), daemon=True, name="tuner-prestart").start()


def _quiet_prestart(n: int) -> None:
    try:
        _prestart(n)
    except Exception:   # noqa: BLE001 - no worker now: the first batch starts them, or compiles itself
        pass


def _take() -> _Worker:
    with _LOCK:
        while _IDLE:
            w = _IDLE.pop()
            if w.alive():
                return w
    return _Worker()


def _give_back(w: _Worker) -> None:
    if not w.alive():
        return
    with _LOCK:
        _IDLE.append(w)
        _arm_idle_timer()


def _arm_idle_timer() -> None:
    """(Re)start the countdown after which idle workers exit; called with _LOCK held."""
    if _TIMER[0] is not None:
        _TIMER[0].cancel()
    _TIMER[0] = threading.Timer(IDLE_S, shutdown)
    _TIMER[0].daemon = True
    _TIMER[0].start()


def shutdown() -> None:
    """Stop every idle worker (they also exit with this process)."""
    with _LOCK:
        workers, _IDLE[:] = list(_IDLE), []
    for w in workers:
        w.close()


atexit.register(shutdown)


def run_jobs(jobs: Sequence[WarmupJob], workers: int) -> list[str | None]:
    """Runs every job on up to `workers` worker processes; per job, None when it built, else
    the reason (the caller then compiles it itself)."""
    batch = Batch(len(jobs))
    ended = threading.Event()
    _drive(jobs, workers, batch, ended.set)
    ended.wait()       # every job ended and every worker given back
    return batch.results


class Batch:
    """Jobs on the workers: per job, None once it built, else the reason; `result(i)` waits
    for job i alone (a batch in the background, `run_jobs_async`, is waited on job by job)."""

    def __init__(self, n: int):
        self.results: list[str | None] = [None] * n
        self._done = [threading.Event() for _ in range(n)]

    def _set(self, i: int, why: str | None) -> None:
        self.results[i] = why
        self._done[i].set()

    def result(self, i: int) -> str | None:
        self._done[i].wait()      # every job ends: built, failed, or its worker killed
        return self.results[i]

    def finished(self, i: int) -> bool:
        return self._done[i].is_set()

    def done(self) -> bool:
        return all(e.is_set() for e in self._done)


_BACKGROUND = [0]    # batches of run_jobs_async still running


def run_jobs_async(jobs: Sequence[WarmupJob], workers: int) -> Batch:
    """run_jobs without waiting: the jobs run in order on the workers while the caller goes
    on, and `Batch.result(i)` waits for one of them. While such a batch runs, other batches
    compile in the caller's threads (`background_busy`): a second batch would start workers
    of its own."""
    batch = Batch(len(jobs))
    with _LOCK:
        _BACKGROUND[0] += 1
    once = []

    def ended():
        with _LOCK:
            if not once:
                once.append(True)
                _BACKGROUND[0] -= 1
    try:
        _drive(jobs, workers, batch, ended)
    except BaseException:
        ended()        # a batch that never started must not hold the workers' count
        raise
    return batch


def background_busy() -> bool:
    """Whether a run_jobs_async batch still holds the workers."""
    with _LOCK:
        return _BACKGROUND[0] > 0


def _drive(jobs: Sequence[WarmupJob], workers: int, batch: Batch, ended) -> None:
    """Starts threads that run `jobs` in order on up to `workers` worker processes, each
    result going to `batch`; `ended()` runs once, when the last of them has given its worker
    back (at once for no jobs; also when no thread could start, before that raises)."""
    if not jobs:
        ended()
        return
    n = max(1, min(workers, len(jobs)))
    nxt = iter(range(len(jobs)))
    lock = threading.Lock()
    stalled = []     # after a worker hangs once, the rest of the batch compiles in the caller
    running = [n]

    def exit_one(k: int = 1) -> None:
        with lock:
            running[0] -= k
            last = running[0] == 0
        if last:
            ended()

    def fail_rest(i, why: str) -> None:
        with lock:
            for j in [i] + list(nxt):
                if j is not None and not batch.finished(j):
                    batch._set(j, why)

    def drive():
        w, i = None, None
        try:
            while True:
                with lock:
                    i = next(nxt, None)
                if i is None:
                    return
                if stalled:
                    batch._set(i, "worker: skipped after a hang")
                    continue
                if w is None or not w.alive():
                    w = _take()
                why = w.call(jobs[i], JOB_TIMEOUT_S)
                if why is not None and why.startswith("worker: no answer"):
                    stalled.append(i)
                batch._set(i, why)
        except BaseException as e:   # cannot start a worker: the rest are compiled by the caller
            fail_rest(i, f"worker: {type(e).__name__}: {e}")
        finally:
            if w is not None:
                _give_back(w)
            exit_one()

    try:
        _prestart(n)
    except BaseException as e:   # noqa: BLE001 - no worker: every job is the caller's
        fail_rest(None, f"worker: {type(e).__name__}: {e}")
        ended()
        return
    started = 0
    try:
        for _ in range(n):
            threading.Thread(target=drive, daemon=True, name="tuner-compile-proc").start()
            started += 1
    except BaseException as e:
        if not started:      # nothing runs the jobs: the caller compiles them
            fail_rest(None, f"worker: {type(e).__name__}: {e}")
        exit_one(n - started)   # (the threads that started drain the rest)


# --------------------------------------------------------------------------------------------
# The worker


_MODULES: dict = {}


def _load(path: str, module: str):
    mod = _MODULES.get(path)
    if mod is None:
        import importlib
        import importlib.util
        try:   # an importable module (a user's kernel) is imported as usual
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            found = None
        if found is not None and found.origin and os.path.samefile(found.origin, path):
            mod = _MODULES[path] = importlib.import_module(module)
            return mod
        spec = importlib.util.spec_from_file_location(module, path)   # a generated kernel file
        mod = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(module, mod)
        spec.loader.exec_module(mod)
        _MODULES[path] = mod
    return mod


def _materialize(d, device):
    import torch
    if isinstance(d, tuple) and d and d[0] == "tensor":
        _, dtype, aligned = d
        dt = getattr(torch, dtype)
        t = torch.empty(64, dtype=dt, device=device)
        return t if aligned or t.element_size() >= 16 else t[1:]
    return d[1]


def run_job(job: WarmupJob) -> None:
    """What a worker does for one job (also callable in-process, for tests)."""
    import torch

    from tuner.bench import unwrap_kernel
    for k in [k for k in os.environ if k.startswith("TRITON_")]:
        os.environ.pop(k)
    os.environ.update(dict(job.env))      # the caller's cache dir and options, as they are now
    fn = unwrap_kernel(getattr(_load(job.path, job.module), job.name))
    code = getattr(getattr(fn, "fn", None), "__code__", None)
    if job.line and (code is None or code.co_firstlineno != job.line
                     or not os.path.samefile(code.co_filename, job.path)):
        raise LookupError(f"{job.name} in {job.path} is not the kernel described (line {job.line})")
    if not any(d[0] == "tensor" for d in job.args):   # no tensor: no device to set up
        fn.warmup(*[d[1] for d in job.args], grid=(1,), **dict(job.kwargs))
        return
    device = torch.device("cuda", job.device)
    with torch.cuda.device(device):
        args = [_materialize(d, device) for d in job.args]
        _load_built(fn.warmup(*args, grid=(1,), **dict(job.kwargs)))


def _load_built(compiled) -> None:
    """Loads a kernel just built, as its first launch would (TUNER_WORKER_LOAD): Triton builds
    what a launch needs at that point, and on versions with a C launcher generated per argument
    signature that is a C compile whose result Triton caches on disk. Built here, the process
    that times the kernel finds it in the cache instead of compiling it itself, serially, one
    signature after another. Best effort: a config too large to launch raises here, and the
    caller's own load reports that."""
    from tuner.settings import settings
    init = getattr(compiled, "_init_handles", None)
    if init is None or not settings.worker_load:
        return
    try:
        init()
    except Exception:   # noqa: BLE001 - the caller's load says why
        pass


def _warm() -> bool:
    """Build a tiny kernel on the GPU now (False: no GPU, or it failed): a worker's first
    compile also pays for its CUDA context and Triton's driver and compiler start-up, 1-3 s
    each with eight workers starting at once (docs/PERF_NOTES.md). Started early (prestart),
    a worker pays it while the caller still lowers its graph."""
    try:
        import torch

        from tuner.settings import settings
        device = os.environ.get("TUNER_WORKER_DEVICE", "")
        if not settings.compile_warmup or not device or not torch.cuda.is_available():
            return False
        from tuner._warm_kernel import warm
        x = torch.ones(64, device=f"cuda:{int(device)}")
        warm.warmup(x, 64, BLOCK=64, grid=(1,))
        return True
    except Exception:   # noqa: BLE001 - the first job pays it instead
        return False


def _serve() -> None:
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)      # prints from Triton or kernels go to stderr, not into the pipe
    inp = sys.stdin.buffer
    import torch  # noqa: F401  (imported now, while the caller is still busy, not on the first job)
    import triton  # noqa: F401
    _warm()
    while True:
        try:
            job = _recv(inp)
        except EOFError:
            return
        if job is None:
            return
        try:
            start = time.perf_counter()
            run_job(job)
            _send(out, ("ok", time.perf_counter() - start))
        except BaseException as e:   # report, never die, on a Python-level failure
            _send(out, ("error", f"{type(e).__name__}: {e}"))


if __name__ == "__main__":
    _serve()
