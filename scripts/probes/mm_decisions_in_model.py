"""Probe (not maintained): the mm point's and the template configs' decisions while a model
(bench_compiler.py's cases) compiles in max-autotune: problem, answer, where it came from,
and the times measured; then the model's GPU time per call (CUDA graph replay) in
default mode and max-autotune.
    python3 scripts/probes/mm_decisions_in_model.py gpt2 > $OUT/decisions.txt"""
import json, os, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch
import bench_compiler as bc
from triton.testing import do_bench_cudagraph
from tuner import engine

case = bc.CASE_BY_NAME[sys.argv[1] if len(sys.argv) > 1 else "gpt2"]
built = case.build(False, "cuda")
x = built.make_inputs(0)
out = {}
for mode in ("default", "max-autotune-no-cudagraphs"):
    torch._dynamo.reset()
    engine.HISTORY.clear()
    f = torch.compile(built.fn, backend="tuner", mode=None if mode == "default" else mode)
    f(*x)
    torch.cuda.synchronize()
    for d in engine.HISTORY:
        if "mm" in d.namespace or "template" in d.namespace:
            print(json.dumps({"ns": d.namespace, "problem": d.problem, "choice": d.choice, "source": d.source,
                              "ms": d.time_ms, "default_ms": d.default_time_ms, "n": d.n_measured,
                              "timings": [(str(c), t) for c, t in d.timings[:4]],
                              "note": d.heuristic_note}, default=str), flush=True)
    out[mode] = do_bench_cudagraph(lambda: f(*x), rep=200)
    print(mode, "GPU ms per call", out[mode], flush=True)
