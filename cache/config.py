"""What the cache is told from outside: its settings and how to hide secrets in messages.

The cache decides nothing and imports nothing of the engine: the package that owns the
`TUNER_*` settings installs them here with `configure(settings, redact)`. `import tuner` does
it (tuner/__init__.py), so `tuner.cache` is configured before its first use. The settings
object is read on every use (a test may change the environment between two calls); the
attributes the cache reads are `ATTRIBUTES`. `redact(text)` hides passwords and secrets in
every message that may quote them. Standard library only: installing costs no Redis import.
"""
from __future__ import annotations

from typing import Any, Callable

ATTRIBUTES = ("cache", "cache_dir", "cache_secret", "remote_cache", "redis_password",
              "remote_prefix", "remote_ttl", "remote_connect_timeout", "remote_read_timeout",
              "remote_readonly", "graph_cache_max_mb")

_installed: Any = None
_redact: Callable[[str], str] | None = None


def configure(settings: Any, redact: Callable[[str], str]) -> None:
    """Install the object the cache reads its settings from, and the redaction helper."""
    global _installed, _redact
    _installed, _redact = settings, redact


class _Settings:
    """The installed settings, read attribute by attribute."""

    def __getattr__(self, name: str) -> Any:
        if _installed is None:
            raise RuntimeError("tuner.cache is not configured: import tuner first, or call "
                               "tuner.cache.config.configure(settings, redact)")
        return getattr(_installed, name)


settings = _Settings()


def redact(text: str) -> str:
    """`text` with passwords and secrets replaced by *** (by the installed helper)."""
    if _redact is None:   # never quote what might hold a secret without the helper
        return "(message hidden: the cache has no redaction helper installed)"
    return _redact(text)
