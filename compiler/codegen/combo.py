"""Combo kernels: independent pointwise groups of different sizes in one launch.

Each sub-kernel keeps its own body (vertical fusion inside it, as a 1-D pointwise kernel) and
takes a contiguous range of program ids: with one XBLOCK for all, sub-kernel i runs programs
[start_i, start_i + cdiv(n_i, XBLOCK)), so every program works on a slice of one tensor and a
launch covers them all (an optimizer step's hundreds of per-tensor kernels become a few
launches). Pointer arguments are shared between sub-kernels that read the same buffer.

Tunables: XBLOCK and num_warps for the whole launch (the grid is the sum of the ranges); the
kernel-config point (tuner/points/triton_kernel.py) owns their default and space.
"""
from __future__ import annotations

from tuner.points.triton_kernel import KernelMeta

from ..ops import use
from .triton import TritonKernel, _interpret


def combinable(kernel: TritonKernel) -> bool:
    """Whether a group's kernel can be a combo sub-kernel: 1-D pointwise, nothing else."""
    return not (kernel.reduction or kernel.scatter or kernel.tile) and kernel.xnumel > 0


class ComboKernel:
    kind = "combo"

    def __init__(self, kernels: list[TritonKernel], name="kernel"):
        self.subs = kernels
        self.name = name
        self.numels = [k.xnumel for k in kernels]
        self.xnumel = sum(self.numels)
        self.args: dict[str, str] = {}
        self.arg_kind: dict[str, str] = {}
        self.indirect = False
        self.reduction = self.scatter = False
        self.tile = None

    def codegen(self):
        int64 = any(k.int64 for k in self.subs)
        lines = ["    pid = tl.program_id(0).to(tl.int64)" if int64 else "    pid = tl.program_id(0)"]
        # the first program of each range: constexpr arithmetic on XBLOCK
        for i, k in enumerate(self.subs):
            acc = f"(({k.xnumel} + XBLOCK - 1) // XBLOCK)" if i == 0 else \
                f"(start{i} + ({k.xnumel} + XBLOCK - 1) // XBLOCK)"
            lines.append(f"    start{i + 1} = {acc}")
        count = 0
        for i, k in enumerate(self.subs):
            # one pointer namespace for the launch; variable names unique across branches
            # (Triton checks that a name assigned in two branches has one type)
            k.args, k.arg_kind, k.count, k.int64 = self.args, self.arg_kind, count, int64
            k.pid_base = f"start{i}" if i else None
            k.lines, k.indent = [], 2
            with use(k):
                k._pointwise()
            count = k.count
            self.indirect = self.indirect or k.indirect
            lines.append(f"    {'if' if i == 0 else 'elif'} pid < start{i + 1}:")
            lines += k.lines
        params = list(self.args.values())
        deco = "@triton.jit(debug=True)" if self.indirect and not _interpret() else "@triton.jit"
        head = [deco, f"def {self.name}({', '.join(params + ['XBLOCK: tl.constexpr'])}):"]
        return "\n".join(head + lines) + "\n"

    def meta(self, source: str, bucketed: bool = False) -> KernelMeta:
        bufs = self.subs[0].sched.graph.buffers
        dtypes = tuple(str(bufs[n].dtype).replace("torch.", "") if n in bufs else "" for n in self.args)
        return KernelMeta("combo", source, xnumel=self.xnumel, parts=tuple(self.numels),
                          dtypes=dtypes, bucketed=bucketed)
