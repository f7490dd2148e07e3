"""Synthetic pad_mm datasets whose best choice follows a known rule (recorded timings, no
measuring): "pad" wins by 1.6x when k >= 600 in half precision, "orig" wins by 1.4x
otherwise, with a few percent of deterministic noise. No k falls within 100 of the
boundary, so a tree can find it from a few hundred problems."""
from __future__ import annotations

import random

from tuner.heuristics.dataset import DatasetWriter, make_header
from tuner.heuristics.contexts import PadMMContext, pad_mm_feature_types

H100 = {"gpu_name": "NVIDIA H100 80GB HBM3", "compute_capability": [9, 0],
        "shared_memory_per_block": 232448, "torch": "2.11.0", "triton": "3.6.0", "tuner": "0.1.0"}


def rule(ctx: PadMMContext) -> str:
    return "pad" if ctx.k >= 600 and ctx.dtype != "float32" else "orig"


def synthetic_problem(rng: random.Random) -> PadMMContext:
    while True:
        ctx = PadMMContext(rng.choice(["mm", "addmm", "bmm"]), rng.randint(16, 2048),
                           rng.choice([rng.randint(16, 500), rng.randint(700, 2048)]),
                           rng.randint(16, 2048),
                           rng.choice(["float16", "bfloat16", "float32"]),
                           batch=2, mat1_transposed=rng.random() < 0.3)
        if ctx.needs_padding():
            return ctx


def write_synthetic(path, n: int, *, seed: int = 0, header_extra: dict | None = None,
                    choices=("orig", "pad"), reps: int = 5, spread: float = 0.01,
                    start: int = 0) -> list[PadMMContext]:
    rng = random.Random(seed)
    meta = {**H100, **(header_extra or {})}
    header = make_header("pad_mm", pad_mm_feature_types(), choices, device_meta=meta,
                         feature_schema=1, seed=seed)
    ctxs = []
    with DatasetWriter(path, header) as w:
        for i in range(start, start + n):
            ctx = synthetic_problem(rng)
            ctxs.append(ctx)
            base = 0.01 * ctx.m * ctx.n * ctx.k / 1e6 + 0.005
            best = rule(ctx)
            t = {"orig": base, "pad": base}
            t["pad" if best == "orig" else "orig"] *= 1.6 if best == "pad" else 1.4
            rows = []
            for c in choices:
                ms = t[c] * (1 + rng.uniform(-0.03, 0.03))
                rows.append({"problem": f"s{seed}-{i}", "choice": c, "time_ms": ms, "reps": reps,
                             "spread": spread, "bench_s": 0.02, **ctx.features()})
            w.write_problem(rows)
    return ctxs
