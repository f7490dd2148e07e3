"""Tuning-result cache: keys, local SQLite store, shared Redis store, integrity, stats, export/import.

    key = CacheKey(namespace, problem, configs_hash(candidates), backend_hash(extra_flags))
    get_cache().get(key) -> dict | None;  get_cache().put(key, value_dict)
"""
from .entry import Entry, InvalidEntry
from .keys import SCHEMA_VERSION, CacheKey, backend_hash, backend_info, configs_hash
from .layered import Cache, CacheWarning, LayerStats, build_cache, get_cache, reset_cache

__all__ = ["SCHEMA_VERSION", "Cache", "CacheKey", "CacheWarning", "Entry", "InvalidEntry",
           "LayerStats", "backend_hash", "backend_info", "build_cache", "configs_hash",
           "get_cache", "reset_cache"]
