"""Sample Triton kernels written the way the compiler emits them (masked blocks, looped
reductions): the subjects of scripts/bench_search.py and bench_autotune_cold_warm.py, and the
kernels tests/tuner runs under the interpreter.

Import this module only after TRITON_INTERPRET is set: triton.jit fixes the interpreter mode
when a kernel is decorated.
"""
import triton
import triton.language as tl


@triton.jit
def scale_shift_kernel(x_ptr, out_ptr, n, XBLOCK: tl.constexpr):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * 2.0 + 1.0, mask=m)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, XBLOCK: tl.constexpr):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def transpose_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, YBLOCK: tl.constexpr):
    # x is (rows, cols) row-major; out is (cols, rows). X walks cols (contiguous reads).
    c = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[None, :]
    r = tl.program_id(1) * YBLOCK + tl.arange(0, YBLOCK)[:, None]
    m = (r < rows) & (c < cols)
    tl.store(out_ptr + c * rows + r, tl.load(x_ptr + r * cols + c, mask=m), mask=m)


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    row = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    acc = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        acc += tl.load(x_ptr + row * cols + col, mask=(row < rows) & (col < cols), other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=1)[:, None], mask=row < rows)


@triton.jit
def col_sum_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    col = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[None, :]
    acc = tl.zeros([RBLOCK, XBLOCK], dtype=tl.float32)
    for start in range(0, rows, RBLOCK):
        row = start + tl.arange(0, RBLOCK)[:, None]
        acc += tl.load(x_ptr + row * cols + col, mask=(row < rows) & (col < cols), other=0.0)
    tl.store(out_ptr + col, tl.sum(acc, axis=0)[None, :], mask=col < cols)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    row = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    rmask = row < rows
    mx = tl.full([XBLOCK, RBLOCK], float("-inf"), tl.float32)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        x = tl.load(x_ptr + row * cols + col, mask=rmask & (col < cols), other=float("-inf"))
        mx = tl.maximum(mx, x)
    rmax = tl.max(mx, axis=1)[:, None]
    acc = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        x = tl.load(x_ptr + row * cols + col, mask=rmask & (col < cols), other=float("-inf"))
        acc += tl.exp(x - rmax)
    denom = tl.sum(acc, axis=1)[:, None]
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        m = rmask & (col < cols)
        x = tl.load(x_ptr + row * cols + col, mask=m, other=float("-inf"))
        tl.store(out_ptr + row * cols + col, tl.exp(x - rmax) / denom, mask=m)


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, rows, cols, eps,
                     XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    row = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    rmask = row < rows
    s = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    sq = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        x = tl.load(x_ptr + row * cols + col, mask=rmask & (col < cols), other=0.0)
        s += x
        sq += x * x
    mean = tl.sum(s, axis=1)[:, None] / cols
    var = tl.sum(sq, axis=1)[:, None] / cols - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        m = rmask & (col < cols)
        x = tl.load(x_ptr + row * cols + col, mask=m, other=0.0)
        w = tl.load(w_ptr + col, mask=col < cols, other=1.0)
        b = tl.load(b_ptr + col, mask=col < cols, other=0.0)
        tl.store(out_ptr + row * cols + col, (x - mean) * rstd * w + b, mask=m)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    # grouped ordering: neighbouring programs share A rows in L2
    width = GROUP_M * grid_n
    group = pid // width
    first_m = group * GROUP_M
    size_m = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % size_m)
    pid_n = (pid % width) // size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))
