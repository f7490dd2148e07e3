"""Only ``ops.misc.FrozenBatchNorm2d`` exists in this stand-in (see the package docstring)."""
from . import misc  # noqa: F401
