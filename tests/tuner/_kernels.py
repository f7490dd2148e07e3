"""Triton kernels the tuner tests run under the interpreter (imported by tests and subprocesses)."""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported (subprocess use)

import sys  # noqa: E402

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import tuner  # noqa: E402
from tuner.space import Config, ConfigSpace  # noqa: E402


# kernels written the way the compiler emits them (a masked block, a looped reduction)
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


ADD_CONFIGS = [Config({"XBLOCK": 16}, num_warps=1, num_stages=1),
               Config({"XBLOCK": 64}, num_warps=2, num_stages=1),
               Config({"XBLOCK": 256}, num_warps=4, num_stages=1)]

add = tuner.autotune(configs=ADD_CONFIGS, key=["n"])(add_kernel)


def add_grid(meta):
    return (triton.cdiv(meta["n"], meta["XBLOCK"]),)


def row_sum_grid(meta):
    return (triton.cdiv(meta["rows"], meta["XBLOCK"]),)


row_sum = tuner.autotune(
    configs=[Config({"XBLOCK": 1, "RBLOCK": 32}, num_warps=1, num_stages=1),
             Config({"XBLOCK": 4, "RBLOCK": 16}, num_warps=1, num_stages=1)],
    key=["rows", "cols"], search="coordinate_descent",
    space=lambda args: ConfigSpace.reduction(args["rows"], args["cols"]),
    search_options={"max_sweeps": 2})(row_sum_kernel)


@triton.jit
def add_inplace_kernel(x_ptr, y_ptr, n, XBLOCK: tl.constexpr):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@triton.jit
def atomic_sum_kernel(x_ptr, out_ptr, n, XBLOCK: tl.constexpr):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))


def run_add(n=64, seed=0):
    """Launch the module-level tuned `add` once; returns (ok, decision source, measured)."""
    import torch
    g = torch.Generator().manual_seed(seed)
    x, y = torch.randn(n, generator=g), torch.randn(n, generator=g)
    out = torch.empty(n)
    add[add_grid](x, y, out, n)
    d = add.last_decision
    return bool(torch.allclose(out, x + y)), d.source, d.n_measured, str(d.choice)


if __name__ == "__main__":  # used by the cross-process cache test
    import json
    import sys
    print(json.dumps(run_add(int(sys.argv[1]))))
