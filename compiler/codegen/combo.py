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

import re

import torch

from tuner.points.triton_kernel import KernelMeta

from ..ops import use
from .triton import TL, TritonKernel, _interpret


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


# -- foreach table kernels ------------------------------------------------------------------

def table_body(kernel: TritonKernel):
    """The part of a 1-D pointwise kernel that does not depend on its tensors' addresses or
    its extent, as (text, columns), or None where it cannot go in a table kernel. Groups with
    equal bodies (an optimizer's per-parameter updates) differ only in the tensors they touch
    and how many elements: one compiled body serves them all, reading each part's pointers and
    extent from tables (ForeachKernel). columns: (name in the body, kind, dtype) per pointer, in body order."""
    if not combinable(kernel) or kernel.int64:
        return None
    kernel.args, kernel.arg_kind, kernel.count = {}, {}, 0
    kernel.lines, kernel.indent, kernel.table_part = [], 1, True
    kernel.cache, kernel.values = {}, {}
    try:
        with use(kernel):
            kernel._pointwise()
    finally:
        kernel.table_part = False
    if kernel.indirect:
        return None
    bufs = kernel.sched.graph.buffers
    cols = []
    for name in kernel.args:
        b = bufs.get(name)
        if b is None or b.dtype not in TL or b.dtype == torch.bool:
            return None
        cols.append((kernel.args[name], kernel.arg_kind[name], TL[b.dtype]))
    return "\n".join(kernel.lines), tuple(cols)


class ForeachKernel:
    """Many 1-D pointwise groups in one launch, whatever their number, compiled once per
    distinct body (`table_body`), not once per group: the kernel takes a table of pointers (a
    row per part, a column per pointer of its body) and, per program, which part and which
    block of it to run; a part's body index picks its branch. The launcher
    (runtime/launch.py ForeachLauncher) builds the tables. An optimizer step's per-parameter
    updates share one or two bodies: a 148-tensor AdamW step is one small kernel (combo
    kernels compiled a branch per tensor: 30-50 s of Triton compile on the H100)."""
    kind = "foreach"

    def __init__(self, kernels: list[TritonKernel], bodies: list, name="tk_foreach"):
        self.subs = kernels
        self.name = name
        self.bodies: list = []          # distinct (text, columns), in first-seen order
        self.body_of: list[int] = []    # per part: its body's index
        for b in bodies:
            if b not in self.bodies:
                self.bodies.append(b)
            self.body_of.append(self.bodies.index(b))
        self.ncol = max(len(cols) for _, cols in self.bodies)
        self.numels = [k.xnumel for k in kernels]
        self.xnumel = sum(self.numels)
        # the launch's arguments: every part's buffers, part-major (the wrapper passes them)
        self.args: dict[str, str] = {}
        self.arg_names: list[str] = []
        self.arg_kind: dict[str, str] = {}
        self.slots: list[int] = []      # per argument: its place in the pointer table
        self.written: list[int] = []    # arguments the kernel writes
        for i, k in enumerate(kernels):
            for j, name in enumerate(k.args):
                if k.arg_kind[name] != "in":
                    self.written.append(len(self.arg_names))
                self.slots.append(i * self.ncol + j)
                self.arg_names.append(name)
                kind = k.arg_kind[name]
                prev = self.arg_kind.get(name)
                self.arg_kind[name] = kind if prev in (None, kind) else "inout"
                self.args.setdefault(name, name)
        self.indirect = False
        self.reduction = self.scatter = False
        self.tile = None

    def codegen(self):
        lines = ["    pid = tl.program_id(0)",
                 "    part = tl.load(part_of + pid)",
                 "    xoffset = tl.load(block_of + pid) * XBLOCK",
                 "    x = xoffset + tl.arange(0, XBLOCK)",
                 "    xmask = x < tl.load(numels + part)",
                 f"    row = ptrs + part * {self.ncol}"]
        many = len(self.bodies) > 1
        if many:
            lines.append("    body = tl.load(body_of + part)")
        for b, (text, cols) in enumerate(self.bodies):
            pad = "    " * (2 if many else 1)
            if many:
                lines.append(f"    {'if' if b == 0 else 'elif'} body == {b}:")
                # names unique across branches (Triton wants one type per name)
                text = _VAR.sub(lambda m: f"b{b}_{m.group(0)}", text)
            for j, (name, _kind, dt) in enumerate(cols):
                name = f"b{b}_{name}" if many else name
                lines.append(f"{pad}{name} = tl.load(row + {j}).to(tl.pointer_type({dt}))")
                # parts' tensors 16-byte aligned (the launcher checks; else MISALIGNED): loads
                # and stores vectorize as they do from pointer arguments
                lines.append(f"{pad}if not MISALIGNED:\n{pad}    {name} = tl.multiple_of({name}, 16)")
            lines += ["    " * (1 if many else 0) + ln for ln in text.splitlines()]
        head = ["@triton.jit",
                f"def {self.name}(ptrs, part_of, block_of, numels, body_of, XBLOCK: tl.constexpr, "
                "MISALIGNED: tl.constexpr):"]
        return "\n".join(head + lines) + "\n"

    def meta(self, source: str, bucketed: bool = False) -> KernelMeta:
        dtypes = tuple(dt.replace("tl.", "") for _, cols in self.bodies for _, _, dt in cols)
        return KernelMeta("foreach", source, xnumel=self.xnumel, parts=tuple(self.numels),
                          dtypes=dtypes, bucketed=bucketed)


_VAR = re.compile(r"\b(?:t\d+|(?:in|out)_ptr\d+)\b")
