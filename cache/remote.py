"""The remote store: raw entry envelopes in a shared Redis, under `TUNER_REMOTE_PREFIX`.

The connection comes from `TUNER_REMOTE_CACHE` (redis:// or rediss:// for TLS); the password
is taken from the URL, else from `TUNER_REDIS_PASSWORD`, and is never written anywhere (every
message that may quote the URL goes through `redact`, the project's one redaction helper, and
`RemoteConfig`'s repr hides both). A URL whose password holds an unencoded '/', '?', '#' or '@'
is refused: its authority would end inside the password, and redis-py would connect to a host
read from it (and name it in its error). An empty (or blank) prefix is refused too: every key
of the server, other applications' included, would then be the cache's to list and clear.

Timeouts are short and redis-py's own retries are off: a slow or dead server must cost one
timeout, after which the layered cache switches this store off. Errors are raised to the
caller; validating what comes back is the caller's job too, except its size: a value over
MAX_ENTRY_BYTES is refused (`EntryTooLarge`) after reading its length and at most FIRST_READ
bytes of it, and remembered, so this process never asks for it again. Keys under the prefix
are listed and deleted by their raw names: one whose name is not UTF-8 text is no digest, and
is skipped (and counted) where digests are listed.

redis-py is imported when a store is built, not with this module: a tuner without a shared
cache (the redis package missing from a broken install, say) still tunes and compiles; with
TUNER_REMOTE_CACHE set, building the store then fails with a message naming the package, and
the layered cache goes on without the remote, as for a dead server.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Iterator
from urllib.parse import urlsplit

from .config import redact  # noqa: F401  (re-exported: the cache's messages use it)
from .entry import MAX_ENTRY_BYTES, InvalidEntry

# One round trip (STRLEN and GETRANGE, pipelined) reads a value up to this size whole, and the
# size of a larger one; a record is a few KiB. A value between this and MAX_ENTRY_BYTES costs
# a second round trip, a larger one none.
FIRST_READ = 64 << 10


class RemoteUnavailable(RuntimeError):
    """A remote store that cannot be built on this install (the redis package missing)."""


class EntryTooLarge(InvalidEntry):
    """A remote value over MAX_ENTRY_BYTES, rejected without downloading it."""


@dataclass(repr=False)
class RemoteConfig:
    url: str
    password: str = ""
    prefix: str = "tuner:"
    ttl: int = 0
    connect_timeout: float = 1.0
    read_timeout: float = 1.0
    readonly: bool = False

    def __repr__(self) -> str:  # a repr ends up in logs and tracebacks: no password in it
        hidden = {"url": redact(self.url), "password": "***" if self.password else ""}
        return "RemoteConfig(" + ", ".join(
            f"{f.name}={hidden.get(f.name, getattr(self, f.name))!r}" for f in fields(self)) + ")"

    @classmethod
    def from_settings(cls) -> "RemoteConfig | None":
        from .config import settings
        if not settings.remote_cache:
            return None
        return cls(settings.remote_cache, settings.redis_password, settings.remote_prefix,
                   settings.remote_ttl, settings.remote_connect_timeout,
                   settings.remote_read_timeout, settings.remote_readonly)


def check_url(url: str) -> None:
    """Raises ValueError, quoting no password, for a URL that is not redis:// or rediss://, or
    whose user:password part holds an unencoded '/', '?', '#' or '@' (the authority, as
    urlsplit and redis-py read it, then ends inside the password: an '@' shows up after it)."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        raise ValueError(f"TUNER_REMOTE_CACHE={redact(url)!r}: "
                         "expected a redis:// or rediss:// URL")
    rest = url.partition("://")[2]
    host_end = min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))
    if "@" in rest[host_end:]:
        raise ValueError("TUNER_REMOTE_CACHE: the password (or user name) holds an unencoded "
                         "'/', '?', '#' or '@', so the host would be read from inside it: "
                         "percent-encode them ('/' as %2F, '?' as %3F, '#' as %23, '@' as %40)")


def check_prefix(prefix: str) -> None:
    """Raises ValueError, naming the setting, for an empty or blank prefix."""
    if not prefix.strip():
        raise ValueError("TUNER_REMOTE_PREFIX is empty: every key of the Redis, other "
                         "applications' too, would be under it (and `tuner cache clear "
                         "--remote` would delete them); set a prefix such as 'tuner:'")


class RemoteStore:
    def __init__(self, config: RemoteConfig):
        check_prefix(config.prefix)
        check_url(config.url)
        self.config = config
        self._too_large: dict[str, str] = {}  # digest -> why, for the rest of the process
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError as e:
            raise RemoteUnavailable(f"TUNER_REMOTE_CACHE is set but the redis package cannot be "
                                    f"imported ({e}): pip install 'redis>=5.0'") from None
        try:
            extra = {}
            if config.password and urlsplit(config.url).password is None:
                extra["password"] = config.password
            # from_url connects lazily: the first command is where a dead server shows up.
            self.client = redis.Redis.from_url(
                config.url, socket_connect_timeout=config.connect_timeout,
                socket_timeout=config.read_timeout, retry=Retry(NoBackoff(), 0), **extra)
        except ValueError:  # a bad port, say; its message may quote part of the password
            raise ValueError(f"TUNER_REMOTE_CACHE={redact(config.url)!r} is not a valid URL (a bad "
                             "port, or a password with an unencoded '#', '/', '?' or '@': "
                             "percent-encode them)") from None

    def name(self, digest: str) -> str:
        return self.config.prefix + digest

    def get(self, digest: str) -> bytes | None:
        """The stored bytes, or None when there are none (an empty value reads as none).
        Raises EntryTooLarge for a value over MAX_ENTRY_BYTES, which is not downloaded, and
        then again for that digest without asking the server."""
        if digest in self._too_large:
            raise EntryTooLarge(self._too_large[digest])
        name = self.name(digest)
        # One round trip. Not a MULTI: a server at maxmemory refuses every command queued in
        # one, reads too. The value may change between the two: GETRANGE's answer is then
        # the newer one, and whole when shorter than what was asked for.
        pipe = self.client.pipeline(transaction=False)
        pipe.strlen(name)
        pipe.getrange(name, 0, FIRST_READ - 1)
        size, value = pipe.execute()
        if len(value) < FIRST_READ or size <= FIRST_READ:
            return value or None
        if size <= MAX_ENTRY_BYTES:  # a large entry: read it again whole, still bounded
            value = self.client.getrange(name, 0, MAX_ENTRY_BYTES)
            if len(value) <= MAX_ENTRY_BYTES:
                return value or None
            size = len(value)  # replaced by a larger one meanwhile: at least this
        why = f"{size} bytes, over the limit of {MAX_ENTRY_BYTES} (not downloaded)"
        self._too_large[digest] = why
        raise EntryTooLarge(why)

    def put(self, digest: str, text: str) -> None:
        ttl = self.config.ttl if self.config.ttl > 0 else None
        self.client.set(self.name(digest), text.encode(), ex=ttl)
        self._too_large.pop(digest, None)

    def names(self) -> Iterator[bytes]:
        """The raw name of every key under the prefix, whatever bytes it holds (SCAN, so a
        large shared server is never blocked)."""
        check_prefix(self.config.prefix)
        prefix = self.config.prefix.encode()
        pattern = re.sub(rb"([*?\[\]\\])", rb"\\\1", prefix) + b"*"
        for name in self.client.scan_iter(match=pattern, count=1000):
            if name.startswith(prefix):  # a delete never trusts the pattern alone
                yield name

    def listing(self) -> tuple[list[str], int]:
        """(every digest under the prefix, how many keys under it were skipped because their
        name is not UTF-8 text, hence no digest)."""
        n, digests, skipped = len(self.config.prefix.encode()), [], 0
        for name in self.names():
            try:
                digests.append(name[n:].decode())
            except UnicodeDecodeError:
                skipped += 1
        return digests, skipped

    def digests(self) -> list[str]:
        """Every digest under the prefix (keys whose name is not UTF-8 text skipped)."""
        return self.listing()[0]

    def clear(self) -> int:
        """Delete every key under the prefix, by its raw name; the number deleted."""
        names, deleted = list(self.names()), 0
        for i in range(0, len(names), 1000):
            deleted += self.client.delete(*names[i:i + 1000])
        return deleted

    def close(self) -> None:
        self.client.close()
