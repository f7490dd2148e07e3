"""Hand-written attention rewritten to scaled_dot_product_attention before AOTAutograd.

Models that do not call SDPA (transformers with attn_implementation="eager", timm blocks with
fused_attn off, hand-written modules) compute

    softmax((q @ k^T) * scale [+ mask], dim=-1) [dropout, eval or p=0] @ v

as separate matmuls, a softmax and pointwise ops; the CUDA lowering then never sees a fused
attention kernel. `replace_attention(gm)` finds such chains in dynamo's graph (torch-level
call_function / call_method nodes) and replaces each with one
`torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=..., scale=...)` call.
It runs before compiler/fold.py, so a constant mask of the new call can still be folded.

The matching (which chains SDPA computes exactly, the conditions listed there) is
compiler/attn_chain.py; this module rewrites the matches and counts them.
"""
from __future__ import annotations

import contextlib
import logging
import operator
import sys

import torch
import torch.fx

from .attn_chain import NoMatch, _const, _is_matmul, _same_size, _tensor, check_no_writes, \
    match_chain
from .fold import _meta_or_none as _meta, _mutates

log = logging.getLogger("tuner.compiler")

SDPA = torch.nn.functional.scaled_dot_product_attention


def replace_attention(gm: torch.fx.GraphModule) -> list[str]:
    """Replaces gm's attention chains with SDPA calls in place; returns the new calls' names."""
    done, dead = [], []
    order, writes = {}, []
    for node in list(gm.graph.nodes):
        if node.graph is not gm.graph or not _is_matmul(node):   # (erased by an earlier match)
            continue
        try:
            match = match_chain(node)
            if any(n not in order for n in (*match["chain"], *match["operands"])):
                order = {n: i for i, n in enumerate(gm.graph.nodes)}   # (new nodes since)
                writes = [n for n in order if _mutates(n)]
            check_no_writes(match, order, writes)
        except NoMatch as e:
            log.debug("attention pattern at %s not replaced: %s", node.name, e)
            continue
        try:
            sdpa = _rewrite(gm.graph, match)
        except Exception as e:   # noqa: BLE001 - the chain stays as written
            log.debug("attention pattern at %s not rewritten: %s", node.name, e)
            continue
        done.append(sdpa.name)
        dead.extend(match["chain"])
        dead.extend(match["operands"])
        _erase_dead(gm.graph, dead)
        dead = []
    if done:
        gm.graph.lint()
        gm.recompile()
    return done



# --------------------------------------------------------------------------- rewriting

def _rewrite(graph, m):
    """The SDPA call replacing match m (inserted before its second matmul)."""
    mm2, made = m["mm2"], []
    try:
        sdpa = _build(graph, m, made)
    except Exception:
        for node in reversed(made):   # (used by nothing but each other, newest first)
            graph.erase_node(node)
        raise
    out = made[-1]   # (SDPA's output, or its view back to mm2's 3-D shape)
    mm2.replace_all_uses_with(out)
    for node in {sdpa, out}:
        for k, v in mm2.meta.items():
            node.meta.setdefault(k, v)
    return sdpa


def _build(graph, m, made):
    """The new nodes for match m, before its second matmul (each appended to `made`)."""
    mm2, dtype = m["mm2"], m["dtype"]

    def _new(*args):
        made.append(_node(graph, *args))
        return made[-1]
    heads = m["heads"]

    def _4d(t, at=None):
        """t (batch * heads, ...) split to 4-D where SDPA runs on 4-D tensors; a mask only
        where the scores were 3-D at its point, and not with a first dim of 1 (broadcast)."""
        if at is not None and len(at) == 5:
            return _windows_merged(t, at)
        if heads is None or _tensor(t).dim() != 3 or at is not None and (
                len(at) != 3 or _same_size(_tensor(t).shape[0], 1)):
            return t
        return _new("call_method", "unflatten", (t, 0, (-1, heads)))

    def _windows_merged(t, at):
        """A mask added to 5-D scores (batch, windows, heads, n, n) as one of the 4-D scores:
        broadcast over the first two dims (static sizes where it has 1), then merged."""
        for _ in range(5 - _tensor(t).dim()):
            t = _new("call_method", "unsqueeze", (t, 0))
        sizes = [-1 if _same_size(s, n) else n for s, n in zip(_tensor(t).shape[:2], at[:2])]
        if sizes != [-1, -1]:
            t = _new("call_method", "expand", (t, *sizes, -1, -1, -1))
        return _new("call_method", "flatten", (t, 0, 1))
    with graph.inserting_before(mm2):
        key = m["key"]
        if key is None:
            key = _new("call_method", "transpose", (m["kt"], -2, -1))
        mask = None
        for kind, arg, at in m["masks"]:
            if kind == "add":
                arg = _4d(arg, at)
                mask = arg if mask is None else _new("call_function", operator.add, (mask, arg))
                continue
            cond, value = arg
            if isinstance(cond, tuple):   # where(keep, scores, value): fill where not keep
                cond = _new("call_function", torch.logical_not, (_4d(cond[1], at),))
            else:
                cond = _4d(cond, at)
            other = 0.0 if mask is None else mask
            mask = _new("call_function", torch.where, (cond, value, other))
        if mask is not None and _tensor(mask).dtype != dtype:
            mask = _new("call_method", "to", (mask, dtype))
        kwargs = {} if m["scale"] is None else {"scale": m["scale"]}
        if mask is not None:
            kwargs = {"attn_mask": mask, **kwargs}
        sdpa = _new("call_function", SDPA, tuple(map(_4d, (m["q"], key, m["v"]))), kwargs)
        if heads is not None and _tensor(mm2).dim() == 3:
            _new("call_method", "flatten", (sdpa, 0, 1))
        return sdpa


def _node(graph, op, target, args, kwargs=None):
    """A new node with its example value computed on the fake example values of its inputs
    (so later passes can read its shape and dtype)."""
    node = graph.create_node(op, target, args, kwargs or {})
    try:
        vals = torch.fx.node.map_arg((node.args, node.kwargs), _meta)
        fake = _fake_mode(node)
        with fake if fake is not None else contextlib.nullcontext():
            a, kw = vals
            node.meta["example_value"] = getattr(a[0], target)(*a[1:], **kw) \
                if op == "call_method" else target(*a, **kw)
    except Exception as e:   # noqa: BLE001 - the node works without; fold then skips its mask
        log.debug("no example value for %s: %s", node.name, e)
    return node


def _fake_mode(node):
    """The fake-tensor mode of node's inputs' example values (dynamo's), or None."""
    for n in node.all_input_nodes:
        mode = getattr(_meta(n), "fake_mode", None)
        if mode is not None:
            return mode
    return None


def _erase_dead(graph, nodes):
    """Erases those of `nodes` left without users, latest first (placeholders stay)."""
    order = {n: i for i, n in enumerate(graph.nodes)}
    for node in sorted({n for n in nodes if n in order}, key=order.__getitem__, reverse=True):
        if node.op not in ("placeholder", "output", "get_attr") and not node.users:
            consts = [n for n in node.all_input_nodes if _const(n) is not None]   # (scales)
            graph.erase_node(node)
            if consts:
                _erase_dead(graph, consts)


def note_replaced(names, graph_name: str = "") -> None:
    """Counts the replacements in the compile stats; TUNER_LOGS=decisions prints them."""
    from tuner.settings import settings

    from . import stats
    if not names:
        return
    stats.attention_patterns["graphs"] += 1
    stats.attention_patterns["patterns"] += len(names)
    if "decisions" in settings.logs:
        for name in names:
            print(f"tuner: attention pattern{graph_name} -> scaled_dot_product_attention "
                  f"({name})", file=sys.stderr, flush=True)
