"""What the kernel-config point asks of this process's GPU: whether a template may take
Hopper's variant (TMA), its SM count (a persistent template's programs) and its limits (a
template's shared memory). Each is probed once per process."""
from __future__ import annotations

import functools
import os

from tuner.space import DeviceLimits


@functools.lru_cache(maxsize=None)
def tma_device() -> bool:
    """Whether templates here may take Hopper's variant: a Triton with device-side tensor
    descriptors, on a GPU of compute capability 9 or later (or under Triton's interpreter)."""
    import triton
    import triton.language as tl
    if not hasattr(tl, "make_tensor_descriptor") or not hasattr(triton, "set_allocator"):
        return False
    if os.environ.get("TRITON_INTERPRET", "0") == "1":
        return True
    try:
        import torch
        return torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)
    except Exception:  # noqa: BLE001 - no readable GPU: no variant
        return False


@functools.lru_cache(maxsize=None)
def sm_count() -> int:
    """Programs of a persistent template: the GPU's SMs (4 under the interpreter, so its loop
    over the tiles runs more than once on small tests)."""
    try:
        import torch
        if torch.cuda.is_available():
            return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    except Exception:  # noqa: BLE001
        pass
    return 4


@functools.lru_cache(maxsize=None)
def device_limits() -> DeviceLimits:
    """This process's GPU limits (DeviceLimits.current)."""
    return DeviceLimits.current()
