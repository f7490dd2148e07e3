"""Triton's interpreter with float32 -> bfloat16 casts rounded to nearest even, as a GPU's.

Imported by tests/conftest.py for every test (the CPU tests run generated kernels in the
interpreter) and by the OpInfo sweep's workers (tests/compiler/opinfo_runner.py). No side
effect on import: the patch is installed by calling interpreter_rounds_bfloat16()."""
import functools


@functools.cache
def interpreter_rounds_bfloat16() -> bool:
    """Makes Triton's interpreter round float32 -> bfloat16 casts to nearest even, as a GPU's
    cvt.rn.bf16.f32 does (its emulation truncates when the cast names no rounding mode, which
    put bfloat16 gradients a few ulps off eager's: tanh's 1 - y^2 at y = 0.996 instead of 1);
    casts that name a mode keep the interpreter's handling. Whether it is in place (False: a
    Triton without the private converter, whose casts are its own)."""
    import numpy as np
    import torch
    try:
        import triton.language as tl
        from triton.runtime import interpreter
        convert = interpreter._convert_float
    except (ImportError, AttributeError):
        return False

    def rounded(data, src, dst, rounding_mode):
        if src == tl.float32 and dst == tl.bfloat16 and rounding_mode is None:
            wide = torch.from_numpy(np.ascontiguousarray(data).view(np.float32).copy())
            return wide.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
        return convert(data, src, dst, rounding_mode)
    interpreter._convert_float = rounded
    return True
