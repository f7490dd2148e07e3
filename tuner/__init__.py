"""tuner: a kernel autotuning service with learned heuristics and its own torch.compile backend."""
from importlib.metadata import PackageNotFoundError, version as _version
from pathlib import Path as _Path

# Run from a source checkout (its root first on sys.path: `python -m`, scripts' workers, the
# GPU machine's copy), this folder alone lacks cache/, compiler/, heuristics/ and datagen/,
# which setup.py maps into `tuner.*` on install. Searching the checkout root as part of this
# package gives the same mapping without an install.
_root = _Path(__file__).resolve().parent.parent
if (_root / "setup.py").is_file() and (_root / "cache" / "__init__.py").is_file():
    __path__.append(str(_root))  # noqa: F821 (a package's __path__)

try:
    __version__ = _version("tuner")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+src"

# The cache reads no settings of its own: it is handed the TUNER_* settings and the redaction
# helper here, before anything can use it (cheap: neither import loads SQLite stores or Redis).
from tuner.cache import config as _cache_config  # noqa: E402
from tuner.settings import redact as _redact, settings as _settings  # noqa: E402

_cache_config.configure(_settings, _redact)


def __getattr__(name):
    # `tuner.autotune` without importing torch/triton for users of the CLI or the cache only.
    if name == "autotune":
        from tuner.autotuner import autotune
        return autotune
    raise AttributeError(f"module 'tuner' has no attribute {name!r}")
