"""Probe (not maintained): where a model's GPU time goes per kernel in default mode,
max-autotune, and max-autotune with the matmuls forced to ATen (TUNER_MM=extern), for a
bench_compiler.py case; the mm point's decisions (problem, answer, source, times measured);
GPU ms per call (CUDA graph replay), interleaved over rounds. Issue 13: ViT-B/16 ran 3-4.5%
slower in max-autotune than in default mode.
    python3 scripts/probes/mm_in_model_breakdown.py vit_b16 > $OUT/breakdown.txt"""
import collections, json, os, statistics, sys, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp())
os.environ.setdefault("TUNER_CACHE_DIR", tempfile.mkdtemp())
import torch
import bench_compiler as bc
from triton.testing import do_bench_cudagraph
from tuner import engine
from tuner.compiler.backend import tuner_backend
from tuner.settings import environ

case = bc.CASE_BY_NAME[sys.argv[1] if len(sys.argv) > 1 else "vit_b16"]
variants = (sys.argv[2] if len(sys.argv) > 2 else
            "default,max-autotune-no-cudagraphs,max-autotune-no-cudagraphs@extern").split(",")
built = case.build(False, "cuda")
x = built.make_inputs(0)
fns = {}
for v in variants:
    mode, _, suffix = v.partition("@")
    env = {"TUNER_MM": suffix} if suffix else {}
    engine.HISTORY.clear()

    def backend(gm, ex, mode=mode):
        return tuner_backend(gm, ex, mode=None if mode == "default" else mode)
    with environ(env):
        f = torch.compile(built.fn, backend=backend)
        with torch.no_grad():
            f(*x)
    torch.cuda.synchronize()
    fns[v] = f
    for d in engine.HISTORY:
        if d.namespace.startswith("mm"):
            print(json.dumps({"variant": v, "problem": d.problem, "choice": d.choice,
                              "source": d.source, "timings": [(str(c), t) for c, t in d.timings[:4]]},
                             default=str), flush=True)

times = collections.defaultdict(list)
with torch.no_grad():
    for r in range(3):
        for v, f in fns.items():
            times[v].append(do_bench_cudagraph(lambda: f(*x), rep=200))
print(json.dumps({v: {"median_ms": statistics.median(t), "ms": t} for v, t in times.items()}), flush=True)

for v, f in fns.items():
    with torch.no_grad():
        for _ in range(3):
            f(*x)
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(10):
                f(*x)
            torch.cuda.synchronize()
    agg = collections.defaultdict(lambda: [0, 0.0])
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            a = agg[e.name[:90]]
            a[0] += 1
            a[1] += e.device_time_total / 1000.0 / 10
    total = sum(a[1] for a in agg.values())
    print(f"== {v}: kernels per call {sum(a[0] for a in agg.values()) / 10:.0f}, "
          f"GPU ms per call {total:.3f}", flush=True)
    for name, (n, ms) in sorted(agg.items(), key=lambda kv: -kv[1][1])[:25]:
        print(f"  {ms:8.4f} ms  x{n / 10:5.1f}  {name}", flush=True)
