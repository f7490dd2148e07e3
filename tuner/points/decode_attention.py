"""The decode-attention autotuning point: a one-token attention over grouped KV heads, run as
the model wrote it ("sdpa": the KV heads repeated for their query heads, a copy of the cache,
then SDPA) or by `tuner::gqa_decode` reading the grouped heads in place ("gqa";
compiler/gqa_decode.py).

The answer comes, in order, from the TUNER_GQA_DECODE setting when it forces one ("sdpa" or
"gqa"), the cache (an answer stored under the problem's signature, read through the engine's
`plan`, which measures nothing), then, in max-autotune on CUDA (the caller passes a `timer`),
both choices timed on random tensors of the call's shapes through the engine's `decide`, which
stores the faster, and otherwise the rule: "sdpa", what the model wrote, until GPU data says
where the kernel wins. A call with symbolic sizes has no signature to store: forced or rule.
No learned heuristic exists for the point.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Callable, Optional

log = logging.getLogger("tuner.points.decode_attention")

NAMESPACE = "decode_attention"
# "sdpa" first: the engine treats candidates[0] as the default it reports speedups against
CANDIDATES = ("sdpa", "gqa")
MODES = ("auto",) + CANDIDATES


@dataclass(frozen=True)
class DecodeAttentionProblem:
    """One decode attention call: q (batch, heads, 1, head_dim) over a cache (batch, kv_heads,
    cache_len, head_dim); mask "none", "bool" or "additive"; device "cuda" or "cpu"."""
    batch: int
    heads: int
    kv_heads: int
    cache_len: int
    head_dim: int
    dtype: str
    mask: str
    device: str

    def concrete(self) -> bool:
        return all(isinstance(v, int) for v in (self.batch, self.heads, self.kv_heads, self.cache_len,
                                                 self.head_dim))

    def signature(self) -> str:
        return (f"{self.device}/{self.dtype}/b{self.batch}h{self.heads}kv{self.kv_heads}"
                f"s{self.cache_len}d{self.head_dim}/{self.mask}")


@dataclass(frozen=True)
class DecodeAttentionAnswer:
    """The choice and what gave it: "forced", "cache", "measured" or "rule"."""
    choice: str
    source: str


def rule(problem: DecodeAttentionProblem) -> str:
    """The default answer: the model's own SDPA call (not yet measured where the kernel wins)."""
    return "sdpa"


def check_mode(mode) -> str:
    """The mode given (None: "auto"); ValueError naming the valid ones otherwise."""
    mode = "auto" if mode is None else mode
    if mode not in MODES:
        raise ValueError(f"decode attention {mode!r}; expected one of {', '.join(MODES)}")
    return mode


# returns choice -> ms for the problem, or None when it cannot be timed here
Timer = Callable[[DecodeAttentionProblem], Optional[Callable[[str], float]]]


def decode_attention_decision(problem: DecodeAttentionProblem, mode: str = "auto",
                              timer: Timer | None = None) -> DecodeAttentionAnswer:
    """"sdpa" or "gqa" for one call: `mode` when it forces one, else a cached answer, else,
    with a `timer` (max-autotune on CUDA), both measured and the faster stored, else the rule."""
    mode = check_mode(mode)
    if mode != "auto":
        return DecodeAttentionAnswer(mode, "forced")
    if not problem.concrete():
        return DecodeAttentionAnswer(rule(problem), "rule")
    try:
        from tuner.engine import plan
        found = plan(NAMESPACE, problem.signature(), list(CANDIDATES)).decision
    except Exception:   # noqa: BLE001 - a cache that fails is a miss: the rule answers
        found = None
    if found is not None and found.source != "exhaustive" and found.choice in CANDIDATES:
        return DecodeAttentionAnswer(found.choice, found.source)
    if timer is not None:
        try:
            measure = timer(problem)
            if measure is not None:
                from tuner.engine import decide
                d = decide(NAMESPACE, problem.signature(), list(CANDIDATES), measure)
                if d.choice in CANDIDATES and d.time_ms is not None and math.isfinite(d.time_ms):
                    return DecodeAttentionAnswer(d.choice, "cache" if d.source == "cache" else "measured")
        except Exception as e:   # noqa: BLE001 - a measurement that fails leaves it to the rule
            log.debug("decode attention measurement failed: %s", e)
    return DecodeAttentionAnswer(rule(problem), "rule")
