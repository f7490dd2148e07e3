"""The local files as they are left on disk: damaged pages, a damaged statistics file, the
write-ahead log at exit. Real SQLite, real processes."""
import json
import os
import sqlite3

from click.testing import CliRunner

from tuner.cache import CacheKey, get_cache, reset_cache
from tuner.cache import stats as stats_mod
from tuner.cache.local import LocalStore
from tuner.cli import main
from tuner.settings import settings

PAGE = 4096


def cli(*args):
    return CliRunner().invoke(main, ["cache", *args])


def key(i):
    return CacheKey("triton.pointwise", f"problem-{i}", "cfg", "backend")


def fill(n, pad=0):
    cache = get_cache()
    for i in range(n):
        cache.put(key(i), {"v": i, "pad": "p" * pad})
    reset_cache()  # closed: everything is in cache.db itself


def test_clear_removes_a_database_whose_middle_pages_are_damaged():
    fill(400, pad=2000)   # about 400 pages
    path = settings.cache_dir / "cache.db"
    pages = path.stat().st_size // PAGE
    with open(path, "r+b") as f:   # the header and schema pages stay intact
        f.seek(PAGE * (pages // 2))
        f.write(b"\xff" * PAGE * 4)
    with sqlite3.connect(path) as conn:   # damaged, yet it opens and answers a first query
        assert conn.execute("PRAGMA quick_check(1)").fetchone()[0] != "ok"
    r = cli("ls")
    assert r.exit_code == 1 and "`tuner cache clear` removes a broken file" in r.output
    r = cli("clear", "--yes")
    assert r.exit_code == 0, r.output
    assert "was damaged" in r.stderr and "removed the file" in r.stderr
    get_cache().put(key(1), {"v": 1})
    assert get_cache().get(key(1)) == {"v": 1}


def test_a_healthy_database_is_never_removed_as_damaged():
    fill(3)
    store = LocalStore()
    import pytest
    with pytest.raises(ValueError, match="readable database: not removed"):
        store.replace_corrupt()
    assert store.count_by_namespace() == {"triton.pointwise": 3}


def test_stats_with_text_in_a_number_column_says_the_file_is_damaged():
    path = settings.cache_dir / "stats.db"
    counts = stats_mod.PersistentStats(path)
    counts.add("ns", hits_local=2, misses=1)
    assert counts.flush()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE stats_v1 SET hits_remote = 'lots'")
    r = cli("stats")
    assert r.exit_code == 0 and r.exception is None, r.output
    lines = [line for line in r.stderr.splitlines() if "statistics" in line]
    assert len(lines) == 1 and "damaged" in lines[0] and "--reset" in lines[0]
    out = json.loads(cli("stats", "--json").stdout)
    assert out["counters"] == {} and "damaged" in out["counters_error"]
    assert cli("stats", "--reset").exit_code == 0
    assert cli("stats").exit_code == 0 and "statistics" not in cli("stats").stderr
