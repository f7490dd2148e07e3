"""The Redis layer against a real redis-server: round trips, faults, integrity, modes."""
import json
import threading
import time
import warnings

import pytest

from tuner.cache import CacheKey, CacheWarning, build_cache, get_cache
from tuner.cache.entry import encode
from tuner.cache.remote import redact

from .conftest import _free_port


def key(i=0):
    return CacheKey("triton.reduction", f"problem-{i}", "cfg", "backend")


def other_machine(monkeypatch, tmp_path, name="other"):
    """A cache as another machine sees it: same Redis, its own empty local store."""
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / name))
    return get_cache()


def record_warnings():
    w = warnings.catch_warnings(record=True)
    caught = w.__enter__()
    warnings.simplefilter("always")
    return w, caught


def test_put_writes_both_layers_under_the_prefix(remote):
    get_cache().put(key(), {"choice": "pad"})
    names = remote.client().keys("*")
    assert names == [b"tuner:" + key().digest().encode()]
    stored = json.loads(remote.client().get(names[0]))
    assert stored["value"] == {"choice": "pad"} and stored["key"] == key().fields()
    assert get_cache().stats()["remote"]["puts"] == 1 and get_cache().stats()["local"]["puts"] == 1


def test_remote_hit_is_written_locally(remote, monkeypatch, tmp_path):
    monkeypatch.setenv("TUNER_REMOTE_PREFIX", "team-a:")
    get_cache().put(key(), {"choice": "pad"})
    assert remote.client().exists(b"team-a:" + key().digest().encode())
    cache = other_machine(monkeypatch, tmp_path)
    assert cache.get(key()) == {"choice": "pad"}
    assert cache.stats()["local"]["misses"] == 1 and cache.stats()["remote"]["hits"] == 1
    remote.kill()  # the copy is local now: no need for the server any more
    assert cache.get(key()) == {"choice": "pad"} and cache.stats()["local"]["hits"] == 1


def test_refused_connection_at_start_warns_once_and_goes_on_locally(monkeypatch):
    monkeypatch.setenv("TUNER_REMOTE_CACHE", f"redis://127.0.0.1:{_free_port()}")
    cache = get_cache()
    with pytest.warns(CacheWarning, match="off for the rest of this process") as caught:
        assert cache.get(key()) is None
        cache.put(key(), {"v": 1})
        assert cache.get(key()) == {"v": 1}
        cache.put(key(1), {"v": 2})
    assert len(caught) == 1
    assert cache.remote is None
    assert cache.stats()["remote"]["errors"] == 1 and cache.stats()["local"]["puts"] == 2


def test_redis_killed_mid_run(remote, monkeypatch, tmp_path):
    get_cache().put(key(1), {"v": 1})
    get_cache().put(key(2), {"v": 2})
    cache = other_machine(monkeypatch, tmp_path)
    assert cache.get(key(1)) == {"v": 1}
    remote.kill()
    w, caught = record_warnings()
    try:
        assert cache.get(key(2)) is None  # was only in Redis: now a miss, not an exception
        cache.put(key(3), {"v": 3})
        assert cache.get(key(3)) == {"v": 3} and cache.get(key(1)) == {"v": 1}
    finally:
        w.__exit__(None, None, None)
    assert [c.category for c in caught] == [CacheWarning]
    assert cache.remote is None and cache.stats()["remote"]["errors"] == 1


def test_slow_redis_times_out_into_a_miss(remote, monkeypatch, tmp_path):
    get_cache().put(key(), {"v": 1})
    monkeypatch.setenv("TUNER_REMOTE_READ_TIMEOUT", "0.2")
    cache = other_machine(monkeypatch, tmp_path)
    # The server stops answering for 5 s (the fixture kills it at the end): without the read
    # timeout this get would wait and then hit; with it, it is a miss after 0.2 s.
    remote.client().execute_command("CLIENT", "PAUSE", "5000", "ALL")
    with pytest.warns(CacheWarning, match="Timeout"):
        assert cache.get(key()) is None
    assert cache.remote is None and cache.stats()["remote"]["errors"] == 1
    cache.put(key(), {"v": 2})
    assert cache.get(key()) == {"v": 2}


def test_corrupt_remote_value_is_rejected_not_fatal(remote, monkeypatch, tmp_path):
    admin = remote.client()
    admin.set(b"tuner:" + key(1).digest().encode(), b"\x80garbage")
    admin.set(b"tuner:" + key(2).digest().encode(), encode(key(2), {"v": 2}).text[:40])
    admin.set(b"tuner:" + key(3).digest().encode(), encode(key(4), {"v": 4}).text)
    cache = get_cache()
    assert [cache.get(key(i)) for i in (1, 2, 3)] == [None, None, None]
    assert cache.stats()["remote"]["rejected"] == 3
    assert cache.remote is not None  # a bad entry is not a failing server
    assert cache.stats()["local"]["puts"] == 0  # nothing bad was copied locally


def test_unsigned_or_wrongly_signed_entries_are_rejected(remote, monkeypatch, tmp_path):
    monkeypatch.setenv("TUNER_CACHE_SECRET", "team-secret")
    get_cache().put(key(1), {"v": "trusted"})
    # A machine without the secret (or with another one) writes to the same Redis.
    monkeypatch.delenv("TUNER_CACHE_SECRET")
    other_machine(monkeypatch, tmp_path, "attacker1").put(key(2), {"v": "poison"})
    monkeypatch.setenv("TUNER_CACHE_SECRET", "guessed")
    other_machine(monkeypatch, tmp_path, "attacker2").put(key(3), {"v": "poison"})
    monkeypatch.setenv("TUNER_CACHE_SECRET", "team-secret")
    cache = other_machine(monkeypatch, tmp_path, "victim")
    assert cache.get(key(1)) == {"v": "trusted"}
    assert cache.get(key(2)) is None and cache.get(key(3)) is None
    assert cache.stats()["remote"] == {"hits": 1, "misses": 2, "puts": 0, "rejected": 2, "errors": 0}


def test_readonly_mode_reads_the_remote_but_never_writes_it(remote, monkeypatch, tmp_path):
    get_cache().put(key(1), {"v": 1})
    monkeypatch.setenv("TUNER_REMOTE_READONLY", "1")
    cache = other_machine(monkeypatch, tmp_path)
    assert cache.get(key(1)) == {"v": 1}
    cache.put(key(2), {"v": 2})
    assert cache.get(key(2)) == {"v": 2}  # from the local store
    assert remote.client().keys("*") == [b"tuner:" + key(1).digest().encode()]
    assert cache.stats()["remote"]["puts"] == 0


def test_ttl_is_set_and_entries_expire(remote, monkeypatch, tmp_path):
    get_cache().put(key(0), {"v": 0})
    assert remote.client().ttl(b"tuner:" + key(0).digest().encode()) == -1  # default: forever
    monkeypatch.setenv("TUNER_REMOTE_TTL", "1")
    get_cache().put(key(1), {"v": 1})
    name = b"tuner:" + key(1).digest().encode()
    assert 0 < remote.client().pttl(name) <= 1000
    time.sleep(1.1)
    assert not remote.client().exists(name)
    assert other_machine(monkeypatch, tmp_path).get(key(1)) is None


def test_password_from_url_or_setting(start_redis, monkeypatch, tmp_path):
    server = start_redis("--requirepass", "pw-123")
    monkeypatch.setenv("TUNER_REMOTE_CACHE", f"redis://:pw-123@127.0.0.1:{server.port}/0")
    get_cache().put(key(1), {"v": 1})
    assert get_cache().stats()["remote"]["puts"] == 1
    monkeypatch.setenv("TUNER_REMOTE_CACHE", server.url)
    monkeypatch.setenv("TUNER_REDIS_PASSWORD", "pw-123")
    assert other_machine(monkeypatch, tmp_path, "b").get(key(1)) == {"v": 1}
    monkeypatch.delenv("TUNER_REDIS_PASSWORD")
    cache = other_machine(monkeypatch, tmp_path, "c")
    with pytest.warns(CacheWarning, match="Authentication"):
        assert cache.get(key(1)) is None


def test_bad_remote_url_turns_only_the_remote_off(monkeypatch):
    monkeypatch.setenv("TUNER_REMOTE_CACHE", "http://example.invalid/")
    with pytest.warns(CacheWarning, match="redis://"):
        cache = get_cache()
    cache.put(key(), {"v": 1})
    assert cache.get(key()) == {"v": 1} and cache.remote is None


def test_redact_hides_the_password():
    assert redact("rediss://user:s3cret@cache.example:6380/2") == "rediss://user:***@cache.example:6380/2"
    assert redact("redis://localhost:6379") == "redis://localhost:6379"


def test_threads_share_the_process_cache(remote):
    cache = get_cache()

    def work(t):
        for i in range(50):
            cache.put(key(t * 100 + i), {"t": t, "i": i})
            assert cache.get(key(t * 100 + i)) == {"t": t, "i": i}

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stats = cache.stats()
    assert stats["local"]["puts"] == stats["remote"]["puts"] == 200
    assert stats["local"]["errors"] == stats["remote"]["errors"] == 0


def test_threads_meeting_a_dead_server_warn_once_and_never_raise(remote):
    cache = get_cache()
    for i in range(8):
        cache.put(key(i), {"v": i})
    remote.kill()
    errors = []

    def work(t):
        try:
            for i in range(8):
                cache.put(key(100 * t + i), {"v": i})
                assert cache.get(key(100 * t + i)) == {"v": i}
        except Exception as e:  # pragma: no cover - the failure this test guards against
            errors.append(e)

    w, caught = record_warnings()
    try:
        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        w.__exit__(None, None, None)
    assert errors == []
    assert [c.category for c in caught] == [CacheWarning]
    assert cache.remote is None and cache.stats()["local"]["puts"] == 8 + 32


@pytest.mark.parametrize("url, secret", [
    ("redis://:pa#ss-word@127.0.0.1:6379/0", "pa#ss-word"),         # '#' not percent-encoded
    ("redis://user:a/b?c-pw@127.0.0.1:6379/0", "a/b?c-pw"),          # '/' and '?' too
    ("redis://127.0.0.1:6379/0?password=qp-secret&db=1", "qp-secret"),
    ("redis://127.0.0.1/0?db=1&password=qp#frag", "qp#frag"),
    ("redis://user:pw-bad-port@127.0.0.1:notaport/0", "pw-bad-port"),
])
def test_redact_never_leaks_or_raises_on_odd_urls(url, secret):
    shown = redact(url)
    assert secret not in shown and secret[:3] not in shown.replace("127.0.0.1", "")
    assert "***" in shown and shown.startswith("redis://")


def test_bad_port_warning_names_no_part_of_the_password(monkeypatch):
    # the unencoded '#' cuts the URL: "Sekr" is then read as a port, which redis-py rejects
    # quoting it
    monkeypatch.setenv("TUNER_REMOTE_CACHE", "redis://:Sekr#1t-pw@127.0.0.1:6379/0")
    with pytest.warns(CacheWarning, match="remote cache off") as caught:
        cache = get_cache()
    assert cache.remote is None
    assert all("Sekr" not in str(w.message) for w in caught)
