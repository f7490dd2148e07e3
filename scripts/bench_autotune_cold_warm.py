"""Time to first launch of a `tuner.autotune` kernel: cold vs warm (local) vs warm (remote only).

Each measurement is a fresh Python process that imports the kernel and launches it once:
  cold         empty local cache, empty Triton compile cache: benchmarks every config;
  warm-local   the local SQLite cache (and Triton compile cache) the cold run left behind:
               what a second process on the same machine sees;
  warm-remote  an empty local cache and an empty Triton cache, but the shared Redis the cold
               run wrote to: what another CI machine sharing the cache sees.
Reported: the first launch as the child measures it (tuning + compile + run, synchronised)
and the whole process wall time. Warm-remote needs a Redis server: pass --redis-url (or set
TUNER_BENCH_REDIS_URL, which scripts/device/redis.sh exports); without a reachable one the
column is skipped with a note.

    source scripts/device/env.sh && source scripts/device/redis.sh && \\
        python3 scripts/bench_autotune_cold_warm.py --out $OUT
    python3 scripts/bench_autotune_cold_warm.py --smoke    # CPU, Triton interpreter
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

MODES = ("cold", "warm-local", "warm-remote")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results", help="folder for the JSON result (default %(default)s)")
    p.add_argument("--smoke", action="store_true", help="CPU, Triton interpreter, tiny shapes")
    p.add_argument("--redis-url", default=os.environ.get("TUNER_BENCH_REDIS_URL", ""),
                   help="Redis for the warm-remote column (default $TUNER_BENCH_REDIS_URL)")
    p.add_argument("--repeats", type=int, default=3, help="rounds of cold/warm runs (median kept)")
    p.add_argument("--search", default="coordinate_descent",
                   choices=("exhaustive", "coordinate_descent", "budgeted"))
    p.add_argument("--json", action="store_true", help="print the JSON result on stdout")
    p.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    return args


# --------------------------------------------------------------------------------------------
# Child: one process, one first launch.


def child(args) -> None:
    t_proc = time.perf_counter()
    if args.smoke:
        os.environ["TRITON_INTERPRET"] = "1"
    import torch
    import triton

    import tuner
    from tuner.space import ConfigSpace

    device = "cpu" if args.smoke or not torch.cuda.is_available() else "cuda"
    rows, cols = (8, 64) if args.smoke else (16384, 2048)

    # imported here, after TRITON_INTERPRET is set: the kernel's decoration counts in the launch
    from sample_kernels import softmax_kernel

    space = ConfigSpace.reduction(rows, cols)
    space = space.restrict(XBLOCK=(1, 4), RBLOCK=(16, 64), num_warps=(1, 1)) if args.smoke else \
        space.restrict(XBLOCK=(1, 64), RBLOCK=(64, 2048), num_warps=(2, 16))
    kernel = tuner.autotune(configs=space.default_candidates(), key=["rows", "cols"],
                            search=args.search, space=space)(softmax_kernel)
    x = torch.randn(rows, cols, device=device)
    out = torch.empty_like(x)
    t0 = time.perf_counter()
    kernel[lambda m: (triton.cdiv(m["rows"], m["XBLOCK"]),)](x, out, rows, cols)
    if device == "cuda":
        torch.cuda.synchronize()
    first = time.perf_counter() - t0
    ok = bool(torch.allclose(out, torch.softmax(x, -1), atol=1e-5, rtol=1e-4))
    d = kernel.last_decision
    # The same lookup again, from a fresh decorator (no in-process answer): now the cache's
    # modules are imported and its connections open, so this is the lookup proper.
    again = tuner.autotune(configs=space.default_candidates(), key=["rows", "cols"],
                           search=args.search, space=space)(softmax_kernel)
    again[lambda m: (triton.cdiv(m["rows"], m["XBLOCK"]),)](x, out, rows, cols)
    from tuner.cache import get_cache
    print(json.dumps({"first_launch_s": first, "import_s": t0 - t_proc, "source": d.source,
                      # first launch = decide (lookup + one-time imports/connections; or the
                      # whole search when cold) + the chosen kernel's compile/load and run
                      "decide_s": d.tuning_seconds, "kernel_s": first - d.tuning_seconds,
                      "lookup_steady_s": again.last_decision.tuning_seconds,
                      "measured": d.n_measured, "choice": str(d.choice), "correct": ok,
                      "cache_stats": get_cache().stats()}))


# --------------------------------------------------------------------------------------------
# Parent: fresh folders per round, one child per mode.


def redis_reachable(url: str) -> str | None:
    """None when a PING answers, else why not."""
    if not url:
        return "no --redis-url given and TUNER_BENCH_REDIS_URL is not set"
    try:
        import redis
        redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1).ping()
        return None
    except Exception as e:
        return f"{url} not reachable ({type(e).__name__}: {e})"


def run_child(args, mode: str, env: dict) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", mode, "--search", args.search]
    if args.smoke:
        cmd.append("--smoke")
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{mode} run failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_s"] = wall
    return result


def main(args) -> int:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console(stderr=True)
    why_no_remote = redis_reachable(args.redis_url)
    modes = [m for m in MODES if m != "warm-remote" or why_no_remote is None]
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("TUNER_REMOTE")}
    base_env.pop("TUNER_CACHE", None)
    if args.smoke:  # the interpreter is slow: a couple of repetitions are enough to rank
        base_env.update(TUNER_BENCH_REPS="2", TUNER_BENCH_WARMUP="0")
    runs: dict[str, list[dict]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory(prefix="tuner-coldwarm-") as tmp, \
            Progress(console=console, transient=True) as progress:
        task = progress.add_task("runs", total=args.repeats * len(modes))
        for i in range(args.repeats):
            root = Path(tmp) / f"round{i}"
            prefix = f"tuner-bench-{uuid.uuid4().hex[:8]}:"  # a clean remote namespace per round
            remote = {"TUNER_REMOTE_CACHE": args.redis_url, "TUNER_REMOTE_PREFIX": prefix} \
                if why_no_remote is None else {}
            envs = {
                "cold": {**base_env, **remote, "TUNER_CACHE_DIR": str(root / "local"),
                         "TRITON_CACHE_DIR": str(root / "triton")},
                "warm-local": {**base_env, "TUNER_CACHE_DIR": str(root / "local"),
                               "TRITON_CACHE_DIR": str(root / "triton")},
                "warm-remote": {**base_env, **remote, "TUNER_CACHE_DIR": str(root / "local2"),
                                "TRITON_CACHE_DIR": str(root / "triton2")},
            }
            for mode in modes:
                progress.update(task, description=f"round {i + 1}: {mode}")
                runs[mode].append(run_child(args, mode, envs[mode]))
                progress.advance(task)

    import torch
    import triton

    import tuner
    summary = {m: {"first_launch_s": statistics.median(r["first_launch_s"] for r in rs),
                   "decide_s": statistics.median(r["decide_s"] for r in rs),
                   "kernel_s": statistics.median(r["kernel_s"] for r in rs),
                   "lookup_steady_s": statistics.median(r["lookup_steady_s"] for r in rs),
                   "process_s": statistics.median(r["process_s"] for r in rs),
                   "measured": [r["measured"] for r in rs], "sources": [r["source"] for r in rs],
                   "correct": all(r["correct"] for r in rs)} for m, rs in runs.items()}
    result = {"env": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                      "torch": torch.__version__, "triton": triton.__version__,
                      "tuner": tuner.__version__, "smoke": args.smoke, "search": args.search,
                      "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() and not args.smoke else None},
              "remote": None if why_no_remote else "redis", "remote_note": why_no_remote,
              "summary": summary, "runs": runs}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = out / f"bench_autotune_cold_warm{'-smoke' if args.smoke else ''}-{stamp}.json"
    path.write_text(json.dumps(result, indent=2))
    console.print(f"wrote {path}")
    if args.json:
        print(json.dumps(result, indent=2))

    table = Table(title=f"time to first launch ({result['env']['gpu'] or 'CPU interpreter'}, "
                        f"median of {args.repeats})")
    for col in ("mode", "first launch s", "decide s", "kernel s", "lookup ms", "process s",
                "measured", "answer from", "ok"):
        table.add_column(col, justify="left" if col in ("mode", "answer from") else "right")
    for m, s in summary.items():
        table.add_row(m, f"{s['first_launch_s']:.3f}", f"{s['decide_s']:.3f}", f"{s['kernel_s']:.3f}",
                      f"{1e3 * s['lookup_steady_s']:.2f}", f"{s['process_s']:.2f}",
                      "/".join(map(str, s["measured"])), ",".join(sorted(set(s["sources"]))),
                      "yes" if s["correct"] else "NO")
    wide = Console(width=120)
    wide.print(table)
    wide.print("first launch = decide (the search when cold; on a hit the lookup plus the one-time "
               "imports and connections it triggers) + kernel (compile or load of the chosen config, "
               "run); lookup ms = the same lookup again in that process: the cache's own cost")
    if why_no_remote:
        wide.print(f"note: warm-remote skipped: {why_no_remote}")
    bad = [m for m, s in summary.items() if not s["correct"]] + \
          [m for m in summary if m != "cold" and any(x != "cache" for x in summary[m]["sources"])]
    if bad:
        console.print(f"[red]unexpected: {', '.join(sorted(set(bad)))} (wrong result, or a warm run "
                      "that did not hit the cache)[/red]")
        return 1
    return 0


if __name__ == "__main__":
    ARGS = parse_args()
    if ARGS.child:
        child(ARGS)
    else:
        sys.exit(main(ARGS))
