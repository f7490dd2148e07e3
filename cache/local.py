"""The local store: raw entry envelopes in one SQLite file, `$TUNER_CACHE_DIR/cache.db`.

WAL mode lets readers run beside a writer and a busy timeout makes concurrent writers from
several processes wait their turn instead of failing. The table name carries the schema
version, so a format change starts from an empty table and never misreads old rows. This
module stores and fetches text; validating it is the caller's job (see entry.py), and errors
are raised to the caller (the layered cache turns them into counted misses).
"""
from __future__ import annotations

import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterator

from .keys import SCHEMA_VERSION

TABLE = f"entries_v{SCHEMA_VERSION}"
BUSY_TIMEOUT_S = 30.0
UPSERT = (f"INSERT INTO [{TABLE}] (digest, namespace, problem, created, entry) VALUES (?,?,?,?,?) "
          "ON CONFLICT(digest) DO UPDATE SET namespace = excluded.namespace, "
          "problem = excluded.problem, created = excluded.created, entry = excluded.entry")


class LocalStore:
    def __init__(self, path: Path | str | None = None):
        if path is None:
            from tuner.settings import settings
            path = Path(settings.cache_dir) / "cache.db"
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        # One connection per store; the lock lets compile threads share it safely.
        self._lock = threading.RLock()

    def _open(self) -> sqlite3.Connection:
        # Plain sqlite3 on the lookup path: sqlite-utils imports pandas (about 0.4 s), which
        # a warm cache hit in a fresh process must not pay. Listing (rows) uses sqlite-utils.
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit: every write below is one statement, hence one short transaction that
            # takes the write lock up front, so the busy timeout applies (a read-then-write
            # transaction could instead fail at once with "database is locked").
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False,
                                   isolation_level=None)
            try:
                self._conn = self._init(conn)
            except BaseException:
                conn.close()
                raise
        return self._conn

    @staticmethod
    def _init(conn: sqlite3.Connection) -> sqlite3.Connection:
        # Processes that open a new file at the same moment race to switch it to WAL and create
        # the table; SQLite reports the loser "locked" without waiting, so it tries again.
        attempt = 0
        while True:
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                # In WAL mode a power cut may lose the last few entries but never corrupts the
                # file; a cache can afford that, and skipping the fsync per entry is much faster.
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(f"CREATE TABLE IF NOT EXISTS [{TABLE}] (digest TEXT PRIMARY KEY, "
                             "namespace TEXT, problem TEXT, created FLOAT, entry TEXT)")
                conn.execute(f"CREATE INDEX IF NOT EXISTS [idx_{TABLE}_namespace] "
                             f"ON [{TABLE}] (namespace)")
                return conn
            except sqlite3.OperationalError as e:
                attempt += 1
                if "locked" not in str(e) or attempt == 100:
                    raise
                time.sleep(0.005 + 0.01 * random.random())

    def get(self, digest: str) -> str | bytes | None:
        with self._lock:
            row = self._open().execute(f"SELECT entry FROM [{TABLE}] WHERE digest = ?",
                                       [digest]).fetchone()
        return None if row is None else row[0]

    def put(self, digest: str, namespace: str, problem: str, created: float, text: str) -> None:
        with self._lock:
            # One atomic statement: a reader sees the whole entry or none of it. (sqlite-utils'
            # upsert probes the schema on every call; this path is hot, so it is spelled out.)
            self._open().execute(UPSERT, [digest, namespace, problem, created, text])

    def _missing(self) -> bool:
        # Listing a cache that was never written must not create its file.
        return self._conn is None and not self.path.exists()

    def rows(self, namespace: str | None = None) -> Iterator[dict]:
        """Every row (oldest first), optionally of one namespace."""
        if self._missing():
            return iter(())
        where, args = ("namespace = ?", [namespace]) if namespace else (None, None)
        import sqlite_utils  # for listing only (it imports pandas)
        with self._lock:
            db = sqlite_utils.Database(self._open())
            rows = list(db[TABLE].rows_where(where, args, order_by="created"))
        return iter(rows)

    def count_by_namespace(self) -> dict[str, int]:
        if self._missing():
            return {}
        with self._lock:
            cur = self._open().execute(
                f"SELECT namespace, COUNT(*) FROM [{TABLE}] GROUP BY namespace ORDER BY namespace")
            return dict(cur.fetchall())

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self._files() if p.exists())

    def clear(self) -> int:
        """Delete every entry; a file that is not a database is removed instead."""
        with self._lock:
            try:
                return self._open().execute(f"DELETE FROM [{TABLE}]").rowcount
            except sqlite3.DatabaseError:
                self.close()
                for p in self._files():
                    p.unlink(missing_ok=True)
                return 0

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _files(self) -> list[Path]:
        return [self.path, self.path.with_name(self.path.name + "-wal"),
                self.path.with_name(self.path.name + "-shm")]
