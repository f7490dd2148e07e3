"""Cache figures: hit latency (p50/p99) of the local and remote layers, and write throughput
with 1 and 8 processes, all on loopback. Writes JSON to --out and prints a table last.

    python3 scripts/bench_cache.py --out bench/results            # starts its own redis-server
    python3 scripts/bench_cache.py --redis-url redis://host:6379/0  # or measures a given one
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from statistics import quantiles

# The value of a typical decision: a config, its time, and the timings of ~16 candidates.
VALUE = {"choice": {"XBLOCK": 128, "RBLOCK": 64, "num_warps": 4, "num_stages": 2},
         "time_ms": 0.0123, "default_time_ms": 0.0187, "source": "coordinate_descent",
         "timings": [[{"XBLOCK": 2 ** i, "num_warps": 4}, 0.01 * i] for i in range(16)]}


def key(i: int, tag: str):
    from tuner.cache import CacheKey
    return CacheKey("bench.cache", f"{tag}-problem-{i}", "c" * 64, "b" * 64)


def percentiles_us(samples_ns: list[int]) -> dict:
    q = quantiles(samples_ns, n=100, method="inclusive")
    return {"p50_us": round(q[49] / 1e3, 1), "p99_us": round(q[98] / 1e3, 1), "n": len(samples_ns)}


def timed_gets(cache, keys) -> list[int]:
    out = []
    for k in keys:
        t = time.perf_counter_ns()
        value = cache.get(k)
        out.append(time.perf_counter_ns() - t)
        assert value is not None, "expected a hit"
    return out


def set_env(cache_dir: Path, redis_url: str | None) -> None:
    os.environ["TUNER_CACHE_DIR"] = str(cache_dir)
    os.environ.pop("TUNER_CACHE_SECRET", None)
    os.environ.pop("TUNER_REMOTE_READONLY", None)
    if redis_url:
        os.environ["TUNER_REMOTE_CACHE"] = redis_url
    else:
        os.environ.pop("TUNER_REMOTE_CACHE", None)


def latency(tmp: Path, redis_url: str | None, n: int) -> dict:
    from tuner.cache import get_cache
    results = {}
    set_env(tmp / "lat-local", None)
    cache = get_cache()
    keys = [key(i, "lat") for i in range(n)]
    for k in keys:
        cache.put(k, VALUE)
    timed_gets(cache, keys[: n // 10])  # warm the page cache and the connection
    results["local_hit"] = percentiles_us(timed_gets(cache, keys))
    if redis_url:
        set_env(tmp / "lat-writer", redis_url)
        writer = get_cache()
        for k in keys:
            writer.put(k, VALUE)
        # Each key read once by a machine whose local store is empty: local miss, Redis GET,
        # validation and the copy into the local store, i.e. what a first compile pays.
        set_env(tmp / "lat-reader", redis_url)
        reader = get_cache()
        reader.get(key(-1, "warm"))  # open the local store and the connection: a miss
        results["remote_hit"] = percentiles_us(timed_gets(reader, keys))
        # The Redis layer alone (GET + validation), as a hit on a machine that keeps no copy.
        from tuner.cache.entry import decode
        remote, samples = reader.remote, []
        for k in keys:
            t = time.perf_counter_ns()
            decode(remote.get(k.digest()), expect=k)
            samples.append(time.perf_counter_ns() - t)
        results["remote_get_only"] = percentiles_us(samples)
        # Baseline: a bare redis-py GET of the same keys, no cache code at all. The gap to
        # remote_get_only is what this project adds; the rest is the server and the OS.
        import redis
        client, samples = redis.Redis.from_url(redis_url), []
        names = [remote.name(k.digest()) for k in keys]
        for name in names:
            t = time.perf_counter_ns()
            client.get(name)
            samples.append(time.perf_counter_ns() - t)
        results["bare_redis_get"] = percentiles_us(samples)
        assert reader.stats()["remote"]["errors"] == 0
    return results


def _writer(cache_dir: str, redis_url: str | None, worker: int, n: int, barrier, queue) -> None:
    set_env(Path(cache_dir), redis_url)
    from tuner.cache import get_cache
    cache = get_cache()
    cache.put(key(-1 - worker, "open"), VALUE)  # open the store before the clock starts
    barrier.wait()
    start = time.perf_counter()
    for i in range(n):
        cache.put(key(worker * n + i, "w"), VALUE)
    end = time.perf_counter()
    stats = cache.stats()
    queue.put((start, end, stats["local"]["errors"] + stats["remote"]["errors"]))


def throughput(tmp: Path, redis_url: str | None, procs: int, n: int, tag: str) -> dict:
    ctx = mp.get_context("spawn")  # a fresh interpreter per writer, as separate compiles are
    barrier, queue = ctx.Barrier(procs), ctx.Queue()
    cache_dir = tmp / f"tp-{tag}-{procs}"
    workers = [ctx.Process(target=_writer, args=(str(cache_dir), redis_url, w, n, barrier, queue))
               for w in range(procs)]
    for p in workers:
        p.start()
    runs = [queue.get(timeout=600) for _ in workers]
    for p in workers:
        p.join()
    assert all(p.exitcode == 0 for p in workers)
    wall = max(r[1] for r in runs) - min(r[0] for r in runs)
    errors = sum(r[2] for r in runs)
    # Every entry must be there afterwards (one connection reads them back).
    from tuner.cache.local import TABLE
    with sqlite3.connect(cache_dir / "cache.db") as conn:
        rows = conn.execute(f"SELECT COUNT(*) FROM [{TABLE}] WHERE problem LIKE 'w-%'").fetchone()[0]
    assert rows == procs * n and errors == 0, (rows, errors)
    return {"procs": procs, "entries": procs * n, "seconds": round(wall, 3),
            "puts_per_s": round(procs * n / wall)}


def machine(load_at_start: float) -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from importlib.metadata import version
    from tuner.cache import backend_info
    server = shutil.which("redis-server")
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform(),
            # Other work on the machine skews the tails: say how busy it was.
            "load_avg_1m_at_start": round(load_at_start, 2),
            "load_avg_1m_at_end": round(os.getloadavg()[0], 2),
            "python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
            "sqlite_utils": version("sqlite-utils"), "redis_py": version("redis"),
            "redis_server": subprocess.run([server, "--version"], capture_output=True,
                                           text=True).stdout.split()[2] if server else None,
            **{k: v for k, v in backend_info().items()}}


def start_redis(workdir: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", "--dir", str(workdir)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import redis
    client = redis.Redis(port=port)
    for _ in range(500):
        try:
            client.ping()
            return proc, f"redis://127.0.0.1:{port}/0"
        except redis.ConnectionError:
            time.sleep(0.01)
    proc.kill()
    raise SystemExit("redis-server did not start")


def main() -> None:
    desc, _, ex = __doc__.partition("\n\n")
    ap = argparse.ArgumentParser(description=desc, epilog="examples:\n" + ex,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="bench/results", help="folder for cache_bench.json")
    ap.add_argument("--redis-url", help="measure this Redis instead of starting one")
    ap.add_argument("--n", type=int, default=5000, help="entries per latency run")
    ap.add_argument("--writes", type=int, default=2000, help="entries per writer process")
    ap.add_argument("--procs", type=int, default=8, help="writer processes in the parallel run")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, to check the script runs")
    args = ap.parse_args()
    if args.smoke:
        args.n, args.writes = 200, 50
    server, load_at_start = None, os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as tmp_name:
        tmp = Path(tmp_name)
        url = args.redis_url
        if url is None and shutil.which("redis-server"):
            server, url = start_redis(tmp)
        elif url is None:
            print("redis-server not found: measuring the local store only", file=sys.stderr)
        try:
            lat = latency(tmp, url, args.n)
            writes = {}
            for tag, remote_url in (("local", None), ("local+remote", url)):
                if tag != "local" and not remote_url:
                    continue
                writes[tag] = [throughput(tmp, remote_url, p, args.writes, tag.replace("+", "_"))
                               for p in (1, args.procs)]
        finally:
            if server is not None:
                server.kill()
                server.wait()
    result = {"benchmark": "cache", "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": machine(load_at_start), "redis": "own redis-server on loopback" if server else url,
              "smoke": args.smoke, "value_bytes": len(json.dumps(VALUE)),
              "latency": lat, "write_throughput": writes}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / ("cache_bench_smoke.json" if args.smoke else "cache_bench.json")
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\n{result['machine']['cpu']}, {result['machine']['cores']} cores; wrote {path}")
    print(f"{'hit latency':<34}{'p50 us':>10}{'p99 us':>10}")
    for name, r in lat.items():
        print(f"{name:<34}{r['p50_us']:>10}{r['p99_us']:>10}")
    print(f"{'write throughput':<34}{'procs':>10}{'puts/s':>10}")
    for tag, runs in writes.items():
        for r in runs:
            print(f"{tag:<34}{r['procs']:>10}{r['puts_per_s']:>10}")


if __name__ == "__main__":
    main()
