"""The compiled-graph cache's storage as the compiler reaches it (the compiler never imports
the cache package: tests/test_import_graph.py): keys in the cache's namespace for graphs, and
its lookup, store and statistics (tuner.cache.graphs)."""
from __future__ import annotations

from tuner.cache import graphs
from tuner.cache.keys import CacheKey, backend_hash, backend_info

NAMESPACE = graphs.NAMESPACE
lookup = graphs.lookup
store = graphs.store
discard = graphs.discard
record = graphs.record


def make_key(problem: str, context: str, env: dict) -> CacheKey:
    """The key of a compiled graph: `problem` (the graph's hash), `context` (the compile's
    settings hashed), `env` (versions and device, hashed with the backend's own info)."""
    return CacheKey(NAMESPACE, problem, context, backend_hash(env))


def environment() -> dict:
    """The cache's versions and device (backend_info)."""
    return dict(backend_info())
