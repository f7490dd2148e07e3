#!/usr/bin/env python3
"""Compiler probe (GPU): the Python cost of launching a compiled graph. GPT-2 small at batch 1,
seq 32 (too small to keep the GPU busy, so wall time per call is the wrapper's and launches'
host cost) through backend="tuner", with the direct kernel launch on and off
(TUNER_FAST_LAUNCH), beside eager and stock torch.compile; per-kernel host cost = wall time /
kernels launched. Prints a table last and writes JSON to --out.

    source scripts/device/env.sh && python3 scripts/probes/compiler_probe.py --out $OUT
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def worker(variant: str, reps: int) -> dict:
    import torch
    import transformers
    torch.manual_seed(0)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    cfg = transformers.GPT2Config() if dev == "cuda" else transformers.GPT2Config(
        n_layer=1, n_embd=32, n_head=2, vocab_size=64, n_positions=16)
    model = transformers.GPT2LMHeadModel(cfg).to(dev, torch.bfloat16).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, 32 if dev == "cuda" else 8), device=dev)
    fn = lambda: model(ids, use_cache=False).logits  # noqa: E731
    if variant != "eager":
        backend = "tuner" if variant.startswith("tuner") else "inductor"
        fn = torch.compile(fn, backend=backend)
    with torch.no_grad():
        t0 = time.perf_counter()
        out = fn()
        compile_s = time.perf_counter() - t0
        for _ in range(3):
            fn()
        if dev == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            out = fn()
        if dev == "cuda":
            torch.cuda.synchronize()
        per_call_us = (time.perf_counter() - t0) / reps * 1e6
    res = {"variant": variant, "per_call_us": per_call_us, "compile_s": compile_s,
           "out_sum": float(out.float().sum())}
    if variant.startswith("tuner"):
        import tuner.compiler.stats as stats
        from tuner.compiler.runtime import launch
        t = stats.totals()
        res.update(kernels=t.kernels, externs=sum(t.externs.values()), fast_launch=launch._FAST)
        res["host_us_per_launch"] = per_call_us / max(1, t.kernels + sum(t.externs.values()))
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="bench/results/compiler", help="folder for the JSON")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--variants", default="eager,inductor,tuner,tuner-slow-launch")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(a.worker, a.reps)))
        return 0
    rows = []
    for v in a.variants.split(","):
        env = dict(os.environ, TUNER_FAST_LAUNCH="0" if v == "tuner-slow-launch" else "1")
        p = subprocess.run([sys.executable, __file__, "--worker", v, "--reps", str(a.reps)],
                           capture_output=True, text=True, env=env, timeout=300)
        line = (p.stdout.strip().splitlines() or [""])[-1]
        try:
            rows.append(json.loads(line))
        except ValueError:
            rows.append({"variant": v, "error": (p.stderr or p.stdout)[-800:]})
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # scripts/results_doc.py
    from results_doc import write_results
    print(f"wrote {write_results('compiler_probe', rows, a.out)}")
    print(f"{'variant':20} {'us/call':>10} {'kernels':>8} {'us/launch':>10}")
    for r in rows:
        if "error" in r:
            print(f"{r['variant']:20} ERROR {r['error'][-300:]}")
            continue
        print(f"{r['variant']:20} {r['per_call_us']:10.0f} {r.get('kernels', ''):>8} "
              f"{r.get('host_us_per_launch', float('nan')):10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
