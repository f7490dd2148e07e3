"""A separate process using the cache (run by the tests with subprocess): it writes its own
entries and a shared one while reading another worker's, and prints what it saw as JSON."""
import hashlib
import json
import sys

from tuner.cache import CacheKey, get_cache


def key(name: str) -> CacheKey:
    return CacheKey("test.worker", name, "cfg", "backend")


def value(worker: int, i: int) -> dict:
    blob = f"{worker}-{i}-" * 300  # a few KB, so a torn write could not go unnoticed
    return {"worker": worker, "i": i, "blob": blob, "check": hashlib.sha256(blob.encode()).hexdigest()}


def intact(v: dict) -> bool:
    return hashlib.sha256(v["blob"].encode()).hexdigest() == v["check"]


def main(mode: str, *args: str) -> None:
    cache = get_cache()
    out = {}
    if mode == "write":  # write WORKER N PEERS
        worker, n, peers = map(int, args)
        seen = torn = 0
        for i in range(n):
            cache.put(key(f"w{worker}-{i}"), value(worker, i))
            cache.put(key("shared"), value(worker, i))
            for name in (f"w{(worker + 1) % peers}-{i}", "shared"):
                got = cache.get(key(name))
                if got is not None:
                    seen += 1
                    torn += not intact(got)
        out = {"seen": seen, "torn": torn}
    elif mode == "get":  # get NAME...
        out = {"values": [cache.get(key(name)) for name in args]}
    out["stats"] = cache.stats()
    print(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:])
