"""Probe (not maintained): why a max-autotune optimizer step can run slower than default mode.
Compiles AdamW over a parameter list in default, max-autotune-no-cudagraphs and max-autotune
(one process, fresh caches), prints each mode's tuned decisions (choice, its time, the
default's time) and then times the three steps interleaved (CUDA events, median of rounds).
usage: optimizer_ma_choice.py PARAMS DTYPE"""
import json, os, sys, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("TUNER_CACHE_DIR", tempfile.mkdtemp())
import torch
import bench_optimizer as b
from tuner import engine

params, dt = sys.argv[1], sys.argv[2]
dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dt]
shapes = b.param_shapes(params, False)
steps = {}
from tuner.compiler import backend as be
limit = be.CUDAGRAPH_INPUTS_PER_LAUNCH
for mode in ("default", "max-autotune-no-cudagraphs", "max-autotune", "max-autotune+graphs"):
    # the last: CUDA graphs whatever the inputs per launch (the rule off for its compile)
    be.CUDAGRAPH_INPUTS_PER_LAUNCH = 10 ** 9 if mode.endswith("+graphs") else limit
    ps = b.make_state(shapes, dtype, "cuda", 0)
    opt = torch.optim.AdamW(ps, lr=1e-3, weight_decay=0.01, foreach=True, capturable=True)
    engine.HISTORY.clear()
    f = torch.compile(opt.step, backend="tuner", mode=None if mode == "default" else mode.split("+")[0])
    for _ in range(3):
        f()
    be.CUDAGRAPH_INPUTS_PER_LAUNCH = limit
    torch.cuda.synchronize()
    for d in engine.HISTORY:
        print(json.dumps({"mode": mode, "ns": d.namespace, "source": d.source, "choice": str(d.choice),
                          "time_ms": d.time_ms, "default_ms": d.default_time_ms,
                          "top": [(str(c), round(t, 4)) for c, t in d.timings[:6]]}), flush=True)
    steps[mode] = (f, ps)

rows = {m: [] for m in steps}
order = list(steps)
for r in range(7):   # rotated order: no variant always runs first or last; round 0 discarded
    for m in order[r % len(order):] + order[:r % len(order)]:
        f = steps[m][0]
        t = round(b.time_steps(f, "cuda", 50), 4)
        if r:
            rows[m].append(t)
print(json.dumps({"params": params, "dtype": dt, "ms_rounds": rows,
                  "median": {m: sorted(v)[len(v) // 2] for m, v in rows.items()}}), flush=True)
