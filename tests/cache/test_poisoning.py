"""A writer to the shared Redis tries to break other machines' compiles (issue 17): every
poisoned answer is a rejected miss on the victim, which tunes again, never launches it and
never copies it into its local cache. Real Redis, real SQLite, the real engine."""
import json
import warnings

import pytest

from tuner.cache import CacheWarning, get_cache
from tuner.cache import layered
from tuner.cache.entry import decode, encode
from tuner.cache.local import LocalStore
from tuner.engine import _cache_keys, decide
from tuner.space import Config, ConfigSpace, choice_to_json

NS, PROBLEM = "triton.pointwise", "tiled-kernel:4096x4096"


def space():
    return ConfigSpace.pointwise([4096, 4096])  # XBLOCK, YBLOCK, num_warps; stages fixed at 1


CANDS = space().default_candidates()[:3]
BEST = CANDS[1]


class Measure:
    def __init__(self):
        self.calls = []

    def __call__(self, c):
        self.calls.append(c)
        return 1.0 if c == BEST else 2.0 + len(self.calls)


def keys(search="exhaustive"):
    return _cache_keys(NS, PROBLEM, CANDS, space(), search, None)


def machine(monkeypatch, tmp_path, name):
    """The process cache as machine `name` sees it: the shared Redis, its own local store."""
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / name))
    return get_cache()


def honest_answer(monkeypatch, tmp_path, search="exhaustive"):
    machine(monkeypatch, tmp_path, "honest")
    d = decide(NS, PROBLEM, CANDS, Measure(), space=space(), search=search)
    assert d.choice == BEST
    return d


def poison(redis, key, edit=None, text=None):
    """Rewrite the shared entry of `key` as an attacker without the secret can."""
    name = b"tuner:" + key.digest().encode()
    if text is None:
        value = decode(redis.get(name)).value
        edit(value)
        text = encode(key, value).text
    redis.set(name, text.encode() if isinstance(text, str) else text)


def set_choice(**changes):
    def edit(value):
        cfg = value["choice"]["config"]
        for name, v in changes.items():
            if name in ("num_warps", "num_stages"):
                cfg[name] = v
            else:
                cfg["kwargs"][name] = v
    return edit


def nested(depth):
    v = 1
    for _ in range(depth):
        v = [v]
    return v


def envelope_text(key, created):
    body = json.loads(encode(key, {"v": 1}).text)
    return json.dumps(body).replace(json.dumps(body["created"]), created)


ATTACKS = {
    "float block size": set_choice(XBLOCK=float(BEST["XBLOCK"])),
    "bool block size": set_choice(YBLOCK=True),
    "extra keyword": set_choice(EVIL=1),
    "num_stages outside the space": set_choice(num_stages=5),
    "num_warps outside the space": set_choice(num_warps=64),
    "missing num_stages": lambda v: v["choice"]["config"].pop("num_stages"),
    "in the space, not a candidate": set_choice(XBLOCK=1, YBLOCK=1, num_warps=32),
    "401-digit time": lambda v: v.update(time_ms=10 ** 400),
    "negative time": lambda v: v.update(time_ms=-1.0),
    "choice nested 600 deep": lambda v: v.update(choice=nested(600)),
    "garbled timings": lambda v: v.update(timings=[["x"]]),
    "extra record field": lambda v: v.update(evil=True),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_poisoned_answer_is_a_rejected_miss_and_never_reaches_the_local_cache(
        attack, remote, monkeypatch, tmp_path):
    honest_answer(monkeypatch, tmp_path)
    by_set, _ = keys()
    poison(remote.client(), by_set, ATTACKS[attack])
    victim = machine(monkeypatch, tmp_path, "victim")
    m = Measure()
    d = decide(NS, PROBLEM, CANDS, m, space=space(), search="exhaustive")
    assert d.source == "exhaustive" and len(m.calls) == 3 and d.choice == BEST
    stats = victim.stats()["remote"]
    assert (stats["hits"], stats["rejected"], stats["puts"]) == (0, 1, 1)  # its own answer
    # the victim's own answer replaced the poison everywhere; the Redis cleaned, its local
    # copy answers with the candidate itself (int block sizes, no extra keyword)
    remote.client().flushall()
    hit = decide(NS, PROBLEM, CANDS, Measure(), space=space(), search="exhaustive")
    assert hit.source == "cache" and hit.choice is BEST
    assert choice_to_json(hit.choice) == {"config": BEST.to_json()}


@pytest.mark.parametrize("created", ["NaN", "1e300", "-1", "Infinity"])
def test_absurd_created_time_is_rejected(created, remote, monkeypatch, tmp_path):
    by_set, _ = keys()
    poison(remote.client(), by_set, text=envelope_text(by_set, created))
    victim = machine(monkeypatch, tmp_path, "victim")
    assert victim.get(by_set) is None
    assert victim.stats()["remote"]["rejected"] == 1 and victim.stats()["local"]["puts"] == 0


def test_envelope_nested_100k_deep_is_rejected_even_with_the_secret(remote, monkeypatch,
                                                                     tmp_path):
    monkeypatch.setenv("TUNER_CACHE_SECRET", "team-secret")
    by_set, _ = keys()
    poison(remote.client(), by_set, text="[" * 100_000 + "]" * 100_000)
    victim = machine(monkeypatch, tmp_path, "victim")
    assert victim.get(by_set) is None  # no RecursionError
    m = Measure()
    assert decide(NS, PROBLEM, CANDS, m, space=space(), search="exhaustive").source == "exhaustive"
    assert victim.stats()["remote"]["rejected"] == 2


def test_oversized_entry_is_rejected_before_parsing_and_not_copied(remote, monkeypatch, tmp_path):
    by_set, _ = keys()
    big = json.loads(encode(by_set, {"v": 1}).text)
    big["value"] = {"pad": "x" * (50 << 20)}  # 50 MiB
    poison(remote.client(), by_set, text=json.dumps(big))
    victim = machine(monkeypatch, tmp_path, "victim")
    sent = remote.client().info("stats")["total_net_output_bytes"]
    assert victim.get(by_set) is None
    # refused by its length: the server sent far less than the value (counted, not timed)
    assert remote.client().info("stats")["total_net_output_bytes"] - sent < 1 << 20
    assert victim.stats()["remote"]["rejected"] == 1
    assert LocalStore().get(by_set.digest()) is None


def test_remote_entry_is_copied_locally_only_once_the_reader_accepted_it(remote, monkeypatch,
                                                                       tmp_path):
    d = honest_answer(monkeypatch, tmp_path)
    by_set, _ = keys()
    victim = machine(monkeypatch, tmp_path, "victim")
    assert victim.get(by_set, lambda value: None) is None  # the engine's check refuses it

    def raising(value):
        raise RecursionError("what a hostile record provokes")
    assert victim.get(by_set, raising) is None
    assert LocalStore().get(by_set.digest()) is None
    assert victim.stats()["remote"] == {"hits": 0, "misses": 2, "puts": 0, "rejected": 2,
                                        "errors": 0}
    hit = decide(NS, PROBLEM, CANDS, Measure(), space=space(), search="exhaustive")
    assert hit.source == "cache" and hit.choice == d.choice
    assert victim.stats()["remote"]["hits"] == 1 and LocalStore().get(by_set.digest())


def test_a_space_answer_is_checked_against_the_space(remote, monkeypatch, tmp_path):
    honest_answer(monkeypatch, tmp_path, search="coordinate_descent")
    _, by_space = keys("coordinate_descent")
    other = [Config({"XBLOCK": 8, "YBLOCK": 8}, num_warps=1, num_stages=1)]
    machine(monkeypatch, tmp_path, "victim-ok")
    hit = decide(NS, PROBLEM, other, Measure(), space=space(), search="coordinate_descent")
    assert hit.source == "cache" and hit.choice == BEST
    poison(remote.client(), by_space, set_choice(XBLOCK=8192))  # beyond the size hint
    victim = machine(monkeypatch, tmp_path, "victim")
    m = Measure()
    d = decide(NS, PROBLEM, other, m, space=space(), search="coordinate_descent")
    assert d.source == "coordinate_descent" and m.calls and d.choice["XBLOCK"] <= 4096
    assert victim.stats()["remote"]["rejected"] >= 1


def test_failing_stores_inside_a_compile_are_counted_misses(remote, monkeypatch, tmp_path):
    victim = machine(monkeypatch, tmp_path, "victim")
    victim.local.path.parent.mkdir(parents=True)
    victim.local.path.write_bytes(b"not a database" * 100)
    remote.kill()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        d = decide(NS, PROBLEM, CANDS, Measure(), space=space(), search="exhaustive")
    assert d.source == "exhaustive" and d.choice == BEST
    stats = victim.stats()
    assert stats["local"]["errors"] >= 1 and stats["remote"]["errors"] == 1


def test_shared_cache_without_a_secret_warns_once_per_process(remote, monkeypatch, tmp_path):
    monkeypatch.setattr(layered, "_unsigned_warned", False)
    monkeypatch.setenv("TUNER_REMOTE_CACHE", f"redis://:pw-in-url@127.0.0.1:{remote.port}/0")
    with pytest.warns(CacheWarning, match="without TUNER_CACHE_SECRET") as caught:
        get_cache()
        machine(monkeypatch, tmp_path, "rebuilt")  # a new cache instance: no second warning
    assert len(caught) == 1
    assert "pw-in-url" not in str(caught[0].message) and ":***@" in str(caught[0].message)
    assert "choose which valid config" in str(caught[0].message)
    monkeypatch.setattr(layered, "_unsigned_warned", False)
    monkeypatch.setenv("TUNER_CACHE_SECRET", "team-secret")
    with warnings.catch_warnings(record=True) as signed:
        warnings.simplefilter("always")
        machine(monkeypatch, tmp_path, "signed")
    assert not [w for w in signed if "TUNER_CACHE_SECRET" in str(w.message)]
