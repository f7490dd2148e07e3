"""A stand-in for torchvision, used only by tests/models (see tests/models/conftest.py).

PyPI's torchvision wheels are built against a different torch than our CPU build and cannot
be loaded here (and installing one pulls a CUDA torch over ours). timm imports torchvision
when it is imported: ``torchvision.ops.misc.FrozenBatchNorm2d`` for its layers, and
``torchvision.datasets`` / ``torchvision.transforms`` for ``timm.data``, which its model
modules import for constants. This package makes those imports work:

- ``ops.misc.FrozenBatchNorm2d`` is a real, working module of our own;
- ``transforms.functional.InterpolationMode`` is a real enum (used at import time);
- every other name in ``datasets``, ``transforms`` and ``transforms.functional`` is a
  placeholder that raises when it is called or instantiated: the model tests never use them.

``torchvision.models`` does not exist here: timm imports its feature extraction inside a
``try`` and goes on without it.
"""
__version__ = "0.0.0+tuner.stub"
