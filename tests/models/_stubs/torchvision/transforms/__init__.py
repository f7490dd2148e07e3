"""Transform classes are placeholders here (timm.data subclasses and names them at import time)."""
from .._missing import placeholder
from . import functional  # noqa: F401


def __getattr__(name):
    return placeholder(__name__, name)
