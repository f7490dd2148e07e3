"""Matmul template kernels: mm / bmm / addmm as a Triton K loop with the group's pointwise
epilogue fused before the only store.

Programs tile the output in BLOCK_M x BLOCK_N tiles, in groups of GROUP_M rows of tiles (so
consecutive programs reuse the same columns of mat2 from L2), with the batch folded into the
one grid axis. Loads are masked for any M, N, K; operands may have any strides (a transposed
weight, a batched view), read with fp32 accumulation (TF32 only when torch allows it).
The epilogue's nodes see the output element (b, m, n) as the index symbols tb, rm, rn of a
[BLOCK_M, BLOCK_N] tile; a read of the template's own result is the accumulator, rounded to the
output dtype as an ATen matmul's result would be.

Hopper's variant, where it applies (`_tma_plan`): the constexpr TMA (default 0) switches to a
persistent loop over the tiles, at most one program per SM, loading the operands through
device-side TMA descriptors (masked pointer loads where a base pointer is not 16-byte aligned
at run time); the epilogue is the same in every branch.

Tunables: BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M (and TMA) as constexprs, num_warps, num_stages;
the kernel-config point (tuner/points/triton_kernel.py; the kind's policy in kernel_kinds.py) owns
their default, candidates and space.
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
        self.tma_plan = None
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
    # 8014 x 1024 x 3 + ReLU 35x slower than its row load (docs/PERF_NOTES.md).
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

    def tanh(self, a):
        """tanh in an epilogue whose every stored result is fp16/bf16 takes the sigmoid form
        (th.tanh_sigmoid: within 1 unit in the last place of a 16-bit result); libdevice's
        accurate tanhf made a tanh-GELU epilogue cost 55% of the matmul's time, more than
        cuBLAS plus a separate GELU kernel."""
        short = all(node.buffer.dtype in (torch.float16, torch.bfloat16)
                    for node in self.group.nodes if node.buffer.name not in self.internal)
        return self.cse(f"th.{'tanh_sigmoid' if short else 'tanh'}({a})", a.dtype)

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
        m, n = self.m, self.n
        emit = self.emit
        # Hopper's variant where it applies (tma_plan): a persistent loop over the tiles with
        # TMA loads, chosen per config by the TMA constexpr; its epilogue is the plain body's,
        # emitted once and copied (every branch names the same tile variables)
        plan = self.tma_plan = self._tma_plan()
        if plan is not None:
            emit("if TMA:")
            mark = len(self.lines)
            emit("else:")
            self.indent += 1
        pid = "tl.program_id(0).to(tl.int64)" if self.int64 else "tl.program_id(0)"
        emit(f"pid = {pid}")
        self._tile_counts()
        emit("tb = pid // tiles")
        emit("tile = pid % tiles")
        self._tile_coords()
        self._pointer_k_loop()
        self._tile_mask()
        out = t.buffer.dtype
        # the matmul's result as ATen would return it: rounded to the output dtype
        self.acc_value = CSEVar(f"acc.to({TL[out]}).to({TL[compute_dtype(out)]})"
                                if compute_dtype(out) != out else "acc", out)
        start = len(self.lines)
        for node in self.group.nodes:
            if node.buffer.name in self.internal:
                continue
            v = self.acc_value if node is t else (self.values.get(node.buffer.name) or self.node_value(node))
            self.values[node.buffer.name] = v
            self.store(node, v)
        if plan is not None:
            epilogue = self.lines[start:]
            self.indent -= 1
            self.lines[mark:mark] = self._tma_branch(plan, epilogue)

    def _tile_mask(self):
        """xmask of the tile's in-bounds elements and x, a zero tile: loads whose index misses
        rm or rn are broadcast against it."""
        self.emit(f"xmask = (rm < {self.m}) & (rn < {self.n})")
        self.emit(f"x = tl.zeros([BLOCK_M, BLOCK_N], dtype={'tl.int64' if self.int64 else 'tl.int32'})")

    def _tile_counts(self):
        self.emit(f"grid_m = ({self.m} + BLOCK_M - 1) // BLOCK_M")
        self.emit(f"grid_n = ({self.n} + BLOCK_N - 1) // BLOCK_N")
        self.emit("tiles = grid_m * grid_n")

    def _tile_coords(self):
        """pid_m, pid_n of `tile` and the tile's row and column indices rm, rn."""
        emit = self.emit
        # grouped order: GROUP_M rows of tiles walk their columns together (L2 reuse of mat2)
        emit("width = GROUP_M * grid_n")
        emit("first_m = (tile // width) * GROUP_M")
        emit("group_m = tl.minimum(grid_m - first_m, GROUP_M)")
        emit("pid_m = first_m + (tile % width) % group_m")
        emit("pid_n = (tile % width) // group_m")
        emit("rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]")
        emit("rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]")

    def _pointer_k_loop(self):
        """acc: the tile's K loop over masked pointer loads (any strides, any sizes)."""
        a, b = self.template.mat1, self.template.mat2
        m, n, k = self.m, self.n, self.k
        emit = self.emit
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

    # -- Hopper: a persistent loop over the tiles, operands through TMA descriptors ----------
    def _tma_plan(self):
        """How each operand reads through a TMA descriptor, or None where the variant does
        not apply: a 2-D matmul of fp16/bf16 operands, each with a unit stride, its other
        stride and its offset 16-byte multiples, on a GPU (or interpreter) and Triton that
        have device-side descriptors, and large enough for the point to offer it
        (tuner.points.kernel_kinds.tma_applies)."""
        from tuner.points.kernel_kinds import tma_applies
        t = self.template
        a, b = t.mat1, t.mat2
        if self.batch != 1 or self.int64 or a.dtype != b.dtype or \
                a.dtype not in (torch.float16, torch.bfloat16):
            return None
        try:
            m, n, k = int(self.m), int(self.n), int(self.k)
            views = [(int(v.offset), [int(s) for s in v.stride[-2:]]) for v in (a, b)]
        except TypeError:   # symbolic sizes or strides
            return None
        if not tma_applies(m, n, k):
            return None
        item = a.dtype.itemsize
        plan = []
        for (offset, (s0, s1)), (rows, cols), (brows, bcols) in zip(
                views, ((m, k), (k, n)), (("BLOCK_M", "BLOCK_K"), ("BLOCK_K", "BLOCK_N"))):
            # (a stride of 0, an expanded operand, has no descriptor: its rows repeat)
            if s1 == 1 and s0 > 0 and (s0 * item) % 16 == 0:      # rows x cols, row-major
                plan.append((offset, [rows, cols], [s0, 1], [brows, bcols], False))
            elif s0 == 1 and s1 > 0 and (s1 * item) % 16 == 0:    # stored transposed: cols x rows
                plan.append((offset, [cols, rows], [s1, 1], [bcols, brows], True))
            else:
                return None
            if (offset * item) % 16:
                return None
        return plan

    def _tma_branch(self, plan, epilogue):
        """The TMA constexpr's branch (lines at the kernel body's indent + 1): a persistent
        loop over the tiles (grid: at most one program per SM, see the launcher), loading
        through descriptors where both operands' base pointers are 16-byte aligned at run
        time, else through the plain body's masked pointers."""
        t = self.template
        a, b = t.mat1, t.mat2
        ptrs = [self.arg(v.buffer.name, "in") for v in (a, b)]
        saved, self.lines, self.indent = self.lines, [], 2
        emit = self.emit
        emit("aligned = " + " & ".join(f"({p}.to(tl.int64) % 16 == 0)" for p in ptrs))
        self._tile_counts()
        emit("if aligned:")
        self.indent += 1
        for name, p, (offset, shape, strides, block, _) in zip(("a_desc", "b_desc"), ptrs, plan):
            emit(f"{name} = tl.make_tensor_descriptor({p} + {offset}, shape=[{shape[0]}, {shape[1]}], "
                 f"strides=[{strides[0]}, {strides[1]}], block_shape=[{block[0]}, {block[1]}])")
        self._persistent_tile_loop()
        emit("acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)")
        emit(f"for k0 in range(0, {self.k}, BLOCK_K):")
        self.indent += 1
        # (out-of-bounds rows and columns of a box read as zeros: no masks)
        at = "a_desc.load([k0, pid_m * BLOCK_M]).T" if plan[0][4] else "a_desc.load([pid_m * BLOCK_M, k0])"
        bt = "b_desc.load([pid_n * BLOCK_N, k0]).T" if plan[1][4] else "b_desc.load([k0, pid_n * BLOCK_N])"
        emit(f"acc = tl.dot({at}, {bt}, acc{self._precision(a.dtype)})")
        self.indent -= 1
        self._tile_tail(epilogue)
        self.indent = 2
        emit("else:")
        self.indent += 1
        self._persistent_tile_loop()
        self._pointer_k_loop()
        self._tile_tail(epilogue)
        lines, self.lines = self.lines, saved
        return lines

    def _persistent_tile_loop(self):
        """The loop of a persistent program over its tiles (every num_programs-th) and the
        tile's coordinates; the body that follows is indented into it."""
        self.emit("for tile in range(tl.program_id(0), tiles, tl.num_programs(0)):")
        self.indent += 1
        self.emit("tb = 0")
        self._tile_coords()

    def _tile_tail(self, epilogue):
        """xmask, the zero tile and the epilogue (emitted at the plain body's indent) here."""
        self._tile_mask()
        pad = "    " * (self.indent - 2)
        self.lines += [pad + line.replace("\n", "\n" + pad) for line in epilogue]

    @staticmethod
    def _precision(dtype):
        if dtype == torch.float32 and not torch.backends.cuda.matmul.allow_tf32:
            return ", input_precision='ieee'"
        return ""

    def _render(self):
        params = list(self.args.values())
        consts = ["BLOCK_M: tl.constexpr", "BLOCK_N: tl.constexpr", "BLOCK_K: tl.constexpr",
                  "GROUP_M: tl.constexpr"] + (["TMA: tl.constexpr = 0"] if self.tma_plan else [])
        head = ["@triton.jit", f"def {self.name}({', '.join(params + consts)}):"]
        return "\n".join(head + self.lines) + "\n"

    # -- metadata --------------------------------------------------------------------
    def meta(self, source: str, bucketed: bool = False) -> KernelMeta:
        return KernelMeta("template", source, xnumel=self.xnumel,
                          mm=(self.batch, self.m, self.n, self.k),
                          mm_dtype=str(self.template.mat1.dtype).replace("torch.", ""),
                          dtypes=self.arg_dtypes(), bucketed=bucketed, tma=self.tma_plan is not None)

