"""The remote store: raw entry envelopes in a shared Redis, under `TUNER_REMOTE_PREFIX`.

The connection comes from `TUNER_REMOTE_CACHE` (redis:// or rediss:// for TLS); the password
is taken from the URL, else from `TUNER_REDIS_PASSWORD`, and is never written anywhere (every
message that may quote the URL goes through `redact`, the project's one redaction helper).
Timeouts are short and redis-py's own retries are off: a slow or dead server must cost one
timeout, after which the layered cache switches this store off. Errors are raised to the
caller; validating what comes back is the caller's job too.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from .config import redact  # noqa: F401  (re-exported: the cache's messages use it)


@dataclass
class RemoteConfig:
    url: str
    password: str = ""
    prefix: str = "tuner:"
    ttl: int = 0
    connect_timeout: float = 1.0
    read_timeout: float = 1.0
    readonly: bool = False

    @classmethod
    def from_settings(cls) -> "RemoteConfig | None":
        from .config import settings
        if not settings.remote_cache:
            return None
        return cls(settings.remote_cache, settings.redis_password, settings.remote_prefix,
                   settings.remote_ttl, settings.remote_connect_timeout,
                   settings.remote_read_timeout, settings.remote_readonly)


class RemoteStore:
    def __init__(self, config: RemoteConfig):
        if urlsplit(config.url).scheme not in ("redis", "rediss"):
            raise ValueError(f"TUNER_REMOTE_CACHE={redact(config.url)!r}: "
                             "expected a redis:// or rediss:// URL")
        self.config = config
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
        return self.client.get(self.name(digest))

    def put(self, digest: str, text: str) -> None:
        ttl = self.config.ttl if self.config.ttl > 0 else None
        self.client.set(self.name(digest), text.encode(), ex=ttl)

    def digests(self) -> list[str]:
        """Every digest under the prefix (SCAN, so a large shared server is never blocked)."""
        n = len(self.config.prefix)
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", self.config.prefix) + "*"
        return [k[n:].decode() for k in self.client.scan_iter(match=pattern, count=1000)]

    def clear(self) -> int:
        names = [self.name(d) for d in self.digests()]
        for i in range(0, len(names), 1000):
            self.client.delete(*names[i:i + 1000])
        return len(names)

    def close(self) -> None:
        self.client.close()
