"""A graph that only updates its inputs in place, without AOTAutograd (an optimizer step).

AOTAutograd functionalizes a graph by running it twice under functional tensors (metadata,
then the trace): for a 148-tensor AdamW step that is most of the first step's compile (CPU:
~5.5 s of a 7.4 s backend). When no gradient is wanted and the graph writes only its own
inputs, the write-back is simple enough to do here: the graph module's tensor attributes
(dynamo keeps an optimizer's parameters and states as attributes) become inputs, one trace
with static fake tensors gives the ATen graph (CPU: 1.8 s), and each in-place op becomes its
functional overload whose results later readers take, with a `copy_` into every written input
at the end: the form AOTAutograd hands the compiler with keep_inference_input_mutations.

`functional_graph` returns None (the caller then goes through AOTAutograd) for anything else:
a graph that returns values, gradients wanted, symbolic sizes, inputs that share storage or
are views, no tensor attributes, nothing written, a write through a view or of anything but
an op's first argument, an in-place op without a functional overload. Measured on this CPU
(148 tensors of 16 x 8, interpreter, interleaved): first compiled AdamW step 12.07 / 11.57 s
through AOTAutograd, 7.82 / 7.48 s here.
"""
from __future__ import annotations

import operator

import torch

from .freeze import is_inference
from .torch_compat import decomposition_table


def functional_graph(gm, example_inputs):
    """(ATen graph module with copy_ write-backs, its inputs: the example inputs then the
    lifted attributes, the lifted attributes) or None."""
    if not all(isinstance(t, torch.Tensor) for t in example_inputs):
        return None   # symbolic or Python scalars among the inputs
    graph = gm.graph
    output = next(n for n in reversed(graph.nodes) if n.op == "output")
    if output.args and output.args[0] not in ((), [], None):
        return None   # a graph that returns values (a model) goes through AOTAutograd
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    attrs = [n for n in graph.nodes if n.op == "get_attr"]
    if not placeholders or not attrs or len(placeholders) != len(example_inputs):
        return None
    lifted = [getattr(gm, n.target, None) for n in attrs]
    if not all(isinstance(t, torch.Tensor) for t in lifted):
        return None
    args = list(example_inputs) + lifted
    if not is_inference(args, gm):   # (grad mode the caller's, or turned on in the graph)
        return None
    if any(t._base is not None or t.is_sparse for t in args):
        return None
    storages = {t.untyped_storage().data_ptr() for t in args if t.numel() > 0}
    if len(storages) != sum(1 for t in args if t.numel() > 0):
        return None   # inputs that share memory: a write to one is a write to another
    # the attributes as inputs, after the graph's own placeholders
    lifted_graph = torch.fx.Graph()
    env: dict = {}
    for n in placeholders:
        env[n] = lifted_graph.placeholder(n.name)
    for i, n in enumerate(attrs):
        env[n] = lifted_graph.placeholder(f"lifted_{i}")
    for n in graph.nodes:
        if n.op in ("placeholder", "get_attr"):
            continue
        env[n] = lifted_graph.node_copy(n, lambda x: env[x])
    traced_from = torch.fx.GraphModule(gm, lifted_graph)
    from torch._subclasses import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx
    fake = FakeTensorMode()
    with fake:
        aten_gm = make_fx(traced_from, decomposition_table=decomposition_table())(
            *[fake.from_tensor(t) for t in args])
    out = _write_back(aten_gm)
    if out is None:
        return None
    return out, args, lifted


def _write_back(gm):
    """The graph with each in-place op replaced by its functional overload (readers after it
    take the new values) and `copy_` of the final values into the written inputs; None where
    an op cannot be rewritten so."""
    from .op_tables import VIEW_LOWERINGS
    old = gm.graph
    new = torch.fx.Graph()
    env: dict = {}
    inputs: dict = {}    # input node (old) -> its placeholder (new)
    written: dict = {}   # input node (old) -> its current value (new)
    # an in-place op returns its first argument: a later write through that result (e.g.
    # AdamW's `exp_avg_sq.mul_(b2).addcmul_(...)`, decomposed to `copy_(mul_, ...)`) writes
    # the same tensor. root: node (old) -> the tensor it aliases; aliases: root -> its nodes
    root: dict = {}
    aliases: dict = {}
    views = set()
    for n in old.nodes:
        if n.op == "placeholder":
            env[n] = new.placeholder(n.name)
            inputs[n] = env[n]
            continue
        if n.op == "output":
            for ph, value in written.items():   # the input itself, its final value
                new.call_function(torch.ops.aten.copy_.default, (inputs[ph], value))
            new.output(torch.fx.map_arg(n.args[0], lambda x: env[x]))
            continue
        t = n.target
        if n.op == "call_function" and isinstance(t, torch._ops.OpOverload) and t._schema.is_mutable:
            functional = _functional(t)
            if functional is None:
                return None
            targets = _written_args(t, n)
            if targets is None:
                return None
            for w in targets:
                if w in views or w.op not in ("placeholder", "call_function"):
                    return None   # a write through a view needs real functionalization
            result = new.call_function(functional, torch.fx.map_arg(n.args, lambda x: env[x]),
                                       torch.fx.map_arg(n.kwargs, lambda x: env[x]))
            listed = _is_list_write(t)
            for i, w in enumerate(targets):
                value = new.call_function(operator.getitem, (result, i)) if listed else result
                r = root.get(w, w)
                for a in aliases.setdefault(r, {r}):   # every name of the tensor reads the new value
                    env[a] = value
                if r.op == "placeholder":
                    written[r] = value
            # the op's own result (None for foreach, `self`, another name of it, otherwise)
            if listed:
                env[n] = None
            else:
                r = root.get(targets[0], targets[0])
                root[n] = r
                aliases[r].add(n)
                env[n] = env[targets[0]]
            continue
        if n.op == "call_function" and (t in VIEW_LOWERINGS or (
                t is operator.getitem and n.args and n.args[0] in views)):
            views.add(n)   # (a split's or unbind's items are views too)
        env[n] = new.node_copy(n, lambda x: env[x])
    if not written:
        return None   # nothing written in place: not the graph this path is for
    for v in views:   # a view of an input written later would read the old values here
        base = v
        while base in views and base.args and isinstance(base.args[0], torch.fx.Node):
            base = base.args[0]
        if root.get(base, base) in written:
            return None
    return torch.fx.GraphModule(gm, new)


def _functional(op):
    """aten.add_.Tensor -> aten.add.Tensor; aten._foreach_mul_.Scalar -> _foreach_mul.Scalar."""
    name = op._schema.name.split("::")[-1]
    if not name.endswith("_"):
        return None
    packet = getattr(torch.ops.aten, name[:-1], None)
    if packet is None:
        return None
    overload = getattr(packet, op._overloadname, None)
    if overload is None or overload._schema.is_mutable:
        return None
    return overload


def _written_args(op, node):
    """The graph nodes an in-place op writes (its first argument: a tensor or a list), or
    None where another argument is written too."""
    schema_args = op._schema.arguments
    writes = [i for i, a in enumerate(schema_args) if a.alias_info is not None and a.alias_info.is_write]
    if writes != [0] or not node.args:
        return None
    first = node.args[0]
    nodes = list(first) if isinstance(first, (list, tuple)) else [first]
    if not all(isinstance(x, torch.fx.Node) for x in nodes):
        return None
    return nodes


def _is_list_write(op) -> bool:
    return op._schema.arguments[0].type.kind() == "ListType"
