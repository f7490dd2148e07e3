"""The stored form of a cache entry: a JSON envelope, optionally HMAC-signed, validated on read.

    {"schema": 1, "key": {namespace, problem, configs_hash, backend}, "value": {...},
     "created": <unix time>, "sig": "<hex HMAC-SHA256>"}

The key is stored in full so that a read can prove the entry answers the key it was fetched
for (a digest collision, or a value copied under the wrong key, is rejected). Only JSON is ever
parsed: never pickle, never code. With a secret, the signature covers everything but itself, so
a machine without the secret cannot write an entry that others accept.

Whoever can write the store can still hand a reader any text, signed or not, so the reader
bounds what it parses: an entry over MAX_ENTRY_BYTES or nested deeper than MAX_DEPTH is
rejected before json.loads sees it (a 100 MB entry would cost seconds per lookup, one nested
100k deep would raise RecursionError), and NaN/Infinity or an absurd `created` are invalid.
"""
from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import math
import re
import time
from dataclasses import dataclass
from typing import Any

from .keys import SCHEMA_VERSION, CacheKey, canonical_json


MAX_ENTRY_BYTES = 1 << 20   # a decision record is a few KiB; anything near this is an attack
MAX_DEPTH = 64              # JSON nesting (objects and arrays); a record needs about 8
MAX_CREATED = 253402300799  # 9999-12-31: later (or negative, or not finite) is not a time


class InvalidEntry(ValueError):
    """A stored entry that must not be used: malformed, truncated, mismatched or unsigned."""


# One linear pass: a string token (closed or not, so an unclosed one cannot make the scan
# quadratic) or a bracket, whose running sum is the nesting depth.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|([\[\]{}])', re.DOTALL)
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1, "": 0}


def json_depth(text: str) -> int:
    """How deep `text`'s arrays and objects nest, counted without recursion (strings skipped)."""
    return max(itertools.accumulate(_STEP[b] for b in _TOKEN.findall(text)), default=0)


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def as_text(raw: Any, max_bytes: int = MAX_ENTRY_BYTES) -> str:
    """Stored bytes or text as text, size checked first; raises InvalidEntry."""
    if isinstance(raw, (bytes, bytearray, memoryview)):
        if len(raw) > max_bytes:
            raise InvalidEntry(f"{len(raw)} bytes, over the limit of {max_bytes}")
        try:
            return bytes(raw).decode()
        except UnicodeDecodeError:
            raise InvalidEntry("not UTF-8 text") from None
    if not isinstance(raw, str):
        raise InvalidEntry(f"stored value is {type(raw).__name__}, not text")
    size = len(raw) if raw.isascii() else len(raw.encode(errors="replace"))
    if size > max_bytes:
        raise InvalidEntry(f"{size} bytes, over the limit of {max_bytes}")
    return raw


def load_json(raw: Any, max_bytes: int = MAX_ENTRY_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """json.loads for text nobody vouches for: size and depth checked before parsing,
    NaN/Infinity refused; raises InvalidEntry saying why, never anything else."""
    text = as_text(raw, max_bytes)
    # fewer brackets than the limit cannot nest deeper: the common case skips the scan
    if text.count("[") + text.count("{") > max_depth and json_depth(text) > max_depth:
        raise InvalidEntry(f"nested {json_depth(text)} deep, over the limit of {max_depth}")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError as e:  # truncated or garbage (JSONDecodeError), NaN, an int too long
        raise InvalidEntry(f"not JSON ({getattr(e, 'msg', e)})") from None
    except RecursionError:  # unreachable below MAX_DEPTH; kept so decode never raises it
        raise InvalidEntry("nested too deep") from None


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
    """Build the envelope; raises TypeError/ValueError when `value` is not a JSON object, holds
    NaN or Infinity, or makes an entry over MAX_ENTRY_BYTES."""
    if not isinstance(value, dict):
        raise TypeError(f"a cache value must be a JSON object (dict), not {type(value).__name__}")
    body = {"schema": SCHEMA_VERSION, "key": key.fields(), "value": value,
            "created": time.time() if created is None else created}
    if secret:
        body["sig"] = _sign(body, secret)
    # canonical_json's spelling; what no reader would accept (NaN, too big) is refused here,
    # where the writer can see why
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    if len(text.encode()) > MAX_ENTRY_BYTES:
        raise ValueError(f"cache entry of {len(text.encode())} bytes is over the limit of "
                         f"{MAX_ENTRY_BYTES}")
    # Round-trip so the caller gets back exactly what a reader will see (tuples -> lists, ...).
    return Entry(key, json.loads(text)["value"], body["created"], text)


def decode(raw: Any, secret: str = "", expect: CacheKey | None = None) -> Entry:
    """Parse and validate a stored envelope, or raise InvalidEntry saying why (never any other
    exception, whatever `raw` holds)."""
    raw = as_text(raw)
    body = load_json(raw)
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
    if not isinstance(created, (int, float)) or isinstance(created, bool) \
            or not 0 <= created <= MAX_CREATED:  # also false for NaN
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


# C0/C1 controls (ESC starts a terminal escape sequence), zero-width and bidi overrides
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


def printable(text) -> str:
    """`text` with every control character escaped (\\x1b), safe to print on a terminal."""
    return _UNPRINTABLE.sub(lambda m: m.group(0).encode("unicode_escape").decode(), str(text))


def checked_created(created: Any) -> float | None:
    """A row's created time if it is one (for listings), else None."""
    if isinstance(created, (int, float)) and not isinstance(created, bool) \
            and math.isfinite(created) and 0 <= created <= MAX_CREATED:
        return float(created)
    return None
