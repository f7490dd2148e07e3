"""What else lives in the shared Redis: keys whose names are not text, values far over the
entry limit, other applications' keys. Real redis-server, counted by the server itself."""
import json

from click.testing import CliRunner

from tuner.cache import CacheKey, get_cache
from tuner.cache.entry import MAX_ENTRY_BYTES, encode
from tuner.cli import main


def cli(*args, input=None):
    return CliRunner().invoke(main, ["cache", *args], input=input)


def key(i=0):
    return CacheKey("triton.reduction", f"problem-{i}", "cfg", "backend")


def name(i):
    return b"tuner:" + key(i).digest().encode()


def machine(monkeypatch, tmp_path, folder):
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / folder))
    return get_cache()


# -- key names that are not UTF-8 ---------------------------------------------------------


def test_stats_and_clear_skip_or_delete_a_key_whose_name_is_not_text(remote):
    cache = get_cache()
    for i in range(3):
        cache.put(key(i), {"v": i})
    admin = remote.client()
    admin.set(b"tuner:\xff\xfe-not-text", b"x")
    admin.set(b"other-app:\xff", b"theirs")
    r = cli("stats", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)["remote"]
    assert out["reachable"] and out["entries"] == 3 and out["skipped_keys"] == 1
    r = cli("stats")
    assert r.exit_code == 0 and "3 entries" in r.output and "1 key" in r.output
    r = cli("clear", "--yes", "--remote", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == {"local": 3, "remote": 4}
    assert admin.keys("*") == [b"other-app:\xff"]


# -- values over the entry limit ----------------------------------------------------------


def sent_bytes(admin):
    return admin.info("stats")["total_net_output_bytes"]


def commands(admin):
    """Commands the server ran, but those this test sends itself."""
    stats = admin.info("commandstats")
    return sum(v["calls"] for k, v in stats.items() if k not in ("cmdstat_info",))


def test_an_oversized_value_is_refused_by_its_length_and_never_asked_again(
        remote, monkeypatch, tmp_path):
    admin = remote.client()
    big = json.loads(encode(key(1), {"v": 1}).text)
    big["value"] = {"pad": "x" * (4 << 20)}   # 4 MiB, four times the limit
    admin.set(name(1), json.dumps(big).encode())
    cache = machine(monkeypatch, tmp_path, "reader")
    cache.get(key(2))  # connect (the HELLO/handshake replies are not what is counted)
    before = sent_bytes(admin)
    assert cache.get(key(1)) is None
    # the server sent its length and a bounded prefix, not the value
    assert sent_bytes(admin) - before < 256 << 10
    ran = commands(admin)
    before = sent_bytes(admin)
    for _ in range(3):
        assert cache.get(key(1)) is None
    assert commands(admin) == ran                  # not asked again
    assert sent_bytes(admin) - before < 16 << 10   # the INFO replies alone
    stats = cache.stats()["remote"]
    assert (stats["rejected"], stats["errors"]) == (4, 0) and cache.remote is not None
    # this process writing the digest forgets the rejection
    cache.put(key(1), {"v": "new"})
    cache.local.delete(key(1).digest())
    assert cache.get(key(1)) == {"v": "new"} and cache.stats()["remote"]["hits"] == 1


def test_an_entry_larger_than_the_first_read_is_still_a_hit(remote, monkeypatch, tmp_path):
    from tuner.cache.remote import FIRST_READ
    value = {"pad": "y" * (FIRST_READ * 3)}
    assert len(encode(key(3), value).text) < MAX_ENTRY_BYTES
    machine(monkeypatch, tmp_path, "writer").put(key(3), value)
    reader = machine(monkeypatch, tmp_path, "reader")
    assert reader.get(key(3)) == value and reader.stats()["remote"]["hits"] == 1


def test_an_empty_or_exactly_limit_sized_value(remote, monkeypatch, tmp_path):
    admin = remote.client()
    admin.set(name(4), b"")
    admin.set(name(5), b"z" * (MAX_ENTRY_BYTES + 1))
    cache = machine(monkeypatch, tmp_path, "reader")
    assert cache.get(key(4)) is None and cache.get(key(5)) is None
    stats = cache.stats()["remote"]
    assert (stats["misses"], stats["rejected"], stats["errors"]) == (2, 1, 0)


# -- the prefix: the cache's keys and nobody else's ----------------------------------------


def other_apps_keys(admin):
    admin.set("session:42", "someone's login")
    admin.set(b"other-app:\xff", b"theirs")
    admin.rpush("queue", "job")
    return sorted(admin.keys("*"))


def test_a_blank_prefix_is_refused_and_nothing_is_deleted(remote, monkeypatch):
    import pytest

    from tuner.cache import CacheWarning
    get_cache().put(key(1), {"v": 1})
    theirs = other_apps_keys(remote.client())
    monkeypatch.setenv("TUNER_REMOTE_PREFIX", " ")   # read as empty: every key is under it
    with pytest.warns(CacheWarning, match="TUNER_REMOTE_PREFIX"):
        cache = get_cache()
    assert cache.remote is None and cache.get(key(1)) == {"v": 1}   # the local cache goes on
    r = cli("clear", "--remote", "--yes")
    assert r.exit_code == 1 and "TUNER_REMOTE_PREFIX" in r.output
    assert "deleted" not in r.output.replace("nothing deleted", "")
    r = cli("stats", "--json")
    assert r.exit_code == 1 and "TUNER_REMOTE_PREFIX" in json.loads(r.stdout)["remote"]["error"]
    r = cli("stats")
    assert r.exit_code == 1 and "not used (TUNER_REMOTE_PREFIX is empty" in r.stderr
    assert sorted(remote.client().keys("*")) == theirs   # ours among them
    assert cache.local.count_by_namespace() == {"triton.reduction": 1}   # not cleared either


def test_clear_deletes_only_keys_under_the_prefix_even_one_with_glob_characters(
        remote, monkeypatch):
    monkeypatch.setenv("TUNER_REMOTE_PREFIX", "team[a]*?\\:")
    get_cache().put(key(1), {"v": 1})
    admin = remote.client()
    theirs = other_apps_keys(admin)
    admin.set("teama-anything:1", "matches the prefix read as a glob")
    admin.set("team[a]*?\\", "the prefix, but one character short")
    before = sorted(admin.keys("*"))
    assert len(before) == len(theirs) + 2
    r = cli("clear", "--remote", "--yes", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["remote"] == 1
    assert sorted(admin.keys("*")) == sorted(k for k in before if not k.startswith(b"team[a]*?\\:"))
