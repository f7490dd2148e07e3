"""The decode-attention autotuning point: a one-token attention over grouped KV heads, run as
the model wrote it ("sdpa": the KV heads repeated for their query heads, a copy of the cache,
then SDPA) or by `tuner::gqa_decode` reading the grouped heads in place ("gqa";
compiler/gqa_decode.py).

The answer comes, in order, from the TUNER_GQA_DECODE setting when it forces one ("sdpa" or
"gqa"), the cache (an answer stored under the problem's signature, read through the engine's
`plan`, which measures nothing), then, in max-autotune on CUDA (the caller passes a `timer`),
both choices timed on random tensors of the call's shapes through the engine's `decide`, which
stores the faster (only where CUDA graphs replay the step), and otherwise the rule: the kernel
on CUDA under CUDA graphs, where it was faster at every batch measured, SDPA elsewhere (without
CUDA graphs the op's host time made the step slower). A call with symbolic sizes has no signature to store: forced or rule.
No learned heuristic exists for the point.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from tuner.points import answers

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
    # the step replays under CUDA graphs (reduce-overhead, max-autotune); False: every launch
    # pays its host time, and the kernel's op call and two launches cost more than the copy
    replayed: bool = True

    def concrete(self) -> bool:
        return all(isinstance(v, int) for v in (self.batch, self.heads, self.kv_heads, self.cache_len,
                                                 self.head_dim))

    def signature(self) -> str:
        return (f"{self.device}/{self.dtype}/b{self.batch}h{self.heads}kv{self.kv_heads}"
                f"s{self.cache_len}d{self.head_dim}/{self.mask}" + ("" if self.replayed else "/direct"))


@dataclass(frozen=True)
class DecodeAttentionAnswer:
    """The choice and what gave it: "forced", "cache", "measured" or "rule"."""
    choice: str
    source: str


def rule(problem: DecodeAttentionProblem) -> str:
    """The default answer: "gqa" on CUDA where CUDA graphs replay the step, "sdpa" elsewhere
    (the kernel is Triton's; on a CPU only the interpreter runs it). Measured (H200, bf16, a
    LLaMA-style decoder's step, 16 query heads over 4 KV heads, head size 64, 192 cache rows):
    under CUDA graphs GPU time per step 474 -> 430 us at batch 1, 462 -> 394 at 8, 598 -> 430
    at 32, SDPA after the repeat copy vs the kernel (bench/results/decode/gqa_decode_b1_b8_b32_
    20261130-0854_s71.json); without, where each launch's host time counts, the kernel's step
    took 2.32 / 2.54 ms at batch 1 / 8 against SDPA's 1.89 / 1.93 (decode/
    llama_decode_default_gqa_sdpa_20261130-2007_s74.json)."""
    return "gqa" if problem.device == "cuda" and problem.replayed else "sdpa"


def check_mode(mode) -> str:
    """The mode given (None: "auto"); ValueError naming the valid ones otherwise."""
    return answers.check_mode(mode, MODES, "decode attention")


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
    # (GPU time decides only where CUDA graphs replay the step: a direct launch's host time
    # is not in it)
    measure = None if timer is None or not problem.replayed else lambda: timer(problem)
    found = answers.stored_or_measured(NAMESPACE, problem.signature(), CANDIDATES, measure)
    return DecodeAttentionAnswer(*found) if found is not None else DecodeAttentionAnswer(rule(problem), "rule")
