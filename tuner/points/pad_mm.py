"""The pad_mm autotuning point: pad a matmul's unaligned dimensions, or run it as it is.

mm, bmm and addmm whose m, k or n is not a multiple of 16 bytes' worth of elements (8 for
fp16/bf16, 4 for fp32) can run faster on padded operands (aligned loads, tensor-core
kernels) even after paying for the copies. `padded_matmul` computes the padded product and
slices it back, so its result equals the plain one; `decide_pad_mm` answers "pad" or "orig"
in the usual order: learned heuristic (when confident) -> cache -> benchmark both -> store.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from tuner.heuristics.contexts import DTYPES, PadMMContext, round_up

NAMESPACE = "pad_mm"
# "orig" first: the engine treats candidates[0] as the default it reports speedups against.
CANDIDATES = ("orig", "pad")


# -- padding ---------------------------------------------------------------------------------

def is_transposed(t: torch.Tensor) -> bool:
    """Column-major in its last two dims (a transposed contiguous matrix)."""
    return strides_transposed(t.stride())


def strides_transposed(stride) -> bool:
    """`is_transposed` for a layout given as strides (the compiler's IR has no tensors)."""
    return stride[-1] != 1 and stride[-2] == 1


def pad_to(t: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    """Zero-pad the last two dims to (rows, cols), keeping row- or column-major order."""
    r, c = t.shape[-2:]
    if (r, c) == (rows, cols):
        return t
    if is_transposed(t):
        # pad the contiguous transposed view so the copy stays column-major like its source
        return F.pad(t.transpose(-1, -2), (0, rows - r, 0, cols - c)).transpose(-1, -2)
    return F.pad(t, (0, cols - c, 0, rows - r))


def _pad_bias(bias: torch.Tensor, m: int, n: int, pm: int, pn: int) -> torch.Tensor:
    # Broadcast dims (size 1, or absent) stay as they are; full dims are padded with zeros.
    if bias.dim() == 0:
        return bias
    if bias.dim() == 1:
        return bias if bias.shape[0] == 1 else F.pad(bias, (0, pn - bias.shape[0]))
    rows = pm if bias.shape[-2] == m and m != 1 else bias.shape[-2]
    cols = pn if bias.shape[-1] == n and n != 1 else bias.shape[-1]
    return pad_to(bias, rows, cols)


def matmul(op: str, mat1, mat2, bias=None, *, beta=1, alpha=1) -> torch.Tensor:
    if op == "mm":
        return torch.mm(mat1, mat2)
    if op == "bmm":
        return torch.bmm(mat1, mat2)
    if op == "addmm":
        return torch.addmm(bias, mat1, mat2, beta=beta, alpha=alpha)
    raise ValueError(f"pad_mm: unsupported op {op!r}")


def padded_matmul(op: str, mat1, mat2, bias=None, *, beta=1, alpha=1, align: int | None = None,
                  mat1_padded=None, mat2_padded=None) -> torch.Tensor:
    """`matmul` on operands padded to multiples of `align`, sliced back to (…, m, n).

    The padding is zeros along k (adds nothing to any dot product) and extra rows/columns
    along m and n that the slice drops. `mat1_padded`/`mat2_padded` are operands the caller
    already holds padded (produced padded for free), used instead of padding again.
    The result is a view with the padded row stride.
    """
    m, k = mat1.shape[-2:]
    n = mat2.shape[-1]
    if align is None:
        align = PadMMContext(op, m, k, n, _dtype_name(mat1.dtype)).alignment
    pm, pk, pn = round_up(m, align), round_up(k, align), round_up(n, align)
    a = mat1_padded if mat1_padded is not None else pad_to(mat1, pm, pk)
    b = mat2_padded if mat2_padded is not None else pad_to(mat2, pk, pn)
    if op == "addmm":
        bias = _pad_bias(bias, m, n, pm, pn)
    return matmul(op, a, b, bias, beta=beta, alpha=alpha)[..., :m, :n]


# -- problems --------------------------------------------------------------------------------

def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def context_from_tensors(op: str, mat1, mat2, bias=None, *, mat1_prepadded: bool = False,
                         mat2_prepadded: bool = False, tf32: bool | None = None) -> PadMMContext | None:
    """The features of a matmul call (tensors may be fake); None for unsupported dtypes."""
    if mat2.dtype != mat1.dtype:
        return None
    return context_from_layout(op, tuple(mat1.shape), tuple(mat1.stride()), tuple(mat2.shape),
                               tuple(mat2.stride()), mat1.dtype, mat1_prepadded=mat1_prepadded,
                               mat2_prepadded=mat2_prepadded, tf32=tf32)


def context_from_layout(op: str, size1, stride1, size2, stride2, dtype: torch.dtype, *,
                        mat1_prepadded: bool = False, mat2_prepadded: bool = False,
                        tf32: bool | None = None) -> PadMMContext | None:
    """`context_from_tensors` from sizes and strides (both operands of one dtype), as a
    compiler sees them before any tensor exists; None for unsupported dtypes."""
    dtype = _dtype_name(dtype)
    if dtype not in DTYPES:
        return None
    if tf32 is None:
        tf32 = bool(torch.backends.cuda.matmul.allow_tf32)
    m, k = (int(s) for s in size1[-2:])
    n = int(size2[-1])
    return PadMMContext(
        op=op, m=m, k=k, n=n, dtype=dtype, batch=int(size1[0]) if op == "bmm" else 1,
        mat1_transposed=strides_transposed(stride1), mat2_transposed=strides_transposed(stride2),
        mat1_prepadded=mat1_prepadded, mat2_prepadded=mat2_prepadded,
        tf32=bool(tf32) and dtype == "float32",
        mat1_strides=tuple(int(s) for s in stride1[-2:]),
        mat2_strides=tuple(int(s) for s in stride2[-2:]))


def _matrix(batch: int, rows: int, cols: int, transposed: bool, op: str, **kw) -> torch.Tensor:
    shape = (batch, cols, rows) if transposed else (batch, rows, cols)
    t = torch.randn(*shape, **kw)
    if transposed:
        t = t.transpose(-1, -2)
    return t if op == "bmm" else t[0]


def make_operands(ctx: PadMMContext, device="cpu", generator: torch.Generator | None = None):
    """Random operands with the context's sizes, dtype and layouts: (mat1, mat2, bias)."""
    kw = dict(device=device, dtype=getattr(torch, ctx.dtype), generator=generator)
    mat1 = _matrix(ctx.batch, ctx.m, ctx.k, ctx.mat1_transposed, ctx.op, **kw)
    mat2 = _matrix(ctx.batch, ctx.k, ctx.n, ctx.mat2_transposed, ctx.op, **kw)
    bias = torch.randn(ctx.n, **kw) if ctx.op == "addmm" else None
    return mat1, mat2, bias


def runners(ctx: PadMMContext, mat1, mat2, bias=None) -> dict[str, callable]:
    """A no-argument callable per choice. Padding is inside the "pad" callable (its cost is
    part of the choice) except for operands the producer can emit padded for free."""
    pm, pk, pn = ctx.padded_sizes()
    pre1 = pad_to(mat1, pm, pk) if ctx.mat1_prepadded else None
    pre2 = pad_to(mat2, pk, pn) if ctx.mat2_prepadded else None
    return {
        "orig": lambda: matmul(ctx.op, mat1, mat2, bias),
        "pad": lambda: padded_matmul(ctx.op, mat1, mat2, bias, align=ctx.alignment,
                                     mat1_padded=pre1, mat2_padded=pre2),
    }


class tf32_mode:
    """Context manager setting TF32 for matmuls while measuring, restored afterwards."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __enter__(self):
        self.old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = self.enabled

    def __exit__(self, *exc):
        torch.backends.cuda.matmul.allow_tf32 = self.old


# -- the decision ----------------------------------------------------------------------------

def decide_pad_mm(ctx: PadMMContext | None, device="cuda"):
    """"pad" or "orig" for one problem; see `pad_mm_decision` for the full record."""
    decision = pad_mm_decision(ctx, device)
    return "orig" if decision is None else decision.choice


def pad_mm_decision(ctx: PadMMContext | None, device="cuda"):
    """The engine's Decision for a problem, or None when there is nothing to decide
    (unsupported dtype, or every dimension already aligned: "orig" at once)."""
    if ctx is None or not ctx.needs_padding():
        return None
    from tuner.bench import benchmark, real_tensors
    from tuner.engine import decide
    from tuner.heuristics.registry import device_info, lookup

    state: dict = {}

    def measure(choice):
        # Operands are made on first use only: a heuristic or cache answer allocates nothing.
        # Real ones even when a compiler asks while tracing (under its FakeTensorMode).
        with real_tensors():
            if "fns" not in state:
                state["fns"] = runners(ctx, *make_operands(ctx, device))
            try:
                with tf32_mode(ctx.tf32):
                    return benchmark(state["fns"][choice], device=str(device))
            except (RuntimeError, torch.cuda.OutOfMemoryError):
                return float("inf")

    try:
        return decide(NAMESPACE, ctx.signature(), list(CANDIDATES), measure,
                      heuristic=lambda: lookup(NAMESPACE, ctx, device_info(device)),
                      features=ctx.features(),
                      backend_extra={"tf32": ctx.tf32})
    finally:
        state.clear()
