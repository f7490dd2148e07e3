"""pad_mm problem generator and measurement for `tuner collect pad_mm`.

Problem i of a stream depends only on (seed, i, spec): any shard, any machine, any restart
regenerates exactly the same problem. Sizes mix linear-uniform, log-uniform and
powers of two with small offsets (the unaligned neighbours of common sizes); every problem
has something to pad, and none exceeds the spec's memory and time budgets.

A focus (`--focus NAME`, see FOCI) is another stream over the same features that
over-samples a region where learned rules have erred; its name is part of the spec, of the
random seed and of the problem ids, so it never shares a problem with the default stream,
and its files merge with default ones in `tuner learn`.
"""
from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import asdict, dataclass

from tuner.heuristics.contexts import (PAD_MM_CHOICES, PAD_MM_FEATURE_SCHEMA, PadMMContext,
                                       pad_mm_feature_types)

POINT = "pad_mm"
CHOICES = PAD_MM_CHOICES
FEATURE_SCHEMA = PAD_MM_FEATURE_SCHEMA


@dataclass(frozen=True)
class GeneratorSpec:
    min_dim: int
    max_dim: int
    max_batch: int
    max_bytes: int          # operands + output + padded copies
    max_est_ms: float       # estimated time of one matmul (from rough peak rates)
    rate_fp16: float        # FLOP/s used for the estimate
    rate_tf32: float
    rate_fp32: float
    focus: str | None = None    # None: the default stream; else a key of FOCI

    @classmethod
    def for_device(cls, device: str, focus: str | None = None) -> "GeneratorSpec":
        if focus is not None and focus not in FOCI:
            raise ValueError(f"unknown --focus {focus!r} (known: {', '.join(sorted(FOCI))})")
        if device == "cpu":
            # small enough that a CPU test measures dozens of problems in seconds
            return cls(1, 96, 3, 4 << 20, 0.5, 2e10, 2e10, 2e10, focus)
        # H100-class GPU: a few hundred microseconds per matmul at most, so one problem
        # (two choices, several repetitions) costs tens of milliseconds.
        return cls(16, 8192, 8, 1 << 30, 0.25, 3.0e14, 1.5e14, 4.0e13, focus)

    def to_json(self) -> dict:
        out = asdict(self)
        if out["focus"] is None:
            del out["focus"]      # default-stream headers stay as they were before foci
        return out


def _dim(rng: random.Random, spec: GeneratorSpec) -> int:
    kind = rng.random()
    if kind < 1 / 3:
        return rng.randint(spec.min_dim, spec.max_dim)
    if kind < 2 / 3:
        lo, hi = math.log(spec.min_dim), math.log(spec.max_dim)
        return max(spec.min_dim, min(spec.max_dim, int(math.exp(rng.uniform(lo, hi)))))
    lo, hi = max(0, math.ceil(math.log2(spec.min_dim))), int(math.log2(spec.max_dim))
    x = 2 ** rng.randint(lo, hi) + rng.randint(-4, 4)
    return max(spec.min_dim, min(spec.max_dim, x))


def _log_uniform(rng: random.Random, lo: int, hi: int) -> int:
    return max(lo, min(hi, int(math.exp(rng.uniform(math.log(lo), math.log(hi + 1))))))


def _near_pow2(rng: random.Random, lo: int, hi: int) -> int:
    """A power of two in [lo, hi] pushed off alignment by 1..4 either way (4095, 129, ...)."""
    e = rng.randint(max(0, math.ceil(math.log2(lo))), max(0, int(math.log2(hi))))
    x = 2 ** e + rng.choice((-1, 1)) * rng.randint(1, 4)
    return max(lo, min(hi, x))


def _skinny_dims(rng: random.Random, spec: GeneratorSpec) -> tuple[int, int, int]:
    # The rules' outlier wrong answers (over several split seeds) were nearly all "orig" where
    # padding won by 10-30%: one dimension small (mostly n, 28..513), the other two large
    # (m*k in the millions), often a power of two's unaligned neighbour (129, 257, 4095).
    # Small: 16..640 on the GPU, log-uniform (so 16..128 gets half); large: 512..8192.
    small_hi = max(spec.min_dim + 1, spec.max_dim * 5 // 64)
    large_lo = max(spec.min_dim, spec.max_dim // 16)
    def pick(lo, hi):
        return _near_pow2(rng, lo, hi) if rng.random() < 0.4 else _log_uniform(rng, lo, hi)
    small = pick(spec.min_dim, small_hi)
    dims = [pick(large_lo, spec.max_dim), pick(large_lo, spec.max_dim)]
    which = rng.choices((0, 1, 2), weights=(1, 1, 2))[0]     # index of the small one in (m, k, n)
    dims.insert(which, small)
    return dims[0], dims[1], dims[2]


def _default_context(rng: random.Random, spec: GeneratorSpec) -> PadMMContext:
    op = rng.choices(("mm", "bmm", "addmm"), weights=(5, 2, 3))[0]
    dtype = rng.choice(("float16", "bfloat16", "float32"))
    m, k, n = _dim(rng, spec), _dim(rng, spec), _dim(rng, spec)
    batch = rng.randint(2, spec.max_batch) if op == "bmm" else 1
    return PadMMContext(
        op=op, m=m, k=k, n=n, dtype=dtype, batch=batch,
        mat1_transposed=rng.random() < 0.25, mat2_transposed=rng.random() < 0.25,
        mat1_prepadded=rng.random() < 0.15, mat2_prepadded=rng.random() < 0.15,
        tf32=dtype == "float32" and rng.random() < 0.5)


def _skinny_context(rng: random.Random, spec: GeneratorSpec) -> PadMMContext:
    op = rng.choices(("mm", "bmm", "addmm"), weights=(4, 3, 3))[0]
    dtype = rng.choices(("float16", "bfloat16", "float32"), weights=(2, 2, 1))[0]
    m, k, n = _skinny_dims(rng, spec)
    batch = rng.randint(2, spec.max_batch) if op == "bmm" else 1
    return PadMMContext(
        op=op, m=m, k=k, n=n, dtype=dtype, batch=batch,
        mat1_transposed=rng.random() < 0.5, mat2_transposed=rng.random() < 0.5,
        mat1_prepadded=rng.random() < 0.5, mat2_prepadded=rng.random() < 0.5,
        tf32=dtype == "float32" and rng.random() < 0.5)


def _rate(spec: GeneratorSpec, dtype: str, tf32: bool) -> float:
    if dtype != "float32":
        return spec.rate_fp16
    return spec.rate_tf32 if tf32 else spec.rate_fp32


def _prepadded_context(rng: random.Random, spec: GeneratorSpec) -> PadMMContext:
    # Where the learned rules still err (run7/run8 outliers, 70 answers losing > 10%; all 89k
    # kept problems of data/pad_mm/): 57% of the outliers have a prepadded operand (mat1 26,
    # mat2 28), 47% bf16 + 41% fp16, 60% "orig" answers, every op and transpose mix alike.
    # With exactly one operand prepadded "orig" wins 63% (both prepadded: "pad" 56%; none:
    # "orig" 78%), and in half precision the winner flips with the kernel's size: the share
    # "pad" wins rises from 6% at an estimated < 1 us to 96% above 80 us and is a coin toss
    # (35-59%) between about 3 and 20 us estimated (40-80 us measured; the outliers' median is
    # 58 us). Transposes change the shares by < 5 points; the smallest dim in 96..768 with the
    # largest >= 2048 is 62% "pad". So: a prepadded operand always (one 80%, both 20%),
    # bf16 > fp16 > fp32, and the product m*k*n drawn for an estimated time log-uniform in
    # [max_est/100, max_est/10] (2.5..25 us on the GPU spec), one dim small-to-middle (32..1024).
    op = rng.choices(("mm", "bmm", "addmm"), weights=(4, 3, 3))[0]
    dtype = rng.choices(("float16", "bfloat16", "float32"), weights=(2, 3, 1))[0]
    tf32 = dtype == "float32" and rng.random() < 0.5
    batch = rng.randint(2, spec.max_batch) if op == "bmm" else 1
    est_ms = math.exp(rng.uniform(math.log(spec.max_est_ms / 100), math.log(spec.max_est_ms / 10)))
    mkn = est_ms * 1e-3 * _rate(spec, dtype, tf32) / (2.0 * batch)
    def pick(lo, hi):
        return _near_pow2(rng, lo, hi) if rng.random() < 0.4 else _log_uniform(rng, lo, hi)
    small_lo = max(spec.min_dim, spec.max_dim // 256)
    small = pick(small_lo, max(small_lo + 1, spec.max_dim // 8))
    large = pick(max(spec.min_dim, spec.max_dim // 8), spec.max_dim)
    # the third dim makes the product: unaligned by construction (needs_padding filters the rest)
    third = max(spec.min_dim, min(spec.max_dim, round(mkn / (small * large))))
    dims = [large, third]
    rng.shuffle(dims)
    dims.insert(rng.randrange(3), small)
    which = rng.random()
    return PadMMContext(
        op=op, m=dims[0], k=dims[1], n=dims[2], dtype=dtype, batch=batch,
        mat1_transposed=rng.random() < 0.5, mat2_transposed=rng.random() < 0.5,
        mat1_prepadded=which < 0.4 or which >= 0.8, mat2_prepadded=which >= 0.4,
        tf32=tf32)


# focus name -> (what it over-samples, context generator); the name is recorded in headers
FOCI = {
    "skinny": ("one of m, k, n small (mostly n), the others large, sizes often a power of two's "
               "unaligned neighbour; operands prepadded and transposed half the time",
               _skinny_context),
    "prepadded": ("a prepadded operand always (one 80%, both 20%), mostly bf16/fp16, m*k*n "
                  "sized for an estimated 2.5-25 us on the GPU (where 'pad' won 35-60% of the "
                  "half-precision problems with a prepadded operand), one dim 32..1024; ops "
                  "and transposes mixed",
                  _prepadded_context),
}


def estimate(ctx: PadMMContext, spec: GeneratorSpec) -> tuple[int, float]:
    """(bytes, ms) of the larger of the two choices: the budget check."""
    pm, pk, pn = ctx.padded_sizes()
    item = 4 if ctx.dtype == "float32" else 2
    nbytes = ctx.batch * item * (ctx.m * ctx.k + ctx.k * ctx.n + ctx.m * ctx.n
                                 + pm * pk + pk * pn + pm * pn) + item * pn
    ms = 2.0 * ctx.batch * pm * pk * pn / _rate(spec, ctx.dtype, ctx.tf32) * 1e3
    return nbytes, ms


def problem(seed: int, index: int, spec: GeneratorSpec) -> PadMMContext:
    """The index-th problem of the stream (seed, spec.focus): deterministic, independent of
    shards."""
    # str seeds hash with SHA-512: stable; the default stream's string predates foci
    tag = f"{POINT}:{seed}:{index}" if spec.focus is None else f"{POINT}:{spec.focus}:{seed}:{index}"
    rng = random.Random(tag)
    make = _default_context if spec.focus is None else FOCI[spec.focus][1]
    for _ in range(10_000):
        ctx = make(rng, spec)
        if not ctx.needs_padding():
            continue     # nothing to decide: pad_mm answers "orig" without measuring
        nbytes, ms = estimate(ctx, spec)
        if nbytes <= spec.max_bytes and ms <= spec.max_est_ms:
            return ctx
    raise RuntimeError(f"{POINT}: no problem fits the budget for seed {seed} index {index}"
                       + (f" (focus {spec.focus})" if spec.focus else ""))


def describe(ctx: PadMMContext) -> dict:
    return {"op": ctx.op, "dtype": ctx.dtype}


def header_fields(spec: GeneratorSpec) -> dict:
    out = {"point": POINT, "features": pad_mm_feature_types(), "choices": list(CHOICES),
           "feature_schema": FEATURE_SCHEMA, "generator": spec.to_json()}
    if spec.focus is not None:
        out["focus"] = {"name": spec.focus, "about": FOCI[spec.focus][0]}
    return out


# -- measurement ---------------------------------------------------------------------------

def _timer(fn, warmup: int, reps: int, device: str) -> float:
    # the engine's benchmarker (what the dataset header's "timer" names; on CPU the median of
    # per-run wall times), under TUNER_BENCH_LOCK when set
    from tuner.bench import benchmark
    return float(benchmark(fn, warmup=warmup, reps=reps, device=device))


def measure(ctx: PadMMContext, device: str, *, reps: int = 3, inner: int = 10,
            warmup: int = 3, seed: int = 0) -> list[dict]:
    """Time every choice `reps` times (each a median of `inner` runs), interleaving choices
    so drift hits both alike. One row per choice with median, min, max and spread."""
    import torch

    from tuner.points.pad_mm import make_operands, runners, tf32_mode

    gen = torch.Generator(device=device).manual_seed(seed)
    t0 = time.perf_counter()
    samples: dict[str, list[float]] = {c: [] for c in CHOICES}
    try:
        operands = make_operands(ctx, device, gen)
        fns = runners(ctx, *operands)
        with tf32_mode(ctx.tf32):
            for r in range(reps):
                for choice in (CHOICES if r % 2 == 0 else CHOICES[::-1]):
                    samples[choice].append(_timer(fns[choice], warmup if r == 0 else 1, inner, device))
    except (RuntimeError, MemoryError) as e:   # OOM or a failing kernel: score infinity
        if device != "cpu":
            torch.cuda.empty_cache()
        for c in CHOICES:
            samples[c] = samples[c] or [math.inf]
        failed = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
    else:
        failed = None
    bench_s = (time.perf_counter() - t0) / max(1, reps)
    feats = ctx.features()
    rows = []
    for c in CHOICES:
        ts = samples[c]
        med = statistics.median(ts)
        spread = (max(ts) - min(ts)) / med if math.isfinite(med) and med > 0 else None
        row = {"choice": c, "time_ms": med, "reps": len(ts), "spread": spread,
               "min_ms": min(ts), "max_ms": max(ts), "bench_s": bench_s, **feats}
        if failed:
            row["error"] = failed
        rows.append(row)
    return rows
