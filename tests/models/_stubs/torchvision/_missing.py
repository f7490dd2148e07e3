"""Placeholders for the torchvision names the stand-in does not implement."""


def placeholder(module: str, name: str):
    """A class (usable as a base class at import time) that raises when instantiated."""
    if name.startswith("_"):
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"{module}.{name} is not available: tests/models/_stubs/torchvision is a stand-in "
            "that only makes timm importable without torchvision")

    return type(name, (), {"__init__": __init__, "__module__": module})
