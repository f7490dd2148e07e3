"""The engine's benchmark scripts run end to end on the CPU (--smoke) and write their JSON."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_script(name, *args, env=None):
    env = {**os.environ, **(env or {})}
    env.pop("TUNER_BENCH_REPS", None)   # the scripts choose their own smoke settings
    env.pop("TUNER_BENCH_WARMUP", None)
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", name), *args],
                          capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)


@pytest.mark.slow
def test_bench_search_smoke(tmp_path):
    proc = run_script("bench_search.py", "--smoke", "--out", str(tmp_path),
                      "--kernels", "pointwise_2in,row_sum_medium_r,softmax,matmul")
    assert proc.returncode == 0, proc.stderr[-3000:]
    [path] = tmp_path.glob("bench_search-smoke-*.json")
    result = json.loads(path.read_text())
    assert [k["kernel"] for k in result["kernels"]] == ["pointwise_2in", "row_sum_medium_r",
                                                         "softmax", "matmul"]
    for k in result["kernels"]:
        assert k["correct"] and k["exhaustive"]["measured"] == k["space_size"]
        assert k["coordinate_descent"]["measured"] >= 1 and k["quality"] > 0


def test_bench_search_replays_recorded_timings_on_the_cpu(tmp_path):
    fixture = os.path.join(ROOT, "tests", "tuner", "fixtures", "h100_bench_search.json")
    proc = run_script("bench_search.py", "--replay", fixture, "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    [path] = tmp_path.glob("bench_search-replay-*.json")
    result = json.loads(path.read_text())
    assert "not a new measurement" in result["replay"]["note"] and len(result["kernels"]) == 10
    assert all(k["quality"] <= 1.02 for k in result["kernels"])


def test_bench_search_rejects_unknown_kernels(tmp_path):
    proc = run_script("bench_search.py", "--smoke", "--out", str(tmp_path), "--kernels", "fft")
    assert proc.returncode != 0 and "unknown kernels fft" in proc.stderr
    assert not list(tmp_path.iterdir())  # nothing half-written


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    import redis
    port = _free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            if redis.Redis(port=port, socket_timeout=1).ping():
                break
        except redis.ConnectionError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
    yield f"redis://127.0.0.1:{port}/0"
    proc.kill()
    proc.wait()


@pytest.mark.slow
def test_cold_warm_smoke_with_a_real_redis(tmp_path, redis_url):
    proc = run_script("bench_autotune_cold_warm.py", "--smoke", "--repeats", "1",
                      "--out", str(tmp_path), "--redis-url", redis_url)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [path] = tmp_path.glob("bench_autotune_cold_warm-smoke-*.json")
    result = json.loads(path.read_text())
    s = result["summary"]
    assert set(s) == {"cold", "warm-local", "warm-remote"}
    assert s["cold"]["measured"][0] > 0
    assert s["warm-local"]["sources"] == ["cache"] and s["warm-local"]["measured"] == [0]
    assert s["warm-remote"]["sources"] == ["cache"] and s["warm-remote"]["measured"] == [0]
    remote_stats = result["runs"]["warm-remote"][0]["cache_stats"]["remote"]
    assert remote_stats["hits"] == 1  # the answer came from Redis, not a local file
    for mode, run in result["runs"].items():  # the first launch is split into its parts
        r = run[0]
        assert abs(r["decide_s"] + r["kernel_s"] - r["first_launch_s"]) < 1e-6
        assert r["lookup_steady_s"] >= 0


def test_cold_warm_without_redis_skips_the_remote_column_with_a_note(tmp_path):
    proc = run_script("bench_autotune_cold_warm.py", "--smoke", "--repeats", "1",
                      "--out", str(tmp_path), "--redis-url", f"redis://127.0.0.1:{_free_port()}/0")
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert set(result["summary"]) == {"cold", "warm-local"} and result["remote_note"]
