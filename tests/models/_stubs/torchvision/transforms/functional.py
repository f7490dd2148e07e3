"""``InterpolationMode`` is real (timm builds tables of it at import time); the rest are
placeholders that raise when called."""
import enum

from .._missing import placeholder


class InterpolationMode(enum.Enum):
    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


def __getattr__(name):
    return placeholder(__name__, name)
