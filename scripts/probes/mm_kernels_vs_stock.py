"""Probe (not maintained): the GPU kernels of one bench_mm case under ours (extern + epilogue),
ours max-autotune and stock max-autotune, each call profiled (torch.profiler, 20 calls after a
warm-up) and its kernels listed with their mean time per call: where a case's gap to stock
comes from (the matmul, or the epilogue kernel beside cuBLAS). GPU only.

    python3 scripts/probes/mm_kernels_vs_stock.py square_4096 batch64_proj [--json out.json]
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bench_mm  # noqa: E402

VARIANTS = ("tuner", "tuner-max-autotune", "stock-max-autotune")


def kernels(fn, x, calls=20):
    import torch
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        fn(*x)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn(*x)
        torch.cuda.synchronize()
    out = {}
    for e in prof.key_averages():
        t = getattr(e, "device_time_total", None)
        if t is None:
            t = e.cuda_time_total
        if t > 0:
            out[e.key[:90]] = round(t / calls / 1000, 5)   # ms per call
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    import torch
    rows = []
    for name in args.cases:
        fn, shapes, _ = bench_mm.cases()[name]
        x = bench_mm._inputs(shapes, "cuda", torch.bfloat16, 0)
        for v in VARIANTS:
            torch._dynamo.reset()
            with bench_mm.variant_settings():
                f = bench_mm._compile(fn, v)
                f(*x)
                row = {"case": name, "variant": v, "kernels_ms": kernels(f, x)}
            row["total_ms"] = round(sum(row["kernels_ms"].values()), 5)
            print(json.dumps(row), flush=True)
            rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
