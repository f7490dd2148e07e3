"""Lowerings by family; importing this package fills `tuner.compiler.lowering.LOWERINGS`."""
from . import (pointwise, views, reductions, scans, builders, indexing, matmul,  # noqa: F401
               foreach, conv, selection, random, pool_backward, sorting, counting)
