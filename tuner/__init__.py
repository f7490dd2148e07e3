"""tuner: a kernel autotuning service with learned heuristics and its own torch.compile backend."""
from importlib.metadata import PackageNotFoundError, version as _version

# cache/, compiler/, heuristics/ and datagen/ are `tuner.cache` & co through setup.py's folder
# mapping: an install (`pip install -e .` for a source checkout, as scripts/setup.sh does) or
# a copy laid out as the package (scripts/bench_compiler.py lay_out_checkout: the GPU
# machine's). Nothing here adds to the package's path: each file loads as one module.

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
