"""Probe (not maintained): where a model's cold max-autotune compile goes (bench_compiler.py
cases): the first call's seconds, our lowering/codegen (compile_graph), candidate compiles
(tuner.bench.compile_all: wall, summed per-candidate seconds, count), measurements
(tuner.bench.benchmark: wall, count), and decisions by source. One case per process; the case
gpt2_train is a GPT-2 (6 layers) AMP training step, forward and backward.
    python3 scripts/probes/max_autotune_compile_split.py gpt2 [mode]"""
import json, os, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp())
os.environ.setdefault("TUNER_CACHE_DIR", tempfile.mkdtemp())
import torch
import bench_compiler as bc
from tuner import bench, engine
from tuner.compiler import stats

acc = {"compile_all_wall": 0.0, "compile_all_sum": 0.0, "compiled": 0, "bench_wall": 0.0, "benchmarks": 0}
_ca, _bm = bench.compile_all, bench.benchmark


batches = []


def compile_all(fn, cands, **kw):
    def timed(c):
        t = time.perf_counter()
        try:
            return fn(c)
        finally:
            acc["compile_all_sum"] += time.perf_counter() - t
    t = time.perf_counter()
    try:
        return _ca(timed, cands, **kw)
    finally:
        acc["compile_all_wall"] += time.perf_counter() - t
        acc["compiled"] += len(cands)
        batches.append((len(cands), round(time.perf_counter() - t, 2), kw.get("jobs") is not None))


def benchmark(*a, **kw):
    t = time.perf_counter()
    try:
        out = _bm(*a, **kw)
    except Exception:
        acc["benchmarks"] += 1     # (a failed candidate was run; a planning stop is not counted)
        raise
    finally:
        acc["bench_wall"] += time.perf_counter() - t
    acc["benchmarks"] += 1
    return out


bench.compile_all, bench.benchmark = compile_all, benchmark
# an experiment's smaller process batches (tuner.bench.PROCESS_BATCH_MIN: below it, threads)
bench.PROCESS_BATCH_MIN = int(os.environ.get("PROBE_PROCESS_BATCH_MIN", bench.PROCESS_BATCH_MIN))
if os.environ.get("PROBE_NO_PREBUILD"):   # an experiment's A/B: no candidates built ahead
    import tuner.compiler.compile_graph as _cg
    _cg.prebuild = lambda launchers, device: 0
if os.environ.get("PROBE_NO_PREBUILD") or os.environ.get("PROBE_NO_PROBE_PREBUILD"):
    # A/B: the mm point's probes not built ahead (PROBE_NO_PREBUILD: nothing built ahead)
    import tuner.compiler.mm_probes as _mm_probes
    _mm_probes.prebuild = lambda problems, compile_fn: 0
mode = sys.argv[2] if len(sys.argv) > 2 else "max-autotune-no-cudagraphs"


def gpt2_train():
    """A GPT-2 training step (issue 15's row): 6 layers of GPT-2 small, fp32 weights under bf16
    autocast, batch 8 x seq 512, dropout 0; the compiled forward returns the LM loss and the
    step is its backward (AOTAutograd compiles the backward graph at the first one)."""
    torch.manual_seed(0)
    model = bc._gpt2_6l_train(False).cuda().train()   # (bench_compiler's gpt2_train model)
    ids = torch.randint(0, model.config.vocab_size, (8, 512), device="cuda")
    compiled = torch.compile(model, backend="tuner", mode=None if mode == "default" else mode)

    def step():
        model.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = compiled(input_ids=ids, labels=ids).loss
        loss.backward()
    return step


# PROBE_PROFILE=1: the first call under cProfile (this process only: not the compile workers),
# its top functions by own and by cumulative time printed as one JSON line after the row
import cProfile
import pstats
prof = cProfile.Profile() if os.environ.get("PROBE_PROFILE") else None
if sys.argv[1] == "gpt2_train":
    stats.reset()
    engine.HISTORY.clear()
    step = gpt2_train()
    t = time.perf_counter()
    if prof is not None:
        prof.enable()
    step()
else:
    case = bc.CASE_BY_NAME[sys.argv[1]]
    built = case.build(False, "cuda")
    x = built.make_inputs(0)
    stats.reset()
    engine.HISTORY.clear()
    f = torch.compile(built.fn, backend="tuner", mode=None if mode == "default" else mode)
    t = time.perf_counter()
    if prof is not None:
        prof.enable()
    f(*x)
torch.cuda.synchronize()
first = time.perf_counter() - t
if prof is not None:
    prof.disable()
tot = stats.totals()
sources = {}
for d in engine.HISTORY:
    sources[d.source] = sources.get(d.source, 0) + 1
row = {"case": sys.argv[1], "mode": mode, "first_s": round(first, 2),
       "compile_graph_s": round(tot.compile_seconds, 2), "jit_s": round(tot.jit_seconds, 2),
       "tuning_s": round(tot.tuning_seconds, 2), "kernels": tot.kernels, "decisions": sources,
       "prebuilt": getattr(tot, "prebuilt", None),
       **{k: round(v, 2) if isinstance(v, float) else v for k, v in acc.items()},
       "workers": bench.compile_workers(), "processes": bench.compile_processes(),
       "worker_pool": __import__("tuner.compile_workers", fromlist=["STATS"]).STATS,
       "batches": batches}
print(json.dumps(row), flush=True)
print(json.dumps({"slow_jobs": __import__("tuner.compile_workers", fromlist=["SLOW"]).SLOW}))
if prof is not None:
    st = pstats.Stats(prof)

    def top(key, n=40):
        rows = sorted(st.stats.items(), key=lambda kv: -kv[1][key])[:n]
        return [[f"{Path(f).name}:{line}:{fn}", round(v[2], 3), round(v[3], 3), v[1]]
                for (f, line, fn), v in rows]
    # [where, own s, cumulative s, calls]
    print(json.dumps({"profile_own": top(2), "profile_cum": top(3)}), flush=True)
for d in engine.HISTORY:
    if d.source == "heuristic" and d.namespace.startswith("mm_backend"):
        print(json.dumps({"answered": d.namespace, "problem": str(d.problem)[:120], "choice": str(d.choice)}), flush=True)
for d in engine.HISTORY:
    if d.n_measured:
        print(json.dumps({"ns": d.namespace, "source": d.source, "n": d.n_measured,
                          "s": round(d.tuning_seconds, 2), "problem": str(d.problem)[:120],
                          "choice": str(d.choice)[:120],
                          "timings": [[str(c)[:80], round(t, 5)] for c, t in d.timings[:3]]}), flush=True)
