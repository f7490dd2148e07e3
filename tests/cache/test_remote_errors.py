"""What one bad key or one refused command on the shared Redis costs: a miss (or the writes),
never the shared cache for the rest of the process. Real redis-server, real SQLite."""
import json
import warnings

import pytest
import redis

from tuner.cache import CacheKey, CacheWarning, get_cache


def key(i=0):
    return CacheKey("triton.reduction", f"problem-{i}", "cfg", "backend")


def name(i):
    return b"tuner:" + key(i).digest().encode()


@pytest.fixture(autouse=True)
def _signed(monkeypatch):
    # signed entries: no "unsigned shared cache" warning in the counts below
    monkeypatch.setenv("TUNER_CACHE_SECRET", "team-secret")


def machine(monkeypatch, tmp_path, name):
    """The process cache as machine `name` sees it: the shared Redis, its own local store."""
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / name))
    return get_cache()


def cache_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]


def test_a_key_of_the_wrong_type_is_one_miss_not_the_end_of_the_shared_cache(
        remote, monkeypatch, tmp_path):
    writer = machine(monkeypatch, tmp_path, "writer")
    for i in range(50):
        writer.put(key(i), {"v": i})
    admin = remote.client()
    admin.delete(name(20))
    admin.rpush(name(20), b"a list where an entry should be")   # WRONGTYPE for GET
    reader = machine(monkeypatch, tmp_path, "reader")
    found = []
    shown = cache_warnings(lambda: found.extend(reader.get(key(i)) for i in range(50)))
    assert sum(v is not None for v in found) == 49 and found[20] is None
    assert reader.remote is not None
    stats = reader.stats()["remote"]
    assert (stats["hits"], stats["misses"], stats["errors"], stats["rejected"]) == (49, 1, 1, 0)
    assert len(shown) == 1 and "WRONGTYPE" in shown[0] and "a miss" in shown[0]
    # a second bad lookup is counted, not reported again; writes still go to the server
    assert cache_warnings(lambda: reader.get(key(20))) == []
    reader.put(key(99), {"v": 99})
    assert reader.stats()["remote"]["errors"] == 2 and admin.exists(name(99))


def test_a_server_refusing_writes_turns_off_the_writes_only(start_redis, monkeypatch, tmp_path):
    server = start_redis("--maxmemory", "1mb", "--maxmemory-policy", "noeviction")
    monkeypatch.setenv("TUNER_REMOTE_CACHE", server.url)
    writer = machine(monkeypatch, tmp_path, "writer")
    for i in range(50):
        writer.put(key(i), {"v": i})
    assert writer.stats()["remote"]["puts"] == 50
    admin = server.client()
    for n in range(100_000):  # fill it until it refuses a write
        try:
            admin.set(f"other-app:{n}", b"x" * 1000)
        except redis.exceptions.OutOfMemoryError:
            break
    else:
        pytest.fail("the server never refused a write")
    # Full by a few bytes only: the server's housekeeping (shrinking a client's buffers) could
    # let the next small write in. A limit well under what it holds keeps it full.
    admin.config_set("maxmemory", admin.info("memory")["used_memory"] - (256 << 10))
    reader = machine(monkeypatch, tmp_path, "reader")
    shown = cache_warnings(lambda: reader.put(key(100), {"v": 100}))
    assert len(shown) == 1 and "OutOfMemoryError" in shown[0] and "writing" in shown[0]
    found = []
    shown = cache_warnings(lambda: (found.extend(reader.get(key(i)) for i in range(50)),
                                    reader.put(key(101), {"v": 101})))
    assert found == [{"v": i} for i in range(50)] and shown == []
    assert reader.remote is not None
    stats = reader.stats()["remote"]
    # one refused write, then no more attempts; the reads all hit
    assert (stats["hits"], stats["puts"], stats["errors"]) == (50, 0, 1)
    assert reader.get(key(101)) == {"v": 101}  # the local store has it


def test_connection_level_failures_still_switch_the_remote_off(remote, monkeypatch, tmp_path):
    writer = machine(monkeypatch, tmp_path, "writer")
    writer.put(key(1), {"v": 1})
    reader = machine(monkeypatch, tmp_path, "reader")
    remote.client().config_set("requirepass", "now-protected")   # AUTH now fails: NOAUTH
    shown = cache_warnings(lambda: [reader.get(key(1)), reader.get(key(2))])
    assert len(shown) == 1 and "off for the rest of this process" in shown[0]
    assert reader.remote is None and reader.stats()["remote"]["errors"] == 1


def test_rejected_entries_are_reported_now_and_then_with_the_count_and_the_first_reason(
        remote, monkeypatch, tmp_path):
    admin = remote.client()
    admin.set(name(0), json.dumps({"schema": "\x1b]0;" + "s" * 5000}))   # hostile text
    for i in range(1, 143):
        admin.set(name(i), b"junk")
    reader = machine(monkeypatch, tmp_path, "reader")
    shown = cache_warnings(lambda: [reader.get(key(i)) for i in range(143)])
    assert reader.stats()["remote"]["rejected"] == 143
    # at the first, the 10th and the 100th: each with the count and the first reason
    assert len(shown) == 3
    assert shown[0].startswith("remote cache: 1 stored entry was rejected in this process "
                               "(the first: schema ")
    assert "\x1b" not in shown[0] and len(shown[0]) < 500 and "reported again at 10 " in shown[0]
    assert shown[1].startswith("remote cache: 10 stored entries were rejected")
    assert shown[2].startswith("remote cache: 100 stored entries were rejected")
    assert all(s.count("(the first: schema ") == 1 for s in shown)
    # the rest when the cache is closed (the process-wide one is closed at exit), once
    shown = cache_warnings(reader.close)
    assert len(shown) == 1 and shown[0].startswith("remote cache: 143 stored entries were")
    assert cache_warnings(reader.close) == []


def test_rejections_by_size_and_by_the_callers_check_are_reported_too(
        remote, monkeypatch, tmp_path):
    from tuner.cache.entry import MAX_ENTRY_BYTES
    writer = machine(monkeypatch, tmp_path, "writer")
    writer.put(key(1), {"v": 1})
    remote.client().set(name(2), b"x" * (MAX_ENTRY_BYTES + 1))
    reader = machine(monkeypatch, tmp_path, "reader")
    shown = cache_warnings(lambda: reader.get(key(1), lambda value: None))
    assert len(shown) == 1 and "the caller's check refused its value" in shown[0]
    assert cache_warnings(lambda: reader.get(key(2))) == []   # the 2nd: not reported yet
    other = machine(monkeypatch, tmp_path, "other")
    shown = cache_warnings(lambda: other.get(key(2)))
    assert len(shown) == 1 and "over the limit" in shown[0]
