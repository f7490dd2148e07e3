"""The stored form of a cache entry: a JSON envelope, optionally HMAC-signed, validated on read.

    {"schema": 1, "key": {namespace, problem, configs_hash, backend}, "value": {...},
     "created": <unix time>, "sig": "<hex HMAC-SHA256>"}

The key is stored in full so that a read can prove the entry answers the key it was fetched
for (a digest collision, or a value copied under the wrong key, is rejected). Only JSON is ever
parsed: never pickle, never code. With a secret, the signature covers everything but itself, so
a machine without the secret cannot write an entry that others accept.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Any

from .keys import SCHEMA_VERSION, CacheKey, canonical_json


class InvalidEntry(ValueError):
    """A stored entry that must not be used: malformed, truncated, mismatched or unsigned."""


@dataclass(frozen=True)
class Entry:
    key: CacheKey
    value: dict
    created: float
    text: str  # the envelope as stored, kept so export/import move it unchanged

    @property
    def digest(self) -> str:
        return self.key.digest()


def _sign(body: dict, secret: str) -> str:
    return hmac.new(secret.encode(), canonical_json(body).encode(), hashlib.sha256).hexdigest()


def encode(key: CacheKey, value: dict, secret: str = "", created: float | None = None) -> Entry:
    """Build the envelope; raises TypeError/ValueError when `value` is not a JSON object."""
    if not isinstance(value, dict):
        raise TypeError(f"a cache value must be a JSON object (dict), not {type(value).__name__}")
    body = {"schema": SCHEMA_VERSION, "key": key.fields(), "value": value,
            "created": time.time() if created is None else created}
    if secret:
        body["sig"] = _sign(body, secret)
    text = canonical_json(body)
    # Round-trip so the caller gets back exactly what a reader will see (tuples -> lists, ...).
    return Entry(key, json.loads(text)["value"], body["created"], text)


def decode(raw: Any, secret: str = "", expect: CacheKey | None = None) -> Entry:
    """Parse and validate a stored envelope, or raise InvalidEntry saying why."""
    if isinstance(raw, (bytes, bytearray, memoryview)):
        try:
            raw = bytes(raw).decode()
        except UnicodeDecodeError:
            raise InvalidEntry("not UTF-8 text") from None
    if not isinstance(raw, str):
        raise InvalidEntry(f"stored value is {type(raw).__name__}, not text")
    try:
        body = json.loads(raw)
    except ValueError as e:  # truncated or garbage
        raise InvalidEntry(f"not JSON ({e.msg})") from None
    if not isinstance(body, dict):
        raise InvalidEntry("not a JSON object")
    if body.get("schema") != SCHEMA_VERSION:
        raise InvalidEntry(f"schema {body.get('schema')!r}, expected {SCHEMA_VERSION}")
    fields, value, created = body.get("key"), body.get("value"), body.get("created")
    if not isinstance(fields, dict) or set(fields) != set(CacheKey.__dataclass_fields__) \
            or not all(isinstance(v, str) for v in fields.values()):
        raise InvalidEntry("bad key fields")
    if not isinstance(value, dict):
        raise InvalidEntry("value is not a JSON object")
    if not isinstance(created, (int, float)) or isinstance(created, bool):
        raise InvalidEntry("bad created time")
    if set(body) - {"schema", "key", "value", "created", "sig"}:
        raise InvalidEntry("unknown fields")
    key = CacheKey(**fields)
    if expect is not None and key != expect:
        raise InvalidEntry("entry belongs to another key")
    if secret:
        sig = body.pop("sig", None)
        if not isinstance(sig, str):
            raise InvalidEntry("missing signature")
        if not hmac.compare_digest(sig, _sign(body, secret)):
            raise InvalidEntry("wrong signature")
    return Entry(key, value, float(created), raw)
