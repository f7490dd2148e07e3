"""Compiled-graph entries: the tuning cache's stores, namespace "graph", the same secret.

The compiler (tuner.compiler.graph_cache) builds the key and the value, a JSON object of
generated sources, kernel metadata and configs; this module only stores and fetches it. A
value is tens to hundreds of KiB of source, so it is stored deflated, as
`{"z": <base64 of zlib of its JSON>, "bytes": <its JSON's length>}` inside an ordinary entry
(entry.py: signed, validated, under MAX_ENTRY_BYTES); on read the inflated text is bounded by
MAX_PAYLOAD_BYTES and parsed by load_json, so a stored entry is data, never pickle.

An entry holds code the compiler loads and runs, so the shared store is used for graphs only
when TUNER_CACHE_SECRET signs entries: without a secret anyone who can write the Redis could
choose that code, and the graph cache stays local. Read-only modes are the layered cache's
(a read-only remote is never written, a read-only local file serves hits). After each write
the local store keeps at most TUNER_GRAPH_CACHE_MAX_MB of graph entries, the oldest going first.
"""
from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Any

from .entry import InvalidEntry, load_json
from .keys import CacheKey

NAMESPACE = "graph"
MAX_PAYLOAD_BYTES = 64 << 20   # inflated JSON of one graph; a large model's graph is ~1 MiB


def pack(value: dict) -> dict:
    """`value` (a JSON object) as stored: deflated, base64, with its length."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    raw = text.encode()
    return {"z": base64.b64encode(zlib.compress(raw, 6)).decode("ascii"), "bytes": len(raw)}


def unpack(stored: Any) -> dict:
    """The value `pack` stored; raises InvalidEntry for anything else (bad base64, a zlib
    stream that is truncated or inflates past MAX_PAYLOAD_BYTES, JSON that is no object)."""
    if not isinstance(stored, dict) or set(stored) != {"z", "bytes"} \
            or not isinstance(stored["z"], str) or not isinstance(stored["bytes"], int):
        raise InvalidEntry("not a compiled-graph entry")
    if not 0 < stored["bytes"] <= MAX_PAYLOAD_BYTES:
        raise InvalidEntry(f"a graph of {stored['bytes']} bytes, over {MAX_PAYLOAD_BYTES}")
    try:
        packed = base64.b64decode(stored["z"].encode("ascii"), validate=True)
        inflate = zlib.decompressobj()
        raw = inflate.decompress(packed, MAX_PAYLOAD_BYTES + 1)
    except (binascii.Error, UnicodeEncodeError, zlib.error, ValueError) as e:
        raise InvalidEntry(f"graph payload unreadable ({type(e).__name__})") from None
    if not inflate.eof or len(raw) != stored["bytes"]:
        raise InvalidEntry("graph payload truncated or of the wrong length")
    value = load_json(raw, max_bytes=MAX_PAYLOAD_BYTES)
    if not isinstance(value, dict):
        raise InvalidEntry("graph payload is not a JSON object")
    return value


def _cache():
    from .layered import get_cache
    return get_cache()


def _shared(cache) -> bool:
    """Whether graph entries go to (and come from) the remote store: only signed ones."""
    return bool(cache.secret) and cache.remote is not None


def lookup(key: CacheKey) -> tuple[dict | None, str | None]:
    """(the value stored for `key`, "local" | "remote"), or (None, None); never raises. A
    bad entry is a miss the layered cache counts as rejected and warns about once."""
    cache = _cache()
    if not cache.enabled:
        return None, None
    return cache.lookup(key, unpack, remote=_shared(cache))


def store(key: CacheKey, value: dict) -> str:
    """Store `value` for `key`; "" when stored, else why not (too large, cache off). A store
    that fails is the layered cache's to count and warn about; never raises."""
    from .config import settings
    from .entry import encode
    cache = _cache()
    if not cache.enabled:
        return "the cache is off"
    limit = int(float(settings.graph_cache_max_mb) * (1 << 20))
    packed = pack(value)
    try:
        entry = encode(key, packed, cache.secret)
    except ValueError as e:   # over the envelope's MAX_ENTRY_BYTES even deflated
        return f"too large ({e})"
    size = len(entry.text.encode())
    if size > limit:
        return f"entry of {size} bytes over TUNER_GRAPH_CACHE_MAX_MB"
    cache.put_entry(entry, _shared(cache))
    trim(limit)
    return ""


def trim(max_bytes: int) -> int:
    """Drop the oldest local graph entries past `max_bytes`; how many went (0 when the local
    store is read-only or fails: the bound is then the writer's)."""
    local = _cache().local
    if local is None:
        return 0
    try:
        return local.trim(NAMESPACE, max_bytes)
    except Exception:   # read-only, locked: nothing was written here either
        return 0


def discard(key: CacheKey) -> None:
    """Delete `key`'s local entry (a graph that failed to run from it); the shared one stays,
    as the decision cache leaves a shared answer one machine failed to launch. Never raises."""
    _cache().discard(key)


def record(**counts: float) -> None:
    """Add to the graph namespace's statistics (`tuner cache stats`); never raises."""
    _cache().record(NAMESPACE, **counts)
