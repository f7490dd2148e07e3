"""Decode attention over grouped KV heads read where they are (issue 48).

Hugging Face's decoders with grouped-query attention (LLaMA-style: 16 query heads over 4 KV
heads) repeat each KV head for its query heads before calling SDPA whenever a mask is passed
(the static cache always passes one):

    key = cache[:, :, None, :, :].expand(b, kv_heads, n_rep, s, d).reshape(b, kv_heads * n_rep, s, d)
    scaled_dot_product_attention(q, key, value, attn_mask=mask, scale=...)

The reshape of the expanded cache is a copy of the whole cache, every layer and every step:
at batch 32 with 256 cache rows the two copies took 105 us of a 598 us step, SDPA itself 101
(docs/PERFORMANCE.md, stop 69). `rewrite_gqa_decode(gm)` finds that chain in dynamo's graph
where the query is one token (a decode step) and no gradient is taken, and calls
`tuner::gqa_decode(q, cache_k, cache_v, mask, scale)` instead: split-KV attention (each
program takes one KV head and all its query heads over a slice of the cache, a second kernel
merges the slices' softmax partials), reading each cache row once.

Whether a call is rewritten is the decode-attention autotuning point's answer
(tuner/points/decode_attention.py: TUNER_GQA_DECODE forcing one, the cache, in max-autotune on
CUDA both timed by `decode_attention_timer`, else the rule: the kernel on CUDA where CUDA graphs
replay the step, where it ran a LLaMA-style decode step 1.10-1.34x faster than stock at batch
1-32, SDPA elsewhere: launched one by one, the op's host time cost more than the copy). The kernel
is checked against eager on CPU (interpreter); a launch that fails (resources of another GPU)
warns once and runs SDPA over the repeated heads instead.
"""
from __future__ import annotations

import contextlib
import logging
import math
import operator
import os
import sys

import torch
import torch.fx
import triton
import triton.language as tl

from .fold import _meta_or_none as _val   # (a node's example value, or None)
from .runtime import direct_launch

log = logging.getLogger("tuner.compiler")

BLOCK_S = 64            # cache rows per step of a program
TARGET_PROGRAMS = 264   # split the cache until the first kernel has about this many programs
MAX_SPLITS = 64         # slices of one row the merge holds at once (more would spill)
MAX_HEAD_DIM = 256      # the largest head size the rewrite hands the kernel


@triton.jit
def _partial(Q, K, V, M, ACC, ML, scale, S, HKV, NREP, SPLIT, NSP,
             sqb, sqh, sqd, skb, skh, sks, skd, svb, svh, svs, svd, smb, smh, sms,
             D: tl.constexpr, G: tl.constexpr, DP: tl.constexpr, BS: tl.constexpr,
             HAS_MASK: tl.constexpr, BOOL_MASK: tl.constexpr, UPCAST: tl.constexpr):
    """One KV head's query heads (G rows, NREP of them real) over cache rows
    [sp * SPLIT, (sp + 1) * SPLIT): the unnormalized output, the running max and sum.
    UPCAST: both products in float32 (Triton's interpreter multiplies bfloat16 wrongly)."""
    bh = tl.program_id(0)
    sp = tl.program_id(1)
    b = (bh // HKV).to(tl.int64)   # (a cache of 2**31 elements or more: 64-bit offsets)
    h = bh % HKV
    g = tl.arange(0, G)
    d = tl.arange(0, DP)
    gm = g < NREP
    dm = d < D
    hq = h * NREP + g
    q = tl.load(Q + b * sqb + hq[:, None] * sqh + d[None, :] * sqd, mask=gm[:, None] & dm[None, :], other=0.0)
    m_i = tl.full([G], float("-inf"), tl.float32)
    l_i = tl.zeros([G], tl.float32)
    acc = tl.zeros([G, DP], tl.float32)
    start = sp * SPLIT
    for s0 in range(0, SPLIT, BS):
        s = start + s0 + tl.arange(0, BS)
        sm = (s < S) & (s0 + tl.arange(0, BS) < SPLIT)
        k = tl.load(K + b * skb + h * skh + s[:, None] * sks + d[None, :] * skd, mask=sm[:, None] & dm[None, :],
                    other=0.0)
        if UPCAST:
            qk = tl.dot(q.to(tl.float32), tl.trans(k.to(tl.float32))) * scale
        else:
            qk = tl.dot(q, tl.trans(k)) * scale
        valid = gm[:, None] & sm[None, :]
        if HAS_MASK:
            mv = tl.load(M + b * smb + hq[:, None] * smh + s[None, :] * sms, mask=valid, other=0)
            if BOOL_MASK:
                valid = valid & (mv != 0)
            else:
                qk = qk + mv.to(tl.float32)
        qk = tl.where(valid, qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        m_use = tl.where(m_new == float("-inf"), 0.0, m_new)   # (a row masked so far: no NaN)
        alpha = tl.exp(m_i - m_use)
        p = tl.exp(qk - m_use[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + b * svb + h * svh + s[:, None] * svs + d[None, :] * svd, mask=sm[:, None] & dm[None, :],
                    other=0.0)
        if UPCAST:
            acc = acc * alpha[:, None] + tl.dot(p, v.to(tl.float32))
        else:
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    row = b * HKV * NREP + hq
    tl.store(ACC + (row[:, None] * NSP + sp) * DP + d[None, :], acc, mask=gm[:, None])
    tl.store(ML + (row * NSP + sp) * 2, m_i, mask=gm)
    tl.store(ML + (row * NSP + sp) * 2 + 1, l_i, mask=gm)


@triton.jit
def _combine(ACC, ML, OUT, NSP, HQ, sob, soh, sod,
             D: tl.constexpr, DP: tl.constexpr, NSPP: tl.constexpr):
    """One query head's output from its slices' partials (a fully masked row: 0, as eager's
    SDPA gives)."""
    row = tl.program_id(0).to(tl.int64)
    sp = tl.arange(0, NSPP)
    d = tl.arange(0, DP)
    spm = sp < NSP
    m = tl.load(ML + (row * NSP + sp) * 2, mask=spm, other=float("-inf"))
    l_ = tl.load(ML + (row * NSP + sp) * 2 + 1, mask=spm, other=0.0)
    top = tl.max(m, 0)
    w = tl.exp(m - tl.where(top == float("-inf"), 0.0, top))
    acc = tl.load(ACC + (row * NSP + sp[:, None]) * DP + d[None, :], mask=spm[:, None], other=0.0)
    total = tl.sum(l_ * w, 0)
    o = tl.where(total > 0, tl.sum(acc * w[:, None], 0) / tl.where(total > 0, total, 1.0), 0.0)
    b = row // HQ
    h = row % HQ
    tl.store(OUT + b * sob + h * soh + d * sod, o.to(OUT.dtype.element_ty), mask=d < D)


def _pow2(n: int) -> int:
    return 1 << max(0, (int(n) - 1).bit_length())


@torch.library.custom_op("tuner::gqa_decode", mutates_args=())
def gqa_decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None,
               scale: float) -> torch.Tensor:
    """SDPA of one query token per head (q: (b, heads, 1, d)) over grouped KV heads (k, v:
    (b, kv_heads, s, d)), each KV head serving heads // kv_heads consecutive query heads; mask
    boolean (True: attend) or additive, broadcastable to (b, heads, 1, s)."""
    B, HQ, _, D = q.shape
    out = torch.empty((B, HQ, 1, D), dtype=q.dtype, device=q.device)
    if B == 0 or HQ == 0:
        return out
    try:
        _launch(q, k, v, mask, scale, out)
    except Exception as e:   # noqa: BLE001 - a kernel that cannot run here: what the model wrote
        from .stats import warn_once
        warn_once(("gqa_decode", type(e).__name__), f"tuner: tuner::gqa_decode failed ({type(e).__name__}: "
                  f"{str(e)[:200]}); SDPA over the repeated heads runs instead")
        return _sdpa(q, k, v, mask, scale)
    return out


def _sdpa(q, k, v, mask, scale):
    """The call as the model wrote it: SDPA over each KV head repeated for its query heads."""
    n = q.shape[1] // k.shape[1]
    return torch.nn.functional.scaled_dot_product_attention(
        q, k.repeat_interleave(n, dim=1), v.repeat_interleave(n, dim=1), attn_mask=mask, scale=scale)


def _launch(q, k, v, mask, scale, out):
    B, HQ, _, D = q.shape
    HKV, S = k.shape[1], k.shape[2]
    nrep = HQ // HKV
    blocks = max(1, triton.cdiv(S, BLOCK_S))
    nsp = max(1, min(blocks, MAX_SPLITS, triton.cdiv(TARGET_PROGRAMS, B * HKV)))
    split = triton.cdiv(blocks, nsp) * BLOCK_S
    nsp = max(1, triton.cdiv(S, split))
    DP = max(16, _pow2(D))
    acc = torch.empty((B * HQ * nsp * DP,), dtype=torch.float32, device=q.device)
    ml = torch.empty((B * HQ * nsp * 2,), dtype=torch.float32, device=q.device)
    if mask is not None:
        m = mask.broadcast_to((B, HQ, 1, S))
        mk, strides = m, (m.stride(0), m.stride(1), m.stride(3))
    else:
        mk, strides = q, (0, 0, 0)
    _run(_partial, (B * HKV, nsp), (
        q, k, v, mk, acc, ml, float(scale), S, HKV, nrep, split, nsp,
        q.stride(0), q.stride(1), q.stride(3), k.stride(0), k.stride(1), k.stride(2), k.stride(3),
        v.stride(0), v.stride(1), v.stride(2), v.stride(3), *strides),
        dict(D=D, G=max(16, _pow2(nrep)), DP=DP, BS=BLOCK_S, HAS_MASK=mask is not None,
             BOOL_MASK=mask is not None and mask.dtype == torch.bool,
             UPCAST=q.dtype == torch.bfloat16 and os.environ.get("TRITON_INTERPRET") == "1"))
    _run(_combine, (B * HQ, 1), (acc, ml, out, nsp, HQ, out.stride(0), out.stride(1), out.stride(3)),
         dict(D=D, DP=DP, NSPP=max(2, _pow2(nsp))))


_COMPILED: dict = {}   # (kernel, device, what Triton specializes on) -> compiled kernel
DIRECT_LAUNCHES = 0    # launches that skipped JITFunction.run (a test reads it)
_DIRECT = None         # whether compiled kernels can be launched directly (read once)
_STREAM = None         # device index -> raw CUDA stream (read once)


def _spec(a, value):
    """What Triton specializes a kernel argument on (`value`: a tensor's data pointer, else the
    argument): a tensor's dtype and 16-byte alignment, an integer's width and whether it is 1 or
    a multiple of 16 (a key at least as fine as its)."""
    if isinstance(a, torch.Tensor):
        return a.dtype, value % 16 == 0
    if isinstance(a, bool) or not isinstance(a, int):
        return type(a)
    return -2 ** 31 <= a < 2 ** 31, a == 1, a % 16 == 0


def _run(fn, grid, args, consts):
    """fn[grid](*args, **consts), 4 warps: through JITFunction.run the first time per key of
    what Triton specializes on, straight through the compiled kernel's launcher after (binding
    and specializing 26 arguments per launch cost more host time than the decode step's GPU
    work in default mode, where no CUDA graph replays the step)."""
    global DIRECT_LAUNCHES, _DIRECT, _STREAM
    dev = args[0].device
    values = [a.data_ptr() if isinstance(a, torch.Tensor) else a for a in args]
    # (Triton keeps compiled kernels per device: a model spread over GPUs launches each its own)
    key = (fn, dev.index, tuple(map(_spec, args, values)), tuple(consts.values()))
    k = _COMPILED.get(key)
    if k is not None and direct_launch.hooks_unset():
        DIRECT_LAUNCHES += 1
        k.run(grid[0], grid[1], 1, _STREAM(dev.index), k.function, k.packed_metadata,
              None, None, None, *values, *consts.values())
        return
    with torch.cuda.device(dev) if dev.type == "cuda" else contextlib.nullcontext():
        k = fn[grid](*args, **consts, num_warps=4)
    if _DIRECT is None:
        _DIRECT = direct_launch._fast_launch_supported()
        _STREAM = direct_launch._stream_getter() if _DIRECT else None
    if _DIRECT and hasattr(k, "packed_metadata") and direct_launch.hooks_unset():
        k._init_handles()
        _COMPILED[key] = k


@gqa_decode.register_fake
def _(q, k, v, mask, scale):
    return q.new_empty((q.shape[0], q.shape[1], 1, q.shape[3]))


# -- the rewrite of dynamo's graph ---------------------------------------------------------

_SDPA = {torch.nn.functional.scaled_dot_product_attention, torch._C._nn.scaled_dot_product_attention}
_NEW_DIM = (slice(None), slice(None), None, slice(None), slice(None))


def _repeated(node):
    """(cache node, n_rep) where node is `cache[:, :, None].expand(b, h, n, s, d).reshape(b, h * n,
    s, d)` of a 4-D cache, else None."""
    if not (isinstance(node, torch.fx.Node) and node.op == "call_method" and node.target == "reshape"):
        return None
    ex = node.args[0]
    if not (isinstance(ex, torch.fx.Node) and ex.op == "call_method" and ex.target == "expand"):
        return None
    ins = ex.args[0]
    if not (isinstance(ins, torch.fx.Node) and ins.op == "call_function" and ins.target is operator.getitem
            and ins.args[1] == _NEW_DIM and isinstance(ins.args[0], torch.fx.Node)):
        return None
    cache, e, r = _val(ins.args[0]), _val(ex), _val(node)
    if not all(isinstance(t, torch.Tensor) for t in (cache, e, r)) or cache.dim() != 4 or e.dim() != 5:
        return None
    b, h, s, d = cache.shape
    if tuple(e.shape) != (b, h, e.shape[2], s, d) or tuple(r.shape) != (b, h * e.shape[2], s, d):
        return None
    return ins.args[0], e.shape[2]


def _known(cond) -> bool:
    """Whether a size condition holds for every size (never a guard; False where unknown)."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true
    return bool(statically_known_true(cond))


def _arg(node, i, name, default=None):
    return node.args[i] if len(node.args) > i else node.kwargs.get(name, default)


def decode_attention_timer(problem):
    """choice -> ms of one call of `problem`'s shapes on fresh random CUDA tensors: "sdpa" as
    the model runs it (the repeat copies included), "gqa" as tuner::gqa_decode; None off CUDA."""
    if problem.device != "cuda" or not torch.cuda.is_available():
        return None
    from tuner.bench import benchmark, real_tensors
    b, h, kvh, s, d = problem.batch, problem.heads, problem.kv_heads, problem.cache_len, problem.head_dim
    dt, dev = getattr(torch, problem.dtype), torch.device("cuda")
    with real_tensors(), torch.random.fork_rng(devices=[dev]):
        q = torch.randn(b, h, 1, d, device=dev, dtype=dt)
        k, v = (torch.randn(b, kvh, s, d, device=dev, dtype=dt) for _ in range(2))
        mask = {"none": None, "bool": torch.rand(b, 1, 1, s, device=dev) > 0.1,
                "additive": torch.zeros(b, 1, 1, s, device=dev, dtype=dt)}[problem.mask]
    scale = 1.0 / math.sqrt(d)
    runs = {"sdpa": lambda: _sdpa(q, k, v, mask, scale),
            "gqa": lambda: torch.ops.tuner.gqa_decode(q, k, v, mask, scale)}

    def measure(choice: str) -> float:
        with torch.no_grad():
            return benchmark(runs[choice], device="cuda")
    return measure


def rewrite_gqa_decode(gm: torch.fx.GraphModule, choose, replayed: bool = True) -> list[tuple[str, str, str]]:
    """Replaces gm's one-token SDPA calls over repeated KV heads with tuner::gqa_decode in
    place where `choose(problem)` (the decode-attention point) answers "gqa"; returns each
    candidate call's (signature, choice, source). `replayed`: CUDA graphs will replay the
    graph. Call only for inference graphs (the op has no backward)."""
    from tuner.points.decode_attention import DecodeAttentionProblem
    done, seen = 0, []
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target not in _SDPA or len(node.args) < 3:
            continue
        q, k, v = node.args[:3]
        mask = _arg(node, 3, "attn_mask")
        scale = _arg(node, 6, "scale")
        if _arg(node, 4, "dropout_p", 0.0) != 0.0 or _arg(node, 5, "is_causal", False) \
                or _arg(node, 7, "enable_gqa", False):
            continue
        rk, rv = _repeated(k), _repeated(v)
        qv = _val(q)
        if rk is None or rv is None or rk[1] != rv[1] or not isinstance(qv, torch.Tensor) or qv.dim() != 4:
            continue
        kc, vc = _val(rk[0]), _val(rv[0])
        if qv.dtype not in (torch.float16, torch.bfloat16) or kc.dtype != qv.dtype or vc.dtype != qv.dtype \
                or not isinstance(qv.shape[2], int) or qv.shape[2] != 1 or kc.shape != vc.shape \
                or qv.shape[3] != kc.shape[3] or qv.device != kc.device or not isinstance(qv.shape[3], int) \
                or qv.shape[3] > MAX_HEAD_DIM:
            continue
        # q's batch and heads those of the repeated cache (SDPA would broadcast a batch of 1)
        full = (qv.shape[0], qv.shape[1], 1, kc.shape[2])
        if not (_known(qv.shape[0] == kc.shape[0]) and _known(qv.shape[1] == kc.shape[1] * rk[1])):
            continue
        mv = _val(mask) if mask is not None else None
        if mask is not None and not (isinstance(mv, torch.Tensor) and (mv.dtype == torch.bool or mv.dtype == qv.dtype)
                                     and mv.dim() <= 4 and all(_known(m == 1) or _known(m == f) for m, f in
                                                               zip(reversed(mv.shape), reversed(full)))):
            continue
        if scale is None:
            scale = 1.0 / math.sqrt(qv.shape[3])
        if not isinstance(scale, (int, float)):
            continue
        problem = DecodeAttentionProblem(
            qv.shape[0], qv.shape[1], kc.shape[1], kc.shape[2], qv.shape[3], str(qv.dtype).removeprefix("torch."),
            "none" if mask is None else "bool" if mv.dtype == torch.bool else "additive", qv.device.type,
            replayed)
        answer = choose(problem)
        seen.append((problem.signature(), answer.choice, answer.source))
        if answer.choice != "gqa":
            continue
        with gm.graph.inserting_before(node):
            new = gm.graph.call_function(torch.ops.tuner.gqa_decode.default,
                                         (q, rk[0], rv[0], mask, float(scale)))
        new.meta = dict(node.meta)
        node.replace_all_uses_with(new)
        gm.graph.erase_node(node)
        for chain in dict.fromkeys((k, v)):   # reshape, expand, getitem: where nothing else reads them
            for n in (chain, chain.args[0], chain.args[0].args[0]):
                if not n.users:
                    gm.graph.erase_node(n)
        done += 1
    if done:
        gm.graph.lint()
        gm.recompile()
    return seen


def note_rewrites(seen) -> None:
    """Counts the calls rewritten in the compile stats (attention_patterns["gqa_decode"]);
    TUNER_LOGS=decisions prints each candidate call's answer."""
    from tuner.settings import settings

    from . import stats
    rewritten = sum(choice == "gqa" for _, choice, _ in seen)
    if rewritten:   # (no zero entry: stats are compared with plain dicts)
        stats.attention_patterns["gqa_decode"] += rewritten
    if "decisions" in settings.logs:
        for signature, choice, source in seen:
            print(f"tuner: decode attention {signature}: {choice} ({source})", file=sys.stderr, flush=True)
