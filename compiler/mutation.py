"""In-place writes during graph lowering: writes into inputs (mutation nodes, the deferred
writes of AOTAutograd's mutation epilogue, retargeting a computed buffer into the input it is
copied to) and which FX nodes and buffers the graph writes in place."""
from __future__ import annotations

import torch
import torch.fx

from . import ir, lowering
from . import sym as S
from .op_tables import view_base
from .ops import Recorder, use


class MutationTracking:
    """GraphLowering's in-place write methods (use its buffers, nodes, readers, last writers
    and aliases, kept by `add_node`)."""

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
        if reads_elsewhere(node, b.name):
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
                or reads_elsewhere(writer, target.name):
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


def reads_elsewhere(node, name) -> bool:
    """Whether a pointwise node reads buffer `name` at an element other than the one it
    stores (same strides assumed: the node writes `name`'s memory in place)."""
    syms = node.symbols()
    store = node.store_index(syms)
    return any(n == name and S.simplify(index - store) != 0 for n, index in node.read_index)



def reinplace_input_scatters(gm: torch.fx.GraphModule) -> int:
    """`index_put(x, idx, v)` of a graph input x whose only other reader is the copy back into
    x at the end (AOTAutograd's functional form of `x.index_copy_(...)` / `x[idx] = v`: a static
    KV cache's update) becomes `x.index_put_(idx, v)` and the copy goes: the update writes the
    elements it changes instead of copying the whole input into a fresh buffer and back. Not
    for boolean indices, nor when the updated value is a graph output. Returns how many."""
    done = 0
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target is not torch.ops.aten.index_put.default:
            continue
        x = node.args[0]
        if not isinstance(x, torch.fx.Node) or x.op != "placeholder" or len(x.users) != 2:
            continue
        back = next((u for u in x.users if u is not node), None)
        if back is None or back.target is not torch.ops.aten.copy_.default or back.users \
                or tuple(back.args) != (x, node) or back.kwargs:
            continue
        if any(u.op == "output" for u in node.users):
            continue
        indices = node.args[1]
        vals = [i.meta.get("val") if isinstance(i, torch.fx.Node) else None for i in indices
                if i is not None]
        if any(not isinstance(v, torch.Tensor) or v.dtype in (torch.bool, torch.uint8) for v in vals):
            continue
        node.target = torch.ops.aten.index_put_.default
        gm.graph.erase_node(back)
        done += 1
    if done:
        gm.recompile()
    return done
