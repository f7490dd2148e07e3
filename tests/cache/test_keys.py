import json

import pytest

from tuner.cache.entry import InvalidEntry, decode, encode
from tuner.cache.keys import SCHEMA_VERSION, CacheKey, backend_hash, backend_info, configs_hash

KEY = CacheKey("triton.pointwise", "src-hash-1", configs_hash([{"XBLOCK": 64}]), backend_hash())


def test_configs_hash_ignores_order_and_repeats_but_not_content():
    a = [{"XBLOCK": 64, "num_warps": 4}, {"XBLOCK": 128, "num_warps": 8}, "pad"]
    b = ["pad", {"num_warps": 8, "XBLOCK": 128}, {"num_warps": 4, "XBLOCK": 64}, "pad"]
    assert configs_hash(a) == configs_hash(b)
    assert configs_hash(a) != configs_hash(a[:2])
    assert configs_hash([{"XBLOCK": 64}]) != configs_hash([{"XBLOCK": 32}])


def test_configs_hash_uses_to_json_of_config_objects():
    class Cfg:
        def __init__(self, x):
            self.x = x

        def to_json(self):
            return {"XBLOCK": self.x}

    assert configs_hash([Cfg(1), Cfg(2)]) == configs_hash([{"XBLOCK": 2}, {"XBLOCK": 1}])


def test_backend_hash_covers_versions_device_and_extra_flags():
    info = backend_info()
    assert {"tuner", "torch", "triton", "cuda", "device"} <= set(info)
    assert info["device"] == "cpu" or "sm_" in info["device"]
    assert backend_hash() == backend_hash({})
    assert backend_hash({"fast_math": True}) != backend_hash({"fast_math": False})
    assert backend_hash({"a": 1, "b": 2}) == backend_hash({"b": 2, "a": 1})


def test_digest_changes_with_every_key_field():
    digests = {KEY.digest(), CacheKey("x", *list(KEY.fields().values())[1:]).digest(),
               CacheKey(KEY.namespace, "other", KEY.configs_hash, KEY.backend).digest(),
               CacheKey(KEY.namespace, KEY.problem, "c", KEY.backend).digest(),
               CacheKey(KEY.namespace, KEY.problem, KEY.configs_hash, "b").digest()}
    assert len(digests) == 5


def test_entry_round_trip_is_json_only():
    e = encode(KEY, {"choice": {"XBLOCK": 64}, "timings": [(1, 2.5)]})
    body = json.loads(e.text)
    assert body["schema"] == SCHEMA_VERSION and body["key"] == KEY.fields()
    back = decode(e.text, expect=KEY)
    assert back.value == {"choice": {"XBLOCK": 64}, "timings": [[1, 2.5]]} == e.value
    assert back.key == KEY


@pytest.mark.parametrize("raw, why", [
    ("", "not JSON"), ("{\"schema\": 1, \"key\"", "not JSON"), (b"\xff\xfe", "UTF-8"),
    (42, "not text"), ("[1, 2]", "not a JSON object"), ("garbage", "not JSON"),
])
def test_malformed_entries_are_rejected(raw, why):
    with pytest.raises(InvalidEntry, match=why):
        decode(raw)


def test_truncated_entry_is_rejected():
    text = encode(KEY, {"choice": 1}).text
    for cut in (1, len(text) // 2, len(text) - 1):
        with pytest.raises(InvalidEntry):
            decode(text[:cut])


def test_wrong_schema_and_wrong_key_are_rejected():
    body = json.loads(encode(KEY, {"choice": 1}).text)
    body["schema"] = SCHEMA_VERSION + 1
    with pytest.raises(InvalidEntry, match="schema"):
        decode(json.dumps(body))
    other = CacheKey(KEY.namespace, "another-problem", KEY.configs_hash, KEY.backend)
    with pytest.raises(InvalidEntry, match="another key"):
        decode(encode(KEY, {"choice": 1}).text, expect=other)


def test_value_must_be_a_json_object():
    with pytest.raises(TypeError):
        encode(KEY, [1, 2])
    body = json.loads(encode(KEY, {"choice": 1}).text)
    body["value"] = "__import__('os')"
    with pytest.raises(InvalidEntry, match="value"):
        decode(json.dumps(body))


def test_signature_required_and_checked_when_a_secret_is_set():
    signed = encode(KEY, {"choice": 1}, secret="s3cret").text
    assert decode(signed, secret="s3cret").value == {"choice": 1}
    with pytest.raises(InvalidEntry, match="wrong signature"):
        decode(signed, secret="other")
    with pytest.raises(InvalidEntry, match="missing signature"):
        decode(encode(KEY, {"choice": 1}).text, secret="s3cret")
    tampered = json.loads(signed)
    tampered["value"]["choice"] = 2
    with pytest.raises(InvalidEntry, match="wrong signature"):
        decode(json.dumps(tampered), secret="s3cret")
