import sqlite3
import warnings

from tuner.cache import CacheKey, CacheWarning, get_cache
from tuner.cache.entry import encode
from tuner.cache.local import TABLE, LocalStore
from tuner.settings import settings


def key(i=0, namespace="triton.pointwise"):
    return CacheKey(namespace, f"problem-{i}", "cfg", "backend")


def test_local_round_trip_in_wal_mode_at_the_configured_folder():
    cache = get_cache()
    assert cache.get(key()) is None
    cache.put(key(), {"choice": {"XBLOCK": 64}, "time_ms": 0.5})
    assert cache.get(key()) == {"choice": {"XBLOCK": 64}, "time_ms": 0.5}
    path = settings.cache_dir / "cache.db"
    assert cache.local.path == path and path.exists()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute(f"SELECT namespace, problem FROM [{TABLE}]").fetchall() == \
            [("triton.pointwise", "problem-0")]
    assert cache.stats()["local"] == {"hits": 1, "misses": 1, "puts": 1, "rejected": 0, "errors": 0}


def test_put_overwrites_the_entry_of_the_same_key():
    cache = get_cache()
    cache.put(key(), {"v": 1})
    cache.put(key(), {"v": 2})
    assert cache.get(key()) == {"v": 2}
    assert cache.local.count_by_namespace() == {"triton.pointwise": 1}


def test_cache_settings_change_builds_a_new_cache(tmp_path, monkeypatch):
    get_cache().put(key(), {"v": 1})
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert get_cache().get(key()) is None
    assert get_cache().local.path == tmp_path / "elsewhere" / "cache.db"


def test_cache_off_misses_and_writes_nothing(monkeypatch):
    monkeypatch.setenv("TUNER_CACHE", "0")
    cache = get_cache()
    cache.put(key(), {"v": 1})
    assert cache.get(key()) is None
    assert not (settings.cache_dir / "cache.db").exists()
    monkeypatch.setenv("TUNER_CACHE", "1")
    assert get_cache().get(key()) is None


def test_table_name_carries_the_schema_version(monkeypatch):
    # An older format's rows live in another table and are never read.
    get_cache().put(key(), {"v": 1})
    path = settings.cache_dir / "cache.db"
    with sqlite3.connect(path) as conn:
        conn.execute(f"ALTER TABLE [{TABLE}] RENAME TO entries_old")
    assert LocalStore(path).get(key().digest()) is None


def test_corrupt_local_row_is_a_counted_miss():
    cache = get_cache()
    cache.put(key(1), {"v": 1})
    cache.put(key(2), {"v": 2})
    cache.put(key(3), {"v": 3})
    good = encode(key(2), {"v": 2}).text
    with sqlite3.connect(cache.local.path) as conn:
        conn.execute(f"UPDATE [{TABLE}] SET entry = ? WHERE problem = 'problem-1'", ["garbage{"])
        conn.execute(f"UPDATE [{TABLE}] SET entry = ? WHERE problem = 'problem-2'", [good[:-9]])
        conn.execute(f"UPDATE [{TABLE}] SET entry = ? WHERE problem = 'problem-3'",
                     [sqlite3.Binary(b"\x00\xff\x13")])
    assert [cache.get(key(i)) for i in (1, 2, 3)] == [None, None, None]
    assert cache.stats()["local"]["rejected"] == 3
    cache.put(key(1), {"v": 1})  # the next decision repairs the row
    assert cache.get(key(1)) == {"v": 1}


def test_row_copied_under_another_digest_is_rejected():
    cache = get_cache()
    cache.put(key(1), {"v": 1})
    cache.local.put(key(2).digest(), "triton.pointwise", "problem-2", 0.0,
                    encode(key(1), {"v": 1}).text)
    assert cache.get(key(2)) is None
    assert cache.stats()["local"]["rejected"] == 1


def test_corrupt_database_file_is_a_counted_miss_never_an_exception():
    path = settings.cache_dir / "cache.db"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    cache = get_cache()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache.put(key(), {"v": 1})
        assert cache.get(key()) is None
        assert cache.get(key()) is None
    assert [w.category for w in caught] == [CacheWarning]  # one warning, not one per call
    stats = cache.stats()["local"]
    assert stats["errors"] == 3 and stats["hits"] == 0 and stats["puts"] == 0
    # `replace_corrupt` removes a file that is not a database, and the cache works again.
    cache.local.replace_corrupt()
    cache.put(key(), {"v": 1})
    assert cache.get(key()) == {"v": 1}


def test_cache_hit_in_fresh_process_imports_neither_sqlite_utils_nor_pandas(tmp_path):
    # A warm hit is on the compile path of every process: importing pandas would add ~0.4 s.
    import subprocess
    import sys
    code = (
        "import sys\n"
        "from tuner.cache import CacheKey, get_cache\n"
        "key = CacheKey('ns', 'p', 'c', 'b')\n"
        "c = get_cache()\n"
        "if sys.argv[1] == 'put':\n"
        "    c.put(key, {'x': 1})\n"
        "else:\n"
        "    assert c.get(key) == {'x': 1}, c.stats()\n"
        "    heavy = [m for m in ('sqlite_utils', 'pandas') if m in sys.modules]\n"
        "    assert not heavy, heavy\n"
    )
    env = {**__import__("os").environ, "TUNER_CACHE_DIR": str(tmp_path)}
    for step in ("put", "get"):
        out = subprocess.run([sys.executable, "-c", code, step], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr


READER = """
import json, sys, warnings
warnings.simplefilter("always")
from tuner.cache import CacheKey, get_cache
cache = get_cache()
key = CacheKey("triton.pointwise", "problem-1", "cfg", "backend")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    hit = cache.get(key)
    cache.put(CacheKey("triton.pointwise", "new-1", "cfg", "backend"), {"v": 2})
    cache.put(CacheKey("triton.pointwise", "new-2", "cfg", "backend"), {"v": 3})
print(json.dumps({"hit": hit, "stats": cache.stats()["local"], "readonly": cache.local.readonly,
                  "warnings": [str(w.message) for w in caught]}))
"""


def test_read_only_cache_folder_serves_hits_and_counts_writes_as_errors(unprivileged):
    import json
    import os
    import sys
    get_cache().put(key(1), {"v": 1})
    get_cache().close()
    folder = settings.cache_dir
    before = sorted(p.name for p in folder.iterdir())
    data = (folder / "cache.db").read_bytes()
    os.chmod(folder / "cache.db", 0o444)
    os.chmod(folder, 0o555)
    try:
        r = unprivileged([sys.executable, "-c", READER], env=dict(os.environ))
    finally:
        os.chmod(folder, 0o755)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["hit"] == {"v": 1} and out["readonly"] is True
    assert out["stats"] == {"hits": 1, "misses": 0, "puts": 0, "rejected": 0, "errors": 2}
    assert len(out["warnings"]) == 1 and "is read-only here" in out["warnings"][0]
    # opened without WAL switch or CREATE: not a byte changed, no -wal/-shm left behind
    assert sorted(p.name for p in folder.iterdir()) == before
    assert (folder / "cache.db").read_bytes() == data


def test_read_only_database_file_in_a_writable_folder_is_read_only_too(unprivileged):
    import json
    import os
    import sys
    get_cache().put(key(1), {"v": 1})
    get_cache().close()
    os.chmod(settings.cache_dir / "cache.db", 0o444)
    r = unprivileged([sys.executable, "-c", READER], env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["hit"] == {"v": 1} and out["stats"]["errors"] == 2 and out["readonly"] is True
