"""Launching generated kernels: the chosen config, the grid, and (max-autotune) tuning on the
first call with the real arguments through tuner.engine.decide (the compiler never times
anything itself)."""
from __future__ import annotations

import functools
import hashlib
import logging
import operator
import re

import torch
import triton

log = logging.getLogger("tuner.compiler")


def _fast_launch_supported():
    """Whether compiled kernels can be launched directly, skipping JITFunction.run's per-call
    argument binding and specialization (tens of microseconds of Python per launch, which a
    graph with hundreds of small kernels, GPT-2's, pays on every call). Needs a Triton whose
    launcher takes every argument, constexprs included (3.3 and later; checked on the source,
    not the version string), and not the interpreter."""
    import inspect
    import os
    if os.environ.get("TRITON_INTERPRET", "0") == "1" or os.environ.get("TUNER_FAST_LAUNCH", "1") == "0":
        return False
    try:
        from triton import knobs  # noqa: F401
        from triton.runtime.jit import JITFunction
        src = inspect.getsource(JITFunction.run)
    except Exception:
        return False
    return "*bound_args.values()" in src and "kernel.packed_metadata" in src


_FAST = None
# Launches that went through JITFunction.run (argument binding + specialization each time):
# once per kernel and pointer-alignment pattern when the direct path works (a test checks it).
JIT_LAUNCHES = 0


def _hook_set(hook) -> bool:
    # Older Triton: a hook is a callable or None. Triton 3.6 and 3.9 (at least): a HookChain,
    # never None, whose `calls` list stays empty until someone (a profiler, proton) adds one;
    # reading it as "set" kept every launch on the slow path (3.9 ms of host time per call of
    # ResNet-50 on the H100). A hook added after a kernel's first launch is not seen by it.
    if hook is None:
        return False
    calls = getattr(hook, "calls", None)
    return bool(calls) if calls is not None else True


def hooks_unset() -> bool:
    """Whether no launch enter/exit hook is installed: the direct launch passes none."""
    from triton import knobs
    return not (_hook_set(knobs.runtime.launch_enter_hook) or _hook_set(knobs.runtime.launch_exit_hook))


def _stream_getter():
    """device index -> raw CUDA stream; torch's own getter skips the driver's per-call device
    lookups (a few microseconds per launch)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    from triton.runtime.driver import driver
    return driver.active.get_current_stream


_DATA_PTR = torch.Tensor.data_ptr
_INT_LITERAL = re.compile(r"\b\d+\b")   # sizes, strides and constants in a kernel's source


def _bucket(n):
    """The power-of-two size bucket of an extent (the next power of two)."""
    return 1 << max(0, (int(n) - 1).bit_length())


def alignment_key(args):
    """Which pointer arguments are 16-byte aligned (Triton specializes on it), as a tuple of
    bools; the common case, all aligned, is found with C-level calls only (one launch of a
    model's hundreds pays this on every call in default mode) and keyed as True."""
    ptrs = list(map(_DATA_PTR, args))
    if not functools.reduce(operator.or_, ptrs, 0) & 15:
        return True
    return tuple(p & 15 == 0 for p in ptrs)


class Launcher:
    def __init__(self, fn, source, kind, xnumel, default, candidates, out_args, autotune,
                 ynumel=None, space=None, rnumel=None, bucketed=False, parts=None, mm=None):
        self.fn = fn
        self.source = source
        self.kind = kind
        self.xnumel = xnumel
        self.ynumel = ynumel         # tiled pointwise kernels: the y extent (grid = x tiles * y tiles)
        self.space = space           # ConfigSpace for the search (None: the candidate list)
        self.rnumel = rnumel         # reductions: the reduced extent (part of a bucketed key)
        self.bucketed = bucketed     # a graph with dynamic sizes: decisions shared per size bucket
        self.parts = parts           # combo kernels: each sub-kernel's extent (programs per part)
        self.mm = mm                 # matmul templates: (batch, m, n) of the output
        self.config = None if autotune else dict(default)
        self.default = dict(default)
        self.candidates = candidates
        self.out_args = out_args     # positions of arguments the kernel writes
        self.decision = None
        self._compiled = {}          # pointer-alignment key -> compiled kernel (fast path)
        self._grid = None
        self._consts = ()
        self._stream_of = None

    def __call__(self, *args):
        if self.config is None:
            self.config = self._tune(args)
        if self._grid is not None:
            # Triton specializes pointers on 16-byte alignment: one compiled kernel per pattern
            k = self._compiled.get(alignment_key(args))
            if k is not None:
                k.run(self._grid[0], 1, 1, self._stream_of(self._device), k.function, k.packed_metadata,
                      None, None, None, *args, *self._consts)
                return
        global _FAST, JIT_LAUNCHES
        JIT_LAUNCHES += 1
        try:
            k = self._launch(self.config, args)
        except Exception as e:
            d = self.decision
            if d is None or d.source not in ("cache", "heuristic") or self.config == self.default:
                raise
            # an answer from a cache or a heuristic that does not launch: dropped (never used
            # again, its local entry deleted), this call runs the default, the kernel re-tunes
            from tuner.engine import discard
            discard(d, f"{type(e).__name__}: {e}")
            self.config = dict(self.default)
            k = self._launch(self.config, args)
            self.config = self._tune(args)
            return
        if _FAST is None:
            _FAST = _fast_launch_supported()
        if _FAST and k is not None and hasattr(k, "packed_metadata") and hooks_unset():
            self._compiled[alignment_key(args)] = k
            self._grid = self.grid(self.config)
            self._consts = tuple(self.config[n] for n in self.fn.arg_names[len(args):])
            self._device = args[0].device.index if args else 0
            self._stream_of = _stream_getter()
            k._init_handles()

    def grid(self, cfg):
        if self.mm is not None:
            b, m, n = self.mm
            return (b * triton.cdiv(m, cfg["BLOCK_M"]) * triton.cdiv(n, cfg["BLOCK_N"]),)
        if self.parts is not None:
            return (sum(triton.cdiv(p, cfg["XBLOCK"]) for p in self.parts),)
        n = triton.cdiv(self.xnumel, cfg["XBLOCK"])
        if self.ynumel is not None:
            n *= triton.cdiv(self.ynumel, cfg["YBLOCK"])
        return (n,)

    def _launch(self, cfg, args):
        return self.fn[self.grid(cfg)](*args, **cfg)

    def problem(self, args=()):
        """The tuning cache's problem key: the kernel source (identical kernels share one
        decision), its extent, and the arguments' dtypes (one source can run on several).
        In a graph with dynamic sizes (compiled per concrete shape) the key is the source with
        its integer literals blanked and each extent's power-of-two bucket: a new size in a
        known bucket reuses the decision (a cache lookup, not a new search)."""
        dtypes = ",".join(str(a.dtype).replace("torch.", "") for a in args)
        if self.bucketed:
            canon = _INT_LITERAL.sub("#", self.source)
            h = hashlib.sha256(canon.encode()).hexdigest()[:24]
            ext = "x".join(str(_bucket(n)) for n in (self.xnumel, self.ynumel, self.rnumel) if n is not None)
            return f"{h}:b{ext}" + (f":{dtypes}" if dtypes else "")
        h = hashlib.sha256(self.source.encode()).hexdigest()[:24]   # a combo's parts are in it
        return f"{h}:{self.xnumel}" + (f"x{self.ynumel}" if self.ynumel is not None else "") + \
            (f":{dtypes}" if dtypes else "")

    def _tune(self, args):
        try:
            from tuner.bench import benchmark, compile_all
            from tuner.engine import decide
            from tuner.space import Config
        except Exception as e:  # engine not importable: keep the heuristic config
            log.debug("autotune unavailable (%s): default config", e)
            return self.default

        def to_cfg(c):
            kw = {k: v for k, v in c.items() if k not in ("num_warps", "num_stages")}
            return Config(kw, num_warps=c.get("num_warps", 4), num_stages=c.get("num_stages", 1))

        cands = [self.default] + [c for c in self.candidates if c != self.default]
        configs = [to_cfg(c) for c in cands]
        scratch = list(args)
        for i in self.out_args:
            scratch[i] = args[i].clone()

        def measure(cfg):
            launch = dict(cfg.kwargs, num_warps=cfg.num_warps, num_stages=cfg.num_stages)
            try:
                return benchmark(lambda: self._launch(launch, scratch),
                                 device="cuda" if torch.cuda.is_available() else "cpu")
            except Exception as e:   # a config that does not compile or run scores infinity
                log.debug("config %s failed: %s", launch, e)
                return float("inf")

        def precompile(batch):
            # Triton compiles in C++ and ptxas mostly outside the GIL: a thread pool builds a
            # batch of candidates at once instead of one per measurement
            compile_all(lambda cfg: self.fn.warmup(*scratch, grid=self.grid(cfg.kwargs),
                                                   **cfg.kwargs, num_warps=cfg.num_warps,
                                                   num_stages=cfg.num_stages), batch)

        features = {"xnumel": self.xnumel, "kind": self.kind}
        if self.ynumel is not None:
            features["ynumel"] = self.ynumel
        d = decide(f"triton.{self.kind}", self.problem(args), configs, measure, space=self.space,
                   features=features, prepare=precompile)
        self.decision = d
        c = d.choice
        return dict(c.kwargs, num_warps=c.num_warps, num_stages=c.num_stages)


def reinterpret(t, size, stride, offset):
    """A view of t's storage at t's storage offset + offset (the wrapper's views of inputs)."""
    return torch.as_strided(t, size, stride, t.storage_offset() + offset)


def fast_reinterpret():
    """torch's C++ form of `reinterpret` (an alias with new sizes and strides, storage offset
    moved by `offset`; several times cheaper per call than torch.as_strided from Python), or
    None on a torch without it."""
    guards = getattr(getattr(torch._C, "_dynamo", None), "guards", None)
    return getattr(guards, "_reinterpret_tensor", None)


def ensure_layout(t, size, stride):
    """An extern's output in the layout its meta function promised (copy when it differs)."""
    if t is None:   # an optional output the op did not produce (e.g. SDPA's logsumexp)
        return t
    if tuple(t.stride()) == tuple(stride) or t.numel() <= 1:
        return t
    out = torch.empty_strided(size, stride, dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out
