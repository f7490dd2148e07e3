#!/usr/bin/env python3
"""Where one model's first compiled call goes (the worker of scripts/device/ma_compile_table.sh).

Compiles a bench_compiler.py case with backend="tuner" in this fresh process (fresh Triton and
tuner caches unless TRITON_CACHE_DIR / TUNER_CACHE_DIR are set) and prints JSON lines: one row
(first call seconds, our lowering/codegen and Triton seconds, candidate compiles of
tuner.bench.compile_all: wall, summed per-candidate seconds and count, benchmarks: wall and
count, decisions by source), the slow compile-worker jobs, with --profile the first call's top
functions (cProfile of this process), then one line per measured decision.
"""
import argparse
import cProfile
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

EPILOG = """examples (GPU):
  source scripts/device/env.sh && python3 -P scripts/ma_compile_split.py gpt2 max-autotune-no-cudagraphs
  (case gpt2_train: a GPT-2 6-layer AMP training step, forward and backward)"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", help="a bench_compiler.py case name")
    ap.add_argument("mode", nargs="?", default="max-autotune-no-cudagraphs", help="torch.compile mode")
    ap.add_argument("--profile", action="store_true", help="cProfile the first call")
    args = ap.parse_args(argv)
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp())
    os.environ.setdefault("TUNER_CACHE_DIR", tempfile.mkdtemp())
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import torch

    import bench_compiler as bc
    from tuner import bench, compile_workers, engine
    from tuner.compiler import stats

    acc = dict(compile_all_wall=0.0, compile_all_sum=0.0, compiled=0, bench_wall=0.0, benchmarks=0)
    batches, real_compile_all, real_benchmark = [], bench.compile_all, bench.benchmark

    def timed(key, fn, *a, **kw):
        t = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            acc[key] += time.perf_counter() - t

    def compile_all(fn, cands, **kw):
        t = time.perf_counter()
        try:
            return timed("compile_all_wall", real_compile_all,
                         lambda c: timed("compile_all_sum", fn, c), cands, **kw)
        finally:
            acc["compiled"] += len(cands)
            batches.append((len(cands), round(time.perf_counter() - t, 2), kw.get("jobs") is not None))

    def benchmark(*a, **kw):
        acc["benchmarks"] += 1     # a failed candidate was run too
        return timed("bench_wall", real_benchmark, *a, **kw)

    bench.compile_all, bench.benchmark = compile_all, benchmark
    mode = None if args.mode == "default" else args.mode
    device = "cuda"
    if args.case == "gpt2_train":
        torch.manual_seed(0)
        model = bc._gpt2_6l_train(False).to(device).train()
        ids = torch.randint(0, model.config.vocab_size, (8, 512), device=device)
        compiled = torch.compile(model, backend="tuner", mode=mode)

        def call():
            model.zero_grad(set_to_none=True)
            with torch.autocast(device, dtype=torch.bfloat16):
                loss = compiled(input_ids=ids, labels=ids).loss
            loss.backward()
    else:
        if args.case not in bc.CASE_BY_NAME:
            ap.error(f"unknown case {args.case!r}; known: gpt2_train, {', '.join(bc.CASE_BY_NAME)}")
        built = bc.CASE_BY_NAME[args.case].build(False, device)
        x = built.make_inputs(0)
        f = torch.compile(built.fn, backend="tuner", mode=mode)

        def call():
            f(*x)
    stats.reset()
    engine.HISTORY.clear()
    prof = cProfile.Profile() if args.profile else None
    t = time.perf_counter()
    if prof is not None:
        prof.enable()
    call()
    torch.cuda.synchronize()
    first = time.perf_counter() - t
    if prof is not None:
        prof.disable()
    tot = stats.totals()
    sources: dict = {}
    for d in engine.HISTORY:
        sources[d.source] = sources.get(d.source, 0) + 1
    row = {"case": args.case, "mode": args.mode, "first_s": round(first, 2),
           "compile_graph_s": round(tot.compile_seconds, 2), "jit_s": round(tot.jit_seconds, 2),
           "tuning_s": round(tot.tuning_seconds, 2), "kernels": tot.kernels, "decisions": sources,
           "prebuilt": getattr(tot, "prebuilt", None),
           **{k: round(v, 2) if isinstance(v, float) else v for k, v in acc.items()},
           "workers": bench.compile_workers(), "processes": bench.compile_processes(),
           "worker_pool": compile_workers.STATS, "batches": batches}
    print(json.dumps(row), flush=True)
    print(json.dumps({"slow_jobs": compile_workers.SLOW}))
    if prof is not None:
        st = pstats.Stats(prof)

        def top(key, n=40):     # [where, own s, cumulative s, calls]
            rows = sorted(st.stats.items(), key=lambda kv: -kv[1][key])[:n]
            return [[f"{Path(f).name}:{line}:{fn}", round(v[2], 3), round(v[3], 3), v[1]]
                    for (f, line, fn), v in rows]
        print(json.dumps({"profile_own": top(2), "profile_cum": top(3)}), flush=True)
    for d in engine.HISTORY:
        if d.n_measured:
            print(json.dumps({"ns": d.namespace, "source": d.source, "n": d.n_measured,
                              "s": round(d.tuning_seconds, 2), "problem": str(d.problem)[:120],
                              "choice": str(d.choice)[:120],
                              "timings": [[str(c)[:80], round(t, 5)] for c, t in d.timings[:3]]}),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
