"""FX graph (ATen, after AOTAutograd) -> IR nodes: runs each FX node through its lowering,
realizes values that must exist in memory, tracks dependencies (including mutation: a write
waits for every earlier reader of the buffer) and records fallbacks."""
from __future__ import annotations

import collections
import itertools
import math
import operator

import torch
import torch.fx

from . import ir, lowering
from . import lowerings  # noqa: F401  (fills the registry)
from . import sym as S
from .context import CompileContext
from .ops import Recorder, ops, use
from .sizes import Unsupported, hint
from .torch_compat import outside_fake_mode


class GraphLowering(torch.fx.Interpreter):
    def __init__(self, gm: torch.fx.GraphModule, example_inputs, stats, ctx=None):
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
        self._names = itertools.count()
        self._nodes = itertools.count()
        devs = [t.device for t in self.example_inputs if isinstance(t, torch.Tensor)]
        self.device = devs[0] if devs else torch.device("cpu")
        self.current = None
        self._epilogue = None    # node -> whether it is in the mutation epilogue (lazily)
        self.constants: dict[str, torch.Tensor] = {}   # ConstantBuffer name -> tensor
        self._writes = None   # FX nodes written in place (`_written_fx`)
        self._written_inputs = None   # and the names of the graph inputs among them

    # -- buffers and nodes ------------------------------------------------------------
    def new_buffer(self, dtype, device, size, stride=None):
        b = ir.Buffer(f"buf{next(self._names)}", dtype, device, tuple(size),
                      tuple(stride) if stride is not None else S.contiguous_strides(size))
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

    def layout_for(self, value):
        """Strides for a realized pointwise value: those its lowering or its FX node's meta value
        fixed (`stride_hint`), else the memory order of its main input (the largest input read
        in a definite order, the first on a tie), as eager's TensorIterator gives a pointwise op
        on channels-last inputs a channels-last output."""
        size = tuple(value.size)
        hint = getattr(value, "stride_hint", None)
        if hint is not None:
            return tuple(hint)
        if isinstance(value, ir.View):
            if _dense(size, value.stride):
                return _dense_strides(size, value.stride)
            return None
        big = [i for i, s in enumerate(size) if s > 1]
        if len(big) < 2:
            return None
        idx = [S.sym(f"d{i}") for i in range(len(size))]
        rec = Recorder()
        try:
            with use(rec):
                value.loader()(idx)
        except Exception:   # a loader that cannot run symbolically: keep the default layout
            return None
        best = None
        for name, index in rec.reads:
            buf = self.buffers.get(name)
            if buf is None:
                continue
            coeffs = [S.approx_stride(index, idx[i]) for i in range(len(size))]
            moving = [coeffs[i] for i in big]
            # an input that orders every non-trivial dim (dense or not: a slice, one part of a
            # cat); a broadcast or an irregular index says nothing about the layout
            if any(c is None or c <= 0 for c in moving) or len(set(moving)) < len(moving):
                continue
            coeffs = [c if c is not None and c > 0 else 0 for c in coeffs]
            if best is None or buf.numel > best[0]:
                best = (buf.numel, coeffs)
        if best is None:
            return None
        return _dense_strides(size, best[1])

    def write_into(self, dst: ir.View, value_loader, src=None):
        """dst[...] = value (in place): the buffer keeps its name, readers see the new data.
        A write of a whole input buffer is a Pointwise node storing into it (fusible with the
        kernel that computes the value); anything else a Scatter. The whole-input writes of
        the graph's mutation epilogue (AOTAutograd's copy_ of every mutated input, after
        which only such copies and the output follow) wait until the outputs are realized
        (`apply_deferred_writes`): a lazy output or value still reading an input's old
        contents must not see the new ones."""
        if dst.is_whole_buffer() and isinstance(dst.buffer, ir.InputBuffer) and dst.numel > 0:
            if src is not None and self._in_mutation_epilogue():
                self.deferred_writes.append((dst, src))
                return dst
            self._mutation_node(dst, value_loader)
            return dst
        return self.scatter_into(dst, dst.size, lambda idx: S.linear(idx, dst.stride, dst.offset),
                                 value_loader, None)

    def _mutation_node(self, dst: ir.View, value_loader):
        b = dst.buffer
        out = ir.MutationBuffer(f"buf{next(self._names)}", b.dtype, b.device, b.size, b.stride,
                                target=b)
        node = ir.pointwise_in_memory_order(self.node_name(), out, dst.size, value_loader)
        if _reads_elsewhere(node, b.name):
            # x.add_(x.roll(1)): a program would read elements another one already wrote;
            # the value goes to a buffer of its own first, then is copied in
            tmp = self.realize(ir.Lazy(tuple(dst.size), dst.dtype, dst.device, value_loader), force=True)
            node = ir.pointwise_in_memory_order(self.node_name(), out, dst.size, tmp.loader())
        self.buffers[out.name] = out
        self.add_node(node)

    def _in_mutation_epilogue(self) -> bool:
        """The current FX node (a copy_ into an input) is followed only by copies into other
        inputs and the output. (One backward walk per graph answers every node: walking
        forward from each copy was quadratic in an optimizer step's hundreds of copies.)"""
        cur = self.current
        if cur is None or not cur.args:
            return False
        if self._epilogue is None:
            self._epilogue = {}
            nodes = list(cur.graph.nodes)
            out = next((i for i in range(len(nodes) - 1, -1, -1) if nodes[i].op == "output"), None)
            if out is not None:
                later: set = set()     # ids of what the copies after a node write into
                for n in reversed(nodes[:out]):
                    if n.args:
                        self._epilogue[n] = id(n.args[0]) not in later
                    if n.target is not torch.ops.aten.copy_.default or not n.args:
                        break
                    later.add(id(n.args[0]))
        return self._epilogue.get(cur, False)

    def apply_deferred_writes(self):
        """The epilogue's input writes, after the outputs: a value that reads another input
        written here is realized first (it reads the old contents); then each write stores
        through `_retarget` or a mutation node."""
        writes, self.deferred_writes = self.deferred_writes, []
        targets = {dst.buffer.name for dst, _ in writes}
        ready = []
        for dst, src in writes:
            reads = self._reads_of(src) if isinstance(src, ir.TensorValue) else set()
            reads = reads.union(*(self.alias_roots.get(r, set()) for r in reads))
            if reads & (targets - {dst.buffer.name}):
                src = self.realize(src, force=True)
            ready.append((dst, src))
        for dst, src in ready:
            if not self._retarget(dst.buffer, src):
                self._mutation_node(dst, lowering.loader_for(src, dst.size, dst.dtype))

    @staticmethod
    def _reads_of(value) -> set:
        rec = Recorder()
        with use(rec):
            value.loader()([S.sym(f"q{i}") for i in range(len(value.size))])
        return {n for n, _ in rec.reads}

    def _retarget(self, target: ir.InputBuffer, src) -> bool:
        """copy_(input, buf) where buf was computed (and realized) for other readers as well,
        e.g. an optimizer's new step counter, read by the update of every parameter: buf's
        node stores into the input itself and buf's readers read the input, instead of a
        temporary per counter allocated on every call plus a second store. Only for a
        pointwise buf of the input's exact layout, not an output, read by generated kernels
        only, when every reader of the input's old contents comes before buf's node (which
        is then ordered after them). True when done (no mutation node is needed)."""
        if not isinstance(src, ir.View) or type(src.buffer) is not ir.Buffer or not src.is_whole_buffer():
            return False
        buf = src.buffer
        if (buf.dtype, tuple(buf.size), tuple(buf.stride), buf.device) != \
                (target.dtype, tuple(target.size), tuple(target.stride), target.device) \
                or target.name in self.last_writer or target.name in self.mutated_inputs:
            return False
        writer = self.node_by_name.get(self.last_writer.get(buf.name, ""))
        if not isinstance(writer, ir.Pointwise) or writer.buffer is not buf \
                or _reads_elsewhere(writer, target.name):
            return False   # (writing in place, a program would overwrite what others read)
        if any(isinstance(o, ir.View) and o.buffer.name == buf.name for o in self.outputs):
            return False
        pos = {node.name: i for i, node in enumerate(self.nodes)}
        at = pos[writer.name]
        old_readers = list(self.readers[target.name])
        for a in self.aliases.get(target.name, ()):
            old_readers += self.readers[a]
        if any(pos.get(r, at) > at for r in old_readers):
            return False   # the old contents are read after buf is computed
        if any(not isinstance(self.node_by_name[r], (ir.Pointwise, ir.Reduction))
               for r in self.readers[buf.name]):
            return False   # externs, templates and scatters address buffers by their own name
        moved = ir.MutationBuffer(buf.name, buf.dtype, buf.device, buf.size, buf.stride, target=target)
        self.buffers[buf.name] = moved
        writer.buffer = moved
        writer.deps.update(r for r in old_readers if r != writer.name)
        self.readers[target.name] = []
        self.last_writer[target.name] = writer.name
        self.mutated_inputs.add(target.name)
        return True

    def scatter_into(self, dst: ir.View, ranges, index_fn, value_fn, mode):
        node = ir.Scatter(self.node_name(), dst.buffer, tuple(ranges), index_fn, value_fn, mode)
        self.add_node(node)
        return dst

    def extern(self, op, args, kwargs, meta=None):
        def real(a):
            if isinstance(a, ir.TensorValue):
                return self.realize(a)
            if isinstance(a, (list, tuple)):
                return type(a)(real(x) for x in a)
            return a
        args, kwargs = self._aligned_attn_bias(op, args, kwargs)
        args, kwargs = real(args), {k: real(v) for k, v in kwargs.items()}
        if meta is None:
            meta = self._meta_run(op, args, kwargs)
        flat = meta if isinstance(meta, (list, tuple)) else [meta]
        outs = []
        for m in flat:
            if isinstance(m, torch.Tensor):
                outs.append(self.new_buffer(m.dtype, self._device(m), self.shape(m), self.stride(m)))
            else:
                outs.append(None)
        node = ir.Extern(self.node_name(), op, args, kwargs, outs,
                         "tuple" if isinstance(meta, (list, tuple)) else "single")
        self.add_node(node)
        self.stats.count_extern(op)
        views = [ir.View(b, b.size, b.stride, 0) if b is not None else m for b, m in zip(outs, flat)]
        return tuple(views) if isinstance(meta, (list, tuple)) else views[0]

    def _aligned_attn_bias(self, op, args, kwargs):
        """The attention bias of a fused SDPA kernel (efficient, cuDNN; forward and backward)
        realized with every stride but the last a multiple of ATTN_BIAS_ALIGN elements: the
        kernels refuse others at run time (MaxViT's 49 x 49 relative-position bias, stride
        4802). A bias already in memory with such strides (a broadcast one: stride 0) is kept;
        otherwise it is stored with its last dim padded, the padding never read."""
        schema = getattr(op, "_schema", None)
        if schema is None or "attention" not in schema.name:
            return args, kwargs
        names = [a.name for a in schema.arguments]
        if "attn_bias" not in names:
            return args, kwargs
        i = names.index("attn_bias")
        in_kwargs = i >= len(args)
        bias = kwargs.get("attn_bias") if in_kwargs else args[i]
        if not isinstance(bias, ir.TensorValue) or len(bias.size) < 2:
            return args, kwargs
        if isinstance(bias, ir.View) and bias.stride[-1] == 1 and \
                all(st % ATTN_BIAS_ALIGN == 0 for st in bias.stride[:-1]) and \
                bias.offset % ATTN_BIAS_ALIGN == 0:
            return args, kwargs
        fx = None
        if self.current is not None and self.current.target is op:
            fx = self.current.kwargs.get("attn_bias") if in_kwargs else \
                (self.current.args[i] if i < len(self.current.args) else None)
        val = fx.meta.get("val") if isinstance(fx, torch.fx.Node) else None
        broadcast = set()
        if isinstance(val, torch.Tensor) and self.shape(val) == tuple(bias.size):
            broadcast = {d for d, (n, st) in enumerate(zip(self.shape(val), self.stride(val)))
                         if st == 0 and n > 1}
        bias = self._store_aligned(bias, broadcast)
        if in_kwargs:
            return args, {**kwargs, "attn_bias": bias}
        return type(args)(args[:i]) + (bias,) + type(args)(args[i + 1:]), kwargs

    def _store_aligned(self, value, broadcast=()):
        """value stored with aligned strides (aligned_strides); the dims it broadcasts (stride 0
        in a View or in its FX value, `broadcast`: a mask expanded over heads) stay broadcast,
        only the rest is stored."""
        size = tuple(value.size)
        bdims = set(broadcast)
        if isinstance(value, ir.View):
            bdims |= {i for i, (n, st) in enumerate(zip(size, value.stride)) if st == 0 and n > 1}
        if not bdims:
            return self.realize(value, force=True, stride=aligned_strides(size, ATTN_BIAS_ALIGN))
        ld = value.loader()
        small = tuple(1 if i in bdims else n for i, n in enumerate(size))
        lazy = ir.Lazy(small, value.dtype, value.device,
                       lambda idx: ld([0 if i in bdims else v for i, v in enumerate(idx)]))
        out = self.realize(lazy, force=True, stride=aligned_strides(small, ATTN_BIAS_ALIGN))
        return ir.View(out.buffer, size, tuple(0 if i in bdims else st for i, st in enumerate(out.stride)), 0)

    def _device(self, m):
        return self.device if m.device.type == "meta" else m.device

    def _meta_run(self, op, args, kwargs):
        def meta(a):
            if isinstance(a, ir.View):
                return torch.empty_strided(a.size, a.stride, dtype=a.dtype, device="meta")
            if isinstance(a, (list, tuple)):
                return type(a)(meta(x) for x in a)
            return a
        if self.current is not None and "val" in self.current.meta and self.current.target is op:
            return self.current.meta["val"]
        return op(*meta(args), **{k: meta(v) for k, v in kwargs.items()})

    # -- sizes of FX meta values (symbolic in a symbolic compile: compiler/sizes.py) -------
    def shape(self, t) -> tuple:
        return tuple(t.shape) if self.sizes is None else tuple(self.sizes.wrap(n) for n in t.shape)

    def stride(self, t) -> tuple:
        return tuple(t.stride()) if self.sizes is None else tuple(self.sizes.wrap(n) for n in t.stride())

    def numel(self, t):
        return t.numel() if self.sizes is None else math.prod(self.shape(t))

    # -- FX interpretation ------------------------------------------------------------
    def placeholder(self, target, args, kwargs):
        i = len(self.inputs)
        ex = self.example_inputs[i]
        if not isinstance(ex, torch.Tensor):
            self.inputs.append(None)
            return ex if self.sizes is None else self.sizes.wrap(ex)
        offset0 = ex.storage_offset() if self.sizes is None else self.sizes.wrap(ex.storage_offset())
        if not isinstance(offset0, int):
            from .sizes import Unsupported
            raise Unsupported("a symbolic storage offset")
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
            if t.dim() == 0 and t.dtype in _INLINE_DTYPES:
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
                    and _dense(out.size, self.stride(val)):
                out.stride_hint = self.stride(val)
        if n.op == "call_function" and isinstance(out, ir.Lazy) and len(n.users) > 1:
            if self._recompute(n, out):
                self.stats.recomputed += 1
            else:
                out = self.realize(out)
        return out

    # -- multi-user values: store once or recompute in each consumer ---------------------
    def _recompute(self, n, value) -> bool:
        """Whether a lazy value with several FX users stays lazy, each consumer recomputing
        it, instead of being stored once and read back by each (see RECOMPUTE_MAX_OPS).
        Consumers are counted as the kernels they can end in (`_consumers`): users that are
        single-user pointwise chains into one node count once."""
        sinks = self._consumers(n, value.numel)
        if sinks is None or n in self._written_fx():
            return False
        cost = _Cost()
        try:
            with use(cost):
                value.loader()([S.sym(f"q{i}") for i in range(len(value.size))])
        except Exception:   # a loader that cannot run symbolically: store it
            return False
        if cost.blocked or cost.calls > RECOMPUTE_MAX_CALLS or len(cost.ops) > RECOMPUTE_MAX_OPS \
                or len(cost.reads) > RECOMPUTE_MAX_READS:
            return False
        reads = set(cost.reads)
        reads = reads.union(*(self.alias_roots.get(r, set()) for r in reads))
        if reads & self.written_buffers():
            return False   # it must read the contents from before a later in-place write
        # memory passes over the value's size (in its bytes): recomputing reads the sources
        # once per consumer kernel (k * passes); storing reads them once and writes the value,
        # at best in the kernel of a consumer it fuses with, the other k - 1 reading it back
        # (passes + k), else in a kernel of its own that every consumer reads (passes + 1 + k:
        # MaxViT's residual adds before a layout-changing copy). Recompute when that reads no
        # more than the best case: a tie (two full-size sources, two consumers) still saves
        # the store and its kernel whenever the store would not fuse
        want = hint(value.numel) * value.dtype.itemsize   # (sizes at their hints: a cost)
        passes = 0.0
        for name in cost.reads:
            buf = self.buffers.get(name)
            if buf is None:
                return False
            passes += min(hint(buf.numel), hint(value.numel)) * buf.dtype.itemsize / max(want, 1)
        k = len(sinks)
        return k * passes <= passes + k

    def window_input(self, value, dims, taps):
        """The input of a window op (pooling) as it should read it: a lazy value whose work at
        each of the window's `taps` (input elements read per output, kh * kw) costs more than
        storing it (WINDOW_RECOMPUTE_MAX) is stored first, anything else is returned as is
        (inlined into every tap). `dims`: the dims the window slides over. `taps` of 1 or
        less: no element is read by two windows (each is computed once anyway)."""
        if not isinstance(value, ir.Lazy) or taps <= 1:
            return value
        work = self._tap_work(value, dims)
        if work is None or taps * work <= WINDOW_RECOMPUTE_MAX:
            return value
        self.stats.window_stored += 1
        return self.realize(value)

    @staticmethod
    def _tap_work(value, dims):
        """`_Cost.work` of evaluating `value` at one more tap: at an element whose `dims`
        differ from one already evaluated, so that the part shared by the taps (computed from
        the other dims: a BatchNorm's per-channel scale) is counted once, not per tap. None
        when its loader cannot run symbolically."""
        cost = _Cost()
        idx = [S.sym(f"q{i}") for i in range(len(value.size))]
        moved = [S.sym(f"t{i}") if i in dims else q for i, q in enumerate(idx)]
        try:
            with use(cost):
                ld = value.loader()
                ld(idx)
                first = cost.work
                ld(moved)
        except Exception:
            return None
        return cost.work - first

    def _consumers(self, n, numel):
        """The FX nodes the lazy value of `n` ends in: each user, followed while it is a
        pointwise op, a view, a pad or a cat with a single user (such a value stays lazy and
        inlines into its one user, so the chain is one consumer) into a pointwise op, view, pad
        or cat; a chain ends in a reduction, a node with several users, or a member whose one
        user stores it (an ATen call, a matmul or convolution, the output). None when the value
        must be stored anyway (a user of `n` itself stores it), when some consumer reads
        elements more than once (gathers, pooling windows: after a pad too, where a 3x3 max
        pool would recompute the value 9 times), or when a member broadcasts it (more elements
        than the chain had: each element would be recomputed many times; a pad or cat grows
        the chain without reading an element twice)."""
        def kind(u, limit):
            if u.op == "output" or lowering.lookup(u.target) is None or u.target in _ATEN_CALLS:
                return "stores"
            if u.op != "call_function":
                return None
            t = u.target
            val = u.meta.get("val")
            if not isinstance(val, torch.Tensor):
                return None
            if t in _INDEXED_ONCE:
                return "chain"     # larger than its input, but each element is read once
            if self.numel(val) > limit:
                return None
            if t in _REDUCTIONS:
                return "end"
            if t in _VIEWS or t is _aten._to_copy.default or \
                    (isinstance(t, torch._ops.OpOverload) and torch.Tag.pointwise in t.tags):
                return "chain"
            return None

        sinks = set()
        for u in n.users:
            if u.op == "call_function" and u.target in _SHAPE_ONLY:
                continue           # reads the size, not the data
            k = kind(u, numel)
            view = k == "chain" and u.target in _VIEWS   # u holds the value itself
            size = numel           # the chain's elements so far: a pad or cat adds some
            while k == "chain" and len(u.users) == 1:
                if u.target in _INDEXED_ONCE:
                    size = max(size, self.numel(u.meta["val"]))
                w = next(iter(u.users))
                kw = kind(w, size)
                if kw is None:
                    return None
                if kw == "stores":
                    if view:
                        return None   # the value itself is stored: once, for every consumer
                    break          # u, computed from it, is stored by its one user: one consumer
                u, k = w, kw
                view = view and w.target in _VIEWS
            if k not in ("chain", "end"):
                return None
            sinks.add(_reduction_key(u))
        return sinks

    def _written_fx(self):
        """FX nodes (graph inputs included) whose storage the graph writes in place (copy_,
        index_put_, any op whose schema writes an argument), found through views."""
        if self._writes is None:
            written = set()
            for m in self.module.graph.nodes:
                t = m.target
                if m.op != "call_function" or not isinstance(t, torch._ops.OpOverload) \
                        or not t._schema.is_mutable:
                    continue
                for i, a in enumerate(t._schema.arguments):
                    if a.alias_info is None or not a.alias_info.is_write:
                        continue
                    v = m.args[i] if i < len(m.args) and not a.kwarg_only else m.kwargs.get(a.name)
                    for x in (v if isinstance(v, (list, tuple)) else [v]):
                        while isinstance(x, torch.fx.Node):
                            written.add(x)
                            x = view_base(x)
            self._writes = written
        return self._writes

    def written_buffers(self) -> set:
        """Names of the buffers behind the FX nodes that are written in place: graph inputs
        and the buffers those nodes' values (already lowered) live in."""
        written = self._written_fx()
        if self._written_inputs is None:
            placeholders = [m for m in self.module.graph.nodes if m.op == "placeholder"]
            self._written_inputs = {self.inputs[i].name for i, x in enumerate(placeholders)
                                    if x in written and i < len(self.inputs)
                                    and self.inputs[i] is not None}
        out = set(self._written_inputs)
        for x in written:
            if x.op == "placeholder":
                continue
            v = self.env.get(x)
            for y in (v if isinstance(v, (list, tuple)) else [v]):
                if isinstance(y, ir.View):
                    out.add(y.buffer.name)
                    out.add(ir.storage_name(y.buffer))
        for name in list(out):
            for a in self.aliases.get(name, ()):
                out.add(a)
        return out

    def call_function(self, target, args, kwargs):
        if target is operator.getitem:
            return args[0][args[1]]
        if target in _PYTHON_SCALAR_FNS:   # size arithmetic on plain ints (sym_size, mul, ...)
            return _PYTHON_SCALAR_FNS[target](*args, **kwargs)
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
        self.stats.count_fallback(target)
        return self.extern(target, args, kwargs, self.current.meta.get("val"))

    def _kernel_dtypes(self, args, kwargs) -> bool:
        """Every tensor the current op reads or returns has a dtype generated kernels handle."""
        val = self.current.meta.get("val") if self.current is not None else None
        seen = []
        torch.fx.node.map_aggregate((args, kwargs, val), seen.append)
        return all(a.dtype in _INLINE_DTYPES for a in seen
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

    def realize_as(self, value, stride):
        """An output in the strides its FX meta value promises. AOTAutograd hands a forward
        output saved for backward (e.g. a permuted weight) to the backward graph, which was
        traced, and so lowered, with those strides: a contiguous copy would be read wrongly.
        Strides with gaps too (a slice of a longer convolution output saved for backward:
        Mamba's causal conv1d): stored in a buffer large enough to span them. A broadcast dim
        (stride 0: an expand saved for backward) stays broadcast: the value is stored once
        along it and returned as a view with that stride 0, which the backward reads."""
        if stride is None:
            return self.realize(value)
        if isinstance(value, ir.View) and _same_layout(value.size, value.stride, stride):
            return value
        size = tuple(value.size)
        bdims = {i for i, (n, st) in enumerate(zip(size, stride)) if st == 0 and n > 1}
        if bdims and len(stride) == len(size):
            small = tuple(1 if i in bdims else n for i, n in enumerate(size))
            if _non_overlapping(small, stride):
                ld = value.loader()
                lazy = ir.Lazy(small, value.dtype, value.device,
                               lambda idx: ld([0 if i in bdims else v for i, v in enumerate(idx)]))
                out = self.realize(lazy, force=True, stride=tuple(stride))
                return ir.View(out.buffer, size, tuple(stride), out.offset)
        if not _non_overlapping(value.size, stride):
            return self.realize(value)
        return self.realize(value, force=True, stride=tuple(stride))

    def lower(self):
        # restored, not cleared: a lowering may compile a graph of its own (the mm point
        # measuring its choices) and go on lowering this one
        prev = getattr(lowering._local, "graph", None)
        lowering.set_graph(self)
        try:
            self.run(*self.example_inputs)
        finally:
            lowering.set_graph(prev)
        return self


# Fused attention kernels read their bias in vectors: every stride but the last must be a
# multiple of this many elements (16 bytes of fp32, 32 of bf16/fp16: covers both)
ATTN_BIAS_ALIGN = 8


def aligned_strides(size, align):
    """Row-major strides for `size` with the last dim's row length rounded up to a multiple of
    `align` (the storage is larger than the tensor; the padding is never read)."""
    strides, step = [], 1
    for i in range(len(size) - 1, -1, -1):
        strides.append(step)
        n = max(int(size[i]), 1)
        step *= -(-n // align) * align if i == len(size) - 1 else n
    return tuple(reversed(strides))


# Recomputing a multi-user lazy value in each consumer instead of storing it (`_recompute`).
# A memory-bound kernel has spare arithmetic: a value of a few ops per element (GELU, a
# BatchNorm affine, a cast, a scale-and-shift) costs less to recompute than a store and one load
# per consumer. Past these limits it is stored, as every multi-user value was before.
RECOMPUTE_MAX_OPS = 24      # distinct ops of the inlined tree (kernels CSE repeats; constants,
                            # casts and index arithmetic not counted): recomputed per consumer;
                            # an eval BatchNorm affine is 9, + tanh-GELU 18, erf-GELU 5
RECOMPUTE_MAX_CALLS = 96    # op calls of the tree expanded (a value inlined into values inlined
                            # again: the lowering walks the whole tree once per use, so nested
                            # recomputed values multiply compile time before any kernel sees them)
RECOMPUTE_MAX_READS = 6     # distinct buffers read (a BatchNorm affine reads 5: x, mean, var,
                            # weight, bias): each is a pointer and a load per consumer kernel
# Ops that are slow on a GPU (a libdevice series or loop, not a single instruction): never
# recomputed. tanh, erf, exp, rsqrt and the like are one or a few instructions.
RECOMPUTE_EXPENSIVE = frozenset({"pow", "lgamma", "erfinv", "atan2", "hypot", "fmod",
                                 "remainder", "nextafter", "acosh", "asinh", "atanh"})


# A window op (max/avg pooling) unrolls its window: a lazy input (its single-user producer,
# inlined) is evaluated at every tap, kh * kw times per output element; where windows overlap,
# each input element is computed once per window that reads it (3x3 stride 2: 2.25 times on
# average, stride 1: 9). Storing the producer first computes it once, at the cost of one write
# and one read of each element and a kernel. On an H100 (~3 TB/s of HBM, ~30 T FP32
# instructions/s: ~10 instructions per byte) a bf16 element's write + read is 4 bytes, ~1.3 ps:
# the time of ~40 instructions. `GraphLowering.window_input` weighs the producer's work per
# tap, the part that depends on the element read (`_Cost.work` added by a second tap: a
# BatchNorm's per-channel scale, its rsqrt included, is shared by the taps; casts and index
# arithmetic, such as a pad's bounds checks, are free): 1 per op, TRANSCENDENTAL_WORK for a
# special function (an ex2 or rcp on the special-function unit, which runs at 1/8 of the FP32
# rate, plus a polynomial: libdevice's tanhf is ~20 instructions, sigmoid an exp and a
# division), unbounded for an op in RECOMPUTE_EXPENSIVE or a gather. The producer is stored
# when taps x work exceeds WINDOW_RECOMPUTE_MAX. In a 3x3 window a tanh-GELU (8 ops + tanh)
# weighs 162, an erf-GELU 126, SiLU (a multiply + sigmoid) 99: nine special-function
# evaluations per output against ~40 instructions' worth of traffic per stored element. A
# BatchNorm affine + ReLU (ResNet's stem: 5 ops a tap) weighs 45, an add 9 to 18, a cast 0:
# they stay inlined, saving the write and read of a full activation, since a memory-bound
# window kernel's spare ALU time absorbs them; the limit, 64, is that slack, ~1.5 stores'
# worth. Windows that never read an element twice (2x2 stride 2) keep any producer inlined.
# Caveat: per output a stride-2 window stores ~4 input elements (16 bytes in bf16, 32 in
# fp32), so a peak-throughput count puts a tanh-GELU or SiLU there near break-even; storing
# relies on the unrolled window's own per-tap index and mask work making the fused kernel
# compute bound, while the producer's own kernel hides its ALU work under its memory traffic.
# Not yet timed on the GPU.
WINDOW_RECOMPUTE_MAX = 64
TRANSCENDENTAL_WORK = 10
TRANSCENDENTAL = frozenset({"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
                            "rsqrt", "tanh", "sigmoid", "erf", "erfc", "sin", "cos", "tan",
                            "asin", "acos", "atan", "sinh", "cosh"})


class _Cost:
    """An ops handler that measures an inner function for recomputation: distinct ops (as a
    kernel's CSE would emit them), op calls (the tree expanded), buffers read, whether it
    gathers (indirect indexing) or uses an expensive op (`blocked`), and the weighted `work`
    of its distinct ops (WINDOW_RECOMPUTE_MAX): none for index arithmetic (ops on indices and
    constants alone), TRANSCENDENTAL_WORK for a special function, unbounded for an expensive
    op or a gather, 1 for any other op."""

    def __init__(self):
        self.ops: set = set()
        self.reads: set = set()
        self.calls = 0
        self.blocked = False
        self.work = 0.0
        self._ids: dict = {}
        self._index: set = set()   # tokens computed from indices and constants alone

    def _token(self, key):
        t = self._ids.get(key)
        if t is None:
            t = self._ids[key] = ("v", len(self._ids))
        return t

    def load(self, name, index):
        self.reads.add(name)
        return self._token(("load", name, index))

    def constant(self, value, dtype):
        t = self._token(("constant", value, dtype))
        self._index.add(t)
        return t

    def index_expr(self, expr, dtype):
        t = self._token(("index", expr, dtype))
        self._index.add(t)
        return t

    def to_dtype(self, v, dtype, implicit=False):
        if implicit:
            return v
        t = self._token(("to_dtype", v, dtype))
        if v in self._index:
            self._index.add(t)
        return t

    def indirect_indexing(self, value, size, check=True, wrap_negative=True):
        self.blocked = True   # a gather: its reads are not of the element being computed
        key = ("indirect", value)
        if key not in self.ops:
            self.ops.add(key)
            self.work = float("inf")
        return S.sym("ind")

    def masked(self, mask, body, other):
        return self._op("masked", (mask, body(), other))

    def _op(self, name, args):
        self.calls += 1
        if name in RECOMPUTE_EXPENSIVE:
            self.blocked = True
        key = (name,) + tuple(a if isinstance(a, (tuple, int, float, bool, str, type(None)))
                              else repr(a) for a in args)
        t = self._token(key)
        tokens = [a for a in args if isinstance(a, tuple) and len(a) == 2 and a[0] == "v"]
        index_only = all(a in self._index for a in tokens)
        if index_only:
            self._index.add(t)
        if key not in self.ops:
            self.ops.add(key)
            if name in RECOMPUTE_EXPENSIVE:
                self.work = float("inf")
            elif not index_only:
                self.work += TRANSCENDENTAL_WORK if name in TRANSCENDENTAL else 1
        return t

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *a, **k: self._op(name, a)


# FX targets a lazy value's consumer chain may pass through or end in (`_consumers`):
# reductions read each element of their input once per output row; a pad or a cat reads
# each element of an input at most once (a chain member, though its output is larger);
# views change the index only.
_aten, _prims = torch.ops.aten, torch.ops.prims
_REDUCTIONS = frozenset({
    _aten.sum.dim_IntList, _aten.sum.default, _aten.mean.dim, _aten.mean.default,
    _aten.amax.default, _aten.amin.default, _aten.prod.default, _aten.prod.dim_int,
    _aten.var.correction, _aten.var.dim, _aten.var_mean.correction, _prims.sum.default,
    _prims.var.default, _prims.amax.default, _prims.amin.default,
    _aten.any.dim, _aten.any.default, _aten.all.dim, _aten.all.default})
_INDEXED_ONCE = frozenset({_aten.constant_pad_nd.default, _aten.cat.default})
_SHAPE_ONLY = frozenset({_aten.full_like.default, _aten.zeros_like.default,
                         _aten.ones_like.default, _aten.empty_like.default,
                         _aten.sym_size.int, _aten.sym_size.default, _aten.sym_stride.int,
                         _aten.sym_stride.default, _aten.sym_numel.default,
                         _aten.sym_storage_offset.default})
# lowered ops that call ATen on their stored inputs (a convolution's input is stored)
_ATEN_CALLS = frozenset({_aten.mm.default, _aten.bmm.default, _aten.addmm.default,
                         _aten.convolution.default})
_VIEWS = frozenset({
    _aten.view.default, _aten._unsafe_view.default, _aten.reshape.default,
    _aten.permute.default, _aten.transpose.int, _aten.t.default, _aten.unsqueeze.default,
    _aten.squeeze.dim, _aten.squeeze.dims, _aten.squeeze.default, _aten.expand.default,
    _aten.slice.Tensor, _aten.select.int, _aten.alias.default, _aten.detach.default})
# every lowered op that only views its input (lowerings/views.py): it launches nothing, and
# writing through it writes the input; a split's or unbind's items come through getitem
_VIEW_LOWERINGS = _VIEWS | frozenset({
    torch.ops.prims.squeeze.default, torch.ops.prims.transpose.default,
    torch.ops.prims.broadcast_in_dim.default, torch.ops.prims.reshape.default,
    _aten.view.dtype, _aten.as_strided.default, _aten.diagonal.default, _aten.split.Tensor,
    _aten.split_with_sizes.default, _aten.unbind.int})


def _reduction_key(node):
    """A consumer's identity for counting kernels: reductions of equal-shaped inputs over the
    same dims (a LayerNorm's sum and var, a softmax's max and sum) run in one kernel (the
    scheduler fuses reductions of one iteration space that read the same data), so they
    count once; any other node is itself."""
    if node.target not in _REDUCTIONS or not node.args or not isinstance(node.args[0], torch.fx.Node):
        return node
    val = node.args[0].meta.get("val")
    if not isinstance(val, torch.Tensor):
        return node
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", node.kwargs.get("dims"))
    nd = val.dim()
    if dims is None or dims == []:
        dims = tuple(range(nd))
    elif isinstance(dims, int):
        dims = (dims % max(nd, 1),)
    elif isinstance(dims, (list, tuple)) and all(isinstance(d, int) for d in dims):
        dims = tuple(sorted({d % max(nd, 1) for d in dims}))
    else:
        return node
    # (a symbolic size keyed by its expression: SymInts do not hash)
    return ("reduction", tuple(n.node.expr if isinstance(n, torch.SymInt) else n for n in val.shape), dims)


def view_base(node):
    """The FX node a view op's output aliases (its self argument), else None."""
    t = node.target
    if node.op != "call_function" or not node.args:
        return None
    if t is operator.getitem:
        return node.args[0] if isinstance(node.args[0], torch.fx.Node) else None
    if isinstance(t, torch._ops.OpOverload) and t._schema.returns:
        alias = t._schema.returns[0].alias_info
        if alias is not None and not alias.is_write and isinstance(node.args[0], torch.fx.Node):
            return node.args[0]
    return None


def _reads_elsewhere(node, name) -> bool:
    """Whether a pointwise node reads buffer `name` at an element other than the one it
    stores (same strides assumed: the node writes `name`'s memory in place)."""
    syms = node.symbols()
    store = node.store_index(syms)
    return any(n == name and S.simplify(index - store) != 0 for n, index in node.read_index)


# the dtypes of 0-d constants inlined into kernels, and of every tensor an op lowered to our IR
# may read or return (complex ones run in ATen)
_INLINE_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                  torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool)


def _sym_size(x, dim=None):
    return tuple(x.size) if dim is None else x.size[dim]


def _sym_stride(x, dim=None):
    return tuple(x.stride) if dim is None else x.stride[dim]


# Size arithmetic that a graph may carry on plain Python ints (every size is concrete here).
_PYTHON_SCALAR_FNS = {
    operator.add: operator.add, operator.sub: operator.sub, operator.mul: operator.mul,
    operator.floordiv: operator.floordiv, operator.truediv: operator.truediv,
    operator.mod: operator.mod, operator.neg: operator.neg, operator.pow: operator.pow,
    operator.eq: operator.eq, operator.ne: operator.ne, operator.lt: operator.lt,
    operator.le: operator.le, operator.gt: operator.gt, operator.ge: operator.ge,
    torch.ops.aten.sym_size.int: _sym_size, torch.ops.aten.sym_size.default: _sym_size,
    torch.ops.aten.sym_stride.int: _sym_stride, torch.ops.aten.sym_stride.default: _sym_stride,
    torch.ops.aten.sym_numel.default: lambda x: x.numel,
    torch.ops.aten.sym_storage_offset.default: lambda x: x.offset,
}
for _name in ("sym_max", "sym_min", "sym_not", "sym_float", "sym_int", "sym_sqrt", "sym_ite"):
    _fn = getattr(torch, _name, None)
    if _fn is not None:
        _PYTHON_SCALAR_FNS[_fn] = _fn


def _same_layout(size, a, b):
    return len(a) == len(b) and all(s <= 1 or x == y for s, x, y in zip(size, a, b))


def _dense_strides(size, order_stride):
    """Dense strides for `size` in the memory order of `order_stride` (size-1 dims included)."""
    return S.dense_strides_in_order(size, ir.memory_order(size, order_stride))


def _non_overlapping(size, stride, gaps=True):
    """Strides at which no two elements share memory; with gaps=False also gap-free (some
    permutation of contiguous)."""
    if len(size) != len(stride) or any(s == 0 for s in size):
        return False
    end = 1
    for st, sz in sorted((st, sz) for sz, st in zip(size, stride) if sz > 1):
        if st < end or (not gaps and st != end):
            return False
        end = st * sz
    return True


def _dense(size, stride):
    """Strides of a non-overlapping, gap-free layout (some permutation of contiguous)."""
    return _non_overlapping(size, stride, gaps=False)


__all__ = ["GraphLowering"]
