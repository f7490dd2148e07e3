"""The local store: raw entry envelopes in one SQLite file, `$TUNER_CACHE_DIR/cache.db`.

WAL mode lets readers run beside a writer and a busy timeout makes concurrent writers from
several processes wait their turn instead of failing. The table name carries the schema
version, so a format change starts from an empty table and never misreads old rows. This
module stores and fetches text; validating it is the caller's job (see entry.py), and errors
are raised to the caller (the layered cache turns them into counted misses).

New entries sit in `cache.db-wal` until a checkpoint moves them into `cache.db`. `close`
checkpoints (and the layered cache closes the process-wide instance at exit), so a copy of
cache.db alone, taken after the process ended, holds every entry.

A cache this process cannot write (a CI image's baked cache, a read-only NFS mount) is opened
read-only (`mode=ro`, no WAL switch, no CREATE) and serves hits; writing to it raises
`ReadOnlyCache`. `clear` deletes rows only: a locked or read-only database is an error, and
only a file SQLite says is not a database (or is malformed) may be removed, by
`replace_corrupt`, which checks again first: a file that opens but whose `quick_check` reports
any error (damaged pages in the middle, say) is damaged too.
"""
from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

from .keys import SCHEMA_VERSION

TABLE = f"entries_v{SCHEMA_VERSION}"
BUSY_TIMEOUT_S = 30.0
CHECKPOINT_BUSY_MS = 1000  # closing waits at most this for other processes' readers/writers
UPSERT = (f"INSERT INTO [{TABLE}] (digest, namespace, problem, created, entry) VALUES (?,?,?,?,?) "
          "ON CONFLICT(digest) DO UPDATE SET namespace = excluded.namespace, "
          "problem = excluded.problem, created = excluded.created, entry = excluded.entry")


# SQLite's answers for "this file is not a database / is damaged" (the only files `clear` may
# remove) and for "you may not write here" (the store then opens read-only).
CORRUPT_CODES = {"SQLITE_NOTADB", "SQLITE_CORRUPT"}
READONLY_CODES = {"SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_READONLY_DIRECTORY",
                  "SQLITE_READONLY_DBMOVED", "SQLITE_PERM", "SQLITE_AUTH"}


class ReadOnlyCache(sqlite3.OperationalError):
    """A write to a local cache this process can only read."""


def _named(error: BaseException, codes: set[str]) -> bool:
    name = getattr(error, "sqlite_errorname", "") or ""  # extended names: SQLITE_CORRUPT_VTAB
    return any(name == c or name.startswith(c + "_") for c in codes)


def is_corrupt(error: BaseException) -> bool:
    """Whether SQLite said the file is not a database or is damaged (not locked, not read-only)."""
    return _named(error, CORRUPT_CODES)


def _is_readonly(error: BaseException) -> bool:
    return _named(error, READONLY_CODES)


class LocalStore:
    def __init__(self, path: Path | str | None = None):
        if path is None:
            from .config import settings
            path = Path(settings.cache_dir) / "cache.db"
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        self.readonly: bool | None = None  # known once opened
        self._has_table = True
        # One connection per store; the lock lets compile threads share it safely.
        self._lock = threading.RLock()

    def _open(self) -> sqlite3.Connection | None:
        """The connection; None for a read-only cache that holds no entries (no file or table)."""
        # Plain sqlite3 on the lookup path: sqlite-utils imports pandas (about 0.4 s), which
        # a warm cache hit in a fresh process must not pay. Listing (rows) uses sqlite-utils.
        if self._conn is None and self.readonly is None:
            if self._writable():
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # Autocommit: every write below is one statement, hence one short transaction
                # that takes the write lock up front, so the busy timeout applies (a
                # read-then-write transaction could instead fail at once with "locked").
                conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S,
                                       check_same_thread=False, isolation_level=None)
                try:
                    self._conn, self.readonly = self._init(conn), False
                except sqlite3.OperationalError as e:
                    conn.close()
                    if not _is_readonly(e) or not self.path.exists():
                        raise
                except BaseException:
                    conn.close()
                    raise
            if self._conn is None:
                self._conn, self.readonly = self._open_readonly(), True
        return self._conn

    def _writable(self) -> bool:
        # WAL needs its -wal and -shm files beside the database: the folder must be writable
        folder = self.path.parent
        if self.path.exists():
            return os.access(self.path, os.W_OK) and os.access(folder, os.W_OK)
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        return os.access(folder, os.W_OK)

    def _open_readonly(self) -> sqlite3.Connection | None:
        if not self.path.exists():
            return None
        uri = "file:" + quote(str(self.path.resolve())) + "?mode=ro"
        # A WAL database in a folder nobody can write has no -shm file for readers to share;
        # SQLite then only opens it as immutable (a baked cache does not change under us).
        for suffix in ("", "&immutable=1"):
            conn = sqlite3.connect(uri + suffix, uri=True, timeout=BUSY_TIMEOUT_S,
                                   check_same_thread=False, isolation_level=None)
            try:
                found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                     "name = ?", [TABLE]).fetchone()
            except sqlite3.OperationalError as e:
                conn.close()
                if suffix or not _is_readonly(e):
                    raise
                continue
            except BaseException:
                conn.close()
                raise
            self._has_table = found is not None
            return conn
        return None  # pragma: no cover - the loop returns or raises

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

    def _reader(self) -> sqlite3.Connection | None:
        conn = self._open()
        return conn if conn is not None and self._has_table else None

    def get(self, digest: str) -> str | bytes | None:
        with self._lock:
            conn = self._reader()
            if conn is None:
                return None
            row = conn.execute(f"SELECT entry FROM [{TABLE}] WHERE digest = ?",
                               [digest]).fetchone()
        return None if row is None else row[0]

    def _writer(self) -> sqlite3.Connection:
        conn = self._open()
        if self.readonly or conn is None:
            raise ReadOnlyCache(f"{self.path} is read-only here")
        return conn

    def put(self, digest: str, namespace: str, problem: str, created: float, text: str) -> None:
        with self._lock:
            # One atomic statement: a reader sees the whole entry or none of it. (sqlite-utils'
            # upsert probes the schema on every call; this path is hot, so it is spelled out.)
            self._writer().execute(UPSERT, [digest, namespace, problem, created, text])

    def delete(self, digest: str) -> None:
        with self._lock:
            self._writer().execute(f"DELETE FROM [{TABLE}] WHERE digest = ?", [digest])

    def trim(self, namespace: str, max_bytes: int) -> int:
        """Delete `namespace`'s oldest entries until its entries hold at most `max_bytes`
        (their stored text); the number deleted. Raises ReadOnlyCache on a read-only cache."""
        with self._lock:
            conn = self._writer()
            rows = conn.execute(f"SELECT digest, length(CAST(entry AS BLOB)) FROM [{TABLE}] "
                                "WHERE namespace = ? ORDER BY created DESC, rowid DESC",
                                [namespace]).fetchall()
            kept, drop = 0, []
            for digest, size in rows:
                kept += size or 0
                if kept > max_bytes:
                    drop.append(digest)
            for i in range(0, len(drop), 500):
                part = drop[i:i + 500]
                conn.execute(f"DELETE FROM [{TABLE}] WHERE digest IN ({','.join('?' * len(part))})",
                             part)
            return len(drop)

    def _missing(self) -> bool:
        # Listing a cache that was never written must not create its file.
        return self._conn is None and not self.path.exists()

    def rows(self, namespace: str | None = None, *, newest_first: bool = False,
             limit: int | None = None) -> Iterator[dict]:
        """Every row (oldest first, or newest first), optionally of one namespace; at most
        `limit` rows (None: all), chosen by SQLite so that only those are read."""
        if self._missing():
            return iter(())
        where, args = ("namespace = ?", [namespace]) if namespace is not None else (None, None)
        import sqlite_utils  # for listing only (it imports pandas)
        with self._lock:
            conn = self._reader()
            if conn is None:
                return iter(())
            db = sqlite_utils.Database(conn)
            order = "created DESC, rowid DESC" if newest_first else "created"
            rows = list(db[TABLE].rows_where(where, args, order_by=order, limit=limit))
        return iter(rows)

    def count(self, namespace: str | None = None) -> int:
        """How many rows (of one namespace, or all)."""
        if self._missing():
            return 0
        where, args = (" WHERE namespace = ?", [namespace]) if namespace is not None else ("", [])
        with self._lock:
            conn = self._reader()
            if conn is None:
                return 0
            return conn.execute(f"SELECT COUNT(*) FROM [{TABLE}]{where}", args).fetchone()[0]

    def count_by_namespace(self) -> dict[str, int]:
        if self._missing():
            return {}
        with self._lock:
            conn = self._reader()
            if conn is None:
                return {}
            cur = conn.execute(
                f"SELECT namespace, COUNT(*) FROM [{TABLE}] GROUP BY namespace ORDER BY namespace")
            return dict(cur.fetchall())

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self._files() if p.exists())

    def clear(self) -> int:
        """Delete every entry; the number deleted. Raises ReadOnlyCache on a read-only cache,
        sqlite3.OperationalError ("database is locked") when another process holds it, and a
        sqlite3.DatabaseError that `is_corrupt` recognises when the file is not a database:
        nothing is ever removed here."""
        with self._lock:
            if self._missing():
                return 0
            return self._writer().execute(f"DELETE FROM [{TABLE}]").rowcount

    def replace_corrupt(self) -> int:
        """Remove the database file (and its -wal/-shm) if, checked afresh, SQLite says it is
        not a database or is malformed, or its quick_check finds damage; the bytes removed.
        Raises ValueError, removing nothing, for a file that is sound, locked or read-only."""
        with self._lock:
            self.close()
            conn = sqlite3.connect(f"file:{quote(str(self.path.resolve()))}?mode=ro", uri=True)
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                # quick_check reports damage as rows of text (one "ok" when there is none);
                # it raises only when it cannot read the file at all
                found = conn.execute("PRAGMA quick_check(1)").fetchone()
            except sqlite3.DatabaseError as e:
                if not is_corrupt(e):
                    raise ValueError(f"{self.path}: {e}: not removed") from None
            else:
                if found is not None and found[0] == "ok":
                    raise ValueError(f"{self.path} is a readable database: not removed")
            finally:
                conn.close()
            if not os.access(self.path.parent, os.W_OK):
                raise ValueError(f"{self.path} is damaged but its folder is read-only: "
                                 "not removed")
            removed = 0
            for p in self._files():
                if p.exists():
                    removed += p.stat().st_size
                    p.unlink()
            return removed

    def close(self) -> None:
        """Checkpoint the write-ahead log into the database file (best effort) and close."""
        with self._lock:
            if self._conn is not None:
                if self.readonly is False:
                    self._checkpoint(self._conn)
                self._conn.close()
            self._conn, self.readonly, self._has_table = None, None, True

    @staticmethod
    def _checkpoint(conn: sqlite3.Connection) -> None:
        # SQLite checkpoints by itself when the last connection to the file closes; this one
        # may not be the last (another process, or another connection here, still reads it),
        # and a process can end without closing it. TRUNCATE also empties the -wal file.
        try:
            conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_BUSY_MS}")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error:  # busy, damaged: the entries stay in the log, nothing is lost
            pass

    def _files(self) -> list[Path]:
        return [self.path, self.path.with_name(self.path.name + "-wal"),
                self.path.with_name(self.path.name + "-shm")]
