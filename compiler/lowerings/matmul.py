"""mm, addmm and bmm: extern calls to ATen, and the pad_mm pass that runs inside them.

A matmul whose m, k or n is not a multiple of 16 bytes' worth of elements can run much
faster on padded operands (cuBLAS picks its aligned kernels). The choice is the pad_mm
autotuning point (tuner.points.pad_mm): the compiler builds the problem from IR sizes and
strides and asks; it never times anything itself. Mode: torch.compile's
options={"pad_mm": ...}, else the TUNER_PAD_MM setting; "auto" asks the decision,
"always"/"never" force it.

"pad" pads each operand that needs it with zeros (zeros along k add nothing to any dot
product), runs the extern on the padded operands and returns a [..., :m, :n] view of the
padded result: no copy, consumers read through the slice. An operand that is still an
unrealized pointwise value is "prepadded": its producer's kernel writes the padded layout,
so the pad costs no extra kernel.
"""
from __future__ import annotations

import heapq
import logging
import operator
import weakref

import torch

from tuner.points.mm import decide_mm_backend, measures, problem_from_layout
from tuner.heuristics.contexts import alignment_for, round_up
from tuner.points.pad_mm import context_from_layout, decide_pad_mm, strides_transposed
from tuner.settings import MM_MODE_CHOICES, settings

from .. import ir
from .. import sym as S
from ..codegen import special_calls
from ..lowering import graph, register
from ..sizes import concrete
from ..torch_compat import aten
from .builders import constant_pad_nd

log = logging.getLogger("tuner.compiler")
PAD_MM_MODES = ("auto", "always", "never")
MM_MODES = MM_MODE_CHOICES   # (the TUNER_MM setting's choices)
# mm="splitk": K slices of a 2-D mm/addmm, options={"mm_split_k": S} (default 4)
DEFAULT_SPLIT_K = 4
# graph -> {operand key: its padded copy}, so each graph pads an operand once
_PADDED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@register(aten.mm.default)
def mm(mat1, mat2):
    return _matmul("mm", aten.mm.default, mat1, mat2)


@register(aten.bmm.default)
def bmm(mat1, mat2):
    return _matmul("bmm", aten.bmm.default, mat1, mat2)


@register(aten.addmm.default)
def addmm(bias, mat1, mat2, *, beta=1, alpha=1):
    return _matmul("addmm", aten.addmm.default, mat1, mat2, bias, beta=beta, alpha=alpha)


def pad_mm_mode() -> str:
    """The graph's pad_mm mode: the compile option if given, else TUNER_PAD_MM."""
    mode = graph().ctx.options.get("pad_mm")
    if mode is None:
        mode = settings.pad_mm
    return mode


def _matmul(name, op, mat1, mat2, bias=None, **scalars):
    residual = _foldable_residual(name, mat1, mat2) if bias is None else None

    def orig():
        if residual is not None:
            return _fold_residual(residual, mat1, mat2)
        args = (mat1, mat2) if bias is None else (bias, mat1, mat2)
        return graph().extern(op, args, scalars, None)

    if not (isinstance(mat1, ir.TensorValue) and isinstance(mat2, ir.TensorValue)) \
            or mat1.dtype != mat2.dtype:
        return orig()
    if graph().sizes is not None:   # symbolic: ATen's, padded where only its rows are symbolic
        ctx = _symbolic_pad_context(name, mat1, mat2, bias)
        if ctx is None:
            return orig()
        choice = _decide(ctx, mat1.device)
        graph().stats.count_pad_mm(choice)
        return _padded(op, ctx, mat1, mat2, bias, scalars) if choice == "pad" else orig()
    (s1, pre1), (s2, pre2) = _layout(mat1), _layout(mat2)
    try:
        ctx = context_from_layout(name, mat1.size, s1, mat2.size, s2, mat1.dtype,
                                  mat1_prepadded=pre1, mat2_prepadded=pre2)
    except (TypeError, ValueError):   # symbolic or empty sizes: no problem to pose
        ctx = None
    def unpadded():
        if _use_template(name, mat1, mat2, residual):
            splits = _split_k_count(name, mat1, mat2)
            if splits > 1:
                return _split_k(mat1, mat2, bias, scalars, splits)
            return _template(name, mat1, mat2, bias, scalars)
        return orig()

    if ctx is None or not ctx.needs_padding():
        return unpadded()
    choice = _decide(ctx, mat1.device)
    if choice != "pad":
        graph().stats.count_pad_mm(choice)
        return unpadded()
    # the template masks any size: with TUNER_MM_PADDED=measure the mm point weighs it against
    # the padded extern (in max-autotune; default mode keeps the padded ATen call). The padded
    # call never folds a residual (the add is an epilogue of its own): posed without it
    if mm_mode() == "auto" and settings.mm_padded == "measure" \
            and _use_template(name, mat1, mat2, None, padded=True):
        graph().stats.count_pad_mm("template")
        return _template(name, mat1, mat2, bias, scalars)
    graph().stats.count_pad_mm("pad")
    return _padded(op, ctx, mat1, mat2, bias, scalars)


# rows from which `mm + r` becomes one addmm: LLaMA's decode step (8 rows) ran the folded
# addmm as a copy of r plus cuBLAS's beta=1 kernel, 16 more launches per step (about 0.25 ms of
# host time in a host-bound generate) and 1 us more GPU time each, than mm + an add fused into
# the RMSNorm after it (bench/results/decode, docs/PERFORMANCE.md)
RESIDUAL_FOLD_MIN_ROWS = 64


def _foldable_residual(name, mat1, mat2):
    """(add node, its argument index holding the product, the residual's IR value) where this
    2-D mm's one consumer, directly or through one view, is `product + r` with r of the sum's
    own shape and dtype, already lowered and never written in place; else None. Such an add
    folds into the ATen call as addmm's C operand (beta = 1): cuBLAS reads r in its epilogue
    instead of a kernel reading the product back (docs/PERF_NOTES.md). Only from
    RESIDUAL_FOLD_MIN_ROWS rows: below, ATen's addmm costs a copy of r and a second launch,
    where the add would fuse into the next kernel (a decode step's RMSNorm)."""
    g = graph()
    node = getattr(g, "current", None)
    if name != "mm" or not isinstance(node, torch.fx.Node) or len(mat1.size) != 2 or len(mat2.size) != 2:
        return None
    if _rows_hint(g, mat1.size[0]) < RESIDUAL_FOLD_MIN_ROWS:
        return None
    found = _residual_add(node, mat1.dtype)
    if found is None:
        return None
    u, i, r = found
    if r not in g.env or r in g._written_fx():
        return None
    # the sum has m * n elements (the shapes agree: see _residual_add)
    if g.numel(u.meta["val"]) != mat1.size[0] * mat2.size[1]:
        return None
    rv = g.env[r]
    if not isinstance(rv, ir.TensorValue):
        return None
    return u, i, rv


def _rows_hint(g, rows) -> int:
    """A matmul's row count at the graph's size hints (an unbacked count: taken as large)."""
    try:
        return g.sizes.hint(rows) if g.sizes is not None else int(rows)
    except (TypeError, ValueError):
        return 1 << 62


def _residual_add(node, dtype):
    """(add node, its argument index holding the product, r) where the mm at FX node `node`
    has one consumer, directly or through one view, `product + r` with r an FX value of the
    sum's own shape and dtype made before the matmul, and the sum of `dtype` and row-major as
    addmm writes it (no broadcasting either side; an add whose first operand is column-major
    is column-major in eager, and a consumer of its memory, as_strided, would read the addmm's
    layout wrongly); else None. The lowering folds such an add (`_foldable_residual`, which
    also needs r lowered and never written in place)."""
    if len(node.users) != 1:
        return None
    u, prev = next(iter(node.users)), node
    if u.op == "call_function" and u.target in (aten.view.default, aten._unsafe_view.default,
                                                aten.reshape.default) and len(u.users) == 1:
        prev, u = u, next(iter(u.users))
    if u.op != "call_function" or u.target is not aten.add.Tensor or len(u.args) != 2 \
            or u.kwargs.get("alpha", 1) != 1 or u.args[0] is u.args[1] or prev not in u.args:
        return None
    i = 0 if u.args[0] is prev else 1
    r = u.args[1 - i]
    vals = [x.meta.get("val") if isinstance(x, torch.fx.Node) else None for x in (u, r, prev)]
    if not all(isinstance(v, torch.Tensor) for v in vals):
        return None
    val, rval, pval = vals
    order = _fx_order(node.graph)
    g = graph()   # (sizes through the graph: symbolic ones decided as its size guards)
    shape = g.shape(val)
    if not (g.shape(rval) == g.shape(pval) == shape) or rval.dtype != val.dtype \
            or val.dtype != dtype or not (val.is_contiguous() if g.sizes is None else
                                          g.stride(val) == S.contiguous_strides(shape)) \
            or order.get(r, 1 << 62) > order[node]:
        return None
    return u, i, r


def _fold_residual(residual, mat1, mat2):
    """addmm(r, mat1, mat2) for `mm + r`: the add node takes the addmm's value (through the
    view between them, which lowers on it as it would have on the product)."""
    from .views import view
    add, i, r = residual
    g = graph()
    m, n = mat1.size[0], mat2.size[1]
    c = view(r, [m, n]) if tuple(r.size) != (m, n) else r
    # (with symbolic sizes, addmm's result is laid out as the product's FX value says)
    out = g.extern(aten.addmm.default, (c, mat1, mat2), {},
                   g.current.meta.get("val") if g.sizes is not None else None)
    g.forwarded[add] = i
    g.stats.residual_folds += 1
    return out


_TEMPLATE_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


def mm_mode() -> str:
    """The graph's matmul mode: the compile option "mm" if given, else TUNER_MM."""
    mode = graph().ctx.options.get("mm")
    return settings.mm if mode is None else mode


def _use_template(name, mat1, mat2, residual=None, padded=False) -> bool:
    """Whether this matmul becomes a Template node: always with mm="template", never with
    "extern"; with "auto" the mm point decides (tuner.points.mm: heuristic, cache, then
    measured, in max-autotune; ATen in default mode, whose template config is untuned). The
    lowering never measures: a problem left to measure is lowered as ATen and recorded in the
    graph's mm_questions; compile_graph measures it after lowering and lowers the graph again
    where the template won. padded: the pad_mm point chose to pad, so the extern side is the
    ATen call on padded operands."""
    mode = mm_mode()
    if mode == "extern" or mat1.dtype not in _TEMPLATE_DTYPES:
        return False
    if not all(s > 0 for s in (*mat1.size, *mat2.size)):
        return False
    if mode in ("template", "splitk"):
        return True
    g = graph()
    if g.ctx.probe:   # a probe's own matmuls are what it was told
        return False
    epilogue, costly, absorbed = _epilogue_kind(residual[0] if residual is not None else g.current)
    problem = problem_from_layout(name, mat1.size, _layout(mat1)[0], mat2.size, _layout(mat2)[0],
                                  mat1.dtype, epilogue=epilogue, costly_epilogue=costly,
                                  absorbed=absorbed, padded=padded)
    if problem is None:
        return False
    device = str(mat1.device)
    choice = _recorded("mm", problem.signature(), lambda: _ask_mm(problem, device),
                       question=(problem, device))
    if choice is None:   # measured after lowering (compile_graph); ATen until it is answered
        return False
    g.stats.count_mm_backend(choice)
    return choice == "template"


def _ask_mm(problem, device):
    """The mm point's answer where it needs no measurement (default mode's ATen, a heuristic's,
    the cache's), else None: max-autotune measures the problem after lowering, outside the
    tracer's fake mode (compile_graph, through the graph's mm_questions)."""
    autotune = graph().ctx.autotune
    try:
        if autotune and _measures(problem, device):
            return None
        return decide_mm_backend(problem, _no_runners, device=device, measure=autotune)
    except Exception as e:   # noqa: BLE001 - the point failing leaves the ATen call
        log.warning("mm point failed for %s (%s: %s); ATen", problem.signature(), type(e).__name__, e)
        return "extern"


def _no_runners():
    """The lowering builds no runners: planned as answered without measuring, the point calls
    this only if that answer vanished in between (each choice then scores infinity)."""
    return {}


def _recorded(point, signature, ask, question=None):
    """A point's answer to this graph's question (point, FX node being lowered, problem): the
    one an earlier lowering of the graph recorded (compile_graph lowers again once it has
    measured the mm questions: every other answer is replayed, not asked again), else ask().
    Recorded in the graph's answers, in the order asked; None (ask() left it to measure) also
    records `question`, (problem, device), in the graph's mm_questions."""
    g = graph()
    key = (point, g.current, signature)
    mine = g.answers.setdefault(key, [])
    given = g.replay.get(key, ())
    choice = given[len(mine)] if len(mine) < len(given) else ask()
    if choice is None:
        g.mm_questions.append((key, len(mine), *question))
    mine.append(choice)
    return choice


# Pointwise ops an epilogue pays for in ALU time (a special-function evaluation or a
# libdevice series per element): in the template they run inside the matmul kernel, in the
# extern's separate kernel they hide under its memory traffic, so they get a question of their
# own (figures: docs/PERF_NOTES.md, "Figures behind constants")
_COSTLY_EPILOGUE_OPS = frozenset({"tanh", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "log",
                                  "log1p", "log2", "log10", "sigmoid", "gelu", "silu", "mish",
                                  "softplus", "sin", "cos", "tan", "sinh", "cosh", "asin",
                                  "acos", "atan", "atan2", "asinh", "acosh", "atanh", "lgamma",
                                  "digamma", "polygamma", "special_erfcx", "i0", "special_i0e",
                                  "special_i1", "special_i1e", "special_modified_bessel_i0",
                                  "special_modified_bessel_i1", "pow", "elu", "selu", "celu",
                                  "logit", "igamma", "igammac",
                                  *("special_" + n for n in special_calls.UNARY),
                                  *("special_" + n for n in special_calls.BINARY
                                    if not n.startswith("igamma"))})
_EPILOGUE_WALK_MAX = 32   # nodes of the consumer chain looked at


# views that reorder elements: a copy or cast of such a view writes another layout, which the
# template's epilogue does not store (a kernel of its own either way: attention's head split)
_PERMUTING = frozenset({aten.permute.default, aten.transpose.int, aten.t.default,
                        torch.ops.prims.transpose.default})
_COPIES = frozenset({aten.clone.default, aten._to_copy.default})


def _epilogue_kind(node) -> tuple[bool, bool, bool]:
    """(has a pointwise consumer, one of them is costly, the chain is absorbed) for the matmul
    at FX node `node`, through views and along the pointwise chain that would fuse into its
    epilogue: the extern side computes that chain after the ATen call, the template in its
    own kernel. Absorbed: a value of the chain is also read by a kernel we generate that the
    chain cannot join (a reduction: a LayerNorm's statistics, a softmax's max; a pointwise op
    reading one; a copy): on the extern side the chain fuses into that kernel instead of a
    kernel of its own. Unknown: (True, False, False)."""
    from ..op_tables import ATEN_CALLS as _ATEN_CALLS, VIEW_LOWERINGS as _VIEW_LOWERINGS
    from ..lowering import lookup
    if not isinstance(node, torch.fx.Node):
        return True, False, False
    has = costly = False
    order = _fx_order(node.graph)
    chain = {node}
    epilogue: set = set()   # chain members computed by (or viewing) a pointwise consumer
    permuted: set = set()   # chain members that view the product in another element order
    exits: list = []        # readers of a chain member outside the chain (absorbed: one that
    #                         launches a kernel and reads an epilogue value)
    # in graph order, so that every chain member an op reads is classified before the op
    todo = [(order.get(u, -1), i, u) for i, u in enumerate(node.users)]
    heapq.heapify(todo)
    seen: set = set()
    tie = len(todo)

    def push(users):
        nonlocal tie
        for w in users:
            tie += 1
            heapq.heappush(todo, (order.get(w, -1), tie, w))
    while todo and len(seen) < _EPILOGUE_WALK_MAX:
        u = heapq.heappop(todo)[2]
        if u in seen:
            continue
        seen.add(u)
        t = u.target
        if u.op == "call_function" and (t in _VIEW_LOWERINGS or t is operator.getitem):
            chain.add(u)
            if any(a in epilogue for a in u.all_input_nodes):
                epilogue.add(u)
            if t in _PERMUTING or any(a in permuted for a in u.all_input_nodes):
                permuted.add(u)
            push(u.users)
        elif u.op == "call_function" and t in _COPIES and any(a in permuted for a in u.all_input_nodes):
            exits.append(u)
        elif u.op == "call_function" and (t is aten._to_copy.default or (
                isinstance(t, torch._ops.OpOverload) and torch.Tag.pointwise in t.tags)):
            # an op reading another value made after the matmul (a softmax's max, a norm's
            # statistics: reductions of the product) cannot run in the matmul's epilogue
            late = [a for a in u.all_input_nodes if a not in chain and order.get(a, -1) > order[node]]
            if late:
                exits.append(u)
                continue
            chain.add(u)
            epilogue.add(u)
            has = True
            name = t.overloadpacket.__name__.rstrip("_") if isinstance(t, torch._ops.OpOverload) else ""
            if name in _COSTLY_EPILOGUE_OPS and not (name == "pow" and _small_int_exponent(u)):
                costly = True
            push(u.users)
        else:
            exits.append(u)
    absorbed = has and any(
        u.op == "call_function" and u.target not in _ATEN_CALLS and lookup(u.target) is not None
        and any(a in epilogue for a in u.all_input_nodes) for u in exits)
    return has, costly, absorbed


def _small_int_exponent(node) -> bool:
    """pow(x, n) with a small integer n or 0.5 (lowered to multiplies or a square root, see
    lowerings/pointwise.py)."""
    b = node.args[1] if len(node.args) > 1 else None
    return isinstance(b, (int, float)) and ((float(b).is_integer() and abs(b) <= 4) or b == 0.5)


def _fx_order(fx_graph) -> dict:
    """FX node -> its position in the graph (per FX graph, computed once)."""
    got = _FX_ORDER.get(fx_graph)
    if got is None or len(got) != len(fx_graph.nodes):
        got = {n: i for i, n in enumerate(fx_graph.nodes)}
        _FX_ORDER[fx_graph] = got
    return got


_FX_ORDER: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _measures(problem, device) -> bool:
    """Whether the mm point would measure this problem now (no confident heuristic, no cached
    answer): planned through the engine, nothing built, timed or recorded."""
    return measures(problem, device)


def _template(name, mat1, mat2, bias, scalars):
    """The matmul as a Template node (a generated Triton kernel whose epilogue takes the
    pointwise consumers of its output); addmm's bias and scales are such an epilogue."""
    g = graph()
    a, b = g.realize(mat1), g.realize(mat2)
    size = tuple(a.size[:-1]) + (b.size[-1],)
    # addmm of 16-bit operands: the product stays fp32 (the accumulator) and is rounded once,
    # after the bias, as ATen's addmm is (rounding it first differed from ATen on ~15% of fp16
    # elements). The bias add is a node of its own, a pointwise consumer the template's group
    # always takes in, so the fp32 product is never stored: inlined into a reduction (a
    # LayerNorm after the projection) it would have been, at twice the bytes
    wide = bias is not None and a.dtype in (torch.float16, torch.bfloat16)
    buf = g.new_buffer(torch.float32 if wide else a.dtype, a.device, size)
    g.add_node(ir.Template(g.node_name(), buf, size, a, b))
    out = ir.View(buf, buf.size, buf.stride, 0)
    if bias is None:
        return out
    value = _bias_epilogue(out, bias, scalars, a.dtype, size)
    return g.realize(value) if wide else value


def _bias_epilogue(out, bias, scalars, dtype, size):
    """addmm's alpha * out + beta * bias as a pointwise value over the product."""
    from ..lowering import make_pointwise
    from ..ops import ops
    beta, alpha = scalars.get("beta", 1), scalars.get("alpha", 1)
    ct = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype

    def epilogue(o, c):
        if alpha != 1:
            o = ops.mul(o, ops.constant(alpha, ct))
        if beta != 1:
            c = ops.mul(c, ops.constant(beta, ct))
        return ops.add(o, c) if beta != 0 else o
    return make_pointwise(epilogue, [out, bias], dtype, ct, shape=size)


def _split_k_count(name, mat1, mat2) -> int:
    """K slices for a matmul under mm="splitk" (options["mm_split_k"], default 4), or 1 (one
    K loop: another mode, a bmm, or a K that the count does not divide into slices of 16+)."""
    if mm_mode() != "splitk" or name == "bmm":
        return 1
    splits = int(graph().ctx.options.get("mm_split_k") or DEFAULT_SPLIT_K)
    try:
        k = int(mat1.size[-1])
    except TypeError:   # a symbolic K
        return 1
    return splits if splits > 1 and k % splits == 0 and k // splits >= 16 else 1


def _split_k(mat1, mat2, bias, scalars, splits):
    """A 2-D matmul as `splits` products over K slices, one bmm-shaped template writing fp32
    partials [splits, m, n] (the operands' strided views, nothing copied), then a reduction over
    the slices that takes the epilogue: for a small output over a long K, whose tiles alone
    leave most SMs idle. Not measured on a GPU yet: reached only by forcing mm="splitk"."""
    from ..lowering import make_pointwise
    from ..ops import ops
    from .reductions import sum_
    g = graph()
    a, b = g.realize(mat1), g.realize(mat2)
    (m, k), n = a.size, b.size[-1]
    kc = k // splits
    a3 = ir.View(a.buffer, (splits, m, kc), (kc * a.stride[1], a.stride[0], a.stride[1]), a.offset)
    b3 = ir.View(b.buffer, (splits, kc, n), (kc * b.stride[0], b.stride[0], b.stride[1]), b.offset)
    size = (splits, m, n)
    buf = g.new_buffer(torch.float32, a.device, size)
    g.add_node(ir.Template(g.node_name(), buf, size, a3, b3))
    total = sum_(ir.View(buf, buf.size, buf.stride, 0), [0])
    # rounded once to the operands' dtype, as ATen's mm, or its addmm after the bias
    if bias is None:
        return make_pointwise(lambda v: ops.to_dtype(v, a.dtype), [total], a.dtype, torch.float32)
    return _bias_epilogue(total, bias, scalars, a.dtype, (m, n))


def _layout(x):
    """(strides, prepadded) of an operand as the extern will read it: a View's own strides;
    an unrealized value's are those it would be realized with, and its producer can write
    them padded for free."""
    if isinstance(x, ir.View):
        return tuple(x.stride), False
    return tuple(graph().layout_for(x) or S.contiguous_strides(x.size)), True


def _decide(ctx, device) -> str:
    return _recorded("pad_mm", ctx.signature(), lambda: _ask_pad_mm(ctx, device))


def _ask_pad_mm(ctx, device) -> str:
    mode = pad_mm_mode()
    if mode == "always":
        return "pad"
    if mode == "never":
        return "orig"
    try:
        return decide_pad_mm(ctx, device)
    except Exception as e:   # a failed decision must not fail the compile: keep the plain call
        log.warning("pad_mm: decision for %s failed (%s: %s); not padding", ctx.signature(),
                    type(e).__name__, e)
        return "orig"


SYMBOLIC_PAD_ROWS = 4096   # the fewest rows a symbolic graph's pad_mm problem is posed at


def _one(size) -> bool:   # (no decision, so no guard, on a symbolic size)
    return isinstance(size, int) and size == 1


def _symbolic_pad_context(name, mat1, mat2, bias):
    """In a graph of symbolic sizes: the pad_mm problem of a matmul whose only symbolic sizes
    are its rows (m) and batch, mat1 not column-major, any bias of at most one row; else None. Padding
    then touches k and n only (row-major A and C need no padded m: their leading dims are k and
    n), so the problem is posed at the size hints, a symbolic m at least SYMBOLIC_PAD_ROWS, and m
    rounded up to the alignment: one answer serves every size the graph meets, and a dynamic graph (a
    server's batches, a growing sequence) meets larger row counts than its first; what padding
    costs a small one is bounded (a copy of the fixed operand), what an unaligned matmul loses
    grows with the rows. GPT-2's LM head (n = 50257) ran unpadded in every symbolic graph
    before: cuBLAS with an unaligned leading dim (the pad_mm heuristic pads it from 1,024 rows
    on an H100 and is unsure at 512)."""
    g = graph()
    (s1, pre1), (s2, pre2) = _layout(mat1), _layout(mat2)
    fixed = (*mat1.size[-1:], *mat2.size[-2:], *s1[-2:], *s2[-2:])
    if len(mat1.size) < 2 or not concrete(fixed) or strides_transposed(s1) \
            or (bias is not None and (not isinstance(bias, ir.TensorValue) or len(bias.size) > 2
                                      or (len(bias.size) == 2 and not _one(bias.size[0])))):
        return None
    try:
        m = mat1.size[-2]   # (a fixed count of rows, where only a batch or another input moves)
        m = m if isinstance(m, int) else max(g.sizes.hint(m), SYMBOLIC_PAD_ROWS)
        align = alignment_for(str(mat1.dtype).removeprefix("torch."))
        batch = (g.sizes.hint(mat1.size[0]),) if len(mat1.size) == 3 else ()
        ctx = context_from_layout(name, (*batch, round_up(m, align), mat1.size[-1]), s1,
                                  mat2.size, s2, mat1.dtype, mat1_prepadded=pre1,
                                  mat2_prepadded=pre2)
    except (TypeError, ValueError):   # (an unsupported dtype, a batch without a hint)
        return None
    return ctx if ctx is not None and ctx.needs_padding() else None


def _padded(op, ctx, mat1, mat2, bias, scalars):
    """The matmul on zero-padded operands, its result sliced back; in a graph of symbolic
    sizes (_symbolic_pad_context) m keeps its own, unpadded, size."""
    symbolic = graph().sizes is not None
    m, n = ctx.m, ctx.n
    pm, pk, pn = ctx.padded_sizes()
    if symbolic:
        m = pm = mat1.size[-2]
    a = _pad(mat1, pm, pk, ctx.mat1_transposed)
    b = _pad(mat2, pk, pn, ctx.mat2_transposed)
    args = (a, b) if bias is None else (_pad_bias(bias, m, n, pm, pn), a, b)
    args = tuple(graph().realize(x) if isinstance(x, ir.TensorValue) else x for x in args)
    if symbolic:
        size = (*mat1.size[:-2], m, pn)
        out = graph().extern(op, args, scalars, result=(mat1.dtype, mat1.device, size,
                                                        S.contiguous_strides(size)))
    else:
        meta = op(*[torch.empty_strided(x.size, x.stride, dtype=x.dtype, device="meta")
                    if isinstance(x, ir.View) else x for x in args], **scalars)
        out = graph().extern(op, args, scalars, meta)
    graph().padded_results.add(out.buffer.name)
    return ir.View(out.buffer, tuple(out.size[:-2]) + (m, n), out.stride, out.offset)


def _pad(x, rows, cols, transposed):
    """x zero-padded in its last two dims to (rows, cols), realized row-major, or column-major
    for a transposed operand (as pad_mm's benchmark pads it: the copy keeps its source's order)."""
    r, c = x.size[-2:]
    if (r, c) == (rows, cols):
        return x
    g = graph()
    key = None
    if isinstance(x, ir.View):
        # One padded copy per (view, layout) and graph: a weight read by several matmuls (the
        # forward and its backward's transposes live in different graphs, but tied or shared
        # weights do not) is copied once. The buffer's last writer is in the key, so a copy
        # made before a mutation of its source is not reused after it. A view read once as is
        # and once transposed (the logits' gradient in a tied LM head's backward: K of the
        # hidden state's gradient, M of the weight's) is one copy too: the transposed pad of
        # the transposed view, in the swapped order, is the same memory.
        cache = _PADDED.setdefault(g, {})
        writer = g.last_writer.get(x.buffer.name)
        key = (x.buffer.name, writer, tuple(x.size), tuple(x.stride), x.offset, rows, cols,
               transposed)
        if key in cache:
            return cache[key]
        swap = lambda t: tuple(t[:-2]) + (t[-1], t[-2])   # noqa: E731
        flipped = (x.buffer.name, writer, swap(x.size), swap(x.stride), x.offset, cols, rows,
                   not transposed)
        if flipped in cache:
            other = cache[flipped]
            return ir.View(other.buffer, swap(other.size), swap(other.stride), other.offset)
    padded = constant_pad_nd(x, [0, cols - c, 0, rows - r], 0)
    n = len(padded.size)
    order = list(range(n - 2)) + ([n - 1, n - 2] if transposed else [n - 2, n - 1])
    out = g.realize(padded, stride=S.dense_strides_in_order(padded.size, order))
    if key is not None:
        cache[key] = out
    return out


def _pad_bias(bias, m, n, pm, pn):
    """addmm's bias padded along the output dims it spans in full; broadcast dims (size 1 or
    absent) stay, as they broadcast over the padded output just the same."""
    if not isinstance(bias, ir.TensorValue) or not bias.size:
        return bias
    full = (m, n)[-len(bias.size):] if len(bias.size) <= 2 else None
    if full is None:
        return bias
    target = (pm, pn)[-len(bias.size):]
    pad = []
    for size, want, to in reversed(list(zip(bias.size, full, target))):
        if to is want:   # (not padded: a symbolic graph's rows, never compared, so no guard)
            pad += [0, 0]
            continue
        pad += [0, to - size if size == want and want != 1 else 0]
    if not any(pad):
        return bias
    return graph().realize(constant_pad_nd(bias, pad, 0))
