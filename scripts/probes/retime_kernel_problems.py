#!/usr/bin/env python3
"""Re-time generated kernel problems (datagen/triton_kernel.py) several times over, to tell a
held-out miss of a learned config module from timing noise: each round compiles the problem
in collect mode (every candidate of its kernel timed, as `tuner collect triton_kernel` does)
with more repetitions than the collection used, and the report gives, per config, the median
over rounds and each named config's ratio to the best median.

    source scripts/device/env.sh && python3 scripts/probes/retime_kernel_problems.py \
        --problem reduction:mean_f32:1703:32769:bfloat16 --rounds 5 \
        --config RBLOCK=512,XBLOCK=1,num_warps=16 --config RBLOCK=2048,XBLOCK=1,num_warps=16 \
        --out $OUT/retime.json

A problem is FOCUS:BODY:ROWS:COLS:DTYPE (reductions and pointwise kernels; a template's k
has no field here). The JSON file is rewritten as each problem ends.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path


def parse_problem(text: str):
    from tuner.datagen.triton_kernel import KernelProblem
    try:
        focus, body, rows, cols, dtype = text.split(":")
        return KernelProblem(focus, body, int(rows), int(cols), dtype)
    except ValueError:
        raise SystemExit(f"--problem {text!r}: expected FOCUS:BODY:ROWS:COLS:DTYPE, "
                         "e.g. reduction:mean_f32:1703:32769:bfloat16") from None


def parse_config(text: str) -> dict:
    out = {}
    for item in text.split(","):
        key, _, value = item.partition("=")
        if not value:
            raise SystemExit(f"--config {text!r}: expected NAME=VALUE,... e.g. RBLOCK=512,XBLOCK=1,num_warps=16")
        out[key.strip()] = int(value)
    return out


def config_of(choice: str) -> dict:
    c = json.loads(choice)
    return {**c.get("kwargs", {}), "num_warps": c.get("num_warps"), "num_stages": c.get("num_stages")}


def matches(config: dict, wanted: dict) -> bool:
    return all(config.get(k) == v for k, v in wanted.items())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problem", action="append", required=True, help="FOCUS:BODY:ROWS:COLS:DTYPE (repeatable)")
    ap.add_argument("--config", action="append", default=[], help="NAME=VALUE,... a config to report (repeatable)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10, help="measure()'s reps (x inner 10 / 3 timed calls)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    problems = [parse_problem(p) for p in args.problem]
    wanted = [parse_config(c) for c in args.config]

    import torch
    from tuner.datagen.triton_kernel import measure
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
              "date": time.strftime("%Y-%m-%d"), "command": " ".join(sys.argv), "problems": []}
    for p in problems:
        times: dict[str, list[float]] = {}
        for r in range(args.rounds):
            rows = measure(p, "cuda", reps=args.reps, seed=r)
            for row in rows:
                times.setdefault(row["choice"], []).append(row["time_ms"])
            print(f"{p}: round {r + 1}/{args.rounds}, {len(rows)} configs", flush=True)
        med = {c: statistics.median(ts) for c, ts in times.items() if ts and min(ts) < float("inf")}
        if not med:
            print(f"{p}: no config ran", flush=True)
            report["problems"].append({"problem": p.as_row(), "focus": p.focus, "error": "no config ran"})
            args.out.write_text(json.dumps(report, indent=1))
            continue
        best = min(med.values())
        entry = {"problem": p.as_row(), "focus": p.focus, "rounds": args.rounds,
                 "best": min(med, key=med.get), "best_ms": best,
                 "configs": sorted(({"choice": c, "median_ms": m, "ratio": m / best, "times_ms": times[c]}
                                    for c, m in med.items()), key=lambda e: e["median_ms"]),
                 "named": []}
        for w in wanted:
            hits = [e for e in entry["configs"] if matches(config_of(e["choice"]), w)]
            entry["named"].append({"config": w, "hits": [{"choice": e["choice"], "ratio": round(e["ratio"], 4),
                                                         "median_ms": e["median_ms"]} for e in hits]})
            for e in hits:
                print(f"  {e['choice']}: {e['median_ms']:.5f} ms, {e['ratio']:.3f}x the best")
        report["problems"].append(entry)
        args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
