"""Tuning-result cache: keys, local SQLite store, shared Redis store, integrity, stats, export/import.

    key = CacheKey(namespace, problem, configs_hash(candidates), backend_hash(extra_flags))
    get_cache().get(key) -> dict | None;  get_cache().put(key, value_dict)

Its settings are installed from outside (see config.py). The names below load on first use,
so installing them (at `import tuner`) imports neither SQLite's stores nor Redis.
"""
import importlib

_EXPORTS = {
    "Entry": "entry", "InvalidEntry": "entry",
    "SCHEMA_VERSION": "keys", "CacheKey": "keys", "backend_hash": "keys", "backend_info": "keys",
    "configs_hash": "keys",
    "Cache": "layered", "CacheWarning": "layered", "LayerStats": "layered",
    "build_cache": "layered", "get_cache": "layered", "reset_cache": "layered",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
