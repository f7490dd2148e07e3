#!/usr/bin/env python3
"""Harvest kernel-config tuning data from real models: each case of bench_compiler.py is
compiled in max-autotune-no-cudagraphs with TUNER_HEURISTICS=collect, in a fresh process
with empty caches, so every generated kernel is searched (coordinate descent from its
default) and every measured config is appended to <out>/<case>/triton.<kind>.jsonl (the
dataset format `tuner learn` reads; rows carry the kernel's features, the default config
and the problem key). With --second-batch the compiled model is called again on half the
batch: a second shape, compiled with dynamic sizes (bucketed kernels).

A summary line per case (seconds, decisions by namespace, exit status) goes to
<out>/summary.json as each case ends, so a run cut short keeps its data.

On the GPU machine:
    source scripts/device/env.sh && python3 scripts/collect_kernel_configs.py --out $OUT/kernels \\
        --cases gpt2,bert,vit_b16,resnet50 --timeout 150
Learn from it here (one kind at a time; rows of several cases merge):
    tuner learn-configs DIR/*/triton.reduction.jsonl --out heuristics-out
Real models give few problems per compile (identical kernels share one decision: GPT-2
small's searched 4 pointwise and 3 reduction kernels); `tuner collect triton_kernel` gives
hundreds per kind in minutes.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(case: str, folder: Path, mode: str, second_batch: bool) -> None:
    sys.path.insert(0, str(HERE))
    import torch

    import bench_compiler as bc
    from tuner import engine

    built = bc.CASE_BY_NAME[case].build(False, "cuda")
    x = built.make_inputs(0)
    f = torch.compile(built.fn, backend="tuner", mode=mode)
    t = time.perf_counter()
    with torch.no_grad():
        f(*x)
        torch.cuda.synchronize()
        first = time.perf_counter() - t
        second = None
        if second_batch and x and getattr(x[0], "dim", lambda: 0)() and x[0].shape[0] >= 2:
            half = tuple(a[: a.shape[0] // 2].contiguous() if hasattr(a, "shape") else a for a in x)
            t = time.perf_counter()
            f(*half)
            torch.cuda.synchronize()
            second = time.perf_counter() - t
    by_ns: dict = {}
    for d in engine.HISTORY:
        by_ns.setdefault(d.namespace, {}).setdefault(d.source, 0)
        by_ns[d.namespace][d.source] += 1
    (folder / "child.json").write_text(json.dumps({"first_call_s": round(first, 2),
                                                   "second_call_s": second and round(second, 2),
                                                   "decisions_last_256": by_ns}))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="folder: one subfolder of datasets per case")
    p.add_argument("--cases", default="gpt2,bert,vit_b16,resnet50,llama8,efficientnet_b0",
                   help="bench_compiler.py case names, comma-separated (default %(default)s)")
    p.add_argument("--mode", default="max-autotune-no-cudagraphs")
    p.add_argument("--timeout", type=float, default=240, help="seconds per case")
    p.add_argument("--second-batch", action="store_true", help="also call on half the batch")
    p.add_argument("--child", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    out = Path(a.out)
    if a.child:
        child(a.child, out / a.child, a.mode, a.second_batch)
        return 0
    sys.path.insert(0, str(HERE))
    import bench_compiler as bc
    cases = [c.strip() for c in a.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in bc.CASE_BY_NAME]
    if unknown:
        p.error(f"unknown case(s) {', '.join(unknown)}; valid: {', '.join(bc.CASE_BY_NAME)}")
    out.mkdir(parents=True, exist_ok=True)
    summary = []
    for case in cases:
        folder = out / case
        folder.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, TUNER_HEURISTICS="collect", TUNER_DATASET_DIR=str(folder),
                   TUNER_CACHE_DIR=tempfile.mkdtemp(prefix="tuner-cache-"),
                   TRITON_CACHE_DIR=tempfile.mkdtemp(prefix="triton-cache-"))
        cmd = [sys.executable, __file__, "--out", str(out), "--child", case, "--mode", a.mode]
        if a.second_batch:
            cmd.append("--second-batch")
        t = time.perf_counter()
        try:
            r = subprocess.run(cmd, env=env, timeout=a.timeout, capture_output=True, text=True)
            rc, tail = r.returncode, (r.stderr or "")[-600:]
        except subprocess.TimeoutExpired:
            rc, tail = "timeout", ""
        row = {"case": case, "rc": rc, "wall_s": round(time.perf_counter() - t, 1),
               "rows": {f.name: sum(1 for _ in f.open()) - 1 for f in sorted(folder.glob("*.jsonl"))}}
        if (folder / "child.json").exists():
            row.update(json.loads((folder / "child.json").read_text()))
        if rc != 0:
            row["stderr_tail"] = tail
        summary.append(row)
        print(json.dumps(row), flush=True)
        (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
