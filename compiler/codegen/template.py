"""Matmul template kernels: mm / bmm / addmm as a Triton K loop with the group's pointwise
epilogue fused before the only store.

Programs tile the output in BLOCK_M x BLOCK_N tiles, in groups of GROUP_M rows of tiles (so
consecutive programs reuse the same columns of mat2 from L2), with the batch folded into the
one grid axis. Loads are masked for any M, N, K; operands may have any strides (a transposed
weight, a batched view), read with fp32 accumulation (TF32 only when torch allows it).
The epilogue's nodes see the output element (b, m, n) as the index symbols tb, rm, rn of a
[BLOCK_M, BLOCK_N] tile; a read of the template's own result is the accumulator, rounded to the
output dtype as an ATen matmul's result would be.

Tunables: BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M (constexprs), num_warps, num_stages; the
kernel-config point (tuner/points/triton_kernel.py) owns their default, candidates and space.
"""
from __future__ import annotations

import torch

from .. import ir
from .. import sym as S
from ..ops import use
from tuner.points.triton_kernel import KernelMeta

from .triton import TL, CSEVar, TritonKernel, compute_dtype

TB, RM, RN = S.sym("tb"), S.sym("rm"), S.sym("rn")


class TemplateKernel(TritonKernel):
    kind = "template"

    def __init__(self, group, scheduler, max_persistent_r=8192, name="kernel"):
        super().__init__(group, scheduler, max_persistent_r, name)
        self.tile = None
        self.template = next(n for n in group.nodes if n.kind == "template")
        t = self.template
        self.batch = t.ranges[0] if len(t.ranges) == 3 else 1
        self.m, self.n = t.ranges[-2:]
        self.k = t.mat1.size[-1]
        self.produced[t.buffer.name] = t
        self.bounds = {"tb": self.batch - 1, "rm": self.m - 1, "rn": self.n - 1}
        # the flat output index in the template's (b, m, n) order: an epilogue node whose loop
        # dims are another split of the same elements indexes through it (fusion checked it)
        self.flat = TB * (self.m * self.n) + RM * self.n + RN

    def _node_idx(self, node):
        if tuple(node.ranges) == tuple(self.template.ranges):
            return [TB, RM, RN] if len(node.ranges) == 3 else [RM, RN]
        return S.unflatten(self.flat, node.ranges)

    def _full_block(self, names):
        return {"rm", "rn"} <= names

    def default_mask(self, needs_r):
        return "xmask"

    # An epilogue operand indexed by the tile's columns alone (a bias), its rows alone, or
    # neither is loaded in its own shape ([1, BLOCK_N], [BLOCK_M, 1], a scalar) under the mask
    # of the dimensions it has, and broadcasts against the tile in the arithmetic. Loaded as a
    # full tile (a pointer broadcast to the block, masked by xmask), a bias made fp32 addmm
    # 8014 x 1024 x 3 + ReLU take 0.72 ms at BLOCK_K 32 on the H200 where its row load takes
    # 0.022 (scripts/probes/template_tiny_k_variants.py; cuBLAS + ReLU 0.034).
    # Only an index over the tile's own variables narrows: a gather's index variable (t4, from
    # indirect_indexing) has the whole tile's shape and keeps xmask.
    def _narrow(self, names) -> bool:
        return not self.mask_stack and not self._full_block(names) and names <= {"tb", "rm", "rn"}

    def _mask_for(self, index):
        names = S.free_names(index)
        if not self._narrow(names):
            return super()._mask_for(index)
        dims = [f"({d} < {bound})" for d, bound in (("rm", self.m), ("rn", self.n)) if d in names]
        return " & ".join(dims) or None

    def _block_pointer(self, names) -> bool:
        return not self._narrow(names) and not self._full_block(names)

    def load(self, name, index):
        if name == self.template.buffer.name:
            return self.acc_value
        return super().load(name, index)

    def store(self, node, value):
        index = S.with_bounds(node.store_index(self._node_idx(node)), self.bounds)
        ptr = self.arg(ir.storage_name(node.buffer), "out")
        idx = S.texpr(index)
        if not {"rm", "rn"} <= S.free_names(index):
            idx = f"{idx} + 0 * rm + 0 * rn"
        self.emit(f"tl.store({ptr} + {idx}, {value}.to({TL[node.buffer.dtype]}), xmask)")

    def codegen(self):
        self.indent = 1
        with use(self):
            self._template()
        return self._render()

    def _operand(self, view, rows, cols):
        """Pointer expression of an operand tile: rows/cols are the block index names."""
        st = view.stride
        b = f"tb * {st[0]} + " if len(view.size) == 3 else ""
        return f"{self.arg(view.buffer.name, 'in')} + {view.offset} + {b}{rows} * {st[-2]} + {cols} * {st[-1]}"

    def _template(self):
        t = self.template
        a, b = t.mat1, t.mat2
        m, n, k = self.m, self.n, self.k
        pid = "tl.program_id(0).to(tl.int64)" if self.int64 else "tl.program_id(0)"
        emit = self.emit
        emit(f"pid = {pid}")
        emit(f"grid_m = ({m} + BLOCK_M - 1) // BLOCK_M")
        emit(f"grid_n = ({n} + BLOCK_N - 1) // BLOCK_N")
        emit("tiles = grid_m * grid_n")
        emit("tb = pid // tiles")
        emit("tile = pid % tiles")
        # grouped order: GROUP_M rows of tiles walk their columns together (L2 reuse of mat2)
        emit("width = GROUP_M * grid_n")
        emit("first_m = (tile // width) * GROUP_M")
        emit("group_m = tl.minimum(grid_m - first_m, GROUP_M)")
        emit("pid_m = first_m + (tile % width) % group_m")
        emit("pid_n = (tile % width) // group_m")
        emit("rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]")
        emit("rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]")
        emit("rk = tl.arange(0, BLOCK_K)")
        emit(f"a_ptrs = {self._operand(a, 'rm', 'rk[None, :]')}")
        emit(f"b_ptrs = {self._operand(b, 'rk[:, None]', 'rn')}")
        emit("acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)")
        emit(f"for k0 in range(0, {k}, BLOCK_K):")
        self.indent += 1
        emit(f"a_tile = tl.load(a_ptrs, mask=(rm < {m}) & (rk[None, :] + k0 < {k}), other=0.0)")
        emit(f"b_tile = tl.load(b_ptrs, mask=(rk[:, None] + k0 < {k}) & (rn < {n}), other=0.0)")
        emit(f"acc += tl.dot(a_tile, b_tile{self._precision(a.dtype)})")
        emit(f"a_ptrs += BLOCK_K * {a.stride[-1]}")
        emit(f"b_ptrs += BLOCK_K * {b.stride[-2]}")
        self.indent -= 1
        emit(f"xmask = (rm < {m}) & (rn < {n})")
        # a zero tile: loads whose index misses rm or rn are broadcast against it
        emit(f"x = tl.zeros([BLOCK_M, BLOCK_N], dtype={'tl.int64' if self.int64 else 'tl.int32'})")
        out = t.buffer.dtype
        # the matmul's result as ATen would return it: rounded to the output dtype
        self.acc_value = CSEVar(f"acc.to({TL[out]}).to({TL[compute_dtype(out)]})"
                                if compute_dtype(out) != out else "acc", out)
        for node in self.group.nodes:
            if node.buffer.name in self.internal:
                continue
            v = self.acc_value if node is t else (self.values.get(node.buffer.name) or self.node_value(node))
            self.values[node.buffer.name] = v
            self.store(node, v)

    @staticmethod
    def _precision(dtype):
        if dtype == torch.float32 and not torch.backends.cuda.matmul.allow_tf32:
            return ", input_precision='ieee'"
        return ""

    def _render(self):
        params = list(self.args.values())
        consts = ["BLOCK_M: tl.constexpr", "BLOCK_N: tl.constexpr", "BLOCK_K: tl.constexpr",
                  "GROUP_M: tl.constexpr"]
        head = ["@triton.jit", f"def {self.name}({', '.join(params + consts)}):"]
        return "\n".join(head + self.lines) + "\n"

    # -- metadata --------------------------------------------------------------------
    def meta(self, source: str, bucketed: bool = False) -> KernelMeta:
        return KernelMeta("template", source, xnumel=self.xnumel,
                          mm=(self.batch, self.m, self.n, self.k),
                          mm_dtype=str(self.template.mat1.dtype).replace("torch.", ""),
                          dtypes=self.arg_dtypes(), bucketed=bucketed)

    def grid_size(self, cfg):
        return self.batch * (-(-self.m // cfg["BLOCK_M"])) * (-(-self.n // cfg["BLOCK_N"]))
