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


# -- the write-ahead log at exit -----------------------------------------------------------

WRITER = """
import sys, threading
from tuner.cache import CacheKey, get_cache

def write():
    cache = get_cache()   # held by this thread's frame until the process ends
    for i in range(int(sys.argv[1])):
        cache.put(CacheKey("triton.pointwise", f"problem-{i}", "cfg", "backend"), {"v": i})
    written.set()
    threading.Event().wait()

written = threading.Event()
threading.Thread(target=write, daemon=True).start()   # a pool's worker, say
written.wait()
"""


def rows_in_a_copy_of_cache_db_alone(tmp_path) -> int:
    copy = tmp_path / "copied" / "cache.db"
    copy.parent.mkdir()
    copy.write_bytes((settings.cache_dir / "cache.db").read_bytes())   # no -wal beside it
    with sqlite3.connect(copy) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
        return conn.execute("SELECT count(*) FROM entries_v1").fetchone()[0] \
            if "entries_v1" in tables else 0


def test_entries_are_in_cache_db_itself_after_the_process_exits(tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", WRITER, "25"], env=dict(os.environ),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert rows_in_a_copy_of_cache_db_alone(tmp_path) == 25


def test_close_checkpoints_even_while_another_connection_is_open(tmp_path):
    store = LocalStore()
    store.put("d0", "ns", "p", 1.0, "{}")
    other = sqlite3.connect(store.path)   # another reader: closing store is not the last close
    try:
        other.execute("SELECT count(*) FROM entries_v1").fetchone()
        for i in range(1, 20):
            store.put(f"d{i}", "ns", "p", 1.0, "{}")
        store.close()
        assert rows_in_a_copy_of_cache_db_alone(tmp_path) == 20
    finally:
        other.close()
