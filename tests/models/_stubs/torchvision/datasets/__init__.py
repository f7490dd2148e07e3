"""Dataset classes are placeholders here (timm.data imports them; the tests never build one)."""
from .._missing import placeholder


def __getattr__(name):
    return placeholder(__name__, name)
