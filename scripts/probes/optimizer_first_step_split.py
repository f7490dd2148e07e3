"""Probe (not maintained): the first compiled AdamW step over a parameter list, in a fresh
process per case, split into dynamo+AOT, our lowering/codegen, Triton JIT, and the rest;
with `--profile`, the callers of Tensor.__repr__ and the top cumulative entries.
usage: optimizer_first_step_split.py PARAMS DTYPE [--profile]"""
import cProfile, io, json, os, pstats, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch
import bench_optimizer as b

params, dt = sys.argv[1], sys.argv[2]
profile = "--profile" in sys.argv
dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dt]
ps = b.make_state(b.param_shapes(params, False), dtype, "cuda", 0)
opt, step = b.build("tuner", "adamw", ps, "cuda")
torch.cuda.synchronize()
from tuner.compiler import stats
stats.reset()
prof = cProfile.Profile() if profile else None
t = time.perf_counter()
if prof:
    prof.enable()
step()
torch.cuda.synchronize()
if prof:
    prof.disable()
first = time.perf_counter() - t
tot = stats.totals()
row = {"params": params, "dtype": dt, "profile": profile, "first_s": round(first, 2),
       "backend_s": round(b.BACKEND_S[0], 2), "compile_s": round(tot.compile_seconds, 2),
       "jit_s": round(tot.jit_seconds, 2), "tuning_s": round(tot.tuning_seconds, 2),
       "kernels": tot.kernels}
t = time.perf_counter()
step(); torch.cuda.synchronize()
row["second_s"] = round(time.perf_counter() - t, 3)
print(json.dumps(row), flush=True)
if prof:
    s = io.StringIO()
    st = pstats.Stats(prof, stream=s)
    st.sort_stats("cumulative").print_stats(60)
    st.print_callers("__repr__")
    out = Path(os.environ.get("OUT", "/tmp"))
    (out / f"first_step_{params}_{dt}.txt").write_text(json.dumps(row) + "\n" + s.getvalue())
