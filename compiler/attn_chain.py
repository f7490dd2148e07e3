"""The attention chain matcher of compiler/attn_patterns.py: which nodes of dynamo's graph
compute softmax(q @ k^T * scale + mask) @ v in a way scaled_dot_product_attention can
replace exactly, and what the rewrite needs to know of them (`match_chain`).

A chain is replaced only where SDPA computes the same thing up to rounding:
- softmax over the last dim; every intermediate (scores, probabilities) used only by the next
  op of the chain (a model that returns its attention probabilities keeps them);
- scales are constant Python numbers (multiplied or divided, on the scores, on q or on k),
  or 1 / sqrt(q's last size) from a symbolic size, applied to the scores before any mask;
- masks are tensors added to the scores (broadcastable to them without widening them), or
  fills (masked_fill, where) of a very negative constant from a boolean mask, which become an
  additive mask of that constant (rows masked entirely differ: eager's softmax gives NaN (-inf)
  or a uniform average, SDPA gives zeros or about the same average);
- dropout only with training False or p == 0; casts between floating dtypes (a float32
  softmax of half-precision scores) anywhere in the chain, q, k and v of one dtype;
- q, k and v 3-D or 4-D with the same batch dims, or (batch * heads) 3-D ones, the scores
  viewed (view, reshape) to 4-D (batch, heads) and back keeping their last two dims (BLOOM,
  DeBERTa-v2, ProphetNet): SDPA then runs on 4-D views of them;
- 4-D scores viewed as 5-D (batch, windows, heads, n, n) and back, a mask added there (Swin's
  shifted windows: mask.unsqueeze(1).unsqueeze(0) of (windows, n, n)): the mask becomes one of
  the 4-D scores, expanded over (batch, windows) and merged, which needs those two sizes
  static where the mask broadcasts over them (element (b, w, h) of the 5-D view is element
  (b * windows + w, h) of the 4-D scores, so the sum is the same);
- baddbmm(bias, q, k^T, beta=1, alpha=c) as c * (q @ k^T) + bias (BLOOM's alibi);
- no in-place write, between the chain's first node and its last, to the storage of a tensor
  SDPA reads (it reads them where the second matmul was).
Misses by design (kept as written): views changing the scores' last two dims, 3-D scores
split by a symbolic heads count, DeBERTa's relative-position bias (matmuls of its own), logit
soft-capping (Gemma 2), a learned (tensor) scale (Swin-V2's logit scale; a 0-d tensor of
constants, DeBERTa's sqrt(torch.tensor(d)), is constant), in-place masked_fill_ whose input is
used again, dropout p > 0 in training, a 5-D window mask to broadcast over a symbolic batch.
The right operand of q @ k^T is taken as k^T whatever produced it: key = its transpose (or
the tensor it transposed, when it is a transpose of the last two dims).
"""
from __future__ import annotations

import math
import operator

import torch
import torch.fx

from .fold import _meta_or_none as _meta, _mutates

MATMUL_FUNCS = {torch.matmul, operator.matmul, torch.bmm}
MATMUL_METHODS = {"matmul", "bmm", "__matmul__"}
SOFTMAX_FUNCS = {torch.nn.functional.softmax, torch.softmax, torch.Tensor.softmax}
DROPOUT_FUNCS = {torch.nn.functional.dropout, torch.dropout}
CAST_METHODS = {"to", "type", "type_as", "float", "half", "bfloat16", "double"}
ADD_FUNCS = {operator.add, operator.iadd, torch.add}
MUL_FUNCS = {operator.mul, operator.imul, torch.mul}
DIV_FUNCS = {operator.truediv, operator.itruediv, torch.div}
RESHAPES = ("view", "reshape", "flatten", "unflatten")
CONST_FUNCS = {torch.tensor, torch.sqrt, torch.rsqrt, math.sqrt, operator.mul, operator.truediv,
               operator.pow, operator.neg, torch.mul, torch.div}   # (for 0-d constant scales)
# the most a fill value may be for an additive mask of it to give eager's softmax: exp of it
# minus a kept score is 0 in every floating dtype
FILL_MAX = -1e4


class NoMatch(Exception):
    """The nodes are not an attention chain SDPA can replace exactly."""


# --------------------------------------------------------------------------- node tests

def _tensor(node) -> torch.Tensor:
    v = _meta(node)
    if not isinstance(v, torch.Tensor):
        raise NoMatch(f"{getattr(node, 'name', node)!r} has no tensor example value")
    return v


def _is_matmul(node) -> bool:
    return _is_call(node, MATMUL_FUNCS, MATMUL_METHODS) and len(node.args) == 2 \
        and not node.kwargs


def _baddbmm(node):
    """(bias, batch1, batch2, alpha) of a baddbmm with beta 1 and a constant alpha, or None."""
    if not _is_call(node, (torch.baddbmm,), ("baddbmm",)) or \
            len(node.args) > 3 or set(node.kwargs) - {"input", "batch1", "batch2", "beta", "alpha"}:
        return None
    a = {**dict(zip(("input", "batch1", "batch2"), node.args)), **node.kwargs}
    alpha, beta = _const(a.get("alpha", 1)), _const(a.get("beta", 1))
    if len(a) - ("alpha" in a) - ("beta" in a) != 3 or beta != 1.0 or alpha is None:
        return None
    return a["input"], a["batch1"], a["batch2"], alpha


def _is_view(node, x) -> bool:
    """node views or reshapes x (RESHAPES; the shapes are checked with the whole chain's)."""
    return _is_call(node, (torch.reshape, torch.flatten, torch.unflatten), RESHAPES) \
        and len(node.args) >= 2 and node.args[0] is x and not node.kwargs


def _const(x, depth=6):
    """x's value where it is a nonzero finite number or a 0-d tensor made of numbers only."""
    if _number(x):
        return float(x)
    if not isinstance(x, torch.fx.Node) or depth <= 0 or not (
            (x.op == "call_function" and x.target in CONST_FUNCS and set(x.kwargs) <= {"dtype"})
            or (x.op == "call_method" and x.target in ("to", "float", "double", "sqrt")
                and all(isinstance(a, torch.dtype) for a in (*x.args[1:], *x.kwargs.values())))):
        return None
    v = _meta(x)
    # (a tensor written in place after it is made, itself or through a view, is no constant)
    if isinstance(v, torch.Tensor) and v.dim() or any(_mutates(u) or (
            u.op == "call_method" and u.target in VIEWS and any(map(_mutates, u.users)))
            for u in x.users):
        return None
    vals = [_const(a, depth - 1) if isinstance(a, torch.fx.Node) else a for a in x.args]
    if None in vals:
        return None
    # (the inputs as the real tensors they are, of their dtype: their values round alike)
    vals = [torch.tensor(c, dtype=_meta(a).dtype) if isinstance(_meta(a), torch.Tensor) else c
            for a, c in zip(x.args, vals)]
    try:
        out = float(getattr(vals[0], x.target)(*vals[1:], **x.kwargs)
                    if x.op == "call_method" else x.target(*vals, **x.kwargs))
    except Exception:   # noqa: BLE001 - not a constant
        return None
    return out if _number(out) else None


def _is_call(node, funcs=(), methods=()) -> bool:
    if not isinstance(node, torch.fx.Node):
        return False
    return (node.op == "call_function" and node.target in funcs) or \
        (node.op == "call_method" and node.target in methods)


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x != 0


def _arg(node, i, name, default=None):
    if name in node.kwargs:
        return node.kwargs[name]
    return node.args[i] if i < len(node.args) else default


def _only_user(node, user) -> bool:
    """Whether `user` is node's one user, not counting type_as reading node's dtype."""
    others = [u for u in node.users
              if u is not user and not (u.op == "call_method" and u.target == "type_as"
                                        and len(u.args) == 2 and u.args[1] is node
                                        and u.args[0] is not node)]
    return user in node.users and not others


def _same_size(a, b) -> bool:
    """Equal sizes without guarding: ints by value, symbolic ones by expression."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, torch.SymInt) and isinstance(b, torch.SymInt):
        return a.node.expr == b.node.expr
    ea = a.node.expr if isinstance(a, torch.SymInt) else a
    eb = b.node.expr if isinstance(b, torch.SymInt) else b
    try:
        return bool(ea == eb)
    except TypeError:
        return False


def _broadcasts_to(shape, target) -> bool:
    """Whether a tensor of `shape` broadcasts to `target` without widening it."""
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if not (isinstance(s, int) and s == 1) and not _same_size(s, t):
            return False
    return True


class SizeScale:
    """A factor of 1 / sqrt(a size), the size symbolic (a graph with dynamic sizes): SDPA's
    default scale where the size is the query's last."""

    def __init__(self, expr):
        self.expr = expr


def _scale_of(node, x, sizes=False):
    """The constant factor node applies to x (node = x * c, c * x, x / c), or None; with
    `sizes`, a SizeScale for x * size ** -0.5 or x / sqrt(size)."""
    if _is_call(node, MUL_FUNCS, ("mul", "mul_")) and len(node.args) == 2 and not node.kwargs:
        a, b = node.args
        if a is x and _const(b) is not None:
            return _const(b)
        if b is x and _const(a) is not None and node.op == "call_function":
            return _const(a)
        c = b if a is x else a if node.op == "call_function" and b is x else None
        size = _sqrt_size(c, -0.5) if sizes else None
        return SizeScale(size) if size is not None else None
    if _is_call(node, DIV_FUNCS, ("div", "div_", "true_divide")) and len(node.args) == 2 \
            and node.args[0] is x and set(node.kwargs) <= {"rounding_mode"} \
            and node.kwargs.get("rounding_mode") is None:
        if _const(node.args[1]) is not None:
            return 1.0 / _const(node.args[1])
        size = _sqrt_size(node.args[1], 0.5) if sizes else None
        return SizeScale(size) if size is not None else None
    return None


def _sqrt_size(node, power):
    """The expression of size s where node computes s ** power (power +-0.5, through
    operator.pow or a square root), s a symbolic size; None otherwise."""
    if not isinstance(node, torch.fx.Node) or node.op != "call_function" or node.kwargs:
        return None
    if node.target is operator.pow and len(node.args) == 2 and node.args[1] == power:
        base = node.args[0]
    elif power == 0.5 and node.target in (torch._sym_sqrt, math.sqrt) and len(node.args) == 1:
        base = node.args[0]
    else:
        return None
    size = _meta(base) if isinstance(base, torch.fx.Node) else None
    return size.node.expr if isinstance(size, torch.SymInt) else None


def _is_cast(node, x) -> bool:
    """node converts x to another floating dtype (or keeps it), on x's device and shape."""
    if not _is_call(node, methods=CAST_METHODS) or not node.args or node.args[0] is not x:
        return False
    if node.target == "type_as":
        if len(node.args) != 2 or node.kwargs:
            return False
    elif node.target in ("to", "type"):
        rest = [*node.args[1:], *(v for k, v in node.kwargs.items() if k != "non_blocking")]
        if not rest or not all(isinstance(a, torch.dtype) for a in rest):
            return False
    elif len(node.args) > 1 or node.kwargs:
        return False
    src, out = _tensor(x), _tensor(node)
    return out.dtype.is_floating_point and out.device == src.device and out.shape == src.shape


def _is_identity(node, x) -> bool:
    """Dropout that does nothing (training False or p == 0), contiguous()."""
    if node.op == "call_method" and node.target == "contiguous" and node.args == (x,) \
            and not node.kwargs:
        return True
    if not _is_call(node, DROPOUT_FUNCS) or not node.args or node.args[0] is not x:
        return False
    if node.target is torch.dropout:
        p, training = _arg(node, 1, "p"), _arg(node, 2, "train")
    else:
        p, training = _arg(node, 1, "p", 0.5), _arg(node, 2, "training", True)
    if isinstance(p, torch.fx.Node) or isinstance(training, torch.fx.Node):
        return False
    return training is False or p == 0


def _softmax_dtype(node, x):
    """For a softmax of x over its last dim: (True, dtype kwarg or None); else (False, None)."""
    if not _is_call(node, SOFTMAX_FUNCS, ("softmax",)) or not node.args or node.args[0] is not x:
        return False, None
    functional = node.op == "call_function" and node.target is torch.nn.functional.softmax
    # F.softmax(input, dim, _stacklevel, dtype); torch.softmax / Tensor.softmax(input, dim, dtype)
    dim, dtype = _arg(node, 1, "dim"), _arg(node, 3 if functional else 2, "dtype")
    if set(node.kwargs) - {"dim", "dtype", "_stacklevel"} or not isinstance(dim, int) \
            or (dtype is not None and not isinstance(dtype, torch.dtype)):
        return False, None
    if functional and len(node.args) > 2 and not isinstance(node.args[2], int):
        return False, None
    return dim in (-1, _tensor(x).dim() - 1), dtype


# --------------------------------------------------------------------------- matching

def match_chain(mm2) -> dict:
    """The attention chain that ends in mm2 (probabilities @ v), as a dict of what _rewrite
    needs; raises NoMatch."""
    probs, v = mm2.args
    if not isinstance(probs, torch.fx.Node) or not isinstance(v, torch.fx.Node):
        raise NoMatch("operands are not graph values")
    chain, x, user = [mm2], probs, mm2
    # after the softmax: casts and no-op dropouts
    while True:
        if not _only_user(x, user):
            raise NoMatch(f"{x.name} has other users")
        inner = x.args[0] if x.args else None
        if isinstance(inner, torch.fx.Node) and (_is_cast(x, inner) or _is_identity(x, inner)
                                                 or _is_view(x, inner)):
            chain.append(x)
            x, user = inner, x
            continue
        break
    softmax = x
    if not softmax.args or not isinstance(softmax.args[0], torch.fx.Node):
        raise NoMatch("no softmax before the second matmul")
    ok, _ = _softmax_dtype(softmax, softmax.args[0])
    if not ok:
        raise NoMatch(f"{softmax.name} is not a softmax over the last dim")
    chain.append(softmax)
    # before the softmax, walking back to the first matmul: casts, scales, masks
    ops, x, user = [], softmax.args[0], softmax
    while True:
        if not _only_user(x, user):
            raise NoMatch(f"{x.name} has other users")
        if _is_matmul(x) or _baddbmm(x) is not None:
            break
        step = _pre_softmax_op(x)
        ops.append((*step, x))
        chain.append(x)
        x, user = step[1], x
    mm1 = x
    chain.append(mm1)
    scale, sized, mask_ops, seen_mask = 1.0, [], [], False
    if _baddbmm(mm1) is not None:   # alpha * (q @ kT) + bias
        bias, q, kt, scale = _baddbmm(mm1)
        ops.append(("add", None, bias, mm1))
    else:
        q, kt = mm1.args
    for kind, _, arg, at in reversed(ops):    # in graph order
        if kind == "scale":
            if seen_mask:
                raise NoMatch("a scale after a mask")
            if isinstance(arg, SizeScale):
                sized.append(arg.expr)
            else:
                scale *= arg
        elif kind in ("add", "fill"):
            seen_mask = True
            mask_ops.append((kind, arg, _tensor(at).shape))
    if not isinstance(q, torch.fx.Node) or not isinstance(kt, torch.fx.Node):
        raise NoMatch("first matmul's operands are not graph values")
    operands = [q, kt]
    (q, sq), (kt, sk) = _strip_scale(q), _strip_scale(kt)   # (DeBERTa: k^T / sqrt(d))
    scale *= sq * sk
    operands.append(kt)   # (erased with the chain where it was scaled)
    key, transposed = _untranspose(kt)
    if key is not None:
        operands.append(key)
        key, s = _strip_scale(key)
        scale *= s
    heads = _check_shapes(mm1, mm2, q, kt, v, chain)
    if sized:   # 1 / sqrt(a size): exactly SDPA's default scale, or no match
        head = _tensor(q).shape[-1]
        if len(sized) != 1 or scale != 1.0 or not isinstance(head, torch.SymInt) \
                or sized[0] != head.node.expr:
            raise NoMatch("a scale from sizes other than 1 / sqrt(head dim)")
        scale = None
    for kind, arg, scores in mask_ops:
        m = arg if kind == "add" else arg[0][1] if isinstance(arg[0], tuple) else arg[0]
        mv = _tensor(m)
        if kind == "add" and not mv.dtype.is_floating_point:
            raise NoMatch("an added mask that is not floating point")
        if kind == "fill" and mv.dtype != torch.bool:
            raise NoMatch("a fill from a mask that is not boolean")
        if not _broadcasts_to(tuple(mv.shape), tuple(scores)):
            raise NoMatch(f"mask {m.name} does not broadcast to the scores")
        # (at 5-D scores the rewrite expands the mask over (batch, windows) to merge them)
        lead = (*(1,) * (5 - mv.dim()), *mv.shape)[:2] if len(scores) == 5 else ()
        if not all(isinstance(n, int) or _same_size(s, n) for s, n in zip(lead, scores)):
            raise NoMatch(f"mask {m.name} to broadcast over a symbolic batch or windows count")
    return {"mm2": mm2, "q": q, "kt": kt, "key": key, "v": v, "scale": scale,
            "masks": mask_ops, "chain": chain, "operands": operands,
            "dtype": _tensor(q).dtype, "heads": heads}


def _pre_softmax_op(x, depth=8):
    """(kind, the chain's input, argument) for an op between the scores and the softmax:
    ("scale", in, factor), ("add", in, mask node), ("fill", in, (bool mask, value)),
    ("cast", in, None); raises NoMatch for anything else."""
    args = x.args
    for i in (0, 1):
        if len(args) == 2 and isinstance(args[i], torch.fx.Node):
            c = _scale_of(x, args[i], sizes=True)
            if c is not None:
                return "scale", args[i], c
    if _is_call(x, ADD_FUNCS, ("add", "add_", "__add__", "__radd__")) and len(args) == 2 \
            and not x.kwargs and all(isinstance(a, torch.fx.Node) for a in args):
        a, b = args
        # the scores are the operand that leads back to a matmul through chain ops; where
        # both do (a bias computed with a matmul), neither is taken
        ra, rb = _reaches_matmul(a, depth), _reaches_matmul(b, depth)
        if ra and not rb:
            return "add", a, b
        if rb and not ra and x.op == "call_function" and x.target is not operator.iadd:
            return "add", b, a
        raise NoMatch(f"{x.name}: cannot tell the scores from the mask")
    if _is_call(x, (torch.masked_fill,), ("masked_fill",)) and len(args) == 3 and not x.kwargs \
            and isinstance(args[1], torch.fx.Node) and _fill_value(args[2]):
        return "fill", args[0], (args[1], float(args[2]))
    if _is_call(x, (torch.where,)) and len(args) == 3 and not x.kwargs \
            and isinstance(args[0], torch.fx.Node) and isinstance(args[1], torch.fx.Node) \
            and _fill_value(args[2]):
        # where(keep, scores, value): a fill where keep is False
        return "fill", args[1], (("not", args[0]), float(args[2]))
    if args and isinstance(args[0], torch.fx.Node) and any(
            f(x, args[0]) for f in (_is_cast, _is_identity, _is_view)):   # (no-ops here)
        return "cast", args[0], None
    raise NoMatch(f"{x.name} ({x.target}) is not a scale, mask or cast")


def _fill_value(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v <= FILL_MAX


def _reaches_matmul(node, depth=8) -> bool:
    """Whether node is computed from a matmul through single-user pre-softmax ops (the
    scores, not a mask)."""
    if not isinstance(node, torch.fx.Node):
        return False
    if _is_matmul(node) or _baddbmm(node) is not None:
        return True
    if depth <= 0 or len(node.users) != 1:
        return False
    try:
        return _reaches_matmul(_pre_softmax_op(node, depth - 1)[1], depth - 1)
    except NoMatch:
        return False


INPLACE_SCALES = {operator.imul, operator.itruediv, "mul_", "div_"}


def _strip_scale(node):
    """(x, c) for node = x * c (or x / 1/c) with a constant c; (node, 1.0) otherwise. Never
    through an in-place op: x's other users would lose its scaling."""
    if len(node.args) == 2 and not node.kwargs and node.target not in INPLACE_SCALES:
        for x in node.args:
            if isinstance(x, torch.fx.Node):
                c = _scale_of(node, x)
                if c is not None and _tensor(x).dtype == _tensor(node).dtype \
                        and tuple(_tensor(x).shape) == tuple(_tensor(node).shape):
                    return x, c
    return node, 1.0


def _untranspose(kt):
    """(k, True) where kt is k with its last two dims swapped; (None, False) otherwise."""
    if not kt.args or not isinstance(kt.args[0], torch.fx.Node):
        return None, False
    k, nd = kt.args[0], _tensor(kt).dim()
    last = {(-1, -2), (-2, -1), (nd - 1, nd - 2), (nd - 2, nd - 1),
            (-1, nd - 2), (nd - 2, -1), (-2, nd - 1), (nd - 1, -2)}
    if _is_call(kt, (torch.transpose,), ("transpose",)) and len(kt.args) == 3 \
            and not kt.kwargs and tuple(kt.args[1:]) in last:
        return k, True
    if _is_call(kt, (torch.permute,), ("permute",)) and not kt.kwargs:
        dims = kt.args[1] if len(kt.args) == 2 and isinstance(kt.args[1], (list, tuple)) \
            else kt.args[1:]
        dims = [d % nd if isinstance(d, int) else None for d in dims]
        if dims == [*range(nd - 2), nd - 1, nd - 2]:
            return k, True
    if kt.op == "call_function" and kt.target is getattr and kt.args[1:] == ("mT",):
        return k, True
    return None, False


def _check_shapes(mm1, mm2, q, kt, v, chain):
    """The heads count of the 4-D tensors (None if none): NoMatch unless q, k^T, v and the
    chain's are 3-D or 4-D with the same (batch, heads) or their product first, the chain's
    with the scores' last two sizes (so its views split or merge only the first dims). The
    chain may also view the 4-D scores as 5-D (batch, windows, heads, n, n) (Swin's shifted
    windows): the batch split in two, the heads kept."""
    qv, ktv, vv, out = _tensor(q), _tensor(kt), _tensor(v), _tensor(mm2)
    vals = [qv, ktv, vv, *map(_tensor, chain)]
    if any(t.dim() not in (3, 4) for t in vals[:3]) or any(t.dim() not in (3, 4, 5) for t in vals):
        raise NoMatch(f"q, k^T, v of {qv.dim()}, {ktv.dim()}, {vv.dim()} dims or chain views")
    four, five = ([t for t in vals if t.dim() == d] for d in (4, 5))
    heads = four[0].shape[1] if four else None
    if five and heads is None:
        raise NoMatch("5-D scores with no 4-D tensor to say the heads count")
    # (a 5-D view's third size is the heads count: its (b, w, h) is the 4-D (b * windows + w, h))
    lead = [t.shape[0] * t.shape[1] * (t.shape[2] if t.dim() == 5 else 1) if t.dim() > 3
            else t.shape[0] for t in vals]
    pairs = [*((lead[0], n) for n in lead[1:]), *((heads, t.shape[1]) for t in four),
             *((heads, t.shape[2]) for t in five),
             (qv.shape[-1], ktv.shape[-2]), (ktv.shape[-1], vv.shape[-2])]
    pairs += [p for t in vals[3:] if t is not out
              for p in zip(t.shape[-2:], (qv.shape[-2], ktv.shape[-1]))]
    if not all(_same_size(a, b) for a, b in pairs):
        raise NoMatch("q, k, v and the scores do not have matching sizes")
    if four and len(four) < len(vals) and not isinstance(heads, int):
        raise NoMatch("3-D tensors to split by a symbolic heads count")
    dts = {qv.dtype, ktv.dtype, vv.dtype, out.dtype}
    if len(dts) != 1 or not qv.dtype.is_floating_point:
        raise NoMatch(f"dtypes {sorted(map(str, dts))}")
    if any(t.device != qv.device for t in (ktv, vv)):
        raise NoMatch("q, k and v on different devices")
    for node in chain:
        if not _tensor(node).dtype.is_floating_point:
            raise NoMatch(f"{node.name} is not floating point")
    return heads


# ops whose result may share its first argument's storage (a write to one is seen by the
# other), named without underscores (squeeze_, __getitem__ too); followed up to the tensor viewed
VIEWS = {"view", "reshape", "transpose", "permute", "expand", "expand_as", "view_as",
         "unsqueeze", "squeeze", "flatten", "unflatten", "getitem", "split", "chunk",
         "unbind", "narrow", "select", "t", "as_strided", "contiguous", "detach", "movedim",
         "swapaxes", "swapdims", "diagonal", "unfold", "split_with_sizes", "tensor_split",
         "to", "type", "type_as", "float", "half", "bfloat16", "double", "alias", "real",
         "imag", "view_as_real", "view_as_complex", "broadcast_to", "moveaxis", "getattr"}


def _base(node):
    """The node whose storage `node` may view: followed up through VIEWS."""
    while isinstance(node, torch.fx.Node) and node.op in ("call_function", "call_method") \
            and node.args and isinstance(node.args[0], torch.fx.Node):
        name = node.target if isinstance(node.target, str) else \
            getattr(node.target, "__name__", "")
        # (an in-place op returns the tensor it wrote)
        if name.strip("_") not in VIEWS and not _mutates(node):
            break
        node = node.args[0]
    return node


def check_no_writes(m, order, writes):
    """Raises NoMatch where a node between the chain's first node and its last, outside the
    chain, writes a tensor in place that SDPA reads: it reads q, k, v and the mask where the
    last matmul was, and q or k without their scale, so a write in between to them (or to a
    view of their storage) would be seen where eager read them before it. Writes to other
    tensors (T5 builds its position buckets with +=) are fine."""
    nodes, chain = [*m["chain"], *m["operands"]], set(m["chain"])
    first, last = min(order[n] for n in nodes), order[m["mm2"]]
    read = [m["q"], m["kt"], m["key"], m["v"], *m["operands"]]
    for kind, arg, _ in m["masks"]:
        read.append(arg if kind == "add" else arg[0][1] if isinstance(arg[0], tuple) else arg[0])
    # each storage SDPA reads -> where the chain first read it
    involved, first_read = {*nodes}, {}
    for t in read:
        if isinstance(t, torch.fx.Node):
            uses = [order[u] for u in t.users if u in involved and u in order]
            if t in m["operands"]:   # (SDPA skips a stripped scale: no write after it either)
                uses.append(order[t])
            if uses:
                b = _base(t)
                first_read[b] = min(first_read.get(b, last), *uses)
    for node in writes:   # (the graph's in-place ops, `writes`, as of `order`)
        # (the chain's own in-place ops, `scores += bias`, write only its intermediates)
        if getattr(node, "_erased", False) or not first < order[node] < last or node in chain:
            continue
        target = node.args[0] if node.args else None
        if "out" in node.kwargs or not isinstance(target, torch.fx.Node) or \
                first_read.get(_base(target), last) < order[node]:
            raise NoMatch(f"{node.name} writes a tensor in place that SDPA reads")
