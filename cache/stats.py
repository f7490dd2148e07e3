"""Cache statistics kept across processes, like `sccache --show-stats`: per namespace, the
decisions answered from the local or the shared cache, the misses, the entries rejected, and
the seconds of tuning the hits saved (the tuning time recorded in each entry they used).

They live in `$TUNER_CACHE_DIR/stats.db`, a small SQLite file beside cache.db (its own file:
clearing or replacing the cache leaves them, `tuner cache stats --reset` clears them). A
process counts in memory and adds its counts in one transaction at exit and at most every
FLUSH_EVERY_S while it runs, so a lookup costs a dict update. Statistics are best effort: a
folder that cannot be written, a locked or broken file only loses counts, never raises.
"""
from __future__ import annotations

import atexit
import os
import sqlite3
import threading
import time
import weakref
from collections import Counter
from pathlib import Path

FIELDS = ("hits_local", "hits_remote", "misses", "rejected", "saved_s")
TABLE = "stats_v1"
FLUSH_EVERY_S = 30.0
_CREATE = (f"CREATE TABLE IF NOT EXISTS [{TABLE}] (namespace TEXT PRIMARY KEY, "
           + ", ".join(f"{f} {'REAL' if f == 'saved_s' else 'INTEGER'} NOT NULL DEFAULT 0"
                       for f in FIELDS) + ")")
_ADD = (f"INSERT INTO [{TABLE}] (namespace, {', '.join(FIELDS)}) VALUES (?{', ?' * len(FIELDS)}) "
        "ON CONFLICT(namespace) DO UPDATE SET "
        + ", ".join(f"{f} = {f} + excluded.{f}" for f in FIELDS))
_live: "weakref.WeakSet[PersistentStats]" = weakref.WeakSet()


def stats_path(cache_dir: Path | str) -> Path:
    return Path(cache_dir) / "stats.db"


class PersistentStats:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self._pending: dict[str, Counter] = {}
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._last_flush = time.monotonic()
        _live.add(self)

    def add(self, namespace: str, **counts: float) -> None:
        """Count for `namespace` (hits_local=1, saved_s=2.5, ...); flushes now and then."""
        with self._lock:
            c = self._pending.setdefault(str(namespace), Counter())
            for name, n in counts.items():
                if name in FIELDS and n:
                    c[name] += n
            due = time.monotonic() - self._last_flush >= FLUSH_EVERY_S
        if due:
            self.flush()

    def flush(self) -> bool:
        """Add the pending counts to the file; False (counts kept for the next try) on failure."""
        with self._lock:
            self._last_flush = time.monotonic()
            if os.getpid() != self._pid:   # a forked child: the counts are its parent's
                self._pending, self._pid = {}, os.getpid()
                return True
            if not self._pending:
                return True
            pending, self._pending = self._pending, {}
        try:
            conn = _connect(self.path, create=True)
            try:
                with conn:
                    conn.executemany(_ADD, [[ns, *(c.get(f, 0) for f in FIELDS)]
                                            for ns, c in pending.items()])
            finally:
                conn.close()
            return True
        except Exception:  # read-only folder, locked, broken file: the counts wait or are lost
            with self._lock:
                for ns, c in pending.items():
                    self._pending.setdefault(ns, Counter()).update(c)
            return False


def _connect(path: Path, create: bool) -> sqlite3.Connection:
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=2.0)
    if create:
        conn.execute(_CREATE)
    return conn


class DamagedStats(ValueError):
    """stats.db holds what no flush writes (text in a count, say)."""


def read(path: Path | str) -> dict[str, dict[str, float]]:
    """namespace -> {field: total} as stored (empty when there is no file yet). Raises
    DamagedStats, naming the first bad row, when a count is not a number."""
    path = Path(path)
    if not path.exists():
        return {}
    from urllib.parse import quote
    conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True, timeout=2.0)
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [TABLE]).fetchone() is None:
            return {}
        rows = conn.execute(f"SELECT namespace, {', '.join(FIELDS)} FROM [{TABLE}] "
                            "ORDER BY namespace").fetchall()
    finally:
        conn.close()
    out = {}
    for namespace, *counts in rows:
        for field, value in zip(FIELDS, counts):
            if not isinstance(value, (int, float)) or not isinstance(namespace, str):
                raise DamagedStats(f"{path} is damaged: {field} of namespace {namespace!r} "
                                   f"holds {type(value).__name__}, not a number (`tuner cache "
                                   "stats --reset` starts it afresh)")
        out[namespace] = dict(zip(FIELDS, counts))
    return out


def reset(path: Path | str) -> int:
    """Delete every count; the number of namespaces cleared."""
    path = Path(path)
    if not path.exists():
        return 0
    conn = sqlite3.connect(path, timeout=2.0)
    try:
        with conn:
            conn.execute(_CREATE)
            return conn.execute(f"DELETE FROM [{TABLE}]").rowcount
    finally:
        conn.close()


@atexit.register
def _flush_all() -> None:
    for s in list(_live):
        s.flush()
