"""Fusion: which IR nodes share a kernel, and which buffers never leave it.

Nodes come in topological order from the graph. Each starts as its own group; candidate pairs
(producer->consumer, or siblings reading the same buffer) are scored by the bytes a fusion
saves and fused greedily, best first, while `can_fuse` holds:

- same iteration space: pointwise groups of equal numel; a reduction group (X, R) takes
  reductions over (X, R), pointwise nodes over X*R indexed as its first reduction reads its
  input (a node of the input's shape: a channels-last NHWC node reduced over H, W is indexed
  as (N, C) x (H, W), and as (chunk, N, C) x (part of H*W) by a split reduction's first
  stage) or whose shape splits into an X prefix and an R suffix (in memory order, else in
  logical order), and pointwise nodes over X (epilogues such as softmax's divide);
- a scan group (X rows of R) takes scans over (X, R) and pointwise nodes over X*R, indexed as
  for a reduction (producers where the scan reads them, consumers of its result at the element
  it computes); never a reduction, a template, or a node over X alone;
- no cycle through a group outside the pair;
- every read of a buffer produced inside the group is of the element being computed at that
  point of the loop (a reduction's result may be read only per row).

Extern and scatter nodes stay alone. A matmul template is a group kind whose epilogue takes
pointwise consumers of its output's numel under the same rules (never a producer of its
operands). Independent 1-D pointwise groups at the same dependency depth may then share one
launch (`combine`: combo kernels).
A buffer whose readers are all inside its group is never written to memory.
"""
from __future__ import annotations

import heapq
import itertools

from . import ir
from . import sym as S
from .sizes import hint, or_else


def split_prefix(ranges, x):
    """(prefix, suffix) of ranges with prod(prefix) == x, or None."""
    acc = 1
    for i, s in enumerate(ranges):
        if acc == x:
            return tuple(ranges[:i]), tuple(ranges[i:])
        acc *= s
    if acc == x:
        return tuple(ranges), ()
    return None


X, R = S.sym("x"), S.sym("r")
# kinds of node that write one buffer of their own the scheduler tracks
COMPUTED = ("pointwise", "reduction", "scan", "template")


class Group:
    def __init__(self, nodes):
        self.nodes = nodes   # never changed: a merge makes a new group
        self.names = {n.name for n in nodes}
        k = nodes[0].kind
        if k not in ("extern", "scatter"):
            kinds = {n.kind for n in nodes}
            k = next((k for k in ("template", "scan", "reduction") if k in kinds), "pointwise")
        self.kind = k   # asked per candidate pair while fusing: computed once
        self.mutates = any(isinstance(n.buffer, ir.MutationBuffer) for n in nodes)

    def space(self):
        for n in self.nodes:
            if n.kind in ("reduction", "scan"):
                return (n.xnumel, n.rnumel)
        return (self.nodes[0].numel, 1)

    def reduction(self):
        """The first reduction or scan (its space is the group's): pointwise nodes are indexed
        as it reads its input (node_index)."""
        return first_reduction(self.nodes)

    @property
    def order(self):
        return self.nodes[0].order


def first_reduction(nodes):
    """The first reduction or scan among nodes (in order), or None."""
    return next((n for n in nodes if n.kind in ("reduction", "scan")), None)


def node_index(node, space, reduction=None):
    """Index symbols of a node inside a kernel over `space` = (X, R), or None if it cannot.
    `reduction`: the kernel's first reduction or scan (Group.reduction), if any; a scan
    kernel holds scans and pointwise nodes over X*R only."""
    xn, rn = space
    scan = reduction is not None and reduction.kind == "scan"
    if node.kind in ("reduction", "scan"):
        if (node.xnumel, node.rnumel) != space or \
                (reduction is not None and node.kind != reduction.kind):   # never one with the other
            return None
        return (S.unflatten(X, node.ranges), S.unflatten(R, node.reduction_ranges))
    if node.kind == "template":
        return S.unflatten(X, node.ranges) if rn == 1 and node.numel == xn else None
    if node.kind != "pointwise":
        return None
    if rn == 1:
        return S.unflatten(X, node.ranges) if node.numel == xn else None
    if node.numel == xn:
        return None if scan else S.unflatten(X, node.ranges)
    if node.numel != xn * rn:
        return None
    idx = _as_input_of(node, space, reduction)
    if idx is not None:
        return idx
    split = split_prefix(node.ranges, xn)
    if split is not None:
        return S.unflatten(X, split[0]) + S.unflatten(R, split[1])
    if node.perm is None:
        return None
    # A permuted (channels-last) node whose memory-order loops do not split at X: index it by
    # its logical dims, which a reduction over trailing logical dims splits (NHWC's mean over
    # H, W: X = (N, C), R = (H, W)); its loads and store keep their strides, C stays x-contiguous
    split = split_prefix(node.logical_ranges(), xn)
    # only where the innermost memory dim is the last X dim (NHWC's C for a mean over H, W):
    # x then runs contiguous in memory; a reduction over W alone would put x lanes W apart
    if split is None or node.perm[-1] != len(split[0]) - 1:
        return None
    return node.from_logical(S.unflatten(X, split[0]) + S.unflatten(R, split[1]))


def _as_input_of(node, space, reduction):
    """A pointwise node of the shape of the reduction's input, indexed where the reduction
    reads that input, so the input's producer computes each element in the reduction's loop
    whatever the loop order: a channels-last (N, C, H, W) producer of a mean over H, W as
    (N, C) x (H, W); a split reduction's first stage as (chunk, N, C) x (part of H*W).
    Tried before the shape splits in node_index, which only match sizes (a channels-last
    node with C == H splits at N*H as if it were N*C). Where the reduction reads the node's
    buffer, only if it reads it there: a node whose shape equals the input's by coincidence
    (the reduction reads it transposed, (A, B, ..) as (B, A, ..) with A == B) would be
    computed at an element neither that read nor the size split gives, and never fuse; such
    a node keeps the shape splits. A node the reduction does not read (a sibling of the
    input's shape reading the same tensors) takes the input's index. Only where the node's
    store runs contiguously along x or r: a channels-last reduction over W alone has neither
    (x runs along H, r lanes are C apart), and every load and store would be uncoalesced."""
    if reduction is None or reduction.input_index is None \
            or (reduction.xnumel, reduction.rnumel) != tuple(space) \
            or tuple(node.logical_ranges()) != tuple(reduction.input_size):
        return None
    idx = node.from_logical(reduction.input_index(S.unflatten(X, reduction.ranges),
                                                  S.unflatten(R, reduction.reduction_ranges)))
    store = S.with_bounds(node.store_index(idx), bounds(space))
    racc = accesses(reduction, space, reduction)
    if racc is None:
        return None
    reads = {i for name, i in racc[0] if name == node.buffer.name}
    if reads and reads != {store}:
        return None
    if 1 not in (S.approx_stride(store, X), S.approx_stride(store, R)):
        return None
    return idx


def accesses(node, space, reduction=None):
    """(reads as (buffer name, index), store index) of a node in a kernel over `space` (whose
    first reduction is `reduction`), with // and % the loop bounds make trivial dropped; None
    when the node cannot run there. Memoized on the node (`access_memo`): it lives and dies
    with its graph."""
    memo = node.access_memo
    key = (space, reduction)
    if key not in memo:
        memo[key] = _accesses(node, space, reduction)
    return memo[key]


def _accesses(node, space, reduction):
    from .ops import Recorder, use
    idx = node_index(node, space, reduction)
    if idx is None:
        return None
    rec = Recorder()
    with use(rec):
        node.run_body(idx)
    # a reduction stores per row (its x indices); a scan at every (x, r)
    store = node.store_index(idx[0] if node.kind == "reduction" else idx)
    b = bounds(space)
    return tuple((n, S.with_bounds(i, b)) for n, i in rec.reads), S.with_bounds(store, b)


def bounds(space):
    return {"x": space[0] - 1, "r": max(space[1] - 1, 0)}


def _is_scalar(buf):
    """Whether a buffer holds at most one element (sizes known)."""
    try:
        return buf is not None and buf.numel <= 1
    except TypeError:   # a symbolic size
        return False


def is_rowwise(node, space):
    """Pointwise node over X only inside a reduction kernel (computed after the loops)."""
    return node.kind == "pointwise" and space[1] != 1 and node.numel == space[0]


class Scheduler:
    def __init__(self, graph):
        self.graph = graph
        for i, n in enumerate(graph.nodes):
            n.order = i
        self.producer = {}
        for n in graph.nodes:
            if n.kind in COMPUTED:
                self.producer[n.buffer.name] = n
        self.readers = {}
        for n in graph.nodes:
            for r in n.reads:
                self.readers.setdefault(r, set()).add(n.name)
        self.output_names = {o.buffer.name for o in graph.outputs if isinstance(o, ir.View)}
        self.fused_nodes = 0
        self.scatter_targets = {n.buffer.name for n in graph.nodes if n.kind == "scatter"}

    # -- legality --------------------------------------------------------------------
    def can_fuse(self, a: Group, b: Group) -> bool:
        """Whether a and b may run as one kernel. A question on a data-dependent size its range
        does not settle (is u0 == 16?) answers no: not fusing is always correct."""
        return or_else(lambda: self._can_fuse(a, b), False)

    def _can_fuse(self, a: Group, b: Group) -> bool:
        if a.kind in ("extern", "scatter") or b.kind in ("extern", "scatter"):
            return False
        if "template" in (a.kind, b.kind) and not self._epilogue_fits(a, b):
            return False
        nodes = sorted(a.nodes + b.nodes, key=lambda n: n.order)
        red = first_reduction(nodes)
        space = self._space(a, b, red)
        if space is None:
            return False
        inside = {n.buffer.name: n for n in nodes}
        for n in nodes:
            acc = accesses(n, space, red)
            if acc is None:
                return False
            reads, _ = acc
            for name, index in reads:
                p = inside.get(name)
                if p is None or p is n:
                    continue
                pacc = accesses(p, space, red)
                if pacc is None or index != pacc[1]:
                    return False
                if p.kind == "reduction" and R in index.free_symbols:
                    return False
                if is_rowwise(p, space) and not is_rowwise(n, space) and n.kind != "reduction" \
                        and R in index.free_symbols:
                    return False
        if not self._mutations_elementwise(nodes, space, red):
            return False
        return not self._creates_cycle(a, b)

    @staticmethod
    def _epilogue_fits(a, b):
        """A template group takes pointwise consumers of its output only (an epilogue): one
        template per group, nothing that feeds its operands, and every other node reads a
        buffer produced inside the group."""
        if a.kind not in ("template", "pointwise") or b.kind not in ("template", "pointwise"):
            return False
        nodes = a.nodes + b.nodes
        templates = [n for n in nodes if n.kind == "template"]
        if len(templates) != 1:
            return False
        produced = {n.buffer.name for n in nodes}
        t = templates[0]
        if t.reads & produced:
            return False
        return all(n is t or n.reads & produced for n in nodes)

    @staticmethod
    def _mutations_elementwise(nodes, space, red):
        """A kernel that writes a buffer in place (a MutationBuffer's target) may read that
        buffer only at the element being written and only before the write: each program then
        reads old values it alone overwrites (the same pointer, the same thread)."""
        muts = [n for n in nodes if isinstance(n.buffer, ir.MutationBuffer)]
        if not muts:
            return True
        targets = [ir.storage_name(m.buffer) for m in muts]
        if len(set(targets)) < len(targets):
            return False
        if any(n.kind in ("reduction", "scan") for n in nodes) and \
                any(t in n.reads for t in targets for n in nodes):
            # a looped reduction reads (or recomputes from) the target again in a later pass
            # over R, after the first pass wrote it (persistent ones would be safe; codegen
            # decides persistence later, so neither fuses); scans are kept out alike
            return False
        # every read of a target, gathered in one pass over the nodes (a merged optimizer
        # group holds hundreds of in-place updates: a pass per update was quadratic)
        reads_of = {t: [] for t in targets}
        for n in nodes:
            for name, index in accesses(n, space, red)[0]:
                if name in reads_of:
                    reads_of[name].append((n.order, index))
        for m, target in zip(muts, targets):
            store = accesses(m, space, red)[1]
            if any(order > m.order or index != store for order, index in reads_of[target]):
                return False
        return True

    def _space(self, a, b, red):
        spaces = {g.space() for g in (a, b) if g.kind in ("reduction", "scan")}
        if len(spaces) > 1:
            return None
        if spaces:
            space = spaces.pop()
            for n in a.nodes + b.nodes:
                if node_index(n, space, red) is None:
                    return None
            return space
        sa, sb = a.space(), b.space()
        return sa if sa == sb else None

    def _creates_cycle(self, a, b):
        members = a.names | b.names
        # Is there a path from a member through a non-member back to a member?
        start = set()
        for n in self.graph.nodes:
            if n.name in members:
                continue
            if n.deps & members:
                start.add(n.name)
        # Groups run as one kernel: reaching any node of a fused group reaches all of it (a
        # group G with one node reading a and another read by b puts G between a and b even
        # when no single node path does; checking nodes alone let ASGD's step fuse into a cycle)
        seen, stack = set(), list(start)
        dependents, group_of = self.dependents, self.group_of
        while stack:
            cur = stack.pop()
            if cur in seen:
                continue
            g = group_of.get(cur)
            for name in ([n.name for n in g.nodes] if g is not None else [cur]):
                seen.add(name)
                for d in dependents.get(name, ()):
                    if d in members:
                        return True
                    if d not in seen:
                        stack.append(d)
        return False

    # -- fusion ----------------------------------------------------------------------
    def fuse(self):
        """Greedy fusion, best-scored legal pair first. Scores depend only on the two groups,
        and a pair that cannot fuse stays unfusable while neither group changes, so the
        candidates live in a heap: a merge drops its two groups' pairs and adds the merged
        group's (the whole list was rebuilt per merge before: quadratic, 4-5 s of the compile
        of a 148-tensor optimizer step)."""
        self.dependents = {}
        for n in self.graph.nodes:
            for d in n.deps:
                self.dependents.setdefault(d, set()).add(n.name)
        groups = [Group([n]) for n in self.graph.nodes]
        self.group_of = {n.name: g for g in groups for n in g.nodes}
        writes = {n.buffer.name: g for g in groups for n in g.nodes
                  if n.kind in COMPUTED}
        alive = {id(g): g for g in groups}
        heap, seq = [], itertools.count()

        def push(g, pairs):
            for score, o in pairs.values():
                a, b = (o, g) if o.order < g.order else (g, o)
                heapq.heappush(heap, (-score, a.order, b.order, next(seq), a, b))

        initial = {}
        for g in groups:
            for key, (score, o) in self._pairs_for(g, writes).items():
                a, b = (o, g) if o.order < g.order else (g, o)
                initial[(id(a), id(b))] = (score, a, b)
        for score, a, b in initial.values():
            heapq.heappush(heap, (-score, a.order, b.order, next(seq), a, b))
        while heap:
            *_, a, b = heapq.heappop(heap)
            if id(a) not in alive or id(b) not in alive or not self.can_fuse(a, b):
                continue
            merged = Group(sorted(a.nodes + b.nodes, key=lambda n: n.order))
            del alive[id(a)], alive[id(b)]
            alive[id(merged)] = merged
            for n in merged.nodes:
                self.group_of[n.name] = merged
                if n.kind in COMPUTED:
                    writes[n.buffer.name] = merged
            self.fused_nodes += 1
            push(merged, self._pairs_for(merged, writes))
        self.groups = self._toposort(list(alive.values()))
        return self.groups

    def _pairs_for(self, g, writes):
        """{id(other): [score, other]}: the bytes fusing g with each other group saves: a
        buffer one writes and the other reads (2x its size per reading node), a buffer both
        read (its size per pair of reading nodes)."""
        out = {}
        if g.kind in ("extern", "scatter"):
            return out

        def add(o, score):   # (scores are ints: sizes taken at their hints)
            if o is not None and o is not g and o.kind not in ("extern", "scatter"):
                out.setdefault(id(o), [0, o])[0] += score
        # per buffer, how many of g's nodes read it (a scalar such as a tensor learning rate
        # is read by every node of a merged optimizer group: one pass over its readers, each
        # pair scored as many times as before)
        reading = {}
        for n in g.nodes:
            for name in n.reads:
                reading[name] = reading.get(name, 0) + 1
        for name, count in reading.items():
            buf = self.graph.buffers.get(name)
            # (at the hints: symbolic arithmetic here, a floor division per pair, cost a
            # decoder's symbolic compile seconds)
            nbytes = hint(buf.numel) * buf.dtype.itemsize if buf is not None else 0
            add(writes.get(name), count * 2 * nbytes)                 # g reads what o wrote
            scalar = _is_scalar(buf)
            if scalar and g.mutates:
                # in-place updates that share only a scalar (a tensor learning rate, a step
                # count) are independent: pairing on it merged every same-sized parameter
                # update of an optimizer step into one kernel beside the foreach launch (3
                # kernels, not 2), and scored every pair of updates (quadratic)
                continue
            for other_id in self.readers.get(name, ()):
                o = self.group_of.get(other_id)
                if not (scalar and o is not None and o.mutates):
                    add(o, count * 2 * (nbytes // 2))   # both read it
        for n in g.nodes:
            if n.kind in COMPUTED:
                buf = n.buffer
                for other_id in self.readers.get(buf.name, ()):   # o reads what g wrote
                    add(self.group_of.get(other_id), 2 * hint(buf.numel) * buf.dtype.itemsize)
        return out

    def _toposort(self, groups):
        group_of = {n.name: g for g in groups for n in g.nodes}
        deps = {id(g): {id(group_of[d]) for n in g.nodes for d in n.deps if d in group_of} - {id(g)}
                for g in groups}
        done, out = set(), []
        pending = sorted(groups, key=lambda g: g.order)
        while pending:
            for g in pending:
                if deps[id(g)] <= done:
                    out.append(g)
                    done.add(id(g))
                    pending.remove(g)
                    break
            else:
                raise RuntimeError("cycle in fused groups")
        return out

    # -- horizontal (combo) grouping -------------------------------------------------
    def combine(self, groups, combinable, max_subs=32, max_args=200, min_subs=4, body_key=None,
                max_bodies=16, window=32):
        """Groups in an order that puts independent combinable groups side by side, as lists
        (one launch each): groups at the same dependency depth (longest path from the graph's
        sources) have no path between them, so they may share a launch. A list holds at most
        `max_subs` groups reading and writing at most `max_args` buffers; runs shorter than
        `min_subs` stay single groups (a combo pays when it saves many launches). With
        `body_key` (group -> hashable or None), groups at one depth with equal keys (one kernel
        body: a foreach table kernel) form one list first, of any length and at most
        `max_bodies` distinct keys. Neighbours in a list are at most `window` places apart in
        `groups`; each list sits where its first group was (`_place`), every other group keeps
        its order. Returns `groups` unchanged when nothing combines."""
        index = {id(g): i for i, g in enumerate(groups)}
        group_of = {n.name: g for g in groups for n in g.nodes}
        depth = {}
        for g in groups:   # topological order: every dependency has its depth already
            ds = [depth[id(group_of[d])] for n in g.nodes for d in n.deps
                  if d in group_of and group_of[d] is not g]
            depth[id(g)] = 1 + max(ds, default=-1)
        by_depth = {}
        for g in groups:
            if combinable(g):
                by_depth.setdefault(depth[id(g)], []).append(g)
        buckets = {}

        def close(run):
            if len(run) >= min_subs:
                buckets.update((id(m), run) for m in run)
        def near(members):
            """members (in schedule order) split where two neighbours are over `window` apart:
            a launch's groups are near each other, or one far later would run (and have its
            output allocated) early, such as a backward's zero-filled vocabulary-sized
            gradient at the start of the graph, beside its peak"""
            runs = []
            for g in members:
                if runs and index[id(g)] - index[id(runs[-1][-1])] <= window:
                    runs[-1].append(g)
                else:
                    runs.append([g])
            return runs
        for depth_, members in list(by_depth.items()):
            if body_key is None:
                break
            taken = set()
            for near_members in near(members):
                if len(near_members) < min_subs:
                    continue
                same = {}
                for g in near_members:
                    k = body_key(g)
                    if k is not None:
                        same.setdefault(k, []).append(g)
                if sum(map(len, same.values())) < min_subs:
                    continue
                # one launch per `max_bodies` distinct bodies, groups of one body side by side
                classes = list(same.values())
                for i in range(0, len(classes), max_bodies):
                    run = [g for c in classes[i:i + max_bodies] for g in c]
                    if len(run) > 1:
                        buckets.update((id(m), run) for m in run)
                        taken.update(id(m) for m in run)
            by_depth[depth_] = [g for g in members if id(g) not in taken]
        for near_members in (run for members in by_depth.values() for run in near(members)):
            cur, names = [], set()
            for g in near_members:
                bufs = {r for n in g.nodes for r in n.reads} | {ir.storage_name(n.buffer) for n in g.nodes}
                if len(cur) >= max_subs or len(names | bufs) > max_args:
                    close(cur)
                    cur, names = [], set()
                cur.append(g)
                names |= bufs
            close(cur)
        if not buckets:
            return groups
        return self._place(groups, buckets, index, group_of)

    def _place(self, groups, buckets, index, group_of):
        """The schedule with each bucket as one list: the groups' own order, a list where its
        first group was (or as soon after as its other groups' inputs are ready)."""
        unit = {}   # id(group) -> (key, list or group)
        for g in groups:
            b = buckets.get(id(g))
            if b is None:
                unit[id(g)] = (index[id(g)], g)
            elif id(b[0]) not in unit:
                u = (min(index[id(m)] for m in b), list(b))
                unit.update((id(m), u) for m in b)
        units = {u[0]: u[1] for u in unit.values()}
        waits = {k: set() for k in units}
        users = {k: [] for k in units}
        for k, u in units.items():
            for g in (u if isinstance(u, list) else [u]):
                for n in g.nodes:
                    for d in n.deps:
                        if d in group_of:
                            dk = unit[id(group_of[d])][0]
                            if dk != k and dk not in waits[k]:
                                waits[k].add(dk)
                                users[dk].append(k)
        ready = [k for k, w in waits.items() if not w]
        heapq.heapify(ready)
        out = []
        while ready:
            k = heapq.heappop(ready)
            out.append(units[k])
            for u in users[k]:
                waits[u].discard(k)
                if not waits[u]:
                    heapq.heappush(ready, u)
        if len(out) != len(units):
            raise RuntimeError("cycle in combined groups")
        return out

    def internal(self, group):
        """Buffers written and read only inside this group (never stored)."""
        out = set()
        for n in group.nodes:
            if n.kind not in COMPUTED:
                continue
            name = n.buffer.name
            if name in self.output_names or name in self.scatter_targets or \
                    isinstance(n.buffer, ir.MutationBuffer):   # an input's new contents: stored
                continue
            readers = self.readers.get(name, set())
            if readers and readers <= group.names:
                out.add(name)
        return out


__all__ = ["Scheduler", "Group", "node_index", "accesses"]
