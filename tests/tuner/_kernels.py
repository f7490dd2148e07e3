"""Triton kernels the tuner tests run under the interpreter (imported by tests and subprocesses)."""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import tuner  # noqa: E402
from tuner.space import Config, ConfigSpace  # noqa: E402


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, XBLOCK: tl.constexpr):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    row = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    acc = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        mask = (row < rows) & (col < cols)
        acc += tl.load(x_ptr + row * cols + col, mask=mask, other=0.0)
    total = tl.sum(acc, axis=1)[:, None]
    tl.store(out_ptr + row, total, mask=row < rows)


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
