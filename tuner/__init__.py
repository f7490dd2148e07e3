"""tuner: a kernel autotuning service with learned heuristics and its own torch.compile backend."""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("tuner")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+src"


def __getattr__(name):
    # `tuner.autotune` without importing torch/triton for users of the CLI or the cache only.
    if name == "autotune":
        from tuner.autotune import autotune
        return autotune
    raise AttributeError(f"module 'tuner' has no attribute {name!r}")
