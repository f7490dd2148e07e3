"""Attention masks that are constants of the graph, folded away before AOTAutograd.

A model that builds its own mask when the caller passes none (DistilBERT in transformers 4:
`torch.ones(b, s)` turned into an additive mask) keeps that mask in a traced graph, where
eager drops it after checking its values: `scaled_dot_product_attention` with a mask cannot
take the flash kernel. The CUDA backend of SDPA is chosen when AOTAutograd traces the graph to
ATen, so the fold runs on dynamo's graph, before that.

`fold_constant_masks(gm)` finds SDPA calls whose `attn_mask` is computed from constants and
sizes only (no input tensor's values), evaluates that subgraph on real tensors at the graph's
sizes (a graph with symbolic sizes: at its size hints and at the hints + 1, folding only when
both agree), and rewrites the call: an all-True boolean or all-zero additive mask is dropped;
an exactly lower-triangular one (True / 0 on and below the diagonal, False / -inf / the
dtype's min above, query and key of one length) becomes `is_causal=True`. Masks larger than
TUNER_FOLD_MAX_ELEMENTS (any tensor of their subgraph) are left alone.

With symbolic sizes, two assignments are a sample, not a proof (a sliding window wider than
both samples would look causal), so such a graph's mask is folded only where its values cannot
depend on the sizes (no positional op, no size arithmetic: `_check_size_independent`); a
causal mask built with tril is folded only in a graph of static sizes.
"""
from __future__ import annotations

import logging
import operator
import sys

import sympy
import torch
import torch.fx

log = logging.getLogger("tuner.compiler")

SDPA_TARGETS = tuple({torch.nn.functional.scaled_dot_product_attention,
                      torch._C._nn.scaled_dot_product_attention,
                      torch.ops.aten.scaled_dot_product_attention.default})
# SDPA's positional arguments, in order
SDPA_ARGS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")
# ops that read a tensor's metadata only: its values may come from anywhere
SIZE_METHODS = {"size", "dim", "ndimension", "numel", "nelement", "get_device"}
SIZE_ATTRS = {"shape", "device", "dtype", "ndim", "is_cuda"}
SIZE_OPS = {"sym_size", "sym_numel", "sym_stride"}
# ops whose values are not a function of their arguments
RANDOM_WORDS = ("rand", "dropout", "bernoulli", "normal", "multinomial", "uniform", "exponential",
                "poisson", "empty", "cauchy", "geometric", "log_normal")
INPLACE_OPERATORS = {operator.setitem, operator.delitem, operator.iadd, operator.isub,
                     operator.imul, operator.itruediv, operator.ifloordiv, operator.imod,
                     operator.ipow, operator.iand, operator.ior, operator.ixor,
                     operator.ilshift, operator.irshift, operator.imatmul}


class NotConstant(Exception):
    """The mask depends on something other than constants and sizes, or cannot be evaluated."""


def fold_constant_masks(gm: torch.fx.GraphModule, max_elements: int) -> list[tuple[str, str]]:
    """Folds gm's constant attention masks in place; returns (SDPA node name, kind) per fold,
    kind "dropped" (the mask was all True / all zero) or "causal" (now is_causal=True)."""
    if max_elements <= 0:
        return []
    folds, values, erase = [], {}, []
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target not in SDPA_TARGETS:
            continue
        args = _sdpa_args(node)
        mask = args.get("attn_mask")
        if not isinstance(mask, torch.fx.Node) or args.get("is_causal") not in (None, False):
            continue
        try:
            kind, region = _classify(gm, args, mask, max_elements, values)
        except Exception as e:   # noqa: BLE001 - a mask we cannot read stays where it is
            log.debug("attention mask of %s not folded: %s", node.name, e)
            continue
        if kind is None:
            continue
        _set_arg(node, "attn_mask", None)
        if kind == "causal":
            _set_arg(node, "is_causal", True)
        folds.append((node.name, kind))
        erase.extend(region)
    if folds:
        _erase_dead(gm, erase)
        gm.recompile()
    return folds


def _sdpa_args(node) -> dict:
    args = dict(zip(SDPA_ARGS, node.args))
    args.update(node.kwargs)
    return args


def _set_arg(node, name, value):
    i = SDPA_ARGS.index(name)
    if i < len(node.args):
        node.update_arg(i, value)
    else:
        node.update_kwarg(name, value)


def _erase_dead(gm, nodes):
    """Erases those of `nodes` (the folded masks' subgraphs) left without users; the graph's
    inputs stay."""
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    for node in sorted(set(nodes), key=order.__getitem__, reverse=True):
        if node.op != "placeholder" and not node.users:
            gm.graph.erase_node(node)


def _classify(gm, args, mask, max_elements, values):
    """("dropped" / "causal" / None, the mask's subgraph) for an SDPA call's mask: the kind
    it has at every size assignment tried."""
    region = _constant_region(mask)
    _check_no_outside_writes(region)
    symbols = _free_symbols([*region, args["query"], args["key"]])
    if symbols:
        _check_size_independent(region)
    assignments = [_hints(symbols, 0)]
    if symbols:
        assignments.append(_hints(symbols, 1))
    kinds = set()
    for i, sizes in enumerate(assignments):
        key = (mask, i)
        if key not in values:
            values[key] = _evaluate(gm, region, mask, sizes, max_elements)
        q, k = (_concrete(_meta(args[n]), sizes) for n in ("query", "key"))
        kinds.add(_kind(values[key], tuple(q.shape), tuple(k.shape)))
    return (kinds.pop() if len(kinds) == 1 else None), region


# ops whose values depend on the sizes (positions, or sizes used as values)
POSITIONAL_WORDS = ("arange", "range", "tril", "triu", "eye", "diag", "linspace", "logspace",
                    "indices", "cumsum", "cumprod")
SIZE_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.floordiv, operator.truediv,
                   operator.mod, operator.pow, operator.neg, operator.lt, operator.le, operator.gt,
                   operator.ge, operator.eq, operator.ne}


# ops that take sizes as shapes (their values do not depend on them): a size operand is fine
SHAPE_TAKING = ("ones", "zeros", "full", "expand", "view", "reshape", "broadcast_to", "repeat",
                "new_ones", "new_zeros", "new_full", "unsqueeze", "getitem", "size")
SYM = (torch.SymInt, torch.SymFloat, torch.SymBool)


def _check_size_independent(region):
    """With symbolic sizes, a mask is folded only where its values cannot depend on the sizes
    (ones, zeros and constant fills, pointwise math, views): sampling two sizes cannot prove
    a positional pattern (a sliding window wider than both samples looks causal), so a mask
    built from positions (arange, tril, ...), size arithmetic or a size used as a value is
    kept."""
    for node in region:
        if node.op not in ("call_function", "call_method") or _is_size_read(node):
            continue
        name = _target_name(node).lower()
        if any(w in name for w in POSITIONAL_WORDS) or \
                (node.target in SIZE_ARITHMETIC and isinstance(_meta_or_none(node), SYM)):
            raise NotConstant(f"{node.name} ({name}) may depend on the sizes")
        fill = node.args[1:2] if name in ("full", "new_full") else ()
        sized = [a for a in (*node.args, *node.kwargs.values(), *fill)
                 if isinstance(a, torch.fx.Node) and isinstance(_meta_or_none(a), SYM)]
        if sized and (fill and any(a in sized for a in fill) or not any(w in name for w in SHAPE_TAKING)):
            raise NotConstant(f"{node.name} ({name}) takes a size as a value")


def _meta(node):
    if not isinstance(node, torch.fx.Node):
        raise NotConstant(f"{node!r} is not a graph value")
    for key in ("example_value", "val"):
        if key in node.meta:
            return node.meta[key]
    raise NotConstant(f"{node.name} has no example value")


def _target_name(node) -> str:
    t = node.target
    return t if isinstance(t, str) else str(getattr(t, "__name__", t))


def _is_size_read(node) -> bool:
    """Whether node reads only its tensor argument's metadata (sizes, dtype, device)."""
    if node.op == "call_method":
        return node.target in SIZE_METHODS
    if node.op == "call_function":
        if node.target is getattr:
            return len(node.args) == 2 and node.args[1] in SIZE_ATTRS
        packet = getattr(node.target, "overloadpacket", None)
        return packet is not None and packet.__name__ in SIZE_OPS
    return False


def _mutates(node) -> bool:
    if node.op == "call_method":
        return (node.target.endswith("_") and not node.target.startswith("_")) or \
            node.target in ("__setitem__", "__delitem__") or "out" in node.kwargs
    if node.op != "call_function":
        return False
    if node.target in INPLACE_OPERATORS or "out" in node.kwargs:
        return True
    schema = getattr(node.target, "_schema", None)
    if schema is not None:
        return schema.is_mutable
    name = getattr(node.target, "__name__", "")
    return name.endswith("_") and not name.startswith("_")


def _constant_region(mask) -> list:
    """The mask's ancestors that must be evaluated, in graph order; raises NotConstant where
    one reads an input tensor's values (or a parameter, a module call, a random op)."""
    seen, stack = set(), [mask]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.op == "placeholder":
            if isinstance(_meta(node), torch.Tensor):
                raise NotConstant(f"reads the values of input {node.name}")
            continue   # a size (SymInt) or another plain value
        if node.op == "get_attr":
            if isinstance(_attr(node.graph.owning_module, node.target), torch.nn.Parameter):
                raise NotConstant(f"reads parameter {node.target}")
            continue
        if node.op != "call_function" and node.op != "call_method":
            raise NotConstant(f"{node.op} {node.name}")
        if isinstance(node.target, torch._ops.HigherOrderOperator):
            raise NotConstant(f"higher-order op {node.name}")
        name = _target_name(node).lower()
        if any(w in name for w in RANDOM_WORDS):
            raise NotConstant(f"{node.name} ({name}) is not deterministic")
        if _is_size_read(node):
            continue   # its value is its example value at the sizes assigned
        stack.extend(node.all_input_nodes)
    order = {n: i for i, n in enumerate(mask.graph.nodes)}
    return sorted(seen, key=order.__getitem__)


def _check_no_outside_writes(region):
    """Raises NotConstant where a node outside `region` may write a tensor of it in place (the
    region's values would then not be what it computes): any in-place op reached from the
    region through ops other than SDPA (whose results are fresh tensors)."""
    inside = set(region)
    stack = [n for n in region if isinstance(_meta_or_none(n), torch.Tensor)]
    seen = set(stack)
    while stack:
        node = stack.pop()
        for user in node.users:
            if user in seen or user.target in SDPA_TARGETS:
                continue
            seen.add(user)
            if user not in inside and _mutates(user):
                raise NotConstant(f"{user.name} writes a tensor the mask is computed from")
            if isinstance(_meta_or_none(user), torch.Tensor):   # (sizes alias nothing)
                stack.append(user)


def _attr(module, target: str):
    for part in target.split("."):
        module = getattr(module, part)
    return module


def _free_symbols(region) -> set:
    symbols = set()
    for node in region:
        for v in _flat(_meta_or_none(node)):
            if isinstance(v, torch.Tensor):
                v = [*v.shape]
            for s in v if isinstance(v, (list, tuple, torch.Size)) else [v]:
                if isinstance(s, (torch.SymInt, torch.SymFloat, torch.SymBool)):
                    symbols |= {(sym, s.node.shape_env) for sym in s.node.expr.free_symbols}
    return symbols


def _meta_or_none(node):
    try:
        return _meta(node)
    except NotConstant:
        return None


def _flat(v):
    return list(v) if isinstance(v, (list, tuple)) and not isinstance(v, torch.Size) else [v]


def _hints(symbols, step: int) -> dict:
    """Each size symbol's hint (its value in the example inputs) plus `step`."""
    out = {}
    for sym, env in symbols:
        # (torch 2.13 renamed var_to_val, keeping the old name with a warning)
        table = getattr(env, "backed_var_to_val", None) if env is not None else None
        if table is None and env is not None:
            table = env.var_to_val
        hint = table.get(sym) if table is not None else None
        if hint is None:
            raise NotConstant(f"size {sym} has no hint (a data-dependent size)")
        out[sym] = sympy.Integer(int(hint) + step)
    return out


def _concrete(v, sizes: dict):
    """An example value with its symbolic sizes replaced by ints (a fake tensor: a tensor of
    that shape and dtype on the meta device)."""
    if isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        r = v.node.expr.xreplace(sizes)
        if not r.is_number:
            raise NotConstant(f"size {v} not fixed by the assignment")
        return int(r) if isinstance(v, torch.SymInt) else \
            float(r) if isinstance(v, torch.SymFloat) else bool(r)
    if isinstance(v, torch.Size):
        return torch.Size(_concrete(s, sizes) for s in v)
    if isinstance(v, torch.Tensor):
        return torch.empty(_concrete(v.shape, sizes), dtype=v.dtype, device="meta")
    if isinstance(v, (list, tuple)):
        return type(v)(_concrete(x, sizes) for x in v)
    return v


def _evaluate(gm, region, mask, sizes, max_elements):
    """The mask's value on real tensors at the size assignment `sizes`."""
    from .torch_compat import outside_fake_mode
    env = {}
    with outside_fake_mode(), torch.no_grad():
        for node in region:
            ex = _meta_or_none(node)
            if isinstance(ex, torch.Tensor):
                n = _concrete(ex, sizes).numel()
                if n > max_elements:
                    raise NotConstant(f"{node.name}: {n} elements > TUNER_FOLD_MAX_ELEMENTS")
            if node.op == "placeholder" or _is_size_read(node):
                env[node] = _concrete(_meta(node), sizes)   # (a tensor input's value is never read)
                continue
            if node.op == "get_attr":
                env[node] = _attr(gm, node.target)
                continue
            args, kwargs = torch.fx.node.map_arg((node.args, node.kwargs), env.__getitem__)
            if node.op == "call_method":
                env[node] = getattr(args[0], node.target)(*args[1:], **kwargs)
            else:
                env[node] = node.target(*args, **kwargs)
            if isinstance(env[node], torch.Tensor) and env[node].numel() > max_elements:
                raise NotConstant(f"{node.name}: over TUNER_FOLD_MAX_ELEMENTS")   # (no meta)
    value = env[mask]
    if not isinstance(value, torch.Tensor) or value.device.type == "meta":
        raise NotConstant("the mask did not evaluate to a tensor")
    return value


def _kind(mask, q_shape, k_shape):
    """"dropped" for an all-True / all-zero mask, "causal" for a lower-triangular one, else
    None: at one size assignment. The mask must broadcast to the scores' shape (..., L, S)
    without widening it. (A float mask of another dtype than the query's: autocast casts it.)"""
    scores = (*q_shape[:-1], k_shape[-2])
    if mask.dtype != torch.bool and not mask.dtype.is_floating_point:
        return None
    try:
        if torch.broadcast_shapes(tuple(mask.shape), scores) != scores:
            return None
    except RuntimeError:
        return None
    if mask.dtype == torch.bool:
        keep, masked = mask, ~mask
    else:
        keep = mask == 0
        masked = (mask == float("-inf")) | (mask == torch.finfo(mask.dtype).min)
    if bool(keep.all()):
        return "dropped"
    n = q_shape[-2]
    if n != k_shape[-2] or mask.dim() < 2 or tuple(mask.shape[-2:]) != (n, n):
        return None
    lower = torch.ones(n, n, dtype=torch.bool, device=mask.device).tril()
    if bool((keep == lower).all()) and bool((masked == ~lower).all()):
        return "causal"
    return None


def note_folds(folds, graph_name: str = "") -> None:
    """Counts the folds in the compile stats and prints them under TUNER_LOGS=decisions."""
    from tuner.settings import settings

    from . import stats
    for _, kind in folds:
        stats.mask_folds[kind] += 1
    if folds and "decisions" in settings.logs:
        for name, kind in folds:
            what = "mask dropped (all true / all zero)" if kind == "dropped" else \
                "causal mask -> is_causal=True"
            print(f"tuner: attention {name}{graph_name}: constant {what}", file=sys.stderr,
                  flush=True)
