"""What launching a compiled Triton kernel straight through its launcher needs (runtime/
launch.py's generated kernels, runtime/static_launch.py's cubins, compiler/gqa_decode.py's
kernels): whether this Triton's launcher takes every argument, that no launch hook is
installed, and the raw CUDA stream of a device."""
from __future__ import annotations

import os

import torch


def _fast_launch_supported():
    """Whether compiled kernels can be launched directly, skipping JITFunction.run's per-call
    argument binding and specialization (tens of microseconds of Python per launch, which a
    graph with hundreds of small kernels, GPT-2's, pays on every call). Needs a Triton whose
    launcher takes every argument, constexprs included (3.3 and later; checked on the source,
    not the version string), and not the interpreter."""
    import inspect
    from tuner.settings import settings
    if os.environ.get("TRITON_INTERPRET", "0") == "1" or not settings.fast_launch:
        return False
    try:
        from triton import knobs  # noqa: F401
        from triton.runtime.jit import JITFunction
        src = inspect.getsource(JITFunction.run)
    except Exception:
        return False
    return "*bound_args.values()" in src and "kernel.packed_metadata" in src


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
    """device index -> raw CUDA stream (torch's getter skips the driver's per-call lookups)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    from triton.runtime.driver import driver
    return driver.active.get_current_stream
