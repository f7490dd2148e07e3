"""Channels-last layout for graphs with 2-D convolutions, chosen per graph before AOTAutograd.

Users pass conv nets NCHW; their convolutions and the ops around them run faster on
channels-last tensors on GPUs. The pass runs on the FX graph dynamo hands the backend, before
AOTAutograd splits it, so the forward and backward graphs agree on the layout.

`convert_graph(gm, example_inputs, mode)` finds the graph's 2-D convolutions, describes them
as a layout problem and asks the layout point (tuner/points/layout.py) "keep" or
"channels_last". To convert, it inserts before its first reader one
`.contiguous(memory_format=torch.channels_last)` per 4-D graph input that reaches a
convolution through ops that keep a layout (pointwise ops, batch norm, activations, pooling,
dropout, concatenation) and per 4-D convolution weight that is a graph input or attribute;
inputs already channels-last are left as they are. It then runs the rewritten graph on fake
tensors and gives every 4-D output whose strides changed the strides eager gives it (the FX
meta value's of the original graph), contiguous or channels-last. An input that the graph
writes in place is not converted (the write would go to the copy); a graph whose outputs
share memory with a converted input, or that fails on fake tensors once rewritten, is left
as it was ("declined"); a failure is first retried with the graph's shape `view`s made
`reshape`s (`x.view(n, -1)` before a linear head, which channels-last strides refuse), where
no write makes the copy differ from a view. Graphs with symbolic sizes keep their layout.

In max-autotune on CUDA (`measure_on`), when neither the user nor the cache answers, the
point times the graph both ways (`layout_timer`: gm as it is and a converted copy, on fresh
random inputs) and stores the faster in the cache, where later compiles of the graph read it.
"""
from __future__ import annotations

import logging
import operator
import sys
from dataclasses import dataclass, field

import torch
import torch.fx
import torch.nn.functional as F

from tuner.points.layout import ConvSignature, LayoutProblem, layout_decision

from .fold import _attr
from .freeze import grad_modes

log = logging.getLogger("tuner.compiler")
CL = torch.channels_last

# 2-D convolution calls as dynamo records them: name of the weight's and of the groups' and
# stride's positions in their signature
_CONV_ARGS = {torch.conv2d: ("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
              torch.convolution: ("input", "weight", "bias", "stride", "padding", "dilation",
                                  "transposed", "output_padding", "groups"),
              torch.conv_transpose2d: ("input", "weight", "bias", "stride", "padding",
                                       "output_padding", "groups", "dilation")}
for _op in (torch.ops.aten.conv2d.default, torch.ops.aten.convolution.default):
    _CONV_ARGS[_op] = tuple(a.name for a in _op._schema.arguments)

# ops whose output keeps the memory order of their 4-D inputs (eager's TensorIterator, batch
# norm and pooling kernels follow their input's layout)
_KEEP_FUNCTIONS = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
    torch.add, torch.sub, torch.mul, torch.div, torch.neg, torch.relu, torch.sigmoid,
    torch.tanh, torch.clamp, torch.cat, torch.batch_norm,
    F.relu, F.relu6, F.silu, F.gelu, F.hardswish, F.hardsigmoid, F.leaky_relu, F.elu, F.mish,
    F.hardtanh, F.sigmoid, F.tanh, F.batch_norm, F.dropout, F.max_pool2d, F.avg_pool2d,
    F.adaptive_avg_pool2d, F.adaptive_max_pool2d}
_KEEP_METHODS = {"add", "sub", "mul", "div", "neg", "relu", "sigmoid", "tanh", "clamp",
                 "float", "half", "bfloat16", "to", "type_as"}
_KEEP_MODULES = (torch.nn.BatchNorm2d, torch.nn.ReLU, torch.nn.ReLU6, torch.nn.SiLU,
                 torch.nn.GELU, torch.nn.Hardswish, torch.nn.Hardsigmoid, torch.nn.LeakyReLU,
                 torch.nn.Sigmoid, torch.nn.Tanh, torch.nn.Identity, torch.nn.Dropout,
                 torch.nn.MaxPool2d, torch.nn.AvgPool2d, torch.nn.AdaptiveAvgPool2d,
                 torch.nn.Mish, torch.nn.ELU)


class Declined(Exception):
    """The graph keeps its layout although the decision said channels_last."""


@dataclass
class LayoutResult:
    """What the pass did to one graph: the decision, its source, and the nodes converted."""
    choice: str                  # "channels_last" (applied), "keep", or "declined"
    source: str                  # the decision's: "forced", "rule", "cache", "heuristic",
                                 # "measured"
    convs: int
    inputs: list = field(default_factory=list)    # names of the graph inputs converted
    weights: list = field(default_factory=list)   # names of the conv weights converted
    outputs: int = 0             # outputs given back eager's strides
    reshaped: int = 0            # shape views made reshapes (channels-last strides refused them)
    reason: str = ""             # why it was declined


def convert_graph(gm: torch.fx.GraphModule, example_inputs, mode: str = "auto",
                  measure_on: tuple = ()) -> LayoutResult | None:
    """Converts gm in place when the layout point says channels_last (see the module doc);
    None for a graph without 2-D convolutions or with symbolic sizes (nothing decided).
    measure_on: the devices ("cuda") on which the point, when neither the user nor the cache
    answers, times the graph both ways (`layout_timer`) and stores the faster; the backend
    passes ("cuda",) in max-autotune, tests ("cpu",)."""
    found = _describe(gm, example_inputs)
    if found is None:
        return None
    problem, value_of, activations, weights = found
    timer = None
    if problem.device in measure_on:
        def timer():
            return layout_timer(gm, example_inputs, activations, weights)
    answer = layout_decision(problem, mode, timer)
    result = LayoutResult(answer.choice, answer.source, len(problem.convs))
    if answer.choice != "channels_last":
        return result
    try:
        _apply(gm, example_inputs, value_of, activations, weights, result)
    except Exception as e:   # noqa: BLE001 - the graph compiles in its own layout
        from tuner.search.base import first_line
        result.choice, result.reason = "declined", first_line(e, 200)
        result.inputs, result.weights, result.outputs, result.reshaped = [], [], 0, 0
    return result


def _apply(gm, example_inputs, value_of, activations, weights, result):
    graph = gm.graph
    targets = []
    for node in dict.fromkeys([*activations, *weights]):
        value = value_of.get(node) if node.op == "placeholder" else _attr(gm, node.target)
        if not isinstance(value, torch.Tensor) or value.dim() != 4 or _is_cl(value):
            continue
        if _written(graph, node):
            continue
        targets.append(node)
    if not targets:
        raise Declined("every input reaching a convolution is channels-last already or "
                       "written in place")
    _check_outputs_alias(graph, targets)
    added, reshaped = [], []
    try:
        # one copy per grad mode its readers run in, just before the first of them: a
        # training step compiled whole under no_grad turns grad mode on inside the graph, and
        # a weight converted at the entry, before that, lost its gradient (found by the NCHW
        # training benchmark: the first convolution's weight gradient came back None); a
        # copy made under no_grad cannot serve a reader under grad either
        order = {n: i for i, n in enumerate(graph.nodes)}
        mode = grad_modes(graph)
        for node in targets:
            by_mode: dict = {}
            for user in sorted(node.users, key=order.__getitem__):
                by_mode.setdefault(mode[user], []).append(user)
            for users in by_mode.values():
                with graph.inserting_before(users[0]):
                    new = graph.call_method("contiguous", (node,), {"memory_format": CL})
                for user in users:
                    user.replace_input_with(node, new)
                added.append((new, node))
        graph.lint()
        gm.recompile()
        try:
            outs = _fake_outputs(gm, example_inputs)
        except Exception:   # noqa: BLE001 - a view channels-last strides refuse: reshape it
            reshaped = _views_to_reshapes(graph)
            if not reshaped:
                raise
            gm.recompile()
            outs = _fake_outputs(gm, example_inputs)
            result.reshaped = len(reshaped)
        result.outputs = _restore_outputs(graph, outs)
        graph.lint()
        gm.recompile()
    except Exception:
        for node in reshaped:
            node.target = "view"
        for new, node in reversed(added):
            new.replace_all_uses_with(node)
            graph.erase_node(new)
        gm.recompile()
        raise
    for node in dict.fromkeys(node for _, node in added):
        (result.weights if node in weights else result.inputs).append(node.name)



def layout_problem(gm: torch.fx.GraphModule, example_inputs) -> LayoutProblem | None:
    """The layout problem `convert_graph` asks the point about for gm (None: nothing to ask)."""
    found = _describe(gm, example_inputs)
    return None if found is None else found[0]


def _describe(gm, example_inputs):
    """(the layout problem, placeholder -> example value, the graph inputs reaching a
    convolution, the convolution weights that are inputs or attributes), or None for a graph
    without 2-D convolutions or with symbolic sizes."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs) or any(
            not isinstance(x, torch.Tensor) and not isinstance(x, (int, float, bool, type(None)))
            for x in example_inputs):
        return None
    from .specialize import is_symbolic
    if is_symbolic(example_inputs):
        return None
    convs = [(n, args) for n in gm.graph.nodes if (args := _conv_args(n)) is not None]
    if not convs:
        return None
    value_of = dict(zip(placeholders, example_inputs))
    activations = _conv_inputs(gm, [a["input"] for _, a in convs])
    weights = [a["weight"] for _, a in convs if a["weight"].op in ("placeholder", "get_attr")]
    act_values = [value_of[p] for p in activations if isinstance(value_of.get(p), torch.Tensor)]
    problem = LayoutProblem(
        tuple(_signature(n, a) for n, a in convs), _device(convs, example_inputs),
        bool(act_values) and all(_is_cl(v) for v in act_values))
    return problem, value_of, activations, weights


def layout_timer(gm, example_inputs, activations, weights):
    """choice -> milliseconds of gm run as it is ("keep") and of a converted copy
    ("channels_last", converted as `convert_graph` would, outputs given back eager's
    strides), both on the same fresh random inputs of the example inputs' sizes, strides and
    dtypes, timed by the tuner's benchmark; None when the copy cannot be converted (the graph
    would be declined: nothing to compare) or a run would change state gm holds (a module
    call, or an attribute the graph writes in place).

    The two graphs run as ATen ops (cuDNN's convolutions, eager's pointwise, norm and pooling
    kernels), not as our compiled code: the convolutions dominate a conv net's time and run
    as ATen in our code too, and the choice is about their channels-last kernels plus the
    copies converting inputs and weights, which both runs pay as compiled code would. Our
    fused kernels around them are not measured (compiling the graph twice, in max-autotune
    where every kernel is tuned, would double the compile), nor the backward of a training
    graph (the forward runs under no_grad). Fresh inputs, not the example ones: the graph may
    write its inputs (batch norm's running statistics), and the model's must not change."""
    from tuner.bench import benchmark, rand_args, real_tensors
    graph = gm.graph
    if any(n.op == "call_module" or (n.op == "get_attr" and _written(graph, n))
           for n in graph.nodes):
        return None
    converted, mapping = _copy(gm)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    value_of = {mapping[p]: v for p, v in zip(placeholders, example_inputs)}
    try:
        _apply(converted, example_inputs, value_of, [mapping[n] for n in activations],
               [mapping[n] for n in weights], LayoutResult("channels_last", "measured", 0))
    except Exception as e:   # noqa: BLE001 - the pass would decline it: nothing to time
        log.debug("layout not measured: the converted copy failed: %s", e)
        return None
    device = next((x.device for x in example_inputs if isinstance(x, torch.Tensor)),
                  torch.device("cpu"))
    cuda = [device] if device.type == "cuda" else []
    # the user's random streams are left as they were (inputs drawn here, dropout in a run)
    with real_tensors(), torch.random.fork_rng(devices=cuda):
        args = rand_args(example_inputs)
    runs = {"keep": gm, "channels_last": converted}

    def measure(choice: str) -> float:
        run = runs[choice]
        with torch.random.fork_rng(devices=cuda), torch.no_grad():
            return benchmark(lambda: run(*args), device=str(device))
    measure.graphs = runs   # what each choice runs (tests check both compute the same)
    return measure


def _copy(gm):
    """A GraphModule running a copy of gm's graph (node meta shared, attributes shared) and
    the map from gm's nodes to the copy's."""
    graph, mapping = torch.fx.Graph(), {}
    graph.set_codegen(gm.graph._codegen)
    graph.output(graph.graph_copy(gm.graph, mapping))
    return torch.fx.GraphModule(gm, graph), mapping


def _views_to_reshapes(graph) -> list:
    """Turns the graph's shape `view`s into `reshape`s (a copy where channels-last strides
    allow no view, as `x.view(n, -1)` before a linear head); returns the nodes changed. A view
    that is an output, or whose memory the graph writes after it, stays (the copy would
    not share the write)."""
    output = next(n for n in graph.nodes if n.op == "output")
    returned = set(torch.utils._pytree.tree_flatten(output.args[0])[0])
    changed = []
    for node in list(graph.nodes):
        if node.op != "call_method" or node.target != "view" or node in returned:
            continue
        if len(node.args) == 2 and isinstance(node.args[1], torch.dtype):
            continue
        if _written(graph, node, after=node):
            continue
        node.target = "reshape"
        changed.append(node)
    return changed


def _restore_outputs(graph, new_values) -> int:
    """Each 4-D output whose strides differ from the original graph's gets those back (a
    contiguous or channels-last copy); raises Declined, changing nothing, for other strides.
    Returns how many outputs were given back their strides."""
    output = next(n for n in graph.nodes if n.op == "output")
    flat, spec = torch.utils._pytree.tree_flatten(output.args[0])
    wanted = {}   # output node -> contiguous()'s keyword arguments
    for node, new in zip(flat, new_values):
        if not isinstance(node, torch.fx.Node) or not isinstance(new, torch.Tensor) \
                or new.dim() != 4:
            continue
        old = _example(node)
        if old is None:
            raise Declined(f"output {node.name} has no example value")
        if _same_strides(old, new) or node in wanted:
            continue
        if old.is_contiguous():
            wanted[node] = {}
        elif _is_cl(old):
            wanted[node] = {"memory_format": CL}
        else:
            raise Declined(f"output {node.name} has strides {tuple(old.stride())}")
    if not wanted:
        return 0
    restored = {}
    for node, kwargs in wanted.items():
        with graph.inserting_before(output):
            restored[node] = graph.call_method("contiguous", (node,), kwargs)
    flat = [restored.get(n, n) if isinstance(n, torch.fx.Node) else n for n in flat]
    output.args = (torch.utils._pytree.tree_unflatten(flat, spec),)
    return len(wanted)


def _same_strides(a, b) -> bool:
    return all(n <= 1 or x == y for n, x, y in zip(a.shape, a.stride(), b.stride()))


def _fake_outputs(gm, example_inputs) -> list:
    """The rewritten graph's flat outputs, run on fake copies of the example inputs."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    fakes = [mode.from_tensor(x) if isinstance(x, torch.Tensor) else x for x in example_inputs]

    class Run(torch.fx.Interpreter):
        def get_attr(self, target, args, kwargs):
            value = super().get_attr(target, args, kwargs)
            return mode.from_tensor(value) if isinstance(value, torch.Tensor) else value

    with mode:
        out = Run(gm).run(*fakes)
    return torch.utils._pytree.tree_flatten(out)[0]


def _check_outputs_alias(graph, targets):
    """Raises Declined when an output shares memory with an input about to be converted."""
    storages = set()
    for node in targets:
        value = _example(node)
        if value is None:
            raise Declined(f"{node.name} has no example value")
        storages.add(_storage(value))
    output = next(n for n in graph.nodes if n.op == "output")
    for node in torch.utils._pytree.tree_flatten(output.args[0])[0]:
        value = _example(node) if isinstance(node, torch.fx.Node) else None
        if isinstance(value, torch.Tensor) and _storage(value) in storages:
            raise Declined(f"output {node.name} shares memory with a converted input")


def _written(graph, node, after=None) -> bool:
    """Whether the graph writes node's memory in place (through node or a view of it; only
    writes after the node `after`, when given)."""
    from .fold import _mutates
    value = _example(node)
    if value is None:
        return True
    storage = _storage(value)
    aliases = {n for n in graph.nodes
               if isinstance(_example(n), torch.Tensor) and _storage(_example(n)) == storage}
    aliases.add(node)
    users = list(graph.nodes)
    if after is not None:
        users = users[users.index(after) + 1:]
    for user in users:
        if user.op not in ("call_function", "call_method", "call_module"):
            continue
        reads = [a for a in torch.utils._pytree.tree_flatten((user.args, user.kwargs))[0]
                 if isinstance(a, torch.fx.Node)]
        if not any(a in aliases for a in reads):
            continue
        if _mutates(user) or user.kwargs.get("inplace") is True:
            return True
        if user.op == "call_module" and \
                getattr(_attr(graph.owning_module, user.target), "inplace", False):
            return True
    return False


def _storage(t):
    from torch.multiprocessing.reductions import StorageWeakRef
    return StorageWeakRef(t.untyped_storage())


def _example(node):
    for key in ("example_value", "val"):
        if key in node.meta:
            return node.meta[key]
    return None


def _is_cl(t) -> bool:
    return t.dim() == 4 and t.is_contiguous(memory_format=CL)


def _conv_args(node) -> dict | None:
    """A 2-D convolution's arguments by name, or None for any other node."""
    if node.op != "call_function" or node.target not in _CONV_ARGS:
        return None
    args = dict(zip(_CONV_ARGS[node.target], node.args))
    args.update(node.kwargs)
    x, w = args.get("input"), args.get("weight")
    if not isinstance(x, torch.fx.Node) or not isinstance(w, torch.fx.Node):
        return None
    xv, wv = _example(x), _example(w)
    if not isinstance(xv, torch.Tensor) or not isinstance(wv, torch.Tensor) \
            or xv.dim() != 4 or wv.dim() != 4:
        return None
    return args


def _signature(node, args) -> ConvSignature:
    x, w = _example(args["input"]), _example(args["weight"])
    transposed = node.target is torch.conv_transpose2d or bool(args.get("transposed", False))
    groups = int(args.get("groups", 1) or 1)
    c_out = int(w.shape[1]) * groups if transposed else int(w.shape[0])
    stride = args.get("stride", 1)
    stride = (stride, stride) if isinstance(stride, int) else tuple(stride)
    stride = (stride * 2)[:2] if len(stride) == 1 else stride
    return ConvSignature(int(x.shape[1]), c_out, (int(w.shape[2]), int(w.shape[3])), groups,
                         (int(stride[0]), int(stride[1])), int(x.shape[2]), int(x.shape[3]),
                         str(x.dtype).removeprefix("torch."))


def _device(convs, example_inputs) -> str:
    value = _example(convs[0][1]["input"])
    device = getattr(value, "device", None)
    if device is None or device.type == "meta":
        device = next((x.device for x in example_inputs if isinstance(x, torch.Tensor)), None)
    return device.type if device is not None else "cpu"


def _keeps_layout(gm, node) -> bool:
    if node.op == "call_function":
        return node.target in _KEEP_FUNCTIONS
    if node.op == "call_method":
        return node.target in _KEEP_METHODS
    if node.op == "call_module":
        return isinstance(_attr(gm, node.target), _KEEP_MODULES)
    return False


def _conv_inputs(gm, starts) -> list:
    """The 4-D graph inputs that reach a convolution's input through ops that keep a layout."""
    found, seen, stack = [], set(), [s for s in starts if isinstance(s, torch.fx.Node)]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        value = _example(node)
        if not isinstance(value, torch.Tensor) or value.dim() != 4:
            continue
        if node.op == "placeholder":
            found.append(node)
        elif _keeps_layout(gm, node):
            stack.extend(a for a in torch.utils._pytree.tree_flatten((node.args, node.kwargs))[0]
                         if isinstance(a, torch.fx.Node))
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    return sorted(found, key=order.__getitem__)


def note_layout(result: LayoutResult | None) -> None:
    """Counts the graph's layout in the compile stats and prints it under TUNER_LOGS=decisions."""
    if result is None:
        return
    from tuner.settings import settings

    from . import stats
    stats.layouts[result.choice] += 1
    stats.layout_sources[result.source] += 1
    if "decisions" not in settings.logs:
        return
    line = (f"tuner: layout of a graph of {result.convs} convolution(s): {result.choice} "
            f"({result.source})")
    if result.choice == "channels_last":
        line += (f": converted {len(result.inputs)} input(s) and {len(result.weights)} weight(s)"
                 f", {result.outputs} output(s) given back eager's strides")
        if result.reshaped:
            line += f", {result.reshaped} view(s) made reshapes"
    elif result.reason:
        line += f": {result.reason}"
    print(line, file=sys.stderr, flush=True)
