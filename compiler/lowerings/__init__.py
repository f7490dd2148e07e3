"""Lowerings by family; importing this package fills `tuner.compiler.lowering.LOWERINGS`."""
from . import pointwise, views, reductions, builders, indexing, matmul, foreach, conv  # noqa: F401
