"""FX graph (ATen, after AOTAutograd) -> IR nodes: runs each FX node through its lowering,
realizes values that must exist in memory, tracks dependencies (including mutation: a write
waits for every earlier reader of the buffer) and records fallbacks. The layout rule
(layout.py), in-place writes (mutation.py), store-or-recompute (recompute.py) and the SDPA
bias (attn_bias.py) are GraphLowering's mixins; op tables are in op_tables.py."""
from __future__ import annotations

import collections
import itertools
import math
import operator

import torch
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
import torch.fx

from . import ir, lowering
from . import lowerings  # noqa: F401  (fills the registry)
from . import sym as S
from .attn_bias import AttnBiasAlignment
from .context import CompileContext
from .layout import LayoutRule, dense
from .mutation import MutationTracking
from .op_tables import INLINE_DTYPES, NO_ATOMICS, NO_MINMAX_ATOMICS, PYTHON_SCALAR_FNS
from .ops import ops
from .recompute import Recompute
from .sizes import Unsupported, concrete
from .torch_compat import outside_fake_mode


class GraphLowering(LayoutRule, MutationTracking, Recompute, AttnBiasAlignment,
                    torch.fx.Interpreter):
    """One FX graph interpreted into IR nodes (`nodes`, `buffers`, `inputs`, `outputs`)."""

    def __init__(self, gm: torch.fx.GraphModule, example_inputs, stats, ctx=None, answers=None):
        super().__init__(gm)
        self.ctx = ctx if ctx is not None else CompileContext()
        self.sizes = self.ctx.sizes   # SizeVars of a symbolic compile (compiler/sizes.py), or None
        self.example_inputs = list(example_inputs)
        self.stats = stats
        self.buffers: dict[str, ir.Buffer] = {}
        self.nodes: list = []
        self.node_by_name: dict = {}
        self.last_writer: dict[str, str] = {}
        self.readers = collections.defaultdict(list)
        self.inputs: list = []
        self.outputs: list = []
        self.mutated_inputs: set[str] = set()
        # copy_(input, value) of the graph's mutation epilogue, applied after the outputs
        # (write_into): (dst view, value)
        self.deferred_writes: list = []
        # storage -> outputs of ATen calls that may be views of it (unfold of an input), and
        # the reverse: a write to the storage orders after those outputs' readers too
        self.aliases = collections.defaultdict(set)
        self.alias_roots: dict[str, set] = {}
        # buffers of padded matmuls (pad_mm): an inference graph returns their [:m, :n] view
        # as is instead of copying it into the unpadded strides (a logits-sized copy)
        self.padded_results: set[str] = set()
        # FX node -> index of its argument whose value it is: an add whose work an earlier
        # lowering did (matmul.py folds `mm + residual` into addmm's C operand)
        self.forwarded: dict = {}
        # the points' answers per question (point, FX node, problem: lowerings/matmul.py), in
        # the order asked; `answers` given (an earlier lowering's) are replayed, not asked again
        self.replay: dict = dict(answers or {})
        self.answers: dict = {}
        # the mm point's questions left to measure after lowering (compile_graph answers them):
        # (question, its index in answers[question], MMProblem, device)
        self.mm_questions: list = []
        self._names = itertools.count()
        self._nodes = itertools.count()
        devs = [t.device for t in self.example_inputs if isinstance(t, torch.Tensor)]
        # a graph without tensor inputs (a factory: torch.rand(n, device="cuda")) takes the
        # device of its first traced value, or the wrapper would allocate on the CPU
        devs = devs or [v.device for n in gm.graph.nodes
                        if isinstance(v := n.meta.get("val"), torch.Tensor) and v.device.type != "meta"]
        self.device = devs[0] if devs else torch.device("cpu")
        self.current = None
        self._epilogue = None    # node -> whether it is in the mutation epilogue (lazily)
        self.constants: dict[str, torch.Tensor] = {}   # ConstantBuffer name -> tensor
        self._writes = None   # FX nodes written in place (`_written_fx`)
        self._written_inputs = None   # and the names of the graph inputs among them

    # -- buffers and nodes ------------------------------------------------------------
    def new_buffer(self, dtype, device, size, stride=None, extern_out=False):
        b = ir.Buffer(f"buf{next(self._names)}", dtype, device, tuple(size),
                      tuple(stride) if stride is not None else S.contiguous_strides(size),
                      extern_out=extern_out)
        self.buffers[b.name] = b
        return b

    def node_name(self):
        return f"op{next(self._nodes)}"

    def add_node(self, node):
        for r in node.reads:
            if r in self.last_writer:
                node.deps.add(self.last_writer[r])
        if isinstance(node, ir.Scatter) or isinstance(node.buffer, ir.MutationBuffer):
            # a write into an existing buffer: after its last writer and every reader so far
            tgt = ir.storage_name(node.buffer)
            if tgt in self.last_writer:
                node.deps.add(self.last_writer[tgt])
            node.deps.update(self.readers[tgt])
            for a in self.aliases.get(tgt, ()):
                node.deps.update(self.readers[a])
            self.readers[tgt] = []
            self.last_writer[tgt] = node.name
            if isinstance(self.buffers[tgt], ir.InputBuffer):
                self.mutated_inputs.add(tgt)
        elif isinstance(node, ir.Extern):
            roots = set()
            for r in node.reads:
                roots |= {r} | self.alias_roots.get(r, set())
            for b in node.outputs:
                if b is not None:
                    self.last_writer[b.name] = node.name
                    self.alias_roots[b.name] = roots
                    for root in roots:
                        self.aliases[root].add(b.name)
        else:
            self.last_writer[node.buffer.name] = node.name
        for r in node.reads:
            self.readers[r].append(node.name)
        node.deps.discard(node.name)
        self.nodes.append(node)
        self.node_by_name[node.name] = node

    def realize(self, value, force=False, stride=None):
        if isinstance(value, ir.View) and not force:
            return value
        if stride is None:
            stride = self.layout_for(value)
        buf = self.new_buffer(value.dtype, value.device, value.size, stride)
        self.add_node(ir.pointwise_in_memory_order(self.node_name(), buf, value.size, value.loader()))
        return ir.View(buf, buf.size, buf.stride, 0)

    def scatter_into(self, dst: ir.View, ranges, index_fn, value_fn, mode):
        if mode and dst.dtype in NO_ATOMICS or mode in ("atomic_max", "atomic_min") and \
                dst.dtype in NO_MINMAX_ATOMICS:   # (no GPU atomics on bytes, halfwords)
            raise NotImplementedError(f"{mode} on {dst.dtype}")   # ATen runs the op
        node = ir.Scatter(self.node_name(), dst.buffer, tuple(ranges), index_fn, value_fn, mode)
        self.add_node(node)
        return dst

    def extern(self, op, args, kwargs, meta=None, result=None):
        """An ATen call node; its results' layouts from `meta` (FX values), else from the
        current FX node or a meta run; `result`: (dtype, device, sizes, strides) of its one result,
        for a call the FX graph has no value for whose sizes are symbolic (a padded matmul)."""
        def real(a):
            if isinstance(a, ir.TensorValue):
                return self.realize(a)
            if isinstance(a, (list, tuple)):
                return type(a)(real(x) for x in a)
            return a
        args, kwargs = self._aligned_attn_bias(op, args, kwargs)
        args, kwargs = real(args), {k: real(v) for k, v in kwargs.items()}
        if result is not None:
            flat, outs = [None], [self.new_buffer(*result, extern_out=True)]
        else:
            if meta is None:
                meta = self._meta_run(op, args, kwargs)
            flat, outs = self._extern_outs(op, args, meta)
        node = ir.Extern(self.node_name(), op, args, kwargs, outs,
                         "tuple" if isinstance(meta, (list, tuple)) else "single")
        self.add_node(node)
        self.stats.count_extern(op)
        views = [ir.View(b, b.size, b.stride, 0) if b is not None else m for b, m in zip(outs, flat)]
        return tuple(views) if isinstance(meta, (list, tuple)) else views[0]

    def _extern_outs(self, op, args, meta):
        """(the call's results as a list, a buffer for each tensor among them, else None)."""
        flat = meta if isinstance(meta, (list, tuple)) else [meta]
        outs, upper = [], None
        if op is torch.ops.aten.nonzero.default and isinstance(args[0], ir.View) and concrete(args[0].size):
            upper = math.prod(args[0].size)   # (its count of rows: at most the input's numel)
        for m in flat:
            if self.sizes is not None and isinstance(m, (torch.SymInt, torch.SymFloat, torch.SymBool)) \
                    and free_unbacked_symbols(m):
                # (.item() under capture_scalar_outputs: a value, maybe negative, not a size;
                # the size-oblivious decisions of compiler/sizes.py would not hold for it. A
                # size expression, as cuDNN attention's max_q, is not data-dependent)
                raise Unsupported(f"a data-dependent scalar result ({op})")
            if isinstance(m, torch.Tensor):
                outs.append(self.extern_buffer(m.dtype, self._device(m), m.shape, m.stride(), upper))
            else:
                outs.append(None)
        return flat, outs

    def extern_buffer(self, dtype, device, shape, stride, upper=None):
        """An ATen call's output buffer of FX meta sizes; a data-dependent size first met here
        (nonzero's count, at most `upper`) is defined as read from this buffer
        (compiler/sizes.py)."""
        fresh = self.sizes.define_sizes(shape, upper) if self.sizes is not None else ()
        b = self.new_buffer(dtype, device, self.shape(shape), self.stride(stride), extern_out=True)
        for d, symbol in fresh:
            self.sizes.read_after(b.name, d, symbol)
        return b

    def _device(self, m):
        return self.device if m.device.type == "meta" else m.device

    def _meta_run(self, op, args, kwargs):
        def meta(a):
            if isinstance(a, ir.View):
                if self.sizes is not None and not concrete((*a.size, *a.stride)):
                    raise Unsupported(f"an ATen call ({op}) whose result has no FX value")
                return torch.empty_strided(a.size, a.stride, dtype=a.dtype, device="meta")
            if isinstance(a, (list, tuple)):
                return type(a)(meta(x) for x in a)
            return a
        if self.current is not None and "val" in self.current.meta and self.current.target is op:
            return self.current.meta["val"]
        return op(*meta(args), **{k: meta(v) for k, v in kwargs.items()})

    # -- sizes of FX meta values (symbolic in a symbolic compile: compiler/sizes.py) -------
    def shape(self, t) -> tuple:   # (t: a tensor, or its sizes)
        t = t.shape if isinstance(t, torch.Tensor) else t
        return tuple(t) if self.sizes is None else tuple(self.sizes.wrap(n) for n in t)

    def stride(self, t) -> tuple:   # (t: a tensor, or its strides)
        t = t if not isinstance(t, torch.Tensor) else t.stride()
        return tuple(t) if self.sizes is None else tuple(map(self.sizes.wrap_stride, t))

    def numel(self, t):
        return t.numel() if self.sizes is None else math.prod(self.shape(t))

    # -- FX interpretation ------------------------------------------------------------
    def placeholder(self, target, args, kwargs):
        i = len(self.inputs)
        ex = self.example_inputs[i]
        if not isinstance(ex, torch.Tensor):
            self.inputs.append(None)
            return ex if self.sizes is None else self.sizes.wrap(ex)
        # (symbolic for a view of a split or a chunk along a symbolic dim: as_strided of the
        # input is relative to it, kernels read from the input's own data pointer)
        offset0 = ex.storage_offset() if self.sizes is None else self.sizes.wrap(ex.storage_offset())
        b = ir.InputBuffer(f"arg{i}", ex.dtype, ex.device, self.shape(ex), self.stride(ex), 0,
                           arg_index=i, storage_offset0=offset0)
        self.buffers[b.name] = b
        self.inputs.append(b)
        return ir.View(b, b.size, b.stride, 0)

    def get_attr(self, target, args, kwargs):
        value = super().get_attr(target, args, kwargs)
        if isinstance(value, torch.Tensor):
            return self.constant(value)
        return value

    def constant(self, t: torch.Tensor):
        """A tensor constant of the graph (torch.tensor(2.0) in user code, a legacy empty
        tensor in a cat, a lifted buffer): a 0-d one is inlined as a value of its dtype (0-d
        tensors join type promotion as tensors, and may sit on the CPU beside CUDA operands);
        any other becomes a buffer the wrapper holds."""
        with outside_fake_mode():
            if t.dim() == 0 and t.dtype in INLINE_DTYPES:
                v = t.item()
                return ir.Lazy((), t.dtype, self.device, lambda idx, v=v, dt=t.dtype: ops.constant(v, dt))
            t = t.detach()
            if not t.is_contiguous():
                t = t.contiguous()
        b = ir.ConstantBuffer(f"const{len(self.constants)}", t.dtype, t.device, tuple(t.shape),
                              tuple(t.stride()), 0, value=t)
        self.constants[b.name] = t
        self.buffers[b.name] = b
        return ir.View(b, b.size, b.stride, 0)

    def run_node(self, n):
        self.current = n
        if n in self.forwarded:   # computed by an earlier node (a residual add folded into addmm)
            return self.env[n.args[self.forwarded[n]]]
        out = super().run_node(n)
        if isinstance(out, ir.Lazy) and out.stride_hint is None:
            # FX's fake-tensor value carries eager's strides for this op: when this value is
            # realized anywhere, it gets them (a cat of a transposed view is contiguous in eager,
            # though its largest input is not)
            val = n.meta.get("val")
            if isinstance(val, torch.Tensor) and self.shape(val) == tuple(out.size) \
                    and dense(out.size, self.stride(val)):
                out.stride_hint = self.stride(val)
        if n.op == "call_function" and isinstance(out, ir.Lazy) and len(n.users) > 1:
            if self._recompute(n, out):
                self.stats.recomputed += 1
            else:
                out = self.realize(out)
        return out

    def call_function(self, target, args, kwargs):
        if target is operator.getitem:
            return args[0][args[1]]
        if target in PYTHON_SCALAR_FNS:   # size arithmetic on plain ints (sym_size, mul, ...)
            return PYTHON_SCALAR_FNS[target](*args, **kwargs)
        fn = lowering.lookup(target)
        if fn is not None and not self._kernel_dtypes(args, kwargs):
            fn = None   # complex (or another dtype generated kernels cannot hold): ATen runs it
        if fn is not None:
            try:
                out = fn(*args, **kwargs)
                self.stats.count_lowered(target)
                return out
            except Unsupported:   # symbolic sizes it cannot keep: the graph compiles per shape
                raise
            except NotImplementedError:
                pass
            except Exception as e:   # a lowering that cannot handle this use: ATen runs the op
                self.stats.count_lowering_error(target, e)
        val = self.current.meta.get("val")
        if self.sizes is not None and not isinstance(target, torch._ops.OpOverload):
            # a Python function of sizes we do not know: its value as dynamo traced it, over
            # the same symbols (a float or a bool of sizes: not ours to hold)
            if isinstance(val, torch.SymInt):
                return self.sizes.wrap(val)
            if isinstance(val, (torch.SymFloat, torch.SymBool)):
                raise Unsupported(f"{getattr(target, '__name__', target)} of a size")
        if not (getattr(target, "namespace", None) == "tuner" and lowering.lookup(target) is None):
            # (an op of ours with no lowering runs our own kernel: tuner::gqa_decode; one whose
            # lowering declined runs ATen's ops inside, a fallback like any other)
            self.stats.count_fallback(target)
        return self.extern(target, args, kwargs, val)

    def _kernel_dtypes(self, args, kwargs) -> bool:
        """Every tensor the current op reads or returns has a dtype generated kernels handle."""
        val = self.current.meta.get("val") if self.current is not None else None
        seen = []
        torch.fx.node.map_aggregate((args, kwargs, val), seen.append)
        return all(a.dtype in INLINE_DTYPES for a in seen
                   if isinstance(a, (ir.TensorValue, torch.Tensor)))

    def output(self, target, args, kwargs):
        outs = args[0]
        fx_outs = self.current.args[0] if self.current is not None else None
        fx_outs = fx_outs if isinstance(fx_outs, (list, tuple)) else [fx_outs]
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        self.outputs = []
        kept_padded: set[str] = set()
        for i, o in enumerate(outs):
            if (self.ctx.inference and isinstance(o, ir.View) and o.buffer.name in self.padded_results
                    and o.buffer.name not in kept_padded):
                kept_padded.add(o.buffer.name)   # a second output of the same buffer is copied
                self.outputs.append(o)
                continue
            if isinstance(o, ir.TensorValue):
                fo = fx_outs[i] if i < len(fx_outs) else None
                val = fo.meta.get("val") if isinstance(fo, torch.fx.Node) else None
                o = self.realize_as(o, self.stride(val) if isinstance(val, torch.Tensor) else None)
            self.outputs.append(o)
        self.apply_deferred_writes()
        return self.outputs

    def lower(self):
        lowering.set_graph(self)
        try:
            self.run(*self.example_inputs)
        finally:
            lowering.set_graph(None)
        return self


__all__ = ["GraphLowering"]
