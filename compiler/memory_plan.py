"""The memory plan of one graph's wrapper: where each buffer's storage comes from and when it
is freed, over the whole schedule (kernels, externs, zero-size allocations).

Each buffer the wrapper binds lives from its first definition (the step that first writes it,
or the extern call returning it) to its last use. An allocated buffer takes either a fresh
allocation or the storage of a dead buffer (`reuse`): same device and dtype, the dead storage
holding at least the bytes the new buffer spans and at most twice as many (so reuse never
grows memory much; a buffer the graph returns: exactly as many, since its storage outlives the
call), the tightest fit first; with concrete sizes, only where holding it from
its death until the new buffer's first write, and its room beyond the new buffer's bytes,
keep the live bytes of every step within the peak of freeing each buffer at its last use (a
reuse saves allocator calls, never raises that peak). A buffer whose size is symbolic has no
byte count at compile time: it reuses only a storage whose last occupant has the same size
and stride expressions. A storage is freed (`del` of every name bound to it) when its last occupant dies
and no later buffer takes it.

Never reused: graph inputs, except donated ones (below); graph outputs and what they view
(never freed either); what an extern reads or returns unless the op is known to return fresh
tensors (`FRESH_OUTPUTS`), since an extern's result may alias its arguments (a view) or an
argument may be written in place.

Donated inputs (a backward graph's saved activations that AOTAutograd reports no one reads
again, compiler/torch_compat.py `donated_inputs`): once past its last use, such an input's
storage joins the pool like a dead buffer's, under the same rules, if it has byte counts, is
dense (its bytes are its elements: no gap another tensor may own), and is neither written in
place, returned, nor read by an extern that may alias it. Buffers put there start at the
input's own storage offset (the wrapper views it with `reinterpret`, never `as_strided` from 0).
The caller holds that storage through the call anyway, so taking it costs no live bytes: the
peak counts such a buffer as if allocated (a bound, as before), and `donated_reused_bytes`
says how many bytes of donated storage buffers were put in instead of allocations.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import sympy
import torch

from . import ir

# ATen ops whose outputs are always new tensors, never views of (or writes into) their
# arguments: the buffers they read may be reused after their last use, and their outputs'
# storage may be reused once dead. name -> indices of the flattened outputs that are such
# fresh tensors (None: all). SDPA's forward ops also return bookkeeping tensors (philox
# seed/offset, possibly on another device or undefined): only the attention output counts.
FRESH_OUTPUTS = {
    "mm": None, "addmm": None, "bmm": None, "baddbmm": None,
    "convolution": None, "convolution_backward": None,
    "_softmax": None, "_log_softmax": None,
    "_softmax_backward_data": None, "_log_softmax_backward_data": None,
    "native_layer_norm": None, "native_layer_norm_backward": None,
    "_scaled_dot_product_flash_attention": (0,),
    "_scaled_dot_product_efficient_attention": (0,),
    "_scaled_dot_product_cudnn_attention": (0,),
    "_scaled_dot_product_flash_attention_for_cpu": (0,),
    "_scaled_dot_product_flash_attention_backward": (0, 1, 2),
    "_scaled_dot_product_efficient_attention_backward": (0, 1, 2),
    "_scaled_dot_product_cudnn_attention_backward": (0, 1, 2),
    "_scaled_dot_product_flash_attention_for_cpu_backward": (0, 1, 2),
}
_fresh_ops: dict | None = None


def fresh_outputs(op):
    """The output indices of `op` that are fresh tensors (None: all of them), or False where
    the op is not known to return fresh tensors (its arguments and results may alias)."""
    global _fresh_ops
    if _fresh_ops is None:   # the OpOverloads, once (an op this torch lacks is left out)
        _fresh_ops = {}
        for name, outs in FRESH_OUTPUTS.items():
            try:
                _fresh_ops[getattr(torch.ops.aten, name).default] = outs
            except (AttributeError, RuntimeError):
                pass
    return _fresh_ops.get(op, False)


def uses(st) -> list:
    """The names a wrapper step touches (kernel arguments include its size symbols)."""
    if st[0] == "alloc":
        return list(st[1])
    if st[0] == "kernel":
        return list(st[3])
    node = st[1]
    return list(node.reads) + [b.name for b in node.outputs if b is not None]


def _ints(values):
    """values as ints, or None where one is symbolic."""
    out = []
    for v in values:
        e = getattr(v, "expr", v)
        if isinstance(e, int) or getattr(e, "is_Integer", False):
            out.append(int(e))
        else:
            return None
    return out


def nbytes(b: ir.Buffer):
    """The bytes a buffer's size/stride span from storage offset 0, or None when symbolic."""
    size, stride = _ints(b.size), _ints(b.stride)
    if size is None or stride is None:
        return None
    if any(n == 0 for n in size):
        return 0
    offset = _ints([b.offset]) or [0]
    return (offset[0] + 1 + sum((n - 1) * s for n, s in zip(size, stride))) * b.dtype.itemsize


def _exact_key(b: ir.Buffer):
    # sizes and strides as sympy expressions: compared structurally, never through a guard
    return (tuple(getattr(v, "expr", v) for v in b.size), tuple(getattr(v, "expr", v) for v in b.stride))


@dataclass
class _Storage:
    capacity: int | None    # bytes (None: symbolic)
    dtype: torch.dtype
    device: str
    start: int              # the step it is allocated at
    holders: list = field(default_factory=list)   # every name bound to it, oldest first
    end: int | None = None  # the step after which it is freed (None: held to the return)
    donated: bool = False   # a donated input's: the caller holds it (no live bytes to count)


@dataclass
class Plan:
    """defs: step -> names first bound there (for an extern step, its outputs); actions:
    allocated name -> ("alloc", None) | ("same", old) (the same layout: `name = old`) |
    ("view", old) (`as_strided(old, size, stride, 0)`); frees: step -> names to `del` after
    it (inputs too, after their last use); storage: name -> the name its storage was allocated
    under (a donated input's own name for its storage, once a buffer takes it); on_donated:
    buffer -> the donated input whose storage it is in (it starts at that input's storage
    offset); in_place: buffer dying in a kernel -> the output that kernel writes over it
    (`inplace_ok`). Bytes (None for a graph
    with symbolic sizes): peak_bytes, live bytes at the worst step with the plan (never above
    no_reuse_bytes: a reuse that would raise it is not made);
    no_reuse_bytes, every buffer in its own storage freed at its last use; unplanned_bytes,
    every buffer in its own storage, none freed; donated_reused_bytes, the bytes of the donated
    inputs whose storage a buffer took (0 where none did)."""
    defs: dict = field(default_factory=dict)
    actions: dict = field(default_factory=dict)
    frees: dict = field(default_factory=dict)
    storage: dict = field(default_factory=dict)
    on_donated: dict = field(default_factory=dict)
    in_place: dict = field(default_factory=dict)
    donated_reused_bytes: int = 0
    peak_bytes: int | None = None
    unplanned_bytes: int | None = None
    no_reuse_bytes: int | None = None


def dense_nbytes(b: ir.Buffer):
    """b's bytes where its elements fill them without gap or overlap (no other tensor's
    elements lie between them), else None (symbolic, strided with gaps, overlapping)."""
    size, stride = _ints(b.size), _ints(b.stride)
    if size is None or stride is None or any(n == 0 for n in size):
        return None
    expect = 1
    for s, n in sorted((s, n) for n, s in zip(size, stride) if n != 1):
        if s != expect:
            return None
        expect *= n
    return expect * b.dtype.itemsize


def plan(steps, g, donated=()) -> Plan:
    """The memory plan of the wrapper steps (see WrapperCodegen) over graph g's buffers;
    donated: names of g's input buffers whose storage may be reused after their last use."""
    buffers = g.buffers
    keep = {o.buffer.name for o in g.outputs if isinstance(o, ir.View)}
    last_use, defs, extern_defs = {}, {}, set()
    escaped = set()   # read or returned by an extern that may alias: never reused
    bound = set()
    for i, st in enumerate(steps):
        for name in uses(st):
            last_use[name] = i
        if st[0] == "extern":
            node = st[1]
            fresh = fresh_outputs(node.op)
            if fresh is False:
                escaped.update(node.reads)
            for j, b in enumerate(node.outputs):
                if b is None:
                    continue
                defs.setdefault(i, []).append(b.name)
                extern_defs.add(b.name)
                bound.add(b.name)
                if fresh is False or (fresh is not None and j not in fresh):
                    escaped.add(b.name)
            continue
        for name in (st[1] if st[0] == "alloc" else st[4]):
            # a kernel's outputs, allocated before it first writes them
            if name not in bound and name in buffers and not isinstance(buffers[name], ir.InputBuffer):
                defs.setdefault(i, []).append(name)
                bound.add(name)
    n = len(steps)
    # each bound buffer's last step (an output's: the schedule's last); its bytes (None: symbolic)
    end = {name: (n - 1 if name in keep else max(last_use.get(name, i), i))
           for i, names in defs.items() for name in names}
    size = {name: nbytes(buffers[name]) for name in end}
    p = Plan(defs=defs)
    tree = None
    if all(v is not None for v in size.values()):
        # live bytes per step, each buffer in its own storage freed at its last use: reuse
        # may not raise its peak (`_Pool.take`), so the plan's peak is the same
        tree = _MaxTree(max(n, 1))
        for i, names in defs.items():
            for name in names:
                tree.add(i, end[name], size[name])
        p.no_reuse_bytes = tree.max(0, max(n, 1) - 1)
        p.unplanned_bytes = sum(size.values())
    dies: dict[int, list] = {}
    for name, last in end.items():
        if name not in keep:
            dies.setdefault(last, []).append(name)
    storages: dict[str, _Storage] = {}
    pool = _Pool()   # storages whose occupant died, free for a later buffer
    occupant: dict[str, str] = {}   # storage -> its current (last) occupant
    gifts = _donated(g, donated, keep | escaped)   # donated input -> its bytes
    for name in gifts:   # (one read by no step: free from the start)
        dies.setdefault(last_use.get(name, -1), []).append(name)
    # First the storage of an input dying in the very kernel that makes a buffer, where the
    # kernel writes each element over the one it read (inplace_ok): one storage at that step,
    # where a dead one from the pool would hold two (ResNeXt-50's stage-2 entry held three
    # stage-1 maps, 48 MiB over stock at batch 64). Chosen before any reuse, so the peak a
    # hold may not raise (`_Pool.take`) is the one these writes leave.
    over: dict[str, str] = {}   # buffer -> the dying input it is written over
    for i, names in defs.items():
        if steps[i][0] != "kernel":   # (an extern's outputs are its own)
            continue
        for name in names:
            # (not one of the kernel's own outputs: the input's storage must exist already)
            a = next((a for a in dies.get(i, ()) if a not in p.in_place and a not in keep
                      and a not in escaped and a not in gifts and a not in names
                      and same_storage_ok(buffers[a], buffers[name])
                      and inplace_ok(steps[i][1], a, name)), None)
            if a is not None:
                over[name], p.in_place[a] = a, name
                if tree is not None:   # one storage at step i, not two
                    tree.add(i, i, -size[name])
    for i in range(-1, len(steps)):
        for name in defs.get(i, ()):
            b = buffers[name]
            sid = p.storage[over[name]] if name in over else None
            if sid is None and name not in extern_defs:   # else a dead storage that fits
                # for as long as the buffers written over it in turn live, exactly sized when
                # the last of them is returned
                last = name
                while last in p.in_place:
                    last = p.in_place[last]
                sid = pool.take(b, i, end[last], storages, tree, exact=last in keep)
            if sid is None:
                sid = name
                storages[sid] = _Storage(size[name], b.dtype, str(b.device), i)
                if name not in extern_defs:
                    p.actions[name] = ("alloc", None)
            else:
                old = occupant[sid]
                same = _exact_key(buffers[old]) == _exact_key(b)
                p.actions[name] = ("same" if same else "view", old)
                if storages[sid].donated:
                    p.on_donated[name] = sid
                    if sid not in p.storage:   # the input's storage, taken for the first time
                        p.storage[sid] = sid
                        p.donated_reused_bytes += storages[sid].capacity
            storages[sid].holders.append(name)
            occupant[sid] = name
            p.storage[name] = sid
        for name in dies.get(i, ()):
            if name in p.in_place:   # its storage lives on in the output that took it
                continue
            if name in gifts:   # a donated input past its last use: its storage joins the pool
                b = buffers[name]
                storages[name] = _Storage(gifts[name], b.dtype, str(b.device), -1, [name], i, True)
                occupant[name] = name
                pool.put(name, storages[name], b)
                continue
            s = storages[p.storage[name]]
            s.end = i   # freed after this step, unless a later buffer takes it (_Pool.take)
            if name not in escaped and s.capacity != 0:
                # (an escaped one's memory may stay viewed by an extern's result)
                pool.put(p.storage[name], s, buffers[name])
    for sid in dict.fromkeys(p.storage.values()):
        s = storages[sid]
        if s.end is not None:
            p.frees.setdefault(s.end, []).extend(s.holders)
    # every other input: the wrapper's reference dropped after its last step, so memory its
    # caller let go of (a backward's incoming gradient) is freed there, not when the call ends
    freed = {name for names in p.frees.values() for name in names}
    freed.update(p.storage.values())   # a donated input whose storage a buffer took: named later
    for b in g.inputs if steps else ():
        if b is not None and b.name not in keep and b.name not in freed:
            p.frees.setdefault(last_use.get(b.name, 0), []).append(b.name)
            freed.add(b.name)
    if tree is not None:
        p.peak_bytes = tree.max(0, tree.n - 1)
    return p


def same_storage_ok(a: ir.Buffer, b: ir.Buffer) -> bool:
    """Whether b may be written into a's storage element for element: both buffers the
    compiler allocated (no input, no in-place write of one), same dtype, device, sizes,
    strides and offset, dense."""
    return (type(a) is ir.Buffer and type(b) is ir.Buffer and a.dtype == b.dtype
            and str(a.device) == str(b.device) and _exact_key(a) == _exact_key(b)
            and _ints([a.offset]) == [0] == _ints([b.offset]) and bool(dense_nbytes(a)))


def inplace_ok(grp, a: str, b: str) -> bool:
    """Whether the kernel of scheduler group grp may write buffer b over buffer a, which dies
    in it: a pointwise kernel whose one node reading a is the node storing b, reading a only
    at the element it stores (each element loaded before its own store, by the same program;
    no other element of a read after b's stores began). Anything else: no."""
    if getattr(grp, "kind", None) != "pointwise":
        return False
    readers = [n for n in grp.nodes if a in n.reads]
    if len(readers) != 1:
        return False
    node = readers[0]
    if node.kind != "pointwise" or node.indirect or node.buffer is None or node.buffer.name != b:
        return False
    syms = node.symbols()
    # a loop of one iteration is at 0 (a read index may have dropped it, as at batch 1)
    ones = {d: 0 for d, n in zip(syms, node.ranges) if _ints([n]) == [1]}
    store = node.store_index(syms)
    reads = [idx for name, idx in node.read_index if name == a]
    try:
        return bool(reads) and all(sympy.expand(sympy.sympify(idx - store).subs(ones)) == 0
                                   for idx in reads)
    except (TypeError, sympy.SympifyError):   # an index that is not an expression
        return False


def _donated(g, names, never) -> dict:
    """The donated input buffers whose storage may be reused (see the module's docstring),
    each with its bytes."""
    out = {}
    for name in names:
        b = g.buffers.get(name)
        if not isinstance(b, ir.InputBuffer) or name in never or name in g.mutated_inputs:
            continue
        n = dense_nbytes(b)
        if n:
            out[name] = n
    return out


class _Pool:
    """Dead storages by (dtype, device): with a byte count, sorted by it (the latest dead first
    among equal ones); symbolic, by their last occupant's size and stride expressions."""

    def __init__(self):
        self.sized: dict = {}
        self.exact: dict = {}
        self.count = 0

    def put(self, sid, s, occupant):
        self.count += 1
        if s.capacity is None:
            self.exact.setdefault((s.dtype, s.device, _exact_key(occupant)), []).append(sid)
        else:
            bisect.insort(self.sized.setdefault((s.dtype, s.device), []), (s.capacity, -self.count, sid))

    def take(self, b, r, e, storages, tree, exact=False):
        """A dead storage for buffer b (live over steps r..e), removed from the pool, or None:
        the tightest fit of at least b's bytes and at most twice them (exactly b's bytes with
        `exact`: a buffer the graph returns keeps its storage past the call, a gradient until
        the next step, so room beyond its bytes would stay allocated that long); with byte counts
        (`tree`: live bytes per step so far), one whose holding from its death to step r and
        room beyond b's bytes do not raise the peak as planned so far (the peak of freeing at
        last use, less what in-place writes took off it: a hold may not take that back)."""
        need = nbytes(b)
        if need is None:   # symbolic: the same expressions only
            free = self.exact.get((b.dtype, str(b.device), _exact_key(b)))
            if not free:
                return None
            storages[free[-1]].end = None
            return free.pop()
        free = self.sized.get((b.dtype, str(b.device)), [])
        peak = tree.max(0, tree.n - 1) if tree is not None else None   # (as planned so far)
        j = bisect.bisect_left(free, (need,))
        while need > 0 and j < len(free) and free[j][0] <= (need if exact else 2 * need):
            cap, _, sid = free[j]
            d = storages[sid].end
            if tree is not None and not storages[sid].donated:
                held = tree.max(d + 1, r - 1) + cap if d + 1 <= r - 1 else 0
                if max(held, tree.max(r, e) + cap - need) > peak:
                    j += 1
                    continue
                tree.add(d + 1, r - 1, cap)
                tree.add(r, e, cap - need)
            storages[sid].end = None
            return free.pop(j)[2]
        return None


class _MaxTree:
    """Range add and range max over a list of numbers (a segment tree with lazy adds)."""

    def __init__(self, n):
        self.n = n
        self.top = [0] * (4 * self.n)
        self.lazy = [0] * (4 * self.n)

    def add(self, lo, hi, v, node=1, a=0, b=None):
        b = self.n - 1 if b is None else b
        if hi < a or b < lo or v == 0:
            return
        if lo <= a and b <= hi:
            self.top[node] += v
            self.lazy[node] += v
            return
        m = (a + b) // 2
        self.add(lo, hi, v, 2 * node, a, m)
        self.add(lo, hi, v, 2 * node + 1, m + 1, b)
        self.top[node] = max(self.top[2 * node], self.top[2 * node + 1]) + self.lazy[node]

    def max(self, lo, hi, node=1, a=0, b=None):
        b = self.n - 1 if b is None else b
        if hi < a or b < lo:
            return float("-inf")
        if lo <= a and b <= hi:
            return self.top[node]
        m = (a + b) // 2
        return max(self.max(lo, hi, 2 * node, a, m), self.max(lo, hi, 2 * node + 1, m + 1, b)) + self.lazy[node]


# -- order ---------------------------------------------------------------------------------

MIN_GAIN_BYTES = 1 << 16   # a swap must lower the pair's live bytes by at least this much


def _pure(st, inputs) -> bool:
    """Whether a step may trade places with an independent neighbour: an extern known to
    return fresh tensors (it writes nothing else), or a kernel writing only buffers of its own
    (no scatter into another buffer, no graph input)."""
    if st[0] == "extern":
        return fresh_outputs(st[1].op) is not False
    if st[0] != "kernel":
        return False
    grp = st[1]
    nodes = [n for m in grp for n in m.nodes] if isinstance(grp, list) else grp.nodes
    return not any(n.kind == "scatter" for n in nodes) and not set(st[4]) & inputs


def _writes(st) -> set:
    if st[0] == "extern":
        return {b.name for b in st[1].outputs if b is not None}
    return set(st[1] if st[0] == "alloc" else st[4])


def reorder(steps, g, donated=(), max_passes: int = 8) -> list:
    """The steps with neighbours swapped where the swap lowers the live bytes across the two:
    a step that frees a large buffer (its last reader) goes before an independent one that
    allocates, rather than after it. GPT-2's backward computed the tied embedding's weight
    gradient (vocab x hidden) before the hidden state's gradient, the last reader of the
    forward's bf16 copy of that weight: both vocab x hidden buffers were live at the step's
    peak. Only two pure steps (`_pure`) that touch no buffer the other writes trade places, so
    every buffer still sees its writers and readers in their order; the live bytes outside the
    pair are unchanged, so the peak never rises. A graph input counts as freed only if donated
    (the caller holds the others). Graphs with symbolic sizes keep their order."""
    steps = list(steps)
    buffers = g.buffers
    inputs = {b.name for b in g.inputs if b is not None}
    kept = {o.buffer.name for o in g.outputs if isinstance(o, ir.View)}
    touch = [{u for u in uses(st) if u in buffers} for st in steps]
    writes = [_writes(st) & buffers.keys() for st in steps]
    names = set().union(*touch) if touch else set()
    size = {n: nbytes(buffers[n]) for n in names}
    if any(v is None for v in size.values()):
        return steps
    donated = set(donated)
    freeable = {n for n in names if n not in kept and (n not in inputs or n in donated)}
    first, last = {}, {}
    for i, t in enumerate(touch):
        for n in t:
            first.setdefault(n, i)
            last[n] = i

    def cost(a, b):
        """Live bytes above those before the pair, at its worst, when step a runs, then b."""
        p = min(a, b)
        new_a, new_b = (sum(size[n] for n in writes[k] if first[n] >= p and n not in inputs)
                        for k in (a, b))
        freed = sum(size[n] for n in touch[a] - touch[b] if n in freeable and last[n] <= p + 1)
        return max(new_a, new_a - freed + new_b)

    pure = [_pure(st, inputs) for st in steps]
    for _ in range(max_passes):
        moved = False
        for i in range(len(steps) - 1):
            j = i + 1
            if not (pure[i] and pure[j]) or writes[i] & touch[j] or writes[j] & touch[i]:
                continue
            if cost(j, i) + MIN_GAIN_BYTES > cost(i, j):
                continue
            for arr in (steps, touch, writes, pure):
                arr[i], arr[j] = arr[j], arr[i]
            for n in touch[i] | touch[j]:
                if first[n] in (i, j):
                    first[n] = i if n in touch[i] else j
                if last[n] in (i, j):
                    last[n] = j if n in touch[j] else i
            moved = True
        if not moved:
            break
    return steps
