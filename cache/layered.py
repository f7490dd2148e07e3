"""The layered cache: local SQLite first, then the shared Redis; the process-wide instance.

Reads go local, then remote; writes go to both, the remote skipped in read-only mode. Every
stored entry is validated on read (entry.py), then by the caller's `check` (the engine's:
does the answer fit the current candidates?): a bad one is a miss, counted as `rejected`, and
a remote entry is copied into the local store only once both accepted it. A store that fails
is a miss, counted as an error; `get` never raises. What failed decides what is lost:

- the connection (refused, timed out, authentication): the remote is switched off for the rest
  of the process with a single warning, because a server that refused or timed out once would
  otherwise cost a timeout on every decision;
- one command about one key (a redis ResponseError: a key of the wrong type under the prefix,
  say): that lookup is a miss, counted as an error, with one warning for the process; the
  remote stays on;
- a write the server refuses (out of memory at maxmemory, a read-only replica): the remote is
  no longer written by this process, with one warning, and is still read.

A read-only local cache serves hits; its writes are counted errors, with one warning. Rejected
entries are reported too, rate-limited: a warning at a layer's first, naming why, then with the
count so far at its 10th, 100th, 1000th ... and, if more came since, when the cache is closed.

Without TUNER_CACHE_SECRET a shared cache is trusted as far as the checks go: anyone who can
write to the Redis can pick, among the answers the checks accept, the one this process uses.
Building a cache that reads a remote without a secret warns once per process.
"""
from __future__ import annotations

import atexit
import os
import threading
import warnings
from dataclasses import asdict, dataclass
from typing import Any, Callable

from .entry import Entry, InvalidEntry, decode, encode, printable
from .keys import CacheKey
from .local import LocalStore, ReadOnlyCache
from .remote import RemoteConfig, RemoteStore, redact

LAYERS = ("local", "remote")
UNSIGNED_WARNING = (
    "the shared cache {url} is used without TUNER_CACHE_SECRET: its entries are unsigned, so "
    "anyone who can write to it can choose which valid config this process launches (a slow "
    "one, say). Set the same TUNER_CACHE_SECRET on every machine to sign entries and reject "
    "the rest.")
_unsigned_warned = False  # once per process
_unsigned_lock = threading.Lock()


class CacheWarning(RuntimeWarning):
    """The cache lost a store; tuning continues without it."""


@dataclass
class _Rejections:
    count: int = 0
    first: str = ""     # why the first was rejected
    reported: int = 0   # the count the last warning gave


@dataclass
class LayerStats:
    hits: int = 0
    misses: int = 0  # includes rejected entries and failed reads
    puts: int = 0
    rejected: int = 0
    errors: int = 0


class Cache:
    def __init__(self, local: LocalStore | None, remote: RemoteStore | None, secret: str = "",
                 persistent=None):
        self.local, self.remote, self.secret = local, remote, secret
        self._stats = {layer: LayerStats() for layer in LAYERS}
        self._lock = threading.Lock()
        self._warned: set[str] = set()
        self._remote_writes = True  # False once the server refused a write
        self._rejections = {layer: _Rejections() for layer in LAYERS}
        # counts kept across processes (stats.py): rejected entries here, hits, misses and
        # seconds saved per decision by the engine through record()
        self.persistent = persistent

    def record(self, namespace: str, **counts: float) -> None:
        """Add to the statistics kept across processes (`tuner cache stats`); never raises."""
        if self.persistent is not None:
            try:
                self.persistent.add(namespace, **counts)
            except Exception:  # statistics are never worth a failed lookup
                pass

    @property
    def enabled(self) -> bool:
        return self.local is not None or self.remote is not None

    def get(self, key: CacheKey, check: Callable[[dict], Any] | None = None) -> Any:
        """The validated value stored for `key`, or None; never raises.

        check: turns the stored value into what the caller uses, or returns None (or raises)
        to reject it; a rejected entry is a miss counted as `rejected`, and a remote entry is
        copied locally only once `check` accepted it. get() then returns check's result."""
        return self.lookup(key, check)[0]

    def lookup(self, key: CacheKey, check: Callable[[dict], Any] | None = None,
               remote: bool = True) -> tuple[Any, str | None]:
        """As get(), with the layer that answered: (result, "local" | "remote"), or (None, None);
        remote=False asks the local store only."""
        digest = key.digest()
        for layer in LAYERS if remote else LAYERS[:1]:
            try:
                found = self._read(layer, key, digest, check)
            except Exception as e:  # pragma: no cover - _read catches; the contract says never
                self._count(layer, "errors", "misses")
                self._warn(layer, f"{layer} cache lookup failed ({type(e).__name__}: "
                                  f"{redact(str(e))}); this lookup is a miss")
                continue
            if found is not None:
                entry, result = found
                if layer == "remote":
                    self._write("local", entry)
                return result, layer
        return None, None

    def put(self, key: CacheKey, value: dict) -> None:
        """Store `value` (a JSON object; anything else is a TypeError) in every layer."""
        if self.enabled:
            self.put_entry(encode(key, value, self.secret))

    def put_entry(self, entry: Entry, remote_too: bool = True) -> None:
        """Store an already-built envelope unchanged (import uses this)."""
        self._write("local", entry)
        remote = self.remote if remote_too else None
        if remote is not None and not remote.config.readonly and self._remote_writes:
            self._write("remote", entry)

    def discard(self, key: CacheKey) -> None:
        """Delete `key`'s local entry (an answer that failed to launch); never raises. The
        shared entry stays until a new answer overwrites it: one machine's failure does not
        delete what others may launch fine."""
        if self.local is not None:
            try:
                self.local.delete(key.digest())
            except Exception as e:
                self._failed("local", self.local, e)

    def stats(self) -> dict[str, dict[str, int]]:
        with self._lock:
            return {layer: asdict(s) for layer, s in self._stats.items()}

    def close(self) -> None:
        for layer in LAYERS:  # rejections since the last report
            self._report_rejections(layer, closing=True)
        if self.persistent is not None:
            self.persistent.flush()   # never raises: counts that cannot be written are lost
        for store in (self.local, self.remote):
            if store is not None:
                store.close()

    # -- internals ---------------------------------------------------------------------------

    def _count(self, layer: str, *fields: str) -> None:
        with self._lock:
            s = self._stats[layer]
            for f in fields:
                setattr(s, f, getattr(s, f) + 1)

    def _read(self, layer: str, key: CacheKey, digest: str, check) -> tuple[Entry, Any] | None:
        store = getattr(self, layer)
        if store is None:
            return None
        try:
            raw = store.get(digest)
        except InvalidEntry as e:  # the remote refused a value by its size, unread
            return self._reject(layer, key, str(e))
        except Exception as e:
            self._failed(layer, store, e)
            self._count(layer, "misses")
            return None
        if raw is None:
            self._count(layer, "misses")
            return None
        try:
            entry = decode(raw, self.secret, expect=key)
        except InvalidEntry as e:
            return self._reject(layer, key, str(e))
        try:
            result = entry.value if check is None else check(entry.value)
        except Exception as e:  # whatever a hostile record provokes in the caller's check
            return self._reject(layer, key, f"the caller's check raised {type(e).__name__}")
        if result is None:
            return self._reject(layer, key, "the caller's check refused its value")
        self._count(layer, "hits")
        return entry, result

    def _reject(self, layer: str, key: CacheKey, why: str) -> None:
        """Count a stored entry that must not be used (a miss), and report it now and then."""
        self._count(layer, "rejected", "misses")
        self.record(key.namespace, rejected=1)
        with self._lock:
            r = self._rejections[layer]
            r.count += 1
            if not r.first:  # hostile text: escaped and cut short
                why = printable(why)
                r.first = why if len(why) <= 200 else why[:197] + "..."
        self._report_rejections(layer)
        return None

    def _report_rejections(self, layer: str, closing: bool = False) -> None:
        """Warn with the count so far at the first rejection, then at ten times the count
        last reported; on closing, when there were more since."""
        with self._lock:
            r = self._rejections[layer]
            due = r.count > r.reported and (closing or r.count >= max(1, 10 * r.reported))
            if due:
                r.reported = r.count
            n, first = r.count, r.first
        if not due:
            return
        what = "1 stored entry was" if n == 1 else f"{n} stored entries were"
        later = "" if closing else f"; reported again at {10 * n} and when the cache closes"
        warnings.warn(f"{layer} cache: {what} rejected in this process (the first: {first}); a "
                      f"rejected entry is a miss, tuned again{later}", CacheWarning,
                      stacklevel=5)

    def _write(self, layer: str, entry: Entry) -> None:
        store = getattr(self, layer)
        if store is None:
            return
        try:
            if layer == "local":
                store.put(entry.digest, entry.key.namespace, entry.key.problem, entry.created,
                          entry.text)
            else:
                store.put(entry.digest, entry.text)
        except Exception as e:
            self._failed(layer, store, e, writing=True)
            return
        self._count(layer, "puts")

    def _failed(self, layer: str, store, error: Exception, writing: bool = False) -> None:
        self._count(layer, "errors")
        why = f"{type(error).__name__}: {redact(str(error))}"
        if isinstance(error, ReadOnlyCache):
            self._warn(layer, f"local cache {store.path} is read-only here: its entries are "
                              "used, new answers are not stored")
            return
        if layer == "local":
            self._warn(layer, f"local cache {store.path} failed ({why}); this lookup is a miss")
            return
        url = redact(store.config.url)
        if not _connection_lost(error):  # the server answered: about this command only
            if writing:
                with self._lock:
                    if self.remote is store:
                        self._remote_writes = False
                self._warn("remote-writes", f"remote cache {url} refused a write ({why}); this "
                                            "process stops writing to it and still reads it")
            else:
                self._warn("remote-entry", f"remote cache {url}: a lookup failed ({why}); it is "
                                           "a miss, counted as an error (further ones are not "
                                           "reported), and the remote cache stays on")
            return
        with self._lock:  # several threads may see the same dead server; one switches it off
            if self.remote is not store:
                return
            self.remote = None
        try:
            store.close()
        except Exception:
            pass
        self._warn(layer, f"remote cache {url} failed ({why}); it is off for the rest of "
                          "this process, the local cache goes on")

    def _warn(self, topic: str, message: str) -> None:
        """Warn about `topic` (a layer, or one kind of trouble) once per cache."""
        with self._lock:
            first = topic not in self._warned
            self._warned.add(topic)
        if first:
            warnings.warn(message, CacheWarning, stacklevel=4)


def _connection_lost(error: Exception) -> bool:
    """Whether `error` says the server cannot be used any more (no connection, a timeout, an
    authentication or protocol failure), as opposed to a reply refusing one command (a
    ResponseError: WRONGTYPE, OOM, READONLY, NOPERM ...) or a value redis-py cannot send.
    (Only a remote store raises these, and building one imported redis.)"""
    try:
        import redis
    except ImportError:   # (a store of another kind on an install without redis)
        return True
    if isinstance(error, (redis.ConnectionError, redis.TimeoutError)):  # AUTH errors included
        return True
    return not isinstance(error, (redis.ResponseError, redis.DataError))


# -- the process-wide instance ----------------------------------------------------------------

# The environment the instance was built from: when any of it changes (a test's monkeypatch, a
# forked worker), get_cache() builds a fresh instance instead of using a stale one.
_ENV = ("TUNER_CACHE", "TUNER_CACHE_DIR", "TUNER_REMOTE_CACHE", "TUNER_REDIS_PASSWORD",
        "TUNER_REMOTE_PREFIX", "TUNER_REMOTE_TTL", "TUNER_REMOTE_CONNECT_TIMEOUT",
        "TUNER_REMOTE_READ_TIMEOUT", "TUNER_REMOTE_READONLY", "TUNER_CACHE_SECRET",
        "XDG_CACHE_HOME", "HOME")
_instance: Cache | None = None
_built_for: tuple | None = None
_instance_lock = threading.Lock()
_inherited: list[Cache] = []


def _fingerprint() -> tuple:
    return (os.getpid(), *(os.environ.get(name) for name in _ENV))


def build_cache() -> Cache:
    """A new cache from the current settings; a bad TUNER_* value turns it off with a warning."""
    from .config import settings
    try:
        if not settings.cache:
            return Cache(None, None)
        local, secret = LocalStore(), settings.cache_secret
        config = RemoteConfig.from_settings()
    except ValueError as e:
        warnings.warn(f"tuning cache off: {e}", CacheWarning, stacklevel=3)
        return Cache(None, None)
    from .stats import PersistentStats
    cache = Cache(local, None, secret, PersistentStats(local.path.with_name("stats.db")))
    if config is not None:
        try:
            cache.remote = RemoteStore(config)
        except Exception as e:
            cache.remote = None
            cache._count("remote", "errors")
            cache._warn("remote", f"remote cache off: {redact(str(e))}")
        if cache.remote is not None and not secret:
            _warn_unsigned(config.url)
    return cache


def _warn_unsigned(url: str) -> None:
    global _unsigned_warned
    with _unsigned_lock:
        first, _unsigned_warned = not _unsigned_warned, True
    if first:
        warnings.warn(UNSIGNED_WARNING.format(url=redact(url)), CacheWarning, stacklevel=4)


def get_cache() -> Cache:
    """The process-wide cache, rebuilt whenever the cache settings (or the process) change."""
    fingerprint = _fingerprint()
    with _instance_lock:
        if _instance is None or _built_for != fingerprint:
            _replace(build_cache(), fingerprint)
        return _instance


def reset_cache() -> None:
    """Drop the process-wide instance; the next get_cache() builds a new one."""
    with _instance_lock:
        _replace(None, None)


@atexit.register
def _close_at_exit() -> None:
    """Close the process-wide cache when the interpreter exits: its statistics are written,
    rejections since the last report reported, and the local store's write-ahead log moved
    into cache.db. A thread (a pool's worker, say) may still hold it then, so the
    connection would otherwise stay open to the end. A forked child leaves its parent's alone."""
    try:
        reset_cache()
    except Exception:  # exiting anyway: whatever is left stays in the log, readable next time
        pass


def _replace(cache: Cache | None, fingerprint: tuple | None) -> None:
    global _instance, _built_for
    old, old_pid = _instance, _built_for[0] if _built_for else None
    _instance, _built_for = cache, fingerprint
    if old is None:
        return
    if old_pid == os.getpid():
        old.close()
    else:
        # Inherited through fork: closing the parent's SQLite connection here could checkpoint
        # or unlink its WAL under it, so the child keeps it open and never touches it.
        _inherited.append(old)
