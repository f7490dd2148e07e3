"""Freezing (issue 49): an inference graph's eval-mode batch norms folded into their convolutions.

With TUNER_FREEZE on (or torch.compile's options={"freeze": True}) the user promises that the
compiled module's parameters and buffers do not change: the compiled graph keeps the values it
saw at compile time, and an in-place update of a weight afterwards (an optimizer step,
load_state_dict) is not seen by it. `fold_conv_bn(gm, example_inputs)` runs on the FX graph
dynamo hands the backend, before AOTAutograd, when no gradient is wanted (grad mode off, or no
tensor input requires grad). It rewrites each 2-D convolution (any groups, not transposed)
whose only user is an eval-mode batch norm (`training=False`) into one convolution with

    weight' = weight * gamma / sqrt(running_var + eps)            (per output channel)
    bias'   = (bias - running_mean) * gamma / sqrt(running_var + eps) + beta

computed in float32 from the real values and cast back to the weight's dtype. Every operand
must be a constant: a get_attr, or a graph input that is a module parameter or buffer (in
torch 2.13 dynamo inlines nn modules, so parameters and buffers reach the backend as graph
inputs: placeholders whose source is `..._parameters[...]` / `..._buffers[...]`); none may be
written in place by the graph. The folded weight and bias become buffers of the GraphModule,
read with get_attr (torch_compat.add_graph_constant): AOTAutograd passes them to the compiled
graph as inputs, so the graph cache keys on their metadata, not their values. The old
parameters stay graph inputs, unused.
"""
from __future__ import annotations

import sys

import torch
import torch.fx
import torch.nn.functional as F

aten = torch.ops.aten

# batch norm as dynamo records it (F.batch_norm from an inlined nn.BatchNorm2d) or as ATen
# and torch name it: argument names by position
_BN_ARGS = {F.batch_norm: ("input", "running_mean", "running_var", "weight", "bias", "training",
                           "momentum", "eps"),
            torch.batch_norm: ("input", "weight", "bias", "running_mean", "running_var",
                               "training", "momentum", "eps", "cudnn_enabled")}
_BN_ARGS[aten.batch_norm.default] = tuple(a.name for a in aten.batch_norm.default._schema.arguments)
_BN_DEFAULTS = {"weight": None, "bias": None, "training": False, "eps": 1e-5}

_CONV_ARGS = {torch.conv2d: ("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
              torch.convolution: ("input", "weight", "bias", "stride", "padding", "dilation",
                                  "transposed", "output_padding", "groups")}
for _op in (aten.conv2d.default, aten.convolution.default):
    _CONV_ARGS[_op] = tuple(a.name for a in _op._schema.arguments)


def freeze_enabled(options: dict) -> bool:
    """options={"freeze": ...} when given, else the TUNER_FREEZE setting."""
    from tuner.settings import settings
    value = options.get("freeze")
    return bool(settings.freeze if value is None else value)


def is_inference(example_inputs, gm=None) -> bool:
    """Whether no gradient is taken through the graph: grad mode off, or no tensor input (the
    parameters among them) requires grad. Grad mode is the caller's unless `gm` turns it on
    itself (`torch._C._set_grad_enabled(True)`: a training step under `torch.enable_grad()`
    compiled whole, called under no_grad)."""
    from .fold import _attr
    tensors = list(example_inputs)
    if gm is not None:   # (parameters dynamo left as module attributes)
        tensors += [_attr(gm, n.target) for n in gm.graph.nodes if n.op == "get_attr"]
    if not any(isinstance(x, torch.Tensor) and x.requires_grad for x in tensors):
        return True
    return not torch.is_grad_enabled() and not (
        gm is not None and any(_grad_set(n) is True for n in gm.graph.nodes))


def _grad_set(node):
    """The grad mode node sets (dynamo records `with torch.enable_grad()` / `no_grad()` as
    `torch._C._set_grad_enabled` calls), or None."""
    if node.op == "call_function" and node.target is torch._C._set_grad_enabled and node.args \
            and isinstance(node.args[0], bool):
        return node.args[0]
    return None


def grad_modes(graph) -> dict:
    """node -> the grad mode it runs under: "caller" until the graph sets one itself, then
    True or False."""
    state, out = "caller", {}
    for n in graph.nodes:
        out[n] = state
        if (sets := _grad_set(n)) is not None:
            state = sets
    return out


def fold_conv_bn(gm: torch.fx.GraphModule, example_inputs) -> list[tuple[str, str]]:
    """Folds gm's eval-mode batch norms into their convolutions in place (see the module doc);
    returns (convolution name, batch norm name) per fold."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs):
        return []
    value_of = dict(zip(placeholders, example_inputs))
    folds = []
    for bn in list(gm.graph.nodes):
        plan = _plan(gm, bn, value_of)
        if plan is not None:
            _rewrite(gm, bn, *plan, len(folds))
            folds.append((plan[0].name, bn.name))
    if folds:
        gm.graph.lint()
        gm.recompile()
    return folds


def _named(node, table) -> dict:
    args = dict(zip(table[node.target], node.args))
    args.update(node.kwargs)
    return args


def _plan(gm, bn, value_of):
    """(conv node, its arguments, {operand name: real value}) when bn folds into its input
    convolution, else None."""
    if bn.op != "call_function" or bn.target not in _BN_ARGS:
        return None
    b = {**_BN_DEFAULTS, **_named(bn, _BN_ARGS)}
    conv = b["input"]
    if b["training"] is not False or not isinstance(b["eps"], (int, float)) \
            or not isinstance(conv, torch.fx.Node) or conv.op != "call_function" \
            or conv.target not in _CONV_ARGS or list(conv.users) != [bn]:
        return None
    c = _named(conv, _CONV_ARGS)
    if c.get("transposed", False) is not False or not _same_meta(conv, bn):
        return None
    operands = {"w": c.get("weight"), "b": c.get("bias"), "mean": b["running_mean"],
                "var": b["running_var"], "gamma": b["weight"], "beta": b["bias"]}
    values = {}
    for name, node in operands.items():
        if node is None and name in ("b", "gamma", "beta"):
            continue
        value = _constant(gm, node, value_of)
        if value is None:
            return None
        values[name] = value
    w = values["w"]
    if w.dim() != 4 or not w.dtype.is_floating_point or any(
            v.shape != (w.shape[0],) or v.device != w.device
            for k, v in values.items() if k != "w"):
        return None
    values["eps"] = float(b["eps"])
    return conv, c, values


def _same_meta(conv, bn) -> bool:
    """Whether the batch norm's result has the convolution's dtype and shape (the folded
    convolution gives the conv's: a batch norm that promotes, under autocast say, stays)."""
    a, b = (n.meta.get("example_value", n.meta.get("val")) for n in (conv, bn))
    return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and \
        a.dtype == b.dtype and a.shape == b.shape


def _constant(gm, node, value_of):
    """The real tensor behind a parameter, buffer or get_attr node the graph never writes;
    None for anything else."""
    if not isinstance(node, torch.fx.Node):
        return None
    if node.op == "get_attr":
        value = gm
        for part in node.target.split("."):
            value = getattr(value, part, None)
    elif node.op == "placeholder" and _is_module_state(node, value_of.get(node)):
        value = value_of[node]
    else:
        return None
    if not isinstance(value, torch.Tensor) or _written(node):
        return None
    return value


def _is_module_state(node, value) -> bool:
    """Whether a graph input is a module's parameter or buffer (not a tensor the caller passes)."""
    if isinstance(value, torch.nn.Parameter):
        return True
    source = getattr(node.meta.get("grapharg"), "source", None)
    name = getattr(source, "name", None)
    name = name() if callable(name) else name
    return isinstance(name, str) and ("._parameters[" in name or "._buffers[" in name)


def _written(node) -> bool:
    """Whether a user of node writes it in place (the value would not stay what it was)."""
    from .fold import _mutates
    return any(_mutates(u) or u.kwargs.get("inplace") is True for u in node.users)


def _rewrite(gm, bn, conv, c, v, index):
    """conv takes the folded weight and bias (new buffers of gm, read with get_attr); bn goes."""
    from .torch_compat import add_graph_constant, outside_fake_mode
    with outside_fake_mode(), torch.no_grad():
        w = v["w"]
        scale = torch.rsqrt(v["var"].float() + v["eps"])
        if "gamma" in v:
            scale = scale * v["gamma"].float()
        bias = -v["mean"].float() * scale if "b" not in v else (v["b"].float() - v["mean"].float()) * scale
        if "beta" in v:
            bias = bias + v["beta"].float()
        weight = (w.float() * scale.reshape(-1, 1, 1, 1)).to(w.dtype).contiguous()
        bias = bias.to(w.dtype)
    nodes = []
    for kind, value in (("weight", weight), ("bias", bias)):
        name = f"_frozen_bn{index}_{kind}"
        while hasattr(gm, name):
            name += "_"
        add_graph_constant(gm, name, value)
        with gm.graph.inserting_before(conv):
            node = gm.graph.get_attr(name)
        example = c["weight"].meta.get("example_value")
        mode = getattr(example, "fake_mode", None)
        if mode is not None:
            node.meta["example_value"] = mode.from_tensor(value)
        nodes.append(node)
    for kind, node in zip(("weight", "bias"), nodes):
        i = _CONV_ARGS[conv.target].index(kind)
        if i < len(conv.args):
            conv.update_arg(i, node)
        else:
            conv.update_kwarg(kind, node)
    bn.replace_all_uses_with(conv)
    gm.graph.erase_node(bn)


def note_folds(folds) -> None:
    """Counts the folds in the compile stats and prints them under TUNER_LOGS=decisions."""
    from tuner.settings import settings

    from . import stats
    stats.bn_folded += len(folds)
    if folds and "decisions" in settings.logs:
        for conv, bn in folds:
            print(f"tuner: freeze: batch norm {bn} folded into convolution {conv}",
                  file=sys.stderr, flush=True)
