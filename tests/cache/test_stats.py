"""Cache statistics across processes (`tuner cache stats`, `--reset`, `reset-stats`)."""
import json
import os
import subprocess
import sys

from click.testing import CliRunner

from tuner.cache import CacheKey, get_cache, reset_cache
from tuner.cache import stats as stats_mod
from tuner.cli import main

DECIDE = """
from tuner.engine import decide
decide("stats.test", "p1", ["a", "b"], {"a": 2.0, "b": 1.0}.__getitem__)
"""


def cli(*args):
    return CliRunner().invoke(main, ["cache", *args])


def _flush():
    stats_mod._flush_all()


def test_counts_add_up_across_processes_and_reset():
    env = {**os.environ, "TUNER_BENCH_REPS": "1", "TUNER_BENCH_WARMUP": "0"}
    for _ in range(2):   # a miss (tuned, stored), then a hit in a new process
        subprocess.run([sys.executable, "-c", DECIDE], check=True, env=env)
    out = json.loads(cli("stats", "--json").output)["counters"]["stats.test"]
    assert out["misses"] == 1 and out["hits_local"] == 1 and out["hits_remote"] == 0
    assert out["saved_s"] > 0

    text = cli("stats").output
    assert "  stats.test: 1 hits (1 local, 0 remote), 1 misses, 0 rejected entries; hit rate 50%, " \
        in text and " s of tuning saved" in text

    r = cli("stats", "--reset")
    assert r.exit_code == 0 and "statistics reset (1 namespaces cleared" in r.output
    assert json.loads(cli("stats", "--json").output)["counters"] == {}
    assert cli("reset-stats").exit_code == 0


def test_rejected_entries_are_counted():
    from tuner.engine import decide
    cache = get_cache()
    decide("stats.rej", "p", ["a", "b"], {"a": 2.0, "b": 1.0}.__getitem__)
    # overwrite the stored answer with one that is not a candidate: rejected, tuned again
    row = next(iter(cache.local.rows("stats.rej")))
    env = json.loads(row["entry"])
    env["value"]["choice"] = "zzz"
    k = CacheKey(**env["key"])
    cache.put(k, env["value"])
    decide("stats.rej", "p", ["a", "b"], {"a": 2.0, "b": 1.0}.__getitem__)
    _flush()
    c = stats_mod.read(cache.local.path.with_name("stats.db"))["stats.rej"]
    assert c["rejected"] == 1 and c["misses"] == 2 and c["hits_local"] == 0


def test_statistics_never_fail_on_an_unwritable_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        s = stats_mod.PersistentStats(folder / "sub" / "stats.db")
        s.add("ns", hits_local=1)
        if os.geteuid() != 0:   # root writes anywhere
            assert s.flush() is False
    finally:
        folder.chmod(0o700)


def test_stats_cli_without_any_lookup():
    reset_cache()
    r = cli("stats")
    assert r.exit_code == 0 and "no lookups counted yet" in r.output


def test_a_planning_decision_counts_neither_hit_nor_miss():
    # engine.plan (the compiler planning what a kernel's search would build): its cache
    # lookups stay out of `tuner cache stats`, so a planned-then-tuned kernel counts once
    from tuner.engine import decide, plan
    reset_cache()
    get_cache()
    assert plan("stats.quiet", "p", ["a", "b"]).measures
    decide("stats.quiet", "q", ["a", "b"], {"a": 2.0, "b": 1.0}.__getitem__)     # a miss, counted
    assert plan("stats.quiet", "q", ["a", "b"]).decision.choice == "b"           # a hit, not
    _flush()
    out = json.loads(cli("stats", "--json").output)["counters"]["stats.quiet"]
    assert out["misses"] == 1 and out.get("hits_local", 0) == 0
