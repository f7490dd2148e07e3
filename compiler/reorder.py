"""Memory-aware order of an ATen graph: a late last reader moved up to free what it reads.

A buffer lives until its last reader runs. In a residual block whose shortcut is a strided
convolution, timm (ResNet, RegNet) computes `downsample(shortcut)` after the whole main path,
so the block's input, the largest map of the block, stays allocated across it: RegNetY-016's
first block at b64 kept its 49 MiB input live through the grouped stride-2 convolution (233 MiB
at the peak on the H200, stock 206: its scheduler orders for peak memory). Here such a reader R
(the last of a buffer's readers, writing fewer bytes than the buffer holds, pure: it writes no
input and draws no random numbers) moves to just before the buffer's previous reader L when
everything R reads is ready by then and nothing from L up to R writes in place: the buffer
then dies at L, and only R's smaller output lives across the span. (The graphs compiled here
come from AOTAutograd, functional but for input updates at their end; the write checks are
for any other.)

The moves are kept only when the graph's estimated use goes down (its peak, then the bytes live
summed over steps; every node's output materialized, views free, inputs and constants not
counted); the estimate is coarse (fusion keeps most pointwise results in registers, an extern's
workspace is unseen), so the gate only refuses orders that are plainly worse. Graphs
with symbolic sizes are left as they are. (The compile option "memory_reorder" turns it off.)
"""
from __future__ import annotations

import logging
import operator

import torch

from .op_tables import view_base

log = logging.getLogger(__name__)


# ops whose schemas mark no write but which update running statistics in training (a graph
# AOTAutograd made is functional and has none of them; any other graph may)
_STATS_WRITERS = frozenset({"aten::native_batch_norm", "aten::cudnn_batch_norm",
                            "aten::miopen_batch_norm", "aten::_batch_norm_impl_index",
                            "aten::batch_norm", "aten::instance_norm"})


def _writes(node) -> bool:
    """Whether node may write memory (an in-place op, or a call we cannot read the schema of)."""
    if node.op != "call_function" or node.target is operator.getitem:
        return False
    schema = getattr(node.target, "_schema", None)
    return schema is None or schema.name in _STATS_WRITERS or schema.is_mutable


def _movable(node) -> bool:
    """A pure ATen/prims op: reads its inputs, writes a fresh result, no randomness, no side
    effect (not an assert, a collective or a user's custom op)."""
    if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
        return False
    if node.target.namespace not in ("aten", "prims") or node.is_impure():
        return False
    if view_base(node) is not None or _writes(node):
        return False
    return torch.Tag.nondeterministic_seeded not in node.target.tags


def _nbytes(val):
    """Bytes of a result (a tensor, or a tuple/list of them); None for a symbolic size."""
    if isinstance(val, (tuple, list)):
        sizes = [_nbytes(v) for v in val]
        return None if any(s is None for s in sizes) else sum(sizes)
    if not isinstance(val, torch.Tensor):
        return 0
    n = val.numel()
    return n * val.element_size() if isinstance(n, int) else None


def _readers(nodes):
    """(base of each node, {base: its reading nodes}): a view's readers read its base (the
    same in any topological order of nodes)."""
    base, readers = {}, {}
    for n in nodes:
        if (v := view_base(n)) is not None:
            base[n] = base[v]
            continue
        base[n] = n
        for a in n.all_input_nodes:
            readers.setdefault(base[a], []).append(n)
    return base, readers


def estimated_use(nodes, size, base, readers) -> tuple[int, int]:
    """(peak, sum over steps) of the bytes of results live running `nodes` in this order (see
    the module; base, readers: `_readers`): the sum breaks a tie of peaks (a convolution's
    workspace, unseen here, comes on top of what is live at its step)."""
    pos = {n: i for i, n in enumerate(nodes)}
    dies = {}
    for b, rs in readers.items():
        if b.op in ("placeholder", "get_attr") or any(r.op == "output" for r in rs):
            continue
        dies.setdefault(max(rs, key=pos.__getitem__), []).append(b)
    live = peak = area = 0
    for n in nodes:
        if base[n] is n and n.op == "call_function":
            live += size[n]
            peak, area = max(peak, live), area + live
        for b in dies.get(n, ()):
            live -= size[b]
    return peak, area


def reorder_for_memory(gm: torch.fx.GraphModule) -> int:
    """Moves late last readers up (see the module) when that lowers the estimated peak;
    returns how many moved."""
    nodes = list(gm.graph.nodes)
    size = {}
    for n in nodes:
        s = _nbytes(n.meta.get("val")) if n.op == "call_function" else 0
        if s is None:
            return 0
        size[n] = s
    base, readers = _readers(nodes)
    order = list(nodes)
    pos = {n: i for i, n in enumerate(order)}
    writers = [n for n in nodes if _writes(n)]   # (never moved; a handful in most graphs)
    moved = 0
    work = 64 * len(nodes)   # positions renumbered at most: a move renumbers its span
    for b, rs in readers.items():
        rs = sorted(set(rs), key=pos.__getitem__)
        if b.op in ("placeholder", "get_attr") or len(rs) < 2:
            continue
        r, prev = rs[-1], rs[-2]
        if not _movable(r) or pos[r] - pos[prev] < 2 or size[r] >= size[b]:
            continue
        # what R reads must be ready before L; a constant (get_attr) moves along with R
        late = [a for a in r.all_input_nodes if pos[a] >= pos[prev]]
        if any(a.op != "get_attr" for a in late):
            continue
        # nothing from L (included: it may write what R reads) up to R writes in place
        if any(pos[prev] <= pos[w] < pos[r] for w in writers):
            continue
        lo, hi = pos[prev], pos[r]
        work -= hi - lo + 1
        if work < 0:   # (a graph of thousands of long spans: the moves so far are kept)
            break
        for n in (*late, r):
            order.remove(n)
        order[lo:lo] = [*late, r]
        for i in range(lo, hi + 1):   # (only the span between moved)
            pos[order[i]] = i
        moved += 1
    if not moved:
        return 0
    before, after = estimated_use(nodes, size, base, readers), estimated_use(order, size, base, readers)
    if after >= before:
        log.debug("memory reorder: %d moves, no gain (%s -> %s); order kept", moved, before, after)
        return 0
    prev = None   # relinked in the new order (placeholders, first in both, stay)
    for n in order:
        if n.op == "placeholder":
            continue
        if prev is not None and n.prev is not prev:
            prev.append(n)
        prev = n
    gm.graph.lint()
    gm.recompile()
    log.debug("memory reorder: %d moved; estimated (peak, sum) %s -> %s bytes", moved, before, after)
    return moved
