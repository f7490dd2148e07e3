"""Several processes writing and reading at once lose nothing and tear nothing."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tuner.cache import build_cache
from tuner.settings import settings

from .cache_worker import intact, key, value

WORKER = Path(__file__).with_name("cache_worker.py")
PROCS, N = 8, 60


def run_workers(env_for):
    procs = [subprocess.Popen([sys.executable, str(WORKER), "write", str(w), str(N), str(PROCS)],
                              env=env_for(w), stdout=subprocess.PIPE, text=True)
             for w in range(PROCS)]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * PROCS
    return [json.loads(o) for o in outs]


def check_all_present(cache):
    for w in range(PROCS):
        for i in range(N):
            assert cache.get(key(f"w{w}-{i}")) == value(w, i)
    shared = cache.get(key("shared"))
    assert shared is not None and intact(shared)


def test_eight_processes_share_one_local_store():
    outs = run_workers(lambda w: dict(os.environ))
    assert all(o["torn"] == 0 for o in outs)
    assert all(o["stats"]["local"]["errors"] == 0 for o in outs)
    assert all(o["stats"]["local"]["puts"] == 2 * N for o in outs)
    assert sum(o["seen"] for o in outs) > 0
    check_all_present(build_cache())


def test_eight_processes_share_one_remote(remote, tmp_path):
    # Each worker has its own local store: everything they share goes through Redis.
    outs = run_workers(lambda w: {**os.environ, "TUNER_CACHE_DIR": str(tmp_path / f"w{w}")})
    assert all(o["torn"] == 0 for o in outs)
    assert all(o["stats"]["remote"]["errors"] == 0 and o["stats"]["remote"]["puts"] == 2 * N
               for o in outs)
    assert sum(o["stats"]["remote"]["hits"] for o in outs) > 0
    assert len(remote.client().keys("tuner:*")) == PROCS * N + 1
    cache = build_cache()  # the test's own local store is empty
    check_all_present(cache)
    assert cache.stats()["remote"]["hits"] == PROCS * N + 1


def test_second_process_with_empty_local_store_hits_the_remote(remote, tmp_path):
    from tuner.cache import get_cache
    get_cache().put(key("a"), {"choice": 1})
    env = {**os.environ, "TUNER_CACHE_DIR": str(tmp_path / "other-machine")}
    run = lambda: json.loads(subprocess.run([sys.executable, str(WORKER), "get", "a"], env=env,
                                            check=True, capture_output=True, text=True).stdout)
    first = run()
    assert first["values"] == [{"choice": 1}]
    assert first["stats"]["local"]["misses"] == 1 and first["stats"]["remote"]["hits"] == 1
    assert first["stats"]["local"]["puts"] == 1  # the remote hit was kept locally
    remote.client().flushall()
    second = run()  # now served by its own local store
    assert second["values"] == [{"choice": 1}] and second["stats"]["local"]["hits"] == 1
