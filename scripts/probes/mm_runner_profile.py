#!/usr/bin/env python3
"""The mm point's two runners for one problem (compiler/compile_graph.py mm_runners), each
timed and profiled kernel by kernel (torch.profiler), with the generated code printed: where
a runner's time goes when it is far off its kernel's standalone time. GPU only.

    python3 scripts/probes/mm_runner_profile.py addmm 8014 1024 3 float32 [--bare|--costly]
"""
import argparse
import os
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("op")
    ap.add_argument("m", type=int)
    ap.add_argument("n", type=int)
    ap.add_argument("k", type=int)
    ap.add_argument("dtype")
    ap.add_argument("--bare", action="store_true")
    ap.add_argument("--costly", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("TUNER_LOGS", "output_code")
    import torch
    from tuner.bench import benchmark
    from tuner.compiler.compile_graph import mm_runners
    from tuner.points.mm import MMProblem
    p = MMProblem(args.op, 1, args.m, args.n, args.k, args.dtype, epilogue=not args.bare,
                  costly_epilogue=args.costly)
    fns = mm_runners(p, "cuda")
    for name, fn in fns.items():
        t = benchmark(fn, warmup=3, reps=20, device="cuda")
        print(f"== {name}: {t:.4f} ms", flush=True)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                fn()
            torch.cuda.synchronize()
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=8), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
