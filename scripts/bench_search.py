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

    source scripts/device_env.sh && python3 scripts/bench_search.py --out $OUT
    python3 scripts/bench_search.py --smoke          # CPU, Triton interpreter, tiny shapes
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
    p.add_argument("--radius", type=int, default=1, help="coordinate descent radius")
    p.add_argument("--check-all-directions", action="store_true",
                   help="coordinate descent: also try joint moves at the local optimum")
    p.add_argument("--budget-s", type=float, default=540.0,
                   help="start no new kernel after this many seconds (the JSON is written after "
                        "each kernel, so a cut-off run keeps what it finished); default %(default)s")
    p.add_argument("--json", action="store_true", help="print the JSON result on stdout")
    args = p.parse_args(argv)
    if args.reps is not None and args.reps < 1:
        p.error("--reps must be >= 1")
    return args


ARGS = parse_args()
if ARGS.smoke:
    os.environ["TRITON_INTERPRET"] = "1"
os.environ["TUNER_CACHE"] = "0"  # every search measures: the figure is the search's cost
os.environ.setdefault("TUNER_BENCH_REPS", str(ARGS.reps or (1 if ARGS.smoke else 25)))
os.environ.setdefault("TUNER_BENCH_WARMUP", "0" if ARGS.smoke else "5")

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import tuner  # noqa: E402
from tuner import bench  # noqa: E402
from tuner.space import ConfigSpace, DeviceLimits  # noqa: E402

DEVICE = "cpu" if ARGS.smoke or not torch.cuda.is_available() else "cuda"


# --------------------------------------------------------------------------------------------
# Kernels: written the way the compiler emits them (masked blocks, looped reductions).


@triton.jit
def scale_shift_kernel(x_ptr, out_ptr, n, XBLOCK: tl.constexpr):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * 2.0 + 1.0, mask=m)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, XBLOCK: tl.constexpr):
    offs = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def transpose_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, YBLOCK: tl.constexpr):
    # x is (rows, cols) row-major; out is (cols, rows). X walks cols (contiguous reads).
    c = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[None, :]
    r = tl.program_id(1) * YBLOCK + tl.arange(0, YBLOCK)[:, None]
    m = (r < rows) & (c < cols)
    tl.store(out_ptr + c * rows + r, tl.load(x_ptr + r * cols + c, mask=m), mask=m)


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    row = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    acc = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        acc += tl.load(x_ptr + row * cols + col, mask=(row < rows) & (col < cols), other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=1)[:, None], mask=row < rows)


@triton.jit
def col_sum_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    col = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[None, :]
    acc = tl.zeros([RBLOCK, XBLOCK], dtype=tl.float32)
    for start in range(0, rows, RBLOCK):
        row = start + tl.arange(0, RBLOCK)[:, None]
        acc += tl.load(x_ptr + row * cols + col, mask=(row < rows) & (col < cols), other=0.0)
    tl.store(out_ptr + col, tl.sum(acc, axis=0)[None, :], mask=col < cols)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, rows, cols, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    row = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    rmask = row < rows
    mx = tl.full([XBLOCK, RBLOCK], float("-inf"), tl.float32)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        x = tl.load(x_ptr + row * cols + col, mask=rmask & (col < cols), other=float("-inf"))
        mx = tl.maximum(mx, x)
    rmax = tl.max(mx, axis=1)[:, None]
    acc = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        x = tl.load(x_ptr + row * cols + col, mask=rmask & (col < cols), other=float("-inf"))
        acc += tl.exp(x - rmax)
    denom = tl.sum(acc, axis=1)[:, None]
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        m = rmask & (col < cols)
        x = tl.load(x_ptr + row * cols + col, mask=m, other=float("-inf"))
        tl.store(out_ptr + row * cols + col, tl.exp(x - rmax) / denom, mask=m)


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, rows, cols, eps,
                     XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    row = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    rmask = row < rows
    s = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    sq = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        x = tl.load(x_ptr + row * cols + col, mask=rmask & (col < cols), other=0.0)
        s += x
        sq += x * x
    mean = tl.sum(s, axis=1)[:, None] / cols
    var = tl.sum(sq, axis=1)[:, None] / cols - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, cols, RBLOCK):
        col = start + tl.arange(0, RBLOCK)[None, :]
        m = rmask & (col < cols)
        x = tl.load(x_ptr + row * cols + col, mask=m, other=0.0)
        w = tl.load(w_ptr + col, mask=col < cols, other=1.0)
        b = tl.load(b_ptr + col, mask=col < cols, other=0.0)
        tl.store(out_ptr + row * cols + col, (x - mean) * rstd * w + b, mask=m)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    # grouped ordering: neighbouring programs share A rows in L2
    width = GROUP_M * grid_n
    group = pid // width
    first_m = group * GROUP_M
    size_m = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % size_m)
    pid_n = (pid % width) // size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


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


def problems(smoke: bool):
    dev = DeviceLimits.current()
    S = smoke
    out = []

    n = 1000 if S else 1 << 24
    x = _rand(n)
    pw = ConfigSpace.pointwise([n], device=dev).restrict(XBLOCK=(64, 256) if S else (128, 8192),
                                                          num_warps=(1, 2) if S else (1, 16))
    out.append(dict(name="pointwise_1in", kernel=scale_shift_kernel, args=[x, torch.empty_like(x), n],
                    grid=_n_grid, ref=lambda a: a[0] * 2 + 1, result=1, space=pw))
    y = _rand(n)
    out.append(dict(name="pointwise_2in", kernel=add_kernel, args=[x, y, torch.empty_like(x), n],
                    grid=_n_grid, ref=lambda a: a[0] + a[1], result=2, space=pw))

    r, c = (48, 40) if S else (4096, 4096)
    t = _rand(r, c)
    tsp = ConfigSpace.pointwise([c, r], device=dev).restrict(
        XBLOCK=(16, 32) if S else (16, 128), YBLOCK=(16, 32) if S else (16, 128),
        num_warps=(1, 1) if S else (2, 8))
    out.append(dict(name="transpose_copy", kernel=transpose_kernel,
                    args=[t, torch.empty(c, r, device=DEVICE), r, c],
                    grid=lambda m: (triton.cdiv(m["cols"], m["XBLOCK"]), triton.cdiv(m["rows"], m["YBLOCK"])),
                    ref=lambda a: a[0].t(), result=1, space=tsp))

    for name, (rr, cc) in (("row_sum_small_r", (16, 24) if S else (262144, 64)),
                           ("row_sum_medium_r", (8, 100) if S else (16384, 1024)),
                           ("row_sum_large_r", (4, 300) if S else (1024, 32768))):
        a = _rand(rr, cc)
        sp = _reduction_space(rr, cc, dev, S)
        out.append(dict(name=name, kernel=row_sum_kernel, args=[a, torch.empty(rr, device=DEVICE), rr, cc],
                        grid=_rows_grid, ref=lambda a: a[0].sum(1), result=1, space=sp, tol=1e-3))

    rr, cc = (40, 16) if S else (8192, 4096)
    a = _rand(rr, cc)
    out.append(dict(name="col_sum", kernel=col_sum_kernel, args=[a, torch.empty(cc, device=DEVICE), rr, cc],
                    grid=_cols_grid, ref=lambda a: a[0].sum(0), result=1,
                    space=_reduction_space(cc, rr, dev, S), tol=1e-3))

    rr, cc = (8, 50) if S else (8192, 2048)
    a = _rand(rr, cc)
    out.append(dict(name="softmax", kernel=softmax_kernel, args=[a, torch.empty_like(a), rr, cc],
                    grid=_rows_grid, ref=lambda a: torch.softmax(a[0], -1), result=1,
                    space=_reduction_space(rr, cc, dev, S), tol=1e-4))
    w, b = _rand(cc), _rand(cc)
    out.append(dict(name="layernorm", kernel=layernorm_kernel,
                    args=[a, w, b, torch.empty_like(a), rr, cc, 1e-5], grid=_rows_grid,
                    ref=lambda a: torch.nn.functional.layer_norm(a[0], (a[0].shape[1],), a[1], a[2], 1e-5),
                    result=3, space=_reduction_space(rr, cc, dev, S), tol=1e-3))

    m = n_ = k = 32 if S else 4096
    dt = torch.float32 if S else torch.float16
    A, B = _rand(m, k, dtype=dt), _rand(k, n_, dtype=dt)
    msp = ConfigSpace.matmul(m, n_, k, element_size=A.element_size(), device=dev)
    msp = msp.restrict(BLOCK_M=(16, 32), BLOCK_N=(16, 32), BLOCK_K=(16, 16), num_warps=(2, 2),
                       num_stages=(1, 1)) if S else \
        msp.restrict(BLOCK_M=(64, 256), BLOCK_N=(64, 256), BLOCK_K=(32, 64), num_warps=(4, 8),
                     num_stages=(3, 5))
    out.append(dict(name="matmul", kernel=matmul_kernel,
                    args=[A, B, torch.empty(m, n_, dtype=dt, device=DEVICE), m, n_, k],
                    grid=lambda mt: (triton.cdiv(mt["M"], mt["BLOCK_M"]) * triton.cdiv(mt["N"], mt["BLOCK_N"]),),
                    ref=lambda a: (a[0].float() @ a[1].float()).to(a[0].dtype), result=2, space=msp,
                    tol=1e-2 if not S else 1e-3))
    return out


def _reduction_space(xnumel, rnumel, dev, smoke):
    # spaces sized so that all exhaustive sweeps together stay around a thousand compiles
    sp = ConfigSpace.reduction(xnumel, rnumel, device=dev,
                               max_block_numel=1024 if smoke else 8192)
    if smoke:
        return sp.restrict(XBLOCK=(1, 4), RBLOCK=(8, 32), num_warps=(1, 1))
    return sp.restrict(XBLOCK=(1, 64), RBLOCK=(32, 2048), num_warps=(2, 16))


# --------------------------------------------------------------------------------------------


def tune(problem, search: str):
    space = problem["space"]
    if search == "exhaustive":
        configs = list(space.all_configs())
        kw = dict(configs=configs, key=[], search="exhaustive")
    else:
        kw = dict(configs=space.default_candidates(), key=[], search="coordinate_descent",
                  space=space, search_options={"radius": ARGS.radius,
                                               "check_all_directions": ARGS.check_all_directions})
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
    result = {"env": env_info(), "radius": ARGS.radius,
              "check_all_directions": ARGS.check_all_directions, "kernels": rows,
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
                "kernel": p["name"], "space_size": size,
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

    table = Table(title=f"coordinate descent vs exhaustive ({result['env']['gpu'] or 'CPU interpreter'})")
    for col in ("kernel", "space", "exh n", "exh s", "cd n", "cd s", "cd/exh time", "cost n", "cost s", "ok"):
        table.add_column(col, justify="left" if col == "kernel" else "right")
    for r in rows:
        table.add_row(r["kernel"], str(r["space_size"]), str(r["exhaustive"]["measured"]),
                      f"{r['exhaustive']['seconds']:.1f}", str(r["coordinate_descent"]["measured"]),
                      f"{r['coordinate_descent']['seconds']:.1f}", f"{r['quality']:.3f}",
                      f"{100 * r['cost_measurements']:.0f}%",
                      f"{100 * (r['cost_seconds'] or 0):.0f}%", "yes" if r["correct"] else "NO")
    qs = [r["quality"] for r in rows]
    within = sum(1 for q in qs if q <= 1.02)
    console.print(f"wrote {path}")
    if skipped:
        console.print(f"skipped (over --budget-s): {', '.join(skipped)}; run them with --kernels")
    if ARGS.json:
        print(json.dumps(result, indent=2))
    wide = Console(width=120)
    wide.print(table)
    wide.print(f"{within}/{len(rows)} kernels within 2% of the exhaustive best; "
                    f"geomean quality {_geomean(qs):.3f}, geomean cost "
                    f"{100 * _geomean([r['cost_measurements'] for r in rows]):.0f}% of the measurements")
    if not all(r["correct"] for r in rows):
        sys.exit("bench_search: a tuned kernel gave a wrong result (see the 'ok' column)")


def _geomean(xs):
    import math
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


if __name__ == "__main__":
    main()
