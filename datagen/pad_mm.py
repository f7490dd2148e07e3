"""pad_mm problem generator and measurement for `tuner collect pad_mm`.

Problem i of a stream depends only on (seed, i, spec): any shard, any machine, any restart
regenerates exactly the same problem. Sizes mix linear-uniform, log-uniform and
powers of two with small offsets (the unaligned neighbours of common sizes); every problem
has something to pad, and none exceeds the spec's memory and time budgets.
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

    @classmethod
    def for_device(cls, device: str) -> "GeneratorSpec":
        if device == "cpu":
            # small enough that a CPU test measures dozens of problems in seconds
            return cls(1, 96, 3, 4 << 20, 0.5, 2e10, 2e10, 2e10)
        # H100-class GPU: a few hundred microseconds per matmul at most, so one problem
        # (two choices, several repetitions) costs tens of milliseconds.
        return cls(16, 8192, 8, 1 << 30, 0.25, 3.0e14, 1.5e14, 4.0e13)

    def to_json(self) -> dict:
        return asdict(self)


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


def estimate(ctx: PadMMContext, spec: GeneratorSpec) -> tuple[int, float]:
    """(bytes, ms) of the larger of the two choices: the budget check."""
    pm, pk, pn = ctx.padded_sizes()
    item = 4 if ctx.dtype == "float32" else 2
    nbytes = ctx.batch * item * (ctx.m * ctx.k + ctx.k * ctx.n + ctx.m * ctx.n
                                 + pm * pk + pk * pn + pm * pn) + item * pn
    rate = spec.rate_fp16 if item == 2 else (spec.rate_tf32 if ctx.tf32 else spec.rate_fp32)
    ms = 2.0 * ctx.batch * pm * pk * pn / rate * 1e3
    return nbytes, ms


def problem(seed: int, index: int, spec: GeneratorSpec) -> PadMMContext:
    """The index-th problem of the stream `seed` (deterministic, independent of shards)."""
    rng = random.Random(f"{POINT}:{seed}:{index}")   # str seeds hash with SHA-512: stable
    for _ in range(10_000):
        op = rng.choices(("mm", "bmm", "addmm"), weights=(5, 2, 3))[0]
        dtype = rng.choice(("float16", "bfloat16", "float32"))
        m, k, n = _dim(rng, spec), _dim(rng, spec), _dim(rng, spec)
        batch = rng.randint(2, spec.max_batch) if op == "bmm" else 1
        ctx = PadMMContext(
            op=op, m=m, k=k, n=n, dtype=dtype, batch=batch,
            mat1_transposed=rng.random() < 0.25, mat2_transposed=rng.random() < 0.25,
            mat1_prepadded=rng.random() < 0.15, mat2_prepadded=rng.random() < 0.15,
            tf32=dtype == "float32" and rng.random() < 0.5)
        if not ctx.needs_padding():
            continue     # nothing to decide: pad_mm answers "orig" without measuring
        nbytes, ms = estimate(ctx, spec)
        if nbytes <= spec.max_bytes and ms <= spec.max_est_ms:
            return ctx
    raise RuntimeError(f"{POINT}: no problem fits the budget for seed {seed} index {index}")


def describe(ctx: PadMMContext) -> dict:
    return {"op": ctx.op, "dtype": ctx.dtype}


def header_fields(spec: GeneratorSpec) -> dict:
    return {"point": POINT, "features": pad_mm_feature_types(), "choices": list(CHOICES),
            "feature_schema": FEATURE_SCHEMA, "generator": spec.to_json()}


# -- measurement ---------------------------------------------------------------------------

def _cpu_timer(fn, warmup: int, reps: int) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _gpu_timer(fn, warmup: int, reps: int) -> float:
    try:
        from tuner.bench import benchmark
    except ImportError:
        benchmark = None
    if benchmark is not None:
        return float(benchmark(fn, warmup=warmup, reps=reps))
    import torch    # fallback while tuner.bench is not there: CUDA events, median
    for _ in range(warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for s, e in zip(starts, ends):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def measure(ctx: PadMMContext, device: str, *, reps: int = 3, inner: int = 10,
            warmup: int = 3, seed: int = 0) -> list[dict]:
    """Time every choice `reps` times (each a median of `inner` runs), interleaving choices
    so drift hits both alike. One row per choice with median, min, max and spread."""
    import torch

    from tuner.points.pad_mm import make_operands, runners, tf32_mode

    gen = torch.Generator(device=device).manual_seed(seed)
    t0 = time.perf_counter()
    timer = _cpu_timer if device == "cpu" else _gpu_timer
    samples: dict[str, list[float]] = {c: [] for c in CHOICES}
    try:
        operands = make_operands(ctx, device, gen)
        fns = runners(ctx, *operands)
        with tf32_mode(ctx.tf32):
            for r in range(reps):
                for choice in (CHOICES if r % 2 == 0 else CHOICES[::-1]):
                    samples[choice].append(timer(fns[choice], warmup if r == 0 else 1, inner))
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
