"""Compile seconds with the compiled-graph cache (issue 53): per model and mode, the first call
(compile included, synced) in a fresh process for each state, `backend="tuner"` then stock:
  cold               empty tuner/Triton/inductor cache folders, an empty Redis (filled by it)
  warm-remote        empty local folders again, the Redis cold filled: a new CI machine
  warm-remote-triton warm-remote with TUNER_STATIC_LAUNCH=0: kernels through Triton's JIT
  warm-local         cold's local folders again: the same machine, a second run
  stock-cold         `backend="inductor"`, empty folders, its remote FX graph cache on the
                     Redis (TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE and friends)
  stock-warm-remote  inductor with empty local folders and the Redis stock-cold filled
A warm state brings its cold one; --repeat N runs the warm states N times, interleaved, after
the cold ones. Outputs are compared with the cold state's (sha256, max |diff|). Every process
reads Python bytecode from one PYTHONPYCACHEPREFIX compiled first (torch, sympy, triton, the
model libraries, the checkout), as an installed site has it (without .pyc files a read-only
site compiles thousands of modules per process: ~6 s on the device machine). The Redis
(--redis-url, $TUNER_BENCH_REDIS_URL of scripts/device/redis.sh, else its own redis-server;
none: remote states skipped) is FLUSHED once per (model, mode). JSON after every row.

    source scripts/device/redis.sh && python3 scripts/bench_graph_cache.py --out $OUT
    python3 scripts/bench_graph_cache.py --models llama8 --modes max-autotune --states cold,warm-remote
    python3 scripts/bench_graph_cache.py --smoke --models llama8 --modes default   # CPU, tiny
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_cache as bcache      # noqa: E402  (its redis-server start-up)
import redis                      # noqa: E402
import bench_compiler as bc       # noqa: E402  (its model builders, checkout layout, env info)

MODELS = "llama8,vit_b16,resnet50"    # a decoder LLM, a vision transformer, a conv net
STATES = ("cold", "warm-remote", "warm-remote-triton", "warm-local", "stock-cold",
          "stock-warm-remote")
NEEDS = {"warm-remote": "cold", "warm-remote-triton": "cold", "warm-local": "cold",
         "stock-warm-remote": "stock-cold"}
REMOTE_ONLY = {"warm-remote", "warm-remote-triton", "stock-warm-remote"}   # (they need a Redis)


def worker(spec: dict) -> dict:
    """In a fresh process: build, compile, first call; seconds, cache figures, checksum."""
    import torch
    rec: dict = {}
    tuner = spec["backend"] == "tuner"
    if tuner:
        import tuner.compiler.stats as stats
        stats.reset()
    with torch.no_grad():
        torch.manual_seed(0)
        built = bc.CASE_BY_NAME[spec["model"]].build(spec["smoke"], spec["device"])
        inputs = built.make_inputs(0)
        mode = None if spec["mode"] == "default" else spec["mode"]
        compiled = torch.compile(built.fn, backend=spec["backend"], mode=mode)
        bc._sync(spec["device"])
        t0 = time.perf_counter()
        out = compiled(*inputs)
        bc._sync(spec["device"])
        rec["first_call_s"] = round(time.perf_counter() - t0, 3)
    out = out.detach().cpu().contiguous()
    rec["sha256"] = hashlib.sha256(out.reshape(-1).view(torch.uint8).numpy().tobytes()).hexdigest()
    torch.save(out, spec["out"])
    if spec.get("ref") and os.path.exists(spec["ref"]):
        ref = torch.load(spec["ref"])
        rec["max_abs_diff_vs_cold"] = (out.float() - ref.float()).abs().max().item()
    if tuner:
        from tuner.compiler.runtime import launch, static_launch
        graphs, t = stats.graphs(), stats.totals()
        hits = sum(g.graph_cache.startswith("hit") for g in graphs)
        rec.update(graphs=len(graphs), graph_cache=[g.graph_cache for g in graphs],
                   lowered=len(graphs) - hits, graph_cache_hits=hits, kernels=t.kernels,
                   lowering_s=round(t.compile_seconds, 3), jit_s=round(t.jit_seconds, 3),
                   tuning_s=round(t.tuning_seconds, 3), jit_launches=launch.JIT_LAUNCHES,
                   static_kernels=static_launch.LOADED)
    else:    # inductor's own cache counters: FX graph cache and AOTAutograd cache
        from torch._dynamo.utils import counters
        c = {k: v for g in ("inductor", "aot_autograd") for k, v in counters[g].items() if "cache" in k}
        rec.update(graphs=sum(c.get(f"fxgraph_cache_{k}", 0) for k in ("hit", "miss", "bypass")),
                   graph_cache_hits=c.get("fxgraph_cache_hit", 0), cache_counters=c)
    return rec


def run_state(args, model, mode, state, group: Path, url, code_dir) -> dict:
    row = {"model": model, "mode": mode, "state": state}
    if state in REMOTE_ONLY and url is None:
        return {**row, "status": "skipped", "note": "no Redis reachable"}
    stock = state.startswith("stock")
    local = group / ("cold" if state == "warm-local" else state)   # fresh folders but there
    if state != "warm-local" and local.exists():   # a repeat (--repeat): fresh ones of its own
        local = group / f"{state}-{len(list(group.glob(state + '*')))}"
    env = {k: v for k, v in os.environ.items() if k not in ("TUNER_REMOTE_CACHE", "TUNER_REMOTE_READONLY")}
    env.update(PYTHONUNBUFFERED="1", PYTHONPYCACHEPREFIX=str(args.pycache),
               TUNER_GRAPH_CACHE="1", TUNER_CACHE_DIR=str(local / "tuner"),
               TUNER_STATIC_LAUNCH="0" if state.endswith("-triton") else env.get("TUNER_STATIC_LAUNCH", "1"),
               TRITON_CACHE_DIR=str(local / "triton"), TORCHINDUCTOR_CACHE_DIR=str(local / "inductor"),
               PYTHONPATH=str(code_dir) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if args.device == "cpu":
        env["TRITON_INTERPRET"] = "1"
    if url and not stock:    # graph entries go to Redis only when signed
        env.update(TUNER_REMOTE_CACHE=url, TUNER_CACHE_SECRET=args.secret)
    if url and stock:        # inductor's remote caches (torch/_inductor/remote_cache.py)
        kw = redis.Redis.from_url(url).connection_pool.connection_kwargs
        env.update(TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE="1", TORCHINDUCTOR_AUTOTUNE_REMOTE_CACHE="1",
                   TORCHINDUCTOR_AUTOGRAD_REMOTE_CACHE="1", TORCHINDUCTOR_REDIS_URL=url,
                   TORCHINDUCTOR_REDIS_HOST=str(kw.get("host", "localhost")), TORCHINDUCTOR_REDIS_PORT=str(kw.get("port", 6379)))
    cold = "stock-cold" if stock else "cold"
    spec = {"model": model, "mode": mode, "backend": "inductor" if stock else "tuner",
            "smoke": args.smoke, "device": args.device, "out": str(group / f"{state}.pt"),
            "ref": str(group / f"{cold}.pt") if state != cold else None,
            "result": str(group / f"{state}.json")}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--_worker", json.dumps(spec)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=group, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=args.timeout_s)
        status = "ok" if proc.returncode == 0 else f"exit {proc.returncode}"
    except subprocess.TimeoutExpired:
        bc._kill_group(proc.pid)
        out, status = proc.communicate()[0], "timeout"
    bc._kill_group(proc.pid)     # compile workers it left behind
    row.update(status=status, process_s=round(time.perf_counter() - t0, 2))
    if status == "ok" and Path(spec["result"]).exists():
        row.update(json.loads(Path(spec["result"]).read_text()))
    else:
        row["note"] = " | ".join((out or "").strip().splitlines()[-4:])[-600:]
    return row


BYTECODE_PACKAGES = ("torch", "sympy", "triton", "transformers", "timm", "torchvision", "redis",
                     "sqlite_utils", "numpy")


def compile_bytecode(prefix: Path, code_dir: Path) -> dict:
    """The packages the workers import compiled into prefix (compileall, all cores); seconds."""
    import importlib.util
    dirs = [str(code_dir)]
    for name in BYTECODE_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            dirs += list(spec.submodule_search_locations)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", *dirs],
                   env={**os.environ, "PYTHONPYCACHEPREFIX": str(prefix)},
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)   # (a few test files fail)
    return {"prefix": "shared, compiled first", "seconds": round(time.perf_counter() - t0, 1),
            "packages": [d for d in dirs if d != str(code_dir)]}


def derive(rows: list[dict]) -> None:
    """Per row: its seconds over its cold state's, the identical check, tuner vs stock."""
    ok = [r for r in rows if r.get("status") == "ok"]
    by = {(r["model"], r["mode"], r["state"]): r for r in ok}   # (of repeats, the last)
    for r in ok:
        stock = r["state"].startswith("stock")
        peer = by.get((r["model"], r["mode"], "stock-" + r["state"]))
        if peer is not None and not stock:
            r["vs_stock_same_state"] = round(r["first_call_s"] / peer["first_call_s"], 3)
        cold = by.get((r["model"], r["mode"], "stock-cold" if stock else "cold"))
        if cold is not None and cold is not r:
            r["vs_cold"] = round(r["first_call_s"] / cold["first_call_s"], 3)
            r["identical_to_cold"] = r["sha256"] == cold["sha256"]


def table(rows: list[dict]) -> str:
    lines = [f"{'model':<10}{'mode':<14}{'state':<19}{'first s':>9}{'vs cold':>9}{'vs stock':>9}"
             f"{'hits':>7}{'lowered':>8}  identical  status"]
    for r in rows:
        f = lambda k, spec: format(r[k], spec) if r.get(k) is not None else "-"   # noqa: E731
        hits = f"{r['graph_cache_hits']}/{r['graphs']}" if "graphs" in r else "-"
        same = {True: "yes", False: "NO"}.get(r.get("identical_to_cold"), "-")
        lines.append(f"{r['model']:<10}{r['mode']:<14}{r['state']:<19}{f('first_call_s', '.2f'):>9}"
                     f"{f('vs_cold', '.0%'):>9}{f('vs_stock_same_state', '.2f'):>9}{hits:>7}"
                     f"{f('lowered', 'd'):>8}  {same:<9}  {r['status']}"
                     + (f": {r.get('note', '')[:70]}" if r["status"] != "ok" else ""))
    return "\n".join(lines)


def main() -> int:
    desc, _, ex = __doc__.partition("\n\n    ")
    ap = argparse.ArgumentParser(description=desc, epilog="examples:\n    " + ex,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=None, help=f"bench_compiler.py cases (--list there; "
                    f"default {MODELS})")
    ap.add_argument("--modes", default="default,max-autotune", help="default,max-autotune")
    ap.add_argument("--states", default=",".join(STATES), help=f"of {', '.join(STATES)}")
    ap.add_argument("--out", default="bench/results", help="folder for graph_cache_bench.json")
    ap.add_argument("--redis-url", default=os.environ.get("TUNER_BENCH_REDIS_URL"),
                    help="a Redis of the benchmark's own (flushed!); default: start redis-server")
    ap.add_argument("--repeat", type=int, default=1,
                    help="warm states this many times each, interleaved (A/B: median of 3)")
    ap.add_argument("--timeout-s", type=float, default=600.0, help="per process (default 600)")
    ap.add_argument("--smoke", action="store_true", help="tiny models on CPU (Triton interpreter)")
    ap.add_argument("--_worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._worker:
        spec = json.loads(args._worker)
        return Path(spec["result"]).write_text(json.dumps(worker(spec), default=str)) and 0
    models = [m for m in (args.models or ("llama8" if args.smoke else MODELS)).split(",") if m]
    modes = [m for m in args.modes.split(",") if m]
    wanted = {s for s in args.states.split(",") if s}
    bad = [m for m in models if m not in bc.CASE_BY_NAME] + \
        [m for m in modes if m not in ("default", "max-autotune")] + sorted(wanted - set(STATES))
    if bad:
        ap.error(f"unknown model, mode or state: {', '.join(bad)}")
    wanted |= {NEEDS[s] for s in wanted if s in NEEDS}
    states = [s for s in STATES if s in wanted]
    args.device = "cpu" if args.smoke else "cuda"
    if not args.smoke:
        import torch
        if not torch.cuda.is_available():
            ap.error("no CUDA GPU is visible; --smoke runs on CPU")
    args.secret = secrets.token_hex(16)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / ("graph_cache_bench_smoke.json" if args.smoke else "graph_cache_bench.json")
    with tempfile.TemporaryDirectory(prefix="bench-graph-cache-") as tmp_name:
        tmp, server, url = Path(tmp_name), None, args.redis_url
        if url is None and shutil.which("redis-server"):
            server, url = bcache.start_redis(tmp)
        elif url is None:
            print("no Redis (--redis-url, $TUNER_BENCH_REDIS_URL, redis-server)", file=sys.stderr)
        code_dir = bc.lay_out_checkout(tmp / "code")   # workers measure this checkout
        args.pycache = tmp / "pycache"
        print("compiling bytecode ...", file=sys.stderr, flush=True)
        bytecode = compile_bytecode(args.pycache, code_dir)
        doc = {"benchmark": "graph_cache", **bc._env_info(args.device, args.smoke),
               "git_commit": bc._git_commit(), "command": " ".join([sys.executable, *sys.argv]),
               "redis": "own redis-server on loopback" if server else url and "--redis-url",
               "states": states, "bytecode": bytecode, "rows": []}
        try:
            for model in models:
                missing = bc._missing(bc.CASE_BY_NAME[model].needs)
                for mode in modes:
                    (group := tmp / f"{model}-{mode}").mkdir()
                    warm = [s for s in states if s in NEEDS] * max(1, args.repeat)
                    order = [s for s in states if s not in NEEDS] + warm
                    for state in order if not missing else ():
                        if url and state == order[0]:   # a fresh Redis (both compilers')
                            redis.Redis.from_url(url).flushdb()
                        print(f"{model} / {mode} / {state} ...", file=sys.stderr, flush=True)
                        doc["rows"].append(run_state(args, model, mode, state, group, url, code_dir))
                        derive(doc["rows"])
                        r = doc["rows"][-1]
                        print(f"  {r['status']} {r.get('first_call_s', '')} {r.get('note', '')}", file=sys.stderr)
                        bc._write_json(path, doc)
                    if missing:
                        doc["rows"] += [{"model": model, "mode": mode, "state": s, "status": "skipped",
                                         "note": f"needs {', '.join(missing)}"} for s in states]
                        bc._write_json(path, doc)
        finally:
            if server is not None:
                server.kill()
                server.wait()
    print(f"\n{doc.get('gpu') or doc['device']}  torch {doc['torch']}  triton {doc['triton']}"
          f"  wrote {path}")
    print(table(doc["rows"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
