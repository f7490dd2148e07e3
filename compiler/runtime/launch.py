"""Launching generated kernels: the chosen config, the grid, and (max-autotune) tuning on the
first call with the real arguments. The config is the kernel-config autotuning point's
(tuner.points.triton_kernel): its default, or its decision through tuner.engine.decide (the
compiler never times anything itself). Tuned or not, a kernel then launches the same way:
through JITFunction.run once per pointer-alignment pattern, then directly."""
from __future__ import annotations

import functools
import logging
import operator
import sys
import time

import torch
import triton

from tuner.points import triton_kernel as point
from tuner.points.triton_kernel import KernelMeta

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


def alignment_key(args):
    """Which pointer arguments are 16-byte aligned (Triton specializes on it), as a tuple of
    bools; the common case, all aligned, is found with C-level calls only (one launch of a
    model's hundreds pays this on every call in default mode) and keyed as True."""
    ptrs = list(map(_DATA_PTR, args))
    if not functools.reduce(operator.or_, ptrs, 0) & 15:
        return True
    return tuple(p & 15 == 0 for p in ptrs)


class Launcher:
    """One generated kernel: `meta` (tuner.points.triton_kernel.KernelMeta) is what codegen says
    about it. Default mode launches the point's default config (or `config`); with `autotune`
    the first call asks the point for a decision with its arguments. `stats` is the graph's
    GraphStats: tuning decisions and seconds are counted there, and TUNER_TUNE_BUDGET_S bounds
    the graph's tuning time."""

    def __init__(self, fn, meta: KernelMeta, out_args, autotune=False, *, config=None, stats=None):
        self.fn = fn
        self.meta = meta
        self.kind = meta.kind
        self.source = meta.source
        self.xnumel = meta.xnumel
        self.default = dict(config) if config is not None else point.default_config(meta)
        self.autotune = autotune and meta.kind in point.TUNABLE_KINDS
        self.config = None if self.autotune else dict(self.default)
        self.out_args = out_args     # positions of arguments the kernel writes
        self.stats = stats
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
        m = self.meta
        if m.mm is not None:
            b, rows, cols, _ = m.mm
            return (b * triton.cdiv(rows, cfg["BLOCK_M"]) * triton.cdiv(cols, cfg["BLOCK_N"]),)
        if m.parts is not None:
            return (sum(triton.cdiv(p, cfg["XBLOCK"]) for p in m.parts),)
        n = triton.cdiv(m.xnumel, cfg["XBLOCK"])
        if m.ynumel is not None:
            n *= triton.cdiv(m.ynumel, cfg["YBLOCK"])
        return (n,)

    def _launch(self, cfg, args):
        return self.fn[self.grid(cfg)](*args, **cfg)

    def _warmup(self, cfg, args):
        return self.fn.warmup(*args, grid=self.grid(cfg), **cfg)

    def problem(self, args=()):
        """The tuning cache's problem key for these arguments (the point's `problem_key`)."""
        return point.problem_key(self.meta, point.dtype_names(args))

    def _tune(self, args):
        """The point's decision for this kernel (its config dict); counted in the graph's
        stats, within what is left of the graph's tuning budget."""
        stats = self.stats
        left = point.budget_left(stats.tuning_seconds) if stats is not None else None
        start = time.perf_counter()
        try:
            d = point.decide_config(self.meta, args, self._launch, out_args=self.out_args,
                                    warmup=self._warmup, max_seconds=left)
        except ImportError as e:   # engine not importable: keep the default config
            log.debug("autotune unavailable (%s): default config", e)
            return dict(self.default)
        self.decision = d
        if stats is not None and stats.count_decision(d, time.perf_counter() - start):
            from tuner.settings import settings
            if "autotune" in settings.logs:
                print(stats.tuning_report(settings.tune_budget_s), file=sys.stderr, flush=True)
        return point.config_dict(d.choice)


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
