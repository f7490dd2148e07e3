"""Coordinate descent vs exhaustive search over the same config space, on real Triton kernels.

For each kernel (pointwise with 1 and 2 inputs, a 2-D transpose copy, row reductions with
small / medium / large rows, a column reduction, softmax, layernorm and a matmul) both searches
run through `tuner.autotune` with the cache off:
  exhaustive          every config of the space,
  coordinate descent  from the space's default candidates.
Quality is the time of coordinate descent's winner over the time of the exhaustive winner,
both re-measured side by side at the end ("referee" timing, more repetitions), so noise in the
searches themselves does not decide the figure. Cost is measurements and seconds (compilation
included; coordinate descent runs first, so it pays its own compiles).

Coordinate descent runs with the engine's defaults (joint check at each local optimum, plateau
walks within noise) unless options say otherwise; `--classic` is the reference tuner's plain
descent. Each sweep's new configs are compiled in parallel before they are timed, as the
exhaustive search compiles all of its configs first.

`--replay FILE` runs on the CPU without kernels: both searches replay the timings a GPU run
recorded in FILE (every config of every space) and print the same table; quality is then the
recorded time of coordinate descent's winner over the recorded best, and seconds are not
measured. The JSON says it is a replay.

    source scripts/device/env.sh && python3 scripts/bench_search.py --out $OUT
    python3 scripts/bench_search.py --smoke          # CPU, Triton interpreter, tiny shapes
    python3 scripts/bench_search.py --replay bench/results/engine/bench_search-....json
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results", help="folder for the JSON result (default %(default)s)")
    p.add_argument("--smoke", action="store_true",
                   help="run on the CPU under the Triton interpreter with tiny shapes and spaces")
    p.add_argument("--kernels", default="", help="comma-separated subset of kernel names")
    p.add_argument("--reps", type=int, default=None, help="timed repetitions per measurement")
    p.add_argument("--referee-reps", type=int, default=None,
                   help="repetitions of the final side-by-side timing of both winners")
    p.add_argument("--radius", type=int, default=None,
                   help="coordinate descent radius (default: the engine's)")
    p.add_argument("--starts", type=int, default=None,
                   help="coordinate descent: descend from this many of the fastest starts")
    p.add_argument("--plateau", type=float, default=None,
                   help="coordinate descent: relative tie band walked across (0 = off)")
    p.add_argument("--classic", action="store_true",
                   help="coordinate descent as the reference tuner: one start, one field at a "
                        "time, no joint check, no plateau walks")
    p.add_argument("--replay", metavar="FILE", nargs="+", default=None,
                   help="replay the timings recorded in bench_search JSON files (CPU, no kernels; "
                        "several files make one table)")
    p.add_argument("--budget-s", type=float, default=540.0,
                   help="start no new kernel after this many seconds (the JSON is written after "
                        "each kernel, so a cut-off run keeps what it finished); default %(default)s")
    p.add_argument("--json", action="store_true", help="print the JSON result on stdout")
    args = p.parse_args(argv)
    if args.reps is not None and args.reps < 1:
        p.error("--reps must be >= 1")
    if args.radius is not None and args.radius < 1:
        p.error("--radius must be >= 1")
    if args.starts is not None and args.starts < 1:
        p.error("--starts must be >= 1")
    for f in args.replay or []:
        if not Path(f).is_file():
            p.error(f"--replay: no such file {f}")
    if args.replay is not None and args.smoke:
        p.error("--replay and --smoke exclude each other")
    return args


def cd_options(args) -> dict:
    """Options for coordinate descent: the engine's defaults, changed only where asked."""
    opts = dict(starts=1, plateau=0.0, check_all_directions=False) if args.classic else {}
    for name in ("radius", "starts", "plateau"):
        if getattr(args, name) is not None:
            opts[name] = getattr(args, name)
    return opts


ARGS = parse_args()
if ARGS.smoke:
    os.environ["TRITON_INTERPRET"] = "1"
os.environ["TUNER_CACHE"] = "0"  # every search measures: the figure is the search's cost
os.environ.setdefault("TUNER_BENCH_REPS", str(ARGS.reps or (1 if ARGS.smoke else 25)))
os.environ.setdefault("TUNER_BENCH_WARMUP", "0" if ARGS.smoke else "5")

import torch  # noqa: E402
import triton  # noqa: E402

import tuner  # noqa: E402
from tuner import bench  # noqa: E402
from tuner.space import ConfigSpace, DeviceLimits  # noqa: E402
from sample_kernels import (add_kernel, col_sum_kernel, layernorm_kernel,  # noqa: E402
                            matmul_kernel, row_sum_kernel, scale_shift_kernel,
                            softmax_kernel, transpose_kernel)

DEVICE = "cpu" if ARGS.smoke or not torch.cuda.is_available() else "cuda"


# --------------------------------------------------------------------------------------------
# Problems: inputs, grid, eager reference and the space searched.


def _rand(*shape, dtype=torch.float32):
    return bench.random_like(torch.empty(*shape, dtype=dtype, device=DEVICE))


def _rows_grid(meta):
    return (triton.cdiv(meta["rows"], meta["XBLOCK"]),)


def _cols_grid(meta):
    return (triton.cdiv(meta["cols"], meta["XBLOCK"]),)


def _n_grid(meta):
    return (triton.cdiv(meta["n"], meta["XBLOCK"]),)


def space_specs(smoke: bool) -> dict[str, dict]:
    """kernel -> the spec of the space searched (ConfigSpace.from_spec; recorded in the JSON)."""
    S = smoke
    n = 1000 if S else 1 << 24
    pw = {"kind": "pointwise", "args": [[n]],
          "restrict": {"XBLOCK": [64, 256] if S else [128, 8192], "num_warps": [1, 2] if S else [1, 16]}}
    r, c = (48, 40) if S else (4096, 4096)
    tsp = {"kind": "pointwise", "args": [[c, r]],
           "restrict": {"XBLOCK": [16, 32] if S else [16, 128], "YBLOCK": [16, 32] if S else [16, 128],
                        "num_warps": [1, 1] if S else [2, 8]}}
    m = 32 if S else 4096
    mm = {"kind": "matmul", "args": [m, m, m], "options": {"element_size": 4 if S else 2},
          "restrict": {"BLOCK_M": [16, 32], "BLOCK_N": [16, 32], "BLOCK_K": [16, 16],
                       "num_warps": [2, 2], "num_stages": [1, 1]} if S else
          {"BLOCK_M": [64, 256], "BLOCK_N": [64, 256], "BLOCK_K": [32, 64], "num_warps": [4, 8],
           "num_stages": [3, 5]}}
    return {"pointwise_1in": pw, "pointwise_2in": pw, "transpose_copy": tsp,
            "row_sum_small_r": _reduction_spec(*ROW_SUMS["row_sum_small_r"][S], S),
            "row_sum_medium_r": _reduction_spec(*ROW_SUMS["row_sum_medium_r"][S], S),
            "row_sum_large_r": _reduction_spec(*ROW_SUMS["row_sum_large_r"][S], S),
            # a column sum reduces over rows: x = columns, r = rows
            "col_sum": _reduction_spec(*reversed(COL_SUM[S]), S),
            "softmax": _reduction_spec(*SOFTMAX[S], S), "layernorm": _reduction_spec(*SOFTMAX[S], S),
            "matmul": mm}


# (rows, cols) per kernel, [full, smoke]
ROW_SUMS = {"row_sum_small_r": ((262144, 64), (16, 24)), "row_sum_medium_r": ((16384, 1024), (8, 100)),
            "row_sum_large_r": ((1024, 32768), (4, 300))}
COL_SUM = ((8192, 4096), (40, 16))
SOFTMAX = ((8192, 2048), (8, 50))
# what older result files did not record: the limits of the GPUs they were measured on
KNOWN_DEVICES = {"NVIDIA H100 80GB HBM3": {"name": "NVIDIA H100 80GB HBM3", "max_threads_per_block": 1024,
                                           "shared_memory_per_block": 232448, "warp_size": 32}}


def problems(smoke: bool):
    dev = DeviceLimits.current()
    S = smoke
    specs = space_specs(S)

    def space(name):
        return ConfigSpace.from_spec(specs[name], device=dev)
    out = []

    n = 1000 if S else 1 << 24
    x = _rand(n)
    pw = space("pointwise_1in")
    out.append(dict(name="pointwise_1in", kernel=scale_shift_kernel, args=[x, torch.empty_like(x), n],
                    grid=_n_grid, ref=lambda a: a[0] * 2 + 1, result=1, space=pw))
    y = _rand(n)
    out.append(dict(name="pointwise_2in", kernel=add_kernel, args=[x, y, torch.empty_like(x), n],
                    grid=_n_grid, ref=lambda a: a[0] + a[1], result=2, space=pw))

    r, c = (48, 40) if S else (4096, 4096)
    t = _rand(r, c)
    tsp = space("transpose_copy")
    out.append(dict(name="transpose_copy", kernel=transpose_kernel,
                    args=[t, torch.empty(c, r, device=DEVICE), r, c],
                    grid=lambda m: (triton.cdiv(m["cols"], m["XBLOCK"]), triton.cdiv(m["rows"], m["YBLOCK"])),
                    ref=lambda a: a[0].t(), result=1, space=tsp))

    for name, shapes in ROW_SUMS.items():
        rr, cc = shapes[S]
        a = _rand(rr, cc)
        sp = space(name)
        out.append(dict(name=name, kernel=row_sum_kernel, args=[a, torch.empty(rr, device=DEVICE), rr, cc],
                        grid=_rows_grid, ref=lambda a: a[0].sum(1), result=1, space=sp, tol=1e-3))

    rr, cc = COL_SUM[S]
    a = _rand(rr, cc)
    out.append(dict(name="col_sum", kernel=col_sum_kernel, args=[a, torch.empty(cc, device=DEVICE), rr, cc],
                    grid=_cols_grid, ref=lambda a: a[0].sum(0), result=1,
                    space=space("col_sum"), tol=1e-3))

    rr, cc = SOFTMAX[S]
    a = _rand(rr, cc)
    out.append(dict(name="softmax", kernel=softmax_kernel, args=[a, torch.empty_like(a), rr, cc],
                    grid=_rows_grid, ref=lambda a: torch.softmax(a[0], -1), result=1,
                    space=space("softmax"), tol=1e-4))
    w, b = _rand(cc), _rand(cc)
    out.append(dict(name="layernorm", kernel=layernorm_kernel,
                    args=[a, w, b, torch.empty_like(a), rr, cc, 1e-5], grid=_rows_grid,
                    ref=lambda a: torch.nn.functional.layer_norm(a[0], (a[0].shape[1],), a[1], a[2], 1e-5),
                    result=3, space=space("layernorm"), tol=1e-3))

    m = n_ = k = 32 if S else 4096
    dt = torch.float32 if S else torch.float16
    A, B = _rand(m, k, dtype=dt), _rand(k, n_, dtype=dt)
    msp = space("matmul")
    out.append(dict(name="matmul", kernel=matmul_kernel,
                    args=[A, B, torch.empty(m, n_, dtype=dt, device=DEVICE), m, n_, k],
                    grid=lambda mt: (triton.cdiv(mt["M"], mt["BLOCK_M"]) * triton.cdiv(mt["N"], mt["BLOCK_N"]),),
                    ref=lambda a: (a[0].float() @ a[1].float()).to(a[0].dtype), result=2, space=msp,
                    tol=1e-2 if not S else 1e-3))
    return out


def _reduction_spec(xnumel, rnumel, smoke):
    # spaces sized so that all exhaustive sweeps together stay around a thousand compiles
    return {"kind": "reduction", "args": [xnumel, rnumel],
            "options": {"max_block_numel": 1024 if smoke else 8192},
            "restrict": {"XBLOCK": [1, 4], "RBLOCK": [8, 32], "num_warps": [1, 1]} if smoke else
            {"XBLOCK": [1, 64], "RBLOCK": [32, 2048], "num_warps": [2, 16]}}


# --------------------------------------------------------------------------------------------


def tune(problem, search: str):
    space = problem["space"]
    if search == "exhaustive":
        configs = list(space.all_configs())
        kw = dict(configs=configs, key=[], search="exhaustive")
    else:
        kw = dict(configs=space.default_candidates(), key=[], search="coordinate_descent",
                  space=space, search_options=cd_options(ARGS))
    tuned = tuner.autotune(**kw)(problem["kernel"])
    start = time.perf_counter()
    tuned[problem["grid"]](*problem["args"])
    _sync()
    seconds = time.perf_counter() - start
    d = tuned.last_decision
    return d, seconds


def _sync():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def referee(problem, configs, reps):
    """Side-by-side median times of the given configs (interleaved rounds, same conditions)."""
    kernel, grid, args = problem["kernel"], problem["grid"], problem["args"]
    times = {c: [] for c in configs}
    for _ in range(3):
        for c in configs:
            times[c].append(bench.benchmark(lambda: kernel[grid](*args, **c.all_kwargs()),
                                            reps=reps, warmup=1 if ARGS.smoke else 10))
    return {c: sorted(v)[len(v) // 2] for c, v in times.items()}


def check(problem, config):
    kernel, grid, args = problem["kernel"], problem["grid"], problem["args"]
    kernel[grid](*args, **config.all_kwargs())
    _sync()
    got = args[problem["result"]]
    want = problem["ref"](args)
    tol = problem.get("tol", 1e-5)
    return bool(torch.allclose(got.float(), want.float(), rtol=tol, atol=tol))


def env_info():
    info = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "torch": torch.__version__, "triton": triton.__version__, "tuner": tuner.__version__,
            "python": platform.python_version(), "device": DEVICE,
            "gpu": torch.cuda.get_device_name() if DEVICE == "cuda" else None,
            "interpreter": bench.interpreting(), "smoke": ARGS.smoke,
            "bench_reps": int(os.environ["TUNER_BENCH_REPS"]),
            "bench_warmup": int(os.environ["TUNER_BENCH_WARMUP"])}
    return info


def main():
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console(stderr=True)
    probs = problems(ARGS.smoke)
    names = [p["name"] for p in probs]
    if ARGS.kernels:
        wanted = {k.strip() for k in ARGS.kernels.split(",") if k.strip()}
        unknown = wanted - set(names)
        if unknown:
            sys.exit(f"bench_search: unknown kernels {', '.join(sorted(unknown))}; known: "
                     f"{', '.join(names)}")
        probs = [p for p in probs if p["name"] in wanted]
    referee_reps = ARGS.referee_reps or (1 if ARGS.smoke else 100)
    rows, skipped = [], []
    out = Path(ARGS.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = out / f"bench_search{'-smoke' if ARGS.smoke else ''}-{stamp}.json"
    specs = space_specs(ARGS.smoke)
    result = {"env": env_info(), "coordinate_descent_options": cd_options(ARGS),
              "device_limits": DeviceLimits.current().to_json(), "kernels": rows,
              "skipped": skipped}
    began = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("searching", total=len(probs) * 2)
        for p in probs:
            if time.perf_counter() - began > ARGS.budget_s:
                skipped.append(p["name"])
                continue
            size = p["space"].size()
            progress.update(task, description=f"{p['name']}: coordinate descent")
            cd, cd_s = tune(p, "coordinate_descent")
            progress.advance(task)
            progress.update(task, description=f"{p['name']}: exhaustive ({size} configs)")
            ex, ex_s = tune(p, "exhaustive")
            progress.advance(task)
            ref = referee(p, list({cd.choice, ex.choice}), referee_reps)
            quality = ref[cd.choice] / ref[ex.choice] if ref[ex.choice] > 0 else float("nan")
            rows.append({
                "kernel": p["name"], "space_size": size, "space_spec": specs[p["name"]],
                "exhaustive": {"best": str(ex.choice), "best_ms": ex.time_ms, "measured": ex.n_measured,
                               "seconds": ex_s, "failed": sum(1 for _, t in ex.timings if t == float("inf")),
                               "timings": [[str(c), t if t != float("inf") else None] for c, t in ex.timings]},
                "coordinate_descent": {"best": str(cd.choice), "best_ms": cd.time_ms,
                                       "measured": cd.n_measured, "seconds": cd_s,
                                       "start": [str(c) for c in p["space"].default_candidates()]},
                "referee_ms": {"coordinate_descent": ref[cd.choice], "exhaustive": ref[ex.choice]},
                "quality": quality,
                "in_search_quality": cd.time_ms / ex.time_ms if ex.time_ms else None,
                "cost_measurements": cd.n_measured / max(1, ex.n_measured),
                "cost_seconds": cd_s / ex_s if ex_s > 0 else None,
                "correct": check(p, cd.choice) and check(p, ex.choice),
            })
            path.write_text(json.dumps(result, indent=2))  # after each kernel: a cut-off run keeps it
    path.write_text(json.dumps(result, indent=2))
    report(result, path, skipped, console)
    if not all(r["correct"] for r in rows):
        sys.exit("bench_search: a tuned kernel gave a wrong result (see the 'ok' column)")


def report(result, path, skipped, console):
    from rich.console import Console
    from rich.table import Table

    rows = result["kernels"]
    replayed = "replay" in result
    what = result["env"].get("gpu") or "CPU interpreter"
    if replayed:
        what = f"REPLAY of timings recorded on {what}"

    def secs(x):
        return "-" if x is None else f"{x:.1f}"
    table = Table(title=f"coordinate descent vs exhaustive ({what})")
    for col in ("kernel", "space", "exh n", "exh s", "cd n", "cd s", "cd/exh time", "cost n", "cost s", "ok"):
        table.add_column(col, justify="left" if col == "kernel" else "right")
    for r in rows:
        cost_s = r["cost_seconds"]
        table.add_row(r["kernel"], str(r["space_size"]), str(r["exhaustive"]["measured"]),
                      secs(r["exhaustive"]["seconds"]), str(r["coordinate_descent"]["measured"]),
                      secs(r["coordinate_descent"]["seconds"]), f"{r['quality']:.3f}",
                      f"{100 * r['cost_measurements']:.0f}%",
                      "-" if cost_s is None else f"{100 * cost_s:.0f}%",
                      "yes" if r["correct"] else "NO")
    qs = [r["quality"] for r in rows]
    within = sum(1 for q in qs if q <= 1.02)
    console.print(f"wrote {path}")
    if skipped:
        console.print(f"skipped (over --budget-s): {', '.join(skipped)}; run them with --kernels")
    if ARGS.json:
        print(json.dumps(result, indent=2))
    wide = Console(width=120)
    wide.print(table)
    seconds = [r["cost_seconds"] for r in rows if r["cost_seconds"]]
    wide.print(f"{within}/{len(rows)} kernels within 2% of the exhaustive best; "
               f"geomean quality {_geomean(qs):.3f}, geomean cost "
               f"{100 * _geomean([r['cost_measurements'] for r in rows]):.0f}% of the measurements"
               + (f", {100 * _geomean(seconds):.0f}% of the seconds" if seconds else ""))
    if replayed:
        wide.print(f"(a replay of {', '.join(result['replay']['of'])}: recorded timings, not a new "
                   "measurement)")


def replay_main():
    """--replay: both searches over the recorded timings of every kernel in the file."""
    from rich.console import Console

    from tuner.search import coordinate_descent, exhaustive
    from tuner.search.replay import load_recorded, replay

    console = Console(stderr=True)
    # older files did not record their spaces or device limits: this script's full-size
    # spaces and the limits of the GPU they name stand in (checked against the recording)
    specs = space_specs(False)
    kernels, envs, device = [], [], None
    for f in ARGS.replay:
        try:
            env, found = load_recorded(f)
            doc = json.loads(Path(f).read_text())
        except (ValueError, OSError) as e:
            sys.exit(f"bench_search: {e}")
        envs.append(env)
        device = doc.get("device_limits") or KNOWN_DEVICES.get(env.get("gpu"))
        for k in found:
            k.device = k.device or (DeviceLimits.from_json(device) if device else None)
        kernels += found
    if len({e.get("gpu") for e in envs}) > 1:
        sys.exit("bench_search: --replay files were recorded on different GPUs; replay them apart")
    env = envs[0]
    if ARGS.kernels:
        wanted = {k.strip() for k in ARGS.kernels.split(",") if k.strip()}
        unknown = wanted - {k.name for k in kernels}
        if unknown:
            sys.exit(f"bench_search: kernels {', '.join(sorted(unknown))} are not in the replayed files")
        kernels = [k for k in kernels if k.name in wanted]
    rows = []
    for k in kernels:
        try:
            space = k.space(specs.get(k.name))
        except ValueError as e:
            sys.exit(f"bench_search: {e}")
        ex = replay(k, exhaustive, space=space, initial=list(space.all_configs()))
        cd = replay(k, coordinate_descent, space=space, **cd_options(ARGS))
        rows.append({
            "kernel": k.name, "space_size": k.meta.get("space_size") or cd.space_size,
            "space_spec": k.space_spec or specs.get(k.name),
            "exhaustive": {"best": str(ex.result.best), "best_ms": ex.best_time,
                           "measured": ex.result.n_measured, "seconds": None},
            "coordinate_descent": {"best": str(cd.result.best), "best_ms": cd.best_time,
                                   "measured": cd.result.n_measured, "seconds": None,
                                   "start": [str(c) for c in k.start],
                                   "measured_configs": [str(c) for c in cd.result.timings]},
            "quality": cd.best_time / ex.best_time, "cost_measurements": cd.fraction,
            "cost_seconds": None, "correct": not cd.unrecorded,
        })
    info = env_info()
    result = {"replay": {"of": list(ARGS.replay),
                         "note": "A REPLAY of timings recorded on the GPU named in env, not a new "
                                 "measurement: each search's measure() returned the recorded time."},
              "env": {**env, "replayed_on": {k: info[k] for k in ("date", "torch", "triton",
                                                                   "tuner", "python")}},
              "coordinate_descent_options": cd_options(ARGS), "device_limits": device,
              "kernels": rows, "skipped": []}
    out = Path(ARGS.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = out / f"bench_search-replay-{stamp}.json"
    path.write_text(json.dumps(result, indent=2))
    report(result, path, [], console)


def _geomean(xs):
    import math
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


if __name__ == "__main__":
    replay_main() if ARGS.replay else main()
